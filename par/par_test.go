package par_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// lengths cross the word boundaries of Filter's bit set and reach the
// parallel paths on their own (a cheap body over the longest goes
// parallel); modes reaches them on every length.
var lengths = []int{1, 2, 3, 7, 63, 64, 65, 100, 4095, 4097, 50000, 1<<17 + 3}

// modes runs test as the calls decide for themselves, and with every call
// of more than one unit forced onto the pool after its first unit, in
// pieces of 7 units.
func modes(t *testing.T, test func(t *testing.T)) {
	t.Run("auto", test)
	t.Run("parallel", func(t *testing.T) {
		defer par.ForceParallel(7)()
		test(t)
	})
}

// inputs returns the named input shapes of every test: random, sorted,
// reversed, all equal, empty and nil, the first four at every length.
func inputs(t *testing.T) map[string][]int {
	in := map[string][]int{"empty": {}, "nil": nil}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range lengths {
		if testing.Short() && n > 1<<16 && runtime.GOMAXPROCS(0) == 1 {
			continue
		}
		random := make([]int, n)
		for i := range random {
			random[i] = r.IntN(2*n) - n
		}
		sorted := slices.Clone(random)
		slices.Sort(sorted)
		reversed := slices.Clone(sorted)
		slices.Reverse(reversed)
		equal := make([]int, n)
		for i := range equal {
			equal[i] = 42
		}
		in[fmt.Sprintf("random/%d", n)] = random
		in[fmt.Sprintf("sorted/%d", n)] = sorted
		in[fmt.Sprintf("reversed/%d", n)] = reversed
		in[fmt.Sprintf("equal/%d", n)] = equal
	}
	return in
}

func TestMapMatchesLoop(t *testing.T) {
	modes(t, func(t *testing.T) {
		for name, s := range inputs(t) {
			f := func(x int) string { return strconv.Itoa(x * 3) }
			want := make([]string, len(s))
			for i, x := range s {
				want[i] = f(x)
			}
			if diff := diff(want, par.Map(s, f)); diff != "" {
				t.Errorf("%s: Map (-want +got):\n%s", name, diff)
			}
		}
	})
}

// concatMax bounds the inputs of the tests that concatenate strings, whose
// cost grows with the square of the length; it is still long enough for the
// parallel path.
const concatMax = 5000

// TestReduceNonCommutative folds with string concatenation, which is
// associative but not commutative: any piece combined out of order shows.
func TestReduceNonCommutative(t *testing.T) {
	modes(t, func(t *testing.T) {
		for name, s := range inputs(t) {
			s = s[:min(len(s), concatMax)]
			mapf := func(x int) string { return strconv.Itoa(x) + "," }
			concat := func(a, b string) string { return a + b }
			var want strings.Builder
			for _, x := range s {
				want.WriteString(mapf(x))
			}
			if got := par.Reduce(s, "", mapf, concat); got != want.String() {
				t.Errorf("%s: Reduce = %.60q..., want %.60q...", name, got, want.String())
			}
			sum := par.Reduce(s, 0, func(x int) int { return x }, func(a, b int) int { return a + b })
			wantSum := 0
			for _, x := range s {
				wantSum += x
			}
			if sum != wantSum {
				t.Errorf("%s: Reduce sum = %d, want %d", name, sum, wantSum)
			}
		}
	})
}

func TestFilterMatchesLoop(t *testing.T) {
	modes(t, func(t *testing.T) {
		for name, s := range inputs(t) {
			for _, keep := range []func(int) bool{
				func(x int) bool { return x%3 == 0 },
				func(int) bool { return true },
				func(int) bool { return false },
			} {
				var want []int
				for _, x := range s {
					if keep(x) {
						want = append(want, x)
					}
				}
				var calls atomic.Int64
				got := par.Filter(s, func(x int) bool { calls.Add(1); return keep(x) })
				if diff := diff(want, got); diff != "" {
					t.Errorf("%s: Filter (-want +got):\n%s", name, diff)
				}
				if int(calls.Load()) != len(s) {
					t.Errorf("%s: keep called %d times, want once per element (%d)", name, calls.Load(), len(s))
				}
			}
		}
	})
}

