package sorts

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/fjkit/fjkit/forkjoin"
)

// Tuning constants of the pattern-defeating quicksort (Orson Peters,
// "Pattern-defeating Quicksort", 2021). The parallel cutoff is chosen as the
// merge sort's is (see mergeSortSerialCutoff): BenchmarkSortCutoff was level
// within the noise from 2^10 to 2^16, and a serial sort of 2^13 elements
// takes thousands of times a fork.
const (
	// quickSortSerialCutoff is the length at or below which a subrange is
	// sorted by the serial kernel instead of being partitioned and split
	// into two tasks.
	quickSortSerialCutoff = 1 << 13

	// quickSortParallelPartition is the length above which a partition
	// is itself split among tasks (see parallelPartition); below it the
	// serial partition is faster than the forks and the extra pass.
	quickSortParallelPartition = 1 << 17

	// partitionChunk is the least length of a chunk of a parallel
	// partition.
	partitionChunk = 1 << 14

	// pdqInsertionCutoff is the length at or below which a subrange is
	// insertion sorted.
	pdqInsertionCutoff = 24

	// pdqNintherThreshold is the length above which the pivot is Tukey's
	// ninther (the median of three medians of three) instead of the median
	// of three.
	pdqNintherThreshold = 128

	// pdqPartialInsertionLimit is how many element moves a partial
	// insertion sort may make before it gives up on a subrange that looked
	// sorted.
	pdqPartialInsertionLimit = 8

	// pdqBlock is the block length of the branchless partition; offsets
	// within a block are stored in a byte.
	pdqBlock = 64
)

// pdqOutcome says what one partitioning step left to do.
type pdqOutcome int

const (
	pdqSplit pdqOutcome = iota // sort data[a:mid] and data[mid+1:b]
	pdqEqual                   // data[a:mid+1] is final; sort data[mid+1:b]
	pdqDone                    // data[a:b] is sorted
)

// pdqRange is a quicksort subproblem: sort data[a:b], falling back to
// heapsort after limit more badly unbalanced partitions.
type pdqRange struct {
	a, b, limit int
}

// QuickSort sorts s in ascending order, as slices.Sort does (NaNs first),
// with a parallel pattern-defeating quicksort: the two sides of each
// partition are sorted as tasks of w's pool, down to subranges of
// quickSortSerialCutoff elements, which are sorted serially. The sort is not
// stable. It allocates a few small objects per call (its task functions,
// and the bookkeeping of each parallel partition), nothing per element.
//
// Pivots are the median of three, or Tukey's ninther above
// pdqNintherThreshold elements. A subrange found in descending order is
// reversed, and a partition that swapped nothing is followed by a bounded
// insertion sort of both sides, so sorted and reversed input take linear
// time; a pivot equal to the element before its subrange (which
// bounds the subrange from below) moves every element equal to it into place
// at once, so inputs with few distinct values take close to linear time;
// after about log2(n) badly unbalanced partitions a subrange is
// heapsorted, so no input, McIlroy's adversary included, takes more than
// O(n log n) time.
//
// The partitions are parallel where it matters: one of more than 2^17
// elements is cut into chunks of at least 2^14 elements, up to four per
// worker, which tasks partition separately before parallel swaps put the
// misplaced elements right (see parallelPartition). On P workers the first
// partition of n elements thus takes O(n/P) time, not O(n); partitions
// shorter than n/P, which run while other workers sort other subranges,
// stay serial. The span is
// still not polylogarithmic: with k = min(n/2^14, 4P) chunks a partition
// costs O(n/k + k), and subranges of at most 2^17 elements are partitioned
// serially. The heapsort fallback, when it triggers, is serial. The work is
// O(n log n).
//
// From ordinary code, call it through a pool:
//
//	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { sorts.QuickSort(w, s) })
func QuickSort[T cmp.Ordered](w *forkjoin.Worker, s []T) {
	if w == nil {
		panic("sorts: QuickSort: nil worker w")
	}
	limit := bits.Len(uint(len(s)))
	if len(s) <= quickSortSerialCutoff {
		pdqOrdered(s, 0, len(s), limit)
		return
	}
	parallelQuickSortOrdered(w, s, quickSortSerialCutoff)
}

