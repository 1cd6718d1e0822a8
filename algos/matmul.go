package algos

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/gemm"
)

// The leaves of the split are blocks of c of at most mmLeafRows×mmLeafCols,
// each multiplied by gemm.Mul over the whole inner dimension. A leaf packs
// its rows of a once per kc-deep slice and shares them over all its columns,
// and its columns of b over all its rows, so the packing costs about
// (1/mmLeafRows + 1/mmLeafCols) moves per multiply-add: under 2 % of the
// time at these sizes. Smaller leaves would pack more; larger ones would
// leave too few pieces to balance a few workers (a 1024×1024 product has 8).
const (
	mmLeafRows = 256
	mmLeafCols = 512
)

// mmMinVolume is the m·n·k below which a block of c is multiplied at once,
// whatever its shape: a fork costs as much as a few thousand multiply-adds.
const mmMinVolume = 64 * 64 * 64

type mmArg struct{ c, a, b block }

var mmTask *forkjoin.Func[mmArg, struct{}]

func init() { mmTask = forkjoin.NewFunc(matmul) }

// matmul halves c, in parallel, along the dimension that is the larger
// multiple of its leaf size, with a and b cut to match, down to leaves.
// The cuts fall on multiples of the micro-kernel's tile (gemm.MR rows,
// gemm.NR columns), so that only the leaves at c's right and bottom edges
// have partial tiles. The inner dimension is never split: every leaf
// writes its own block of c.
func matmul(w *forkjoin.Worker, x mmArg) struct{} {
	m, n, k := x.c.rows, x.c.cols, x.a.cols
	if m <= mmLeafRows && n <= mmLeafCols || m*n*k <= mmMinVolume {
		gemm.Mul(m, n, k, x.a.data, x.a.stride, x.b.data, x.b.stride, x.c.data, x.c.stride, false)
		return struct{}{}
	}
	first, second := x, x
	if m*mmLeafCols >= n*mmLeafRows {
		h := halfAt(m, gemm.MR)
		first.c, first.a = x.c.sub(0, h, 0, n), x.a.sub(0, h, 0, k)
		second.c, second.a = x.c.sub(h, m, 0, n), x.a.sub(h, m, 0, k)
	} else {
		h := halfAt(n, gemm.NR)
		first.c, first.b = x.c.sub(0, m, 0, h), x.b.sub(0, k, 0, h)
		second.c, second.b = x.c.sub(0, m, h, n), x.b.sub(0, k, h, n)
	}
	if w.Inline() {
		// The join would run both halves here: call them directly.
		matmul(w, first)
		matmul(w, second)
	} else {
		mmTask.Join(w, first, second)
	}
	return struct{}{}
}

// halfAt returns the multiple of align nearest n/2, for n >= 2·align.
func halfAt(n, align int) int {
	return (n/2 + align/2) / align * align
}

// MatMul sets c to the matrix product a·b. It halves c into blocks, in
// parallel, and multiplies each block with a packed, cache-blocked kernel
// (package internal/gemm: AVX2 and FMA assembly where the CPU has them,
// plain Go elsewhere). Views (from Slice) are fine for all three. Each
// element is a dot product summed in order of k in blocks of 256 terms,
// so it may differ from gonum's in the last bits, within the error bound of
// any summation order, k·u·(|a|·|b|)ᵢⱼ to first order.
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
	x := mmArg{c: rawBlock(c), a: rawBlock(a), b: rawBlock(b)}
	if x.c.overlaps(x.a) {
		panic("algos: MatMul: c shares memory with a; the product needs a separate destination")
	}
	if x.c.overlaps(x.b) {
		panic("algos: MatMul: c shares memory with b; the product needs a separate destination")
	}
	matmul(w, x)
}
