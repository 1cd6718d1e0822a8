package par_test

import (
	"math/rand/v2"
	"testing"

	"github.com/fjkit/fjkit/par"
)

// tree is an irregular tree in breadth-first order: node i's children are
// kids[first[i]:first[i+1]], and every node has a size.
type tree struct {
	first []int32
	kids  []int32
	size  []int64
}

// irregularTree grows n nodes breadth first: each directory gets 0 to 8
// children, two thirds of them directories (the shape issue 26 measured).
func irregularTree(n int) *tree {
	r := rand.New(rand.NewPCG(26, 2))
	t := &tree{first: make([]int32, 1, n+1), size: make([]int64, n)}
	dir := make([]bool, n)
	dir[0] = true
	next := 1
	for i := 0; i < n; i++ {
		if dir[i] {
			for range r.IntN(9) {
				if next == n {
					break
				}
				t.kids = append(t.kids, int32(next))
				dir[next] = r.IntN(3) < 2
				next++
			}
		}
		t.size[i] = int64(r.IntN(100))
		t.first = append(t.first, int32(len(t.kids)))
	}
	t.size = t.size[:next]
	t.first = t.first[:next+1]
	return t
}

func (t *tree) children(i int32) []int32 { return t.kids[t.first[i]:t.first[i+1]] }

func (t *tree) serialSum(i int32) int64 {
	s := t.size[i]
	for _, c := range t.children(i) {
		s += t.serialSum(c)
	}
	return s
}

// closureSink keeps serialAllocSum's closures on the heap.
var closureSink func(int)

// serialAllocSum is serialSum with the allocation parSum cannot avoid: the
// closure it hands par.For, which escapes (a body other workers may run
// must be on the heap), made the same way, once per node. It is the floor
// of a walk through a nested par.For.
func (t *tree) serialAllocSum(i int32, sums []int64) int64 {
	kids := t.children(i)
	f := func(k int) { sums[kids[k]] = t.serialAllocSum(kids[k], sums) }
	closureSink = f
	for k := range kids {
		f(k)
	}
	s := t.size[i]
	for _, c := range kids {
		s += sums[c]
	}
	return s
}

// parSum walks the tree with a par.For over the children of every node,
// each child's total written to sums.
func (t *tree) parSum(i int32, sums []int64) int64 {
	kids := t.children(i)
	par.For(len(kids), func(k int) { sums[kids[k]] = t.parSum(kids[k], sums) })
	s := t.size[i]
	for _, c := range kids {
		s += sums[c]
	}
	return s
}

// BenchmarkNestedFor walks an irregular tree of 10^6 nodes with a par.For
// over the children of every node, beside the serial recursion and the
// serial recursion making parSum's closures (its floor): a par call made
// inside a task is a loop on the calling worker (issue 26), so two workers
// must not be slower than one. Run as
//
//	go test -run '^$' -bench 'NestedFor' -benchtime 10x -count 5 -cpu 1,2 ./par
func BenchmarkNestedFor(b *testing.B) {
	t := irregularTree(1_000_000)
	want := t.serialSum(0)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if t.serialSum(0) != want {
				b.Fatal("wrong sum")
			}
		}
	})
	b.Run("serial-alloc", func(b *testing.B) {
		b.ReportAllocs()
		sums := make([]int64, len(t.size))
		for b.Loop() {
			if t.serialAllocSum(0, sums) != want {
				b.Fatal("wrong sum")
			}
		}
	})
	b.Run("par.For", func(b *testing.B) {
		b.ReportAllocs()
		sums := make([]int64, len(t.size))
		defer reportCPU(b)()
		for b.Loop() {
			if t.parSum(0, sums) != want {
				b.Fatal("wrong sum")
			}
		}
	})
}
