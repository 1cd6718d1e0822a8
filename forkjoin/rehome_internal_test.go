package forkjoin

import "testing"

// rehome pops past the stolen batch: a job the waiter's own outer frame forked
// (an outer invocation's, beneath a nested inline Invoke) goes to the injector,
// where no waiting worker ever looks.
func TestRehomeMovesOnlyTheStolenBatch(t *testing.T) {
	p := &Pool{}
	w := &Worker{pool: p}
	p.workers = []*Worker{w}
	outer, inner, other := &invocation{}, &invocation{}, &invocation{}
	own := &job{inv: outer, owner: w} // forked by w's outer frame before the nested Invoke
	w.deque.Push(own)
	w.inv = inner // now waiting inside the nested invocation
	stolen := &job{inv: other}
	w.rehome(stolen, 0) // as helpSteal does after a race brought in another invocation's job
	if w.deque.Len() != 1 {
		t.Errorf("rehome moved the waiter's own outer job to the injector: deque len %d, injector %d", w.deque.Len(), p.injector.n.Load())
	}
}

// A job rehomed behind a root is still found by its invocation's waiting
// workers: they never take a root, so while every worker waits in that
// invocation (the chaos test's hang: two joiners, seven roots queued) a
// look at the injector's front alone would leave the job there for ever.
func TestWaitersFindRehomedJobsBehindRoots(t *testing.T) {
	var q queue
	r, other := &invocation{}, &invocation{}
	owner := &Worker{}
	roots := []*job{{inv: other}, {inv: &invocation{}}}
	theirs := &job{inv: other, owner: owner}
	ours := &job{inv: r, owner: owner}
	for _, j := range []*job{roots[0], theirs, roots[1], ours} {
		q.push(j, nil)
	}
	if !q.hasForkedOf(r) {
		t.Fatal("hasForkedOf missed r's job behind two roots")
	}
	if j := q.popForkedOf(r); j != ours {
		t.Fatalf("popForkedOf(r) took %v, want r's forked job", j)
	}
	if q.hasForkedOf(r) || q.popForkedOf(r) != nil {
		t.Fatal("popForkedOf(r) finds a job after r's only one was taken")
	}
	if j := q.popForkedOf(other); j != theirs {
		t.Fatal("popForkedOf took a root or missed the forked job")
	}
	if q.size != 2 || q.forked != 0 || q.popFront(nil) != roots[0] || q.popFront(nil) != roots[1] {
		t.Fatal("popForkedOf disturbed the roots' order")
	}
}

// rehome wakes the parked joiners of the jobs it moves: a producer's wakeOne
// with no idle worker parked goes to the joiner that parked last, and one
// waiting in another invocation passes it on to an idle worker, of which
// there is none, so the joiners that could run the jobs would sleep on.
func TestRehomeWakesTheJobsJoiners(t *testing.T) {
	p := &Pool{}
	r, other, third := &invocation{}, &invocation{}, &invocation{}
	parkedJoiner := func(inv *invocation) *Worker {
		x := &Worker{pool: p, parking: parking{wake: make(chan struct{}, 1), isParked: true, joining: true}}
		x.inv = inv
		return x
	}
	ours, bystander := parkedJoiner(r), parkedJoiner(other)
	p.sleep.parked = []*Worker{ours, bystander} // bystander parked last
	p.sleep.addIdle(2)
	w := &Worker{pool: p}
	p.workers = []*Worker{w, ours, bystander}
	w.inv = third
	w.rehome(&job{inv: r, owner: ours}, 0)
	if len(ours.wake) != 1 || ours.isParked {
		t.Errorf("the joiner waiting in the rehomed job's invocation was not woken (signals %d, parked %v)", len(ours.wake), ours.isParked)
	}
	if p.sleep.idle() != len(p.sleep.parked) {
		t.Errorf("idle count %d with %d workers on the parked list", p.sleep.idle(), len(p.sleep.parked))
	}
}
