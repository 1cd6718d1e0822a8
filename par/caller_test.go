package par_test

import (
	"errors"
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

// A runtime.Goexit in a body the pool runs fails the call with a
// *forkjoin.PanicError and the caller goes on; in a body the calling
// goroutine runs itself it ends that goroutine, as in a plain loop.
func TestGoexitInBodies(t *testing.T) {
	if strandMode() {
		t.Skip("strand mode has no serial start: no body runs on the caller's goroutine")
	}
	if forkjoin.Default().Workers() < 2 {
		t.Skip("needs a default pool of two workers or more")
	}
	v := func() (v any) {
		defer func() { v = recover() }()
		slowFor(200, func(i int, w *forkjoin.Worker) {
			if w != nil {
				runtime.Goexit()
			}
		})
		return nil
	}()
	var pe *forkjoin.PanicError
	if err, _ := v.(error); !errors.As(err, &pe) {
		t.Fatalf("a Goexit in a body on the pool: recovered %v, want a *forkjoin.PanicError", v)
	}
	ended := make(chan bool)
	go func() {
		returned := false
		defer func() { ended <- !returned && recover() == nil }()
		par.For(4, func(i int) {
			if i == 0 {
				runtime.Goexit()
			}
		})
		returned = true
	}()
	if !<-ended {
		t.Error("a Goexit in the body the caller ran did not end the calling goroutine as a plain loop's would")
	}
}
