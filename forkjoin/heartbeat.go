package forkjoin

import "time"

// Heartbeat promotion: Func.Join's lazy frames.
//
// Most forks of a recursive algorithm are never stolen, yet an eager fork
// pays for being stealable every time: a fenced push, a fenced pop, a look
// at the sleepers. Func.Join therefore forks lazily, after Acar, Charguéraud,
// Guatto, Rainey and Sieczkowski ("Heartbeat Scheduling", PLDI 2018) and
// Spice: it only records the forked side in a frame of the worker's own
// and runs the inline side; when that returns, it runs the forked side
// inline too. No atomic, no deque operation, no allocation. Every heartbeat
// the worker promotes its oldest lazy frame, the largest piece of work it
// holds, into a real job on its deque, where thieves and helpers find it as
// any forked job; the join of a promoted frame is the eager join (take back,
// else help).
//
// The frames. frames[:nframes] are the Func.Joins running inline on this
// worker, oldest first: frames[d] is the record of the join at nesting depth
// d, which carries the forked side's argument, as an eager fork's record
// does. The records live on the heap (a thief reads them) and stay in their
// slot between joins: the next join at depth d, usually of the same Func,
// finds its record there. frames[:promoteAt] have been promoted, and the
// rest have not: promotion takes frames[promoteAt], the oldest lazy one, so
// the promoted frames are always a prefix. Only the owner touches any of
// this; a thief sees a record only after the deque's publishing store.
//
// Why no work is lost or run twice. A lazy frame's forked side is run by
// exactly one party: if frames[d] is unpromoted when the inline side returns
// (d >= promoteAt), nobody else ever saw the record, and the joiner runs the
// side itself. Otherwise the record went onto the deque exactly once (the
// prefix only grows by one frame at a time, and shrinks only when joins
// return), and from there the deque hands it to exactly one taker: the
// joiner's own pop (takeBackJoin), a thief, or a helper. The promotion and
// the joiner's test of promoteAt are on the same goroutine, so the joiner
// cannot miss a promotion made while the inline side ran: promotion happens
// only inside the inline side, at a fork below this one, on this worker.
//
// Why the deque stays in fork order. The deque must hold older forks nearer
// its top (thieves take the oldest, the largest work, and takeBackJoin's
// single pop relies on nesting). Promotion pushes the oldest lazy frame,
// which is younger than everything already on the deque, except the jobs an
// eager fork (Spawn, Func.Fork, closure Join, a scope's spawn) pushed inside
// a lazy frame. So every eager fork first promotes every lazy frame below it
// (promoteAll): the eager path costs what it did before, and the order holds.
//
// The heartbeat. A ticking goroutine cannot drive it: with every P running a
// worker that never blocks, the Go scheduler runs a timer's goroutine only
// at the next preemption, about 10 ms late. So each worker keeps its own
// clock: every hbEvery forks it reads the time, and promotes a frame if
// heartbeatPeriod has passed since its last promotion. hbEvery adapts, so
// that the clock is read about every checkPeriod whatever the grain of the
// forks. A worker that finds a victim's deque empty sets the victim's beat
// flag (stealFrom), which the victim reads at every fork: a hungry worker
// gets the victim's oldest frame at its next fork instead of at the next
// heartbeat. Nothing ticks while the pool is idle.
//
// The heartbeat check is also where a lazy join sees its invocation's
// cancellation: at most every checkPeriod, or every fork once it was seen.

const (
	// lazyDepth is the deepest lazy nesting; joins deeper fork eagerly.
	lazyDepth = 256
	// heartbeatPeriod is the time between promotions.
	heartbeatPeriod = 100 * time.Microsecond
	// checkPeriod is the time between reads of the clock that hbEvery
	// aims at, and maxCheckEvery its largest value, in forks.
	checkPeriod   = 20 * time.Microsecond
	maxCheckEvery = 1 << 12
)

// epoch is the origin of nanotime.
var epoch = time.Now()

// nanotime reads the monotonic clock.
func nanotime() int64 { return int64(time.Since(epoch)) }

// heartbeat runs every hbEvery lazy forks, and at the first fork after
// another worker asked for work (beat). It reports whether the invocation is
// canceled; otherwise it promotes the oldest lazy frame if a heartbeat has
// passed or work was asked for. Only w's goroutine calls it.
func (w *Worker) heartbeat() (canceled bool) {
	if w.root.canceled.Load() {
		w.hbLeft = 0 // check at every fork until the invocation is gone
		return true
	}
	asked := w.beat.Load()
	if asked {
		w.beat.Store(false)
	}
	now := nanotime()
	switch el := now - w.hbCheck; {
	case el < int64(checkPeriod)/2:
		if w.hbEvery < maxCheckEvery {
			w.hbEvery = 2*w.hbEvery + 1
		}
	case el > 2*int64(checkPeriod):
		w.hbEvery = int(int64(w.hbEvery) * int64(checkPeriod) / el)
	}
	w.hbCheck = now
	w.hbLeft = w.hbEvery
	if (asked || now-w.hbLast >= int64(heartbeatPeriod)) && w.promoteAt < w.nframes {
		w.hbLast = now
		w.deque.Push(w.frames[w.promoteAt])
		w.promoteAt++
		w.pool.sleep.notify()
	}
	return false
}

// promoteAll promotes every lazy frame, oldest first: an eager fork is about
// to push a job younger than all of them. Only w's goroutine calls it.
func (w *Worker) promoteAll() {
	for ; w.promoteAt < w.nframes; w.promoteAt++ {
		w.deque.Push(w.frames[w.promoteAt])
	}
	w.pool.sleep.notify()
}

// requestBeat asks w to promote a lazy frame at its next fork. Any goroutine
// may call it.
func (w *Worker) requestBeat() {
	if !w.beat.Load() {
		w.beat.Store(true)
	}
}

// frameRecord puts a record of f in w's frame slot d, which holds another
// Func's record or none, and returns it. The record it replaces is free (its
// join cleared it) and goes back to the cache.
func (f *Func[A, R]) frameRecord(w *Worker, d int) *job {
	if old := w.frames[d]; old != nil {
		w.cachePut(old.key, old)
	}
	j := &f.get(w).job
	w.frames[d] = j
	return j
}

// settleFrame is settle for a lazy join whose frame, at depth d, unwinds
// early: if the frame was promoted and the forked side may still be pending,
// it takes the side back (it never runs) or waits for its thief; then it
// frees the frame and re-raises v as settle does.
func (f *Func[A, R]) settleFrame(w *Worker, d int, j *funcJob[A, R], st joinState, v any) {
	var pe *PanicError
	if v != nil {
		pe = asPanicError(v) // here, while the panicking frames are still on the stack
	}
	if st != joinRunningB {
		// Joins above d have unwound, so promoteAt <= d+1, and frame d
		// was promoted if it is below.
		if d < w.promoteAt {
			if st == joinWaiting || !w.discard(&j.job) {
				w.waitFor(&j.latch, &j.job) // its own panic, if any, loses to ours
			}
		}
		// Running B, the slot belongs to the forked side's own joins.
		f.clear(j)
		if j.latch.state.Load() != latchUnset {
			j.reset()
		}
	}
	w.nframes = d
	if w.promoteAt > d {
		w.promoteAt = d
	}
	if pe != nil {
		panic(pe)
	}
}
