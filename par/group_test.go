package par_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
	"go.uber.org/goleak"
	"golang.org/x/sync/errgroup"
)

// treeNodes is the number of nodes of a tree of the given branching and
// depth (depth 0: the root alone).
func treeNodes(branch, depth int) int64 {
	n, level := int64(0), int64(1)
	for range depth + 1 {
		n += level
		level *= int64(branch)
	}
	return n
}

// goTree spawns, with g.Go, a function per node of a tree: each function
// spawns its children from inside itself.
func goTree(g *par.Group, branch, depth int, count *atomic.Int64) {
	g.Go(func() error {
		count.Add(1)
		if depth > 0 {
			for range branch {
				goTree(g, branch, depth-1, count)
			}
		}
		return nil
	})
}

// waitTree walks the same tree with a group per node, each waited for by
// its node.
func waitTree(branch, depth int, count *atomic.Int64) error {
	count.Add(1)
	var g par.Group
	if depth > 0 {
		for range branch {
			g.Go(func() error { return waitTree(branch, depth-1, count) })
		}
	}
	return g.Wait()
}

// noLeaks, deferred as defer noLeaks(t)(), fails the test if it left a
// goroutine behind other than pools' workers (the default pool's, which
// GOMAXPROCS changes replace, and those of pools the test's cleanup
// closes).
func noLeaks(t *testing.T) func() {
	before := goleak.IgnoreCurrent()
	return func() {
		goleak.VerifyNone(t, before, goleak.IgnoreAnyFunction("github.com/fjkit/fjkit/forkjoin.(*Worker).loop"),
			goleak.IgnoreAnyFunction("github.com/fjkit/fjkit/forkjoin.(*Pool).monitorLoop"))
	}
}

