package par

import "math/bits"

// Filter returns a new slice holding the elements x of s for which keep(x)
// is true, in their order in s; nil if there are none. keep is called once
// per element, concurrently. s is not modified.
//
// It makes two passes: the first calls keep on each piece of s and records
// the answers in a bit set (one bit per element) and a count per piece; the
// second, once the output is allocated at its exact length, copies each
// piece's kept elements to the offset the counts before it give.
func Filter[S ~[]E, E any](s S, keep func(E) bool) S {
	if keep == nil {
		panic("par.Filter: keep is nil")
	}
	if serial(len(s)) {
		defer rewrap()
		var r S
		for _, x := range s {
			if keep(x) {
				r = append(r, x)
			}
		}
		return r
	}
	// Pieces start on a multiple of 64, so none shares a word of the set.
	ch := chunksMin((len(s)+63)/64, SerialCutoff/2/64)
	set := make([]uint64, ch.n)
	count := make([]int, ch.k)
	ch.each(func(c, lo, hi int) {
		n := 0
		for j := lo; j < hi; j++ {
			var word uint64
			blk := s[j*64 : min(j*64+64, len(s))]
			for i, x := range blk {
				if keep(x) {
					word |= 1 << uint(i)
				}
			}
			set[j] = word
			n += bits.OnesCount64(word)
		}
		count[c] = n
	})
	total := 0
	for c, n := range count {
		count[c] = total // now the piece's offset in the output
		total += n
	}
	if total == 0 {
		return nil
	}
	r := make(S, total)
	ch.each(func(c, lo, hi int) {
		o := count[c]
		for j := lo; j < hi; j++ {
			for word := set[j]; word != 0; word &= word - 1 {
				r[o] = s[j*64+bits.TrailingZeros64(word)]
				o++
			}
		}
	})
	return r
}
