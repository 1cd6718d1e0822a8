package forkjoin

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/fjkit/fjkit/wsdeque"
)

// Tuning of the idle loop. A search round probes every other worker once.
const (
	searchRounds = 4  // rounds an idle worker searches before it parks
	waitRounds   = 16 // rounds a joiner helps before it parks on its latch
)

// A Worker is one of a pool's goroutines. Tasks receive the Worker running
// them and pass it to Join, Spawn, Scope and For. A *Worker belongs to the
// task it was handed to: do not keep it, or use it from another goroutine.
type Worker struct {
	pool   *Pool
	id     int
	shared bool // the pool's mode is SharedQueue
	deque  wsdeque.Deque[*job]
	rng    uint64
	root   *root // the invocation whose task is running
	nTasks uint64

	wake     chan struct{} // parking semaphore, capacity 1
	isParked bool          // in pool.sleep.parked; guarded by pool.sleep.mu

	funcs [funcCacheSize]funcCacheEntry // free records of Funcs, see func.go
	hot   *job                          // a free Func record, before the table (Func.put)
	// Finished tasks of one scope not yet subtracted from its count; see
	// finishScopeTask.
	doneScope *S
	doneCount int64

	// A batch of records we ran for another worker, not yet sent back to
	// it; see giveBack.
	retTo            *Worker
	retHead, retTail *job
	retN             int

	// returned holds records other workers ran for us (Func.Go) and sent
	// back. Other workers CAS it, so it sits on a line of its own.
	_        [64]byte
	returned atomic.Pointer[job]
	_        [56]byte

	stats workerStats
}

// ID returns the worker's index in its pool, from 0 to Workers()-1.
func (w *Worker) ID() int { return w.id }

// Pool returns the pool the worker belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// Context returns the context of the invocation whose task w is running:
// the one given to InvokeContext, or context.Background.
func (w *Worker) Context() context.Context {
	if w.root != nil && w.root.ctx != nil {
		return w.root.ctx
	}
	return context.Background()
}

// Canceled reports whether the running invocation's context is done. It is a
// single atomic load, cheap enough to check before every fork. For, ForRange,
// Reduce and Scope stop starting new work once it returns true.
func (w *Worker) Canceled() bool {
	return w.root != nil && w.root.canceled.Load()
}

// loop is the worker goroutine: run work while there is any, search a little
// when there is none, then park until woken.
func (w *Worker) loop() {
	exited := false
	defer func() {
		if !exited {
			// A task called runtime.Goexit, which ends this goroutine
			// whatever we do; execute has failed the tasks it ended.
			// Carry on in a new goroutine, so the pool keeps its workers.
			w.root = nil
			go w.loop()
			return
		}
		w.pool.wg.Done()
	}()
	p := w.pool
	for {
		if j := w.find(); j != nil {
			w.execute(j)
			continue
		}
		w.flushScope()
		p.sleep.startSearching()
		var j *job
		for i := 0; i < searchRounds && j == nil; i++ {
			runtime.Gosched()
			j = w.find()
		}
		p.sleep.stopSearching(j != nil)
		if j != nil {
			w.execute(j)
			continue
		}
		if p.shutdown.Load() {
			exited = true
			return
		}
		w.trimCaches() // nothing to do: let go of a burst's records
		w.park(nil)
	}
}

// find returns a job to run: from the worker's own deque, the injector, or
// (one round) another worker's deque. In shared mode, from the shared queue.
func (w *Worker) find() *job {
	p := w.pool
	if w.shared {
		if j := p.shared.popFront(&w.stats); j != nil {
			return j
		}
		return p.injector.popFront(nil)
	}
	if j, ok := w.deque.Pop(); ok {
		return j
	}
	if j := p.injector.popFront(nil); j != nil {
		return j
	}
	return w.stealRound()
}

