package forkjoin

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Loops.
//
// In work-stealing mode a loop runs its own indices, first to last, on the
// calling worker, and is cut only when somebody may take a part: it is a
// frame (heartbeat.go) whose promotion splits what is left in half, the
// upper half becoming a job for thieves. So a loop nobody steals from costs
// about a call per body call, and a loop over a large range splits, as
// Rayon's adaptive loops do, once per thief that asks. The loop checks the
// heartbeat (and the beat flag a hungry worker sets) before every body
// call. When its own part is done it joins the pieces split off, newest
// (lowest) first: one nobody took it runs as more of its own range, which
// may split again; a stolen one it waits for, helping.
//
// Like joins, loops are lazy or inline (heartbeat.go): a loop that finds
// fewer than protectDepth frames above promoteAt pushes a frame and defers
// its settle (forLazy, reduceLazy), the others just loop. An inline loop
// whose heartbeat finds no older frame to promote goes on, for what is
// left, as a lazy loop split at once: a flat loop deep in a recursion still
// spreads.
//
// Shared-queue mode keeps the classic eager scheme: the range is split in
// halves through Func.Join down to about two pieces per worker, a piece
// splits again when a thief takes it (forStep, reduceStep), and a
// fixed-grain loop queues every piece (forSpawn).

// forArgs is one piece of a ForRange loop, forked through forFunc so that
// splitting a loop allocates nothing.
type forArgs struct {
	lo, hi int
	grain  int // fixed piece size; 0 = adaptive
	splits int // adaptive: how many more times this piece may split
	origin *Worker
	body   func(w *Worker, lo, hi int)
	// stop is pieceStop's for an adaptive loop or a reduction in
	// shared-queue mode: one flag per call, shared by its pieces, set by
	// a leaf that does not return (stopUnlessDone).
	stop *atomic.Bool
}

// stopUnlessDone, deferred by a leaf piece, sets stop if the leaf did not
// finish (done unset): it panicked or called runtime.Goexit.
func stopUnlessDone(stop *atomic.Bool, done *bool) {
	if !*done {
		stop.Store(true)
	}
}

var forFunc *Func[forArgs, struct{}]

// span is the length of [lo, hi), lo <= hi, which is exact as a uint even
// where hi-lo overflows an int ([-1, MaxInt) has MaxInt+1 indices).
func span(lo, hi int) uint { return uint(hi) - uint(lo) }

func init() { forFunc = NewFunc(forStep) }

// ForRange calls body on pieces [lo', hi') that together cover [lo, hi)
// exactly once, in parallel. With grain > 0 the pieces are [lo, lo+grain),
// [lo+grain, lo+2·grain), ..., the last one shorter if grain does not divide
// the range. With grain 0 the pieces adapt: in work-stealing mode a worker
// calls body on pieces that double in size from one index, up to half of
// what is left, and a part of the range moves to another worker only when
// that worker asks (see the package doc); in shared-queue mode the range
// starts as about two pieces per worker and a piece splits again when a
// thief takes it. Either way a loop nobody steals from costs about a call
// per piece, and needs no tuning. In shared-queue mode a fixed-grain loop
// queues every piece as a task of its own (forSpawn), as the classic design
// does. It panics if body is nil or grain < 0. Once the invocation is
// canceled, pieces not yet started are skipped.
func ForRange(w *Worker, lo, hi, grain int, body func(w *Worker, lo, hi int)) {
	if body == nil {
		panic("forkjoin.ForRange: body is nil")
	}
	if grain < 0 {
		panic(fmt.Sprintf("forkjoin.ForRange: grain must not be negative, got %d", grain))
	}
	if w != nil && w.deepInline() {
		forInline(w, lo, hi, grain, nil, body) // checked nearer the task's root
		return
	}
	w.check("forkjoin.ForRange")
	if raceStrands && w.inStrand() {
		strandForRange(w, lo, hi, grain, nil, body, "forkjoin.ForRange")
		return
	}
	if hi <= lo {
		return
	}
	if w.shared {
		a := forArgs{lo: lo, hi: hi, grain: grain, splits: w.pool.Workers(), origin: w, body: body}
		if grain == 0 {
			a.stop = new(atomic.Bool) // a fixed grain stops through its scope (forSpawn)
		}
		forStep(w, a)
		return
	}
	forLazy(w, lo, hi, grain, nil, body, false, nil)
}

