package forkjoin

import (
	"context"
	"runtime"
	"runtime/pprof"
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
// The entry points near a task's root panic when it is misused so; the
// fork points deep in a recursion check less (see the package doc).
type Worker struct {
	// A Worker composes the per-worker state of each concern, declared in
	// the file that owns it, in the order that keeps the hot fields together
	// and the fields other workers write on a line of their own
	// (TestWorkerLayout). Unless a field says otherwise, only the worker's
	// own goroutine touches it.

	// Set by newWorker, read-only after: any goroutine may read them.
	pool   *Pool
	id     int
	shared bool // the pool's mode is SharedQueue
	// g is the worker goroutine's descriptor, or 0 while it has none;
	// other goroutines read it to recognize the worker (goid.go).
	g atomic.Uintptr
	// deque holds the worker's forks: the owner pushes and pops, other
	// workers steal (stealFrom); wsdeque keeps the two ends apart.
	deque  wsdeque.Deque[*job]
	rng    uint64      // random's state
	inv    *invocation // the invocation whose task is running; nil while idle
	nTasks uint64      // tasks forked since the last flushStats (stats.go)
	// curInv mirrors inv for other goroutines: helpers on other
	// workers, which steal from us while they wait only if we run their
	// invocation (helpSteal), and checkLive. Stored only when inv
	// changes; loading it costs what loading inv does.
	curInv  atomic.Pointer[invocation]
	labeled bool // the goroutine carries an invocation's profiler labels (setInv)

	parking     // the worker's slot in the sleep protocol (sleep.go)
	clock       // when to check, read the time, yield the P (clock.go)
	taskForks   // the running task's open spawn batch and unjoined forks (task.go)
	lazyFrames  // lazy forks and the heartbeat that promotes them (heartbeat.go)
	recordCache // free records, and records to give back (records.go)
	scopeCounts // finished scope tasks not yet published (scope.go)
	tasksCounts // a task set's count held back (tasks.go)
	remoteLine  // the fields other workers write, on a line of their own

	stats workerStats

	probes uint64 // cold from here on: deques probed while idle (stealRound, park), for tests
	//lint:ignore U1000 read in race builds only (race.go), where strand mode runs
	race          raceWorker // strand mode's state (strand.go); no room outside race builds
	spareState               // compensating workers (blocking.go)
	progressState            // the blocking monitor's view of the worker (monitor.go)
}

// remoteLine holds the fields of a Worker that other workers write, padded
// so that no other field shares their cache line: every write would
// otherwise cost the owner a miss on a line it uses. A Worker is only
// 8-aligned, so each pad is at least 56 bytes (TestWorkerLayout).
type remoteLine struct {
	_ [64]byte
	// returned holds records other workers ran for us (Func.Go and
	// S.Go) and sent back: other workers push with CAS, the owner takes
	// the whole stack with one swap (records.go).
	returned atomic.Pointer[job]
	// beat is set by a worker that found our deque empty, asking for a
	// lazy frame; the owner clears it at its next heartbeat check, which
	// then promotes one (beatDue, heartbeat.go).
	beat atomic.Bool
	_    [56]byte
}

// ID returns the worker's index in its pool, from 0 to Workers()-1, or,
// for a compensating worker that Blocking lends, from Workers() on.
func (w *Worker) ID() int { return w.id }

// Pool returns the pool the worker belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// Context returns the context of the invocation whose task w is running:
// the one given to InvokeContext, or context.Background.
func (w *Worker) Context() context.Context {
	if w == nil {
		panic("forkjoin.Worker.Context: w is nil; pass the *Worker your task received")
	}
	if w.inv != nil && w.inv.ctx != nil {
		return w.inv.ctx
	}
	return context.Background()
}

// Canceled reports whether the running invocation is canceled: its context
// is done, or an enclosing invocation's is (the one whose task called Invoke
// on the same pool, running this one inline). It is a single atomic load,
// cheap enough to check before every fork. For, ForRange, Reduce and Scope
// stop starting new work once it returns true.
//
// The flag is set when the invocation or a nested one starts with its
// context done, and otherwise by the goroutine the context starts when it is
// canceled (context.AfterFunc): for that goroutine's first moments,
// Context().Err() may be non-nil while Canceled still returns false.
func (w *Worker) Canceled() bool {
	if w == nil {
		panic("forkjoin.Worker.Canceled: w is nil; pass the *Worker your task received")
	}
	return w.inv != nil && w.inv.canceled.Load()
}

// loop is the worker goroutine: run work while there is any, search a little
// when there is none, then park until woken. New starts each worker's loop
// with parked set (New lists every worker as parked, and the worker waits
// for its first wake-up before it looks for work); a spare that Blocking
// lends, and the goroutine that carries a worker on after a task's
// runtime.Goexit, start it with parked false, to look for work at once.
func (w *Worker) loop(parked bool) {
	w.bindGoroutine()
	exited := false
	defer func() {
		w.unbindGoroutine() // before the runtime may reuse our descriptor
		if !exited {
			// A task called runtime.Goexit, which ends this goroutine
			// whatever we do; runJob has failed the tasks it ended.
			// Carry on in a new goroutine, so the pool keeps its workers.
			w.setInv(nil)
			go w.loop(false)
			return
		}
		w.pool.wg.Done()
	}()
	p := w.pool
	woken := false
	if parked {
		w.stats.parks.Add(1)
		<-w.wake
		w.unpark()
		woken = true
	}
	for {
		if woken && p.shutdown.Load() {
			// Close woke us: every invocation has finished, so there
			// is nothing to find, and n workers searching n deques
			// each would take n² probes.
			exited = true
			return
		}
		if w.spare && w.retired.Load() && (w.shared || w.deque.Len() == 0) {
			// A spare whose blockage ended (blocking.go, monitor.go),
			// between two tasks: it goes dormant even while work
			// remains, which the pool's own workers take.
			w.flushHeld()
			if !w.rest() {
				exited = true
				return
			}
			woken = true
			continue
		}
		var j *job
		if !woken {
			j = w.find()
		}
		if j == nil {
			w.flushHeld()
			// Search even right after a wake-up: a searcher that finds
			// work wakes the next (stopSearching), so a wake-up is passed
			// on while work keeps turning up. Unwoken, search only while
			// searchers are fewer than half the busy workers, as Go limits
			// its spinning Ms: with more workers than cores, searchers
			// would take the producers' CPU (park's last look sees all).
			if woken || p.sleep.maySearch(p.size) {
				j = w.search()
			}
		}
		woken = false
		if j != nil {
			w.runJob(j)
			continue
		}
		if p.shutdown.Load() {
			exited = true
			return
		}
		if w.spare && w.retired.Load() {
			// A spare whose Blocking call returned (blocking.go).
			if !w.rest() {
				exited = true
				return
			}
			woken = true
			continue
		}
		w.trimCaches()  // nothing to do: let go of a burst's records
		w.deque.Scrub() // and of the ones thieves took from our deque
		w.park(nil)
		woken = true
	}
}

// search looks for work for a few rounds as a searching worker (see
// sleep); only loop, on w's goroutine, calls it.
func (w *Worker) search() *job {
	s := &w.pool.sleep
	s.startSearching()
	var j *job
	for i := 0; i < searchRounds && j == nil; i++ {
		if j = w.find(); j == nil {
			runtime.Gosched()
		}
	}
	s.stopSearching(j != nil)
	return j
}

// find returns a job to run: from the worker's own deque, the injector, or
// (one round) another worker's deque; in shared mode, the shared queue, then
// the injector.
func (w *Worker) find() *job {
	p := w.pool
	if w.shared {
		if j := p.shared.popFront(&w.stats); j != nil {
			return j
		}
		return p.injector.popForIdle()
	}
	if j, ok := w.deque.Pop(); ok {
		return j
	}
	if j := p.injector.popForIdle(); j != nil {
		return j
	}
	return w.stealRound()
}

// stealRound probes every other worker once, starting at a random one.
func (w *Worker) stealRound() *job {
	ws := w.pool.live()
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
		w.probes++
		if j, _ := w.stealFrom(v); j != nil {
			return j
		}
	}
	return nil
}

