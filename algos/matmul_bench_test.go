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
// on the same operands, in the same run.
func BenchmarkMatMul1024(b *testing.B) { benchMatMul(b, 1024, 1024, 1024, true) }

// BenchmarkMatMul4096 is the large square product: about 137 Gflop, so
// gonum's Mul takes seconds per operation here.
func BenchmarkMatMul4096(b *testing.B) { benchMatMul(b, 4096, 4096, 4096, true) }

// BenchmarkMatMulRect: short and wide operands with a big product (the
// time goes to writing c), and sizes that are no multiple of any block.
func BenchmarkMatMulRect(b *testing.B) {
	for _, s := range [][3]int{{4096, 64, 4096}, {1000, 37, 1000}} {
		b.Run(fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]), func(b *testing.B) { benchMatMul(b, s[0], s[1], s[2], false) })
	}
}

// benchMatMul times c = a·b for an m×k a and a k×n b: gonum's Mul, then
// MatMul (and Strassen, if asked) on each worker count. GFLOP/s counts
// 2·m·n·k per product, for Strassen too: the rate of an ordinary product
// that would take as long.
func benchMatMul(b *testing.B, m, k, n int, strassen bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := randDense(rng, m, k), randDense(rng, k, n)
	c := mat.NewDense(m, n, nil)
	report := func(b *testing.B) {
		b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.Run("gonum", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Mul(x, y)
		}
		report(b)
	})
	algs := []struct {
		prefix string
		mul    func(w *forkjoin.Worker, c, a, b *mat.Dense)
	}{{"", MatMul}}
	if strassen {
		algs = append(algs, algs[0])
		algs[1].prefix, algs[1].mul = "strassen/", Strassen
	}
	for _, alg := range algs {
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
