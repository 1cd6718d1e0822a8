package forkjoin

import (
	"unsafe"

	"github.com/fjkit/fjkit/internal/usage"
)

// A Func is a task body registered once, for forks that allocate nothing.
//
// Join's closures escape to the heap, since a thief may run them: each Join
// usually allocates its closure (its job record comes from the worker's
// cache). A Func instead forks job records that carry the argument and the
// result by value, and each worker keeps the records it used on a free list
// so a fork in steady state allocates nothing.
// Make Funcs once (a package-level variable, or one per type for a generic
// algorithm: a Func made per call would keep what it captures reachable from
// the workers' free records) and fork them as often as you like. A Func whose body forks
// itself is assigned in init, since an initializer that refers to its own
// variable is an initialization cycle in Go:
//
//	var fib *forkjoin.Func[int, int]
//
//	func init() { fib = forkjoin.NewFunc(fibBody) }
//
//	func fibBody(w *forkjoin.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		a, b := fib.Join(w, n-1, n-2)
//		return a + b
//	}
type Func[A, R any] struct {
	fn func(w *Worker, a A) R
}

// NewFunc returns a Func that runs fn. It panics if fn is nil.
func NewFunc[A, R any](fn func(w *Worker, a A) R) *Func[A, R] {
	if fn == nil {
		panic("forkjoin.NewFunc: fn is nil")
	}
	return &Func[A, R]{fn: fn}
}

// funcJob is a Func's job record.
type funcJob[A, R any] struct {
	job // job.key is the *Func[A, R]; see fn
	arg A
	res R
}

// fn returns the record's Func, which is its cache key: one pointer less per
// record keeps small records within fewer cache lines, and a record that a
// thief runs crosses between cores line by line.
func (j *funcJob[A, R]) fn() *Func[A, R] { return (*Func[A, R])(j.key) }

func (j *funcJob[A, R]) execute(w *Worker) {
	j.markThief(w)
	j.res, j.panic = callFunc(w, j.fn().fn, j.arg)
	w.flushStats()
	j.latch.set(j.owner)
}

func (j *funcJob[A, R]) abandon(w *Worker) {
	j.panic = goexitPanic()
	w.flushStats()
	j.latch.set(j.owner)
}

// Call runs f on a in the calling task, without forking.
func (f *Func[A, R]) Call(w *Worker, a A) R { return f.fn(w, a) }

// Join runs f(a) and f(b) in parallel and returns both results: f(a) runs at
// once on w, and f(b) can be taken by another worker. Then w runs f(b)
// itself, unless a thief took it first, in which case w helps with other
// work until the thief is done. A panic on either side is re-raised as a
// *PanicError after both sides have finished.
//
// In work-stealing mode the fork is lazy: f(b) is made
// stealable only when w offers its oldest pending joins to thieves: when
// another worker runs out of work, or about every 100 µs while one is
// parked; a join nobody was
// offered costs about two function calls. Past 256 pending lazy joins it
// forks eagerly, as in shared-queue mode.
//
// Once the invocation is canceled, Join runs neither call and returns zero
// values; a lazy Join notices it within 32 forks.
func (f *Func[A, R]) Join(w *Worker, a, b A) (ra, rb R) {
	// An inline join (heartbeat.go) is the common case: never promoted,
	// so it needs no frame, no record and no defer. Worker.Inline is its
	// test, shared with recursions that make the two calls themselves. A
	// *Worker kept after its task returned has no frames: the stale check
	// (joinLazy) sees it.
	if !w.Inline() {
		if w == nil {
			panic(usage.New("forkjoin.Func.Join: w is nil; pass the *Worker your task received"))
		}
		if raceStrands && w.inStrand() {
			return strandJoin(w, func(w *Worker) R { return f.fn(w, a) }, func(w *Worker) R { return f.fn(w, b) }, "forkjoin.Func.Join")
		}
		if !w.deepInline() {
			// A lazy frame, or the first join of a task (which checks
			// w), or shared-queue mode (where frames stay empty).
			if w.shared {
				w.checkLive()
				return f.joinEager(w, a, b)
			}
			return f.joinLazy(w, a, b, w.depth())
		}
		// Inline, but this tick runs the countdown out: check first.
		w.countdown()
		if w.heartbeat() {
			return ra, rb
		}
		w.nTasks++
	}
	return f.fn(w, a), f.fn(w, b)
}

