package forkjoin

import "unsafe"

// Spawn batches.
//
// A scope's tasks are spawned one by one (S.Go, Func.Go) but need not travel
// one by one. While a scope has many tasks waiting (more than S.eager) and
// no worker is looking for work, consecutive spawns of the same kind into the
// same scope on the same worker fill one batch record, up to spawnBatch
// tasks, and the record travels as one job: one deque slot, one steal, one
// scope count, one record given back, for up to 16 tasks. The arguments sit
// side by side in the record, so a thief that runs a batch reads them in a
// few consecutive cache lines instead of a record's two lines per task. For
// millions of tiny tasks (the tiny-tasks experiment) that transfer is most
// of what a stolen task costs.
//
// The rules:
//
//  1. A worker has at most one open batch (Worker.batch): a record that is
//     on no deque and counted in no scope yet, so only its worker can see
//     it, and appending to it needs no synchronisation.
//  2. The worker closes its open batch (closeBatch: counts its tasks in the
//     scope, then publishes it like a fork) when it is full, and
//     before anything that could make its tasks wait or run out of order:
//     a spawn of another kind or scope, a fork, a wait (waitFor), a nested
//     invocation (invokeInline), and the end of the task that opened it
//     (settleTask, which every task's end runs, runtime.Goexit included,
//     before the task's completion is signalled: so the scope counts the
//     batch's tasks before whoever waits for that task can move on).
//     So an open batch exists only while the task that fills it runs, and
//     at most spawnBatch-1 spawns wait unseen by thieves at any time (doc.go
//     says what a task must not block on because of that).
//  3. While the scope has fewer than S.eager tasks pending, or a worker is
//     searching or parked and this worker's deque has nothing for it, a
//     spawn is queued at once in a batch of one: a few tasks, or tasks
//     spawned for an idle worker with nothing to take, never wait for
//     company. Otherwise the thieves have published work to take (in
//     halves, StealHalf), and a hungry thief is better served by a batch
//     than by a record per task, which it would steal a few at a time.
//  4. A batch runs its tasks in order on the worker that took it, each
//     task's panic recorded and the rest run; it counts as its tasks in
//     Stats.Tasks and in the scope.
//  5. A full batch whose scope is at its backlog bound (S.full) is run at
//     once by its worker instead of being published (endBatch): the bound
//     that keeps a spawning loop's memory in check, hungry workers or not
//     (publishing it for them made the spawning loop slower, with more
//     parks, not fewer: docs/benchmarks.md).
//
// Like every spawned record, a batch goes back to the worker that spawned it
// once run (records.go). There are three batch records: funcBatch (Func.Go),
// closureBatch (S.Go) and rangeBatch, the consecutive pieces of a
// shared-queue loop (forspawn.go), under the same rules.

// spawnBatch is the most tasks one batch record carries. Sixteen makes a
// batch of small arguments a few cache lines, saves fifteen of every sixteen
// deque operations, records and scope counts, and keeps the granularity of
// load balancing fine: batching starts only with 2·spawnBatch tasks per
// worker already waiting.
const spawnBatch = 16

// funcBatch is the record of Func.Go spawns: up to spawnBatch arguments of
// one Func.
type funcBatch[A, R any] struct {
	job
	f    *Func[A, R]
	args [spawnBatch]A
}

// closureBatch is the record of S.Go spawns: up to spawnBatch closures.
type closureBatch struct {
	job
	fns [spawnBatch]func(*Worker)
}

// Go spawns f(a) in scope s, like s.Go, but allocation-free: the record
// carries a (with other spawns' arguments), and the worker
// that spawned it keeps the record for reuse. The result is discarded. Call
// it from the scope's body or any of its tasks, as s.Go; it panics where
// s.Go does.
func (f *Func[A, R]) Go(s *S, a A) {
	if raceStrands && s.w.inStrand() {
		strandGo(s, nil, func(w *Worker) { f.fn(w, a) }, "forkjoin.Func.Go")
		return
	}
	w, g := s.w, goroutineID()
	if s.ended.Load() || w.g.Load() != g { // caller's common case, inline
		w = s.caller("forkjoin.Func.Go", g)
	}
	if d := w.depth(); d < lazyDepth && !w.shared && s.inv == w.inv {
		// A lazy spawn: a is appended to the run on top, or starts one in
		// frame d. The heartbeat sees a cancellation.
		key := typeKey[funcSpawn[A, R]]()
		r := (*funcSpawn[A, R])(unsafe.Pointer(w.runOnTop(d, key, s, unsafe.Pointer(f))))
		if r == nil {
			r = newRun[funcSpawn[A, R]](w, d, key, s, unsafe.Pointer(f))
		}
		r.tasks[r.n] = a
		r.n++
		w.nTasks++
		if (w.countdown() || w.idleWaits()) && w.forkBeat(w.depth()-1) {
			var zero A
			r.tasks[r.n-1] = zero
			w.unspawn(&r.spawnHead)
		}
		return
	}
	// Eager: a goes into an open batch, or is published at once (see open).
	if s.canceled() {
		return
	}
	key := typeKey[funcBatch[A, R]]()
	if b := w.batch; b != nil && b.key == key && b.scope == s {
		if fb := (*funcBatch[A, R])(unsafe.Pointer(b)); fb.f == f {
			fb.args[b.tasks] = a
			if b.tasks++; b.tasks == spawnBatch {
				w.endBatch()
			}
			return
		}
	}
	fb := newRecord[funcBatch[A, R]](w, key)
	fb.f = f
	fb.args[0] = a
	s.open(w, &fb.job)
}

