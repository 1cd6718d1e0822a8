package forkjoin_test

import (
	"sync"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// blockEveryWorker starts one invocation per worker of p whose task blocks
// on release (through forkjoin.Blocking if blocking is set) and returns once
// every worker is blocked in one; wait returns when they have all finished.
func blockEveryWorker(t *testing.T, p *forkjoin.Pool, blocking bool, release <-chan struct{}) (wait func()) {
	t.Helper()
	var started, done sync.WaitGroup
	for range p.Workers() {
		started.Add(1)
		done.Go(func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				started.Done()
				if blocking {
					forkjoin.Blocking(w, func() { <-release })
				} else {
					<-release
				}
			})
		})
	}
	started.Wait()
	return done.Wait
}

// A task blocked on a goroutine that calls Invoke on the same pool starves
// that Invoke when every worker is blocked so: waiting workers never start
// a queued invocation. Blocking lends a compensating worker for the time
// the task blocks, which runs the Invoke.
func TestBlockingLetsAQueuedInvokeRun(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for _, n := range []int{1, 2, 4} {
			t.Run(mode.String()+"/workers="+itoa(n), func(t *testing.T) {
				p := hangPool(t, forkjoin.Workers(n), forkjoin.WithMode(mode))
				withTimeout(t, 10*time.Second, func() {
					release := make(chan struct{})
					wait := blockEveryWorker(t, p, true, release)
					// The goroutine the blocked tasks wait for: it
					// needs the pool to get its own work done.
					got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 20) })
					close(release)
					wait()
					if got != serialFib(20) {
						t.Errorf("Invoke beside blocked workers = %d, want %d", got, serialFib(20))
					}
				})
				// The spares let go, the pool is as before.
				checkUsable(t, p)
			})
		}
	}
}

// Without Blocking, the same Invoke runs too: the pool's monitor finds
// every worker blocked in a task while a root waits, and adds a spare
// within milliseconds, which it retires once the workers are released.
func TestBlockedWorkersGetASpare(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for _, n := range []int{1, 2, 4} {
			t.Run(mode.String()+"/workers="+itoa(n), func(t *testing.T) {
				p := hangPool(t, forkjoin.Workers(n), forkjoin.WithMode(mode))
				withTimeout(t, 10*time.Second, func() {
					release := make(chan struct{})
					wait := blockEveryWorker(t, p, false, release)
					start := time.Now()
					got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 20) })
					if d := time.Since(start); d > 2*time.Second {
						t.Errorf("an Invoke beside %d blocked workers took %v, want the monitor's few milliseconds", n, d)
					}
					close(release)
					wait()
					if got != serialFib(20) {
						t.Errorf("Invoke beside blocked workers = %d, want %d", got, serialFib(20))
					}
				})
				checkUsable(t, p)
			})
		}
	}
}

// A pool that has been moving for a while is sampled seldom (the monitor's
// period grows), and still gets its spare when every worker then blocks:
// the first sample after the stall may see the progress made before it,
// the next one sees the stall.
func TestBlockedWorkersGetASpareAfterACalmSpell(t *testing.T) {
	for _, n := range []int{1, 2} {
		t.Run("workers="+itoa(n), func(t *testing.T) {
			p := hangPool(t, forkjoin.Workers(n))
			withTimeout(t, 10*time.Second, func() {
				for start := time.Now(); time.Since(start) < 300*time.Millisecond; {
					forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 20) })
				}
				release := make(chan struct{})
				wait := blockEveryWorker(t, p, false, release)
				start := time.Now()
				got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 20) })
				d := time.Since(start)
				close(release)
				wait()
				if got != serialFib(20) {
					t.Errorf("Invoke beside blocked workers = %d, want %d", got, serialFib(20))
				}
				if d > 2*time.Second {
					t.Errorf("an Invoke beside %d blocked workers after a calm spell took %v, want the monitor's 10 to 140 ms", n, d)
				}
				t.Logf("the Invoke beside the blocked workers took %v", d)
			})
			checkUsable(t, p)
		})
	}
}

// A task that forks inside the blocked wait's caller keeps working: its
// forked side runs on the compensating worker (or any other), and Blocking
// publishes what the task held back (its open spawns) before it blocks.
func TestBlockingPublishesHeldBackWork(t *testing.T) {
	p := hangPool(t, forkjoin.Workers(1))
	withTimeout(t, 10*time.Second, func() {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				ran := make(chan struct{})
				s.Go(func(*forkjoin.Worker) { close(ran) })
				// The spawn may sit in an open batch or on our deque:
				// only another worker can run it while we block.
				forkjoin.Blocking(w, func() { <-ran })
			})
		})
	})
}