// stealFrom takes work from v's deque according to the pool's policy and
// returns a job to run now, and how many it took. With StealHalf the rest of
// the batch lands in w's own deque, where w's later pops and other thieves
// find it.
func (w *Worker) stealFrom(v *Worker) (*job, int) {
	if v.deque.Len() == 0 {
		v.requestBeat() // v may have lazy frames to promote (heartbeat.go)
		return nil, 0
	}
	w.stats.stealAttempts.Add(1)
	if w.pool.steal == StealOne {
		j, ok := v.deque.Steal()
		if !ok {
			return nil, 0
		}
		w.stats.steals.Add(1)
		w.stats.stolen.Add(1)
		return j, 1
	}
	n := v.deque.StealHalf(&w.deque)
	if n == 0 {
		return nil, 0
	}
	w.stats.steals.Add(1)
	w.stats.stolen.Add(uint64(n))
	if n > 1 {
		// The n-1 we keep in our deque are new work to parked workers.
		w.pool.sleep.notify()
	}
	j, _ := w.deque.Pop() // we just pushed n >= 1 and nobody pops our deque but us
	return j, n
}

// runJob runs a job found on a deque or queue: one that did not come back
// to its joiner inline.
func (w *Worker) runJob(j *job) {
	saved := w.inv
	w.startJob(j)
	finished := false
	defer func() {
		if !finished {
			// runtime.Goexit is unwinding (execute recovers panics): fail
			// the job, so that its joiner does not wait for ever.
			j.run.abandon(w)
		}
	}()
	j.run.execute(w)
	finished = true
	if w.inv != saved {
		w.setInv(saved)
	}
}

