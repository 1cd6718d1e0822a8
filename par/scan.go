package par

import (
	"math/bits"

	"github.com/fjkit/fjkit/forkjoin"
	exactly "github.com/fjkit/fjkit/internal/exact"
)

// Scan returns the inclusive prefix fold of s under op, as a new slice r of
// len(s) (never nil): r[0] = s[0], and r[i] combines s[0], ..., s[i] in
// order. op must be associative for r[i] to be the serial loop's
// op(r[i-1], s[i]); it is called concurrently.
//
// Every r[i] depends on s and op alone, never on the schedule or the
// number of workers, through a grouping fixed by n = len(s): s is cut
// into leaves of L elements, the last one the rest, L being the power of
// two 2^max(0, min(⌈log₂n⌉−3, max(13, ⌈log₂n⌉−8))): 8 leaves or just under
// while that makes them at most 8192 long, then leaves of 8192, and 256
// leaves or just under past 2²¹ elements. The total of a leaf is its left fold, t = op(...op(x₀, x₁)..., xₖ); the
// carry of leaf 1 is leaf 0's total, and that of leaf j+1 is op(carry of
// leaf j, total of leaf j). In leaf 0, r[i] = op(r[i-1], s[i]); in leaf j
// from 1 on, its first element is op(carry, s[i]) and the others
// op(r[i-1], s[i]). A float prefix sum of up to 8 elements is the serial
// loop's; a longer one may differ from it in its last bits, the same way
// on every run.
//
// Scan starts serially, leaf by leaf, and goes parallel only when the rest
// of s is long enough to pay for it (see the package doc). Its parallel
// part folds the leaves in parallel to their totals, computes the carries,
// and scans the leaves from their carries in parallel: it calls op about
// twice per element, and a serial scan of more than one leaf does too,
// folding and scanning each leaf in one pass, except where the grouping
// cannot show: for integers, booleans and strings, and arrays and structs
// of them, an associative op gives the same value in any grouping, so
// there a serial scan calls op once per element, and a parallel one cuts
// the rest into one piece more than the pool has workers, scanning the
// first while it folds the others, about 4/3 op calls per element on two
// workers. For a slice of a type without pointers, r is not cleared before
// it is written.
func Scan[S ~[]E, E any](s S, op func(E, E) E) S {
	if op == nil {
		panic("par.Scan: op is nil")
	}
	r := S(makeNoZero[E](len(s)))
	if len(s) == 0 {
		return r
	}
	leaf, exact := scanLeaf(len(s)), exactKind[E]()
	var carry E // the carry of the next leaf
	p := start((len(s)-1)/leaf+1, func(lo, hi int) { carry = scanLeaves(r, s, lo, hi, leaf, carry, op, exact) })
	rest := scanRest[E]
	if exact && !strandCalls() { // strand mode wants op's calls in parallel strands, not speed
		rest = scanRestExact[E]
	}
	if p.parallel() && !rest(r, s, p, leaf, carry, op) {
		clear(r) // pieces were skipped: never show memory Scan did not write
	}
	return r
}

// scanLeaf returns the length of Scan's leaves over n > 0 elements (see
// Scan).
func scanLeaf(n int) int {
	k := bits.Len(uint(n - 1)) // ⌈log₂n⌉
	return 1 << max(0, min(k-3, max(13, k-8)))
}

// exactKind reports whether E's values combine exactly (package exact):
// integers, booleans and strings, and arrays and structs of them, where an
// associative op gives the same value whatever the grouping.
func exactKind[E any]() bool { return exactly.Of[E]() }

// scanLeaves scans leaves [lo, hi) of s into r from carry, the carry of
// leaf lo (unused for leaf 0), and returns the carry of leaf hi. If exact
// (see exactKind), a leaf's carry-on is its last element, op(carry, total)
// in any grouping, and the leaf takes one pass of one op per element.
func scanLeaves[E any](r, s []E, lo, hi, leaf int, carry E, op func(E, E) E, exact bool) E {
	for j := lo; j < hi; j++ {
		a := j * leaf
		b := a + min(leaf, len(s)-a)
		switch {
		case leaf == 1: // its total is s[a], and op(carry, s[a]) both r[a] and the next carry
			r[a] = s[a]
			if j > 0 {
				r[a] = op(carry, s[a])
			}
			carry = r[a]
		case j == 0:
			r[0] = s[0]
			scanFrom(r[1:b], s[1:b], s[0], op)
			carry = r[b-1]
		case b == len(s): // the last leaf: no carry after it
			scanFrom(r[a:b], s[a:b], carry, op)
		case exact:
			scanFrom(r[a:b], s[a:b], carry, op)
			carry = r[b-1]
		default:
			carry = op(carry, scanFold(r[a:b], s[a:b], carry, op))
		}
	}
	return carry
}

