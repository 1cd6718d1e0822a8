package forkjoin

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"
)

// Tests of heartbeat promotion (heartbeat.go): every lazy or inline join's
// forked side runs exactly once, whether the frame was promoted or not,
// taken back or stolen, and panics and recovered panics leave the frames as
// they found them.

// promoteEveryFork makes every fork read the clock and every read promote
// a frame, until the test ends: the promoted paths, rare in real runs,
// become the common ones. Call it before creating the test's pool.
func promoteEveryFork(t *testing.T) {
	hp, cp := heartbeatPeriod, checkPeriod
	heartbeatPeriod, checkPeriod = 0, 0
	t.Cleanup(func() { heartbeatPeriod, checkPeriod = hp, cp })
}

// onceArg is a span [lo, hi) of leaves, each to be counted once in runs.
type onceArg struct {
	lo, hi int
	runs   []atomic.Int32
	mix    bool // fork eagerly now and then, and invoke inline, too
}

var onceFunc *Func[onceArg, int]

func init() { onceFunc = NewFunc(onceBody) }

// onceBody counts the leaves of its span through Func.Join at every split,
// or at some splits by direct calls where Worker.Inline says so.
// With mix it also forks the closure Join, Spawn and Func.Fork and nests an
// inline Invoke at some nodes, whose eager forks and change of invocation
// promote every lazy frame below them (promoteAll).
func onceBody(w *Worker, a onceArg) int {
	n := a.hi - a.lo
	if n == 1 {
		a.runs[a.lo].Add(1)
		leafWork(a.lo)
		return 1
	}
	mid := a.lo + n/2
	l, r := onceArg{a.lo, mid, a.runs, a.mix}, onceArg{mid, a.hi, a.runs, a.mix}
	if a.mix && n > 2 {
		switch a.lo % 7 {
		case 1:
			x, y := Join(w, func(w *Worker) int { return onceBody(w, l) }, func(w *Worker) int { return onceBody(w, r) })
			return x + y
		case 3:
			h := onceFunc.Fork(w, r)
			x := onceFunc.Call(w, l)
			return x + h.Join(w)
		case 5:
			f := Spawn(w, func(w *Worker) int { return onceBody(w, r) })
			x := onceFunc.Call(w, l)
			return x + f.Join(w)
		case 6:
			if n < 64 {
				return Invoke(w.Pool(), func(w *Worker) int {
					x, y := onceFunc.Join(w, l, r)
					return x + y
				})
			}
		}
	}
	if a.lo%4 == 0 && w.Inline() {
		// As an inline join would: both sides here, one after the other.
		return onceBody(w, l) + onceBody(w, r)
	}
	x, y := onceFunc.Join(w, l, r)
	return x + y
}

// leafWork is a leaf's computation: long enough (about a microsecond) that
// the run lasts for thieves to wake up and steal promoted frames.
func leafWork(seed int) {
	x := uint64(seed) | 1
	for range 500 {
		x = x*6364136223846793005 + 1
	}
	leafSink.Add(x >> 63)
}

var leafSink atomic.Uint64

