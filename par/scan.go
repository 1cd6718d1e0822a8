package par

import "github.com/fjkit/fjkit/forkjoin"

// Scan returns the inclusive prefix fold of s under op, as a new slice r of
// len(s) (never nil): r[0] = s[0], r[i] = op(r[i-1], s[i]). op must be
// associative; it is called concurrently. A parallel scan groups the
// operations differently from the serial loop, so for an op that is not
// associative the results differ: floating-point addition is not, and a
// float prefix sum may differ from the serial one in its last bits.
//
// Scan starts serially and goes parallel only when the rest of s is long
// enough to pay for it (see the package doc). Its parallel part cuts the
// rest of s into P+1 pieces for P workers. In the first phase, one task
// scans piece 0 into r while P-1 others each fold one of pieces 1 to P-1 to
// its total; the last piece waits. The totals then give each piece its
// carry, and in the second phase P tasks scan pieces 1 to P from their
// carries. Each phase runs P pieces on P workers, so the scan takes about
// 2n/(P+1) calls' time instead of n (1.5 times as fast on two workers), and
// reads s about (2P)/(P+1) times and writes r once. For a slice of a type
// without pointers, r is not cleared before it is written.
func Scan[S ~[]E, E any](s S, op func(E, E) E) S {
	if op == nil {
		panic("par.Scan: op is nil")
	}
	r := S(makeNoZero[E](len(s)))
	p := start(len(s), func(lo, hi int) {
		carry := s[0]
		if lo == 0 {
			r[0] = carry
			lo++
		} else {
			carry = r[lo-1]
		}
		scanFrom(r[lo:hi], s[lo:hi], carry, op)
	})
	if p.parallel() && p.done == 0 { // a call from near the top of a task
		r[0], p.done = s[0], 1 // the rest's carry
	}
	if p.parallel() && !scanRest(r, s, p.done, op) {
		clear(r) // pieces were skipped: never show memory Scan did not write
	}
	return r
}

// scanRest scans s[done:] into r[done:] from the carry r[done-1], done > 0,
// in parallel, and reports whether every piece ran.
func scanRest[E any](r, s []E, done int, op func(E, E) E) (complete bool) {
	run(func(w *forkjoin.Worker) {
		k := min(w.Pool().Workers()+1, len(s)-done)
		if strandCalls() {
			k = min(4, len(s)-done) // parallel folds at every size
		}
		if k < 2 { // one element left
			scanFrom(r[done:], s[done:], r[done-1], op)
			complete = true
			return
		}
		bounds := func(c int) (lo, hi int) { // piece c of k; c*m cannot overflow
			m := len(s) - done
			return done + c*m/k, done + (c+1)*m/k
		}
		// carry[c] is the fold of everything before piece c. Phase one
		// leaves the fold of piece c-1 in carry[c] for c from 2; the
		// loop between the phases turns the folds into carries.
		carry := make([]E, k)
		forkjoin.ForRange(w, 0, k-1, 1, func(_ *forkjoin.Worker, a, b int) {
			for c := a; c < b; c++ {
				lo, hi := bounds(c)
				if c == 0 {
					scanFrom(r[lo:hi], s[lo:hi], r[lo-1], op)
					continue
				}
				carry[c+1] = foldOp(s[lo], s[lo+1:hi], op)
			}
		})
		_, hi0 := bounds(0)
		carry[1] = r[hi0-1]
		for c := 2; c < k; c++ {
			carry[c] = op(carry[c-1], carry[c])
		}
		forkjoin.ForRange(w, 1, k, 1, func(_ *forkjoin.Worker, a, b int) {
			for c := a; c < b; c++ {
				lo, hi := bounds(c)
				scanFrom(r[lo:hi], s[lo:hi], carry[c], op)
			}
		})
		complete = !w.Canceled()
	})
	return complete
}

// scanFrom writes r[i] = op(...op(carry, s[0])..., s[i]); len(r) >= len(s).
// It runs four elements a round, so that the loop counter is reloaded
// once per four calls.
func scanFrom[E any](r, s []E, carry E, op func(E, E) E) {
	r = r[:len(s)]
	acc := carry
	i := 0
	for ; i+4 <= len(s); i += 4 {
		x, y := (*[4]E)(s[i:i+4]), (*[4]E)(r[i:i+4]) // one bounds check each a round
		acc = op(acc, x[0])
		y[0] = acc
		acc = op(acc, x[1])
		y[1] = acc
		acc = op(acc, x[2])
		y[2] = acc
		acc = op(acc, x[3])
		y[3] = acc
	}
	for ; i < len(s); i++ {
		acc = op(acc, s[i])
		r[i] = acc
	}
}

// foldOp returns op(...op(acc, s[0])..., s[len(s)-1]), four elements a
// round as scanFrom runs.
func foldOp[E any](acc E, s []E, op func(E, E) E) E {
	i := 0
	for ; i+4 <= len(s); i += 4 {
		x := (*[4]E)(s[i : i+4])
		acc = op(op(op(op(acc, x[0]), x[1]), x[2]), x[3])
	}
	for ; i < len(s); i++ {
		acc = op(acc, s[i])
	}
	return acc
}
