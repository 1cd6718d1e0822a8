package forkjoin

// A Future is a task forked by Spawn, to be joined later.
type Future[T any] struct {
	j      *closureJob[T]
	joined bool
}

// Spawn makes fn stealable now and returns a Future to join later, in any
// order relative to other forks. Join every Future exactly once, from the task
// that spawned it: until then it may still be running.
func Spawn[T any](w *Worker, fn func(w *Worker) T) *Future[T] {
	if fn == nil {
		panic("forkjoin.Spawn: fn is nil")
	}
	j := newClosureJob(w, fn)
	w.fork(&j.job)
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
	j := f.j
	if j.owner != w {
		panic("forkjoin: Future joined on another worker than the one that spawned it; join it from the spawning task")
	}
	f.joined = true
	if w.takeBack(&j.job) {
		r, pe := call(w, j.fn)
		if pe != nil {
			panic(pe)
		}
		return r
	}
	w.waitFor(&j.job.latch, &j.job)
	if j.panic != nil {
		panic(j.panic)
	}
	return j.res
}
