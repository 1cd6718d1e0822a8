package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// matrix is a rows×cols window at off in data, with row stride ld.
type matrix struct {
	data            []float64
	off, rows, cols int
	ld              int
}

func (x matrix) at(i, j int) float64 { return x.data[x.off+i*x.ld+j] }
func (x matrix) s() []float64        { return x.data[x.off:] }

// newMatrix makes a random rows×cols window inside a larger matrix (pad
// columns to the right of each row, and a margin before and after), whose
// outside is filled with sentinel so that the tests can see Mul leave it
// alone.
func newMatrix(rng *rand.Rand, rows, cols, pad int, sentinel float64) matrix {
	ld := cols + pad
	off := 3
	data := make([]float64, off+rows*ld+3)
	for i := range data {
		data[i] = sentinel
	}
	for i := range rows {
		for j := range cols {
			data[off+i*ld+j] = 2*rng.Float64() - 1
		}
	}
	return matrix{data, off, rows, cols, ld}
}

// eachKernel runs fn with the assembly kernel (where this machine has one)
// and with kernelGo.
func eachKernel(t *testing.T, fn func(t *testing.T)) {
	saved := useAsm
	defer func() { useAsm = saved }()
	for _, asm := range []bool{true, false} {
		if asm && !saved {
			continue
		}
		useAsm = asm
		t.Run(fmt.Sprintf("asm=%v", asm), fn)
	}
}

// checkMul compares c (+)= a·b with a naive product under the bound of any
// recursive summation order: |ĉ − c| <= γ_k·(|a|·|b|) elementwise, with
// γ_k <= 1.01·k·u for k·u < 0.01 (see the package doc). The reference has
// an error of the same size, so the two may differ by twice it. The
// accumulating case adds the old c, one more rounding of a value bounded by
// |c₀| + |a|·|b|.
func checkMul(t *testing.T, got, c0, a, b matrix, acc bool) {
	t.Helper()
	u := math.Ldexp(1, -53)
	k := a.cols
	bad := 0
	for i := range got.rows {
		for j := range got.cols {
			var want, abs float64
			for l := range k {
				want += a.at(i, l) * b.at(l, j)
				abs += math.Abs(a.at(i, l) * b.at(l, j))
			}
			if acc {
				want += c0.at(i, j)
				abs += math.Abs(c0.at(i, j))
			}
			tol := 2 * 1.01 * float64(k+1) * u * abs
			if g := got.at(i, j); !(math.Abs(g-want) <= tol) {
				if bad++; bad <= 3 {
					t.Errorf("%d×%d·%d×%d: c[%d][%d] = %v, want %v (tolerance %.3g)", a.rows, k, k, b.cols, i, j, g, want, tol)
				}
			}
		}
	}
}

// checkOutside fails if any element of x's data outside its window is not
// sentinel.
func checkOutside(t *testing.T, x matrix, sentinel float64) {
	t.Helper()
	for p, v := range x.data {
		q := p - x.off
		inside := q >= 0 && q/x.ld < x.rows && q%x.ld < x.cols
		if !inside && v != sentinel && !(math.IsNaN(v) && math.IsNaN(sentinel)) {
			t.Fatalf("Mul wrote %v at data[%d], outside the window", v, p)
		}
	}
}

func TestMul(t *testing.T) {
	// Shapes (m, k, n) around every block edge: below, at and above mr,
	// nr, kc, mc, and k = 1.
	shapes := [][3]int{
		{1, 1, 1}, {1, 1, 9}, {9, 1, 1}, {6, 1, 8}, {5, 3, 7}, {7, 9, 9},
		{6, 256, 8}, {7, 257, 17}, {12, 255, 16}, {mc, 2, nr}, {mc + 1, 3, 2*nr - 1},
		{2*mc + 5, 300, 41}, {1, 600, 3}, {37, 37, 100}, {64, 64, 64}, {100, 513, 30}, {300, 600, 2},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	eachKernel(t, func(t *testing.T) {
		// The default budget packs every shape here in one chunk; the small
		// one packs the long ones in chunks of k (a multiple of kc deep) and
		// makes Mul halve the wide ones before it packs them at all.
		for _, budget := range []int{Budget, 64 * kc} {
			t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
				saved := mulBudget
				defer func() { mulBudget = saved }()
				mulBudget = budget
				testMulShapes(t, rng, shapes)
			})
		}
	})
}

// testMulShapes checks Mul on each shape (m, k, n), setting and
// accumulating, with and without padding between rows.
func testMulShapes(t *testing.T, rng *rand.Rand, shapes [][3]int) {
	for _, s := range shapes {
		m, k, n := s[0], s[1], s[2]
		for _, acc := range []bool{false, true} {
			for _, pad := range []int{0, 3} {
				a := newMatrix(rng, m, k, pad, 7)
				b := newMatrix(rng, k, n, pad, 7)
				sentinel := math.NaN()
				if acc {
					sentinel = 5 // c's window must hold numbers to add to
				}
				c := newMatrix(rng, m, n, pad, sentinel)
				if !acc {
					for i := range m {
						for j := range n {
							c.data[c.off+i*c.ld+j] = math.NaN() // must be overwritten
						}
					}
				}
				c0 := matrix{append([]float64(nil), c.data...), c.off, m, n, c.ld}
				Mul(m, n, k, a.s(), a.ld, b.s(), b.ld, c.s(), c.ld, acc)
				checkMul(t, c, c0, a, b, acc)
				checkOutside(t, c, sentinel)
			}
		}
	}
}

