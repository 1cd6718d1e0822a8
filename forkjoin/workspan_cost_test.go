//go:build fjkit_workspan && !race

package forkjoin_test

import (
	"fmt"
	"os"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
)

// TestWorkSpanCost runs programs plainly on one and on two workers and
// measured, and prints, for each, the measurement's cost (measured time
// against the plain run on one worker; per fork for the programs that fork
// at every call) and the prediction for two workers (Brent's bounds with
// the plain one-worker time as the work, and the measured parallelisms)
// beside the time two workers took. It fails if the measurement costs more than 3× the plain
// run for the programs whose strands average a microsecond or more. Each
// time is the least of five runs, and the figures those of the run of the
// least span: load on the machine only adds to them.
func TestWorkSpanCost(t *testing.T) {
	if testing.Short() {
		t.Skip("timings: not in -short")
	}
	fib := forkjoin.NewFunc(func(w *forkjoin.Worker, n int) int { return 0 })
	serialFib := func(n int) int {
		var f func(int) int
		f = func(n int) int {
			if n < 2 {
				return n
			}
			return f(n-1) + f(n-2)
		}
		return f(n)
	}
	cutoff := 0
	*fib = *forkjoin.NewFunc(func(w *forkjoin.Worker, n int) int {
		if n < 2 || n <= cutoff {
			return serialFib(n)
		}
		a, b := fib.Join(w, n-1, n-2)
		return a + b
	})
	tree := workloads.NewSumTree(1 << 20)
	var sumDepth func(w *forkjoin.Worker, i int32, d int) int64
	sumDepth = func(w *forkjoin.Worker, i int32, d int) int64 {
		if i < 0 {
			return 0
		}
		if d == 0 {
			return tree.SumSerial(i)
		}
		nd := &tree.Nodes[i]
		l, r := forkjoin.Join(w, func(w *forkjoin.Worker) int64 { return sumDepth(w, nd.Left, d-1) },
			func(w *forkjoin.Worker) int64 { return sumDepth(w, nd.Right, d-1) })
		return nd.Val + l + r
	}
	progs := []struct {
		name   string
		coarse bool // strands of a microsecond or more
		run    func(w *forkjoin.Worker)
		setup  func()
	}{
		{"fib(25), a fork per call", false, func(w *forkjoin.Worker) { fib.Call(w, 25) }, func() { cutoff = 0 }},
		{"fib(32), serial below 14", true, func(w *forkjoin.Worker) { fib.Call(w, 32) }, func() { cutoff = 14 }},
		{"tree sum 2^20, serial below depth 10", true, func(w *forkjoin.Worker) { sumDepth(w, tree.Root(), 10) }, func() {}},
	}
	p1 := forkjoin.New(forkjoin.Workers(1))
	defer p1.Close()
	p2 := forkjoin.New(forkjoin.Workers(2))
	defer p2.Close()
	least := func(f func()) time.Duration {
		best := time.Duration(1 << 62)
		for range 5 {
			t := time.Now()
			f()
			best = min(best, time.Since(t))
		}
		return best
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "program\tplain T1\tmeasured\tcost\tper fork\twork\tspan\tparallelism\tburdened par.\tforks\tT2\tT2 ≥\tT2 ≤\tT2 ≤ (burdened)\t")
	for _, pr := range progs {
		pr.setup()
		t1 := least(func() { forkjoin.Run(p1, pr.run) })
		t2 := least(func() { forkjoin.Run(p2, pr.run) })
		var ws forkjoin.WorkSpan // the run of the least span: load only lengthens it
		tm := least(func() {
			got, err := forkjoin.MeasureWorkSpan(p1, pr.run)
			if err != nil {
				t.Fatal(err)
			}
			if ws.Span == 0 || got.Span < ws.Span {
				ws = got
			}
		})
		// The bounds for two workers, from the plain run's time and the
		// measured parallelisms: the measured work and span both carry
		// the measurement's cost, their ratios much less of it.
		scaled := forkjoin.WorkSpan{Work: t1, Span: time.Duration(float64(t1) / ws.Parallelism()),
			BurdenedSpan: time.Duration(float64(t1) / ws.BurdenedParallelism())}
		b := scaled.Bound(2)
		cost := float64(tm) / float64(t1)
		fmt.Fprintf(tw, "%s\t%v\t%v\t%.2f×\t%v\t%v\t%v\t%.1f\t%.1f\t%d\t%v\t%v\t%v\t%v\t\n", pr.name, t1, tm, cost,
			(tm-t1)/time.Duration(max(ws.Forks, 1)), ws.Work, ws.Span, ws.Parallelism(), ws.BurdenedParallelism(), ws.Forks,
			t2, b.Lower, b.Upper, b.BurdenedUpper)
		if pr.coarse && cost > 3 {
			t.Errorf("%s: the measurement cost %.2f× the plain run, over 3×", pr.name, cost)
		}
	}
	tw.Flush()
}
