package forkjoin_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"go.uber.org/goleak"
)

// TestConcurrentInvoke has 64 goroutines invoke work on one pool at once.
func TestConcurrentInvoke(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		t.Run(mode.String(), func(t *testing.T) {
			p := newPool(t, forkjoin.Workers(4), forkjoin.WithMode(mode))
			const callers = 64
			var start, wg sync.WaitGroup
			start.Add(1)
			errs := make(chan string, callers)
			for g := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					start.Wait()
					n := 8 + g%8
					for range 3 {
						if got, want := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, n) }), serialFib(n); got != want {
							errs <- "fib mismatch"
							return
						}
					}
					sum := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
						return forkjoin.Reduce(w, 0, 100*g, 0, func(i int) int { return i }, func(x, y int) int { return x + y })
					})
					if want := 100 * g * (100*g - 1) / 2; sum != want {
						errs <- "reduce mismatch"
					}
				}()
			}
			withTimeout(t, 60*time.Second, func() {
				start.Done()
				wg.Wait()
			})
			close(errs)
			for e := range errs {
				t.Error(e)
			}
		})
	}
}

// TestNestedInvokeOtherPool invokes on a second pool from inside tasks of the
// first, from several workers at once.
func TestNestedInvokeOtherPool(t *testing.T) {
	outer := newPool(t, forkjoin.Workers(3))
	inner := newPool(t, forkjoin.Workers(2), forkjoin.WithMode(forkjoin.SharedQueue))
	const n = 16
	got := make([]int, n)
	withTimeout(t, 30*time.Second, func() {
		forkjoin.Run(outer, func(w *forkjoin.Worker) {
			forkjoin.For(w, 0, n, func(w *forkjoin.Worker, i int) {
				if w.Pool() != outer {
					t.Errorf("outer task runs on %p, want the outer pool", w.Pool())
				}
				got[i] = forkjoin.Invoke(inner, func(w2 *forkjoin.Worker) int {
					if w2.Pool() != inner {
						t.Errorf("inner task runs on %p, want the inner pool", w2.Pool())
					}
					return fibJoin.Call(w2, i)
				})
			})
		})
	})
	for i, v := range got {
		if v != serialFib(i) {
			t.Errorf("nested fib(%d) = %d, want %d", i, v, serialFib(i))
		}
	}
}

// TestInvokeContextCancel cancels an invocation midway through a huge loop:
// InvokeContext returns context.Canceled, and the loop stops well short of
// its range.
func TestInvokeContextCancel(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		t.Run(mode.String()+"/For", func(t *testing.T) {
			p := forkjoin.New(forkjoin.Workers(4), forkjoin.WithMode(mode))
			const total = 1 << 22
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var ran, wrongCtx atomic.Int64
			_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
				forkjoin.For(w, 0, total, func(w *forkjoin.Worker, i int) {
					if w.Context() != ctx {
						wrongCtx.Add(1)
					}
					if w.Context().Err() != nil {
						return
					}
					if ran.Add(1) == 1000 {
						cancel()
					}
				})
				return 0
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("InvokeContext returned %v, want context.Canceled", err)
			}
			p.Close() // waits for the canceled tasks to drain
			t.Logf("body ran %d of %d times", ran.Load(), total)
			if n := ran.Load(); n < 1000 || n > total/4 {
				t.Errorf("body ran %d times after a cancel at 1000 of %d, want it to stop soon after", n, total)
			}
			if n := wrongCtx.Load(); n != 0 {
				t.Errorf("w.Context() was not the invocation's context %d times", n)
			}
		})
		t.Run(mode.String()+"/ForRange", func(t *testing.T) {
			// The body ignores the context: only the runtime's refusal
			// to start more pieces can stop the loop.
			p := forkjoin.New(forkjoin.Workers(4), forkjoin.WithMode(mode))
			const total, grain = 1 << 30, 1 << 10
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var pieces atomic.Int64
			start := time.Now()
			_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) struct{} {
				forkjoin.ForRange(w, 0, total, grain, func(*forkjoin.Worker, int, int) {
					switch n := pieces.Add(1); {
					case n == 100:
						cancel()
					case n > total/grain/100:
						return // already failed: finish fast
					}
					time.Sleep(10 * time.Microsecond)
				})
				return struct{}{}
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("InvokeContext returned %v, want context.Canceled", err)
			}
			returned := pieces.Load()
			p.Close()
			n := pieces.Load()
			t.Logf("%d pieces when InvokeContext returned, %d after the drain, %v", returned, n, time.Since(start))
			if n > total/grain/100 {
				t.Errorf("ran %d of %d pieces after a cancel at piece 100: forking did not stop", n, total/grain)
			}
		})
	}
}

// TestInvokeContextWaitsForTasks cancels an invocation whose task is still
// running: InvokeContext reports the cancellation, but only once the task
// has stopped, so that nothing the invocation started outlives it (issue 9,
// defect 7: it used to return at once and let the task run on).
func TestInvokeContextWaitsForTasks(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	var sawCancel, finished atomic.Bool
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
		time.Sleep(20 * time.Millisecond)
		close(release)
	}()
	withTimeout(t, 10*time.Second, func() {
		_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
			forkjoin.Run(p, func(*forkjoin.Worker) {}) // inline: no deadlock
			<-release
			sawCancel.Store(w.Canceled() && w.Context().Err() != nil)
			finished.Store(true)
			return 1
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("InvokeContext returned %v, want context.Canceled", err)
		}
		if !finished.Load() {
			t.Error("InvokeContext returned while its task was still running")
		}
	})
	if !sawCancel.Load() {
		t.Error("the task did not see its invocation canceled")
	}
}

