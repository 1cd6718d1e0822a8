package forkjoin

import (
	"time"
	"unsafe"
)

// Heartbeat promotion: lazy frames.
//
// Most forks of a recursive algorithm are never stolen, yet an eager fork
// pays for being stealable every time: a fenced push, a fenced pop, a look
// at the sleepers. Every fork point of work-stealing mode (Func.Join and
// Join, Func.Fork and Spawn, S.Go and Func.Go, For, ForRange and Reduce)
// therefore forks lazily, after Acar, Charguéraud, Guatto, Rainey and
// Sieczkowski ("Heartbeat Scheduling", PLDI 2018), Spice and TPAL: it keeps
// the forked work where only its own worker can find it, in a frame of the
// worker's own, and runs it itself when the code that forked it gets there.
// No atomic, no deque operation, no allocation. Every heartbeat the worker
// promotes its oldest promotable frame, the largest piece of work it holds,
// into a real job on its deque, where thieves and helpers find it as any
// forked job; the join of a promoted frame is the eager join (take back,
// else help).
//
// The frames. frames[:nframes] are the lazy forks pending on this worker,
// oldest first. frames[d] holds a record, which carries the forked work as
// an eager fork's record does, and the frame's state. The records live on
// the heap (a thief reads them; Go moves goroutine stacks, so nothing a
// thief reads may point into one) and stay in their slot between forks: the
// next fork at that depth, usually of the same kind, finds its record there.
// Only the owner touches the frames; a thief sees a record only after the
// deque's publishing store. No frame below promoteAt may be promoted any
// more. A frame is one of four kinds, told apart by its record (ops):
//
//   - a join (Func.Join, Join): f(b), pending while f(a) runs; promoted, its
//     record is pushed as the eager join's is. Its join ends it.
//   - a fork (Func.Fork, Spawn): a call pending until its handle's Join or
//     the end of the task that forked it; promoted, as a join's.
//   - a spawn run (S.Go, Func.Go): up to spawnBatch consecutive spawns of
//     one kind into one scope, the scope's tasks, pending until the end of
//     the task that spawned them, which runs them (settleFrames); promoted,
//     the older half of its pending tasks becomes a spawn batch (batch.go),
//     and the frame stays promotable while any is pending.
//   - a loop (For, ForRange, Reduce, ReduceW): the indices [next, hi) not
//     yet run; promoted, it splits: the upper half of what is left becomes
//     a job, and the frame, which stays promotable while two pieces are left,
//     keeps the job in its list to join when its own part is done.
//
// Joins and loops are strictly nested in their callers, forks and spawns
// only in the task that made them: a join or loop that returns with frames
// above its own (a Fork made inside f(a) and not joined yet) cannot pop its
// frame, and leaves it as a hole (frameDone), popped with the frames above
// it. Every task's end (settleTask, run by every task boundary) ends the
// frames its task left above its mark: forks run (or are joined) and keep
// their results for a late Join, spawns run as tasks of their scopes, the
// top frame first (settleFrames).
//
// Lazy and inline joins and loops. A join or loop that may be promoted
// needs a deferred settle: if f(a) (or a loop body) panics, or calls
// runtime.Goexit, the join must not unwind past its caller (whose defers
// may free what f(b) uses) before a promoted f(b) has been taken back or
// has finished on its thief. That defer, with the frame, costs most of a
// lazy join, so only the joins and loops that find fewer than protectDepth
// frames above promoteAt are lazy (joinLazy, forLazy): they push a frame
// and defer its settle. Every other one is inline: Func.Join calls f(a) and
// f(b) with no frame, no record and no defer, a loop calls its body on
// every index; neither is ever promoted, and a panic through them has
// nothing to settle. An inline join still costs its own call and two calls
// through the Func's func value, with the spills Go's register ABI makes
// around each: about twice the two direct calls it stands for.
// Worker.Inline is its test (Join begins with it), small enough to be
// inlined: a recursion that asks it first makes those calls itself,
// directly, and forks only when it says false. Heartbeats promote the
// oldest frames first, and those are the lazy ones: in a divide-and-conquer
// recursion the few joins near the root are lazy and almost every other one
// is inline. When no lazy frame is left to promote, promoteAt moves to the
// top of the stack if another worker is looking for work or parked, so the
// forks made next are lazy again: an inline join's f(b) runs on its own
// worker, but the lazy frames forked inside it are stealable, so no
// parallelism is lost for good; while every worker is busy they stay
// inline, and cost nothing. Forks and spawns need
// no defer of their own (their task's end settles them), so they always
// push a frame.
//
// Why no work is lost or run twice. A frame's work is run by exactly one
// party. Promotion changes a lazy frame's state, and pushes its record on
// the deque, once (a loop pushes a new record for each piece it splits
// off): a frame is promoted only from the lazy state. When the code that
// forked it gets there (f(a) returns, the handle is joined, the task ends,
// a loop's own part is done), it reads the state on the same goroutine:
// still lazy, then nobody else ever saw the record, and it runs the work
// itself; promoted, then the deque hands the record to exactly one taker:
// the owner's own pop (takeBack), a thief, or a helper. The owner cannot
// miss a promotion: promotion happens only on the owner's goroutine, at a
// fork, an eager fork or a change of invocation. An inline join's f(b)
// never leaves its own stack frame.
//
// Why the deque stays in fork order. The deque must hold older forks nearer
// its top (thieves take the oldest, the largest work, and takeBackJoin's
// single pop relies on nesting). Promotion pushes the oldest lazy frame,
// which is younger than everything already on the deque, except the jobs an
// eager fork (shared-queue fallbacks, an eager spawn batch, a join past
// lazyDepth) pushed inside a lazy frame. So every eager fork first promotes
// every lazy frame below it (promoteAll): the eager path costs what it did
// before, and the order holds. A change of invocation (a nested Invoke, a
// stolen task of another one) does the same, so lazy frames need not
// record their invocation.
//
// The heartbeat. A worker promotes a frame if heartbeatPeriod has passed
// since its last promotion, which it learns at a read of its clock
// (clock.go), about every checkPeriod whatever the grain of the forks. A
// worker that finds a victim's deque empty sets the victim's beat flag
// (stealFrom), which the victim reads at every check, every checkStride ticks
// or sooner: a hungry worker gets the victim's oldest frame within a few
// forks instead of at the next heartbeat. Nothing ticks while the pool is
// idle. (A ticking goroutine setting the flags instead needs a P to run on:
// with every P running a worker, Go runs it only when one of them enters
// the scheduler.)
//
// The check is also where a lazy fork sees its invocation's cancellation:
// every checkStride ticks, or every fork once it was seen.

