package radix

import (
	"math/bits"
	"slices"

	"github.com/fjkit/fjkit/forkjoin"
)

// A digit is 8 bits: a 256-entry histogram of 4-byte counts fits in L1
// beside the data, and a scatter writes to 256 places at once, which the
// store buffers and the L1 keep up with.
const (
	digitBits = 8
	radix     = 1 << digitBits
)

// sorter holds what one Sort call's levels share. Keys are K(x) ^ flip,
// compared as unsigned numbers.
type sorter[E integer, K unsigned] struct {
	flip    K
	workers int // the pool's workers when tasks may be forked, else 0
	task    *forkjoin.Func[bucketRange[E, K], struct{}]
}

func (r *sorter[E, K]) key(x E) K { return K(x) ^ r.flip }

// scanResult is the fold of scan: the bits in which some key differs from
// the first, and whether the keys are in order.
type scanResult[K unsigned] struct {
	diff   K
	sorted bool
}

// scan returns the bits in which some key of s differs from s[0]'s, and
// whether s is sorted: one read of s that spares sorted input and
// constant input the whole sort, and tells the levels below which bits are
// worth a pass.
func (r *sorter[E, K]) scan(w *forkjoin.Worker, s []E) (K, bool) {
	first := r.key(s[0])
	piece := func(lo, hi int) scanResult[K] {
		var diff K
		sorted := true
		prev := r.key(s[max(lo-1, 0)])
		for _, x := range s[lo:hi] {
			k := r.key(x)
			diff |= k ^ first
			sorted = sorted && prev <= k
			prev = k
		}
		return scanResult[K]{diff, sorted}
	}
	if r.workers == 0 || len(s) < parMin {
		res := piece(0, len(s))
		return res.diff, res.sorted
	}
	ch := chunks(len(s), r.workers)
	res := forkjoin.Reduce(w, 0, ch.k, scanResult[K]{sorted: true},
		func(c int) scanResult[K] { return piece(ch.bounds(c)) },
		func(a, b scanResult[K]) scanResult[K] { return scanResult[K]{a.diff | b.diff, a.sorted && b.sorted} })
	return res.diff, res.sorted
}

// sortRange sorts x, whose keys agree outside mask, leaving the result in
// y if toY is set and in x otherwise; the other slice, of the same length,
// is scratch.
func (r *sorter[E, K]) sortRange(w *forkjoin.Worker, x, y []E, mask K, toY bool) {
	if len(x) < smallSort {
		slices.Sort(x) // E orders as its keys do (see sortInts)
		if toY {
			copy(y, x)
		}
		return
	}
	var diff K
	first := r.key(x[0])
	for _, v := range x {
		diff |= r.key(v) ^ first
	}
	r.sortBits(w, x, y, diff&mask, toY)
}

// sortBits is sortRange once the bits that vary, diff, are known.
func (r *sorter[E, K]) sortBits(w *forkjoin.Worker, x, y []E, diff K, toY bool) {
	switch {
	case diff == 0:
		if toY {
			copy(y, x)
		}
	case len(x) <= lsdMax:
		r.lsd(x, y, diff, toY)
	default:
		r.msd(w, x, y, diff, toY)
	}
}

// lsd sorts x by the LSD method: one stable counting pass per byte of the
// key in which diff has a bit set, from the least significant up, each
// moving every element between x and y. One read of x first counts every
// pass's histogram (a pass keeps the multiset of keys, so the counts of a
// later byte do not change).
func (r *sorter[E, K]) lsd(x, y []E, diff K, toY bool) {
	var shifts [8]uint8
	np := 0
	for sh := 0; sh < bits.Len64(uint64(diff)); sh += digitBits {
		if (diff>>sh)&(radix-1) != 0 {
			shifts[np] = uint8(sh)
			np++
		}
	}
	flip := r.flip // a local: r.flip would be reloaded after every store
	var hist [8][radix]uint32
	for _, v := range x {
		k := K(v) ^ flip
		for p := range np {
			hist[p][uint8(k>>shifts[p])]++
		}
	}
	src, dst := x, y
	for p := range np {
		var off [radix]uint32
		var sum uint32
		for b, c := range &hist[p] {
			off[b], sum = sum, sum+c
		}
		sh := shifts[p]
		dst = dst[:len(src)]
		for _, v := range src {
			b := uint8((K(v) ^ flip) >> sh)
			dst[off[b]] = v
			off[b]++
		}
		src, dst = dst, src
	}
	// The result is in src: x after an even number of passes.
	if inY := np%2 == 1; inY != toY {
		copy(dst, src)
	}
}

