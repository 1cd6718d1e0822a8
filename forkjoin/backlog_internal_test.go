package forkjoin

import "testing"

// A spawning loop that reaches its scope's backlog bound runs full batches
// inline (endBatch) and counts them finished in its worker's held count
// (finishScopeTask). That count must reach the scope's counter as the loop
// goes on: when it did not, the bound saw every inline task as still
// pending, so the loop, once at the bound, ran all later tasks inline and
// published none for thieves, and two workers ran the tiny-tasks workload
// no faster than one. One worker makes the count deterministic: no thief
// runs or holds anything.
func TestBackloggedScopeKeepsPublishing(t *testing.T) {
	p := New(Workers(1))
	defer p.Close()
	var ran int64
	f := NewFunc(func(_ *Worker, _ int) struct{} { ran++; return struct{}{} })
	Run(p, func(w *Worker) {
		Scope(w, func(s *S) {
			n := 4 * s.limit
			for i := range n {
				f.Go(s, int(i))
			}
			// Every task spawned beyond the bound ran inline, and at most
			// scopeFlushEvery of those may still be held by the worker;
			// the rest of the count is the backlog, within the bound.
			if got, most := s.pending.Load(), s.limit+scopeFlushEvery+spawnBatch; got > most {
				t.Errorf("after %d spawns the scope counts %d tasks pending; want at most %d (bound %d)", n, got, most, s.limit)
			}
		})
	})
	if want := 4 * int64(pendingPerWorker); ran != want {
		t.Errorf("ran %d tasks, want %d", ran, want)
	}
}
