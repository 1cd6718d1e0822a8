package radix

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/sorts"
)

// BenchmarkRadix compares the radix sort with the parallel quicksort it
// competes with and with slices.Sort, on random uint64, at 2 workers.
func BenchmarkRadix(b *testing.B) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for _, n := range []int{1000, 10000, 100000, 1000000, 10000000} {
		r := rand.New(rand.NewPCG(1, 2))
		in := make([]uint64, n)
		for i := range in {
			in[i] = r.Uint64()
		}
		s := make([]uint64, n)
		run := func(name string, sort func([]uint64)) {
			b.Run(fmt.Sprintf("n=%d/%s", n, name), func(b *testing.B) {
				for b.Loop() {
					copy(s, in)
					sort(s)
				}
			})
		}
		run("slices.Sort", func(s []uint64) { slices.Sort(s) })
		run("radix-serial", func(s []uint64) { Sort(nil, s) })
		run("radix-par", func(s []uint64) { forkjoin.Run(p, func(w *forkjoin.Worker) { Sort(w, s) }) })
		run("QuickSort-par", func(s []uint64) { forkjoin.Run(p, func(w *forkjoin.Worker) { sorts.QuickSort(w, s) }) })
	}
}