const (
	// lazyDepth is the most frames a worker holds; forks beyond it are
	// eager (joins, forks, spawns) or inline (loops).
	lazyDepth = 256
	// protectDepth: a join that finds fewer frames than this above
	// promoteAt is lazy, the others are inline (see above). Of 2, 4, 8
	// and 16, 8 measured best (docs/benchmarks.md): more makes one worker
	// pay for lazy frames it never needs, fewer leave thieves less to steal.
	protectDepth = 8
)

// heartbeatPeriod is the time between promotions. A variable only so that
// tests can make every fork promote; read on the slow path.
var heartbeatPeriod = 100 * time.Microsecond

// lazyFrames is a worker's lazy forks and the heartbeat that promotes
// them. Owner only; a thief sees a frame's record only once promotion has
// pushed it on the deque.
type lazyFrames struct {
	// frames[:nframes] are the pending lazy forks, oldest first; none
	// below promoteAt may be promoted any more.
	nframes, promoteAt int
	lastBeat           time.Duration // the time of the last heartbeat (clock.go's now)
	nPromoted          uint64        // frames promoted, for tests and benchmarks
	offer              bool          // promote the next fork's frame at once (offerFirst)
	frames             [lazyDepth]lazyFrame
}

// The frame stack's fields (nframes, promoteAt, frames) are touched in
// this file only; the fork points elsewhere use these methods, which the
// compiler inlines. Only w's goroutine calls them.

// depth returns how many frames w holds: the depth of w's next lazy fork.
func (w *Worker) depth() int { return w.nframes }

// deepInline reports whether a fork here runs inline: protectDepth frames
// or more lie above the promotion frontier (promoteAt), so its own frame
// would not be promoted before they are.
func (w *Worker) deepInline() bool { return w.nframes-w.promoteAt >= protectDepth }