// parallelQuickSortOrdered sorts s, splitting it into tasks down to cutoff
// elements.
func parallelQuickSortOrdered[T cmp.Ordered](w *forkjoin.Worker, s []T, cutoff int) {
	q := &quickSorterOrdered[T]{
		data:      s,
		cutoff:    max(cutoff, pdqInsertionCutoff),
		partition: quickSortParallelPartition,
		chunk:     partitionChunk,
	}
	q.run(w)
}

// QuickSortFunc sorts s in ascending order as determined by cmp, with the
// parallel pattern-defeating quicksort of QuickSort. cmp(a, b) must return
// a negative number when a < b, a positive number when a > b and zero when
// they are equal, and must be a strict weak ordering. Tasks call cmp
// concurrently. The sort is not stable; it makes O(n log n) comparisons on
// every input.
func QuickSortFunc[T any](w *forkjoin.Worker, s []T, cmp func(a, b T) int) {
	if w == nil {
		panic("sorts: QuickSortFunc: nil worker w")
	}
	if cmp == nil {
		panic("sorts: QuickSortFunc: nil cmp")
	}
	limit := bits.Len(uint(len(s)))
	if len(s) <= quickSortSerialCutoff {
		pdqCmpFunc(s, 0, len(s), limit, cmp)
		return
	}
	q := &quickSorterCmpFunc[T]{
		data:      s,
		k:         cmpFuncQS[T]{cmp},
		cutoff:    quickSortSerialCutoff,
		partition: quickSortParallelPartition,
		chunk:     partitionChunk,
	}
	q.run(w)
}

// qsStep is a task of a quicksort: a subrange to sort, or with part.st set,
// a step of a parallel partition. The two share one argument type so that
// one Func serves both: the pool caches job records per Func, and one Func
// per call keeps its records warm instead of two that might contend for a
// cache slot.
type qsStep[T any] struct {
	sort pdqRange
	part partitionStep[T]
}

// qsKernel is what the two quicksorts differ in: the serial pieces, with the
// order built in (cmp.Less for QuickSort, the caller's cmp for
// QuickSortFunc). They run once per partition or chunk, so calling them
// through the type parameter costs nothing measurable, and the element loops
// inside stay specialised.
type qsKernel[T any] interface {
	// step partitions data[a:b] once; see pdqStepOrdered.
	step(data []T, a, b int, limit *int, par parallelPartitioner, w *forkjoin.Worker) (int, pdqOutcome)
	// serial sorts data[a:b]; see pdqOrdered.
	serial(data []T, a, b, limit int)
	// partitionAround partitions data[l:r] around pivot; see
	// partitionAroundOrdered.
	partitionAround(data []T, l, r int, pivot T) (int, bool)
}

type orderedQS[T cmp.Ordered] struct{}

func (orderedQS[T]) step(data []T, a, b int, limit *int, par parallelPartitioner, w *forkjoin.Worker) (int, pdqOutcome) {
	return pdqStepOrdered(data, a, b, limit, par, w)
}
func (orderedQS[T]) serial(data []T, a, b, limit int) { pdqOrdered(data, a, b, limit) }
func (orderedQS[T]) partitionAround(data []T, l, r int, pivot T) (int, bool) {
	return partitionAroundOrdered(data, l, r, pivot)
}

type cmpFuncQS[T any] struct{ cmp func(a, b T) int }

func (c cmpFuncQS[T]) step(data []T, a, b int, limit *int, par parallelPartitioner, w *forkjoin.Worker) (int, pdqOutcome) {
	return pdqStepCmpFunc(data, a, b, limit, c.cmp, par, w)
}
func (c cmpFuncQS[T]) serial(data []T, a, b, limit int) { pdqCmpFunc(data, a, b, limit, c.cmp) }
func (c cmpFuncQS[T]) partitionAround(data []T, l, r int, pivot T) (int, bool) {
	return partitionAroundCmpFunc(data, l, r, pivot, c.cmp)
}

