package sorts

import "cmp"

// The kernels of the two orders, as the parallel layers see them: one
// interface per sort, and for each order a zero-size (or one-field) type
// whose methods call the generated kernels of that order. The parallel
// layers are generic over these types, so they are written once; the calls
// through the type parameter happen once per range, chunk or merge, never
// per element, and cost nothing measurable.

// qsKernel is what the two quicksorts differ in: the serial pieces, with the
// order built in (cmp.Less for QuickSort, the caller's cmp for
// QuickSortFunc).
type qsKernel[E any] interface {
	serial(data []E, r pdqRange)                                         // pdqOrdered
	choosePivot(data []E, r *pdqRange) (int, sortedHint, bool)           // choosePivotOrdered
	partialInsertionSort(data []E, a, b int) bool                        // partialInsertionSortOrdered
	atLowerBound(data []E, a, pivot int) bool                            // data[pivot] is no greater than data[a-1]
	partition(data []E, a, b, pivot int) (int, bool)                     // partitionOrdered
	partitionEqual(data []E, a, b, pivot int) int                        // partitionEqualOrdered
	partitionAround(data []E, l, r int, pivot E, equal bool) (int, bool) // partitionAroundOrdered, or partitionEqualAroundOrdered
	ascending(s []E) bool                                                // runOfOrdered's asc
}

type orderedQS[E cmp.Ordered] struct{}

func (orderedQS[E]) serial(data []E, r pdqRange) { pdqOrdered(data, r) }
func (orderedQS[E]) choosePivot(data []E, r *pdqRange) (int, sortedHint, bool) {
	return choosePivotOrdered(data, r)
}
func (orderedQS[E]) partialInsertionSort(data []E, a, b int) bool {
	return partialInsertionSortOrdered(data, a, b)
}
func (orderedQS[E]) atLowerBound(data []E, a, pivot int) bool {
	return !cmp.Less(data[a-1], data[pivot])
}
func (orderedQS[E]) partition(data []E, a, b, pivot int) (int, bool) {
	return partitionOrdered(data, a, b, pivot)
}
func (orderedQS[E]) partitionEqual(data []E, a, b, pivot int) int {
	return partitionEqualOrdered(data, a, b, pivot)
}
func (orderedQS[E]) partitionAround(data []E, l, r int, pivot E, equal bool) (int, bool) {
	if equal {
		return partitionEqualAroundOrdered(data, l, r, pivot)
	}
	return partitionAroundOrdered(data, l, r, pivot)
}
func (orderedQS[E]) ascending(s []E) bool { asc, _ := runOfOrdered(s); return asc }

type cmpFuncQS[E any] struct{ cmp func(a, b E) int }

func (c cmpFuncQS[E]) serial(data []E, r pdqRange) { pdqCmpFunc(data, r, c.cmp) }
func (c cmpFuncQS[E]) choosePivot(data []E, r *pdqRange) (int, sortedHint, bool) {
	return choosePivotCmpFunc(data, r, c.cmp)
}
func (c cmpFuncQS[E]) partialInsertionSort(data []E, a, b int) bool {
	return partialInsertionSortCmpFunc(data, a, b, c.cmp)
}
func (c cmpFuncQS[E]) atLowerBound(data []E, a, pivot int) bool {
	return c.cmp(data[a-1], data[pivot]) >= 0
}
func (c cmpFuncQS[E]) partition(data []E, a, b, pivot int) (int, bool) {
	return partitionCmpFunc(data, a, b, pivot, c.cmp)
}
func (c cmpFuncQS[E]) partitionEqual(data []E, a, b, pivot int) int {
	return partitionEqualCmpFunc(data, a, b, pivot, c.cmp)
}
func (c cmpFuncQS[E]) partitionAround(data []E, l, r int, pivot E, equal bool) (int, bool) {
	if equal {
		return partitionEqualAroundCmpFunc(data, l, r, pivot, c.cmp)
	}
	return partitionAroundCmpFunc(data, l, r, pivot, c.cmp)
}
func (c cmpFuncQS[E]) ascending(s []E) bool { asc, _ := runOfCmpFunc(s, c.cmp); return asc }

// msKernel is what the two merge sorts differ in: the serial pieces, with
// the order built in (cmp.Less for MergeSort, the caller's cmp for
// MergeSortFunc).
type msKernel[E any] interface {
	insertionSort(s []E)               // insertionSortOrdered
	runOf(s []E) (asc, desc bool)      // runOfOrdered
	sortSerial(s, buf []E, toBuf bool) // stableSortOrdered
	mergeSerial(dst, a, b []E)         // mergeOrdered
	coRank(k int, a, b []E) int        // coRankOrdered
}

type orderedMS[E cmp.Ordered] struct{}

func (orderedMS[E]) insertionSort(s []E)               { insertionSortOrdered(s) }
func (orderedMS[E]) runOf(s []E) (bool, bool)          { return runOfOrdered(s) }
func (orderedMS[E]) sortSerial(s, buf []E, toBuf bool) { stableSortOrdered(s, buf, toBuf) }
func (orderedMS[E]) mergeSerial(dst, a, b []E)         { mergeOrdered(dst, a, b) }
func (orderedMS[E]) coRank(k int, a, b []E) int        { return coRankOrdered(k, a, b) }

type cmpFuncMS[E any] struct{ cmp func(a, b E) int }

func (c cmpFuncMS[E]) insertionSort(s []E)      { insertionSortCmpFunc(s, c.cmp) }
func (c cmpFuncMS[E]) runOf(s []E) (bool, bool) { return runOfCmpFunc(s, c.cmp) }
func (c cmpFuncMS[E]) sortSerial(s, buf []E, toBuf bool) {
	stableSortCmpFunc(s, buf, toBuf, c.cmp)
}
func (c cmpFuncMS[E]) mergeSerial(dst, a, b []E)  { mergeCmpFunc(dst, a, b, c.cmp) }
func (c cmpFuncMS[E]) coRank(k int, a, b []E) int { return coRankCmpFunc(k, a, b, c.cmp) }