// promotable reports whether w holds frames the heartbeat may promote.
func (w *Worker) promotable() bool { return w.promoteAt < w.nframes }

// frame returns w's frame slot d.
func (w *Worker) frame(d int) *lazyFrame { return &w.frames[d] }

// pushFrame makes slot d, just above the top, the top frame, pending.
func (w *Worker) pushFrame(d int) {
	w.frames[d].st = frameLazy
	w.nframes = d + 1
}

// A lazyFrame is one of Worker.frames: the record of the fork at its depth,
// kept there between forks, what kind of frame it is, and where it is.
type lazyFrame struct {
	j *job
	// ops is the record's frame behaviour for spawns and loops, nil for
	// the records of joins and forks (funcJob, closureJob), whose
	// promotion is a push and whose settle is their execute.
	ops frameOps
	st  frameState
	// sealed: a task started above this frame (Worker.mark), so it is
	// no spawn run the running task may append to (batch.go).
	sealed bool
}

// frameOps is what a spawn's or a loop's record does as a frame. Only the
// frame's worker calls these, on its goroutine.
type frameOps interface {
	// promote makes the pending work of fr, frame d, stealable: it
	// reports whether it pushed a job, and whether fr may be promoted again
	// (a loop with two pieces left, a spawn run with tasks left). A frame
	// with nothing to push leaves the lazy state. With all set
	// (promoteAll), a spawn run pushes all its pending tasks; a loop splits
	// once either way.
	promote(w *Worker, fr *lazyFrame, d int, all bool) (pushed, again bool)
	// settle, for fr, the top frame d, at its task's end (settleFrames),
	// runs a spawn run's tasks while fr stays on top, popping it before
	// its last one, or drops a loop's frame that a panic left.
	settle(w *Worker, fr *lazyFrame, d int)
}

type frameState uint8

const (
	frameLazy     frameState = iota // pending; may be promoted
	framePromoted                   // pending; its record is on the deque
	frameRunning                    // running on its own worker (a join's f(b), a fork run inline), or a spawn run promotion emptied; not promotable
	frameWaiting                    // a thief runs it; its joiner helps until it is done
	frameDone                       // ended below a frame still pending: a hole, popped with the frames above
)

// heartbeat runs at a check (clock.go): every checkStride ticks or fewer
// (every fork, when forks are slow). It reports whether the invocation is
// canceled. Otherwise it promotes the oldest lazy frame if another worker
// asked for work, or, at a clock read, if heartbeatPeriod has passed since
// the last heartbeat and a worker is looking for work or parked. Only w's
// goroutine calls it.
func (w *Worker) heartbeat() (canceled bool) {
	canceled, promote := w.beatDue()
	if promote {
		w.promoteOldest()
	}
	return canceled
}

// beatDue is heartbeat without the promotion: it reports whether the
// invocation is canceled, and whether a frame should be promoted now (the
// beat flag, or heartbeatPeriod passed). An inline loop (loopBeat) calls
// it to decide whether to go on as a lazy loop. Only w's goroutine calls
// it.
func (w *Worker) beatDue() (canceled, promote bool) {
	if w.inv.canceled.Load() {
		w.checkNext() // look again at every fork until the invocation is gone
		return true, false
	}
	if w.beat.Load() {
		w.beat.Store(false)
		promote = true
	}
	if t, read := w.checkClock(); read && t-w.lastBeat >= heartbeatPeriod {
		// Promote only for a worker that looks for work or is parked
		// (it asks, through the beat flag, once it searches): while
		// every worker is busy, a promotion would only move the
		// frontier down and make the forks below it lazy. A period of
		// 0 (tests) always promotes.
		w.lastBeat = t
		promote = promote || heartbeatPeriod == 0 || w.pool.sleep.hungry()
	}
	return false, promote
}

// promoteOldest promotes the oldest lazy frame and reports whether there
// was one. With none left, while another worker is looking for work or
// parked, it moves promoteAt to the top, so that the forks made next are
// lazy frames: with every worker busy, the next forks stay inline. Only w's
// goroutine calls it.
func (w *Worker) promoteOldest() bool {
	for k := w.promoteAt; k < w.nframes; k++ {
		if fr := &w.frames[k]; fr.st == frameLazy {
			w.promoteAt = k + 1
			pushed, again := w.promote(fr, k, false)
			if again {
				w.promoteAt = k // a loop or a run: what is left is still the oldest work
			}
			if pushed {
				w.pool.sleep.notify()
				return true
			}
		}
	}
	if w.pool.sleep.hungry() {
		w.promoteAt = w.nframes
	}
	return false
}

