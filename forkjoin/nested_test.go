package forkjoin_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// Nested invocations: Invoke on the pool a task already runs on runs inline,
// as an invocation of its own on top of the calling task (invoke.go).

// A task spawned into a scope from a nested invocation belongs to the scope,
// not to the nested invocation: the scope's waiting worker must be able to
// run it. It used to be tagged with the nested invocation, which the
// scope's worker, waiting in the outer one, may not help with: one worker
// hung for ever.
func TestScopeGoFromNestedInvocation(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for _, n := range []int{1, 2} {
			t.Run(mode.String()+"/workers="+itoa(n), func(t *testing.T) {
				p := hangPool(t, forkjoin.Workers(n), forkjoin.WithMode(mode))
				var ran atomic.Int32
				withTimeout(t, 10*time.Second, func() {
					forkjoin.Run(p, func(w *forkjoin.Worker) {
						forkjoin.Scope(w, func(s *forkjoin.S) {
							forkjoin.Run(p, func(*forkjoin.Worker) {
								s.Go(func(*forkjoin.Worker) { ran.Add(1) })
							})
							forkjoin.Run(p, func(w *forkjoin.Worker) {
								fibJoin.Go(s, 10)
								s.GoFrom(w, func(*forkjoin.Worker) { ran.Add(1) })
							})
						})
					})
				})
				if got := ran.Load(); got != 2 {
					t.Errorf("%d of 2 spawned tasks ran", got)
				}
			})
		}
	}
}

// Two scopes side by side under a Join, each spawning from the bodies of
// a loop in a nested invocation (what a par.For in the scope's body does):
// every worker used to park in a scope's wait with the spawns stranded.
func TestScopesSpawningFromNestedLoops(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		t.Run(mode.String(), func(t *testing.T) {
			p := hangPool(t, forkjoin.Workers(2), forkjoin.WithMode(mode))
			var ran atomic.Int32
			scope := func(w *forkjoin.Worker) int {
				forkjoin.Scope(w, func(s *forkjoin.S) {
					for range 20 {
						forkjoin.Run(p, func(w *forkjoin.Worker) {
							forkjoin.ForRange(w, 0, 4, 1, func(*forkjoin.Worker, int, int) {
								s.Go(func(*forkjoin.Worker) { ran.Add(1) })
							})
						})
					}
				})
				return 0
			}
			withTimeout(t, 10*time.Second, func() {
				for range 20 {
					forkjoin.Run(p, func(w *forkjoin.Worker) { forkjoin.Join(w, scope, scope) })
				}
			})
			if got, want := ran.Load(), int32(20*2*20*4); got != want {
				t.Errorf("%d of %d spawned tasks ran", got, want)
			}
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + itoa(n%10)
}

// A nested invocation begun in a canceled invocation is canceled from its
// first instruction: its forks start nothing. The flag used to be set only
// from context.AfterFunc's goroutine, later: a nested Invoke right after the
// cancel saw Canceled() false in every round and ran its loop.
func TestNestedInvocationSeesCancellation(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	for round := range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		var canceled, errSeen bool
		var bodies atomic.Int32
		forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
			cancel()
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				canceled, errSeen = w.Canceled(), w.Context().Err() != nil
				forkjoin.For(w, 0, 1000, func(*forkjoin.Worker, int) { bodies.Add(1) })
			})
			return 0
		})
		if !canceled || !errSeen || bodies.Load() != 0 {
			t.Fatalf("round %d: nested Run in a canceled invocation: Canceled() = %v, Context().Err() != nil = %v, %d of 1000 loop bodies ran; want true, true, 0",
				round, canceled, errSeen, bodies.Load())
		}
	}
}

// An enclosing invocation's cancellation reaches a nested one that runs
// under a context of its own: it used to be seen only through the nested
// context, so a nested InvokeContext with an unrelated context ran on.
func TestNestedInvocationSeesOuterCancellation(t *testing.T) {
	p := hangPool(t, forkjoin.Workers(2))
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	withTimeout(t, 10*time.Second, func() {
		forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
			_, err := forkjoin.InvokeContext(context.Background(), p, func(w *forkjoin.Worker) int {
				close(started)
				for !w.Canceled() {
					// A stolen task of the nested invocation sees it too.
					forkjoin.Join(w, func(*forkjoin.Worker) int { return 0 }, func(*forkjoin.Worker) int { return 0 })
					runtime.Gosched()
				}
				return 0
			})
			if err != nil {
				t.Errorf("nested InvokeContext with an unrelated context returned %v", err)
			}
			return 0
		})
	})
}
