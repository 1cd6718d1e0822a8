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
	runTreeWalk(cfg, b, &sec)
	sec.Notes = append(sec.Notes, "Note: treewalk is the irregular tree (internal/workloads: 10^6 nodes of a file system, "+
		"the Rayon peer's tree group; -n sets its size too, at least 60 009), walked with every way of forking: "+
		"-spawns a Spawn per child, -scope-go one Scope and an s.Go per child, -func-go the same with Func.Go, "+
		"-for forkjoin.For over every node's children, -reducew forkjoin.ReduceW over them, "+
		"-fork-inline Func.Fork per child beside Worker.Inline, -join-inline Func.Join over halves of the child "+
		"lists, a serial loop where Inline says true; par-for nests par.For in the default pool's tasks (its worker count is the default pool's).")
	return sec, b.err
}

// treeWalks are the walks of the irregular tree that fjbench times, as
// forkjoin's BenchmarkTreeWalk does.
var treeWalks = []struct {
	suffix string
	walk   func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot
}{
	{"-spawns", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkSpawn(w, 0) }},
	{"-scope-go", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkScope(w) }},
	{"-func-go", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkFuncGo(w) }},
	{"-for", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkFor(w) }},
	{"-reducew", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkReduce(w) }},
	{"-fork-inline", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkFork(w) }},
	{"-join-inline", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkJoin(w) }},
}

// totSum is a walk's checksum: its three totals, each in bits of its own.
func totSum(x workloads.Tot) uint64 {
	return uint64(x.Bytes)<<24 ^ uint64(x.Files)<<4 ^ uint64(x.GoFiles)
}

// runTreeWalk measures the irregular tree's walks into sec.
func runTreeWalk(cfg *config, b *bench, sec *Section) {
	n := workloads.TreeNodes
	if cfg.n != 0 {
		n = max(cfg.n, workloads.MinTreeNodes)
	}
	t := workloads.NewTree(n)
	base := Result{Scenario: "treewalk", Params: []Param{{"n", strconv.Itoa(n)}}, Work: float64(n), Unit: "nodes"}
	sec.add(b.measureOne(base, contender{scheduler: "serial", work: func() uint64 { return totSum(t.Serial(0)) }}))
	for _, wk := range treeWalks {
		sec.add(measureOurs(b, base, cfg.modes, cfg.workers, wk.suffix, nil, func(w *forkjoin.Worker) uint64 {
			return totSum(wk.walk(w, t))
		}))
	}
	sec.add(b.measureOne(base, contender{scheduler: "par-for", workers: forkjoin.Default().Workers(), work: func() uint64 {
		return totSum(t.WalkPar(0))
	}}))
}
