package forkjoin

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Reduce maps every i in [lo, hi) with mapf and combines the results with
// combine, in parallel, splitting as For does; it returns zero for an empty
// range, and zero is passed to combine only by a call cut short by its
// invocation's cancellation. The result depends only on the range and the
// two functions, never on the pool, its mode, the schedule or the worker
// count: the results are combined over a tree fixed by the length
// n = hi-lo, the balanced binary tree whose left subtrees hold a power of
// two indices. Serially, Reduce returns tree(lo, hi-lo):
//
//	func tree(lo, n int) T {
//		if n == 1 {
//			return mapf(lo)
//		}
//		p := 1 << (bits.Len(uint(n-1)) - 1) // the largest power of two below n
//		return combine(tree(lo, p), tree(lo+p, n-p))
//	}
//
// combine must be associative for that to be the fold in index order; a
// float sum is the pairwise sum, the same bits on every run. Which worker
// computes which subtree stays dynamic: a worker runs its indices in
// order, keeping the results of the finished subtrees that wait for a
// right sibling, one per level at most, so about log₂ n partial results in
// the call's records; a thief takes a whole right subtree and hands back
// its result.
func Reduce[T any](w *Worker, lo, hi int, zero T, mapf func(i int) T, combine func(x, y T) T) T {
	if mapf == nil || combine == nil {
		panic("forkjoin.Reduce: mapf and combine must not be nil")
	}
	return reduce(w, "forkjoin.Reduce", lo, hi, zero, mapf, nil, combine)
}

// ReduceW is Reduce for a mapf that forks: mapf receives the worker that runs
// it, so that it can call Join, For, ReduceW or any other fork on it, as a
// For body can. A reduction over a tree node's children that recurses into
// each child is ReduceW over the children. Its results are combined over
// the same tree as Reduce's.
func ReduceW[T any](w *Worker, lo, hi int, zero T, mapf func(w *Worker, i int) T, combine func(x, y T) T) T {
	if mapf == nil || combine == nil {
		panic("forkjoin.ReduceW: mapf and combine must not be nil")
	}
	if w != nil && w.deepInline() && span(lo, hi) <= smallReduce {
		// reduceInline with mapw only and a small stack, written out: a
		// recursive walk pays the extra call and the per-element mapf
		// test at every node.
		var stk [smallStack]T
		n := 0 // entries on stk
		for i := lo; i < hi; i++ {
			if w.countdown() {
				if stop, split := w.loopBeat(span(i, hi)); stop {
					return foldLocal(stk[:n], zero, combine)
				} else if split {
					return reduceLazy(w, i, hi, lo, stk[:n], zero, nil, mapf, combine, true, nil)
				}
			}
			pos := uint(i - lo)
			v := mapf(w, i)
			if pos&1 == 0 && i+1 < hi { // a pair of leaves: one subtree of two
				i++
				w.nTasks++
				v = combine(v, mapf(w, i))
				pos >>= 1
			}
			w.nTasks++
			for ; pos&1 != 0; pos >>= 1 { // a right child: its left sibling is on top
				n--
				v = combine(stk[n], v)
			}
			stk[n] = v
			n++
		}
		return foldLocal(stk[:n], zero, combine)
	}
	return reduce(w, "forkjoin.ReduceW", lo, hi, zero, nil, mapf, combine)
}

// The partial results of a reduction's part (see Reduce) are a stack: the
// results of the complete subtrees that tile what the part has run so far,
// [start, at), largest first, their sizes the bits of at-start. Indices are
// counted from the reduction's lo (base), so that a subtree of 2^k indices
// starts at a multiple of 2^k. A result of a subtree of 2^k indices
// starting at pos is combined with the top of the stack, its left sibling,
// while bit k of pos is set, as a binary counter carries; at the end the
// stack is folded from the right, which is the tree's value where the range
// ends short of a power of two (a missing right subtree passes its left
// one up). A part taken by a thief is a whole right subtree, starting at
// its own multiple of its size, so its stack never reaches below its start.
const (
	// smallReduce is the longest range an inline reduction runs with
	// a stack of smallStack results on its goroutine's stack.
	smallReduce = 1<<smallStack - 1
	smallStack  = 4
	// bigStack holds the stack of any range.
	bigStack = 64
)

// foldStack returns the result of the subtrees on stk, folded from the
// right, or zero if it is empty, and clears stk, a record's.
func foldStack[T any](stk []T, zero T, combine func(x, y T) T) T {
	v := foldLocal(stk, zero, combine)
	clear(stk)
	return v
}

// foldLocal is foldStack for a stack on the goroutine's stack, which
// needs no clearing.
func foldLocal[T any](stk []T, zero T, combine func(x, y T) T) T {
	if len(stk) == 0 {
		return zero
	}
	v := stk[len(stk)-1]
	for k := len(stk) - 2; k >= 0; k-- {
		v = combine(stk[k], v)
	}
	return v
}

