//go:build fjkit_workspan && !race

package forkjoin

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The work/span measurement (workspan.go) runs a program in strand mode
// (strand.go), whose hooks in every fork point it needs: raceStrands turns
// them on in this build, and workSpan makes strand mode serial (wsFork)
// and timed. Pools run as in an ordinary build; only a measurement's own
// Worker is in strand mode.

const (
	raceStrands = true
	workSpan    = true
)

func raceDisable()               {}
func raceEnable()                {}
func raceRelease(unsafe.Pointer) {}
func raceAcquire(unsafe.Pointer) {}

// raceWorker is a Worker's strand-mode state: set on a measurement's
// Worker only.
type raceWorker struct{ rs *strandState }

//lint:ignore U1000 the race build's fields (race.go)
type racePool struct{}

func (w *Worker) strandState() *strandState      { return w.race.rs }
func (w *Worker) setStrandState(rs *strandState) { w.race.rs = rs }
func (w *Worker) inStrand() bool                 { return w != nil && w.race.rs != nil }
func (p *Pool) initRace()                        {}

// strandPool reports whether an Invoke or Tasks.Submit on p is made by
// the program a measurement runs: then it is part of it.
func (p *Pool) strandPool() bool {
	w := wsCurrent()
	return w != nil && w.pool == p
}

// wsMeasure is the state of the measurement running (wsActive). Only its
// goroutine touches it.
type wsMeasure struct {
	g      uintptr // the measuring goroutine
	w      *Worker // the Worker every strand runs on
	last   time.Duration
	work   time.Duration
	cur    wsPath // the running strand's path
	forks  int64
	burden time.Duration
	// regions by name, in order of first entry, with their depth of
	// entries (a region inside itself counts once).
	regions []*wsRegionAcc
	byName  map[string]*wsRegionAcc
}

type wsRegionAcc struct {
	RegionWorkSpan
	depth int
}

var (
	wsMu     sync.Mutex // one measurement at a time
	wsActive atomic.Pointer[wsMeasure]
)

// tick ends the running strand's stretch since the last event: its time
// counts in the work and on the running path, and the next stretch starts
// now. One clock read per event: the clock is most of the measurement's
// cost per fork, and the event's own bookkeeping, a few stores, counts in
// the next stretch.
func (m *wsMeasure) tick() {
	t := now()
	d := t - m.last
	m.last = t
	m.work += d
	m.cur.span += d
	m.cur.burdened += d
}

func measureWorkSpan(p *Pool, fn func(*Worker)) WorkSpan {
	if Current() != nil {
		panic("forkjoin.MeasureWorkSpan: called from a task; measure from an ordinary goroutine")
	}
	if p.isClosed() {
		panic(ErrClosed)
	}
	wsMu.Lock()
	defer wsMu.Unlock()
	g := goroutineID()
	w := &Worker{pool: p}
	w.setStrandState(&strandState{})
	w.inv = &invocation{}
	w.g.Store(g)
	m := &wsMeasure{g: g, w: w, burden: WorkSpanBurden, byName: map[string]*wsRegionAcc{}}
	wsActive.Store(m)
	defer func() {
		wsActive.Store(nil)
		w.g.Store(0)
		w.inv = nil
	}()
	var pe *PanicError
	m.last = now()
	strandTask(w, func() { fn(w) }, &pe)
	m.tick()
	if pe != nil {
		panic(pe)
	}
	ws := WorkSpan{Work: m.work, Span: m.cur.span, BurdenedSpan: m.cur.burdened, Forks: m.forks, CriticalForks: m.cur.forks, Burden: m.burden}
	for _, r := range m.regions {
		ws.Regions = append(ws.Regions, r.RegionWorkSpan)
	}
	return ws
}

// wsCurrent returns the measurement's Worker if the caller is the
// measuring goroutine, or nil.
func wsCurrent() *Worker {
	if m := wsActive.Load(); m != nil && m.g == goroutineID() {
		return m.w
	}
	return nil
}