// oneWorker sets GOMAXPROCS to 1 for the test, which sizes the default pool
// to one worker.
func oneWorker(t *testing.T) {
	if os.Getenv("FJKIT_WORKERS") != "" {
		t.Skip("FJKIT_WORKERS sizes the default pool")
	}
	old := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// TestGroupRecursionOneWorker spawns a tree 10 levels deep through Go from
// inside the group's functions, with Wait at the root only, and again with
// a group per node, on pools of one worker: from outside any pool (the
// default pool, at GOMAXPROCS 1) and from a task of a one-worker pool.
// errgroup with SetLimit(1) would deadlock on either.
func TestGroupRecursionOneWorker(t *testing.T) {
	oneWorker(t)
	defer noLeaks(t)()
	const branch = 3
	depth := 10
	if strandMode() {
		depth = 8 // a goroutine per node; the scheduler run (FJKIT_RACE=scheduler) takes the full tree
	}
	want := treeNodes(branch, depth)
	p := newPool(t, 1)
	for _, where := range []string{"outside", "task"} {
		inPlace := func(fn func()) {
			if where == "task" {
				forkjoin.Run(p, func(*forkjoin.Worker) { fn() })
			} else {
				fn()
			}
		}
		var count atomic.Int64
		inPlace(func() {
			g, _ := par.WithContext(context.Background())
			goTree(g, branch, depth, &count)
			if err := g.Wait(); err != nil {
				t.Errorf("%s: Wait at the root = %v", where, err)
			}
		})
		if count.Load() != want {
			t.Errorf("%s, Wait at the root: %d functions ran, want %d", where, count.Load(), want)
		}
		count.Store(0)
		inPlace(func() {
			if err := waitTree(branch, depth, &count); err != nil {
				t.Errorf("%s: nested Waits = %v", where, err)
			}
		})
		if count.Load() != want {
			t.Errorf("%s, a group per node: %d nodes walked, want %d", where, count.Load(), want)
		}
	}
}

// TestGroupRecursionManyWorkers is the same walk on more workers than
// cores, checking that each function runs once and that the work spreads.
func TestGroupRecursionManyWorkers(t *testing.T) {
	if strandMode() {
		t.Skip("strand mode runs each piece on a goroutine of its own, not on the workers")
	}
	p := newPool(t, 4)
	const branch, depth = 2, 14
	var count atomic.Int64
	used := make([]atomic.Bool, 4+forkjoin.MaxSpares) // spares, if the pool lends any, have IDs from 4 on
	forkjoin.Run(p, func(*forkjoin.Worker) {
		var g par.Group
		g.Go(binaryTree(&g, depth, func() {
			count.Add(1)
			used[forkjoin.Current().ID()].Store(true)
			spin(2000)
		}))
		if err := g.Wait(); err != nil {
			t.Error(err)
		}
	})
	if count.Load() != treeNodes(branch, depth) {
		t.Fatalf("%d functions ran, want %d", count.Load(), treeNodes(branch, depth))
	}
	if n := countTrue(used); n < 2 {
		t.Errorf("the functions ran on %d of 4 workers", n)
	}
}

// binaryTree returns the function of the root of a binary tree of the given
// depth, for g: each node's function calls visit (if not nil), then spawns
// its two children with g.Go.
func binaryTree(g *par.Group, depth int, visit func()) func() error {
	return func() error {
		if visit != nil {
			visit()
		}
		if depth > 0 {
			g.Go(binaryTree(g, depth-1, visit))
			g.Go(binaryTree(g, depth-1, visit))
		}
		return nil
	}
}

// countTrue returns how many of bs are set.
func countTrue(bs []atomic.Bool) int {
	n := 0
	for i := range bs {
		if bs[i].Load() {
			n++
		}
	}
	return n
}

// TestGroupFirstErrorCancels fails one function deep in a tree: Wait
// returns its error, the context is canceled with it as the cause, and
// functions that check the context after the failure stop the tree.
func TestGroupFirstErrorCancels(t *testing.T) {
	errBad := errors.New("bad node")
	for _, where := range []string{"outside", "task"} {
		var count, after atomic.Int64
		var failed atomic.Bool
		run := func() {
			g, ctx := par.WithContext(context.Background())
			var node func(depth int) func() error
			node = func(depth int) func() error {
				return func() error {
					if ctx.Err() != nil {
						return nil // as errgroup's functions do: the group runs every function given to Go
					}
					if failed.Load() {
						after.Add(1)
					}
					if count.Add(1) == 500 {
						failed.Store(true)
						return errBad
					}
					if depth > 0 {
						g.Go(node(depth - 1))
						g.Go(node(depth - 1))
					}
					return nil
				}
			}
			g.Go(node(16))
			if err := g.Wait(); !errors.Is(err, errBad) {
				t.Errorf("%s: Wait = %v, want %v", where, err, errBad)
			}
			if !errors.Is(context.Cause(ctx), errBad) {
				t.Errorf("%s: the context's cause is %v, want %v", where, context.Cause(ctx), errBad)
			}
		}
		if where == "task" {
			forkjoin.Run(newPool(t, 2), func(*forkjoin.Worker) { run() })
		} else {
			run()
		}
		// Functions already past their check when the error came may
		// still count; a whole tree (131071 nodes) must not.
		if n := count.Load(); n > 5000 || after.Load() > 1000 {
			t.Errorf("%s: %d functions ran, %d of them after the error", where, n, after.Load())
		}
	}
}

// TestGroupBlockedFunctionWakes starts a function that waits on the
// group's context and one that fails: the first must return, and Wait with
// it. It needs two workers.
func TestGroupBlockedFunctionWakes(t *testing.T) {
	errBad := errors.New("bad")
	p := newPool(t, 2)
	for _, where := range []string{"outside", "task"} {
		run := func() {
			g, ctx := par.WithContext(context.Background())
			g.Go(func() error { <-ctx.Done(); return ctx.Err() })
			g.Go(func() error { time.Sleep(time.Millisecond); return errBad })
			if err := g.Wait(); !errors.Is(err, errBad) {
				t.Errorf("%s: Wait = %v, want %v", where, err, errBad)
			}
		}
		if where == "task" {
			forkjoin.Run(p, func(*forkjoin.Worker) { run() })
		} else if runtime.GOMAXPROCS(0) > 1 && os.Getenv("FJKIT_WORKERS") == "" {
			run()
		}
	}
}

// TestGroupPanic panics in one function of many: Wait re-raises it as a
// *forkjoin.PanicError naming the panicking line, only once every other
// function has returned.
func TestGroupPanic(t *testing.T) {
	defer noLeaks(t)()
	var running atomic.Int64
	defer func() {
		pe, ok := recover().(*forkjoin.PanicError)
		if !ok || pe.Value != "boom" || !strings.Contains(pe.Error(), "group_test.go:") {
			t.Fatalf("Wait panicked with %v, want a *forkjoin.PanicError of boom naming group_test.go", pe)
		}
		if n := running.Load(); n != 0 {
			t.Fatalf("%d functions still running after Wait", n)
		}
	}()
	var g par.Group
	for i := range 100 {
		g.Go(func() error {
			running.Add(1)
			defer running.Add(-1)
			spin(100000)
			if i == 37 {
				panic("boom")
			}
			return nil
		})
	}
	g.Wait()
}

// TestGroupParentCanceled cancels the parent context before the functions
// start: as errgroup's, every function runs, sees the context done, and
// Wait returns their error.
func TestGroupParentCanceled(t *testing.T) {
	for _, where := range []string{"outside", "task"} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var ran atomic.Int64
		var err error
		run := func() {
			g, gctx := par.WithContext(ctx)
			for range 10 {
				g.Go(func() error { ran.Add(1); return gctx.Err() })
			}
			err = g.Wait()
		}
		if where == "task" {
			forkjoin.Run(newPool(t, 2), func(*forkjoin.Worker) { run() })
		} else {
			run()
		}
		if ran.Load() != 10 || !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %d functions ran and Wait = %v; want 10 and context.Canceled", where, ran.Load(), err)
		}
	}
}

