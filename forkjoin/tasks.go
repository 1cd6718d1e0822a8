package forkjoin

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Tasks is a set of tasks started one at a time, with Go or Submit, and
// waited for together, with Wait: a scope whose start and end are separate
// calls, for code that cannot put its spawns in one body (par.Group, the
// errgroup of this module, is built on it). The zero value is ready; a
// Tasks must not be copied once used. Any number of goroutines and tasks
// may start tasks and wait at once.
//
// Unlike a scope's spawns, a task Go starts is stealable at once, never
// held back in a lazy frame or a spawn batch: a task started from a task
// that then blocks (on a channel another of the set's tasks serves, say)
// is there for an idle worker, or for a compensating worker the pool adds
// when its workers are blocked (see Blocking), to run.
//
// The set does not end the invocation's life: the tasks Go starts belong
// to the calling task's invocation, but that invocation's Invoke returns
// without waiting for them. Call Wait before the task that started them
// returns, as with errgroup's goroutines.
type Tasks struct {
	pending atomic.Int64 // started, not finished
	sleepy  atomic.Bool  // a waiter may be parked; finish takes mu when pending reaches 0
	mu      sync.Mutex
	panic   atomic.Pointer[PanicError]
	waits   *tasksWaits // made by the first Wait that blocks, or the first strand; guarded by mu
}

// tasksWaits is what a Tasks keeps for Waits that block and for strand
// mode: most sets, one per level of a recursion, never need it, and a set
// without it is smaller to allocate.
type tasksWaits struct {
	waiters []*Worker // workers that armed the set in Wait
	cond    sync.Cond // on the set's mu: waits of ordinary goroutines
	strands []*strand // strand mode: the tasks started and not yet waited for
}

// addStrand keeps st, the strand of a task of t, for Wait to join (strand
// mode).
func (t *Tasks) addStrand(st *strand) {
	t.mu.Lock()
	tw := t.waitsLocked()
	tw.strands = append(tw.strands, st)
	t.mu.Unlock()
}

// takeStrands returns the strands addStrand kept, and forgets them.
func (t *Tasks) takeStrands() []*strand {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waits == nil {
		return nil
	}
	sts := t.waits.strands
	t.waits.strands = nil
	return sts
}

// waitsLocked returns t's tasksWaits, made if need be. t.mu must be held.
func (t *Tasks) waitsLocked() *tasksWaits {
	if t.waits == nil {
		t.waits = &tasksWaits{cond: sync.Cond{L: &t.mu}}
	}
	return t.waits
}

// tasksJob is a task of a Tasks, as a job record on a deque: fn's, or
// efn's with end told how it ended (GoErr).
type tasksJob struct {
	job
	fn  func(*Worker)
	efn func() error
	end TaskEnd
	set *Tasks

	// While the task runs (execute), for its end (ended):
	outer int      // the length of the worker's inTasks before the task
	mark  taskMark // the worker's frames and open handles before the task
	err   error    // efn's result
	ok    bool     // the function returned
}

// A TaskEnd is told how each task that GoErr started ended.
type TaskEnd interface {
	// TaskEnded is called once for each task, by the goroutine that ran
	// it, after its function returned, panicked or called runtime.Goexit,
	// and before Wait can return: with the function's error, and with its
	// panic as a *PanicError, which Wait then does not re-raise (both are
	// set when the function returned an error and a task it forked and
	// left unjoined panicked). A Goexit is reported as a nil error; the
	// set records it as a *PanicError whose Value is ErrGoexit (see Wait).
	// TaskEnded should not panic or call runtime.Goexit: if it does, the
	// task still counts as finished, and Wait re-raises what it did.
	TaskEnded(err error, pe *PanicError)
}

// Go starts fn in the set, as a task of the invocation whose task runs on
// w, and returns at once, having made the task stealable: an idle worker
// may start it before Go returns. w must be the calling task's worker. A
// panic in fn, or runtime.Goexit, is recorded for Wait. Once the invocation
// is canceled Go starts nothing and reports false; otherwise it reports
// true.
//
// A Go costs an eager fork: a push on w's deque, a wake-up check, and, when
// w itself runs the task (Wait, or a join, takes it back), a pop; the
// record comes from w's free records, so in steady state nothing is
// allocated beyond fn's closure.
func (t *Tasks) Go(w *Worker, fn func(w *Worker)) bool {
	if fn == nil {
		panic("forkjoin.Tasks.Go: fn is nil")
	}
	return t.start(w, "forkjoin.Tasks.Go", fn, nil, nil)
}

