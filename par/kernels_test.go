package par_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// mergeInto adds b's counts to a and returns a: a combine that updates
// its first argument, as a word count's does.
func mergeInto(a, b map[string]int) map[string]int {
	for k, v := range b {
		a[k] += v
	}
	return a
}

// TestReduceMapZero is the word count that crashed with "concurrent map
// writes" when every piece folded from the one zero map: zero must be used
// for an empty input only, never combined into.
func TestReduceMapZero(t *testing.T) {
	modes(t, func(t *testing.T) {
		words := make([]string, 20000)
		want := map[string]int{}
		for i := range words {
			words[i] = "w" + strconv.Itoa(i%97)
			want[words[i]]++
		}
		zero := map[string]int{}
		got := par.Reduce(words, zero, func(w string) map[string]int { return map[string]int{w: 1} }, mergeInto)
		if !maps.Equal(got, want) {
			t.Errorf("word count differs: got %d words, want %d", len(got), len(want))
		}
		if len(zero) != 0 {
			t.Errorf("zero was written: %d entries", len(zero))
		}
		if got := par.Reduce(words[:0], zero, nil2map, mergeInto); len(got) != 0 {
			t.Errorf("Reduce of nothing = %v, want the empty zero", got)
		}
		// The same with the loop the caller's: each piece counts into a
		// map of its own.
		got = par.ReduceRange(len(words), zero, func(lo, hi int) map[string]int {
			m := map[string]int{}
			for _, w := range words[lo:hi] {
				m[w]++
			}
			return m
		}, mergeInto)
		if !maps.Equal(got, want) || len(zero) != 0 {
			t.Errorf("ReduceRange word count differs (%d words, want %d), or zero written (%d entries)", len(got), len(want), len(zero))
		}
	})
}

func nil2map(string) map[string]int { return nil }

// TestReduceRangePieces checks that the pieces cover [0, n) exactly once
// and are combined in order, with a combine that is associative but not
// commutative, and that zero is what n <= 0 gives.
func TestReduceRangePieces(t *testing.T) {
	modes(t, func(t *testing.T) {
		for _, n := range []int{-3, 0, 1, 2, 3, 100, 4097, 100003} {
			counts := make([]atomic.Int32, max(n, 0))
			type span struct{ lo, hi int }
			// A piece's result is the list of spans it covered; combined
			// in order they are adjacent, from 0 to n.
			got := par.ReduceRange(n, []span{{-1, -1}}, func(lo, hi int) []span {
				if lo >= hi {
					t.Errorf("n=%d: empty piece [%d, %d)", n, lo, hi)
				}
				for i := lo; i < hi; i++ {
					counts[i].Add(1)
				}
				return []span{{lo, hi}}
			}, func(a, b []span) []span { return append(a, b...) })
			if n <= 0 {
				if len(got) != 1 || got[0] != (span{-1, -1}) {
					t.Errorf("ReduceRange(%d) = %v, want zero", n, got)
				}
				continue
			}
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("n=%d: index %d in %d pieces", n, i, c)
				}
			}
			at := 0
			for _, sp := range got {
				if sp.lo != at {
					t.Fatalf("n=%d: pieces combined out of order: %v", n, got)
				}
				at = sp.hi
			}
			if at != n {
				t.Errorf("n=%d: pieces end at %d", n, at)
			}
		}
	})
}

// TestReduceNestedCalls makes par calls inside mapf and combine: a worker
// waiting in one may run other work, and the reduction must still fold
// every element once, in order.
func TestReduceNestedCalls(t *testing.T) {
	modes(t, func(t *testing.T) {
		s := make([]int, 3000)
		var want strings.Builder
		for i := range s {
			s[i] = i
			fmt.Fprintf(&want, "%d,", i)
		}
		got := par.Reduce(s, "", func(x int) string {
			if x%100 == 0 {
				par.For(50, func(int) {})
			}
			return strconv.Itoa(x) + ","
		}, func(a, b string) string {
			if len(a)%7 == 0 {
				par.ForRange(20, func(int, int) {})
			}
			return a + b
		})
		if got != want.String() {
			t.Errorf("nested Reduce = %.60q..., want %.60q...", got, want.String())
		}
	})
}

