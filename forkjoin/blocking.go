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
//  1. A pool has maxSpares(n) spares, made with it, after its n workers in
//     Pool.workers (so IDs, thieves' hints and goroutine identity work
//     for them unchanged); their goroutines start on first use. Workers()
//     counts only the n.
//  2. A spare is dormant (on the free list, not on the parked list: no
//     producer wakes it) or active. Blocking activates one, if one is
//     free, and marks it retired when fn returns. An active spare is an
//     ordinary worker: it looks for work, runs it, parks and is woken. It
//     goes back to dormant only where a worker would park (it found
//     nothing, its deque is empty, its counts are flushed) and only once
//     retired; Blocking's return wakes it if it is parked, so that it does.
//  3. Only workers up to the high-water mark of the spares ever active are
//     searched and looked at before parking (Pool.live), so a pool that
//     never blocks pays nothing for its spares. The mark is raised before
//     the spare starts, so the sleep protocol's last look sees its deque.
//  4. Close finds every spare dormant or idle: Blocking runs in a task, so
//     it has returned once every invocation has. Dormant spares with a
//     goroutine are woken to exit.

// maxSpares is how many spares a pool of n workers has: one per worker, so
// that the pool keeps n workers running with every one of them blocked, up
// to 256 (as Java's ForkJoinPool allows 256 spare threads).
func maxSpares(n int) int { return min(n, 256) }

// spareSet is a pool's spares' state.
type spareSet struct {
	mu      sync.Mutex
	free    []*Worker // dormant spares, the lowest ID last (taken first); guarded by mu
	started []bool    // by spare index: its goroutine runs; guarded by mu
	// Worker.dormant, of each spare, is guarded by mu too.
	high   atomic.Int32 // spares up to this index have been active: Pool.live
	active atomic.Int32 // spares active now: Worker.awake
}

// live returns the workers that may hold work: the n workers and the spares
// up to the high-water mark (rule 3).
func (p *Pool) live() []*Worker { return p.workers[:p.size+int(p.spares.high.Load())] }

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
// goroutine. A pool of n workers lends at most min(n, 256) compensating
// workers at once; beyond that, Blocking runs fn without one. Starting one
// costs a goroutine wake-up: for waits of microseconds, block plainly.
// Blocking panics if fn is nil or w is not the calling task's worker; a
// panic in fn comes out of Blocking as it is.
func Blocking(w *Worker, fn func()) {
	if fn == nil {
		panic("forkjoin.Blocking: fn is nil")
	}
	w.check("forkjoin.Blocking")
	// What the task left unpublished would wait for it: its open spawn
	// batch and its lazy frames.
	w.closeBatch()
	if w.promoteAt < w.nframes {
		w.promoteAll()
	}
	if s := w.pool.activateSpare(); s != nil {
		defer w.pool.retireSpare(s)
	}
	fn()
}

// activateSpare makes a dormant spare active and returns it, or nil if none
// is free.
func (p *Pool) activateSpare() *Worker {
	sp := &p.spares
	sp.mu.Lock()
	n := len(sp.free)
	if n == 0 {
		sp.mu.Unlock()
		return nil
	}
	s := sp.free[n-1]
	sp.free = sp.free[:n-1]
	i := s.id - p.size
	if int32(i) >= sp.high.Load() {
		sp.high.Store(int32(i + 1)) // before s runs: rule 3
	}
	sp.active.Add(1)
	s.retired.Store(false)
	s.dormant = false
	start := !sp.started[i]
	sp.started[i] = true
	sp.mu.Unlock()
	if start {
		p.wg.Add(1) // Blocking runs in an invocation, so Close is not waiting yet (rule 4)
		go s.loop(false)
	} else {
		s.signal()
	}
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
	for {
		if p.shutdown.Load() {
			return false
		}
		<-w.wake
		sp.mu.Lock()
		activated := !w.dormant // else the token was retireSpare's, stale
		sp.mu.Unlock()
		if activated {
			return true
		}
	}
}

// wakeSpares wakes the dormant spares that have a goroutine, so that they
// exit: Close calls it once shutdown is set.
func (p *Pool) wakeSpares() {
	sp := &p.spares
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for _, s := range sp.free {
		if sp.started[s.id-p.size] {
			s.signal()
		}
	}
}
