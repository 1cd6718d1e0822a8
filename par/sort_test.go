package par_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSortMatchesSlicesSort(t *testing.T) {
	for name, s := range inputs(t) {
		want := slices.Clone(s)
		slices.Sort(want)
		got := slices.Clone(s)
		par.Sort(got)
		if diff := diff(want, got); diff != "" {
			t.Errorf("%s: Sort (-want +got):\n%.2000s", name, diff)
		}
		got = slices.Clone(s)
		par.SortFunc(got, cmp.Compare[int])
		if diff := diff(want, got); diff != "" {
			t.Errorf("%s: SortFunc (-want +got):\n%.2000s", name, diff)
		}
		got = slices.Clone(s)
		par.SortStableFunc(got, cmp.Compare[int])
		if diff := diff(want, got); diff != "" {
			t.Errorf("%s: SortStableFunc (-want +got):\n%.2000s", name, diff)
		}
	}
}

// sortLike checks par.Sort against slices.Sort on conversions of the
// standard inputs to another element type.
func sortLike[E cmp.Ordered](t *testing.T, conv func(int) E) {
	t.Helper()
	for name, s := range inputs(t) {
		in := make([]E, len(s))
		for i, x := range s {
			in[i] = conv(x)
		}
		want := slices.Clone(in)
		slices.Sort(want)
		par.Sort(in)
		if diff := diff(want, in); diff != "" {
			t.Errorf("%T %s: Sort (-want +got):\n%.2000s", in, name, diff)
		}
	}
}

type celsius int16

func TestSortElementTypes(t *testing.T) {
	sortLike(t, func(x int) uint64 { return uint64(x) * 0x9E3779B97F4A7C15 })
	sortLike(t, func(x int) int64 { return int64(x) << 40 })
	sortLike(t, func(x int) int32 { return int32(x) })
	sortLike(t, func(x int) uint8 { return uint8(x) })
	sortLike(t, func(x int) int8 { return int8(x) })
	sortLike(t, func(x int) celsius { return celsius(x) })
	sortLike(t, func(x int) uintptr { return uintptr(x) })
	sortLike(t, func(x int) float32 { return float32(x) / 3 })
	sortLike(t, strconv.Itoa)
}

// TestSortFloatsSpecial sorts floats full of NaNs (of both signs and
// several payloads), zeros of both signs and infinities: the order must be
// slices.Sort's (NaNs first; -0 and +0 equal) and every bit pattern kept.
func TestSortFloatsSpecial(t *testing.T) {
	negNaN := math.Float64frombits(0xfff8000000000001)
	posNaN := math.Float64frombits(0x7ff0000000000abc)
	specials := []float64{math.NaN(), negNaN, posNaN, math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, -math.MaxFloat64}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{10, 3000, 20000, 1<<17 + 1} {
		s := make([]float64, n)
		for i := range s {
			if r.IntN(4) == 0 {
				s[i] = specials[r.IntN(len(specials))]
			} else {
				s[i] = r.NormFloat64()
			}
		}
		want := slices.Clone(s)
		slices.Sort(want)
		got := slices.Clone(s)
		par.Sort(got)
		if diff := diff(want, got, cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("n=%d: Sort (-want +got):\n%.2000s", n, diff)
		}
		bits := func(s []float64) []uint64 {
			b := make([]uint64, len(s))
			for i, x := range s {
				b[i] = math.Float64bits(x)
			}
			slices.Sort(b)
			return b
		}
		if !slices.Equal(bits(got), bits(s)) {
			t.Errorf("n=%d: Sort changed the multiset of bit patterns", n)
		}
	}
}

// keyed is ordered by key alone; pos tells equal keys apart.
type keyed struct {
	key int
	pos int
}

// TestSortStableFuncIsStable sorts records with many equal keys: the
// result must be exactly slices.SortStableFunc's.
func TestSortStableFuncIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 50, 5000, 1<<17 + 9} {
		s := make([]keyed, n)
		for i := range s {
			s[i] = keyed{key: r.IntN(20), pos: i}
		}
		byKey := func(a, b keyed) int { return cmp.Compare(a.key, b.key) }
		want := slices.Clone(s)
		slices.SortStableFunc(want, byKey)
		got := slices.Clone(s)
		par.SortStableFunc(got, byKey)
		if diff := diff(want, got); diff != "" {
			t.Errorf("n=%d: SortStableFunc (-want +got):\n%.2000s", n, diff)
		}
		// SortFunc promises only the order of keys and the same records.
		got = slices.Clone(s)
		par.SortFunc(got, byKey)
		if !slices.IsSortedFunc(got, byKey) {
			t.Errorf("n=%d: SortFunc left keys out of order", n)
		}
		slices.SortFunc(got, func(a, b keyed) int { return cmp.Compare(a.pos, b.pos) })
		if diff := diff(s, got); diff != "" {
			t.Errorf("n=%d: SortFunc lost or changed records", n)
		}
	}
}

