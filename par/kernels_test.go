package par_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

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
// trip to the pool: none may go there.
func TestCheapCallsStaySerial(t *testing.T) {
	p := forkjoin.Default()
	s := []int{3, 1, 4, 1, 5, 9, 2, 6}
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
	if d := p.Stats().Tasks - before; d != 0 {
		t.Errorf("calls over 8 cheap elements ran %d tasks on the pool, want none", d)
	}
}

// TestCostlyCallsGoParallel makes calls over few elements that each take
// a millisecond: they must reach the pool, whatever their length.
func TestCostlyCallsGoParallel(t *testing.T) {
	p := forkjoin.Default()
	if p.Workers() < 2 {
		t.Skip("one worker: every call is serial")
	}
	slow := func(x int) int { time.Sleep(time.Millisecond); return x }
	s := make([]int, 64)
	for name, call := range map[string]func(){
		"For":    func() { par.For(4, func(i int) { slow(i) }) },
		"Map":    func() { par.Map(s, slow) },
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
	type flat struct {
		a int
		b [3]float64
		c struct{ d uint8 }
	}
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
