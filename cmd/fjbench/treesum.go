package main

import (
	"math"
	"strconv"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
)

// The treesum scenario is Spice's benchmark (and Chili's): sum the values of
// a balanced binary tree, forking at every node with two children, with no
// serial cutoff. It measures what a fork costs when there is almost no work
// beside it, so that 1 worker against the serial recursion is the price of
// a fork, and 2 workers against 1 is whether the forks that are stolen pay.
// forkjoin/treesum_bench_test.go measures the same under testing.B.

// treeNode is one node, its children as indices into the tree's slice (-1:
// none). Indices rather than pointers keep a tree of 10^7 nodes in one
// allocation that the collector need not scan, so the closure Join's garbage
// does not make every collection walk the tree.
type treeNode struct {
	val         int64
	left, right int32
}

type tree struct{ nodes []treeNode }

// newTree builds a balanced tree holding 1..n, the nodes laid out in
// preorder as a recursive build allocates them.
func newTree(n int) *tree {
	t := &tree{nodes: make([]treeNode, 0, n)}
	var build func(lo, hi int) int32
	build = func(lo, hi int) int32 {
		if lo >= hi {
			return -1
		}
		mid := lo + (hi-lo)/2
		i := int32(len(t.nodes))
		t.nodes = append(t.nodes, treeNode{val: int64(mid + 1)})
		l := build(lo, mid)
		r := build(mid+1, hi)
		t.nodes[i].left, t.nodes[i].right = l, r
		return i
	}
	build(0, n)
	return t
}

// root is the index of the root, -1 for an empty tree.
func (t *tree) root() int32 {
	if len(t.nodes) == 0 {
		return -1
	}
	return 0
}

func (t *tree) sumSerial(i int32) int64 {
	if i < 0 {
		return 0
	}
	nd := &t.nodes[i]
	return nd.val + t.sumSerial(nd.left) + t.sumSerial(nd.right)
}

// treeArg is a subtree to sum: the tree and the index of its root.
type treeArg struct {
	t *tree
	i int32
}

// treeSumFunc sums a subtree with Func.Join, the allocation-free fork.
var treeSumFunc *forkjoin.Func[treeArg, int64]

func init() { treeSumFunc = forkjoin.NewFunc(treeSumJoin) }

func treeSumJoin(w *forkjoin.Worker, a treeArg) int64 {
	if a.i < 0 {
		return 0
	}
	nd := &a.t.nodes[a.i]
	if nd.left < 0 || nd.right < 0 {
		// One child at most: nothing to run in parallel.
		return nd.val + treeSumJoin(w, treeArg{a.t, max(nd.left, nd.right)})
	}
	l, r := treeSumFunc.Join(w, treeArg{a.t, nd.left}, treeArg{a.t, nd.right})
	return nd.val + l + r
}

// treeSumInlineFunc sums a subtree as treeSumFunc does, making the joins
// that would run inline as direct calls (Worker.Inline). A twin of
// treeSumJoin rather than a flag in treeArg, which cost both kernels 10-30 %.
var treeSumInlineFunc *forkjoin.Func[treeArg, int64]

func init() { treeSumInlineFunc = forkjoin.NewFunc(treeSumInline) }

func treeSumInline(w *forkjoin.Worker, a treeArg) int64 {
	if a.i < 0 {
		return 0
	}
	nd := &a.t.nodes[a.i]
	if nd.left < 0 || nd.right < 0 {
		return nd.val + treeSumInline(w, treeArg{a.t, max(nd.left, nd.right)})
	}
	if w.Inline() {
		return nd.val + treeSumInline(w, treeArg{a.t, nd.left}) + treeSumInline(w, treeArg{a.t, nd.right})
	}
	l, r := treeSumInlineFunc.Join(w, treeArg{a.t, nd.left}, treeArg{a.t, nd.right})
	return nd.val + l + r
}

// treeSumClosure sums a subtree with the closure Join.
func treeSumClosure(w *forkjoin.Worker, t *tree, i int32) int64 {
	if i < 0 {
		return 0
	}
	nd := &t.nodes[i]
	if nd.left < 0 || nd.right < 0 {
		return nd.val + treeSumClosure(w, t, max(nd.left, nd.right))
	}
	l, r := forkjoin.Join(w,
		func(w *forkjoin.Worker) int64 { return treeSumClosure(w, t, nd.left) },
		func(w *forkjoin.Worker) int64 { return treeSumClosure(w, t, nd.right) })
	return nd.val + l + r
}