// TestScanSmallRests scans slices whose parallel rest, after the serial
// first element, is shorter than the pool has workers.
func TestScanSmallRests(t *testing.T) {
	defer par.ForceParallel(1)()
	for n := 1; n <= 2*runtime.GOMAXPROCS(0)+3; n++ {
		s := make([]int, n)
		for i := range s {
			s[i] = i + 1
		}
		got := par.Scan(s, func(a, b int) int { return a + b })
		for i, v := range got {
			if v != (i+1)*(i+2)/2 {
				t.Fatalf("n=%d: Scan[%d] = %d, want %d", n, i, v, (i+1)*(i+2)/2)
			}
		}
	}
}

// TestScanMoreWorkersThanElements scans 5000 elements on a default pool
// of 5000 workers, in a child process (the pool is made once per
// process): the scan was cut into a piece per worker and one more, more
// pieces than elements, and panicked with a slice bound out of range. The
// race detector makes a pool of 5000 slow to start: under it the pool has
// 300 workers, and the lengths are around 300.
func TestScanMoreWorkersThanElements(t *testing.T) {
	workers := "5000"
	if raceEnabled {
		workers = "300"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=scan", "FJKIT_WORKERS="+workers)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "scan ok") {
		t.Errorf("child: %v\n%s", err, out)
	}
}

// scanChild is the child of TestScanMoreWorkersThanElements.
func scanChild() {
	defer par.ForceParallel(1)()
	p := forkjoin.Default().Workers()
	for _, n := range []int{2, 100, p - 1, p, p + 1, p + 2} {
		s := make([]int, n)
		for i := range s {
			s[i] = 1
		}
		r := par.Scan(s, func(a, b int) int { return a + b })
		for i, v := range r {
			if v != i+1 {
				fmt.Printf("n=%d: Scan[%d] = %d\n", n, i, v)
				os.Exit(1)
			}
		}
	}
	fmt.Printf("scan ok on %d workers\n", forkjoin.Default().Workers())
}

// TestCheapCallsStaySerial makes calls whose whole work takes less than a
// trip to the pool: they must not go there. A call whose goroutine loses
// its processor between its first element and its first look at the clock
// takes that element for a costly one and goes to the pool: on a loaded
// test machine that happens to about one call in a hundred, so the test
// allows one in ten. (A call that goes parallel runs at least one task.)
func TestCheapCallsStaySerial(t *testing.T) {
	p := forkjoin.Default()
	s := []int{3, 1, 4, 1, 5, 9, 2, 6}
	// The best of three rounds: a loaded machine can deschedule one round's
	// goroutine often; a call that always went parallel fails all three.
	for round := 0; ; round++ {
		before := p.Stats().Tasks
		for range 100 {
			par.Map(s, func(x int) int { return x + 1 })
			par.Reduce(s, 0, func(x int) int { return x }, func(a, b int) int { return a + b })
			par.Filter(s, func(x int) bool { return x > 2 })
			par.Scan(s, func(a, b int) int { return a + b })
			par.For(len(s), func(int) {})
			par.ForRange(len(s), func(int, int) {})
			par.IndexFunc(s, func(x int) bool { return x == 6 })
		}
		d := p.Stats().Tasks - before
		if d <= 70 {
			return
		}
		if round == 2 {
			t.Errorf("700 calls over 8 cheap elements ran %d tasks on the pool in the best of 3 rounds, want almost none", d)
			return
		}
	}
}

