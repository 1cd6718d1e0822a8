package par

import (
	"github.com/fjkit/fjkit/forkjoin"
)

// Strand mode (race builds; see strandCalls): a call of any size runs on
// the pool, its user functions in logically parallel pieces, so that the
// race detector sees a race between two of their calls even when a small
// input would have stayed serial in the caller.

// strandPieces is how many pieces a call is cut into in strand mode; the
// fork-join loop runs each as a strand.
const strandPieces = 64

// strandPlan is start's plan in strand mode: nothing ran serially, and the
// rest runs as a fork-join loop of at most strandPieces pieces.
func strandPlan(n int) plan {
	return plan{done: 0, n: n, grain: max(1, (n+strandPieces-1)/strandPieces), w: forkjoin.Current()}
}

// strandSortMax is the length up to which the comparison sorts sort in
// strand mode with strandSort: the kernels sort serially up to 1<<13.
const strandSortMax = 1 << 14

// strandSort is a comparison sort of fewer elements than the parallel
// kernels split, in strand mode: it sorts the two halves as parallel
// strands, then the whole, so that calls of the comparison run in
// parallel strands. sortf is a stable sort for SortStableFunc: stable
// halves, then a stable pass, keep equal elements in order.
func strandSort[E any](s []E, sortf func([]E)) {
	if len(s) < 2 {
		return
	}
	run(func(w *forkjoin.Worker) {
		m := len(s) / 2
		forkjoin.Join(w, func(*forkjoin.Worker) int { sortf(s[:m]); return 0 },
			func(*forkjoin.Worker) int { sortf(s[m:]); return 0 })
	})
	defer rewrap()
	sortf(s)
}

// strandReduceRest is reduceRest in strand mode, where nothing ran
// serially: the runs' slots are per worker, and strands that share a
// worker's ID are logically parallel, so each piece folds into a slot of
// its own, and the folds are combined in index order.
func strandReduceRest[R any](p plan, first func(lo, hi int) R, combine func(R, R) R) R {
	folds := make([]R, (p.n-p.done+p.grain-1)/p.grain)
	if !p.finish(nil, func(_ *forkjoin.Worker, lo, hi int) { folds[(lo-p.done)/p.grain] = first(lo, hi) }) {
		var zero R
		return zero // pieces were skipped
	}
	// The combines are strands too, as the parallel path's are: a tree
	// of joins over the folds, in index order.
	var tree func(w *forkjoin.Worker, lo, hi int) R
	tree = func(w *forkjoin.Worker, lo, hi int) R {
		if hi-lo == 1 {
			return folds[lo]
		}
		mid := (lo + hi) / 2
		a, b := forkjoin.Join(w, func(w *forkjoin.Worker) R { return tree(w, lo, mid) },
			func(w *forkjoin.Worker) R { return tree(w, mid, hi) })
		return combine(a, b)
	}
	var acc R
	run(func(w *forkjoin.Worker) { acc = tree(w, 0, len(folds)) })
	return acc
}