// The two kernels agree on one tile, bit for bit up to FMA's rounding:
// within the bound, and exactly on integers, where every sum is exact.
func TestKernelsAgreeOnIntegers(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, kb := range []int{1, 3, 4, 5, 256} {
		a := make([]float64, kb*mr)
		b := make([]float64, kb*nr)
		for i := range a {
			a[i] = float64(rng.IntN(19) - 9)
		}
		for i := range b {
			b[i] = float64(rng.IntN(19) - 9)
		}
		for _, add := range []bool{false, true} {
			ca, cg := make([]float64, mr*11), make([]float64, mr*11)
			for i := range ca {
				ca[i] = float64(i)
				cg[i] = float64(i)
			}
			kernelAsm(kb, &a[0], &b[0], &ca[0], 11, add)
			kernelGo(kb, a, b, cg, 11, add)
			for i := range ca {
				if ca[i] != cg[i] {
					t.Fatalf("kb=%d add=%v: element %d: asm %v, Go %v", kb, add, i, ca[i], cg[i])
				}
			}
		}
	}
}

func TestMulZeroK(t *testing.T) {
	c := []float64{1, 2, 3, 4, 5, 6}
	Mul(2, 2, 0, nil, 1, nil, 2, c, 3, true)
	if c[0] != 1 || c[4] != 5 {
		t.Fatalf("k = 0 with acc changed c: %v", c)
	}
	Mul(2, 2, 0, nil, 1, nil, 2, c, 3, false)
	if want := []float64{0, 0, 3, 0, 0, 6}; fmt.Sprint(c) != fmt.Sprint(want) {
		t.Fatalf("k = 0 left c = %v, want %v (zeros in the window, the rest untouched)", c, want)
	}
	Mul(0, 5, 3, nil, 3, make([]float64, 15), 5, nil, 5, false) // no rows: nothing to do
}

func TestMulPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func()
		want string
	}{
		{"negative", func() { Mul(-1, 2, 2, nil, 2, nil, 2, nil, 2, false) }, "a is -1×2"},
		{"lda", func() { Mul(2, 2, 3, make([]float64, 6), 2, make([]float64, 6), 2, make([]float64, 4), 2, false) }, "leading dimension of a is 2, want at least 3"},
		{"short b", func() { Mul(2, 2, 3, make([]float64, 6), 3, make([]float64, 5), 2, make([]float64, 4), 2, false) }, "b has 5 elements, want at least 6"},
		{"short c", func() { Mul(2, 2, 3, make([]float64, 6), 3, make([]float64, 6), 2, make([]float64, 4), 3, false) }, "c has 4 elements, want at least 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, tc.want) {
					t.Errorf("panic %q, want one containing %q", msg, tc.want)
				}
			}()
			tc.call()
		})
	}
}

// A product packed in pieces and multiplied block by block, the way a
// parallel caller does it, equals Mul's bit for bit: every element is summed
// in the same order whatever the blocks.
func TestPackedBlocksEqualMul(t *testing.T) {
	const m, k, n = 131, 300, 77
	rng := rand.New(rand.NewPCG(5, 6))
	a, b := newMatrix(rng, m, k, 2, 0), newMatrix(rng, k, n, 1, 0)
	want := make([]float64, m*n)
	Mul(m, n, k, a.s(), a.ld, b.s(), b.ld, want, n, false)

	got := make([]float64, m*n)
	p := GetPacked(m, n, k)
	defer PutPacked(p)
	p.PackA(a.s(), a.ld, 0, 7)
	p.PackA(a.s(), a.ld, 7, p.APanels())
	p.PackB(b.s(), b.ld, 3, p.BPanels())
	p.PackB(b.s(), b.ld, 0, 3)
	for _, blk := range [][4]int{{0, 6, 0, 8}, {0, 6, 8, n}, {6, 66, 0, 40}, {6, 66, 40, n}, {66, m, 0, n}} {
		p.Mul(got, n, blk[0], blk[1], blk[2], blk[3], false)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("element (%d, %d): %v from blocks, %v from Mul", i/n, i%n, got[i], want[i])
		}
	}
}

func TestPackedPanics(t *testing.T) {
	p := GetPacked(20, 20, 5)
	defer PutPacked(p)
	for _, tc := range []struct {
		name string
		call func()
		want string
	}{
		{"unaligned rows", func() { p.Mul(make([]float64, 400), 20, 3, 20, 0, 20, false) }, "block [3, 20)×[0, 20) is not on tile boundaries"},
		{"past the end", func() { p.Mul(make([]float64, 400), 20, 0, 20, 0, 24, false) }, "inside 20×20"},
		{"empty", func() { GetPacked(0, 3, 3) }, "want positive sizes, got m=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, tc.want) {
					t.Errorf("panic %q, want one containing %q", msg, tc.want)
				}
			}()
			tc.call()
		})
	}
}
