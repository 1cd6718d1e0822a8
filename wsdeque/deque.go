package wsdeque

import "sync/atomic"

// minCapacity is the ring size a zero Deque starts with on its first Push.
const minCapacity = 32

// Deque is a Chase-Lev work-stealing deque. One goroutine, the owner, calls
// Push and Pop at the bottom; any goroutine calls Steal, StealHalf and Len.
// The zero value is an empty deque ready to use. A Deque must not be copied
// after first use.
//
// Every removal takes each pushed value exactly once: a value returned by Pop
// is never returned by Steal or StealHalf and the other way round.
//
// Pop clears the slot it takes, except when it takes the last value: then a
// thief may be reading that slot at the same moment. Thieves do not clear the
// slots they take, for the same reason. So the ring may keep values that
// thieves took (and one the owner popped) reachable until their slots are
// reused, Scrub clears them, or the deque is dropped: at most its capacity,
// usually far fewer. See docs/deque.md.
type Deque[T any] struct {
	// The padding keeps the three groups of fields (top; bottom and the
	// owner's; inflight) and whatever surrounds the deque at least 64
	// bytes apart, so on separate cache lines however the deque is aligned:
	// thieves write top and inflight once per value they take, and the
	// owner must not pay a cache miss for that on every Push.
	_ [64]byte

	// top is the index of the oldest value, the next one a thief takes.
	// It only grows, and only by a successful CompareAndSwap.
	top atomic.Int64
	_   [56]byte

	// bottom is one past the newest published value: thieves may take the
	// indices [top, bottom). Only the owner stores it (Push, Publish, Pop).
	bottom atomic.Int64
	// ring holds the values; the owner replaces it, thieves only load it.
	ring atomic.Pointer[ring[T]]

	// The owner's private view, so that a Push in steady state reads no
	// line that thieves write:
	//
	// next is the index the next Push (or PushLocal) writes; the values
	// in [pub, next) are unpublished. pub equals bottom, except after a Pop
	// that found the deque empty or raced thieves for the last value: then
	// top = next = pub = bottom+1, which every reader already takes for
	// empty, and the owner saves the fenced store that would restore bottom.
	next int64
	// topSeen is a value of top the owner loaded; top is at least that now,
	// so b-topSeen bounds the length from above.
	topSeen int64
	// safe: no thief will read an index below safe from the current ring.
	// It is top when the ring is made, and moves up to top whenever the
	// owner sees no thief in flight (see makeRoom).
	safe int64
	// pub: values below pub are published (bottom covers them); those
	// in [pub, next) were pushed with PushLocal and only the owner sees them.
	pub int64
	// clean: the slots of the indices below clean hold no value taken
	// from the deque (Scrub).
	clean int64
	_     [64]byte

	// inflight counts thieves between their load of ring and the end of
	// their read of a slot. A nonzero count tells the owner that a slot it
	// is about to reuse may still be read by a thief with a stale top.
	inflight atomic.Int32
	_        [64]byte
}

// ring is a power-of-two circular buffer. Index i lives in buf[i&mask].
type ring[T any] struct {
	buf  []T
	mask int64
}

// New returns an empty deque whose ring starts with room for capacity values
// (rounded up to a power of two). It grows as needed. It panics if capacity
// is negative.
func New[T any](capacity int) *Deque[T] {
	if capacity < 0 {
		panic("wsdeque.New: capacity must not be negative")
	}
	d := new(Deque[T])
	d.ring.Store(newRing[T](roundUp(capacity)))
	return d
}

func roundUp(n int) int {
	c := minCapacity
	for c < n {
		c <<= 1
	}
	return c
}

func newRing[T any](size int) *ring[T] {
	return &ring[T]{buf: make([]T, size), mask: int64(size - 1)}
}

