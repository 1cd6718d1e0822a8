package radix

import (
	"sync"
	"unsafe"
)

// scratchPool keeps the scratch buffers of finished sorts for the next.
// Allocating one costs more than it seems: the memory must be cleared, a
// tenth of the parallel sort's time for 10^7 uint64, and each one is
// garbage for the collector to chase.
// A sync.Pool hands a buffer to one sort at a time and lets the collector
// free those nobody took within two cycles, so an idle program does not
// keep them.
var scratchPool sync.Pool // of *scratch

// scratch is a buffer of 8-byte words: aligned for every element type
// Sort accepts, none of which holds pointers.
type scratch struct{ words []uint64 }

// getScratch returns a buffer for n elements of E, and the scratch to hand
// back to putScratch once the buffer is no longer used.
func getScratch[E integer](n int) ([]E, *scratch) {
	size := int(unsafe.Sizeof(*new(E)))
	words := (n*size + 7) / 8
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil || len(sc.words) < words {
		// Too small (or none): let it go, and make one that fits.
		sc = &scratch{words: make([]uint64, words)}
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(sc.words))), n), sc
}

func putScratch(sc *scratch) { scratchPool.Put(sc) }
