package algos

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/gemm"
)

// mmSerialVolume is the m·n·k at and below which a product is computed at
// once by gemm.Mul, on the calling worker: a few forks and a parallel
// packing loop cost as much as some hundred thousand multiply-adds.
const mmSerialVolume = 64 * 128 * 128

// mmSplitKVolume is the m·n·k from which a product whose c is a single leaf
// splits its inner dimension (the Gram matrix aᵀa of a tall a, say): half
// of it runs on one core in about a quarter of a millisecond, which repays
// the scratch block and the addition.
const mmSplitKVolume = 1 << 24

// mmPackBudget bounds the floats of a product's packed operands (see
// gemm.Depth); tests lower it to reach the chunked paths, never below
// 256·(2·12+2·16) floats: halving c, which needs a side of 12 rows or 16
// columns, must reach a block whose slice of 256 fits.
var mmPackBudget = gemm.Budget

// mmProduct sets c = a·b. It packs a and b (in chunks of the inner
// dimension that fit mmPackBudget), in parallel, and then multiplies the
// blocks of c from the packed operands, in parallel (matmul). Every block
// reads the same packed panels, so dividing c finer for balance packs
// nothing twice. Each chunk is two fork-join phases, the packing and the
// products, since no block can start before the panels it reads are packed.
func mmProduct(w *forkjoin.Worker, c, a, b block) {
	m, n, k := c.rows, c.cols, a.cols
	if m*n*k <= mmSerialVolume {
		gemm.Mul(m, n, k, a.data, a.stride, b.data, b.stride, c.data, c.stride, false)
		return
	}
	if m <= mmLeafRows && n <= mmLeafCols && m*n*k >= mmSplitKVolume {
		// c is one leaf, so its blocks give no parallelism, and k is long:
		// halve k instead, in parallel, the second half into scratch that
		// is then added to c.
		h := k / 2
		t := newBlock(m, n)
		forkjoin.Do(w,
			func(w *forkjoin.Worker) { mmProduct(w, c, a.sub(0, m, 0, h), b.sub(0, h, 0, n)) },
			func(w *forkjoin.Worker) { mmProduct(w, t, a.sub(0, m, h, k), b.sub(h, k, 0, n)) })
		addBlocks(c, c, t, 1)
		return
	}
	depth := gemm.Depth(m, n, k, mmPackBudget)
	if depth == 0 {
		// Too wide to pack even one slice of k within the budget:
		// multiply the halves of c one after the other.
		if m >= n {
			h := halfAt(m, gemm.MR)
			mmProduct(w, c.sub(0, h, 0, n), a.sub(0, h, 0, k), b)
			mmProduct(w, c.sub(h, m, 0, n), a.sub(h, m, 0, k), b)
		} else {
			h := halfAt(n, gemm.NR)
			mmProduct(w, c.sub(0, m, 0, h), a, b.sub(0, k, 0, h))
			mmProduct(w, c.sub(0, m, h, n), a, b.sub(0, k, h, n))
		}
		return
	}
	leaf := mmLeafFor(m, n, w.Pool().Workers())
	p := gemm.GetPacked(m, n, depth)
	for k0 := 0; k0 < k; k0 += depth {
		d := min(depth, k-k0)
		p.Reset(d)
		ac, bc := a.sub(0, m, k0, k0+d), b.sub(k0, k0+d, 0, n)
		na := p.APanels()
		forkjoin.ForRange(w, 0, na+p.BPanels(), 0, func(_ *forkjoin.Worker, lo, hi int) {
			if lo < na {
				p.PackA(ac.data, ac.stride, lo, min(hi, na))
			}
			if hi > na {
				p.PackB(bc.data, bc.stride, max(lo, na)-na, hi-na)
			}
		})
		matmul(w, mmArg{p: p, c: c, i1: m, j1: n, add: k0 > 0, leaf: leaf})
	}
	gemm.PutPacked(p)
}

// The leaves of the split are blocks of c of at most mmLeafRows×mmLeafCols.
// A leaf brings each block of up to 120 rows of packed a into L2 once per
// kc-slice and reuses it for all its columns, and keeps its own block of c
// (1 MiB at most) in cache from one slice of the chunk to the next; smaller
// leaves would balance the workers better and reuse less (a 1024×1024
// product has 8; 128×256 leaves measured no faster on 2 cores).
const (
	mmLeafRows = 256
	mmLeafCols = 512
)

