package forkjoin

import "testing"

// A producer's wake-up goes to an idle worker before a joiner: a joiner
// often cannot take the work (helping is isolated by invocation) or is
// about to leave. wakeOne used to wake the most recently parked worker,
// joiner or not (issue 9, defect 5).
func TestWakeOnePrefersIdleWorkers(t *testing.T) {
	var s sleep
	idle := &Worker{parking: parking{wake: make(chan struct{}, 1), isParked: true}}
	joiner := &Worker{parking: parking{wake: make(chan struct{}, 1), isParked: true, joining: true}}
	s.parked = []*Worker{idle, joiner}
	s.addIdle(2)
	s.wakeOne()
	if len(idle.wake) != 1 || len(joiner.wake) != 0 {
		t.Fatalf("wakeOne woke idle=%d joiner=%d; want the idle worker", len(idle.wake), len(joiner.wake))
	}
	if !idle.wokeForWork || idle.isParked || len(s.parked) != 1 || s.parked[0] != joiner {
		t.Fatalf("after wakeOne: wokeForWork=%v isParked=%v parked=%d", idle.wokeForWork, idle.isParked, len(s.parked))
	}
	// With only joiners parked, one of them gets it (it may help).
	s.wakeOne()
	if len(joiner.wake) != 1 || !joiner.wokeForWork {
		t.Fatal("wakeOne with only a joiner parked did not wake it")
	}
}

// waitFor publishes the spawns that tasks it ran held back, before it
// returns to code that may run for long: they used to stay unpublished,
// where no other worker could see them, until that code forked or waited
// again (defect 4).
func TestWaitForLeavesNothingHeldBack(t *testing.T) {
	p := New(Workers(1))
	defer p.Close()
	Run(p, func(w *Worker) {
		s := &S{w: w, inv: w.inv, limit: 1 << 20, eager: 0}
		pr := &spawnOnce{w: w, s: s}
		w.waitFor(pr, nil)
		if n := w.deque.Local(); n != 0 || w.batch != nil {
			t.Errorf("waitFor returned with %d spawns held back, open batch %v", n, w.batch != nil)
		}
		w.waitFor(s, nil) // run the spawn before the test's scope is gone
	})
}

// spawnOnce is a probe that, on its first check, spawns a task into s the
// way a task run while helping would (held back: nobody is hungry), and
// then holds.
type spawnOnce struct {
	w       *Worker
	s       *S
	spawned bool
}

func (pr *spawnOnce) done() bool {
	if !pr.spawned {
		pr.spawned = true
		pr.s.goFrom(pr.w, func(*Worker) {})
	}
	return true
}

func (pr *spawnOnce) arm(*Worker) bool { return false }

// The sleep protocol's two counts share one word: each moves alone, a
// count's fall to zero leaves the other as it was, and hungry sees either.
func TestSleepCountsShareAWord(t *testing.T) {
	var s sleep
	if s.hungry() {
		t.Fatal("hungry with nobody idle or searching")
	}
	s.addIdle(3)
	s.addSearching(2)
	if v := s.counts.Load(); idleOf(v) != 3 || searchingOf(v) != 2 || s.idle() != 3 {
		t.Fatalf("idle, searching = %d, %d; want 3, 2", idleOf(v), searchingOf(v))
	}
	s.addIdle(-3)
	if v := s.addSearching(-1); idleOf(v) != 0 || searchingOf(v) != 1 || !s.hungry() {
		t.Fatalf("idle, searching = %d, %d, hungry %v; want 0, 1, true", idleOf(v), searchingOf(v), s.hungry())
	}
	if v := s.addSearching(-1); v != 0 || s.hungry() {
		t.Fatalf("counts = %#x after both fell to zero", v)
	}
	s.addIdle(1)
	if !s.hungry() || !s.maySearch(4) || s.maySearch(1) {
		t.Fatalf("one idle of 4: hungry %v, maySearch(4) %v, maySearch(1) %v; want true, true, false",
			s.hungry(), s.maySearch(4), s.maySearch(1))
	}
}
