package par

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/usage"
)

// A Group runs functions on a pool's workers and waits for them, with the
// API and semantics of golang.org/x/sync/errgroup: the first function to
// return an error (or panic) cancels the group's context, functions not yet
// started then never start, and Wait returns once every function that
// started has returned, with the first error. The zero value is usable; use
// WithContext for a context that the first error cancels and that the
// functions can watch.
//
// Unlike errgroup's, the functions run as fork-join tasks, not goroutines:
// at most as many run at once as the pool has workers, and Go called from
// inside one of the group's functions (a recursive walk of a tree, say)
// spawns into the same fork-join scope, as cheaply as forkjoin's S.Go,
// at any pool size and without deadlock: a worker waiting for the group
// runs its functions. errgroup with SetLimit, the goroutine way to bound
// the work, deadlocks on such recursion once the limit's worth of functions
// wait for their children.
//
// Where the functions run depends on where Go is called:
//
//   - From an ordinary goroutine, f runs on forkjoin.Default(), concurrently
//     with the caller, as errgroup's functions do.
//   - From one of the group's own functions, or from anything such a
//     function runs on the pool (a par call in it, say), f joins the same
//     fork-join scope, on the same pool.
//   - From any other task (a group made inside a par body, to recurse with
//     a group per level), f waits until that task calls Wait, which runs the
//     functions waiting then, on the task's pool, in parallel, with the
//     calling worker taking part. So from a task, call Go for all of the
//     work, then Wait: the functions do not start before Wait.
//
// A function holds the worker it runs on until it returns: a function
// blocked on I/O or a lock takes a worker from the whole pool (the
// process-wide default pool, for functions started outside any task), and
// a function that waits for another function of the pool to do something
// can wait for ever, at once with one worker. Functions should compute;
// for work that mostly waits, errgroup's goroutines are the better tool.
//
// Wait must not be called from one of the group's own functions, which it
// would wait for (errgroup deadlocks there; Wait panics). Called from a task
// (not one of the group's), Wait waits for the functions it runs itself and
// for those started from outside any pool, not for those another task's
// Wait is running: that task could be beneath it on the same worker. A
// panic in a function cancels the context like an error and comes out of
// Wait, once every function has returned, as a *forkjoin.PanicError.
type Group struct {
	mu       sync.Mutex
	inited   bool
	ctx      context.Context // what the functions get
	cancel   context.CancelCauseFunc
	external bool       // made by WithContext: Wait cancels ctx, as errgroup's does
	idle     *sync.Cond // on mu: broadcast when pending, rootDrains or taskDrains change

	pending    []func(context.Context) error // functions not yet spawned
	running    bool                          // a root runner exists (runRoot)
	rootDrains int                           // drains of root runners in progress
	taskDrains int                           // drains of Waits from tasks in progress
	err        error                         // the first error
	panicked   atomic.Pointer[forkjoin.PanicError]
	skipped    atomic.Bool // a function never started: the context was done
}

// WithContext returns a new Group and a context derived from ctx, which is
// canceled (its cause the error) when a function passed to Go first returns
// an error or panics, or when Wait returns, whichever comes first.
func WithContext(ctx context.Context) (*Group, context.Context) {
	if ctx == nil {
		panic("par.WithContext: ctx is nil")
	}
	g := &Group{external: true}
	g.mu.Lock()
	g.init(ctx)
	g.mu.Unlock()
	return g, g.ctx
}

// init makes g's context, the zero value's from context.Background. The
// caller holds mu.
func (g *Group) init(parent context.Context) {
	if !g.inited {
		g.ctx, g.cancel = context.WithCancelCause(parent)
		g.idle = sync.NewCond(&g.mu)
		g.inited = true
	}
}

// groupCtx is the context of an invocation that runs a group's functions
// (a drain): the group's context, and what a function running in the
// invocation needs to spawn into it. A task tells whether it runs one of
// g's functions by its invocation's context (Worker.Context).
type groupCtx struct {
	context.Context
	g    *Group
	pool *forkjoin.Pool
	s    *forkjoin.S // the scope the drain is in; set before its first spawn
}

// groupTask is a function of the group, as a task of a drain's scope.
type groupTask struct {
	g *Group
	f func(context.Context) error
}

