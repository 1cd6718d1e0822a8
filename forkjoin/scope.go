package forkjoin

import (
	"sync/atomic"

	"github.com/fjkit/fjkit/internal/usage"
)

// pendingPerWorker bounds how many of a scope's tasks may wait at once, per
// worker of the pool. Thieves take half of a deque at a time, so this is
// enough to keep every worker fed with a few hundred steals per million tasks.
const pendingPerWorker = 16384

// S is a scope: a set of spawned tasks that Scope waits for.
type S struct {
	// Read by every spawn, written once.
	w *Worker
	// inv is the invocation the scope runs in: its tasks belong to it,
	// wherever they are spawned from (a nested invocation's task
	// included), so that the scope's waiting worker may run them.
	inv   *invocation
	limit int64       // pending tasks beyond which Go runs tasks inline
	eager int64       // pending tasks up to which each spawn is queued at once (batch.go)
	ended atomic.Bool // Scope has returned: Go panics
	// callers are the workers other than w that spawned into the scope,
	// each at its goroutine's slot (callerSlot) if it was free: written
	// once per slot, so that a thief's spawns find their worker with two
	// loads instead of a lookup in the registry (caller).
	callers [callerSlots]atomic.Pointer[Worker]
	// Written by every worker that finishes tasks of the scope: on a line
	// of its own, so that finishing does not slow down spawning.
	_       [128 - 8 - 8 - 8 - 8 - 8 - callerSlots*8]byte
	pending atomic.Int64 // tasks spawned and not finished
	_       [56]byte
	sleepy  atomic.Bool // the owner armed the scope and may be parked
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
	if raceStrands && w.inStrand() {
		strandScope(w, body)
		return
	}
	n := int64(w.pool.Workers())
	s := &S{w: w, inv: w.inv, limit: pendingPerWorker * n, eager: 2 * spawnBatch * n}
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
// waiting (see full). The task belongs to the scope's invocation (the one
// Scope was called in, whose Context it sees), even when Go is called from
// a nested invocation (Invoke on the same pool inside the scope's body).
// Once that invocation is canceled (see InvokeContext), Go starts nothing.
// The task may not be stealable at once (spawns are
// published in batches while every worker is busy; see the package doc):
// wait for it through the scope, not by blocking on it. Go panics if the
// scope has ended or if it is called from a goroutine that is not one of the
// pool's workers.
func (s *S) Go(fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin.S.Go: fn is nil")
	}
	if raceStrands && s.w.inStrand() {
		strandGo(s, nil, fn, "forkjoin.S.Go")
		return
	}
	w, g := s.w, goroutineID()
	if s.ended.Load() || w.g.Load() != g { // the common case, inline
		w = s.caller("forkjoin.S.Go", g)
	}
	if d := w.depth(); d < lazyDepth && !w.shared && s.inv == w.inv {
		spawnClosure(w, s, fn, d) // sees a cancellation at its heartbeat
		return
	}
	s.goFrom(w, fn)
}

// GoFrom spawns fn in the scope from a task running on w. It is Go for
// callers that have their worker at hand, which saves Go's lookup of the
// calling worker; w must be the calling task's worker, in the scope's pool.
func (s *S) GoFrom(w *Worker, fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin.S.GoFrom: fn is nil")
	}
	if raceStrands && s.w.inStrand() {
		strandGo(s, w, fn, "forkjoin.S.GoFrom")
		return
	}
	if s.ended.Load() {
		panic(usage.New("forkjoin.S.GoFrom: the scope has ended (Scope returned); spawn only while Scope is running"))
	}
	w.check("forkjoin.S.GoFrom")
	if w.pool != s.w.pool {
		panic(usage.New("forkjoin.S.GoFrom: w is a worker of another pool than the scope's; spawn from the scope's body or its tasks, with their worker"))
	}
	s.goFrom(w, fn)
}

