package sorts

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/fjkit/fjkit/forkjoin"
)

// sortPool is one scheduler configuration the sorts are tested under.
type sortPool struct {
	name string
	mode forkjoin.Mode
	n    int
}

var sortPools = []sortPool{
	{"WorkStealing/1", forkjoin.WorkStealing, 1},
	{"WorkStealing/2", forkjoin.WorkStealing, 2},
	{"WorkStealing/4", forkjoin.WorkStealing, 4},
	{"SharedQueue/1", forkjoin.SharedQueue, 1},
	{"SharedQueue/2", forkjoin.SharedQueue, 2},
	{"SharedQueue/4", forkjoin.SharedQueue, 4},
}

// forEachSortPool runs f as a subtest under every configuration in
// sortPools, with a pool made for it and closed after it.
func forEachSortPool(t *testing.T, f func(t *testing.T, p *forkjoin.Pool)) {
	t.Helper()
	for _, c := range sortPools {
		t.Run(c.name, func(t *testing.T) {
			p := forkjoin.New(forkjoin.Workers(c.n), forkjoin.WithMode(c.mode))
			defer p.Close()
			f(t, p)
		})
	}
}

// intSort is one of the four sorts applied to ints, the Func forms with
// cmp.Compare.
type intSort struct {
	name string
	sort func(w *forkjoin.Worker, s []int)
}

var intSorts = []intSort{
	{"MergeSort", MergeSort[int]},
	{"MergeSortFunc", func(w *forkjoin.Worker, s []int) { MergeSortFunc(w, s, cmp.Compare[int]) }},
	{"QuickSort", QuickSort[int]},
	{"QuickSortFunc", func(w *forkjoin.Worker, s []int) { QuickSortFunc(w, s, cmp.Compare[int]) }},
}

// sortSizes are lengths on both sides of every cutoff of the sorts, and a
// few beyond the parallel cutoffs, so that every serial and parallel path
// runs.
func sortSizes() []int {
	sizes := []int{0, 1, 2, 3}
	for _, c := range []int{
		insertionSortRun, pdqInsertionCutoff, pdqInsertionCutoffCheap, pdqNintherThreshold, 2 * pdqBlock,
		mergeSerialCutoff, mergeSortSerialCutoff, quickSortSerialCutoff,
	} {
		sizes = append(sizes, c-1, c, c+1)
	}
	sizes = append(sizes, 3*quickSortSerialCutoff+17)
	if !testing.Short() {
		sizes = append(sizes, 5*mergeSortSerialCutoff-3, 1<<20,
			quickSortParallelPartition-1, quickSortParallelPartition, quickSortParallelPartition+1)
	}
	slices.Sort(sizes)
	return slices.Compact(sizes)
}

// pattern makes an input of length n of a named shape.
type pattern struct {
	name string
	make func(n int, r *rand.Rand) []int
}

var patterns = []pattern{
	{"random", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = r.Int()
		}
		return s
	}},
	{"sorted", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return s
	}},
	{"reversed", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = n - i
		}
		return s
	}},
	{"allEqual", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = 7
		}
		return s
	}},
	{"fewDistinct", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = r.IntN(4)
		}
		return s
	}},
	{"sqrtDistinct", func(n int, r *rand.Rand) []int {
		k := int(math.Sqrt(float64(n))) + 1
		s := make([]int, n)
		for i := range s {
			s[i] = r.IntN(k)
		}
		return s
	}},
	{"organPipe", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = min(i, n-1-i)
		}
		return s
	}},
	{"sawtooth", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		period := max(1, n/10)
		for i := range s {
			s[i] = i % period
		}
		return s
	}},
	{"nearlySorted", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		for range max(1, n/100) {
			if n > 0 {
				i, j := r.IntN(n), r.IntN(n)
				s[i], s[j] = s[j], s[i]
			}
		}
		return s
	}},
	{"sortedThenRandom", func(n int, r *rand.Rand) []int {
		s := make([]int, n)
		for i := range s {
			if i < n/2 {
				s[i] = i
			} else {
				s[i] = r.IntN(n)
			}
		}
		return s
	}},
}

