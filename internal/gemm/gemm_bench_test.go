package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMul measures one core on square products; GFLOP/s counts 2·m·n·k.
func BenchmarkMul(b *testing.B) {
	for _, n := range []int{256, 1024} {
		rng := rand.New(rand.NewPCG(1, 1))
		x, y := newMatrix(rng, n, n, 0, 0), newMatrix(rng, n, n, 0, 0)
		c := make([]float64, n*n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Mul(n, n, n, x.s(), n, y.s(), n, c, n, false)
			}
			b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkKernel runs each micro-kernel alone on panels in L1.
func BenchmarkKernel(b *testing.B) {
	a, p, c := make([]float64, kc*mr), make([]float64, kc*nr), make([]float64, mr*nr)
	for i := range a {
		a[i] = 1e-3
	}
	for i := range p {
		p[i] = 1e-3
	}
	saved := useAsm
	defer func() { useAsm = saved }()
	for _, asm := range []bool{true, false} {
		if asm && !saved {
			continue
		}
		b.Run(fmt.Sprintf("asm=%v", asm), func(b *testing.B) {
			useAsm = asm
			b.ReportAllocs()
			for b.Loop() {
				kernel(kc, a, p, c, nr, true)
			}
			b.ReportMetric(2*float64(kc*mr*nr)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