// treeSplit returns where the rest [at, hi) of a reduction's part splits
// for a thief, counted from the base as both are: the start of the largest
// right subtree on the path from at, which reaches to hi; and false if a
// single index is left.
func treeSplit(at, hi uint) (uint, bool) {
	if hi-at < 2 {
		return 0, false
	}
	k := bits.Len(at^(hi-1)) - 1 // the highest bit where at and hi-1 differ
	return (hi - 1) >> k << k, true
}

// reduce is Reduce (mapf) and ReduceW (mapw); name is the caller's.
func reduce[T any](w *Worker, name string, lo, hi int, zero T, mapf func(int) T, mapw func(*Worker, int) T, combine func(x, y T) T) T {
	if w != nil && w.deepInline() {
		return reduceInline(w, lo, hi, zero, mapf, mapw, combine)
	}
	w.check(name)
	if raceStrands && w.inStrand() {
		return strandReduce(w, name, lo, hi, zero, mapf, mapw, combine)
	}
	if hi <= lo {
		return zero
	}
	if w.shared {
		return reduceStep(w, reduceArgs[T]{
			forArgs: forArgs{lo: lo, hi: hi, splits: w.pool.Workers(), origin: w, stop: new(atomic.Bool)},
			self:    reduceFunc[T](), base: lo, zero: zero, mapf: mapf, mapw: mapw, combine: combine,
		})
	}
	return reduceLazy(w, lo, hi, lo, nil, zero, mapf, mapw, combine, false, nil)
}

// reduceInline is an inline loop (see above) of Reduce or ReduceW, with its
// stack on the goroutine's stack.
func reduceInline[T any](w *Worker, lo, hi int, zero T, mapf func(int) T, mapw func(*Worker, int) T, combine func(x, y T) T) T {
	if span(lo, hi) <= smallReduce {
		var buf [smallStack]T
		return reduceSerial(w, lo, hi, lo, buf[:0], zero, mapf, mapw, combine)
	}
	var buf [bigStack]T
	return reduceSerial(w, lo, hi, lo, buf[:0], zero, mapf, mapw, combine)
}

// reduceSerial runs [at, hi) of the reduction from base inline, onto stk,
// the stack of what it ran before at, on the goroutine's stack, with room
// for the rest, and returns its result.
func reduceSerial[T any](w *Worker, at, hi, base int, stk []T, zero T, mapf func(int) T, mapw func(*Worker, int) T, combine func(x, y T) T) T {
	n := len(stk)
	stk = stk[:cap(stk)]
	for i := at; i < hi; i++ {
		if w.countdown() {
			if stop, split := w.loopBeat(span(i, hi)); stop {
				return foldLocal(stk[:n], zero, combine)
			} else if split {
				return reduceLazy(w, i, hi, base, stk[:n], zero, mapf, mapw, combine, true, nil)
			}
		}
		pos := uint(i - base)
		var v T
		if mapf != nil {
			v = mapf(i)
		} else {
			v = mapw(w, i)
		}
		if pos&1 == 0 && i+1 < hi { // a pair of leaves: one subtree of two
			i++
			w.nTasks++
			if mapf != nil {
				v = combine(v, mapf(i))
			} else {
				v = combine(v, mapw(w, i))
			}
			pos >>= 1
		}
		w.nTasks++
		for ; pos&1 != 0 && n > 0; pos >>= 1 {
			n--
			v = combine(stk[n], v)
		}
		stk[n] = v
		n++
	}
	return foldLocal(stk[:n], zero, combine)
}

// reduceJob is the record of a lazy Reduce's frame, and of a piece split off
// it for a thief: loopJob's twin with a result.
type reduceJob[T any] struct {
	job
	at, hi  int
	base    int // the reduction's lo, from which its tree counts
	zero    T
	mapf    func(int) T
	mapw    func(*Worker, int) T
	combine func(x, y T) T
	res     T
	stk     []T // the part's stack (see above), kept with the record
	pieces  *job
	pieceStop
}

func reduceRecord[T any](w *Worker) *reduceJob[T] {
	key := typeKey[reduceJob[T]]()
	if j := w.cacheGet(key); j != nil {
		return (*reduceJob[T])(unsafe.Pointer(j)) // the key is the record's type
	}
	l := &reduceJob[T]{}
	l.run, l.owner, l.key = l, w, key
	return l
}

