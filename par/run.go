package par

import (
	"runtime/debug"

	"github.com/fjkit/fjkit/forkjoin"
)

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

// workers returns how many workers the default pool has.
func workers() int { return forkjoin.Default().Workers() }

// serial reports whether a slice operation over n elements runs serially.
func serial(n int) bool { return n < SerialCutoff || workers() == 1 }

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

// run runs fn on the default pool and waits for it.
func run(fn func(w *forkjoin.Worker)) { forkjoin.Run(forkjoin.Default(), fn) }

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

// each calls body for every piece, in parallel on the default pool.
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
