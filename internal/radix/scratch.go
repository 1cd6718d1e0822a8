package radix

import (
	"sync"
	"time"
	"unsafe"
)

// A sort needs a scratch buffer as long as its input. Allocating one costs
// more than it seems: the memory must be cleared, or faulted in page by
// page where the runtime gave it back to the system, and each one is
// garbage for the collector to chase.
//
// scratchPool keeps the buffers of finished sorts for the next, and lets
// the collector free those nobody took within two cycles, so that an idle
// program does not keep them. That alone does not carry a long buffer
// from one sort to the next in a program that sorts long slices again and
// again: a buffer allocated anew brings the next collection closer, and
// two collections empty the pool. So the longest buffer handed back is
// also held in kept until keepFor after the last sort that handed it back,
// and then goes to the pool.
var scratchPool sync.Pool // of *scratch

// kept holds the longest scratch buffer of keepMin words or more that a
// sort handed back, until keptTimer gives it to scratchPool.
var kept struct {
	mu    sync.Mutex
	sc    *scratch  // nil: none kept
	until time.Time // when sc goes to the pool
}

// keptTimer calls release. It is made once, stopped, when the package is
// initialized, so that it belongs to no testing/synctest bubble a sort may
// run in.
var keptTimer *time.Timer

func init() {
	keptTimer = time.AfterFunc(time.Hour, release)
	keptTimer.Stop()
}

const keepMin = 1 << 17 // words: 1 MiB

// keepFor is how long kept holds a buffer after it was handed back: long
// enough to span the work between the sorts of a loop, short enough that a
// program done sorting soon lets the collector have it. A variable so
// that tests can shorten it.
var keepFor = time.Second

// scratch is a buffer of 8-byte words: aligned for every element type
// Sort accepts, none of which holds pointers.
type scratch struct{ words []uint64 }

// getScratch returns a buffer for n elements of E, and the scratch to hand
// back to putScratch once the buffer is no longer used.
func getScratch[E integer](n int) ([]E, *scratch) {
	size := int(unsafe.Sizeof(*new(E)))
	words := (n*size + 7) / 8
	var sc *scratch
	if words >= keepMin {
		kept.mu.Lock()
		if kept.sc != nil && len(kept.sc.words) >= words {
			sc, kept.sc = kept.sc, nil
		}
		kept.mu.Unlock()
	}
	if sc == nil {
		sc, _ = scratchPool.Get().(*scratch)
	}
	if sc == nil || len(sc.words) < words {
		// Too small (or none): let it go, and make one that fits.
		sc = &scratch{words: make([]uint64, words)}
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(sc.words))), n), sc
}

// putScratch hands sc back: to kept if it is long and at least as long as
// the buffer kept there (which goes to the pool instead), else to the pool.
func putScratch(sc *scratch) {
	if len(sc.words) >= keepMin {
		kept.mu.Lock()
		if kept.sc == nil || len(kept.sc.words) <= len(sc.words) {
			kept.sc, sc = sc, kept.sc
			kept.until = time.Now().Add(keepFor)
			keptTimer.Reset(keepFor)
		}
		kept.mu.Unlock()
		if sc == nil {
			return
		}
	}
	scratchPool.Put(sc)
}

// release moves the kept buffer, if any, to the pool once its time is up,
// and otherwise sets the timer for the rest: a putScratch may have kept a
// buffer while the timer was firing.
func release() {
	kept.mu.Lock()
	sc := kept.sc
	if left := time.Until(kept.until); sc != nil && left > 0 {
		keptTimer.Reset(left)
		sc = nil
	} else {
		kept.sc = nil
	}
	kept.mu.Unlock()
	if sc != nil {
		scratchPool.Put(sc)
	}
}
