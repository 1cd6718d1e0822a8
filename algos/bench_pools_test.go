package algos

import (
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// benchWorkerCounts: one worker measures the cost of the forks themselves
// against the serial baseline, two the speedup on this class of machine.
var benchWorkerCounts = []int{1, 2}

// benchPool starts a work-stealing pool for a benchmark, outside its timer,
// and closes it when the benchmark ends.
func benchPool(b *testing.B, workers int) *forkjoin.Pool {
	b.Helper()
	p := forkjoin.New(forkjoin.Workers(workers))
	b.Cleanup(p.Close)
	// Start the workers before the timer does.
	forkjoin.Run(p, func(*forkjoin.Worker) {})
	return p
}
