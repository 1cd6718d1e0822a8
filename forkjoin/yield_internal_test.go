package forkjoin

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// tickFor runs w.tick in a loop for d, as a task forking tiny tasks would,
// and returns how many times w yielded meanwhile.
func tickFor(w *Worker, d time.Duration) uint64 {
	before := w.yields
	for end := time.Now().Add(d); time.Now().Before(end); {
		for range 1000 {
			w.tick()
		}
	}
	return w.yields - before
}

// A worker whose P is the only busy one does not yield: nothing waits for
// its P (pWanted). Yielding every yieldInterval, 40 ms would make about 200
// yields. The bound leaves room for the moments the other P is busy after
// all (the race detector's and the collector's goroutines, a test before
// this one winding down): 21 were seen under make test.
func TestNoYieldWhileAPIsIdle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := New(Workers(1))
	defer p.Close()
	yields := Invoke(p, func(w *Worker) uint64 { return tickFor(w, 40*time.Millisecond) })
	if yields > 60 {
		t.Errorf("1 worker on 2 Ps with nothing else running yielded %d times in 40 ms, want at most 60 (about 200 without pWanted)", yields)
	}
}

// A worker yields every yieldInterval while every P is busy: here the other
// P runs a spinning goroutine, whose P's timers, and any goroutine readied
// on the worker's P, would otherwise wait for preemption.
func TestYieldWhileEveryPIsBusy(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := New(Workers(1))
	defer p.Close()
	var stop atomic.Bool
	spinning := make(chan struct{})
	go func() {
		close(spinning)
		for !stop.Load() {
		}
	}()
	<-spinning
	yields := Invoke(p, func(w *Worker) uint64 { return tickFor(w, 40*time.Millisecond) })
	stop.Store(true)
	if yields < 20 {
		t.Errorf("1 worker on 2 Ps beside a spinning goroutine yielded %d times in 40 ms, want at least 20 (about 200 expected)", yields)
	}
}
