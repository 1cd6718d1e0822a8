//go:build fjkit_workspan && !race

package main

import (
	"fmt"
	"os"
	"testing"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
	"github.com/fjkit/fjkit/par"
)

// TestWorkSpanBounds runs fjbench's workloads (fib with a fork at every
// call and with a serial cutoff, a tree sum, UTS, the sorts, matmul)
// plainly on one and on two workers and measured, and prints, for each,
// the measurement's cost (the measured run's time against the plain
// one-worker run; per fork, for the program that forks at every call) and
// the prediction for two workers beside the time two workers took.
//
// The prediction is Brent's bounds with the plain one-worker time as the
// work and the measured parallelisms: the measured work and span both
// carry the measurement's cost, their ratio much less of it. The
// parallelism is measured on the two-worker pool, where par.Sort, the
// sorts' partitioning and MatMul's leaves take the shape they run in, and
// the work is the plain one-worker time scaled by the measured work on two
// workers over that on one. The four kinds of run take turns, five rounds
// after one to warm up; each time is the least of its five, each work the
// least measured, and the span and parallelisms those of the run of the
// least span: load on the machine only adds to them.
//
// It fails if the measurement costs more than 3× the plain run for a
// program whose strands average a microsecond or more (all but fib(25)).
//
// Run it with
//
//	go test -tags fjkit_workspan -run WorkSpanBounds -v ./cmd/fjbench/
func TestWorkSpanBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("timings: not in -short")
	}
	const sortN, matN = 1_000_000, 512
	input := sortInput("random", sortN)
	work := make([]int64, sortN)
	fresh := func() { copy(work, input) }
	a, bm := matInput(matN, 1), matInput(matN, 2)
	c := mat.NewDense(matN, matN, nil)
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
		name    string
		fine    bool // strands of well under a microsecond: no bound on the cost
		prepare func()
		run     func(w *forkjoin.Worker)
	}{
		{"fib(25), a fork per call", true, nil, func(w *forkjoin.Worker) { algos.Fib(w, 25, 0) }},
		{"fib(32), serial below 14", false, nil, func(w *forkjoin.Worker) { algos.Fib(w, 32, 14) }},
		{"tree sum 2^20, serial below depth 10", false, nil, func(w *forkjoin.Worker) { sumDepth(w, tree.Root(), 10) }},
		{"UTS T1 depth 9", false, nil, func(w *forkjoin.Worker) { algos.UTS(w, utsTree(9)) }},
		{"algos.MergeSort 10^6", false, fresh, func(w *forkjoin.Worker) { algos.MergeSort(w, work) }},
		{"algos.QuickSort 10^6", false, fresh, func(w *forkjoin.Worker) { algos.QuickSort(w, work) }},
		{"par.Sort 10^6", false, fresh, func(*forkjoin.Worker) { par.Sort(work) }},
		{"algos.MatMul 512", false, nil, func(w *forkjoin.Worker) { algos.MatMul(w, c, a, bm) }},
	}
	p1 := forkjoin.New(forkjoin.Workers(1))
	defer p1.Close()
	p2 := forkjoin.New(forkjoin.Workers(2))
	defer p2.Close()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "program\tplain T1\tmeasured\tcost\tper fork\twork (1 worker)\twork (2)\tspan (2)\tparallelism\tburdened par.\tforks\tT2\tT2 ≥\tT2 ≤\tT2 ≤ (burdened)\tT2 in bounds\t")
	for _, pr := range progs {
		// The kinds of run take turns, so that a slow spell of the
		// machine (a cold cache, a neighbour's load) falls on all alike.
		once := func(f func()) time.Duration {
			if pr.prepare != nil {
				pr.prepare()
			}
			t := time.Now()
			f()
			return time.Since(t)
		}
		measured := func(p *forkjoin.Pool, ws *forkjoin.WorkSpan, work *time.Duration) func() {
			return func() {
				got, err := forkjoin.MeasureWorkSpan(p, pr.run)
				if err != nil {
					t.Fatal(err)
				}
				if ws != nil && (ws.Span == 0 || got.Span < ws.Span) {
					*ws = got
				}
				if *work == 0 || got.Work < *work {
					*work = got.Work
				}
			}
		}
		var ws forkjoin.WorkSpan
		var work1, work2 time.Duration
		t1, t2, tm := time.Duration(1<<62), time.Duration(1<<62), time.Duration(1<<62)
		for round := range 6 {
			a := once(func() { forkjoin.Run(p1, pr.run) })
			b := once(func() { forkjoin.Run(p2, pr.run) })
			c := once(measured(p1, nil, &work1))
			once(measured(p2, &ws, &work2))
			if round > 0 { // round 0 warms up
				t1, t2, tm = min(t1, a), min(t2, b), min(tm, c)
			}
		}
		// The program's shape on two workers may hold more work than on
		// one (the radix sort's per-worker buckets): its plain work is
		// T1 times the ratio of the two measured works.
		work := time.Duration(float64(t1) * float64(work2) / float64(work1))
		scaled := forkjoin.WorkSpan{Work: work, Span: time.Duration(float64(work) / ws.Parallelism()),
			BurdenedSpan: time.Duration(float64(work) / ws.BurdenedParallelism())}
		b := scaled.Bound(2)
		cost := float64(tm) / float64(t1)
		// Where T2 lies: "yes" between the lower and the burdened upper
		// bound; otherwise how far outside, relative to the bound missed.
		where := "yes"
		switch {
		case t2 < b.Lower:
			where = fmt.Sprintf("%.1f%% below", 100*float64(b.Lower-t2)/float64(b.Lower))
		case t2 > b.BurdenedUpper:
			where = fmt.Sprintf("%.1f%% above", 100*float64(t2-b.BurdenedUpper)/float64(b.BurdenedUpper))
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%.2f×\t%v\t%v\t%v\t%v\t%.1f\t%.1f\t%d\t%v\t%v\t%v\t%v\t%s\t\n", pr.name, t1, tm, cost,
			(tm-t1)/time.Duration(max(ws.Forks, 1)), work1, work2, ws.Span, ws.Parallelism(), ws.BurdenedParallelism(), ws.Forks,
			t2, b.Lower, b.Upper, b.BurdenedUpper, where)
		if !pr.fine && cost > 3 {
			t.Errorf("%s: the measurement cost %.2f× the plain run, over 3×", pr.name, cost)
		}
	}
	tw.Flush()
}
