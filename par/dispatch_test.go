package par_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// TestParRunsOnTheCallersPool calls par from a task of a pool of its own:
// every body, of the outer call and of calls nested in it, must run on that
// pool's workers, and the work must spread over more than one of them.
func TestParRunsOnTheCallersPool(t *testing.T) {
	if strandMode() {
		t.Skip("strand mode runs each piece on a goroutine of its own, not on the workers")
	}
	p := newPool(t, 3)
	var wrong, bodies atomic.Int64
	used := make([]atomic.Bool, 3+forkjoin.MaxSpares) // spares, if the pool lends any, have IDs from 3 on
	onP := func() {
		bodies.Add(1)
		if w := forkjoin.Current(); w == nil || w.Pool() != p {
			wrong.Add(1)
		} else {
			used[w.ID()].Store(true)
		}
	}
	forkjoin.Run(p, func(*forkjoin.Worker) {
		par.For(64, func(int) {
			onP()
			spin(20000)
			par.For(10, func(int) { onP() })
		})
		s := randomInts(1<<17, 1)
		par.Sort(s) // a parallel radix sort: its pieces are p's tasks
		if !slices.IsSorted(s) {
			t.Error("par.Sort from a task of p did not sort")
		}
		par.Map(s, func(x int) int { onP(); return x })
	})
	if n := wrong.Load(); n != 0 {
		t.Fatalf("%d of %d bodies ran outside the calling task's pool", n, bodies.Load())
	}
	if n := countTrue(used); n < 2 {
		t.Errorf("the bodies ran on %d of 3 workers", n)
	}
}

// spin burns about n iterations of CPU, so that bodies last long enough
// for idle workers to steal.
func spin(n int) int {
	x := 1
	for i := range n {
		x = x*31 + i
	}
	if n < 0 {
		spinSink = x // never: it gives spin an effect, so no call is dropped
	}
	return x
}

var spinSink int

func randomInts(n int, seed int) []int {
	s := make([]int, n)
	x := uint64(seed)*0x9E3779B97F4A7C15 | 1
	for i := range s {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		s[i] = int(x >> 1)
	}
	return s
}

// canceledCalls are par calls without an error result, each with a way to
// tell whether it did all of its work.
var canceledCalls = []struct {
	name string
	call func() (complete bool)
}{
	{"For", func() bool {
		var n atomic.Int64
		par.For(100000, func(int) { spin(100); n.Add(1) })
		return n.Load() == 100000
	}},
	{"ForRange", func() bool {
		var n atomic.Int64
		par.ForRange(100000, func(lo, hi int) { spin(100 * (hi - lo)); n.Add(int64(hi - lo)) })
		return n.Load() == 100000
	}},
	{"Map", func() bool {
		r := par.Map(make([]int, 100000), func(int) int { return 1 + spin(100)*0 })
		return !slices.Contains(r, 0)
	}},
	{"Reduce", func() bool {
		return par.Reduce(make([]int, 100000), 0, func(int) int { return 1 + spin(100)*0 }, func(a, b int) int { return a + b }) == 100000
	}},
	{"Filter", func() bool {
		return len(par.Filter(make([]int, 100000), func(int) bool { return spin(100) != 1 })) == 100000
	}},
	{"Sort", func() bool {
		s := randomInts(1<<17, 2)
		par.Sort(s)
		return slices.IsSorted(s)
	}},
	{"SortFunc", func() bool {
		s := randomInts(1<<16, 3)
		par.SortFunc(s, func(a, b int) int { return a - b })
		return slices.IsSorted(s)
	}},
	{"nested For", func() bool {
		var n atomic.Int64
		par.For(8, func(int) { par.For(10000, func(int) { spin(100); n.Add(1) }) })
		return n.Load() == 80000
	}},
}

// TestParInCanceledInvocation makes par calls in an invocation whose
// context is canceled: each must either do all of its work or panic with a
// *forkjoin.CanceledError, and InvokeContext must return the context's
// error for that panic. (Issue 24: par.For ran a quarter of its bodies,
// par.Map returned zeros and par.Sort left the slice unsorted, all with no
// sign of it.)
func TestParInCanceledInvocation(t *testing.T) {
	for _, p := range []*forkjoin.Pool{forkjoin.Default(), newPool(t, 2)} {
		testParInCanceledInvocation(t, p)
	}
}

func testParInCanceledInvocation(t *testing.T, p *forkjoin.Pool) {
	for _, c := range canceledCalls {
		for _, when := range []string{"before", "after the flag"} {
			ctx, cancel := context.WithCancel(context.Background())
			var recovered any
			completed := false
			_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
				cancel()
				for when != "before" && !w.Canceled() {
					runtime.Gosched() // the flag follows the context from another goroutine
				}
				defer func() {
					if recovered = recover(); recovered != nil {
						panic(recovered)
					}
				}()
				completed = c.call()
				return 1
			})
			var ce *forkjoin.CanceledError
			pe, _ := recovered.(*forkjoin.PanicError)
			switch {
			case recovered == nil && !completed:
				t.Errorf("%s, canceled %s the call: it returned without doing all its work", c.name, when)
			case recovered != nil && !errors.As(pe, &ce):
				t.Errorf("%s, canceled %s the call: panic %v, want a *forkjoin.CanceledError in a *forkjoin.PanicError", c.name, when, recovered)
			case !errors.Is(err, context.Canceled):
				t.Errorf("%s, canceled %s the call: InvokeContext returned %v, want context.Canceled", c.name, when, err)
			}
		}
	}
}

