package sorts

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"testing"
	"weak"

	"github.com/fjkit/fjkit/forkjoin"
)

// A sort must leave nothing of the caller's reachable from the pool once it
// returns: its tasks' Funcs used to be made per call from a method value of
// the sorter, which holds the slice, and the workers' record caches keep
// their Funcs as keys.
func TestSortsKeepNothingAlive(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for _, tc := range []struct {
		name string
		sort func(w *forkjoin.Worker, s []int64)
	}{
		{"QuickSort", func(w *forkjoin.Worker, s []int64) { QuickSort(w, s) }},
		{"QuickSortFunc", func(w *forkjoin.Worker, s []int64) { QuickSortFunc(w, s, cmp.Compare[int64]) }},
		{"MergeSort", func(w *forkjoin.Worker, s []int64) { MergeSort(w, s) }},
		{"MergeSortFunc", func(w *forkjoin.Worker, s []int64) { MergeSortFunc(w, s, cmp.Compare[int64]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := make([]int64, 1<<18) // beyond every serial cutoff
			for i := range s {
				s[i] = rand.Int64()
			}
			wp := weak.Make(&s[0])
			forkjoin.Run(p, func(w *forkjoin.Worker) { tc.sort(w, s) })
			s = nil
			for range 3 {
				runtime.GC()
			}
			if wp.Value() != nil {
				t.Error("the sorted slice is still reachable after the sort returned")
			}
		})
	}
}
