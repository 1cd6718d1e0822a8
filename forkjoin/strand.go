package forkjoin

import (
	"sync/atomic"
	"unsafe"
)

// Strand mode: what the race detector sees.
//
// The race detector orders two accesses when a chain of synchronization
// events (a goroutine's start, a channel operation, a lock, an atomic)
// leads from one to the other, and everything one goroutine does is
// ordered by its program order. The scheduler runs a fork nobody steals
// inline, one branch after the other on one goroutine, and its deques,
// latches and sleep protocol synchronize workers at every steal: the
// detector would see most logically parallel branches as ordered, and miss
// their races. So in race builds (raceStrands) a pool runs every
// invocation in strand mode instead, unless the FJKIT_RACE environment
// variable says "scheduler" when the pool is made:
//
//   - Every strand of the fork-join program (an invocation's root, each
//     side of a join, a spawned task, a scope's task, a loop's piece) runs
//     on a goroutine of its own, started by the strand that forks it with a
//     go statement: the detector's fork edge. The parent's continuation
//     runs on the parent's goroutine; nothing else runs on a strand's
//     goroutine, so its history is its own and its parent's up to the fork.
//   - A strand ends with RaceRelease on its record; the strand that joins
//     it waits for it with its synchronization hidden (RaceDisable), then
//     RaceAcquire on the record: the join edge, at the join point.
//   - Whatever the strands share besides the user's data is touched only
//     with synchronization hidden (the counters and the registry below), or
//     passed along fork and join edges (a strand's Worker, results, handles
//     to spawned tasks); a joined strand's Worker is reused only by the
//     strand that joined it. So the edges the detector sees are exactly the
//     program's: fork to child, child to join.
//
// A fork starts its child concurrently while fewer than concurrentStrands
// strands run so (real interleavings), and otherwise waits for it at once,
// hidden, before the continuation runs (then the goroutines alive are the
// fork depth). Past maxLiveStrands live strand goroutines (the detector
// allows 8128 goroutines at once) a fork runs its child inline, ordered: a
// race in so deep a recursion can hide. A loop runs as at most
// loopStrands strands of contiguous pieces, the first on the caller.

// strandState is a strand Worker's own state. Only its strand touches it.
type strandState struct {
	// free are joined children's Workers, for the next forks to reuse
	// (at most freeWorkers).
	free []*Worker
	// open are the strand's Spawn and Func.Fork handles not yet joined,
	// oldest first: a task's end joins those it left (strandTask).
	open []*strand
	// scoped are tasks spawned into scopes (S.Go, Func.Go) that no
	// scope's end has joined yet: a strand hands its own to the strand
	// that joins it, up to the scope's owner, whose Scope joins them.
	scoped []scopedStrand
}

// A strand is a forked child: its record, and the token of its join edge.
type strand struct {
	w      *Worker
	done   chan struct{}
	pe     *PanicError
	j      *job // the record of a Spawn or Func.Fork handle
	scoped []scopedStrand
	ran    bool   // joined: done was received, and the edge acquired
	ws     wsPath // in a work/span measurement: the child's path at its end
}

type scopedStrand struct {
	s  *S
	st *strand
}

const (
	maxLiveStrands = 4096
	loopStrands    = 64
	freeWorkers    = 1 // joined children's Workers a strand keeps: each keeps its own
)

// concurrentStrands is how many strands may run concurrently; beyond
// that, a fork waits for its child before its continuation runs. Race
// builds set it (race.go).
var concurrentStrands int64

// strandsLive counts live strand goroutines, strandsRunning those started
// concurrently; both are touched only with synchronization hidden.
var strandsLive, strandsRunning atomic.Int64

// strandCounter adds d to c, hidden from the race detector.
func strandCounter(c *atomic.Int64, d int64) int64 {
	raceDisable()
	n := c.Add(d)
	raceEnable()
	return n
}

// newStrandWorker returns a Worker for a strand forked by w (nil for an
// invocation's root) in invocation inv.
func newStrandWorker(p *Pool, w *Worker, inv *invocation) *Worker {
	var cw *Worker
	if w != nil {
		rs := w.strandState()
		if n := len(rs.free); n > 0 {
			cw = rs.free[n-1]
			rs.free[n-1] = nil
			rs.free = rs.free[:n-1]
		}
	}
	if cw == nil {
		cw = &Worker{pool: p, shared: false}
		cw.setStrandState(&strandState{})
	}
	if w != nil {
		cw.id = w.id
	}
	cw.inv = inv
	return cw
}

// forkStrand starts run as a strand forked by w (nil for a root) in
// invocation inv, on the Worker it returns in the strand's record.
func forkStrand(p *Pool, w *Worker, inv *invocation, run func(cw *Worker)) *strand {
	if workSpan {
		return wsFork(w, run) // the serial elision: the child runs here, now
	}
	cw := newStrandWorker(p, w, inv)
	st := &strand{w: cw, done: make(chan struct{})}
	if strandCounter(&strandsLive, 1) > maxLiveStrands && w != nil {
		strandCounter(&strandsLive, -1)
		rs := w.strandState()
		rs.free = append(rs.free, cw)
		st.w = w
		runStrand(st, run, false, true) // inline, on w's goroutine: ordered
		return st
	}
	concurrent := strandCounter(&strandsRunning, 1) <= concurrentStrands
	if !concurrent {
		strandCounter(&strandsRunning, -1)
	}
	go func() {
		cw.bindStrand()
		runStrand(st, run, concurrent, false)
	}()
	if !concurrent {
		raceDisable()
		<-st.done
		raceEnable()
	}
	return st
}

