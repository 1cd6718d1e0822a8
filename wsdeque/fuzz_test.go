package wsdeque

import "testing"

// FuzzDeque runs the sequential model of deque_test.go on operations decoded
// from the fuzzer's bytes: the first byte picks how the deques are made (zero
// value or New with a small capacity), each later byte is one operation (see
// modelRun.do). Both deques are drained at the end, so every pushed value
// must come out exactly once and in model order.
func FuzzDeque(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 3, 3})             // push, push, pop, pop, pop on empty
	f.Add([]byte{1, 0, 4, 4, 3})                // the last value stolen, then pop on empty
	f.Add([]byte{2, 250, 250, 4, 5, 6, 7, 15})  // bursts that grow the ring, every consumer
	f.Add([]byte{0, 2 | 10<<3, 5, 5, 5, 15, 6}) // StealHalf back and forth
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		var a, b *Deque[int]
		switch ops[0] % 3 {
		case 0:
			a, b = new(Deque[int]), new(Deque[int])
		case 1:
			a, b = New[int](int(ops[0]>>2)), New[int](0)
		default:
			a, b = New[int](1), new(Deque[int])
		}
		r := newModelRun(t, a, b)
		for _, c := range ops[1:] {
			r.do(c)
		}
		r.drain()
	})
}
