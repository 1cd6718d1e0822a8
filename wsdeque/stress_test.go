package wsdeque

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// exactlyOnce counts, per item, how many times a deque handed it out.
type exactlyOnce struct {
	taken []atomic.Int32
	total atomic.Int64
}

func newExactlyOnce(n int) *exactlyOnce { return &exactlyOnce{taken: make([]atomic.Int32, n)} }

func (e *exactlyOnce) take(v int32) {
	e.taken[v].Add(1)
	e.total.Add(1)
}

// check fails t unless every item was taken exactly once.
func (e *exactlyOnce) check(t *testing.T) {
	t.Helper()
	bad := 0
	for i := range e.taken {
		if c := e.taken[i].Load(); c != 1 {
			if bad < 10 {
				t.Errorf("item %d taken %d times; want 1", i, c)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d items not taken exactly once", bad, len(e.taken))
	}
	if got := e.total.Load(); got != int64(len(e.taken)) {
		t.Errorf("%d takes in all; want %d", got, len(e.taken))
	}
}

// TestStressExactlyOnce runs one owner that pushes and pops in random bursts
// (some of them pushed with PushLocal and published later, or popped before
// anyone saw them) against thieves that Steal and thieves that StealHalf into their own
// deques (which they pop, and which the Steal thieves also rob), and checks
// that every item is taken exactly once. The owner's deque starts at the
// smallest ring, so it grows, and thieves that keep inflight raised make the
// owner move to fresh rings again and again; the test checks that both
// happened.
func TestStressExactlyOnce(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 200_000
	}
	const stealers, halvers = 2, 2
	d := New[int32](1)
	once := newExactlyOnce(n)
	own := make([]*Deque[int32], halvers)
	for i := range own {
		own[i] = New[int32](1)
	}
	var done atomic.Bool
	var wg sync.WaitGroup

	for i := range halvers {
		wg.Go(func() {
			me := own[i]
			for {
				moved := d.StealHalf(me)
				for {
					v, ok := me.Pop()
					if !ok {
						break
					}
					once.take(v)
				}
				if moved == 0 && done.Load() {
					return
				}
			}
		})
	}
	for i := range stealers {
		wg.Go(func() {
			victims := append([]*Deque[int32]{d}, own...)
			for k := i; ; k++ {
				// Mostly rob the owner; sometimes a StealHalf thief.
				v := victims[0]
				if k%4 == 3 {
					v = victims[1+k/4%len(own)]
				}
				if x, ok := v.Steal(); ok {
					once.take(x)
				} else if done.Load() && v == d {
					return
				}
			}
		})
	}

	rng := rand.New(rand.NewPCG(3, 4))
	rings := map[*ring[int32]]bool{}
	for next := 0; next < n; {
		burst := min(n-next, 1+rng.IntN(300))
		local := rng.IntN(3) == 0 // some bursts unpublished, published at the end or by a later Push
		for range burst {
			if local {
				d.PushLocal(int32(next))
			} else {
				d.Push(int32(next))
			}
			next++
		}
		if local && rng.IntN(2) == 0 {
			d.Publish()
		}
		rings[d.ring.Load()] = true
		for range rng.IntN(burst + 1) {
			if v, ok := d.Pop(); ok {
				once.take(v)
			}
		}
	}
	for {
		v, ok := d.Pop()
		if !ok {
			break
		}
		once.take(v)
	}
	done.Store(true)
	wg.Wait()
	once.check(t)
	t.Logf("%d items, %d rings seen by the owner, final capacity %d", n, len(rings), d.Cap())
	if len(rings) < 3 {
		t.Errorf("the owner used %d rings; the test means to make it replace its ring many times", len(rings))
	}
}
