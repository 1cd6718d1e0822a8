package par

import "github.com/fjkit/fjkit/forkjoin"

// Scan returns the inclusive prefix fold of s under op, as a new slice r of
// len(s) (never nil): r[0] = s[0], r[i] = op(r[i-1], s[i]). op must be
// associative; it is called concurrently.
//
// A parallel scan calls op more often than a serial one; this one keeps the
// excess small. s is cut into P+1 pieces for P workers. In the first phase,
// one task scans piece 0 into r while P-1 others each fold one of pieces 1 to
// P-1 to its total; the last piece waits. The totals then give each piece its
// carry, and in the second phase P tasks scan pieces 1 to P from their
// carries. Each phase runs P pieces on P workers, so the scan takes about
// 2n/(P+1) calls' time instead of n: 1.5 times as fast on two workers, with
// (2P-1)n/(P+1) calls in all.
func Scan[S ~[]E, E any](s S, op func(E, E) E) S {
	if op == nil {
		panic("par.Scan: op is nil")
	}
	entered()
	r := make(S, len(s))
	if len(s) == 0 {
		return r
	}
	if serial(len(s)) {
		defer rewrap()
		r[0] = s[0]
		scanFrom(r[1:], s[1:], s[0], op)
		return r
	}
	ch := chunking{n: len(s), k: workers() + 1}
	// carry[c] is the fold of everything before piece c. Phase one leaves
	// the fold of piece c-1 in carry[c] for c from 2; the loop between the
	// phases turns the folds into carries.
	carry := make([]E, ch.k)
	run(func(w *forkjoin.Worker) {
		// Phase one: piece 0 is scanned, pieces 1 to k-2 folded.
		forkjoin.ForRange(w, 0, ch.k-1, 1, func(_ *forkjoin.Worker, a, b int) {
			for c := a; c < b; c++ {
				lo, hi := ch.bounds(c)
				if c == 0 {
					r[0] = s[0]
					scanFrom(r[1:hi], s[1:hi], s[0], op)
					continue
				}
				acc := s[lo]
				for _, x := range s[lo+1 : hi] {
					acc = op(acc, x)
				}
				carry[c+1] = acc
			}
		})
		_, hi0 := ch.bounds(0)
		carry[1] = r[hi0-1]
		for c := 2; c < ch.k; c++ {
			carry[c] = op(carry[c-1], carry[c])
		}
		// Phase two: pieces 1 to k-1 are scanned from their carries.
		forkjoin.ForRange(w, 1, ch.k, 1, func(_ *forkjoin.Worker, a, b int) {
			for c := a; c < b; c++ {
				lo, hi := ch.bounds(c)
				scanFrom(r[lo:hi], s[lo:hi], carry[c], op)
			}
		})
	})
	return r
}

// scanFrom writes r[i] = op(...op(carry, s[0])..., s[i]).
func scanFrom[E any](r, s []E, carry E, op func(E, E) E) {
	r = r[:len(s)]
	acc := carry
	for i, x := range s {
		acc = op(acc, x)
		r[i] = acc
	}
}