func runTreeSum(cfg *config, b *bench) (Section, error) {
	n := cfg.n
	if n == 0 {
		n = 10_000_000
	}
	if n >= math.MaxInt32 {
		return Section{}, errSize("treesum", "-n", n, "below 2^31-1")
	}
	t := newTree(n)
	sec := Section{Name: "treesum", Notes: []string{"Note: a balanced binary tree of -n nodes (default 10^7), " +
		"summed by forking at every node with two children and no serial cutoff (Spice's benchmark): " +
		"-func forks with Func.Join, -inline with Func.Join behind the Worker.Inline guard " +
		"(the joins that would run inline made as direct calls; in shared-queue mode Inline is always false, " +
		"so shared-inline runs what shared-func runs), -closure with the closure Join."}}
	base := Result{Scenario: "treesum", Params: []Param{{"n", strconv.Itoa(n)}}, Work: float64(n), Unit: "nodes"}
	add := func(rs []Result, err error) error {
		sec.Results = append(sec.Results, rs...)
		return err
	}
	if err := add(b.measureOne(base, contender{scheduler: "serial", work: func() uint64 {
		return uint64(t.sumSerial(t.root()))
	}})); err != nil {
		return sec, err
	}
	if err := add(measureOurs(b, base, cfg.modes, cfg.workers, "-func", nil, func(w *forkjoin.Worker) uint64 {
		return uint64(treeSumJoin(w, treeArg{t, t.root()}))
	})); err != nil {
		return sec, err
	}
	if err := add(measureOurs(b, base, cfg.modes, cfg.workers, "-inline", nil, func(w *forkjoin.Worker) uint64 {
		return uint64(treeSumInline(w, treeArg{t, t.root()}))
	})); err != nil {
		return sec, err
	}
	if err := add(measureOurs(b, base, cfg.modes, cfg.workers, "-closure", nil, func(w *forkjoin.Worker) uint64 {
		return uint64(treeSumClosure(w, t, t.root()))
	})); err != nil {
		return sec, err
	}
	err := runTreeWalk(cfg, b, add)
	sec.Notes = append(sec.Notes, "Note: treewalk is the irregular tree (internal/workloads: 10^6 nodes of a file system, "+
		"the Rayon peer's tree group; -n sets its size too, at least 60 009), walked with every way of forking: "+
		"-spawn a Spawn per child, -scope-go one Scope and an s.Go per child, -func-go the same with Func.Go, "+
		"-for forkjoin.For over every node's children, -reducew forkjoin.ReduceW over them, "+
		"-fork-inline Func.Fork per child beside Worker.Inline, -join-inline Func.Join over halves of the child "+
		"lists with Inline; par-for nests par.For in the default pool's tasks (its worker count is the default pool's).")
	return sec, err
}

// treeWalks are the walks of the irregular tree that fjbench times, as
// forkjoin's BenchmarkTreeWalk does.
var treeWalks = []struct {
	suffix string
	walk   func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot
}{
	{"-spawn", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkSpawn(w, 0) }},
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

// runTreeWalk measures the irregular tree's walks for the treesum section.
func runTreeWalk(cfg *config, b *bench, add func([]Result, error) error) error {
	n := workloads.TreeNodes
	if cfg.n != 0 {
		n = max(cfg.n, workloads.MinTreeNodes)
	}
	t := workloads.NewTree(n)
	base := Result{Scenario: "treewalk", Params: []Param{{"n", strconv.Itoa(n)}}, Work: float64(n), Unit: "nodes"}
	if err := add(b.measureOne(base, contender{scheduler: "serial", work: func() uint64 {
		return totSum(t.Serial(0))
	}})); err != nil {
		return err
	}
	for _, wk := range treeWalks {
		if err := add(measureOurs(b, base, cfg.modes, cfg.workers, wk.suffix, nil, func(w *forkjoin.Worker) uint64 {
			return totSum(wk.walk(w, t))
		})); err != nil {
			return err
		}
	}
	return add(b.measureOne(base, contender{scheduler: "par-for", workers: forkjoin.Default().Workers(), work: func() uint64 {
		return totSum(t.WalkPar(0))
	}}))
}
