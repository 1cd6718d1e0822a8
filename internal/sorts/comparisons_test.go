package sorts

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/fjkit/fjkit/forkjoin"
)

// bentleyMcIlroy calls f with every input of the test distributions of
// Bentley and McIlroy, "Engineering a Sort Function" (1993), that the
// standard library's sort tests use: five distributions (sawtooth, rand,
// stagger, plateau, shuffle) with every parameter m a power of two below
// 2n, each in six modes (copy, reversed, first half reversed, second half
// reversed, sorted, dithered).
func bentleyMcIlroy(sizes []int, f func(name string, data []int)) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, n := range sizes {
		for m := 1; m < 2*n; m *= 2 {
			for _, dist := range []string{"sawtooth", "rand", "stagger", "plateau", "shuffle"} {
				data := make([]int, n)
				j, k := 0, 1
				for i := range data {
					switch dist {
					case "sawtooth":
						data[i] = i % m
					case "rand":
						data[i] = r.IntN(m)
					case "stagger":
						data[i] = (i*m + i) % n
					case "plateau":
						data[i] = min(i, m)
					case "shuffle":
						if r.IntN(m) != 0 {
							j += 2
							data[i] = j
						} else {
							k += 2
							data[i] = k
						}
					}
				}
				h := n / 2
				for _, mode := range []struct {
					name string
					make func() []int
				}{
					{"copy", func() []int { return slices.Clone(data) }},
					{"reverse", func() []int { s := slices.Clone(data); slices.Reverse(s); return s }},
					{"reverse1", func() []int { s := slices.Clone(data); slices.Reverse(s[:h]); return s }},
					{"reverse2", func() []int { s := slices.Clone(data); slices.Reverse(s[h:]); return s }},
					{"sorted", func() []int { s := slices.Clone(data); slices.Sort(s); return s }},
					{"dither", func() []int {
						s := slices.Clone(data)
						for i := range s {
							s[i] += i % 5
						}
						return s
					}},
				} {
					f(fmt.Sprintf("n=%d/m=%d/%s/%s", n, m, dist, mode.name), mode.make())
				}
			}
		}
	}
}

// TestQuickSortFuncComparisonsBentleyMcIlroy holds QuickSortFunc to the
// comparisons slices.SortFunc makes on the same input: at most 1.3 times as
// many, plus 64. With a costly comparison (strings, structs ordered by
// several fields) comparisons are the time. The counts are the same on any
// pool below the parallel pass threshold (2^17 elements), so one worker,
// which makes the plain counter safe, stands for all.
func TestQuickSortFuncComparisonsBentleyMcIlroy(t *testing.T) {
	sizes := []int{100, 1023, 1024, 1025, 5000, 20000}
	if testing.Short() {
		sizes = []int{100, 1025, 20000}
	}
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	var worst float64
	var worstName string
	bentleyMcIlroy(sizes, func(name string, data []int) {
		var ours, std int
		s := slices.Clone(data)
		slices.SortFunc(s, func(a, b int) int { std++; return a - b })
		want := s
		s = slices.Clone(data)
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			QuickSortFunc(w, s, func(a, b int) int { ours++; return a - b })
		})
		if !slices.Equal(s, want) {
			t.Fatalf("%s: QuickSortFunc did not sort", name)
		}
		if float64(ours) > 1.3*float64(std)+64 {
			t.Errorf("%s: QuickSortFunc made %d comparisons, slices.SortFunc %d (%.2f×)",
				name, ours, std, float64(ours)/float64(std))
		}
		if ratio := float64(ours) / float64(std+64); ratio > worst {
			worst, worstName = ratio, name
		}
	})
	t.Logf("most comparisons relative to slices.SortFunc (+64): %.2f× on %s", worst, worstName)
}

// TestMergeSortFuncRunsOnePass counts the comparisons of the stable sort on
// input that is one run: about one per element, with no scratch buffer, for
// ascending input and for strictly descending input, which it reverses.
func TestMergeSortFuncRunsOnePass(t *testing.T) {
	for _, n := range []int{1000, mergeSortSerialCutoff, 5*mergeSortSerialCutoff + 3} {
		asc := make([]record, n)
		for i := range asc {
			asc[i] = record{Key: i / 3, Index: i} // ties, so only ascending
		}
		desc := make([]record, n)
		for i := range desc {
			desc[i] = record{Key: n - i, Index: i}
		}
		forEachSortPool(t, func(t *testing.T, p *forkjoin.Pool) {
			for name, in := range map[string][]record{"ascending": asc, "descending": desc} {
				want := slices.Clone(in)
				slices.SortStableFunc(want, compareRecordKeys)
				got := slices.Clone(in)
				var count atomic.Int64
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					MergeSortFunc(w, got, func(a, b record) int { count.Add(1); return compareRecordKeys(a, b) })
				})
				runtime.ReadMemStats(&after)
				if !slices.Equal(got, want) {
					t.Fatalf("%s, n=%d: MergeSortFunc did not sort stably", name, n)
				}
				if c := count.Load(); c > int64(n) {
					t.Errorf("%s, n=%d: MergeSortFunc made %d comparisons on one run, more than n", name, n, c)
				}
				// The task function and a few records, never a
				// scratch buffer of n records.
				if b := after.TotalAlloc - before.TotalAlloc; b >= uint64(n)*uint64(unsafe.Sizeof(record{})) {
					t.Errorf("%s, n=%d: MergeSortFunc allocated %d bytes on one run", name, n, b)
				}
			}
		})
	}
}

// TestMergeGallop merges runs that interleave in stretches of every length,
// so that the CmpFunc merge switches to its exponential searches and back,
// and checks the result against the stable merge; with stretches of 512
// elements it must make far fewer comparisons than one per element.
func TestMergeGallop(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for it := range 200 {
		long := it%2 == 1
		var a, b []record
		key := 0
		for len(a)+len(b) < 4000 {
			stretch := 1 << r.IntN(10)
			if long {
				stretch = 512
			}
			for range stretch {
				a = append(a, record{Key: key})
				key += r.IntN(2) // ties, within a run and across the two
			}
			a, b = b, a
		}
		for i := range a {
			a[i].Index = i
		}
		for i := range b {
			b[i].Index = len(a) + i
		}
		want := slices.Concat(a, b)
		slices.SortStableFunc(want, compareRecordKeys)
		got := make([]record, len(want))
		var count int
		mergeCmpFunc(got, a, b, func(x, y record) int { count++; return compareRecordKeys(x, y) })
		if diff := diffSlices(want, got); diff != "" {
			t.Fatalf("mergeCmpFunc is not the stable merge (-want +got):\n%s", truncate(diff))
		}
		if long && count > len(want)/8 {
			t.Fatalf("mergeCmpFunc made %d comparisons merging %d elements in stretches of 512", count, len(want))
		}
	}
}
