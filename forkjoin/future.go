package forkjoin

// A Future is a task forked by Spawn, to be joined later.
type Future[T any] struct {
	j      *closureJob[T] // nil if Spawn started nothing (canceled)
	joined bool
}

// Spawn makes fn stealable now and returns a Future to join later, in any
// order relative to other forks. Join every Future exactly once, from the
// task that spawned it. A Future the task leaves unjoined is joined when the
// task returns (its panic, if any, becomes the task's), so no spawned task
// outlives its invocation; but join explicitly: until then it may still be
// running. Once the invocation is canceled, Spawn starts nothing and the
// Future yields the zero value.
func Spawn[T any](w *Worker, fn func(w *Worker) T) *Future[T] {
	if fn == nil {
		panic("forkjoin.Spawn: fn is nil")
	}
	w.check("forkjoin.Spawn")
	if w.Canceled() {
		return &Future[T]{}
	}
	j := newClosureJob(w, fn)
	w.fork(&j.job)
	w.open = append(w.open, &j.job)
	return &Future[T]{j: j}
}

// Join returns the spawned task's result: it runs the task inline if nobody
// took it yet, or helps until it is done. A panic in the task is re-raised as
// a *PanicError. Join panics if called twice, or if w is not the worker
// that spawned it.
func (f *Future[T]) Join(w *Worker) T {
	if f.joined {
		panic("forkjoin: Future joined twice")
	}
	f.joined = true
	j := f.j
	if j == nil {
		var zero T
		return zero
	}
	if j.owner != w || !w.onOwnGoroutine() {
		panic("forkjoin: Future joined on another worker than the one that spawned it; join it from the spawning task")
	}
	f.j = nil
	if !w.isOpen(&j.job) {
		// Already joined for us when the spawning task returned
		// (settleTask): the record is no longer ours to reuse.
		if j.panic != nil {
			panic(j.panic)
		}
		return j.res
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
	r, pe := j.res, j.panic
	j.free(w)
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

// isOpen reports whether j is among w's unjoined forks.
func (w *Worker) isOpen(j *job) bool {
	for i := len(w.open) - 1; i >= 0; i-- {
		if w.open[i] == j {
			return true
		}
	}
	return false
}

// closeOpen removes j from w's unjoined forks and reports whether it was
// there. Forks are mostly joined in reverse order, so it looks from the end.
func (w *Worker) closeOpen(j *job) bool {
	for i := len(w.open) - 1; i >= 0; i-- {
		if w.open[i] == j {
			n := copy(w.open[i:], w.open[i+1:])
			w.open[i+n] = nil
			w.open = w.open[:i+n]
			return true
		}
	}
	return false
}

// A taskMark is where a task's forks begin: its first entry in w.open (the
// eager forks it has not joined) and its first frame (heartbeat.go).
type taskMark struct{ open, frames int }

// mark returns the mark of a task starting now on w.
func (w *Worker) mark() taskMark { return taskMark{len(w.open), w.nframes} }

// leftovers reports whether the task that began at m left anything for
// settleTask: an unjoined fork, a pending frame, or an open spawn batch.
func (w *Worker) leftovers(m taskMark) bool {
	return len(w.open) > m.open || w.nframes > m.frames || w.batch != nil
}

// settleTask ends a task: it turns v, a recovered panic value (nil if none
// or for runtime.Goexit), into the task's *PanicError, and ends what the
// task left behind, so that none of it outlives the task: it runs the
// spawns and forks still pending in its frames (those above m.frames; see
// settleFrames), and joins the Spawns and Forks it forked eagerly and left
// unjoined (those above m.open in w.open); the first of their panics
// becomes the task's if it had none. It also closes the task's open spawn
// batch (batch.go). Every task's end runs it: call, callFunc and
// callScopeBody defer it, and a batch's tasks run under runFrom, which calls
// it.
func (w *Worker) settleTask(m taskMark, v any, pe *PanicError) *PanicError {
	w.closeBatch() // batch.go, rule 2
	if v != nil {
		pe = asPanicError(v)
	}
	if w.nframes > m.frames {
		pe = w.settleFrames(m.frames, pe)
	}
	mark := m.open
	for len(w.open) > mark {
		// j stays in w.open until it is done or running here, so that
		// a Goexit in what takeBack or the wait runs still finds it.
		j := w.open[len(w.open)-1]
		if w.takeBack(j) {
			w.closeOpen(j)
			j.run.execute(w)
		} else {
			w.waitForJob(j)
			w.closeOpen(j)
		}
		if pe == nil {
			pe = j.panic
		}
	}
	return pe
}
