package forkjoin_test

import (
	"strconv"
	"sync"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
)

// BenchmarkTreeSum is Spice's benchmark: the values of a balanced binary tree
// of 10^7 nodes summed by forking at every node with two children, with no
// serial cutoff, so that the time beside the serial recursion is the price of
// a fork. The tree and its kernels are internal/workloads', which fjbench
// treesum measures too.

const treeSumNodes = 10_000_000

var benchTree = sync.OnceValue(func() *workloads.SumTree { return workloads.NewSumTree(treeSumNodes) })

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
			check(b, t.SumSerial(0))
		}
	})
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		w := strconv.Itoa(workers)
		b.Run("func/workers="+w, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(b, forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 { return t.SumJoin(w, 0) }))
			}
		})
		b.Run("inline/workers="+w, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(b, forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 { return t.SumInline(w, 0) }))
			}
		})
		b.Run("closure/workers="+w, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(b, forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 { return t.SumClosure(w, 0) }))
			}
		})
		p.Close()
	}
}
