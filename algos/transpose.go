package algos

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
)

// trLeafArea bounds the elements of a leaf transposition: a 64×64 leaf
// reads 32 KiB and writes 32 KiB, which fit in L1/L2 together, so the
// strided writes of dst hit cache lines that the next rows reuse.
const trLeafArea = 64 * 64

type trArg struct{ dst, src block }

var trTask *forkjoin.Func[trArg, struct{}]

func init() { trTask = forkjoin.NewFunc(transpose) }

// transpose halves src along its longer side, in parallel, down to leaves.
func transpose(w *forkjoin.Worker, x trArg) struct{} {
	m, n := x.src.rows, x.src.cols
	switch {
	case m*n <= trLeafArea:
		for i := range m {
			for j, v := range x.src.data[i*x.src.stride : i*x.src.stride+n] {
				x.dst.data[j*x.dst.stride+i] = v
			}
		}
	case m >= n:
		h := m / 2
		trTask.Join(w,
			trArg{dst: x.dst.sub(0, n, 0, h), src: x.src.sub(0, h, 0, n)},
			trArg{dst: x.dst.sub(0, n, h, m), src: x.src.sub(h, m, 0, n)})
	default:
		h := n / 2
		trTask.Join(w,
			trArg{dst: x.dst.sub(0, h, 0, m), src: x.src.sub(0, m, 0, h)},
			trArg{dst: x.dst.sub(h, n, 0, m), src: x.src.sub(0, m, h, n)})
	}
	return struct{}{}
}

// Transpose sets dst to the transpose of src, recursively halving the
// longer side in parallel so that every leaf block is read and written
// within cache whatever the sizes (cache-oblivious). dst must be c(src)×r(src),
// or empty (then it is resized), and must not share memory with src;
// otherwise Transpose panics naming the shapes or the overlap.
func Transpose(w *forkjoin.Worker, dst, src *mat.Dense) {
	if src.IsEmpty() {
		panic("algos: Transpose: src is empty")
	}
	r, c := src.Dims()
	if dst.IsEmpty() {
		dst.ReuseAs(c, r)
	}
	if dr, dc := dst.Dims(); dr != c || dc != r {
		panic(fmt.Sprintf("algos: Transpose shape mismatch: dst is %d×%d, want %d×%d for src %d×%d", dr, dc, c, r, r, c))
	}
	x := trArg{dst: rawBlock(dst), src: rawBlock(src)}
	if x.dst.overlaps(x.src) {
		panic("algos: Transpose: dst shares memory with src; transposing in place needs a separate destination")
	}
	transpose(w, x)
}
