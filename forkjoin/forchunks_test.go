package forkjoin_test

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// TestFixedGrainLoopSpreads checks that a fixed-grain loop, which a worker
// runs piece by piece and splits only when another worker may take half
// (a lazy loop, for.go), still spreads over the pool: idle workers get work at the
// start, and thieves that run dry get half of what is left. Pieces that
// sleep make the loop long enough for every worker to ask.
func TestFixedGrainLoopSpreads(t *testing.T) {
	for _, workers := range []int{2, 4} {
		p := forkjoin.New(forkjoin.Workers(workers))
		var ran [8 + forkjoin.MaxSpares]atomic.Int64 // spares, if the pool lends any, have IDs from 8 on
		var pieces atomic.Int64
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.ForRange(w, 0, 64*workers, 1, func(w *forkjoin.Worker, lo, hi int) {
				ran[w.ID()].Add(1)
				pieces.Add(int64(hi - lo))
				time.Sleep(200 * time.Microsecond)
			})
		})
		p.Close()
		busy := 0
		for i := range workers {
			if ran[i].Load() > 0 {
				busy++
			}
		}
		if pieces.Load() != int64(64*workers) {
			t.Errorf("%d workers: ran %d indices, want %d", workers, pieces.Load(), 64*workers)
		}
		if busy < 2 {
			t.Errorf("%d workers: only %d of them ran pieces of a loop of %d sleeping pieces", workers, busy, 64*workers)
		}
	}
}

// TestFixedGrainLoopSplitsForThief checks the split on demand in the middle
// of a loop: the upper half of the range is instant, the lower half sleeps,
// so the worker that took the upper half runs dry at once and asks; the
// worker running the lower half must then split what it has left, and the
// thief run some of the lower half's pieces.
func TestFixedGrainLoopSplitsForThief(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	const n = 128
	var owner [n]atomic.Int64
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.ForRange(w, 0, n, 1, func(w *forkjoin.Worker, lo, _ int) {
			owner[lo].Store(int64(w.ID()) + 1)
			if lo < n/2 {
				time.Sleep(200 * time.Microsecond)
			}
		})
	})
	first := owner[0].Load()
	for i := range n / 2 {
		if owner[i].Load() != first {
			return // a second worker ran a piece of the slow half
		}
	}
	t.Errorf("one worker ran all %d slow pieces; the other, dry after the fast half, got none", n/2)
}

// TestFixedGrainLoopHugeRange checks a split of a range whose length plus
// grain overflows an int: a split's piece count once did, and split a
// range into an empty piece and the whole range again. In shared-queue
// mode each piece's end is computed from its start (runPiece), where
// lo+grain overflows too.
func TestFixedGrainLoopHugeRange(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		p := forkjoin.New(forkjoin.Workers(2), forkjoin.WithMode(mode))
		const grain = 1 << 62
		var pieces, empty atomic.Int64
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.ForRange(w, 0, math.MaxInt, grain, func(_ *forkjoin.Worker, lo, hi int) {
				pieces.Add(1)
				if lo >= hi || lo%grain != 0 {
					empty.Add(1)
				}
			})
		})
		p.Close()
		if want := int64((math.MaxInt-1)/grain + 1); pieces.Load() != want || empty.Load() != 0 {
			t.Errorf("%v: ran %d pieces (%d empty or misaligned), want %d", mode, pieces.Load(), empty.Load(), want)
		}
	}
}

// TestFixedGrainLoopStopsAtPanic checks that a panic in a piece stops a
// fixed-grain loop in both modes: in shared-queue mode, where the caller
// queues every piece, it once spawned and ran all the rest (20 000 pieces
// that each panicked, 1.2 s of stack captures). Every piece panics, so
// apart from pieces already running when the first panic is recorded (at
// most one per worker, and a thief's split) none may start.
func TestFixedGrainLoopStopsAtPanic(t *testing.T) {
	const pieces = 20000
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for _, workers := range []int{1, 2, 4} {
			p := forkjoin.New(forkjoin.Workers(workers), forkjoin.WithMode(mode))
			var ran atomic.Int64
			pe := recovered(func() {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.ForRange(w, 0, pieces, 1, func(*forkjoin.Worker, int, int) {
						ran.Add(1)
						panic("piece")
					})
				})
			})
			p.Close()
			if _, ok := pe.(*forkjoin.PanicError); !ok {
				t.Errorf("%v, %d workers: ForRange panicked with %v, want a *PanicError", mode, workers, pe)
			}
			if n := ran.Load(); n > int64(4*workers) {
				t.Errorf("%v, %d workers: %d of %d pieces ran after the first panicked, want at most %d",
					mode, workers, n, pieces, 4*workers)
			}
		}
	}
}