// promoteAll promotes every lazy frame, oldest first, a loop once: an eager
// fork is about to push a job younger than all of them, or w is about to
// change invocations. Only w's goroutine calls it.
func (w *Worker) promoteAll() {
	for ; w.promoteAt < w.nframes; w.promoteAt++ {
		if fr := &w.frames[w.promoteAt]; fr.st == frameLazy {
			w.promote(fr, w.promoteAt, true)
		}
	}
	w.pool.sleep.notify()
}

// promote makes the pending work of fr, frame d, a job of w's invocation on
// w's deque; see frameOps.promote.
func (w *Worker) promote(fr *lazyFrame, d int, all bool) (pushed, again bool) {
	if fr.ops != nil {
		pushed, again = fr.ops.promote(w, fr, d, all)
	} else {
		fr.st = framePromoted
		fr.j.inv = w.inv
		w.deque.Push(fr.j)
		pushed = true
	}
	if pushed {
		w.nPromoted++
	}
	return pushed, again
}

// requestBeat asks w to promote a lazy frame at its next heartbeat check.
// Any goroutine may call it.
func (w *Worker) requestBeat() {
	if !w.beat.Load() {
		w.beat.Store(true)
	}
}

// forkBeat is the heartbeat of a fork that pushed frame d: due every
// checkStride ticks, and at the first fork of a root or stolen task that a
// worker with no frames runs (offerFirst), which is the largest piece it
// will hold and is offered at once. It promotes the oldest lazy frame
// whenever a worker waits for work while w's deque has none (idleWaits),
// at a heartbeat as between them. It reports whether the invocation is
// canceled. Only w's goroutine calls it.
func (w *Worker) forkBeat(d int) (canceled bool) {
	if !w.countedOut() {
		w.promoteOldest()
		return false
	}
	canceled, promote := w.beatDue()
	if canceled {
		return true
	}
	if promote || w.idleWaits() {
		w.promoteOldest()
	}
	if w.offer {
		w.offer = false
		if d != 0 {
			return false
		}
		if fr := &w.frames[0]; fr.st == frameLazy && w.promoteAt == 0 {
			if _, again := w.promote(fr, 0, false); !again {
				w.promoteAt = 1
			}
			w.pool.sleep.notify()
		}
	}
	return false
}

// idleWaits reports whether a worker is looking for work or parked while
// w's deque has nothing for it: then a lazy fork promotes at once, instead
// of at the next heartbeat, which a fork that runs long without forking
// again (a spawned task, or f(a), that computes) may not reach for long.
// Only w's goroutine calls it.
func (w *Worker) idleWaits() bool {
	return w.pool.sleep.hungry() && w.deque.Len() == 0
}

// offerFirst arranges for the first fork of the job w starts now to be
// offered to thieves at once (forkBeat), if w holds no frame: the job is
// then the largest piece of work w has. Only w's goroutine calls it.
func (w *Worker) offerFirst() {
	if w.nframes == 0 {
		w.offer = true
		w.checkNext() // the next fork's countdown runs forkBeat
	}
}

// popFrame ends frame d, which its join, loop or handle has finished with:
// if it is the top frame, it is popped, with the holes below it; else it
// becomes a hole.
func (w *Worker) popFrame(d int) {
	if d != w.nframes-1 {
		w.frames[d].st = frameDone
		return
	}
	for d > 0 && w.frames[d-1].st == frameDone {
		d--
	}
	w.nframes = d
	if w.promoteAt > d {
		w.promoteAt = d
	}
}

// The join of a lazy fork or spawn whose frame d still holds its record j
// (Func.joinFrame, closureJob.joinFrame) either runs the task itself, between
// runFrame and endFrame, or waits for the thief that took it, between
// waitFrame and endWaitedFrame.

