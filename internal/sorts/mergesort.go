package sorts

import (
	"cmp"
	"slices"

	"github.com/fjkit/fjkit/forkjoin"
)

// Cutoffs of the merge sort. BenchmarkSortCutoff (sort_bench_test.go)
// sweeps the parallel one; on the shared two-core machine it was written on,
// 2^10 to 2^16 were level within the noise, so the choice rests on cost: a
// serial sort of 2^13 elements takes about 0.3 ms and a merge of 2^13 about
// 20 µs, thousands of times a fork, while a 10^6-element sort still makes
// over a hundred tasks to balance the workers.
const (
	// mergeSortSerialCutoff is the length at or below which a subproblem
	// is sorted by the serial kernel instead of being split into two
	// tasks.
	mergeSortSerialCutoff = 1 << 13

	// mergeSerialCutoff is the output length at or below which a merge
	// runs serially instead of being split by co-ranking.
	mergeSerialCutoff = 1 << 13

	// insertionSortRun is the length at or below which the serial kernel
	// uses insertion sort. Runs of 12 to 32 sorted 2^20 random int64 in
	// the same time within 5%.
	insertionSortRun = 20
)

// MergeSort sorts s in ascending order, as slices.Sort does (NaNs first),
// running its halves, and the merges of its halves, as tasks of w's pool.
// The sort is stable, which is observable only for floating-point zeros of
// either sign and NaNs with different payloads.
//
// It allocates one scratch buffer of len(s) elements per call (none if s is
// already sorted, which one pass recognises); the levels of the recursion
// alternate between s and the buffer, so every element is moved once per
// level. Each merge of two runs is itself split in two by
// co-ranking (a binary search for the point that divides the output in
// half), so no merge is serial above mergeSerialCutoff elements: the span is
// O(log³ n) plus the serial cutoffs, and the work O(n log n).
//
// From ordinary code, call it through a pool:
//
//	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { sorts.MergeSort(w, s) })
func MergeSort[T cmp.Ordered](w *forkjoin.Worker, s []T) {
	if w == nil {
		panic("sorts: MergeSort: nil worker w")
	}
	if len(s) <= insertionSortRun {
		insertionSortOrdered(s)
		return
	}
	// A scan that stops at the first descent costs nothing on unordered
	// input and spares sorted input the buffer and the copying levels.
	if slices.IsSorted(s) {
		return
	}
	buf := make([]T, len(s))
	if len(s) <= mergeSortSerialCutoff {
		stableSortOrdered(s, buf, false)
		return
	}
	parallelMergeSortOrdered(w, s, buf, mergeSortSerialCutoff)
}

// parallelMergeSortOrdered sorts s with buf as scratch, splitting it into
// tasks down to cutoff elements.
func parallelMergeSortOrdered[T cmp.Ordered](w *forkjoin.Worker, s, buf []T, cutoff int) {
	parallelMergeSort(w, s, buf, orderedKernel[T]{}, cutoff)
}

// parallelMergeSort sorts s with buf as scratch, splitting it into tasks
// down to cutoff elements, with k's serial sort, merge and co-ranking.
func parallelMergeSort[T any, K msKernel[T]](w *forkjoin.Worker, s, buf []T, k K, cutoff int) {
	m := &mergeSorter[T, K]{k: k, cutoff: max(cutoff, insertionSortRun)}
	m.task = forkjoin.NewFunc(m.run)
	m.sort(w, s, buf, false)
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
		panic("sorts: MergeSortFunc: nil worker w")
	}
	if cmp == nil {
		panic("sorts: MergeSortFunc: nil cmp")
	}
	if len(s) <= insertionSortRun {
		insertionSortCmpFunc(s, cmp)
		return
	}
	if slices.IsSortedFunc(s, cmp) {
		return
	}
	buf := make([]T, len(s))
	if len(s) <= mergeSortSerialCutoff {
		stableSortCmpFunc(s, buf, false, cmp)
		return
	}
	parallelMergeSort(w, s, buf, cmpFuncKernel[T]{cmp}, mergeSortSerialCutoff)
}

// msStep is a task of a merge sort. With merge unset it asks for x to be
// sorted, with the result left in x, or in y when toBuf is set (y has the
// length of x and is scratch space). With merge set it asks for the sorted
// runs y (left) and z (right) to be merged into x.
//
// Sorting and merging share one argument type so that one Func serves both:
// the pool caches job records per Func, and one Func per call keeps its
// records warm instead of two that might contend for a cache slot.
type msStep[T any] struct {
	x, y, z      []T
	merge, toBuf bool
}

func sortStep[T any](s, buf []T, toBuf bool) msStep[T] {
	return msStep[T]{x: s, y: buf, toBuf: toBuf}
}

