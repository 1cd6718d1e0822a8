package algos

import (
	"encoding/hex"
	"testing"
)

// Known answers computed with coreutils sha1sum over the bytes the UTS
// generator hashes, an implementation independent of crypto/sha1's use here.
func TestUTSRNGKnownAnswers(t *testing.T) {
	// rng_init(19): SHA-1 of 16 zero bytes and 00 00 00 13.
	root := utsRootState(19)
	if got, want := hex.EncodeToString(root[:]), "c6988ab70cc9559ae4d6cba254e29a845a85f86b"; got != want {
		t.Errorf("utsRootState(19) = %s, want %s", got, want)
	}
	// rng_spawn(root, 2): SHA-1 of the root state and 00 00 00 02.
	child := root.spawn(2)
	if got, want := hex.EncodeToString(child[:]), "0f440b68d030929503be64d09655d21a7dfd8365"; got != want {
		t.Errorf("spawn(2) = %s, want %s", got, want)
	}
	// rng_rand: the last four bytes, big-endian, sign bit cleared:
	// 5a85f86b for the root; 7dfd8365 for the child.
	if got, want := root.rand(), int32(0x5a85f86b); got != want {
		t.Errorf("root rand = %#x, want %#x", got, want)
	}
	zero := utsRootState(0)
	if got, want := hex.EncodeToString(zero[:]), "6768033e216468247bd031a0a2d9876d79818f8f"; got != want {
		t.Errorf("utsRootState(0) = %s, want %s", got, want)
	}
	// 0x79818f8f has the high bit clear; a state ending in 0xff.. must lose it.
	var s utsState
	s[16], s[17], s[18], s[19] = 0xff, 0xff, 0xff, 0xfe
	if got, want := s.rand(), int32(0x7ffffffe); got != want {
		t.Errorf("rand of ...fffffffe = %#x, want %#x", got, want)
	}
	if got, want := utsProb(1<<30), 0.5; got != want {
		t.Errorf("utsProb(2^30) = %v, want %v", got, want)
	}
}

func TestUTSSpawnDoesNotAllocate(t *testing.T) {
	root := utsRootState(1)
	var sink utsState
	if n := testing.AllocsPerRun(100, func() { sink = root.spawn(3) }); n != 0 {
		t.Errorf("spawn allocates %v times, want 0", n)
	}
	_ = sink
}