// msd splits x by its most significant varying byte: a histogram of that
// digit gives each bucket its place, one pass scatters x into y, and each
// bucket is then sorted on its own (from y, into x when the result belongs
// in x), in parallel across buckets. For x long enough the histogram and the
// scatter are themselves split among tasks, piece by piece of x.
func (r *sorter[E, K]) msd(w *forkjoin.Worker, x, y []E, diff K, toY bool) {
	shift := max(bits.Len64(uint64(diff))-digitBits, 0)
	var start [radix + 1]int
	if r.workers > 0 && len(x) >= parMin {
		r.parallelScatter(w, x, y, shift, &start)
	} else {
		var h [radix]int
		for _, v := range x {
			h[uint8(r.key(v)>>shift)]++
		}
		for b := range radix {
			start[b+1] = start[b] + h[b]
		}
		h = [radix]int(start[:radix])
		for _, v := range x {
			b := uint8(r.key(v) >> shift)
			y[h[b]] = v
			h[b]++
		}
	}
	br := bucketRange[E, K]{x: x, y: y, start: &start, lo: 0, hi: radix, mask: K(1)<<shift - 1, toY: toY}
	if r.workers > 0 {
		r.task.Call(w, br)
	} else {
		r.buckets(nil, br)
	}
}

// parallelScatter is msd's histogram and scatter in pieces: each piece of
// x counts its own histogram, the counts give each (bucket, piece) pair its
// place in y, bucket-major, and each piece scatters its elements there. It
// fills start with the buckets' bounds.
func (r *sorter[E, K]) parallelScatter(w *forkjoin.Worker, x, y []E, shift int, start *[radix + 1]int) {
	ch := chunks(len(x), r.workers)
	hist := make([][radix]int, ch.k)
	forkjoin.ForRange(w, 0, ch.k, 1, func(_ *forkjoin.Worker, a, b int) {
		for c := a; c < b; c++ {
			lo, hi := ch.bounds(c)
			h := &hist[c]
			for _, v := range x[lo:hi] {
				h[uint8(r.key(v)>>shift)]++
			}
		}
	})
	pos := 0
	for b := range radix {
		start[b] = pos
		for c := range hist {
			hist[c][b], pos = pos, pos+hist[c][b]
		}
	}
	start[radix] = pos
	forkjoin.ForRange(w, 0, ch.k, 1, func(_ *forkjoin.Worker, a, b int) {
		for c := a; c < b; c++ {
			lo, hi := ch.bounds(c)
			h := &hist[c]
			for _, v := range x[lo:hi] {
				d := uint8(r.key(v) >> shift)
				y[h[d]] = v
				h[d]++
			}
		}
	})
}

// bucketRange is a task of msd: sort buckets [lo, hi) of a scatter of x
// into y, whose bounds in y are start[lo:hi+1], with the result in x (or
// in y if toY is set).
type bucketRange[E integer, K unsigned] struct {
	x, y   []E
	start  *[radix + 1]int
	lo, hi int
	mask   K
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
// agree above mask, so only the bits below the digit are left to sort by.
func (r *sorter[E, K]) buckets(w *forkjoin.Worker, br bucketRange[E, K]) {
	for b := br.lo; b < br.hi; b++ {
		lo, hi := br.start[b], br.start[b+1]
		if lo == hi {
			continue
		}
		r.sortRange(w, br.y[lo:hi], br.x[lo:hi], br.mask, !br.toY)
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
