package par

import (
	"context"
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

// SerialCutoff is the length below which Map, Reduce, Filter, Scan,
// IndexFunc and ContainsFunc run serially: a trip through the pool costs a few
// microseconds, as much as a cheap body over a few thousand elements. For a
// costly body over few elements, use For or ForRange, which go parallel from
// two indices on.
const SerialCutoff = 1 << 12

// maxChunksPerWorker bounds how many pieces a chunked pass (Map, Reduce,
// Filter) is cut into: a few per worker lets a worker that was descheduled or
// slow be balanced by the others' stealing, and each piece costs one fork.
const maxChunksPerWorker = 4

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

// serial reports whether a slice operation over n elements runs serially.
func serial(n int) bool {
	entered()
	return n < SerialCutoff || workers() == 1
}

// rewrap, deferred by a serial path, re-raises a panic of the user's code as
// a *forkjoin.PanicError, as the parallel path does: the caller sees the same
// type whatever the input size. It captures the stack here, while the
// panicking frames are still on it.
func rewrap() {
	if v := recover(); v != nil {
		if pe, ok := v.(*forkjoin.PanicError); ok {
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
	forkjoin.Run(forkjoin.Default(), fn)
}

// loop calls body on pieces covering [0, n) once each, in parallel, as For
// and ForRange do. From a task it is forkjoin.ForRange on the task's worker
// with a fixed grain: a loop over pieces of grain indices that splits what
// is left in half only when another worker is idle or asks for work, so a
// nested call nobody steals from costs about a call per piece. From
// anywhere else it is an adaptive ForRange on the default pool, whose
// workers are all idle as far as the call knows.
func loop(n, grain int, body func(w *forkjoin.Worker, lo, hi int)) {
	if w := forkjoin.Current(); w != nil {
		defer rewrap()
		checkCanceled(w)
		forkjoin.ForRange(w, 0, n, grain, body)
		checkCanceled(w)
		return
	}
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { forkjoin.ForRange(w, 0, n, 0, body) })
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

// chunking cuts n items into k pieces of nearly equal length.
type chunking struct{ n, k int }

// chunksOf cuts n elements into pieces of at least SerialCutoff/2 elements,
// at most maxChunksPerWorker per worker.
func chunksOf(n int) chunking { return chunksMin(n, SerialCutoff/2) }

// chunksMin cuts n items into pieces of at least minPiece items, at most
// maxChunksPerWorker per worker.
func chunksMin(n, minPiece int) chunking {
	return chunking{n: n, k: max(1, min(n/minPiece, maxChunksPerWorker*workers()))}
}

// bounds returns piece c, [lo, hi). n*c cannot overflow: k is small and n a
// slice length.
func (ch chunking) bounds(c int) (lo, hi int) { return c * ch.n / ch.k, (c + 1) * ch.n / ch.k }

// each calls body for every piece, in parallel.
func (ch chunking) each(body func(c, lo, hi int)) {
	run(func(w *forkjoin.Worker) {
		forkjoin.ForRange(w, 0, ch.k, 1, func(_ *forkjoin.Worker, a, b int) {
			for c := a; c < b; c++ {
				lo, hi := ch.bounds(c)
				body(c, lo, hi)
			}
		})
	})
}
