package algos

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
)

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = 2*rng.Float64() - 1
	}
	return mat.NewDense(r, c, d)
}

// randView returns an r×c view into a larger random matrix, so the stride
// exceeds the number of columns and the view does not start at element 0.
func randView(rng *rand.Rand, r, c int) *mat.Dense {
	big := randDense(rng, r+3, c+5)
	return big.Slice(2, 2+r, 3, 3+c).(*mat.Dense)
}

// checkProduct compares got with want = a·b from gonum's Mul. Any summation
// order of a k-term dot product errs by at most γ_k·(|a|·|b|)ᵢⱼ with
// γ_k ≈ k·ε, so two orders differ by at most 2k·ε·(|a|·|b|)ᵢⱼ: the
// tolerance used here, elementwise.
func checkProduct(t *testing.T, got, a, b *mat.Dense) {
	t.Helper()
	m, k := a.Dims()
	_, n := b.Dims()
	var want, absA, absB, bound mat.Dense
	want.Mul(a, b)
	absA.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, a)
	absB.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, b)
	bound.Mul(&absA, &absB)
	eps := math.Nextafter(1, 2) - 1
	bad := 0
	for i := range m {
		for j := range n {
			g, w := got.At(i, j), want.At(i, j)
			if tol := 2 * float64(k) * eps * bound.At(i, j); !(math.Abs(g-w) <= tol) {
				if bad++; bad <= 3 {
					t.Errorf("%d×%d·%d×%d: c[%d][%d] = %v, want %v (tolerance %.3g)", m, k, k, n, i, j, g, w, tol)
				}
			}
		}
	}
}

// mmShapes are (m, k, n): c is m×n, a m×k, b k×n. They cover vectors,
// k = 1, sizes that are not multiples of the 6×8 tile, products long in k
// (one leaf, many kc-deep slices), and shapes past the leaf in rows, in
// columns and in both, which split unevenly.
var mmShapes = [][3]int{
	{1, 1, 1}, {1, 7, 1}, {1, 1, 9}, {9, 1, 1},
	{1, 600, 1}, {1, 300, 500}, {500, 300, 1}, {600, 1, 700}, {3, 2000, 5},
	{37, 53, 29}, {64, 64, 64}, {65, 63, 67}, {129, 131, 127}, {200, 3, 200}, {257, 130, 301},
	{20, 9, 1100}, {1030, 7, 20}, {523, 11, 1031},
}

func TestMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	eachPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, s := range mmShapes {
			m, k, n := s[0], s[1], s[2]
			for _, views := range []bool{false, true} {
				t.Run(fmt.Sprintf("%dx%dx%d/views=%v", m, k, n, views), func(t *testing.T) {
					mk := randDense
					if views {
						mk = randView
					}
					a, b, c := mk(rng, m, k), mk(rng, k, n), mk(rng, m, n)
					// Whatever c held must be overwritten, NaN included.
					c.Apply(func(_, _ int, _ float64) float64 { return math.NaN() }, c)
					forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, a, b) })
					checkProduct(t, c, a, b)
				})
			}
		}
	})
}

// A larger square product, whose recursion forks to depth ~8, on one pool
// per mode (it is the slowest case under -race).
func TestMatMulSquare(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, m := range testModes {
		t.Run(m.name, func(t *testing.T) {
			p := forkjoin.New(forkjoin.Workers(4), forkjoin.WithMode(m.mode))
			defer p.Close()
			a, b := randDense(rng, 384, 384), randDense(rng, 384, 384)
			var c mat.Dense // empty: MatMul sizes it
			forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, &c, a, b) })
			checkProduct(t, &c, a, b)
		})
	}
}

// The rectangular shapes of the benchmarks, on one pool per mode: short
// and wide operands whose product is big (4096×64 · 64×4096; in -short
// mode 1024×64 · 64×1024), and 1000×37 · 37×1000, whose sizes are no
// multiple of any block.
func TestMatMulRectangular(t *testing.T) {
	shapes := [][3]int{{1000, 37, 1000}, {4096, 64, 4096}}
	if testing.Short() {
		shapes[1] = [3]int{1024, 64, 1024}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, m := range testModes {
		t.Run(m.name, func(t *testing.T) {
			p := forkjoin.New(forkjoin.Workers(4), forkjoin.WithMode(m.mode))
			defer p.Close()
			for _, s := range shapes {
				a, b := randDense(rng, s[0], s[1]), randDense(rng, s[1], s[2])
				c := mat.NewDense(s[0], s[2], nil)
				forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, a, b) })
				checkProduct(t, c, a, b)
			}
		})
	}
}

// With a small packing budget MatMul packs in chunks of k, each chunk
// adding to what the ones before left in c, and halves products too wide
// to pack at all. The budgets are sized for each shape: 512-deep chunks of
// the first product; halving the others, by rows and by columns, down to
// blocks of about 175×100 and 100×175.
func TestMatMulChunked(t *testing.T) {
	saved := mmPackBudget
	defer func() { mmPackBudget = saved }()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		m, k, n, budget int
	}{
		{600, 600, 600, 2 * 256 * (600 + 608)},
		{700, 600, 100, 300 * 256},
		{100, 600, 700, 300 * 256},
	} {
		mmPackBudget = tc.budget
		for _, m := range testModes {
			t.Run(fmt.Sprintf("%dx%dx%d/%s", tc.m, tc.k, tc.n, m.name), func(t *testing.T) {
				p := forkjoin.New(forkjoin.Workers(2), forkjoin.WithMode(m.mode))
				defer p.Close()
				a, b, c := randView(rng, tc.m, tc.k), randView(rng, tc.k, tc.n), randView(rng, tc.m, tc.n)
				c.Apply(func(_, _ int, _ float64) float64 { return math.NaN() }, c)
				forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, a, b) })
				checkProduct(t, c, a, b)
			})
		}
	}
}

