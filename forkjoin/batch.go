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
// carries a (with other spawns' arguments; see batch.go), and the worker
// that spawned it keeps the record for reuse. The result is discarded. Call
// it from the scope's body or any of its tasks, as s.Go; it panics where
// s.Go does.
func (f *Func[A, R]) Go(s *S, a A) {
	w, g := s.w, goroutineID()
	if s.ended.Load() || w.g.Load() != g { // caller's common case, inline
		w = s.caller("forkjoin.Func.Go", g)
	}
	if d := w.nframes; d < lazyDepth && !w.shared && s.inv == w.inv {
		spawnFunc(w, s, f, a, d) // sees a cancellation at its heartbeat
		return
	}
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
	fb := newBatch[funcBatch[A, R]](w, key)
	fb.f = f
	fb.args[0] = a
	s.open(w, &fb.job)
}

func (s *S) goFrom(w *Worker, fn func(w *Worker)) {
	if d := w.nframes; d < lazyDepth && !w.shared && s.inv == w.inv {
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
	cb := newBatch[closureBatch](w, key)
	cb.fns[0] = fn
	s.open(w, &cb.job)
}

// Lazy spawns. In work-stealing mode S.Go and Func.Go spawn into a frame
// (heartbeat.go) whose record carries one task: the spawning task's end
// runs it (settleFrames), in the order of the spawns, unless a heartbeat
// promoted it first. Promotion turns the frame, with the lazy spawn frames
// of the same scope and kind just above it, up to half of them and at most
// spawnBatch, into one batch record, published as closeBatch publishes
// one; the frames become holes. The eager path above (open batches) serves
// shared-queue mode, and spawns past lazyDepth frames.

// closureSpawn is the frame record of an S.Go spawn.
type closureSpawn struct {
	job // job.scope is the task's scope while the frame is pending
	fn  func(*Worker)
}

// funcSpawn is the frame record of a Func.Go spawn.
type funcSpawn[A, R any] struct {
	job
	f   *Func[A, R]
	arg A
}

// spawnClosure is S.Go with a lazy frame at depth d.
func spawnClosure(w *Worker, s *S, fn func(*Worker), d int) {
	key := typeKey[closureSpawn]()
	j := w.frames[d].j
	if j == nil || j.key != key {
		if j = w.slotRecord(d, key); j == nil {
			r := &closureSpawn{}
			r.run, r.owner, r.key = r, w, key
			j = &r.job
		}
		w.setSlot(d, j, (*closureSpawn)(unsafe.Pointer(j)))
	}
	r := (*closureSpawn)(unsafe.Pointer(j)) // the key is the record's type
	r.fn, r.scope = fn, s
	w.frames[d].st = frameLazy
	w.nframes = d + 1
	w.nTasks++
	if w.ticksLeft--; w.ticksLeft < 0 || w.idleWaits() {
		w.spawnBeat(d)
	}
}

// spawnFunc is Func.Go with a lazy frame at depth d.
func spawnFunc[A, R any](w *Worker, s *S, f *Func[A, R], a A, d int) {
	key := typeKey[funcSpawn[A, R]]()
	j := w.frames[d].j
	if j == nil || j.key != key {
		if j = w.slotRecord(d, key); j == nil {
			r := &funcSpawn[A, R]{}
			r.run, r.owner, r.key = r, w, key
			j = &r.job
		}
		w.setSlot(d, j, (*funcSpawn[A, R])(unsafe.Pointer(j)))
	}
	r := (*funcSpawn[A, R])(unsafe.Pointer(j)) // the key is the record's type
	r.f, r.arg, r.scope = f, a, s
	w.frames[d].st = frameLazy
	w.nframes = d + 1
	w.nTasks++
	if w.ticksLeft--; w.ticksLeft < 0 || w.idleWaits() {
		w.spawnBeat(d)
	}
}

// spawnBeat is the heartbeat of a spawn that pushed frame d. Once the
// invocation is canceled the spawn starts nothing. Only w's goroutine calls
// it.
func (w *Worker) spawnBeat(d int) {
	if fr := &w.frames[d]; w.forkBeat(d) && fr.st == frameLazy {
		w.nTasks--
		fr.ops.clearArg()
		w.popFrame(d)
	}
}

// spawnRun is how many lazy spawn frames from d on promote takes into one
// batch: the frames of the same kind and scope as d that follow it, up to
// half of them (rounded up) and at most spawnBatch.
func (w *Worker) spawnRun(d int) int {
	j := w.frames[d].j
	n := 1
	for k := d + 1; k < w.nframes && n < 2*spawnBatch; k++ {
		fr := &w.frames[k]
		if fr.st != frameLazy || fr.j.key != j.key || fr.j.scope != j.scope {
			break
		}
		n++
	}
	return min((n+1)/2, spawnBatch)
}

// publishSpawns counts b's tasks in scope s and pushes it on w's deque, as
// closeBatch publishes a batch, but without counting the tasks in
// Stats.Tasks again (their spawns did). Only w's goroutine calls it, to
// promote a spawn frame.
func (w *Worker) publishSpawns(b *job, s *S) {
	b.scope = s
	b.inv = w.inv
	s.pending.Add(int64(b.tasks))
	w.deque.Push(b)
}

func (r *closureSpawn) promote(w *Worker, fr *lazyFrame, d int) (pushed, again bool) {
	s := r.scope
	b := newBatch[closureBatch](w, typeKey[closureBatch]())
	n := w.spawnRun(d)
	for i := range n {
		f := &w.frames[d+i]
		x := (*closureSpawn)(unsafe.Pointer(f.j))
		b.fns[i] = x.fn
		x.fn, x.scope = nil, nil
		f.st = frameDone
	}
	b.tasks = uint32(n)
	w.publishSpawns(&b.job, s)
	return true, false
}

func (r *funcSpawn[A, R]) promote(w *Worker, fr *lazyFrame, d int) (pushed, again bool) {
	s := r.scope
	b := newBatch[funcBatch[A, R]](w, typeKey[funcBatch[A, R]]())
	b.f = r.f
	n, run := 1, w.spawnRun(d)
	for k := d + 1; k < d+run; k++ { // the same Func only
		if (*funcSpawn[A, R])(unsafe.Pointer(w.frames[k].j)).f != r.f {
			break
		}
		n++
	}
	for i := range n {
		f := &w.frames[d+i]
		x := (*funcSpawn[A, R])(unsafe.Pointer(f.j))
		b.args[i] = x.arg
		x.clearArg()
		f.st = frameDone
	}
	b.tasks = uint32(n)
	w.publishSpawns(&b.job, s)
	return true, false
}

// settle runs the spawned task at its spawner's end (settleFrames, which
// recovers its panic): the frame is popped first if it is the top one,
// else marked running. A task not started once the invocation is canceled
// is skipped.
func (r *closureSpawn) settle(w *Worker, fr *lazyFrame, d int, top bool) {
	fn, s := r.fn, r.scope
	r.fn, r.scope = nil, nil
	w.startSpawned(fr, d, top)
	if w.inv.canceled.Load() {
		return
	}
	m := w.mark()
	fn(w)
	if w.leftovers(m) { // else a leaf: nothing to end
		w.endSpawned(m, s)
	}
}

func (r *funcSpawn[A, R]) settle(w *Worker, fr *lazyFrame, d int, top bool) {
	f, a, s := r.f, r.arg, r.scope
	r.clearArg()
	w.startSpawned(fr, d, top)
	if w.inv.canceled.Load() {
		return
	}
	m := w.mark()
	f.fn(w, a)
	if w.leftovers(m) { // else a leaf: nothing to end
		w.endSpawned(m, s)
	}
}

// endSpawned ends a spawned task of scope s that began at m, returned, and
// left something (leftovers): it goes, as at any task's end, through
// settleTask, its panics to s; the common case, spawns left in frames and
// nothing else, goes straight to settleFrames.
func (w *Worker) endSpawned(m taskMark, s *S) {
	if w.nframes > m.frames && len(w.open) == m.open && w.batch == nil {
		s.fail(w.settleFrames(m.frames, nil))
	} else {
		s.fail(w.settleTask(m, nil, nil))
	}
}

// startSpawned ends spawn frame d, whose task runs next: popped if it is
// the top frame, so that the task's own spawns reuse the slot, else marked
// running.
func (w *Worker) startSpawned(fr *lazyFrame, d int, top bool) {
	if top {
		w.popFrame(d)
	} else {
		fr.st = frameRunning
	}
}

func (r *closureSpawn) clearArg() { r.fn, r.scope = nil, nil }

func (r *funcSpawn[A, R]) clearArg() {
	var a A
	r.f, r.arg, r.scope = nil, a, nil
}

// A spawn frame's record never runs as a job: promotion publishes a batch
// instead.
func (r *closureSpawn) execute(*Worker)    { panic("forkjoin: a spawn frame's record ran as a job") }
func (r *closureSpawn) abandon(*Worker)    {}
func (r *funcSpawn[A, R]) execute(*Worker) { panic("forkjoin: a spawn frame's record ran as a job") }
func (r *funcSpawn[A, R]) abandon(*Worker) {}

// batchRecord is what newBatch makes: a pointer to a batch record type T,
// whose first field is its job header (funcBatch, closureBatch, rangeBatch).
type batchRecord[T any] interface {
	*T
	executor
}

// newBatch returns a free batch record of type T from w's cache, or a new
// one that w owns; key is typeKey[T](). Only w's goroutine calls it, to
// open a batch.
func newBatch[T any, P batchRecord[T]](w *Worker, key unsafe.Pointer) P {
	if j := w.cacheGet(key); j != nil {
		return P(unsafe.Pointer(j)) // the key is the record's type
	}
	p := P(new(T))
	h := (*job)(unsafe.Pointer(p)) // the header is T's first field
	h.run, h.owner, h.key = p, w, key
	return p
}

// open starts j, a batch record holding one task of s, on w: queued at once
// while few tasks are pending or anyone is hungry (rule 3), else kept open
// for the spawns that follow. Only w's goroutine calls it.
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
