package algos

import (
	"cmp"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/sorts"
)

// The sorts live in internal/sorts, which imports no gonum, so that package
// par can share them; these are their public names and argument checks.

// QuickSort sorts s in ascending order, as slices.Sort does (NaNs first),
// with a parallel pattern-defeating quicksort: the two sides of each
// partition are sorted as tasks of w's pool, and partitions of long
// subranges are themselves split among tasks. The sort is not stable. It
// takes O(n log n) time on every input, McIlroy's adversary included, and
// about linear time on sorted, reversed and few-valued input. It allocates a
// few small objects per call, nothing per element.
//
// From ordinary code, call it through a pool:
//
//	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { algos.QuickSort(w, s) })
func QuickSort[T cmp.Ordered](w *forkjoin.Worker, s []T) {
	if w == nil {
		panic("algos: QuickSort: nil worker w")
	}
	sorts.QuickSort(w, s)
}

// QuickSortFunc sorts s in ascending order as determined by cmp, with the
// parallel pattern-defeating quicksort of QuickSort. cmp(a, b) must return
// a negative number when a < b, a positive number when a > b and zero when
// they are equal, and must be a strict weak ordering. Tasks call cmp
// concurrently. The sort is not stable; it makes O(n log n) comparisons on
// every input.
func QuickSortFunc[T any](w *forkjoin.Worker, s []T, cmp func(a, b T) int) {
	if w == nil {
		panic("algos: QuickSortFunc: nil worker w")
	}
	if cmp == nil {
		panic("algos: QuickSortFunc: nil cmp")
	}
	sorts.QuickSortFunc(w, s, cmp)
}

// MergeSort sorts s in ascending order, as slices.Sort does (NaNs first),
// running its halves, and the merges of its halves, as tasks of w's pool.
// The sort is stable, which is observable only for floating-point zeros of
// either sign and NaNs with different payloads.
//
// It allocates one scratch buffer of len(s) elements per call (none if s is
// already sorted). Each merge is itself split among tasks, so the span is
// O(log³ n) and the work O(n log n).
//
// From ordinary code, call it through a pool:
//
//	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { algos.MergeSort(w, s) })
func MergeSort[T cmp.Ordered](w *forkjoin.Worker, s []T) {
	if w == nil {
		panic("algos: MergeSort: nil worker w")
	}
	sorts.MergeSort(w, s)
}

// MergeSortFunc sorts s in ascending order as determined by cmp, keeping
// equal elements in their original order (it is stable, like
// slices.SortStableFunc). cmp(a, b) must return a negative number when a < b,
// a positive number when a > b and zero when they are equal, and must be a
// strict weak ordering. Tasks call cmp concurrently.
//
// It allocates one scratch buffer of len(s) elements per call and has the
// same O(log³ n) span as MergeSort.
func MergeSortFunc[T any](w *forkjoin.Worker, s []T, cmp func(a, b T) int) {
	if w == nil {
		panic("algos: MergeSortFunc: nil worker w")
	}
	if cmp == nil {
		panic("algos: MergeSortFunc: nil cmp")
	}
	sorts.MergeSortFunc(w, s, cmp)
}
