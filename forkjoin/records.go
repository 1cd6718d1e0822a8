package forkjoin

import "unsafe"

// The job-record life cycle.
//
// Every fork needs a record (job.go): the deque holds it, a thief reads it,
// the joiner reads the result from it. Allocating one per fork would put the
// collector on the fork path, so each worker keeps the records it frees and
// reuses them. The rules that make reuse safe:
//
//  1. A record is owned by the worker that got it from its cache or
//     allocated it (job.owner). Only the owner forks it, and only the owner
//     puts it back in a cache, so the caches need no locks.
//  2. A record is reused only after its last reader is done with it. For a
//     joined record (Join, Func.Join, Forked, Future) the last reader is the
//     joiner: it frees the record after it has seen the latch set (a thief's
//     set is its last write) or after it ran the record inline itself.
//  3. A spawned record (S.Go, Func.Go) has no joiner: whoever runs it frees
//     it when the task is done (release). If that is not the owner, the
//     record goes back to the owner (giveBack, in batches of giveBackBatch
//     pushed with one CAS onto owner.returned), which takes them all with one
//     swap when its cache runs dry (reclaim). Ownership passes back with the
//     CAS; the runner touches the record no more after it. So every record
//     returns to the cache of the worker that allocated it, and a cache never
//     holds more than the most records its worker had in use at once.
//  4. A free record holds nothing of the caller's: freeing clears the
//     argument, the result and the closure (clear, closureJob.free), and
//     the invocation and the scope (cachePut, Func.put; a lazy frame's record
//     when its join ends), which hold the invocation's closure, result,
//     panic and context, so the pool keeps no finished call's data
//     reachable. A fork whose task ended with its handle unjoined leaves
//     its record, result and all, to the handle (settleFrames,
//     settleTask): the record drops its invocation, and the deque it went
//     through is scrubbed of it (wsdeque's Scrub), so that only the handle
//     can reach the result. Cache keys are Funcs or
//     record types. A Func stays reachable from the table while records
//     keyed by it are free there, and so does what its body captures: a
//     Func made per call must capture none of the caller's data. So the
//     library makes its Funcs once per type (Reduce's, the comparison
//     sorts'), or per call over a closure that holds only the call's
//     settings (the radix sort's, whose data travels in the arguments).
//  5. The gen counter is bumped on every free, so a Forked handle that
//     outlived its join is caught (Forked.Join).
//
// Free records live in a small per-worker table keyed by what determines a
// record's type: the Func for a Func's records, the record type itself for
// Join's, Spawn's and scope tasks' (typeKey). An eager fork of a Func keeps
// the record it freed last in Worker.hot, past the table: joins nest, so it
// is the one the next fork wants. A lazy Func.Join keeps its record in its
// frame slot (Worker.frames, heartbeat.go), for the next join at that depth;
// a slot's record is free once its join has taken its argument out or seen
// its latch, and is cleared then, as rules 2 and 4 ask.

// freeTableSize is the size of the table. A Func needs no registration, and
// a dropped Func leaves nothing behind but a few records, which the next key
// hashing to the same entry releases.
const freeTableSize = 16

// A freeEntry holds the free records of one key: n of them, linked from
// head through job.next.
type freeEntry struct {
	key  unsafe.Pointer
	head *job
	n    int
}

// recordCache is a worker's free records, and the records it ran for other
// workers and has not sent back yet. Owner only: other workers write only
// remoteLine.returned (giveBack).
type recordCache struct {
	freeRecords [freeTableSize]freeEntry // free records of every kind, by key (cacheEntry)
	hot         *job                     // a free Func record, before the table (Func.put)
	// A batch of records we ran for retTo, not yet sent back to it
	// (giveBack): retN of them, linked from retHead to retTail.
	retTo            *Worker
	retHead, retTail *job
	retN             int
}

// idleFreeRecords is how many free records per key a worker keeps once it
// runs out of work (see trimCaches). While busy it keeps every record it
// frees: each one is a record it allocated itself (records forked by other
// workers go back to them, see giveBack), so a cache never holds more than
// the most records its worker had in use at once.
const idleFreeRecords = 256

// cacheEntry returns key's entry, looking in the two slots key may use (two
// keys in use at once that hash alike then keep their records apart). With
// claim set it takes a slot for key if it has none: an empty one, else the
// second, dropping the records it held.
func (c *recordCache) cacheEntry(key unsafe.Pointer, claim bool) *freeEntry {
	k := uintptr(key)
	i := (k>>4 ^ k>>10) % freeTableSize
	e0, e1 := &c.freeRecords[i], &c.freeRecords[i^1]
	switch {
	case e0.key == key:
		return e0
	case e1.key == key:
		return e1
	case !claim:
		return nil
	case e0.key == nil:
		e0.key = key
		return e0
	}
	e1.key, e1.head, e1.n = key, nil, 0
	return e1
}

// cacheGet returns a free record for key, or nil. The record's owner is
// already w: records go back to the worker that forked them, even when
// another worker ran them, and Forked.Join and Future.Join refuse to run on
// another worker. cacheGet stores it again all the same: the closure Join
// ran slower without the store, from code layout, not work.
//
// When the table has none, it takes back the records other workers returned
// (giveBack) and looks once more: every record kind goes through here, so
// none can forget to.
func (w *Worker) cacheGet(key unsafe.Pointer) *job {
	e := w.cacheEntry(key, false)
	if e == nil || e.head == nil {
		if w.returned.Load() == nil || !w.reclaim() {
			return nil
		}
		if e = w.cacheEntry(key, false); e == nil || e.head == nil {
			return nil
		}
	}
	j := e.head
	e.head = j.next
	e.n--
	j.next = nil
	j.owner = w
	return j
}

// cachePut keeps j, a finished record of key's type, for reuse by w.
func (w *Worker) cachePut(key unsafe.Pointer, j *job) {
	if j.latch.state.Load() != latchUnset {
		j.reset()
	}
	j.inv, j.scope = nil, nil // rule 4
	j.gen++
	e := w.cacheEntry(key, true)
	j.next = e.head
	e.head = j
	e.n++
}

// trimCaches drops free records beyond idleFreeRecords per key, so that an
// idle worker holds little after a burst of work.
func (w *Worker) trimCaches() {
	for i := range w.freeRecords {
		e := &w.freeRecords[i]
		if e.n <= idleFreeRecords {
			continue
		}
		j := e.head
		for range idleFreeRecords - 1 {
			j = j.next
		}
		j.next = nil
		e.n = idleFreeRecords
	}
}

// typeKey returns a pointer unique to type T: the type word of an interface
// holding a *T. Converting a pointer to an interface does not allocate.
func typeKey[T any]() unsafe.Pointer {
	var e any = (*T)(nil)
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0]
}

// release keeps j, a finished record of a spawned task (Func.Go or S.Go),
// for reuse by the worker that spawned it: w itself, or the owner, by
// giveBack. Called by the worker that ran the task.
func (w *Worker) release(j *job) {
	j.inv, j.scope = nil, nil // rule 4, also while it travels home
	if j.owner == w {
		w.cachePut(j.key, j)
	} else {
		w.giveBack(j)
	}
}

// giveBack sends j, a record another worker spawned (S.Go or Func.Go) and w
// ran, back to that worker. A loop spawning tasks that thieves run would otherwise
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
