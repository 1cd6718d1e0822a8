package forkjoin

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of the lazy frames of every fork point (heartbeat.go, for.go,
// batch.go): each primitive's forked work runs exactly once, promoted or
// not, stolen or taken back or settled at its task's end; a panic waits for
// everything promoted beside it; cancellation stops them; and they leave no
// frame behind.

// lazyArg is a span [lo, hi) of leaves, each to be counted once in runs.
// With bad >= 0 the leaf at bad panics, and every leaf counts its start and
// end.
type lazyArg struct {
	lo, hi            int
	runs              []atomic.Int32
	bad               int
	started, finished *atomic.Int64
	onLeaf            func(w *Worker) // if not nil, called at every leaf
}

func (a lazyArg) span(lo, hi int) lazyArg { a.lo, a.hi = lo, hi; return a }

// quarter returns the k-th of four spans of a.
func (a lazyArg) quarter(k int) lazyArg {
	n := a.hi - a.lo
	return a.span(a.lo+k*n/4, a.lo+(k+1)*n/4)
}

var lazyFunc *Func[lazyArg, int]

func init() { lazyFunc = NewFunc(lazyBody) }

// lazyKinds is how many ways lazyBody forks.
const lazyKinds = 15

// lazyBody counts the leaves of its span, forking at every split by one of
// lazyKinds primitives, chosen by the span's position, and returns how many
// it counted itself (spawned tasks count theirs only in runs).
func lazyBody(w *Worker, a lazyArg) int {
	n := a.hi - a.lo
	if n == 1 {
		if a.started != nil {
			a.started.Add(1)
			defer a.finished.Add(1)
			if a.lo == a.bad {
				panic("bad leaf")
			}
		}
		a.runs[a.lo].Add(1)
		if a.onLeaf != nil {
			a.onLeaf(w)
			return 1
		}
		leafWork(a.lo)
		return 1
	}
	mid := a.lo + n/2
	l, r := a.span(a.lo, mid), a.span(mid, a.hi)
	kind := (a.lo/2 + n) % lazyKinds
	if n < 4 && kind >= 8 && kind <= 12 {
		kind = 0 // the loops split in quarters
	}
	switch kind {
	case 1:
		x, y := Join(w, func(w *Worker) int { return lazyBody(w, l) }, func(w *Worker) int { return lazyBody(w, r) })
		return x + y
	case 2: // forked in order, joined in order
		hl, hr := lazyFunc.Fork(w, l), lazyFunc.Fork(w, r)
		return hl.Join(w) + hr.Join(w)
	case 3: // joined in reverse
		hl, hr := lazyFunc.Fork(w, l), lazyFunc.Fork(w, r)
		y := hr.Join(w)
		return hl.Join(w) + y
	case 4:
		fl := Spawn(w, func(w *Worker) int { return lazyBody(w, l) })
		fr := Spawn(w, func(w *Worker) int { return lazyBody(w, r) })
		return fl.Join(w) + fr.Join(w)
	case 5: // one left unjoined: its task's end runs it
		Spawn(w, func(w *Worker) int { return lazyBody(w, l) })
		lazyFunc.Fork(w, r)
		return 0
	case 6:
		Scope(w, func(s *S) {
			s.Go(func(w *Worker) { lazyBody(w, l) })
			s.Go(func(w *Worker) { lazyBody(w, r) })
		})
		return 0
	case 7:
		Scope(w, func(s *S) {
			lazyFunc.Go(s, l)
			lazyFunc.Go(s, r)
		})
		return 0
	case 8:
		var c atomic.Int64
		For(w, 0, 4, func(w *Worker, k int) { c.Add(int64(lazyBody(w, a.quarter(k)))) })
		return int(c.Load())
	case 9, 10:
		var c atomic.Int64
		ForRange(w, 0, 4, kind-9, func(w *Worker, lo, hi int) {
			for k := lo; k < hi; k++ {
				c.Add(int64(lazyBody(w, a.quarter(k))))
			}
		})
		return int(c.Load())
	case 11, 12:
		return ReduceW(w, 0, 4, 0, func(w *Worker, k int) int { return lazyBody(w, a.quarter(k)) },
			func(x, y int) int { return x + y })
	case 13:
		if w.Inline() {
			return lazyBody(w, l) + lazyBody(w, r)
		}
	case 14:
		if n < 64 {
			return Invoke(w.Pool(), func(w *Worker) int {
				x, y := lazyFunc.Join(w, l, r)
				return x + y
			})
		}
	}
	x, y := lazyFunc.Join(w, l, r)
	return x + y
}

// TestLazyForksRunOnce counts every leaf of a recursion that forks through
// every primitive (lazyBody), in every work-stealing configuration, with
// the normal heartbeat and with a promotion at every fork.
func TestLazyForksRunOnce(t *testing.T) {
	leaves := 1 << 14
	if testing.Short() {
		leaves = 1 << 11
	}
	for _, every := range []bool{false, true} {
		for _, steal := range []StealPolicy{StealHalf, StealOne} {
			for _, workers := range []int{1, 2, 3, 4, 8} {
				t.Run(fmt.Sprintf("every=%v/%v/workers=%d", every, steal, workers), func(t *testing.T) {
					if every {
						promoteEveryFork(t)
					}
					p := New(Workers(workers), WithSteal(steal))
					for range 3 {
						runs := make([]atomic.Int32, leaves)
						Run(p, func(w *Worker) { lazyFunc.Call(w, lazyArg{0, leaves, runs, -1, nil, nil, nil}) })
						checkOnce(t, runs)
					}
					p.Close()
					checkNoFrames(t, p)
					t.Logf("%d frames promoted; %+v", promotions(p), p.Stats())
					if n := promotions(p); n < 3 || every && n < uint64(leaves)/8 {
						t.Errorf("%d frames promoted in 3 runs; the test does not exercise promotion", n)
					}
				})
			}
		}
	}
}

func checkNoFrames(t *testing.T, p *Pool) {
	t.Helper()
	for _, w := range p.workers {
		if w.nframes != 0 || w.promoteAt != 0 {
			t.Errorf("worker %d left nframes, promoteAt = %d, %d; want 0, 0", w.id, w.nframes, w.promoteAt)
		}
		for d := range w.frames {
			if fr := &w.frames[d]; fr.j != nil && fr.ops != nil {
				if l, ok := fr.ops.(*loopJob); ok && (l.each != nil || l.rng != nil || l.pieces != nil) {
					t.Errorf("worker %d: frame %d's loop record still holds its body", w.id, d)
				}
				if s, ok := fr.ops.(*closureSpawn); ok && (slices.ContainsFunc(s.tasks[:], func(f func(*Worker)) bool { return f != nil }) || s.scope != nil) {
					t.Errorf("worker %d: frame %d's spawn record still holds its tasks", w.id, d)
				}
			}
		}
	}
}

// TestLazyPanicWaitsForPromoted panics at one leaf of lazyBody's recursion,
// every fork promoted: the panic reaches Invoke as a *PanicError only after
// every leaf that started has finished, and leaves no frame behind.
func TestLazyPanicWaitsForPromoted(t *testing.T) {
	promoteEveryFork(t)
	const leaves = 1 << 10
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p := New(Workers(workers))
			for _, bad := range []int{0, 1, 5, leaves / 3, leaves - 1} {
				var started, finished atomic.Int64
				runs := make([]atomic.Int32, leaves)
				v := func() (v any) {
					defer func() { v = recover() }()
					Run(p, func(w *Worker) { lazyFunc.Call(w, lazyArg{0, leaves, runs, bad, &started, &finished, nil}) })
					return nil
				}()
				if pe, ok := v.(*PanicError); !ok || pe.Value != "bad leaf" {
					t.Fatalf("bad=%d: Run panicked with %#v, want a *PanicError of \"bad leaf\"", bad, v)
				}
				if s, f := started.Load(), finished.Load(); s != f {
					t.Errorf("bad=%d: the panic reached Run with %d leaves started, %d finished", bad, s, f)
				}
				for i := range runs {
					if n := runs[i].Load(); n > 1 {
						t.Fatalf("bad=%d: leaf %d ran %d times", bad, i, n)
					}
				}
			}
			runs := make([]atomic.Int32, leaves)
			Run(p, func(w *Worker) { lazyFunc.Call(w, lazyArg{0, leaves, runs, -1, nil, nil, nil}) })
			checkOnce(t, runs)
			p.Close()
			checkNoFrames(t, p)
		})
	}
}

