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
// Bodies run on the default pool's workers, so they should compute rather
// than wait: a body blocked on I/O holds a worker. For work that mostly
// waits, use goroutines (errgroup.Group with SetLimit).
func ForErr(ctx context.Context, n int, body func(ctx context.Context, i int) error) error {
	if ctx == nil {
		panic("par.ForErr: ctx is nil")
	}
	if body == nil {
		panic("par.ForErr: body is nil")
	}
	if n <= 0 {
		return nil
	}
	g := newErrGroup(ctx)
	defer g.close()
	if n == 1 || workers() == 1 {
		g.piece(0, n, body)
	} else {
		run(func(w *forkjoin.Worker) {
			forkjoin.ForRange(w, 0, n, 0, func(_ *forkjoin.Worker, lo, hi int) { g.piece(lo, hi, body) })
		})
	}
	return g.result(ctx)
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

// piece runs the bodies of [lo, hi) in order until one fails or the group
// stops.
func (g *errGroup) piece(lo, hi int, body func(context.Context, int) error) {
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
		if g.stopped() {
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

func (g *errGroup) result(parent context.Context) error {
	if g.err != nil {
		return g.err
	}
	if g.skipped.Load() {
		return parent.Err()
	}
	return nil
}

func (g *errGroup) close() { g.cancel(context.Canceled) }