// groupFunc forks the group's functions without allocating (Func.Go).
var groupFunc = forkjoin.NewFunc(func(_ *forkjoin.Worker, t groupTask) struct{} {
	t.g.call(t.f)
	return struct{}{}
})

// Go calls f with the group's context in a task of the pool (see Group for
// which pool, and when). The first call to return a non-nil error (or to
// panic) cancels the group's context; once it is canceled, functions not
// yet started never start.
func (g *Group) Go(f func(ctx context.Context) error) {
	if f == nil {
		panic("par.Group.Go: f is nil")
	}
	entered()
	w := forkjoin.Current()
	if w != nil {
		if rc := g.drainOf(w); rc != nil {
			groupFunc.Go(rc.s, groupTask{g, f})
			return
		}
	}
	g.mu.Lock()
	g.init(context.Background())
	g.pending = append(g.pending, f)
	start := w == nil && !g.running
	if start {
		g.running = true
	}
	g.idle.Broadcast() // an outside Wait may be waiting with nothing to run
	g.mu.Unlock()
	if start {
		go g.runRoot()
	}
}

// drainOf returns the drain of g that w's task belongs to, or nil if it
// belongs to none.
func (g *Group) drainOf(w *forkjoin.Worker) *groupCtx {
	if rc, ok := w.Context().(*groupCtx); ok && rc.g == g && rc.pool == w.Pool() {
		return rc
	}
	return nil
}

// call runs one of the group's functions, unless the group's context is
// done, and records its error or panic. It never panics.
func (g *Group) call(f func(context.Context) error) {
	if g.ctx.Err() != nil {
		g.skipped.Store(true)
		return
	}
	defer func() {
		if v := recover(); v != nil {
			g.failPanic(v)
		}
	}()
	if err := f(g.ctx); err != nil {
		g.fail(err)
	}
}

// fail records err, if it is the first, and cancels the group's context.
func (g *Group) fail(err error) {
	g.mu.Lock()
	if g.err == nil {
		g.err = err
	}
	g.mu.Unlock()
	g.cancel(err)
}

// failPanic records v, a recovered panic value, as the group's panic if it
// is the first, and fails the group with it. A par call cut short by the
// group's cancellation (a *forkjoin.CanceledError panic) is no panic of the
// function's: it counts as a function that did not run. Called in a
// deferred function, so that the stack it takes still shows the panic.
func (g *Group) failPanic(v any) {
	pe, ok := v.(*forkjoin.PanicError)
	if !ok || pe == nil {
		pe = &forkjoin.PanicError{Value: v, Stack: debug.Stack()}
	}
	if isCancellation(pe) && g.ctx.Err() != nil {
		g.skipped.Store(true)
		return
	}
	g.panicked.CompareAndSwap(nil, pe)
	g.fail(pe)
}

// isCancellation reports whether pe is the panic of a par call that gave up
// because its invocation was canceled.
func isCancellation(pe *forkjoin.PanicError) bool {
	_, ok := pe.Value.(*forkjoin.CanceledError)
	return ok
}

// take removes and returns the pending functions, counting the caller as a
// drain (root or not) if there are any. Once the group's context is done
// they are dropped instead: they will never start. The caller holds mu.
func (g *Group) take(root bool) []func(context.Context) error {
	fs := g.pending
	g.pending = nil
	if len(fs) > 0 && g.ctx.Err() != nil {
		g.skipped.Store(true)
		fs = nil
	}
	if len(fs) > 0 {
		if root {
			g.rootDrains++
		} else {
			g.taskDrains++
		}
	}
	g.idle.Broadcast()
	return fs
}

// drain runs fs, and whatever is pending after them, in scopes on w, in
// the invocation rc (take counted the drain for fs).
func (g *Group) drain(w *forkjoin.Worker, rc *groupCtx, root bool, fs []func(context.Context) error) {
	for len(fs) > 0 {
		g.drainOnce(w, rc, root, fs)
		g.mu.Lock()
		fs = g.take(root)
		g.mu.Unlock()
	}
}

// drainOnce runs fs in a scope on w and counts the drain down, also when a
// panic or runtime.Goexit unwinds it (a Goexit in a function the scope ran
// here, which the scope re-raises as a *forkjoin.PanicError when it ended
// another worker's goroutine).
func (g *Group) drainOnce(w *forkjoin.Worker, rc *groupCtx, root bool, fs []func(context.Context) error) {
	defer func() {
		if v := recover(); v != nil {
			g.failPanic(v)
		}
		if w.Canceled() { // the scope's spawns may have started nothing
			g.skipped.Store(true)
		}
		g.drained(root)
	}()
	forkjoin.Scope(w, func(s *forkjoin.S) {
		rc.s = s
		for _, f := range fs {
			groupFunc.Go(s, groupTask{g, f})
		}
	})
}

