package par

import (
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
)

// searchBlock is how many elements a search piece tests between looks at
// whether another piece has already settled the answer: a look is one
// atomic load, and a block bounds the calls of f wasted after the answer
// is known.
const searchBlock = 256

// IndexFunc returns the lowest index i with f(s[i]) true, or -1 if there is
// none, as slices.IndexFunc does. It starts serially, from index 0, and
// goes parallel only when the rest of s is long enough to pay for it (see
// the package doc), so a hit near the start is found without a trip to the
// pool. Once an index is found, no piece tests elements past it (each
// stops at its next block). f is called concurrently, and may be called on
// elements after the answer.
func IndexFunc[S ~[]E, E any](s S, f func(E) bool) int {
	if f == nil {
		panic("par.IndexFunc: f is nil")
	}
	found := -1
	p := startUntil(len(s), func(lo, hi int) {
		if i := index(s[lo:hi], f); i >= 0 {
			found = lo + i
		}
	}, func() bool { return found >= 0 })
	if !p.parallel() {
		return found
	}
	// best is the lowest index found so far, len(s) while none is. It is
	// made here, not above: the pieces share it, so it is allocated.
	best := new(atomic.Int64)
	best.Store(int64(len(s)))
	p.finish(nil, func(_ *forkjoin.Worker, lo, hi int) {
		for b := lo; b < hi; b += searchBlock {
			if best.Load() <= int64(b) {
				return // a lower index is known: nothing here can win
			}
			if i := index(s[b:min(b+searchBlock, hi)], f); i >= 0 {
				lower(best, int64(b+i))
				return
			}
		}
	})
	if i := best.Load(); i < int64(len(s)) {
		return int(i)
	}
	return -1
}

// lower sets *v to x if x is lower.
func lower(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if x >= old || v.CompareAndSwap(old, x) {
			return
		}
	}
}

// ContainsFunc reports whether f(x) is true for some element x of s. It
// starts serially and goes parallel as IndexFunc does; every piece stops at
// its next block once any piece finds an element, so the first hit in time
// ends the search, wherever it is in s. f is called concurrently.
func ContainsFunc[S ~[]E, E any](s S, f func(E) bool) bool {
	if f == nil {
		panic("par.ContainsFunc: f is nil")
	}
	hit := false
	p := startUntil(len(s), func(lo, hi int) { hit = index(s[lo:hi], f) >= 0 }, func() bool { return hit })
	if !p.parallel() {
		return hit
	}
	found := new(atomic.Bool) // shared by the pieces, hence made here
	p.finish(nil, func(_ *forkjoin.Worker, lo, hi int) {
		for b := lo; b < hi; b += searchBlock {
			if found.Load() {
				return
			}
			if index(s[b:min(b+searchBlock, hi)], f) >= 0 {
				found.Store(true)
				return
			}
		}
	})
	return found.Load()
}

// index returns the lowest i with f(s[i]), or -1. It calls f on four
// elements a round and looks at the answers together, so that no call
// waits on a branch or a reload of the loop counter; f may therefore be
// called on up to three elements past the answer.
func index[E any](s []E, f func(E) bool) int {
	i := 0
	for ; i+4 <= len(s); i += 4 {
		x := (*[4]E)(s[i : i+4]) // one bounds check a round
		if b0, b1, b2, b3 := f(x[0]), f(x[1]), f(x[2]), f(x[3]); b0 || b1 || b2 || b3 {
			switch {
			case b0:
				return i
			case b1:
				return i + 1
			case b2:
				return i + 2
			}
			return i + 3
		}
	}
	for ; i < len(s); i++ {
		if f(s[i]) {
			return i
		}
	}
	return -1
}
