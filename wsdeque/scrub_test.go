package wsdeque_test

import (
	"runtime"
	"testing"
	"weak"

	"github.com/fjkit/fjkit/wsdeque"
)

type big [1 << 13]int64

// After Scrub, a value taken from the deque is not kept reachable by its
// ring: neither the values thieves took nor the last value Pop took.
func TestTakenValuesAreCollectible(t *testing.T) {
	var d wsdeque.Deque[*big]
	var wps []weak.Pointer[big]
	push := func() {
		v := new(big)
		wps = append(wps, weak.Make(v))
		d.Push(v)
	}
	for range 3 {
		push()
	}
	if _, ok := d.Steal(); !ok {
		t.Fatal("Steal found nothing")
	}
	var dst wsdeque.Deque[*big]
	if n := d.StealHalf(&dst); n != 1 {
		t.Fatalf("StealHalf moved %d, want 1", n)
	}
	for { // dst's last value, then d's
		if _, ok := dst.Pop(); !ok {
			break
		}
	}
	if _, ok := d.Pop(); !ok {
		t.Fatal("Pop found nothing")
	}
	if !d.Scrub() || !dst.Scrub() {
		t.Fatal("Scrub found a thief in flight with none about")
	}
	runtime.GC()
	runtime.GC()
	for i, wp := range wps {
		if wp.Value() != nil {
			t.Errorf("value %d is still reachable after it was taken and the deque scrubbed", i)
		}
	}
	runtime.KeepAlive(&d)
	runtime.KeepAlive(&dst)
}
