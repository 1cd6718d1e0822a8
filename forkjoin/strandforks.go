package forkjoin

import (
	"context"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// The fork points in strand mode (strand.go): each primitive's path on a
// pool in strand mode, which the primitive takes before its scheduler
// path. Each forks its children with forkStrand and joins them with
// joinStrand, so that the race detector sees the program's fork and join
// edges and nothing else.

// strandInvoke is Invoke and InvokeContext (ctx not nil) on a pool in
// strand mode: fn runs as a strand forked by the caller; called from a
// task of p, it runs inline on the calling strand instead, as a nested
// invocation (the caller waits for it: it is no parallel strand).
func strandInvoke[T any](p *Pool, ctx context.Context, fn func(*Worker) T) (r T, pe *PanicError, late bool) {
	if w := strandCurrent(); w != nil && w.pool == p {
		return strandInvokeNested(w, ctx, fn)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		if p.isDefault {
			return strandInvoke(Default(), ctx, fn) // replaced (retire)
		}
		panic(ErrClosed)
	}
	p.active.Add(1)
	p.mu.Unlock()
	defer p.active.Done()
	inv := &invocation{ctx: ctx}
	if ctx != nil {
		if ctx.Err() != nil {
			inv.canceled.Store(true)
		} else {
			defer context.AfterFunc(ctx, inv.cancel)()
		}
	}
	st := forkStrand(p, nil, inv, func(cw *Worker) {
		if !inv.canceled.Load() { // canceled before it started: start nothing
			r = fn(cw)
		}
	})
	(*Worker)(nil).joinStrand(st)
	return r, st.pe, ctx != nil && ctx.Err() != nil
}

// strandInvokeNested is strandInvoke from a task of the pool, on w: as
// invokeInline, fn runs as a nested invocation, canceled with w's and by
// ctx (nil for Invoke: w's context).
func strandInvokeNested[T any](w *Worker, ctx context.Context, fn func(*Worker) T) (r T, pe *PanicError, late bool) {
	saved := w.inv
	inv := saved
	if ctx == nil || ctx == saved.ctx {
		ctx = saved.ctx
		if ctx != nil && ctx.Err() != nil {
			saved.cancel() // ahead of its AfterFunc
		}
	} else {
		inv = &invocation{ctx: ctx}
		switch {
		case saved.canceled.Load() || ctx.Err() != nil:
			inv.canceled.Store(true)
		default:
			defer context.AfterFunc(ctx, inv.cancel)()
			if saved.ctx != nil {
				defer context.AfterFunc(saved.ctx, inv.cancel)()
			}
		}
	}
	w.inv = inv
	defer func() { w.inv = saved }()
	strandTask(w, func() { r = fn(w) }, &pe)
	return r, pe, ctx != nil && ctx.Err() != nil
}

// strandJoin is Join (and Func.Join, name) in strand mode: fb is the
// forked child, fa the continuation, on w.
func strandJoin[A, B any](w *Worker, fa func(*Worker) A, fb func(*Worker) B, name string) (a A, b B) {
	w.check(name)
	if w.Canceled() {
		return a, b
	}
	var rb B
	st := forkStrand(w.pool, w, w.inv, func(cw *Worker) { rb = fb(cw) })
	done := false
	defer func() {
		if !done { // a panic in fa, or runtime.Goexit
			var pe *PanicError
			if v := recover(); v != nil {
				pe = asPanicError(v)
			}
			w.joinStrand(st)
			if pe != nil {
				panic(pe)
			}
		}
	}()
	a = fa(w)
	done = true
	w.joinStrand(st)
	if st.pe != nil {
		panic(st.pe)
	}
	return a, rb
}

// strandSpawn is Spawn in strand mode.
func strandSpawn[T any](w *Worker, fn func(*Worker) T) Future[T] {
	if fn == nil {
		panic("forkjoin.Spawn: fn is nil")
	}
	w.check("forkjoin.Spawn")
	if w.Canceled() {
		return Future[T]{gen: 1}
	}
	j := &closureJob[T]{}
	j.run, j.owner, j.key = j, w, typeKey[closureJob[T]]()
	st := forkStrand(w.pool, w, w.inv, func(cw *Worker) { j.res = fn(cw) })
	st.j = &j.job
	rs := w.strandState()
	rs.open = append(rs.open, st)
	return Future[T]{j: j, gen: j.gen}
}

// strandJoinHandle is Future.Join and Forked.Join in strand mode, for j,
// whose handle's generation is gen (kind names the handle for messages).
// It reports whether j ran: false for a handle that started nothing.
func strandJoinHandle(w *Worker, j *job, gen uint32, kind string) bool {
	if j == nil {
		if gen == 0 {
			panic("forkjoin: Join of a zero " + kind + "; use the one Spawn or Func.Fork returned")
		}
		return false // the invocation was canceled
	}
	if j.gen != gen {
		panic("forkjoin: " + kind + " joined twice")
	}
	if j.owner != w || !w.onOwnGoroutine() {
		panic("forkjoin: " + kind + " joined on another worker than the one that spawned it; join it from the spawning task")
	}
	j.gen++
	rs := w.strandState()
	for i := len(rs.open) - 1; i >= 0; i-- {
		if st := rs.open[i]; st.j == j {
			rs.open = append(rs.open[:i], rs.open[i+1:]...)
			w.joinStrand(st)
			j.panic = st.pe
			break
		}
	}
	// Not open: joined when the spawning task ended (strandTask).
	if j.panic != nil {
		panic(j.panic)
	}
	return true
}

// strandFork is Func.Fork in strand mode.
func strandFork[A, R any](f *Func[A, R], w *Worker, a A) Forked[A, R] {
	w.check("forkjoin.Func.Fork")
	if w.Canceled() {
		return Forked[A, R]{gen: 1}
	}
	j := &funcJob[A, R]{arg: a}
	j.run, j.owner, j.key = j, w, unsafe.Pointer(f)
	st := forkStrand(w.pool, w, w.inv, func(cw *Worker) { j.res = f.fn(cw, a) })
	st.j = &j.job
	rs := w.strandState()
	rs.open = append(rs.open, st)
	return Forked[A, R]{j: j, gen: j.gen}
}

// strandScope is Scope in strand mode: body runs on w as a task, each
// s.Go as a strand, and the scope's end joins them all.
func strandScope(w *Worker, body func(*S)) {
	w.check("forkjoin.Scope")
	s := &S{w: w, inv: w.inv, limit: 1 << 62}
	finished := false
	defer func() {
		if !finished { // runtime.Goexit: the tasks must not outlive the scope
			w.joinScope(s)
			s.ended.Store(true)
		}
	}()
	var pe *PanicError
	strandTask(w, func() { body(s) }, &pe)
	if tpe := w.joinScope(s); pe == nil {
		pe = tpe
	}
	finished = true
	s.ended.Store(true)
	if pe != nil {
		panic(pe)
	}
}

// joinScope joins every task of s that w holds, and those they hand over
// as they are joined, and returns the first panic among them.
func (w *Worker) joinScope(s *S) (pe *PanicError) {
	rs := w.strandState()
	for i := 0; i < len(rs.scoped); {
		e := rs.scoped[i]
		if e.s != s {
			i++
			continue
		}
		last := len(rs.scoped) - 1
		rs.scoped[i] = rs.scoped[last]
		rs.scoped[last] = scopedStrand{}
		rs.scoped = rs.scoped[:last]
		w.joinStrand(e.st)
		if pe == nil {
			pe = e.st.pe
		}
	}
	return pe
}

// strandGo is S.Go, S.GoFrom and Func.Go in strand mode: fn is spawned as
// a strand of the calling strand (w, or the caller's if w is nil), in s's
// invocation; name is the entry point, for messages.
func strandGo(s *S, w *Worker, fn func(*Worker), name string) {
	if s.ended.Load() {
		panic(name + ": the scope has ended (Scope returned); spawn only while Scope is running")
	}
	if w == nil {
		if w = strandCurrent(); w == nil || w.pool != s.w.pool {
			panic(name + ": called from a goroutine that is not a worker of the scope's pool; spawn from the scope's body or its tasks")
		}
	} else {
		w.check(name)
		if w.pool != s.w.pool {
			panic(name + ": w is a worker of another pool than the scope's; spawn from the scope's body or its tasks, with their worker")
		}
	}
	if s.inv.canceled.Load() {
		return
	}
	st := forkStrand(w.pool, w, s.inv, fn)
	rs := w.strandState()
	rs.scoped = append(rs.scoped, scopedStrand{s, st})
}

// strandDo is Do in strand mode.
func strandDo(w *Worker, fns []func(*Worker)) {
	Scope(w, func(s *S) {
		for _, fn := range fns[1:] {
			strandGo(s, w, fn, "forkjoin.Do")
		}
		fns[0](w)
	})
}

// strandLoop runs units [0, n) of a loop on w as at most loopStrands
// strands of contiguous units, forked in index order, and joins them;
// piece(cw, k, a, b, stop) runs units [a, b) as strand k, and should stop
// between units once stop reports true (a piece has panicked) or the
// invocation is canceled. It re-raises the first panic, in index order.
func strandLoop(w *Worker, n uint64, piece func(cw *Worker, k int, a, b uint64, stop func() bool)) {
	if workSpan {
		wsLoop(w, n, piece)
		return
	}
	k := min(n, loopStrands)
	bound := func(i uint64) uint64 {
		hi, lo := bits.Mul64(i, n)
		q, _ := bits.Div64(hi, lo, k)
		return q
	}
	// panicked is shared by the strands, touched only with
	// synchronization hidden.
	var panicked atomic.Bool
	stop := func() bool {
		raceDisable()
		p := panicked.Load()
		raceEnable()
		return p
	}
	sts := make([]*strand, 0, k)
	defer func() { // also when runtime.Goexit unwinds us
		var pe *PanicError
		for _, st := range sts {
			w.joinStrand(st)
			if pe == nil {
				pe = st.pe
			}
		}
		if pe != nil {
			panic(pe)
		}
	}()
	for i := uint64(0); i < k && !stop() && !w.Canceled(); i++ {
		a, b, ki := bound(i), bound(i+1), int(i)
		sts = append(sts, forkStrand(w.pool, w, w.inv, func(cw *Worker) {
			ok := false
			defer func() {
				if !ok {
					raceDisable()
					panicked.Store(true)
					raceEnable()
				}
			}()
			piece(cw, ki, a, b, stop)
			ok = true
		}))
	}
}

// strandForRange is For (each) and ForRange (rng) in strand mode.
func strandForRange(w *Worker, lo, hi, grain int, each func(*Worker, int), rng func(*Worker, int, int), name string) {
	w.check(name)
	if hi <= lo {
		return
	}
	n := uint64(span(lo, hi))
	units := n // indices, or with a grain, pieces of grain indices
	if grain > 0 {
		units = (n + uint64(grain) - 1) / uint64(grain)
	}
	strandLoop(w, units, func(cw *Worker, _ int, a, b uint64, stop func() bool) {
		for u := a; u < b && !stop() && !cw.Canceled(); u++ {
			if each != nil {
				each(cw, lo+int(u))
				continue
			}
			if grain == 0 {
				rng(cw, lo+int(a), lo+int(b))
				return
			}
			x := lo + int(u*uint64(grain))
			rng(cw, x, x+min(grain, int(span(x, hi))))
		}
	})
}

// strandReduce is Reduce and ReduceW in strand mode. It combines over
// Reduce's tree, so that it gives the bits the scheduler gives: the range
// is cut into blocks of c indices, c the least power of two that makes at
// most loopPieces() of them, each block (and the last, shorter one) a
// subtree of Reduce's tree, computed serially as one strand; and the tree
// over the blocks is the tree's top. (A node of the tree of more than c
// indices starts at a multiple of c and splits at one, since its left part
// is a power of two larger than or equal to c; so every node ends at a
// multiple of c or at the range's end, and the nodes of c indices or fewer
// are the blocks.)
func strandReduce[T any](w *Worker, name string, lo, hi int, zero T, mapf func(int) T, mapw func(*Worker, int) T, combine func(x, y T) T) T {
	w.check(name)
	if hi <= lo {
		return zero
	}
	n := uint64(span(lo, hi))
	c := uint64(1)
	for (n-1)/c+1 > loopPieces() {
		c <<= 1
	}
	res := make([]T, (n-1)/c+1)
	strandLoop(w, uint64(len(res)), func(cw *Worker, _ int, a, b uint64, stop func() bool) {
		leaf := func(u uint64) T {
			if mapf != nil {
				return mapf(lo + int(u))
			}
			return mapw(cw, lo+int(u))
		}
		for k := a; k < b && !stop() && !cw.Canceled(); k++ {
			res[k] = strandTree(k*c, min(c, n-k*c), leaf, combine)
		}
	})
	return strandTop(w, 0, uint64(len(res)), res, combine)
}

// strandTop combines res[a:a+m], m > 0, over Reduce's tree, the left
// subtree of each node as a strand forked by w's: the combines of
// different subtrees are parallel strands, as the scheduler may run them.
func strandTop[T any](w *Worker, a, m uint64, res []T, combine func(x, y T) T) T {
	if m == 1 {
		return res[a]
	}
	p := treeLeft(m)
	var x T
	st := forkStrand(w.pool, w, w.inv, func(cw *Worker) { x = strandTop(cw, a, p, res, combine) })
	var y T
	func() {
		defer w.joinStrand(st) // a panic here too: the strand ends before it goes on
		y = strandTop(w, a+p, m-p, res, combine)
	}()
	if st.pe != nil {
		panic(st.pe)
	}
	return combine(x, y)
}

// loopPieces is the most strands strandLoop cuts a loop into.
func loopPieces() uint64 {
	if workSpan {
		return wsLoopPieces
	}
	return loopStrands
}

// treeLeft is the size of the left subtree of Reduce's tree over m > 1
// units: the largest power of two below m.
func treeLeft(m uint64) uint64 { return 1 << (bits.Len64(m-1) - 1) }

// strandTree returns Reduce's tree over units [a, a+m), m > 0, computing
// unit u as leaf(u).
func strandTree[T any](a, m uint64, leaf func(u uint64) T, combine func(x, y T) T) T {
	if m == 1 {
		return leaf(a)
	}
	p := treeLeft(m)
	return combine(strandTree(a, p, leaf, combine), strandTree(a+p, m-p, leaf, combine))
}

// strandInvokePlain is Invoke in strand mode.
func strandInvokePlain[T any](p *Pool, fn func(*Worker) T) T {
	r, pe, _ := strandInvoke(p, nil, fn)
	if pe != nil {
		panic(pe)
	}
	return r
}

// strandInvokeContext is InvokeContext in strand mode, past its checks.
func strandInvokeContext[T any](ctx context.Context, p *Pool, fn func(*Worker) T) (T, error) {
	var zero T
	r, pe, late := strandInvoke(p, ctx, fn)
	if pe != nil {
		if canceledBy(pe, ctx) {
			return zero, ctx.Err()
		}
		panic(pe)
	}
	if late {
		return zero, ctx.Err()
	}
	return r, nil
}

// strandTasksStart is Tasks.Go (w the calling strand's Worker) and
// Tasks.Submit (w nil: fn is a root of an invocation of its own on p) in
// strand mode: fn runs as a strand of its own, always concurrently with
// the code that started it (a set's tasks may block on each other, as
// goroutines may), and Wait joins it. The set's count is kept with its
// synchronization hidden: an end must not order the code after the next
// start after the task that ended, which errgroup's Go does not either.
// (The set's lock is taken at a start, by the parent, and at the last end
// only.) The caller has checked p for Submit.
func strandTasksStart(t *Tasks, p *Pool, w *Worker, fn func(*Worker)) {
	if workSpan {
		wsTasksStart(t, p, w, fn)
		return
	}
	inv := &invocation{}
	if w != nil {
		inv = w.inv
	}
	cw := newStrandWorker(p, w, inv)
	st := &strand{w: cw, done: make(chan struct{})}
	raceDisable()
	strandsLive.Add(1)
	t.pending.Add(1)
	raceEnable()
	t.addStrand(st)
	go func() {
		defer func() { // also when fn's runtime.Goexit unwinds the strand
			raceDisable()
			n := t.pending.Add(-1)
			raceEnable()
			t.finished(n) // after the strand ended: Wait's count, then its join
			if w == nil {
				p.active.Done()
			}
		}()
		cw.bindStrand()
		runStrand(st, func(cw *Worker) {
			cw.inTasks = append(cw.inTasks, t) // for Within
			defer func() { cw.inTasks = cw.inTasks[:len(cw.inTasks)-1] }()
			fn(cw)
		}, false, false)
	}()
}

// strandTasksWait joins the strands of t's tasks, which have all ended
// (Wait waited for the set's count first), and records their panics for
// Wait; w is the waiting strand's Worker, or nil for an ordinary goroutine.
func strandTasksWait(t *Tasks, w *Worker) {
	for {
		sts := t.takeStrands()
		if len(sts) == 0 {
			return
		}
		for _, st := range sts {
			w.joinStrand(st)
			if st.pe != nil {
				t.record(st.pe)
			}
		}
	}
}

// strandSubmit is Tasks.Submit in strand mode: it reports false if p is a
// default pool that Default has replaced, and panics with ErrClosed if p
// is closed; otherwise fn runs as a root strand (strandTasksStart).
func strandSubmit(t *Tasks, p *Pool, fn func(*Worker)) bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		if p.isDefault {
			return false
		}
		panic(ErrClosed)
	}
	p.active.Add(1)
	p.mu.Unlock()
	strandTasksStart(t, p, nil, fn)
	return true
}
