package radix

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/fjkit/fjkit/forkjoin"
)

// sizes cross every threshold: insertion sort, MSD levels, LSD passes,
// and the parallel passes (parMin).
var sizes = []int{0, 1, 2, 17, insertionMax, insertionMax + 1, 1000, lsdMin + 1, lsdMax, lsdMax + 1, parMin + 12345}

func patterns[E cmp.Ordered](n int, gen func(r *rand.Rand) E) map[string][]E {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	random := make([]E, n)
	for i := range random {
		random[i] = gen(r)
	}
	sorted := slices.Clone(random)
	slices.Sort(sorted)
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed)
	few := make([]E, n)
	for i := range few {
		few[i] = random[r.IntN(min(n, 5))]
	}
	equal := make([]E, n)
	if n > 0 {
		for i := range equal {
			equal[i] = random[0]
		}
	}
	return map[string][]E{"random": random, "sorted": sorted, "reversed": reversed, "few": few, "equal": equal}
}

// same reports whether got orders as slices.Sort's want: for integers,
// equal; for floats, equal under cmp.Compare position by position (which
// equates NaNs, and -0 with +0) and holding the same bit patterns (no value
// lost or changed).
func same[E cmp.Ordered](got, want []E) error {
	if len(got) != len(want) {
		return fmt.Errorf("len %d, want %d", len(got), len(want))
	}
	for i := range got {
		if cmp.Compare(got[i], want[i]) != 0 {
			return fmt.Errorf("at %d: %v, want %v", i, got[i], want[i])
		}
	}
	var gb, wb []uint64
	switch g := any(got).(type) {
	case []float64:
		for i, x := range g {
			gb = append(gb, math.Float64bits(x))
			wb = append(wb, math.Float64bits(any(want).([]float64)[i]))
		}
	case []float32:
		for i, x := range g {
			gb = append(gb, uint64(math.Float32bits(x)))
			wb = append(wb, uint64(math.Float32bits(any(want).([]float32)[i])))
		}
	default:
		return nil // equal integers are the same value
	}
	slices.Sort(gb)
	slices.Sort(wb)
	if !slices.Equal(gb, wb) {
		return fmt.Errorf("the multiset of bit patterns changed")
	}
	return nil
}

// check sorts the patterns at every size, except that in -short mode only
// the types that take the float and signed paths and uint64 go to the
// parallel sizes (under -race they are slow).
func check[E cmp.Ordered](t *testing.T, p *forkjoin.Pool, gen func(r *rand.Rand) E) {
	t.Helper()
	for _, n := range sizes {
		if testing.Short() && n >= parMin && !bigInShort[t.Name()] {
			continue
		}
		checkSorts(t, p, n, gen, func(w *forkjoin.Worker, s []E) {
			if !Sort(w, s) {
				t.Errorf("%T: Sort reported false", s)
			}
		})
	}
}

// checkSorts sorts every pattern of n keys with sort, serially (w nil) and
// on p, against slices.Sort.
func checkSorts[E cmp.Ordered](t *testing.T, p *forkjoin.Pool, n int, gen func(r *rand.Rand) E, sort func(w *forkjoin.Worker, s []E)) {
	t.Helper()
	for name, in := range patterns(n, gen) {
		want := slices.Clone(in)
		slices.Sort(want)
		for _, par := range []bool{false, true} {
			got := slices.Clone(in)
			if par {
				forkjoin.Run(p, func(w *forkjoin.Worker) { sort(w, got) })
			} else {
				sort(nil, got)
			}
			if err := same(got, want); err != nil {
				t.Fatalf("%T n=%d %s parallel=%v: %v", got, n, name, par, err)
			}
		}
	}
}

var bigInShort = map[string]bool{
	"TestSortMatchesSlicesSort/uint64":        true,
	"TestSortMatchesSlicesSort/uint64/skew":   true,
	"TestSortMatchesSlicesSort/uint64/groups": true,
	"TestSortMatchesSlicesSort/int64":         true,
	"TestSortMatchesSlicesSort/float64":       true,
	"TestSortMatchesSlicesSort/int32":         true,
}

