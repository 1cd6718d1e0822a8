package par

import "github.com/fjkit/fjkit/forkjoin"

// Map returns a new slice holding f(x) for every element x of s, in order
// (of length len(s), never nil). f is called once per element, concurrently.
//
// Map starts serially and goes parallel only when the rest of s is long
// enough to pay for it (see the package doc). For a slice of a type without
// pointers, the result is not cleared before f's results are written into
// it, which would be a pass over memory as long as Map's own.
func Map[S ~[]E, E, R any](s S, f func(E) R) []R {
	if f == nil {
		panic("par.Map: f is nil")
	}
	r := makeNoZero[R](len(s))
	if p := start(len(s), func(lo, hi int) { mapInto(r[lo:hi], s[lo:hi], f) }); p.parallel() {
		if !p.finish(nil, func(_ *forkjoin.Worker, lo, hi int) { mapInto(r[lo:hi], s[lo:hi], f) }) { // made here: see start
			clear(r) // pieces were skipped: never show memory Map did not write
		}
	}
	return r
}

// mapInto writes r[i] = f(s[i]) for every i; len(r) >= len(s). Four calls
// a round, their results stored after the last, let the processor overlap
// them: no call waits on the loop counter the one before it reloads.
func mapInto[E, R any](r []R, s []E, f func(E) R) {
	r = r[:len(s)]
	i := 0
	for ; i+4 <= len(s); i += 4 {
		x := (*[4]E)(s[i : i+4]) // one bounds check a round
		a, b, c, d := f(x[0]), f(x[1]), f(x[2]), f(x[3])
		*(*[4]R)(r[i : i+4]) = [4]R{a, b, c, d}
	}
	for ; i < len(s); i++ {
		r[i] = f(s[i])
	}
}
