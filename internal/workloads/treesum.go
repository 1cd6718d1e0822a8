package workloads

import "github.com/fjkit/fjkit/forkjoin"

// The tree sum is Spice's benchmark (and Chili's): sum the values of a
// balanced binary tree, forking at every node with two children, with no
// serial cutoff. It measures what a fork costs when there is almost no work
// beside it: one worker against the serial recursion is the price of a
// fork, two workers against one whether the forks that are stolen pay.

// SumNode is one node of a SumTree, its children as indices into the tree's
// nodes (-1: none).
type SumNode struct {
	Val         int64
	Left, Right int32
}

// SumTree is the balanced binary tree of the tree sum. Indices rather than
// pointers keep a tree of 10^7 nodes in one allocation that the collector
// need not scan, so the closure Join's garbage does not make every
// collection walk the tree.
type SumTree struct{ Nodes []SumNode }

// NewSumTree builds a balanced tree holding 1..n, its nodes in preorder as a
// recursive build allocates them; its sum is n(n+1)/2.
func NewSumTree(n int) *SumTree {
	t := &SumTree{Nodes: make([]SumNode, 0, n)}
	var build func(lo, hi int) int32
	build = func(lo, hi int) int32 {
		if lo >= hi {
			return -1
		}
		mid := lo + (hi-lo)/2
		i := int32(len(t.Nodes))
		t.Nodes = append(t.Nodes, SumNode{Val: int64(mid + 1)})
		l := build(lo, mid)
		r := build(mid+1, hi)
		t.Nodes[i].Left, t.Nodes[i].Right = l, r
		return i
	}
	build(0, n)
	return t
}

// Root is the index of the root, -1 for an empty tree.
func (t *SumTree) Root() int32 {
	if len(t.Nodes) == 0 {
		return -1
	}
	return 0
}

// SumSerial sums the subtree at i by plain recursion.
func (t *SumTree) SumSerial(i int32) int64 {
	if i < 0 {
		return 0
	}
	nd := &t.Nodes[i]
	return nd.Val + t.SumSerial(nd.Left) + t.SumSerial(nd.Right)
}

// sumArg is a subtree to sum: the tree and the index of its root.
type sumArg struct {
	t *SumTree
	i int32
}

// sumFunc and sumInlineFunc are the two kernels as Funcs, set in init: a
// Func whose body forks itself refers to its own variable.
var sumFunc, sumInlineFunc *forkjoin.Func[sumArg, int64]

func init() {
	sumFunc = forkjoin.NewFunc(sumJoin)
	sumInlineFunc = forkjoin.NewFunc(sumInline)
}

// SumJoin sums the subtree at i with Func.Join, the allocation-free fork.
func (t *SumTree) SumJoin(w *forkjoin.Worker, i int32) int64 { return sumJoin(w, sumArg{t, i}) }

func sumJoin(w *forkjoin.Worker, a sumArg) int64 {
	if a.i < 0 {
		return 0
	}
	nd := &a.t.Nodes[a.i]
	if nd.Left < 0 || nd.Right < 0 {
		// One child at most: nothing to run in parallel.
		return nd.Val + sumJoin(w, sumArg{a.t, max(nd.Left, nd.Right)})
	}
	l, r := sumFunc.Join(w, sumArg{a.t, nd.Left}, sumArg{a.t, nd.Right})
	return nd.Val + l + r
}

// SumInline sums as SumJoin does, making the joins that would run inline
// direct calls (Worker.Inline). It is a twin of SumJoin rather than a flag
// in sumArg, which both kernels would test at every node.
func (t *SumTree) SumInline(w *forkjoin.Worker, i int32) int64 { return sumInline(w, sumArg{t, i}) }

func sumInline(w *forkjoin.Worker, a sumArg) int64 {
	if a.i < 0 {
		return 0
	}
	nd := &a.t.Nodes[a.i]
	if nd.Left < 0 || nd.Right < 0 {
		return nd.Val + sumInline(w, sumArg{a.t, max(nd.Left, nd.Right)})
	}
	if w.Inline() {
		return nd.Val + sumInline(w, sumArg{a.t, nd.Left}) + sumInline(w, sumArg{a.t, nd.Right})
	}
	l, r := sumInlineFunc.Join(w, sumArg{a.t, nd.Left}, sumArg{a.t, nd.Right})
	return nd.Val + l + r
}

// SumClosure sums the subtree at i with the closure Join.
func (t *SumTree) SumClosure(w *forkjoin.Worker, i int32) int64 {
	if i < 0 {
		return 0
	}
	nd := &t.Nodes[i]
	if nd.Left < 0 || nd.Right < 0 {
		return nd.Val + t.SumClosure(w, max(nd.Left, nd.Right))
	}
	l, r := forkjoin.Join(w,
		func(w *forkjoin.Worker) int64 { return t.SumClosure(w, nd.Left) },
		func(w *forkjoin.Worker) int64 { return t.SumClosure(w, nd.Right) })
	return nd.Val + l + r
}
