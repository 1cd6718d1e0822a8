package forkjoin

import (
	"slices"
	"testing"
)

// A worker's wait for a set boxes nothing: the set is its own probe, so
// waitFor and park take it as it is.
func TestTasksWaitProbeAllocations(t *testing.T) {
	if raceStrands {
		t.Skip("the race detector allocates on its own")
	}
	p := New(Workers(1))
	defer p.Close()
	var ts Tasks
	Run(p, func(w *Worker) {
		w.waitFor(&ts, nil) // nothing pending: the probe holds at once
		if a := testing.AllocsPerRun(100, func() { w.waitFor(&ts, nil) }); a != 0 {
			t.Errorf("waitFor on a Tasks: %.1f allocations, want 0", a)
		}
	})
}

// arm lists the waiter only while tasks are pending: a waiter that finds
// none is taken off the list, so that a set used again does not wake it.
func TestTasksArm(t *testing.T) {
	p := New(Workers(1))
	defer p.Close()
	var ts Tasks
	Run(p, func(w *Worker) {
		if ts.arm(w) {
			t.Error("arm with no task pending reported true")
		}
		if slices.Contains(ts.waiters(), w) {
			t.Error("arm with no task pending left the worker on the waiters' list")
		}
		ts.pending.Add(1)
		if !ts.arm(w) {
			t.Error("arm with a task pending reported false")
		}
		if !slices.Contains(ts.waiters(), w) {
			t.Error("arm with a task pending did not list the worker")
		}
		ts.finish() // takes the list and wakes w: a spurious wake-up, which park allows
		if slices.Contains(ts.waiters(), w) {
			t.Error("the last task's finish left the worker on the waiters' list")
		}
	})
}

// waiters returns the set's waiters' list.
func (t *Tasks) waiters() []*Worker {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waits == nil {
		return nil
	}
	return slices.Clone(t.waits.waiters)
}
