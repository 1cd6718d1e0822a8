package sorts

import (
	"cmp"

	"github.com/fjkit/fjkit/forkjoin"
)

// The parallel layer of the merge sort: the entry points and the tasks that
// sort, merge, and find whether the whole input is one run. The serial
// kernels (zsort*.go) never call back into this layer.

// Cutoffs of the merge sort. BenchmarkSortCutoff (sort_bench_test.go)
// sweeps the parallel one; on the shared two-core machine it was written on,
// 2^10 to 2^16 were level within the noise, so the choice rests on cost: a
// serial sort or a merge of 2^13 elements costs thousands of times a fork,
// while a 10^6-element sort still makes over a hundred tasks to balance
// the workers.
const (
	// mergeSortSerialCutoff is the length at or below which a subproblem
	// is sorted by the serial kernel instead of being split into two
	// tasks.
	mergeSortSerialCutoff = 1 << 13

	// mergeSerialCutoff is the output length at or below which a merge
	// runs serially instead of being split by co-ranking, and the
	// longest piece of the parallel run check and reversal that one task
	// does.
	mergeSerialCutoff = 1 << 13

	// insertionSortRun is the length at or below which the serial kernel
	// uses insertion sort; runs of 12 to 32 sort random input equally
	// fast.
	insertionSortRun = 20

	// mergeGallop is how many elements in a row one run supplies to a
	// merge before the CmpFunc merge searches for the end of the stretch
	// instead of comparing element by element (TimSort's MIN_GALLOP).
	mergeGallop = 7
)

// MergeSort sorts s in ascending order, as slices.Sort does (NaNs first),
// running its halves, and the merges of its halves, as tasks of w's pool.
// The sort is stable, which is observable only for floating-point zeros of
// either sign and NaNs with different payloads.
//
// Input that is one ascending run, or one strictly descending run (which it
// reverses), costs one pass, parallel above mergeSortSerialCutoff elements,
// and no buffer. Otherwise it allocates one scratch buffer of len(s)
// elements per call; the levels of the recursion alternate between s and the
// buffer, so every element is moved once per level, and a subproblem that
// is one run is recognised in one pass. Each merge of two runs is itself
// split in two by co-ranking (a binary search for the point that divides
// the output in half), so no merge is serial above mergeSerialCutoff
// elements: the span is O(log³ n) plus the serial cutoffs, and the work
// O(n log n).
//
// From ordinary code, call it through a pool:
//
//	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { sorts.MergeSort(w, s) })
func MergeSort[E cmp.Ordered](w *forkjoin.Worker, s []E) {
	if w == nil {
		panic("sorts: MergeSort: nil worker w")
	}
	mergeSort(w, s, orderedMS[E]{}, mergeSortSerialCutoff)
}

// MergeSortFunc sorts s in ascending order as determined by cmp, keeping
// equal elements in their original order (it is stable, like
// slices.SortStableFunc). cmp(a, b) must return a negative number when a < b,
// a positive number when a > b and zero when they are equal, and must be a
// strict weak ordering. Tasks call cmp concurrently. If cmp panics, the
// panic reaches the caller (as a *forkjoin.PanicError once it crosses a
// Join) with s left a permutation of its elements (see mergeSorter.sort);
// so does a sort cut short by its invocation's cancellation.
//
// It costs what MergeSort costs: one pass on a run, otherwise one scratch
// buffer of len(s) elements and an O(log³ n) span.
func MergeSortFunc[E any](w *forkjoin.Worker, s []E, cmp func(a, b E) int) {
	if w == nil {
		panic("sorts: MergeSortFunc: nil worker w")
	}
	if cmp == nil {
		panic("sorts: MergeSortFunc: nil cmp")
	}
	mergeSort(w, s, cmpFuncMS[E]{cmp}, mergeSortSerialCutoff)
}

// mergeSort sorts s with k's serial pieces, splitting it into tasks down to
// cutoff elements.
func mergeSort[E any, K msKernel[E]](w *forkjoin.Worker, s []E, k K, cutoff int) {
	switch {
	case len(s) <= insertionSortRun:
		k.insertionSort(s)
	case len(s) <= cutoff:
		if asc, desc := k.runOf(s); desc {
			reverse(s)
		} else if !asc {
			k.sortSerial(s, make([]E, len(s)), false)
		}
	default:
		newMergeSorter(k, cutoff).run(w, s)
	}
}

// mergeSorter holds one sort call's kernel and its type's task function
// (funcs.go).
type mergeSorter[E any, K msKernel[E]] struct {
	k      K
	cutoff int                                                             // subproblems this long are sorted serially
	task   *forkjoin.Func[taskArg[*mergeSorter[E, K], msStep[E]], runKind] // one per type (funcs.go)
}

