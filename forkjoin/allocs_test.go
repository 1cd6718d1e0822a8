package forkjoin_test

import (
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// The package doc's allocation claims, pinned: a Func fork allocates
// nothing once the worker's records are warm, and a closure Join allocates
// exactly its closure.
func TestForkAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	p := newPool(t, forkjoin.Workers(1))
	const n = 15 // fib(15) forks 986 times
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		fibJoin.Call(w, n) // warm the records
		if a := testing.AllocsPerRun(20, func() { fibJoin.Call(w, n) }); a != 0 {
			t.Errorf("Func.Join: %.1f allocations per fib(%d), want 0", a, n)
		}
		joins := float64(serialFib(n+1) - 1) // calls with n >= 2 fork once each
		fibClosureJoin(w, n)
		a := testing.AllocsPerRun(20, func() { fibClosureJoin(w, n) })
		if per := a / joins; per < 0.99 || per > 1.01 {
			t.Errorf("closure Join: %.3f allocations per join (%.0f per fib(%d)), want 1", per, a, n)
		}
	})
}

// nopEnd is a TaskEnd that keeps nothing.
type nopEnd struct{}

func (nopEnd) TaskEnded(error, *forkjoin.PanicError) {}

// A Tasks' GoErr and Wait allocate nothing once the worker's records are
// warm, beyond what the function captures: not a wrapper per task, nor a
// probe per Wait that finds tasks pending.
func TestTasksAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	p := newPool(t, forkjoin.Workers(1))
	var ts forkjoin.Tasks
	ran := 0
	f := func() error { ran++; return nil }
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		round := func() {
			for range 10 {
				ts.GoErr(w, f, nopEnd{})
			}
			ts.Wait(w)
		}
		round() // warm the records
		if a := testing.AllocsPerRun(20, round); a != 0 {
			t.Errorf("10 GoErr and a Wait: %.1f allocations, want 0", a)
		}
	})
	if ran != 10*22 {
		t.Errorf("the tasks ran %d times, want %d", ran, 10*22)
	}
}
