package par_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/par"
)

// The benchmarks put each par call beside the serial code it replaces, as
// sub-benchmarks of one run: on a shared machine only ratios within one
// run mean much. Run them as
//
//	go test -run '^$' -bench . -benchtime 5x -count 3 ./par
//
// with the default pool at GOMAXPROCS workers (or FJKIT_WORKERS).

// sortCase runs sort on a fresh copy of in each iteration; the copy is
// timed too, on both sides alike.
func sortCase[E any](b *testing.B, name string, in []E, sort func([]E)) {
	b.Run(name, func(b *testing.B) {
		s := make([]E, len(in))
		defer reportCPU(b)()
		for b.Loop() {
			copy(s, in)
			sort(s)
		}
	})
}

// reportCPU, deferred as defer reportCPU(b)(), reports the process's CPU
// time per iteration as cpu-ns/op beside the wall time: wall time on a
// shared machine says how much CPU the benchmark got, CPU time how much
// work it did (garbage collection included).
//
// It collects the garbage first, so that a case does not pay for the
// garbage of the one before (or of the input's making).
func reportCPU(b *testing.B) func() {
	runtime.GC()
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func randomUint64s(n int) []uint64 {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	s := make([]uint64, n)
	for i := range s {
		s[i] = r.Uint64()
	}
	return s
}

// randomStrings returns n strings of 8 to 24 random letters: comparisons
// usually end in the first bytes, as for words or identifiers.
func randomStrings(n int) []string {
	r := rand.New(rand.NewPCG(2, uint64(n)))
	s := make([]string, n)
	var b strings.Builder
	for i := range s {
		b.Reset()
		for range 8 + r.IntN(17) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		s[i] = b.String()
	}
	return s
}

// record is a struct sorted by one field, as rows of a table are.
type record struct {
	ID    int64
	Score float64
	Name  string
}

func randomRecords(n int) []record {
	r := rand.New(rand.NewPCG(3, uint64(n)))
	s := make([]record, n)
	for i := range s {
		s[i] = record{ID: int64(i), Score: r.Float64() * 1000, Name: "r"}
	}
	return s
}

func byScore(a, b record) int { return cmp.Compare(a.Score, b.Score) }

var sizes = []int{1000, 1_000_000, 10_000_000}

func BenchmarkSort(b *testing.B) {
	for _, n := range sizes {
		in := randomUint64s(n)
		b.Run(fmt.Sprintf("uint64/n=%d", n), func(b *testing.B) {
			sortCase(b, "slices.Sort", in, func(s []uint64) { slices.Sort(s) })
			sortCase(b, "par.Sort", in, func(s []uint64) { par.Sort(s) })
		})
	}
	for _, n := range []int{1000, 1_000_000} {
		in := randomStrings(n)
		b.Run(fmt.Sprintf("string/n=%d", n), func(b *testing.B) {
			sortCase(b, "slices.Sort", in, func(s []string) { slices.Sort(s) })
			sortCase(b, "par.Sort", in, func(s []string) { par.Sort(s) })
		})
	}
}

func BenchmarkSortFunc(b *testing.B) {
	for _, n := range []int{1000, 1_000_000} {
		strs := randomStrings(n)
		b.Run(fmt.Sprintf("string/n=%d", n), func(b *testing.B) {
			sortCase(b, "slices.SortFunc", strs, func(s []string) { slices.SortFunc(s, strings.Compare) })
			sortCase(b, "par.SortFunc", strs, func(s []string) { par.SortFunc(s, strings.Compare) })
		})
		recs := randomRecords(n)
		b.Run(fmt.Sprintf("struct/n=%d", n), func(b *testing.B) {
			sortCase(b, "slices.SortFunc", recs, func(s []record) { slices.SortFunc(s, byScore) })
			sortCase(b, "par.SortFunc", recs, func(s []record) { par.SortFunc(s, byScore) })
		})
	}
	for _, n := range sizes {
		in := randomUint64s(n)
		b.Run(fmt.Sprintf("uint64/n=%d", n), func(b *testing.B) {
			sortCase(b, "slices.SortFunc", in, func(s []uint64) { slices.SortFunc(s, cmp.Compare[uint64]) })
			sortCase(b, "par.SortFunc", in, func(s []uint64) { par.SortFunc(s, cmp.Compare[uint64]) })
		})
	}
}

func BenchmarkSortStableFunc(b *testing.B) {
	for _, n := range sizes {
		in := randomUint64s(n)
		b.Run(fmt.Sprintf("uint64/n=%d", n), func(b *testing.B) {
			// The target is stated against slices.Sort's speed.
			sortCase(b, "slices.Sort", in, func(s []uint64) { slices.Sort(s) })
			sortCase(b, "slices.SortStableFunc", in, func(s []uint64) { slices.SortStableFunc(s, cmp.Compare[uint64]) })
			sortCase(b, "par.SortStableFunc", in, func(s []uint64) { par.SortStableFunc(s, cmp.Compare[uint64]) })
		})
	}
	for _, n := range []int{1000, 1_000_000} {
		recs := randomRecords(n)
		b.Run(fmt.Sprintf("struct/n=%d", n), func(b *testing.B) {
			sortCase(b, "slices.SortStableFunc", recs, func(s []record) { slices.SortStableFunc(s, byScore) })
			sortCase(b, "par.SortStableFunc", recs, func(s []record) { par.SortStableFunc(s, byScore) })
		})
	}
}

// The loops' bodies are cheap (a multiply and an add), so the benchmarks
// measure the loops' overhead and memory traffic. Each par call is set
// against two serial loops: "loop" calls the same function values as par
// does, through a non-inlined helper, as generic code would; "inline" is
// the loop a programmer writes by hand, with the body inlined.

const loopN = 10_000_000

func floats(n int) []float64 {
	r := rand.New(rand.NewPCG(4, uint64(n)))
	s := make([]float64, n)
	for i := range s {
		s[i] = r.Float64()
	}
	return s
}

var sinkF []float64
var sinkX float64

//go:noinline
func serialMap(s []float64, f func(float64) float64) []float64 {
	r := make([]float64, len(s))
	for i, x := range s {
		r[i] = f(x)
	}
	return r
}

//go:noinline
func serialReduce(s []float64, zero float64, mapf func(float64) float64, combine func(a, b float64) float64) float64 {
	acc := zero
	for _, x := range s {
		acc = combine(acc, mapf(x))
	}
	return acc
}

//go:noinline
func serialFilter(s []float64, keep func(float64) bool) []float64 {
	var r []float64
	for _, x := range s {
		if keep(x) {
			r = append(r, x)
		}
	}
	return r
}

//go:noinline
func serialScan(s []float64, op func(a, b float64) float64) []float64 {
	r := make([]float64, len(s))
	acc := s[0]
	r[0] = acc
	for i := 1; i < len(s); i++ {
		acc = op(acc, s[i])
		r[i] = acc
	}
	return r
}

func BenchmarkMap(b *testing.B) {
	s := floats(loopN)
	f := func(x float64) float64 { return 2*x + 1 }
	b.Run("inline", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			r := make([]float64, len(s))
			for i, x := range s {
				r[i] = 2*x + 1
			}
			sinkF = r
		}
	})
	b.Run("loop", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sinkF = serialMap(s, f)
		}
	})
	b.Run("par.Map", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sinkF = par.Map(s, f)
		}
	})
}