// mmLeafFor returns the leaf size for an m×n c on a pool of the given
// workers: mmLeafRows×mmLeafCols, halved (columns first, down to 64×128)
// while c would have fewer than 4 leaves a worker, so that on many workers
// each still gets several.
func mmLeafFor(m, n, workers int) [2]int {
	r, c := mmLeafRows, mmLeafCols
	for ceilDiv(m, r)*ceilDiv(n, c) < 4*workers {
		switch {
		case c >= 2*r && c > 128:
			c /= 2
		case r > 64:
			r /= 2
		default:
			return [2]int{r, c}
		}
	}
	return [2]int{r, c}
}

func ceilDiv(x, y int) int { return (x + y - 1) / y }

// mmArg is a block of c, rows [i0, i1) and columns [j0, j1), to compute
// from the packed chunk p, down to leaves of at most leaf[0]×leaf[1]: set,
// or added to when add is set.
type mmArg struct {
	p              *gemm.Packed
	c              block // all of c
	i0, i1, j0, j1 int
	leaf           [2]int
	add            bool
}

var mmTask *forkjoin.Func[mmArg, struct{}]

func init() { mmTask = forkjoin.NewFunc(matmul) }

// matmul halves its block of c, in parallel, along the dimension that is the
// larger multiple of its leaf size, down to leaves. The cuts fall on
// multiples of the micro-kernel's tile (gemm.MR rows, gemm.NR columns), as
// Packed.Mul requires, so that only the leaves at c's right and bottom edges
// have partial tiles.
func matmul(w *forkjoin.Worker, x mmArg) struct{} {
	m, n := x.i1-x.i0, x.j1-x.j0
	if m <= x.leaf[0] && n <= x.leaf[1] {
		x.p.Mul(x.c.data, x.c.stride, x.i0, x.i1, x.j0, x.j1, x.add)
		return struct{}{}
	}
	first, second := x, x
	if m*x.leaf[1] >= n*x.leaf[0] {
		first.i1 = x.i0 + halfAt(m, gemm.MR)
		second.i0 = first.i1
	} else {
		first.j1 = x.j0 + halfAt(n, gemm.NR)
		second.j0 = first.j1
	}
	mmTask.Join(w, first, second)
	return struct{}{}
}

// halfAt returns the multiple of align nearest n/2, for n >= 2·align.
func halfAt(n, align int) int {
	return (n/2 + align/2) / align * align
}

// MatMul sets c to the matrix product a·b. It packs a and b for a
// cache-blocked micro-kernel (package internal/gemm: AVX2 and FMA assembly
// where the CPU has them, plain Go elsewhere), in parallel, then halves c
// into blocks, in parallel, and multiplies each block from the packed
// operands. Views (from Slice) are fine for all three. Each element is a
// dot product summed in order of k in slices of 256 terms, whatever the
// number of workers, so it may differ from gonum's in the last bits, within
// the error bound of any summation order, k·u·(|a|·|b|)ᵢⱼ to first order
// (u = 2⁻⁵³).
//
// c must be r(a)×c(b), or empty (then it is resized, as gonum's Mul does);
// otherwise MatMul panics naming the shapes. c must not share memory with a
// or b: MatMul panics rather than compute a product from a half-overwritten
// operand.
func MatMul(w *forkjoin.Worker, c, a, b *mat.Dense) {
	if a.IsEmpty() || b.IsEmpty() {
		panic(fmt.Sprintf("algos: MatMul: empty operand (a empty: %v, b empty: %v)", a.IsEmpty(), b.IsEmpty()))
	}
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ac != br {
		panic(fmt.Sprintf("algos: MatMul shape mismatch: a is %d×%d, b is %d×%d (columns of a must equal rows of b)", ar, ac, br, bc))
	}
	if c.IsEmpty() {
		c.ReuseAs(ar, bc)
	}
	if cr, cc := c.Dims(); cr != ar || cc != bc {
		panic(fmt.Sprintf("algos: MatMul shape mismatch: c is %d×%d, want %d×%d for a (%d×%d) times b (%d×%d)", cr, cc, ar, bc, ar, ac, br, bc))
	}
	cb, ab, bb := rawBlock(c), rawBlock(a), rawBlock(b)
	if cb.overlaps(ab) {
		panic("algos: MatMul: c shares memory with a; the product needs a separate destination")
	}
	if cb.overlaps(bb) {
		panic("algos: MatMul: c shares memory with b; the product needs a separate destination")
	}
	mmProduct(w, cb, ab, bb)
}
