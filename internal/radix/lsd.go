package radix

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/fjkit/fjkit/forkjoin"
)

// lsd sorts x by the bits below `below` with two least-significant-digit
// passes over the top 2*lsdBits bits in which the keys differ, then
// finishes each group of keys equal in those bits by the bits below them.
//
// One read counts the two digits' histograms and finds the bits in which
// the keys differ; if the keys agree in the top bits, the digits move down
// and are counted again (so that keys equal above some bit cost no pass
// for it), and keys that differ in at most 2*lsdBits bits go to lsdAll. A
// digit on which all of x agrees is skipped. On the buckets this
// finishes, of about 2^13 to 2^16 keys, 22 bits leave few keys sharing
// their prefix when the keys are spread out: most groups have one element,
// and the copy of the result out of the worker's buffer notes the others
// (copyRuns; in a short sort, which has no such buffer, one more read
// finds them), where a full LSD sort of 64-bit keys would take three more
// passes. Keys that share their top bits make larger groups, which
// sortBelow finishes by the bits left, as the buckets of a further MSD
// level: the two passes did that level's work.
func (r *sorter[E, K]) lsd(w *forkjoin.Worker, x, y []E, below int, toY bool) {
	n := len(x)
	first := K(x[0])
	if below <= 2*lsdBits {
		r.lsdAll(x, y, below, toY)
		return
	}
	flip := r.flip // a local: r.flip would be reloaded after every store
	var hist [2][lsdRadix]uint32
	var hiShift, loShift int
	for {
		// The digits: hi is bits [hiShift, below), lo [loShift, hiShift).
		hiShift = below - lsdBits
		loShift = hiShift - lsdBits
		// The read that counts the digits also finds the bits in which
		// the keys differ: if they agree at the top, the counts were of
		// the wrong digits, and are taken again below the bits they share.
		b := bits.Len64(uint64(countTwo(x, flip, first, uint(loShift), &hist)))
		if b == below {
			break
		}
		below = b
		if below <= 2*lsdBits {
			r.lsdAll(x, y, below, toY)
			return
		}
		hist = [2][lsdRadix]uint32{}
	}
	k0 := uint64(first ^ flip)
	var digit [2]int // the digits that vary, low one first
	np := 0
	for j, sh := range [2]int{loShift, hiShift} {
		if int(hist[j][k0>>(sh&63)&(lsdRadix-1)]) != n {
			digit[np] = j
			np++
		}
	}
	// The result goes to dst. In a long sort, tmp is a buffer of the
	// worker's that stays in cache from one bucket to the next (below);
	// in a short one, the passes go between x and y and the other slice
	// is the groups' scratch.
	dst, other := x, y[:n]
	if toY {
		dst, other = other, dst
	}
	var tmp []E
	if r.tmp {
		var t *[lsdMax]uint64
		tmp, t = tmpBuffer[E](n) // n <= r.lsdMax <= lsdMax
		defer tmpPool.Put(t)
	}
	if tmp != nil {
		// The passes go between x and tmp, which the reads above and the
		// last bucket left in cache, and so do the groups; the result then
		// goes to dst in one sequential copy where it is not there
		// already. dst may be the other slice, whose lines come from
		// memory: a pass scattering into them would wait for each line it
		// touches.
		src, scr := x, tmp
		for p := range np {
			r.lsdDigit(src, scr, &hist, digit[p], loShift, hiShift)
			src, scr = scr, src
		}
		if &src[0] == &dst[0] {
			r.groups(w, src, scr, loShift)
			return
		}
		// The copy to dst notes where runs of equal keys start, and
		// saves the groups' own read of the result.
		var runs [maxRuns]int32
		m := copyRuns(dst, src, flip, uint(loShift), &runs)
		if &scr[0] == &dst[0] {
			scr = src // free once copied
		}
		if m > maxRuns {
			r.groups(w, dst, scr, loShift)
			return
		}
		end := 0
		for _, i := range runs[:m] {
			if int(i) <= end {
				continue // inside the last run sorted
			}
			end = r.run(dst, int(i), loShift)
			r.sortBelow(w, dst[i-1:end+1], scr[i-1:end+1], loShift, false, nil)
		}
		return
	}
	src := x
	for p := range np {
		out := y[:n]
		if &src[0] != &x[0] {
			out = x
		}
		r.lsdDigit(src, out, &hist, digit[p], loShift, hiShift)
		src = out
	}
	if &src[0] != &dst[0] {
		copy(dst, src)
	}
	r.groups(w, dst, other, loShift)
}