// runRoot is the goroutine that runs the functions Go queued outside any
// pool, on the default pool, until none are left.
func (g *Group) runRoot() {
	for {
		g.mu.Lock()
		fs := g.take(true)
		if len(fs) == 0 {
			g.running = false
			g.idle.Broadcast()
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.runDrain(forkjoin.Default(), true, fs)
	}
}

// runDrain runs fs, which take counted as a drain (root or not), in an
// invocation of their own on pool: inline when the caller is one of its
// workers (Wait from a task), else through its queue (runRoot).
func (g *Group) runDrain(pool *forkjoin.Pool, root bool, fs []func(context.Context) error) {
	rc := &groupCtx{Context: g.ctx, g: g, pool: pool}
	ran := false
	func() {
		defer func() {
			if v := recover(); v != nil {
				g.failPanic(v)
			}
		}()
		forkjoin.InvokeContext(rc, pool, func(w *forkjoin.Worker) struct{} {
			ran = true
			g.drain(w, rc, root, fs)
			return struct{}{}
		})
	}()
	if !ran { // g.ctx was done before a worker started it: fs never ran
		g.skipped.Store(true)
		g.drained(root)
	}
}

// drained counts a drain down. The caller does not hold mu.
func (g *Group) drained(root bool) {
	g.mu.Lock()
	if root {
		g.rootDrains--
	} else {
		g.taskDrains--
	}
	g.idle.Broadcast()
	g.mu.Unlock()
}

// Wait blocks until every function started by Go has returned (see Group
// for a Wait called from a task), then returns the first error, if any. If
// the context (WithContext's, or an invocation's that Wait is called in)
// was done before every function had started, the rest never start and
// Wait returns the context's error, unless a function's error came first. A
// panic in a function is re-raised here as a *forkjoin.PanicError. For a
// group made by WithContext, Wait then cancels its context, as errgroup's
// Wait does.
func (g *Group) Wait() error {
	entered()
	g.mu.Lock()
	g.init(context.Background())
	g.mu.Unlock()
	if w := forkjoin.Current(); w != nil {
		g.waitInTask(w)
	} else {
		g.waitOutside()
	}
	if pe := g.panicked.Load(); pe != nil {
		panic(pe)
	}
	g.mu.Lock()
	err := g.err
	g.mu.Unlock()
	if err == nil && g.skipped.Load() {
		err = context.Cause(g.ctx)
	}
	if g.external {
		g.cancel(context.Canceled)
	}
	return err
}

// waitOutside is Wait from an ordinary goroutine: it blocks until nothing
// is pending or running, starting a root runner for functions that tasks
// left pending.
func (g *Group) waitOutside() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(g.pending) > 0 || g.running || g.rootDrains > 0 || g.taskDrains > 0 {
		if len(g.pending) > 0 && !g.running {
			g.running = true
			go g.runRoot()
		}
		g.idle.Wait()
	}
}

// waitInTask is Wait from a task on w: it runs the pending functions itself,
// in a nested invocation on w's pool, then waits for root runners' drains.
// Those run in invocations of their own, which a worker starts only when it
// is idle, so none of them is beneath w's task on w's stack.
func (g *Group) waitInTask(w *forkjoin.Worker) {
	if g.drainOf(w) != nil {
		panic(usage.New("par.Group.Wait: called from one of the group's own functions, which Wait would wait for; call Wait from the code that started the group"))
	}
	if inv := w.Context(); inv.Done() != nil {
		defer context.AfterFunc(inv, func() { g.cancel(context.Cause(inv)) })()
	}
	for {
		g.mu.Lock()
		fs := g.take(false)
		if len(fs) == 0 {
			for len(g.pending) == 0 && g.rootDrains > 0 {
				g.idle.Wait()
			}
			done := len(g.pending) == 0
			g.mu.Unlock()
			if done {
				return
			}
			continue
		}
		g.mu.Unlock()
		g.runDrain(w.Pool(), false, fs)
	}
}
