package main

import (
	"math"
	"strconv"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
)

// The treesum scenario is Spice's benchmark, with the tree and its kernels
// of internal/workloads; forkjoin's BenchmarkTreeSum measures the same under
// testing.B.

func runTreeSum(cfg *config, b *bench) (Section, error) {
	n := cfg.n
	if n == 0 {
		n = 10_000_000
	}
	if n >= math.MaxInt32 {
		return Section{}, errSize("treesum", "-n", n, "below 2^31-1")
	}
	t := workloads.NewSumTree(n)
	sec := Section{Name: "treesum", Notes: []string{"Note: a balanced binary tree of -n nodes (default 10^7), " +
		"summed by forking at every node with two children and no serial cutoff (Spice's benchmark): " +
		"-func forks with Func.Join, -inline with Func.Join behind the Worker.Inline guard " +
		"(the joins that would run inline made as direct calls; in shared-queue mode Inline is always false, " +
		"so shared-inline runs what shared-func runs), -closure with the closure Join."}}
	base := Result{Scenario: "treesum", Params: []Param{{"n", strconv.Itoa(n)}}, Work: float64(n), Unit: "nodes"}
	sec.add(b.measureOne(base, contender{scheduler: "serial", work: func() uint64 { return uint64(t.SumSerial(t.Root())) }}))
	for _, k := range []struct {
		suffix string
		sum    func(*workloads.SumTree, *forkjoin.Worker, int32) int64
	}{{"-func", (*workloads.SumTree).SumJoin}, {"-inline", (*workloads.SumTree).SumInline}, {"-closure", (*workloads.SumTree).SumClosure}} {
		sec.add(measureOurs(b, base, cfg.modes, cfg.workers, k.suffix, nil, func(w *forkjoin.Worker) uint64 {
			return uint64(k.sum(t, w, t.Root()))
		}))
	}
	return sec, b.err
}
