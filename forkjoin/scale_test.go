package forkjoin_test

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

const chainDepth = 100_000

// chainFunc recurses n levels deep, each level joining a trivial side (an
// argument < 0) that a thief may take: 1e5 pending forks at the bottom.
var chainFunc *forkjoin.Func[int, int]

func init() { chainFunc = forkjoin.NewFunc(chainBody) }

func chainBody(w *forkjoin.Worker, n int) int {
	if n <= 0 {
		return -n // 1 for a trivial side, 0 at the bottom
	}
	a, b := chainFunc.Join(w, n-1, -1)
	return a + b
}

func chainClosure(w *forkjoin.Worker, n int) int {
	if n == 0 {
		return 0
	}
	a, b := forkjoin.Join(w,
		func(w *forkjoin.Worker) int { return chainClosure(w, n-1) },
		func(*forkjoin.Worker) int { return 1 })
	return a + b
}

// TestDeepJoinChain nests 100 000 Joins: the stack grows and the deque holds
// every pending side at the bottom, then unwinds.
func TestDeepJoinChain(t *testing.T) {
	cs := []poolConfig{
		{forkjoin.WorkStealing, forkjoin.StealHalf, 4},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 3},
		{forkjoin.WorkStealing, forkjoin.StealOne, 2},
		{forkjoin.WorkStealing, forkjoin.StealHalf, 1},
	}
	if raceEnabled && testing.Short() {
		cs = cs[:2] // each chain takes over a second under the race detector
	}
	for _, c := range cs {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return chainFunc.Call(w, chainDepth) }); got != chainDepth {
				t.Errorf("Func chain returned %d, want %d", got, chainDepth)
			}
			if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return chainClosure(w, chainDepth) }); got != chainDepth {
				t.Errorf("closure chain returned %d, want %d", got, chainDepth)
			}
		})
	}
}

// TestScopeMillionTasks spawns a million tasks (fewer under the race detector
// in -short mode) through Scope, flat and as a tree, and checks that each ran
// exactly once.
func TestScopeMillionTasks(t *testing.T) {
	n := 1_000_000
	if raceEnabled && testing.Short() {
		n = 100_000
	}
	for _, c := range []poolConfig{
		{forkjoin.WorkStealing, forkjoin.StealHalf, 4},
		{forkjoin.WorkStealing, forkjoin.StealOne, 3},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 2},
	} {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			count := make([]atomic.Uint32, n)
			check := func(shape string) {
				t.Helper()
				for i := range count {
					if v := count[i].Swap(0); v != 1 {
						t.Fatalf("%s: task %d ran %d times, want 1", shape, i, v)
					}
				}
			}

			// Flat: the scope body spawns every task.
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.S) {
					for i := range n {
						s.Go(func(*forkjoin.Worker) { count[i].Add(1) })
					}
				})
			})
			check("flat")

			// Tree: tasks split their range and spawn the halves into the
			// same scope from whichever worker runs them.
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.S) {
					var split func(w *forkjoin.Worker, lo, hi int)
					split = func(w *forkjoin.Worker, lo, hi int) {
						for hi-lo > 1 {
							mid, end := lo+(hi-lo)/2, hi
							s.GoFrom(w, func(w *forkjoin.Worker) { split(w, mid, end) })
							hi = mid
						}
						count[lo].Add(1)
					}
					split(w, 0, n)
				})
			})
			check("tree")
		})
	}
}

// TestSpawnOutOfOrder joins futures in reverse, shuffled and nested orders.
func TestSpawnOutOfOrder(t *testing.T) {
	const n = 300
	for _, c := range []poolConfig{
		{forkjoin.WorkStealing, forkjoin.StealHalf, 4},
		{forkjoin.WorkStealing, forkjoin.StealOne, 2},
		{forkjoin.WorkStealing, forkjoin.StealHalf, 1},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 3},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 1},
	} {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			orders := map[string]func(rng *rand.Rand) []int{
				"forward": func(*rand.Rand) []int { return seq(n) },
				"reverse": func(*rand.Rand) []int {
					s := seq(n)
					for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
						s[i], s[j] = s[j], s[i]
					}
					return s
				},
				"shuffled": func(rng *rand.Rand) []int {
					s := seq(n)
					rng.Shuffle(n, func(i, j int) { s[i], s[j] = s[j], s[i] })
					return s
				},
			}
			for name, order := range orders {
				t.Run(name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(1, uint64(len(name))))
					got := forkjoin.Invoke(p, func(w *forkjoin.Worker) []int {
						fs := make([]forkjoin.Future[int], n)
						for i := range fs {
							fs[i] = forkjoin.Spawn(w, func(w *forkjoin.Worker) int {
								// Each future spawns and joins its own
								// children in reverse, nested inside
								// the outer out-of-order joins.
								a := forkjoin.Spawn(w, func(*forkjoin.Worker) int { return i })
								b := forkjoin.Spawn(w, func(w *forkjoin.Worker) int { return fibSpawn(w, i%8) })
								return b.Join(w)*1000 + a.Join(w)
							})
						}
						res := make([]int, n)
						for _, i := range order(rng) {
							res[i] = fs[i].Join(w)
						}
						return res
					})
					for i, v := range got {
						if want := serialFib(i%8)*1000 + i; v != want {
							t.Fatalf("future %d = %d, want %d", i, v, want)
						}
					}
				})
			}
		})
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
