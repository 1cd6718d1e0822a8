package forkjoin_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/fjkit/fjkit/forkjoin"
)

// Regression tests for issue 9: ways in which ordinary code deadlocked, or
// left tasks running after the call that started them had returned. Each
// failed (or hung until its watchdog fired) before its fix; the comment
// says how.

// A lock held across a Join must not deadlock another invocation that takes
// it: the waiting joiner used to pop B's root from the injector and run it on
// top of A's frames, where B blocked on the lock A holds (hung).
func TestHelpingDoesNotRunOtherInvocations(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	var mu sync.Mutex
	started := make(chan struct{})
	bDone := make(chan struct{})
	go func() {
		<-started
		forkjoin.Run(p, func(*forkjoin.Worker) { mu.Lock(); mu.Unlock() })
		close(bDone)
	}()
	withTimeout(t, 10*time.Second, func() {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			mu.Lock()
			defer mu.Unlock()
			forkjoin.Join(w,
				func(*forkjoin.Worker) int {
					<-started
					time.Sleep(30 * time.Millisecond) // B is submitted meanwhile
					return 0
				},
				func(*forkjoin.Worker) int {
					close(started) // stolen: it runs on the other worker
					time.Sleep(150 * time.Millisecond)
					return 0
				})
		})
		<-bDone
	})
}

// runtime.Goexit in a Scope body (t.FailNow does it) must not skip the
// scope's wait: Run used to return while the scope's task still ran.
func TestGoexitInScopeBodyWaitsForTasks(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	var taskDone atomic.Bool
	var sawDone bool
	withTimeout(t, 10*time.Second, func() {
		v := recovered(func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.S) {
					s.Go(func(*forkjoin.Worker) {
						time.Sleep(50 * time.Millisecond)
						taskDone.Store(true)
					})
					runtime.Goexit()
				})
			})
		})
		sawDone = taskDone.Load()
		if v == nil {
			t.Error("Run returned normally after a task called runtime.Goexit")
		}
	})
	if !sawDone {
		t.Error("Run returned while a task of the scope whose body called Goexit still ran")
	}
}

// runtime.Goexit in a task that a waiting joiner runs while it helps must
// not unwind that Join while its forked side still runs on the thief: the
// Join's state said "done" before it waited, so nothing waited.
func TestGoexitWhileHelpingWaitsForForkedSide(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	var fbDone atomic.Bool
	var sawDone bool
	withTimeout(t, 10*time.Second, func() {
		fbStarted := make(chan struct{})
		recovered(func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Join(w,
					func(*forkjoin.Worker) int { <-fbStarted; return 0 },
					func(w *forkjoin.Worker) int {
						close(fbStarted)
						forkjoin.Join(w,
							func(*forkjoin.Worker) int {
								time.Sleep(100 * time.Millisecond)
								fbDone.Store(true)
								return 0
							},
							func(*forkjoin.Worker) int { runtime.Goexit(); return 0 })
						return 0
					})
			})
		})
		sawDone = fbDone.Load()
	})
	if !sawDone {
		t.Error("Run returned while the forked side of a Join unwound by Goexit still ran")
	}
}

// S.Go from a task that another worker stole, the natural recursive spawn,
// used to push onto the scope owner's deque from the thief's goroutine: a
// data race (-race reports it) that could lose or duplicate tasks.
func TestScopeGoFromStolenTasks(t *testing.T) {
	for _, c := range configs() {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			var ran [4096]atomic.Int32
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.S) {
					var spawn func(lo, hi int)
					spawn = func(lo, hi int) {
						s.Go(func(*forkjoin.Worker) {
							if hi-lo == 1 {
								ran[lo].Add(1)
								return
							}
							mid := (lo + hi) / 2
							spawn(lo, mid)
							spawn(mid, hi)
						})
					}
					spawn(0, len(ran))
				})
			})
			for i := range ran {
				if n := ran[i].Load(); n != 1 {
					t.Fatalf("leaf %d ran %d times", i, n)
				}
			}
		})
	}
}

// Invoke on its own pool from inside a task runs inline: with one worker
// (or with every worker doing it) it used to deadlock.
func TestInvokeFromTaskRunsInline(t *testing.T) {
	p := newPool(t, forkjoin.Workers(1))
	withTimeout(t, 10*time.Second, func() {
		got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
			a := forkjoin.Invoke(p, func(w2 *forkjoin.Worker) int {
				if w2 != w {
					t.Error("nested Invoke ran on another worker")
				}
				return fibJoin.Call(w2, 15)
			})
			b, err := forkjoin.InvokeContext(context.Background(), p, func(w *forkjoin.Worker) int {
				return fibJoin.Call(w, 16)
			})
			if err != nil {
				t.Error(err)
			}
			return a + b
		})
		if want := serialFib(15) + serialFib(16); got != want {
			t.Errorf("nested Invoke = %d, want %d", got, want)
		}
	})
}

