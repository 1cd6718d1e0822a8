package forkjoin

import (
	"testing"
	"time"
)

// monitorFib forks at every call, so that the workers running it make
// progress at every clock read.
func monitorFib(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := Join(w, func(w *Worker) int { return monitorFib(w, n-1) }, func(w *Worker) int { return monitorFib(w, n-2) })
	return a + b
}

// A pool that keeps moving is sampled seldom (monitor rule 2): the
// monitor's period doubles up to maxMonitorTick, since a timer that fires
// while every P is busy costs the workers more than the sample itself.
func TestMonitorSamplesAMovingPoolSeldom(t *testing.T) {
	p := New(Workers(2))
	const busy = 400 * time.Millisecond
	start := time.Now()
	for time.Since(start) < busy {
		Invoke(p, func(w *Worker) int { return monitorFib(w, 20) })
	}
	p.Close() // the monitor has exited: its fields are ours to read
	// At most a doubling from monitorTick up to maxMonitorTick, then one
	// sample per maxMonitorTick, with room for a few slow spells (a sample
	// that finds nothing moved goes back to monitorTick).
	limit := int(busy/maxMonitorTick) + 2*7 + 20
	if got := p.mon.samples; got > limit {
		t.Errorf("the monitor sampled a moving pool %d times in %v, want at most %d", got, busy, limit)
	} else {
		t.Logf("%d samples in %v", got, busy)
	}
}
