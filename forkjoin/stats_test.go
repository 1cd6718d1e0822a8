package forkjoin_test

import (
	"runtime"
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

// rangeForks is the number of forks ForRange makes with a fixed grain: one
// per split, and a piece splits while it is longer than grain.
func rangeForks(n, grain int) uint64 {
	if n <= grain {
		return 0
	}
	return 1 + rangeForks(n/2, grain) + rangeForks(n-n/2, grain)
}

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
				}, rangeForks(10000, 37) + 1},
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
	work := func(p *forkjoin.Pool) forkjoin.Stats {
		p.ResetStats()
		forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, n) })
		return p.Stats()
	}
	t.Run("shared-queue", func(t *testing.T) {
		p := newPool(t, forkjoin.Workers(4), forkjoin.WithMode(forkjoin.SharedQueue))
		var st forkjoin.Stats
		for range 10 { // contention is likely, not certain, in one run
			st = work(p)
			if st.LockWaits > 0 {
				break
			}
		}
		t.Logf("%+v", st)
		if st.Steals != 0 || st.Stolen != 0 || st.StealAttempts != 0 {
			t.Errorf("shared queue reports steals: %+v", st)
		}
		if st.LockWaits == 0 && runtime.GOMAXPROCS(0) > 1 {
			t.Errorf("4 workers on one queue never found its lock held in 10 runs: %+v", st)
		}
		if st.Workers != 4 || st.Tasks != fibForks(n)+1 {
			t.Errorf("Workers, Tasks = %d, %d; want 4, %d", st.Workers, st.Tasks, fibForks(n)+1)
		}
	})
	for _, policy := range []forkjoin.StealPolicy{forkjoin.StealHalf, forkjoin.StealOne} {
		t.Run("work-stealing/"+policy.String(), func(t *testing.T) {
			p := newPool(t, forkjoin.Workers(4), forkjoin.WithSteal(policy))
			var st forkjoin.Stats
			for range 10 {
				st = work(p)
				if st.Steals > 0 {
					break
				}
			}
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
	time.Sleep(20 * time.Millisecond) // every worker parks
	p.ResetStats()
	forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 18) })
	time.Sleep(20 * time.Millisecond) // and parks again
	st := p.Stats()
	t.Logf("%+v", st)
	if st.Wakeups == 0 {
		t.Errorf("an Invoke on a parked pool woke nobody: %+v", st)
	}
	if st.Parks == 0 {
		t.Errorf("no worker parked after the work ran out: %+v", st)
	}
	p.ResetStats()
	if st := p.Stats(); st != (forkjoin.Stats{Workers: 4}) {
		t.Errorf("after ResetStats: %+v, want all counters zero", st)
	}
}