type named int32

func TestSortMatchesSlicesSort(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	t.Run("uint64", func(t *testing.T) { check(t, p, func(r *rand.Rand) uint64 { return r.Uint64() }) })
	t.Run("uint64/low", func(t *testing.T) { check(t, p, func(r *rand.Rand) uint64 { return r.Uint64N(1000) }) })
	t.Run("uint64/skew", func(t *testing.T) {
		// Most keys share their top bytes: the first MSD digit is not
		// the top byte, and one bucket holds nearly everything.
		check(t, p, func(r *rand.Rand) uint64 {
			if r.IntN(10) == 0 {
				return r.Uint64()
			}
			return 1<<40 | r.Uint64N(1<<30)
		})
	})
	t.Run("uint64/groups", func(t *testing.T) {
		// The keys of a bucket share the top bits that lsd's passes sort
		// by, 8 values of them, and differ below: groups of thousands
		// of keys that lsd leaves to sortBelow.
		check(t, p, func(r *rand.Rand) uint64 { return r.Uint64N(8)<<50 | r.Uint64N(1<<20) })
	})
	t.Run("int64", func(t *testing.T) { check(t, p, func(r *rand.Rand) int64 { return int64(r.Uint64()) }) })
	t.Run("int", func(t *testing.T) { check(t, p, func(r *rand.Rand) int { return r.IntN(2000) - 1000 }) })
	t.Run("uint", func(t *testing.T) { check(t, p, func(r *rand.Rand) uint { return uint(r.Uint64()) }) })
	t.Run("int32", func(t *testing.T) { check(t, p, func(r *rand.Rand) int32 { return int32(r.Uint32()) }) })
	t.Run("named", func(t *testing.T) { check(t, p, func(r *rand.Rand) named { return named(r.Uint32()) }) })
	t.Run("uint32", func(t *testing.T) { check(t, p, func(r *rand.Rand) uint32 { return r.Uint32() }) })
	t.Run("int16", func(t *testing.T) { check(t, p, func(r *rand.Rand) int16 { return int16(r.Uint32()) }) })
	t.Run("uint16", func(t *testing.T) { check(t, p, func(r *rand.Rand) uint16 { return uint16(r.Uint32()) }) })
	t.Run("int8", func(t *testing.T) { check(t, p, func(r *rand.Rand) int8 { return int8(r.Uint32()) }) })
	t.Run("uint8", func(t *testing.T) { check(t, p, func(r *rand.Rand) uint8 { return uint8(r.Uint32()) }) })
	t.Run("uintptr", func(t *testing.T) { check(t, p, func(r *rand.Rand) uintptr { return uintptr(r.Uint64()) }) })
	t.Run("float64", func(t *testing.T) { check(t, p, specialFloat[float64]) })
	t.Run("float32", func(t *testing.T) { check(t, p, specialFloat[float32]) })
	t.Run("float64/normal", func(t *testing.T) { check(t, p, func(r *rand.Rand) float64 { return r.NormFloat64() }) })
}

// specialFloat draws NaNs of both signs and several payloads, ±0, ±Inf,
// the smallest subnormals and ordinary numbers.
func specialFloat[F float32 | float64](r *rand.Rand) F {
	switch r.IntN(12) {
	case 0:
		return F(math.NaN())
	case 1:
		if _, ok := any(F(0)).(float64); ok {
			return F(math.Float64frombits(0xfff8000000000001)) // negative NaN
		}
		return F(math.Float32frombits(0xffc00001))
	case 2:
		if _, ok := any(F(0)).(float64); ok {
			return F(math.Float64frombits(0x7ff0000000000abc)) // positive NaN, another payload
		}
		return F(math.Float32frombits(0x7f800abc))
	case 3:
		return F(math.Copysign(0, -1))
	case 4:
		return 0
	case 5:
		return F(math.Inf(1))
	case 6:
		return F(math.Inf(-1))
	case 7:
		return F(math.SmallestNonzeroFloat64)
	}
	return F(r.NormFloat64() * 1e6)
}

