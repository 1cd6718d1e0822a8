package par_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// The radix sort's benchmarks state its time as a multiple of the time of
// a parallel copy of the same bytes, measured in the same run (x-copy):
// a radix pass reads and writes the whole array, so the ratio says how
// many copies the sort costs, on any machine. Run them as
//
//	go test -run '^$' -bench 'BenchmarkCopy|BenchmarkSortUint64|BenchmarkSortKinds' -benchtime 10x -count 5 ./par
//
// BenchmarkCopy reports the copy alone, each sort benchmark its own copy
// time (copy-ns) and the ratio (x-copy). Only the sort is timed: the
// input is restored with the timer stopped. Pools have 1 and 2 workers.

// benchWorkers are the pool sizes of the sort benchmarks.
var benchWorkers = []int{1, 2}

// parallelCopy copies src to dst in pieces on w's pool, four per worker.
func parallelCopy[E any](w *forkjoin.Worker, dst, src []E) {
	n := len(src)
	k := 4 * w.Pool().Workers()
	forkjoin.ForRange(w, 0, k, 1, func(_ *forkjoin.Worker, a, b int) {
		for c := a; c < b; c++ {
			lo, hi := c*n/k, (c+1)*n/k
			copy(dst[lo:hi], src[lo:hi])
		}
	})
}

// copyTime returns the least time of a few parallel copies of src on p.
func copyTime[E any](p *forkjoin.Pool, src []E) time.Duration {
	dst := make([]E, len(src))
	best := time.Duration(math.MaxInt64)
	for range 7 {
		start := time.Now()
		forkjoin.Run(p, func(w *forkjoin.Worker) { parallelCopy(w, dst, src) })
		best = min(best, time.Since(start))
	}
	return best
}

// BenchmarkCopy is the parallel copy of 10^7 uint64 (80 MB) on its own:
// the unit the sort benchmarks state their time in.
func BenchmarkCopy(b *testing.B) {
	src := splitmix64(1e7, 42)
	dst := make([]uint64, len(src))
	for _, workers := range benchWorkers {
		b.Run(fmt.Sprintf("n=1e7/workers=%d", workers), func(b *testing.B) {
			p := forkjoin.New(forkjoin.Workers(workers))
			defer p.Close()
			b.SetBytes(int64(8 * len(src)))
			for b.Loop() {
				forkjoin.Run(p, func(w *forkjoin.Worker) { parallelCopy(w, dst, src) })
			}
		})
	}
}

// sortBench times sort on in, restored before each iteration with the
// timer stopped, on a pool of the given workers, and reports the time of
// a parallel copy of in measured just before (copy-ns) and the sort's
// time in copies (x-copy), and the process's CPU time during the sorts
// (cpu-ns/op), which a loaded machine distorts less than the wall time.
func sortBench[E any](b *testing.B, workers int, in []E, sort func([]E)) {
	p := forkjoin.New(forkjoin.Workers(workers))
	defer p.Close()
	s := make([]E, len(in))
	copyNs := float64(copyTime(p, in).Nanoseconds())
	var cpu time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		forkjoin.Run(p, func(w *forkjoin.Worker) { parallelCopy(w, s, in) })
		c := processCPU()
		b.StartTimer()
		forkjoin.Run(p, func(*forkjoin.Worker) { sort(s) })
		b.StopTimer()
		cpu += processCPU() - c
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(copyNs, "copy-ns")
	b.ReportMetric(perOp/copyNs, "x-copy")
}

// BenchmarkSortUint64 is par.Sort of 10^7 random uint64, the Rayon peer's
// input (splitmix64 from 42), and of 10^6.
func BenchmarkSortUint64(b *testing.B) {
	for _, n := range []int{1e6, 1e7} {
		in := splitmix64(n, 42)
		for _, workers := range benchWorkers {
			b.Run(fmt.Sprintf("n=1e%d/workers=%d", int(math.Log10(float64(n))), workers), func(b *testing.B) {
				sortBench(b, workers, in, func(s []uint64) { par.Sort(s) })
			})
		}
	}
}

// BenchmarkSortFloat64 is par.Sort of 10^7 random float64s in [0, 1).
func BenchmarkSortFloat64(b *testing.B) {
	bits := splitmix64(1e7, 43)
	in := make([]float64, len(bits))
	for i, x := range bits {
		in[i] = float64(x>>11) / (1 << 53)
	}
	for _, workers := range benchWorkers {
		b.Run(fmt.Sprintf("n=1e7/workers=%d", workers), func(b *testing.B) {
			sortBench(b, workers, in, func(s []float64) { par.Sort(s) })
		})
	}
}

