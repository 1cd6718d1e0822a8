package sorts

import "github.com/fjkit/fjkit/forkjoin"

// The parallel partition: its two phases and the bookkeeping between them.

// parallelPartition partitions data[a:b] around data[pivot] as
// partitionOrdered (or, with equal set, partitionEqualOrdered) does, in
// two parallel phases. First each of k chunks is partitioned on its own.
// The chunks' counts of elements on the left give the final boundary; the
// elements on the wrong side of it, the right-side ones left of it and as
// many left-side ones right of it, form at most k runs on each side, and
// the second phase swaps the i-th misplaced element on the left with the
// i-th on the right, in pieces of q.chunk. Both phases take O(n/k) time on k
// workers; the bookkeeping between them takes O(k).
//
// It returns what the serial partition it stands for returns, and whether
// no element moved (every chunk was partitioned already and the chunks'
// halves are in place), which the sides of the partition inherit as a hint
// that the input may be sorted.
func (q *quickSorter[E, K]) parallelPartition(w *forkjoin.Worker, a, b, pivot int, equal bool) (int, bool) {
	q.data[a], q.data[pivot] = q.data[pivot], q.data[a]
	st := newPartitionState(a+1, b, q.data[a], equal, q.chunk, w)
	q.step(w, qsStep[E]{kind: qsChunks, st: st, lo: 0, hi: len(st.chunks)})
	boundary, already := st.misplaced()
	if !already {
		q.step(w, qsStep[E]{kind: qsSwaps, st: st, lo: 0, hi: st.swaps})
	}
	if equal {
		// The pivot, at a, is one of the equal elements on the left.
		return boundary, already
	}
	mid := boundary - 1
	q.data[a], q.data[mid] = q.data[mid], q.data[a]
	return mid, already
}

// splitPartition reports whether a pass over n elements out of a sort of
// total should run in parallel: only while it is longer than threshold and
// holds more than a worker's share of the input. Deeper down, the other
// workers are busy with other subranges, and splitting would only add the
// forks (and for a partition, the second phase's swaps) to the work.
func splitPartition(n, total, threshold int, w *forkjoin.Worker) bool {
	p := w.Pool().Workers()
	return p > 1 && n > threshold && n > total/p
}

// partitionState is the shared state of one parallel partition of
// data[lo:hi]. Phase one's tasks each write their own chunk's entry; phase
// two's only read.
type partitionState[E any] struct {
	pivot       E
	equal       bool // the left side is the elements not greater than pivot, not the ones less
	lo, hi      int
	chunks      []partChunk
	left, right []span // misplaced runs: right-side ones left of the boundary, left-side ones right of it
	swaps       int    // elements in left (and in right)
}

// partChunk is data[lo:hi], which phase one partitions into
// data[lo:split] (the left side) and data[split:hi].
type partChunk struct {
	lo, hi, split int
	already       bool
}

// span is data[lo:hi].
type span struct{ lo, hi int }

// newPartitionState divides data[lo:hi] into chunks of at least chunk
// elements, up to four per worker of w's pool.
func newPartitionState[E any](lo, hi int, pivot E, equal bool, chunk int, w *forkjoin.Worker) *partitionState[E] {
	n := hi - lo
	k := max(1, min(n/chunk, 4*w.Pool().Workers()))
	st := &partitionState[E]{pivot: pivot, equal: equal, lo: lo, hi: hi, chunks: make([]partChunk, k)}
	for i := range st.chunks {
		st.chunks[i] = partChunk{lo: lo + i*n/k, hi: lo + (i+1)*n/k}
	}
	return st
}

// misplaced runs between the phases. It returns the boundary, where the
// right side starts, and whether no element moved or needs to; otherwise it
// records the misplaced runs for phase two.
func (st *partitionState[E]) misplaced() (int, bool) {
	boundary := st.lo
	already := true
	for _, c := range st.chunks {
		boundary += c.split - c.lo
		already = already && c.already
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
	return boundary, already && st.swaps == 0
}

// swapRanks swaps the i-th element of the runs left with the i-th element of
// the runs right, for ranks i in [lo, hi). Both hold at least hi elements.
func swapRanks[E any](data []E, left, right []span, lo, hi int) {
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