// GoErr starts f in the set as Go does, for a function with an error
// result, and tells end how f ended (see TaskEnd) instead of keeping its
// panic for Wait: the form for a set that keeps its own errors and panics
// (par.Group), with nothing allocated per call in steady state but what f
// captures. It reports false, and starts nothing, once the invocation is
// canceled.
func (t *Tasks) GoErr(w *Worker, f func() error, end TaskEnd) bool {
	if f == nil {
		panic("forkjoin.Tasks.GoErr: f is nil")
	}
	if end == nil {
		panic("forkjoin.Tasks.GoErr: end is nil")
	}
	return t.start(w, "forkjoin.Tasks.GoErr", nil, f, end)
}

// start is Go's and GoErr's: it starts fn, or efn told to end, as a task
// of t forked from w, the calling task's worker, which call names.
func (t *Tasks) start(w *Worker, call string, fn func(*Worker), efn func() error, end TaskEnd) bool {
	w.check(call)
	if w.Canceled() {
		return false
	}
	if raceStrands && w.inStrand() {
		if efn != nil {
			fn = func(*Worker) { callErr(efn, end) }
		}
		strandTasksStart(t, w.pool, w, fn)
		return true
	}
	w.countStart(t)
	j := t.task(w)
	j.fn, j.efn, j.end = fn, efn, end
	w.fork(&j.job)
	return true
}

// callErr runs f and tells end how it ended, as tasksJob.execute does for
// GoErr's tasks: the form strand mode runs.
func callErr(f func() error, end TaskEnd) {
	ok := false
	var err error
	defer func() {
		if ok {
			end.TaskEnded(err, nil)
		} else if v := recover(); v != nil {
			end.TaskEnded(nil, asPanicError(v))
		} else {
			end.TaskEnded(nil, nil) // runtime.Goexit: the strand records it
		}
	}()
	err = f()
	ok = true
}

// task returns a record of w's for a task of t, its function not set.
func (t *Tasks) task(w *Worker) *tasksJob {
	var j *tasksJob
	if r := w.cacheGet(typeKey[tasksJob]()); r != nil {
		j = (*tasksJob)(unsafe.Pointer(r)) // the key is the record's type
	} else {
		j = &tasksJob{}
		j.run, j.owner, j.key = j, w, typeKey[tasksJob]()
	}
	j.set = t
	return j
}

// execute runs the task's function as a task of its own, as call does,
// with the set on w's list of sets it runs tasks of (Within) meanwhile,
// and counts it finished whether it returns, panics or calls
// runtime.Goexit (ended). It is call written out, with the task's state in
// the record rather than in this frame: a recursion with a set per level
// (a par.Group per directory of a tree) nests it once per level, and the
// goroutine's stack grows by every byte a level takes.
//
// For a task of GoErr (efn), end is told the error or the panic, and only
// a Goexit is recorded for Wait.
func (j *tasksJob) execute(w *Worker) {
	j.outer = len(w.inTasks)
	w.inTasks = append(w.inTasks, j.set)
	j.mark = w.mark()
	j.ok = false
	defer j.ended(w)
	if j.efn != nil {
		j.err = j.efn()
	} else {
		j.fn(w)
	}
	j.ok = true
}

// ended is execute's deferred end, after the task's function returned
// (j.ok), panicked, or called runtime.Goexit. The task's state is in the
// record, not in execute's frame, which a recursion nests once per level.
func (j *tasksJob) ended(w *Worker) {
	var v any
	if !j.ok { // a panic, or runtime.Goexit
		v = recover()
	}
	t, end, err := j.set, j.end, j.err
	var pe *PanicError
	goexit := !j.ok && v == nil // it goes on unwinding after us
	if !j.ok {
		pe = w.settleTask(j.mark, v, nil)
		if goexit {
			pe = goexitPanic()
		}
	} else if w.leftovers(j.mark) {
		pe = w.settleTask(j.mark, nil, nil)
	}
	clear(w.inTasks[j.outer:])
	w.inTasks = w.inTasks[:j.outer]
	j.fn, j.efn, j.end, j.set, j.err = nil, nil, nil, nil, nil // a free record pins nothing
	w.flushStats()
	w.release(&j.job)
	switch {
	case end == nil:
		t.record(pe)
		w.countEnd(t)
	case goexit:
		t.record(pe)
		t.tell(w, end, nil, nil)
	default:
		t.tell(w, end, err, pe)
	}
	if goexit {
		w.flushTasks() // the goroutine unwinds on, through code that may not be t's
	}
}