// BenchmarkSortUint32 is par.Sort of 10^7 random uint32.
func BenchmarkSortUint32(b *testing.B) {
	bits := splitmix64(1e7, 44)
	in := make([]uint32, len(bits))
	for i, x := range bits {
		in[i] = uint32(x)
	}
	for _, workers := range benchWorkers {
		b.Run(fmt.Sprintf("n=1e7/workers=%d", workers), func(b *testing.B) {
			sortBench(b, workers, in, func(s []uint32) { par.Sort(s) })
		})
	}
}

// sortKinds are the skewed inputs of BenchmarkSortKinds, n uint64 each:
// the presorted shapes, few distinct values, keys with few bits set, and
// Bentley and McIlroy's distributions (sawtooth, rand, stagger, plateau,
// shuffle with m = n/16, as "Engineering a Sort Function", 1993).
func sortKinds(n int) map[string][]uint64 {
	r := rand.New(rand.NewPCG(9, uint64(n)))
	random := splitmix64(n, 45)
	kinds := map[string][]uint64{}
	gen := func(name string, f func(i int) uint64) {
		s := make([]uint64, n)
		for i := range s {
			s[i] = f(i)
		}
		kinds[name] = s
	}
	sorted := slices.Clone(random)
	slices.Sort(sorted)
	kinds["sorted"] = sorted
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed)
	kinds["reversed"] = reversed
	gen("equal", func(int) uint64 { return random[0] })
	gen("few16", func(i int) uint64 { return random[random[i]%16] })
	gen("bits4", func(i int) uint64 { return random[i] & 0x8000_0100_0010_0001 })
	gen("low16", func(i int) uint64 { return random[i] & 0xFFFF })
	gen("nearly", func(i int) uint64 { return uint64(i) })
	for range n / 200 {
		s := kinds["nearly"]
		i, j := r.IntN(n), r.IntN(n)
		s[i], s[j] = s[j], s[i]
	}
	m := uint64(n / 16)
	gen("bm-sawtooth", func(i int) uint64 { return uint64(i) % m })
	gen("bm-rand", func(int) uint64 { return r.Uint64N(m) })
	gen("bm-stagger", func(i int) uint64 { return (uint64(i)*m + uint64(i)) % uint64(n) })
	gen("bm-plateau", func(i int) uint64 { return min(uint64(i), m) })
	gen("bm-shuffle", func(int) uint64 {
		if r.Uint64N(m) == 0 {
			return r.Uint64N(uint64(n)) * 2
		}
		return r.Uint64N(uint64(n))*2 + 1
	})
	return kinds
}

// sortKindNames orders the kinds of sortKinds in reports.
var sortKindNames = []string{"sorted", "reversed", "equal", "nearly", "few16", "bits4", "low16",
	"bm-sawtooth", "bm-rand", "bm-stagger", "bm-plateau", "bm-shuffle"}

// BenchmarkSortKinds is par.Sort of the skewed inputs of 10^7 uint64.
func BenchmarkSortKinds(b *testing.B) {
	kinds := sortKinds(1e7)
	for _, name := range sortKindNames {
		for _, workers := range benchWorkers {
			b.Run(fmt.Sprintf("kind=%s/n=1e7/workers=%d", name, workers), func(b *testing.B) {
				sortBench(b, workers, kinds[name], func(s []uint64) { par.Sort(s) })
			})
		}
	}
}

// BenchmarkSortByKeyRecords is par.SortByKey of 10^7 24-byte records by
// a random uint64 field, and of the same by a float64 field.
func BenchmarkSortByKeyRecords(b *testing.B) {
	type rec struct {
		K uint64
		F float64
		I int64
	}
	keys := splitmix64(1e7, 46)
	in := make([]rec, len(keys))
	for i, k := range keys {
		in[i] = rec{K: k, F: float64(k>>11) / (1 << 53), I: int64(i)}
	}
	for _, workers := range benchWorkers {
		b.Run(fmt.Sprintf("key=uint64/n=1e7/workers=%d", workers), func(b *testing.B) {
			sortBench(b, workers, in, func(s []rec) { par.SortByKey(s, func(r rec) uint64 { return r.K }) })
		})
		b.Run(fmt.Sprintf("key=float64/n=1e7/workers=%d", workers), func(b *testing.B) {
			sortBench(b, workers, in, func(s []rec) { par.SortByKey(s, func(r rec) float64 { return r.F }) })
		})
	}
}

// BenchmarkSortStrings is par.Sort of 10^6 random strings.
func BenchmarkSortStrings(b *testing.B) {
	in := randomStrings(1e6)
	for _, workers := range benchWorkers {
		b.Run(fmt.Sprintf("n=1e6/workers=%d", workers), func(b *testing.B) {
			sortBench(b, workers, in, func(s []string) { par.Sort(s) })
		})
	}
}
