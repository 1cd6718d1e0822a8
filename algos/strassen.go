package algos

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
)

// strassenCutoff is the order at and below which Strassen multiplies as
// MatMul does. A step saves an eighth of the multiply-adds but makes 18
// block additions and allocates 17 half-size blocks, all memory-bound; with
// the packed FMA kernel of MatMul the saving wins only above order 4096
// (one step: no faster at 1024, 2048 or 4096, about 4-12 % less CPU time
// at 8192, on a 2-core Xeon with AVX2). Tests lower it to reach the steps.
var strassenCutoff = 4096

// Strassen sets c to a·b for square matrices of one order n, by Strassen's
// algorithm: each step replaces eight half-size products by seven (forked in
// parallel) and 18 additions, for O(n^2.81) work instead of O(n³). Orders at
// or below 4096, and odd orders, are multiplied as MatMul does: below that
// the additions cost more than the saved products.
//
// Strassen trades accuracy for speed: its error is bounded normwise, not
// elementwise (Higham, Accuracy and Stability of Numerical Algorithms,
// §23.2.2), so small elements of c may have a large relative error. Each
// step allocates scratch for its seven products and their operand sums.
//
// c must be n×n, or empty (then it is resized), and must not share memory
// with a or b; Strassen panics otherwise, naming the shapes or the overlap.
func Strassen(w *forkjoin.Worker, c, a, b *mat.Dense) {
	if a.IsEmpty() || b.IsEmpty() {
		panic(fmt.Sprintf("algos: Strassen: empty operand (a empty: %v, b empty: %v)", a.IsEmpty(), b.IsEmpty()))
	}
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != ac || br != bc || ar != br {
		panic(fmt.Sprintf("algos: Strassen shape mismatch: a is %d×%d, b is %d×%d (want both n×n)", ar, ac, br, bc))
	}
	if c.IsEmpty() {
		c.ReuseAs(ar, ar)
	}
	if cr, cc := c.Dims(); cr != ar || cc != ar {
		panic(fmt.Sprintf("algos: Strassen shape mismatch: c is %d×%d, want %d×%d", cr, cc, ar, ar))
	}
	cb, ab, bb := rawBlock(c), rawBlock(a), rawBlock(b)
	if cb.overlaps(ab) {
		panic("algos: Strassen: c shares memory with a; the product needs a separate destination")
	}
	if cb.overlaps(bb) {
		panic("algos: Strassen: c shares memory with b; the product needs a separate destination")
	}
	strassen(w, cb, ab, bb)
}

// newBlock allocates a contiguous r×c block.
func newBlock(r, c int) block {
	return block{data: make([]float64, r*c), rows: r, cols: c, stride: c}
}

func strassen(w *forkjoin.Worker, c, a, b block) {
	n := c.rows
	if n <= strassenCutoff || n%2 != 0 {
		mmProduct(w, c, a, b)
		return
	}
	h := n / 2
	q := func(x block, i, j int) block { return x.sub(i*h, (i+1)*h, j*h, (j+1)*h) }
	a11, a12, a21, a22 := q(a, 0, 0), q(a, 0, 1), q(a, 1, 0), q(a, 1, 1)
	b11, b12, b21, b22 := q(b, 0, 0), q(b, 0, 1), q(b, 1, 0), q(b, 1, 1)
	var m [7]block
	for i := range m {
		m[i] = newBlock(h, h)
	}
	// product sets m[i] = x·y, where x and y are sums of quadrants computed
	// into scratch of the task's own (nil means the quadrant itself).
	product := func(dst block, xa, xb block, xs float64, ya, yb block, ys float64) func(*forkjoin.Worker) {
		return func(w *forkjoin.Worker) {
			x, y := xa, ya
			if xb.data != nil {
				x = newBlock(h, h)
				addBlocks(x, xa, xb, xs)
			}
			if yb.data != nil {
				y = newBlock(h, h)
				addBlocks(y, ya, yb, ys)
			}
			strassen(w, dst, x, y)
		}
	}
	var none block
	forkjoin.Do(w,
		product(m[0], a11, a22, 1, b11, b22, 1),   // M1 = (A11+A22)(B11+B22)
		product(m[1], a21, a22, 1, b11, none, 0),  // M2 = (A21+A22) B11
		product(m[2], a11, none, 0, b12, b22, -1), // M3 = A11 (B12−B22)
		product(m[3], a22, none, 0, b21, b11, -1), // M4 = A22 (B21−B11)
		product(m[4], a11, a12, 1, b22, none, 0),  // M5 = (A11+A12) B22
		product(m[5], a21, a11, -1, b11, b12, 1),  // M6 = (A21−A11)(B11+B12)
		product(m[6], a12, a22, -1, b21, b22, 1),  // M7 = (A12−A22)(B21+B22)
	)
	forkjoin.Do(w,
		func(*forkjoin.Worker) { combine(q(c, 0, 0), m[0], m[3], 1, m[4], -1, m[6], 1) }, // C11 = M1+M4−M5+M7
		func(*forkjoin.Worker) { combine(q(c, 0, 1), m[2], m[4], 1, none, 0, none, 0) },  // C12 = M3+M5
		func(*forkjoin.Worker) { combine(q(c, 1, 0), m[1], m[3], 1, none, 0, none, 0) },  // C21 = M2+M4
		func(*forkjoin.Worker) { combine(q(c, 1, 1), m[0], m[1], -1, m[2], 1, m[5], 1) }, // C22 = M1−M2+M3+M6
	)
}

// addBlocks sets dst = x + s·y.
func addBlocks(dst, x, y block, s float64) {
	for i := range dst.rows {
		d := dst.data[i*dst.stride : i*dst.stride+dst.cols]
		xr := x.data[i*x.stride : i*x.stride+dst.cols]
		yr := y.data[i*y.stride : i*y.stride+dst.cols]
		for j := range d {
			d[j] = xr[j] + s*yr[j]
		}
	}
}

// combine sets dst = p + s1·x1 + s2·x2 + s3·x3, skipping terms without data.
func combine(dst, p, x1 block, s1 float64, x2 block, s2 float64, x3 block, s3 float64) {
	addBlocks(dst, p, x1, s1)
	for _, t := range []struct {
		x block
		s float64
	}{{x2, s2}, {x3, s3}} {
		if t.x.data == nil {
			continue
		}
		for i := range dst.rows {
			d := dst.data[i*dst.stride : i*dst.stride+dst.cols]
			xr := t.x.data[i*t.x.stride : i*t.x.stride+dst.cols]
			for j := range d {
				d[j] += t.s * xr[j]
			}
		}
	}
}