// A range longer than MaxInt ([-1, MaxInt) has MaxInt+1 indices) is cut
// into the same pieces as any other: its length used to overflow to a
// negative number, and a fixed-grain loop called body once with the whole
// range.
func TestForRangeLongerThanMaxInt(t *testing.T) {
	const grain = 1 << 61
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for _, g := range []int{grain, 0} {
			t.Run(mode.String()+"/grain="+itoa(g), func(t *testing.T) {
				if testing.Short() && g == 0 && mode == forkjoin.WorkStealing {
					// Adaptive pieces of at most 1/65536 of what is left
					// make some 10 million body calls over 2^63 indices,
					// a long run under -race: make stress runs it.
					t.Skip("10 million adaptive pieces; run without -short")
				}
				p := newPool(t, forkjoin.Workers(2), forkjoin.WithMode(mode))
				var mu sync.Mutex
				var pieces [][2]int
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.ForRange(w, -1, math.MaxInt, g, func(_ *forkjoin.Worker, lo, hi int) {
						mu.Lock()
						pieces = append(pieces, [2]int{lo, hi})
						mu.Unlock()
					})
				})
				slices.SortFunc(pieces, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
				at := -1
				for _, pc := range pieces {
					if pc[0] != at || pc[1] <= pc[0] {
						t.Fatalf("pieces %v do not cover [-1, MaxInt) in order", pieces)
					}
					if g > 0 && (pc[0]+1)%grain != 0 { // pc[0] < MaxInt: no overflow
						t.Errorf("piece %v does not start a multiple of the grain from -1", pc)
					}
					if g > 0 && uint(pc[1])-uint(pc[0]) > grain {
						t.Errorf("piece %v is longer than the grain", pc)
					}
					at = pc[1]
				}
				if at != math.MaxInt {
					t.Fatalf("pieces %v end at %d, want MaxInt", pieces, at)
				}
				if g > 0 && len(pieces) != 4 {
					t.Errorf("%d pieces of grain 2^61 over 2^63 indices, want 4", len(pieces))
				}
			})
		}
	}
}

// A reduction, and a loop of adaptive grain, stop at their first panic as
// a fixed-grain loop does: the pieces the other workers take from then on
// do not start, and a worker waiting for the failed call's pieces does not
// run the rest of it, one panic after another.
func TestReduceAndAdaptiveLoopStopAtPanic(t *testing.T) {
	const n = 20000
	calls := []struct {
		name string
		run  func(w *forkjoin.Worker, ran *atomic.Int64)
	}{
		{"Reduce", func(w *forkjoin.Worker, ran *atomic.Int64) {
			forkjoin.Reduce(w, 0, n, 0, func(int) int {
				ran.Add(1)
				panic("index")
			}, func(x, y int) int { return x + y })
		}},
		{"ReduceW", func(w *forkjoin.Worker, ran *atomic.Int64) {
			forkjoin.ReduceW(w, 0, n, 0, func(*forkjoin.Worker, int) int {
				ran.Add(1)
				panic("index")
			}, func(x, y int) int { return x + y })
		}},
		{"ForRange grain 0", func(w *forkjoin.Worker, ran *atomic.Int64) {
			forkjoin.ForRange(w, 0, n, 0, func(*forkjoin.Worker, int, int) {
				ran.Add(1)
				panic("piece")
			})
		}},
	}
	for _, c := range calls {
		for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
			for _, workers := range []int{1, 2, 4} {
				p := forkjoin.New(forkjoin.Workers(workers), forkjoin.WithMode(mode))
				var ran atomic.Int64
				pe := recovered(func() {
					forkjoin.Run(p, func(w *forkjoin.Worker) { c.run(w, &ran) })
				})
				p.Close()
				if _, ok := pe.(*forkjoin.PanicError); !ok {
					t.Errorf("%s, %v, %d workers: panicked with %v, want a *PanicError", c.name, mode, workers, pe)
				}
				if k := ran.Load(); k > int64(4*workers) {
					t.Errorf("%s, %v, %d workers: %d pieces started, the first of them panicking; want at most %d",
						c.name, mode, workers, k, 4*workers)
				}
			}
		}
	}
}
