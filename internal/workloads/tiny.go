// Package workloads defines, once, the work that cmd/fjbench and the
// testing.B benchmarks both measure, so that a benchmark of a package and
// the fjbench rows that retell it run the same code.
package workloads

import "github.com/fjkit/fjkit/forkjoin"

// The tiny-tasks experiment (docs/benchmarks.md) runs n independent tasks
// of a few nanoseconds each, so that what it measures is how a scheduler
// hands tasks out. Task i stores TinyTask(i, weight) in a slot of its own
// and the checksum is the sum of the slots: no two tasks contend on an
// accumulator, and a dropped or repeated task changes the sum (a XOR would
// let a pair of them cancel out).

// TinyTask is the work of task i: weight rounds of a 64-bit linear
// congruential step followed by an xorshift, from i|1. The weight sets how
// long a task computes against how often a scheduler is asked for the next.
func TinyTask(i uint64, weight int) uint64 {
	state := i | 1
	for range weight {
		state = state*6364136223846793005 + 1
		state ^= state >> 33
	}
	return state
}

// Tiny is one run of the experiment: the weight of its tasks and their
// results, one slot per task.
type Tiny struct {
	Weight int
	Out    []uint64
}

// NewTiny returns n tasks of the given weight.
func NewTiny(n, weight int) *Tiny { return &Tiny{Weight: weight, Out: make([]uint64, n)} }

// Run runs task i.
func (t *Tiny) Run(i int) { t.Out[i] = TinyTask(uint64(i), t.Weight) }

// Sum is the checksum of a run: the sum of every task's result.
func (t *Tiny) Sum() uint64 {
	var s uint64
	for _, v := range t.Out {
		s += v
	}
	return s
}

// Reset clears the results before the next run.
func (t *Tiny) Reset() { clear(t.Out) }

// The ways a program hands the tasks to a forkjoin pool, each run by the
// task w runs.

// tinyArg is a spawned task: two words, the run and the task's index.
type tinyArg struct {
	t *Tiny
	i int
}

var tinyFunc = forkjoin.NewFunc(func(_ *forkjoin.Worker, a tinyArg) struct{} {
	a.t.Run(a.i)
	return struct{}{}
})

// SpawnFunc is one producer: a loop that spawns every task into a Scope
// with Func.Go, the allocation-free spawn, and waits for them.
func (t *Tiny) SpawnFunc(w *forkjoin.Worker) {
	forkjoin.Scope(w, func(s *forkjoin.S) {
		for i := range t.Out {
			tinyFunc.Go(s, tinyArg{t, i})
		}
	})
}

// SpawnClosure is SpawnFunc with S.Go and a closure per task, which the
// collector then has to clear away.
func (t *Tiny) SpawnClosure(w *forkjoin.Worker) {
	forkjoin.Scope(w, func(s *forkjoin.S) {
		for i := range t.Out {
			s.Go(func(*forkjoin.Worker) { t.Run(i) })
		}
	})
}

// Range is a fixed-grain loop of single tasks (ForRange, grain 1): work
// stealing runs it piece by piece and splits it only for a hungry worker,
// the shared queue gets every piece from the caller.
func (t *Tiny) Range(w *forkjoin.Worker) {
	forkjoin.ForRange(w, 0, len(t.Out), 1, func(_ *forkjoin.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			t.Run(i)
		}
	})
}

// For is a recursive split with the adaptive grain: what For does for a
// program that does not choose a grain.
func (t *Tiny) For(w *forkjoin.Worker) {
	forkjoin.For(w, 0, len(t.Out), func(_ *forkjoin.Worker, i int) { t.Run(i) })
}