// For calls body(w, i) for every i in [lo, hi), in parallel, splitting as
// ForRange with grain 0 does, one index at a time.
func For(w *Worker, lo, hi int, body func(w *Worker, i int)) {
	if body == nil {
		panic("forkjoin.For: body is nil")
	}
	if w != nil && w.deepInline() {
		// An inline loop, as forInline, kept here: For over a node's few
		// children is a tree walk's every step.
		for i := lo; i < hi; i++ {
			if w.countdown() {
				if stop, split := w.loopBeat(span(i, hi)); stop {
					return
				} else if split {
					forLazy(w, i, hi, 0, body, nil, true, nil)
					return
				}
			}
			w.nTasks++
			body(w, i)
		}
		return
	}
	w.check("forkjoin.For")
	if raceStrands && w.inStrand() {
		strandForRange(w, lo, hi, 0, body, nil, "forkjoin.For")
		return
	}
	if hi <= lo {
		return
	}
	if w.shared {
		forStep(w, forArgs{lo: lo, hi: hi, splits: w.pool.Workers(), origin: w, body: func(w *Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				body(w, i)
			}
		}, stop: new(atomic.Bool)})
		return
	}
	forLazy(w, lo, hi, 0, body, nil, false, nil)
}

// loopBeat is the heartbeat of an inline loop with remaining indices (or
// pieces) left: it reports whether the invocation is canceled, and whether
// the loop should go on as a lazy loop, split at once, because another
// worker may take part of it and w holds no older frame to promote instead.
// Only w's goroutine calls it.
func (w *Worker) loopBeat(remaining uint) (stop, split bool) {
	canceled, promote := w.beatDue()
	if canceled {
		return true, false
	}
	if promote && !w.promoteOldest() && remaining >= 2 && w.depth() < lazyDepth && w.pool.sleep.hungry() {
		return false, true
	}
	return false, false
}

// forInline is an inline loop (see above) of For (each) or ForRange (rng).
func forInline(w *Worker, lo, hi, grain int, each func(*Worker, int), rng func(*Worker, int, int)) {
	chunk := 1
	for i := lo; i < hi; {
		c := 1
		left := span(i, hi) // not hi-i, which can overflow
		if each == nil {
			if c = grain; c == 0 {
				c, chunk = int(min(uint(chunk), max(left/2, 1))), min(2*chunk, pieceCap(left))
			}
			if uint(c) > left {
				c = int(left) // below c, so an int
			}
		}
		if w.countdown() {
			if stop, split := w.loopBeat((left-1)/uint(c) + 1); stop {
				return
			} else if split {
				forLazy(w, i, hi, grain, each, rng, true, nil)
				return
			}
		}
		w.nTasks++
		if each != nil {
			each(w, i)
		} else {
			rng(w, i, i+c)
		}
		i += c
	}
}

// maxChunk bounds the pieces of an adaptive ForRange (grain 0): a loop
// answers a thief at the end of its current piece.
const maxChunk = 1 << 16

// pieceCap is the bound on the next adaptive piece of a loop with left
// indices to go: maxChunk, or 1/65536 of what is left where that is more,
// so that even a loop over all of int's range ends in about a million
// pieces.
func pieceCap(left uint) int { return int(max(maxChunk, left>>16)) }

// loopJob is the record of a lazy For or ForRange loop's frame, and of a
// piece split off it for a thief: the indices [at, hi) still to run.
type loopJob struct {
	job
	at, hi int
	grain  int                     // ForRange's fixed grain; 0: For, or an adaptive ForRange
	each   func(*Worker, int)      // For's body, or nil
	rng    func(*Worker, int, int) // ForRange's body, or nil
	pieces *job                    // the frame's pieces not joined yet, newest first, linked by job.next
	pieceStop
}

// pieceStop is what the pieces of one lazy loop or reduction share to stop
// at its first failure: stop is set once a piece panicked (or called
// runtime.Goexit), and pieces not started yet never start, so that a worker
// waiting for the failed call's pieces does not run the rest of them, one
// panic after another. stop points to stopped, the flag of the call's own
// frame record, which outlives every piece (the call joins them all before
// it ends).
type pieceStop struct {
	stop    *atomic.Bool
	stopped atomic.Bool
}

