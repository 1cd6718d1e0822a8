package forkjoin

import (
	"sync"
	"sync/atomic"
)

// Compensating workers: Blocking.
//
// A task that blocks outside the pool keeps its worker, and a pool whose
// every worker is blocked runs nothing: not even the Invoke of a goroutine
// the blocked tasks wait for, since waiting workers never start a queued
// invocation (that is what keeps a lock held across a Join safe). Blocking
// tells the pool that its task is about to block, and the pool lends a
// compensating worker (a spare) for as long as it does, as Go's scheduler
// hands a P to another thread while a goroutine is in a system call, and
// Java's ForkJoinPool compensates for a ManagedBlocker.
//
// The rules:
//
//  1. Spares are made when first needed, at most maxSpares per pool, and
//     appended to the pool's list of every worker (Pool.live), whose IDs
//     they continue, so that thieves' hints and goroutine identity work for
//     them unchanged. Workers() counts only the pool's own workers.
//  2. A spare is dormant (on the free list, not on the parked list: no
//     producer wakes it) or active. Blocking activates a free one, or makes
//     one, and marks it retired when fn returns. An active spare is an
//     ordinary worker: it looks for work, runs it, parks and is woken. It
//     goes back to dormant only where a worker would park (it found
//     nothing, its deque is empty, its counts are flushed) and only once
//     retired; Blocking's return wakes it if it is parked, so that it does.
//  3. A new spare is in the list before its goroutine starts, so the sleep
//     protocol's last look sees its deque. A pool that never blocks has
//     none, and pays one atomic load per steal round for the list.
//  4. Close finds every spare dormant or idle: Blocking runs in a task, so
//     it has returned once every invocation has. Dormant spares are woken
//     to exit.

// maxSpares bounds the spares of a pool (as Java's ForkJoinPool allows 256
// spare threads): beyond it, Blocking runs fn without compensation.
const maxSpares = 256

// spareSet is a pool's spares' state.
type spareSet struct {
	mu   sync.Mutex
	free []*Worker // dormant spares; guarded by mu, as is each spare's Worker.dormant
	made int       // spares made; guarded by mu
	// active counts the spares active now (Worker.awake).
	active atomic.Int32
}

// spareState is a worker's part in compensation.
type spareState struct {
	spare   bool        // a compensating worker that Blocking lends; set before its goroutine starts
	dormant bool        // on the free list; guarded by pool.spares.mu
	retired atomic.Bool // set while it is dormant or due to go dormant; written by Blocking's caller
}

// live returns every worker of p that may hold work: its own and the
// spares made so far (rule 1).
func (p *Pool) live() []*Worker { return *p.all.Load() }

// Blocking runs fn, which blocks outside the pool, in the task running on
// w, and lends the pool a compensating worker while it does, so that the
// pool's other work goes on with as many workers running as before. Wrap a
// task's long waits in it: on I/O, a lock or channel that other goroutines
// release, or a goroutine that itself calls Invoke on the same pool, which
// with every worker blocked would otherwise never start:
//
//	forkjoin.Blocking(w, func() { res = <-results }) // the sender calls Invoke(p, ...)
//
// fn must not use w, or fork: it runs as plain code on the task's
// goroutine. A pool lends at most 256 compensating workers at once; beyond
// that, Blocking runs fn without one. Starting one
// costs a goroutine wake-up: for waits of microseconds, block plainly.
// Blocking panics if fn is nil or w is not the calling task's worker; a
// panic in fn comes out of Blocking as it is.
func Blocking(w *Worker, fn func()) {
	if fn == nil {
		panic("forkjoin.Blocking: fn is nil")
	}
	w.check("forkjoin.Blocking")
	if raceStrands && w.inStrand() {
		fn() // a strand's goroutine is no worker of the pool's
		return
	}
	// What the task left unpublished would wait for it: its open spawn
	// batch and its lazy frames.
	w.closeBatch()
	if w.promotable() {
		w.promoteAll()
	}
	w.blocking.Store(true) // the monitor leaves w to its spare
	defer w.blocking.Store(false)
	if s := w.pool.activateSpare(); s != nil {
		defer w.pool.retireSpare(s)
	}
	fn()
}

// activateSpare makes a dormant spare active, or a new one, and returns
// it, or nil if the pool has maxSpares spares and none is free.
func (p *Pool) activateSpare() *Worker {
	sp := &p.spares
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if n := len(sp.free); n > 0 {
		s := sp.free[n-1]
		sp.free = sp.free[:n-1]
		sp.active.Add(1)
		s.retired.Store(false)
		s.dormant = false
		s.signal()
		return s
	}
	if sp.made == maxSpares {
		return nil
	}
	sp.made++
	all := *p.all.Load()
	s := p.newWorker(len(all))
	s.spare = true
	grown := append(all[:len(all):len(all)], s) // a new array: readers keep the old one
	p.all.Store(&grown)                         // before s runs: rule 3
	sp.active.Add(1)
	p.wg.Add(1) // Blocking runs in an invocation, so Close is not waiting yet (rule 4)
	go s.loop(false)
	return s
}

// retireSpare tells s, which a Blocking call activated, that the call has
// returned: s goes dormant at its next idle moment, at once if parked.
func (p *Pool) retireSpare(s *Worker) {
	s.retired.Store(true)
	s.wakeOwner() // if it is parked; a stale token is harmless (rest)
}

// rest makes w, a retired spare with nothing to do, dormant until a
// Blocking call activates it again, and reports false if instead the pool
// is shutting down. Only w's goroutine calls it, from loop.
func (w *Worker) rest() bool {
	w.flushGiveBack()
	w.trimCaches()
	p := w.pool
	sp := &p.spares
	sp.mu.Lock()
	sp.free = append(sp.free, w)
	w.dormant = true
	sp.active.Add(-1)
	sp.mu.Unlock()
	// A wake-up for new work may have chosen w, the last worker to park,
	// just before it found itself retired: pass it on, or the work would
	// wait for a worker nobody wakes.
	if p.hasWork(w) {
		p.sleep.notify()
	}
	for {
		if p.shutdown.Load() {
			return false
		}
		<-w.wake
		sp.mu.Lock()
		activated := !w.dormant // else the token was retireSpare's, stale
		sp.mu.Unlock()
		if activated {
			w.madeProgress()
			return true
		}
	}
}

// wakeSpares wakes the dormant spares, so that they exit: Close calls it
// once shutdown is set.
func (p *Pool) wakeSpares() {
	sp := &p.spares
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for _, s := range sp.free {
		s.signal()
	}
}