// scanRest scans leaves [p.done, p.n) of s into r in parallel, carry being
// the carry of leaf p.done, and reports whether every piece ran.
func scanRest[E any](r, s []E, p plan, leaf int, carry E, op func(E, E) E) (complete bool) {
	rest := func(w *forkjoin.Worker) {
		d := p.done
		if d == 0 { // a call from near the top of a task: leaf 0 has no carry
			carry, d = scanLeaves(r, s, 0, 1, leaf, carry, op, false), 1
		}
		// carries[j-d] is first leaf j's total, then its carry.
		carries := make([]E, p.n-d)
		forkjoin.ForRange(w, d, p.n-1, 0, func(_ *forkjoin.Worker, lo, hi int) {
			for j := lo; j < hi; j++ {
				a := j * leaf
				carries[j-d] = foldOp(s[a], s[a+1:a+leaf], op) // not the last leaf: a whole one
			}
		})
		for j, t := range carries {
			carries[j] = carry
			if j < len(carries)-1 {
				carry = op(carry, t)
			}
		}
		forkjoin.ForRange(w, d, p.n, 0, func(_ *forkjoin.Worker, lo, hi int) {
			for j := lo; j < hi; j++ {
				a := j * leaf
				b := a + min(leaf, len(s)-a)
				scanFrom(r[a:b], s[a:b], carries[j-d], op)
			}
		})
	}
	return p.runRest(rest)
}

// scanRestExact is scanRest for values that combine exactly (exactKind),
// whose grouping cannot show: the rest is cut into one piece more than
// the pool has workers; the first is scanned from carry while the others
// but the last are folded, and then the others are scanned from the
// carries their folds give. So op is called (2k-2)/k times per element
// for k pieces, 4/3 on two workers, where scanRest's fold of every leaf
// and then its scan take 2.
func scanRestExact[E any](r, s []E, p plan, leaf int, carry E, op func(E, E) E) (complete bool) {
	return p.runRest(func(w *forkjoin.Worker) {
		a := p.done * leaf
		if a == 0 { // a call from near the top of a task: nothing has a carry yet
			r[0], carry, a = s[0], s[0], 1
		}
		k := min(w.Pool().Workers()+1, len(s)-a)
		if k < 2 {
			scanFrom(r[a:], s[a:], carry, op)
			return
		}
		bounds := func(c int) (lo, hi int) { // piece c of k
			m := len(s) - a
			return a + int(uint64(c)*uint64(m)/uint64(k)), a + int(uint64(c+1)*uint64(m)/uint64(k))
		}
		// carries[c] is the fold of piece c-1 (c from 2) after the first
		// loop, the fold of everything before piece c after the second.
		carries := make([]E, k)
		forkjoin.ForRange(w, 0, k-1, 1, func(_ *forkjoin.Worker, x, y int) {
			for c := x; c < y; c++ {
				lo, hi := bounds(c)
				if c == 0 {
					scanFrom(r[lo:hi], s[lo:hi], carry, op)
				} else {
					carries[c+1] = foldOp(s[lo], s[lo+1:hi], op)
				}
			}
		})
		_, hi0 := bounds(0)
		carries[1] = r[hi0-1]
		for c := 2; c < k; c++ {
			carries[c] = op(carries[c-1], carries[c])
		}
		forkjoin.ForRange(w, 1, k, 1, func(_ *forkjoin.Worker, x, y int) {
			for c := x; c < y; c++ {
				lo, hi := bounds(c)
				scanFrom(r[lo:hi], s[lo:hi], carries[c], op)
			}
		})
	})
}

// scanFold writes r[i] = op(...op(carry, s[0])..., s[i]), len(r) >=
// len(s) > 0, and returns the left fold of s alone, in one pass: the two
// folds do not wait on each other.
func scanFold[E any](r, s []E, carry E, op func(E, E) E) E {
	r = r[:len(s)]
	acc, tot := op(carry, s[0]), s[0]
	r[0] = acc
	for i := 1; i < len(s); i++ {
		x := s[i]
		acc = op(acc, x)
		tot = op(tot, x)
		r[i] = acc
	}
	return tot
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
