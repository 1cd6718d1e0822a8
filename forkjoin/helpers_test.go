package forkjoin_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// poolConfig is one way to build a pool; configs lists every combination the
// correctness tests run under, including more workers than cores on purpose.
type poolConfig struct {
	mode    forkjoin.Mode
	steal   forkjoin.StealPolicy
	workers int
}

func (c poolConfig) String() string {
	return fmt.Sprintf("%v/%v/workers=%d", c.mode, c.steal, c.workers)
}

func (c poolConfig) new() *forkjoin.Pool {
	return forkjoin.New(c.options()...)
}

// hangPool is c.new for a test that may hang in the pool (see withTimeout).
func (c poolConfig) hangPool(t *testing.T) *forkjoin.Pool { return hangPool(t, c.options()...) }

func (c poolConfig) options() []forkjoin.Option {
	return []forkjoin.Option{forkjoin.Workers(c.workers), forkjoin.WithMode(c.mode), forkjoin.WithSteal(c.steal)}
}

func configs() []poolConfig {
	var cs []poolConfig
	for _, m := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for _, s := range []forkjoin.StealPolicy{forkjoin.StealHalf, forkjoin.StealOne} {
			for _, n := range []int{1, 2, 3, 4, 8, 16} {
				cs = append(cs, poolConfig{m, s, n})
			}
		}
	}
	return cs
}

// newPool returns a pool that is closed when the test ends.
func newPool(t testing.TB, opts ...forkjoin.Option) *forkjoin.Pool {
	t.Helper()
	p := forkjoin.New(opts...)
	t.Cleanup(p.Close)
	return p
}

func serialFib(n int) int {
	if n < 2 {
		return n
	}
	return serialFib(n-1) + serialFib(n-2)
}

// fibJoin forks at every call through a Func.
var fibJoin *forkjoin.Func[int, int]

func init() { fibJoin = forkjoin.NewFunc(fibJoinBody) }

func fibJoinBody(w *forkjoin.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := fibJoin.Join(w, n-1, n-2)
	return a + b
}

// fibInline forks at every call through a Func, making the joins that
// would run inline as direct calls (Worker.Inline).
var fibInline *forkjoin.Func[int, int]

func init() { fibInline = forkjoin.NewFunc(fibInlineBody) }

func fibInlineBody(w *forkjoin.Worker, n int) int {
	if n < 2 {
		return n
	}
	if w.Inline() {
		return fibInlineBody(w, n-1) + fibInlineBody(w, n-2)
	}
	a, b := fibInline.Join(w, n-1, n-2)
	return a + b
}

// fibClosureJoin forks at every call through the closure Join.
func fibClosureJoin(w *forkjoin.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *forkjoin.Worker) int { return fibClosureJoin(w, n-1) },
		func(w *forkjoin.Worker) int { return fibClosureJoin(w, n-2) })
	return a + b
}

// fibSpawn forks through Spawn and joins the futures in the order given by
// the parity of n, so that both orders occur at every depth.
func fibSpawn(w *forkjoin.Worker, n int) int {
	if n < 2 {
		return n
	}
	f1 := forkjoin.Spawn(w, func(w *forkjoin.Worker) int { return fibSpawn(w, n-1) })
	f2 := forkjoin.Spawn(w, func(w *forkjoin.Worker) int { return fibSpawn(w, n-2) })
	if n%2 == 0 {
		return f1.Join(w) + f2.Join(w)
	}
	b := f2.Join(w)
	return f1.Join(w) + b
}

// recovered runs f and returns the value it panicked with, or nil.
func recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// mustPanicError asserts that v is a *forkjoin.PanicError and returns it.
func mustPanicError(t *testing.T, v any) *forkjoin.PanicError {
	t.Helper()
	if v == nil {
		t.Fatal("no panic")
	}
	pe, ok := v.(*forkjoin.PanicError)
	if !ok {
		t.Fatalf("panic value is %T (%v), want *forkjoin.PanicError", v, v)
	}
	return pe
}

// panicMessage returns the message of the panic f raises, looking through a
// *forkjoin.PanicError (misuse inside a task reaches the caller wrapped).
func panicMessage(f func()) string {
	v := recovered(f)
	var pe *forkjoin.PanicError
	if err, ok := v.(error); ok && errors.As(err, &pe) {
		v = pe.Value
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// withTimeout runs f in a goroutine and fails the test, with every
// goroutine's stack, if f has not returned within d, so that a lost wake-up
// or a deadlock fails instead of hanging. On a timeout f is left running:
// the caller must not then close a pool f is hung in (Close would wait for
// it), which hangPool arranges.
func withTimeout(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case v := <-done:
		if v != nil {
			panic(v)
		}
	case <-time.After(d):
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("did not finish within %v (lost wake-up or deadlock); all goroutines:\n%s", d, buf)
	}
}

// hangPool is newPool for tests that may hang in the pool (see
// withTimeout): it is closed when the test ends only if the test passed.
func hangPool(t *testing.T, opts ...forkjoin.Option) *forkjoin.Pool {
	t.Helper()
	p := forkjoin.New(opts...)
	t.Cleanup(func() {
		if !t.Failed() {
			p.Close()
		}
	})
	return p
}

// spawnTree spawns one task per leaf of [lo, hi) into s the natural
// recursive way, each inner task spawning its two halves with s.Go (from
// whichever worker runs it), and counts each leaf's runs in ran.
func spawnTree(s *forkjoin.S, ran []atomic.Int32, lo, hi int) {
	s.Go(func(*forkjoin.Worker) {
		if hi-lo == 1 {
			ran[lo].Add(1)
			return
		}
		mid := (lo + hi) / 2
		spawnTree(s, ran, lo, mid)
		spawnTree(s, ran, mid, hi)
	})
}
