package radix

import (
	"math/bits"

	"github.com/fjkit/fjkit/forkjoin"
)

// Digit widths. An MSD level scatters its whole input, which is larger
// than the caches, to one place per bucket: 8 bits (256 places, whose
// lines the L1 keeps) unless a digit of 9 bits (msdMaxBits) makes
// buckets of the size lsd finishes and leaves whole LSD digits below it
// (msdWidth): a 10-bit digit's 1024 places cost the scatter more than its
// larger buckets save. An LSD pass works on a bucket held in L2 and takes
// 11 bits at a time: its 2048 places miss the L1, so a pass costs a little more
// than an 8-bit one, but two of them sort by 22 bits, which leaves few
// keys of a bucket of L2 size in one group (see lsd). The radix sort of
// 10^7 keys is one MSD level, and then two LSD passes in each bucket and
// a check of the groups they leave.
const (
	msdBits    = 8
	msdMaxBits = 9
	msdRadix   = 1 << msdMaxBits

	lsdBits  = 11
	lsdRadix = 1 << lsdBits
	// lsdDigits is the number of LSD digits of the widest key, 64 bits.
	lsdDigits = (64 + lsdBits - 1) / lsdBits
)

// sorter holds what one Sort call's levels share. Keys are K(x) ^ flip,
// compared as unsigned numbers.
type sorter[E integer, K unsigned] struct {
	flip    K
	workers int // the pool's workers when tasks may be forked, else 0
	task    *forkjoin.Func[bucketRange[E, K], struct{}]
	// lsdMin and lsdMax bound the buckets lsd finishes: the constants of
	// the same names, except in tests, which shrink them to reach the wide
	// MSD levels (msdWidth) with small inputs.
	lsdMin, lsdMax int
	// tmp says that lsd may take a buffer of lsdMax words from tmpPool:
	// the sort is at least tmpMin long (the constant, except in tests),
	// long enough that one buffer per worker costs little.
	tmp    bool
	tmpMin int
}

func (r *sorter[E, K]) key(x E) K { return K(x) ^ r.flip }

// scanResult is the fold of scan: the bits in which some key differs from
// the first, and whether the keys are in order.
type scanResult[K unsigned] struct {
	diff   K
	sorted bool
}

// counts are the histograms of the digit of width bits at shift, one per
// piece of an MSD level's input (chunks; one for the whole input when the
// level runs serially), which scan counted while it read the input: the
// level that takes that digit uses them instead of reading its input again.
type counts struct {
	shift, width int
	hist         [][msdRadix]int
}

// scan returns the bits in which some key of s differs from s[0]'s, and
// whether s is sorted: one read of s that spares sorted input and
// constant input the whole sort, and tells the levels below which bits are
// worth a pass. From parMin keys it also counts the histograms of the
// first MSD level's digit, as a sample of the keys predicts that digit,
// and returns them if the prediction holds (nil otherwise). A piece of s
// counts only from its first key out of order on, so that sorted input
// reads no more than the check; the keys before it, and sorted pieces of
// an unsorted input, are counted afterwards.
func (r *sorter[E, K]) scan(w *forkjoin.Worker, s []E) (K, bool, *counts) {
	first := r.key(s[0])
	parallel := r.workers > 0 && len(s) >= parMin
	ch := chunking{n: len(s), k: 1}
	if parallel {
		ch = chunks(len(s), r.workers)
	}
	var c *counts
	if len(s) >= parMin {
		if below := r.predictBelow(s); below > 0 {
			width := r.msdWidth(len(s), below)
			c = &counts{shift: below - width, width: width, hist: make([][msdRadix]int, ch.k)}
		}
	}
	// from[j] is where piece j's counting started: its end if the piece is
	// sorted, or if it never ran (an invocation canceled meanwhile).
	from := make([]int, ch.k)
	for j := range from {
		_, from[j] = ch.bounds(j)
	}
	piece := func(j int) scanResult[K] {
		lo, hi := ch.bounds(j)
		n, diff := ascending(s[lo:hi], r.flip, first, r.key(s[max(lo-1, 0)]))
		i := lo + n
		from[j] = i
		if i == hi {
			return scanResult[K]{diff, true}
		}
		if c == nil {
			return scanResult[K]{diff | differ(s[i:hi], K(s[0])), false}
		}
		return scanResult[K]{diff | countDigit(s[i:hi], r.flip, first, uint(c.shift), c.width, &c.hist[j]), false}
	}
	var res scanResult[K]
	if parallel {
		res = forkjoin.Reduce(w, 0, ch.k, scanResult[K]{sorted: true}, piece,
			func(a, b scanResult[K]) scanResult[K] { return scanResult[K]{a.diff | b.diff, a.sorted && b.sorted} })
	} else {
		res = piece(0)
	}
	if c == nil || res.sorted || bits.Len64(uint64(res.diff)) != c.shift+c.width {
		return res.diff, res.sorted, nil
	}
	rest := func(j int) {
		lo, _ := ch.bounds(j)
		countDigit(s[lo:from[j]], r.flip, first, uint(c.shift), c.width, &c.hist[j])
	}
	if parallel {
		forkjoin.ForRange(w, 0, ch.k, 1, func(_ *forkjoin.Worker, a, b int) {
			for j := a; j < b; j++ {
				rest(j)
			}
		})
	} else {
		rest(0)
	}
	return res.diff, res.sorted, c
}