func TestSortable(t *testing.T) {
	if Sortable[string]() {
		t.Error("Sortable[string]() = true")
	}
	if !Sortable[float32]() || !Sortable[named]() {
		t.Error("Sortable false for a number type")
	}
	s := []string{"b", "a"}
	if Sort(nil, s) || s[0] != "b" {
		t.Errorf("Sort on strings = true or changed s: %q", s)
	}
}

// TestLSDBuffer sorts the patterns with lsd sorting buckets through a
// buffer of the worker's (sorter.tmp), which Sort does only from tmpMin
// elements, serially and in parallel, at sizes whose buckets or whole
// input lsd sorts.
func TestLSDBuffer(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	// At parMin+12345, lsd's bounds shrunk to 64..512 make it sort the
	// buckets of an MSD level, into the other slice (as Sort does with
	// 10^7 keys); at the other sizes, the whole input, in place.
	for _, c := range []struct{ n, lo, hi int }{{lsdMin + 1, lsdMin, lsdMax}, {lsdMax, lsdMin, lsdMax}, {parMin + 12345, 64, 512}} {
		n := c.n
		tmpSort := func(w *forkjoin.Worker, s []uint64) {
			r := newSorter[uint64](w, uint64(0), c.lo, c.hi)
			r.tmpMin = 0
			r.sort(w, s)
		}
		checkSorts(t, p, n, func(r *rand.Rand) uint64 { return r.Uint64() }, tmpSort)
		checkSorts(t, p, n, func(r *rand.Rand) uint64 { return r.Uint64N(8)<<50 | r.Uint64N(1<<20) }, tmpSort)
		checkSorts(t, p, n, func(r *rand.Rand) uint64 { return r.Uint64N(1 << 12) }, tmpSort)
	}
}

// TestLSDRuns has lsd sort, through its buffer, keys that share the bits
// its two passes sort by in runs of two, three and more, so that it
// finishes the runs it noted while copying its result out: the keys are
// a random top bit, a prefix p at bits 42-62 and random bits below. The
// cases cover both digits varying, the low digit constant (one pass, so
// that the result is copied into the slice the passes began from), and
// more runs than maxRuns (the groups found by a read of their own).
func TestLSDRuns(t *testing.T) {
	cases := []struct {
		name   string
		n      int
		prefix func(r *rand.Rand) uint64
	}{
		{"two-digits", 1500, func(r *rand.Rand) uint64 { return r.Uint64N(1 << 10) }},
		{"low-digit-constant", 1500, func(r *rand.Rand) uint64 { return r.Uint64N(1<<10) << 11 }},
		{"overflow", 5000, func(r *rand.Rand) uint64 { return r.Uint64N(4) }},
		{"overflow-low-digit-constant", 5000, func(r *rand.Rand) uint64 { return r.Uint64N(4) << 11 }},
	}
	for _, c := range cases {
		for _, toY := range []bool{false, true} {
			r := rand.New(rand.NewPCG(uint64(c.n), 7))
			x := make([]uint64, c.n)
			for i := range x {
				x[i] = r.Uint64N(2)<<63 | c.prefix(r)<<42 | r.Uint64N(1<<42)
			}
			want := slices.Sorted(slices.Values(x))
			y := make([]uint64, c.n)
			s := newSorter[uint64](nil, uint64(0), lsdMin, lsdMax)
			s.tmp = true
			s.lsd(nil, x, y, 64, toY)
			got := x
			if toY {
				got = y
			}
			if err := same(got, want); err != nil {
				t.Errorf("%s toY=%v: %v", c.name, toY, err)
			}
		}
	}
}

