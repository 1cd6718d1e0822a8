package forkjoin

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// pendingPerWorker bounds how many of a scope's tasks may wait at once, per
// worker of the pool. Thieves take half of a deque at a time, so this is
// enough to keep every worker fed with a few hundred steals per million tasks.
const pendingPerWorker = 16384

// S is a scope: a set of spawned tasks that Scope waits for.
type S struct {
	w       *Worker
	limit   int64        // pending tasks beyond which Go runs tasks inline
	eager   int64        // pending tasks up to which each spawn is published at once
	ended   atomic.Bool  // Scope has returned: Go panics
	pending atomic.Int64 // tasks spawned and not finished
	sleepy  atomic.Bool  // the owner armed the scope and may be parked
	panic   atomic.Pointer[PanicError]
}

// Scope calls body with a scope, on which body spawns any number of tasks
// with s.Go, and returns when body and every spawned task have finished. While
// it waits, the worker runs the scope's tasks itself and helps with others'. A
// panic in body or in any task is re-raised as a *PanicError after all have
// finished (the first one recorded wins). If body (or a task the worker runs
// while it waits) calls runtime.Goexit, Scope still waits for the spawned
// tasks before the goroutine ends.
func Scope(w *Worker, body func(s *S)) {
	if body == nil {
		panic("forkjoin.Scope: body is nil")
	}
	w.check("forkjoin.Scope")
	n := int64(w.pool.Workers())
	s := &S{w: w, limit: pendingPerWorker * n, eager: 2 * publishEvery * n}
	if w.shared {
		s.limit = math.MaxInt64 // the shared design queues every task (see full)
	}
	finished := false
	defer func() {
		if !finished {
			// runtime.Goexit is unwinding us (panics are recovered
			// below): the tasks must still not outlive the scope.
			w.waitFor(s, nil)
			s.ended.Store(true)
		}
	}()
	s.fail(callScopeBody(s, body))
	// Our own tasks sit on top of our deque (or at the back of the shared
	// queue), where waitFor looks first; stolen ones we wait for, helping.
	w.waitFor(s, nil)
	finished = true
	s.ended.Store(true)
	if pe := s.panic.Load(); pe != nil {
		panic(pe)
	}
}

// Go spawns fn in the scope. Call it from body, or from any task of the
// scope (a task's own spawns, s.Go(child) inside a spawned task, are the
// natural way to spawn recursively), on whichever worker it runs. fn may run
// at once, inline in the caller, when many of the scope's tasks are already
// waiting (see full). Once the invocation is canceled (see InvokeContext), Go
// starts nothing. The task may not be stealable at once (spawns are
// published in batches while every worker is busy; see the package doc):
// wait for it through the scope, not by blocking on it. Go panics if the
// scope has ended or if it is called from a goroutine that is not one of the
// pool's workers.
func (s *S) Go(fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin.S.Go: fn is nil")
	}
	s.goFrom(s.caller("forkjoin.S.Go"), fn)
}

// GoFrom spawns fn in the scope from a task running on w. It is Go for
// callers that have their worker at hand, which saves Go's lookup of the
// calling worker; w must be the calling task's worker.
func (s *S) GoFrom(w *Worker, fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin.S.GoFrom: fn is nil")
	}
	if s.ended.Load() {
		panic("forkjoin.S.GoFrom: the scope has ended (Scope returned); spawn only while Scope is running")
	}
	w.check("forkjoin.S.GoFrom")
	s.goFrom(w, fn)
}

// caller returns the worker running the calling task: s's owner, or another
// worker of its pool running one of s's tasks. It panics (naming fn) if the
// scope has ended or the caller is no worker of the pool.
func (s *S) caller(fn string) *Worker {
	if s.ended.Load() {
		panic(fn + ": the scope has ended (Scope returned); spawn only while Scope is running")
	}
	if w := s.w; w.onOwnGoroutine() {
		return w
	}
	if w := s.w.pool.current(); w != nil && w.root != nil {
		return w
	}
	panic(fn + ": called from a goroutine that is not a worker of the scope's pool; spawn from the scope's body or its tasks")
}

func (s *S) goFrom(w *Worker, fn func(w *Worker)) {
	if w.Canceled() {
		return
	}
	if s.full() {
		s.ranInline(w, callVoid(w, fn))
		return
	}
	j := w.scopeJob()
	j.fn = fn
	s.spawn(w, &j.job)
}

