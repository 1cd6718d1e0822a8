package algos

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
)

// BenchmarkMatMul1024 compares MatMul with gonum's (*mat.Dense).Mul, which
// itself runs in parallel on GOMAXPROCS goroutines, on the same operands, in
// the same run.
func BenchmarkMatMul1024(b *testing.B) { benchMatMul(b, 1024, 1024, 1024) }

// BenchmarkMatMul4096 is the large square product: about 137 Gflop, so
// gonum's Mul takes seconds per operation here.
func BenchmarkMatMul4096(b *testing.B) { benchMatMul(b, 4096, 4096, 4096) }

// BenchmarkMatMulRect: short and wide operands with a big product (the
// time goes to writing c), and sizes that are no multiple of any block.
func BenchmarkMatMulRect(b *testing.B) {
	for _, s := range [][3]int{{4096, 64, 4096}, {1000, 37, 1000}} {
		b.Run(fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]), func(b *testing.B) { benchMatMul(b, s[0], s[1], s[2]) })
	}
}

// benchMatMul times c = a·b for an m×k a and a k×n b: gonum's Mul, then
// MatMul on each worker count. GFLOP/s counts 2·m·n·k per product.
func benchMatMul(b *testing.B, m, k, n int) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := randDense(rng, m, k), randDense(rng, k, n)
	c := mat.NewDense(m, n, nil)
	b.Run("gonum", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Mul(x, y)
		}
		reportFlops(b, m, n, k)
	})
	for _, workers := range benchWorkerCounts {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := benchPool(b, workers)
			b.ReportAllocs()
			for b.Loop() {
				forkjoin.Run(p, func(w *forkjoin.Worker) { MatMul(w, c, x, y) })
			}
			reportFlops(b, m, n, k)
		})
	}
}

// BenchmarkStrassenStep measures one Strassen step against MatMul on two
// workers, where strassenCutoff is set: at 4096 (the step forced by a
// cutoff of 2048), where it loses, and at 8192 (the default cutoff), where
// it wins. GFLOP/s counts 2n³ for Strassen too: the rate of an ordinary
// product that would take as long. The 8192 case needs about 4 GiB and a
// minute; run it by name.
func BenchmarkStrassenStep(b *testing.B) {
	for _, n := range []int{4096, 8192} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			if n > 4096 && !strings.Contains(flag.Lookup("test.bench").Value.String(), "8192") {
				b.Skip("run by name: -bench StrassenStep/n=8192")
			}
			rng := rand.New(rand.NewPCG(1, 1))
			x, y := randDense(rng, n, n), randDense(rng, n, n)
			c := mat.NewDense(n, n, nil)
			p := benchPool(b, 2)
			for _, alg := range []struct {
				name string
				mul  func(w *forkjoin.Worker, c, a, b *mat.Dense)
			}{{"matmul", MatMul}, {"strassen", Strassen}} {
				b.Run(alg.name, func(b *testing.B) {
					saved := strassenCutoff
					defer func() { strassenCutoff = saved }()
					strassenCutoff = min(strassenCutoff, n/2)
					b.ReportAllocs()
					for b.Loop() {
						forkjoin.Run(p, func(w *forkjoin.Worker) { alg.mul(w, c, x, y) })
					}
					reportFlops(b, n, n, n)
				})
			}
		})
	}
}

// reportFlops reports the rate of b's loop, counting 2·m·n·k flops a loop.
func reportFlops(b *testing.B, m, n, k int) {
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkTranspose2048(b *testing.B) {
	const n = 2048
	src := randDense(rand.New(rand.NewPCG(2, 2)), n, n)
	dst := mat.NewDense(n, n, nil)
	b.Run("gonum-copy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dst.Copy(src.T())
		}
	})
	for _, workers := range benchWorkerCounts {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := benchPool(b, workers)
			b.ReportAllocs()
			for b.Loop() {
				forkjoin.Run(p, func(w *forkjoin.Worker) { Transpose(w, dst, src) })
			}
		})
	}
}