// popOwn pops the top of w's deque if it is a job of w's invocation, for a
// waiter (findHelp; Tasks.Wait, for its own set's tasks); pushBack puts back
// one it does not run. Only w's goroutine calls them.
func (w *Worker) popOwn() *job {
	if w.shared {
		return nil
	}
	j, ok := w.deque.Pop()
	if ok && j.inv != w.inv {
		// Our invocation runs inline above another's (Invoke from a
		// task) and has nothing left on our deque.
		w.pushBack(j)
		return nil
	}
	return j
}

// pushBack puts j, which w popped, back on its deque, and tells the
// others, who may run it: an idle worker may have looked while it was off.
func (w *Worker) pushBack(j *job) {
	w.deque.Push(j)
	w.pool.sleep.notify()
}

// startJob readies w to run j, a job that did not come back to its joiner
// inline (runJob; Tasks.Wait): the heartbeat's tick, the held scope count,
// j's invocation, and the first-fork offer.
func (w *Worker) startJob(j *job) {
	w.tick()
	if j.scope != w.doneScope || !w.shareFits(j) {
		w.flushHeld()
	}
	if j.inv != w.inv {
		w.setInv(j.inv)
	}
	w.offerFirst()
}

// setInv makes inv the invocation w runs, for w.Canceled and for helpers
// deciding whether they may steal from w (helpSteal). Only w's goroutine
// calls it. Lazy frames do not record their invocation, so those of the
// invocation being left are promoted first.
//
// The worker's goroutine takes the profiler labels of the invocation's
// context (InvokeContext with pprof.WithLabels or pprof.Do), so that CPU
// profiles credit the parallel work to its request; a switch costs a
// context lookup, paid only when one side has a context.
func (w *Worker) setInv(inv *invocation) {
	if w.promotable() {
		w.promoteAll() // lazy frames are of w.inv (heartbeat.go)
	}
	w.inv = inv
	w.curInv.Store(inv)
	if inv != nil && inv.ctx != nil {
		pprof.SetGoroutineLabels(inv.ctx)
		w.labeled = true
	} else if w.labeled {
		pprof.SetGoroutineLabels(context.Background())
		w.labeled = false
	}
}

// fork publishes j: on w's deque, or on the shared queue in shared mode.
func (w *Worker) fork(j *job) {
	if w.batch != nil {
		w.closeBatch()
	}
	j.inv = w.inv
	w.push(j)
}

// push publishes j, whose invocation (j.inv) is set, on w's deque or the
// shared queue, and wakes a parked worker for it if nobody searches. Only
// w's goroutine calls it: fork, and closeBatch for a batch stamped when it
// was opened.
func (w *Worker) push(j *job) {
	if w.promotable() {
		w.promoteAll() // keep the deque in fork order (heartbeat.go)
	}
	w.tick()
	w.nTasks++
	p := w.pool
	if w.shared {
		p.shared.push(j, &w.stats)
	} else {
		w.deque.Push(j)
	}
	p.sleep.notify()
}

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
		w.runJob(x)
		w.flushHeld()
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
		// not joined yet, or a spawn batch published inside fa): fall
		// back to the general loop.
		w.runJob(x)
		w.flushHeld()
		return w.takeBack(j)
	}
	return ok
}