// A nested invocation's panic comes out of the nested Invoke, where the
// caller can recover it, and the outer invocation carries on.
func TestInvokeFromTaskPanics(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	got := forkjoin.Invoke(p, func(w *forkjoin.Worker) string {
		return panicMessage(func() { forkjoin.Run(p, func(*forkjoin.Worker) { panic("inner") }) })
	})
	if got != "inner" {
		t.Errorf("nested Run's panic = %q, want %q", got, "inner")
	}
}

// A panic between Spawn and Future.Join used to leave the future running
// after Invoke returned; an unjoined Spawn's own panic was lost.
func TestUnjoinedSpawnsAreJoined(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	var done atomic.Bool
	var sawDone bool
	msg := panicMessage(func() {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Spawn(w, func(*forkjoin.Worker) int {
				time.Sleep(50 * time.Millisecond)
				done.Store(true)
				return 0
			})
			panic("between Spawn and Join")
		})
	})
	sawDone = done.Load()
	if msg != "between Spawn and Join" || !sawDone {
		t.Errorf("Run panicked with %q, future finished before it returned: %v; want the panic, and true", msg, sawDone)
	}
	msg = panicMessage(func() {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Spawn(w, func(*forkjoin.Worker) int { panic("unjoined") })
			fibJoin.Fork(w, 10) // unjoined too
		})
	})
	if msg != "unjoined" {
		t.Errorf("Run with an unjoined panicking Spawn panicked with %q, want %q", msg, "unjoined")
	}
	// Implicitly joined handles still answer a late Join.
	got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
		var h forkjoin.Forked[int, int]
		forkjoin.Do(w, func(w *forkjoin.Worker) { h = fibJoin.Fork(w, 12) })
		return h.Join(w)
	})
	if got != serialFib(12) {
		t.Errorf("late Join of an implicitly joined Fork = %d, want %d", got, serialFib(12))
	}
}

// In shared mode a Join whose first side panicked used to run the forked
// side all the same when it was not the newest job in the queue.
func TestSharedJoinDiscardsForkedSideAfterPanic(t *testing.T) {
	p := newPool(t, forkjoin.Workers(1), forkjoin.WithMode(forkjoin.SharedQueue))
	var fbRan atomic.Bool
	msg := panicMessage(func() {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.Join(w,
				func(w *forkjoin.Worker) int {
					forkjoin.Spawn(w, func(*forkjoin.Worker) int { return 0 }) // newer than fb
					panic("fa")
				},
				func(*forkjoin.Worker) int { fbRan.Store(true); return 0 })
		})
	})
	if msg != "fa" || fbRan.Load() {
		t.Errorf("panic %q, forked side ran: %v; want %q and false", msg, fbRan.Load(), "fa")
	}
}

// InvokeContext's tasks stop early once canceled: Join, Spawn and Func.Join
// start nothing, so a deep recursion ends soon after the cancel.
func TestCanceledForksStartNothing(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	var rec func(w *forkjoin.Worker, n int) int
	rec = func(w *forkjoin.Worker, n int) int {
		if calls.Add(1) == 1000 {
			cancel()
		}
		if n == 0 {
			return 1
		}
		a, b := forkjoin.Join(w,
			func(w *forkjoin.Worker) int { return rec(w, n-1) },
			func(w *forkjoin.Worker) int {
				return forkjoin.Spawn(w, func(w *forkjoin.Worker) int { return rec(w, n-1) }).Join(w)
			})
		return a + b
	}
	_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int { return rec(w, 30) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// Without the checks all 2^31 calls would run; with them, the ones
	// started before the cancel was seen plus a few per worker.
	if n := calls.Load(); n > 100000 {
		t.Errorf("%d calls after canceling at 1000", n)
	}
}

// Nothing of a finished call stays reachable from the pool: Reduce's
// closure (which captures the caller's slice) and a joined closure's
// captures used to stay in the workers' record caches for the pool's life.
func TestFinishedCallsKeepNothingAlive(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	type big struct{ b [1 << 16]byte }
	reduced := &big{}
	joined := &big{}
	wr, wj := weak.Make(reduced), weak.Make(joined)
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		xs := reduced.b[:]
		forkjoin.Reduce(w, 0, len(xs), 0, func(i int) int { return int(xs[i]) }, func(a, b int) int { return a + b })
		forkjoin.Join(w,
			func(*forkjoin.Worker) int { return int(joined.b[0]) },
			func(*forkjoin.Worker) int { return int(joined.b[1]) })
		forkjoin.Spawn(w, func(*forkjoin.Worker) int { return int(joined.b[2]) }).Join(w)
	})
	reduced, joined = nil, nil
	for range 3 {
		runtime.GC()
	}
	if wr.Value() != nil {
		t.Error("the slice a Reduce read is still reachable after the call returned")
	}
	if wj.Value() != nil {
		t.Error("the data a joined closure captured is still reachable after the call returned")
	}
}
