package par

import (
	"cmp"
	"slices"
)

// Min returns the minimal value in x, as slices.Min does: it panics if x
// is empty, and for floats a NaN in x makes the result a NaN. Pieces of x
// are searched in parallel; min is exact, so the result is slices.Min's,
// whatever the pieces.
func Min[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("par.Min: empty list")
	}
	return exact(x, slices.Min[[]E], func(a, b E) E { return min(a, b) })
}

// Max returns the maximal value in x, as slices.Max does: it panics if x
// is empty, and for floats a NaN in x makes the result a NaN.
func Max[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("par.Max: empty list")
	}
	return exact(x, slices.Max[[]E], func(a, b E) E { return max(a, b) })
}

// MinFunc returns the minimal value in x by cmp, as slices.MinFunc does: it
// panics if x is empty, and of several minimal elements returns the first.
// cmp is called concurrently. The comparisons follow ReduceRange's leaves
// and tree over len(x): a leaf's minimum is slices.MinFunc's, and of two
// results the second is kept only if cmp says it is less. So even a cmp
// that is no strict weak order (one that calls a NaN equal to everything,
// say) gives the same element on every run.
func MinFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if cmp == nil {
		panic("par.MinFunc: cmp is nil")
	}
	if len(x) < 1 {
		panic("par.MinFunc: empty list")
	}
	return extreme(x, func(s []E) E { return slices.MinFunc(s, cmp) }, func(a, b E) E {
		if cmp(b, a) < 0 {
			return b
		}
		return a // the first of equals
	})
}

// MaxFunc returns the maximal value in x by cmp, as slices.MaxFunc does: it
// panics if x is empty, and of several maximal elements returns the first.
// cmp is called concurrently, in the order MinFunc's are.
func MaxFunc[S ~[]E, E any](x S, cmp func(a, b E) int) E {
	if cmp == nil {
		panic("par.MaxFunc: cmp is nil")
	}
	if len(x) < 1 {
		panic("par.MaxFunc: empty list")
	}
	return extreme(x, func(s []E) E { return slices.MaxFunc(s, cmp) }, func(a, b E) E {
		if cmp(b, a) > 0 {
			return b
		}
		return a
	})
}

// extreme returns of(x), x not empty, of being one of the slices functions
// above: of each of ReduceRange's leaves of x, in parallel, and the leaves'
// results combined over its tree by pick, which keeps "the first one" as
// the slices functions have it.
func extreme[E any](x []E, of func([]E) E, pick func(a, b E) E) E {
	var zero E
	return ReduceRange(len(x), zero, func(lo, hi int) E { return of(x[lo:hi]) }, pick)
}

// exact is extreme for a pick that gives the same result for any grouping
// (min and max, NaN and signed zeros included): of runs on the serial
// start's chunks and on pieces of the rest, as long as Reduce's.
func exact[E any](x []E, of func([]E) E, pick func(a, b E) E) E {
	var acc E
	p := startTree(len(x), func(lo, hi int) {
		if lo == 0 {
			acc = of(x[:hi])
		} else {
			acc = pick(acc, of(x[lo:hi]))
		}
	})
	if !p.parallel() {
		return acc
	}
	return reduceRest(p, acc, func(a, b int) E { return of(x[a:b]) }, pick) // made here: see start
}
