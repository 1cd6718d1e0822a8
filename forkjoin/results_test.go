package forkjoin_test

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// affine is x -> a*x + b (mod 2^64). Composition is associative but not
// commutative, so a Reduce that combined pieces out of order would show.
type affine struct{ a, b uint64 }

// then returns x followed by y.
func (x affine) then(y affine) affine { return affine{y.a * x.a, y.a*x.b + y.b} }

func affineOf(i int) affine { return affine{uint64(2*i + 3), uint64(i*i + 1)} }

// TestResultsMatchSerial runs every fork-join construct under every pool
// configuration and compares with the serial answer.
func TestResultsMatchSerial(t *testing.T) {
	fibN := 20
	loopN := 50000
	if raceEnabled {
		fibN, loopN = 16, 10000
	}
	wantFib := serialFib(fibN)
	wantSum := loopN * (loopN - 1) / 2
	wantAffine := affine{1, 0}
	for i := range loopN {
		wantAffine = wantAffine.then(affineOf(i))
	}

	for _, c := range configs() {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()

			t.Run("Func.Join", func(t *testing.T) {
				if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, fibN) }); got != wantFib {
					t.Errorf("fib(%d) = %d, want %d", fibN, got, wantFib)
				}
			})
			t.Run("Join", func(t *testing.T) {
				if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibClosureJoin(w, fibN) }); got != wantFib {
					t.Errorf("fib(%d) = %d, want %d", fibN, got, wantFib)
				}
			})
			t.Run("Join/mixed-types", func(t *testing.T) {
				type pair struct {
					s string
					f float64
				}
				got := forkjoin.Invoke(p, func(w *forkjoin.Worker) pair {
					s, f := forkjoin.Join(w,
						func(*forkjoin.Worker) string { return "left" },
						func(*forkjoin.Worker) float64 { return 2.5 })
					return pair{s, f}
				})
				if got != (pair{"left", 2.5}) {
					t.Errorf("Join returned %v, want {left 2.5}", got)
				}
			})
			t.Run("Do", func(t *testing.T) {
				var hits [7]atomic.Int32
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					fns := make([]func(*forkjoin.Worker), len(hits))
					for i := range fns {
						fns[i] = func(*forkjoin.Worker) { hits[i].Add(1) }
					}
					for k := 0; k <= len(fns); k++ { // 0, 1 and many functions
						forkjoin.Do(w, fns[:k]...)
					}
				})
				for i := range hits {
					if got, want := hits[i].Load(), int32(len(hits)-i); got != want {
						t.Errorf("Do ran fns[%d] %d times, want %d", i, got, want)
					}
				}
			})
			t.Run("Spawn", func(t *testing.T) {
				if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibSpawn(w, fibN) }); got != wantFib {
					t.Errorf("fib(%d) = %d, want %d", fibN, got, wantFib)
				}
			})
			t.Run("Scope", func(t *testing.T) {
				out := make([]int, loopN)
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.Scope(w, func(s *forkjoin.S) {
						for i := range out {
							s.Go(func(*forkjoin.Worker) { out[i] += i + 1 })
						}
					})
				})
				for i, v := range out {
					if v != i+1 {
						t.Fatalf("out[%d] = %d, want %d", i, v, i+1)
					}
				}
			})
			t.Run("For", func(t *testing.T) {
				out := make([]int, loopN)
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.For(w, 0, loopN, func(_ *forkjoin.Worker, i int) { out[i] += i + 1 })
				})
				for i, v := range out {
					if v != i+1 {
						t.Fatalf("out[%d] = %d, want %d", i, v, i+1)
					}
				}
			})
			for _, grain := range []int{0, 1, 7, 64, loopN, 2 * loopN} {
				t.Run("ForRange/grain="+strconv.Itoa(grain), func(t *testing.T) {
					const lo = -13 // a range that does not start at 0
					out := make([]int, loopN)
					var maxPiece atomic.Int64
					forkjoin.Run(p, func(w *forkjoin.Worker) {
						forkjoin.ForRange(w, lo, lo+loopN, grain, func(_ *forkjoin.Worker, a, b int) {
							if a >= b || a < lo || b > lo+loopN {
								t.Errorf("piece [%d, %d) outside [%d, %d)", a, b, lo, lo+loopN)
								return
							}
							if grain > 0 && ((a-lo)%grain != 0 || b-a != grain && b != lo+loopN) {
								// Wherever the splits fall, the pieces are the same.
								t.Errorf("piece [%d, %d) is not [lo+k·grain, lo+(k+1)·grain) (lo %d, grain %d)", a, b, lo, grain)
							}
							for {
								m := maxPiece.Load()
								if int64(b-a) <= m || maxPiece.CompareAndSwap(m, int64(b-a)) {
									break
								}
							}
							for i := a; i < b; i++ {
								out[i-lo]++
							}
						})
					})
					for i, v := range out {
						if v != 1 {
							t.Fatalf("index %d covered %d times, want once", i+lo, v)
						}
					}
					if grain > 0 && maxPiece.Load() > int64(grain) {
						t.Errorf("largest piece %d exceeds grain %d", maxPiece.Load(), grain)
					}
				})
			}
			t.Run("Reduce", func(t *testing.T) {
				sum := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
					return forkjoin.Reduce(w, 0, loopN, 0, func(i int) int { return i }, func(x, y int) int { return x + y })
				})
				if sum != wantSum {
					t.Errorf("sum = %d, want %d", sum, wantSum)
				}
				// Non-commutative: the pieces must be combined in index order.
				got := forkjoin.Invoke(p, func(w *forkjoin.Worker) affine {
					return forkjoin.Reduce(w, 0, loopN, affine{1, 0}, affineOf, affine.then)
				})
				if got != wantAffine {
					t.Errorf("affine composition = %v, want %v", got, wantAffine)
				}
				empty := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
					return forkjoin.Reduce(w, 5, 5, -1, func(int) int { return 1 }, func(x, y int) int { return x + y })
				})
				if empty != -1 {
					t.Errorf("Reduce of an empty range = %d, want the zero value -1", empty)
				}
			})
			t.Run("empty-ranges", func(t *testing.T) {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.For(w, 3, 3, func(*forkjoin.Worker, int) { t.Error("For body ran on an empty range") })
					forkjoin.For(w, 5, 2, func(*forkjoin.Worker, int) { t.Error("For body ran on a reversed range") })
					forkjoin.ForRange(w, 9, 1, 4, func(*forkjoin.Worker, int, int) { t.Error("ForRange body ran on a reversed range") })
					forkjoin.Scope(w, func(*forkjoin.S) {})
				})
			})
		})
	}
}