// patternCase is an input of one of the patterns and its sorted copy.
type patternCase struct {
	pattern  string
	in, want []int
}

// patternCases makes every pattern at every size in sizes, with want sorted
// by slices.Sort.
func patternCases(r *rand.Rand, sizes []int) []patternCase {
	var cases []patternCase
	for _, n := range sizes {
		for _, pat := range patterns {
			in := pat.make(n, r)
			want := slices.Clone(in)
			slices.Sort(want)
			cases = append(cases, patternCase{pat.name, in, want})
		}
	}
	return cases
}

func TestSortsMatchSlicesSort(t *testing.T) {
	cases := patternCases(rand.New(rand.NewPCG(1, 2)), sortSizes())
	forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, tc := range cases {
			for _, srt := range intSorts {
				got := slices.Clone(tc.in)
				forkjoin.Run(p, func(w *forkjoin.Worker) { srt.sort(w, got) })
				if diff := diffSlices(tc.want, got); diff != "" {
					t.Fatalf("%s(%s, n=%d) differs from slices.Sort (-want +got):\n%s",
						srt.name, tc.pattern, len(tc.in), truncate(diff))
				}
			}
		}
	})
}

// diffSlices returns "" if want and got are equal, and gocmp.Diff's report
// otherwise; gocmp.Diff alone is too slow for the large slices compared here.
func diffSlices[T comparable](want, got []T) string {
	if slices.Equal(want, got) {
		return ""
	}
	return gocmp.Diff(want, got)
}

// truncate keeps a failure message readable when a large slice differs.
func truncate(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "\n..."
	}
	return s
}

// TestQuickSortParallelPartition runs the quicksorts with thresholds scaled
// down so that the parallel partition, which the public entry points use
// only above quickSortParallelPartition elements, runs at every level of
// inputs small enough for the race detector.
func TestQuickSortParallelPartition(t *testing.T) {
	cases := patternCases(rand.New(rand.NewPCG(15, 16)), []int{300, 1000, 5003, 20000})
	forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, tc := range cases {
			got := slices.Clone(tc.in)
			q := newQuickSorter(got, orderedQS[int]{}, 100)
			q.partition, q.chunk = 200, 50
			forkjoin.Run(p, q.run)
			if diff := diffSlices(tc.want, got); diff != "" {
				t.Fatalf("quickSorterOrdered(%s, n=%d) (-want +got):\n%s", tc.pattern, len(tc.in), truncate(diff))
			}
			got = slices.Clone(tc.in)
			qf := newQuickSorter(got, cmpFuncQS[int]{cmp.Compare[int]}, 100)
			qf.partition, qf.chunk = 200, 50
			forkjoin.Run(p, qf.run)
			if diff := diffSlices(tc.want, got); diff != "" {
				t.Fatalf("quickSorterCmpFunc(%s, n=%d) (-want +got):\n%s", tc.pattern, len(tc.in), truncate(diff))
			}
		}
	})
}

// TestSwapRanks checks phase two of the parallel partition on its own: the
// i-th element of the left runs trades places with the i-th of the right
// runs, for ranks in any subrange.
func TestSwapRanks(t *testing.T) {
	data := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	left := []span{{0, 2}, {3, 5}}   // 0 1 3 4
	right := []span{{6, 7}, {8, 11}} // 6 8 9 10
	got := slices.Clone(data)
	swapRanks(got, left, right, 1, 3) // ranks 1, 2: 1<->8, 3<->9
	want := []int{0, 8, 2, 9, 4, 5, 6, 7, 1, 3, 10, 11}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Fatalf("swapRanks ranks [1, 3) (-want +got):\n%s", diff)
	}
	got = slices.Clone(data)
	swapRanks(got, left, right, 0, 4)
	want = []int{6, 8, 2, 9, 10, 5, 0, 7, 1, 3, 4, 11}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Fatalf("swapRanks ranks [0, 4) (-want +got):\n%s", diff)
	}
}

