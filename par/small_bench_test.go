package par_test

import (
	"fmt"
	"testing"

	"github.com/fjkit/fjkit/par"
)

// BenchmarkSmall makes calls over 8 cheap elements, beside the loop each
// replaces: such a call must stay in the caller, costing the loop plus a
// few nanoseconds and no allocation. Run as
//
//	go test -run '^$' -bench 'Small' -count 5 -cpu 1,2 ./par
func BenchmarkSmall(b *testing.B) {
	s := loopInput()[:8]
	small := func(name string, fn func()) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fn()
			}
		})
	}
	small("Reduce/serial", func() { sinkU = sumShr3(s) })
	small("Reduce/par", func() { sinkU = par.Reduce(s, 0, shr3, add) })
	small("ReduceRange/par", func() { sinkU = reduceRangeShr3(s) })
	out := make([]uint64, len(s))
	small("For/serial", func() {
		for i := range s {
			out[i] = s[i]*3 + 1
		}
	})
	small("For/par", func() { par.For(len(s), func(i int) { out[i] = s[i]*3 + 1 }) })
	small("ForRange/par", func() {
		par.ForRange(len(s), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = s[i]*3 + 1
			}
		})
	})
	small("Map/serial", func() {
		r := make([]uint64, len(s))
		for i, x := range s {
			r[i] = x*3 + 1
		}
		sinkS = r
	})
	small("Map/par", func() { sinkS = par.Map(s, mul3add1) })
	small("Scan/par", func() { sinkS = par.Scan(s, add) })
	small("Filter/par", func() { sinkS = par.Filter(s, even) })
	small("IndexFunc/par", func() { sinkI = par.IndexFunc(s, func(x uint64) bool { return x == 0 }) })
	_ = fmt.Sprint
}
