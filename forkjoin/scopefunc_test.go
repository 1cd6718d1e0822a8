package forkjoin_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

type countArg struct {
	i    int
	hits []atomic.Int32
}

var countTask = forkjoin.NewFunc(func(_ *forkjoin.Worker, a countArg) struct{} {
	a.hits[a.i].Add(1)
	return struct{}{}
})

// Func.Go runs every spawned call exactly once, in every configuration, also
// past the point where a work-stealing scope starts running spawns inline.
func TestFuncGoExactlyOnce(t *testing.T) {
	n := 200_000
	if raceEnabled {
		n = 30_000
	}
	for _, c := range configs() {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			hits := make([]atomic.Int32, n)
			p.ResetStats()
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.S) {
					for i := range n {
						countTask.Go(s, countArg{i, hits})
					}
				})
			})
			for i := range hits {
				if h := hits[i].Load(); h != 1 {
					t.Fatalf("task %d ran %d times; want 1", i, h)
				}
			}
			// Every spawn is a task, whether queued or run inline; plus the root.
			if got := p.Stats().Tasks; got != uint64(n)+1 {
				t.Errorf("Stats().Tasks = %d; want %d", got, n+1)
			}
		})
	}
}

var failAt = forkjoin.NewFunc(func(_ *forkjoin.Worker, i int) struct{} {
	if i == 777 {
		panic(errors.New("task 777 failed"))
	}
	return struct{}{}
})

// A panic in a task spawned by Func.Go reaches the scope's caller.
func TestFuncGoPanic(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		p := forkjoin.New(forkjoin.Workers(2), forkjoin.WithMode(mode))
		v := recovered(func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.S) {
					for i := range 5000 {
						failAt.Go(s, i)
					}
				})
			})
		})
		var pe *forkjoin.PanicError
		if err, ok := v.(error); !ok || !errors.As(err, &pe) || pe.Unwrap() == nil || pe.Unwrap().Error() != "task 777 failed" {
			t.Fatalf("%v: recovered %v; want a *PanicError wrapping task 777's error", mode, v)
		}
		// Still usable.
		if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return 7 }); got != 7 {
			t.Fatalf("%v: pool unusable after a panic", mode)
		}
		p.Close()
	}
}

// waitUntil spins (yielding) until cond holds, and reports false if it does
// not within 10 seconds.
func waitUntil(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
	}
	return true
}

// A spawn while another worker is idle is published at once: the idle worker
// runs it while the spawning task is still busy. (Spawns are otherwise
// published in batches; see TestFewSpawnsWaitUnpublished. Spinning on a
// spawned task, as this test does to observe that, is what users must not do
// in general: see the package doc.)
func TestSpawnRunsWhileSpawnerComputes(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for i := 0; i < 20 && !t.Failed(); i++ {
		var ran atomic.Bool
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				s.Go(func(*forkjoin.Worker) { ran.Store(true) })
				// Stand-in for long serial work after the spawn.
				if !waitUntil(ran.Load) {
					t.Error("the spawned task did not run while its spawner computed; the other worker was idle")
				}
			})
		})
	}
}

// The same below other frames, where no first-fork rule applies: a lazy
// spawn made while another worker is parked is offered to it at once, not
// at the spawner's next heartbeat, which a spawner that computes without
// forking would not reach.
func TestNestedSpawnRunsWhileSpawnerComputes(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for i := 0; i < 20 && !t.Failed(); i++ {
		var ran, fbDone atomic.Bool
		var parks atomic.Uint64 // the pool's parks when fb ended
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Join(w, func(w *forkjoin.Worker) int {
				// The other worker took fb (the task's first fork is
				// offered at once); wait until it has parked after
				// fb (a park before fb, which the offer woke it from,
				// does not count).
				if !waitUntil(func() bool { return fbDone.Load() && p.Stats().Parks > parks.Load() }) {
					t.Error("the other worker never parked")
					return 0
				}
				forkjoin.Scope(w, func(s *forkjoin.S) {
					s.Go(func(*forkjoin.Worker) { ran.Store(true) })
					if !waitUntil(ran.Load) {
						t.Error("a nested spawn did not run while its spawner computed; the other worker was parked")
					}
				})
				return 0
			}, func(*forkjoin.Worker) int {
				parks.Store(p.Stats().Parks)
				fbDone.Store(true)
				return 0
			})
		})
	}
}