func (s *S) goFrom(w *Worker, fn func(w *Worker)) {
	if d := w.depth(); d < lazyDepth && !w.shared && s.inv == w.inv {
		spawnClosure(w, s, fn, d) // sees a cancellation at its heartbeat
		return
	}
	s.goEager(w, fn)
}

// goEager is the eager S.Go: fn goes into an open batch, or is published at
// once (see open). Only w's goroutine calls it.
func (s *S) goEager(w *Worker, fn func(w *Worker)) {
	if s.canceled() {
		return
	}
	key := typeKey[closureBatch]()
	if b := w.batch; b != nil && b.key == key && b.scope == s {
		cb := (*closureBatch)(unsafe.Pointer(b))
		cb.fns[b.tasks] = fn
		if b.tasks++; b.tasks == spawnBatch {
			w.endBatch()
		}
		return
	}
	cb := newRecord[closureBatch](w, key)
	cb.fns[0] = fn
	s.open(w, &cb.job)
}

// Lazy spawns. In work-stealing mode S.Go and Func.Go spawn into a frame
// (heartbeat.go) whose record holds a run of up to spawnBatch tasks: the
// consecutive spawns of one kind (closures, or one Func's) into one scope by
// one task. A spawn appends to the run on top of its worker's frames when
// that run is its own task's, still pending and not full, and pushes a new
// frame otherwise.
//
// The spawning task's end runs the runs' tasks (settleFrames), unless a
// heartbeat promoted them first: the newest run first, and a run's tasks in
// the order of their spawns, so that the runs a task leaves, pushed above
// its own run, run before the next task of its run. The spawns of a tree
// are so walked depth first, in one loop, with no recursion per level.
//
// Promotion moves the older half (rounded up) of a run's pending tasks into
// a batch record, published as closeBatch publishes one, and the frame
// stays promotable while tasks are pending in it. The eager path above
// (open batches) serves shared-queue mode, and spawns past lazyDepth
// frames.
//
// A run takes spawns only from the task that pushed it: every task's start
// (Worker.mark) seals the frame on top, so that a task started above a run
// (a Future's Join run inline, a job run while waiting, a run's own tasks)
// pushes frames of its own, which its own end settles.

// spawnHead is the header of a spawn run's record.
type spawnHead struct {
	job                    // job.scope is the run's scope while a task is pending
	fn      unsafe.Pointer // the *Func[A, R] of a Func.Go run; nil for S.Go's
	next, n int32          // tasks[next:n] are pending
}

// spawnFrame is a spawn run's record: the header and the tasks.
type spawnFrame[T any] struct {
	spawnHead
	tasks [spawnBatch]T
}

// closureSpawn is the frame record of S.Go spawns.
type closureSpawn struct{ spawnFrame[func(*Worker)] }

// funcSpawn is the frame record of one Func's Func.Go spawns.
type funcSpawn[A, R any] struct{ spawnFrame[A] }

// runOnTop returns the run a spawn of key's record type, of Func fn (nil
// for S.Go), into s appends to: the top frame, below d = w.depth(), if it
// is such a run, pending, unsealed and not full; else nil.
func (w *Worker) runOnTop(d int, key unsafe.Pointer, s *S, fn unsafe.Pointer) *spawnHead {
	if d == 0 {
		return nil
	}
	fr := w.frame(d - 1)
	if fr.st != frameLazy || fr.sealed || fr.j.key != key || fr.j.scope != s {
		return nil
	}
	h := (*spawnHead)(unsafe.Pointer(fr.j)) // the key is the record's type
	if h.fn != fn || h.n == spawnBatch {
		return nil
	}
	return h
}

