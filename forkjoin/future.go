package forkjoin

import (
	"unsafe"

	"github.com/fjkit/fjkit/internal/usage"
)

// A Future is a task forked by Spawn, to be joined later. It is a small
// value: copy it freely, but join it once.
type Future[T any] struct {
	j   *closureJob[T] // nil if Spawn started nothing (canceled)
	gen uint32
	d   int32 // 1 + the spawn's frame (heartbeat.go); 0 for an eager one, in w.open
}

// Spawn forks fn and returns a Future to join later, in any order relative
// to other forks. Join every Future exactly once, from the
// task that spawned it. A Future the task leaves unjoined is joined when the
// task returns (its panic, if any, becomes the task's), so no spawned task
// outlives its invocation; but join explicitly: until then it may still be
// running. Once the invocation is canceled, Spawn starts nothing and the
// Future yields the zero value.
//
// In work-stealing mode the spawn is lazy, as Func.Fork's: fn waits in a
// frame of w's own until the Future's Join runs it, unless w offered it to
// thieves first. A spawn nobody was offered makes no fenced
// operation and no allocation beside fn's closure; with its Join it costs
// a few function calls, its Join's deferred call among them (fn's run is a
// task of its own), where the closure's allocation costs about as much
// again.
func Spawn[T any](w *Worker, fn func(w *Worker) T) Future[T] {
	if fn == nil || w == nil || !w.deepInline() || w.depth() >= lazyDepth {
		// Near the task's root (deeper, where Func.Join joins inline, the
		// forks nearer the root checked w; see Worker), or past the
		// frames.
		if f, done := spawnChecked(w, fn); done {
			return f
		}
	}
	// The lazy spawn, in frame d: one call less than a function of its
	// own would cost.
	d := w.depth()
	key := typeKey[closureJob[T]]()
	j := w.frame(d).j
	if j == nil || j.key != key {
		j = closureSlot[T](w, d, key)
	}
	cj := (*closureJob[T])(unsafe.Pointer(j)) // the key is the record's type
	cj.fn = fn
	w.pushFrame(d)
	if (w.countdown() || w.idleWaits()) && w.forkBeat(d) {
		cj.fn = nil
		w.popFrame(d)
		return Future[T]{gen: 1}
	}
	w.nTasks++
	return Future[T]{j: cj, gen: j.gen, d: int32(d) + 1}
}

// closureSlot puts a free closure record of key's type in w's frame slot d
// and returns it.
func closureSlot[T any](w *Worker, d int, key unsafe.Pointer) *job {
	j := w.slotRecord(d, key)
	if j == nil {
		cj := &closureJob[T]{}
		cj.run, cj.owner, cj.key = cj, w, key
		j = &cj.job
	}
	w.setSlot(d, j, nil)
	return j
}

// spawnChecked is Spawn's checks, and its eager fork in shared-queue mode
// and past lazyDepth frames; done is false when Spawn is to fork lazily.
func spawnChecked[T any](w *Worker, fn func(*Worker) T) (f Future[T], done bool) {
	if fn == nil {
		panic("forkjoin.Spawn: fn is nil")
	}
	w.check("forkjoin.Spawn")
	if raceStrands && w.inStrand() {
		return strandSpawn(w, fn), true
	}
	if d := w.depth(); d < lazyDepth && !w.shared {
		return f, false
	}
	if w.Canceled() {
		return Future[T]{gen: 1}, true
	}
	j := newClosureJob(w, fn)
	w.fork(&j.job)
	w.open = append(w.open, &j.job)
	return Future[T]{j: j, gen: j.gen}, true
}

// Join returns the spawned task's result: it runs the task inline if nobody
// took it yet, or helps until it is done. A panic in the task is re-raised as
// a *PanicError. Join panics if the Future was already joined, or if w is
// not the worker that spawned it.
func (f Future[T]) Join(w *Worker) T {
	j := f.j
	d := int(f.d) - 1 // -1 for an eager Future, or one that started nothing
	if w == nil || uint(d) >= uint(w.depth()) {
		return f.join(w)
	}
	// A record in w's frame is w's (records.go), so the frame's is the
	// owner check too; the goroutine's is join's.
	fr := w.frame(d)
	if fr.j != (*job)(unsafe.Pointer(j)) || j.gen != f.gen || !w.onOwnGoroutine() {
		return f.join(w)
	}
	if fr.st != frameLazy {
		return j.joinFrame(w, d)
	}
	// The common case: the frame is pending and nobody else saw it. Run
	// the task here, as a task of its own: call's work, done here to save
	// a call.
	fn := j.fn
	j.fn = nil
	j.gen++ // spent: a second Join panics
	top := d == w.depth()-1
	if top {
		w.popFrame(d) // fn's forks may use the slot
	} else {
		fr.st = frameRunning
	}
	run := inlineTask{mark: w.mark(), d: d, top: top}
	defer w.endInline(&run)
	r := fn(w)
	run.ok = true
	var pe *PanicError
	if w.leftovers(run.mark) {
		pe = w.settleTask(run.mark, nil, nil)
	}
	if !top {
		w.popFrame(d)
	}
	if pe != nil {
		panic(pe)
	}
	return r
}

