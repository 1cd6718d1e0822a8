package wsdeque

import (
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The benchmarks sit in one file so that one run shows our deque beside the
// baselines a Go programmer would otherwise reach for: a slice guarded by a
// sync.Mutex and a buffered channel. Compare ratios within one run; absolute
// figures move with the machine and its load.

// mutexDeque is the obvious locked deque: a slice whose end is the bottom.
type mutexDeque struct {
	mu sync.Mutex
	s  []int
}

func (m *mutexDeque) push(v int) {
	m.mu.Lock()
	m.s = append(m.s, v)
	m.mu.Unlock()
}

func (m *mutexDeque) pop() (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.s) == 0 {
		return 0, false
	}
	v := m.s[len(m.s)-1]
	m.s = m.s[:len(m.s)-1]
	return v, true
}

// BenchmarkPushPop is the owner's fast path, one Push and one Pop per op, as
// a fork-join worker does for every task nobody steals.
func BenchmarkPushPop(b *testing.B) {
	b.Run("impl=wsdeque", func(b *testing.B) {
		b.ReportAllocs()
		d := New[int](0)
		for i := 0; b.Loop(); i++ {
			d.Push(i)
			if _, ok := d.Pop(); !ok {
				b.Fatal("Pop after Push found nothing")
			}
		}
	})
	b.Run("impl=mutex", func(b *testing.B) {
		b.ReportAllocs()
		var m mutexDeque
		for i := 0; b.Loop(); i++ {
			m.push(i)
			if _, ok := m.pop(); !ok {
				b.Fatal("pop after push found nothing")
			}
		}
	})
	b.Run("impl=chan", func(b *testing.B) {
		b.ReportAllocs()
		c := make(chan int, 64)
		for i := 0; b.Loop(); i++ {
			c <- i
			<-c
		}
	})
}

// BenchmarkPushPopDeep is the same pair with 1000 values below, so that Pop
// never takes the last-value path with its CAS.
func BenchmarkPushPopDeep(b *testing.B) {
	b.ReportAllocs()
	d := New[int](0)
	for i := range 1000 {
		d.Push(i)
	}
	for i := 0; b.Loop(); i++ {
		d.Push(i)
		d.Pop()
	}
}

// BenchmarkPushLocalPop is the pair a spawn loop's worker runs for a task
// nobody stole before it was published: PushLocal, then Pop's unpublished
// branch, no atomic operation on either side.
func BenchmarkPushLocalPop(b *testing.B) {
	b.ReportAllocs()
	d := New[int](0)
	for i := 0; b.Loop(); i++ {
		d.PushLocal(i)
		if _, ok := d.Pop(); !ok {
			b.Fatal("Pop after PushLocal found nothing")
		}
	}
}

// feedAndSteal has the benchmark goroutine, as owner, push b.N values and
// then one -1 per thief, while thieves run take until they see -1. The
// result is ns per value stolen (or moved). Whoever has nothing to do yields,
// so that on a machine with few cores a spinning owner or thief does not
// hold a core the other side needs (that measures the scheduler, not us).
func feedAndSteal(b *testing.B, thieves int, take func(d *Deque[int], mine *Deque[int]) bool) {
	b.ReportAllocs()
	d := New[int](0)
	var wg sync.WaitGroup
	b.ResetTimer()
	for range thieves {
		wg.Go(func() {
			mine := New[int](0)
			for take(d, mine) {
			}
		})
	}
	for i := range b.N {
		// Keep the deque short, as a busy worker's is, so thieves work
		// near the owner and the ring stays small.
		for d.Len() > 256 {
			runtime.Gosched() // let a thief that lost its core run
		}
		d.Push(i)
	}
	for range thieves {
		d.Push(-1)
	}
	wg.Wait()
}

// BenchmarkSteal measures Steal with one and with two thieves against an
// owner that keeps pushing: ns/op is per value stolen.
func BenchmarkSteal(b *testing.B) {
	for _, thieves := range []int{1, 2} {
		b.Run("thieves="+string(rune('0'+thieves)), func(b *testing.B) {
			feedAndSteal(b, thieves, func(d, _ *Deque[int]) bool {
				v, ok := d.Steal()
				if !ok {
					runtime.Gosched() // let the owner that lost its core run
					return true
				}
				return v >= 0
			})
		})
	}
}

// BenchmarkStealHalf measures StealHalf into the thief's own deque and the
// thief's Pops of what it moved: ns/op is per value moved.
func BenchmarkStealHalf(b *testing.B) {
	feedAndSteal(b, 1, func(d, mine *Deque[int]) bool {
		if d.StealHalf(mine) == 0 {
			runtime.Gosched()
			return true
		}
		for {
			v, ok := mine.Pop()
			if !ok {
				return true
			}
			if v < 0 {
				return false
			}
		}
	})
}

// BenchmarkStealHalfBatch is StealHalf's own cost with nobody racing it: the
// owner pushes 2*n values, one StealHalf moves n of them, and both sides are
// emptied. Only the StealHalf call is timed (the steal-ns metric, per batch
// of n values); ns/op includes the pushes and pops around it.
func BenchmarkStealHalfBatch(b *testing.B) {
	for _, n := range []int{8, 64} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			d, dst := New[int](4*n), New[int](4*n)
			var in time.Duration
			for b.Loop() {
				for i := range 2 * n {
					d.PushLocal(i)
				}
				d.Publish()
				start := time.Now()
				got := d.StealHalf(dst)
				in += time.Since(start)
				if got != n {
					b.Fatalf("StealHalf moved %d; want %d", got, n)
				}
				for range n {
					d.Pop()
					dst.Pop()
				}
			}
			b.ReportMetric(float64(in.Nanoseconds())/float64(b.N), "steal-ns")
		})
	}
}
