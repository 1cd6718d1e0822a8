package forkjoin

import (
	"time"
	"unsafe"
)

// Heartbeat promotion: Func.Join's lazy frames.
//
// Most forks of a recursive algorithm are never stolen, yet an eager fork
// pays for being stealable every time: a fenced push, a fenced pop, a look
// at the sleepers. Func.Join therefore forks lazily, after Acar, Charguéraud,
// Guatto, Rainey and Sieczkowski ("Heartbeat Scheduling", PLDI 2018) and
// Spice: it runs the inline side at once and, when that returns, the forked
// side too, keeping the forked side only where the worker itself can find
// it: in a frame of the worker's own, or for most joins just in the join's
// stack frame. No atomic, no deque operation, no allocation. Every
// heartbeat the worker promotes its oldest promotable frame, the largest
// piece of work it holds, into a real job on its deque, where thieves and
// helpers find it as any forked job; the join of a promoted frame is the
// eager join (take back, else help).
//
// The frames. frames[:nframes] are the lazy Func.Joins running on this
// worker, oldest first: frames[d] holds the record of the d-th, which
// carries the forked side's argument as an eager fork's record does, and
// the join's state. The records live on the heap (a thief reads them; Go
// moves goroutine stacks, so nothing a thief reads may point into one) and
// stay in their slot between joins: the next join at that depth, usually of
// the same Func, finds its record there. Only the owner touches the frames;
// a thief sees a record only after the deque's publishing store. No frame
// below promoteAt may be promoted any more.
//
// Lazy and inline joins. Only a join with a deferred settle may be
// promoted: if f(a) panics, or calls runtime.Goexit, the join must not
// unwind past its caller (whose defers may free what f(b) uses) before a
// promoted f(b) has been taken back or has finished on its thief. That
// defer, with the frame, costs most of a lazy join, so only the joins that
// find fewer than protectDepth frames above promoteAt are lazy (joinLazy):
// they push a frame and defer its settle. Every other join is inline
// (Join): it calls f(a) and f(b) with no frame, no record and no defer, and
// is never promoted; a panic through it has nothing to settle. An inline
// join still costs its own call and two calls through the Func's func
// value, with the spills Go's register ABI makes around each: about twice
// the two direct calls it stands for. Worker.Inline is its test (Join
// begins with it), small enough to be inlined: a recursion that asks it
// first makes those two calls itself, directly, and calls Join only when
// it says false. Heartbeats
// promote the oldest frames first, and those are the lazy ones: in a
// divide-and-conquer recursion the few joins near the root are lazy and
// almost every other one is inline. When no lazy frame is left to promote,
// promoteAt moves to the top of the stack, so the joins forked next are
// lazy again: an inline join's f(b) runs on its own worker, but the lazy
// frames forked inside it are stealable, so no parallelism is lost for good.
//
// Why no work is lost or run twice. A frame's f(b) is run by exactly one
// party. Promotion changes a lazy frame's state to promoted, and pushes its
// record on the deque, once: a frame is promoted only from the lazy state.
// When f(a) returns, the join reads the state: still lazy, then nobody else
// ever saw the record, and the join runs f(b) itself; promoted, then the
// deque hands the record to exactly one taker: the joiner's own pop
// (takeBackJoin), a thief, or a helper. Promotion and the joiner's read of
// the state are on the same goroutine, so the joiner cannot miss a
// promotion made while f(a) ran: promotion happens only inside f(a), at a
// fork or an eager fork below this one, on this worker. An inline join's
// f(b) never leaves its own stack frame.
//
// Why the deque stays in fork order. The deque must hold older forks nearer
// its top (thieves take the oldest, the largest work, and takeBackJoin's
// single pop relies on nesting). Promotion pushes the oldest lazy frame,
// which is younger than everything already on the deque, except the jobs an
// eager fork (Spawn, Func.Fork, closure Join, a scope's spawn) pushed inside
// a lazy frame. So every eager fork first promotes every lazy frame below it
// (promoteAll): the eager path costs what it did before, and the order holds.
// A change of invocation (a nested Invoke, a stolen task of another one)
// does the same, so lazy frames need not record their invocation.
//
// The heartbeat. Each worker keeps its own clock: every hbEvery forks it
// reads the time, and promotes a frame if heartbeatPeriod has passed since
// its last promotion; hbEvery adapts, so that the clock is read about every
// checkPeriod whatever the grain of the forks. A worker that finds a
// victim's deque empty sets the victim's beat flag (stealFrom), which the
// victim reads every hbStride forks or sooner: a hungry worker gets the
// victim's oldest frame within a few forks instead of at the next heartbeat.
// Nothing ticks while the pool is idle. (A ticking goroutine setting the
// flags instead needs a P to run on: with every P running a worker, Go runs
// it only when one of them enters the scheduler.)
//
// The heartbeat check is also where a lazy join sees its invocation's
// cancellation: every hbStride forks, or every fork once it was seen.

