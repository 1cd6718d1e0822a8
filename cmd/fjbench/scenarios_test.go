package main

import (
	"bytes"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/internal/sorts/sortinput"
	"github.com/fjkit/fjkit/internal/workloads"
)

// The smoke tests run every subcommand on tiny sizes and check the work, not
// the speed: every scheduler and baseline must produce the checksum computed
// here independently of fjbench's own serial code.

var fjkitAndRecursive = []string{"serial", "ws", "shared", "goroutines", "chanpool", "errgroup"}

func TestSmokeTiny(t *testing.T) {
	const tasks = 3000
	rep := smoke(t, "tiny", "-tasks", "3000", "-weights", "4,20", "-workers", "1,3", "-sweep", "1,2")
	want := map[string]uint64{}
	for _, weight := range []int{4, 20} {
		var sum uint64
		for i := range tasks {
			sum += workloads.TinyTask(uint64(i), weight)
		}
		want["tiny weight="+strconv.Itoa(weight)] = sum
	}
	checkSmoke(t, rep, 2, want, "serial", "port-ws", "port-shared", "ws-spawn", "ws-range", "ws-for",
		"shared-spawn", "shared-range", "shared-for", "chanpool", "errgroup", "goroutines", "static")
	// The weight sweep measures the ports and the single producer only.
	for _, r := range rep.Sections[0].Results {
		if r.Params[0].Value == "20" && !slices.Contains([]string{"serial", "port-ws", "port-shared", "ws-spawn", "shared-spawn"}, r.Scheduler) {
			t.Errorf("the sweep measured %s", r.Scheduler)
		}
	}
	var buf bytes.Buffer
	if err := writeReport(&buf, "table", rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### tiny weight=4 (time", "### tiny weight=4 — verdicts", "### tiny weight sweep", "Sweep: at 2 workers"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("tiny's tables lack %q:\n%s", want, buf.String())
		}
	}
}

func TestSmokeFib(t *testing.T) {
	rep := smoke(t, "fib", "-n", "18", "-cutoff", "4", "-workers", "1,2,3")
	checkSmoke(t, rep, 2, map[string]uint64{"fib n=18 cutoff=4": 2584}, fjkitAndRecursive...)
	if got := rep.Sections[0].Results[0].Work; got != 8361 {
		t.Errorf("fib(18) work = %v calls, want 8361", got)
	}
}

func TestSmokeNQueens(t *testing.T) {
	rep := smoke(t, "nqueens", "-n", "7", "-cutoff", "2", "-workers", "1,3")
	checkSmoke(t, rep, 2, map[string]uint64{"nqueens n=7 cutoff=2": 40}, fjkitAndRecursive...)
}

func TestSmokeMatMul(t *testing.T) {
	const n = 37 // not a multiple of the row block: the last block is short
	rep := smoke(t, "matmul", "-n", strconv.Itoa(n), "-workers", "1,2")
	a, b := matInput(n, 1), matInput(n, 2)
	c := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			var s float64
			for k := range n {
				s += a.At(i, k) * b.At(k, j)
			}
			c.Set(i, j, s)
		}
	}
	checkSmoke(t, rep, 2, map[string]uint64{"matmul n=37": matChecksum(c)},
		"serial", "gonum", "ws", "shared", "chanpool", "errgroup", "goroutines")
}

func TestSmokeUTS(t *testing.T) {
	rep := smoke(t, "uts", "-n", "4", "-workers", "1,2")
	ref := algos.UTSSerial(utsTree(4))
	if ref.Nodes < 10 {
		t.Fatalf("T1 at depth 4 has %d nodes; too small to test anything", ref.Nodes)
	}
	checkSmoke(t, rep, 2, map[string]uint64{"uts tree=T1 depth=4": utsChecksum(ref)}, "serial", "ws", "shared")
}

// Every -input kind, each sort held to the checksum of slices.Sort's order.
func TestSmokeSort(t *testing.T) {
	const n = 3000
	for _, kind := range sortinput.Kinds {
		rep := smoke(t, "sort", "-input", kind, "-n", strconv.Itoa(n), "-cutoff", "100", "-workers", "1,2")
		s := sortInput(kind, n)
		slices.Sort(s)
		checkSmoke(t, rep, 2, map[string]uint64{rep.Sections[0].Results[0].group(): sortChecksum(s)},
			"slices.Sort", "ws-merge", "shared-merge", "ws-quick", "shared-quick",
			"par.Sort", "par.SortFunc", "par.SortStableFunc", "par.SortByKey", "goroutines", "chanpool", "errgroup")
	}
}

