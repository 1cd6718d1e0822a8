package par_test

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// The shapes of code that is correct with goroutines and must be with par:
// functions and bodies that block, on each other or on the outside world.
// Each runs on pools of 1, 2 and 4 workers (from a task of the pool) and on
// the default pool at GOMAXPROCS 1 (from an ordinary goroutine), under a
// timeout: a hang fails the test with every goroutine's stack.

// places are where a blocking scenario runs: name, and a function that
// runs fn there.
func places(t *testing.T) []struct {
	name string
	run  func(t *testing.T, fn func())
} {
	type place = struct {
		name string
		run  func(t *testing.T, fn func())
	}
	var ps []place
	for _, n := range []int{1, 2, 4} {
		ps = append(ps, place{"workers=" + strconv.Itoa(n), func(t *testing.T, fn func()) {
			p := newPool(t, n)
			forkjoin.Run(p, func(*forkjoin.Worker) { fn() })
		}})
	}
	ps = append(ps, place{"default/GOMAXPROCS=1", func(t *testing.T, fn func()) {
		procs(t, 1)
		fn()
	}})
	return ps
}

// procs sets GOMAXPROCS to n for the test, which sizes the default pool to
// n workers.
func procs(t *testing.T, n int) {
	if os.Getenv("FJKIT_WORKERS") != "" {
		t.Skip("FJKIT_WORKERS sizes the default pool")
	}
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// within runs f and fails the test, with every goroutine's stack, if it has
// not returned after d.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case v := <-done:
		if v != nil {
			panic(v)
		}
	case <-time.After(d):
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("did not finish within %v (the pool hung on blocked workers); all goroutines:\n%s", d, buf)
	}
}

// TestGroupProducerConsumer is errgroup's pipeline: one function sends on
// an unbuffered channel, another receives. Whichever the one worker runs
// first blocks, holding it; the other must still run.
func TestGroupProducerConsumer(t *testing.T) {
	for _, pl := range places(t) {
		t.Run(pl.name, func(t *testing.T) {
			within(t, 20*time.Second, func() {
				pl.run(t, func() {
					for range 3 {
						var g par.Group
						ch := make(chan int)
						sum := 0
						g.Go(func() error {
							defer close(ch)
							for i := range 100 {
								ch <- i
							}
							return nil
						})
						g.Go(func() error {
							for v := range ch {
								sum += v
							}
							return nil
						})
						if err := g.Wait(); err != nil || sum != 4950 {
							t.Errorf("Wait = %v, sum %d; want nil, 4950", err, sum)
						}
					}
				})
			})
		})
	}
}

// TestGroupWaitFromTasks starts functions with Go from an ordinary
// goroutine (on the default pool) and waits for them from tasks of the
// default pool, one per worker, so that every worker is in such a Wait:
// the Waits must not hold the workers the functions need.
func TestGroupWaitFromTasks(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		t.Run("default/GOMAXPROCS="+strconv.Itoa(n), func(t *testing.T) {
			procs(t, n)
			within(t, 20*time.Second, func() {
				var g par.Group
				var ran atomic.Int64
				release := make(chan struct{})
				for range 2 * n {
					g.Go(func() error {
						<-release
						ran.Add(1)
						return nil
					})
				}
				var waits sync.WaitGroup
				var waiting atomic.Int64
				for range n {
					waits.Go(func() {
						forkjoin.Run(forkjoin.Default(), func(*forkjoin.Worker) {
							waiting.Add(1)
							if err := g.Wait(); err != nil {
								t.Error(err)
							}
						})
					})
				}
				for waiting.Load() < int64(n) {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(5 * time.Millisecond) // every worker in its Wait
				close(release)
				waits.Wait()
				if ran.Load() != int64(2*n) {
					t.Errorf("%d functions ran before the Waits returned, want %d", ran.Load(), 2*n)
				}
			})
		})
	}
}

