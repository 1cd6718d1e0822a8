package par_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// slowFor is a par.For over n bodies slow enough that the call goes
// parallel after its serial start (on a default pool of two workers or
// more), each body reporting whether forkjoin.Current() was nil.
func slowFor(n int, body func(i int, w *forkjoin.Worker)) {
	par.For(n, func(i int) {
		time.Sleep(50 * time.Microsecond)
		body(i, forkjoin.Current())
	})
}

// The bodies a call from an ordinary goroutine runs itself see no worker
// (forkjoin.Current() is nil), the ones the pool runs see theirs, and made
// from a task every body sees the task's pool's worker (issue 38: a
// documented nil, not a worker for every body).
func TestCurrentInBodies(t *testing.T) {
	if strandMode() {
		t.Skip("strand mode has no serial start: every body runs in a strand")
	}
	const n = 200
	var nilIn, workerIn atomic.Int32
	var first *forkjoin.Worker
	slowFor(n, func(i int, w *forkjoin.Worker) {
		if i == 0 {
			first = w
		}
		if w == nil {
			nilIn.Add(1)
		} else {
			workerIn.Add(1)
			if w.Pool() != forkjoin.Default() {
				t.Errorf("body %d: Current() is a worker of another pool than the default", i)
			}
		}
	})
	if first != nil {
		t.Errorf("the first body, which the caller runs, saw worker %d, want nil", first.ID())
	}
	if forkjoin.Default().Workers() > 1 && workerIn.Load() == 0 {
		t.Errorf("none of %d slow bodies ran on the pool", n)
	}
	p := newPool(t, 2)
	forkjoin.Run(p, func(tw *forkjoin.Worker) {
		slowFor(n, func(i int, w *forkjoin.Worker) {
			if w == nil || w.Pool() != p {
				t.Errorf("body %d of a call from a task: Current() = %v, want a worker of the task's pool", i, w)
			}
		})
	})
}

// A runtime.Goexit in a body of a call from an ordinary goroutine ends that
// goroutine, whether the body ran in the caller (the serial start) or on
// the pool, and only once every body has stopped (issue 38, item 5: the
// pool's bodies failed the call with a *forkjoin.PanicError instead).
func TestGoexitInBodies(t *testing.T) {
	// goexitIn runs slowFor from a goroutine of its own, body exit calling
	// runtime.Goexit, and reports whether the goroutine ended without a
	// panic and without returning, and how many bodies were still running
	// when it ended.
	goexitIn := func(exit func(i int, w *forkjoin.Worker) bool) (ended bool, running int32, v any) {
		var inBody atomic.Int32
		done := make(chan struct{})
		go func() {
			returned := false
			defer func() {
				v = recover()
				ended = !returned && v == nil
				running = inBody.Load()
				close(done)
			}()
			slowFor(200, func(i int, w *forkjoin.Worker) {
				inBody.Add(1)
				defer inBody.Add(-1)
				if exit(i, w) {
					runtime.Goexit()
				}
			})
			returned = true
		}()
		<-done
		return ended, running, v
	}
	t.Run("serial-start", func(t *testing.T) {
		if strandMode() {
			t.Skip("strand mode has no serial start: no body runs on the caller's goroutine")
		}
		ended, running, v := goexitIn(func(i int, w *forkjoin.Worker) bool { return i == 0 && w == nil })
		if !ended || running != 0 {
			t.Errorf("a Goexit in the body the caller ran: ended %v, %d bodies running, recovered %v; want the goroutine ended", ended, running, v)
		}
	})
	t.Run("pool", func(t *testing.T) {
		if forkjoin.Default().Workers() < 2 && !strandMode() {
			t.Skip("needs a default pool of two workers or more")
		}
		var exited atomic.Bool
		ended, running, v := goexitIn(func(i int, w *forkjoin.Worker) bool {
			return w != nil && !exited.Swap(true)
		})
		if !exited.Load() {
			t.Skip("no body ran on the pool")
		}
		if !ended || running != 0 {
			t.Errorf("a Goexit in a body the pool ran: ended %v, %d bodies still running, recovered %v; want the calling goroutine ended once every body stopped", ended, running, v)
		}
	})
}