// parallelPartitioner lets a partition step of the serial pdq code hand a
// long subrange to a sorter's parallel partition.
type parallelPartitioner interface {
	// tryParallelPartition partitions data[a:b] in parallel and reports
	// ok, if the subrange is long enough to be worth it.
	tryParallelPartition(w *forkjoin.Worker, a, b int) (mid int, noSwaps, ok bool)
}

// quickSorter holds the slice and the task function of one sort call; tasks
// own disjoint subranges of data. It is made per call because a
// package-level Func cannot be generic.
type quickSorter[T any, K qsKernel[T]] struct {
	data      []T
	k         K
	cutoff    int // subranges this long are sorted serially
	partition int // subranges longer than this are partitioned in parallel
	chunk     int // least chunk length of a parallel partition
	task      *forkjoin.Func[qsStep[T], struct{}]
}

type (
	quickSorterOrdered[T cmp.Ordered] = quickSorter[T, orderedQS[T]]
	quickSorterCmpFunc[T any]         = quickSorter[T, cmpFuncQS[T]]
)

// run sorts q.data, whose other fields are set, with tasks of w's pool.
func (q *quickSorter[T, K]) run(w *forkjoin.Worker) {
	q.task = forkjoin.NewFunc(q.step)
	q.sortTask(w, pdqRange{a: 0, b: len(q.data), limit: bits.Len(uint(len(q.data)))})
}

func (q *quickSorter[T, K]) step(w *forkjoin.Worker, s qsStep[T]) struct{} {
	if s.part.st != nil {
		return q.partTask(w, s.part)
	}
	return q.sortTask(w, s.sort)
}

func (q *quickSorter[T, K]) sortTask(w *forkjoin.Worker, r pdqRange) struct{} {
	a, b, limit := r.a, r.b, r.limit
	for b-a > q.cutoff {
		mid, out := q.k.step(q.data, a, b, &limit, q, w)
		switch out {
		case pdqDone:
			return struct{}{}
		case pdqEqual:
			a = mid + 1
			continue
		}
		// The pivot at mid is final and no task writes it again,
		// so the right side may read it as its lower bound.
		q.task.Join(w,
			qsStep[T]{sort: pdqRange{a, mid, limit}},
			qsStep[T]{sort: pdqRange{mid + 1, b, limit}})
		return struct{}{}
	}
	q.k.serial(q.data, a, b, limit)
	return struct{}{}
}

func (q *quickSorter[T, K]) tryParallelPartition(w *forkjoin.Worker, a, b int) (int, bool, bool) {
	if !splitPartition(b-a, len(q.data), q.partition, w) {
		return 0, false, false
	}
	mid, noSwaps := q.parallelPartition(w, a, b)
	return mid, noSwaps, true
}

// parallelPartition is partitionOrdered for long subranges, in two
// parallel phases. First each of k chunks is partitioned on its own. The
// chunks' counts of elements less than the pivot then give the final
// boundary; the elements on the wrong side of it, the large ones left of it
// and as many small ones right of it, form at most k runs on each side, and
// the second phase swaps the i-th misplaced element on the left with the
// i-th on the right, in pieces of q.chunk. Both phases take O(n/k) time on k
// workers; the bookkeeping between them takes O(k).
func (q *quickSorter[T, K]) parallelPartition(w *forkjoin.Worker, a, b int) (int, bool) {
	st := newPartitionState(a+1, b, q.data[a], q.chunk, w)
	q.partTask(w, partitionStep[T]{st: st, lo: 0, hi: len(st.chunks)})
	mid, noSwaps := st.misplaced()
	if !noSwaps {
		q.partTask(w, partitionStep[T]{st: st, lo: 0, hi: st.swaps, swap: true})
	}
	q.data[a], q.data[mid] = q.data[mid], q.data[a]
	return mid, noSwaps
}