// ascending returns the length of the longest prefix of s whose keys
// ascend from prev, and the bits in which its keys (and the one after it)
// differ from first. It is kept out of line (see countPart).
//
//go:noinline
func ascending[E integer, K unsigned](s []E, flip, first, prev K) (int, K) {
	var diff K
	for i, x := range s {
		k := K(x) ^ flip
		diff |= k ^ first
		if k < prev {
			return i, diff
		}
		prev = k
	}
	return len(s), diff
}

// differ returns the bits in which the keys of s differ from the key whose
// bits, before the flip, are first: the flip cancels out. It is kept out
// of line (see countPart).
//
//go:noinline
func differ[E integer, K unsigned](s []E, first K) K {
	var diff K
	for _, x := range s {
		diff |= K(x) ^ first
	}
	return diff
}

// countDigit adds to h the counts of the digit of width bits at shift of
// the keys of s, and returns the bits in which they differ from first.
// It is kept out of line (see countPart).
//
//go:noinline
func countDigit[E integer, K unsigned](s []E, flip, first K, shift uint, width int, h *[msdRadix]int) K {
	mask := K(1)<<width - 1
	var diff K
	for _, x := range s {
		k := K(x) ^ flip
		diff |= k ^ first
		h[uint(k>>(shift&63)&mask)&(msdRadix-1)]++
	}
	return diff
}

// predictBelow returns the length of the bits in which a sample of s's
// keys differ from s[0]'s: 32 runs of 32 keys spread over s, so that the
// sample costs a few dozen misses of the cache and of the TLB.
func (r *sorter[E, K]) predictBelow(s []E) int {
	var diff K
	for j := range 32 {
		at := j * (len(s) - 32) / 31
		diff |= differ(s[at:at+32], K(s[0]))
	}
	return bits.Len64(uint64(diff))
}