// TestLockAcrossNestedParCall holds a lock in a par body across a nested
// par call while other callers' bodies, on the default pool's workers,
// take the same lock. The first body runs in the caller's goroutine, so
// the nested call is an invocation of its own, queued behind workers
// blocked on the lock. It passes wherever the same code with goroutines
// does.
func TestLockAcrossNestedParCall(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		t.Run("default/GOMAXPROCS="+strconv.Itoa(n), func(t *testing.T) {
			procs(t, n)
			within(t, 20*time.Second, func() {
				var mu sync.Mutex
				var others sync.WaitGroup
				var locked, nested atomic.Int64
				par.For(4, func(i int) {
					if i != 0 {
						time.Sleep(time.Millisecond) // costly: the loop goes parallel
						return
					}
					mu.Lock()
					// Other callers, whose bodies block on mu on the
					// pool's workers: par calls in tasks of their own.
					for range n + 1 {
						others.Go(func() {
							forkjoin.Run(forkjoin.Default(), func(*forkjoin.Worker) {
								par.For(4, func(int) {
									mu.Lock()
									locked.Add(1)
									mu.Unlock()
								})
							})
						})
					}
					time.Sleep(10 * time.Millisecond)
					// The nested par call: a Group, parallel on any pool
					// (a ForEach on a one-worker pool stays serial).
					var g par.Group
					for range 8 {
						g.Go(func() error { nested.Add(1); return nil })
					}
					if err := g.Wait(); err != nil {
						t.Error(err)
					}
					mu.Unlock()
				})
				others.Wait()
				if locked.Load() != int64(4*(n+1)) || nested.Load() != 8 {
					t.Errorf("%d bodies took the lock and %d nested bodies ran, want %d and 8", locked.Load(), nested.Load(), 4*(n+1))
				}
			})
		})
	}
}

// spinFor computes for d.
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
		spin(1000)
	}
}

// TestGroupGoStartsAtOnce passes a function to Go 10 ms after a function
// that computes for 300 ms started, on 2 workers: the second runs on the
// idle worker at once, not once the first returns.
func TestGroupGoStartsAtOnce(t *testing.T) {
	run := func(t *testing.T) {
		var g par.Group
		start := time.Now()
		g.Go(func() error { spinFor(300 * time.Millisecond); return nil })
		time.Sleep(10 * time.Millisecond)
		var began atomic.Int64
		g.Go(func() error { began.Store(int64(time.Since(start))); return nil })
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		if d := time.Duration(began.Load()); d > 200*time.Millisecond {
			t.Errorf("the second function started %v after the first, want about 10ms (not after the first's 300ms)", d)
		}
	}
	t.Run("workers=2", func(t *testing.T) {
		p := newPool(t, 2)
		forkjoin.Run(p, func(*forkjoin.Worker) { run(t) })
	})
	t.Run("default/GOMAXPROCS=2", func(t *testing.T) {
		procs(t, 2)
		run(t)
	})
}

// TestGroupSleepers runs 8 functions that each sleep 200 ms: on any pool
// they finish in about 200 ms, as 8 goroutines would, not 8×200 ms in
// turn. The bound leaves room for -race and a loaded machine.
func TestGroupSleepers(t *testing.T) {
	ps := places(t)
	ps = append(ps, struct {
		name string
		run  func(t *testing.T, fn func())
	}{"workers=8", func(t *testing.T, fn func()) {
		p := newPool(t, 8)
		forkjoin.Run(p, func(*forkjoin.Worker) { fn() })
	}})
	for _, pl := range ps {
		t.Run(pl.name, func(t *testing.T) {
			within(t, 20*time.Second, func() {
				pl.run(t, func() {
					var g par.Group
					start := time.Now()
					for range 8 {
						g.Go(func() error { time.Sleep(200 * time.Millisecond); return nil })
					}
					if err := g.Wait(); err != nil {
						t.Fatal(err)
					}
					if d := time.Since(start); d > time.Second {
						t.Errorf("8 functions sleeping 200ms took %v, want about 200ms", d)
					} else {
						t.Logf("8 functions sleeping 200ms took %v", d)
					}
				})
			})
		})
	}
}

// TestBlockedStorm blocks thousands of functions, nested par calls
// included, on a channel an ordinary goroutine feeds: each runs exactly
// once, spares come and go as the blockage does, and the pool stays usable.
// Run it with -race.
func TestBlockedStorm(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 1000
	}
	for _, workers := range []int{1, 2, 4} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) {
			p := newPool(t, workers)
			within(t, 60*time.Second, func() {
				runs := make([]atomic.Int32, n)
				tokens := make(chan struct{})
				go func() {
					for range n {
						tokens <- struct{}{}
					}
				}()
				forkjoin.Run(p, func(*forkjoin.Worker) {
					var g par.Group
					for i := range n {
						g.Go(func() error {
							<-tokens
							if i%8 == 0 {
								par.ForEach(slices.Values(make([]int, 4)), func(int) { time.Sleep(10 * time.Microsecond) })
							}
							runs[i].Add(1)
							return nil
						})
					}
					if err := g.Wait(); err != nil {
						t.Error(err)
					}
				})
				for i := range runs {
					if r := runs[i].Load(); r != 1 {
						t.Fatalf("function %d ran %d times, want once", i, r)
					}
				}
				var sum atomic.Int64
				forkjoin.Run(p, func(*forkjoin.Worker) {
					par.For(1000, func(i int) { sum.Add(int64(i)) })
				})
				if sum.Load() != 499500 {
					t.Errorf("after the storm, a loop summed %d, want 499500", sum.Load())
				}
			})
		})
	}
}