// partTask runs the chunks [lo, hi) of phase one, or the swaps of ranks
// [lo, hi) of phase two, splitting them into tasks.
func (q *quickSorter[T, K]) partTask(w *forkjoin.Worker, p partitionStep[T]) struct{} {
	if !p.swap && p.hi-p.lo == 1 {
		c := &p.st.chunks[p.lo]
		c.split, c.noSwaps = q.k.partitionAround(q.data, c.lo, c.hi, p.st.pivot)
		return struct{}{}
	}
	if p.swap && p.hi-p.lo <= q.chunk {
		swapRanks(q.data, p.st.left, p.st.right, p.lo, p.hi)
		return struct{}{}
	}
	m := int(uint(p.lo+p.hi) >> 1)
	q.task.Join(w,
		qsStep[T]{part: partitionStep[T]{st: p.st, lo: p.lo, hi: m, swap: p.swap}},
		qsStep[T]{part: partitionStep[T]{st: p.st, lo: m, hi: p.hi, swap: p.swap}})
	return struct{}{}
}

// splitPartition reports whether a partition of n elements out of a sort of
// total should run in parallel: only while it is longer than threshold and
// holds more than a worker's share of the input. Deeper down, the other
// workers are busy with other subranges, and splitting would only add the
// second phase's swaps to the work.
func splitPartition(n, total, threshold int, w *forkjoin.Worker) bool {
	p := w.Pool().Workers()
	return p > 1 && n > threshold && n > total/p
}

// partitionStep is a task of a parallel partition: chunks [lo, hi) of
// phase one, or with swap set, ranks [lo, hi) of phase two.
type partitionStep[T any] struct {
	st     *partitionState[T]
	lo, hi int
	swap   bool
}

// partitionState is the shared state of one parallel partition of
// data[lo:hi]. Phase one's tasks each write their own chunk's entry; phase
// two's only read.
type partitionState[T any] struct {
	pivot       T
	lo, hi      int
	chunks      []partChunk
	left, right []span // misplaced runs: large ones left of the boundary, small ones right of it
	swaps       int    // elements in left (and in right)
}

// partChunk is data[lo:hi], which phase one partitions so that
// data[lo:split] < pivot <= data[split:hi].
type partChunk struct {
	lo, hi, split int
	noSwaps       bool
}

// span is data[lo:hi].
type span struct{ lo, hi int }

// newPartitionState divides data[lo:hi] into chunks of at least chunk
// elements, up to four per worker of w's pool.
func newPartitionState[T any](lo, hi int, pivot T, chunk int, w *forkjoin.Worker) *partitionState[T] {
	n := hi - lo
	k := max(1, min(n/chunk, 4*w.Pool().Workers()))
	st := &partitionState[T]{pivot: pivot, lo: lo, hi: hi, chunks: make([]partChunk, k)}
	for i := range st.chunks {
		st.chunks[i] = partChunk{lo: lo + i*n/k, hi: lo + (i+1)*n/k}
	}
	return st
}

// misplaced runs between the phases. It returns where the pivot belongs,
// just before the first element not less than it, and whether no element
// moved or needs to (every chunk was partitioned already and the chunks'
// halves are in place); otherwise it records the misplaced runs for phase
// two.
func (st *partitionState[T]) misplaced() (int, bool) {
	boundary := st.lo
	noSwaps := true
	for _, c := range st.chunks {
		boundary += c.split - c.lo
		noSwaps = noSwaps && c.noSwaps
	}
	for _, c := range st.chunks {
		if l, r := c.split, min(c.hi, boundary); l < r {
			st.left = append(st.left, span{l, r})
			st.swaps += r - l
		}
		if l, r := max(c.lo, boundary), c.split; l < r {
			st.right = append(st.right, span{l, r})
		}
	}
	return boundary - 1, noSwaps && st.swaps == 0
}

// swapRanks swaps the i-th element of the runs left with the i-th element of
// the runs right, for ranks i in [lo, hi). Both hold at least hi elements.
func swapRanks[T any](data []T, left, right []span, lo, hi int) {
	li, loff := locateRank(left, lo)
	ri, roff := locateRank(right, lo)
	for k := lo; k < hi; {
		x := left[li].lo + loff
		y := right[ri].lo + roff
		cnt := min(left[li].hi-x, right[ri].hi-y, hi-k)
		xs, ys := data[x:x+cnt], data[y:y+cnt]
		for t := range xs {
			xs[t], ys[t] = ys[t], xs[t]
		}
		k += cnt
		loff += cnt
		roff += cnt
		if x+cnt == left[li].hi {
			li, loff = li+1, 0
		}
		if y+cnt == right[ri].hi {
			ri, roff = ri+1, 0
		}
	}
}

