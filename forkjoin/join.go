package forkjoin

import "unsafe"

// joinState tracks where a Join is, for its deferred panic handling.
type joinState uint8

const (
	joinRunningA joinState = iota // running the inline side; the other side is forked
	joinRunningB                  // took the forked side back; running it inline
	joinWaiting                   // a thief runs the forked side; helping until it is done
	joinDone                      // both sides finished
)

// settleJoin runs when a Join's frame unwinds early: v is the recovered panic
// value (nil for runtime.Goexit, which a task may call in fa, or in a task
// the join runs while it helps). If the forked side j may still be pending,
// settleJoin takes it back (it never runs) or waits for its thief, so that the
// unwinding leaves the Join only after both sides have finished, as the
// caller may free data the forked side is using. Then it re-raises v.
func (w *Worker) settleJoin(j *job, st joinState, v any) {
	var pe *PanicError
	if v != nil {
		pe = asPanicError(v) // here, while the panicking frames are still on the stack
	}
	switch st {
	case joinRunningA:
		if !w.discard(j) {
			w.waitFor(&j.latch, j) // its own panic, if any, loses to ours
		}
	case joinWaiting:
		w.waitFor(&j.latch, j)
	}
	if pe != nil {
		panic(pe)
	}
}

// discard takes back j, which w forked, so that it never runs, and reports
// false if another worker took it first. Only w's goroutine calls it.
func (w *Worker) discard(j *job) bool {
	if w.shared {
		return w.pool.shared.remove(j, &w.stats)
	}
	return w.takeBack(j)
}

// closureJob is the record of a closure forked by Join or Spawn.
type closureJob[T any] struct {
	job
	fn  func(*Worker) T
	res T
}

func (j *closureJob[T]) execute(w *Worker) {
	j.markThief(w)
	j.res, j.panic = call(w, j.fn)
	w.flushStats()
	j.latch.set(j.owner)
}

func (j *closureJob[T]) abandon(w *Worker) {
	j.panic = goexitPanic()
	w.flushStats()
	j.latch.set(j.owner)
}

// newClosureJob returns a record for fn from w's free records, or a new one.
// Only w's goroutine calls it, to fork.
func newClosureJob[T any](w *Worker, fn func(*Worker) T) *closureJob[T] {
	if j := w.cacheGet(typeKey[closureJob[T]]()); j != nil {
		cj := (*closureJob[T])(unsafe.Pointer(j)) // the key is the record's type
		cj.fn = fn
		return cj
	}
	j := &closureJob[T]{fn: fn}
	j.run = j
	j.owner = w
	j.key = typeKey[closureJob[T]]()
	return j
}

// clearArg drops the closure and the result, for a frame's record
// (heartbeat.go).
func (j *closureJob[T]) clearArg() {
	var r T
	j.fn, j.res = nil, r
}

// free returns a joined record to w's free records. It drops the closure
// and the result: a free record must not keep the caller's data alive.
func (j *closureJob[T]) free(w *Worker) {
	var r T
	j.res = r
	j.fn = nil
	w.cachePut(j.key, &j.job)
}

// Join runs fa and fb in parallel and returns both results. It is
// work-first: fb is made stealable, fa runs at once on w, then w takes fb back
// and runs it unless a thief took it, in which case w helps (stealing first
// from that thief) until fb is done. A panic on either side is re-raised as a
// *PanicError once both sides have finished; if both panic, fa's wins.
//
// In work-stealing mode the fork is lazy, as Func.Join's: fb is made
// stealable only when w offers its oldest pending forks to thieves,
// and a join nobody was offered costs about two calls. Its job record comes
// from w's free records, but fb's closure escapes to the heap (a thief may
// run it): one allocation per Join when it captures variables. For
// recursion with millions of forks, use a Func. Once the invocation is
// canceled, Join runs neither side and returns zero values; the lazy Join
// notices it within 32 forks.
func Join[A, B any](w *Worker, fa func(*Worker) A, fb func(*Worker) B) (a A, b B) {
	if fa == nil || fb == nil {
		panic("forkjoin.Join: fa and fb must not be nil")
	}
	// As Func.Join: the inline join, with no frame, is the common case.
	// joinEager here and Func.Join's joinEager share one protocol (fork,
	// take back, wait, settle): a change to one belongs in the other.
	if !w.Inline() {
		if raceStrands && w.inStrand() {
			return strandJoin(w, fa, fb, "forkjoin.Join")
		}
		w.check("forkjoin.Join")
		if !w.deepInline() {
			if w.shared || w.depth() >= lazyDepth {
				return joinEager(w, fa, fb)
			}
			return joinLazy(w, fa, fb, w.depth())
		}
		w.countdown()
		if w.heartbeat() {
			return a, b
		}
		w.nTasks++
	}
	return fa(w), fb(w)
}

