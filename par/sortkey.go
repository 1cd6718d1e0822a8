package par

import (
	"cmp"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"unsafe"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/radix"
	"github.com/fjkit/fjkit/internal/sorts"
)

// SortByKey sorts s in ascending order of key(x), stably: elements with
// equal keys keep their order, as with slices.SortStableFunc and the
// comparison cmp.Compare(key(a), key(b)), which it orders exactly as.
// key is called once per element, not once per comparison, concurrently;
// it must return the same key for the same element.
//
// Integer and float keys (named ones too) are radix sorted: each key is
// mapped to an unsigned number that orders as it does (floats in
// slices.Sort's order, NaNs first, -0 equal to +0), packed with the
// element's index, and the packed numbers are sorted by package radix's
// parallel radix sort (with a second pass over groups of keys that agree
// in all but their low bits, when the keys' range and the index do not
// fit in 64 bits together); the elements are then moved once, into a
// buffer and back. String keys are sorted with their indices by a parallel
// pattern-defeating quicksort. It allocates a buffer of len(s) elements
// and 8 to 12 bytes per element (24 for string keys) besides, and uses the
// radix sort's scratch buffer, which it holds as Sort does. A panic in key
// leaves s as it was.
func SortByKey[S ~[]E, E any, K cmp.Ordered](s S, key func(E) K) {
	if key == nil {
		panic("par.SortByKey: key is nil")
	}
	entered()
	if len(s) < 2 {
		return
	}
	if (len(s) < funcParallel || workers() == 1) && !strandCalls() {
		defer rewrap()
		sortByKey(nil, []E(s), key)
		return
	}
	run(func(w *forkjoin.Worker) { sortByKey(w, []E(s), key) })
}

// sortByKey is SortByKey on w's pool, or serially if w is nil.
func sortByKey[E any, K cmp.Ordered](w *forkjoin.Worker, s []E, key func(E) K) {
	var p permutation
	if bitsOf := orderedBits[K](); bitsOf != nil && uint64(len(s)) <= 1<<32 {
		p = radixOrder(w, s, key, bitsOf)
	} else {
		p = compareOrder(w, s, key)
	}
	if p.v == nil {
		return // all keys equal
	}
	// Gather s in the new order into a buffer, and copy it back.
	buf := make([]E, len(s))
	pieces(w, len(s), func(lo, hi int) {
		if p.via == nil { // the common case, without at's second lookup
			v, mask := p.v[lo:hi], p.mask
			out := buf[lo:hi]
			for j, x := range v {
				out[j] = s[x&mask]
			}
			return
		}
		for j := lo; j < hi; j++ {
			buf[j] = s[p.at(j)]
		}
	})
	pieces(w, len(s), func(lo, hi int) { copy(s[lo:hi], buf[lo:hi]) })
}

// permutation is the sorted order of a SortByKey: the element at place j
// is s[at(j)]. v holds indices in its low bits (mask), and so does via, if
// not nil, which the indices in v index.
type permutation struct {
	v, via []uint64
	mask   uint64
}

func (p *permutation) at(j int) int {
	i := p.v[j] & p.mask
	if p.via != nil {
		i = p.via[i] & p.mask
	}
	return int(i)
}