// spawn queues j, a task of s that w forks.
func (s *S) spawn(w *Worker, j *job) {
	j.scope = s
	n := s.pending.Add(1)
	w.spawnTask(j, n <= s.eager)
}

// ranInline counts a spawn that s.full() had w run at once, and records its
// panic.
func (s *S) ranInline(w *Worker, pe *PanicError) {
	s.fail(pe)
	w.nTasks++
}

// fail records pe, if not nil, as the scope's panic, unless an earlier one
// was recorded: the first panic wins.
func (s *S) fail(pe *PanicError) {
	if pe != nil {
		s.panic.CompareAndSwap(nil, pe)
	}
}

// full reports whether enough of the scope's tasks are already waiting for
// idle workers that the next one should run at once, in the spawning task,
// instead of being queued. In work-stealing mode this bounds the memory a
// loop that spawns millions of tasks holds, much as Cilk's work-first spawns
// keep a bounded number of frames waiting, and lets the spawning worker's
// records be reused, at no cost in parallelism: thousands of tasks are
// already there for idle workers. Shared-queue mode queues every task, as the
// design it stands for does.
func (s *S) full() bool { return s.pending.Load() >= s.limit }

func (s *S) done() bool { return s.pending.Load() == 0 }

func (s *S) arm() bool {
	s.sleepy.Store(true)
	return s.pending.Load() != 0
}

// finish records that n tasks ended and wakes the owner if they were the last
// and the owner may be parked. Sequential consistency pairs the owner's store
// to sleepy before its load of pending with our decrement before our load of
// sleepy: one of us sees the other.
func (s *S) finish(n int64) {
	if s.pending.Add(-n) == 0 && s.sleepy.Load() {
		s.w.wakeOwner()
	}
}

// finishScopeTask records that w finished one of s's tasks. Workers batch
// these counts, so that a worker running many small tasks of one scope does
// not bounce the scope's counter between cores once per task. The batch is
// flushed before w runs a task of another scope, when it finds no work at
// all (before it searches on or parks), and while it waits; a worker that
// keeps taking tasks of the same scope, from its deque or by stealing, keeps
// counting. So the scope's owner never waits on a count that a worker holds
// while not running the scope's tasks, and the backlog bound (full) sees
// counts late, which errs toward running tasks inline in the spawning loop:
// for small tasks that is cheaper than queueing them (see docs/design.md).
func (w *Worker) finishScopeTask(s *S) {
	if w.doneScope != s {
		w.flushScope()
		w.doneScope = s
	}
	w.doneCount++
}

// flushScope publishes w's batched scope counts.
func (w *Worker) flushScope() {
	if s := w.doneScope; s != nil {
		n := w.doneCount
		w.doneScope, w.doneCount = nil, 0
		s.finish(n)
	}
}

// scopeJob is the record of a task spawned in a scope. Like Func.Go's
// records, it goes back to the worker that spawned it once run.
type scopeJob struct {
	job
	fn func(*Worker)
}

func (j *scopeJob) execute(w *Worker) {
	fn, s := j.fn, j.scope
	if !w.Canceled() {
		s.fail(callVoid(w, fn))
	}
	j.fn, j.scope = nil, nil
	w.release(&j.job)
	w.flushStats()
	w.finishScopeTask(s)
}

func (j *scopeJob) abandon(w *Worker) {
	j.scope.fail(goexitPanic())
	w.finishScopeTask(j.scope)
}

func (w *Worker) scopeJob() *scopeJob {
	key := typeKey[scopeJob]()
	if j := w.cacheGet(key); j != nil {
		return (*scopeJob)(unsafe.Pointer(j)) // the key is the record's type
	}
	sj := &scopeJob{}
	sj.run = sj
	sj.owner = w
	sj.key = key
	return sj
}

// callScopeBody is call for a scope's body.
func callScopeBody(s *S, body func(*S)) (pe *PanicError) {
	w := s.w
	mark := len(w.open)
	defer func() { pe = w.settleTask(mark, recover(), pe) }()
	body(s)
	return nil
}

// callVoid is call for a function without a result.
func callVoid(w *Worker, fn func(*Worker)) (pe *PanicError) {
	mark := len(w.open)
	defer func() { pe = w.settleTask(mark, recover(), pe) }()
	fn(w)
	return nil
}