// reduceLazy is forLazy for Reduce and ReduceW: it runs [lo, hi) of the
// reduction from base onto seed, the stack of what ran before lo (nil
// for none), and returns the result. stop is the flag of the reduction a
// piece belongs to, nil for a new one.
func reduceLazy[T any](w *Worker, lo, hi, base int, seed []T, zero T, mapf func(int) T, mapw func(*Worker, int) T, combine func(x, y T) T, split bool, stop *atomic.Bool) T {
	d := w.depth()
	if d >= lazyDepth {
		var buf [bigStack]T
		stk := append(buf[:0], seed...)
		return reduceSerial(w, lo, hi, base, stk, zero, mapf, mapw, combine)
	}
	key := typeKey[reduceJob[T]]()
	j := w.frame(d).j
	if j == nil || j.key != key {
		if j = w.slotRecord(d, key); j == nil {
			j = &reduceRecord[T](w).job
		}
		w.setSlot(d, j, (*reduceJob[T])(unsafe.Pointer(j)))
	}
	l := (*reduceJob[T])(unsafe.Pointer(j)) // the key is the record's type
	l.at, l.hi, l.base, l.zero, l.mapf, l.mapw, l.combine = lo, hi, base, zero, mapf, mapw, combine
	if need := bits.Len(uint(hi-base)) + 1; cap(l.stk) < need { // the most partial results [base, hi) has
		l.stk = make([]T, 0, max(need, 2*cap(l.stk)))
	}
	l.stk = append(l.stk[:0], seed...)
	l.startStop(stop)
	w.pushFrame(d)
	if split || w.idleWaits() {
		w.promoteOldest() // this loop, unless an older frame waits
	}
	finished := false
	defer func() {
		if !finished { // a panic, or runtime.Goexit
			settleReduce(w, l, d, recover())
		}
	}()
	acc := runReduce(w, l, d)
	finished = true
	l.clearArg()
	w.popFrame(d)
	return acc
}

// runReduce is runLoop for Reduce: pieces nobody took extend its own range,
// a stolen piece's result is pushed onto the stack when it is done; both in
// index order.
func runReduce[T any](w *Worker, l *reduceJob[T], d int) T {
	n := len(l.stk) // entries on stk
	stk := l.stk[:cap(l.stk)]
	var z T
	for {
		for l.at < l.hi {
			if (w.countdown() || w.beat.Load()) && (w.forkBeat(d) || l.stop.Load()) {
				l.hi = l.at // canceled, or a piece failed: start nothing more
				break
			}
			i := l.at
			pos := uint(i - l.base)
			var v T
			if pos&1 == 0 && i+1 < l.hi { // a pair of leaves: one subtree of two
				l.at = i + 2 // before mapf: a promotion in it splits after the pair
				w.nTasks += 2
				if l.mapf != nil {
					v = l.combine(l.mapf(i), l.mapf(i+1))
				} else {
					v = l.mapw(w, i)
					v = l.combine(v, l.mapw(w, i+1))
				}
				pos >>= 1
			} else {
				l.at = i + 1
				w.nTasks++
				if l.mapf != nil {
					v = l.mapf(i)
				} else {
					v = l.mapw(w, i)
				}
			}
			for ; pos&1 != 0 && n > 0; pos >>= 1 {
				n--
				v = l.combine(stk[n], v)
				stk[n] = z // the record keeps nothing of the caller's reachable
			}
			stk[n] = v
			n++
		}
		p := l.pieces
		if p == nil {
			l.stk = stk[:0]
			return foldStack(stk[:n], l.zero, l.combine)
		}
		l.pieces, p.next = p.next, nil
		pl := (*reduceJob[T])(unsafe.Pointer(p))
		if w.takeBack(p) {
			if !w.inv.canceled.Load() && !l.stop.Load() {
				l.at, l.hi = pl.at, pl.hi
				w.frame(d).st = frameLazy
			}
			pl.free(w)
			continue
		}
		w.waitForJob(p)
		pe, r, pos := p.panic, pl.res, uint(pl.at-l.base)
		pl.free(w)
		if pe != nil {
			l.stk = stk[:n]
			panic(pe)
		}
		// A right subtree of its own size, 2^k indices for k the
		// trailing zeros of pos.
		for pos >>= bits.TrailingZeros(pos); pos&1 != 0 && n > 0; pos >>= 1 {
			n--
			r = l.combine(stk[n], r)
			stk[n] = z
		}
		stk[n] = r
		n++
	}
}

// settleReduce is settleLoop for Reduce.
func settleReduce[T any](w *Worker, l *reduceJob[T], d int, v any) {
	var pe *PanicError
	if v != nil {
		pe = asPanicError(v) // here, while the panicking frames are still on the stack
	}
	l.stop.Store(true) // the pieces other workers take from now on do not start
	for p := l.pieces; p != nil; {
		next := p.next
		p.next = nil
		if !w.discard(p) {
			w.waitFor(&p.latch, p)
		}
		(*reduceJob[T])(unsafe.Pointer(p)).free(w)
		p = next
	}
	l.pieces = nil
	l.clearArg()
	w.popFrame(d)
	if pe != nil {
		panic(pe)
	}
}