// locateRank returns the index of the run holding the element of the given
// rank, counting through the runs in order, and its offset there.
func locateRank(runs []span, rank int) (int, int) {
	for i, r := range runs {
		if rank < r.hi-r.lo {
			return i, rank
		}
		rank -= r.hi - r.lo
	}
	return len(runs), 0
}

// pdqOrdered is the serial kernel of QuickSort: it sorts data[a:b]. Every
// element of data before a is no greater than any element of data[a:b]
// (true of every quicksort subrange), which lets a pivot be compared with
// data[a-1] to detect runs of equal elements.
func pdqOrdered[T cmp.Ordered](data []T, a, b, limit int) {
	for b-a > pdqInsertionCutoff {
		mid, out := pdqStepOrdered(data, a, b, &limit, nil, nil)
		switch out {
		case pdqDone:
			return
		case pdqEqual:
			a = mid + 1
			continue
		}
		// Recurse into the shorter side and loop on the longer one, so
		// the stack stays O(log n) deep.
		if mid-a < b-mid {
			pdqOrdered(data, a, mid, limit)
			a = mid + 1
		} else {
			pdqOrdered(data, mid+1, b, limit)
			b = mid
		}
	}
	insertionSortOrdered(data[a:b])
}

// pdqStepOrdered partitions data[a:b] (longer than pdqInsertionCutoff) once
// and reports what is left to sort. It decrements *limit on a badly
// unbalanced partition and heapsorts data[a:b] when it reaches zero. With a
// parallel partitioner par (a sorter) and its worker w it partitions long
// subranges in parallel.
func pdqStepOrdered[T cmp.Ordered](data []T, a, b int, limit *int, par parallelPartitioner, w *forkjoin.Worker) (int, pdqOutcome) {
	n := b - a
	if nonIncreasingOrdered(data[a:b]) {
		// Descending input, or a descending stretch of it such as the
		// back of an organ pipe: reversing sorts it in linear time.
		// The scan stops at the first ascent, at once on most input.
		// A range whose ends are equal is all equal and stays put.
		if cmp.Less(data[b-1], data[a]) {
			slices.Reverse(data[a:b])
		}
		return a, pdqDone
	}
	choosePivotOrdered(data, a, b)
	if a > 0 && !cmp.Less(data[a-1], data[a]) {
		// The pivot equals the lower bound of the subrange, so it is
		// the smallest value here: gather its copies, which are then
		// in their final place, and go on with the rest.
		return partitionEqualOrdered(data, a, b), pdqEqual
	}
	var mid int
	var noSwaps, parallel bool
	if par != nil {
		mid, noSwaps, parallel = par.tryParallelPartition(w, a, b)
	}
	if !parallel {
		mid, noSwaps = partitionOrdered(data, a, b)
	}
	left, right := mid-a, b-mid-1
	if left < n/8 || right < n/8 {
		*limit--
		if *limit <= 0 {
			heapSortOrdered(data[a:b])
			return mid, pdqDone
		}
		breakPatterns(data[a:mid])
		breakPatterns(data[mid+1 : b])
	} else if noSwaps &&
		partialInsertionSortOrdered(data[a:mid]) &&
		partialInsertionSortOrdered(data[mid+1:b]) {
		// The partition found the input in order; it very likely was
		// sorted, and the bounded insertion sorts just proved it.
		return mid, pdqDone
	}
	return mid, pdqSplit
}

// nonIncreasingOrdered reports whether no element of s is less than the
// one after it, so that reversing s sorts it.
func nonIncreasingOrdered[T cmp.Ordered](s []T) bool {
	for i := 1; i < len(s); i++ {
		if cmp.Less(s[i-1], s[i]) {
			return false
		}
	}
	return true
}

func nonIncreasingCmpFunc[T any](s []T, cmp func(a, b T) int) bool {
	for i := 1; i < len(s); i++ {
		if cmp(s[i-1], s[i]) < 0 {
			return false
		}
	}
	return true
}

