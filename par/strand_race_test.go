//go:build race

package par_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/fjkit/fjkit/par"
)

// The planted races of strand mode for every par call: each program's
// user function writes one variable from every call (racy), or only what
// is its own (clean). TestStrandPlantedRaces runs them in child processes
// whose default pool has one worker, then two, and expects every racy
// program reported in every run, small (a call that would stay serial in
// the caller) and large (one that would go parallel), and no clean one.

const (
	plantedRuns  = 20
	plantedChild = "FJKIT_PAR_PLANTED"
)

// plantedCall is one program over n elements: hit(i) is the racy write
// (the calls on the first and the last element write a shared counter) or
// the clean one (element i's own slot). Programs whose function sees no
// index (an operator, a comparison) write the counter in every call when
// racy, and nothing when clean.
type plantedCall struct {
	name string
	run  func(n int, hit func(i int), racy bool)
	// large overrides the large size: calls that make a task per element
	// go parallel from two elements on.
	large int
}

func plantedCalls() []plantedCall {
	seq := func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return s
	}
	rev := func(n int) []int {
		s := seq(n)
		slices.Reverse(s)
		return s
	}
	// cmpOf is a comparison that counts its calls in a shared variable
	// when racy.
	cmpOf := func(n int, racy bool, c *int) func(a, b int) int {
		return func(a, b int) int {
			if racy {
				*c++ // every call: which calls are parallel is the kernel's
			}
			return a - b
		}
	}
	return []plantedCall{
		{name: "For", run: func(n int, hit func(int), _ bool) { par.For(n, hit) }},
		{name: "ForRange", run: func(n int, hit func(int), _ bool) {
			par.ForRange(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					hit(i)
				}
			})
		}},
		{name: "Map", run: func(n int, hit func(int), _ bool) { par.Map(seq(n), func(x int) int { hit(x); return x }) }},
		{name: "Filter", run: func(n int, hit func(int), _ bool) { par.Filter(seq(n), func(x int) bool { hit(x); return true }) }},
		{name: "Reduce", run: func(n int, hit func(int), _ bool) {
			par.Reduce(seq(n), 0, func(x int) int { hit(x); return x }, func(a, b int) int { return a + b })
		}},
		{name: "ReduceRange", run: func(n int, hit func(int), _ bool) {
			par.ReduceRange(n, 0, func(lo, hi int) int {
				for i := lo; i < hi; i++ {
					hit(i)
				}
				return hi - lo
			}, func(a, b int) int { return a + b })
		}},
		{name: "Scan", run: func(n int, _ func(int), racy bool) {
			c := newCounter()
			par.Scan(seq(n), func(a, b int) int {
				if racy {
					*c++
				}
				return a + b
			})
		}},
		{name: "IndexFunc", run: func(n int, hit func(int), _ bool) { par.IndexFunc(seq(n), func(x int) bool { hit(x); return false }) }},
		{name: "ContainsFunc", run: func(n int, hit func(int), _ bool) {
			par.ContainsFunc(seq(n), func(x int) bool { hit(x); return false })
		}},
		{name: "MinFunc", run: func(n int, _ func(int), racy bool) { par.MinFunc(rev(n), cmpOf(n, racy, newCounter())) }},
		{name: "MaxFunc", run: func(n int, _ func(int), racy bool) { par.MaxFunc(seq(n), cmpOf(n, racy, newCounter())) }},
		{name: "MapErr", run: func(n int, hit func(int), _ bool) {
			par.MapErr(context.Background(), seq(n), func(_ context.Context, x int) (int, error) { hit(x); return x, nil })
		}},
		{name: "ForErr", run: func(n int, hit func(int), _ bool) {
			par.ForErr(context.Background(), n, func(_ context.Context, i int) error { hit(i); return nil })
		}},
		{name: "ForEach", run: func(n int, hit func(int), _ bool) { par.ForEach(slices.Values(seq(n)), hit) }, large: 64},
		{name: "ForEach2", run: func(n int, hit func(int), _ bool) {
			par.ForEach2(slices.All(seq(n)), func(i, _ int) { hit(i) })
		}, large: 64},
		{name: "Group", run: func(n int, hit func(int), _ bool) {
			var g par.Group
			for i := range n {
				g.Go(func() error { hit(i); return nil })
			}
			g.Wait()
		}, large: 64},
		{name: "SortFunc", run: func(n int, _ func(int), racy bool) { par.SortFunc(rev(n), cmpOf(n, racy, newCounter())) }},
		{name: "SortStableFunc", run: func(n int, _ func(int), racy bool) { par.SortStableFunc(rev(n), cmpOf(n, racy, newCounter())) }},
		{name: "SortByKey", run: func(n int, hit func(int), _ bool) { par.SortByKey(rev(n), func(x int) int { hit(x); return x }) }},
	}
}