// TestCappedRecursionDeadlocks backs the footnote: the naive recursive fork
// through errgroup.Go with SetLimit(1) never finishes, while the TryGo-or-
// inline form the baselines use does. The naive goroutines stay blocked
// forever; that leak is the point.
func TestCappedRecursionDeadlocks(t *testing.T) {
	var g errgroup.Group
	g.SetLimit(1)
	done := make(chan struct{})
	go func() {
		g.Go(func() error { // the parent holds the only slot...
			var wg sync.WaitGroup
			wg.Add(1)
			g.Go(func() error { wg.Done(); return nil }) // ...so this blocks forever
			wg.Wait()
			return nil
		})
		g.Wait()
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("a recursive fork through errgroup.Go with SetLimit(1) finished; the footnote is wrong")
	case <-time.After(200 * time.Millisecond):
	}

	for _, workers := range []int{1, 2} {
		if got := fibFork(newGroupForker(workers), 20, 2); got != 6765 {
			t.Errorf("fib(20) through TryGo-or-inline with %d workers = %d, want 6765", workers, got)
		}
		p := newChanPool(workers)
		if got := fibFork(poolForker{p}, 20, 2); got != 6765 {
			t.Errorf("fib(20) through the idle-or-inline channel pool with %d workers = %d, want 6765", workers, got)
		}
		p.close()
	}
}

func TestSmokeTreeSum(t *testing.T) {
	const n = 1000
	rep := smoke(t, "treesum", "-n", strconv.Itoa(n), "-workers", "1,2")
	small := workloads.NewTree(workloads.MinTreeNodes)
	checkSmoke(t, rep, 2, map[string]uint64{
		"treesum n=1000": n * (n + 1) / 2,
		"treewalk n=" + strconv.Itoa(workloads.MinTreeNodes): totSum(small.Serial(0)),
	}, "serial", "ws-func", "shared-func", "ws-inline", "shared-inline", "ws-closure", "shared-closure",
		"ws-spawns", "shared-spawns", "ws-scope-go", "ws-func-go", "ws-for", "shared-for", "ws-reducew",
		"ws-fork-inline", "ws-join-inline", "par-for")
}

func TestSmokeServe(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"serve", "-duration", "60ms", "-clients", "4", "-deadline", "2ms", "-n", "20000", "-workers", "1,2"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d, stderr:\n%s", args, code, stderr.String())
	}
	out := stdout.String()
	for _, w := range []string{"1", "2"} {
		if !regexp.MustCompile(`\| ws +\| +` + w + `( \(oversubscribed\))? \|`).MatchString(out) {
			t.Errorf("serve output lacks the row of ws with %s workers:\n%s", w, out)
		}
	}
	for _, want := range []string{"### serve — requests through InvokeContext", "(ticker alone)", "4 clients, each looping forkjoin.InvokeContext"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve output lacks %q:\n%s", want, out)
		}
	}
	// The pools are results whose work is the requests answered right.
	rs := smoke(t, "serve", "-duration", "30ms", "-clients", "2", "-n", "5000").Sections[0].Results
	if len(rs) != 1 || rs[0].Unit != "requests" || rs[0].Scheduler != "ws" || rs[0].Workers != runtime.GOMAXPROCS(0) {
		t.Errorf("serve without -workers or -mode: results %+v, want one ws pool of GOMAXPROCS workers", rs)
	}
	st := serveStats{lateness: []time.Duration{time.Millisecond}, handback: []time.Duration{time.Millisecond}}
	if got := st.targets(); got != "over: hand-back" {
		t.Errorf("targets of 1 ms lateness and 1 ms hand-back = %q, want the hand-back over", got)
	}
}

func TestServeQuantile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.99, 10}, {0.1, 1}, {0, 1}, {1, 10}} {
		if got := quantile(ds, tc.q); got != tc.want {
			t.Errorf("quantile(1..10, %v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing is not 0")
	}
}