// TestLazyRecoveredPanic recovers, inside the task, panics that went through
// lazy frames of every kind, then forks on: the frames the panic left are
// dropped at the task's end, and the later forks run once.
func TestLazyRecoveredPanic(t *testing.T) {
	const leaves = 1 << 9
	for _, workers := range []int{1, 2} {
		p := New(Workers(workers))
		for _, bad := range []int{3, leaves / 2} {
			var started, finished atomic.Int64
			after := make([]atomic.Int32, leaves)
			Run(p, func(w *Worker) {
				for range 2 {
					func() {
						defer func() { recover() }()
						lazyFunc.Call(w, lazyArg{0, leaves, make([]atomic.Int32, leaves), bad, &started, &finished, nil})
					}()
				}
				lazyFunc.Call(w, lazyArg{0, leaves, after, -1, nil, nil, nil})
			})
			checkOnce(t, after)
		}
		p.Close()
		checkNoFrames(t, p)
	}
}

// TestLazyForksStopWhenCanceled cancels an invocation whose task forks
// through every primitive: the recursion stops soon after, whatever the
// primitive it is in (each sees the cancellation at its next heartbeat
// check, and then at every fork).
func TestLazyForksStopWhenCanceled(t *testing.T) {
	for _, workers := range []int{1, 2} {
		p := New(Workers(workers))
		const leaves, stopAt = 1 << 20, 1000
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Int64
		onLeaf := func(w *Worker) {
			if ran.Add(1) == stopAt {
				cancel()
				for !w.Canceled() {
					runtime.Gosched()
				}
			}
		}
		runs := make([]atomic.Int32, leaves)
		_, err := InvokeContext(ctx, p, func(w *Worker) int {
			return lazyFunc.Call(w, lazyArg{0, leaves, runs, -1, nil, nil, onLeaf})
		})
		p.Close()
		if err != context.Canceled {
			t.Errorf("%d workers: InvokeContext returned %v, want context.Canceled", workers, err)
		}
		// What was forked before the cancellation was seen may still
		// reach a leaf or two per pending frame.
		if n := ran.Load(); n > stopAt+4096 {
			t.Errorf("%d workers: %d leaves ran after cancelling at leaf %d of %d", workers, n, stopAt, leaves)
		}
		checkNoFrames(t, p)
	}
}

