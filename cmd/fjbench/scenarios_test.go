package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/mat"
)

// The smoke tests run every subcommand on tiny sizes and check the work, not
// the speed: every scheduler and baseline must produce the checksum computed
// here independently of fjbench's own serial code.

var fjkitAndRecursive = []string{"serial", "ws", "shared", "goroutines", "chanpool", "errgroup"}

func TestSmokeFib(t *testing.T) {
	rep := smoke(t, "fib", "-n", "18", "-cutoff", "4", "-workers", "1,2,3")
	checkSmoke(t, rep, map[string]string{"fib n=18 cutoff=4": fmtChecksum(2584)}, fjkitAndRecursive...)
	if got := rep.Results[0].Work; got != 8361 {
		t.Errorf("fib(18) work = %v calls, want 8361", got)
	}
}

func TestSmokeNQueens(t *testing.T) {
	rep := smoke(t, "nqueens", "-n", "7", "-cutoff", "2", "-workers", "1,3")
	checkSmoke(t, rep, map[string]string{"nqueens n=7 cutoff=2": fmtChecksum(40)}, fjkitAndRecursive...)
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
	checkSmoke(t, rep, map[string]string{"matmul n=37": fmtChecksum(matChecksum(c))},
		"serial", "gonum", "ws", "shared", "chanpool", "errgroup", "goroutines")
}

func TestSmokeUTS(t *testing.T) {
	rep := smoke(t, "uts", "-n", "4", "-workers", "1,2")
	ref := algos.UTSSerial(utsTree(4))
	if ref.Nodes < 10 {
		t.Fatalf("T1 at depth 4 has %d nodes; too small to test anything", ref.Nodes)
	}
	checkSmoke(t, rep, map[string]string{"uts": fmtChecksum(utsChecksum(ref))}, "serial", "ws", "shared")
}

func TestSmokeModeAndFormats(t *testing.T) {
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	svg, prof := filepath.Join(dir, "seed.svg"), filepath.Join(dir, "cpu.prof")
	args := []string{"-tasks", "500", "-weights", "4", "-workers", "1,2", "-runs", "2", "-mode", "ws", "-format", "bench",
		"-plot", svg, "-cpuprofile", prof}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d, stderr:\n%s", args, code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"BenchmarkSeed/ws/w=2/weight=4\t1\t", "BenchmarkSeed/serial/weight=4\t1\t", " tasks/s\t", " steals/op\t"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "/shared/") {
		t.Errorf("-mode ws measured the shared queue:\n%s", out)
	}
	if n := strings.Count(out, "BenchmarkSeed/ws/w=1/weight=4\t"); n != 2 {
		t.Errorf("%d lines for ws w=1, want one per run (2)", n)
	}
	data, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("-plot %s: %v, %.40q", svg, err, data)
	}
	// A CPU profile is gzip-compressed protobuf: it starts with gzip's magic.
	if data, err := os.ReadFile(prof); err != nil || !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		t.Errorf("-cpuprofile %s: %v, %.8q", prof, err, data)
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
	checkSmoke(t, rep, map[string]string{
		"treesum n=1000": fmtChecksum(n * (n + 1) / 2),
		"treewalk n=" + strconv.Itoa(workloads.MinTreeNodes): fmtChecksum(totSum(small.Serial(0))),
	}, "serial", "ws-func", "shared-func", "ws-inline", "shared-inline", "ws-closure", "shared-closure",
		"ws-spawn", "shared-spawn", "ws-scope-go", "ws-func-go", "ws-for", "shared-for", "ws-reducew",
		"ws-fork-inline", "ws-join-inline", "par-for")
	// Trees of every small size, including ones with single-child nodes,
	// and one deep enough for Worker.Inline to say true.
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for i := range 41 {
		n := i
		if i == 40 {
			n = 1<<14 + 5
		}
		tr := newTree(n)
		want := int64(n * (n + 1) / 2)
		if len(tr.nodes) != n || tr.sumSerial(tr.root()) != want {
			t.Fatalf("tree of %d: %d nodes, serial sum %d, want %d", n, len(tr.nodes), tr.sumSerial(tr.root()), want)
		}
		got := forkjoin.Invoke(p, func(w *forkjoin.Worker) [3]int64 {
			return [3]int64{treeSumJoin(w, treeArg{tr, tr.root()}), treeSumInline(w, treeArg{tr, tr.root()}), treeSumClosure(w, tr, tr.root())}
		})
		if got != [3]int64{want, want, want} {
			t.Errorf("tree of %d: Func.Join, Inline and closure Join sum %v, want %d", n, got, want)
		}
	}
}

func TestSmokeServe(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"serve", "-duration", "60ms", "-clients", "4", "-deadline", "2ms", "-n", "20000", "-workers", "1,2"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d, stderr:\n%s", args, code, stderr.String())
	}
	out := stdout.String()
	for _, w := range []string{"1", "2"} {
		if !regexp.MustCompile(`\| ws +\| +` + w + ` \|`).MatchString(out) {
			t.Errorf("serve output lacks the row of ws with %s workers:\n%s", w, out)
		}
	}
	for _, want := range []string{"### serve — requests through InvokeContext", "(ticker alone)", "0 wrong values with a nil error", "Delay from fn's return to its caller's: p99 ",
		"1 ms ticker's lateness beside the pool: p99 ", "4 clients, each looping forkjoin.InvokeContext"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve output lacks %q:\n%s", want, out)
		}
	}
	// In JSON the pools are results whose work is the requests answered right.
	rep := smokeJSON(t, "serve", "-duration", "30ms", "-clients", "2", "-n", "5000")
	if len(rep.Results) != 1 || rep.Results[0].Unit != "requests" || rep.Results[0].Scheduler != "ws" ||
		rep.Results[0].Workers != runtime.GOMAXPROCS(0) {
		t.Errorf("serve without -workers or -mode: results %+v, want one ws pool of GOMAXPROCS workers", rep.Results)
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