// Inline reports whether a fork at this point would run inline: whether a
// Func.Join here would call both sides one after the other on w, with no
// frame, no record and no way for another worker to take either side.
// That is what most joins of a deep recursion do, and a
// recursion can then make the two calls itself, as direct calls the compiler
// sees, instead of the two calls through a func value that Join makes:
//
//	func fibBody(w *forkjoin.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		if w.Inline() {
//			return fibBody(w, n-1) + fibBody(w, n-2)
//		}
//		a, b := fib.Join(w, n-1, n-2)
//		return a + b
//	}
//
// Inline is small enough to be inlined where it is called; its caller must
// then run both sides before it returns, as a join would, and fork through
// Join whenever it reports false. A true counts one fork toward the next
// heartbeat, and one task in Stats.Tasks, as an inline Join does; it is
// false when the heartbeat is due (then Join promotes an older frame and
// checks for cancellation), for the few outermost joins of a task and the
// next few after a heartbeat found nothing older to offer (those Join makes
// lazy, hence stealable), in shared-queue mode, and on a nil *Worker or one kept after its
// task returned while that worker is idle (then Join panics). Call it only
// from w's task, as Join: on another goroutine it reads w's frames as
// racily as Join's inline path does.
func (w *Worker) Inline() bool {
	if w != nil && w.deepInline() && w.ticksAhead() {
		w.countdown()
		w.nTasks++
		return true
	}
	return false
}

// joinEager is Join with an eager fork: its record is pushed on the deque
// (or the shared queue) before f(a) runs.
func (f *Func[A, R]) joinEager(w *Worker, a, b A) (ra, rb R) {
	if w.Canceled() {
		return ra, rb
	}
	j := f.get(w)
	j.arg = b
	w.fork(&j.job)
	// The deferred settle costs a few nanoseconds; it is what lets a panic in
	// f(a) wait for f(b) before it leaves this frame.
	st := joinRunningA
	defer func() {
		if st != joinDone {
			w.settleJoin(&j.job, st, recover())
		}
	}()
	ra = f.fn(w, a)
	if w.takeBackJoin(&j.job) {
		st = joinRunningB
		rb = f.fn(w, j.arg)
	} else {
		st = joinWaiting
		w.waitFor(&j.latch, &j.job)
		st = joinDone
		rb = j.res
		if pe := j.panic; pe != nil {
			f.put(w, j)
			panic(pe)
		}
	}
	st = joinDone
	f.put(w, j)
	return ra, rb
}

// Fork makes f(a) stealable and returns a handle to join it later, in any
// order, exactly once, from the same task. A handle the task leaves unjoined
// is joined when the task returns, as Spawn's Futures are: then a late Join
// returns its result. Once the invocation is canceled, Fork starts nothing
// and the handle yields the zero value.
//
// In work-stealing mode the fork is lazy, as Join's: f(a)
// waits in a frame of w's own until its Join runs it, unless w offered it
// to thieves first (its oldest frames, when another worker runs out of work
// or is parked); a fork nobody was offered costs about a
// function call. Fork notices a cancellation within 32 forks.
func (f *Func[A, R]) Fork(w *Worker, a A) Forked[A, R] {
	if w != nil && w.deepInline() && w.depth() < lazyDepth {
		// Deep in a recursion, where Func.Join joins inline: the forks
		// nearer the task's root checked w (see Worker).
		return f.forkLazy(w, a, w.depth())
	}
	w.check("forkjoin.Func.Fork")
	if raceStrands && w.inStrand() {
		return strandFork(f, w, a)
	}
	if d := w.depth(); d < lazyDepth && !w.shared {
		return f.forkLazy(w, a, d)
	}
	if w.Canceled() {
		return Forked[A, R]{gen: 1} // no record: Join yields the zero value
	}
	j := f.get(w)
	j.arg = a
	w.fork(&j.job)
	w.open = append(w.open, &j.job)
	return Forked[A, R]{j: j, gen: j.gen}
}

// forkLazy is Fork with a lazy frame at depth d.
func (f *Func[A, R]) forkLazy(w *Worker, a A, d int) Forked[A, R] {
	j := w.frame(d).j
	if j == nil || j.key != unsafe.Pointer(f) {
		j = f.frameRecord(w, d)
	}
	fj := (*funcJob[A, R])(unsafe.Pointer(j)) // the key is the record's type
	fj.arg = a
	w.pushFrame(d)
	if (w.countdown() || w.idleWaits()) && w.forkBeat(d) {
		f.clear(fj)
		w.popFrame(d)
		return Forked[A, R]{gen: 1}
	}
	w.nTasks++
	return Forked[A, R]{j: fj, gen: j.gen, d: int32(d) + 1}
}

