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
	pending atomic.Int64 // tasks spawned and not finished
	sleepy  atomic.Bool  // the owner armed the scope and may be parked
	panic   atomic.Pointer[PanicError]
}

// Scope calls body with a scope, on which body spawns any number of tasks
// with s.Go, and returns when body and every spawned task have finished. While
// it waits, the worker runs the scope's tasks itself and helps with others'. A
// panic in body or in any task is re-raised as a *PanicError after all have
// finished (the first one recorded wins).
func Scope(w *Worker, body func(s *S)) {
	if body == nil {
		panic("forkjoin.Scope: body is nil")
	}
	n := int64(w.pool.Workers())
	s := &S{w: w, limit: pendingPerWorker * n, eager: 2 * publishEvery * n}
	if w.shared {
		s.limit = math.MaxInt64 // the shared design queues every task (see full)
	}
	s.fail(callScopeBody(s, body))
	// Our own tasks sit on top of our deque (or at the back of the shared
	// queue), where waitFor looks first; stolen ones we wait for, helping.
	w.waitFor(s, nil)
	if pe := s.panic.Load(); pe != nil {
		panic(pe)
	}
}

// Go spawns fn in the scope. Call it from body, or from code body runs inline
// on the same worker; a task spawned by Go that wants to spawn more into the
// scope uses s.GoFrom with its own worker. Once the invocation is canceled
// (see InvokeContext), Go starts nothing. The task may not be stealable at
// once (spawns are published in batches while every worker is busy; see the
// package doc): wait for it through the scope, not by blocking on it.
func (s *S) Go(fn func(w *Worker)) { s.GoFrom(s.w, fn) }

// GoFrom spawns fn in the scope from a task running on w, which may be a
// different worker than the one that opened the scope.
func (s *S) GoFrom(w *Worker, fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin.S.Go: fn is nil")
	}
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

func callScopeBody(s *S, body func(*S)) (pe *PanicError) {
	defer func() {
		if v := recover(); v != nil {
			pe = asPanicError(v)
		}
	}()
	body(s)
	return nil
}

func callVoid(w *Worker, fn func(*Worker)) (pe *PanicError) {
	defer func() {
		if v := recover(); v != nil {
			pe = asPanicError(v)
		}
	}()
	fn(w)
	return nil
}
