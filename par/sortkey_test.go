package par_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// keyedRecord is a record sorted by a key of type K; pos is its place in the
// input, which shows whether equal keys kept their order.
type keyedRecord[K cmp.Ordered] struct {
	key K
	pos int
	pad [3]int64 //lint:ignore U1000 makes a record as wide as a real one
}

// checkSortByKey sorts records made of keys with SortByKey and compares
// the result with slices.SortStableFunc by cmp.Compare of the keys, and
// checks that key was called once per element.
func checkSortByKey[K cmp.Ordered](t *testing.T, name string, keys []K) {
	t.Helper()
	in := make([]keyedRecord[K], len(keys))
	for i, k := range keys {
		in[i] = keyedRecord[K]{key: k, pos: i}
	}
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b keyedRecord[K]) int { return cmp.Compare(a.key, b.key) })
	got := slices.Clone(in)
	var calls atomic.Int64
	par.SortByKey(got, func(r keyedRecord[K]) K { calls.Add(1); return r.key })
	for i := range want {
		if want[i].pos != got[i].pos {
			t.Fatalf("%s, %d elements: at %d got the element from %d (key %v), slices.SortStableFunc has the one from %d (key %v)",
				name, len(keys), i, got[i].pos, got[i].key, want[i].pos, want[i].key)
		}
	}
	if len(keys) > 1 && calls.Load() != int64(len(keys)) {
		t.Fatalf("%s, %d elements: key called %d times, want once per element", name, len(keys), calls.Load())
	}
}

var sortKeyLengths = []int{0, 1, 2, 3, 17, 300, 600, 5000, 70000}

// keysOf makes n keys of a few shapes: many equal ones (a range of n/10
// values), all distinct, sorted, reversed.
func keysOf[K cmp.Ordered](n int, r *rand.Rand, conv func(int64) K) map[string][]K {
	shapes := map[string][]K{}
	few, wide, sorted := make([]K, n), make([]K, n), make([]K, n)
	for i := range n {
		few[i] = conv(int64(r.IntN(max(1, n/10))) - int64(n/20))
		wide[i] = conv(r.Int64() - math.MaxInt64/2*int64(r.IntN(3)))
		sorted[i] = conv(int64(i / 3))
	}
	// Keys far apart (two radix passes) in clusters that agree in all but
	// their low bits: SortByKey's groups.
	clustered := make([]K, n)
	for i := range n {
		clustered[i] = conv(int64(r.IntN(3)-1)*(math.MaxInt64/2) + int64(r.IntN(max(1, n/4))))
	}
	shapes["clustered"] = clustered
	shapes["equal keys"] = few
	shapes["wide keys"] = wide
	shapes["sorted"] = sorted
	shapes["reversed"] = slices.Clone(sorted)
	slices.Reverse(shapes["reversed"])
	return shapes
}

// testKeyType checks keys of one type. With -short only the main types
// (big) take the longest input, which the race detector makes slow.
func testKeyType[K cmp.Ordered](t *testing.T, typ string, big bool, conv func(int64) K) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range sortKeyLengths {
		if testing.Short() && !big && n > 10000 {
			continue
		}
		for shape, keys := range keysOf(n, r, conv) {
			checkSortByKey(t, fmt.Sprintf("%s/%s", typ, shape), keys)
		}
	}
}

type namedInt int32
type namedString string

// TestSortByKeyStable checks SortByKey against slices.SortStableFunc for
// every kind of key, on random records with many equal keys and others,
// outside any pool and from a task.
func TestSortByKeyStable(t *testing.T) {
	everywhere(t, func(t *testing.T) {
		testKeyType(t, "int", false, func(x int64) int { return int(x) })
		testKeyType(t, "int64", true, func(x int64) int64 { return x })
		testKeyType(t, "int8", false, func(x int64) int8 { return int8(x) })
		testKeyType(t, "uint16", false, func(x int64) uint16 { return uint16(x) })
		testKeyType(t, "uint64", false, func(x int64) uint64 { return uint64(x) })
		testKeyType(t, "namedInt", false, func(x int64) namedInt { return namedInt(x) })
		testKeyType(t, "float64", true, func(x int64) float64 { return float64(x) / 7 })
		testKeyType(t, "float32", false, func(x int64) float32 { return float32(x) / 7 })
		testKeyType(t, "string", true, func(x int64) string { return fmt.Sprint(x % 1000) })
		testKeyType(t, "namedString", false, func(x int64) namedString { return namedString(fmt.Sprint(x % 97)) })
	})
}

// TestSortByKeyFloatsSpecial sorts by float keys with NaNs (of both signs
// and several payloads), ±0 and ±Inf: in slices.Sort's order, NaNs first,
// and stably, so -0 and +0 keep their order, as cmp.Compare has them equal.
func TestSortByKeyFloatsSpecial(t *testing.T) {
	specials := []float64{math.NaN(), -math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000123),
		math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), -1, 1, math.SmallestNonzeroFloat64, -math.MaxFloat64}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{len(specials), 1000, 50000} {
		keys := make([]float64, n)
		for i := range keys {
			keys[i] = specials[r.IntN(len(specials))]
		}
		checkSortByKey(t, "float64 specials", keys)
		keys32 := make([]float32, n)
		for i := range keys32 {
			keys32[i] = float32(keys[i])
		}
		checkSortByKey(t, "float32 specials", keys32)
	}
}

// TestSortByKeyPanicLeavesInput panics in key: the panic comes out as a
// *forkjoin.PanicError and s is as it was.
func TestSortByKeyPanicLeavesInput(t *testing.T) {
	for _, n := range []int{100, 100000} {
		s := randomInts(n, 5)
		orig := slices.Clone(s)
		func() {
			defer func() {
				if _, ok := recover().(*forkjoin.PanicError); !ok {
					t.Errorf("n=%d: a panic in key did not come out as a *forkjoin.PanicError", n)
				}
			}()
			par.SortByKey(s, func(x int) int {
				if x == orig[n/2] {
					panic("bad key")
				}
				return x
			})
		}()
		if !slices.Equal(s, orig) {
			t.Errorf("n=%d: a panic in key changed s", n)
		}
	}
}

// BenchmarkSortByKey sorts 10^6 records by an int64 key, with SortByKey
// and with SortStableFunc and the equivalent comparison, both par's and
// slices'. Run as
//
//	go test -run '^$' -bench 'SortByKey' -benchtime 10x -count 5 ./par
//
// on the default pool (GOMAXPROCS workers; -cpu 2 for 2).
func BenchmarkSortByKey(b *testing.B) {
	const n = 1_000_000
	in := randomRecords(n)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range in {
		in[i].ID = r.Int64() - math.MaxInt64/2 // the whole range: two radix passes
	}
	byID := func(a, b record) int { return cmp.Compare(a.ID, b.ID) }
	id := func(r record) int64 { return r.ID }
	for _, keys := range []string{"random", "narrow"} {
		if keys == "narrow" { // IDs in [0, n): one radix pass
			for i := range in {
				in[i].ID = in[i].ID & (1<<20 - 1)
			}
		}
		sortCase(b, keys+"/par.SortByKey", in, func(s []record) { par.SortByKey(s, id) })
		sortCase(b, keys+"/par.SortStableFunc", in, func(s []record) { par.SortStableFunc(s, byID) })
		sortCase(b, keys+"/slices.SortStableFunc", in, func(s []record) { slices.SortStableFunc(s, byID) })
	}
}