// A product with a small c and a long inner dimension halves k, in
// parallel, twice here (64·48·20000 > 2·mmSplitKVolume), each second half
// summed into scratch and added.
func TestMatMulSplitK(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, m := range testModes {
		t.Run(m.name, func(t *testing.T) {
			p := forkjoin.New(forkjoin.Workers(2), forkjoin.WithMode(m.mode))
			defer p.Close()
			a, b, c := randView(rng, 64, 20000), randView(rng, 20000, 48), randView(rng, 64, 48)
			c.Apply(func(_, _ int, _ float64) float64 { return math.NaN() }, c)
			forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, a, b) })
			checkProduct(t, c, a, b)
		})
	}
}

// On many workers the leaves shrink so that each worker gets several:
// a 1024×1024 c has 8 leaves on up to 2 workers, 64 of 128×128 on 16.
func TestMatMulLeafFor(t *testing.T) {
	for _, tc := range []struct{ m, n, workers, rows, cols int }{
		{1024, 1024, 1, 256, 512},
		{1024, 1024, 2, 256, 512},
		{1024, 1024, 16, 128, 128},
		{4096, 4096, 16, 256, 512},
		{100, 100, 64, 64, 128}, // as small as leaves go
	} {
		if got := mmLeafFor(tc.m, tc.n, tc.workers); got != [2]int{tc.rows, tc.cols} {
			t.Errorf("mmLeafFor(%d, %d, %d) = %v, want [%d %d]", tc.m, tc.n, tc.workers, got, tc.rows, tc.cols)
		}
	}
	// And the product on a pool of 16 workers, with those leaves.
	p := forkjoin.New(forkjoin.Workers(16))
	defer p.Close()
	rng := rand.New(rand.NewPCG(15, 16))
	a, b := randView(rng, 700, 90), randView(rng, 90, 650)
	c := mat.NewDense(700, 650, nil)
	forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, a, b) })
	checkProduct(t, c, a, b)
}

func TestMatMulShapeMismatchPanics(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	run := func(c, a, b *mat.Dense) string {
		return panicMessage(func() { forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, a, b) }) })
	}
	a, b := mat.NewDense(2, 3, nil), mat.NewDense(4, 5, nil)
	if msg := run(mat.NewDense(2, 5, nil), a, b); !strings.Contains(msg, "a is 2×3") || !strings.Contains(msg, "b is 4×5") {
		t.Errorf("MatMul(2×3 · 4×5) panicked with %q, want a message naming both shapes", msg)
	}
	if msg := run(mat.NewDense(2, 5, nil), a, &mat.Dense{}); !strings.Contains(msg, "b empty: true") {
		t.Errorf("MatMul with an empty b panicked with %q, want the empty operand named", msg)
	}
	if msg := run(mat.NewDense(2, 5, nil), &mat.Dense{}, b); !strings.Contains(msg, "a empty: true") {
		t.Errorf("MatMul with an empty a panicked with %q, want the empty operand named", msg)
	}
	b = mat.NewDense(3, 5, nil)
	if msg := run(mat.NewDense(5, 2, nil), a, b); !strings.Contains(msg, "c is 5×2") || !strings.Contains(msg, "2×5") {
		t.Errorf("MatMul into 5×2 panicked with %q, want a message naming c's shape and the wanted 2×5", msg)
	}
}

func TestMatMulAliasPanics(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	run := func(c, a, b *mat.Dense) string {
		return panicMessage(func() { forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, a, b) }) })
	}
	a := randDense(rand.New(rand.NewPCG(5, 6)), 8, 8)
	if msg := run(a, a, mat.NewDense(8, 8, nil)); !strings.Contains(msg, "c shares memory with a") {
		t.Errorf("MatMul(a, a, b) panicked with %q, want the aliasing of c and a named", msg)
	}
	big := mat.NewDense(8, 16, nil)
	c := big.Slice(0, 8, 4, 12).(*mat.Dense) // overlaps the right half of b
	b := big.Slice(0, 8, 8, 16).(*mat.Dense)
	if msg := run(c, a, b); !strings.Contains(msg, "c shares memory with b") {
		t.Errorf("MatMul with c overlapping b panicked with %q, want the aliasing of c and b named", msg)
	}
}

// The left and right halves of one matrix interleave in memory without
// sharing an element: a product from one into the other is legal.
func TestMatMulDisjointInterleavedViews(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	big := randDense(rng, 70, 140)
	a := big.Slice(0, 70, 0, 70).(*mat.Dense)
	c := big.Slice(0, 70, 70, 140).(*mat.Dense)
	b := randDense(rng, 70, 70)
	var aCopy mat.Dense
	aCopy.CloneFrom(a)
	forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, a, b) })
	checkProduct(t, c, &aCopy, b)
	if !mat.Equal(a, &aCopy) {
		t.Error("MatMul into the right half changed the left half (a)")
	}
}
