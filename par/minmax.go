package par

import (
	"cmp"
	"slices"
)

// Min returns the minimal value in x, as slices.Min does: it panics if x
// is empty, and for floats a NaN in x makes the result a NaN. Pieces of x
// are searched in parallel.
func Min[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("par.Min: empty list")
	}
	return extreme(x, slices.Min[[]E])
}

// Max returns the maximal value in x, as slices.Max does: it panics if x
// is empty, and for floats a NaN in x makes the result a NaN.
func Max[S ~[]E, E cmp.Ordered](x S) E {
	if len(x) < 1 {
		panic("par.Max: empty list")
	}
	return extreme(x, slices.Max[[]E])
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
	return extreme(x, func(s []E) E { return slices.MinFunc(s, cmp) })
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
	return extreme(x, func(s []E) E { return slices.MaxFunc(s, cmp) })
}

// extreme returns of(x), of being one of the slices functions above: of
// each piece of x, in parallel, then of the pieces' results in index
// order, which keeps "the first one" and NaN propagation as they are.
func extreme[E any](x []E, of func([]E) E) E {
	if serial(len(x)) {
		defer rewrap()
		return of(x)
	}
	ch := chunksOf(len(x))
	part := make([]E, ch.k)
	ch.each(func(c, lo, hi int) { part[c] = of(x[lo:hi]) })
	defer rewrap()
	return of(part)
}