// record is an element whose key is sorted on and whose index remembers
// where it started, so that stability can be checked.
type record struct {
	Key, Index int
}

func compareRecordKeys(a, b record) int { return cmp.Compare(a.Key, b.Key) }

func TestMergeSortFuncIsStable(t *testing.T) {
	type testCase struct {
		pattern  string
		in, want []record
	}
	var cases []testCase
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range sortSizes() {
		for _, pat := range patterns {
			keys := pat.make(n, r)
			in := make([]record, n)
			for i, k := range keys {
				// Few distinct keys, so that many records tie.
				in[i] = record{Key: k % 5, Index: i}
			}
			want := slices.Clone(in)
			slices.SortStableFunc(want, compareRecordKeys)
			cases = append(cases, testCase{pat.name, in, want})
		}
	}
	forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, tc := range cases {
			got := slices.Clone(tc.in)
			forkjoin.Run(p, func(w *forkjoin.Worker) { MergeSortFunc(w, got, compareRecordKeys) })
			if diff := diffSlices(tc.want, got); diff != "" {
				t.Fatalf("MergeSortFunc(%s, n=%d) is not the stable order (-want +got):\n%s",
					tc.pattern, len(tc.in), truncate(diff))
			}
		}
	})
}

// TestSortFloats checks the cmp.Less order (NaNs first) and, for MergeSort,
// stability, which floats make observable: -0 and +0 are equal but
// distinguishable, as are NaNs with different payloads.
func TestSortFloats(t *testing.T) {
	specials := []float64{math.NaN(), math.Float64frombits(0x7ff8000000000abc), math.Inf(1), math.Inf(-1),
		math.Copysign(0, -1), 0, 1, -1}
	r := rand.New(rand.NewPCG(5, 6))
	n := 3*mergeSortSerialCutoff + 11
	in := make([]float64, n)
	for i := range in {
		if r.IntN(3) == 0 {
			in[i] = specials[r.IntN(len(specials))]
		} else {
			in[i] = float64(r.IntN(100) - 50)
		}
	}
	bitsOf := func(s []float64) []uint64 {
		b := make([]uint64, len(s))
		for i, f := range s {
			b[i] = math.Float64bits(f)
		}
		return b
	}
	stable := slices.Clone(in)
	slices.SortStableFunc(stable, cmp.Compare[float64])
	forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
		got := slices.Clone(in)
		forkjoin.Run(p, func(w *forkjoin.Worker) { MergeSort(w, got) })
		if diff := diffSlices(bitsOf(stable), bitsOf(got)); diff != "" {
			t.Fatalf("MergeSort(floats) is not the stable cmp.Compare order (-want +got bits):\n%s", truncate(diff))
		}
		got = slices.Clone(in)
		forkjoin.Run(p, func(w *forkjoin.Worker) { QuickSort(w, got) })
		if !slices.IsSortedFunc(got, cmp.Compare[float64]) {
			t.Fatalf("QuickSort(floats) is not in cmp.Compare order")
		}
		// The same multiset: sort both stably by bits within equal keys.
		byBits := func(a, b float64) int {
			return cmp.Or(cmp.Compare(a, b), cmp.Compare(math.Float64bits(a), math.Float64bits(b)))
		}
		want := slices.Clone(in)
		slices.SortFunc(want, byBits)
		slices.SortFunc(got, byBits)
		if diff := diffSlices(bitsOf(want), bitsOf(got)); diff != "" {
			t.Fatalf("QuickSort(floats) lost or changed elements (-want +got bits):\n%s", truncate(diff))
		}
	})
}

