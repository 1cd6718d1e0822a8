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
