package forkjoin_test

import (
	"context"
	"errors"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// TestInvokeContextReturnsCancellationPanics checks that a CanceledError
// panic of a task, raised once the invocation's context is done, comes out
// of InvokeContext as ctx.Err(), from the root task, from a forked task, and
// from a nested InvokeContext on the same pool; and that one raised while
// the context is not done is re-raised like any panic.
func TestInvokeContextReturnsCancellationPanics(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	cancelThenPanic := func(cancel context.CancelFunc, w *forkjoin.Worker) int {
		cancel()
		panic(&forkjoin.CanceledError{Err: w.Context().Err()})
	}
	for name, run := range map[string]func(ctx context.Context, cancel context.CancelFunc) (int, error){
		"root": func(ctx context.Context, cancel context.CancelFunc) (int, error) {
			return forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int { return cancelThenPanic(cancel, w) })
		},
		"forked": func(ctx context.Context, cancel context.CancelFunc) (int, error) {
			return forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
				a, b := forkjoin.Join(w,
					func(w *forkjoin.Worker) int { return 1 },
					func(w *forkjoin.Worker) int { return cancelThenPanic(cancel, w) })
				return a + b
			})
		},
		"nested": func(ctx context.Context, cancel context.CancelFunc) (int, error) {
			var inner error
			_, _ = forkjoin.InvokeContext(context.Background(), p, func(w *forkjoin.Worker) int {
				_, inner = forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int { return cancelThenPanic(cancel, w) })
				return 0
			})
			return 0, inner
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := run(ctx, cancel)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: InvokeContext returned %v, want context.Canceled", name, err)
		}
	}

	defer func() {
		var ce *forkjoin.CanceledError
		if err, _ := recover().(error); !errors.As(err, &ce) {
			t.Errorf("a CanceledError panic with the context not done: recovered %v, want it re-raised", err)
		}
	}()
	_, _ = forkjoin.InvokeContext(context.Background(), p, func(w *forkjoin.Worker) int {
		panic(&forkjoin.CanceledError{Err: context.Canceled})
	})
}
