package par

import (
	"cmp"
	"slices"
)

// Min returns the minimal value in x, as slices.Min does: it panics if x
// is empty, and for floats a NaN in x makes the result a NaN. Pieces of x
// are searched in parallel, as ReduceRange folds them.
func Min[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("par.Min: empty list")
	}
	return extreme(x, slices.Min[[]E], func(a, b E) E { return min(a, b) })
}

// Max returns the maximal value in x, as slices.Max does: it panics if x
// is empty, and for floats a NaN in x makes the result a NaN.
func Max[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("par.Max: empty list")
	}
	return extreme(x, slices.Max[[]E], func(a, b E) E { return max(a, b) })
}

// MinFunc returns the minimal value in x by cmp, as slices.MinFunc does: it
// panics if x is empty, and of several minimal elements returns the first.
// cmp is called concurrently.
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
// cmp is called concurrently.
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
// above: of each piece of x, in parallel, and the pieces' results combined
// in index order by pick, which keeps "the first one" and NaN propagation
// as the slices functions have them.
func extreme[E any](x []E, of func([]E) E, pick func(a, b E) E) E {
	var zero E
	return ReduceRange(len(x), zero, func(lo, hi int) E { return of(x[lo:hi]) }, pick)
}