// startStop sets the record's stop flag to stop, that of the call a piece
// belongs to, or, for a new call (nil), to its own flag, cleared.
func (p *pieceStop) startStop(stop *atomic.Bool) {
	if stop == nil {
		if p.stopped.Load() { // a store only then: an atomic store is a fence
			p.stopped.Store(false)
		}
		stop = &p.stopped
	}
	p.stop = stop
}

// loopRecord returns a free loopJob of w's.
func (w *Worker) loopRecord() *loopJob {
	key := typeKey[loopJob]()
	if j := w.cacheGet(key); j != nil {
		return (*loopJob)(unsafe.Pointer(j)) // the key is the record's type
	}
	l := &loopJob{}
	l.run, l.owner, l.key = l, w, key
	return l
}

// forLazy runs the loop [lo, hi) of each or rng as a lazy frame (see
// above), split at once if split is set or another worker is idle and w's
// deque has nothing for it; past lazyDepth frames it runs inline. stop is
// the flag of the loop a piece belongs to, nil for a new loop.
func forLazy(w *Worker, lo, hi, grain int, each func(*Worker, int), rng func(*Worker, int, int), split bool, stop *atomic.Bool) {
	d := w.depth()
	if d >= lazyDepth {
		forInline(w, lo, hi, grain, each, rng)
		return
	}
	key := typeKey[loopJob]()
	j := w.frame(d).j
	if j == nil || j.key != key {
		if j = w.slotRecord(d, key); j == nil {
			j = &w.loopRecord().job
		}
		w.setSlot(d, j, (*loopJob)(unsafe.Pointer(j)))
	}
	l := (*loopJob)(unsafe.Pointer(j)) // the key is the record's type
	l.at, l.hi, l.grain, l.each, l.rng = lo, hi, grain, each, rng
	l.startStop(stop)
	w.pushFrame(d)
	if split || w.idleWaits() {
		w.promoteOldest() // this loop, unless an older frame waits
	}
	finished := false
	defer func() {
		if !finished { // a panic, or runtime.Goexit
			w.settleLoop(l, d, recover())
		}
	}()
	w.runLoop(l, d)
	finished = true
	l.clearArg()
	w.popFrame(d)
}

// runLoop runs l, the record of lazy loop frame d: its own range, then its
// pieces, newest first (see above). A stolen piece's panic is re-raised
// once the other pieces are settled (forLazy's deferred settleLoop).
func (w *Worker) runLoop(l *loopJob, d int) {
	chunk := 1
	for {
		for l.at < l.hi {
			if (w.countdown() || w.beat.Load()) && (w.forkBeat(d) || l.stop.Load()) {
				l.hi = l.at // canceled, or a piece failed: start nothing more
				break
			}
			i := l.at
			if l.each != nil {
				l.at = i + 1
				w.nTasks++
				l.each(w, i)
				continue
			}
			left := span(i, l.hi) // not hi-i, which can overflow
			c := l.grain
			if c == 0 {
				c, chunk = int(min(uint(chunk), max(left/2, 1))), min(2*chunk, pieceCap(left))
			}
			if uint(c) > left {
				c = int(left) // below c, so an int
			}
			l.at = i + c
			w.nTasks++
			l.rng(w, i, i+c)
		}
		p := l.pieces
		if p == nil {
			return
		}
		l.pieces, p.next = p.next, nil
		pl := (*loopJob)(unsafe.Pointer(p))
		if w.takeBack(p) {
			if !w.inv.canceled.Load() && !l.stop.Load() {
				l.at, l.hi = pl.at, pl.hi // run it here, as more of this loop
				w.frame(d).st = frameLazy
			}
			pl.free(w)
			continue
		}
		w.waitForJob(p)
		pe := p.panic
		pl.free(w)
		if pe != nil {
			panic(pe)
		}
	}
}

