package sorts

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// A comparison function that panics leaves the slice a permutation of its
// input, as slices.SortFunc and slices.SortStableFunc do: the insertion sort
// held an element in a local while it shifted the others, and the merge sort
// merged back into the input over elements it had not yet copied out, so an
// element could be lost and another doubled (26 and 107 of 200 panicking
// calls of par.SortFunc and par.SortStableFunc, issue 24).
func TestSortFuncsKeepPermutationWhenCmpPanics(t *testing.T) {
	sorts := []struct {
		name string
		sort func(w *forkjoin.Worker, s []int, cmp func(a, b int) int)
	}{
		{"QuickSortFunc", QuickSortFunc[int]},
		{"MergeSortFunc", MergeSortFunc[int]},
	}
	sizes := []int{insertionSortRun, 100, 1000, mergeSortSerialCutoff + 1, 3*quickSortSerialCutoff + 17}
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	for _, c := range []sortPool{{"WorkStealing/2", forkjoin.WorkStealing, 2}, {"SharedQueue/2", forkjoin.SharedQueue, 2}} {
		p := forkjoin.New(forkjoin.Workers(c.n), forkjoin.WithMode(c.mode))
		defer p.Close()
		for _, srt := range sorts {
			for _, n := range sizes {
				t.Run(fmt.Sprintf("%s/%s/n=%d", c.name, srt.name, n), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(n), 24))
					// About n·log2(n) comparisons in all: a panic
					// anywhere in the sort, serial kernels and merges alike.
					most := n * bits.Len(uint(n))
					for round := range rounds {
						s := rng.Perm(n)
						at := int64(1 + rng.IntN(most))
						var calls atomic.Int64
						panicky := func(a, b int) int {
							if calls.Add(1) == at {
								panic("cmp")
							}
							return cmp.Compare(a, b)
						}
						v := recoverValue(func() { forkjoin.Run(p, func(w *forkjoin.Worker) { srt.sort(w, s, panicky) }) })
						if calls.Load() >= at && v == nil {
							t.Fatalf("round %d: the comparison panicked, the sort did not", round)
						}
						slices.Sort(s)
						for i, x := range s {
							if x != i {
								t.Fatalf("round %d: after a panic at comparison %d the slice is not a permutation of its input: sorted, it has %d at %d", round, at, x, i)
							}
						}
					}
				})
			}
		}
	}
}

func recoverValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// A canceled invocation's Joins run neither side, so a merge sort cut
// short by cancellation must not merge halves that were never sorted into
// its buffer, nor leave a merge back into the slice half done: the slice
// stays a permutation of its input.
func TestMergeSortFuncKeepsPermutationWhenCanceled(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	rng := rand.New(rand.NewPCG(7, 24))
	n := 5000 // with tasks down to 64 elements: many Joins that may see the cancel
	for round := range 50 {
		s := rng.Perm(n)
		at := int64(1 + rng.IntN(n*bits.Len(uint(n))))
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int64
		cmpCancel := func(a, b int) int {
			if calls.Add(1) == at {
				cancel()
			}
			return cmp.Compare(a, b)
		}
		forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
			mergeSort(w, s, cmpFuncMS[int]{cmpCancel}, 64)
			return 0
		})
		cancel()
		slices.Sort(s)
		for i, x := range s {
			if x != i {
				t.Fatalf("round %d: after a cancel at comparison %d the slice is not a permutation of its input: sorted, it has %d at %d", round, at, x, i)
			}
		}
	}
}