// stealRound probes every other worker once, starting at a random one.
func (w *Worker) stealRound() *job {
	ws := w.pool.workers
	n := len(ws)
	if n == 1 {
		return nil
	}
	start := int(w.random() % uint64(n))
	for i := range n {
		v := ws[(start+i)%n]
		if v == w {
			continue
		}
		if j := w.stealFrom(v); j != nil {
			return j
		}
	}
	return nil
}

// stealFrom takes work from v's deque according to the pool's policy and
// returns a job to run now. With StealHalf the rest of the batch lands in w's
// own deque, where w's later pops and other thieves find it.
func (w *Worker) stealFrom(v *Worker) *job {
	if v.deque.Len() == 0 {
		return nil
	}
	w.stats.stealAttempts.Add(1)
	if w.pool.steal == StealOne {
		j, ok := v.deque.Steal()
		if !ok {
			return nil
		}
		w.stats.steals.Add(1)
		w.stats.stolen.Add(1)
		return j
	}
	n := v.deque.StealHalf(&w.deque)
	if n == 0 {
		return nil
	}
	w.stats.steals.Add(1)
	w.stats.stolen.Add(uint64(n))
	if n > 1 {
		// We keep n-1 of them in our deque: new work, as far as
		// parked workers are concerned.
		w.pool.sleep.notify()
	}
	j, _ := w.deque.Pop() // we just pushed n >= 1 and nobody pops our deque but us
	return j
}

// execute runs a job that did not come back to its joiner inline.
func (w *Worker) execute(j *job) {
	if j.scope != w.doneScope {
		w.flushScope()
	}
	saved := w.root
	w.root = j.root
	finished := false
	defer func() {
		if !finished {
			// runtime.Goexit is unwinding this goroutine (a panic cannot
			// reach here: execute recovers it). Fail the job, so that
			// its joiner does not wait for ever.
			j.run.abandon(w)
		}
	}()
	j.run.execute(w)
	finished = true
	w.root = saved
}

// fork publishes j: on w's deque, or on the shared queue in shared mode.
func (w *Worker) fork(j *job) {
	j.root = w.root
	w.nTasks++
	p := w.pool
	if w.shared {
		p.shared.push(j, &w.stats)
	} else {
		w.deque.Push(j)
	}
	p.sleep.notify()
}

// spawnTask queues j, a scope's task, like fork. In work-stealing mode it
// leaves j unpublished (PushLocal), unless eager is set, a worker is looking
// for work, or publishEvery tasks are waiting: a loop that spawns many tasks
// then pays one fenced store per batch instead of one per task, and the
// thieves' loads of bottom mostly hit their caches. An unpublished task waits
// at most until its worker spawns, forks or waits again, or runs out of work
// and pops it; so a task must not block on a task it spawned other than
// through the scope (see the package doc). The caller sets eager when
// thieves may have nothing else to take (see S.spawn).
func (w *Worker) spawnTask(j *job, eager bool) {
	if w.shared {
		w.fork(j)
		return
	}
	j.root = w.root
	w.nTasks++
	w.deque.PushLocal(j)
	s := &w.pool.sleep
	if eager || w.deque.Local() >= publishEvery || s.hungry() {
		w.deque.Publish()
		s.notify()
	}
}

const publishEvery = 16

// takeBack tries to reclaim j, which w forked, so that w can run it inline.
// It reports false when j was taken by another worker (or already run). In
// work-stealing mode jobs w forked after j and has not joined yet (a Future
// joined out of order) come off the deque first; they are run on the spot,
// and their own joins later find them done.
func (w *Worker) takeBack(j *job) bool {
	if w.shared {
		return w.pool.shared.popBack(j, &w.stats) != nil
	}
	for {
		if j.latch.done() {
			return false // already run, by us (out-of-order join) or a thief
		}
		x, ok := w.deque.Pop()
		if !ok {
			return false
		}
		if x == j {
			return true
		}
		w.execute(x)
		w.flushScope()
	}
}