// choosePivotOrdered moves a pivot for data[a:b] to data[a]: the median of
// the first, middle and last elements, or above pdqNintherThreshold the
// median of three such medians, which resists organ pipes and other
// patterns that fool a single median of three.
func choosePivotOrdered[T cmp.Ordered](data []T, a, b int) {
	h := a + (b-a)/2
	if b-a > pdqNintherThreshold {
		sort3Ordered(data, a, h, b-1)
		sort3Ordered(data, a+1, h-1, b-2)
		sort3Ordered(data, a+2, h+1, b-3)
		sort3Ordered(data, h-1, h, h+1)
		data[a], data[h] = data[h], data[a]
	} else {
		sort3Ordered(data, h, a, b-1)
	}
}

// sort3Ordered orders data[i] <= data[j] <= data[k].
func sort3Ordered[T cmp.Ordered](data []T, i, j, k int) {
	if cmp.Less(data[j], data[i]) {
		data[i], data[j] = data[j], data[i]
	}
	if cmp.Less(data[k], data[j]) {
		data[j], data[k] = data[k], data[j]
		if cmp.Less(data[j], data[i]) {
			data[i], data[j] = data[j], data[i]
		}
	}
}

// partitionOrdered partitions data[a:b] around the pivot data[a]: it
// returns mid such that data[a:mid] < data[mid] == pivot <= data[mid+1:b],
// and whether no element had to move (the range was already partitioned).
func partitionOrdered[T cmp.Ordered](data []T, a, b int) (int, bool) {
	l, noSwaps := partitionAroundOrdered(data, a+1, b, data[a])
	mid := l - 1
	data[a], data[mid] = data[mid], data[a]
	return mid, noSwaps
}

// partitionAroundOrdered partitions data[l:r] into elements less than
// pivot, then the others, and returns where the others start and whether no
// element had to move.
func partitionAroundOrdered[T cmp.Ordered](data []T, l, r int, pivot T) (int, bool) {
	// Invariant: data[...:l] < pivot <= data[r:...]; data[l:r] is unseen.
	// The first scan-and-swap is written out before the blocks and again
	// after them, rather than folded into one loop with a flag as in
	// partitionAroundCmpFunc: the folded loop measured 1.3 % slower
	// (BenchmarkSort/n=1e+06/QuickSort, 9 runs each, 2-core AMD EPYC).
	for l < r && cmp.Less(data[l], pivot) {
		l++
	}
	for l < r && !cmp.Less(data[r-1], pivot) {
		r--
	}
	if l >= r {
		return l, true
	}
	r--
	data[l], data[r] = data[r], data[l]
	l++
	l, r = blockPartitionOrdered(data, l, r, pivot)
	// Finish the fewer than 2*pdqBlock elements the blocks left.
	for {
		for l < r && cmp.Less(data[l], pivot) {
			l++
		}
		for l < r && !cmp.Less(data[r-1], pivot) {
			r--
		}
		if l >= r {
			return l, false
		}
		r--
		data[l], data[r] = data[r], data[l]
		l++
	}
}

// blockPartitionOrdered is the inner loop of partitionOrdered, after Edelkamp
// and Weiß, "BlockQuicksort" (2016): it classifies a block of pdqBlock
// elements at each end of data[l:r] without branching on the comparisons,
// recording the offsets of misplaced elements, then swaps misplaced pairs.
// On random input a branching partition mispredicts about every other
// comparison; this one mispredicts once per block, which makes the serial
// kernel about 1.8 times as fast as slices.Sort on random int64. It
// returns the bounds of the unseen range that is left, shorter than
// 2*pdqBlock, keeping the invariant data[...:l] < pivot <= data[r:...].
func blockPartitionOrdered[T cmp.Ordered](data []T, l, r int, pivot T) (int, int) {
	var offL, offR [pdqBlock]uint8
	var startL, numL, startR, numR int
	for r-l >= 2*pdqBlock {
		if numL == 0 {
			startL = 0
			blk := data[l : l+pdqBlock : l+pdqBlock]
			for i := 0; i < pdqBlock; i++ {
				offL[numL&(pdqBlock-1)] = uint8(i)
				numL += b2i(!cmp.Less(blk[i], pivot))
			}
		}
		if numR == 0 {
			startR = 0
			blk := data[r-pdqBlock : r : r]
			for i := 0; i < pdqBlock; i++ {
				offR[numR&(pdqBlock-1)] = uint8(i)
				numR += b2i(cmp.Less(blk[pdqBlock-1-i], pivot))
			}
		}
		num := min(numL, numR)
		for k := 0; k < num; k++ {
			i := l + int(offL[(startL+k)&(pdqBlock-1)])
			j := r - 1 - int(offR[(startR+k)&(pdqBlock-1)])
			data[i], data[j] = data[j], data[i]
		}
		numL -= num
		numR -= num
		startL += num
		startR += num
		if numL == 0 {
			l += pdqBlock
		}
		if numR == 0 {
			r -= pdqBlock
		}
	}
	return l, r
}

