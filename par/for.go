package par

import "github.com/fjkit/fjkit/forkjoin"

// For calls body(i) for every i in [0, n), each exactly once, in parallel.
// It starts in the calling goroutine with index 0 and times itself: once
// the indices run so far have taken longer than a trip to the pool costs,
// and what is left would take longer still, the rest runs on the pool, in
// pieces sized by the cost measured (see the package doc). A costly body
// therefore goes parallel after its first index, and a loop of cheap
// bodies that the pool could not speed up never leaves the caller. The
// pieces split again whenever a worker is idle, so bodies of uneven cost
// balance without tuning. Called from a task (a For nested per node of a
// tree walk), a loop skips the timing: it runs on the calling worker, and
// parts of it go to other workers only as the task's forks would (see the
// package doc). n <= 0 does nothing.
//
// For calls body once per index through a function value, which the
// compiler cannot inline; for a body of a few nanoseconds that call is a
// good part of the cost, and ForRange, whose body loops over a piece
// itself, is faster.
func For(n int, body func(i int)) {
	if body == nil {
		panic("par.For: body is nil")
	}
	if p := start(n, func(lo, hi int) { forEach(lo, hi, body) }); p.parallel() {
		p.finish(nil, func(_ *forkjoin.Worker, lo, hi int) { forEach(lo, hi, body) }) // made here: see start
	}
}

// ForRange calls body(lo, hi) on pieces that together cover [0, n) exactly
// once, in parallel, as For does: the first pieces run in the calling
// goroutine while they are timed, the rest on the pool, cut to the cost
// measured. It is For for cheap bodies: the loop over a piece is the
// caller's, with no call per index. The pieces have any length from 1.
// n <= 0 does nothing.
func ForRange(n int, body func(lo, hi int)) {
	if body == nil {
		panic("par.ForRange: body is nil")
	}
	if p := start(n, func(lo, hi int) { body(lo, hi) }); p.parallel() {
		p.finish(nil, func(_ *forkjoin.Worker, lo, hi int) { body(lo, hi) })
	}
}

// forEach calls body(i) for i from lo to hi, four a round, so that no call
// waits on the loop counter the one before it reloads.
func forEach(lo, hi int, body func(i int)) {
	i := lo
	for ; i <= hi-4; i += 4 {
		body(i)
		body(i + 1)
		body(i + 2)
		body(i + 3)
	}
	for ; i < hi; i++ {
		body(i)
	}
}