// pushRun makes the record in w's frame slot d, set up for s and fn, a
// new pending run: frame d, the top one.
func (w *Worker) pushRun(d int, h *spawnHead, s *S, fn unsafe.Pointer) {
	h.scope, h.fn, h.next, h.n = s, fn, 0, 0
	fr := w.frame(d)
	fr.sealed = false
	w.pushFrame(d)
}

// endRun clears a run that has nothing pending any more (records.go,
// rule 4).
func (h *spawnHead) endRun() { h.scope, h.fn, h.next, h.n = nil, nil, 0, 0 }

// spawnClosure is S.Go with a lazy frame: fn is appended to the run on top,
// or starts one in frame d, w.depth().
func spawnClosure(w *Worker, s *S, fn func(*Worker), d int) {
	key := typeKey[closureSpawn]()
	r := (*closureSpawn)(unsafe.Pointer(w.runOnTop(d, key, s, nil)))
	if r == nil {
		r = newRun[closureSpawn](w, d, key, s, nil)
	}
	r.tasks[r.n] = fn
	r.n++
	w.nTasks++
	if (w.countdown() || w.idleWaits()) && w.forkBeat(w.depth()-1) {
		r.tasks[r.n-1] = nil
		w.unspawn(&r.spawnHead)
	}
}

// runRecord is what newRun makes: a pointer to a spawn run's record type
// T (closureSpawn, funcSpawn), whose first field is its spawnHead.
type runRecord[T any] interface {
	*T
	executor
	frameOps
}

// newRun starts a run of record type T (key) into s, of Func fn (nil for
// S.Go), in w's frame slot d, the new top frame, and returns its record:
// the slot's own if it is of the kind, else one from w's cache or a new one.
func newRun[T any, P runRecord[T]](w *Worker, d int, key unsafe.Pointer, s *S, fn unsafe.Pointer) P {
	j := w.frame(d).j
	if j == nil || j.key != key {
		if j = w.slotRecord(d, key); j == nil {
			j = (*job)(unsafe.Pointer(newRecord[T, P](w, key))) // the header is T's first field
		}
		w.setSlot(d, j, P(unsafe.Pointer(j)))
	}
	w.pushRun(d, (*spawnHead)(unsafe.Pointer(j)), s, fn)
	return P(unsafe.Pointer(j)) // the key is the record's type
}

// unspawn takes back the newest task of the run on top, h, whose heartbeat
// found the invocation canceled (a canceled invocation's spawn starts
// nothing); the caller has cleared the task. forkBeat promotes nothing when
// it reports a cancellation, so the task is still h's newest.
func (w *Worker) unspawn(h *spawnHead) {
	w.nTasks--
	if h.n--; h.n == h.next {
		h.endRun()
		w.popFrame(w.depth() - 1)
	}
}

// publishSpawns counts b's tasks in scope s and pushes it on w's deque, as
// closeBatch publishes a batch, but without counting the tasks in
// Stats.Tasks again (their spawns did). Only w's goroutine calls it, to
// promote a spawn run.
func (w *Worker) publishSpawns(b *job, s *S) {
	b.scope = s
	b.inv = w.inv
	s.pending.Add(int64(b.tasks))
	w.deque.Push(b)
}

// promoteRun moves the older half (rounded up) of r's pending tasks into
// into, a batch's, and returns how many it moved: all of them with all
// set, or when the run is full and not sealed (a spawning loop, whose next
// spawns fill new runs: the batch is then as large as an eager one). A
// batch runs on one worker, so any other run keeps half for its own worker.
// A run left with nothing pending leaves the lazy state (settleFrames pops
// it).
func promoteRun[T any](fr *lazyFrame, r *spawnFrame[T], into *[spawnBatch]T, all bool) int {
	k := r.n - r.next
	if !all && (r.n < spawnBatch || fr.sealed) {
		k = (k + 1) / 2
	}
	copy(into[:k], r.tasks[r.next:r.next+k])
	clear(r.tasks[r.next : r.next+k])
	if r.next += k; r.next == r.n {
		r.endRun()
		fr.st = frameRunning
	}
	return int(k)
}

func (r *closureSpawn) promote(w *Worker, fr *lazyFrame, d int, all bool) (pushed, again bool) {
	s := r.scope
	b := newRecord[closureBatch](w, typeKey[closureBatch]())
	b.tasks = uint32(promoteRun(fr, &r.spawnFrame, &b.fns, all))
	w.publishSpawns(&b.job, s)
	return true, fr.st == frameLazy
}

