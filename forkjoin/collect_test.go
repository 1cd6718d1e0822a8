package forkjoin_test

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/sorts"
)

// bigArray is 512 KB: a caller's input worth the collector's attention.
type bigArray [1 << 16]int64

// A finished call's data is collectible once the call returned, on a pool
// that stays open (as the default pool does, for the life of the process).
// Job records freed into the workers' caches kept their root and scope,
// and through the root the finished invocation's closure, result, panic
// and context: two collections after a Reduce over a 512 KB array on 2
// workers the array was still reachable, and was freed only by Close.
func TestFinishedCallsAreCollectible(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		t.Run(mode.String(), func(t *testing.T) {
			finishedCallsAreCollectible(t, newPool(t, forkjoin.Workers(2), forkjoin.WithMode(mode)))
		})
	}
}

func finishedCallsAreCollectible(t *testing.T, p *forkjoin.Pool) {
	sum := func(x, y int64) int64 { return x + y }
	calls := []struct {
		name string
		call func(a *bigArray)
	}{
		{"Reduce in Invoke", func(a *bigArray) {
			forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 {
				return forkjoin.Reduce(w, 0, len(a), 0, func(i int) int64 { return a[i] }, sum)
			})
		}},
		{"Reduce in InvokeContext", func(a *bigArray) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int64 {
				return forkjoin.Reduce(w, 0, len(a), 0, func(i int) int64 { return a[i] }, sum)
			})
		}},
		{"QuickSort", func(a *bigArray) {
			forkjoin.Run(p, func(w *forkjoin.Worker) { sorts.QuickSort(w, a[:]) })
		}},
		{"Scope", func(a *bigArray) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.S) {
					for i := 0; i < len(a); i += 256 {
						s.Go(func(*forkjoin.Worker) { a[i]++ })
					}
				})
			})
		}},
		{"nested Invoke", func(a *bigArray) {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.For(w, 0, len(a), func(_ *forkjoin.Worker, i int) { a[i]++ })
				})
			})
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			for round := range 20 {
				if collectible(c.call) {
					continue
				}
				t.Fatalf("round %d: the array the call used is still reachable two collections after it returned", round)
			}
		})
	}
}

// collectible reports whether the array that call(a) used is collected
// after it returned. a is made and dropped in a frame of its own (noinline)
// so that nothing on the test's stack holds it.
func collectible(call func(*bigArray)) bool {
	wp := useArray(call)
	runtime.GC()
	runtime.GC()
	return wp.Value() == nil
}

//go:noinline
func useArray(call func(*bigArray)) weak.Pointer[bigArray] {
	a := new(bigArray)
	for i := range a {
		a[i] = int64(len(a) - i)
	}
	call(a)
	return weak.Make(a)
}
