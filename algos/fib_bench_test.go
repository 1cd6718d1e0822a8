package algos

import (
	"fmt"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

var fibSink uint64

// BenchmarkFib30 forks at every call (1.6 million forks per op): the ratio
// to serial is the runtime's overhead per fork, the ratio of workers=2 to
// workers=1 its scaling.
func BenchmarkFib30(b *testing.B) {
	const n = 30
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fibSink = FibSerial(n)
		}
	})
	for _, workers := range benchWorkerCounts {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := benchPool(b, workers)
			b.ReportAllocs()
			for b.Loop() {
				fibSink = forkjoin.Invoke(p, func(w *forkjoin.Worker) uint64 { return Fib(w, n, 0) })
			}
		})
	}
}
