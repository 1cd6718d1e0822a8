package par

// Reduce returns the fold combine(...combine(combine(zero, mapf(s[0])),
// mapf(s[1]))..., mapf(s[n-1])), computed in parallel: each piece of s is
// folded from zero, and the pieces' results are combined in index order.
// combine must therefore be associative and zero its identity; it need not
// be commutative (string concatenation is fine). It returns zero for an empty
// s. mapf is called once per element; both are called concurrently.
func Reduce[S ~[]E, E, R any](s S, zero R, mapf func(E) R, combine func(R, R) R) R {
	if mapf == nil || combine == nil {
		panic("par.Reduce: mapf and combine must not be nil")
	}
	if serial(len(s)) {
		defer rewrap()
		return fold(s, zero, mapf, combine)
	}
	ch := chunksOf(len(s))
	part := make([]R, ch.k)
	ch.each(func(c, lo, hi int) { part[c] = fold(s[lo:hi], zero, mapf, combine) })
	acc := part[0]
	for _, x := range part[1:] {
		acc = combine(acc, x)
	}
	return acc
}

func fold[E, R any](s []E, zero R, mapf func(E) R, combine func(R, R) R) R {
	acc := zero
	for _, x := range s {
		acc = combine(acc, mapf(x))
	}
	return acc
}