// Push adds v at the bottom. Owner only.
func (d *Deque[T]) Push(v T) {
	b := d.next
	r := d.ring.Load()
	if r == nil || b-d.topSeen >= int64(len(r.buf)) || b-int64(len(r.buf)) >= d.safe {
		r = d.makeRoom(r, b)
	}
	r.buf[b&r.mask] = v
	// The store publishes the slot write: a thief that loads bottom > b
	// also sees v.
	d.bottom.Store(b + 1)
	d.next = b + 1
	d.pub = b + 1
}

// PushLocal adds v at the bottom without publishing it: thieves do not see
// it (nor any value pushed after it) until the owner calls Publish or Push.
// It costs no atomic store. Owner only.
//
// Its first lines repeat Push's on purpose: Push must stay small enough to
// inline into the runtime's fork, and sharing them through a helper (or
// calling PushLocal from Push) made the fork measurably slower.
func (d *Deque[T]) PushLocal(v T) {
	b := d.next
	r := d.ring.Load()
	if r == nil || b-d.topSeen >= int64(len(r.buf)) || b-int64(len(r.buf)) >= d.safe {
		r = d.makeRoom(r, b)
	}
	r.buf[b&r.mask] = v
	d.next = b + 1
}

// Local returns how many values PushLocal added that are not published yet.
// Owner only.
func (d *Deque[T]) Local() int { return int(d.next - d.pub) }

// Publish makes every value pushed so far visible to thieves. Owner only.
func (d *Deque[T]) Publish() {
	if d.next > d.pub {
		d.bottom.Store(d.next)
		d.pub = d.next
	}
}

// makeRoom returns a ring in which the owner may write index b: one with a
// free slot for it that no thief can be reading.
func (d *Deque[T]) makeRoom(r *ring[T], b int64) *ring[T] {
	t := d.top.Load()
	d.topSeen = t
	if r == nil {
		return d.replace(nil, t, b, minCapacity)
	}
	size := int64(len(r.buf))
	if b-t >= size || 2*(b-t) > size && b-size >= d.safe {
		// Full, or more than half full and about to reuse slots: double,
		// so that the checks below come at most every size/2 pushes.
		return d.replace(r, t, b, int(2*size))
	}
	if b-size < d.safe {
		return r
	}
	// The slot for b last held index b-size, below top. A thief that loaded
	// top before it moved past that index may be reading the slot right now
	// (its CAS will fail, but the read would still race with our write).
	// Such a thief raised inflight before it loaded top, so before our load
	// of top above; thieves that start later load top >= t > b-size. So if
	// inflight is zero now, nobody reads any index below t from this ring,
	// ever. A thief in flight finishes its read in nanoseconds: wait a
	// little, and rather than wait longer, move to a fresh ring.
	for range 64 {
		if d.inflight.Load() == 0 {
			d.safe = t
			return r
		}
	}
	return d.replace(r, t, b, int(size))
}

// replace makes a new ring of the given size holding indices [t, b) of old,
// publishes it, and returns it. The old ring is never written again, so a
// thief still holding it reads consistent values; the garbage collector frees
// it when the last thief lets go.
func (d *Deque[T]) replace(old *ring[T], t, b int64, size int) *ring[T] {
	// Thieves load a ring before top, so every thief that reads r reads an
	// index >= t: all of r is safe to write.
	r := newRing[T](size)
	d.safe = t
	if old != nil {
		for i := t; i < b; i++ {
			r.buf[i&r.mask] = old.buf[i&old.mask]
		}
	}
	d.ring.Store(r)
	return r
}

