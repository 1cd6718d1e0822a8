package par

import "github.com/fjkit/fjkit/forkjoin"

// For calls body(i) for every i in [0, n), each exactly once, in parallel.
// The range is split adaptively (see forkjoin.ForRange): it starts as a few
// pieces per worker, and a piece splits again only when an idle worker steals
// it, so bodies of uneven cost balance without tuning. Called from a task
// (a For nested in a par body, say), it is a loop on the calling worker that
// hands half of what is left to another worker only when one is idle, so
// that a call per node of a tree costs about a function call per index
// while the pool is busy. n <= 0 does nothing.
func For(n int, body func(i int)) {
	if body == nil {
		panic("par.For: body is nil")
	}
	entered()
	if n <= 0 {
		return
	}
	if n == 1 || workers() == 1 {
		defer rewrap()
		for i := range n {
			body(i)
		}
		return
	}
	loop(n, 1, func(_ *forkjoin.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			body(i)
		}
	})
}

// ForRange calls body(lo, hi) on pieces that together cover [0, n) exactly
// once, in parallel, splitting adaptively as For does. It is For for cheap
// bodies: the loop over a piece is the caller's, with no call per index.
// Called from a task, the pieces are about an eighth of n per worker, run
// one after the other on the calling worker while no other worker is idle.
// n <= 0 does nothing.
func ForRange(n int, body func(lo, hi int)) {
	if body == nil {
		panic("par.ForRange: body is nil")
	}
	entered()
	if n <= 0 {
		return
	}
	if n == 1 || workers() == 1 {
		defer rewrap()
		body(0, n)
		return
	}
	loop(n, (n+8*workers()-1)/(8*workers()), func(_ *forkjoin.Worker, lo, hi int) { body(lo, hi) })
}