// TestSortStrings runs the ordered sorts on another element type: strings,
// whose comparison is not a single instruction and whose values are
// pointers the garbage collector follows through the scratch buffer.
func TestSortStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	in := make([]string, 2*quickSortSerialCutoff+5)
	for i := range in {
		in[i] = fmt.Sprintf("%x", r.Uint32()%5000)
	}
	want := slices.Clone(in)
	slices.Sort(want)
	forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, srt := range []struct {
			name string
			sort func(w *forkjoin.Worker, s []string)
		}{
			{"MergeSort", MergeSort[string]},
			{"QuickSort", QuickSort[string]},
			{"MergeSortFunc", func(w *forkjoin.Worker, s []string) { MergeSortFunc(w, s, strings.Compare) }},
			{"QuickSortFunc", func(w *forkjoin.Worker, s []string) { QuickSortFunc(w, s, strings.Compare) }},
		} {
			got := slices.Clone(in)
			forkjoin.Run(p, func(w *forkjoin.Worker) { srt.sort(w, got) })
			if diff := diffSlices(want, got); diff != "" {
				t.Fatalf("%s(strings) (-want +got):\n%s", srt.name, truncate(diff))
			}
		}
	})
}

// TestSortsRandomProperty sorts inputs of random length and shape and
// checks the result is the sorted permutation of the input.
func TestSortsRandomProperty(t *testing.T) {
	iters := 50
	if testing.Short() {
		iters = 8
	}
	forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
		r := rand.New(rand.NewPCG(7, 8))
		for it := range iters {
			n := r.IntN(4 * quickSortSerialCutoff)
			pat := patterns[r.IntN(len(patterns))]
			in := pat.make(n, r)
			// Limit the values to provoke duplicates now and then.
			if m := r.IntN(4); m > 0 {
				mod := max(1, n>>(4*m))
				for i := range in {
					in[i] %= mod
				}
			}
			want := slices.Clone(in)
			slices.Sort(want)
			for _, srt := range intSorts {
				got := slices.Clone(in)
				forkjoin.Run(p, func(w *forkjoin.Worker) { srt.sort(w, got) })
				if diff := diffSlices(want, got); diff != "" {
					t.Fatalf("iteration %d: %s(%s, n=%d) (-want +got):\n%s", it, srt.name, pat.name, n, truncate(diff))
				}
			}
		}
	})
}

// TestSortsBOTSCheck is the check of the BOTS sort benchmark: a permutation
// of 0..n-1 scrambled by the benchmark's linear congruential generator must
// sort to a[i] == i.
func TestSortsBOTSCheck(t *testing.T) {
	n := 1 << 17
	if testing.Short() {
		n = 1 << 15
	}
	forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, srt := range intSorts {
			a := botsScrambled(n)
			forkjoin.Run(p, func(w *forkjoin.Worker) { srt.sort(w, a) })
			for i, v := range a {
				if v != i {
					t.Fatalf("%s: a[%d] = %d after sorting a scrambled 0..%d", srt.name, i, v, n-1)
				}
			}
		}
	})
}

// botsScrambled returns 0..n-1 scrambled as the BOTS sort benchmark does:
// swap each a[i] with a[j], j drawn from the generator
// next = next*1103515245 + 12345 seeded with 1, modulo n.
func botsScrambled(n int) []int {
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	next := uint64(1)
	for i := range a {
		next = next*1103515245 + 12345
		j := int(next % uint64(n))
		a[i], a[j] = a[j], a[i]
	}
	return a
}

// antiQuicksort is M. Douglas McIlroy's adversary ("A Killer Adversary for
// Quicksort", Software—Practice and Experience 29(4), 1999). The sort is
// given the indices 0..n-1; each index's value is "gas" (greater than every
// settled value) until a comparison forces it to settle. When two gas
// values meet, the adversary settles the one it believes is not the pivot,
// to the next smallest value, so that the pivot candidate keeps ending up
// at an extreme. The values it settled on form an input on which the same
// deterministic sort makes exactly the comparisons it made here.
type antiQuicksort struct {
	val       []int
	gas       int
	nsolid    int
	candidate int
	compares  int
}

func newAntiQuicksort(n int) *antiQuicksort {
	a := &antiQuicksort{val: make([]int, n), gas: n, candidate: -1}
	for i := range a.val {
		a.val[i] = a.gas
	}
	return a
}

