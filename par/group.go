package par

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/usage"
)

// A Group runs functions on a pool's workers and waits for them, with the
// API and semantics of golang.org/x/sync/errgroup: Go starts a function
// and returns at once, the first function to return an error cancels the
// context WithContext made (with the error as its cause), Wait returns once
// every function started has returned, with the first error, SetLimit
// bounds how many run at once (Go then blocks until a slot frees; TryGo
// starts a function only if one is free), and the zero value is usable.
// errgroup's own tests pass against it with only the import and the type's
// name changed.
//
// Unlike errgroup's, the functions run as fork-join tasks, not goroutines,
// on the pool of the task that calls Go, or on forkjoin.Default() when Go is
// called from an ordinary goroutine:
//
//   - A function starts at once, on an idle worker, whatever the group's
//     other functions are doing, as a goroutine would.
//   - Go may be called from inside a function (a recursive walk of a tree,
//     with one group at the root or a group per node): from a task, Go
//     pushes the function on the calling worker's deque, where idle workers
//     steal it, and Wait runs those still there itself. A Go from a task
//     costs no goroutine: an eager fork (a push, a wake-up check, and a
//     pop or a steal), the group's bookkeeping, and f's closure, which
//     escapes to the heap; with Wait's share, about what a SHA-256 of 64
//     bytes costs, so a Go should carry work of a microsecond or more. A
//     tree walk with a group per directory that hashes its files itself and
//     passes only subdirectories to Go pays that per directory, not per
//     node. Each level of a recursion through Go and Wait also takes about a
//     quarter of a kilobyte of the worker's stack beside the function's own
//     frames, which the stack grows by copying, as a deep serial recursion's
//     does. From an ordinary goroutine, each function is an invocation of
//     its own, as costly as an Invoke and a goroutine.
//   - Wait called from a task waits without holding a worker: it runs the
//     group's functions it can, and otherwise parks, and the pool counts
//     it as blocked (see below).
//   - A panic in a function cancels the context like an error and comes
//     out of Wait, once every function has returned, as a
//     *forkjoin.PanicError holding the value and the stack where it
//     happened.
//
// Functions may block, on each other or on the outside world, as
// goroutines may: one that sends on a channel another receives from, a
// Wait from a task, a lock. A blocked function holds its worker, and a
// pool whose workers are all blocked while work waits adds compensating
// workers after 10 to 140 milliseconds, so that the group makes progress
// whenever goroutines in its place would (see forkjoin.Blocking for the
// rule and its bounds).
//
// Wait must not be called from one of the group's own functions, which it
// would wait for (errgroup's deadlocks there; this one panics). Called from a task whose invocation
// was canceled (forkjoin.InvokeContext), Go starts nothing and Wait returns
// the context's error unless a function's error came first.
type Group struct {
	cancel   func(error) // WithContext's; nil for a zero Group
	tasks    forkjoin.Tasks
	sem      chan struct{} // SetLimit's slots; nil: no limit
	err      error         // the first function's error: written once, by the fail that set errSet
	panicked atomic.Pointer[forkjoin.PanicError]
	errSet   atomic.Bool // err is written, or being written
	skipped  atomic.Bool // a function never started: its invocation was canceled
}