// wsFork is forkStrand in a measurement: run, the child, runs to its end
// at once on w, from its parent's path plus a fork's burden; the record
// keeps the path it ended on for its join, and the continuation goes on
// from the parent's path.
func wsFork(w *Worker, run func(*Worker)) *strand {
	m := wsActive.Load()
	m.tick()
	m.forks++
	parent := m.cur
	m.cur.burdened += m.burden
	m.cur.forks++
	st := &strand{w: w}
	strandTask(w, func() { run(w) }, &st.pe)
	m.tick()
	st.ws = m.cur
	m.cur = parent
	return st
}

// wsJoin is joinStrand in a measurement: the path goes on from the later
// of its own and the child's.
func (w *Worker) wsJoin(st *strand) {
	if st.ran {
		return
	}
	st.ran = true
	m := wsActive.Load()
	m.tick()
	m.cur = m.cur.later(st.ws)
}

// later returns the path that ends later of a and b: a join's.
func (a wsPath) later(b wsPath) wsPath {
	r := a
	r.span = max(a.span, b.span)
	if b.burdened > a.burdened {
		r.burdened, r.forks = b.burdened, b.forks
	}
	return r
}

// wsLoop is strandLoop in a measurement: units [0, n) in at most
// wsLoopPieces pieces of contiguous units, forked as a balanced tree, so
// that the loop's own path is as long as a fork-join loop's.
func wsLoop(w *Worker, n uint64, piece func(cw *Worker, k int, a, b uint64, stop func() bool)) {
	k := min(n, wsLoopPieces)
	bound := func(i uint64) uint64 { return i * n / k } // i·n fits in 64 bits for n < 2⁵³
	if n >= 1<<53 {
		bound = func(i uint64) uint64 {
			if i == k {
				return n
			}
			return i * (n / k)
		}
	}
	stop := func() bool { return false } // a piece's panic ends the loop at its join
	var tree func(w *Worker, a, b uint64)
	tree = func(w *Worker, a, b uint64) {
		for b-a > 1 {
			m := a + (b-a)/2
			lo, hi := a, m
			st := forkStrand(w.pool, w, w.inv, func(cw *Worker) { tree(cw, lo, hi) })
			defer func() {
				w.joinStrand(st)
				if st.pe != nil {
					panic(st.pe)
				}
			}()
			a = m
		}
		piece(w, int(a), bound(a), bound(a+1), stop)
	}
	tree(w, 0, k)
}

// wsTasksStart is strandTasksStart in a measurement: the task runs at
// once, as a fork of the calling strand (w, or the measurement's root for
// Tasks.Submit), which Wait joins.
func wsTasksStart(t *Tasks, p *Pool, w *Worker, fn func(*Worker)) {
	root := w == nil
	if root {
		w = wsCurrent()
	}
	t.pending.Add(1)
	st := forkStrand(p, w, w.inv, func(cw *Worker) {
		cw.inTasks = append(cw.inTasks, t) // for Within
		defer func() { cw.inTasks = cw.inTasks[:len(cw.inTasks)-1] }()
		fn(cw)
	})
	t.addStrand(st)
	t.finished(t.pending.Add(-1))
	if root {
		p.active.Done()
	}
}

// wsRegion is Region in a measurement: fn runs as a task on w, and what
// it adds to the work and the running path is the region's.
func wsRegion(w *Worker, name string, fn func(*Worker)) {
	m := wsActive.Load()
	m.tick()
	r := m.byName[name]
	if r == nil {
		r = &wsRegionAcc{RegionWorkSpan: RegionWorkSpan{Name: name}}
		m.byName[name] = r
		m.regions = append(m.regions, r)
	}
	r.depth++
	work, path, forks := m.work, m.cur, m.forks
	var pe *PanicError
	strandTask(w, func() { fn(w) }, &pe)
	m.tick()
	if r.depth--; r.depth == 0 {
		r.Count++
		r.Work += m.work - work
		r.Span += m.cur.span - path.span
		r.BurdenedSpan += m.cur.burdened - path.burdened
		r.Forks += m.forks - forks
	}
	if pe != nil {
		panic(pe)
	}
}