func BenchmarkReduce(b *testing.B) {
	s := floats(loopN)
	sq := func(x float64) float64 { return x * x }
	add := func(a, b float64) float64 { return a + b }
	b.Run("inline", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			acc := 0.0
			for _, x := range s {
				acc += x * x
			}
			sinkX = acc
		}
	})
	b.Run("loop", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sinkX = serialReduce(s, 0, sq, add)
		}
	})
	b.Run("par.Reduce", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sinkX = par.Reduce(s, 0, sq, add)
		}
	})
}

func BenchmarkFilter(b *testing.B) {
	s := floats(loopN)
	keep := func(x float64) bool { return x < 0.5 }
	b.Run("inline", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			var r []float64
			for _, x := range s {
				if x < 0.5 {
					r = append(r, x)
				}
			}
			sinkF = r
		}
	})
	b.Run("loop", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sinkF = serialFilter(s, keep)
		}
	})
	b.Run("par.Filter", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sinkF = par.Filter(s, keep)
		}
	})
}

func BenchmarkScan(b *testing.B) {
	s := floats(loopN)
	add := func(a, b float64) float64 { return a + b }
	b.Run("inline", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			r := make([]float64, len(s))
			acc := 0.0
			for i, x := range s {
				acc += x
				r[i] = acc
			}
			sinkF = r
		}
	})
	b.Run("loop", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sinkF = serialScan(s, add)
		}
	})
	b.Run("par.Scan", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sinkF = par.Scan(s, add)
		}
	})
}