// TestCostlyCallsGoParallel makes calls over few elements that each take
// a millisecond: they must reach the pool, whatever their length. (A word
// count by Reduce over 64 chunks of the input used to run serially.)
func TestCostlyCallsGoParallel(t *testing.T) {
	if strandMode() {
		t.Skip("strand mode runs every call in strands, and counts no scheduler tasks")
	}
	p := forkjoin.Default()
	if p.Workers() < 2 {
		t.Skip("one worker: every call is serial")
	}
	slow := func(x int) int { time.Sleep(time.Millisecond); return x }
	s := make([]int, 64)
	for name, call := range map[string]func(){
		"For":    func() { par.For(4, func(i int) { slow(i) }) },
		"Map":    func() { par.Map(s, slow) },
		"Reduce": func() { par.Reduce(s, 0, slow, func(a, b int) int { return a + b }) },
		"ReduceRange": func() {
			par.ReduceRange(64, 0, func(lo, hi int) int { return slow(lo) }, func(a, b int) int { return a + b })
		},
		"Filter": func() { par.Filter(s, func(x int) bool { return slow(x) > 0 }) },
		"Scan":   func() { par.Scan(s, func(a, b int) int { return a + slow(b) }) },
	} {
		before := p.Stats().Tasks
		call()
		if p.Stats().Tasks == before {
			t.Errorf("%s over elements of a millisecond each ran serially", name)
		}
	}
}

// TestNoZeroResults makes results of types with and without pointers,
// large enough to skip the clearing where that is allowed, on memory the
// garbage collector has just taken back from slices filled with a
// pattern: every element must be the one the call computed.
func TestNoZeroResults(t *testing.T) {
	const n = 1 << 17
	for range 3 {
		junk := make([]uint64, n)
		for i := range junk {
			junk[i] = 0xdeadbeefdeadbeef
		}
		junk = nil
		runtime.GC()
		s := make([]uint64, n)
		for i := range s {
			s[i] = uint64(i)
		}
		m := par.Map(s, func(x uint64) uint64 { return x + 1 })
		sc := par.Scan(s, func(a, b uint64) uint64 { return a + b })
		f := par.Filter(s, func(x uint64) bool { return x%3 == 0 })
		for i := range s {
			if m[i] != uint64(i+1) || sc[i] != uint64(i*(i+1)/2) {
				t.Fatalf("element %d: Map %#x, Scan %#x", i, m[i], sc[i])
			}
		}
		if len(f) != cap(f) || len(f) != (n+2)/3 {
			t.Fatalf("Filter: len %d cap %d, want both %d", len(f), cap(f), (n+2)/3)
		}
		for i, x := range f {
			if x != uint64(3*i) {
				t.Fatalf("Filter[%d] = %#x", i, x)
			}
		}
	}
	if got := par.MakeNoZero(1 << 20); len(got) != 1<<20 {
		t.Errorf("makeNoZero: len %d", len(got))
	}
	// A type with pointers is cleared: Map's result may be read by the
	// collector before f has filled it.
	ps := par.Map(make([]int, n), func(int) *int { return nil })
	if i := slices.IndexFunc(ps, func(p *int) bool { return p != nil }); i >= 0 {
		t.Errorf("Map to pointers: element %d not nil", i)
	}
}

func TestHasPointers(t *testing.T) {
	//lint:ignore U1000 the fields give the types their shapes
	type flat struct {
		a int
		b [3]float64
		c struct{ d uint8 }
	}
	//lint:ignore U1000 the fields give the types their shapes
	type deep struct {
		a int
		b [2]struct{ s string }
	}
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{0, false}, {uint8(0), false}, {1.5, false}, {complex64(0), false}, {true, false},
		{flat{}, false}, {[4]int{}, false}, {[0]*int{}, false}, {struct{}{}, false},
		{"", true}, {[]int{}, true}, {&flat{}, true}, {map[int]int{}, true},
		{deep{}, true}, {[1]any{}, true}, {make(chan int), true}, {func() {}, true},
	} {
		if got := par.HasPointers(reflect.TypeOf(tc.v)); got != tc.want {
			t.Errorf("hasPointers(%T) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// TestCanceledMapShowsNothingUnwritten cancels the invocation a Map runs
// in while it runs: whatever the call then does (panic, or return), a
// result must never hold memory the call did not write.
func TestCanceledMapShowsNothingUnwritten(t *testing.T) {
	defer par.ForceParallel(64)()
	const n = 1 << 17
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i)
	}
	for range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		var r []uint64
		func() {
			defer func() { recover() }()
			_, _ = forkjoin.InvokeContext(ctx, forkjoin.Default(), func(*forkjoin.Worker) int {
				r = par.Map(s, func(x uint64) uint64 {
					if x == n/4 {
						cancel()
					}
					return x + 1
				})
				return 0
			})
		}()
		cancel()
		for i, v := range r {
			if v != 0 && v != uint64(i+1) {
				t.Fatalf("element %d of a canceled Map = %#x", i, v)
			}
		}
	}
}

