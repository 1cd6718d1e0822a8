package sorts

import "cmp"

// This file holds the serial building blocks the parallel sorts share:
// insertion sort, heapsort, the serial merge and the co-ranking search that
// lets a merge be split into independent halves.
//
// Every helper exists twice: an "Ordered" form for cmp.Ordered element types,
// where the comparison is cmp.Less and compiles to a single instruction for
// integers, and a "CmpFunc" form that calls the caller's three-way comparison.
// Go cannot abstract over the two without an indirect call per comparison
// (a type parameter's method is called through a dictionary), and the
// comparison is the inner loop of every sort, so the two forms are kept side
// by side and must be changed together.

// insertionSortOrdered sorts s stably. It is quadratic and meant for short
// runs only.
func insertionSortOrdered[T cmp.Ordered](s []T) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for j > 0 && cmp.Less(v, s[j-1]) {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}

func insertionSortCmpFunc[T any](s []T, cmp func(a, b T) int) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for j > 0 && cmp(v, s[j-1]) < 0 {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}

// heapSortOrdered sorts s in O(n log n) worst-case time. Quicksort falls
// back to it when its pivots keep failing, which bounds the worst case.
func heapSortOrdered[T cmp.Ordered](s []T) {
	n := len(s)
	for i := n/2 - 1; i >= 0; i-- {
		siftDownOrdered(s, i, n)
	}
	for end := n - 1; end > 0; end-- {
		s[0], s[end] = s[end], s[0]
		siftDownOrdered(s, 0, end)
	}
}

// siftDownOrdered restores the max-heap property of s[:n] below root.
func siftDownOrdered[T cmp.Ordered](s []T, root, n int) {
	for {
		child := 2*root + 1
		if child >= n {
			return
		}
		if child+1 < n && cmp.Less(s[child], s[child+1]) {
			child++
		}
		if !cmp.Less(s[root], s[child]) {
			return
		}
		s[root], s[child] = s[child], s[root]
		root = child
	}
}

func heapSortCmpFunc[T any](s []T, cmp func(a, b T) int) {
	n := len(s)
	for i := n/2 - 1; i >= 0; i-- {
		siftDownCmpFunc(s, i, n, cmp)
	}
	for end := n - 1; end > 0; end-- {
		s[0], s[end] = s[end], s[0]
		siftDownCmpFunc(s, 0, end, cmp)
	}
}

func siftDownCmpFunc[T any](s []T, root, n int, cmp func(a, b T) int) {
	for {
		child := 2*root + 1
		if child >= n {
			return
		}
		if child+1 < n && cmp(s[child], s[child+1]) < 0 {
			child++
		}
		if cmp(s[root], s[child]) >= 0 {
			return
		}
		s[root], s[child] = s[child], s[root]
		root = child
	}
}

// mergeOrdered merges the sorted runs a and b into dst, which must have
// length len(a)+len(b) and must not overlap a or b. On equal elements a's go
// first, so merging a left run a with a right run b is stable.
func mergeOrdered[T cmp.Ordered](dst, a, b []T) {
	i, j, k := 0, 0, 0
	if len(a) > 0 && len(b) > 0 {
		// Runs that do not interleave need no comparisons per element.
		// This is the common case for presorted input.
		if !cmp.Less(b[0], a[len(a)-1]) {
			k = copy(dst, a)
			copy(dst[k:], b)
			return
		}
		for {
			// Compute the next element without a data-dependent
			// branch: which run it comes from is a coin flip on
			// random input, and a mispredicted branch costs more
			// than the conditional moves below.
			x, y := a[i], b[j]
			takeB := cmp.Less(y, x)
			v, di := x, 1
			if takeB {
				v, di = y, 0
			}
			dst[k] = v
			k++
			i += di
			j += 1 - di
			if i == len(a) || j == len(b) {
				break
			}
		}
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

func mergeCmpFunc[T any](dst, a, b []T, cmp func(a, b T) int) {
	i, j, k := 0, 0, 0
	if len(a) > 0 && len(b) > 0 {
		if cmp(b[0], a[len(a)-1]) >= 0 {
			k = copy(dst, a)
			copy(dst[k:], b)
			return
		}
		for {
			x, y := a[i], b[j]
			if cmp(y, x) < 0 {
				dst[k] = y
				j++
			} else {
				dst[k] = x
				i++
			}
			k++
			if i == len(a) || j == len(b) {
				break
			}
		}
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// coRankOrdered returns how many of the first k elements of the stable
// merge of the sorted runs a (left) and b (right) come from a; the other
// k-i come from b. Splitting a at i and b at k-i therefore cuts the merge
// into two merges that write disjoint parts of the output (dst[:k] and
// dst[k:]) and can run in parallel. It takes O(log min(len(a), len(b), k))
// comparisons.
//
// i is the smallest index in the feasible range such that a[i] belongs
// after b[k-i-1], that is b[k-i-1] < a[i] (an a element equal to a b element
// goes first, which is what makes the merge stable).
func coRankOrdered[T cmp.Ordered](k int, a, b []T) int {
	lo, hi := max(0, k-len(b)), min(k, len(a))
	for lo < hi {
		i := int(uint(lo+hi) >> 1)
		j := k - i
		// lo <= i < hi <= len(a) and j = k-i > k-hi >= 0, so both
		// indexes are in range.
		if !cmp.Less(b[j-1], a[i]) {
			lo = i + 1 // a[i] <= b[j-1]: a[i] is among the first k
		} else {
			hi = i
		}
	}
	return lo
}

func coRankCmpFunc[T any](k int, a, b []T, cmp func(a, b T) int) int {
	lo, hi := max(0, k-len(b)), min(k, len(a))
	for lo < hi {
		i := int(uint(lo+hi) >> 1)
		j := k - i
		if cmp(b[j-1], a[i]) >= 0 {
			lo = i + 1
		} else {
			hi = i
		}
	}
	return lo
}