func (a *antiQuicksort) cmp(x, y int) int {
	a.compares++
	if a.val[x] == a.gas && a.val[y] == a.gas {
		if x == a.candidate {
			a.freeze(x)
		} else {
			a.freeze(y)
		}
	}
	if a.val[x] == a.gas {
		a.candidate = x
	} else if a.val[y] == a.gas {
		a.candidate = y
	}
	return cmp.Compare(a.val[x], a.val[y])
}

func (a *antiQuicksort) freeze(i int) {
	a.val[i] = a.nsolid
	a.nsolid++
}

// input returns the adversary's values, the remaining gas settled in index
// order (any order is consistent with comparisons among equal gas values,
// and the sort made none that would tell them apart).
func (a *antiQuicksort) input() []int {
	s := slices.Clone(a.val)
	for i, v := range s {
		if v == a.gas {
			s[i] = a.nsolid
			a.nsolid++
		}
	}
	return s
}

// countingCompare wraps cmp.Compare and counts its calls; tasks call it
// concurrently.
func countingCompare(n *atomic.Int64) func(a, b int) int {
	return func(a, b int) int {
		n.Add(1)
		return cmp.Compare(a, b)
	}
}

// TestSortsComparisonsNotQuadratic bounds the comparisons of the Func sorts
// by c·n·log2(n) on inputs that make naive quicksorts quadratic, McIlroy's
// adversary among them. A quadratic sort makes about n²/4 comparisons, over
// a hundred times the bound at these sizes.
func TestSortsComparisonsNotQuadratic(t *testing.T) {
	const c = 4
	for _, n := range []int{1000, 3*quickSortSerialCutoff + 5} {
		limit := int64(c * float64(n) * math.Log2(float64(n)))
		p := forkjoin.New(forkjoin.Workers(1))

		// The adversary is stateful and needs the comparisons in the order
		// one worker makes them.
		adv := newAntiQuicksort(n)
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		forkjoin.Run(p, func(w *forkjoin.Worker) { QuickSortFunc(w, idx, adv.cmp) })
		p.Close()
		if int64(adv.compares) > limit {
			t.Errorf("n=%d: QuickSortFunc made %d comparisons against McIlroy's adversary, more than %d",
				n, adv.compares, limit)
		}
		t.Logf("n=%d: %d comparisons against the adversary (%.2f·n·log2 n)",
			n, adv.compares, float64(adv.compares)/(float64(n)*math.Log2(float64(n))))
		killer := adv.input()

		inputs := map[string][]int{"antiqsort": killer}
		r := rand.New(rand.NewPCG(9, 10))
		for _, pat := range patterns {
			inputs[pat.name] = pat.make(n, r)
		}
		// The comparison counts do not depend on the scheduler (tasks
		// sort disjoint ranges the same way whoever runs them), so a
		// short run checks a subset of the pools.
		forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
			if testing.Short() && p.Workers() != 2 {
				t.Skip("-short: the counts are the same for every pool")
			}
			for name, in := range inputs {
				want := slices.Clone(in)
				slices.Sort(want)
				for _, srt := range []struct {
					name string
					sort func(w *forkjoin.Worker, s []int, cmp func(a, b int) int)
				}{{"QuickSortFunc", QuickSortFunc[int]}, {"MergeSortFunc", MergeSortFunc[int]}} {
					var count atomic.Int64
					got := slices.Clone(in)
					forkjoin.Run(p, func(w *forkjoin.Worker) { srt.sort(w, got, countingCompare(&count)) })
					if count.Load() > limit {
						t.Errorf("%s(%s, n=%d) made %d comparisons, more than %d = %d·n·log2 n",
							srt.name, name, n, count.Load(), limit, c)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s(%s, n=%d) did not sort", srt.name, name, n)
					}
				}
				// The ordered sort partitions in branch-free blocks,
				// so the adversary's input is just another input for
				// it; its worst case rests on the same heapsort
				// fallback, which TestQuickSortHeapSortFallback
				// checks.
				got := slices.Clone(in)
				forkjoin.Run(p, func(w *forkjoin.Worker) { QuickSort(w, got) })
				if !slices.Equal(got, want) {
					t.Errorf("QuickSort(%s, n=%d) did not sort", name, n)
				}
			}
		})
	}
}