// TestBusyProcessorsKeepCallsSerial makes a costly call while goroutines
// that compute wait for every processor: the pool could not add processor
// time, so the call must not go there.
func TestBusyProcessorsKeepCallsSerial(t *testing.T) {
	p := forkjoin.Default()
	if p.Workers() < 2 {
		t.Skip("one worker: every call is serial")
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for !stop.Load() {
			}
		})
	}
	defer func() { stop.Store(true); wg.Wait() }()
	before := p.Stats().Tasks
	par.For(8, func(int) {
		for start := time.Now(); time.Since(start) < time.Millisecond; {
		}
	})
	if d := p.Stats().Tasks - before; d != 0 {
		t.Errorf("with every processor busy, a costly For ran %d tasks on the pool, want none", d)
	}
}

// TestCombinePanicIsPanicError panics in the combine of Reduce and
// ReduceRange. Forced parallel over two elements, the serial start and the
// one piece on the pool each fold an element without a combine: the only
// combine is that of their results, run by the worker that finishes the
// piece (or, in strand mode, by a join after the pieces), and its panic
// must come out as a *forkjoin.PanicError like any other.
func TestCombinePanicIsPanicError(t *testing.T) {
	if forkjoin.Default().Workers() < 2 {
		t.Skip("one worker: every call is serial")
	}
	defer par.ForceParallel(1)()
	boom := func(int, int) int { panic("bad combine") }
	for name, call := range map[string]func(){
		"Reduce":      func() { par.Reduce([]int{1, 2}, 0, func(x int) int { return x }, boom) },
		"ReduceRange": func() { par.ReduceRange(2, 0, func(lo, hi int) int { return lo }, boom) },
	} {
		func() {
			defer func() {
				v := recover()
				if pe, ok := v.(*forkjoin.PanicError); !ok || pe.Value != "bad combine" {
					t.Errorf("%s: recovered %T %v, want a *forkjoin.PanicError of \"bad combine\"", name, v, v)
				}
			}()
			call()
		}()
	}
}

// TestChunkNearMaxInt sizes the serial start's chunks for a call over
// MaxInt units: the next chunk after done units run in less than the
// budget is at least as long as all of them (or the rest) and never past
// n. Seven times done overflowed for done above MaxInt/7, and the
// estimate, converted to an int, overflowed for a cheap body: a chunk of
// one unit, or an hi below lo.
func TestChunkNearMaxInt(t *testing.T) {
	const n = math.MaxInt
	budget := 20 * time.Microsecond
	for _, done := range []int{1, 8, n / 8, n/7 - 1, n / 7, n/7 + 1, n / 5, n / 4, n / 2, n - 2, n - 1} {
		for _, elapsed := range []time.Duration{0, time.Nanosecond, 10 * time.Microsecond, 19 * time.Microsecond} {
			if c, least := par.Chunk(done, n, elapsed, budget), min(done, n-done); c < least || c > n-done {
				t.Errorf("chunk after %d of %d units in %v = %d, want from %d to %d", done, n, elapsed, c, least, n-done)
			}
		}
	}
	// The same through ForRange, whose body of constant cost lets the
	// serial start grow towards MaxInt: a pause of the body near 2⁵⁴
	// makes the estimate cut the chunks, so that done passes MaxInt/7
	// without reaching n. Every piece must lie in [0, n), and together
	// they must cover it.
	for range 10 {
		var mu sync.Mutex
		var total uint64
		var bad [][2]int
		var t0 atomic.Int64 // the first piece's start, in ns since epoch; pieces run in parallel
		var paused atomic.Bool
		epoch := time.Now()
		par.ForRange(n, func(lo, hi int) {
			if lo == 0 {
				t0.Store(int64(time.Since(epoch)))
			}
			if lo >= 1<<54 && paused.CompareAndSwap(false, true) {
				for time.Since(epoch)-time.Duration(t0.Load()) < 11*time.Microsecond {
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if lo < 0 || lo >= hi {
				bad = append(bad, [2]int{lo, hi})
			}
			total += uint64(hi - lo)
		})
		if len(bad) > 0 || total != n {
			t.Fatalf("ForRange(MaxInt): bad pieces %v, %d units in all", bad, total)
		}
	}
}

// TestBuildsOn32Bit builds the package for a 32-bit system: the bound on
// what makeNoZero asks the runtime for was a constant too large for a
// 32-bit uintptr, and par did not compile there. (The first run
// compiles the standard library for 386 into the build cache.)
func TestBuildsOn32Bit(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	cmd := exec.Command(goTool, "build", ".")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=386", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go build for linux/386: %v\n%s", err, out)
	}
}

