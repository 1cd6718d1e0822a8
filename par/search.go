package par

import (
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
)

// searchBlock is how many elements a search task tests between looks at
// whether another task has already settled the answer: a look is one atomic
// load, and a block bounds the calls of f wasted after the answer is known.
const searchBlock = 256

// IndexFunc returns the lowest index i with f(s[i]) true, or -1 if there is
// none, as slices.IndexFunc does. Pieces of s are searched in parallel;
// once an index is found, no task tests elements past it (each stops at its
// next block), so a hit early in s ends the search early. f is called
// concurrently, and may be called on elements after the answer.
func IndexFunc[S ~[]E, E any](s S, f func(E) bool) int {
	if f == nil {
		panic("par.IndexFunc: f is nil")
	}
	if serial(len(s)) {
		defer rewrap()
		for i, x := range s {
			if f(x) {
				return i
			}
		}
		return -1
	}
	// best is the lowest index found so far, len(s) while none is.
	var best atomic.Int64
	best.Store(int64(len(s)))
	run(func(w *forkjoin.Worker) {
		forkjoin.ForRange(w, 0, len(s), 0, func(_ *forkjoin.Worker, lo, hi int) {
			for b := lo; b < hi; b += searchBlock {
				if best.Load() <= int64(b) {
					return // a lower index is known: nothing here can win
				}
				for i, x := range s[b:min(b+searchBlock, hi)] {
					if f(x) {
						lower(&best, int64(b+i))
						return
					}
				}
			}
		})
	})
	if i := int(best.Load()); i < len(s) {
		return i
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

// ContainsFunc reports whether f(x) is true for some element x of s. Pieces
// of s are searched in parallel, and every task stops at its next block once
// any task finds an element: the first hit in time ends the search, wherever
// it is in s. f is called concurrently.
func ContainsFunc[S ~[]E, E any](s S, f func(E) bool) bool {
	if f == nil {
		panic("par.ContainsFunc: f is nil")
	}
	if serial(len(s)) {
		defer rewrap()
		for _, x := range s {
			if f(x) {
				return true
			}
		}
		return false
	}
	var found atomic.Bool
	run(func(w *forkjoin.Worker) {
		forkjoin.ForRange(w, 0, len(s), 0, func(_ *forkjoin.Worker, lo, hi int) {
			for b := lo; b < hi; b += searchBlock {
				if found.Load() {
					return
				}
				for _, x := range s[b:min(b+searchBlock, hi)] {
					if f(x) {
						found.Store(true)
						return
					}
				}
			}
		})
	})
	return found.Load()
}