func newMergeSorter[E any, K msKernel[E]](k K, cutoff int) *mergeSorter[E, K] {
	m := &mergeSorter[E, K]{k: k, cutoff: max(cutoff, insertionSortRun)}
	m.task = funcFor(func(w *forkjoin.Worker, a taskArg[*mergeSorter[E, K], msStep[E]]) runKind {
		return a.p.step(w, a.step)
	})
	return m
}

// join runs steps l and r as a fork-join pair of m's tasks.
func (m *mergeSorter[E, K]) join(w *forkjoin.Worker, l, r msStep[E]) (runKind, runKind) {
	type arg = taskArg[*mergeSorter[E, K], msStep[E]]
	return m.task.Join(w, arg{m, l}, arg{m, r})
}

// run sorts s with tasks of w's pool. Input that is one run, found by a
// parallel pass, costs that pass (and a parallel reversal if it is
// descending), and no buffer.
func (m *mergeSorter[E, K]) run(w *forkjoin.Worker, s []E) {
	r := m.step(w, msStep[E]{kind: msRun, x: s, lo: 1, hi: len(s)})
	switch {
	case r.desc:
		m.step(w, msStep[E]{kind: msReverse, x: s, lo: 0, hi: len(s) / 2})
	case !r.asc:
		m.sort(w, s, make([]E, len(s)), false)
	}
}

// msStep is a task of a merge sort. All kinds share one argument type so
// that one Func serves them: the pool caches job records per Func, and one
// Func per call keeps its records warm instead of several that might
// contend for a cache slot.
type msStep[E any] struct {
	kind    msKind
	x, y, z []E
	toBuf   bool
	lo, hi  int
}

type msKind uint8

const (
	msSort    msKind = iota // sort x into x, or into y (scratch, as long) with toBuf set
	msMerge                 // merge the sorted runs y (left) and z (right) into x
	msRun                   // report whether x[lo-1:hi] is one run
	msReverse               // reverseRanks(x, 0, len(x), lo, hi)
)

// runKind is what an msRun task found: whether its part of the input is
// ascending, or strictly descending.
type runKind struct{ asc, desc bool }

func (m *mergeSorter[E, K]) step(w *forkjoin.Worker, st msStep[E]) runKind {
	switch st.kind {
	case msSort:
		m.sort(w, st.x, st.y, st.toBuf)
		return runKind{}
	case msMerge:
		m.merge(w, st.x, st.y, st.z)
		return runKind{}
	}
	if st.hi-st.lo <= mergeSerialCutoff {
		if st.kind == msReverse {
			reverseRanks(st.x, 0, len(st.x), st.lo, st.hi)
			return runKind{}
		}
		asc, desc := m.k.runOf(st.x[st.lo-1 : st.hi])
		return runKind{asc, desc}
	}
	l, r := st, st
	l.hi = int(uint(st.lo+st.hi) >> 1)
	r.lo = l.hi
	x, y := m.join(w, l, r)
	return runKind{x.asc && y.asc, x.desc && y.desc}
}

// sort sorts s into s, or into buf (as long) with toBuf set. Whether it
// returns, panics (the caller's cmp may) or is cut short by cancellation
// (a canceled invocation's Joins run neither side), s then holds a
// permutation of its elements: the halves are sorted from s, and a sort
// into buf merges from s, so only a merge back into s overwrites it; that
// one runs only once both halves are sorted into buf, and restores s from
// buf if it does not finish (as the serial kernel's mergeBack does). So a
// sort that fails leaves its caller's slice a permutation of its input.
func (m *mergeSorter[E, K]) sort(w *forkjoin.Worker, s, buf []E, toBuf bool) {
	n := len(s)
	if n <= m.cutoff {
		m.k.sortSerial(s, buf, toBuf)
		return
	}
	h := n / 2
	// Sort each half into the other buffer, then merge back into the one
	// the caller asked for.
	m.join(w,
		msStep[E]{kind: msSort, x: s[:h], y: buf[:h], toBuf: !toBuf},
		msStep[E]{kind: msSort, x: s[h:], y: buf[h:], toBuf: !toBuf})
	if w.Canceled() {
		return // a half may not have been sorted into buf
	}
	if toBuf {
		m.merge(w, buf, s[:h], s[h:])
		return
	}
	done := false
	defer func() {
		if !done { // every piece of the merge has stopped (Join waits for both sides)
			copy(s, buf)
		}
	}()
	m.merge(w, s, buf[:h], buf[h:])
	done = !w.Canceled() // else a piece of the merge may not have run
}

func (m *mergeSorter[E, K]) merge(w *forkjoin.Worker, dst, a, b []E) {
	n := len(dst)
	if n <= mergeSerialCutoff {
		m.k.mergeSerial(dst, a, b)
		return
	}
	k := n / 2
	i := m.k.coRank(k, a, b)
	j := k - i
	m.join(w,
		msStep[E]{kind: msMerge, x: dst[:k], y: a[:i], z: b[:j]},
		msStep[E]{kind: msMerge, x: dst[k:], y: a[i:], z: b[j:]})
}
