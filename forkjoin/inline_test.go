package forkjoin

import (
	"testing"
)

// Tests of Worker.Inline (func.go): it says true only where Func.Join would
// join inline, and a recursion that follows it loses no parallelism and no
// count.

// inlineDepth recurses to depth d, asking Inline at every level as a
// recursion with the guard would, and counts the trues.
func inlineDepth(w *Worker, d int, trues *int) {
	if d == 0 {
		return
	}
	if w.Inline() {
		*trues++
		inlineDepth(w, d-1, trues)
		return
	}
	inlineJoin.Join(w, inlineArg{d - 1, trues}, inlineArg{0, trues})
}

type inlineArg struct {
	d     int
	trues *int
}

var inlineJoin *Func[inlineArg, struct{}]

func init() {
	inlineJoin = NewFunc(func(w *Worker, a inlineArg) struct{} {
		inlineDepth(w, a.d, a.trues)
		return struct{}{}
	})
}

// TestInlineOnlyWhereJoinIsInline checks Inline's false cases: in
// shared-queue mode (every join is eager), in the first protectDepth
// levels of a task (those joins are lazy, hence stealable), on a nil
// *Worker and on one kept after its task returned (Join panics there); and
// that below
// those levels it is true for all but about one fork in hbStride.
func TestInlineOnlyWhereJoinIsInline(t *testing.T) {
	const depth = 200
	for _, mode := range []Mode{WorkStealing, SharedQueue} {
		p := New(Workers(1), WithMode(mode))
		var trues int
		var kept *Worker
		Run(p, func(w *Worker) {
			kept = w
			inlineDepth(w, depth, &trues)
		})
		switch {
		case mode == SharedQueue && trues != 0:
			t.Errorf("shared-queue mode: Inline true %d times, want never", trues)
		case mode == WorkStealing && (trues > depth-protectDepth || trues < (depth-protectDepth)/2):
			// Heartbeat checks come every hbStride forks at most, and more
			// often while the fresh worker's hbEvery ramps up or after a
			// preemption: each makes one false.
			t.Errorf("work-stealing mode: Inline true %d times in %d levels, want at most %d and most of them",
				trues, depth, depth-protectDepth)
		}
		if kept.Inline() {
			t.Errorf("%v: Inline true on a *Worker whose task has returned", mode)
		}
		if (*Worker)(nil).Inline() {
			t.Errorf("%v: Inline true on a nil *Worker", mode)
		}
		p.Close()
	}
}