// TestQuickSortHeapSortFallback checks the two defences of the kernel
// against McIlroy's adversary. Played against the kernel with the fallback
// disabled (a limit of n bad partitions), the adversary finds unbalanced
// partitions, but breakPatterns moves the next pivot's samples each time,
// which keeps it from making the kernel quadratic; and a range whose limit
// is spent is heapsorted, making exactly heapsort's comparisons.
func TestQuickSortHeapSortFallback(t *testing.T) {
	n := 5000
	adv := newAntiQuicksort(n)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	pdqCmpFunc(idx, pdqRange{a: 0, b: n, limit: n, balanced: true, partitioned: true}, adv.cmp)
	killer := adv.input()
	nlogn := float64(n) * math.Log2(float64(n))
	t.Logf("n=%d: %d comparisons without the fallback (%.1f·n·log2 n)", n, adv.compares, float64(adv.compares)/nlogn)
	if float64(adv.compares) > 3*nlogn {
		t.Errorf("without the fallback, the adversary took %d comparisons, more than 3·n·log2 n", adv.compares)
	}

	var bounded atomic.Int64
	s := slices.Clone(killer)
	pdqCmpFunc(s, wholeRange(n), countingCompare(&bounded))
	if !slices.IsSorted(s) {
		t.Fatalf("pdqCmpFunc did not sort the adversary's input")
	}
	t.Logf("n=%d: %d comparisons with it (%.1f·n·log2 n)", n, bounded.Load(), float64(bounded.Load())/nlogn)
	if float64(bounded.Load()) > 3*nlogn {
		t.Errorf("with the fallback, the adversary's input took %d comparisons, more than 3·n·log2 n", bounded.Load())
	}

	var spent, heap atomic.Int64
	s = slices.Clone(killer)
	pdqCmpFunc(s, pdqRange{a: 0, b: n, limit: 0, balanced: true, partitioned: true}, countingCompare(&spent))
	if !slices.IsSorted(s) {
		t.Fatalf("pdqCmpFunc with its limit spent did not sort")
	}
	s = slices.Clone(killer)
	heapSortCmpFunc(s, countingCompare(&heap))
	if spent.Load() != heap.Load() {
		t.Errorf("pdqCmpFunc with its limit spent made %d comparisons, heapsort %d", spent.Load(), heap.Load())
	}
}

func TestHeapSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 2, 3, 10, 100, 1001} {
		for _, pat := range patterns {
			in := pat.make(n, r)
			want := slices.Clone(in)
			slices.Sort(want)
			got := slices.Clone(in)
			heapSortOrdered(got)
			if diff := diffSlices(want, got); diff != "" {
				t.Fatalf("heapSortOrdered(%s, n=%d) (-want +got):\n%s", pat.name, n, truncate(diff))
			}
			got = slices.Clone(in)
			heapSortCmpFunc(got, cmp.Compare[int])
			if diff := diffSlices(want, got); diff != "" {
				t.Fatalf("heapSortCmpFunc(%s, n=%d) (-want +got):\n%s", pat.name, n, truncate(diff))
			}
		}
	}
}