// radixOrder returns the permutation that sorts s by key, ties by index;
// one with v nil if all keys are equal. It packs each element's key, mapped
// by bitsOf and less the smallest, above its index, and radix sorts the
// packed numbers; when the keys' range leaves too few bits for the index,
// it sorts by the keys' top bits first, then each group of equal top bits
// by the rest.
func radixOrder[E any, K cmp.Ordered](w *forkjoin.Worker, s []E, key func(E) K, bitsOf func(K) uint64) permutation {
	n := len(s)
	v := make([]uint64, n)
	ch := chunking{n: n, k: piecesOf(w, n)}
	lows, highs := make([]uint64, ch.k), make([]uint64, ch.k)
	eachPiece(w, ch, func(c, lo, hi int) {
		mn, mx := uint64(math.MaxUint64), uint64(0)
		for i := lo; i < hi; i++ {
			b := bitsOf(key(s[i]))
			v[i] = b
			mn, mx = min(mn, b), max(mx, b)
		}
		lows[c], highs[c] = mn, mx
	})
	kmin, kmax := slices.Min(lows), slices.Max(highs)
	if kmin == kmax {
		return permutation{}
	}
	idxBits := bits.Len(uint(n - 1)) // at most 32
	mask := uint64(1)<<idxBits - 1
	if keyBits := bits.Len64(kmax - kmin); keyBits+idxBits <= 64 {
		pieces(w, n, func(a, b int) {
			for i := a; i < b; i++ {
				v[i] = (v[i]-kmin)<<idxBits | uint64(i)
			}
		})
		sortPacked(w, v)
		return permutation{v: v, mask: mask}
	}
	// Too wide to pack with the index: sort by the keys with their low
	// idxBits bits replaced by the index first, which groups the elements
	// whose keys agree above those bits, in their order; then each group by
	// the keys' low bits and the element's place in the group, which fit
	// together in 64 bits because no group has more than 2^idxBits
	// elements. Random keys make groups of one element.
	low := make([]uint32, n) // the bits the index replaces
	pieces(w, n, func(a, b int) {
		for i := a; i < b; i++ {
			k := v[i] - kmin
			low[i] = uint32(k & mask)
			v[i] = k&^mask | uint64(i)
		}
	})
	sortPacked(w, v)
	eachGroup(w, v, idxBits, func(g, scratch []uint64) {
		local := bits.Len(uint(len(g) - 1))
		packed := scratch[:len(g)]
		for r, x := range g {
			packed[r] = uint64(low[x&mask])<<local | uint64(r)
		}
		sortPacked(nil, packed)
		for r, x := range packed {
			packed[r] = g[x&(1<<local-1)]
		}
		copy(g, packed)
	})
	return permutation{v: v, mask: mask}
}

// eachGroup calls sort for every run g of v longer than one element whose
// numbers agree above their low idxBits bits, with a scratch slice at
// least as long, in parallel on w's pool (or serially if w is nil): the
// pieces of v start at the group boundaries nearest to even cuts.
func eachGroup(w *forkjoin.Worker, v []uint64, idxBits int, sort func(g, scratch []uint64)) {
	// The cuts move to group boundaries before any group is sorted: a
	// sort rewrites its group's low bits, which a neighbour's look for a
	// boundary must not read meanwhile.
	ch := chunking{n: len(v), k: piecesOf(w, len(v))}
	cuts := make([]int, ch.k+1)
	for c := 1; c <= ch.k; c++ {
		_, j := ch.bounds(c - 1)
		for j > 0 && j < len(v) && v[j]>>idxBits == v[j-1]>>idxBits {
			j++
		}
		cuts[c] = max(j, cuts[c-1])
	}
	eachPiece(w, ch, func(c, _, _ int) {
		lo, hi := cuts[c], cuts[c+1]
		var scratch []uint64
		for a := lo; a < hi; {
			b := a + 1
			for b < hi && v[b]>>idxBits == v[a]>>idxBits {
				b++
			}
			if b-a > 1 {
				if len(scratch) < b-a {
					scratch = make([]uint64, max(b-a, 64))
				}
				sort(v[a:b], scratch)
			}
			a = b
		}
	})
}

// sortPacked sorts v, serially if w is nil.
func sortPacked(w *forkjoin.Worker, v []uint64) {
	if len(v) < radixSerial {
		slices.Sort(v)
		return
	}
	radix.Sort(w, v)
}

// keyed is an element's string key and its index, for compareOrder.
type keyed[K cmp.Ordered] struct {
	k K
	i int
}

// compareOrder is radixOrder for keys that are not numbers: the keys with
// their indices, sorted by key and then index (so that an unstable sort
// keeps equal keys in order).
func compareOrder[E any, K cmp.Ordered](w *forkjoin.Worker, s []E, key func(E) K) permutation {
	ks := make([]keyed[K], len(s))
	pieces(w, len(s), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ks[i] = keyed[K]{key(s[i]), i}
		}
	})
	byKey := func(a, b keyed[K]) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	}
	if w == nil {
		slices.SortFunc(ks, byKey)
	} else {
		sorts.QuickSortFunc(w, ks, byKey)
	}
	v := make([]uint64, len(s))
	pieces(w, len(s), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			v[j] = uint64(ks[j].i)
		}
	})
	return permutation{v: v, mask: math.MaxUint64}
}

