package algos

import (
	"fmt"
	"sync"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

var nqSink int

// BenchmarkNQueens13 also times two serial searches on two goroutines at
// once ("serial-twice"): on an idle two-core machine it takes as long as one
// ("serial"), and its ratio to "serial" is the best speedup any two-worker
// run can show at that moment (a shared machine often allows far less).
func BenchmarkNQueens13(b *testing.B) {
	const n = 13
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			nqSink = NQueensSerial(n)
		}
	})
	b.Run("serial-twice", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			wg.Go(func() { NQueensSerial(n) })
			nqSink = NQueensSerial(n)
			wg.Wait()
		}
	})
	for _, workers := range benchWorkerCounts {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := benchPool(b, workers)
			b.ReportAllocs()
			for b.Loop() {
				nqSink = forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return NQueens(w, n) })
			}
		})
	}
}