// Pop removes and returns the value at the bottom (the newest). Owner only.
func (d *Deque[T]) Pop() (T, bool) {
	var zero T
	b := d.next
	if b > d.pub {
		return d.popLocal(d.ring.Load(), b)
	}
	if b <= d.topSeen {
		// Empty, and it stays empty until we push: top only grows.
		return zero, false
	}
	if b-d.topSeen == 1 {
		// At most one value, at index b-1: claim it from the top with the
		// thieves' CAS. That is one locked instruction instead of the
		// store to bottom and the CAS of the general path.
		return d.popLast(b)
	}
	b--
	r := d.ring.Load()
	// Claim index b before looking at top. Go's atomics are sequentially
	// consistent, so either a thief's later load of bottom sees this store,
	// or our load of top below sees that thief's CAS: never neither.
	d.bottom.Store(b)
	t := d.top.Load()
	d.topSeen = t
	if t > b {
		// Thieves emptied the deque between our two loads of top: top is
		// b+1 now (a thief can only have taken index b). Leave bottom at b:
		// readers see empty either way.
		d.next = b + 1
		return zero, false
	}
	v := r.buf[b&r.mask]
	if t < b {
		// More than one value left: thieves can only reach indices below
		// b, since any thief that loads top >= b afterwards sees bottom == b.
		// Nobody else reads this slot now (docs/deque.md, "Clearing"), so
		// clear it: the ring must not keep the value alive.
		r.buf[b&r.mask] = zero
		d.next = b
		d.pub = b
		return v, true
	}
	// The last value: race the thieves for it on top, the same way they
	// race each other. Whoever wins, top is b+1 afterwards; bottom stays b.
	won := d.top.CompareAndSwap(t, t+1)
	d.next = b + 1
	d.topSeen = t + 1
	if !won {
		return zero, false
	}
	return v, true
}

// popLocal is Pop when the newest value, at index next-1 >= pub, is
// unpublished: no thief can reach it, so it takes no atomic operation. r is
// the current ring. It inlines into Pop (go build -gcflags=-m says so), and
// Pop loads r so that the inlined code needs no generic dictionary load of
// its own: the split into two functions costs nothing (go tool objdump).
func (d *Deque[T]) popLocal(r *ring[T], next int64) (T, bool) {
	var zero T
	b := next - 1
	v := r.buf[b&r.mask]
	r.buf[b&r.mask] = zero
	d.next = b
	return v, true
}

// popLast is Pop when the owner's view (next-topSeen == 1) allows at most one
// value. Since topSeen <= top, the deque holds [top, next): one value if top
// is next-1, none if it is next. The owner then takes index top exactly as a
// thief would, by CAS on top, racing any thief after the same value; bottom
// (= next) stays as it is and equals top afterwards, whoever won.
func (d *Deque[T]) popLast(next int64) (T, bool) {
	var zero T
	t := d.top.Load()
	d.topSeen = t
	if t >= next {
		return zero, false
	}
	r := d.ring.Load()
	v := r.buf[t&r.mask] // a thief may read it too; nobody writes it now
	won := d.top.CompareAndSwap(t, t+1)
	d.topSeen = t + 1
	if !won {
		return zero, false
	}
	return v, true
}

// Scrub clears the slots of the values thieves took, and of the last value
// each time Pop emptied the deque, so that the ring keeps nothing reachable
// that it does not hold any more. It does nothing, and reports
// false, while a thief is between its load of top and its read of a slot
// (one that loaded top before Scrub's load may be reading any of those
// slots); the caller may try again later. Its cost is one pass over the
// values taken since the last Scrub, at most the ring's size. Owner only.
func (d *Deque[T]) Scrub() bool {
	r := d.ring.Load()
	if r == nil {
		return true
	}
	t := d.top.Load()
	// The live values are [t, next); the indices [next-size, t) are the
	// other slots of the ring.
	lo := max(d.clean, d.next-int64(len(r.buf)))
	if lo >= t {
		return true
	}
	if d.inflight.Load() != 0 {
		return false
	}
	var zero T
	for i := lo; i < t; i++ {
		r.buf[i&r.mask] = zero
	}
	d.clean = t
	return true
}

