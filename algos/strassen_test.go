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

// checkStrassen compares got with gonum's a·b under Higham's normwise bound
// for Strassen's method with conventional multiplication at order n0
// (Accuracy and Stability of Numerical Algorithms, 2nd ed., Theorem 23.2):
// max|c - ĉ| <= ((n/n0)^log₂12·(n0²+5n0) - 5n)·u·max|a|·max|b|.
func checkStrassen(t *testing.T, got, a, b *mat.Dense, n0 int) {
	t.Helper()
	n, _ := a.Dims()
	var want mat.Dense
	want.Mul(a, b)
	maxAbs := func(m mat.Matrix) float64 {
		r, c := m.Dims()
		var x float64
		for i := range r {
			for j := range c {
				x = max(x, math.Abs(m.At(i, j)))
			}
		}
		return x
	}
	u := math.Ldexp(1, -53)
	levels := float64(n) / float64(n0)
	bound := (math.Pow(levels, math.Log2(12))*float64(n0*n0+5*n0) - 5*float64(n)) * u * maxAbs(a) * maxAbs(b)
	var diff mat.Dense
	diff.Sub(got, &want)
	if e := maxAbs(&diff); !(e <= bound) {
		t.Errorf("Strassen %d×%d: max error %.3g exceeds the bound %.3g", n, n, e, bound)
	}
}

func TestStrassen(t *testing.T) {
	saved := strassenCutoff
	defer func() { strassenCutoff = saved }()
	strassenCutoff = 256
	rng := rand.New(rand.NewPCG(21, 22))
	// With the cutoff at 256 here, 512 and 520 take one Strassen step (to
	// 256 and 260, multiplied conventionally); 513 is odd and goes to
	// MatMul at once; 1024 takes two.
	orders := []int{1, 7, 257, 512, 513, 520}
	if !testing.Short() {
		orders = append(orders, 1024)
	}
	for _, m := range testModes {
		t.Run(m.name, func(t *testing.T) {
			p := forkjoin.New(forkjoin.Workers(2), forkjoin.WithMode(m.mode))
			defer p.Close()
			for _, n := range orders {
				for _, views := range []bool{false, true} {
					t.Run(fmt.Sprintf("n=%d/views=%v", n, views), func(t *testing.T) {
						mk := randDense
						if views {
							mk = randView
						}
						a, b, c := mk(rng, n, n), mk(rng, n, n), mk(rng, n, n)
						c.Apply(func(_, _ int, _ float64) float64 { return math.NaN() }, c)
						forkjoin.Run(p, func(w *forkjoin.Worker) { Strassen(w, c, a, b) })
						n0 := n
						for n0 > strassenCutoff && n0%2 == 0 {
							n0 /= 2
						}
						checkStrassen(t, c, a, b, n0)
					})
				}
			}
		})
	}
}

func TestStrassenPanics(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	run := func(c, a, b *mat.Dense) string {
		return panicMessage(func() { forkjoin.Run(p, func(w *forkjoin.Worker) { Strassen(w, c, a, b) }) })
	}
	if msg := run(mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil), mat.NewDense(3, 2, nil)); !strings.Contains(msg, "a is 2×3") {
		t.Errorf("Strassen of a 2×3 a panicked with %q, want the shapes named", msg)
	}
	if msg := run(mat.NewDense(3, 3, nil), mat.NewDense(2, 2, nil), mat.NewDense(2, 2, nil)); !strings.Contains(msg, "c is 3×3") {
		t.Errorf("Strassen into a 3×3 c panicked with %q, want c's shape named", msg)
	}
	a := mat.NewDense(4, 4, nil)
	if msg := run(a, a, mat.NewDense(4, 4, nil)); !strings.Contains(msg, "c shares memory with a") {
		t.Errorf("Strassen(a, a, b) panicked with %q, want the aliasing named", msg)
	}
}
