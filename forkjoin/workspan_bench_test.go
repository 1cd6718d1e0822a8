package forkjoin_test

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// BenchmarkWorkSpanBurden measures what a fork whose forked side another
// worker runs costs on the path that waits for it: the burden
// WorkSpanBurden stands for. On a pool of two workers, each op is a Join
// whose forked side is empty and whose inline side forks tiny joins (the
// points where a worker offers its pending forks to a thief that asks)
// until the other worker has started the forked side; the op's time, from
// the fork to the end of the join, is then the promotion of the lazy fork,
// the thief's steal and start, and the join's wait for the thief: a
// burden, with next to no work in it. It reports the median and the
// least (burden-p50-ns, burden-min-ns); load on the machine only adds to
// them.
func BenchmarkWorkSpanBurden(b *testing.B) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	noop := func(*forkjoin.Worker) int { return 0 }
	times := make([]time.Duration, 0, b.N)
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		for range b.N {
			var started atomic.Bool
			t := time.Now()
			forkjoin.Join(w, func(w *forkjoin.Worker) int {
				for !started.Load() {
					forkjoin.Join(w, noop, noop)
				}
				return 0
			}, func(*forkjoin.Worker) int { started.Store(true); return 0 })
			times = append(times, time.Since(t))
		}
	})
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "burden-p50-ns")
	b.ReportMetric(float64(times[0].Nanoseconds()), "burden-min-ns")
	b.ReportMetric(float64(times[len(times)/10].Nanoseconds()), "burden-p10-ns")
	b.ReportMetric(float64(times[len(times)/4].Nanoseconds()), "burden-p25-ns")
}
