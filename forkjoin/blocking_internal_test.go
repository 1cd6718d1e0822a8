package forkjoin

import (
	"testing"
	"time"
)

// A pool makes a spare only when a Blocking call finds none free, reuses it
// once it has gone dormant again, and makes at most maxSpares.
func TestSparesAreMadeOnDemandReusedAndBounded(t *testing.T) {
	p := New(Workers(2))
	defer p.Close()
	state := func() (made, dormant int) {
		p.spares.mu.Lock()
		defer p.spares.mu.Unlock()
		return p.spares.made, len(p.spares.free)
	}
	waitDormant := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			if _, d := state(); d == want && p.spares.active.Load() == 0 {
				return
			}
			if time.Now().After(deadline) {
				made, d := state()
				t.Fatalf("spares did not go dormant after their Blocking calls returned: %d made, %d dormant, %d active", made, d, p.spares.active.Load())
			}
		}
	}
	if made, _ := state(); made != 0 || len(p.live()) != 2 {
		t.Fatalf("a new pool has %d spares and %d live workers, want 0 and 2", made, len(p.live()))
	}
	for round := range 3 {
		Run(p, func(w *Worker) {
			Blocking(w, func() {
				if got := p.spares.active.Load(); got != 1 {
					t.Errorf("round %d: inside Blocking %d spares are active, want 1", round, got)
				}
			})
		})
		waitDormant(1)
		if made, _ := state(); made != 1 {
			t.Fatalf("round %d: %d spares made, want the first one reused", round, made)
		}
	}
	// At the bound, with none free, Blocking lends none.
	p.spares.mu.Lock()
	free, made := p.spares.free, p.spares.made
	p.spares.free, p.spares.made = nil, maxSpares
	p.spares.mu.Unlock()
	if s := p.activateSpare(); s != nil {
		t.Error("a pool with maxSpares spares, none free, made or lent another")
	}
	p.spares.mu.Lock()
	p.spares.free, p.spares.made = free, made
	p.spares.mu.Unlock()
	if got := p.Workers(); got != 2 {
		t.Errorf("Workers() = %d, want 2 (spares not counted)", got)
	}
}

// A wake-up for new work that chooses a spare about to go dormant (the
// last worker to park, retired meanwhile) is passed on: the root it was
// for runs on the pool's own worker instead of waiting for a wake-up that
// never comes.
func TestRetiredSparePassesOnAWakeUp(t *testing.T) {
	p := New(Workers(1))
	s := p.activateSpare()
	idle := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); p.sleep.idle() != n; time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d workers parked, want %d", p.sleep.idle(), n)
			}
		}
	}
	idle(2)               // the worker, then the spare: the spare is the one a wake-up picks
	s.retired.Store(true) // as retireSpare does, before its wake-up arrives
	done := make(chan int)
	go func() { done <- Invoke(p, func(*Worker) int { return 42 }) }()
	select {
	case got := <-done:
		if got != 42 {
			t.Errorf("Invoke = %d, want 42", got)
		}
		p.Close()
	case <-time.After(10 * time.Second):
		// Close would wait for the root: the pool is left behind.
		t.Fatal("the root waited 10 s: the spare took the wake-up meant for work and went dormant")
	}
}