// TestFuncFork joins Func.Fork handles in every order against the serial sum.
func TestFuncFork(t *testing.T) {
	sq := forkjoin.NewFunc(func(_ *forkjoin.Worker, i int) int { return i * i })
	for _, c := range []poolConfig{{forkjoin.WorkStealing, forkjoin.StealHalf, 4}, {forkjoin.SharedQueue, forkjoin.StealHalf, 3}, {forkjoin.WorkStealing, forkjoin.StealOne, 1}} {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			const n = 200
			got := forkjoin.Invoke(p, func(w *forkjoin.Worker) []int {
				hs := make([]forkjoin.Forked[int, int], n)
				for i := range hs {
					hs[i] = sq.Fork(w, i)
				}
				res := make([]int, n)
				// First half FIFO, second half LIFO.
				for i := 0; i < n/2; i++ {
					res[i] = hs[i].Join(w)
				}
				for i := n - 1; i >= n/2; i-- {
					res[i] = hs[i].Join(w)
				}
				if r := sq.Call(w, 12); r != 144 {
					t.Errorf("Call(12) = %d", r)
				}
				return res
			})
			for i, v := range got {
				if v != i*i {
					t.Fatalf("Fork(%d).Join = %d, want %d", i, v, i*i)
				}
			}
		})
	}
}
