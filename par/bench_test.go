package par_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
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

// The loop benchmarks run the workloads of the Rayon peer's par group
// (/work/shared/peers/rayon, `rayon_peer P par`) on the same input, 10⁷
// uint64 from splitmix64 seeded with 7: x*3+1 mapped into a new slice, x>>3
// summed, the prefix sum, the even values kept. Each par call stands beside
// the loop a Go programmer writes by hand (serial), in the same run. The pool
// is the default one, sized by FJKIT_WORKERS; each par row names its size.
// A quiet measurement runs the test binary once per pool size, in turns:
//
//	go test -c -o /tmp/par.test ./par
//	for r in 1 2 3 4 5; do for w in 1 2; do
//		FJKIT_WORKERS=$w /tmp/par.test -test.run '^$' -test.benchtime 20x \
//			-test.bench 'Map|Reduce|Scan|Filter|For|IndexFunc|ContainsFunc|Handlers'
//	done; done | tee /tmp/loops.txt

const loopN = 10_000_000

// splitmix64 returns n values of splitmix64 from state seed, the Rayon
// peer's gen_u64.
func splitmix64(n int, seed uint64) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		seed += 0x9E3779B97F4A7C15
		z := seed
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		s[i] = z ^ (z >> 31)
	}
	return s
}

var loopInput = sync.OnceValue(func() []uint64 { return splitmix64(loopN, 7) })

var (
	sinkS []uint64
	sinkU uint64
	sinkI int
	sinkB bool
)

// loopCase runs fn as the sub-benchmark name, with allocations and CPU
// time reported. A par row's name carries the pool's size.
func loopCase(b *testing.B, name string, fn func()) {
	if strings.HasPrefix(name, "par.") {
		name += fmt.Sprintf("/workers=%d", forkjoin.Default().Workers())
	}
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			fn()
		}
	})
}

func mul3add1(x uint64) uint64 { return x*3 + 1 }
func shr3(x uint64) uint64     { return x >> 3 }
func add(a, b uint64) uint64   { return a + b }
func even(x uint64) bool       { return x&1 == 0 }

func BenchmarkMap(b *testing.B) {
	s := loopInput()
	loopCase(b, "serial", func() {
		r := make([]uint64, len(s))
		for i, x := range s {
			r[i] = x*3 + 1
		}
		sinkS = r
	})
	loopCase(b, "serial-func", func() { sinkS = mapFunc(s, mul3add1) })
	loopCase(b, "par.Map", func() { sinkS = par.Map(s, mul3add1) })
	// The bandwidth floor: a copy into a slice made once.
	dst := make([]uint64, len(s))
	loopCase(b, "copy", func() { copy(dst, s) })
	loopCase(b, "par.ForRange-copy", func() {
		par.ForRange(len(s), func(lo, hi int) { copy(dst[lo:hi], s[lo:hi]) })
	})
}

func BenchmarkReduce(b *testing.B) {
	s := loopInput()
	loopCase(b, "serial", func() {
		sinkU = sumShr3(s)
	})
	loopCase(b, "serial-func", func() { sinkU = reduceFunc(s, 0, shr3, add) })
	loopCase(b, "par.Reduce", func() { sinkU = par.Reduce(s, 0, shr3, add) })
	loopCase(b, "par.ReduceRange", func() { sinkU = reduceRangeShr3(s) })
}

// sumShr3 is the hand-written loop the reductions are measured against.
func sumShr3(s []uint64) uint64 {
	var acc uint64
	for _, x := range s {
		acc += x >> 3
	}
	return acc
}

// The serial-func rows are the floor of a signature that takes function
// values: the hand-written loop through helpers that call them per element,
// as par does, and that the compiler keeps out of the caller (go:noinline),
// so that it cannot see which functions the values hold and inline them
// into the loop. What a par row costs beyond its serial-func row is par's;
// what serial-func costs beyond serial is the calls'.

// mapFunc is the serial map through f.
//
//go:noinline
func mapFunc[E, R any](s []E, f func(E) R) []R {
	r := make([]R, len(s))
	for i, x := range s {
		r[i] = f(x)
	}
	return r
}

// reduceFunc is the serial reduce through mapf and combine.
//
//go:noinline
func reduceFunc[E, R any](s []E, zero R, mapf func(E) R, combine func(R, R) R) R {
	acc := zero
	for _, x := range s {
		acc = combine(acc, mapf(x))
	}
	return acc
}

// forFunc is the serial loop through body.
//
//go:noinline
func forFunc(n int, body func(i int)) {
	for i := range n {
		body(i)
	}
}

// reduceRangeShr3 is sumShr3 through par.ReduceRange, the loop in the body.
func reduceRangeShr3(s []uint64) uint64 {
	return par.ReduceRange(len(s), 0, func(lo, hi int) uint64 { return sumShr3(s[lo:hi]) }, add)
}

func BenchmarkScan(b *testing.B) {
	s := loopInput()
	loopCase(b, "serial", func() {
		r := make([]uint64, len(s))
		var acc uint64
		for i, x := range s {
			acc += x
			r[i] = acc
		}
		sinkS = r
	})
	loopCase(b, "par.Scan", func() { sinkS = par.Scan(s, add) })
}

func BenchmarkFilter(b *testing.B) {
	s := loopInput()
	loopCase(b, "serial", func() {
		var r []uint64
		for _, x := range s {
			if x&1 == 0 {
				r = append(r, x)
			}
		}
		sinkS = r
	})
	loopCase(b, "par.Filter", func() { sinkS = par.Filter(s, even) })
}

