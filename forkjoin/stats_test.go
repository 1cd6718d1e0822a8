package forkjoin_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// fibForks is the number of forks fibJoin makes for n: one per call with n >= 2.
func fibForks(n int) uint64 {
	if n < 2 {
		return 0
	}
	return 1 + fibForks(n-1) + fibForks(n-2)
}

// rangePieces is the number of pieces ForRange runs with a fixed grain, each
// counted as one task: the splits that hand them out are not.
func rangePieces(n, grain int) uint64 { return uint64((n + grain - 1) / grain) }

// TestStatsTasks checks that Tasks counts exactly the tasks of a known
// workload: every fork, spawn and scope task, plus one per invocation.
func TestStatsTasks(t *testing.T) {
	for _, c := range []poolConfig{
		{forkjoin.WorkStealing, forkjoin.StealHalf, 4},
		{forkjoin.WorkStealing, forkjoin.StealOne, 3},
		{forkjoin.WorkStealing, forkjoin.StealHalf, 1},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 4},
	} {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			cases := []struct {
				name string
				run  func()
				want uint64
			}{
				{"Func.Join", func() { forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 16) }) }, fibForks(16) + 1},
				{"Func.Join+Inline", func() { forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibInline.Call(w, 20) }) }, fibForks(20) + 1},
				{"Join", func() { forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibClosureJoin(w, 14) }) }, fibForks(14) + 1},
				{"Spawn", func() { forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibSpawn(w, 12) }) }, 2*fibForks(12) + 1},
				{"Scope", func() {
					forkjoin.Run(p, func(w *forkjoin.Worker) {
						forkjoin.Scope(w, func(s *forkjoin.S) {
							for range 500 {
								s.Go(func(*forkjoin.Worker) {})
							}
						})
					})
				}, 500 + 1},
				{"ForRange", func() {
					forkjoin.Run(p, func(w *forkjoin.Worker) { forkjoin.ForRange(w, 0, 10000, 37, func(*forkjoin.Worker, int, int) {}) })
				}, rangePieces(10000, 37) + 1},
				{"Invoke x3", func() {
					for range 3 {
						forkjoin.Run(p, func(*forkjoin.Worker) {})
					}
				}, 3},
			}
			for _, tc := range cases {
				p.ResetStats()
				tc.run()
				if got := p.Stats().Tasks; got != tc.want {
					t.Errorf("%s: Tasks = %d, want %d", tc.name, got, tc.want)
				}
			}
		})
	}
}

// TestStatsSteals checks the steal counters of each mode and policy.
func TestStatsSteals(t *testing.T) {
	const n = 20
	// work runs fib(n) and, with more than one worker, one Join whose
	// forked side must be run by another worker: its inline side waits
	// until the forked side has started. That makes one steal certain even
	// on a loaded machine, where the rest may all run on one worker.
	work := func(p *forkjoin.Pool) forkjoin.Stats {
		p.ResetStats()
		forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
			if p.Workers() > 1 {
				var started atomic.Bool
				forkjoin.Join(w,
					func(*forkjoin.Worker) int {
						for deadline := time.Now().Add(5 * time.Second); !started.Load() && time.Now().Before(deadline); {
							time.Sleep(10 * time.Microsecond)
						}
						return 0
					},
					func(*forkjoin.Worker) int { started.Store(true); return 0 })
			}
			return fibJoin.Call(w, n)
		})
		return p.Stats()
	}
	t.Run("shared-queue", func(t *testing.T) {
		p := newPool(t, forkjoin.Workers(4), forkjoin.WithMode(forkjoin.SharedQueue))
		st := work(p)
		// Lock waits are likely here but depend on timing: logged, not
		// asserted.
		t.Logf("%+v", st)
		if st.Steals != 0 || st.Stolen != 0 || st.StealAttempts != 0 {
			t.Errorf("shared queue reports steals: %+v", st)
		}
		if want := fibForks(n) + 2; st.Workers != 4 || st.Tasks != want {
			t.Errorf("Workers, Tasks = %d, %d; want 4, %d", st.Workers, st.Tasks, want)
		}
	})
	for _, policy := range []forkjoin.StealPolicy{forkjoin.StealHalf, forkjoin.StealOne} {
		t.Run("work-stealing/"+policy.String(), func(t *testing.T) {
			p := newPool(t, forkjoin.Workers(4), forkjoin.WithSteal(policy))
			st := work(p)
			t.Logf("%+v", st)
			if st.Steals == 0 || st.Stolen < st.Steals || st.StealAttempts < st.Steals {
				t.Errorf("want Steals > 0, Stolen >= Steals, StealAttempts >= Steals: %+v", st)
			}
			if policy == forkjoin.StealOne && st.Stolen != st.Steals {
				t.Errorf("steal-one moved %d tasks in %d steals", st.Stolen, st.Steals)
			}
			if st.LockWaits != 0 {
				t.Errorf("work stealing reports %d lock waits", st.LockWaits)
			}
			if want := fibForks(n) + 2; st.Tasks != want {
				t.Errorf("Tasks = %d, want %d", st.Tasks, want)
			}
		})
	}
	t.Run("single-worker", func(t *testing.T) {
		p := newPool(t, forkjoin.Workers(1))
		if st := work(p); st.Steals != 0 || st.StealAttempts != 0 {
			t.Errorf("a lone worker stole: %+v", st)
		}
	})
}

// TestStatsSleepAndReset checks the park and wake-up counters and that
// ResetStats zeroes every counter.
func TestStatsSleepAndReset(t *testing.T) {
	p := newPool(t, forkjoin.Workers(4))
	// A new pool's workers find nothing to do and park, each once.
	waitFor(t, "every worker to park", func() bool { return p.Stats().Parks >= 4 })
	p.ResetStats()
	// All are parked and none searches: the Invoke must wake one.
	forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 18) })
	if st := p.Stats(); st.Wakeups == 0 {
		t.Errorf("an Invoke on a parked pool woke nobody: %+v", st)
	}
	waitFor(t, "a worker to park again", func() bool { return p.Stats().Parks > 0 })
	t.Logf("%+v", p.Stats())
	p.ResetStats()
	if st := p.Stats(); st != (forkjoin.Stats{Workers: 4}) {
		t.Errorf("after ResetStats: %+v, want all counters zero", st)
	}
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
