// Package radix sorts slices of integers and floating-point numbers by
// their bits, in parallel on a forkjoin pool: a most-significant-digit
// radix sort whose top levels split the slice into buckets that fit in a
// core's cache, each then finished by a least-significant-digit radix sort
// there. It orders exactly as slices.Sort does (floats: NaNs first, then
// -Inf up to +Inf, with -0 and +0 adjacent), and is not stable.
package radix

import (
	"cmp"
	"math/bits"
	"reflect"
	"slices"
	"unsafe"

	"github.com/fjkit/fjkit/forkjoin"
)

// Sortable reports whether Sort can sort slices of E: integer and float
// kinds, named or not.
func Sortable[E cmp.Ordered]() bool {
	switch reflect.TypeFor[E]().Kind() {
	case reflect.String:
		return false
	}
	return true
}

// Sort sorts s in ascending order, as slices.Sort does, and reports true; or
// reports false, leaving s alone, if E is not Sortable. With w nil it runs
// serially on the calling goroutine; otherwise its passes and buckets run as
// tasks of w's pool. It needs a scratch buffer of len(s) elements, which it
// takes from the buffers earlier calls left (see kept and scratchPool) or
// allocates, and from tmpMin elements one of lsdMax words per worker
// sorting a bucket (tmpPool).
func Sort[E cmp.Ordered](w *forkjoin.Worker, s []E) bool {
	if len(s) < 2 {
		return Sortable[E]()
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	n := len(s)
	switch reflect.TypeFor[E]().Kind() {
	case reflect.Int64, reflect.Int:
		if unsafe.Sizeof(s[0]) == 8 {
			sortInts(w, unsafe.Slice((*int64)(p), n), uint64(1)<<63)
		} else {
			sortInts(w, unsafe.Slice((*int32)(p), n), uint32(1)<<31)
		}
	case reflect.Uint64, reflect.Uint, reflect.Uintptr:
		if unsafe.Sizeof(s[0]) == 8 {
			sortInts(w, unsafe.Slice((*uint64)(p), n), uint64(0))
		} else {
			sortInts(w, unsafe.Slice((*uint32)(p), n), uint32(0))
		}
	case reflect.Int32:
		sortInts(w, unsafe.Slice((*int32)(p), n), uint32(1)<<31)
	case reflect.Uint32:
		sortInts(w, unsafe.Slice((*uint32)(p), n), uint32(0))
	case reflect.Int16:
		sortInts(w, unsafe.Slice((*int16)(p), n), uint16(1)<<15)
	case reflect.Uint16:
		sortInts(w, unsafe.Slice((*uint16)(p), n), uint16(0))
	case reflect.Int8:
		sortInts(w, unsafe.Slice((*int8)(p), n), uint8(1)<<7)
	case reflect.Uint8:
		sortInts(w, unsafe.Slice((*uint8)(p), n), uint8(0))
	case reflect.Float64:
		sortFloats(w, unsafe.Slice((*uint64)(p), n))
	case reflect.Float32:
		sortFloats(w, unsafe.Slice((*uint32)(p), n))
	default:
		return false
	}
	return true
}

// integer is what the kernel sorts: E, with K the unsigned type of its size.
type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Tuning. The numbers are for 64-bit keys on a core with a 1 MiB L2 cache
// (the 2-core AMD EPYC of the development machine). BenchmarkRadix sets the
// result beside the parallel quicksort and slices.Sort.
const (
	// lsdMin and lsdMax bound the buckets finished by LSD passes (see
	// lsd), and so the MSD digit widths that lead to them (msdWidth): up
	// to 2^16 elements of 8 bytes, bucket and scratch (1 MiB) fill the L2.
	lsdMin = 1 << 13
	lsdMax = 1 << 16

	// parMin is the least length whose histogram and scatter passes are
	// split among tasks.
	parMin = 1 << 17

	// tmpMin is the least length whose buckets lsd sorts through a
	// buffer of its own (sorter.tmp): 8 times the buffer's size.
	tmpMin = 8 * lsdMax

	// chunkMin is the least piece of a parallel pass.
	chunkMin = 1 << 15
)

// sortInts sorts s, ordering key(x) = K(x) ^ flip as unsigned numbers:
// flip is the sign bit for signed E, which puts negative numbers first.
func sortInts[E integer, K unsigned](w *forkjoin.Worker, s []E, flip K) {
	newSorter[E](w, flip, lsdMin, lsdMax).sort(w, s)
}

// newSorter returns the sorter of one Sort call on w (nil: serial), with
// the given bounds of the buckets that lsd finishes.
func newSorter[E integer, K unsigned](w *forkjoin.Worker, flip K, lsdMin, lsdMax int) *sorter[E, K] {
	r := &sorter[E, K]{flip: flip, lsdMin: lsdMin, lsdMax: lsdMax, tmpMin: tmpMin}
	if w != nil && w.Pool().Workers() > 1 {
		r.workers = w.Pool().Workers()
		r.task = forkjoin.NewFunc(r.bucketTask)
	}
	return r
}

// sort sorts s, which has at least 2 elements.
func (r *sorter[E, K]) sort(w *forkjoin.Worker, s []E) {
	diff, sorted, counted := r.scan(w, s)
	if sorted || diff == 0 {
		return
	}
	r.tmp = len(s) >= r.tmpMin
	buf, sc := getScratch[E](len(s))
	defer putScratch(sc)
	r.sortBelow(w, s, buf, bits.Len64(uint64(diff)), false, counted)
}

// sortFloats sorts the bit patterns s of float64s (K uint64) or float32s
// (uint32) as slices.Sort sorts the floats. It maps each pattern in place to
// an unsigned key that orders as the float does, with the sign bit flipped
// for positive numbers and all bits for negative ones; sorts the keys; and
// maps them back. The keys put negative NaNs first but positive ones last:
// a final rotation moves those to the front, where slices.Sort has every
// NaN.
func sortFloats[K uint32 | uint64](w *forkjoin.Worker, s []K) {
	top := 8*unsafe.Sizeof(K(0)) - 1
	sign := K(1) << top
	pass(w, len(s), func(lo, hi int) {
		for i, b := range s[lo:hi] {
			s[lo+i] = b ^ (K(int64(b)<<(63-top)>>63) | sign)
		}
	})
	sortInts(w, s, K(0))
	// Keys above +Inf's are the positive NaNs, now at the end.
	eb := expBits(top)
	posInf := (K(1)<<eb-1)<<(top-eb) | sign
	nan := len(s) - countAbove(s, posInf)
	pass(w, len(s), func(lo, hi int) {
		for i, k := range s[lo:hi] {
			s[lo+i] = k ^ (K(int64(^k)<<(63-top)>>63) | sign)
		}
	})
	if nan < len(s) {
		tail := slices.Clone(s[nan:])
		copy(s[len(tail):], s[:nan])
		copy(s, tail)
	}
}

// expBits is the width of the exponent field of the float whose sign bit
// is top: 11 for float64, 8 for float32.
func expBits(top uintptr) uintptr {
	if top == 63 {
		return 11
	}
	return 8
}

// countAbove returns how many of the sorted keys s exceed k.
func countAbove[K unsigned](s []K, k K) int {
	i, _ := slices.BinarySearch(s, k+1)
	return len(s) - i
}

// pass calls body on pieces of [0, n), in parallel on w's pool when n is
// long enough and w is not nil.
func pass(w *forkjoin.Worker, n int, body func(lo, hi int)) {
	if w == nil || n < parMin || w.Pool().Workers() == 1 {
		body(0, n)
		return
	}
	forkjoin.ForRange(w, 0, n, max(chunkMin, n/(4*w.Pool().Workers())), func(_ *forkjoin.Worker, lo, hi int) { body(lo, hi) })
}