// smallOut is where the small calls of TestSmallCallsAllocateNothing write:
// a package variable, so that their bodies capture nothing and the test
// counts par's own allocations, not the closures'.
var smallOut [8]int

var smallIn = []int{3, 1, 4, 1, 5, 9, 2, 6}

// smallCalls are par calls over 8 cheap elements, with bodies that capture
// nothing; none may allocate (Map and Scan make their result, and nothing
// more).
var smallCalls = []struct {
	name   string
	allocs float64
	call   func()
}{
	{"Reduce", 0, func() {
		smallOut[0] = par.Reduce(smallIn, 0, func(x int) int { return x }, func(a, b int) int { return a + b })
	}},
	{"ReduceRange", 0, func() {
		smallOut[0] = par.ReduceRange(len(smallIn), 0, func(lo, hi int) int { return hi - lo }, func(a, b int) int { return a + b })
	}},
	{"For", 0, func() { par.For(len(smallOut), func(i int) { smallOut[i] = i }) }},
	{"ForRange", 0, func() { par.ForRange(len(smallOut), func(lo, hi int) { smallOut[lo] = hi }) }},
	{"IndexFunc", 0, func() { smallOut[0] = par.IndexFunc(smallIn, func(x int) bool { return x == 6 }) }},
	{"ContainsFunc", 0, func() { par.ContainsFunc(smallIn, func(x int) bool { return x == 7 }) }},
	{"Map", 1, func() { par.Map(smallIn, func(x int) int { return x + 1 }) }},
	{"Scan", 1, func() { par.Scan(smallIn, func(a, b int) int { return a + b }) }},
}

// TestSmallCallsAllocateNothing checks that a cheap call over a few
// elements, which stays serial, allocates nothing of its own, from an
// ordinary goroutine and from deep in a task. (Issue 27: par.Reduce over 8
// elements made 6 allocations, par.For 2.)
func TestSmallCallsAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	for _, c := range smallCalls {
		// The best of three: a call that a loaded machine deschedules
		// during its serial start may go parallel, and allocate.
		got := 1e9
		for range 3 {
			got = min(got, testing.AllocsPerRun(200, c.call))
		}
		if got > c.allocs {
			t.Errorf("par.%s over 8 elements, outside any task: %v allocations, want %v", c.name, got, c.allocs)
		}
	}
	// In a task, below the frames its pool may take (Worker.Inline): a par
	// call nested per node of a tree walk, 12 loops down, each of them
	// split where others could take its second index. One worker, so that
	// no other worker asks for work, and the heartbeat's few promotions are
	// all that may allocate.
	p := newPool(t, 1)
	forkjoin.Run(p, func(*forkjoin.Worker) {
		var nest func(d int)
		nest = func(d int) {
			par.For(2, func(i int) {
				switch {
				case i == 0:
				case d < 12:
					nest(d + 1)
				default:
					for _, c := range smallCalls {
						if got := testing.AllocsPerRun(200, c.call); got > c.allocs {
							t.Errorf("par.%s over 8 elements, deep in a task: %v allocations, want %v", c.name, got, c.allocs)
						}
					}
				}
			})
		}
		nest(0)
	})
}
