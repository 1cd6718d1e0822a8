package forkjoin

import (
	"context"
	"sync/atomic"
)

// root is one invocation: the context its tasks see.
type root struct {
	ctx      context.Context
	canceled atomic.Bool // set once ctx is done; read by Worker.Canceled
	// late: ctx was done when fn returned, so its result may be partial.
	// Written before the root job's done channel closes.
	late bool
}

// rootJob is the task Invoke hands to the pool through the injector.
type rootJob[T any] struct {
	job
	fn   func(*Worker) T
	res  T
	pool *Pool
	done chan struct{}
}

func (j *rootJob[T]) execute(w *Worker) {
	w.nTasks++
	j.res, j.panic = call(w, j.fn)
	if r := j.root; r != nil && r.ctx != nil {
		r.late = r.ctx.Err() != nil
	}
	j.complete(w)
}

func (j *rootJob[T]) abandon(w *Worker) {
	j.panic = goexitPanic()
	j.complete(w)
}

func (j *rootJob[T]) complete(w *Worker) {
	w.flushStats()
	close(j.done)
	j.pool.active.Done()
}

// Invoke runs fn on a worker of p and returns its result. It blocks the
// calling goroutine (without spinning) until fn and everything it forked have
// finished. Any number of goroutines may call Invoke at once. A panic in fn or
// in any task it forked is re-raised here as a *PanicError. Invoke panics with
// ErrClosed if p is closed.
//
// Invoke is for code outside the pool. Inside a task, fork with Join, Spawn,
// Scope or For instead: a task that calls Invoke on its own pool blocks its
// worker.
func Invoke[T any](p *Pool, fn func(w *Worker) T) T {
	if fn == nil {
		panic("forkjoin.Invoke: fn is nil")
	}
	j := submit(p, fn, nil)
	<-j.done
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

// InvokeContext is Invoke with a way out: when ctx is done before fn returns,
// InvokeContext returns ctx.Err(), at once if fn is still running. The tasks
// see the cancellation through w.Context() and w.Canceled(); For, ForRange,
// Reduce and Scope stop starting new work, and the rest drains in the
// background (Close waits for it). A panic in the tasks is re-raised if fn
// finished before InvokeContext returned.
func InvokeContext[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (T, error) {
	var zero T
	if fn == nil {
		panic("forkjoin.InvokeContext: fn is nil")
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	r := &root{ctx: ctx}
	j := submit(p, fn, r)
	stop := context.AfterFunc(ctx, func() { r.canceled.Store(true) })
	defer stop()
	select {
	case <-j.done:
	case <-ctx.Done():
		select {
		case <-j.done:
		default:
			// Tell the tasks ourselves: the deferred stop may run before
			// the AfterFunc does (a context closes Done before it runs
			// its children's cancels) and would then keep it from ever
			// running.
			r.canceled.Store(true)
			return zero, ctx.Err()
		}
	}
	if j.panic != nil {
		panic(j.panic)
	}
	if r.late {
		// ctx was done before fn returned, whichever channel the select
		// picked when both were ready: the result may be partial.
		return zero, ctx.Err()
	}
	return j.res, nil
}

// submit hands fn to the pool as a root task.
func submit[T any](p *Pool, fn func(*Worker) T, r *root) *rootJob[T] {
	if p == nil {
		panic("forkjoin: nil *Pool")
	}
	j := &rootJob[T]{fn: fn, pool: p, done: make(chan struct{})}
	j.run = j
	j.root = r
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		panic(ErrClosed)
	}
	p.active.Add(1)
	p.mu.Unlock()
	p.injector.push(&j.job, nil)
	p.sleep.notify()
	return j
}
