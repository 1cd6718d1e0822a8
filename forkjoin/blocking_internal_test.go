package forkjoin

import (
	"testing"
	"time"
)

// A pool lends at most maxSpares compensating workers at once, and each
// goes dormant again once its Blocking call has returned.
func TestSparesAreBoundedAndRetire(t *testing.T) {
	p := New(Workers(2))
	defer p.Close()
	dormant := func() int {
		p.spares.mu.Lock()
		defer p.spares.mu.Unlock()
		return len(p.spares.free)
	}
	if got := dormant(); got != maxSpares(2) {
		t.Fatalf("a new pool has %d dormant spares, want %d", got, maxSpares(2))
	}
	Run(p, func(w *Worker) {
		Blocking(w, func() {
			if got := p.spares.active.Load(); got != 1 {
				t.Errorf("inside Blocking %d spares are active, want 1", got)
			}
			a, b := p.activateSpare(), p.activateSpare()
			if a == nil || b != nil {
				t.Errorf("with one spare lent, a second activation gave %v and a third %v; want a spare, then none", a != nil, b != nil)
			}
			if a != nil {
				p.retireSpare(a)
			}
		})
	})
	deadline := time.Now().Add(10 * time.Second)
	for dormant() != maxSpares(2) || p.spares.active.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("spares did not go dormant after their Blocking calls returned: %d dormant, %d active", dormant(), p.spares.active.Load())
		}
		time.Sleep(time.Millisecond)
	}
	if got := p.Workers(); got != 2 {
		t.Errorf("Workers() = %d, want 2 (spares not counted)", got)
	}
}