// TestScanNonCommutative scans with string concatenation: every prefix
// must be exactly the concatenation of the elements up to it, in order.
func TestScanNonCommutative(t *testing.T) {
	modes(t, func(t *testing.T) {
		for name, s := range inputs(t) {
			s = s[:min(len(s), concatMax)]
			strs := par.Map(s, func(x int) string { return strconv.Itoa(x % 10) })
			concat := func(a, b string) string { return a + b }
			want := make([]string, len(strs))
			acc := ""
			for i, x := range strs {
				acc += x
				want[i] = acc
			}
			if diff := diff(want, par.Scan(strs, concat)); diff != "" {
				t.Errorf("%s: Scan of strings (-want +got):\n%.2000s", name, diff)
			}
		}
		for name, s := range inputs(t) {
			want := make([]int, len(s))
			acc := 0
			for i, x := range s {
				acc += x
				want[i] = acc
			}
			if diff := diff(want, par.Scan(s, func(a, b int) int { return a + b })); diff != "" {
				t.Errorf("%s: Scan sum (-want +got):\n%.2000s", name, diff)
			}
		}
	})
}

func TestIndexFuncAndContainsFuncMatchSlices(t *testing.T) {
	modes(t, func(t *testing.T) {
		for name, s := range inputs(t) {
			for _, v := range []int{42, 0, -1, 7, 1 << 40} {
				f := func(x int) bool { return x == v }
				if got, want := par.IndexFunc(s, f), slices.IndexFunc(s, f); got != want {
					t.Errorf("%s: IndexFunc(== %d) = %d, want %d", name, v, got, want)
				}
				if got, want := par.ContainsFunc(s, f), slices.ContainsFunc(s, f); got != want {
					t.Errorf("%s: ContainsFunc(== %d) = %v, want %v", name, v, got, want)
				}
			}
		}
	})
}

// TestIndexFuncLowestAndEarly puts hits at several places in a long
// slice: IndexFunc must return the lowest, and stop long before testing
// every element. Workers descheduled at the wrong moment can make one run
// test many elements, so the early stop is asked of the best of five runs.
func TestIndexFuncLowestAndEarly(t *testing.T) {
	const n = 1 << 20
	s := make([]int, n)
	for _, i := range []int{5, 1000, n / 2, n/2 + 1, n - 1} {
		s[i] = 1
	}
	best, bestC := int64(n), int64(n)
	for range 5 {
		var calls atomic.Int64
		got := par.IndexFunc(s, func(x int) bool { calls.Add(1); return x == 1 })
		if got != 5 {
			t.Fatalf("IndexFunc = %d, want 5", got)
		}
		best = min(best, calls.Load())
		calls.Store(0)
		if !par.ContainsFunc(s, func(x int) bool { calls.Add(1); return x == 1 }) {
			t.Fatal("ContainsFunc = false")
		}
		bestC = min(bestC, calls.Load())
	}
	if best > n/8 || bestC > n/8 {
		t.Errorf("IndexFunc called f %d times, ContainsFunc %d, at best, for hits from index 5 of %d: they did not stop early", best, bestC, n)
	}
	// Serially too (a short slice), where f is called on at most three
	// elements past the answer. (Strand mode runs every call in parallel
	// strands.)
	if strandMode() {
		return
	}
	var calls int
	if got := par.IndexFunc(s[:100], func(x int) bool { calls++; return x == 1 }); got != 5 || calls < 6 || calls > 9 {
		t.Errorf("serial IndexFunc = %d after %d calls, want 5 after 6 to 9", got, calls)
	}
}

// TestForEveryIndexOnce counts, per index, the calls of For's and
// ForRange's bodies.
func TestForEveryIndexOnce(t *testing.T) {
	modes(t, func(t *testing.T) {
		for _, n := range []int{-1, 0, 1, 2, 3, 100, 100000} {
			counts := make([]atomic.Int32, max(n, 0))
			par.For(n, func(i int) { counts[i].Add(1) })
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("For(%d): index %d ran %d times", n, i, c)
				}
			}
			counts = make([]atomic.Int32, max(n, 0))
			par.ForRange(n, func(lo, hi int) {
				if lo >= hi {
					t.Errorf("ForRange(%d): empty piece [%d, %d)", n, lo, hi)
				}
				for i := lo; i < hi; i++ {
					counts[i].Add(1)
				}
			})
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("ForRange(%d): index %d ran %d times", n, i, c)
				}
			}
		}
	})
}

func TestForErrNilWhenAllSucceed(t *testing.T) {
	for _, n := range []int{0, 1, 2, 1000} {
		var ran atomic.Int64
		err := par.ForErr(context.Background(), n, func(ctx context.Context, i int) error {
			ran.Add(1)
			if ctx.Err() != nil {
				t.Errorf("body %d: ctx done before any error: %v", i, ctx.Err())
			}
			return nil
		})
		if err != nil || ran.Load() != int64(n) {
			t.Errorf("ForErr(n=%d) = %v after %d bodies, want nil after %d", n, err, ran.Load(), n)
		}
	}
}

