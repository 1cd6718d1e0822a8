package forkjoin

import "testing"

// BenchmarkHeartbeat measures the lazy Func.Join against the serial code
// and the eager path it replaced (shared-queue mode forks eagerly through
// the same Func), in one run, and reports how many frames were promoted and
// stolen per operation: with a fork at every call, only a few dozen of
// fib(30)'s 1.35 million forks should become jobs. The tree-sum benchmark
// of the issue (10⁷ nodes) is BenchmarkTreeSum.
func BenchmarkHeartbeat(b *testing.B) {
	b.Run("fib30/serial", func(b *testing.B) {
		for range b.N {
			fibSink = fibSerial(benchFibN)
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run("fib30/lazy/workers="+itoa(workers), func(b *testing.B) {
			p := New(Workers(workers))
			defer p.Close()
			fn := func(w *Worker) int { return fibFunc.Call(w, benchFibN) }
			Invoke(p, fn)
			p.ResetStats()
			before := promotions(p)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				fibSink = Invoke(p, fn)
			}
			b.StopTimer()
			p.Close() // the workers' counters are theirs until they exit
			b.ReportMetric(float64(promotions(p)-before)/float64(b.N), "promoted/op")
			b.ReportMetric(float64(p.Stats().Steals)/float64(b.N), "steals/op")
		})
	}
}