// countTwo adds to hist[0] and hist[1] the counts of the two lsdBits-wide
// digits from loShift up of the keys of x, and returns the bits in
// which the keys differ from the key whose bits, before the flip, are
// first. It is kept out of line (see countPart).
//
//go:noinline
func countTwo[E integer, K unsigned](x []E, flip, first K, loShift uint, hist *[2][lsdRadix]uint32) K {
	var diff K
	for _, v := range x {
		diff |= K(v) ^ first
		k := uint64(K(v)^flip) >> (loShift & 63)
		hist[0][k&(lsdRadix-1)]++
		hist[1][k>>lsdBits&(lsdRadix-1)]++
	}
	return diff
}

// lsdDigit is one of lsd's passes, from src to out: by the low digit (at
// loShift) if d is 0, by the high one (at hiShift) otherwise.
func (r *sorter[E, K]) lsdDigit(src, out []E, hist *[2][lsdRadix]uint32, d, loShift, hiShift int) {
	if d == 0 {
		lsdPass(src, out, &hist[0], r.flip, loShift)
	} else {
		lsdPass(src, out, &hist[1], r.flip, hiShift)
	}
}

// lsdAll sorts x by the bits below `below` with least-significant-digit
// passes: one stable counting pass per digit of lsdBits that varies, from
// the least significant up, each moving every element between x and a
// scratch slice, and leaves the result in y if toY is set, else in x.
// Digits sit at fixed places (bits 0-10, 11-21, ...); the top one may reach
// above `below`, where all of x agrees, which does not change its order.
// One read of x first counts every digit's histogram (a pass keeps the
// multiset of keys, so the counts of a later digit do not change), which
// also shows the digits on which all of x agrees: those are skipped.
//
// lsd uses it for keys that differ in at most two digits' bits, which it
// sorts as well as lsd's own passes would, with no groups to check.
func (r *sorter[E, K]) lsdAll(x, y []E, below int, toY bool) {
	flip := r.flip // a local: r.flip would be reloaded after every store
	var hist [lsdDigits][lsdRadix]uint32
	countDigits(x, flip, &hist)
	var passes [lsdDigits]uint8
	np := 0
	first := uint64(K(x[0]) ^ flip)
	for j := range (below + lsdBits - 1) / lsdBits {
		if int(hist[j][first>>(j*lsdBits)&(lsdRadix-1)]) != len(x) {
			passes[np] = uint8(j)
			np++
		}
	}
	// The passes go between x and scratch: in a long sort, the worker's
	// buffer (see lsd), so that no pass scatters into the lines of y, which
	// come from memory; otherwise y.
	n := len(x)
	scr := y[:n]
	if r.tmp && np > 0 {
		var t *[lsdMax]uint64
		scr, t = tmpBuffer[E](n) // n <= r.lsdMax <= lsdMax
		defer tmpPool.Put(t)
	}
	src, dst := x, scr
	for _, j := range passes[:np] {
		lsdPass(src, dst, &hist[j], flip, int(j)*lsdBits)
		src, dst = dst, src
	}
	// The result is in src.
	out := x
	if toY {
		out = y[:n]
	}
	if &src[0] != &out[0] {
		copy(out, src)
	}
}

// countDigits adds to hist[j] the counts of digit j of every key of x,
// for all of the key's digits: unrolled and without a test per digit, this
// costs less than counting only the digits a pass will use.
func countDigits[E integer, K unsigned](x []E, flip K, hist *[lsdDigits][lsdRadix]uint32) {
	const m = lsdRadix - 1
	switch unsafe.Sizeof(flip) {
	case 8:
		for _, v := range x {
			k := uint64(K(v) ^ flip)
			hist[0][k&m]++
			hist[1][k>>lsdBits&m]++
			hist[2][k>>(2*lsdBits)&m]++
			hist[3][k>>(3*lsdBits)&m]++
			hist[4][k>>(4*lsdBits)&m]++
			hist[5][k>>(5*lsdBits)&m]++
		}
	case 4:
		for _, v := range x {
			k := uint64(K(v) ^ flip)
			hist[0][k&m]++
			hist[1][k>>lsdBits&m]++
			hist[2][k>>(2*lsdBits)&m]++
		}
	default:
		for _, v := range x {
			k := uint64(K(v) ^ flip)
			hist[0][k&m]++
			hist[1][k>>lsdBits&m]++
		}
	}
}