// settleLoop is settleJoin for a lazy loop whose frame d unwinds early: it takes
// back the pieces split off it so that they never run, or waits for their
// thieves, then ends the frame and re-raises v.
func (w *Worker) settleLoop(l *loopJob, d int, v any) {
	var pe *PanicError
	if v != nil {
		pe = asPanicError(v) // here, while the panicking frames are still on the stack
	}
	l.stop.Store(true) // the pieces other workers take from now on do not start
	for p := l.pieces; p != nil; {
		next := p.next
		p.next = nil
		if !w.discard(p) {
			w.waitFor(&p.latch, p) // its own panic, if any, loses to ours
		}
		(*loopJob)(unsafe.Pointer(p)).free(w)
		p = next
	}
	l.pieces = nil
	l.clearArg()
	w.popFrame(d)
	if pe != nil {
		panic(pe)
	}
}

// promote splits what is left of the loop: the upper half (of the pieces, at
// a fixed grain) becomes a job on w's deque.
func (l *loopJob) promote(w *Worker, fr *lazyFrame, d int, _ bool) (pushed, again bool) {
	mid, ok := splitPoint(l.at, l.hi, l.grain)
	if !ok {
		fr.st = frameRunning // one piece left: nothing to split
		return false, false
	}
	p := w.loopRecord()
	p.at, p.hi, p.grain, p.each, p.rng, p.stop = mid, l.hi, l.grain, l.each, l.rng, l.stop
	l.hi = mid
	p.next, l.pieces = l.pieces, &p.job
	p.inv = w.inv
	w.deque.Push(&p.job)
	_, again = splitPoint(l.at, l.hi, l.grain)
	return true, again
}

// splitPoint returns where a loop's remaining range [at, hi) splits in half
// (a multiple of grain from at, at a fixed grain), and false if it holds a
// single index or piece.
func splitPoint(at, hi, grain int) (int, bool) {
	n := span(at, hi)
	if grain > 0 {
		if n <= uint(grain) {
			return 0, false
		}
		pieces := (n-1)/uint(grain) + 1 // not n+grain-1, which can overflow
		return int(uint(at) + pieces/2*uint(grain)), true
	}
	if n < 2 {
		return 0, false
	}
	return int(uint(at) + n/2), true
}

// execute runs a piece a thief took, as a task of its own.
func (l *loopJob) execute(w *Worker) {
	l.markThief(w)
	l.panic = callLoop(w, l)
	w.flushStats()
	l.latch.set(l.owner)
}

func (l *loopJob) abandon(w *Worker) {
	l.panic = goexitPanic()
	w.flushStats()
	l.latch.set(l.owner)
}

// callLoop is call for a loop piece: it runs the piece as a lazy loop of its
// own on w.
func callLoop(w *Worker, l *loopJob) (pe *PanicError) {
	mark := w.mark()
	ok := false
	defer func() {
		if !ok { // a panic, or runtime.Goexit
			pe = w.settleTask(mark, recover(), nil)
		}
	}()
	if l.stop.Load() {
		return nil // the loop failed: start nothing more of it
	}
	forLazy(w, l.at, l.hi, l.grain, l.each, l.rng, false, l.stop)
	ok = true
	if w.leftovers(mark) {
		pe = w.settleTask(mark, nil, nil)
	}
	return pe
}

// A loop frame never outlives its loop: settleFrames finds one only left
// by a panic, to drop.
func (l *loopJob) settle(w *Worker, fr *lazyFrame, d int) { w.popFrame(d) }

func (l *loopJob) clearArg() { l.each, l.rng, l.pieces, l.stop = nil, nil, nil, nil }

// free returns a joined piece to w's free records.
func (l *loopJob) free(w *Worker) {
	l.clearArg()
	w.cachePut(l.key, &l.job)
}

func forStep(w *Worker, a forArgs) struct{} {
	if w.Canceled() {
		return struct{}{}
	}
	if a.grain > 0 {
		forSpawn(w, a)
		return struct{}{}
	}
	if a.stop.Load() {
		return struct{}{} // a piece panicked: start nothing more
	}
	n := span(a.lo, a.hi)
	if !a.split(w, n) {
		w.tick()
		done := false
		defer stopUnlessDone(a.stop, &done)
		a.body(w, a.lo, a.hi)
		done = true
		return struct{}{}
	}
	mid := int(uint(a.lo) + n/2)
	left, right := a, a
	left.hi, right.lo = mid, mid
	forFunc.Join(w, left, right)
	return struct{}{}
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
