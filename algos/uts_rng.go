package algos

import (
	"crypto/sha1"
	"encoding/binary"
)

// utsState is the state of the splittable random number generator that the
// UTS benchmark defines: a SHA-1 digest. Every node of a UTS tree owns one;
// a child's state is the hash of its parent's state and the child's index,
// so any subtree can be generated on any worker, in any order, and the tree
// is the same every time.
type utsState [sha1.Size]byte

// utsRootState derives the root's state from the seed (the -r flag): the
// hash of 16 zero bytes followed by the seed as a 4-byte big-endian integer.
func utsRootState(seed int) utsState {
	var buf [sha1.Size]byte
	binary.BigEndian.PutUint32(buf[16:], uint32(seed))
	return sha1.Sum(buf[:])
}

// spawn returns the state of the i-th child: SHA-1 over the 20 state bytes
// followed by i as a 4-byte big-endian integer.
func (s *utsState) spawn(i int) utsState {
	var buf [sha1.Size + 4]byte
	copy(buf[:sha1.Size], s[:])
	binary.BigEndian.PutUint32(buf[sha1.Size:], uint32(i))
	return sha1.Sum(buf[:])
}

// rand returns the node's random number: the last four bytes of the state,
// big-endian, with the sign bit cleared (a value in [0, 2³¹)).
func (s *utsState) rand() int32 {
	return int32(binary.BigEndian.Uint32(s[16:]) & 0x7fffffff)
}

// utsProb maps a value from rand onto [0, 1).
func utsProb(r int32) float64 {
	return float64(r) / 2147483648.0
}
