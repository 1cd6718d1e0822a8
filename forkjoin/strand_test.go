//go:build race

package forkjoin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The planted races of strand mode: for every fork point, a program whose
// two logically parallel strands both write one variable (racy), and the
// same program with the race removed (clean: each strand writes its own
// slot, combined after the join). TestStrandPlantedRaces runs them in
// child processes of this test binary, which the race detector watches,
// and expects every racy program reported in every run, at one and two
// workers, small and large, and no clean one ever.

// plantedRuns is how many child processes TestStrandPlantedRaces runs.
const plantedRuns = 20

// planted is one program: body runs on a strand pool's task with n leaves;
// leaf(i) is the racy write (the first and the last leaf write one
// variable) or the clean one (each leaf its own slot).
type planted struct {
	name string
	body func(w *Worker, n int, leaf func(w *Worker, i int))
}

var plantedJoin = NewFunc(func(w *Worker, a [2]int) int { return 0 })

func plantedPrograms() []planted {
	var tree func(w *Worker, lo, hi int, leaf func(*Worker, int))
	tree = func(w *Worker, lo, hi int, leaf func(*Worker, int)) {
		if hi-lo == 1 {
			leaf(w, lo)
			return
		}
		mid := (lo + hi) / 2
		Join(w, func(w *Worker) int { tree(w, lo, mid, leaf); return 0 },
			func(w *Worker) int { tree(w, mid, hi, leaf); return 0 })
	}
	var ftree *Func[[2]int, int]
	var fleaf func(*Worker, int)
	var fmu sync.Mutex // ftree's leaf is set per program: programs run one at a time
	ftree = NewFunc(func(w *Worker, r [2]int) int {
		if r[1]-r[0] == 1 {
			fleaf(w, r[0])
			return 0
		}
		mid := (r[0] + r[1]) / 2
		ftree.Join(w, [2]int{r[0], mid}, [2]int{mid, r[1]})
		return 0
	})
	var fgo *Func[int, struct{}]
	fgo = NewFunc(func(w *Worker, i int) struct{} { fleaf(w, i); return struct{}{} })
	return []planted{
		{"Join", func(w *Worker, n int, leaf func(*Worker, int)) { tree(w, 0, n, leaf) }},
		{"Func.Join", func(w *Worker, n int, leaf func(*Worker, int)) {
			fmu.Lock()
			defer fmu.Unlock()
			fleaf = leaf
			ftree.Call(w, [2]int{0, n})
		}},
		{"Spawn", func(w *Worker, n int, leaf func(*Worker, int)) {
			fs := make([]Future[int], n-1)
			for i := range fs {
				fs[i] = Spawn(w, func(w *Worker) int { leaf(w, i+1); return 0 })
			}
			leaf(w, 0) // the continuation, before the joins
			for i := len(fs) - 1; i >= 0; i-- {
				fs[i].Join(w)
			}
		}},
		{"Spawn/unjoined", func(w *Worker, n int, leaf func(*Worker, int)) {
			Join(w, func(w *Worker) int {
				for i := 1; i < n; i++ {
					Spawn(w, func(w *Worker) int { leaf(w, i); return 0 }) // joined at the task's end
				}
				return 0
			}, func(w *Worker) int { leaf(w, 0); return 0 })
		}},
		{"Func.Fork", func(w *Worker, n int, leaf func(*Worker, int)) {
			fmu.Lock()
			defer fmu.Unlock()
			fleaf = leaf
			hs := make([]Forked[int, struct{}], n-1)
			for i := range hs {
				hs[i] = fgo.Fork(w, i+1)
			}
			leaf(w, 0)
			for _, h := range hs {
				h.Join(w)
			}
		}},
		{"S.Go", func(w *Worker, n int, leaf func(*Worker, int)) {
			Scope(w, func(s *S) {
				for i := 1; i < n; i++ {
					s.Go(func(w *Worker) { leaf(w, i) })
				}
				leaf(w, 0)
			})
		}},
		{"S.Go/nested", func(w *Worker, n int, leaf func(*Worker, int)) {
			Scope(w, func(s *S) {
				var spawn func(w *Worker, i int)
				spawn = func(w *Worker, i int) { // each task spawns the next
					if i < n {
						s.Go(func(w *Worker) { spawn(w, i+1) })
						leaf(w, i)
					}
				}
				spawn(w, 0)
			})
		}},
		{"Func.Go", func(w *Worker, n int, leaf func(*Worker, int)) {
			fmu.Lock()
			defer fmu.Unlock()
			fleaf = leaf
			Scope(w, func(s *S) {
				for i := 1; i < n; i++ {
					fgo.Go(s, i)
				}
				leaf(w, 0)
			})
		}},
		{"Do", func(w *Worker, n int, leaf func(*Worker, int)) {
			fns := make([]func(*Worker), n)
			for i := range fns {
				fns[i] = func(w *Worker) { leaf(w, i) }
			}
			Do(w, fns...)
		}},
		{"For", func(w *Worker, n int, leaf func(*Worker, int)) { For(w, 0, n, leaf) }},
		{"ForRange", func(w *Worker, n int, leaf func(*Worker, int)) {
			ForRange(w, 0, n, 0, func(w *Worker, lo, hi int) {
				for i := lo; i < hi; i++ {
					leaf(w, i)
				}
			})
		}},
		{"ForRange/grain", func(w *Worker, n int, leaf func(*Worker, int)) {
			ForRange(w, 0, n, 1, func(w *Worker, lo, hi int) {
				for i := lo; i < hi; i++ {
					leaf(w, i)
				}
			})
		}},
		{"Reduce", func(w *Worker, n int, leaf func(*Worker, int)) {
			Reduce(w, 0, n, 0, func(i int) int { leaf(w, i); return 1 }, func(x, y int) int { return x + y })
		}},
		{"ReduceW", func(w *Worker, n int, leaf func(*Worker, int)) {
			ReduceW(w, 0, n, 0, func(w *Worker, i int) int { leaf(w, i); return 1 }, func(x, y int) int { return x + y })
		}},
		{"Invoke/nested", func(w *Worker, n int, leaf func(*Worker, int)) {
			Join(w, func(w *Worker) int {
				return Invoke(w.Pool(), func(w *Worker) int { leaf(w, 0); return 0 })
			}, func(w *Worker) int { tree(w, 1, n, leaf); return 0 })
		}},
	}
}