// partitionEqualOrdered partitions data[a:b] around the pivot data[a],
// putting elements equal to it (none is smaller) on the left: it returns mid
// such that data[a:mid+1] == pivot < data[mid+1:b].
func partitionEqualOrdered[T cmp.Ordered](data []T, a, b int) int {
	pivot := data[a]
	l, r := a+1, b
	for {
		for l < r && !cmp.Less(pivot, data[l]) {
			l++
		}
		for l < r && cmp.Less(pivot, data[r-1]) {
			r--
		}
		if l >= r {
			break
		}
		r--
		data[l], data[r] = data[r], data[l]
		l++
	}
	mid := l - 1
	data[a], data[mid] = data[mid], data[a]
	return mid
}

// partialInsertionSortOrdered insertion sorts s but gives up, returning
// false, once it has moved elements more than pdqPartialInsertionLimit
// places in total. It returns true if s is sorted.
func partialInsertionSortOrdered[T cmp.Ordered](s []T) bool {
	moved := 0
	for i := 1; i < len(s); i++ {
		if !cmp.Less(s[i], s[i-1]) {
			continue
		}
		v := s[i]
		j := i
		for j > 0 && cmp.Less(v, s[j-1]) {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
		moved += i - j
		if moved > pdqPartialInsertionLimit {
			return false
		}
	}
	return true
}

func pdqCmpFunc[T any](data []T, a, b, limit int, cmp func(a, b T) int) {
	for b-a > pdqInsertionCutoff {
		mid, out := pdqStepCmpFunc(data, a, b, &limit, cmp, nil, nil)
		switch out {
		case pdqDone:
			return
		case pdqEqual:
			a = mid + 1
			continue
		}
		if mid-a < b-mid {
			pdqCmpFunc(data, a, mid, limit, cmp)
			a = mid + 1
		} else {
			pdqCmpFunc(data, mid+1, b, limit, cmp)
			b = mid
		}
	}
	insertionSortCmpFunc(data[a:b], cmp)
}

func pdqStepCmpFunc[T any](data []T, a, b int, limit *int, cmp func(a, b T) int, par parallelPartitioner, w *forkjoin.Worker) (int, pdqOutcome) {
	n := b - a
	if nonIncreasingCmpFunc(data[a:b], cmp) {
		if cmp(data[b-1], data[a]) < 0 {
			slices.Reverse(data[a:b])
		}
		return a, pdqDone
	}
	choosePivotCmpFunc(data, a, b, cmp)
	if a > 0 && cmp(data[a-1], data[a]) >= 0 {
		return partitionEqualCmpFunc(data, a, b, cmp), pdqEqual
	}
	var mid int
	var noSwaps, parallel bool
	if par != nil {
		mid, noSwaps, parallel = par.tryParallelPartition(w, a, b)
	}
	if !parallel {
		mid, noSwaps = partitionCmpFunc(data, a, b, cmp)
	}
	left, right := mid-a, b-mid-1
	if left < n/8 || right < n/8 {
		*limit--
		if *limit <= 0 {
			heapSortCmpFunc(data[a:b], cmp)
			return mid, pdqDone
		}
		breakPatterns(data[a:mid])
		breakPatterns(data[mid+1 : b])
	} else if noSwaps &&
		partialInsertionSortCmpFunc(data[a:mid], cmp) &&
		partialInsertionSortCmpFunc(data[mid+1:b], cmp) {
		return mid, pdqDone
	}
	return mid, pdqSplit
}

func choosePivotCmpFunc[T any](data []T, a, b int, cmp func(a, b T) int) {
	h := a + (b-a)/2
	if b-a > pdqNintherThreshold {
		sort3CmpFunc(data, a, h, b-1, cmp)
		sort3CmpFunc(data, a+1, h-1, b-2, cmp)
		sort3CmpFunc(data, a+2, h+1, b-3, cmp)
		sort3CmpFunc(data, h-1, h, h+1, cmp)
		data[a], data[h] = data[h], data[a]
	} else {
		sort3CmpFunc(data, h, a, b-1, cmp)
	}
}

func sort3CmpFunc[T any](data []T, i, j, k int, cmp func(a, b T) int) {
	if cmp(data[j], data[i]) < 0 {
		data[i], data[j] = data[j], data[i]
	}
	if cmp(data[k], data[j]) < 0 {
		data[j], data[k] = data[k], data[j]
		if cmp(data[j], data[i]) < 0 {
			data[i], data[j] = data[j], data[i]
		}
	}
}

func partitionCmpFunc[T any](data []T, a, b int, cmp func(a, b T) int) (int, bool) {
	l, noSwaps := partitionAroundCmpFunc(data, a+1, b, data[a], cmp)
	mid := l - 1
	data[a], data[mid] = data[mid], data[a]
	return mid, noSwaps
}

// partitionAroundCmpFunc is partitionAroundOrdered without the branch-free
// blocks: behind an indirect call per comparison they cost more than the
// mispredictions they save (measured: 12% slower on 2^20 random int64).
func partitionAroundCmpFunc[T any](data []T, l, r int, pivot T, cmp func(a, b T) int) (int, bool) {
	noSwaps := true
	for {
		for l < r && cmp(data[l], pivot) < 0 {
			l++
		}
		for l < r && cmp(data[r-1], pivot) >= 0 {
			r--
		}
		if l >= r {
			return l, noSwaps
		}
		noSwaps = false
		r--
		data[l], data[r] = data[r], data[l]
		l++
	}
}

func partitionEqualCmpFunc[T any](data []T, a, b int, cmp func(a, b T) int) int {
	pivot := data[a]
	l, r := a+1, b
	for {
		for l < r && cmp(pivot, data[l]) >= 0 {
			l++
		}
		for l < r && cmp(pivot, data[r-1]) < 0 {
			r--
		}
		if l >= r {
			break
		}
		r--
		data[l], data[r] = data[r], data[l]
		l++
	}
	mid := l - 1
	data[a], data[mid] = data[mid], data[a]
	return mid
}

func partialInsertionSortCmpFunc[T any](s []T, cmp func(a, b T) int) bool {
	moved := 0
	for i := 1; i < len(s); i++ {
		if cmp(s[i], s[i-1]) >= 0 {
			continue
		}
		v := s[i]
		j := i
		for j > 0 && cmp(v, s[j-1]) < 0 {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
		moved += i - j
		if moved > pdqPartialInsertionLimit {
			return false
		}
	}
	return true
}

// breakPatterns swaps a few elements of s, a side of a badly unbalanced
// partition, so that the next pivot is drawn from different positions: an
// input built to defeat the ninther (or an unlucky pattern) does not defeat
// it twice in the same way.
func breakPatterns[T any](s []T) {
	n := len(s)
	if n < pdqInsertionCutoff {
		return
	}
	q := n / 4
	s[0], s[q] = s[q], s[0]
	s[n-1], s[n-q] = s[n-q], s[n-1]
	if n > pdqNintherThreshold {
		s[1], s[q+1] = s[q+1], s[1]
		s[2], s[q+2] = s[q+2], s[2]
		s[n-2], s[n-q-1] = s[n-q-1], s[n-2]
		s[n-3], s[n-q-2] = s[n-q-2], s[n-3]
	}
}

// b2i is 1 for true and 0 for false; it compiles to a flag-setting
// instruction, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
