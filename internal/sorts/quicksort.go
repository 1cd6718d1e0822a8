package sorts

import (
	"cmp"

	"github.com/fjkit/fjkit/forkjoin"
)

// The parallel layer of the quicksort: the entry points and the task that
// sorts a subrange. It decides, for each subrange too long for the serial
// kernel (zsort*.go), what the kernel's adaptive steps decide serially (is
// the range descending, sorted, all equal to its lower bound?) and runs the
// long passes among tasks: a sortedness check, a reversal, the partition
// itself (partition.go). The serial kernels never call back into this
// layer.

const (
	// quickSortSerialCutoff is the length at or below which a subrange is
	// sorted by the serial kernel instead of being partitioned and split
	// into two tasks. It is chosen as the merge sort's is (see
	// mergeSortSerialCutoff): BenchmarkSortCutoff was level within the
	// noise from 2^10 to 2^16, and a serial sort of 2^13 elements takes
	// thousands of times a fork.
	quickSortSerialCutoff = 1 << 13

	// quickSortParallelPartition is the length above which a pass over a
	// subrange (the partition, a sortedness check, a reversal) is itself
	// split among tasks; below it the serial pass is faster than the
	// forks.
	quickSortParallelPartition = 1 << 17

	// partitionChunk is the least length of a chunk of a parallel
	// partition, and the longest piece of the other parallel passes (a
	// check, a reversal, phase two's swaps) that one task does.
	partitionChunk = 1 << 14
)

// QuickSort sorts s in ascending order, as slices.Sort does (NaNs first),
// with a parallel pattern-defeating quicksort: the two sides of each
// partition are sorted as tasks of w's pool, down to subranges of
// quickSortSerialCutoff elements, which are sorted serially. The sort is not
// stable. It allocates a few small objects per call (its task function, and
// the bookkeeping of each parallel partition), nothing per element.
//
// Pivots are the median of three, or Tukey's ninther from
// pdqNintherThreshold elements, and the pivot's samples say whether a range
// looks sorted or descending. A range that looks descending is reversed, and
// one that looks sorted after a balanced partition that moved nothing is
// checked in one pass, so sorted and reversed input take linear time; a
// pivot equal to the element before its range (which bounds the range from
// below) moves every element equal to it into place at once, so inputs with
// few distinct values take close to linear time; after about log2(n) badly
// unbalanced partitions a range is heapsorted, so no input takes more than
// O(n log n) time.
//
// The passes over long ranges are parallel: the first partition of n
// elements, and the first sortedness check or reversal, take O(n/P) time on
// P workers. A partition cuts its range into chunks of at least 2^14
// elements, up to four per worker, which tasks partition separately before
// parallel swaps put the misplaced elements right (see parallelPartition).
// Passes over ranges shorter than n/P, which run while other workers sort
// other ranges, stay serial. The span is still not polylogarithmic, and the
// heapsort fallback, when it triggers, is serial. The work is O(n log n).
//
// From ordinary code, call it through a pool:
//
//	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { sorts.QuickSort(w, s) })
func QuickSort[E cmp.Ordered](w *forkjoin.Worker, s []E) {
	if w == nil {
		panic("sorts: QuickSort: nil worker w")
	}
	quickSort(w, s, orderedQS[E]{}, quickSortSerialCutoff)
}

// QuickSortFunc sorts s in ascending order as determined by cmp, with the
// parallel pattern-defeating quicksort of QuickSort. cmp(a, b) must return
// a negative number when a < b, a positive number when a > b and zero when
// they are equal, and must be a strict weak ordering. Tasks call cmp
// concurrently. The sort is not stable; it makes O(n log n) comparisons on
// every input, and about as many as slices.SortFunc on any. If cmp panics,
// the panic reaches the caller (as a *forkjoin.PanicError once it crosses a
// Join) with s left a permutation of its elements: the quicksort only ever
// swaps them.
func QuickSortFunc[E any](w *forkjoin.Worker, s []E, cmp func(a, b E) int) {
	if w == nil {
		panic("sorts: QuickSortFunc: nil worker w")
	}
	if cmp == nil {
		panic("sorts: QuickSortFunc: nil cmp")
	}
	quickSort(w, s, cmpFuncQS[E]{cmp}, quickSortSerialCutoff)
}

// quickSort sorts s with k's serial pieces, splitting it into tasks down to
// cutoff elements.
func quickSort[E any, K qsKernel[E]](w *forkjoin.Worker, s []E, k K, cutoff int) {
	if len(s) <= cutoff {
		k.serial(s, wholeRange(len(s)))
		return
	}
	newQuickSorter(s, k, cutoff).run(w)
}

// quickSorter holds the slice of one sort call and its type's task
// function (funcs.go); tasks own disjoint subranges of data.
type quickSorter[E any, K qsKernel[E]] struct {
	data      []E
	k         K
	cutoff    int                                                          // subranges this long are sorted serially
	partition int                                                          // passes over subranges longer than this are parallel
	chunk     int                                                          // see partitionChunk
	task      *forkjoin.Func[taskArg[*quickSorter[E, K], qsStep[E]], bool] // one per type (funcs.go)
}

