package par

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
)

// Where a call runs.
//
// A call made by a task of any pool (forkjoin.Current is not nil) runs on
// that task's worker, as part of the task's own invocation: its loops are
// forkjoin loops on the caller's worker, with no trip through the pool's
// queue and no nested invocation, and the pieces spread to the pool's idle
// workers by stealing. A call made anywhere else runs on forkjoin.Default(),
// through forkjoin.Run.
//
// From a task, a call checks its invocation before and after its parallel
// part: once the invocation is canceled (its InvokeContext's context is
// done), forkjoin forks start nothing, so a call that saw the cancellation
// may not have done all its work, and it panics with a
// *forkjoin.CanceledError instead of returning as if it had. InvokeContext
// turns that panic into its ctx.Err(). Serial paths do all their work and
// check nothing.

// defaultMade is set once a par call has made sure the default pool exists:
// the first call of any par function, whatever its input, makes it, so that
// whether SetDefault is too late does not depend on input sizes.
var defaultMade atomic.Bool

// entered is called at the start of every par function: see defaultMade.
func entered() {
	if !defaultMade.Load() {
		forkjoin.Default()
		defaultMade.Store(true)
	}
}

// workers returns how many workers the pool a call runs on has: the calling
// task's pool, or the default pool.
func workers() int {
	entered()
	if w := forkjoin.Current(); w != nil {
		return w.Pool().Workers()
	}
	return forkjoin.Default().Workers()
}

// rewrap, deferred by a serial path, re-raises a panic of the user's code as
// a *forkjoin.PanicError, as the parallel path does: the caller sees the same
// type whatever the input size. It captures the stack here, while the
// panicking frames are still on it.
func rewrap() {
	if v := recover(); v != nil {
		if pe, ok := v.(*forkjoin.PanicError); ok && pe != nil {
			panic(pe)
		}
		panic(&forkjoin.PanicError{Value: v, Stack: debug.Stack()})
	}
}

// run runs fn with a worker: the calling task's own, or one of the default
// pool's.
func run(fn func(w *forkjoin.Worker)) {
	entered()
	if w := forkjoin.Current(); w != nil {
		defer rewrap() // fn's first piece runs in our frame, panic and all
		checkCanceled(w)
		fn(w)
		checkCanceled(w)
		return
	}
	runDefault(fn)
}

// runDefault runs fn on the default pool, for a call made outside any task.
// A body that called runtime.Goexit there (t.FailNow in a test) fails the
// invocation with forkjoin.ErrGoexit; once every body has stopped, the call
// ends the calling goroutine with runtime.Goexit, as the same body would
// have in the loop the call replaces, and as it does in a body the caller
// runs itself (a serial start), whose Goexit nothing can stop.
func runDefault(fn func(w *forkjoin.Worker)) {
	defer goexitHere()
	forkjoin.Run(forkjoin.Default(), fn)
}

// goexitHere, deferred, turns a *forkjoin.PanicError for a body's Goexit
// into runtime.Goexit in the calling goroutine, and re-raises any other
// panic as it is.
func goexitHere() {
	v := recover()
	if v == nil {
		return
	}
	if pe, ok := v.(*forkjoin.PanicError); ok && pe != nil && pe.Value == forkjoin.ErrGoexit {
		runtime.Goexit()
	}
	panic(v)
}

// canceled reports whether w's invocation is canceled: its flag, or its
// context, which the flag follows a little later.
func canceled(w *forkjoin.Worker) bool { return w.Canceled() || w.Context().Err() != nil }

// checkCanceled panics with a *forkjoin.CanceledError if w's invocation is
// canceled.
func checkCanceled(w *forkjoin.Worker) {
	if canceled(w) {
		panic(canceledError(w))
	}
}

// canceledError is the panic value of a call cut short in w's canceled
// invocation.
func canceledError(w *forkjoin.Worker) *forkjoin.CanceledError {
	return &forkjoin.CanceledError{Err: ctxErr(w)}
}

// ctxErr is the error of w's canceled invocation's context.
func ctxErr(w *forkjoin.Worker) error {
	if err := w.Context().Err(); err != nil {
		return err
	}
	return context.Canceled // the flag is only ever set from a done context
}
