package forkjoin

import (
	"testing"
)

// Tests of Worker.Inline (func.go): it says true exactly where Func.Join
// would join inline.

// inlineRun is what inlineDepth observed: how often Inline said true, and
// how often its answer differed from the inline join's own test, read from
// the worker just before the call (the frontier, nframes-promoteAt >=
// protectDepth, and the heartbeat countdown, ticksLeft > 0).
type inlineRun struct {
	trues, wrong int
}

// inlineDepth recurses to depth d, asking Inline at every level as a
// recursion with the guard would, and checks each answer.
func inlineDepth(w *Worker, d int, r *inlineRun) {
	if d == 0 {
		return
	}
	want := w.nframes-w.promoteAt >= protectDepth && w.ticksLeft > 0
	got := w.Inline()
	if got != want {
		r.wrong++
	}
	if got {
		r.trues++
		inlineDepth(w, d-1, r)
		return
	}
	inlineJoin.Join(w, inlineArg{d - 1, r}, inlineArg{0, r})
}

type inlineArg struct {
	d int
	r *inlineRun
}

var inlineJoin *Func[inlineArg, struct{}]

func init() {
	inlineJoin = NewFunc(func(w *Worker, a inlineArg) struct{} {
		inlineDepth(w, a.d, a.r)
		return struct{}{}
	})
}

// TestInlineOnlyWhereJoinIsInline checks that Inline says true exactly when
// Func.Join would take its inline path, at every level of a recursion 200
// deep (which takes its lazy joins near the root, its heartbeat checks, and
// inline joins below); that it says true there at all in work-stealing mode
// and never in shared-queue mode (every join is eager); and that it says
// false on a nil *Worker and on one kept after its task returned (Join
// panics on both).
func TestInlineOnlyWhereJoinIsInline(t *testing.T) {
	const depth = 200
	for _, mode := range []Mode{WorkStealing, SharedQueue} {
		p := New(Workers(1), WithMode(mode))
		var r inlineRun
		var kept *Worker
		Run(p, func(w *Worker) {
			kept = w
			inlineDepth(w, depth, &r)
		})
		if r.wrong != 0 {
			t.Errorf("%v: Inline's answer differed from the inline join's test %d times in %d levels", mode, r.wrong, depth)
		}
		switch {
		case mode == SharedQueue && r.trues != 0:
			t.Errorf("shared-queue mode: Inline true %d times, want never", r.trues)
		case mode == WorkStealing && (r.trues == 0 || r.trues > depth-protectDepth):
			t.Errorf("work-stealing mode: Inline true %d times in %d levels, want some and at most %d",
				r.trues, depth, depth-protectDepth)
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
