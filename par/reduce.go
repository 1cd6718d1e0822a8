package par

import (
	"reflect"
	"slices"
	"sync"

	"github.com/fjkit/fjkit/forkjoin"
)

// Reduce returns combine(...combine(combine(mapf(s[0]), mapf(s[1])),
// mapf(s[2]))..., mapf(s[n-1])), computed in parallel, or zero if s is
// empty. combine must be associative: the pieces of s are folded separately
// and their results combined in index order, grouped differently from run
// to run. It need not be commutative (string concatenation is fine).
// Floating-point addition is not associative: a float sum depends, in its
// last bits, on the grouping.
//
// zero is the result for an empty s and is used for nothing else: it is
// never passed to combine, so a map or any other reference is a safe zero.
// Each value mapf or combine returns is passed to combine at most once, so
// combine may update its first argument and return it (merging one map into
// another, say), as long as mapf returns a new value each time. mapf is
// called once per element; mapf and combine are called concurrently.
//
// Reduce calls two function values per element, which the compiler cannot
// inline here; ReduceRange, whose body gets a whole piece, runs a cheap
// fold at the speed of a hand-written loop.
func Reduce[S ~[]E, E, R any](s S, zero R, mapf func(E) R, combine func(R, R) R) R {
	if mapf == nil || combine == nil {
		panic("par.Reduce: mapf and combine must not be nil")
	}
	if len(s) == 0 {
		return zero
	}
	four := !hasPointers(reflect.TypeFor[R]())
	var acc R
	p := start(len(s), func(lo, hi int) {
		if lo == 0 {
			acc = fold(four, mapf(s[0]), s[1:hi], mapf, combine)
		} else {
			acc = fold(four, acc, s[lo:hi], mapf, combine)
		}
	})
	if !p.parallel() {
		return acc
	}
	return reduceRest(p, acc, // made here: see start
		func(lo, hi int) R { return fold(four, mapf(s[lo]), s[lo+1:hi], mapf, combine) },
		func(acc R, lo, hi int) R { return fold(four, acc, s[lo:hi], mapf, combine) },
		combine)
}

// ReduceRange returns combine(...combine(body(lo₀, hi₀), body(lo₁, hi₁))...,
// body(loₖ, hiₖ)) for pieces [lo₀, hi₀), [lo₁, hi₁), ... that cover [0, n)
// in order, computed in parallel, or zero if n <= 0. It is Reduce for cheap
// bodies: the loop over a piece is the caller's, with no call per index,
// and a map and a reduction fused in it need no slice between them:
//
//	sum := par.ReduceRange(len(s), 0, func(lo, hi int) uint64 {
//		var acc uint64
//		for _, x := range s[lo:hi] {
//			acc += x * x
//		}
//		return acc
//	}, func(a, b uint64) uint64 { return a + b })
//
// combine must be associative, as for Reduce, and the same rules hold: zero
// is the result for n <= 0 only, and each value body or combine returns is
// passed to combine at most once. The pieces, and so the grouping, differ
// from run to run; body is called concurrently on pieces of any length from
// 1, and combine once per piece after the first.
func ReduceRange[R any](n int, zero R, body func(lo, hi int) R, combine func(R, R) R) R {
	if body == nil || combine == nil {
		panic("par.ReduceRange: body and combine must not be nil")
	}
	if n <= 0 {
		return zero
	}
	var acc R
	p := start(n, func(lo, hi int) {
		if lo == 0 {
			acc = body(0, hi)
		} else {
			acc = combine(acc, body(lo, hi))
		}
	})
	if !p.parallel() {
		return acc
	}
	return reduceRest(p, acc, body, func(acc R, lo, hi int) R { return combine(acc, body(lo, hi)) }, combine)
}

// reduceRest folds the rest of p in parallel, acc being the fold of the
// units its serial start ran, [0, p.done), if any: first(lo, hi) folds a piece on
// its own, extend(acc, lo, hi) folds a piece onto the fold of what
// precedes it.
//
// A worker runs its part of the range piece by piece, in order, and extends
// one accumulator while the pieces follow each other: a run. Only when a
// worker's next piece is not the one after its last (it stole, or a nested
// call on it ran a piece of this one) does it start a new run, so a
// reduction of maps merges about as many maps as there were steals, not
// one per piece. The runs are combined in index order at the end.
func reduceRest[R any](p plan, acc R, first func(lo, hi int) R, extend func(acc R, lo, hi int) R, combine func(R, R) R) R {
	if strandCalls() {
		return strandReduceRest(p, first, combine)
	}
	rs := &runs[R]{}
	if p.done > 0 {
		rs.list = []span[R]{{lo: 0, hi: p.done, acc: acc}}
	}
	if !p.finish(rs.setup, func(w *forkjoin.Worker, lo, hi int) { rs.piece(w, lo, hi, first, extend) }) {
		var zero R
		return zero // pieces were skipped: what the runs hold is not the fold
	}
	defer rewrap() // the runs' combines run here, in the caller, off the pool
	return rs.result(combine)
}

