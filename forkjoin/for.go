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

// span is the length of [lo, hi), lo <= hi, which is exact as a uint even
// where hi-lo overflows an int ([-1, MaxInt) has MaxInt+1 indices).
func span(lo, hi int) uint { return uint(hi) - uint(lo) }

func init() { forFunc = NewFunc(forStep) }

// ForRange calls body on pieces [lo', hi') that together cover [lo, hi)
// exactly once, in parallel. With grain > 0 the pieces are [lo, lo+grain),
// [lo+grain, lo+2·grain), ..., the last one shorter if grain does not divide
// the range; in work-stealing mode a worker runs its part of the range piece
// by piece and splits what is left in half only when another worker asks
// for work (forChunks), so a piece costs about a function call, not a fork;
// in shared-queue mode the caller queues every piece as a task of its own
// (forSpawn), as the classic design does. With grain 0 the
// splitting adapts: a loop starts with about two pieces per worker and a
// piece splits again only when a thief takes it, which means somebody is
// idle (the scheme Rayon uses). It needs no tuning, and a loop whose pieces
// nobody steals costs a handful of forks. It panics if body is nil or
// grain < 0. Once the invocation is canceled, pieces not yet started are
// skipped.
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
	if a.grain > 0 {
		if !w.shared {
			forChunks(w, a)
		} else {
			forSpawn(w, a)
		}
		return struct{}{}
	}
	n := span(a.lo, a.hi)
	if !a.split(w, n) {
		w.tick()
		a.body(w, a.lo, a.hi)
		return struct{}{}
	}
	mid := int(uint(a.lo) + n/2)
	left, right := a, a
	left.hi, right.lo = mid, mid
	forFunc.Join(w, left, right)
	return struct{}{}
}

// forChunks runs a, a part of a loop with a fixed grain, on w: piece by
// piece, grain indices at a time, in index order. It splits what is left in
// half, publishing the upper half (joinEager), only when another worker may
// take it: at once if some worker is idle and w's deque has nothing for it,
// then whenever the heartbeat would promote a frame (a thief found w's deque
// empty and set w's beat flag, read before every piece, or heartbeatPeriod
// passed) and w holds no older lazy frame to promote instead (that one is
// the larger work).
// Splitting only on demand is heartbeat scheduling applied to a loop: split
// down to single pieces, a grain-1 loop would pay a fork (forArgs copied
// twice) per piece; this one makes a few forks per steal. The pieces are the same wherever the splits fall: a split
// point is a multiple of grain from the start of the range.
//
// Every piece counts as one task in Stats.Tasks; the splits, which depend
// on timing, do not.
func forChunks(w *Worker, a forArgs) {
	if span(a.lo, a.hi) > uint(a.grain) && w.deque.Len() == 0 && w.pool.sleep.hungry() {
		forSplit(w, a)
		return
	}
	for {
		if w.root.canceled.Load() {
			return
		}
		if span(a.lo, a.hi) <= uint(a.grain) {
			w.nTasks++
			a.body(w, a.lo, a.hi)
			return
		}
		// The beat flag is read at every piece, not only at the countdown's
		// end: a loop of a few long pieces (par's chunks, each a
		// millisecond) would otherwise answer a thief only after up to
		// hbStride of them.
		if w.hbLeft--; w.hbLeft < 0 || w.beat.Load() {
			if canceled, promote := w.beatDue(); canceled {
				return
			} else if promote && !w.promoteOldest() {
				forSplit(w, a)
				return
			}
		}
		next := a.lo + a.grain
		w.nTasks++
		a.body(w, a.lo, next)
		a.lo = next
	}
}

// forSplit runs a, a fixed-grain part of a loop longer than one piece, as
// two halves: the upper half published for thieves, the lower one run by w
// (both by forStep).
func forSplit(w *Worker, a forArgs) {
	if w.Canceled() {
		return // joinEager would start nothing, and push nothing to count
	}
	pieces := (span(a.lo, a.hi)-1)/uint(a.grain) + 1 // not hi-lo+grain-1, which can overflow
	mid := int(uint(a.lo) + pieces/2*uint(a.grain))
	left, right := a, a
	left.hi, right.lo = mid, mid
	w.nTasks-- // the fork counts one task; the pieces are counted as they run
	forFunc.joinEager(w, left, right)
}

// split decides whether a piece of n indices is divided further.
func (a *forArgs) split(w *Worker, n uint) bool {
	if n < 2 {
		return false
	}
	if a.grain > 0 {
		return n > uint(a.grain)
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
	n := span(a.lo, a.hi)
	if !a.split(w, n) {
		w.tick()
		acc := a.zero
		for i := a.lo; i < a.hi; i++ {
			acc = a.combine(acc, a.mapf(i))
		}
		return acc
	}
	mid := int(uint(a.lo) + n/2)
	left, right := a, a
	left.hi, right.lo = mid, mid
	x, y := a.self.Join(w, left, right)
	return a.combine(x, y)
}