// tell calls end.TaskEnded and then counts the task finished, even if
// TaskEnded panics (the panic is recorded for Wait) or calls
// runtime.Goexit (recorded as ErrGoexit): user code must not leave the set
// waiting for ever.
func (t *Tasks) tell(w *Worker, end TaskEnd, err error, pe *PanicError) {
	told := false
	defer func() {
		if !told {
			if v := recover(); v != nil {
				t.record(asPanicError(v))
			} else {
				t.record(goexitPanic())
			}
			t.finish() // TaskEnded panicked or called Goexit: count it at once
			return
		}
		w.countEnd(t)
	}()
	end.TaskEnded(err, pe)
	told = true
}

// abandon has nothing to do: execute's deferred end counts the task
// however it ends, runtime.Goexit included.
func (j *tasksJob) abandon(*Worker) {}

// Submit starts fn in the set as an invocation of its own on p, from any
// goroutine, and returns at once: Invoke without the wait. It panics with
// ErrClosed if p is closed. Use Go from a task: Submit's task is a root,
// which workers waiting inside other invocations never run.
func (t *Tasks) Submit(p *Pool, fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin.Tasks.Submit: fn is nil")
	}
	if p == nil {
		panic("forkjoin.Tasks.Submit: p is nil")
	}
	if raceStrands && p.strandPool() {
		for !strandSubmit(t, p, fn) {
			p = Default() // a default pool Default has replaced
		}
		return
	}
	t.pending.Add(1)
	root := func(w *Worker) struct{} {
		j := t.task(w)
		j.fn = fn
		j.execute(w)
		return struct{}{}
	}
	ok := false
	defer func() {
		if !ok { // ErrClosed: nothing started
			t.finish()
		}
	}()
	for submit(p, root, nil) == nil {
		p = Default() // a default pool Default has replaced
	}
	ok = true
}

// Within reports whether the task running on w, the calling task's
// worker, is one of t's, or runs inside one with no task of another set
// between (a par call in it, say): Wait there would wait for itself. It
// looks at the innermost set only, so that the check costs the same at
// any depth of a recursion with a set per level.
func (t *Tasks) Within(w *Worker) bool {
	return w != nil && len(w.inTasks) > 0 && w.inTasks[len(w.inTasks)-1] == t
}

// record keeps pe, if it is the first panic of the set's tasks.
func (t *Tasks) record(pe *PanicError) {
	if pe != nil {
		t.panic.CompareAndSwap(nil, pe)
	}
}

// tasksCounts is a worker's share of one set's count, heldSet's, not yet
// taken off its pending: tasks of the set that ended on the worker, and
// starts the worker reserved while it runs a task of the set. So a set
// whose tasks start and end on the workers by the million (a recursion
// with one Group at its root) does not bounce its counter between cores
// once per task. pending counts the share, so it never falls below the
// tasks still running; the worker gives it back (flushTasks) before it
// runs a job that is not a task of heldSet, when it finds no work, while
// it waits, at every tasksFlushEvery, and before it reserves for another
// set: so a waiter never waits on a share held by a worker that is not
// running a task of the set, or code that a task of the set runs. Owner
// only.
type tasksCounts struct {
	heldSet *Tasks
	heldN   int64
}

const (
	// tasksReserve is how many starts a worker reserves with one add.
	tasksReserve = 32
	// tasksFlushEvery bounds a worker's share.
	tasksFlushEvery = 256
)

// countStart counts a task of t about to start on w: from w's share of
// t, else, from one of t's own tasks (Within), by reserving tasksReserve
// starts in one add, else by one add.
func (w *Worker) countStart(t *Tasks) {
	switch {
	case w.heldSet == t && w.heldN > 0:
		w.heldN--
	case t.Within(w):
		w.flushTasks()
		t.pending.Add(tasksReserve)
		w.heldSet, w.heldN = t, tasksReserve-1
	default:
		t.pending.Add(1)
	}
}

// countEnd counts a task of t that ended on w into w's share.
func (w *Worker) countEnd(t *Tasks) {
	if w.heldSet != t {
		w.flushTasks()
		w.heldSet = t
	}
	if w.heldN++; w.heldN >= tasksFlushEvery {
		w.flushTasks()
	}
}

// flushTasks gives w's share back to its set, waking the set's waiters if
// that leaves nothing pending.
func (w *Worker) flushTasks() {
	if t := w.heldSet; t != nil {
		n := w.heldN
		w.heldSet, w.heldN = nil, 0
		if n != 0 {
			t.finished(t.pending.Add(-n))
		}
	}
}

// shareFits reports whether w holds no share of a set's count, or that of
// the set j is a task of: otherwise w gives its share back before it runs j.
func (w *Worker) shareFits(j *job) bool {
	if w.heldSet == nil {
		return true
	}
	tj, ok := j.run.(*tasksJob)
	return ok && tj.set == w.heldSet
}

