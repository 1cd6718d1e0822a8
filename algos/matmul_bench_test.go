package algos

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
)

// BenchmarkMatMul1024 compares MatMul and Strassen with gonum's
// (*mat.Dense).Mul, which itself runs in parallel on GOMAXPROCS goroutines,
// on the same operands.
func BenchmarkMatMul1024(b *testing.B) {
	const n = 1024
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := randDense(rng, n, n), randDense(rng, n, n)
	c := mat.NewDense(n, n, nil)
	report := func(b *testing.B) {
		b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.Run("gonum", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Mul(x, y)
		}
		report(b)
	})
	// GFLOP/s counts 2n³ for Strassen too: the rate of an ordinary product
	// that would take as long.
	for _, alg := range []struct {
		prefix string
		mul    func(w *forkjoin.Worker, c, a, b *mat.Dense)
	}{{"", MatMul}, {"strassen/", Strassen}} {
		for _, workers := range benchWorkerCounts {
			b.Run(fmt.Sprintf("%sworkers=%d", alg.prefix, workers), func(b *testing.B) {
				p := benchPool(b, workers)
				b.ReportAllocs()
				for b.Loop() {
					forkjoin.Run(p, func(w *forkjoin.Worker) { alg.mul(w, c, x, y) })
				}
				report(b)
			})
		}
	}
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
