package algos

import (
	"fmt"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

var utsSink UTSResult

// BenchmarkUTST1 searches sample tree T1 (4.1 million nodes, one fork per
// node) and reports nodes per second.
func BenchmarkUTST1(b *testing.B) {
	s := loadUTSSamples(b)["T1"]
	report := func(b *testing.B) {
		b.ReportMetric(float64(s.want.Nodes)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			utsSink = UTSSerial(s.p)
		}
		report(b)
	})
	for _, workers := range benchWorkerCounts {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := benchPool(b, workers)
			b.ReportAllocs()
			for b.Loop() {
				utsSink = forkjoin.Invoke(p, func(w *forkjoin.Worker) UTSResult { return UTS(w, s.p) })
			}
			report(b)
		})
	}
}
