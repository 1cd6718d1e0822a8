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

// mostYields runs tickFor for up to five windows and returns the most
// yields one window saw, stopping once a window reaches want. A worker
// descheduled by the OS (other processes on the machine, other packages'
// tests beside this one) misses yields it would otherwise make, so one
// window can fall short for reasons outside the process; a worker that
// wrongly yields every oversubscribedYieldInterval stays near 100 in every
// window, so the best window still tells the two apart.
func mostYields(w *Worker, want uint64) uint64 {
	var best uint64
	for range 5 {
		if best = max(best, tickFor(w, tickWindow)); best >= want {
			break
		}
	}
	return best
}

// fakeSched returns a reading for Worker.readSched: runnable goroutines,
// running ones, ones not in Go (system calls), and GOMAXPROCS.
func fakeSched(runnable, running, notInGo, procs uint64) func() (uint64, uint64, uint64, uint64) {
	return func() (uint64, uint64, uint64, uint64) { return runnable, running, notInGo, procs }
}

// pWanted says yes when a goroutine is runnable or every P is busy, counting
// a goroutine in a system call as holding a P, and no otherwise.
func TestPWanted(t *testing.T) {
	for _, c := range []struct {
		runnable, running, notInGo, procs uint64
		want                              bool
	}{
		{0, 1, 0, 2, false}, // the worker alone: a P idle
		{1, 1, 0, 2, true},  // a goroutine waits for a P
		{0, 2, 0, 2, true},  // every P runs Go code
		{0, 1, 1, 2, true},  // the other P is held by a system call
		{0, 1, 0, 4, false},
		{0, 3, 1, 4, true},
	} {
		w := &Worker{clock: clock{readSched: fakeSched(c.runnable, c.running, c.notInGo, c.procs)}}
		if got := w.pWanted(0); got != c.want {
			t.Errorf("pWanted with %d runnable, %d running, %d not in Go, %d Ps = %v, want %v",
				c.runnable, c.running, c.notInGo, c.procs, got, c.want)
		}
	}
	// A no holds for yieldInterval without another reading.
	w := &Worker{clock: clock{readSched: fakeSched(0, 1, 0, 2)}}
	w.pWanted(0)
	w.readSched = fakeSched(1, 1, 0, 2)
	if w.pWanted(yieldInterval / 2) {
		t.Errorf("pWanted read the scheduler again within yieldInterval of a no")
	}
	if !w.pWanted(yieldInterval) {
		t.Errorf("pWanted did not read the scheduler again yieldInterval after a no")
	}
}

// A worker that finds a P idle and nobody waiting yields only every
// oversubscribedYieldInterval: about 100 yields in tickWindow, against
// about 500 yielding every yieldInterval. The reading is faked: whether the
// process's other P is really idle depends on everything else the machine
// runs (under make test, with other packages' tests beside it, a real
// reading saw it busy for most of every window).
func TestYieldRarelyWhileAPIsIdle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := New(Workers(1))
	defer p.Close()
	p.workers[0].readSched = fakeSched(0, 1, 0, 2) // before Invoke hands the worker a task
	yields := Invoke(p, func(w *Worker) uint64 { return tickFor(w, tickWindow) })
	if yields > 250 || yields < 20 {
		t.Errorf("1 worker on 2 Ps with nothing else running yielded %d times in %v, want 20 to 250 (about 100, once every %v; about 500 without pWanted)", yields, tickWindow, oversubscribedYieldInterval)
	}
}

// A worker yields every yieldInterval while every P is busy: here the other
// P runs a spinning goroutine, whose P's timers, and any goroutine readied
// on the worker's P, would otherwise wait for preemption.
func TestYieldWhileEveryPIsBusy(t *testing.T) {
	if runtime.NumCPU() < 2 {
		// Two Ps on one CPU take turns on it: the worker runs only part
		// of each window, and yields in proportion.
		t.Skip("needs two CPUs for two busy Ps")
	}
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
	yields := Invoke(p, func(w *Worker) uint64 { return mostYields(w, 200) })
	if yields < 200 {
		t.Errorf("1 worker on 2 Ps beside a spinning goroutine yielded at most %d times in %v (best of 5 windows), want at least 200 (about 500 expected; about 100 if it wrongly saw an idle P)", yields, tickWindow)
	}
}

// BenchmarkSchedCounts measures pWanted's reading of runtime/metrics, which
// clock.go puts at about 200 ns and asks at most once per yieldInterval.
func BenchmarkSchedCounts(b *testing.B) {
	w := &Worker{}
	b.ReportAllocs()
	for range b.N {
		w.schedCounts()
	}
}

// BenchmarkTimerBesideAWorker measures how late a timer on a busy worker's P
// fires while the other P is idle (1 worker, GOMAXPROCS 2): each op is an
// invocation that arms a 1 ms timer and then ticks for 5 ms, as a task
// forking tiny tasks does. The price of yielding only every millisecond
// there (docs/design.md, "Sharing Ps with the program").
func BenchmarkTimerBesideAWorker(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := New(Workers(1))
	defer p.Close()
	var worst, total time.Duration
	for range b.N {
		late := Invoke(p, func(w *Worker) time.Duration {
			fired := make(chan time.Duration, 1)
			t0 := time.Now()
			time.AfterFunc(time.Millisecond, func() { fired <- time.Since(t0) - time.Millisecond })
			tickFor(w, 5*time.Millisecond)
			return <-fired
		})
		worst, total = max(worst, late), total+late
	}
	b.ReportMetric(float64(worst.Microseconds()), "worst-µs-late")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-late/op")
}
