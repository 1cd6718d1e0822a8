package par

import (
	"math/bits"
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
)

// Filter returns a new slice holding the elements x of s for which keep(x)
// is true, in their order in s; nil if there are none. keep is called once
// per element, concurrently. s is not modified.
//
// It makes two passes. The first calls keep on every element and records
// the answers in a bit set, one bit per element, and a count per piece of
// s; it starts serially and goes parallel only when the rest of s is long
// enough to pay for it (see the package doc). The second, once the result
// is allocated at its exact length, copies each piece's kept elements to
// the offset the counts before it give, in parallel when the first pass
// was and the copy is long. For a result of a type without pointers, the
// result is not cleared before the copy fills it.
func Filter[S ~[]E, E any](s S, keep func(E) bool) S {
	if keep == nil {
		panic("par.Filter: keep is nil")
	}
	// Pieces may share a word of the set: the bits go in with an atomic
	// OR, one per word and piece.
	set := make([]atomic.Uint64, (len(s)+63)/64)
	head := 0 // elements kept among those the serial start tested
	p := start(len(s), func(lo, hi int) { head += mark(set, s, lo, hi, keep) })
	// count[b] is the number of elements kept in block b of the elements
	// after p.done, grain elements each, as forkjoin.ForRange cuts them;
	// then the offset in the result of its first one.
	var count []int
	if p.parallel() {
		count = make([]int, (p.n-p.done+p.grain-1)/p.grain)
		if !p.finish(nil, func(_ *forkjoin.Worker, lo, hi int) {
			count[(lo-p.done)/p.grain] = mark(set, s, lo, hi, keep)
		}) {
			return nil // pieces were skipped: the set is not all written
		}
	}
	total := head
	for b, c := range count {
		count[b] = total
		total += c
	}
	if total == 0 {
		return nil
	}
	r := S(makeNoZero[E](total))
	gather(r, s, set, 0, p.done)
	blockCopy := func(b int) {
		lo := p.done + b*p.grain
		gather(r[count[b]:], s, set, lo, min(lo+p.grain, p.n))
	}
	if len(s)-p.done < gatherParallel {
		for b := range count {
			blockCopy(b)
		}
		return r
	}
	complete := false
	run(func(w *forkjoin.Worker) {
		forkjoin.ForRange(w, 0, len(count), 1, func(_ *forkjoin.Worker, a, b int) {
			for ; a < b; a++ {
				blockCopy(a)
			}
		})
		complete = !w.Canceled()
	})
	if !complete {
		clear(r) // pieces were skipped: never show memory Filter did not write
	}
	return r
}

// gatherParallel is the number of elements from which the second pass of
// a parallel Filter runs on the pool: the pass costs about a nanosecond
// per element, and a trip to the pool some microseconds.
const gatherParallel = 1 << 15

// mark records keep(s[i]) for i in [lo, hi) as bit i%64 of set[i/64], and
// returns how many it kept.
func mark[E any](set []atomic.Uint64, s []E, lo, hi int, keep func(E) bool) int {
	n := 0
	for lo < hi {
		end := min(lo|63+1, hi) // the end of lo's word, or hi
		blk := s[lo:end]
		var word uint64
		i := 0
		for ; i+4 <= len(blk); i += 4 { // four calls a round, as mapInto makes
			x := (*[4]E)(blk[i : i+4])
			b0, b1, b2, b3 := keep(x[0]), keep(x[1]), keep(x[2]), keep(x[3])
			word |= (bit(b0) | bit(b1)<<1 | bit(b2)<<2 | bit(b3)<<3) << uint(i)
		}
		for ; i < len(blk); i++ {
			word |= bit(keep(blk[i])) << uint(i)
		}
		set[lo/64].Or(word << uint(lo%64))
		n += bits.OnesCount64(word)
		lo = end
	}
	return n
}

// bit is 1 for true, 0 for false.
func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// gather copies the elements s[i], i in [lo, hi), whose bits are set, to
// r, in order, from r[0].
func gather[E any](r, s []E, set []atomic.Uint64, lo, hi int) {
	o := 0
	for lo < hi {
		end := min(lo|63+1, hi)
		base := s[lo&^63:]
		word := set[lo/64].Load() >> uint(lo%64) << uint(lo%64) // bits from lo
		if end%64 != 0 {
			word &= 1<<uint(end%64) - 1 // bits below end
		}
		for ; word != 0; word &= word - 1 {
			r[o] = base[bits.TrailingZeros64(word)]
			o++
		}
		lo = end
	}
}
