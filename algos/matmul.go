package algos

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
)

// mmLeafVolume bounds m·n·k of a leaf product. With it the leaves of a
// square product are about 64×128×128: big enough to make a fork's cost
// vanish, small enough that the three blocks (~300 KiB) stay in L2.
const mmLeafVolume = 64 * 128 * 128

// gonumBlock is the block size below which gonum's Dgemm computes serially:
// it goes parallel only when C has at least 4 such blocks.
const gonumBlock = 64

// mmArg is one product of the recursion: c = a·b, or c += a·b when acc is
// set (the second half of a split inner dimension adds to the first).
type mmArg struct {
	c, a, b block
	acc     bool
}

var mmTask *forkjoin.Func[mmArg, struct{}]

func init() { mmTask = forkjoin.NewFunc(matmul) }

// matmul divides the product by its largest dimension until it is a leaf.
// Rows or columns of c split into independent halves that are forked; the
// inner dimension k splits into two products that write the same block of
// c, so they run one after the other, the second accumulating.
func matmul(w *forkjoin.Worker, x mmArg) struct{} {
	m, n, k := x.c.rows, x.c.cols, x.a.cols
	switch {
	case m*n*k <= mmLeafVolume:
		mmLeaf(x)
	case k > m && k > n:
		h := k / 2
		first, second := x, x
		first.a, first.b = x.a.sub(0, m, 0, h), x.b.sub(0, h, 0, n)
		second.a, second.b = x.a.sub(0, m, h, k), x.b.sub(h, k, 0, n)
		second.acc = true
		matmul(w, first)
		matmul(w, second)
	case m >= n:
		h := m / 2
		top, bottom := x, x
		top.c, top.a = x.c.sub(0, h, 0, n), x.a.sub(0, h, 0, k)
		bottom.c, bottom.a = x.c.sub(h, m, 0, n), x.a.sub(h, m, 0, k)
		mmTask.Join(w, top, bottom)
	default:
		h := n / 2
		left, right := x, x
		left.c, left.b = x.c.sub(0, m, 0, h), x.b.sub(0, k, 0, h)
		right.c, right.b = x.c.sub(0, m, h, n), x.b.sub(0, k, h, n)
		mmTask.Join(w, left, right)
	}
	return struct{}{}
}

// mmLeaf computes a leaf product serially. On 64×64..128 blocks, dot
// products of a's rows with the rows of a packed copy of bᵀ (gonum's SIMD
// Ddot; no store of c in the inner loop) beat gonum's Dgemm (row updates
// with its SIMD axpy), which beat plain-Go register-blocked kernels
// (docs/benchmarks.md). So leaves with enough rows to repay the packing use dot
// products; the others use Dgemm, or Daxpy row updates when Dgemm would
// start goroutines of its own (it does for a C of four 64×64 blocks or
// more).
func mmLeaf(x mmArg) {
	m, n, k := x.c.rows, x.c.cols, x.a.cols
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !x.acc {
			for i := range m {
				clear(x.c.data[i*x.c.stride : i*x.c.stride+n])
			}
		}
		return
	}
	var impl gonum.Implementation
	switch {
	case m >= mmDotMinRows && n*k <= mmPackMax:
		mmLeafDot(x)
	case blocksOf(m)*blocksOf(n) < 4:
		beta := 1.0
		if !x.acc {
			beta = 0
		}
		impl.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, x.a.data, x.a.stride, x.b.data, x.b.stride, beta, x.c.data, x.c.stride)
	default:
		for i := range m {
			crow := x.c.data[i*x.c.stride : i*x.c.stride+n]
			if !x.acc {
				clear(crow)
			}
			for l, v := range x.a.data[i*x.a.stride : i*x.a.stride+k] {
				if v != 0 {
					impl.Daxpy(n, v, x.b.data[l*x.b.stride:l*x.b.stride+n], 1, crow, 1)
				}
			}
		}
	}
}

const (
	// mmPackMax bounds the packed bᵀ of a dot-product leaf: 256 KiB.
	mmPackMax = 128 * 256
	// mmDotMinRows: packing b costs n·k moves, repaid over m rows of dots.
	mmDotMinRows = 16
)

// mmPack holds the scratch for bᵀ, one per leaf in progress.
var mmPack = sync.Pool{New: func() any {
	s := make([]float64, mmPackMax)
	return &s
}}

// mmLeafDot computes c (+)= a·b as m·n dot products of k terms, each of a
// row of a with a row of bᵀ, both contiguous.
func mmLeafDot(x mmArg) {
	m, n, k := x.c.rows, x.c.cols, x.a.cols
	buf := mmPack.Get().(*[]float64)
	bt := (*buf)[:n*k]
	for l := range k {
		for j, v := range x.b.data[l*x.b.stride : l*x.b.stride+n] {
			bt[j*k+l] = v
		}
	}
	var impl gonum.Implementation
	for i := range m {
		arow := x.a.data[i*x.a.stride : i*x.a.stride+k]
		crow := x.c.data[i*x.c.stride : i*x.c.stride+n]
		if x.acc {
			for j := range crow {
				crow[j] += impl.Ddot(k, arow, 1, bt[j*k:j*k+k], 1)
			}
		} else {
			for j := range crow {
				crow[j] = impl.Ddot(k, arow, 1, bt[j*k:j*k+k], 1)
			}
		}
	}
	mmPack.Put(buf)
}

func blocksOf(n int) int { return (n + gonumBlock - 1) / gonumBlock }

// MatMul sets c to the matrix product a·b, computed by recursive,
// cache-oblivious blocking: the product is halved along its largest
// dimension, in parallel when that is a row or column dimension of c, until
// the pieces fit in cache, where a serial kernel multiplies them. Views
// (from Slice) are fine for all three.
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