// caller returns the worker running the calling task, whose goroutine is
// g: another worker of s's pool running one of s's tasks. It panics (naming
// fn) if the scope has ended or the caller is no worker of the pool. S.Go
// and Func.Go test the common case (s's owner spawning, while s runs)
// themselves before they call it, and pass the g they read for that.
func (s *S) caller(fn string, g uintptr) *Worker {
	if s.ended.Load() {
		panic(usage.New(fn + ": the scope has ended (Scope returned); spawn only while Scope is running"))
	}
	if w := s.w; w.g.Load() == g {
		return w
	}
	c := &s.callers[callerSlot(g)]
	if w := c.Load(); w != nil && w.g.Load() == g && w.inv != nil {
		return w // (only w's own goroutine finds g in w.g)
	}
	if w := workersByG.lookup(g); w != nil && w.pool == s.w.pool && w.inv != nil {
		if c.Load() == nil {
			c.CompareAndSwap(nil, w)
		}
		return w
	}
	panic(usage.New(fn + ": called from a goroutine that is not a worker of the scope's pool; spawn from the scope's body or its tasks"))
}

// S.callers holds callerSlots = 2^callerBits workers.
const (
	callerBits  = 2
	callerSlots = 1 << callerBits
)

// callerSlot is goroutine g's slot in S.callers: the top bits of a
// multiplicative hash, as the registry's.
func callerSlot(g uintptr) int { return int((uint64(g) * 0x9E3779B97F4A7C15) >> (64 - callerBits)) }

// fail records pe, if not nil, as the scope's panic, unless an earlier one
// was recorded: the first panic wins.
func (s *S) fail(pe *PanicError) {
	if pe != nil {
		s.panic.CompareAndSwap(nil, pe)
	}
}

// full reports whether enough of the scope's tasks are already waiting for
// idle workers that the next full batch should run at once, in the spawning
// task, instead of being queued (endBatch). In work-stealing mode this bounds the memory a
// loop that spawns millions of tasks holds, much as Cilk's work-first spawns
// keep a bounded number of frames waiting, and lets the spawning worker's
// records be reused, at no cost in parallelism: thousands of tasks are
// already there for idle workers. Both modes keep the same bound, so that
// what tells them apart is only one mutex queue against per-worker deques.
func (s *S) full() bool { return s.pending.Load() >= s.limit }

func (s *S) done() bool { return s.pending.Load() == 0 }

// canceled reports whether the scope's invocation is canceled: then Go
// starts nothing. It is the scope's, not the spawning task's: a nested
// invocation that spawns into an outer scope may be canceled on its own.
func (s *S) canceled() bool { return s.inv.canceled.Load() }

func (s *S) arm(*Worker) bool {
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

// scopeCounts is a worker's finished tasks of one scope, doneScope, not
// yet subtracted from its count (finishScopeTask). Owner only.
type scopeCounts struct {
	doneScope *S
	doneCount int64
}

// finishScopeTask records that w finished n of s's tasks. Workers batch
// these counts, so that a worker running many small tasks of one scope does
// not bounce the scope's counter between cores once per task. The batch is
// flushed once it holds scopeFlushEvery tasks, before w runs a task of
// another scope, when it finds no work at all (before it searches on or
// parks), and while it waits. So the scope's owner never waits on a count
// that a worker holds while not running the scope's tasks, and the backlog
// bound (full) sees as still pending fewer than scopeFlushEvery finished
// tasks per worker, plus those of a batch still running (at most
// spawnBatch-1 finished).
//
// Without the bound on a held count, the backlog bound would be wrong in
// the way that matters most: a spawning loop whose batches run inline
// (endBatch) would hold every finished count itself, so once the scope first
// reached its bound it would see it full for ever, run every later task
// inline and publish nothing for the thieves (TestBackloggedScopeKeepsPublishing).
func (w *Worker) finishScopeTask(s *S, n int64) {
	if w.doneScope != s {
		w.flushScope()
		w.doneScope = s
	}
	if w.doneCount += n; w.doneCount >= scopeFlushEvery {
		w.flushScope()
	}
}

// scopeFlushEvery is how many finished tasks of one scope a worker counts
// before it publishes the count (finishScopeTask): one atomic add on the
// scope's shared counter per 256 tasks instead of one per task, and an
// error of a few hundred tasks per worker against a backlog bound of
// pendingPerWorker (16384) per worker.
const scopeFlushEvery = 256

// flushHeld publishes every count w holds back: its batched scope count,
// and its share of a task set's (flushTasks, tasks.go).
func (w *Worker) flushHeld() {
	w.flushScope()
	w.flushTasks()
}

// flushScope publishes w's batched scope count.
func (w *Worker) flushScope() {
	if s := w.doneScope; s != nil {
		n := w.doneCount
		w.doneScope, w.doneCount = nil, 0
		s.finish(n)
	}
}