// BenchmarkSearch looks for the last element: every element is tested.
func BenchmarkSearch(b *testing.B) {
	s := loopInput()
	want := s[len(s)-1]
	is := func(x uint64) bool { return x == want }
	loopCase(b, "IndexFunc/serial", func() {
		sinkI = -1
		for i, x := range s {
			if x == want {
				sinkI = i
				break
			}
		}
	})
	loopCase(b, "par.IndexFunc", func() { sinkI = par.IndexFunc(s, is) })
	loopCase(b, "par.ContainsFunc", func() { sinkB = par.ContainsFunc(s, is) })
}

// BenchmarkFor runs the tiny-tasks experiment's 2·10⁶ tasks
// (internal/workloads), each storing its result in its own slot, as the
// Rayon peer's seed group does (`rayon_peer P seed`, row rayon-iter:
// par_iter_mut).
func BenchmarkFor(b *testing.B) {
	const tasks = 2_000_000
	out := make([]uint64, tasks)
	for _, weight := range []int{4, 20} {
		b.Run(fmt.Sprintf("weight=%d", weight), func(b *testing.B) {
			loopCase(b, "serial", func() {
				for i := range out {
					out[i] = workloads.TinyTask(uint64(i), weight)
				}
			})
			loopCase(b, "serial-func", func() {
				forFunc(len(out), func(i int) { out[i] = workloads.TinyTask(uint64(i), weight) })
			})
			loopCase(b, "par.For", func() {
				par.For(len(out), func(i int) { out[i] = workloads.TinyTask(uint64(i), weight) })
			})
			loopCase(b, "par.ForRange", func() {
				par.ForRange(len(out), func(lo, hi int) {
					for i := lo; i < hi; i++ {
						out[i] = workloads.TinyTask(uint64(i), weight)
					}
				})
			})
		})
	}
}

// BenchmarkHandlers is a server's load: 16 goroutines answer requests, each
// request a map of 10⁵ items into a new slice and a sum over it. An op is
// one request; fewer ns/op means more requests answered in the same time.
func BenchmarkHandlers(b *testing.B) {
	const handlers, items = 16, 100_000
	s := loopInput()[:items]
	var want uint64
	for _, x := range s {
		want += (x*3 + 1) >> 3
	}
	handle := func(b *testing.B, name string, request func() uint64) {
		loopName := name
		if strings.HasPrefix(name, "par.") {
			loopName += fmt.Sprintf("/workers=%d", forkjoin.Default().Workers())
		}
		b.Run(loopName, func(b *testing.B) {
			if got := request(); got != want {
				b.Fatalf("%s = %d, want %d", name, got, want)
			}
			b.ReportAllocs()
			defer reportCPU(b)()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range handlers {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						sinkU = request()
					}
				})
			}
			wg.Wait()
		})
	}
	handle(b, "serial", func() uint64 {
		m := make([]uint64, len(s))
		for i, x := range s {
			m[i] = x*3 + 1
		}
		var sum uint64
		for _, x := range m {
			sum += x >> 3
		}
		return sum
	})
	handle(b, "serial-func", func() uint64 { return reduceFunc(mapFunc(s, mul3add1), 0, shr3, add) })
	handle(b, "par.Map+Reduce", func() uint64 { return par.Reduce(par.Map(s, mul3add1), 0, shr3, add) })
	// The map fused into the sum: no slice between them, serially and
	// with par.
	handle(b, "serial-fused", func() uint64 {
		var sum uint64
		for _, x := range s {
			sum += (x*3 + 1) >> 3
		}
		return sum
	})
	handle(b, "par.ReduceRange", func() uint64 {
		return par.ReduceRange(len(s), 0, func(lo, hi int) uint64 {
			var sum uint64
			for _, x := range s[lo:hi] {
				sum += (x*3 + 1) >> 3
			}
			return sum
		}, add)
	})
}

// BenchmarkGroupTreeWalk walks the irregular tree (10⁶ nodes, each hashing
// 64 bytes) with a Group per directory, against the serial recursion, on
// pools of 1 and 2 workers: "group" passes every child to Go, "group-dirs"
// only the subdirectories, and "serial-closures" is group-dirs' floor.
func BenchmarkGroupTreeWalk(b *testing.B) {
	t := hashTree()
	want := t.SerialHash(0)
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got := t.SerialHash(0); got != want {
				b.Fatalf("serial walk = %v, want %v", got, want)
			}
		}
	})
	// The floor of group-dirs' code shape: its closures and results slice,
	// made and called in order with no scheduler (see WalkClosures).
	b.Run("serial-closures", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got := t.WalkClosures(0); got != want {
				b.Fatalf("serial-closures walk = %v, want %v", got, want)
			}
		}
	})
	walks := []struct {
		name string
		walk func(int32) workloads.HashTot
	}{{"group", t.WalkGroup}, {"group-dirs", t.WalkGroupDirs}}
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		for _, wk := range walks {
			b.Run(wk.name+"/workers="+strconv.Itoa(workers), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if got := forkjoin.Invoke(p, func(*forkjoin.Worker) workloads.HashTot { return wk.walk(0) }); got != want {
						b.Fatalf("%s walk = %v, want %v", wk.name, got, want)
					}
				}
			})
		}
		p.Close()
	}
}

var hashTree = sync.OnceValue(func() *workloads.Tree { return workloads.NewTree(workloads.TreeNodes) })