// Forked is a pending Func.Fork. It is a small value: copy it freely, but
// join it once.
type Forked[A, R any] struct {
	j   *funcJob[A, R]
	gen uint32
	d   int32 // 1 + the fork's frame (heartbeat.go); 0 for an eager fork, in w.open
}

// Join waits for the forked call and returns its result: it runs it inline
// if nobody stole it, or helps until the thief is done. A panic in the call is
// re-raised as a *PanicError. Join panics if the handle was already joined,
// or if w is not the worker that forked it.
func (h Forked[A, R]) Join(w *Worker) R {
	if j := h.j; j != nil && j.gen == h.gen && j.owner == w && h.d > 0 {
		if d := int(h.d) - 1; d < w.depth() && w.frame(d).j == &j.job && w.onOwnGoroutine() {
			return j.fn().joinFrame(w, j, d) // the common case: its frame is pending
		}
	}
	return h.join(w)
}

// join is Join with the checks, and for every handle whose frame is not
// pending any more.
func (h Forked[A, R]) join(w *Worker) R {
	j := h.j
	if j == nil {
		if h.gen == 0 {
			panic(usage.New("forkjoin: Join of a zero Forked; use the handle Func.Fork returned"))
		}
		var zero R
		return zero // Fork started nothing: the invocation was canceled
	}
	if j.gen != h.gen {
		panic(usage.New("forkjoin: Forked joined twice"))
	}
	if j.owner != w || !w.onOwnGoroutine() {
		panic(usage.New("forkjoin: Forked joined on another worker than the one that forked it, or from another goroutine; join it from the forking task"))
	}
	if raceStrands && w.inStrand() {
		strandJoinHandle(w, &j.job, h.gen, "Forked")
		return j.res
	}
	f := j.fn()
	if h.d > 0 {
		if d := int(h.d) - 1; d < w.depth() && w.frame(d).j == &j.job {
			return f.joinFrame(w, j, d)
		}
		// Run when the forking task returned (settleFrames), which left
		// the record to us.
		r, pe := j.res, j.panic
		f.put(w, j)
		if pe != nil {
			panic(pe)
		}
		return r
	}
	if !w.isOpen(&j.job) {
		// Joined for us when the forking task returned (settleTask).
		r, pe := j.res, j.panic
		f.put(w, j)
		if pe != nil {
			panic(pe)
		}
		return r
	}
	if w.takeBack(&j.job) { // j leaves w.open only once done or running here
		w.closeOpen(&j.job)
		r, pe := callFunc(w, f.fn, j.arg)
		f.put(w, j)
		if pe != nil {
			panic(pe)
		}
		return r
	}
	w.waitForJob(&j.job)
	w.closeOpen(&j.job)
	r, pe := j.res, j.panic
	f.put(w, j)
	if pe != nil {
		panic(pe)
	}
	return r
}

// joinFrame is Forked.Join of a lazy fork whose frame d still holds j: it
// runs f(arg) here, as a task of its own (callFunc), unless the frame was
// promoted and a thief took it, and ends the frame. The record stays in
// its slot for the next fork at d.
func (f *Func[A, R]) joinFrame(w *Worker, j *funcJob[A, R], d int) R {
	fr := w.frame(d)
	j.gen++ // spent: a second Join of the handle panics
	if fr.st == frameLazy || w.takeBack(&j.job) {
		arg := j.arg
		f.clear(j)
		top := w.runFrame(&j.job, d)
		r, pe := callFunc(w, f.fn, arg)
		w.endFrame(d, top)
		if pe != nil {
			panic(pe)
		}
		return r
	}
	w.waitFrame(&j.job, d)
	r, pe := j.res, j.panic
	f.clear(j)
	w.endWaitedFrame(&j.job, d)
	if pe != nil {
		panic(pe)
	}
	return r
}

// frameRecord puts a record of f in w's frame slot d, which holds another
// kind's record or none, and returns it.
func (f *Func[A, R]) frameRecord(w *Worker, d int) *job {
	j := w.slotRecord(d, unsafe.Pointer(f))
	if j == nil {
		j = &f.get(w).job
	}
	w.setSlot(d, j, nil)
	return j
}