// promote hands the largest right subtree left of the loop's rest to a
// thief, so that its result is one partial result of the fixed tree.
func (l *reduceJob[T]) promote(w *Worker, fr *lazyFrame, d int, _ bool) (pushed, again bool) {
	mid, ok := treeSplit(uint(l.at-l.base), uint(l.hi-l.base))
	if !ok {
		fr.st = frameRunning
		return false, false
	}
	p := reduceRecord[T](w)
	p.at, p.hi, p.base, p.zero, p.mapf, p.mapw, p.combine, p.stop = l.base+int(mid), l.hi, l.base, l.zero, l.mapf, l.mapw, l.combine, l.stop
	l.hi = p.at
	p.next, l.pieces = l.pieces, &p.job
	p.inv = w.inv
	w.deque.Push(&p.job)
	_, again = treeSplit(uint(l.at-l.base), uint(l.hi-l.base))
	return true, again
}

func (l *reduceJob[T]) execute(w *Worker) {
	l.markThief(w)
	l.res, l.panic = callReduce(w, l)
	w.flushStats()
	l.latch.set(l.owner)
}

func (l *reduceJob[T]) abandon(w *Worker) {
	l.panic = goexitPanic()
	w.flushStats()
	l.latch.set(l.owner)
}

func callReduce[T any](w *Worker, l *reduceJob[T]) (r T, pe *PanicError) {
	mark := w.mark()
	ok := false
	defer func() {
		if !ok {
			pe = w.settleTask(mark, recover(), nil)
		}
	}()
	if l.stop.Load() {
		return r, nil // the reduction failed: start nothing more of it
	}
	r = reduceLazy(w, l.at, l.hi, l.base, nil, l.zero, l.mapf, l.mapw, l.combine, false, l.stop)
	ok = true
	if w.leftovers(mark) {
		pe = w.settleTask(mark, nil, nil)
	}
	return r, pe
}

func (l *reduceJob[T]) settle(w *Worker, fr *lazyFrame, d int) { w.popFrame(d) }

func (l *reduceJob[T]) clearArg() {
	var z T
	l.zero, l.res, l.mapf, l.mapw, l.combine, l.pieces, l.stop = z, z, nil, nil, nil, nil, nil
	clear(l.stk) // a panic's: a finished part's stack is empty
	l.stk = l.stk[:0]
}

func (l *reduceJob[T]) free(w *Worker) {
	l.clearArg()
	w.cachePut(l.key, &l.job)
}

// reduceArgs is one piece of a Reduce. It carries the call's functions, so
// that one Func per result type serves every call: a Func made per call
// would capture mapf (and the caller's data) and stay reachable from the
// workers' record caches, keyed by it, after the call returned.
type reduceArgs[T any] struct {
	forArgs
	self    *Func[reduceArgs[T], T]
	base    int // the reduction's lo, from which its tree counts
	zero    T
	mapf    func(i int) T
	mapw    func(w *Worker, i int) T // ReduceW's, if mapf is nil
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

// reduceStep runs a piece of a shared-queue reduction: a subtree of the
// fixed tree, split into its two subtrees, or run serially.
func reduceStep[T any](w *Worker, a reduceArgs[T]) T {
	if w.Canceled() || a.stop.Load() {
		return a.zero // canceled, or a piece panicked: start nothing more
	}
	n := span(a.lo, a.hi)
	if !a.split(w, n) {
		w.tick()
		done := false
		defer stopUnlessDone(a.stop, &done)
		var stk [bigStack]T
		n := 0 // entries on stk
		for i := a.lo; i < a.hi; i++ {
			pos := uint(i - a.base)
			var v T
			if a.mapf != nil {
				v = a.mapf(i)
			} else {
				v = a.mapw(w, i)
			}
			if pos&1 == 0 && i+1 < a.hi { // a pair of leaves: one subtree of two
				i++
				if a.mapf != nil {
					v = a.combine(v, a.mapf(i))
				} else {
					v = a.combine(v, a.mapw(w, i))
				}
				pos >>= 1
			}
			for ; pos&1 != 0 && n > 0; pos >>= 1 {
				n--
				v = a.combine(stk[n], v)
			}
			stk[n] = v
			n++
		}
		done = true
		return foldLocal(stk[:n], a.zero, a.combine)
	}
	mid := int(uint(a.lo) + 1<<(bits.Len(n-1)-1)) // a complete left subtree
	left, right := a, a
	left.hi, right.lo = mid, mid
	x, y := a.self.Join(w, left, right)
	return a.combine(x, y)
}
