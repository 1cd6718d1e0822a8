package forkjoin

import (
	"strings"
	"testing"
)

// A pool starts in time linear in its workers. Every new worker used to
// look for work in every other worker's deque (a steal round, then a
// search, then the last look before parking), and Close woke every worker
// to search again: n² deque probes, which made 5 000 workers take 0.35 s
// to the first call and 25 000 take 10 s. New workers now start parked and
// a closing pool's workers exit without searching. Counted, not timed:
// probes are the deques the workers looked at while idle.
func TestPoolStartsInLinearTime(t *testing.T) {
	const n = 2000 // under the race detector's limit of goroutines
	p := New(Workers(n))
	if got := Invoke(p, func(*Worker) int { return 1 }); got != 1 {
		t.Fatalf("Invoke = %d", got)
	}
	p.Close() // orders the workers' counts before our reads
	var probes uint64
	for _, w := range p.workers {
		probes += w.probes
	}
	if probes > 20*n {
		t.Errorf("starting, calling and closing a pool of %d workers looked at %d deques (%.0f per worker); want O(n), at most %d", n, probes, float64(probes)/n, 20*n)
	}
}

// Workers bounds the pool's size: a size that cannot be a real pool is
// misuse, reported by name before any memory is asked for.
func TestWorkersBound(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "forkjoin.Workers") || !strings.Contains(msg, itoa(maxWorkers)) {
			t.Fatalf("Workers(maxWorkers+1) panicked with %q, want a message naming forkjoin.Workers and the bound", msg)
		}
	}()
	Workers(maxWorkers + 1)
}