// TestGroupWaitInsideItselfPanics calls Wait from one of the group's own
// functions: a clear panic instead of a deadlock.
func TestGroupWaitInsideItselfPanics(t *testing.T) {
	var g par.Group
	var site string
	g.Go(func() error {
		site = callSite(1)
		g.Wait()
		return nil
	})
	defer func() {
		// The message names the call that misused Wait, and is no task's
		// panic.
		pe, _ := recover().(*forkjoin.PanicError)
		s := fmt.Sprint(pe)
		if !strings.Contains(s, "par.Group.Wait") || !strings.Contains(s, site) || strings.Contains(s, "task panicked") {
			t.Fatalf("recovered %q, want a panic naming par.Group.Wait and %s", s, site)
		}
	}()
	g.Wait()
}

// TestGroupZeroValueReused runs a zero Group twice: a Group waited for is
// usable again.
func TestGroupZeroValueReused(t *testing.T) {
	var g par.Group
	var n atomic.Int64
	for range 2 {
		for range 50 {
			g.Go(func() error { n.Add(1); return nil })
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if n.Load() != 100 {
		t.Fatalf("%d functions ran, want 100", n.Load())
	}
}

// TestMapErrCancellation is MapErr's errgroup behaviour: a call that
// blocks on its context returns when another call fails, and MapErr
// returns that error with no results.
func TestMapErrCancellation(t *testing.T) {
	errBad := errors.New("bad element")
	p := newPool(t, 2)
	forkjoin.Run(p, func(*forkjoin.Worker) {
		r, err := par.MapErr(context.Background(), []int{0, 1}, func(ctx context.Context, x int) (int, error) {
			if x == 1 {
				return 0, errBad
			}
			<-ctx.Done()
			return 0, ctx.Err()
		})
		if r != nil || !errors.Is(err, errBad) {
			t.Errorf("MapErr = %v, %v; want nil, %v", r, err, errBad)
		}
	})
	r, err := par.MapErr(context.Background(), []int{3, 1, 4}, func(_ context.Context, x int) (string, error) {
		return strings.Repeat("x", x), nil
	})
	if err != nil || len(r) != 3 || r[0] != "xxx" || r[2] != "xxxx" {
		t.Fatalf("MapErr = %q, %v", r, err)
	}
}

// The benchmarks spawn a binary tree of 2^20-1 tiny functions, each
// spawning its children from inside itself, with par.Group and with
// errgroup (no limit: one goroutine per function). Each function's
// closure is allocated, on both sides, as a Go caller's would be; nothing
// else is shared between the functions. Run as
//
//	go test -run '^$' -bench 'GroupTree' -benchtime 5x -count 5 ./par
func BenchmarkGroupTree(b *testing.B) {
	const depth = 19
	b.Run("par.Group", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			var g par.Group
			g.Go(binaryTree(&g, depth, nil))
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("errgroup", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			var g errgroup.Group
			var node func(depth int) func() error
			node = func(depth int) func() error {
				return func() error {
					if depth > 0 {
						g.Go(node(depth - 1))
						g.Go(node(depth - 1))
					}
					return nil
				}
			}
			g.Go(node(depth))
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The cost of a Go from a task with what Wait does for it, on one worker:
// Go pushes the function, Wait pops it and runs it in its own frame. The
// function is a func value made once, and the Group is reused, so the
// figure is the group's and the scheduler's, not an allocation's.
func BenchmarkGroupGo(b *testing.B) {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	n := 0
	f := func() error { n++; return nil }
	for _, batch := range []int{1, 8} {
		b.Run("batch="+strconv.Itoa(batch), func(b *testing.B) {
			b.ReportAllocs()
			forkjoin.Run(p, func(*forkjoin.Worker) {
				var g par.Group
				for b.Loop() {
					for range batch {
						g.Go(f)
					}
					if err := g.Wait(); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/Go")
		})
	}
}

// callSite returns file:line of the line skip lines below its call.
func callSite(skip int) string {
	_, file, line, _ := runtime.Caller(1)
	return file + ":" + strconv.Itoa(line+skip)
}

// A function that calls runtime.Goexit (t.FailNow) counts as returned: the
// group's other functions run, and Wait ends its caller as a par call's
// Goexit does, an ordinary goroutine by Goexit, a task with a
// *forkjoin.PanicError of forkjoin.ErrGoexit, whichever worker ran the
// function.
func TestGroupGoexit(t *testing.T) {
	t.Run("goroutine", func(t *testing.T) {
		var ran, returned atomic.Bool
		within(t, 10*time.Second, func() {
			var g par.Group
			g.Go(func() error { runtime.Goexit(); return nil })
			g.Go(func() error { ran.Store(true); return nil })
			g.Wait()
			returned.Store(true)
		})
		if !ran.Load() || returned.Load() {
			t.Fatalf("other function ran: %v, Wait returned: %v; want true, false", ran.Load(), returned.Load())
		}
	})
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("task/workers=%d", workers), func(t *testing.T) {
			p := newPool(t, workers)
			var got any
			within(t, 10*time.Second, func() {
				defer func() { got = recover() }()
				forkjoin.Run(p, func(*forkjoin.Worker) {
					var g par.Group
					started := make(chan struct{})
					g.Go(func() error { close(started); runtime.Goexit(); return nil })
					if workers > 1 {
						<-started // the other worker runs it
					}
					g.Wait()
				})
			})
			if pe, ok := got.(*forkjoin.PanicError); !ok || pe.Value != forkjoin.ErrGoexit {
				t.Fatalf("Run raised %v, want a *forkjoin.PanicError of forkjoin.ErrGoexit", got)
			}
		})
	}
}

// A Go from a task allocates nothing of its own once the worker's records
// are warm (the function's closure is the caller's), and neither does a
// Wait that finds functions pending: the doc's cost of a Go, pinned.
func TestGroupAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	var g par.Group
	ran := 0
	f := func() error { ran++; return nil }
	forkjoin.Run(p, func(*forkjoin.Worker) {
		round := func() {
			for range 10 {
				g.Go(f)
			}
			if err := g.Wait(); err != nil {
				t.Error(err)
			}
		}
		round() // warm the records
		if a := testing.AllocsPerRun(20, round); a != 0 {
			t.Errorf("10 Go and a Wait in a task: %.1f allocations, want 0", a)
		}
	})
	if ran != 10*22 {
		t.Errorf("the functions ran %d times, want %d", ran, 10*22)
	}
}
