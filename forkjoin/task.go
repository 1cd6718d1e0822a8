package forkjoin

// How a task starts and ends.
//
// Every task body runs under one of four wrappers: call (a closure's:
// Join's, Spawn's, an invocation's), callFunc (a Func's body), callScopeBody
// (a scope's body) and runFrom (the tasks of a spawn batch). Each takes the
// task's mark, where its forks begin, before the body runs; when the body
// panics, calls runtime.Goexit or leaves forks behind (leftovers), the
// wrapper ends the task with settleTask, which runs or joins what the task
// forked and did not join, closes its open spawn batch and turns its panic
// into a *PanicError. So nothing a task forked outlives it.

// taskForks is what the running task has forked and not yet ended, which
// the task's end settles (settleTask). Owner only.
type taskForks struct {
	// batch is the open spawn batch: a record on no deque, counted in no
	// scope yet, that the running task's next spawns fill (batch.go).
	batch *job
	// open holds the records of Spawn and Func.Fork not yet joined,
	// oldest first (future.go, func.go).
	open []*job
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

// mark returns the mark of a task starting now on w, and seals the top
// frame: the task's spawns do not join a run below its mark (batch.go).
func (w *Worker) mark() taskMark {
	if d := w.depth() - 1; d >= 0 {
		w.frame(d).sealed = true
	}
	return taskMark{len(w.open), w.depth()}
}

// leftovers reports whether the task that began at m left anything for
// settleTask: an unjoined fork, a pending frame, or an open spawn batch.
func (w *Worker) leftovers(m taskMark) bool {
	return len(w.open) > m.open || w.depth() > m.frames || w.batch != nil
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
	if w.depth() > m.frames {
		pe = w.settleFrames(m.frames, pe)
	}
	mark := m.open
	orphans := len(w.open) > mark
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
		j.inv = nil // the record is the handle's now, as a lazy fork's (settleFrames)
		if pe == nil {
			pe = j.panic
		}
	}
	if orphans {
		w.deque.Scrub() // the deque may hold the records the handles have now
	}
	return pe
}

// call runs fn(w) as a task and returns its panic, if any, as a
// *PanicError; see settleTask for what it does before it returns.
func call[T any](w *Worker, fn func(*Worker) T) (r T, pe *PanicError) {
	mark := w.mark()
	ok := false
	defer func() {
		if !ok { // a panic, or runtime.Goexit
			pe = w.settleTask(mark, recover(), nil)
		}
	}()
	r = fn(w)
	ok = true
	if w.leftovers(mark) {
		pe = w.settleTask(mark, nil, nil)
	}
	return r, pe
}

// callFunc is call for a Func's body.
func callFunc[A, R any](w *Worker, fn func(*Worker, A) R, a A) (r R, pe *PanicError) {
	mark := w.mark()
	ok := false
	defer func() {
		if !ok { // a panic, or runtime.Goexit
			pe = w.settleTask(mark, recover(), nil)
		}
	}()
	r = fn(w, a)
	ok = true
	if w.leftovers(mark) {
		pe = w.settleTask(mark, nil, nil)
	}
	return r, pe
}

// callScopeBody is call for a scope's body.
func callScopeBody(s *S, body func(*S)) (pe *PanicError) {
	w := s.w
	mark := w.mark()
	defer func() { pe = w.settleTask(mark, recover(), pe) }()
	body(s)
	return nil
}

// runFrom runs tasks i, i+1, ... until one panics or all ran, and returns
// the index of the next task to run. Each task's end is settled as call's is
// (settleTask: unjoined forks joined, panics recorded), with one deferred
// recovery for the whole run.
func runFrom[T, R any](w *Worker, s *S, i int, tasks []T, run func(*Worker, T) R) (next int) {
	mark := w.mark()
	finished := false
	defer func() {
		if !finished { // a panic, or runtime.Goexit (which goes on after us)
			s.fail(w.settleTask(mark, recover(), nil))
			next = i + 1
		}
	}()
	for ; i < len(tasks) && !w.Canceled(); i++ {
		run(w, tasks[i])
		if w.leftovers(mark) {
			s.fail(w.settleTask(mark, nil, nil))
		}
	}
	finished = true
	return len(tasks)
}