// tmpPool keeps lsd's buffers: one per worker busy with a bucket of a
// long sort (sorter.tmp).
var tmpPool = sync.Pool{New: func() any { return new([lsdMax]uint64) }}

// tmpBuffer returns n elements (at most lsdMax words) of a buffer from
// tmpPool, and the buffer to put back there once they are no longer used.
func tmpBuffer[E integer](n int) ([]E, *[lsdMax]uint64) {
	t := tmpPool.Get().(*[lsdMax]uint64)
	return unsafe.Slice((*E)(unsafe.Pointer(t)), n), t
}

// lsdPass moves src to out, stably, by the digit (k >> sh) & m of the keys
// k, whose counts are hist. It is kept out of line, as the MSD levels'
// loops are, so that the compiler keeps its loop's values in registers.
//
//go:noinline
func lsdPass[E integer, K unsigned](src, out []E, hist *[lsdRadix]uint32, flip K, sh int) {
	var off [lsdRadix]uint32
	var sum uint32
	for b, c := range hist {
		off[b], sum = sum, sum+c
	}
	out = out[:len(src)]
	for _, v := range src {
		b := uint64(K(v)^flip) >> (sh & 63) & (lsdRadix - 1)
		out[off[b]] = v
		off[b]++
	}
}

// maxRuns is the most runs of equal keys that lsd notes while it copies
// its result out (copyRuns); a bucket with more has its groups found by a
// read of their own.
const maxRuns = 1024

// copyRuns copies src to dst, which is as long, and notes in runs each i
// whose key agrees with the key before it above bit `below`. It returns
// how many such i there are; runs holds the first of them, up to maxRuns.
// It is kept out of line (see countPart).
//
//go:noinline
func copyRuns[E integer, K unsigned](dst, src []E, flip K, below uint, runs *[maxRuns]int32) int {
	dst = dst[:len(src)]
	prev := uint64(K(src[0])^flip) >> (below & 63)
	dst[0] = src[0]
	m := 0
	for i := 1; i < len(src); i++ {
		v := src[i]
		dst[i] = v
		k := uint64(K(v)^flip) >> (below & 63)
		if k == prev {
			if m < maxRuns {
				runs[m] = int32(i)
			}
			m++
		}
		prev = k
	}
	return m
}

// run returns the last index of the run of keys of x that agree above bit
// `below` with x[i-1], given that x[i] does.
func (r *sorter[E, K]) run(x []E, i, below int) int {
	p := uint64(K(x[i])^r.flip) >> (below & 63)
	for i+1 < len(x) && uint64(K(x[i+1])^r.flip)>>(below&63) == p {
		i++
	}
	return i
}

// groups sorts each run of x whose keys agree above bit `below` by the
// bits below it, in place; y is scratch of the same length. Comparing each
// key with the one before it, rather than with the run's first, keeps the
// loop free of a carried value: on spread keys nearly every comparison
// differs, and the loop costs about one load per element.
func (r *sorter[E, K]) groups(w *forkjoin.Worker, x, y []E, below int) {
	flip := r.flip
	for i := 1; i < len(x); i++ {
		p := uint64(K(x[i-1])^flip) >> (below & 63)
		if uint64(K(x[i])^flip)>>(below&63) != p {
			continue
		}
		a := i - 1
		i = r.run(x, i, below)
		r.sortBelow(w, x[a:i+1], y[a:i+1], below, false, nil)
	}
}

// insertionMax is the longest x that sortBelow insertion sorts: shorter
// than that, a histogram of 256 or more entries costs more than the moves it saves.
const insertionMax = 32

// insertionSort sorts s, which is short. E orders as its keys do.
func insertionSort[E integer](s []E) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for j > 0 && v < s[j-1] {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}