// TestCoRank checks the split point of a merge against its definition: the
// first k elements of the stable merge of a and b take i from a.
func TestCoRank(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 300 {
		a := make([]record, r.IntN(40))
		b := make([]record, r.IntN(40))
		for i := range a {
			a[i] = record{Key: r.IntN(6), Index: i}
		}
		for i := range b {
			b[i] = record{Key: r.IntN(6), Index: len(a) + i}
		}
		slices.SortFunc(a, compareRecordKeys)
		slices.SortFunc(b, compareRecordKeys)
		merged := slices.Concat(a, b)
		slices.SortStableFunc(merged, compareRecordKeys)
		akeys := make([]int, len(a))
		bkeys := make([]int, len(b))
		for i := range a {
			akeys[i] = a[i].Key
		}
		for i := range b {
			bkeys[i] = b[i].Key
		}
		for k := 0; k <= len(merged); k++ {
			want := 0
			for _, m := range merged[:k] {
				if m.Index < len(a) {
					want++
				}
			}
			if got := coRankCmpFunc(k, a, b, compareRecordKeys); got != want {
				t.Fatalf("coRankCmpFunc(%d, %v, %v) = %d, want %d", k, a, b, got, want)
			}
			if got := coRankOrdered(k, akeys, bkeys); got != want {
				t.Fatalf("coRankOrdered(%d, %v, %v) = %d, want %d", k, akeys, bkeys, got, want)
			}
		}
		dst := make([]record, len(merged))
		mergeCmpFunc(dst, a, b, compareRecordKeys)
		if diff := diffSlices(merged, dst); diff != "" {
			t.Fatalf("mergeCmpFunc is not the stable merge (-want +got):\n%s", diff)
		}
		dk := make([]int, len(merged))
		mergeOrdered(dk, akeys, bkeys)
		if !slices.IsSorted(dk) || len(dk) != len(merged) {
			t.Fatalf("mergeOrdered(%v, %v) = %v", akeys, bkeys, dk)
		}
	}
}

func TestSortsPanicOnMisuse(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	s := []int{3, 1, 2}
	for _, tc := range []struct {
		want string
		f    func(w *forkjoin.Worker)
	}{
		{"nil worker", func(*forkjoin.Worker) { MergeSort(nil, s) }},
		{"nil worker", func(*forkjoin.Worker) { QuickSort(nil, s) }},
		{"nil worker", func(*forkjoin.Worker) { MergeSortFunc(nil, s, cmp.Compare[int]) }},
		{"nil worker", func(*forkjoin.Worker) { QuickSortFunc(nil, s, cmp.Compare[int]) }},
		{"nil cmp", func(w *forkjoin.Worker) { MergeSortFunc(w, s, nil) }},
		{"nil cmp", func(w *forkjoin.Worker) { QuickSortFunc(w, s, nil) }},
	} {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			forkjoin.Run(p, tc.f)
			return "no panic"
		}()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("got panic %q, want one naming %q", msg, tc.want)
		}
	}
}

// FuzzSorts sorts the fuzzer's bytes, as signed values so that duplicates
// abound, with every sort and compares with slices.Sort; MergeSortFunc must
// also keep equal values in input order.
func FuzzSorts(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 2})
	f.Add([]byte(strings.Repeat("pattern-defeating quicksort ", 40)))
	f.Add(func() []byte {
		b := make([]byte, 3*pdqBlock+7)
		for i := range b {
			b[i] = byte(len(b) - i)
		}
		return b
	}())
	f.Fuzz(func(t *testing.T, data []byte) {
		in := make([]int, len(data))
		for i, b := range data {
			in[i] = int(int8(b))
		}
		want := slices.Clone(in)
		slices.Sort(want)
		for _, srt := range intSorts {
			got := slices.Clone(in)
			forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { srt.sort(w, got) })
			if diff := diffSlices(want, got); diff != "" {
				t.Fatalf("%s(%v) (-want +got):\n%s", srt.name, in, truncate(diff))
			}
		}
		recs := make([]record, len(in))
		for i, v := range in {
			recs[i] = record{Key: v, Index: i}
		}
		wantRecs := slices.Clone(recs)
		slices.SortStableFunc(wantRecs, compareRecordKeys)
		forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { MergeSortFunc(w, recs, compareRecordKeys) })
		if diff := diffSlices(wantRecs, recs); diff != "" {
			t.Fatalf("MergeSortFunc is not stable (-want +got):\n%s", truncate(diff))
		}
	})
}
