package algos

import (
	"fmt"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

var nqSink int

func BenchmarkNQueens13(b *testing.B) {
	const n = 13
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			nqSink = NQueensSerial(n)
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
