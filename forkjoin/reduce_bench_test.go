package forkjoin_test

import (
	"strconv"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// BenchmarkReduce sums 10⁶ int64s and float64s with Reduce, one call of
// each function value per element, beside the serial loop through the same
// function values.
func BenchmarkReduce(b *testing.B) {
	const n = 1_000_000
	is := make([]int64, n)
	fs := make([]float64, n)
	for i := range is {
		is[i], fs[i] = int64(i*7%1000), float64(i%1000)*1e-3
	}
	atI := func(i int) int64 { return is[i] }
	atF := func(i int) float64 { return fs[i] }
	addI := func(x, y int64) int64 { return x + y }
	addF := func(x, y float64) float64 { return x + y }
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			var s int64
			for i := range n {
				s = addI(s, atI(i))
			}
			sinkI64 = s
		}
	})
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for _, workers := range []int{1, 2} {
			p := forkjoin.New(forkjoin.Workers(workers), forkjoin.WithMode(mode))
			b.Run("int64/"+mode.String()+"/workers="+strconv.Itoa(workers), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sinkI64 = forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 { return forkjoin.Reduce(w, 0, n, 0, atI, addI) })
				}
			})
			b.Run("float64/"+mode.String()+"/workers="+strconv.Itoa(workers), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sinkF64 = forkjoin.Invoke(p, func(w *forkjoin.Worker) float64 { return forkjoin.Reduce(w, 0, n, 0, atF, addF) })
				}
			})
			p.Close()
		}
	}
}

var (
	sinkI64 int64
	sinkF64 float64
)