// sortBelow sorts x by the bits of its keys below bit `below` (the bits
// from there up are equal across x), leaving the result in y if toY is set
// and in x otherwise; the other slice, of the same length, is scratch.
//
// Each level takes the top digit of what is left (msdWidth): a
// histogram of it gives each bucket its place, a scatter moves x into y,
// and each bucket is sorted by the bits below the digit on its own, from y
// (back into x when the result belongs there). A digit on which all of x
// agrees costs its histogram and no scatter, and one more read finds the
// bits below it in which x differs, which the next level starts from.
// Buckets of L2 size are finished by lsd. On random 64-bit keys, 10^7 of
// them take one level of 9 bits, into 512 buckets of about 20 000, and then
// 2 LSD passes in each; 10^6 take one level of 4 bits, into 16 buckets that
// lsd finishes. counted, if not nil, holds scan's histograms of x: the
// first level uses them if it takes their digit.
func (r *sorter[E, K]) sortBelow(w *forkjoin.Worker, x, y []E, below int, toY bool, counted *counts) {
	for {
		if below == 0 || len(x) <= insertionMax {
			if below > 0 {
				insertionSort(x)
			}
			if toY {
				copy(y, x)
			}
			return
		}
		if len(x) > r.lsdMin && len(x) <= r.lsdMax {
			r.lsd(w, x, y, below, toY)
			return
		}
		width := r.msdWidth(len(x), below)
		shift := below - width
		start := make([]int, 1<<width+1)
		var hist [][msdRadix]int
		if counted != nil && counted.shift == shift && counted.width == width {
			hist = counted.hist
		}
		counted = nil // for this level only
		var moved bool
		if r.workers > 0 && len(x) >= parMin {
			moved = r.parallelScatter(w, x, y, shift, width, start, hist)
		} else {
			var h *[msdRadix]int
			if hist != nil {
				h = &hist[0]
			}
			moved = r.scatter(x, y, shift, width, start, h)
		}
		if !moved {
			// All of x has the same digit. One read finds the bits in
			// which its keys differ, where each further level would read
			// x again to find one more digit they share.
			below = min(shift, bits.Len64(uint64(differ(x, K(x[0])))))
			continue
		}
		br := bucketRange[E, K]{x: x, y: y, start: start, lo: 0, hi: 1 << width, below: shift, toY: toY}
		if r.workers > 0 && len(x) > bucketSerial {
			r.task.Call(w, br)
		} else {
			r.buckets(w, br)
		}
		return
	}
}

// msdWidth returns the width of the digit an MSD level over n elements
// takes when `below` bits are left. If a digit of at most msdMaxBits
// leaves a whole number of LSD digits below it and makes buckets of the
// size lsd finishes, it is that digit (64 bits: 9, leaving 5 digits of 11;
// 62 bits: 7); otherwise 8 bits, or what is left, unless n is longer than
// lsd takes and 8 bits would cut it into buckets shorter than lsd takes:
// then the narrowest digit whose buckets lsd takes, so that they are not
// cut again into buckets of a handful of keys (10^6 keys: 4 bits, 16
// buckets of about 62 500). The width is at most msdMaxBits, as scatter's
// arrays need.
func (r *sorter[E, K]) msdWidth(n, below int) int {
	a := below - lsdBits*max(0, (below-6)/lsdBits)
	if a <= msdMaxBits && n>>a > r.lsdMin && n>>a <= r.lsdMax {
		return a
	}
	width := min(msdBits, below)
	if n > r.lsdMax && n>>width <= r.lsdMin {
		for width > 1 && n>>(width-1) <= r.lsdMax {
			width--
		}
	}
	return width
}

// scatter moves x into y by the digit of width bits at shift (at most
// msdMaxBits), filling start, of length 1<<width+1 and all zeros, with the
// buckets' bounds. It reports false, moving nothing, if every key has the
// same digit.
func (r *sorter[E, K]) scatter(x, y []E, shift, width int, start []int, counted *[msdRadix]int) bool {
	flip, nb := r.flip, 1<<width
	var h [msdRadix]int
	if counted != nil {
		h = *counted
	} else {
		countPart(x, flip, uint(shift), width, &h)
	}
	if h[digit(x[0], flip, uint(shift), width)] == len(x) {
		return false
	}
	for b := range nb {
		start[b+1] = start[b] + h[b]
	}
	copy(h[:nb], start)
	scatterPart(x, y, flip, uint(shift), width, &h)
	return true
}

// parallelScatter is scatter in pieces: each piece of x counts its own
// histogram, the counts give each (bucket, piece) pair its place in y,
// bucket-major, and each piece scatters its elements there.
func (r *sorter[E, K]) parallelScatter(w *forkjoin.Worker, x, y []E, shift, width int, start []int, counted [][msdRadix]int) bool {
	flip, nb := r.flip, 1<<width
	ch := chunks(len(x), r.workers)
	hist := counted
	if hist == nil {
		hist = make([][msdRadix]int, ch.k)
		forkjoin.ForRange(w, 0, ch.k, 1, func(_ *forkjoin.Worker, a, b int) {
			for c := a; c < b; c++ {
				lo, hi := ch.bounds(c)
				countPart(x[lo:hi], flip, uint(shift), width, &hist[c])
			}
		})
	}
	pos := 0
	for b := range nb {
		start[b] = pos
		for c := range hist {
			hist[c][b], pos = pos, pos+hist[c][b]
		}
	}
	start[nb] = pos
	if d := digit(x[0], flip, uint(shift), width); start[d+1]-start[d] == len(x) {
		return false
	}
	forkjoin.ForRange(w, 0, ch.k, 1, func(_ *forkjoin.Worker, a, b int) {
		for c := a; c < b; c++ {
			lo, hi := ch.bounds(c)
			scatterPart(x[lo:hi], y, flip, uint(shift), width, &hist[c])
		}
	})
	return true
}