// counters keeps every program's counter alive: the detector reports a
// race on an address once, and a freed counter's address comes back.
var counters [][]int

func newCounter() *int {
	counters = append(counters, make([]int, 1))
	return &counters[len(counters)-1][0]
}

// plantedSizes: small stays serial in the caller outside strand mode,
// large goes parallel. The racing calls are those on the first and the
// last element, so large stays small enough that the detector's clocks
// keep them apart (see the forkjoin package's strand tests).
var plantedSizes = []struct {
	name string
	n    int
}{{"small", 16}, {"large", 1 << 13}}

// TestStrandPlantedChild runs the programs in TestStrandPlantedRaces's
// child processes, each as a subtest, which the testing package fails
// when the race detector reports during it.
func TestStrandPlantedChild(t *testing.T) {
	if os.Getenv(plantedChild) == "" {
		t.Skip("run by TestStrandPlantedRaces")
	}
	for _, call := range plantedCalls() {
		for _, size := range plantedSizes {
			for _, racy := range []bool{true, false} {
				name := fmt.Sprintf("%s/%s/%s", call.name, size.name, map[bool]string{true: "racy", false: "clean"}[racy])
				if size.name == "large" && call.large > 0 {
					size.n = call.large
				}
				t.Run(name, func(t *testing.T) {
					counter := newCounter()
					slots := make([]int, size.n)
					hit := func(i int) { slots[i]++ }
					if racy {
						hit = func(i int) { // the first and the last race
							if i == 0 || i == size.n-1 {
								*counter += i + 1
							}
						}
					}
					call.run(size.n, hit, racy)
				})
			}
		}
	}
}

// TestStrandPlantedRaces checks that in strand mode the race detector
// reports every planted race of a par call, in every run, at one and two
// workers, whatever the input size, and nothing where there is no race.
func TestStrandPlantedRaces(t *testing.T) {
	if os.Getenv(plantedChild) != "" {
		t.Skip("in the child")
	}
	if !strandMode() {
		t.Skip("FJKIT_RACE=scheduler: no strand mode")
	}
	failRe := regexp.MustCompile(`--- FAIL: TestStrandPlantedChild/(\S+)`)
	reported := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, workers := range []int{1, 2} {
		for range plantedRuns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				cmd := exec.Command(os.Args[0], "-test.run=^TestStrandPlantedChild$", "-test.v", "-test.count=1")
				// The programs share their code: report a race per
				// variable (each has its own), not per pair of stacks.
				cmd.Env = append(os.Environ(), plantedChild+"=1", "GORACE=suppress_equal_stacks=0",
					fmt.Sprintf("FJKIT_WORKERS=%d", workers))
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				_ = cmd.Run() // the racy subtests fail it
				s := out.String()
				if !strings.Contains(s, "--- PASS: TestStrandPlantedChild/") {
					t.Errorf("child ran no program:\n%s", s)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				seen := map[string]bool{}
				for _, m := range failRe.FindAllStringSubmatch(s, -1) {
					if strings.Count(m[1], "/") == 2 && !seen[m[1]] {
						seen[m[1]] = true
						reported[fmt.Sprintf("%s/w%d", m[1], workers)]++
					}
				}
			}()
		}
	}
	wg.Wait()
	var names []string
	for _, call := range plantedCalls() {
		for _, size := range plantedSizes {
			for _, racy := range []string{"racy", "clean"} {
				for _, workers := range []int{1, 2} {
					names = append(names, fmt.Sprintf("%s/%s/%s/w%d", call.name, size.name, racy, workers))
				}
			}
		}
	}
	sort.Strings(names)
	for _, name := range names {
		n, want := reported[name], 0
		if strings.Contains(name, "/racy/") {
			want = plantedRuns
		}
		if n != want {
			t.Errorf("%s: reported in %d of %d runs, want %d", name, n, plantedRuns, want)
		} else {
			t.Logf("%s: reported in %d of %d runs", name, n, plantedRuns)
		}
	}
}
