package par

// Map returns a new slice holding f(x) for every element x of s, in order
// (of length len(s), never nil). f is called once per element, concurrently.
func Map[S ~[]E, E, R any](s S, f func(E) R) []R {
	if f == nil {
		panic("par.Map: f is nil")
	}
	r := make([]R, len(s))
	if serial(len(s)) {
		defer rewrap()
		mapInto(r, s, f)
		return r
	}
	chunksOf(len(s)).each(func(_, lo, hi int) { mapInto(r[lo:hi], s[lo:hi], f) })
	return r
}

func mapInto[E, R any](r []R, s []E, f func(E) R) {
	r = r[:len(s)]
	for i, x := range s {
		r[i] = f(x)
	}
}
