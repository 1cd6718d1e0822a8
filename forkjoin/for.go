package forkjoin

import (
	"fmt"
	"sync"
)

// forArgs is one piece of a ForRange loop, forked through forFunc so that
// splitting a loop allocates nothing.
type forArgs struct {
	lo, hi int
	grain  int // fixed piece size; 0 = adaptive
	splits int // adaptive: how many more times this piece may split
	origin *Worker
	body   func(w *Worker, lo, hi int)
}

var forFunc *Func[forArgs, struct{}]

func init() { forFunc = NewFunc(forStep) }

// ForRange calls body on pieces [lo', hi') that together cover [lo, hi)
// exactly once, in parallel. With grain > 0 the range is halved until pieces
// hold at most grain indices. With grain 0 the splitting adapts: a loop
// starts with about two pieces per worker and a piece splits again only when a
// thief takes it, which means somebody is idle (the scheme Rayon uses). It
// needs no tuning, and a loop whose pieces nobody steals costs a handful of
// forks. It panics if body is nil or grain < 0. Once the invocation is
// canceled, pieces not yet started are skipped.
func ForRange(w *Worker, lo, hi, grain int, body func(w *Worker, lo, hi int)) {
	if body == nil {
		panic("forkjoin.ForRange: body is nil")
	}
	if grain < 0 {
		panic(fmt.Sprintf("forkjoin.ForRange: grain must not be negative, got %d", grain))
	}
	w.check("forkjoin.ForRange")
	if hi <= lo {
		return
	}
	forStep(w, forArgs{lo: lo, hi: hi, grain: grain, splits: w.pool.Workers(), origin: w, body: body})
}

// For calls body(w, i) for every i in [lo, hi), in parallel, splitting
// adaptively (see ForRange).
func For(w *Worker, lo, hi int, body func(w *Worker, i int)) {
	if body == nil {
		panic("forkjoin.For: body is nil")
	}
	w.check("forkjoin.For")
	ForRange(w, lo, hi, 0, func(w *Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			body(w, i)
		}
	})
}

func forStep(w *Worker, a forArgs) struct{} {
	if w.Canceled() {
		return struct{}{}
	}
	n := a.hi - a.lo
	if !a.split(w, n) {
		w.tick()
		a.body(w, a.lo, a.hi)
		return struct{}{}
	}
	mid := a.lo + n/2
	left, right := a, a
	left.hi, right.lo = mid, mid
	forFunc.Join(w, left, right)
	return struct{}{}
}

// split decides whether a piece of n indices is divided further.
func (a *forArgs) split(w *Worker, n int) bool {
	if n < 2 {
		return false
	}
	if a.grain > 0 {
		return n > a.grain
	}
	if w != a.origin {
		// Stolen: somebody was idle, so let this piece spread again.
		a.origin = w
		a.splits = max(a.splits/2, w.pool.Workers())
	} else if a.splits == 0 {
		return false
	}
	a.splits /= 2
	return true
}

// Reduce maps every i in [lo, hi) with mapf and combines the results with
// combine, in parallel, splitting adaptively; it returns zero for an empty
// range. combine must be associative, and zero its identity: pieces are
// combined in index order, but grouped differently from run to run.
func Reduce[T any](w *Worker, lo, hi int, zero T, mapf func(i int) T, combine func(x, y T) T) T {
	if mapf == nil || combine == nil {
		panic("forkjoin.Reduce: mapf and combine must not be nil")
	}
	w.check("forkjoin.Reduce")
	if hi <= lo {
		return zero
	}
	f := reduceFunc[T]()
	return reduceStep(w, reduceArgs[T]{
		forArgs: forArgs{lo: lo, hi: hi, splits: w.pool.Workers(), origin: w},
		self:    f, zero: zero, mapf: mapf, combine: combine,
	})
}

// reduceArgs is one piece of a Reduce. It carries the call's functions, so
// that one Func per result type serves every call: a Func made per call
// would capture mapf (and the caller's data) and stay reachable from the
// workers' record caches, keyed by it, after the call returned.
type reduceArgs[T any] struct {
	forArgs
	self    *Func[reduceArgs[T], T]
	zero    T
	mapf    func(i int) T
	combine func(x, y T) T
}

// reduceFuncs holds one *Func[reduceArgs[T], T] per T, keyed by typeKey.
var reduceFuncs sync.Map

func reduceFunc[T any]() *Func[reduceArgs[T], T] {
	k := typeKey[reduceArgs[T]]()
	if f, ok := reduceFuncs.Load(k); ok {
		return f.(*Func[reduceArgs[T], T])
	}
	f, _ := reduceFuncs.LoadOrStore(k, NewFunc(reduceStep[T]))
	return f.(*Func[reduceArgs[T], T])
}

func reduceStep[T any](w *Worker, a reduceArgs[T]) T {
	if w.Canceled() {
		return a.zero
	}
	n := a.hi - a.lo
	if !a.split(w, n) {
		w.tick()
		acc := a.zero
		for i := a.lo; i < a.hi; i++ {
			acc = a.combine(acc, a.mapf(i))
		}
		return acc
	}
	mid := a.lo + n/2
	left, right := a, a
	left.hi, right.lo = mid, mid
	x, y := a.self.Join(w, left, right)
	return a.combine(x, y)
}
