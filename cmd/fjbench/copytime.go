package main

import (
	"slices"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// addCopyTimes measures, in this run, a parallel copy of n int64s (the
// bytes a sort of n moves in one pass) on a pool of each worker count of
// sec's results (1 for serial code), the median of b.runs runs after a
// warm-up, and sets each result's Copy to it: the group table then states
// the sort's time as a multiple of the machine's copy time, which reads
// the same on any machine.
func addCopyTimes(b *bench, sec *Section, n int) {
	src, dst := make([]int64, n), make([]int64, n)
	for i := range src {
		src[i] = int64(i)
	}
	copies := map[int]time.Duration{}
	for i := range sec.Results {
		r := &sec.Results[i]
		w := max(r.Workers, 1)
		if _, ok := copies[w]; !ok {
			copies[w] = copyTime(b.runs, w, dst, src)
		}
		r.Copy = copies[w]
	}
}

// copyTime returns the median time of runs copies of src to dst on a pool
// of the given workers, four pieces per worker, after one untimed copy.
func copyTime(runs, workers int, dst, src []int64) time.Duration {
	p := forkjoin.New(forkjoin.Workers(workers))
	defer p.Close()
	n, k := len(src), 4*workers
	var ds []time.Duration
	for i := 0; i <= max(runs, 1); i++ {
		start := time.Now()
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.ForRange(w, 0, k, 1, func(_ *forkjoin.Worker, a, b int) {
				for c := a; c < b; c++ {
					copy(dst[c*n/k:(c+1)*n/k], src[c*n/k:(c+1)*n/k])
				}
			})
		})
		if i > 0 {
			ds = append(ds, time.Since(start))
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
