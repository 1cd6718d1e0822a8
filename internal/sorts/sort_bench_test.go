package sorts

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// BenchmarkSort sorts random int64s with the standard library's serial
// slices.Sort, with MergeSort and QuickSort on pools of 1 and 2 workers,
// and with goroutineMergeSort, the parallel sort a Go programmer would
// write with goroutines and a WaitGroup. Compare ns/op within one run:
//
//	go test -run '^$' -bench 'BenchmarkSort/' -count 5 ./algos/
//
// On the two-core machine this was written on (fastest of six runs, while
// other jobs came and went), 10^7 elements took: slices.Sort 1037 ms,
// goroutines 629 ms, MergeSort 817 ms on one worker and 413 ms on two,
// QuickSort 560 ms and 290 ms. At two workers that is 2.5 and 3.6 times
// slices.Sort, and 1.5 and 2.2 times the goroutine sort.
func BenchmarkSort(b *testing.B) {
	for _, n := range []int{1e6, 1e7} {
		src, s := randomInt64s(1, n), make([]int64, n)
		run := func(name string, sort func(s []int64)) {
			benchSort(b, fmt.Sprintf("n=%.0e/%s", float64(n), name), src, s, sort)
		}
		run("slices.Sort", slices.Sort[[]int64])
		run("goroutines", func(s []int64) { goroutineMergeSort(s) })
		for _, workers := range []int{1, 2} {
			p := forkjoin.New(forkjoin.Workers(workers))
			run(fmt.Sprintf("MergeSort/workers=%d", workers), func(s []int64) {
				forkjoin.Run(p, func(w *forkjoin.Worker) { MergeSort(w, s) })
			})
			run(fmt.Sprintf("QuickSort/workers=%d", workers), func(s []int64) {
				forkjoin.Run(p, func(w *forkjoin.Worker) { QuickSort(w, s) })
			})
			p.Close()
		}
	}
}

// BenchmarkSortPatterns sorts 10^6 ints of the test patterns (sorted,
// reversed, few distinct values, organ pipe, ...) on two workers, beside
// slices.Sort, to show that the patterns a quicksort can stumble over cost
// no more than random input, and the presorted ones much less.
func BenchmarkSortPatterns(b *testing.B) {
	const n = 1e6
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	r := rand.New(rand.NewPCG(4, n))
	for _, pat := range patterns {
		src := pat.make(n, r)
		s := make([]int, n)
		for _, alg := range []struct {
			name string
			sort func(s []int)
		}{
			{"slices.Sort", slices.Sort[[]int]},
			{"MergeSort", func(s []int) { forkjoin.Run(p, func(w *forkjoin.Worker) { MergeSort(w, s) }) }},
			{"QuickSort", func(s []int) { forkjoin.Run(p, func(w *forkjoin.Worker) { QuickSort(w, s) }) }},
		} {
			benchSort(b, pat.name+"/"+alg.name, src, s, alg.sort)
		}
	}
}

// BenchmarkSortFunc is BenchmarkSort for the comparison-function forms,
// against slices.SortFunc and slices.SortStableFunc.
func BenchmarkSortFunc(b *testing.B) {
	const n = 1e6
	src, s := randomInt64s(2, n), make([]int64, n)
	run := func(name string, sort func(s []int64)) { benchSort(b, name, src, s, sort) }
	run("slices.SortFunc", func(s []int64) { slices.SortFunc(s, cmp.Compare[int64]) })
	run("slices.SortStableFunc", func(s []int64) { slices.SortStableFunc(s, cmp.Compare[int64]) })
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		run(fmt.Sprintf("MergeSortFunc/workers=%d", workers), func(s []int64) {
			forkjoin.Run(p, func(w *forkjoin.Worker) { MergeSortFunc(w, s, cmp.Compare[int64]) })
		})
		run(fmt.Sprintf("QuickSortFunc/workers=%d", workers), func(s []int64) {
			forkjoin.Run(p, func(w *forkjoin.Worker) { QuickSortFunc(w, s, cmp.Compare[int64]) })
		})
		p.Close()
	}
}

// BenchmarkSortCutoff sweeps the parallel cutoffs (the subproblem length
// below which MergeSort and QuickSort stop forking) on 1e6 random int64s and
// two workers; the constants mergeSortSerialCutoff and quickSortSerialCutoff
// were chosen from it.
func BenchmarkSortCutoff(b *testing.B) {
	const n = 1e6
	src, s := randomInt64s(3, n), make([]int64, n)
	buf := make([]int64, n)
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for _, cutoff := range []int{1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16} {
		for _, alg := range []struct {
			name string
			sort func(w *forkjoin.Worker)
		}{
			{"MergeSort", func(w *forkjoin.Worker) { parallelMergeSortOrdered(w, s, buf, cutoff) }},
			{"QuickSort", func(w *forkjoin.Worker) { parallelQuickSortOrdered(w, s, cutoff) }},
		} {
			benchSort(b, fmt.Sprintf("%s/cutoff=%d", alg.name, cutoff), src, s, func([]int64) { forkjoin.Run(p, alg.sort) })
		}
	}
}

// randomInt64s returns n pseudo-random int64s, the same for the same seed.
func randomInt64s(seed uint64, n int) []int64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	src := make([]int64, n)
	for i := range src {
		src[i] = r.Int64()
	}
	return src
}

// benchSort times sort on a fresh copy of src in s each iteration (the
// copy untimed), reporting bytes sorted per second, and checks the result.
func benchSort[T cmp.Ordered](b *testing.B, name string, src, s []T, sort func(s []T)) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)) * 8)
		for b.Loop() {
			b.StopTimer()
			copy(s, src)
			b.StartTimer()
			sort(s)
		}
		b.StopTimer()
		if !slices.IsSorted(s) {
			b.Fatalf("%s did not sort", name)
		}
	})
}

// goroutineSortCutoff is the length below which goroutineMergeSort sorts
// serially.
const goroutineSortCutoff = 1 << 14

// goroutineMergeSort is the baseline: the parallel merge sort a Go
// programmer writes without a fork-join library. Each half above a cutoff
// gets a goroutine, slices.Sort sorts below it, and the halves are merged
// serially through a buffer allocated once.
func goroutineMergeSort(s []int64) {
	buf := make([]int64, len(s))
	goroutineMergeSortRec(s, buf)
}

func goroutineMergeSortRec(s, buf []int64) {
	if len(s) <= goroutineSortCutoff {
		slices.Sort(s)
		return
	}
	h := len(s) / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		goroutineMergeSortRec(s[:h], buf[:h])
	}()
	goroutineMergeSortRec(s[h:], buf[h:])
	wg.Wait()
	a, c := s[:h], s[h:]
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(c) {
		if c[j] < a[i] {
			buf[k] = c[j]
			j++
		} else {
			buf[k] = a[i]
			i++
		}
		k++
	}
	k += copy(buf[k:], a[i:])
	copy(buf[k:], c[j:])
	copy(s, buf)
}