// However many tasks a loop spawns, only a few (less than one publication
// batch, 16) stay unpublished when the spawner turns to other work: the other
// worker runs all the others meanwhile.
func TestFewSpawnsWaitUnpublished(t *testing.T) {
	const n, batch = 10_000, 16
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	hits := make([]atomic.Int32, n)
	var ran atomic.Int64
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.Scope(w, func(s *forkjoin.S) {
			for i := range n {
				s.Go(func(*forkjoin.Worker) { hits[i].Add(1); ran.Add(1) })
			}
			// Stand-in for long serial work after the loop.
			if !waitUntil(func() bool { return ran.Load() > n-batch }) {
				t.Errorf("%d of %d tasks ran while the spawner computed; want all but fewer than %d",
					ran.Load(), n, batch)
			}
		})
	})
	for i := range hits {
		if h := hits[i].Load(); h != 1 {
			t.Fatalf("task %d ran %d times, want 1", i, h)
		}
	}
}

// Spawns held back while every worker was busy (in frames, or in an open
// batch) are published while the spawner goes on forking, at its heartbeat,
// and a parked worker is woken for them: here the held-back task must meet
// the spawner's forking loop, so the run finishes only if the other worker,
// parked by then, is woken and takes it.
func TestHeartbeatPublishesHeldBackSpawns(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer func() {
		if !t.Failed() { // Close would wait for the stuck Run
			p.Close()
		}
	}()
	withTimeout(t, 20*time.Second, func() {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				// Keep the other worker busy on a gate.
				gate := make(chan struct{})
				var entered atomic.Bool
				s.Go(func(*forkjoin.Worker) { entered.Store(true); <-gate })
				if !waitUntil(entered.Load) {
					t.Error("the gate task never started")
					close(gate)
					return
				}
				// Tasks that wait unpublished (nobody is idle), then one
				// that must meet the forking loop below.
				for range 100 {
					s.Go(func(*forkjoin.Worker) {})
				}
				var arrived atomic.Int32
				meet := func(*forkjoin.Worker) int {
					arrived.Add(1)
					for arrived.Load() < 2 {
						runtime.Gosched()
					}
					return 0
				}
				s.Go(func(w *forkjoin.Worker) { meet(w) })
				parks := p.Stats().Parks
				close(gate)
				// The other worker runs the published tasks and parks.
				if !waitUntil(func() bool { return p.Stats().Parks > parks }) {
					t.Error("the other worker never parked")
				}
				// Compute, forking: the heartbeat offers the frames.
				arrived.Add(1)
				for arrived.Load() < 2 {
					fibJoin.Call(w, 12)
				}
			})
		})
	})
}

// A task's spawns are the task's, even where its spawner's spawns of the
// same kind into the same scope wait just below its mark: a spawn still
// lazy at the task's end runs then, not at the spawner's end. (Lazy spawns
// of one kind share a frame: the task's first spawn must start a frame of
// its own, not join the spawner's.) On one worker nothing is published, so
// the spawn has run by the time the task's Join returns. On two, a spawn
// made while the other worker waits is published at once and is the
// scope's to wait for, so it may still be pending then; but it is
// stealable, so it runs while the spawner spins without settling. Joined
// to the spawner's run it would wait for the spawner's end, and the spin
// would time out.
func TestTaskSpawnsEndWithTheTask(t *testing.T) {
	kinds := []struct {
		name  string
		spawn func(s *forkjoin.S, c *atomic.Int32)
	}{
		{"S.Go", func(s *forkjoin.S, c *atomic.Int32) {
			s.Go(func(*forkjoin.Worker) {
				if c != nil {
					c.Add(1)
				}
			})
		}},
		{"Func.Go", func(s *forkjoin.S, c *atomic.Int32) { countFunc.Go(s, c) }},
	}
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		for _, k := range kinds {
			t.Run(fmt.Sprintf("%s/workers=%d", k.name, workers), func(t *testing.T) {
				for i := 0; i < 100 && !t.Failed(); i++ { // a failure costs waitUntil's timeout
					var inner atomic.Int32
					forkjoin.Run(p, func(w *forkjoin.Worker) {
						forkjoin.Scope(w, func(s *forkjoin.S) {
							// The first spawn of the root task is offered
							// to thieves at once; the later ones wait on top.
							for range 3 {
								k.spawn(s, nil)
							}
							f := forkjoin.Spawn(w, func(w *forkjoin.Worker) int {
								k.spawn(s, &inner)
								return 0
							})
							f.Join(w)
							ran := inner.Load() == 1
							if !ran && workers > 1 {
								ran = waitUntil(func() bool { return inner.Load() == 1 })
							}
							if !ran {
								t.Error("a task's spawn waited for its spawner's end")
							}
						})
					})
				}
			})
		}
		p.Close()
	}
}

// countFunc adds one to its counter, if any.
var countFunc = forkjoin.NewFunc(func(_ *forkjoin.Worker, c *atomic.Int32) struct{} {
	if c != nil {
		c.Add(1)
	}
	return struct{}{}
})