const (
	// lazyDepth is the deepest nesting of frames; joins deeper fork
	// eagerly.
	lazyDepth = 256
	// protectDepth: a join that finds fewer frames than this above
	// promoteAt is lazy, the others are inline (see above). Of 2, 4, 8
	// and 16, 8 measured best (docs/benchmarks.md): more makes one worker
	// pay for lazy frames it never needs, fewer leave thieves less to steal.
	protectDepth = 8
	// maxCheckEvery is the largest hbEvery, in forks.
	maxCheckEvery = 1 << 12
	// hbStride is the most forks between two looks at the beat flag and
	// the invocation's cancellation.
	hbStride = 32
)

// The heartbeat's periods, in nanoseconds: the time between promotions,
// and the time between reads of the clock that hbEvery aims at. Variables
// only so that tests can make every fork promote; read on the slow path.
var (
	heartbeatPeriod = int64(100 * time.Microsecond)
	checkPeriod     = int64(20 * time.Microsecond)
)

// A lazyFrame is one of Worker.frames: the record of the join at its depth,
// kept there between joins, and where that join is.
type lazyFrame struct {
	j  *job
	st frameState
}

type frameState uint8

const (
	frameLazy     frameState = iota // running f(a); may be promoted
	framePromoted                   // running f(a); promoted to the deque
	frameRunningB                   // running f(b) inline
	frameWaiting                    // a thief runs f(b); helping until it is done
)

// nanotime reads the monotonic clock, in the workers' common origin
// (yield.go's epoch).
func nanotime() int64 { return int64(now()) }

// heartbeat runs every hbStride forks or fewer (every fork, when forks are
// slow). It reports whether the invocation is canceled. Otherwise it
// promotes the oldest lazy frame if another worker asked for work, or, every
// hbEvery forks, reads the clock and promotes one if heartbeatPeriod has
// passed since the last time. Only w's goroutine calls it.
func (w *Worker) heartbeat() (canceled bool) {
	canceled, promote := w.beatDue()
	if promote {
		w.promoteOldest()
	}
	return canceled
}

// beatDue is heartbeat without the promotion: it reports whether the
// invocation is canceled, and whether a frame should be promoted now (the
// beat flag, or heartbeatPeriod passed). A fixed-grain loop (forChunks)
// calls it to decide when to split. Only w's goroutine calls it.
func (w *Worker) beatDue() (canceled, promote bool) {
	if w.root.canceled.Load() {
		w.hbLeft = 0 // look again at every fork until the invocation is gone
		return true, false
	}
	if w.beat.Load() {
		w.beat.Store(false)
		promote = true
	}
	if w.hbStrides--; w.hbStrides <= 0 {
		now := nanotime()
		switch el := now - w.hbCheck; {
		case el < checkPeriod/2:
			if w.hbEvery < maxCheckEvery {
				w.hbEvery = 2*w.hbEvery + 1
			}
		case el > 2*checkPeriod:
			w.hbEvery = int(int64(w.hbEvery) * checkPeriod / el)
		}
		w.hbCheck = now
		w.hbStrides = w.hbEvery/hbStride + 1
		if now-w.hbLast >= heartbeatPeriod {
			w.hbLast = now
			promote = true
		}
		// Lazy forks do not tick (yield.go): this clock read serves the
		// yield rule for them.
		if t := time.Duration(now); t-w.lastYield >= yieldInterval {
			w.yield(t)
		}
	}
	w.hbLeft = min(w.hbEvery, hbStride-1)
	return false, promote
}

// promoteOldest promotes the oldest lazy frame and reports whether there
// was one. With none left, it moves promoteAt to the top, so that the joins
// forked next are lazy frames. Only w's goroutine calls it.
func (w *Worker) promoteOldest() bool {
	for k := w.promoteAt; k < w.nframes; k++ {
		if fr := &w.frames[k]; fr.st == frameLazy {
			w.promoteAt = k + 1
			w.promote(fr)
			w.pool.sleep.notify()
			return true
		}
	}
	w.promoteAt = w.nframes
	return false
}

// promoteAll promotes every lazy frame, oldest first: an eager fork is about
// to push a job younger than all of them, or w is about to change
// invocations. Only w's goroutine calls it.
func (w *Worker) promoteAll() {
	for ; w.promoteAt < w.nframes; w.promoteAt++ {
		if fr := &w.frames[w.promoteAt]; fr.st == frameLazy {
			w.promote(fr)
		}
	}
	w.pool.sleep.notify()
}