// runs collects the runs of a parallel reduce. Each worker owns its slot:
// its current run. list holds the finished runs, under mu.
type runs[R any] struct {
	slots []runSlot[R]
	mu    sync.Mutex
	list  []span[R]
}

// span is a run: the fold of [lo, hi).
type span[R any] struct {
	lo, hi int
	acc    R
}

type runSlot[R any] struct {
	span[R]
	used bool
	_    [64]byte // keeps workers' slots off each other's cache lines
}

func (rs *runs[R]) setup(w *forkjoin.Worker) { rs.slots = make([]runSlot[R], w.Pool().Workers()) }

// piece folds [lo, hi) on w: onto w's run if the run ends at lo, else as a
// new run. The slot is emptied while user code runs: a nested call on w
// may run a piece of this reduce meanwhile, and must not see a run in the
// middle of its change.
func (rs *runs[R]) piece(w *forkjoin.Worker, lo, hi int, first func(lo, hi int) R, extend func(acc R, lo, hi int) R) {
	sl := &rs.slots[w.ID()]
	var r span[R]
	if sl.used && sl.hi == lo {
		r = sl.span
		*sl = runSlot[R]{}
		r.acc, r.hi = extend(r.acc, lo, hi), hi
	} else {
		r = span[R]{lo: lo, hi: hi, acc: first(lo, hi)}
	}
	if sl.used { // left by a nested call, or a run ours does not follow
		rs.mu.Lock()
		rs.list = append(rs.list, sl.span)
		rs.mu.Unlock()
	}
	sl.span, sl.used = r, true
}

// result combines every run in index order. The runs tile [0, n).
func (rs *runs[R]) result(combine func(R, R) R) R {
	for i := range rs.slots {
		if rs.slots[i].used {
			rs.list = append(rs.list, rs.slots[i].span)
		}
	}
	slices.SortFunc(rs.list, func(a, b span[R]) int { return a.lo - b.lo })
	acc := rs.list[0].acc
	for _, r := range rs.list[1:] {
		acc = combine(acc, r.acc)
	}
	return acc
}

// fold folds s onto acc: with foldFrom4 if four is set, else foldFrom.
// The choice is a flag, not a func value, which, made from a generic
// function, would be allocated.
func fold[E, R any](four bool, acc R, s []E, mapf func(E) R, combine func(R, R) R) R {
	if four {
		return foldFrom4(acc, s, mapf, combine)
	}
	return foldFrom(acc, s, mapf, combine)
}

// foldFrom folds s onto acc, one element after another.
func foldFrom[E, R any](acc R, s []E, mapf func(E) R, combine func(R, R) R) R {
	for _, x := range s {
		acc = combine(acc, mapf(x))
	}
	return acc
}

// foldFrom4 is foldFrom as four folds of the four quarters of s, side by
// side, combined in order at the end: each call waits on the one before it
// only within its own quarter, so the processor overlaps four calls. It
// serves result types without pointers, whose combine is likely cheap
// beside a call; for others (maps, say), three more combines per piece
// could cost more than they save.
func foldFrom4[E, R any](acc R, s []E, mapf func(E) R, combine func(R, R) R) R {
	q := len(s) / 4
	if q < 4 {
		return foldFrom(acc, s, mapf, combine)
	}
	s0, s1, s2, s3 := s[:q], s[q:2*q], s[2*q:3*q], s[3*q:]
	a0, a1, a2, a3 := acc, mapf(s1[0]), mapf(s2[0]), mapf(s3[0])
	a0 = combine(a0, mapf(s0[0]))
	for i := 1; i < q; i++ {
		a0 = combine(a0, mapf(s0[i]))
		a1 = combine(a1, mapf(s1[i]))
		a2 = combine(a2, mapf(s2[i]))
		a3 = combine(a3, mapf(s3[i]))
	}
	for _, x := range s3[q:] {
		a3 = combine(a3, mapf(x))
	}
	return combine(combine(combine(a0, a1), a2), a3)
}