func checkOnce(t *testing.T, runs []atomic.Int32) {
	t.Helper()
	bad := 0
	for i := range runs {
		if n := runs[i].Load(); n != 1 {
			if bad++; bad <= 5 {
				t.Errorf("leaf %d ran %d times, want 1", i, n)
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d leaves in all ran other than once", bad)
	}
}

func promotions(p *Pool) (n uint64) {
	for _, w := range p.workers {
		n += w.nPromoted
	}
	return n
}

// TestPromotedFramesRunOnce counts every leaf of a recursion forked at every
// split by Func.Join, in every work-stealing configuration, with the normal
// heartbeat and with a promotion at every fork, with and without eager forks
// and nested invocations mixed in.
func TestPromotedFramesRunOnce(t *testing.T) {
	leaves := 1 << 16
	if testing.Short() {
		leaves = 1 << 12
	}
	for _, every := range []bool{false, true} {
		for _, mix := range []bool{false, true} {
			for _, steal := range []StealPolicy{StealHalf, StealOne} {
				for _, workers := range []int{1, 2, 3, 4, 8} {
					name := fmt.Sprintf("every=%v/mix=%v/%v/workers=%d", every, mix, steal, workers)
					t.Run(name, func(t *testing.T) {
						if every {
							promoteEveryFork(t)
						}
						p := New(Workers(workers), WithSteal(steal))
						for range 3 {
							runs := make([]atomic.Int32, leaves)
							got := Invoke(p, func(w *Worker) int {
								return onceFunc.Call(w, onceArg{0, leaves, runs, mix})
							})
							if got != leaves {
								t.Errorf("counted %d leaves, want %d", got, leaves)
							}
							checkOnce(t, runs)
						}
						p.Close()
						for _, w := range p.workers {
							if w.nframes != 0 || w.promoteAt != 0 {
								t.Errorf("worker %d left nframes, promoteAt = %d, %d; want 0, 0", w.id, w.nframes, w.promoteAt)
							}
						}
						t.Logf("%d frames promoted; %+v", promotions(p), p.Stats())
						// Every run promotes at least its outermost frame.
						if n := promotions(p); n < 3 || every && n < uint64(leaves)/8 {
							t.Errorf("%d frames promoted in 3 runs; the test does not exercise promotion", n)
						}
					})
				}
			}
		}
	}
}

// panicLeafArg is a span whose leaf at index bad panics; started and
// finished count the leaves' bodies.
type panicLeafArg struct {
	lo, hi, bad       int
	started, finished *atomic.Int64
}

var panicLeafFunc *Func[panicLeafArg, int]

func init() {
	panicLeafFunc = NewFunc(func(w *Worker, a panicLeafArg) int {
		if a.hi-a.lo == 1 {
			a.started.Add(1)
			defer a.finished.Add(1)
			if a.lo == a.bad {
				panic("bad leaf")
			}
			return 1
		}
		mid := a.lo + (a.hi-a.lo)/2
		x, y := panicLeafFunc.Join(w,
			panicLeafArg{a.lo, mid, a.bad, a.started, a.finished},
			panicLeafArg{mid, a.hi, a.bad, a.started, a.finished})
		return x + y
	})
}

// TestPanicWaitsForPromotedFrames panics at one leaf of a recursion whose
// frames are promoted at every fork: the panic reaches Invoke only after
// every leaf that started has finished (no forked side outlives its join),
// and it leaves no frame behind.
func TestPanicWaitsForPromotedFrames(t *testing.T) {
	promoteEveryFork(t)
	const leaves = 1 << 10
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p := New(Workers(workers))
			defer p.Close()
			for _, bad := range []int{0, 1, leaves / 3, leaves - 1} {
				var started, finished atomic.Int64
				v := func() (v any) {
					defer func() { v = recover() }()
					Invoke(p, func(w *Worker) int {
						return panicLeafFunc.Call(w, panicLeafArg{0, leaves, bad, &started, &finished})
					})
					return nil
				}()
				pe, ok := v.(*PanicError)
				if !ok || pe.Value != "bad leaf" {
					t.Fatalf("bad=%d: Invoke panicked with %#v, want a *PanicError of \"bad leaf\"", bad, v)
				}
				if s, f := started.Load(), finished.Load(); s != f {
					t.Errorf("bad=%d: the panic reached Invoke with %d leaves started, %d finished", bad, s, f)
				}
			}
			if got := Invoke(p, func(w *Worker) int { return fibJoinInternal.Call(w, 15) }); got != 610 {
				t.Errorf("fib(15) after the panics = %d", got)
			}
		})
	}
}

var fibJoinInternal *Func[int, int]

func init() {
	fibJoinInternal = NewFunc(func(w *Worker, n int) int {
		if n < 2 {
			return n
		}
		a, b := fibJoinInternal.Join(w, n-1, n-2)
		return a + b
	})
}

