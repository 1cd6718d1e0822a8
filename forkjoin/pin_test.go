package forkjoin_test

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/fjkit/fjkit/forkjoin"
)

// kib64 is a 64 KiB value: what a finished call's result, captures and
// context value are in the pinning tests.
type kib64 [1 << 13]int64

// ctxKey keys the context value of the pinning tests.
type ctxKey struct{}

// pinned is the weak pointers to one finished call's data.
type pinned struct{ result, captured, ctxValue weak.Pointer[kib64] }

// A finished call keeps nothing of its data reachable from the pool: after
// Invoke returns, with fn having forked (a Join, and a Spawn joined) and
// returned a pointer to a 64 KiB value, its result, the data fn captured
// and a value of InvokeContext's context are collectible, for every one
// of 200 calls. Each fork kind the workers keep records for (record
// caches, hot slot, lazy frame slots, spawn runs and batches, loops and
// reductions) runs in a case of its own, in both modes, on 1, 2 and 4
// workers.
func TestFinishedCallsPinNothing(t *testing.T) {
	sq := forkjoin.NewFunc(func(w *forkjoin.Worker, x *kib64) int64 { return x[1] })
	forks := []struct {
		name string
		fork func(w *forkjoin.Worker, c *kib64) int64
	}{
		{"Join and Spawn", func(w *forkjoin.Worker, c *kib64) int64 {
			a, b := forkjoin.Join(w,
				func(*forkjoin.Worker) int64 { return c[0] },
				func(*forkjoin.Worker) int64 { return c[1] })
			s := forkjoin.Spawn(w, func(*forkjoin.Worker) *kib64 { return c }).Join(w)
			return a + b + s[2]
		}},
		{"Func.Join and Fork", func(w *forkjoin.Worker, c *kib64) int64 {
			a, b := sq.Join(w, c, c)
			h := sq.Fork(w, c)
			return a + b + h.Join(w)
		}},
		{"unjoined Spawn", func(w *forkjoin.Worker, c *kib64) int64 {
			forkjoin.Spawn(w, func(*forkjoin.Worker) *kib64 { return c })
			return 0
		}},
		{"Scope", func(w *forkjoin.Worker, c *kib64) int64 {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				for i := range 100 {
					s.Go(func(*forkjoin.Worker) { c[i]++ })
				}
			})
			return c[0]
		}},
		{"For and Reduce", func(w *forkjoin.Worker, c *kib64) int64 {
			forkjoin.For(w, 0, 1000, func(_ *forkjoin.Worker, i int) { c[i]++ })
			return forkjoin.Reduce(w, 0, 1000, 0, func(i int) int64 { return c[i] }, func(x, y int64) int64 { return x + y })
		}},
	}
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for _, n := range []int{1, 2, 4} {
			p := newPool(t, forkjoin.Workers(n), forkjoin.WithMode(mode))
			for _, f := range forks {
				t.Run(mode.String()+"/"+itoa(n)+"/"+f.name, func(t *testing.T) {
					var ps []pinned
					for range 200 {
						ps = append(ps, finishedCall(t, p, f.fork))
					}
					for range 4 {
						runtime.GC()
					}
					var res, capt, ctxv int
					for _, q := range ps {
						if q.result.Value() != nil {
							res++
						}
						if q.captured.Value() != nil {
							capt++
						}
						if q.ctxValue.Value() != nil {
							ctxv++
						}
					}
					if res+capt+ctxv > 0 {
						t.Errorf("of 200 finished calls, %d results, %d captures and %d context values are still reachable after four collections", res, capt, ctxv)
					}
				})
			}
		}
	}
}

// finishedCall runs one call through InvokeContext and returns weak
// pointers to its data. noinline: nothing of the call stays on the test's
// stack.
//
//go:noinline
func finishedCall(t *testing.T, p *forkjoin.Pool, fork func(*forkjoin.Worker, *kib64) int64) pinned {
	c, v := new(kib64), new(kib64)
	c[1], v[0] = 1, 2
	ctx := context.WithValue(context.Background(), ctxKey{}, v)
	r, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) *kib64 {
		r := new(kib64)
		r[0] = fork(w, c) + w.Context().Value(ctxKey{}).(*kib64)[0]
		return r
	})
	if err != nil {
		t.Fatal(err)
	}
	return pinned{weak.Make(r), weak.Make(c), weak.Make(v)}
}

// The result of a lazy Spawn that its task left unjoined is collectible
// once the task has ended, while the invocation goes on, and once the
// invocation has returned: settling the task ran the spawn, and only the
// dropped Future could reach its record. The first fork of a call is
// offered to thieves at once, so the spawns of the second case went
// through the deque.
func TestUnjoinedSpawnResultIsCollectible(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		p := newPool(t, forkjoin.Workers(n))
		t.Run(itoa(n)+"/task ended", func(t *testing.T) {
			var wps []weak.Pointer[kib64]
			leaked := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
				for range 200 {
					forkjoin.Spawn(w, func(w *forkjoin.Worker) int {
						forkjoin.Spawn(w, func(*forkjoin.Worker) *kib64 {
							r := new(kib64)
							wps = append(wps, weak.Make(r))
							return r
						})
						return 0
					}).Join(w)
				}
				for range 4 {
					runtime.GC()
				}
				return countLive(wps)
			})
			if leaked > 0 {
				t.Errorf("%d of %d unjoined spawns' results are reachable after their tasks ended", leaked, len(wps))
			}
		})
		t.Run(itoa(n)+"/call returned", func(t *testing.T) {
			var wps []weak.Pointer[kib64]
			for range 200 {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.Spawn(w, func(*forkjoin.Worker) *kib64 {
						r := new(kib64)
						wps = append(wps, weak.Make(r))
						return r
					})
				})
			}
			for range 4 {
				runtime.GC()
			}
			if leaked := countLive(wps); leaked > 0 {
				t.Errorf("%d of %d unjoined spawns' results are reachable after their calls returned", leaked, len(wps))
			}
		})
	}
}

func countLive(wps []weak.Pointer[kib64]) int {
	n := 0
	for _, wp := range wps {
		if wp.Value() != nil {
			n++
		}
	}
	return n
}