// joinLazy is the closure Join with a lazy frame at depth d; see
// Func.joinLazy, its twin.
func joinLazy[A, B any](w *Worker, fa func(*Worker) A, fb func(*Worker) B, d int) (a A, b B) {
	fr := w.frame(d)
	key := typeKey[closureJob[B]]()
	j := fr.j
	if j == nil || j.key != key {
		if j = w.slotRecord(d, key); j == nil {
			j = &newClosureJob(w, fb).job
		}
		w.setSlot(d, j, nil)
	}
	cj := (*closureJob[B])(unsafe.Pointer(j)) // the key is the record's type
	cj.fn = fb
	w.pushFrame(d)
	if (w.countdown() || w.idleWaits()) && w.forkBeat(d) {
		cj.fn = nil
		w.popFrame(d)
		return a, b
	}
	w.nTasks++
	defer func() {
		if w.depth() > d && w.frame(d).st != frameDone {
			// Still here: a panic or runtime.Goexit is unwinding us.
			w.settleLazyJoin(d, recover())
		}
	}()
	a = fa(w)
	if fr.st == framePromoted && !w.takeBackJoin(j) {
		fr.st = frameWaiting
		w.waitFor(&j.latch, j)
		b, pe := cj.res, j.panic
		cj.clearArg()
		j.reset()
		j.inv = nil // records.go, rule 4
		w.popFrame(d)
		if pe != nil {
			panic(pe)
		}
		return a, b
	}
	fr.st = frameRunning
	cj.fn = nil
	j.inv = nil // set if promoted; records.go, rule 4
	b = fb(w)
	w.popFrame(d)
	return a, b
}

// joinEager is the closure Join with an eager fork, as in shared-queue mode.
func joinEager[A, B any](w *Worker, fa func(*Worker) A, fb func(*Worker) B) (a A, b B) {
	if w.Canceled() {
		return a, b
	}
	j := newClosureJob(w, fb)
	w.fork(&j.job)
	st := joinRunningA
	defer func() {
		if st != joinDone {
			w.settleJoin(&j.job, st, recover())
		}
	}()
	a = fa(w)
	if w.takeBackJoin(&j.job) {
		st = joinRunningB
		b = fb(w)
	} else {
		st = joinWaiting
		w.waitFor(&j.job.latch, &j.job)
		st = joinDone
		pe := j.panic
		b = j.res
		if pe != nil {
			j.free(w)
			panic(pe)
		}
	}
	st = joinDone
	j.free(w)
	return a, b
}

// Do runs every function in parallel and returns when all have finished. A
// panic is re-raised as a *PanicError after all have finished.
func Do(w *Worker, fns ...func(*Worker)) {
	for i, fn := range fns {
		if fn == nil {
			panic("forkjoin.Do: fns[" + itoa(i) + "] is nil")
		}
	}
	w.check("forkjoin.Do")
	if raceStrands && w.inStrand() && len(fns) > 0 {
		strandDo(w, fns)
		return
	}
	switch len(fns) {
	case 0:
		return
	case 1: // a task's end, as the scope's body below
		if _, pe := call(w, func(w *Worker) struct{} { return callClosure(w, fns[0]) }); pe != nil {
			panic(pe)
		}
		return
	}
	Scope(w, func(s *S) {
		// Published at once, not lazily: Do's functions are few and
		// coarse, and the first may compute for long without forking,
		// which would keep lazy spawns from a worker that asks.
		for _, fn := range fns[1:] {
			s.goEager(w, fn)
		}
		fns[0](w)
	})
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for ; i > 0; i /= 10 {
		n--
		b[n] = byte('0' + i%10)
	}
	return string(b[n:])
}