func mergeStep[T any](dst, a, b []T) msStep[T] {
	return msStep[T]{x: dst, y: a, z: b, merge: true}
}

// msKernel is what the two merge sorts differ in: the serial pieces, with
// the order built in (cmp.Less for MergeSort, the caller's cmp for
// MergeSortFunc). They run once per leaf or merge, so calling them through
// the type parameter costs nothing measurable, and the element loops inside
// stay specialised.
type msKernel[T any] interface {
	sortSerial(s, buf []T, toBuf bool) // see stableSortOrdered
	mergeSerial(dst, a, b []T)
	coRank(k int, a, b []T) int
}

type orderedKernel[T cmp.Ordered] struct{}

func (orderedKernel[T]) sortSerial(s, buf []T, toBuf bool) { stableSortOrdered(s, buf, toBuf) }
func (orderedKernel[T]) mergeSerial(dst, a, b []T)         { mergeOrdered(dst, a, b) }
func (orderedKernel[T]) coRank(k int, a, b []T) int        { return coRankOrdered(k, a, b) }

type cmpFuncKernel[T any] struct{ cmp func(a, b T) int }

func (c cmpFuncKernel[T]) sortSerial(s, buf []T, toBuf bool) {
	stableSortCmpFunc(s, buf, toBuf, c.cmp)
}
func (c cmpFuncKernel[T]) mergeSerial(dst, a, b []T)  { mergeCmpFunc(dst, a, b, c.cmp) }
func (c cmpFuncKernel[T]) coRank(k int, a, b []T) int { return coRankCmpFunc(k, a, b, c.cmp) }

// mergeSorter holds the task function of one sort call; it is made per call
// because a package-level Func cannot be generic.
type mergeSorter[T any, K msKernel[T]] struct {
	k      K
	cutoff int // subproblems this long are sorted serially
	task   *forkjoin.Func[msStep[T], struct{}]
}

func (m *mergeSorter[T, K]) run(w *forkjoin.Worker, st msStep[T]) struct{} {
	if st.merge {
		m.merge(w, st.x, st.y, st.z)
	} else {
		m.sort(w, st.x, st.y, st.toBuf)
	}
	return struct{}{}
}

func (m *mergeSorter[T, K]) sort(w *forkjoin.Worker, s, buf []T, toBuf bool) {
	n := len(s)
	if n <= m.cutoff {
		m.k.sortSerial(s, buf, toBuf)
		return
	}
	h := n / 2
	// Sort each half into the other buffer, then merge back into the one
	// the caller asked for.
	m.task.Join(w, sortStep(s[:h], buf[:h], !toBuf), sortStep(s[h:], buf[h:], !toBuf))
	if toBuf {
		m.merge(w, buf, s[:h], s[h:])
	} else {
		m.merge(w, s, buf[:h], buf[h:])
	}
}

func (m *mergeSorter[T, K]) merge(w *forkjoin.Worker, dst, a, b []T) {
	n := len(dst)
	if n <= mergeSerialCutoff {
		m.k.mergeSerial(dst, a, b)
		return
	}
	k := n / 2
	i := m.k.coRank(k, a, b)
	j := k - i
	m.task.Join(w, mergeStep(dst[:k], a[:i], b[:j]), mergeStep(dst[k:], a[i:], b[j:]))
}

// stableSortOrdered is the serial kernel of MergeSort: a top-down merge sort
// that sorts s, leaving the result in s, or in buf when toBuf is set. buf
// has the length of s. The levels alternate between the two slices, as in
// the parallel sort, so no level copies back.
func stableSortOrdered[T cmp.Ordered](s, buf []T, toBuf bool) {
	if len(s) <= insertionSortRun {
		insertionSortOrdered(s)
		if toBuf {
			copy(buf, s)
		}
		return
	}
	h := len(s) / 2
	stableSortOrdered(s[:h], buf[:h], !toBuf)
	stableSortOrdered(s[h:], buf[h:], !toBuf)
	if toBuf {
		mergeOrdered(buf, s[:h], s[h:])
	} else {
		mergeOrdered(s, buf[:h], buf[h:])
	}
}

func stableSortCmpFunc[T any](s, buf []T, toBuf bool, cmp func(a, b T) int) {
	if len(s) <= insertionSortRun {
		insertionSortCmpFunc(s, cmp)
		if toBuf {
			copy(buf, s)
		}
		return
	}
	h := len(s) / 2
	stableSortCmpFunc(s[:h], buf[:h], !toBuf, cmp)
	stableSortCmpFunc(s[h:], buf[h:], !toBuf, cmp)
	if toBuf {
		mergeCmpFunc(buf, s[:h], s[h:], cmp)
	} else {
		mergeCmpFunc(s, buf[:h], buf[h:], cmp)
	}
}
