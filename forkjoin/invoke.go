package forkjoin

import (
	"context"
	"runtime/trace"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// An invocation is the record of one Invoke, Run or InvokeContext: the
// identity that isolates helping (a waiting worker runs only tasks of its
// own invocation, see Worker.waitFor) and the context its tasks see. Every
// job records the invocation it belongs to.
type invocation struct {
	ctx context.Context // nil for Invoke and Run: context.Background
	// canceled is set once ctx is done or the invocation this one is
	// nested in is canceled (cancel); read by Worker.Canceled and at every
	// fork point, so it is the only thing they read.
	canceled atomic.Bool
	// nested are the invocations running inline inside this one
	// (invokeInline), which cancel cancels too. Guarded by mu.
	mu     sync.Mutex
	nested []*invocation
	// late: ctx was done when fn returned, so its result may be partial.
	// Written before the root job's done channel closes.
	late bool
	// queued is when the root was submitted, and deadline its context's
	// deadline (0: none), both on the clock of now(). Written before it
	// is queued, read by idle workers choosing a root (queue.pickInvocation).
	queued, deadline time.Duration
}

// cancel marks r and the invocations nested in it canceled. Any goroutine
// may call it, any number of times, and each call returns only once every
// nested invocation is marked: a second caller (a nested invocation that
// found the context done, racing with the context's AfterFunc) must not
// return before the first has reached the nested ones.
func (r *invocation) cancel() {
	r.canceled.Store(true)
	r.mu.Lock()
	nested := slices.Clone(r.nested)
	r.mu.Unlock()
	for _, n := range nested {
		n.cancel()
	}
}

// enter makes n, an invocation about to run nested inside r, canceled with
// r: at once if r is canceled already, else when r is (cancel).
func (r *invocation) enter(n *invocation) {
	r.mu.Lock()
	if r.canceled.Load() {
		n.canceled.Store(true)
	} else {
		r.nested = append(r.nested, n)
	}
	r.mu.Unlock()
}

// leave undoes enter, once n has returned.
func (r *invocation) leave(n *invocation) {
	r.mu.Lock()
	if i := slices.Index(r.nested, n); i >= 0 {
		r.nested = slices.Delete(r.nested, i, i+1)
	}
	r.mu.Unlock()
}

// invokeJob is the task Invoke hands to the pool through the injector.
type invokeJob[T any] struct {
	job
	own  invocation
	fn   func(*Worker) T
	res  T
	pool *Pool
	done chan struct{}
}

func (j *invokeJob[T]) execute(w *Worker) {
	w.nTasks++
	if j.own.ctx != nil && j.own.ctx.Err() != nil {
		j.own.cancel() // ahead of its AfterFunc, which sets the flag later
	}
	if !j.own.canceled.Load() { // canceled while queued: start nothing
		start := now()
		j.res, j.panic = call(w, j.fn)
		j.pool.injector.observe(now() - start) // for the injector's choice of roots
	}
	j.own.late = j.own.ctx != nil && j.own.ctx.Err() != nil
	j.complete(w)
}

func (j *invokeJob[T]) abandon(w *Worker) {
	j.panic = goexitPanic()
	j.complete(w)
}

func (j *invokeJob[T]) complete(w *Worker) {
	w.flushStats()
	// Leave the invocation before the caller learns it is over: a *Worker
	// it kept must look idle from then on (checkLive). Roots run
	// only from the idle loop (waiting workers never take them), so there
	// is no outer invocation to return to.
	w.setInv(nil)
	close(j.done)
	j.pool.active.Done()
	// The caller is now queued on our P: let it run before we look for
	// more work (clock.go), oversubscribed or not.
	w.yieldNow(now())
}

// Invoke runs fn on a worker of p and returns its result. It blocks the
// calling goroutine (without spinning) until fn and every task it started
// have finished: a Future or Forked that a task leaves unjoined is joined
// when that task returns, and its panic re-raised. Any number of goroutines
// may call Invoke at once. A panic in fn or in any task it started is
// re-raised here as a *PanicError. Invoke panics with ErrClosed if p is
// closed.
//
// Called from a task already running on p (a library that wraps
// Run(Default(), ...) called from inside a task, say), Invoke runs fn inline
// on the calling worker, as a nested invocation, instead of blocking that
// worker. Called from a task of another pool, it blocks that task's worker
// until p is done; pools that invoke each other in a cycle can deadlock.
func Invoke[T any](p *Pool, fn func(w *Worker) T) T {
	if fn == nil {
		panic("forkjoin.Invoke: fn is nil")
	}
	if p == nil {
		panic("forkjoin.Invoke: p is nil")
	}
	if raceStrands && p.strandPool() {
		return strandInvokePlain(p, fn)
	}
	if w := p.current(); w != nil {
		r, _ := invokeInline(w, w.Context(), fn) // fn's result stands: Invoke has no error to report
		return r
	}
	region := trace.StartRegion(context.Background(), "forkjoin.Invoke")
	j := submit(p, fn, nil)
	if j == nil {
		region.End()
		return Invoke(Default(), fn)
	}
	<-j.done
	region.End()
	if j.panic != nil {
		panic(j.panic)
	}
	return j.res
}

// Run is Invoke for a function without a result.
func Run(p *Pool, fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin.Run: fn is nil")
	}
	Invoke(p, func(w *Worker) struct{} {
		fn(w)
		return struct{}{}
	})
}