// digit returns the digit of width bits (at most msdMaxBits) at shift of
// v's key, K(v) ^ flip.
func digit[E integer, K unsigned](v E, flip K, shift uint, width int) uint {
	return uint((K(v)^flip)>>shift&(K(1)<<width-1)) & (msdRadix - 1)
}

// The loops of scan and of the MSD levels are functions of their own, kept
// out of line, so that the loop's index, element and slice length stay in
// registers, which a loop inlined into a closure does not get; the shift
// is unsigned and masked to 63, so that the loop tests it neither for a
// negative value nor for one of 64 or more. The digit is masked to
// msdRadix, which spares the histogram's bounds checks.

// countPart adds to h the counts of the digits of width bits at shift of
// the keys of x.
//
//go:noinline
func countPart[E integer, K unsigned](x []E, flip K, shift uint, width int, h *[msdRadix]int) {
	mask := K(1)<<width - 1
	for _, v := range x {
		h[uint((K(v)^flip)>>(shift&63)&mask)&(msdRadix-1)]++
	}
}

// scatterPart moves each element of x to y[h[d]], d its digit of width
// bits at shift, and advances h[d].
//
//go:noinline
func scatterPart[E integer, K unsigned](x, y []E, flip K, shift uint, width int, h *[msdRadix]int) {
	mask := K(1)<<width - 1
	for _, v := range x {
		d := uint((K(v)^flip)>>(shift&63)&mask) & (msdRadix - 1)
		y[h[d]] = v
		h[d]++
	}
}

// bucketRange is a task of sortBelow: sort buckets [lo, hi) of a scatter
// of x into y, whose bounds in y are start[lo:hi+1], by the bits below
// below, with the result in x (or in y if toY is set).
type bucketRange[E integer, K unsigned] struct {
	x, y   []E
	start  []int
	lo, hi int
	below  int
	toY    bool
}

// bucketSerial is the least number of elements in a range of buckets worth
// splitting into two tasks.
const bucketSerial = 1 << 14

func (r *sorter[E, K]) bucketTask(w *forkjoin.Worker, br bucketRange[E, K]) struct{} {
	if br.hi-br.lo > 1 && br.start[br.hi]-br.start[br.lo] > bucketSerial {
		// Split where the elements, not the buckets, are halved.
		half := (br.start[br.lo] + br.start[br.hi]) / 2
		m := br.lo + 1
		for m < br.hi-1 && br.start[m+1] <= half {
			m++
		}
		left, right := br, br
		left.hi, right.lo = m, m
		r.task.Join(w, left, right)
		return struct{}{}
	}
	r.buckets(w, br)
	return struct{}{}
}

// buckets sorts buckets [lo, hi) one after the other. Each bucket's keys
// agree from the digit up, so only the bits below it are left to sort by.
func (r *sorter[E, K]) buckets(w *forkjoin.Worker, br bucketRange[E, K]) {
	for b := br.lo; b < br.hi; b++ {
		lo, hi := br.start[b], br.start[b+1]
		switch hi - lo {
		case 0:
		case 1:
			if !br.toY {
				br.x[lo] = br.y[lo]
			}
		default:
			r.sortBelow(w, br.y[lo:hi], br.x[lo:hi], br.below, !br.toY, nil)
		}
	}
}

// chunking cuts n elements into k pieces of nearly equal length.
type chunking struct{ n, k int }

// chunks cuts n elements into pieces of at least chunkMin, at most four per
// worker, so that a slow worker's share is taken up by the others.
func chunks(n, workers int) chunking {
	return chunking{n: n, k: max(1, min(n/chunkMin, 4*workers))}
}

func (ch chunking) bounds(c int) (int, int) { return c * ch.n / ch.k, (c + 1) * ch.n / ch.k }