// TestWideMSDLevels sorts inputs that, with the bounds of lsd's buckets
// shrunk to 64..512, make msdWidth take a wider digit than 8 bits at the
// top for 64-bit keys (9 bits) and 8 bits for 32-bit ones (not the 10 that
// would leave whole LSD digits), serially and with the parallel scatter.
// With the real bounds that takes more than 2^22 (4.2·10^6) elements, too
// many for the race detector's time.
func TestWideMSDLevels(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	const n = parMin + 12345
	t.Run("uint64", func(t *testing.T) {
		checkWide(t, p, n, uint64(0), 9, func(r *rand.Rand) uint64 { return r.Uint64() })
	})
	t.Run("int64", func(t *testing.T) {
		checkWide(t, p, n, uint64(1)<<63, 9, func(r *rand.Rand) int64 { return int64(r.Uint64()) })
	})
	t.Run("uint32", func(t *testing.T) {
		checkWide(t, p, n, uint32(0), 8, func(r *rand.Rand) uint32 { return r.Uint32() })
	})
	t.Run("int32", func(t *testing.T) {
		checkWide(t, p, n, uint32(1)<<31, 8, func(r *rand.Rand) int32 { return int32(r.Uint32()) })
	})
}

func checkWide[E integer, K unsigned](t *testing.T, p *forkjoin.Pool, n int, flip K, width int, gen func(r *rand.Rand) E) {
	t.Helper()
	const lo, hi = 64, 512
	keyBits := 8 * int(unsafe.Sizeof(flip))
	if got := newSorter[E](nil, flip, lo, hi).msdWidth(n, keyBits); got != width {
		t.Fatalf("msdWidth(%d, %d) = %d, want %d", n, keyBits, got, width)
	}
	checkSorts(t, p, n, gen, func(w *forkjoin.Worker, s []E) { newSorter[E](w, flip, lo, hi).sort(w, s) })
}

// TestMSDWidth checks msdWidth's choice for every number of bits left, on
// inputs whose buckets land in lsd's range at some width and on inputs too
// short for any: never wider than scatter's arrays or the bits left, and
// either 8 bits (or all that is left) or a digit that leaves whole LSD
// digits and buckets of lsd's size.
func TestMSDWidth(t *testing.T) {
	r := newSorter[uint64](nil, uint64(0), lsdMin, lsdMax)
	for below := 1; below <= 64; below++ {
		for _, n := range []int{1000, 78_000, 1_000_000, lsdMin << 6, lsdMin << 9, lsdMin << 10, 10_000_000} {
			got := r.msdWidth(n, below)
			if got < 1 || got > min(below, msdMaxBits) {
				t.Fatalf("msdWidth(%d, %d) = %d: outside [1, %d]", n, below, got, min(below, msdMaxBits))
			}
			if got == min(msdBits, below) {
				if n > lsdMax && n>>got <= lsdMin && got > 1 && n>>(got-1) <= lsdMax {
					t.Errorf("msdWidth(%d, %d) = %d makes buckets of %d, below lsd's, where %d bits make buckets lsd takes", n, below, got, n>>got, got-1)
				}
				continue
			}
			whole := (below-got)%lsdBits == 0 || below-got < 6
			narrowest := got == 1 || n>>(got-1) > lsdMax
			if !whole && !narrowest {
				t.Errorf("msdWidth(%d, %d) = %d leaves %d bits, not whole %d-bit digits, and is not the narrowest digit lsd's buckets allow", n, below, got, below-got, lsdBits)
			}
			if b := n >> got; b <= lsdMin || b > lsdMax {
				t.Errorf("msdWidth(%d, %d) = %d makes buckets of %d, outside (%d, %d]", n, below, got, b, lsdMin, lsdMax)
			}
		}
	}
	for _, c := range []struct{ n, below, want int }{
		{10_000_000, 64, 9}, {10_000_000, 32, 8}, {1 << 22, 62, 7}, {10_000_000, 16, 8}, {1_000_000, 64, 4}, {78_000, 54, 1}, {lsdMin << 6, 64, 3},
	} {
		if got := r.msdWidth(c.n, c.below); got != c.want {
			t.Errorf("msdWidth(%d, %d) = %d, want %d", c.n, c.below, got, c.want)
		}
	}
}