// promote makes fr's record a job of w's invocation on w's deque.
func (w *Worker) promote(fr *lazyFrame) {
	w.nPromoted++
	fr.st = framePromoted
	fr.j.root = w.root
	w.deque.Push(fr.j)
}

// requestBeat asks w to promote a lazy frame at its next heartbeat check.
// Any goroutine may call it.
func (w *Worker) requestBeat() {
	if !w.beat.Load() {
		w.beat.Store(true)
	}
}

// popFrame ends the frame at depth d, the newest.
func (w *Worker) popFrame(d int) {
	w.nframes = d
	if w.promoteAt > d {
		w.promoteAt = d
	}
}

// frameRecord puts a record of f in w's frame slot d, which holds another
// Func's record or none, and returns it. The record it replaces is free (its
// join cleared it) and goes back to the cache.
func (f *Func[A, R]) frameRecord(w *Worker, d int) *job {
	fr := &w.frames[d]
	if old := fr.j; old != nil {
		w.cachePut(old.key, old)
	}
	fr.j = &f.get(w).job
	return fr.j
}

// joinLazy is Join with a lazy frame at depth d, which a heartbeat may
// promote while f(a) runs.
func (f *Func[A, R]) joinLazy(w *Worker, a, b A, d int) (ra, rb R) {
	w.checkLive()
	if d >= lazyDepth {
		return f.joinEager(w, a, b)
	}
	fr := &w.frames[d]
	j := fr.j
	if j == nil || j.key != unsafe.Pointer(f) {
		j = f.frameRecord(w, d)
	}
	fj := (*funcJob[A, R])(unsafe.Pointer(j)) // the key is the record's type
	fj.arg = b
	fr.st = frameLazy
	w.nframes = d + 1
	if w.hbLeft--; w.hbLeft < 0 || d == 0 {
		if w.heartbeat() {
			f.clear(fj)
			w.popFrame(d)
			return ra, rb
		}
		if d == 0 && fr.st == frameLazy {
			// A worker's outermost frame, the first fork of a root or
			// stolen task, is the largest piece it will hold: offer it
			// at once.
			w.promoteAt = 1
			w.promote(fr)
			w.pool.sleep.notify()
		}
	}
	w.nTasks++
	// As in the eager join, the deferred settle is what lets a panic in
	// f(a) wait for a promoted f(b) before it leaves this frame. A join
	// that returns has popped its frame.
	defer func() {
		if w.nframes > d {
			// Still here: a panic or runtime.Goexit is unwinding us.
			w.settleFrame(d, recover())
		}
	}()
	ra = f.fn(w, a)
	if fr.st == framePromoted && !w.takeBackJoin(j) {
		fr.st = frameWaiting
		w.waitFor(&j.latch, j)
		rb, pe := fj.res, j.panic
		f.clear(fj)
		j.reset()
		j.root = nil // records.go, rule 4
		w.popFrame(d)
		if pe != nil {
			panic(pe)
		}
		return ra, rb
	}
	// Never promoted, or taken back: nobody else has the record.
	fr.st = frameRunningB
	arg := fj.arg
	var zero A
	fj.arg = zero
	j.root = nil // set if promoted; records.go, rule 4
	rb = f.fn(w, arg)
	w.popFrame(d)
	return ra, rb
}

// settleFrame is settle for a lazy join whose frame, at depth d, unwinds
// early: if its f(b) may still be pending (the frame was promoted and its
// join had not run f(b) itself), it takes f(b) back so that it never runs,
// or waits for its thief; then it frees the frame and re-raises v as settle
// does.
func (w *Worker) settleFrame(d int, v any) {
	var pe *PanicError
	if v != nil {
		pe = asPanicError(v) // here, while the panicking frames are still on the stack
	}
	fr := &w.frames[d]
	j := fr.j
	switch fr.st {
	case framePromoted:
		if !w.discard(j) {
			w.waitFor(&j.latch, j) // its own panic, if any, loses to ours
		}
	case frameWaiting:
		w.waitFor(&j.latch, j)
	}
	j.run.(argClearer).clearArg()
	if j.latch.state.Load() != latchUnset {
		j.reset()
	}
	j.root = nil
	w.popFrame(d)
	if pe != nil {
		panic(pe)
	}
}

// argClearer is implemented by the records frames hold (funcJob), so that
// settleFrame can free one without knowing its type.
type argClearer interface{ clearArg() }

func (j *funcJob[A, R]) clearArg() { j.fn().clear(j) }