// TestForErrFirstErrorCancelsRest fails one body early in a long loop: the
// error must come back, the bodies' context must be canceled with it as
// cause, and most bodies must never start.
func TestForErrFirstErrorCancelsRest(t *testing.T) {
	const n = 100000
	boom := errors.New("boom")
	// A worker descheduled at the wrong moment lets the others run many
	// bodies before they see the error, so the early stop is asked of the
	// best of five runs.
	best := int64(n)
	for range 5 {
		var ran atomic.Int64
		err := par.ForErr(context.Background(), n, func(ctx context.Context, i int) error {
			ran.Add(1)
			if i == 10 {
				return fmt.Errorf("body %d: %w", i, boom)
			}
			if ctx.Err() != nil && !errors.Is(context.Cause(ctx), boom) {
				t.Errorf("body %d: cause %v, want boom", i, context.Cause(ctx))
			}
			return nil
		})
		if !errors.Is(err, boom) {
			t.Fatalf("ForErr = %v, want boom", err)
		}
		best = min(best, ran.Load())
	}
	if best >= n/2 {
		t.Errorf("%d of %d bodies ran at best after the first error, want the rest canceled", best, n)
	}
	// Several errors: ForErr returns one of them, the first recorded.
	err := par.ForErr(context.Background(), 1000, func(_ context.Context, i int) error {
		return fmt.Errorf("e%d", i)
	})
	if err == nil || !strings.HasPrefix(err.Error(), "e") {
		t.Errorf("ForErr with every body failing = %v", err)
	}
}

func TestForErrParentCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Int64
	err := par.ForErr(ctx, 1000, func(context.Context, int) error { ran.Add(1); return nil })
	if !errors.Is(err, context.Canceled) || ran.Load() != 0 {
		t.Errorf("ForErr on a canceled ctx = %v after %d bodies, want context.Canceled after 0", err, ran.Load())
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	err = par.ForErr(ctx, 100000, func(_ context.Context, i int) error {
		if i == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ForErr canceled midway = %v, want context.Canceled", err)
	}
}

// TestPanicsArePanicErrors panics in the body of every function, on a
// short (serial) and a long (parallel) input: each must re-raise a
// *forkjoin.PanicError holding the value.
func TestPanicsArePanicErrors(t *testing.T) {
	modes(t, func(t *testing.T) {
		type call struct {
			name string
			fn   func(s []int)
		}
		bad := func(x int) int {
			if x == 77 {
				panic("bad element")
			}
			return x
		}
		calls := []call{
			{"For", func(s []int) { par.For(len(s), func(i int) { bad(s[i]) }) }},
			{"ForRange", func(s []int) {
				par.ForRange(len(s), func(lo, hi int) {
					for _, x := range s[lo:hi] {
						bad(x)
					}
				})
			}},
			{"Map", func(s []int) { par.Map(s, bad) }},
			{"Reduce", func(s []int) { par.Reduce(s, 0, bad, func(a, b int) int { return a + b }) }},
			{"Filter", func(s []int) { par.Filter(s, func(x int) bool { return bad(x) > 0 }) }},
			{"Scan", func(s []int) { par.Scan(s, func(a, b int) int { return a + bad(b) }) }},
			{"IndexFunc", func(s []int) { par.IndexFunc(s, func(x int) bool { return bad(x) < 0 }) }},
			{"ContainsFunc", func(s []int) { par.ContainsFunc(s, func(x int) bool { return bad(x) < 0 }) }},
			{"SortFunc", func(s []int) { par.SortFunc(s, func(a, b int) int { return bad(a) - bad(b) }) }},
			{"SortStableFunc", func(s []int) { par.SortStableFunc(s, func(a, b int) int { return bad(a) - bad(b) }) }},
			{"ForErr", func(s []int) {
				_ = par.ForErr(context.Background(), len(s), func(_ context.Context, i int) error { bad(s[i]); return nil })
			}},
			{"MapErr", func(s []int) {
				_, _ = par.MapErr(context.Background(), s, func(_ context.Context, x int) (int, error) { return bad(x), nil })
			}},
			{"SortByKey", func(s []int) { par.SortByKey(s, bad) }},
			{"MinFunc", func(s []int) { par.MinFunc(s, func(a, b int) int { return bad(a) - bad(b) }) }},
			{"MaxFunc", func(s []int) { par.MaxFunc(s, func(a, b int) int { return bad(a) - bad(b) }) }},
			{"ForEach", func(s []int) { par.ForEach(slices.Values(s), func(x int) { bad(x) }) }},
		}
		p := newPool(t, 3)
		for _, n := range []int{100, 100000} {
			for _, c := range calls {
				s := make([]int, n)
				for i := range s {
					s[i] = n - i
				}
				s[n/3] = 77
				check := func(where string) {
					v := recover()
					pe, ok := v.(*forkjoin.PanicError)
					if !ok || pe.Value != "bad element" || len(pe.Stack) == 0 {
						t.Errorf("%s n=%d, %s: recovered %T %v, want a *forkjoin.PanicError of \"bad element\"", c.name, n, where, v, v)
					}
				}
				func() {
					defer check("outside any pool")
					c.fn(s)
				}()
				forkjoin.Run(p, func(*forkjoin.Worker) {
					defer check("from a task")
					c.fn(s)
				})
			}
		}
	})
}

func TestNilFunctionsPanic(t *testing.T) {
	for name, fn := range map[string]func(){
		"For":            func() { par.For(3, nil) },
		"ForRange":       func() { par.ForRange(3, nil) },
		"Map":            func() { par.Map[[]int, int, int]([]int{1}, nil) },
		"Reduce":         func() { par.Reduce([]int{1}, 0, nil, func(a, b int) int { return a }) },
		"Filter":         func() { par.Filter([]int{1}, nil) },
		"Scan":           func() { par.Scan([]int{1}, nil) },
		"IndexFunc":      func() { par.IndexFunc([]int{1}, nil) },
		"ContainsFunc":   func() { par.ContainsFunc([]int{1}, nil) },
		"SortFunc":       func() { par.SortFunc([]int{1}, nil) },
		"SortStableFunc": func() { par.SortStableFunc([]int{1}, nil) },
		"ForErr":         func() { _ = par.ForErr(context.Background(), 3, nil) },
		"MapErr":         func() { _, _ = par.MapErr[[]int, int, int](context.Background(), []int{1}, nil) },
		"SortByKey":      func() { par.SortByKey[[]int, int, int]([]int{1}, nil) },
		"Group.Go":       func() { new(par.Group).Go(nil) },
		"MinFunc":        func() { par.MinFunc([]int{1}, nil) },
		"MaxFunc":        func() { par.MaxFunc([]int{1}, nil) },
	} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.Contains(v, "par."+name) {
					t.Errorf("%s with a nil function: panic %q, want one naming par.%s", name, v, name)
				}
			}()
			fn()
		}()
	}
}