// TestScanCounts checks the histograms scan counts for the first MSD level
// against a count of their own, serially and on a pool of 2 (one chunk, or
// several), for inputs where each part of scan's counting matters: random
// keys (every chunk counted as it is read), sorted chunks beside unsorted
// ones and an unsorted tail (counted afterwards), and a key whose high bit
// the sample misses (the prediction fails: no counts). Each input is then
// sorted through the counts.
func TestScanCounts(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	const n = parMin + 12345
	r := rand.New(rand.NewPCG(3, 4))
	random := make([]uint64, n)
	for i := range random {
		random[i] = r.Uint64()
	}
	halfSorted := slices.Clone(random)
	slices.Sort(halfSorted[:n/2])
	sortedTail := slices.Clone(random)
	slices.Sort(sortedTail)
	sortedTail[n-1], sortedTail[n-2] = sortedTail[n-2], sortedTail[n-1]
	missed := make([]uint64, n)
	for i := range missed {
		missed[i] = r.Uint64N(1 << 40)
	}
	missed[n/62] = 1 << 62 // between the sample's runs
	inputs := []struct {
		name    string
		s       []uint64
		counted bool
	}{{"random", random, true}, {"half-sorted", halfSorted, true}, {"sorted-but-last", sortedTail, true}, {"missed-bit", missed, false}}
	for _, in := range inputs {
		for _, workers := range []int{0, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", in.name, workers), func(t *testing.T) {
				s := slices.Clone(in.s)
				want := slices.Sorted(slices.Values(s))
				var rs *sorter[uint64, uint64]
				var diff uint64
				var sorted bool
				var c *counts
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					if workers == 0 {
						w = nil
					}
					rs = newSorter[uint64](w, uint64(0), lsdMin, lsdMax)
					diff, sorted, c = rs.scan(w, s)
					rs.sort(w, s)
				})
				if sorted {
					t.Fatal("scan reports the input sorted")
				}
				if (c != nil) != in.counted {
					t.Fatalf("counted = %v, want counts: %v", c != nil, in.counted)
				}
				if err := same(s, want); err != nil {
					t.Fatal(err)
				}
				if c == nil {
					return
				}
				below := bits.Len64(diff)
				if width := rs.msdWidth(n, below); c.shift+c.width != below || c.width != width {
					t.Fatalf("counts of digit (%d, %d), want the level's (%d, %d)", c.shift, c.width, below-width, width)
				}
				ch := chunking{n: n, k: 1}
				if workers > 0 {
					ch = chunks(n, rs.workers)
				}
				if len(c.hist) != ch.k {
					t.Fatalf("%d histograms, want %d", len(c.hist), ch.k)
				}
				for j := range ch.k {
					var want [msdRadix]int
					lo, hi := ch.bounds(j)
					for _, x := range in.s[lo:hi] {
						want[x>>c.shift&(1<<c.width-1)]++
					}
					if c.hist[j] != want {
						t.Fatalf("chunk %d's histogram differs from its count", j)
					}
				}
			})
		}
	}
}

// TestScratchKept checks that a long scratch buffer outlives the
// collections between two sorts (sync.Pool alone lets it go after two), and
// that once keepFor has passed since it was handed back the collector can
// free it.
func TestScratchKept(t *testing.T) {
	defer func(d time.Duration) { keepFor = d }(keepFor)
	keepFor = time.Minute // longer than three collections take on any machine
	buf, sc := getScratch[uint64](keepMin)
	putScratch(sc)
	runtime.GC()
	runtime.GC()
	runtime.GC()
	again, sc2 := getScratch[uint64](keepMin)
	if &again[0] != &buf[0] {
		t.Fatal("a sort after three collections got a new scratch buffer, not the kept one")
	}
	keepFor = 50 * time.Millisecond
	putScratch(sc2)
	wp := weak.Make(sc2)
	sc, sc2, buf, again = nil, nil, nil, nil
	deadline := time.Now().Add(10 * time.Second)
	for wp.Value() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the kept scratch buffer is still reachable 10 s after keepFor")
		}
		time.Sleep(keepFor)
		runtime.GC()
	}
}