func newQuickSorter[E any, K qsKernel[E]](data []E, k K, cutoff int) *quickSorter[E, K] {
	q := &quickSorter[E, K]{
		data:      data,
		k:         k,
		cutoff:    max(cutoff, pdqInsertionCutoff),
		partition: quickSortParallelPartition,
		chunk:     partitionChunk,
	}
	q.task = funcFor(func(w *forkjoin.Worker, a taskArg[*quickSorter[E, K], qsStep[E]]) bool {
		return a.p.step(w, a.step)
	})
	return q
}

// join runs steps l and r as a fork-join pair of q's tasks.
func (q *quickSorter[E, K]) join(w *forkjoin.Worker, l, r qsStep[E]) (bool, bool) {
	type arg = taskArg[*quickSorter[E, K], qsStep[E]]
	return q.task.Join(w, arg{q, l}, arg{q, r})
}

// run sorts q.data with tasks of w's pool.
func (q *quickSorter[E, K]) run(w *forkjoin.Worker) {
	q.sortTask(w, wholeRange(len(q.data)))
}

// qsStep is a task of a quicksort. All kinds share one argument type so
// that one Func serves them: the pool caches job records per Func, and one
// Func per call keeps its records warm instead of several that might
// contend for a cache slot.
type qsStep[E any] struct {
	kind   qsKind
	r      pdqRange           // qsSort: the range; qsReverse: the range reversed
	st     *partitionState[E] // qsChunks, qsSwaps
	lo, hi int                // the part of the pass this task does
}

type qsKind uint8

const (
	qsSort    qsKind = iota // sort r
	qsCheck                 // report whether data[lo-1:hi] is ascending
	qsReverse               // reverseRanks(data, r.a, r.b, lo, hi)
	qsChunks                // partition st's chunks [lo, hi) (phase one)
	qsSwaps                 // swap st's misplaced elements of ranks [lo, hi) (phase two)
)

// step runs one task; only qsCheck's result means anything.
func (q *quickSorter[E, K]) step(w *forkjoin.Worker, s qsStep[E]) bool {
	switch s.kind {
	case qsSort:
		q.sortTask(w, s.r)
		return true
	case qsChunks:
		if s.hi-s.lo == 1 {
			c := &s.st.chunks[s.lo]
			c.split, c.already = q.k.partitionAround(q.data, c.lo, c.hi, s.st.pivot, s.st.equal)
			return true
		}
	default:
		if s.hi-s.lo <= q.chunk {
			switch s.kind {
			case qsCheck:
				return q.k.ascending(q.data[s.lo-1 : s.hi])
			case qsReverse:
				reverseRanks(q.data, s.r.a, s.r.b, s.lo, s.hi)
			case qsSwaps:
				swapRanks(q.data, s.st.left, s.st.right, s.lo, s.hi)
			}
			return true
		}
	}
	l, r := s, s
	l.hi = int(uint(s.lo+s.hi) >> 1)
	r.lo = l.hi
	x, y := q.join(w, l, r)
	return x && y
}

// sortTask sorts r: the pdq loop of the serial kernel, with the long passes
// run among tasks and the two sides of each partition forked.
func (q *quickSorter[E, K]) sortTask(w *forkjoin.Worker, r pdqRange) {
	for r.b-r.a > q.cutoff {
		pivot, hint, ok := q.k.choosePivot(q.data, &r)
		if !ok {
			return // heapsorted
		}
		wide := splitPartition(r.b-r.a, len(q.data), q.partition, w)
		if hint == decreasingHint {
			if wide {
				q.step(w, qsStep[E]{kind: qsReverse, r: r, lo: 0, hi: (r.b - r.a) / 2})
				pivot = (r.b - 1) - (pivot - r.a)
			} else {
				pivot = reverseRange(q.data, r.a, r.b, pivot)
			}
			hint = increasingHint
		}
		if hint == increasingHint && r.mayBeSorted() {
			if wide {
				// One parallel pass, which stops at the first
				// descent in each chunk, instead of the bounded
				// insertion sort, which is serial.
				if q.step(w, qsStep[E]{kind: qsCheck, lo: r.a + 1, hi: r.b}) {
					return
				}
			} else if q.k.partialInsertionSort(q.data, r.a, r.b) {
				return
			}
		}
		if r.a > 0 && q.k.atLowerBound(q.data, r.a, pivot) {
			// The pivot equals the lower bound of the range, so it
			// is the smallest value here: gather its copies, which
			// are then in their final place, and go on with the rest.
			if wide {
				r.a, _ = q.parallelPartition(w, r.a, r.b, pivot, true)
			} else {
				r.a = q.k.partitionEqual(q.data, r.a, r.b, pivot)
			}
			continue
		}
		var mid int
		var already bool
		if wide {
			mid, already = q.parallelPartition(w, r.a, r.b, pivot, false)
		} else {
			mid, already = q.k.partition(q.data, r.a, r.b, pivot)
		}
		left, right, _ := r.split(mid, already)
		// The pivot at mid is final and no task writes it again, so the
		// right side may read it as its lower bound.
		q.join(w, qsStep[E]{kind: qsSort, r: left}, qsStep[E]{kind: qsSort, r: right})
		return
	}
	q.k.serial(q.data, r)
}