// TestNested calls par from inside par bodies, so that every worker of the
// default pool is inside a body when the inner calls are made: they must
// run on their calling workers, not wait for a free one.
func TestNested(t *testing.T) {
	var total atomic.Int64
	par.For(8, func(i int) {
		s := make([]int, 50000)
		for j := range s {
			s[j] = (j * 7919) % 50000
		}
		par.Sort(s)
		if !slices.IsSorted(s) {
			t.Errorf("body %d: inner Sort did not sort", i)
		}
		par.For(1000, func(int) { total.Add(1) })
	})
	if total.Load() != 8*1000 {
		t.Errorf("inner bodies ran %d times, want 8000", total.Load())
	}
}

// TestWorkersEnv runs the test binary as a child with FJKIT_WORKERS set:
// the default pool takes its size from it, and a bad value stops the
// program with a message naming the variable.
func TestWorkersEnv(t *testing.T) {
	for _, tc := range []struct {
		env, want string
		fails     bool
	}{
		{"3", "workers=3 sorted=true", false},
		{"1", "workers=1 sorted=true", false},
		{"0", fmt.Sprintf("workers=%d sorted=true", runtime.GOMAXPROCS(0)), false},
		{"many", "FJKIT_WORKERS=\"many\"", true},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		// The child gets our GOMAXPROCS, which -test.cpu may have set
		// (it is not inherited): "0" means that many workers.
		cmd.Env = append(os.Environ(), childEnv+"=1", "FJKIT_WORKERS="+tc.env,
			"GOMAXPROCS="+strconv.Itoa(runtime.GOMAXPROCS(0)))
		out, err := cmd.CombinedOutput()
		if (err != nil) != tc.fails || !strings.Contains(string(out), tc.want) {
			t.Errorf("FJKIT_WORKERS=%s: err %v, output %q; want failure %v and output containing %q", tc.env, err, out, tc.fails, tc.want)
		}
	}
}

// TestNoGonum keeps gonum (which algos needs for its matrices) out of par's
// dependencies, as go list reports them. (The test binary's build info
// cannot tell: it lists no modules.)
func TestNoGonum(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "gonum.org/") {
			t.Errorf("par depends on %s", pkg)
		}
	}
}