// orderedBits returns the function that maps a key of type K to a uint64
// that orders as cmp.Compare orders the keys, or nil if K is a string type.
// Floats: NaNs map to 0, below every number; -0 to +0's image; the rest by
// their bits, negative numbers reversed below the positive ones.
func orderedBits[K cmp.Ordered]() func(K) uint64 {
	const sign = uint64(1) << 63
	var k K
	size := unsafe.Sizeof(k)
	switch reflect.TypeFor[K]().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch size {
		case 1:
			return func(k K) uint64 { return uint64(int64(*(*int8)(unsafe.Pointer(&k)))) ^ sign }
		case 2:
			return func(k K) uint64 { return uint64(int64(*(*int16)(unsafe.Pointer(&k)))) ^ sign }
		case 4:
			return func(k K) uint64 { return uint64(int64(*(*int32)(unsafe.Pointer(&k)))) ^ sign }
		default:
			return func(k K) uint64 { return uint64(*(*int64)(unsafe.Pointer(&k))) ^ sign }
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		switch size {
		case 1:
			return func(k K) uint64 { return uint64(*(*uint8)(unsafe.Pointer(&k))) }
		case 2:
			return func(k K) uint64 { return uint64(*(*uint16)(unsafe.Pointer(&k))) }
		case 4:
			return func(k K) uint64 { return uint64(*(*uint32)(unsafe.Pointer(&k))) }
		default:
			return func(k K) uint64 { return *(*uint64)(unsafe.Pointer(&k)) }
		}
	case reflect.Float32:
		return func(k K) uint64 { return floatBits(float64(*(*float32)(unsafe.Pointer(&k)))) }
	case reflect.Float64:
		return func(k K) uint64 { return floatBits(*(*float64)(unsafe.Pointer(&k))) }
	}
	return nil
}

// floatBits maps f to a uint64 that orders as cmp.Compare orders floats.
func floatBits(f float64) uint64 {
	if f != f {
		return 0
	}
	if f == 0 {
		f = 0 // -0 sorts as +0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// chunking cuts n items into k pieces of nearly equal length.
type chunking struct{ n, k int }

// bounds returns piece c, [lo, hi). n*c cannot overflow: k is small and n a
// slice length.
func (ch chunking) bounds(c int) (lo, hi int) { return c * ch.n / ch.k, (c + 1) * ch.n / ch.k }

// piecesOf is how many pieces a pass of SortByKey over n elements is cut
// into: one serially, else up to four per worker (so that the others
// balance a slow one) of at least 1<<14 elements.
func piecesOf(w *forkjoin.Worker, n int) int {
	if w == nil {
		return 1
	}
	if strandCalls() {
		return max(1, min(n, 8)) // parallel at every size: see strand.go
	}
	return max(1, min(n>>14, 4*w.Pool().Workers()))
}

// eachPiece calls body for every piece of ch, in parallel on w's pool, or
// serially if w is nil.
func eachPiece(w *forkjoin.Worker, ch chunking, body func(c, lo, hi int)) {
	if w == nil || ch.k == 1 {
		for c := range ch.k {
			lo, hi := ch.bounds(c)
			body(c, lo, hi)
		}
		return
	}
	forkjoin.ForRange(w, 0, ch.k, 1, func(_ *forkjoin.Worker, a, b int) {
		for c := a; c < b; c++ {
			lo, hi := ch.bounds(c)
			body(c, lo, hi)
		}
	})
}

// pieces calls body on pieces covering [0, n), as eachPiece does.
func pieces(w *forkjoin.Worker, n int, body func(lo, hi int)) {
	eachPiece(w, chunking{n: n, k: piecesOf(w, n)}, func(_, lo, hi int) { body(lo, hi) })
}
