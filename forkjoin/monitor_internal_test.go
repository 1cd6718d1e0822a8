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
	p.Close()
	checkFewSamples(t, p, busy, "a moving pool")
}

// checkFewSamples checks that p's monitor, exited, sampled p as seldom as
// rule 2 says for a pool that moved, or had a worker idle, for d: at most
// a doubling from monitorTick up to maxMonitorTick, then one sample per
// maxMonitorTick, with room for a few slow spells (a sample that finds
// nothing moved goes back to monitorTick).
func checkFewSamples(t *testing.T, p *Pool, d time.Duration, what string) {
	t.Helper()
	limit := int(d/maxMonitorTick) + 2*7 + 20
	if got := p.mon.samples; got > limit { // Close has stopped the monitor: its fields are ours to read
		t.Errorf("the monitor sampled %s %d times in %v, want at most %d", what, got, d, limit)
	} else {
		t.Logf("%d samples in %v", got, d)
	}
}

// A pool with a worker parked idle beside one blocked outside the pool is
// sampled seldom: no spare can be needed while a worker is idle, so the
// monitor's period grows as for a moving pool, instead of a sample every
// monitorTick for as long as the blockage lasts.
func TestMonitorSamplesAnIdleWorkersPoolSeldom(t *testing.T) {
	p := New(Workers(2))
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(p, func(*Worker) { <-release }) // blocks one worker; the other parks idle
	}()
	const blocked = 400 * time.Millisecond
	time.Sleep(blocked)
	close(release)
	<-done
	p.Close()
	checkFewSamples(t, p, blocked, "a pool with an idle worker")
}

// neverProbe is a wait that only its test ends.
type neverProbe struct{ ch chan struct{} }

func (p neverProbe) done() bool {
	select {
	case <-p.ch:
		return true
	default:
		return false
	}
}
func (p neverProbe) arm(*Worker) bool { return !p.done() }

// With every worker parked, one of them as a joiner, while work waits, the
// monitor stays awake and lends a spare (rule 5): a joiner runs only its own
// invocation's work, so the work may be one nobody parked may take. The
// joiner here waits for a condition outside the pool, and the work is a
// root; a lost wake-up among joiners leaves the same state, which the
// monitor must not take for an idle pool's quiet.
func TestMonitorStaysAwakeBesideParkedJoiners(t *testing.T) {
	p := New(Workers(1))
	defer p.Close()
	pr := neverProbe{make(chan struct{})}
	parked := make(chan *Worker)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(p, func(w *Worker) {
			parked <- w
			w.waitFor(pr, nil) // parks as a joiner, until the probe is released
		})
	}()
	w := <-parked
	for { // until the joiner is parked
		p.sleep.mu.Lock()
		isParked := w.isParked && w.joining
		p.sleep.mu.Unlock()
		if isParked {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ran := make(chan struct{})
	go func() { Run(p, func(*Worker) {}); close(ran) }()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Error("a root queued beside a parked joiner did not run in 5 s: the monitor slept")
	}
	close(pr.ch)
	w.wakeOwner()
	<-done
	<-ran
}