// finish counts a task down and, when it was the last and somebody may be
// waiting, wakes the waiters. Sequential consistency pairs a waiter's
// store to sleepy before its load of pending with our decrement before our
// load of sleepy: one of us sees the other.
func (t *Tasks) finish() { t.finished(t.pending.Add(-1)) }

// finished is finish after the decrement, n the count it left.
func (t *Tasks) finished(n int64) {
	if n != 0 || !t.sleepy.Load() {
		return
	}
	t.mu.Lock()
	var ws []*Worker
	if tw := t.waits; tw != nil {
		ws = tw.waiters
		tw.waiters = nil
		tw.cond.Broadcast()
	}
	t.mu.Unlock()
	for _, w := range ws {
		w.wakeOwner()
	}
}

// Pending returns the number of the set's tasks that have started and not
// finished: a snapshot, which may count for a moment tasks that have just
// finished, and starts that a worker reserved for tasks of the set.
func (t *Tasks) Pending() int { return int(t.pending.Load()) }

// Wait returns once every task started in the set has finished, including
// those the tasks start in it while Wait waits. Called from a task (w its
// worker), it runs the set's tasks that are still on w's deque, helps with
// the invocation's other work, and otherwise parks, holding no processor;
// the pool counts a worker parked there as blocked, and lends a
// compensating worker while work waits that it cannot take (see Blocking).
// Called from an ordinary goroutine, w is nil. Wait then re-raises the
// first panic of the set's tasks as a *PanicError, once, and clears it: the
// set may be used again.
//
// A task's runtime.Goexit is recorded as a *PanicError whose Value is
// ErrGoexit, which Wait re-raises as it does a panic. But a task that Wait
// runs itself, on w, shares w's goroutine: its Goexit ends the waiting task
// at once, which then fails with that *PanicError, while the set's tasks
// on other workers may still be running.
//
// Do not call Wait from one of the set's own tasks: it would wait for
// itself.
func (t *Tasks) Wait(w *Worker) {
	if w != nil {
		w.check("forkjoin.Tasks.Wait")
		if t.Within(w) {
			panic("forkjoin.Tasks.Wait: called from one of the set's own tasks, which it would wait for; wait from the code that started them")
		}
	}
	if w == nil || raceStrands && w.inStrand() { // a strand is a goroutine of its own: it may block
		t.mu.Lock()
		tw := t.waitsLocked()
		t.sleepy.Store(true)
		for t.pending.Load() != 0 {
			tw.cond.Wait()
		}
		t.mu.Unlock()
	} else if t.pending.Load() != 0 {
		w.closeBatch()
		// Run the set's tasks on top of w's deque from here, not through
		// waitFor and runJob: a recursion with a set per level nests Wait
		// once per level, and each frame less is stack the level saves.
		for j := t.popOwn(w); j != nil; j = t.popOwn(w) {
			w.startJob(&j.job)
			j.execute(w)
		}
		w.flushHeld() // as waitFor does: hold no count on return, t's included
		if t.pending.Load() != 0 {
			w.waitFor(t, nil)
		}
	}
	if raceStrands {
		strandTasksWait(t, w) // every strand has ended: join them, for the detector's edges
	}
	if pe := t.panic.Swap(nil); pe != nil {
		panic(pe)
	}
}

// popOwn pops the top of w's deque if it is a task of t in w's invocation,
// for Wait to run; otherwise it leaves the deque as it was and returns nil.
func (t *Tasks) popOwn(w *Worker) *tasksJob {
	x := w.popOwn()
	if x == nil {
		return nil
	}
	if j, mine := x.run.(*tasksJob); mine && j.set == t {
		return j
	}
	w.pushBack(x)
	return nil
}

// done reports whether every task started in the set has finished: the
// set is the probe a worker's Wait waits on (Worker.waitFor).
func (t *Tasks) done() bool { return t.pending.Load() == 0 }

// arm lists w, a worker about to park in Wait, for finish to wake, and
// reports whether tasks are still pending; if none is, w is taken off the
// list again, so that a set used again does not wake it.
func (t *Tasks) arm(w *Worker) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	tw := t.waitsLocked()
	if !slices.Contains(tw.waiters, w) {
		tw.waiters = append(tw.waiters, w)
	}
	t.sleepy.Store(true)
	if t.pending.Load() != 0 {
		return true
	}
	tw.waiters = slices.DeleteFunc(tw.waiters, func(x *Worker) bool { return x == w })
	return false
}