// joinLazy is Join with a lazy frame at depth d, which a heartbeat may
// promote while f(a) runs.
func (f *Func[A, R]) joinLazy(w *Worker, a, b A, d int) (ra, rb R) {
	w.checkLive()
	if d >= lazyDepth {
		return f.joinEager(w, a, b)
	}
	fr := w.frame(d)
	j := fr.j
	if j == nil || j.key != unsafe.Pointer(f) {
		j = f.frameRecord(w, d)
	}
	fj := (*funcJob[A, R])(unsafe.Pointer(j)) // the key is the record's type
	fj.arg = b
	w.pushFrame(d)
	if (w.countdown() || w.idleWaits()) && w.forkBeat(d) {
		f.clear(fj)
		w.popFrame(d)
		return ra, rb
	}
	w.nTasks++
	// As in the eager join, the deferred settle is what lets a panic in
	// f(a) wait for a promoted f(b) before it leaves this frame. A join
	// that returns has popped its frame or left it as a hole.
	defer func() {
		if w.depth() > d && w.frame(d).st != frameDone {
			// Still here: a panic or runtime.Goexit is unwinding us.
			w.settleLazyJoin(d, recover())
		}
	}()
	ra = f.fn(w, a)
	if fr.st == framePromoted && !w.takeBackJoin(j) {
		fr.st = frameWaiting
		w.waitFor(&j.latch, j)
		rb, pe := fj.res, j.panic
		f.clear(fj)
		j.reset()
		j.inv = nil // records.go, rule 4
		w.popFrame(d)
		if pe != nil {
			panic(pe)
		}
		return ra, rb
	}
	// Never promoted, or taken back: nobody else has the record.
	fr.st = frameRunning
	arg := fj.arg
	var zero A
	fj.arg = zero
	j.inv = nil // set if promoted; records.go, rule 4
	rb = f.fn(w, arg)
	w.popFrame(d)
	return ra, rb
}

// settleLazyJoin is settleJoin for a lazy join whose frame, at depth d, unwinds
// early: if its f(b) may still be pending (the frame was promoted and its
// join had not run f(b) itself), it takes f(b) back so that it never runs,
// or waits for its thief; then it frees the frame (or leaves it as a hole
// below the frames its task still has above it) and re-raises v as settleJoin
// does.
func (w *Worker) settleLazyJoin(d int, v any) {
	var pe *PanicError
	if v != nil {
		pe = asPanicError(v) // here, while the panicking frames are still on the stack
	}
	fr := w.frame(d)
	j := fr.j
	switch fr.st {
	case framePromoted:
		if !w.discard(j) {
			w.waitFor(&j.latch, j) // its own panic, if any, loses to ours
		}
	case frameWaiting:
		w.waitFor(&j.latch, j)
	}
	j.run.(argClearer).clearArg()
	if j.latch.state.Load() != latchUnset {
		j.reset()
	}
	j.inv = nil
	w.popFrame(d)
	if pe != nil {
		panic(pe)
	}
}

// argClearer is implemented by the records frames hold (funcJob), so that
// settleLazyJoin can free one without knowing its type.
type argClearer interface{ clearArg() }

func (j *funcJob[A, R]) clearArg() { j.fn().clear(j) }

// get returns a free record for f on w (hot slot, table, returned records)
// or a new one. Only w's goroutine calls it, to fork.
func (f *Func[A, R]) get(w *Worker) *funcJob[A, R] {
	if j := w.hot; j != nil && j.key == unsafe.Pointer(f) {
		w.hot = nil
		return (*funcJob[A, R])(unsafe.Pointer(j))
	}
	if j := w.cacheGet(unsafe.Pointer(f)); j != nil {
		// The key guarantees the record is a *funcJob[A, R], whose
		// header is its first field.
		return (*funcJob[A, R])(unsafe.Pointer(j))
	}
	fj := &funcJob[A, R]{}
	fj.run = fj
	fj.owner = w
	fj.key = unsafe.Pointer(f)
	return fj
}

// put frees j, a joined record of f, into w's hot slot or table. Only the
// joiner (j's owner) calls it.
func (f *Func[A, R]) put(w *Worker, j *funcJob[A, R]) {
	f.clear(j)
	if w.hot == nil && j.latch.state.Load() == latchUnset {
		// Joins nest: the record freed last is the one the next fork
		// wants. Keep it at hand, past the table's lookup.
		j.inv = nil // rule 4
		j.gen++
		w.hot = &j.job
		return
	}
	w.cachePut(unsafe.Pointer(f), &j.job)
}

// clear drops references the caller's data may hold.
func (f *Func[A, R]) clear(j *funcJob[A, R]) {
	var a A
	var r R
	j.arg, j.res = a, r
}
