// Package sortinput makes the inputs the sorts are benchmarked on, by
// fjbench sort -input and by internal/sorts' benchmarks alike: the shapes
// real data comes in, which an adaptive sort should exploit.
package sortinput

import (
	"fmt"
	"math/rand/v2"
)

// Kinds are the input kinds, in the order they are reported.
var Kinds = []string{"random", "sorted", "reversed", "dups", "nearly", "organ"}

// Int64s returns n keys of the named kind, the same for the same seed:
//
//   - random: pseudo-random int64s;
//   - sorted: 0, 1, ..., n-1;
//   - reversed: n, n-1, ..., 1;
//   - dups: sorted, each key 64 times;
//   - nearly: sorted, then n/200 pairs swapped (0.5 % of the elements
//     move, as in a log that is mostly in time order);
//   - organ: a pipe organ, ascending to the middle and descending after.
//
// It panics, naming the kind, on one not in Kinds; Check reports that as an
// error first.
func Int64s(kind string, n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	s := make([]int64, n)
	for i := range s {
		switch kind {
		case "random":
			s[i] = r.Int64()
		case "sorted", "nearly":
			s[i] = int64(i)
		case "reversed":
			s[i] = int64(n - i)
		case "dups":
			s[i] = int64(i / 64)
		case "organ":
			s[i] = int64(min(i, n-1-i))
		default:
			panic(fmt.Sprintf("sortinput: Int64s: unknown kind %q", kind))
		}
	}
	if kind == "nearly" && n > 1 {
		for range n / 200 {
			i, j := r.IntN(n), r.IntN(n)
			s[i], s[j] = s[j], s[i]
		}
	}
	return s
}

// Check returns an error naming kind if it is not one of Kinds.
func Check(kind string) error {
	for _, k := range Kinds {
		if k == kind {
			return nil
		}
	}
	return fmt.Errorf("unknown input kind %q (want one of %v)", kind, Kinds)
}
