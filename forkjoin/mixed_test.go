package forkjoin_test

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// node is a random fork-join program: a tree whose inner nodes use every
// construct, nested in every combination. Its value is the sum of its leaves.
type node struct {
	kind  int // one of the kind* constants
	leaf  int
	kids  []*node
	order []int // the order in which spawned kids are joined
}

const (
	kindLeaf = iota
	kindJoin
	kindFuncJoin
	kindSpawn
	kindFork
	kindScope
	kindFor
	kindReduce
	kindDo
	numKinds
)

func randomTree(rng *rand.Rand, depth int) *node {
	if depth == 0 || rng.IntN(8) == 0 {
		return &node{kind: kindLeaf, leaf: rng.IntN(1000)}
	}
	n := &node{kind: 1 + rng.IntN(numKinds-1)}
	k := 2
	if n.kind != kindJoin && n.kind != kindFuncJoin {
		k = 1 + rng.IntN(5)
	}
	for range k {
		n.kids = append(n.kids, randomTree(rng, depth-1))
	}
	n.order = rng.Perm(k)
	return n
}

func (n *node) serial() int {
	s := n.leaf
	for _, k := range n.kids {
		s += k.serial()
	}
	return s
}

var evalFunc *forkjoin.Func[*node, int]

func init() {
	evalFunc = forkjoin.NewFunc(func(w *forkjoin.Worker, n *node) int { return n.eval(w) })
}

func (n *node) eval(w *forkjoin.Worker) int {
	switch n.kind {
	case kindLeaf:
		return n.leaf
	case kindJoin:
		a, b := forkjoin.Join(w, n.kids[0].eval, n.kids[1].eval)
		return a + b
	case kindFuncJoin:
		a, b := evalFunc.Join(w, n.kids[0], n.kids[1])
		return a + b
	case kindSpawn:
		fs := make([]forkjoin.Future[int], len(n.kids))
		for i, k := range n.kids {
			fs[i] = forkjoin.Spawn(w, k.eval)
		}
		s := 0
		for _, i := range n.order {
			s += fs[i].Join(w)
		}
		return s
	case kindFork:
		hs := make([]forkjoin.Forked[*node, int], len(n.kids))
		for i, k := range n.kids {
			hs[i] = evalFunc.Fork(w, k)
		}
		s := 0
		for _, i := range n.order {
			s += hs[i].Join(w)
		}
		return s
	case kindScope:
		var s atomic.Int64
		forkjoin.Scope(w, func(sc *forkjoin.S) {
			for _, k := range n.kids {
				sc.Go(func(w *forkjoin.Worker) { s.Add(int64(k.eval(w))) })
			}
		})
		return int(s.Load())
	case kindFor:
		var s atomic.Int64
		forkjoin.For(w, 0, len(n.kids), func(w *forkjoin.Worker, i int) { s.Add(int64(n.kids[i].eval(w))) })
		return int(s.Load())
	case kindReduce:
		// Reduce's mapf has no worker: evaluate the kids serially there,
		// in parallel with each other.
		return forkjoin.Reduce(w, 0, len(n.kids), 0, func(i int) int { return n.kids[i].serial() }, func(x, y int) int { return x + y })
	case kindDo:
		res := make([]int, len(n.kids))
		fns := make([]func(*forkjoin.Worker), len(n.kids))
		for i, k := range n.kids {
			fns[i] = func(w *forkjoin.Worker) { res[i] = k.eval(w) }
		}
		forkjoin.Do(w, fns...)
		s := 0
		for _, v := range res {
			s += v
		}
		return s
	}
	panic("unknown kind")
}

// TestMixedRandomPrograms evaluates random programs that nest every
// construct in every order, under several pools, against the serial sum.
func TestMixedRandomPrograms(t *testing.T) {
	programs, depth := 200, 8
	if raceEnabled && testing.Short() {
		programs, depth = 60, 7
	}
	for _, c := range []poolConfig{
		{forkjoin.WorkStealing, forkjoin.StealHalf, 4},
		{forkjoin.WorkStealing, forkjoin.StealOne, 3},
		{forkjoin.WorkStealing, forkjoin.StealHalf, 1},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 4},
	} {
		t.Run(c.String(), func(t *testing.T) {
			p := c.hangPool(t)
			withTimeout(t, 60*time.Second, func() {
				for seed := range programs {
					tree := randomTree(rand.New(rand.NewPCG(uint64(seed), 7)), depth)
					want := tree.serial()
					// Two callers at once, to mix invocations too.
					res := make(chan int, 1)
					go func() { res <- forkjoin.Invoke(p, tree.eval) }()
					got1 := forkjoin.Invoke(p, tree.eval)
					if got2 := <-res; got1 != want || got2 != want {
						t.Errorf("program %d: got %d and %d, want %d", seed, got1, got2, want)
					}
				}
			})
		})
	}
}