// Steal removes and returns the value at the top (the oldest). Safe from any
// goroutine. It reports false only when the deque was empty at some instant
// during the call; losing a race to another thief just tries again.
func (d *Deque[T]) Steal() (T, bool) {
	var zero T
	// Cheap early out that does not touch inflight. Load top before
	// bottom, as stealOne does: then t >= b means the deque was empty when
	// we loaded bottom. In the other order an old bottom and a newer top
	// (other thieves stole past the old bottom while the owner pushed more)
	// can report a deque that was never empty as empty.
	if t := d.top.Load(); d.bottom.Load() <= t {
		return zero, false
	}
	d.inflight.Add(1)
	defer d.inflight.Add(-1)
	for {
		switch v, res := d.stealOne(); res {
		case stealSuccess:
			return v, true
		case stealEmpty:
			return zero, false
		}
	}
}

// stealResult is the outcome of one attempt to take values from the top (the
// three outcomes of crossbeam-deque's Steal).
type stealResult uint8

const (
	// stealEmpty: the deque was empty when the attempt loaded bottom.
	stealEmpty stealResult = iota
	// stealSuccess: the attempt took the value at top.
	stealSuccess
	// stealRetry: the attempt lost a race (another thief or the owner
	// took the value, or the ring changed) and took nothing; the deque
	// may still hold values, so try again.
	stealRetry
)

// stealOne makes one attempt to take the value at top. It must be called with
// inflight raised. v is meaningful only with stealSuccess.
func (d *Deque[T]) stealOne() (v T, res stealResult) {
	// Load the ring before top: every index we can read from r is then at
	// least the top the owner saw when it made r (r existed before our load
	// of top), which is what lets the owner write all of a new ring's slots
	// without a check.
	r := d.ring.Load()
	t := d.top.Load()
	// Load bottom after top: if the owner popped index t without a CAS, it
	// stored bottom <= t before it loaded top < t, so we see bottom <= t.
	b := d.bottom.Load()
	if t >= b {
		return v, stealEmpty
	}
	if r == nil {
		return v, stealRetry // the first ring appeared after our load
	}
	// Read before claiming, as in Chase-Lev: after a successful CAS the
	// owner may reuse the slot at once.
	v = r.buf[t&r.mask]
	// If the ring changed since we loaded it, index t may have been pushed
	// into the newer ring only; our value could be stale. Try again.
	if d.ring.Load() != r {
		return v, stealRetry
	}
	if !d.top.CompareAndSwap(t, t+1) {
		return v, stealRetry
	}
	return v, stealSuccess
}

// StealHalf moves up to half of the values in d (at least one when d is not
// empty) to the bottom of dst, oldest first, and returns how many it moved.
// The caller must be dst's owner; dst must not be d.
//
// Each value is claimed with its own CAS on top, so the owner's CAS-free Pop
// can never hand out a value a thief also took. docs/deque.md gives the race
// a one-CAS "advance top by n" version has against that Pop, and why a batch
// claimed with one CAS on a word packing both ends was measured and not
// taken.
func (d *Deque[T]) StealHalf(dst *Deque[T]) int {
	if dst == d {
		panic("wsdeque: StealHalf with dst == d")
	}
	t, b := d.top.Load(), d.bottom.Load()
	if b <= t {
		return 0
	}
	want := max(1, int((b-t)/2))
	moved := 0
	for moved < want {
		// Announce each read separately rather than the whole batch, so
		// the owner, which waits a moment for thieves in flight before it
		// reuses a slot, rarely has to.
		d.inflight.Add(1)
		v, res := d.stealOne()
		d.inflight.Add(-1)
		if res == stealEmpty {
			break
		}
		if res == stealSuccess {
			dst.PushLocal(v)
			moved++
		}
	}
	// One fenced store publishes the whole batch to dst's thieves.
	dst.Publish()
	return moved
}

// Len returns the number of values in the deque at some instant during the
// call. With concurrent callers it is a snapshot, already stale on return.
func (d *Deque[T]) Len() int {
	for {
		t := d.top.Load()
		b := d.bottom.Load()
		if t == d.top.Load() {
			return int(max(0, b-t))
		}
	}
}

// Cap returns the size of the current ring. Owner only (a snapshot otherwise).
func (d *Deque[T]) Cap() int {
	if r := d.ring.Load(); r != nil {
		return len(r.buf)
	}
	return 0
}