// TestLateJoinOfSettledFork joins handles after the task that forked them
// ended, which ran them (settleFrames): the late Join gets the result.
func TestLateJoinOfSettledFork(t *testing.T) {
	p := New(Workers(1))
	defer p.Close()
	got := Invoke(p, func(w *Worker) int {
		var h Forked[int, int]
		var f Future[int]
		Scope(w, func(s *S) {
			s.Go(func(w *Worker) {
				h = fibJoinInternal.Fork(w, 12)
				f = Spawn(w, func(w *Worker) int { return fibJoinInternal.Call(w, 13) })
			})
		})
		return h.Join(w) + f.Join(w)
	})
	if want := 144 + 233; got != want {
		t.Errorf("late Joins = %d, want %d", got, want)
	}
}

// TestInlineBesideFork checks that Worker.Inline says true in a recursion
// that forks its children with Func.Fork (it never did: forks were eager
// and left no frame), and that the recursion counts right.
func TestInlineBesideFork(t *testing.T) {
	p := New(Workers(1))
	defer p.Close()
	var trues int
	var f *Func[int, int]
	f = NewFunc(func(w *Worker, depth int) int {
		if depth == 0 {
			return 1
		}
		var hs [3]Forked[int, int]
		n, sum := 0, 0
		for range 3 {
			if w.Inline() {
				trues++
				sum += f.Call(w, depth-1)
				continue
			}
			hs[n] = f.Fork(w, depth-1)
			n++
		}
		for k := range n {
			sum += hs[k].Join(w)
		}
		return sum
	})
	if got := Invoke(p, func(w *Worker) int { return f.Call(w, 9) }); got != 19683 {
		t.Errorf("3^9 leaves counted %d", got)
	}
	if trues == 0 {
		t.Error("Inline never said true beside Func.Fork")
	}
}

