package par

import (
	"cmp"
	"slices"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/radix"
	"github.com/fjkit/fjkit/internal/sorts"
)

// Cutoffs of the sorts, measured on the 2-core development machine.
const (
	// radixSerial is the length from which Sort radix sorts integers
	// and floats, serially in the caller: below it slices.Sort is faster
	// (the crossover is between 256 and 512 random uint64s).
	radixSerial = 1 << 9

	// radixParallel is the length from which Sort's radix sort runs on
	// the pool: a trip there costs some microseconds, a tenth of a serial
	// radix sort of this length.
	radixParallel = 1 << 14

	// funcParallel is the length below which the comparison sorts (and
	// Sort on strings) are the slices functions themselves. From it they
	// run on the pool, even a one-worker pool: their kernels, pdqsort with
	// branch-free partitions and a merge sort with a buffer, beat
	// slices.SortFunc and slices.SortStableFunc on one worker too.
	funcParallel = 1 << 12
)

// Sort sorts s in ascending order, as slices.Sort does: the same order,
// NaNs first for floats, and like it not stable. Integer and float element
// types (named ones too) are radix sorted by their bits, in parallel; other
// ordered types (strings) by a parallel pattern-defeating quicksort. The
// radix sort needs a scratch buffer of len(s) elements, and from half a
// million elements a buffer of 512 KiB per worker besides; it reuses those
// an earlier call left, if the collector has not taken them back. The
// longest scratch buffer (of 1 MiB or more) is held for a second after the
// last call that used it, so that a program sorting long slices in a loop
// does not allocate one per call.
func Sort[S ~[]E, E cmp.Ordered](s S) {
	entered()
	n := len(s)
	switch {
	case n < radixSerial:
		slices.Sort(s)
	case radix.Sortable[E]():
		if n < radixParallel || workers() == 1 {
			radix.Sort(nil, []E(s))
			return
		}
		run(func(w *forkjoin.Worker) { radix.Sort(w, []E(s)) })
	case n < funcParallel:
		slices.Sort(s)
	default:
		run(func(w *forkjoin.Worker) { sorts.QuickSort(w, []E(s)) })
	}
}

// SortFunc sorts s in ascending order as determined by cmp, as
// slices.SortFunc does, with a parallel pattern-defeating quicksort (not
// stable). cmp(a, b) must return a negative number when a < b, a positive
// number when a > b and zero when a == b, and must be a strict weak
// ordering; it is called concurrently. A panic in cmp comes out as a
// *forkjoin.PanicError, with s left in some permutation of its elements.
func SortFunc[S ~[]E, E any](s S, cmp func(a, b E) int) {
	if cmp == nil {
		panic("par.SortFunc: cmp is nil")
	}
	entered()
	if strandCalls() && len(s) <= strandSortMax {
		strandSort(s, func(s []E) { slices.SortFunc(s, cmp) })
		return
	}
	if len(s) < funcParallel {
		defer rewrap()
		slices.SortFunc(s, cmp)
		return
	}
	run(func(w *forkjoin.Worker) { sorts.QuickSortFunc(w, []E(s), cmp) })
}

// SortStableFunc sorts s as SortFunc does, keeping equal elements in their
// original order, as slices.SortStableFunc does, with a parallel merge sort
// (whose merges are themselves parallel). It allocates a scratch buffer of
// len(s) elements, unless s is already sorted. A panic in cmp comes out as a
// *forkjoin.PanicError, with s left in some permutation of its elements.
func SortStableFunc[S ~[]E, E any](s S, cmp func(a, b E) int) {
	if cmp == nil {
		panic("par.SortStableFunc: cmp is nil")
	}
	entered()
	if strandCalls() && len(s) <= strandSortMax {
		strandSort(s, func(s []E) { slices.SortStableFunc(s, cmp) })
		return
	}
	if len(s) < funcParallel {
		defer rewrap()
		slices.SortStableFunc(s, cmp)
		return
	}
	run(func(w *forkjoin.Worker) { sorts.MergeSortFunc(w, []E(s), cmp) })
}
