package wsdeque

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// spinUntil waits for cond, yielding so that the test also makes progress
// with GOMAXPROCS=1. After a long wait it sleeps instead: with more Ps than
// CPUs (-cpu 4 on one core) Gosched keeps the thread on the CPU, and the
// goroutine it waits for runs on another thread only when this one gives
// the CPU back. A wait that long means the other side is not running, so
// sleeping loses no race.
func spinUntil(cond func() bool) {
	for i := 0; !cond(); i++ {
		backoff(i, 200)
	}
}

// backoff is step i of a wait: spin for the first spins steps, then yield
// the P for 2000 steps, then give the CPU back by sleeping.
func backoff(i, spins int) {
	switch {
	case i >= spins+2000:
		time.Sleep(time.Microsecond)
	case i >= spins:
		runtime.Gosched()
	}
}

// TestRaceLastValue races the owner's Pop of a deque's only value against
// thieves' Steal, round after round: exactly one of them must get it. This is
// the one place where the owner claims by CAS on top, and where a missing or
// misplaced CAS either loses the value or delivers it twice.
func TestRaceLastValue(t *testing.T) {
	rounds := 100_000
	if testing.Short() {
		rounds = 10_000
	}
	for _, thieves := range []int{1, 2} {
		d := New[int](0)
		var round, finished atomic.Int64
		got := make([]atomic.Int32, rounds+1)
		var wg sync.WaitGroup
		for range thieves {
			wg.Go(func() {
				for r := int64(1); r <= int64(rounds); r++ {
					spinUntil(func() bool { return round.Load() >= r })
					if v, ok := d.Steal(); ok {
						got[v].Add(1)
					}
					finished.Add(1)
				}
			})
		}
		owner := 0
		rng := rand.New(rand.NewPCG(5, uint64(thieves)))
		var sink atomic.Int64
		for r := 1; r <= rounds; r++ {
			d.Push(r)
			round.Store(int64(r)) // release the thieves, then race them
			// A random head start for the thieves, so that both sides
			// win often and the race really is a race.
			for range rng.IntN(64) {
				sink.Add(1)
			}
			// Without a second CPU the thieves run only when the owner
			// yields, so it yields here in some rounds: on one P they
			// then steal inside the window, and both sides still win.
			if rng.IntN(4) == 0 {
				runtime.Gosched()
			}
			if v, ok := d.Pop(); ok {
				if v != r {
					t.Fatalf("round %d: Pop() = %d; want %d", r, v, r)
				}
				got[v].Add(1)
				owner++
			}
			spinUntil(func() bool { return finished.Load() == int64(r*thieves) })
			if n := got[r].Load(); n != 1 {
				t.Fatalf("%d thieves, round %d: value taken %d times; want exactly 1", thieves, r, n)
			}
			if d.Len() != 0 {
				t.Fatalf("round %d: Len() = %d after the race; want 0", r, d.Len())
			}
		}
		wg.Wait()
		t.Logf("%d thieves: owner won %d of %d rounds", thieves, owner, rounds)
		if owner == 0 || owner == rounds {
			t.Errorf("%d thieves: owner won %d of %d rounds; the two sides never raced", thieves, owner, rounds)
		}
	}
}

// TestRaceStealHalf fills the deque, then lets the owner pop as fast as it
// can while two thieves StealHalf into their own deques, round after round.
// Every value must be taken once, by the owner or by a thief, never by both.
// This is the race a one-CAS "top += n" StealHalf loses: a thief reads top
// and bottom, the owner pops down into the n values the thief is about to
// claim (without a CAS, since top is still below them), and the thief's CAS
// still succeeds. Rounds vary the length and who starts first, so the
// owner's pops land inside a thief's claim often.
func TestRaceStealHalf(t *testing.T) {
	rounds := 20_000
	if testing.Short() {
		rounds = 4_000
	}
	const thieves = 2
	const maxLen = 48
	d := New[int](0)
	const (
		byOwner = 1 << 0
		byThief = 1 << 8
	)
	takers := make([]atomic.Int32, rounds*maxLen)
	var round, finished atomic.Int64
	var wg sync.WaitGroup
	for i := range thieves {
		wg.Go(func() {
			mine := New[int](0)
			rng := rand.New(rand.NewPCG(9, uint64(i)))
			for r := int64(1); r <= int64(rounds); r++ {
				spinUntil(func() bool { return round.Load() >= r })
				pause(rng.IntN(32))
				for d.StealHalf(mine) > 0 {
				}
				for {
					v, ok := mine.Pop()
					if !ok {
						break
					}
					takers[v].Add(byThief)
				}
				finished.Add(1)
			}
		})
	}
	rng := rand.New(rand.NewPCG(10, 11))
	next := 0
	for r := 1; r <= rounds; r++ {
		first := next
		for range 4 + rng.IntN(maxLen-3) {
			d.Push(next)
			next++
		}
		round.Store(int64(r))
		pause(rng.IntN(32))
		for {
			v, ok := d.Pop()
			if !ok {
				break
			}
			takers[v].Add(byOwner)
		}
		spinUntil(func() bool { return finished.Load() == int64(r*thieves) })
		for v := first; v < next; v++ {
			switch c := takers[v].Load(); c {
			case byOwner, byThief:
			case byOwner + byThief:
				t.Fatalf("round %d: value %d both popped and stolen", r, v)
			default:
				t.Fatalf("round %d: value %d taken %d times by the owner and %d by thieves; want once",
					r, v, c&0xff, c>>8)
			}
		}
	}
	wg.Wait()
}

// TestRaceStealNeverFalseWhenNonEmpty checks that Steal reports false only
// when the deque was empty at some instant during the call. Thieves steal
// only with a token, and the owner hands out one token per value beyond the
// first, so the deque always holds at least one value that no token covers:
// every Steal must succeed. The deque is kept short so that top passes
// through many values while a slow thief sits between two of its loads; a
// thief that loads bottom before top can then see an old bottom and a new
// top, and report a deque that was never empty as empty.
func TestRaceStealNeverFalseWhenNonEmpty(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 150_000
	}
	const thieves = 3
	d := New[int](0)
	var tokens atomic.Int64
	var stolen atomic.Int64
	var done atomic.Bool
	var wg sync.WaitGroup
	for range thieves {
		wg.Go(func() {
			for idle := 0; !done.Load(); {
				k := tokens.Load()
				if k <= 0 {
					backoff(idle, 0) // let the owner push
					idle++
					continue
				}
				idle = 0
				if !tokens.CompareAndSwap(k, k-1) {
					continue
				}
				if _, ok := d.Steal(); !ok {
					t.Errorf("Steal() = false with %d values pushed and at most %d stolen", n, stolen.Load())
					done.Store(true)
					return
				}
				stolen.Add(1)
			}
		})
	}
	d.Push(0)
	for i := 1; i < n && !done.Load(); i++ {
		spinUntil(func() bool { return tokens.Load() < 2 || done.Load() })
		d.Push(i)
		tokens.Add(1)
	}
	spinUntil(func() bool { return tokens.Load() == 0 || done.Load() })
	done.Store(true)
	wg.Wait()
}