func FuzzSort(f *testing.F) {
	f.Add([]byte{3, 1, 2}, false)
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), true)
	f.Fuzz(func(t *testing.T, data []byte, asFloat bool) {
		// Repeat the input so that it reaches the parallel paths.
		reps := 1 + (1<<15)/max(len(data), 1)
		if asFloat {
			var s []float64
			for range reps {
				for i := 0; i+8 <= len(data); i += 8 {
					u := uint64(data[i]) | uint64(data[i+1])<<8 | uint64(data[i+2])<<16 | uint64(data[i+3])<<24 |
						uint64(data[i+4])<<32 | uint64(data[i+5])<<40 | uint64(data[i+6])<<48 | uint64(data[i+7])<<56
					s = append(s, math.Float64frombits(u))
				}
			}
			want := slices.Clone(s)
			slices.Sort(want)
			par.Sort(s)
			if diff := diff(want, s, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("Sort floats (-want +got):\n%.2000s", diff)
			}
			return
		}
		var s []int16
		for range reps {
			for i := 0; i+2 <= len(data); i += 2 {
				s = append(s, int16(uint16(data[i])|uint16(data[i+1])<<8))
			}
		}
		want := slices.Clone(s)
		slices.Sort(want)
		par.Sort(s)
		if diff := diff(want, s); diff != "" {
			t.Fatalf("Sort int16 (-want +got):\n%.2000s", diff)
		}
	})
}

func FuzzSortFunc(f *testing.F) {
	f.Add([]byte("hello, world"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, keyLen uint8) {
		// Records of keyLen bytes compared as strings by their first byte
		// only, so that many are equal: the stable sort must keep their
		// order, the unstable one their multiset.
		k := int(keyLen%8) + 1
		var s []string
		for range 1 + (1<<13)/max(len(data), 1) {
			for i := 0; i+k <= len(data); i += k {
				s = append(s, string(data[i:i+k])+strconv.Itoa(len(s)))
			}
		}
		first := func(a, b string) int { return cmp.Compare(a[0], b[0]) }
		want := slices.Clone(s)
		slices.SortStableFunc(want, first)
		got := slices.Clone(s)
		par.SortStableFunc(got, first)
		if diff := diff(want, got); diff != "" {
			t.Fatalf("SortStableFunc (-want +got):\n%.2000s", diff)
		}
		got = slices.Clone(s)
		par.SortFunc(got, first)
		if !slices.IsSortedFunc(got, first) {
			t.Fatal("SortFunc: not sorted")
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatal("SortFunc: records lost or changed")
		}
	})
}

// A comparison function that panics leaves the slice a permutation of its
// input, as the doc promises and slices.SortFunc does; the panic comes out
// as a *forkjoin.PanicError. 26 and 107 of 200 such calls of SortFunc and
// SortStableFunc used to lose elements (issue 24).
func TestSortFuncsKeepPermutationWhenCmpPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 4))
	rounds := 30
	if strandMode() {
		rounds = 10 // the scheduler run (FJKIT_RACE=scheduler) takes all 30
	}
	for _, sortName := range []string{"SortFunc", "SortStableFunc"} {
		for _, n := range []int{100, 1 << 14, 1<<16 + 3} {
			for round := range rounds {
				s := r.Perm(n)
				at := int64(1 + r.IntN(n*17))
				var calls atomic.Int64
				panicky := func(a, b int) int {
					if calls.Add(1) == at {
						panic("cmp")
					}
					return cmp.Compare(a, b)
				}
				v := func() (v any) {
					defer func() { v = recover() }()
					if sortName == "SortFunc" {
						par.SortFunc(s, panicky)
					} else {
						par.SortStableFunc(s, panicky)
					}
					return nil
				}()
				if pe, ok := v.(*forkjoin.PanicError); calls.Load() >= at && (!ok || pe.Value != "cmp") {
					t.Fatalf("%s n=%d round %d: the comparison panicked; the call panicked with %v", sortName, n, round, v)
				}
				slices.Sort(s)
				for i, x := range s {
					if x != i {
						t.Fatalf("%s n=%d round %d: after a panic at comparison %d the slice is not a permutation of its input: sorted, it has %d at %d",
							sortName, n, round, at, x, i)
					}
				}
			}
		}
	}
}
