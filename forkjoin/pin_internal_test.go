package forkjoin

import (
	"context"
	"runtime"
	"testing"
	"weak"
)

type pinKey struct{}

// TestFinishedCallsPinNothing's shape with every fork promoted: the paths
// that take a promoted frame back, or wait for its thief, leave no record
// holding the finished call's invocation either. Each case's fork is the
// call's last, so that its record is the one left in its frame slot.
func TestPromotedForksPinNothing(t *testing.T) {
	promoteEveryFork(t)
	type big [1 << 13]int64
	sq := NewFunc(func(w *Worker, x *big) int64 { return x[1] })
	forks := []struct {
		name string
		fork func(w *Worker, c *big) int64
	}{
		{"Join", func(w *Worker, c *big) int64 {
			a, b := Join(w, func(*Worker) int64 { return c[0] }, func(*Worker) int64 { return c[1] })
			return a + b
		}},
		{"Spawn", func(w *Worker, c *big) int64 { return Spawn(w, func(*Worker) *big { return c }).Join(w)[1] }},
		{"Func.Join", func(w *Worker, c *big) int64 { a, b := sq.Join(w, c, c); return a + b }},
		{"Fork", func(w *Worker, c *big) int64 { return sq.Fork(w, c).Join(w) }},
		{"For", func(w *Worker, c *big) int64 { For(w, 0, 100, func(_ *Worker, i int) { c[i]++ }); return 0 }},
		{"Reduce", func(w *Worker, c *big) int64 {
			return Reduce(w, 0, 100, 0, func(i int) int64 { return c[i] }, func(x, y int64) int64 { return x + y })
		}},
		{"Scope", func(w *Worker, c *big) int64 {
			Scope(w, func(s *S) {
				for i := range 50 {
					s.Go(func(*Worker) { c[i]++ })
				}
			})
			return 0
		}},
	}
	for _, n := range []int{1, 2, 4} {
		p := New(Workers(n))
		t.Cleanup(p.Close)
		for _, f := range forks {
			var wps []weak.Pointer[big]
			call := func() { // one InvokeContext; its data is dropped on return
				c, v := new(big), new(big)
				ctx := context.WithValue(context.Background(), pinKey{}, v)
				r, _ := InvokeContext(ctx, p, func(w *Worker) *big {
					r := new(big)
					r[0] = f.fork(w, c)
					return r
				})
				wps = append(wps, weak.Make(r), weak.Make(c), weak.Make(v))
			}
			for range 100 {
				call()
			}
			for range 4 {
				runtime.GC()
			}
			live := 0
			for _, wp := range wps {
				if wp.Value() != nil {
					live++
				}
			}
			if live > 0 {
				t.Errorf("workers=%d, %s: %d of %d results, captures and context values of finished calls are reachable", n, f.name, live, len(wps))
			}
		}
	}
}
