package sorts

import "math/bits"

//go:generate go run gen_sort_variants.go

// This file holds what the two orders of the serial kernels share: the
// tuning constants, the description of a quicksort subproblem, and the steps
// that compare nothing. The kernels themselves are generated from one
// template into zsortordered.go and zsortfunc.go (see gen_sort_variants.go).

// Tuning constants of the pattern-defeating quicksort (Orson Peters,
// "Pattern-defeating Quicksort", 2021). The serial ones are the standard
// library's (slices.SortFunc), whose comparison counts the CmpFunc sorts
// are held to (TestQuickSortFuncComparisonsBentleyMcIlroy).
const (
	// pdqInsertionCutoff is the length at or below which a subrange is
	// insertion sorted.
	pdqInsertionCutoff = 12

	// pdqInsertionCutoffCheap replaces it in the kernels whose comparison
	// is cheap (the Ordered ones): there an insertion sort's moves, not
	// its comparisons, are the cost, and 24 sorts random int64s faster
	// than 12 or 32 (docs/benchmarks.md, "Measurements behind the code"); in the CmpFunc
	// order 12 keeps the comparisons at slices.SortFunc's.
	pdqInsertionCutoffCheap = 24

	// pdqNintherThreshold is the length at or above which the pivot is
	// Tukey's ninther instead of the median of three.
	pdqNintherThreshold = 50

	// pdqMaxSwaps is how many of the ninther's comparisons find a pair
	// out of order when its samples are strictly descending.
	pdqMaxSwaps = 4 * 3

	// pdqPartialSteps is how many adjacent pairs out of order a partial
	// insertion sort fixes before it gives up on a range that looked
	// sorted; pdqShortestShifting is the length below which it fixes none.
	pdqPartialSteps     = 5
	pdqShortestShifting = 50

	// pdqBlock is the block length of the branchless partition; offsets
	// within a block are stored in a byte.
	pdqBlock = 64
)

// pdqRange is a quicksort subproblem, data[a:b], with what the partition
// that made it learnt: limit more badly unbalanced partitions are allowed
// before the range is heapsorted, balanced says the partition that made it
// was not one of those, and partitioned that it moved no element, which
// suggests the input was sorted.
type pdqRange struct {
	a, b, limit           int
	balanced, partitioned bool
}

// wholeRange is the subproblem of sorting data[:n].
func wholeRange(n int) pdqRange {
	return pdqRange{a: 0, b: n, limit: bits.Len(uint(n)), balanced: true, partitioned: true}
}

// mayBeSorted reports whether it is worth trying to finish r with one pass:
// only after a balanced partition that moved nothing.
func (r pdqRange) mayBeSorted() bool { return r.balanced && r.partitioned }

// split returns the two sides of r once the pivot is final at mid, with
// already saying whether the partition moved nothing, and which of them
// is the shorter. As in the standard library's pdqsort, only the longer
// side inherits what the partition learnt; the shorter starts afresh (it
// may be sorted even when the partition was unbalanced or moved elements:
// the back of an organ pipe, say). Matching it keeps the comparison counts
// at the standard library's on every input
// (TestQuickSortFuncComparisonsBentleyMcIlroy).
func (r pdqRange) split(mid int, already bool) (left, right pdqRange, leftShorter bool) {
	leftLen, rightLen := mid-r.a, r.b-mid
	leftShorter = leftLen < rightLen
	fresh := pdqRange{limit: r.limit, balanced: true, partitioned: true}
	inherit := pdqRange{limit: r.limit, balanced: min(leftLen, rightLen) >= (r.b-r.a)/8, partitioned: already}
	left, right = inherit, fresh
	if leftShorter {
		left, right = fresh, inherit
	}
	left.a, left.b = r.a, mid
	right.a, right.b = mid+1, r.b
	return left, right, leftShorter
}

// sortedHint is what a pivot's samples suggest about the order of a range.
type sortedHint int

const (
	unknownHint sortedHint = iota
	increasingHint
	decreasingHint
)

// hintOf reads the hint from the number of sampled pairs the pivot choice
// found out of order: none, or every one.
func hintOf(swaps, n int) sortedHint {
	switch {
	case swaps == 0:
		return increasingHint
	case swaps == pdqMaxSwaps && n >= pdqNintherThreshold:
		return decreasingHint
	}
	return unknownHint
}

// reverseRange reverses data[a:b], which its pivot samples found
// descending, and returns where the pivot at index pivot went.
func reverseRange[E any](data []E, a, b, pivot int) int {
	reverse(data[a:b])
	return (b - 1) - (pivot - a)
}

// reverse reverses s.
func reverse[E any](s []E) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// reverseRanks swaps data[a+i] with data[b-1-i] for i in [lo, hi): the part
// of reversing data[a:b] one task does.
func reverseRanks[E any](data []E, a, b, lo, hi int) {
	for i := lo; i < hi; i++ {
		data[a+i], data[b-1-i] = data[b-1-i], data[a+i]
	}
}

// breakPatterns swaps three elements of s, the side of a badly unbalanced
// partition, with pseudo-randomly chosen others, so that the next pivot is
// drawn from different values: an input built to defeat the ninther (or an
// unlucky pattern) does not defeat it twice in the same way.
func breakPatterns[E any](s []E) {
	n := len(s)
	if n < 8 {
		return
	}
	random := xorshift(n)
	modulus := uint(1) << bits.Len(uint(n))
	idx := n/4*2 - 1
	for i := range 3 {
		other := int(uint(random.next()) & (modulus - 1))
		if other >= n {
			other -= n
		}
		s[idx-1+i], s[other] = s[other], s[idx-1+i]
	}
}

// xorshift is Marsaglia's xorshift generator, seeded with the length of the
// range so that a sort is deterministic.
type xorshift uint64

func (r *xorshift) next() uint64 {
	*r ^= *r << 13
	*r ^= *r >> 7
	*r ^= *r << 17
	return uint64(*r)
}