// runFrame readies frame d for its task to run here, after the caller took
// the task's argument out of j: j's latch is reset if a promotion armed it,
// and the frame is popped at once if it is the top one, so that the task's
// own forks may use the slot (top is then true), else marked running.
func (w *Worker) runFrame(j *job, d int) (top bool) {
	if j.latch.state.Load() != latchUnset {
		j.reset()
	}
	j.inv = nil // set if promoted; records.go, rule 4
	if d == w.nframes-1 {
		w.popFrame(d)
		return true
	}
	w.frames[d].st = frameRunning
	return false
}

// endFrame ends frame d after its task ran here; top is runFrame's result.
func (w *Worker) endFrame(d int, top bool) {
	if !top {
		w.popFrame(d)
	}
}

// waitFrame waits for the thief running frame d's task j.
func (w *Worker) waitFrame(j *job, d int) {
	w.frames[d].st = frameWaiting
	w.waitForJob(j)
}

// endWaitedFrame ends frame d after waitFrame, once the caller has read j's
// result and cleared it.
func (w *Worker) endWaitedFrame(j *job, d int) {
	j.reset()
	j.inv = nil // records.go, rule 4
	w.popFrame(d)
}

// slotRecord puts a free record of key in w's frame slot d, which holds
// another kind's record or none, and returns it: from w's cache, else nil
// (the caller makes one and calls setSlot). The record it replaces is free
// (its frame cleared it) and goes back to the cache.
func (w *Worker) slotRecord(d int, key unsafe.Pointer) *job {
	fr := &w.frames[d]
	if old := fr.j; old != nil {
		w.cachePut(old.key, old)
		fr.j, fr.ops = nil, nil
	}
	return w.cacheGet(key)
}

// setSlot makes j, with frame behaviour ops (nil for a join's or fork's
// record), the record of w's frame slot d.
func (w *Worker) setSlot(d int, j *job, ops frameOps) {
	fr := &w.frames[d]
	fr.j, fr.ops = j, ops
}

// settleFrames ends the frames a task left above mark, at the task's end
// (settleTask), the top one first: pending forks run, or are joined if
// promoted, and keep their results in their records, which leave their
// slots for the handle's late Join; pending spawn runs run as tasks of
// their scopes, their panics recorded there, and each spawned task's own
// runs, pushed above its run, are taken next (settleRun), so that the
// spawns of a tree are walked depth first in one loop. Frames that are
// holes, or that a panic or runtime.Goexit left running or waiting, are
// dropped. pe is the task's panic so far; the first fork's panic becomes it
// if it is nil. Only w's goroutine calls it.
func (w *Worker) settleFrames(mark int, pe *PanicError) *PanicError {
	for w.nframes > mark {
		pe = w.settleFramesFrom(mark, pe)
	}
	w.promoteAt = min(w.promoteAt, mark)
	return pe
}

// settleFramesFrom is settleFrames until a spawned task panics, or calls
// runtime.Goexit: the panic goes to the task's scope, and settleFrames
// calls it again for the frames left, the rest of the task's run and the
// task's own spawns among them. (A run is popped before its last task
// runs, so no frame is left half ended.)
func (w *Worker) settleFramesFrom(mark int, pe *PanicError) (rpe *PanicError) {
	rpe = pe
	var (
		running bool // a spawned task runs
		s       *S   // ... of this scope
	)
	defer func() {
		if running {
			if v := recover(); v != nil {
				s.fail(asPanicError(v))
			} else {
				s.fail(goexitPanic()) // runtime.Goexit, which goes on unwinding
			}
		}
	}()
	for w.nframes > mark {
		k := w.nframes - 1
		fr := &w.frames[k]
		switch {
		case fr.st == frameLazy && fr.ops != nil: // a spawn run
			running, s = true, fr.j.scope
			fr.ops.settle(w, fr, k)
			running = false
		case fr.st == frameLazy || fr.st == framePromoted: // a fork nobody joined
			j := fr.j
			fr.j = nil // the record is the handle's now, for its late Join
			promoted := fr.st == framePromoted
			if !promoted || w.takeBack(j) {
				fr.st = frameRunning
				j.run.execute(w)
			} else {
				w.waitForJob(j)
			}
			// Only the handle may reach the record now: a handle dropped
			// unjoined then keeps nothing reachable (records.go, rule 4).
			j.inv = nil
			if promoted {
				w.deque.Scrub()
			}
			w.popFrame(k)
			if rpe == nil {
				rpe = j.panic
			}
		default:
			w.popFrame(k)
		}
	}
	return rpe
}