// TestInlineSpawnEndsAsATask checks the end of a spawn that its Future's
// Join runs inline (never promoted): when the spawned task panics or calls
// runtime.Goexit, the spawn it left unjoined runs before the panic reaches
// the spawning task, the panic arrives there as a *PanicError, and no frame
// is left behind, whether the joined frame was the top one or had a
// sibling's above it.
func TestInlineSpawnEndsAsATask(t *testing.T) {
	p := New(Workers(1)) // nobody steals: every spawn runs inline
	defer p.Close()
	for _, exit := range []string{"panic", "goexit"} {
		for _, sibling := range []bool{false, true} {
			var grandchild atomic.Bool
			var (
				msg            string
				frames, promos int
			)
			v := func() (v any) {
				defer func() { v = recover() }()
				Run(p, func(w *Worker) {
					Spawn(w, func(*Worker) int { return 0 }).Join(w) // the task's first fork is offered at once
					base, pr := w.nframes, w.nPromoted
					f := Spawn(w, func(w *Worker) int {
						Spawn(w, func(*Worker) int { grandchild.Store(true); return 0 }) // left unjoined
						if exit == "goexit" {
							runtime.Goexit()
						}
						panic("child")
					})
					var g Future[int]
					if sibling {
						g = Spawn(w, func(*Worker) int { return 7 })
					}
					defer func() {
						frames, promos = w.nframes-base, int(w.nPromoted-pr)
						if !grandchild.Load() {
							msg = "the child's unjoined spawn had not run when the child's end reached the spawner"
						}
					}()
					func() {
						defer func() {
							v := recover()
							if pe, ok := v.(*PanicError); exit == "panic" && (!ok || pe.Value != "child") {
								msg = fmt.Sprintf("Join re-raised %T %v, want a *PanicError of \"child\"", v, v)
							}
						}()
						f.Join(w)
					}()
					if sibling && g.Join(w) != 7 {
						msg = "the sibling's Join lost its result"
					}
				})
				return nil
			}()
			name := fmt.Sprintf("%s, sibling %v", exit, sibling)
			if exit == "goexit" {
				if pe, ok := v.(*PanicError); !ok || pe.Value != ErrGoexit {
					t.Errorf("%s: Run panicked with %#v, want a *PanicError about Goexit", name, v)
				}
			} else if v != nil {
				t.Errorf("%s: Run panicked with %v", name, v)
			}
			if msg != "" {
				t.Errorf("%s: %s", name, msg)
			}
			if exit == "goexit" {
				frames = 0 // the exit goes on unwinding: the sibling's frame is Run's to end
			}
			if frames != 0 || promos != 0 {
				t.Errorf("%s: %d frames left, %d promoted; want 0 and 0 (the inline path)", name, frames, promos)
			}
		}
	}
}

// spawnTree is a tree of n nodes in which node i has the children
// fanout*i+1 .. fanout*i+fanout (those below n), walked by spawning every
// child into one scope from its parent's task, as the tree walks do.
type spawnTree struct {
	s      *S
	n      int
	fanout int
	runs   []atomic.Int32

	// Optional: every forkEvery-th node also forks a leaf after its first
	// child and leaves it unjoined (its task's end runs it), counted in
	// forked; the node panicAt panics once it has spawned its children.
	forkEvery int
	forked    []atomic.Int32
	panicAt   int
}

var spawnTreeFunc *Func[spawnTreeArg, struct{}]

func init() {
	spawnTreeFunc = NewFunc(func(w *Worker, a spawnTreeArg) struct{} {
		a.t.visit(w, a.i, true)
		return struct{}{}
	})
}

type spawnTreeArg struct {
	t *spawnTree
	i int
}

// spawnTreeLeaf counts a node's unjoined fork.
var spawnTreeLeaf = NewFunc(func(_ *Worker, a spawnTreeArg) struct{} {
	a.t.forked[a.i].Add(1)
	return struct{}{}
})

func (t *spawnTree) visit(w *Worker, i int, useFunc bool) {
	t.runs[i].Add(1)
	for c := t.fanout*i + 1; c <= t.fanout*i+t.fanout && c < t.n; c++ {
		if useFunc {
			spawnTreeFunc.Go(t.s, spawnTreeArg{t, c})
		} else {
			t.s.Go(func(w *Worker) { t.visit(w, c, false) })
		}
		if c == t.fanout*i+1 && t.forkEvery > 0 && i%t.forkEvery == 0 {
			spawnTreeLeaf.Fork(w, spawnTreeArg{t, i}) // a fork frame between two runs
		}
	}
	if i == t.panicAt && t.panicAt > 0 {
		panic(errTreeNode)
	}
}

var errTreeNode = errors.New("spawn tree node panics")

// TestSpawnRunsRunOnce walks trees whose nodes spawn their children into
// one scope (runs of up to spawnBatch spawns, settled depth first, promoted
// half at a time), with S.Go and Func.Go, wide and narrow, with the normal
// heartbeat and a promotion at every fork: every node runs exactly once,
// and no frame is left.
func TestSpawnRunsRunOnce(t *testing.T) {
	n := 1 << 14
	if testing.Short() {
		n = 1 << 11
	}
	for _, every := range []bool{false, true} {
		for _, useFunc := range []bool{false, true} {
			for _, fanout := range []int{1, 3, spawnBatch + 5} {
				for _, workers := range []int{1, 2, 4} {
					name := fmt.Sprintf("every=%v/func=%v/fanout=%d/workers=%d", every, useFunc, fanout, workers)
					t.Run(name, func(t *testing.T) {
						if every {
							promoteEveryFork(t)
						}
						size := n
						if fanout == 1 {
							size = 2 * lazyDepth // a chain: one frame, reused
						}
						p := New(Workers(workers))
						for range 3 {
							tr := &spawnTree{n: size, fanout: fanout, runs: make([]atomic.Int32, size)}
							Run(p, func(w *Worker) {
								Scope(w, func(s *S) {
									tr.s = s
									tr.visit(w, 0, useFunc)
								})
							})
							checkOnce(t, tr.runs)
						}
						p.Close()
						checkNoFrames(t, p)
					})
				}
			}
		}
	}
}

