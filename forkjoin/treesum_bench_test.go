package forkjoin_test

import (
	"strconv"
	"sync"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// BenchmarkTreeSum is Spice's benchmark: the values of a balanced binary tree
// of 10^7 nodes summed by forking at every node with two children, with no
// serial cutoff, so that the time beside the serial recursion is the price of
// a fork. cmd/fjbench's treesum scenario measures the same tree (it keeps its
// own copy: a command cannot import a test file).

const treeSumNodes = 10_000_000

// sumNode is one node; children are indices into the tree's slice (-1:
// none), so the tree is one allocation the collector does not scan and the
// closure Join's garbage costs only what it costs.
type sumNode struct {
	val         int64
	left, right int32
}

// sumTree is a balanced tree holding 1..n, nodes in preorder.
type sumTree []sumNode

var benchTree = sync.OnceValue(func() sumTree { return newSumTree(treeSumNodes) })

func newSumTree(n int) sumTree {
	t := make(sumTree, 0, n)
	var build func(lo, hi int) int32
	build = func(lo, hi int) int32 {
		if lo >= hi {
			return -1
		}
		mid := lo + (hi-lo)/2
		i := int32(len(t))
		t = append(t, sumNode{val: int64(mid + 1)})
		l := build(lo, mid)
		r := build(mid+1, hi)
		t[i].left, t[i].right = l, r
		return i
	}
	build(0, n)
	return t
}

func (t sumTree) serial(i int32) int64 {
	if i < 0 {
		return 0
	}
	nd := &t[i]
	return nd.val + t.serial(nd.left) + t.serial(nd.right)
}

type sumArg struct {
	t sumTree
	i int32
}

var sumFunc *forkjoin.Func[sumArg, int64]

func init() { sumFunc = forkjoin.NewFunc(sumJoin) }

// sumJoin forks with Func.Join at every node with two children.
func sumJoin(w *forkjoin.Worker, a sumArg) int64 {
	if a.i < 0 {
		return 0
	}
	nd := &a.t[a.i]
	if nd.left < 0 || nd.right < 0 {
		return nd.val + sumJoin(w, sumArg{a.t, max(nd.left, nd.right)})
	}
	l, r := sumFunc.Join(w, sumArg{a.t, nd.left}, sumArg{a.t, nd.right})
	return nd.val + l + r
}

var sumInlineFunc *forkjoin.Func[sumArg, int64]

func init() { sumInlineFunc = forkjoin.NewFunc(sumInline) }

// sumInline is sumJoin with the Worker.Inline guard: the joins that would
// run inline are made as direct calls. A twin rather than a flag in sumArg:
// the flag, one more register per call, made both kernels 10-30 % slower.
func sumInline(w *forkjoin.Worker, a sumArg) int64 {
	if a.i < 0 {
		return 0
	}
	nd := &a.t[a.i]
	if nd.left < 0 || nd.right < 0 {
		return nd.val + sumInline(w, sumArg{a.t, max(nd.left, nd.right)})
	}
	if w.Inline() {
		return nd.val + sumInline(w, sumArg{a.t, nd.left}) + sumInline(w, sumArg{a.t, nd.right})
	}
	l, r := sumInlineFunc.Join(w, sumArg{a.t, nd.left}, sumArg{a.t, nd.right})
	return nd.val + l + r
}

// sumClosure forks with the closure Join at every node with two children.
func sumClosure(w *forkjoin.Worker, t sumTree, i int32) int64 {
	if i < 0 {
		return 0
	}
	nd := &t[i]
	if nd.left < 0 || nd.right < 0 {
		return nd.val + sumClosure(w, t, max(nd.left, nd.right))
	}
	l, r := forkjoin.Join(w,
		func(w *forkjoin.Worker) int64 { return sumClosure(w, t, nd.left) },
		func(w *forkjoin.Worker) int64 { return sumClosure(w, t, nd.right) })
	return nd.val + l + r
}

func BenchmarkTreeSum(b *testing.B) {
	t := benchTree()
	const want = int64(treeSumNodes) * (treeSumNodes + 1) / 2
	check := func(b *testing.B, got int64) {
		if got != want {
			b.Fatalf("sum = %d, want %d", got, want)
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(b, t.serial(0))
		}
	})
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		w := strconv.Itoa(workers)
		b.Run("func/workers="+w, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(b, forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 { return sumJoin(w, sumArg{t, 0}) }))
			}
		})
		b.Run("inline/workers="+w, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(b, forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 { return sumInline(w, sumArg{t, 0}) }))
			}
		})
		b.Run("closure/workers="+w, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(b, forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 { return sumClosure(w, t, 0) }))
			}
		})
		p.Close()
	}
}

// TestSumTree checks the benchmark's tree and its four sums on small trees,
// single-child nodes included, and on one deep enough for Inline to say
// true, so that the benchmark measures right code.
func TestSumTree(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for _, n := range append(seq(50), 1<<14+3) {
		tr := newSumTree(n)
		want := int64(n * (n + 1) / 2)
		if len(tr) != n {
			t.Fatalf("tree of %d has %d nodes", n, len(tr))
		}
		if n == 0 {
			continue
		}
		got := forkjoin.Invoke(p, func(w *forkjoin.Worker) [4]int64 {
			return [4]int64{tr.serial(0), sumJoin(w, sumArg{tr, 0}), sumInline(w, sumArg{tr, 0}), sumClosure(w, tr, 0)}
		})
		if got != [4]int64{want, want, want, want} {
			t.Errorf("tree of %d: serial, Func.Join, Inline, closure sums %v, want %d", n, got, want)
		}
	}
}