// inlineTask is a lazy fork's frame d, run inline as a task of its own from
// mark by its handle's Join; top says the frame was popped first.
type inlineTask struct {
	mark    taskMark
	d       int
	top, ok bool // ok: the task returned
}

// endInline is the deferred end of an inline run: if the task panicked or
// called runtime.Goexit, it ends what the task left (settleTask) and the
// frame, and re-raises the task's panic as its *PanicError.
func (w *Worker) endInline(r *inlineTask) {
	if r.ok {
		return
	}
	pe := w.settleTask(r.mark, recover(), nil)
	if !r.top {
		w.popFrame(r.d)
	}
	if pe != nil {
		panic(pe)
	}
}

// join is Join with the checks, and for every Future whose frame is not
// pending any more.
func (f Future[T]) join(w *Worker) T {
	j := f.j
	if j == nil {
		if f.gen == 0 {
			panic(usage.New("forkjoin: Join of a zero Future; use the one Spawn returned"))
		}
		var zero T
		return zero // Spawn started nothing: the invocation was canceled
	}
	if j.gen != f.gen {
		panic(usage.New("forkjoin: Future joined twice"))
	}
	if j.owner != w || !w.onOwnGoroutine() {
		panic(usage.New("forkjoin: Future joined on another worker than the one that spawned it, or from another goroutine; join it from the spawning task"))
	}
	if raceStrands && w.inStrand() {
		strandJoinHandle(w, &j.job, f.gen, "Future")
		return j.res
	}
	if f.d > 0 {
		if d := int(f.d) - 1; d < w.depth() && w.frame(d).j == &j.job {
			return j.joinFrame(w, d)
		}
		// Run when the spawning task returned (settleFrames), which left
		// the record to us.
		return j.result(w)
	}
	if !w.isOpen(&j.job) {
		// Joined for us when the spawning task returned (settleTask).
		return j.result(w)
	}
	// j leaves w.open only once it is done or running here: a Goexit in
	// what takeBack or the wait runs leaves it for settleTask to join.
	if w.takeBack(&j.job) {
		w.closeOpen(&j.job)
		r, pe := call(w, j.fn)
		j.free(w)
		if pe != nil {
			panic(pe)
		}
		return r
	}
	w.waitForJob(&j.job)
	w.closeOpen(&j.job)
	return j.result(w)
}

// result frees j, a record whose task has finished, and returns the task's
// result, or re-raises its panic.
func (j *closureJob[T]) result(w *Worker) T {
	r, pe := j.res, j.panic
	j.free(w)
	if pe != nil {
		panic(pe)
	}
	return r
}

// joinFrame is Future.Join of a lazy spawn whose frame d still holds j; see
// Func.joinFrame, its twin.
func (j *closureJob[T]) joinFrame(w *Worker, d int) T {
	fr := w.frame(d)
	j.gen++ // spent: a second Join panics
	if fr.st == frameLazy || w.takeBack(&j.job) {
		fn := j.fn
		var r T
		j.fn, j.res = nil, r
		top := w.runFrame(&j.job, d)
		r, pe := call(w, fn)
		w.endFrame(d, top)
		if pe != nil {
			panic(pe)
		}
		return r
	}
	w.waitFrame(&j.job, d)
	r, pe := j.res, j.panic
	var zero T
	j.fn, j.res = nil, zero
	w.endWaitedFrame(&j.job, d)
	if pe != nil {
		panic(pe)
	}
	return r
}

// waitForJob is waitFor for j, a forked job a thief took, that does not
// return before j has finished even if a task it runs while helping calls
// runtime.Goexit: the thief may be using the caller's data.
func (w *Worker) waitForJob(j *job) {
	done := false
	defer func() {
		if !done {
			w.waitFor(&j.latch, j)
		}
	}()
	w.waitFor(&j.latch, j)
	done = true
}
