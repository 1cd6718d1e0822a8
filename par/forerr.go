package par

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
)

// ForErr calls body(ctx', i) for every i in [0, n) in parallel, with
// errgroup's semantics: ctx' is derived from ctx and canceled (its cause
// the error) as soon as a body returns an error, bodies not yet started then
// never start, and ForErr returns that first error once every body that did
// start has returned. It returns nil when every body ran and returned nil.
// If ctx is done before every body has started, the rest never start and
// ForErr returns ctx.Err() (unless a body's error came first). A panicking
// body cancels ctx' like an error, and the panic comes out of ForErr as a
// *forkjoin.PanicError.
//
// Called from a task of an invocation that gets canceled (InvokeContext),
// ForErr treats that like ctx: ctx' is canceled too, bodies not yet started
// never start, and ForErr returns the invocation's context's error.
//
// Bodies run on the pool's workers, so they should compute rather than
// wait: a body blocked on I/O holds a worker, and a body that waits for
// another body to run may wait for ever (with one worker, certainly). For
// work that mostly waits, use goroutines (errgroup.Group with SetLimit).
func ForErr(ctx context.Context, n int, body func(ctx context.Context, i int) error) error {
	if ctx == nil {
		panic("par.ForErr: ctx is nil")
	}
	if body == nil {
		panic("par.ForErr: body is nil")
	}
	return forErr(ctx, n, body)
}

// forErr is ForErr once the arguments are checked.
func forErr(ctx context.Context, n int, body func(ctx context.Context, i int) error) error {
	entered()
	if n <= 0 {
		return nil
	}
	g := newErrGroup(ctx)
	defer g.close()
	w := forkjoin.Current()
	if w != nil {
		if inv := w.Context(); inv.Done() != nil {
			defer context.AfterFunc(inv, func() { g.cancel(context.Cause(inv)) })()
		}
	}
	// Grain 1: every body is a piece of its own, and a worker hands half of
	// its range to an idle one before it starts a body, so that a body that
	// blocks (on ctx.Done(), say) does not hold back the bodies after it
	// while another worker is free to run them.
	switch {
	case n == 1 || workers() == 1 && !strandCalls():
		g.piece(w, 0, n, body)
	case w != nil:
		forkjoin.ForRange(w, 0, n, 1, func(w *forkjoin.Worker, lo, hi int) { g.piece(w, lo, hi, body) })
	default:
		runDefault(func(w *forkjoin.Worker) {
			forkjoin.ForRange(w, 0, n, 1, func(w *forkjoin.Worker, lo, hi int) { g.piece(w, lo, hi, body) })
		})
	}
	return g.result(ctx, w)
}

// MapErr returns a new slice holding the results of f(ctx', x) for every
// element x of s, in order, computed in parallel with ForErr's semantics:
// the first error cancels ctx' (derived from ctx) for the calls still
// running, calls not yet started never start, and MapErr returns nil and
// that error once every started call has returned. A nil error means that
// every element was mapped: the slice has len(s) results (never nil). A
// panic in f comes out as a *forkjoin.PanicError. Like ForErr's bodies, the
// calls run on the pool's workers and should compute rather than wait.
func MapErr[S ~[]E, E, R any](ctx context.Context, s S, f func(ctx context.Context, e E) (R, error)) ([]R, error) {
	if ctx == nil {
		panic("par.MapErr: ctx is nil")
	}
	if f == nil {
		panic("par.MapErr: f is nil")
	}
	r := make([]R, len(s))
	err := forErr(ctx, len(s), func(ctx context.Context, i int) error {
		v, err := f(ctx, s[i])
		r[i] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// errGroup is the shared state of one ForErr call.
type errGroup struct {
	ctx     context.Context // what the bodies get
	cancel  context.CancelCauseFunc
	done    <-chan struct{} // the caller's ctx's; nil if it is never done
	stop    atomic.Bool     // set by the first error or panic
	skipped atomic.Bool     // some body never started
	once    sync.Once
	err     error // the first error; written once, read after every body returned
}

func newErrGroup(parent context.Context) *errGroup {
	g := &errGroup{done: parent.Done()}
	g.ctx, g.cancel = context.WithCancelCause(parent)
	return g
}

// piece runs the bodies of [lo, hi) in order, on w (nil outside any pool),
// until one fails, the group stops or w's invocation is canceled.
func (g *errGroup) piece(w *forkjoin.Worker, lo, hi int, body func(context.Context, int) error) {
	defer func() {
		if v := recover(); v != nil {
			pe, ok := v.(*forkjoin.PanicError)
			if !ok || pe == nil {
				pe = &forkjoin.PanicError{Value: v, Stack: debug.Stack()}
			}
			g.fail(pe)
			panic(pe)
		}
	}()
	for i := lo; i < hi; i++ {
		if g.stopped() || w != nil && w.Canceled() {
			g.skipped.Store(true)
			return
		}
		if err := body(g.ctx, i); err != nil {
			g.fail(err)
			return
		}
	}
}

// stopped reports whether bodies should no longer start. The look at the
// caller's ctx is a receive that does not block, a few nanoseconds: a
// context.AfterFunc setting stop would be cheaper per body but runs late,
// in a goroutine of its own, and a ctx canceled by a body would then let
// the bodies after it start.
func (g *errGroup) stopped() bool {
	if g.stop.Load() {
		return true
	}
	select {
	case <-g.done:
		return true
	default:
		return false
	}
}

// fail records err if it is the first and cancels the bodies' context.
func (g *errGroup) fail(err error) {
	g.once.Do(func() {
		g.err = err
		g.cancel(err)
	})
	g.stop.Store(true)
}

// result is ForErr's error, once every body has returned: the first error;
// else, if some body did not start, the error of the context that stopped
// it, ctx or the invocation of w (the calling task's worker, nil outside
// any pool). A canceled invocation skips pieces that never reach piece, so
// its cancellation alone counts as a skip.
func (g *errGroup) result(parent context.Context, w *forkjoin.Worker) error {
	if g.err != nil {
		return g.err
	}
	if g.skipped.Load() || w != nil && canceled(w) {
		if err := parent.Err(); err != nil {
			return err
		}
		if w != nil && canceled(w) {
			return ctxErr(w)
		}
	}
	return nil
}

func (g *errGroup) close() { g.cancel(context.Canceled) }