// TestForErrInCanceledInvocation checks that ForErr and MapErr, called from
// a task of a canceled invocation, return its context's error unless every
// body ran, and that the bodies' context is canceled with it.
func TestForErrInCanceledInvocation(t *testing.T) {
	for _, p := range []*forkjoin.Pool{forkjoin.Default(), newPool(t, 2)} {
		testForErrInCanceledInvocation(t, p)
	}
}

func testForErrInCanceledInvocation(t *testing.T, p *forkjoin.Pool) {
	for _, tc := range []struct {
		name string
		call func() (complete bool, err error)
	}{
		{"ForErr", func() (bool, error) {
			var n atomic.Int64
			err := par.ForErr(context.Background(), 100000, func(context.Context, int) error { spin(100); n.Add(1); return nil })
			return n.Load() == 100000, err
		}},
		{"MapErr", func() (bool, error) {
			r, err := par.MapErr(context.Background(), make([]int, 100000), func(context.Context, int) (int, error) { return 1 + spin(100)*0, nil })
			return len(r) == 100000 && !slices.Contains(r, 0), err
		}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var complete bool
		var err error
		forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
			cancel()
			for !w.Canceled() {
				runtime.Gosched()
			}
			complete, err = tc.call()
			return 0
		})
		if !complete && !errors.Is(err, context.Canceled) {
			t.Errorf("%s in a canceled invocation: did not do all its work, returned %v, want context.Canceled", tc.name, err)
		}
	}

	// A body blocked on its context wakes when the invocation is canceled
	// (the other body, which cancels it, needs a second worker).
	if p.Workers() < 2 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	var err error
	forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
		err = par.ForErr(context.Background(), 2, func(ctx context.Context, i int) error {
			if i == 1 {
				cancel()
			}
			<-ctx.Done()
			return ctx.Err()
		})
		return 0
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ForErr whose bodies wait on their context, in an invocation canceled meanwhile: %v, want context.Canceled", err)
	}
}

// TestParPoolFollowsGOMAXPROCS checks that par runs on a pool of
// GOMAXPROCS workers; TestParPoolUnderCPUFlag runs it under -cpu 1,2,4.
func TestParPoolFollowsGOMAXPROCS(t *testing.T) {
	defer par.ForceParallel(1)()
	procs := runtime.GOMAXPROCS(0)
	var pool atomic.Pointer[forkjoin.Pool]
	par.For(2, func(int) {
		if w := forkjoin.Current(); w != nil {
			pool.Store(w.Pool())
		}
	})
	// With one worker, par runs the bodies in the caller (in strand mode,
	// on the pool at every size).
	if p := pool.Load(); (procs > 1 || strandMode()) && (p == nil || p.Workers() != procs) || procs == 1 && p != nil && !strandMode() {
		t.Errorf("under GOMAXPROCS %d, par's bodies ran on pool %v", procs, p)
	}
	if got := forkjoin.Default().Workers(); got != procs {
		t.Errorf("forkjoin.Default() has %d workers under GOMAXPROCS %d", got, procs)
	}
}

// TestParPoolUnderCPUFlag runs TestParPoolFollowsGOMAXPROCS in a child
// process under -test.cpu=1,2,4, as go test -cpu 1,2,4 runs a benchmark.
func TestParPoolUnderCPUFlag(t *testing.T) {
	if os.Getenv("FJKIT_WORKERS") != "" {
		t.Skip("FJKIT_WORKERS sizes the default pool")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestParPoolFollowsGOMAXPROCS$", "-test.cpu=1,2,4", "-test.v")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Count(string(out), "--- PASS: TestParPoolFollowsGOMAXPROCS") != 3 {
		t.Fatalf("under -cpu 1,2,4: %v\n%s", err, out)
	}
}

// TestSetDefaultAfterAnyCall runs a child process per par function that
// makes one call too small to reach the pool, then SetDefault: it must
// report ErrDefaultMade, whatever the size.
func TestSetDefaultAfterAnyCall(t *testing.T) {
	for _, name := range []string{"Sort", "Map", "For", "SortByKey"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=setdefault:"+name)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ErrDefaultMade=true") {
			t.Errorf("SetDefault after a tiny par.%s: %v, %q; want ErrDefaultMade", name, err, out)
		}
	}
}

// setDefaultChild is the child of TestSetDefaultAfterAnyCall.
func setDefaultChild(name string) {
	s := []int{3, 1, 2}
	switch name {
	case "Sort":
		par.Sort(s)
	case "Map":
		par.Map(s, func(x int) int { return x })
	case "For":
		par.For(1, func(int) {})
	case "SortByKey":
		par.SortByKey(s, func(x int) int { return x })
	}
	err := forkjoin.SetDefault(forkjoin.Workers(3))
	fmt.Printf("ErrDefaultMade=%v\n", errors.Is(err, forkjoin.ErrDefaultMade))
}