func (r *funcSpawn[A, R]) promote(w *Worker, fr *lazyFrame, d int, all bool) (pushed, again bool) {
	s := r.scope
	b := newRecord[funcBatch[A, R]](w, typeKey[funcBatch[A, R]]())
	b.f = (*Func[A, R])(r.fn)
	b.tasks = uint32(promoteRun(fr, &r.spawnFrame, &b.args, all))
	w.publishSpawns(&b.job, s)
	return true, fr.st == frameLazy
}

func (r *closureSpawn) settle(w *Worker, fr *lazyFrame, d int) {
	settleRun(w, d, &r.spawnFrame, callClosure)
}

func (r *funcSpawn[A, R]) settle(w *Worker, fr *lazyFrame, d int) {
	settleRun(w, d, &r.spawnFrame, (*Func[A, R])(r.fn).fn)
}

// settleRun runs the tasks of spawn run r, the top frame d, through run, at
// the end of the task that spawned them (settleFrames, whose deferred
// recovery takes a task's panic to the scope), each as a task of its own.
// After each task it goes on with the run on top, if that is a pending run
// of r's kind, Func and scope at or above d: r's next task, the run the task
// left (its spawns), or, once that is done, the run below it that it came
// from. So a recursion's spawns are walked depth first without a trip
// through settleFrames per level; anything else on top (a fork the task
// left unjoined, a run of another kind) returns to settleFrames, which
// settles it and comes back. Each run is popped before its last task runs,
// so that the task's own spawns reuse the slot (a chain of spawns keeps one
// frame), and a panic leaves no run half ended. A task not started once
// the invocation is canceled is skipped.
func settleRun[T, R any](w *Worker, d int, r *spawnFrame[T], run func(*Worker, T) R) {
	s, key, fn, base := r.scope, r.key, r.fn, d
	for {
		i := r.next
		t := r.tasks[i]
		var zero T
		r.tasks[i] = zero
		if r.next = i + 1; r.next == r.n {
			r.endRun()
			w.popFrame(d)
		}
		if !w.inv.canceled.Load() {
			m := w.mark()
			run(w, t)
			if len(w.open) > m.open || w.batch != nil {
				// Eager forks or an open batch: the task's end in full.
				// Frames alone are left to settleFrames.
				s.fail(w.settleTask(m, nil, nil))
			}
		}
		if w.depth() == d+1 && r.next < r.n {
			continue // the task left nothing, and r still has tasks pending
		}
		if d = w.depth() - 1; d < base {
			return
		}
		fr := w.frame(d)
		if fr.st != frameLazy || fr.j.key != key || fr.j.scope != s {
			return // a fork, a run of another kind, or a promotion took the rest
		}
		if r = (*spawnFrame[T])(unsafe.Pointer(fr.j)); r.fn != fn { // the key is the record's type
			return
		}
	}
}

// A spawn run's record never runs as a job: promotion publishes a batch
// instead.
func (r *closureSpawn) execute(*Worker)    { panic("forkjoin: a spawn frame's record ran as a job") }
func (r *closureSpawn) abandon(*Worker)    {}
func (r *funcSpawn[A, R]) execute(*Worker) { panic("forkjoin: a spawn frame's record ran as a job") }
func (r *funcSpawn[A, R]) abandon(*Worker) {}

// recordType is what newRecord makes: a pointer to a record type T whose
// first field is its job header (the batches, the spawn runs).
type recordType[T any] interface {
	*T
	executor
}

// newRecord returns a free record of type T from w's cache, or a new one
// that w owns; key is typeKey[T](). Only w's goroutine calls it.
func newRecord[T any, P recordType[T]](w *Worker, key unsafe.Pointer) P {
	if j := w.cacheGet(key); j != nil {
		return P(unsafe.Pointer(j)) // the key is the record's type
	}
	p := P(new(T))
	h := (*job)(unsafe.Pointer(p)) // the header is T's first field
	h.run, h.owner, h.key = p, w, key
	return p
}

// open starts j, a batch record holding one task of s, on w: queued at once
// while few tasks are pending, or while a worker is searching or parked and
// w's deque is empty (rule 3), else kept open for the spawns that follow. Only w's goroutine calls it.
func (s *S) open(w *Worker, j *job) {
	w.closeBatch()
	j.scope = s
	j.inv = s.inv // the scope's invocation, even if w runs a nested one now
	j.tasks = 1
	w.batch = j
	if s.pending.Load() < s.eager || (w.pool.sleep.hungry() && w.deque.Len() == 0) {
		w.closeBatch()
	}
}