// WithContext returns a new Group and a context derived from ctx, which is
// canceled (its cause the error) when a function passed to Go first returns
// an error or panics, or when Wait first returns, whichever comes first.
func WithContext(ctx context.Context) (*Group, context.Context) {
	if ctx == nil {
		panic("par.WithContext: ctx is nil")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	return &Group{cancel: cancel}, ctx
}

// Go calls f in a task of the pool (see Group for which pool) and returns
// at once; with a limit set, it first blocks until fewer than the limit's
// functions are active. The first call to return a non-nil error (or to
// panic) cancels the group's context, if WithContext made it; that error
// is what Wait returns.
func (g *Group) Go(f func() error) {
	if f == nil {
		panic("par.Group.Go: f is nil")
	}
	if g.sem != nil {
		g.sem <- struct{}{}
	}
	g.start(f)
}

// TryGo calls f in a task of the pool, as Go does, only if the number of
// active functions in the group is below the limit SetLimit set, and
// reports whether it did.
func (g *Group) TryGo(f func() error) bool {
	if f == nil {
		panic("par.Group.TryGo: f is nil")
	}
	if g.sem != nil {
		select {
		case g.sem <- struct{}{}:
		default:
			return false
		}
	}
	g.start(f)
	return true
}

// SetLimit limits the number of active functions in the group to at most
// n. A negative n means no limit; a limit of zero prevents any new
// function from starting. Go then blocks until it can start a function
// without exceeding the limit. SetLimit panics if functions of the group
// are active: the limit must not change while they run.
func (g *Group) SetLimit(n int) {
	if n < 0 {
		g.sem = nil
		return
	}
	if active := len(g.sem); active != 0 {
		panic(fmt.Errorf("par.Group.SetLimit: modify limit while %v functions in the group are still active", active))
	}
	g.sem = make(chan struct{}, n)
}

// start runs f in the group: forked from the calling task, or as an
// invocation of its own on the default pool from an ordinary goroutine.
// The task records f's error or panic (groupEnd), and never panics.
func (g *Group) start(f func() error) {
	if w := forkjoin.Current(); w != nil {
		if !g.tasks.GoErr(w, f, (*groupEnd)(g)) { // the invocation is canceled
			g.skipped.Store(true)
			g.done()
		}
		return
	}
	entered()
	g.tasks.Submit(forkjoin.Default(), func(*forkjoin.Worker) {
		var err error
		defer func() { g.end(err, recover()) }()
		err = f()
	})
}

// groupEnd is a Group as its functions' forkjoin.TaskEnd.
type groupEnd Group

// TaskEnded is end for a function that ran as a task of the group's set.
func (e *groupEnd) TaskEnded(err error, pe *forkjoin.PanicError) {
	var v any
	if pe != nil {
		v = pe
	}
	(*Group)(e).end(err, v)
}

// end records how one of the group's functions ended, with err or the
// panic value v (nil for none, and for runtime.Goexit), and frees its
// slot. Called in a deferred function, so that a stack failPanic takes
// still shows the panic.
func (g *Group) end(err error, v any) {
	if v != nil {
		g.failPanic(v)
	} else if err != nil {
		g.fail(err)
	}
	g.done()
}

// done frees f's slot, if the group has a limit.
func (g *Group) done() {
	if g.sem != nil {
		<-g.sem
	}
}

// fail records err, if it is the first, and cancels the group's context.
// It allocates nothing: an allocation between a function's error and the
// cancel is a point where the scheduler may preempt the failing function
// for long while the group's other functions start and see no error.
func (g *Group) fail(err error) {
	if g.errSet.CompareAndSwap(false, true) {
		g.err = err
		if g.cancel != nil {
			g.cancel(err)
		}
	}
}

// failPanic records v, a recovered panic value, as the group's panic if it
// is the first, and fails the group with it. A par call cut short by its
// invocation's cancellation (a *forkjoin.CanceledError panic) is no panic
// of the function's: it counts as a function that did not run. Called in a
// deferred function, so that the stack it takes still shows the panic.
func (g *Group) failPanic(v any) {
	pe, ok := v.(*forkjoin.PanicError)
	if !ok || pe == nil {
		pe = &forkjoin.PanicError{Value: v, Stack: debug.Stack()}
	}
	if _, ok := pe.Value.(*forkjoin.CanceledError); ok {
		g.skipped.Store(true)
		return
	}
	g.panicked.CompareAndSwap(nil, pe)
	g.fail(pe)
}

// Wait blocks until every function started by Go has returned, then
// returns the first non-nil error, if any. A panic in a function is
// re-raised here as a *forkjoin.PanicError. Called from a task, Wait runs
// the group's functions that its task started and nobody took yet, and
// otherwise waits without holding a worker (see Group). If the calling
// task's invocation is canceled, Wait returns the context's error unless a
// function's error came first. For a group made by WithContext, Wait then
// cancels its context, as errgroup's Wait does.
//
// A runtime.Goexit in a function (t.FailNow in a test) counts as the
// function's return, and ends the code that called Wait: an ordinary
// goroutine by runtime.Goexit once every function has returned, as it ends
// the caller of any par call, and a task by failing it with a
// *forkjoin.PanicError whose Value is forkjoin.ErrGoexit. A task fails at
// once if Wait ran that function itself (a worker runs the function and
// the task that waits on one goroutine); other functions of the group may
// then still be running.
func (g *Group) Wait() error {
	w := forkjoin.Current()
	if g.tasks.Within(w) {
		panic(usage.New("par.Group.Wait: called from one of the group's own functions, which Wait would wait for; call Wait from the code that started the group"))
	}
	if w == nil {
		g.waitHere()
	} else {
		g.tasks.Wait(w)
	}
	err := g.err // every function has returned: their fails happened before
	if g.cancel != nil {
		g.cancel(err)
	}
	if pe := g.panicked.Swap(nil); pe != nil {
		panic(pe)
	}
	if err == nil && w != nil && (g.skipped.Load() || canceled(w)) {
		if err := w.Context().Err(); err != nil {
			return err
		}
		return ctxErr(w)
	}
	return err
}

// waitHere waits for the group's functions from an ordinary goroutine,
// which a function's runtime.Goexit ends (see Wait). The deferred call is
// here, not in Wait, so that a Wait in a task takes no more stack: a
// recursion with a group per level nests Wait once per level.
func (g *Group) waitHere() {
	defer goexitHere()
	g.tasks.Wait(nil)
}