// runStrand runs a strand's body as a task (strandTask), records its
// panic, and ends the strand: the release of its join edge, then its
// bookkeeping, hidden. An inline strand runs on its parent's goroutine and
// Worker, where the scope tasks it spawns stay.
func runStrand(st *strand, run func(cw *Worker), concurrent, inline bool) {
	cw := st.w
	defer func() {
		if !inline {
			rs := cw.strandState()
			st.scoped, rs.scoped = rs.scoped, nil
		}
		raceRelease(unsafe.Pointer(st))
		raceDisable()
		if !inline {
			cw.unbindStrand()
			strandsLive.Add(-1)
			if concurrent {
				strandsRunning.Add(-1)
			}
		}
		close(st.done)
		raceEnable()
	}()
	strandTask(cw, func() { run(cw) }, &st.pe)
}

// strandTask runs body as a task on strand Worker w: it joins the Spawn
// and Func.Fork handles the task leaves unjoined, and stores in *out the
// task's panic (a Goexit's too, which goes on unwinding after it) as a
// *PanicError, or the first of theirs.
func strandTask(w *Worker, body func(), out **PanicError) {
	rs := w.strandState()
	mark := len(rs.open)
	ok := false
	var pe *PanicError
	defer func() {
		if !ok {
			if v := recover(); v != nil {
				pe = asPanicError(v)
			} else {
				pe = goexitPanic()
			}
		}
		for len(rs.open) > mark {
			st := rs.open[len(rs.open)-1]
			rs.open = rs.open[:len(rs.open)-1]
			w.joinStrand(st)
			st.j.panic = st.pe
			if pe == nil {
				pe = st.pe
			}
		}
		*out = pe
	}()
	body()
	ok = true
}

// joinStrand is the join of st, a strand w forked: it waits for st with
// its synchronization hidden, then acquires st's release, takes over the
// scope tasks st left, and keeps st's Worker for its next fork.
func (w *Worker) joinStrand(st *strand) {
	if workSpan {
		w.wsJoin(st)
		return
	}
	if st.ran {
		return
	}
	st.ran = true
	raceDisable()
	<-st.done
	raceEnable()
	raceAcquire(unsafe.Pointer(st))
	if w == nil {
		return
	}
	rs := w.strandState()
	rs.scoped = append(rs.scoped, st.scoped...)
	st.scoped = nil
	if st.w == w {
		return // run inline
	}
	if len(rs.free) < freeWorkers {
		rs.free = append(rs.free, st.w)
	}
	st.w = nil
}

// bindStrand records the calling goroutine as w's, hidden from the race
// detector: in w.g for w.check, and in the strand registry for Current.
func (w *Worker) bindStrand() {
	raceDisable()
	g := goroutineID()
	w.g.Store(g)
	strandRegistry.set(g, w)
	raceEnable()
}

// unbindStrand undoes bindStrand; the caller has hidden its
// synchronization.
func (w *Worker) unbindStrand() {
	strandRegistry.set(w.g.Load(), nil)
	w.g.Store(0)
}

// strandCurrent returns the strand Worker whose goroutine is the caller,
// or nil.
func strandCurrent() *Worker {
	if workSpan {
		return wsCurrent()
	}
	raceDisable()
	w := strandRegistry.get(goroutineID())
	raceEnable()
	return w
}

// strandRegistry maps goroutine descriptors to strand Workers: a table with
// linear probing whose slots, once claimed by a descriptor, keep it (the
// runtime reuses descriptors, and never frees them), so that it needs no
// lock. Only a strand's goroutine sets its own slot. A goroutine that finds
// no free slot is not entered: Current then returns nil on it, and par
// calls it makes run as invocations of the default pool of their own.
var strandRegistry *strandTable // made in race builds (race.go)

type strandTable struct {
	slots [1 << 15]struct {
		g atomic.Uintptr
		w atomic.Pointer[Worker]
	}
}

func (t *strandTable) home(g uintptr) int {
	return int((uint64(g) * 0x9E3779B97F4A7C15) >> (64 - 15))
}

func (t *strandTable) set(g uintptr, w *Worker) {
	for i, n := t.home(g), 0; n < 256; i, n = (i+1)&(len(t.slots)-1), n+1 {
		s := &t.slots[i]
		if k := s.g.Load(); k == g || k == 0 && s.g.CompareAndSwap(0, g) || s.g.Load() == g {
			s.w.Store(w)
			return
		}
	}
}

func (t *strandTable) get(g uintptr) *Worker {
	for i, n := t.home(g), 0; n < 256; i, n = (i+1)&(len(t.slots)-1), n+1 {
		s := &t.slots[i]
		switch s.g.Load() {
		case g:
			return s.w.Load()
		case 0:
			return nil
		}
	}
	return nil
}