// endBatch ends w's full open batch: published (closeBatch), or, when its
// scope's backlog is at its bound (S.full), run at once by w itself, which
// bounds the memory a loop spawning millions of tasks holds while thieves
// still have thousands to take. Running a whole batch under one recovery
// (runBatch) makes an inline task cost little more than a plain call. Only
// w's goroutine calls it.
func (w *Worker) endBatch() {
	j := w.batch
	if !j.scope.full() || j.inv != w.inv { // run inline only in its invocation
		w.closeBatch()
		return
	}
	w.batch = nil
	n := int64(j.tasks)
	w.nTasks += uint64(n)
	j.scope.pending.Add(n) // execute counts them finished
	finished := false
	defer func() {
		if !finished { // runtime.Goexit: count the batch, as execute's abandon does
			j.abandonBatch(w)
		}
	}()
	j.run.execute(w)
	finished = true
}

// closeBatch counts w's open batch in its scope and publishes it like a fork
// (rule 2), waking a parked worker if nobody searches. Only w's goroutine
// calls it.
func (w *Worker) closeBatch() {
	j := w.batch
	if j == nil {
		return
	}
	w.batch = nil
	n := int64(j.tasks)
	w.nTasks += uint64(n - 1) // push counts one
	j.scope.pending.Add(n)
	w.push(j)
}

func (b *funcBatch[A, R]) execute(w *Worker) {
	s, n := b.scope, int(b.tasks)
	runBatch(w, s, b.args[:n], b.f.fn)
	var zero A
	for i := range n {
		b.args[i] = zero // nothing of the caller's stays reachable
	}
	b.f = nil
	b.finishBatch(w, s)
}

func (b *funcBatch[A, R]) abandon(w *Worker) { b.job.abandonBatch(w) }

func (b *closureBatch) execute(w *Worker) {
	s, n := b.scope, int(b.tasks)
	runBatch(w, s, b.fns[:n], callClosure)
	clear(b.fns[:n])
	b.finishBatch(w, s)
}

func (b *closureBatch) abandon(w *Worker) { b.job.abandonBatch(w) }

// finishBatch ends a batch w ran: the record goes home (records.go), and its
// tasks are counted in s.
func (j *job) finishBatch(w *Worker, s *S) {
	n := int64(j.tasks)
	j.scope = nil
	w.release(j)
	w.flushStats()
	w.finishScopeTask(s, n)
}

// abandonBatch fails a batch whose goroutine runtime.Goexit is ending: the
// scope gets the Goexit as its panic, and the batch counts as finished, so
// that the scope's owner does not wait for ever.
func (j *job) abandonBatch(w *Worker) {
	j.scope.fail(goexitPanic())
	w.finishScopeTask(j.scope, int64(j.tasks))
}

// runBatch runs run(w, tasks[0]), run(w, tasks[1]), ..., the tasks of a
// batch of s, skipping those not started once the invocation is canceled,
// and records each task's panic in s without stopping the rest. run is the
// Func's body itself for a Func.Go batch: one indirect call per task, not
// two, as a closure around the body would make.
func runBatch[T, R any](w *Worker, s *S, tasks []T, run func(*Worker, T) R) {
	for i := 0; i < len(tasks); {
		i = runFrom(w, s, i, tasks, run)
	}
}

// callClosure is runBatch's run for S.Go batches.
func callClosure(w *Worker, fn func(*Worker)) struct{} {
	fn(w)
	return struct{}{}
}

// rangeBatch is a batch record of forSpawn pieces: job.tasks consecutive
// pieces of loop l, the first starting at lo.
type rangeBatch struct {
	job
	l  *forLoop
	lo int
}

// execute runs the batch's pieces in order through runBatch, as a Func.Go
// batch runs its tasks, from arguments made on the stack.
func (b *rangeBatch) execute(w *Worker) {
	s, n, l := b.scope, int(b.tasks), b.l
	var pieces [spawnBatch]pieceArgs
	for i := range n {
		pieces[i] = pieceArgs{b.lo + i*l.grain, l} // below l.hi: no overflow
	}
	b.l = nil // nothing of the caller's stays reachable
	runBatch(w, s, pieces[:n], runPiece)
	b.finishBatch(w, s)
}

func (b *rangeBatch) abandon(w *Worker) {
	b.l = nil
	b.job.abandonBatch(w)
}