// ptrArg carries a pointer, to see whether a frame's record keeps it.
type ptrArg struct {
	depth, recoverAt int
	p                *int
}

var recoverFunc *Func[ptrArg, int]

func init() {
	recoverFunc = NewFunc(func(w *Worker, a ptrArg) (r int) {
		switch a.depth {
		case -1:
			return 1 // a right side
		case 0:
			panic("deep")
		case a.recoverAt:
			defer func() { recover() }()
		}
		// A chain down the left, with trivial right sides.
		x, y := recoverFunc.Join(w, ptrArg{a.depth - 1, a.recoverAt, a.p}, ptrArg{-1, a.recoverAt, a.p})
		return x + y
	})
}

// TestRecoveredPanicDropsInlineFrames recovers panics that went through
// lazy frames and inline joins (which have no defer), in the recursion
// itself and at the task's end: no frame is left once the task ends, the
// frames' records hold no argument, and the worker forks on as before.
func TestRecoveredPanicDropsInlineFrames(t *testing.T) {
	const depth = 4 * protectDepth
	for _, recoverAt := range []int{depth / 4, -1} {
		t.Run(fmt.Sprintf("recoverAt=%d", recoverAt), func(t *testing.T) {
			p := New(Workers(1))
			defer p.Close()
			var w0 *Worker
			func() {
				defer func() { recover() }() // recoverAt -1: Invoke re-raises
				Run(p, func(w *Worker) {
					w0 = w
					x := 1
					recoverFunc.Call(w, ptrArg{depth, recoverAt, &x})
				})
			}()
			Run(p, func(w *Worker) {}) // the worker is between tasks
			if w0.nframes != 0 || w0.promoteAt != 0 {
				t.Errorf("nframes, promoteAt = %d, %d after the task; want 0, 0", w0.nframes, w0.promoteAt)
			}
			for d := range w0.frames {
				j := w0.frames[d].j
				if j == nil || j.key != unsafe.Pointer(recoverFunc) {
					continue
				}
				if fj := (*funcJob[ptrArg, int])(unsafe.Pointer(j)); fj.arg.p != nil {
					t.Errorf("frame %d's record still holds its argument", d)
				}
			}
			if got := Invoke(p, func(w *Worker) int { return fibJoinInternal.Call(w, 20) }); got != 6765 {
				t.Errorf("fib(20) after the recovered panic = %d", got)
			}
		})
	}
}

// TestLazyJoinStopsWhenCanceled cancels an invocation in the middle of a
// recursion of lazy and inline joins: the recursion stops forking within a
// heartbeat check. One worker, which waits at the cancelling leaf until the
// invocation sees the cancellation, so that the count does not depend on
// timing.
func TestLazyJoinStopsWhenCanceled(t *testing.T) {
	p := New(Workers(1))
	defer p.Close()
	const leaves, stopAt = 1 << 20, 1000
	ctx, cancel := context.WithCancel(context.Background())
	var ran int
	var cancelFunc *Func[[2]int, int]
	cancelFunc = NewFunc(func(w *Worker, s [2]int) int {
		if s[1]-s[0] == 1 {
			if ran++; ran == stopAt {
				cancel()
				for !w.Canceled() {
					runtime.Gosched()
				}
			}
			return 1
		}
		mid := (s[0] + s[1]) / 2
		x, y := cancelFunc.Join(w, [2]int{s[0], mid}, [2]int{mid, s[1]})
		return x + y
	})
	_, err := InvokeContext(ctx, p, func(w *Worker) int { return cancelFunc.Call(w, [2]int{0, leaves}) })
	if err != context.Canceled {
		t.Errorf("InvokeContext returned %v, want context.Canceled", err)
	}
	// Once canceled, at most checkStride forks pass before a heartbeat check
	// sees it, each running at most two leaves; after that every fork
	// returns at once.
	if ran > stopAt+2*checkStride {
		t.Errorf("%d leaves ran after cancelling at leaf %d of %d", ran, stopAt, leaves)
	}
}