// TestInvokeContextDone returns at once for a context already done, without
// running anything, and reports the context's own error.
func TestInvokeContextDone(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	v, err := forkjoin.InvokeContext(ctx, p, func(*forkjoin.Worker) int { ran = true; return 7 })
	if !errors.Is(err, context.Canceled) || v != 0 || ran {
		t.Errorf("InvokeContext(canceled) = %d, %v, ran=%v; want 0, context.Canceled, not run", v, err, ran)
	}
	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	if _, err := forkjoin.InvokeContext(dctx, p, func(*forkjoin.Worker) int { return 1 }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("InvokeContext(expired) error = %v, want context.DeadlineExceeded", err)
	}
}

// TestInvokeContextCompletes returns the result and a nil error when nothing
// cancels, and shows the context to every task, stolen or not.
func TestInvokeContextCompletes(t *testing.T) {
	p := newPool(t, forkjoin.Workers(4))
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "v")
	var wrong atomic.Int32
	v, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
		forkjoin.For(w, 0, 1000, func(w *forkjoin.Worker, _ int) {
			if w.Context().Value(key{}) != "v" || w.Canceled() {
				wrong.Add(1)
			}
		})
		return fibJoin.Call(w, 15)
	})
	if err != nil || v != serialFib(15) {
		t.Errorf("InvokeContext = %d, %v; want %d, nil", v, err, serialFib(15))
	}
	if wrong.Load() != 0 {
		t.Errorf("%d tasks saw another context, or a cancellation", wrong.Load())
	}
	// Invoke's tasks see context.Background.
	if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) context.Context { return w.Context() }); got != context.Background() {
		t.Errorf("w.Context() under Invoke = %v, want context.Background()", got)
	}
}

// TestClose checks that Close is idempotent, waits for running invocations,
// makes later Invokes panic with ErrClosed, and stops every goroutine.
func TestClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		p := forkjoin.New(forkjoin.Workers(3), forkjoin.WithMode(mode))
		release := make(chan struct{})
		started := make(chan struct{})
		result := make(chan int, 1)
		go func() {
			result <- forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
				close(started)
				<-release
				return fibJoin.Call(w, 12)
			})
		}()
		<-started
		closed := make(chan struct{})
		var closers sync.WaitGroup
		for range 3 { // concurrent Close calls all wait, none twice-closes
			closers.Add(1)
			go func() { defer closers.Done(); p.Close() }()
		}
		go func() { closers.Wait(); close(closed) }()
		select {
		case <-closed:
			t.Fatal("Close returned while an Invoke was still running")
		case <-time.After(50 * time.Millisecond):
		}
		close(release)
		if got := <-result; got != serialFib(12) {
			t.Errorf("running Invoke returned %d, want %d", got, serialFib(12))
		}
		withTimeout(t, 10*time.Second, func() { <-closed })
		p.Close() // idempotent after the fact, too

		for name, f := range map[string]func(){
			"Invoke":        func() { forkjoin.Invoke(p, func(*forkjoin.Worker) int { return 0 }) },
			"Run":           func() { forkjoin.Run(p, func(*forkjoin.Worker) {}) },
			"InvokeContext": func() { forkjoin.InvokeContext(context.Background(), p, func(*forkjoin.Worker) int { return 0 }) },
		} {
			if v := recovered(f); v != forkjoin.ErrClosed {
				t.Errorf("%s after Close panicked with %v, want ErrClosed", name, v)
			}
		}
	}
}

// TestCloseIdle closes pools that never ran anything, or ran and went idle:
// no goroutine is left behind either way.
func TestCloseIdle(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forkjoin.New(forkjoin.Workers(16)).Close()
	p := forkjoin.New(forkjoin.Workers(4))
	forkjoin.Run(p, func(w *forkjoin.Worker) { fibJoin.Call(w, 15) })
	time.Sleep(20 * time.Millisecond) // let the workers park
	p.Close()
	// Close on the default pool does nothing: it stays usable.
	forkjoin.Default().Close()
	if got := forkjoin.Invoke(forkjoin.Default(), func(w *forkjoin.Worker) int { return fibJoin.Call(w, 10) }); got != 55 {
		t.Errorf("default pool after Close: fib(10) = %d, want 55", got)
	}
}

// A context canceled before fn returns gives ctx.Err(), also when fn returns
// right after the cancel, so that the caller's select finds both the result
// and the cancellation ready (it used to pick one at random).
func TestInvokeContextCanceledBeforeReturn(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	for i := range 2000 {
		ctx, cancel := context.WithCancel(context.Background())
		v, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
			cancel()
			return 1
		})
		if err != context.Canceled {
			t.Fatalf("round %d: InvokeContext = %d, %v; want 0, context.Canceled", i, v, err)
		}
	}
}

// InvokeContext on a closed pool panics with ErrClosed whatever its
// context: with a context already done it used to return the context's
// error, as if the pool could have run it.
func TestInvokeContextOnClosedPool(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(1))
	p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, ctx := range map[string]context.Context{"live context": context.Background(), "canceled context": ctx} {
		v := recovered(func() { forkjoin.InvokeContext(ctx, p, func(*forkjoin.Worker) int { return 1 }) })
		if err, _ := v.(error); !errors.Is(err, forkjoin.ErrClosed) {
			t.Errorf("%s: InvokeContext on a closed pool panicked with %v, want ErrClosed", name, v)
		}
	}
}