// InvokeContext is Invoke with a way out, and with the caller's context for
// the tools: the tasks run with ctx's profiler labels (pprof.WithLabels,
// pprof.Do), and the call is a runtime/trace region ("forkjoin.InvokeContext")
// of the task ctx belongs to, as Invoke's is ("forkjoin.Invoke").
//
// When ctx is done before fn
// returns, the invocation is canceled: its tasks see it through w.Context()
// and w.Canceled(), and from then on Join, Func.Join, Spawn, Fork, Scope's
// Go, For, ForRange and Reduce start nothing new (Join and Spawn's futures
// yield zero values), so the work winds down after the pieces already
// running. The invocations nested in it (Invoke or InvokeContext on the
// same pool from its tasks) are canceled with it, whatever their own
// contexts. InvokeContext returns, with ctx.Err(), only once every task of the
// invocation has stopped, as errgroup's Wait does: no task outlives it or
// writes to the caller's data after it returned, and a panic in a task is
// re-raised here, never lost. How soon after the deadline that is depends on
// the longest piece of work that does not fork (see the package doc on
// latency).
//
// It returns fn's result and nil only if ctx was not done when fn returned.
// A call in fn that gave up because of the cancellation and has no error to
// return (a par call: see CanceledError) panics, and InvokeContext returns
// ctx.Err() for that panic instead of re-raising it. It panics if ctx is
// nil, and with ErrClosed if p is closed (even if ctx is done).
func InvokeContext[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (T, error) {
	var zero T
	if ctx == nil {
		panic("forkjoin.InvokeContext: ctx is nil; use context.Background() or forkjoin.Invoke")
	}
	if fn == nil {
		panic("forkjoin.InvokeContext: fn is nil")
	}
	if p == nil {
		panic("forkjoin.InvokeContext: p is nil")
	}
	if err := ctx.Err(); err != nil {
		if p.isClosed() && !p.isDefault { // a replaced default pool serves on (submit)
			panic(ErrClosed) // as a live context would find out
		}
		return zero, err
	}
	if raceStrands && p.strandPool() {
		return strandInvokeContext(ctx, p, fn)
	}
	if w := p.current(); w != nil {
		return invokeInlineContext(w, ctx, fn)
	}
	region := trace.StartRegion(ctx, "forkjoin.InvokeContext")
	defer region.End()
	j := submit(p, fn, ctx)
	if j == nil {
		return InvokeContext(ctx, Default(), fn)
	}
	stop := context.AfterFunc(ctx, j.own.cancel)
	select {
	case <-j.done:
	case <-ctx.Done():
		j.own.cancel()
		if p.injector.remove(&j.job, nil) {
			// No worker had started it: nothing to wait for.
			p.active.Done()
			stop()
			return zero, ctx.Err()
		}
		<-j.done
	}
	stop()
	if j.panic != nil {
		if canceledBy(j.panic, ctx) {
			return zero, ctx.Err()
		}
		panic(j.panic)
	}
	if j.own.late {
		return zero, ctx.Err()
	}
	return j.res, nil
}

// invokeInline runs fn as a nested invocation on w, the caller's own worker:
// a root of its own (so that its waits help only its own tasks, as any
// invocation's do) on top of the task that called Invoke. It returns fn's
// result, and ctx.Err() if ctx was done when fn returned. The calling
// task's open spawn batch is closed first: it belongs to the outer
// invocation (batch.go).
//
// The nested root is canceled with the outer one (invocation.enter), and when
// ctx is done: at once if it is done already (context.AfterFunc would set
// the flag only later, from a goroutine of its own), through AfterFunc if
// ctx is not the outer invocation's, whose cancellation reaches us anyway.
func invokeInline[T any](w *Worker, ctx context.Context, fn func(*Worker) T) (T, error) {
	w.closeBatch()
	saved := w.inv
	r := &invocation{ctx: ctx}
	saved.enter(r)
	stop := func() bool { return false }
	switch {
	case ctx.Err() == nil:
		if ctx != saved.ctx && ctx.Done() != nil {
			stop = context.AfterFunc(ctx, r.cancel)
		}
	case ctx == saved.ctx:
		saved.cancel() // ahead of its AfterFunc; cancels r too (enter)
	default:
		r.canceled.Store(true)
	}
	w.setInv(r)
	defer func() { // also when runtime.Goexit unwinds fn: the outer waits need their root
		w.setInv(saved)
		stop()
		saved.leave(r)
		if !w.shared && w.deque.Len() > 0 {
			// fn may have spawned into a scope of the outer invocation
			// (S.Go tags the task with the scope's): its waiting
			// workers, which help only workers running their
			// invocation, may steal from us again.
			w.pool.sleep.notify()
		}
	}()
	res, pe := call(w, fn)
	if pe != nil {
		panic(pe)
	}
	return res, ctx.Err()
}

// invokeInlineContext is invokeInline for InvokeContext, whose error is
// ctx.Err() also when fn panicked because ctx's cancellation cut a call
// short (see CanceledError).
func invokeInlineContext[T any](w *Worker, ctx context.Context, fn func(*Worker) T) (r T, err error) {
	defer func() {
		if v := recover(); v != nil {
			if pe, ok := v.(*PanicError); ok && canceledBy(pe, ctx) {
				var zero T
				r, err = zero, ctx.Err()
				return
			}
			panic(v)
		}
	}()
	if r, err := invokeInline(w, ctx, fn); err == nil {
		return r, nil
	}
	var zero T
	return zero, ctx.Err()
}

// submit hands fn to the pool as a root task. ctx is nil for Invoke. It
// returns nil if p is a default pool that Default has replaced.
func submit[T any](p *Pool, fn func(*Worker) T, ctx context.Context) *invokeJob[T] {
	j := &invokeJob[T]{fn: fn, pool: p, done: make(chan struct{})}
	j.run = j
	j.own.ctx = ctx
	j.inv = &j.own
	j.own.queued = now()
	if ctx != nil {
		if d, ok := ctx.Deadline(); ok {
			j.own.deadline = j.own.queued + time.Until(d)
		}
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		if p.isDefault {
			return nil // replaced by another default pool (retire): the caller goes there
		}
		panic(ErrClosed)
	}
	p.active.Add(1)
	p.mu.Unlock()
	p.injector.push(&j.job, nil)
	p.sleep.notify()
	return j
}
