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
	grain := n / strandPieces // not (n+strandPieces-1)/strandPieces, which overflows near MaxInt
	if n%strandPieces != 0 {
		grain++
	}
	return plan{done: 0, n: n, grain: max(1, grain), w: forkjoin.Current()}
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