// counters keeps every program's counter alive: the detector reports a
// race on an address once, and a freed counter's address comes back.
var counters [][]int

func newCounter() *int {
	counters = append(counters, make([]int, 1))
	return &counters[len(counters)-1][0]
}

// plantedSizes are the leaf counts: small (the least that has two
// strands) and large (enough for the scheduler to spread the work). The
// racing leaves are the first and the last: in a tree of joins, every
// other strand runs between them, and the detector's clocks can order two
// accesses after some 250 goroutines have ended in between (it has 256
// thread slots, which later goroutines reuse), so the large tree has 64
// leaves, 127 strands.
var plantedSizes = []struct {
	name string
	n    int
}{{"small", 2}, {"large", 64}}

// TestStrandPlantedChild runs the programs, when TestStrandPlantedRaces
// runs this binary as its child: each as a subtest, which the testing
// package fails when the race detector reports during it.
func TestStrandPlantedChild(t *testing.T) {
	if os.Getenv("FJKIT_PLANTED") == "" {
		t.Skip("run by TestStrandPlantedRaces")
	}
	for _, prog := range plantedPrograms() {
		for _, workers := range []int{1, 2} {
			p := newStrandPool(Workers(workers))
			for _, size := range plantedSizes {
				for _, racy := range []bool{true, false} {
					name := fmt.Sprintf("%s/w%d/%s/%s", prog.name, workers, size.name, map[bool]string{true: "racy", false: "clean"}[racy])
					t.Run(name, func(t *testing.T) {
						counter := newCounter()
						slots := make([]int, size.n)
						leaf := func(_ *Worker, i int) { slots[i] = 1 }
						if racy {
							// The first and the last leaf race: few reports
							// to make, for a race every primitive has.
							leaf = func(_ *Worker, i int) {
								if i == 0 || i == size.n-1 {
									*counter += i + 1
								}
							}
						}
						Run(p, func(w *Worker) { prog.body(w, size.n, leaf) })
						if !racy {
							for i, v := range slots { // each leaf ran once
								if v != 1 {
									t.Fatalf("leaf %d ran %d times", i, v)
								}
							}
						}
					})
				}
			}
			p.Close()
		}
	}
}

// TestStrandPlantedRaces checks that strand mode shows the race detector
// every race between logically parallel strands, in every run, and no
// race where there is none.
func TestStrandPlantedRaces(t *testing.T) {
	if os.Getenv("FJKIT_PLANTED") != "" {
		t.Skip("in the child")
	}
	runs := plantedRuns
	reported := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	failRe := regexp.MustCompile(`--- FAIL: TestStrandPlantedChild/(\S+)`)
	for r := 0; r < runs; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(os.Args[0], "-test.run=^TestStrandPlantedChild$", "-test.v", "-test.count=1")
			// Report a race of each program: by default the detector
			// reports a pair of stacks once per process, and the programs
			// share their code. Each has a variable of its own, whose
			// first race is reported.
			cmd.Env = append(os.Environ(), "FJKIT_PLANTED=1", "GORACE=suppress_equal_stacks=0")
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
				if strings.Count(m[1], "/") >= 3 && !seen[m[1]] {
					seen[m[1]] = true
					reported[m[1]]++
				}
			}
		}()
	}
	wg.Wait()
	var names []string
	for _, prog := range plantedPrograms() {
		for _, workers := range []int{1, 2} {
			for _, size := range plantedSizes {
				for _, racy := range []string{"racy", "clean"} {
					names = append(names, fmt.Sprintf("%s/w%d/%s/%s", prog.name, workers, size.name, racy))
				}
			}
		}
	}
	sort.Strings(names)
	for _, name := range names {
		n := reported[name]
		want := 0
		if strings.HasSuffix(name, "/racy") {
			want = runs
		}
		if n != want {
			t.Errorf("%s: reported in %d of %d runs, want %d", name, n, runs, want)
		} else {
			t.Logf("%s: reported in %d of %d runs", name, n, runs)
		}
	}
}
