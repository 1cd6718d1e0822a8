package forkjoin_test

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// TestSleepWakeStress runs many short invocations with pauses between them,
// so that workers keep parking and must be woken, by new invocations, by new
// forks and by the latch or scope they wait on. A lost wake-up hangs an
// invocation, which the timeout turns into a failure.
func TestSleepWakeStress(t *testing.T) {
	rounds := 600
	if raceEnabled && testing.Short() {
		rounds = 250
	}
	for _, c := range []poolConfig{
		{forkjoin.WorkStealing, forkjoin.StealHalf, 2},
		{forkjoin.WorkStealing, forkjoin.StealOne, 3},
		{forkjoin.WorkStealing, forkjoin.StealHalf, 8},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 2},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 5},
	} {
		t.Run(c.String(), func(t *testing.T) {
			p := c.hangPool(t)
			withTimeout(t, 20*time.Second, func() {
				var wg sync.WaitGroup
				for g := range 2 { // two callers, so invocations also overlap
					wg.Add(1)
					go func() {
						defer wg.Done()
						rng := rand.New(rand.NewPCG(uint64(g), uint64(c.workers)))
						for i := range rounds {
							stressRound(t, p, i)
							if d := rng.IntN(400); d > 0 {
								time.Sleep(time.Duration(d) * time.Microsecond)
							}
						}
					}()
				}
				wg.Wait()
			})
			st := p.Stats()
			t.Logf("%+v", st)
			if st.Parks == 0 || st.Wakeups == 0 {
				t.Errorf("the workers never parked and woke, so the test proved nothing: %+v", st)
			}
		})
	}
}

// stressRound is one short invocation of a kind chosen by i.
func stressRound(t *testing.T, p *forkjoin.Pool, i int) {
	switch i % 4 {
	case 0: // a burst of forks
		if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 9) }); got != 34 {
			t.Errorf("fib(9) = %d", got)
		}
	case 1: // the forked side is stolen and slow: its joiner parks on the latch
		got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
			var stolen atomic.Bool
			a, b := forkjoin.Join(w,
				func(*forkjoin.Worker) int {
					for deadline := time.Now().Add(5 * time.Millisecond); !stolen.Load() && time.Now().Before(deadline); {
						runtime.Gosched()
					}
					return 1
				},
				func(*forkjoin.Worker) int {
					stolen.Store(true)
					time.Sleep(200 * time.Microsecond)
					return 2
				})
			return a + b
		})
		if got != 3 {
			t.Errorf("Join = %d", got)
		}
	case 2: // scope tasks that sleep: the owner parks on the scope
		n := 0
		var mu sync.Mutex
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				for range 4 {
					s.Go(func(*forkjoin.Worker) {
						time.Sleep(100 * time.Microsecond)
						mu.Lock()
						n++
						mu.Unlock()
					})
				}
			})
		})
		if n != 4 {
			t.Errorf("scope ran %d of 4 tasks", n)
		}
	case 3: // a tiny invocation that forks nothing
		if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return w.ID() + 1 }); got < 1 || got > p.Workers() {
			t.Errorf("w.ID()+1 = %d, want 1..%d", got, p.Workers())
		}
	}
}
