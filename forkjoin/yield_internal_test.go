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

// tickWindow is how long the yield tests let a worker tick: about 500
// yieldIntervals, 100 oversubscribedYieldIntervals.
const tickWindow = 100 * time.Millisecond

// A worker whose P is the only busy one yields only every
// oversubscribedYieldInterval: nothing waits for its P (pWanted). That is
// about 100 yields in tickWindow, against about 500 yielding every
// yieldInterval. Whether the other P is idle depends on the rest of the
// process (the race detector's and the collector's goroutines, a test before
// this one winding down: 387 yields were once seen under make test), so the
// test looks at up to five windows, after a collection each, and passes on
// the first that shows the idle-P behaviour; without pWanted every window
// shows about 500.
func TestYieldRarelyWhileAPIsIdle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := New(Workers(1))
	defer p.Close()
	var seen []uint64
	for range 5 {
		runtime.GC()
		yields := Invoke(p, func(w *Worker) uint64 { return tickFor(w, tickWindow) })
		if yields < 20 {
			t.Fatalf("1 worker on 2 Ps with nothing else running yielded %d times in %v, want at least 20 (about 100: once every %v)", yields, tickWindow, oversubscribedYieldInterval)
		}
		if yields <= 250 {
			return
		}
		seen = append(seen, yields)
	}
	t.Errorf("1 worker on 2 Ps with nothing else running yielded %v times in five windows of %v, want at most 250 in one (about 100; about 500 without pWanted)", seen, tickWindow)
}

// A worker yields every yieldInterval while every P is busy: here the other
// P runs a spinning goroutine, whose P's timers, and any goroutine readied
// on the worker's P, would otherwise wait for preemption.
func TestYieldWhileEveryPIsBusy(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := New(Workers(1))
	defer p.Close()
	var stop atomic.Bool
	defer stop.Store(true)
	spinning := make(chan struct{})
	go func() {
		close(spinning)
		for !stop.Load() {
		}
	}()
	<-spinning
	yields := Invoke(p, func(w *Worker) uint64 { return tickFor(w, tickWindow) })
	if yields < 200 {
		t.Errorf("1 worker on 2 Ps beside a spinning goroutine yielded %d times in %v, want at least 200 (about 500 expected; about 100 if it wrongly saw an idle P)", yields, tickWindow)
	}
}
