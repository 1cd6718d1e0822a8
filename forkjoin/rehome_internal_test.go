package forkjoin

import "testing"

// keepOwn sorts only the stolen batch: a job the waiter's own outer frame
// forked (an outer invocation's, beneath a nested inline Invoke) stays on
// its deque; of the batch, the waiter's invocation's jobs stay, in order,
// and another invocation's go to the injector, even when the job the steal
// returned is the waiter's own. Such a job left on the deque would sit
// where its invocation's waiting workers never look (hasWorkFor counts a
// deque only if its worker runs their invocation), and findHelp, popping a
// foreign job first, would stop looking at the deque below it.
func TestKeepOwnSortsOnlyTheStolenBatch(t *testing.T) {
	p := &Pool{}
	w := &Worker{pool: p}
	p.workers = []*Worker{w}
	outer, inner, other := &invocation{}, &invocation{}, &invocation{}
	victim := &Worker{}
	below := &job{inv: outer, owner: w} // forked by w's outer frame before the nested Invoke
	w.deque.Push(below)
	w.inv = inner // now waiting inside the nested invocation
	// A steal-half batch of four, oldest first; the steal popped the newest.
	old, foreign, mid, newest := &job{inv: inner, owner: victim}, &job{inv: other, owner: victim}, &job{inv: inner, owner: victim}, &job{inv: inner, owner: victim}
	for _, j := range []*job{old, foreign, mid} {
		w.deque.Push(j)
	}
	if got := w.keepOwn(newest, 3); got != newest {
		t.Fatalf("keepOwn returned %p, want the newest of the waiter's jobs %p", got, newest)
	}
	var left []*job
	for {
		j, ok := w.deque.Pop()
		if !ok {
			break
		}
		left = append(left, j)
	}
	if len(left) != 3 || left[0] != mid || left[1] != old || left[2] != below {
		t.Errorf("deque after keepOwn holds %d jobs (want mid, old, below, newest first): %v", len(left), left)
	}
	if j := p.injector.popForkedOf(other); j != foreign || p.injector.n.Load() != 0 {
		t.Errorf("the other invocation's job did not go to the injector alone")
	}
	// A batch of another invocation's jobs only: nothing to run, all queued.
	a, b := &job{inv: other, owner: victim}, &job{inv: other, owner: victim}
	w.deque.Push(below)
	w.deque.Push(a)
	if got := w.keepOwn(b, 1); got != nil || w.deque.Len() != 1 || p.injector.n.Load() != 2 {
		t.Errorf("keepOwn of a foreign batch: returned %v, deque %d, injector %d; want nil, 1 (below), 2", got, w.deque.Len(), p.injector.n.Load())
	}
}

// A job rehomed behind a root is still found by its invocation's waiting
// workers: they never take a root, so while every worker waits in that
// invocation, behind queued roots, a look at the injector's front alone
// would leave the job there for ever.
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
	w.rehome(&job{inv: r, owner: ours})
	if len(ours.wake) != 1 || ours.isParked {
		t.Errorf("the joiner waiting in the rehomed job's invocation was not woken (signals %d, parked %v)", len(ours.wake), ours.isParked)
	}
	if p.sleep.idle() != len(p.sleep.parked) {
		t.Errorf("idle count %d with %d workers on the parked list", p.sleep.idle(), len(p.sleep.parked))
	}
}
