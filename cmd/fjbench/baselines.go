package main

import (
	"sync"

	"golang.org/x/sync/errgroup"
)

// The baselines are what a Go programmer writes without a fork-join library.
// Each comes in two forms:
//
//   - flat: n independent tasks, started from one loop and waited for together
//     (the tiny-tasks experiment, the row blocks of a matrix product). A worker-capped
//     pool is fine here: the loop that blocks on the cap is not itself a task.
//
//   - recursive: a task forks children and waits for them. Forking through a
//     capped pool that blocks when it is full deadlocks once every slot holds a
//     parent waiting for a child that cannot get a slot — with 1 or 2 slots on
//     the first few levels of any recursion. So the recursive forms are written
//     the way a careful programmer would: hand the child over only if a slot is
//     free right now (errgroup's TryGo, a non-blocking channel send), else run
//     it inline. Then every child ever waited for is running somewhere, and
//     waiting cannot deadlock.

// flatGoroutines runs task(0..n-1), one goroutine each.
func flatGoroutines(n int, task func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { task(i) })
	}
	wg.Wait()
}

// flatErrgroup runs task(0..n-1) through an errgroup limited to workers
// goroutines at a time; g.Go blocks the loop while the group is full.
func flatErrgroup(workers, n int, task func(i int)) {
	var g errgroup.Group
	g.SetLimit(workers)
	for i := range n {
		g.Go(func() error { task(i); return nil })
	}
	g.Wait()
}

// chanPool is a fixed set of goroutines that run the functions sent on an
// unbuffered channel. Unbuffered matters for the recursive form: a buffered
// send could succeed while every pool goroutine is a parent waiting for its
// children, leaving the child in the buffer with nobody to run it.
type chanPool struct {
	ch chan func()
	wg sync.WaitGroup
}

func newChanPool(workers int) *chanPool {
	p := &chanPool{ch: make(chan func())}
	for range workers {
		p.wg.Go(func() {
			for f := range p.ch {
				f()
			}
		})
	}
	return p
}

// close stops the pool's goroutines after the work already handed over.
func (p *chanPool) close() {
	close(p.ch)
	p.wg.Wait()
}

// flat runs task(0..n-1) on the pool, the loop blocking while all are busy.
func (p *chanPool) flat(n int, task func(i int)) {
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		p.ch <- func() { task(i); wg.Done() }
	}
	wg.Wait()
}

// forker is the recursive baselines' way to start a child: fork starts fn on
// another goroutine if it can, or runs it inline, and calls wg.Done when fn has
// returned either way; the parent then waits on wg.
type forker interface {
	fork(wg *sync.WaitGroup, fn func())
}

// goForker starts every child on a goroutine of its own.
type goForker struct{}

func (goForker) fork(wg *sync.WaitGroup, fn func()) {
	wg.Go(fn)
}

// poolForker hands a child to an idle pool goroutine, else runs it inline.
type poolForker struct{ p *chanPool }

func (f poolForker) fork(wg *sync.WaitGroup, fn func()) {
	wg.Add(1)
	task := func() { fn(); wg.Done() }
	select {
	case f.p.ch <- task:
	default:
		task()
	}
}

// groupForker starts a child through errgroup.TryGo, else runs it inline.
type groupForker struct{ g *errgroup.Group }

func newGroupForker(workers int) groupForker {
	g := new(errgroup.Group)
	g.SetLimit(workers)
	return groupForker{g}
}

func (f groupForker) fork(wg *sync.WaitGroup, fn func()) {
	wg.Add(1)
	task := func() { fn(); wg.Done() }
	if !f.g.TryGo(func() error { task(); return nil }) {
		task()
	}
}

// cappedNote is the footnote of every recursive scenario.
const cappedNote = "Note: chanpool and errgroup fork recursively here, and a recursive fork through any pool " +
	"that blocks when its workers are all busy (errgroup.Go with SetLimit, a blocking channel send, conc, pond, ants) " +
	"deadlocks silently at 1 or 2 workers: every worker becomes a parent waiting for a child that cannot get a worker. " +
	"So these baselines are written as a careful Go programmer would: hand a child over only when a worker is idle " +
	"right now (errgroup.TryGo; a non-blocking send on an unbuffered channel), else run it inline."

// measureRecursive measures the recursive baselines on body: one goroutine per
// fork, then the idle-or-inline channel pool and errgroup at every worker count.
func measureRecursive(b *bench, base Result, workers []int, prepare func(), body func(f forker) uint64) ([]Result, error) {
	r, _ := b.measure(base, contender{scheduler: "goroutines", prepare: prepare, work: func() uint64 { return body(goForker{}) }})
	rs, err := measurePools(b, base, workers, prepare,
		func(p *chanPool) uint64 { return body(poolForker{p}) },
		func(w int) uint64 {
			f := newGroupForker(w)
			sum := body(f)
			f.g.Wait() // every child has been waited for already; this only tidies up
			return sum
		})
	return append([]Result{r}, rs...), err
}

// measureFlat measures the flat baselines on tasks 0..n-1 followed by
// finish, which returns the checksum: the channel pool and errgroup at every
// worker count, then one goroutine per task.
func measureFlat(b *bench, base Result, workers []int, prepare func(), n int, task func(i int), finish func() uint64) ([]Result, error) {
	out, _ := measurePools(b, base, workers, prepare,
		func(p *chanPool) uint64 { p.flat(n, task); return finish() },
		func(w int) uint64 { flatErrgroup(w, n, task); return finish() })
	r, err := b.measure(base, contender{scheduler: "goroutines", prepare: prepare,
		work: func() uint64 { flatGoroutines(n, task); return finish() }})
	return append(out, r), err
}

// measurePools measures a channel pool (onPool runs the work on one) and
// errgroup (onGroup runs it with a limit of w goroutines) at every worker
// count, in that order.
func measurePools(b *bench, base Result, workers []int, prepare func(), onPool func(p *chanPool) uint64, onGroup func(w int) uint64) ([]Result, error) {
	var out []Result
	for _, w := range workers {
		p := newChanPool(w)
		r, _ := b.measure(base, contender{scheduler: "chanpool", workers: w, prepare: prepare, work: func() uint64 { return onPool(p) }})
		p.close()
		out = append(out, r)
	}
	for _, w := range workers {
		r, _ := b.measure(base, contender{scheduler: "errgroup", workers: w, prepare: prepare, work: func() uint64 { return onGroup(w) }})
		out = append(out, r)
	}
	return out, b.err
}