// takeBackJoin is takeBack for Join and Func.Join, whose joins are strictly
// nested: everything w forked after j was joined before this join, so w's
// deque holds j at its bottom, or (if a thief took j) only records older than
// j, which thieves take first, so none. One Pop answers.
func (w *Worker) takeBackJoin(j *job) bool {
	if w.shared {
		return w.pool.shared.popBack(j, &w.stats) != nil
	}
	x, ok := w.deque.Pop()
	if ok && x != j {
		// Not strictly nested after all (a Future spawned inside fa and
		// never joined): fall back to the general loop.
		w.execute(x)
		w.flushScope()
		return w.takeBack(j)
	}
	return ok
}

// waitFor helps until pr holds: it runs leftover work of its own, steals from
// hint (the thief of the awaited job, whose deque holds that job's children),
// then from anyone, and parks on pr when there is nothing to take.
func (w *Worker) waitFor(pr probe, hint *job) {
	if w.deque.Local() > 0 {
		// Spawns held back while everyone was busy: others may be idle now.
		w.deque.Publish()
		w.pool.sleep.notify()
	}
	idle := 0
	for w.flushScope(); !pr.done(); w.flushScope() {
		if x := w.findHelp(hint); x != nil {
			w.execute(x)
			idle = 0
			continue
		}
		if idle < waitRounds {
			idle++
			runtime.Gosched()
			continue
		}
		w.park(pr)
		idle = 0
	}
}

func (w *Worker) findHelp(hint *job) *job {
	p := w.pool
	if w.shared {
		if j := p.shared.popBack(nil, &w.stats); j != nil {
			return j
		}
		return p.injector.popFront(nil)
	}
	if j, ok := w.deque.Pop(); ok {
		return j
	}
	if hint != nil {
		if t := hint.thief.Load(); t > 0 {
			if j := w.stealFrom(p.workers[t-1]); j != nil {
				return j
			}
		}
	}
	if j := w.stealRound(); j != nil {
		return j
	}
	return p.injector.popFront(nil)
}

// random is xorshift64*: a few cycles, no shared state.
func (w *Worker) random() uint64 {
	x := w.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	w.rng = x
	return x * 2685821657736338717
}

// release keeps j, a finished record of a spawned task (Func.Go or S.Go),
// for reuse by the worker that spawned it: w itself, or the owner, by giveBack.
func (w *Worker) release(j *job) {
	if j.owner == w {
		w.cachePut(j.key, j)
	} else {
		w.giveBack(j)
	}
}

// giveBack sends j, a record another worker forked with Func.Go and w ran, back
// to that worker. A loop spawning tasks that thieves run would otherwise
// allocate a record for every stolen task while the thieves' caches fill up
// and drop the rest. Records travel in batches of giveBackBatch, one CAS per
// batch onto the owner's returned stack; the owner takes the whole stack with
// one swap when its cache runs dry (reclaim).
func (w *Worker) giveBack(j *job) {
	if w.retTo != j.owner {
		w.flushGiveBack()
		w.retTo = j.owner
	}
	if w.retHead == nil {
		w.retTail = j
	}
	j.next = w.retHead
	w.retHead = j
	if w.retN++; w.retN == giveBackBatch {
		w.flushGiveBack()
	}
}

const giveBackBatch = 64

// flushGiveBack pushes the pending batch onto its owner's returned stack.
// Only pushes use CAS and the owner takes everything with Swap, so there is
// no ABA problem.
func (w *Worker) flushGiveBack() {
	if w.retHead == nil {
		return
	}
	o := w.retTo
	for {
		old := o.returned.Load()
		w.retTail.next = old
		if o.returned.CompareAndSwap(old, w.retHead) {
			break
		}
	}
	w.retTo, w.retHead, w.retTail, w.retN = nil, nil, nil, 0
}

// reclaim moves the records other workers sent back into w's cache and
// reports whether there were any.
func (w *Worker) reclaim() bool {
	j := w.returned.Swap(nil)
	if j == nil {
		return false
	}
	for j != nil {
		next := j.next
		j.next = nil
		w.cachePut(j.key, j)
		j = next
	}
	return true
}
