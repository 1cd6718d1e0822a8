package forkjoin

import "unsafe"

// Fixed-grain loops in shared-queue mode.
//
// In shared-queue mode a ForRange with grain > 0 runs as the classic design
// does: the calling task puts every piece on the one queue, as a task of a
// scope of its own, and the workers take the pieces from there (forSpawn).
// The pieces travel as a scope's spawns do (batch.go): one at a time while
// few are pending or a worker is hungry, else in batches of spawnBatch, and a
// full batch past the scope's backlog bound runs at once on the spawning
// worker. A batch of pieces is a rangeBatch: consecutive pieces of one loop,
// so the record holds the first piece's start and their count (job.tasks)
// instead of an argument per piece, and spawning a piece into the open
// batch costs two compares and a counter increment, not Func.Go's checks
// and argument store.
//
// Everything else is a scope's: the record goes home to the spawning worker
// (records.go); a piece's panic is recorded in the scope, and once the
// scope has a panic the pieces not started are skipped (runPiece), so the
// loop stops as in work-stealing mode; cancellation skips them too.

// forSpawn runs a, a fixed-grain loop, in shared-queue mode, piece by piece
// through the queue; see above. The scope and the loop's record (forLoop)
// cost two allocations per loop. Every piece counts as one task in
// Stats.Tasks. Only w's goroutine calls it, in shared-queue mode.
func forSpawn(w *Worker, a forArgs) {
	if span(a.lo, a.hi) <= uint(a.grain) {
		w.nTasks++
		a.body(w, a.lo, a.hi)
		return
	}
	Scope(w, func(s *S) {
		l := &forLoop{hi: a.hi, grain: a.grain, body: a.body, s: s}
		for lo := a.lo; !w.Canceled() && s.panic.Load() == nil; lo += a.grain {
			l.spawn(w, lo)
			if span(lo, a.hi) <= uint(a.grain) {
				return // that was the last piece, which may be shorter
			}
		}
	})
}

// forLoop is what every piece of one forSpawn loop shares.
type forLoop struct {
	hi, grain int
	body      func(w *Worker, lo, hi int)
	s         *S // the loop's scope, whose panic skips the pieces not started
}

// spawn queues the piece of l that starts at lo, the piece after the last
// one spawned: it joins w's open batch if that holds l's previous pieces
// (only l's loop adds to a batch of l's, in order), else opens a batch of
// its own (S.open, which queues it at once or keeps it open for the pieces
// that follow). Only w's goroutine calls it, from forSpawn's loop.
func (l *forLoop) spawn(w *Worker, lo int) {
	key := typeKey[rangeBatch]()
	if b := w.batch; b != nil && b.key == key && (*rangeBatch)(unsafe.Pointer(b)).l == l {
		if b.tasks++; b.tasks == spawnBatch {
			w.endBatch()
		}
		return
	}
	rb := newRecord[rangeBatch](w, key)
	rb.l, rb.lo = l, lo
	l.s.open(w, &rb.job)
}

// pieceArgs is one piece of a forSpawn loop: [lo, min(lo+grain, hi)).
type pieceArgs struct {
	lo int
	l  *forLoop
}

// runPiece runs one piece, unless a piece of its loop has panicked.
func runPiece(w *Worker, a pieceArgs) struct{} {
	if l := a.l; l.s.panic.Load() == nil {
		l.body(w, a.lo, a.lo+int(min(uint(l.grain), span(a.lo, l.hi)))) // not lo+grain, which can overflow
	}
	return struct{}{}
}