// waitFor helps until pr holds: it runs leftover work of its own
// invocation, steals from hint's thief (whose deque holds the awaited job's
// children), then from workers running the same invocation, takes its
// invocation's jobs that were sent to the injector (rehome), and parks on pr
// when there is nothing to take. Only w's own goroutine calls it, from a
// join or a scope's end.
//
// Helping is isolated by invocation: a waiting worker runs only tasks of the
// invocation it is waiting in (w.inv), never a root task from the injector
// and never another invocation's task. Otherwise one caller's Join could run
// another caller's whole computation on top of its frames, and a lock the
// first holds across the Join would deadlock the second (rayon#592).
func (w *Worker) waitFor(pr probe, hint *job) {
	w.closeBatch() // others may be idle now

	idle := 0
	for w.flushHeld(); !pr.done(); w.flushHeld() {
		if x := w.findHelp(hint); x != nil {
			w.runJob(x)
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
	// Tasks we ran while waiting may have left spawns in an open batch
	// (batch.go); we are about to return to code that may run for long,
	// so let others see them.
	w.closeBatch()
}

// findHelp is find for a waiting worker (waitFor): the same sources, in the
// order that serves the wait, restricted to w's invocation (see waitFor):
// its own deque (the awaited job's younger relatives), the awaited job's
// thief, other workers that run the same invocation, then the injector's
// jobs of that invocation. Unlike find it never takes a root from the
// injector. Only w's goroutine calls it.
func (w *Worker) findHelp(hint *job) *job {
	p := w.pool
	if w.shared {
		return p.shared.popNewestOf(w.inv, &w.stats)
	}
	if j := w.popOwn(); j != nil {
		return j
	}
	if hint != nil {
		if t := hint.thief.Load(); t > 0 {
			if j := w.helpSteal(p.live()[t-1]); j != nil {
				return j
			}
		}
	}
	ws := p.live()
	n := len(ws)
	start := int(w.random() % uint64(n))
	for i := range n {
		if v := ws[(start+i)%n]; v != w {
			if j := w.helpSteal(v); j != nil {
				return j
			}
		}
	}
	// Jobs of ours that a helper of another invocation stole and sent to
	// the injector (rehome); never a root.
	return p.injector.popForkedOf(w.inv)
}

// helpSteal steals from v for a waiting w, only if v runs w's invocation.
func (w *Worker) helpSteal(v *Worker) *job {
	if v.curInv.Load() != w.inv {
		return nil
	}
	j, n := w.stealFrom(v)
	if j == nil || n == 1 && j.inv == w.inv {
		return j
	}
	return w.keepOwn(j, n-1)
}

// keepOwn sorts a steal-half batch that w stole while waiting: j, and the n
// jobs the steal left on top of w's deque. The victim may switch
// invocations between helpSteal's check and the steal, so the batch may
// hold another invocation's jobs: those go to the injector (rehome),
// instead of running on top of w's frames or staying on w's deque, where
// their invocation's waiting workers do not look. w's own stay on its
// deque, in their order; keepOwn returns the newest of them to run, or nil
// if there is none.
func (w *Worker) keepOwn(j *job, n int) *job {
	var buf [32]*job
	own := buf[:0] // newest first
	if j.inv == w.inv {
		own = append(own, j)
	} else {
		w.rehome(j)
	}
	for range n {
		x, ok := w.deque.Pop()
		if !ok {
			break // a thief took the rest
		}
		if x.inv == w.inv {
			own = append(own, x)
		} else {
			w.rehome(x)
		}
	}
	if len(own) == 0 {
		return nil
	}
	for k := len(own) - 1; k > 0; k-- {
		w.deque.Push(own[k])
	}
	return own[0]
}

// rehome sends j, a job of another invocation than the one w waits in, to
// the injector. Idle workers take it from there, and so do waiting workers
// of its invocation (findHelp). Those may all be parked, and a producer's
// wake-up goes to an idle worker or to the joiner that parked last, which
// may wait in another invocation and pass it on to nobody: so rehome wakes
// the parked joiners of j's invocation itself.
func (w *Worker) rehome(j *job) {
	p := w.pool
	inv := j.inv // read before the push: once queued, j may run and be recycled
	p.injector.push(j, nil)
	p.sleep.wakeJoinersOf(inv)
	p.sleep.notify()
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