// TestSpawnRunsSettleAroundForksAndPanics walks spawn trees whose tasks
// leave unjoined forks between their runs, so that the settle meets fork
// frames among the runs of one recursion, and whose one node panics after
// spawning its children: every node and every fork still runs exactly
// once, the scope re-raises the panic, and no frame is left.
func TestSpawnRunsSettleAroundForksAndPanics(t *testing.T) {
	n := 1 << 13
	if testing.Short() {
		n = 1 << 11
	}
	for _, every := range []bool{false, true} {
		for _, useFunc := range []bool{false, true} {
			for _, workers := range []int{1, 2, 4} {
				name := fmt.Sprintf("every=%v/func=%v/workers=%d", every, useFunc, workers)
				t.Run(name, func(t *testing.T) {
					if every {
						promoteEveryFork(t)
					}
					p := New(Workers(workers))
					for _, panicAt := range []int{0, 5, n / 2} {
						tr := &spawnTree{n: n, fanout: 3, runs: make([]atomic.Int32, n),
							forkEvery: 4, forked: make([]atomic.Int32, n), panicAt: panicAt}
						v := func() (v any) {
							defer func() { v = recover() }()
							Run(p, func(w *Worker) {
								Scope(w, func(s *S) {
									tr.s = s
									tr.visit(w, 0, useFunc)
								})
							})
							return nil
						}()
						if pe, ok := v.(*PanicError); panicAt > 0 && (!ok || pe.Value != errTreeNode) {
							t.Errorf("panicAt=%d: Run panicked with %v, want a *PanicError of the node's", panicAt, v)
						} else if panicAt == 0 && v != nil {
							t.Errorf("Run panicked with %v", v)
						}
						checkOnce(t, tr.runs)
						for i := range tr.forked {
							if want := int32(boolInt(i%tr.forkEvery == 0 && tr.fanout*i+1 < n)); tr.forked[i].Load() != want {
								t.Errorf("panicAt=%d: node %d's fork ran %d times, want %d", panicAt, i, tr.forked[i].Load(), want)
								break
							}
						}
					}
					p.Close()
					checkNoFrames(t, p)
				})
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTaskEndSettlesOnlyItsOwnRuns: a task's end (here a Future's task,
// joined inline) settles the runs above its mark and stops there, even
// where the run just below, its spawner's, is of the same kind, Func and
// scope. The spawner's spawns wait for the spawner's end: run inside its
// Join they would run while it holds whatever it holds across the Join.
func TestTaskEndSettlesOnlyItsOwnRuns(t *testing.T) {
	hp := heartbeatPeriod
	heartbeatPeriod = time.Hour // nothing is promoted but the offered first spawn
	t.Cleanup(func() { heartbeatPeriod = hp })
	p := New(Workers(1))
	defer p.Close()
	for _, useFunc := range []bool{false, true} {
		var outer, inner atomic.Int32
		spawn := func(s *S, c *atomic.Int32) {
			if useFunc {
				spawnCountFunc.Go(s, c)
			} else {
				s.Go(func(*Worker) { c.Add(1) })
			}
		}
		Run(p, func(w *Worker) {
			Scope(w, func(s *S) {
				spawn(s, &outer) // offered to thieves at once
				for range 3 {
					spawn(s, &outer) // a run on top
				}
				f := Spawn(w, func(w *Worker) int {
					spawn(s, &inner)
					return 0
				})
				f.Join(w)
				if n := outer.Load(); inner.Load() != 1 || n != 0 {
					t.Errorf("func=%v: at the Join's return the task's spawn ran %d times, its spawner's %d; want 1 and 0",
						useFunc, inner.Load(), n)
				}
			})
		})
		if outer.Load() != 4 {
			t.Errorf("func=%v: the spawner's spawns ran %d times, want 4", useFunc, outer.Load())
		}
	}
}

var spawnCountFunc = NewFunc(func(_ *Worker, c *atomic.Int32) struct{} {
	c.Add(1)
	return struct{}{}
})
