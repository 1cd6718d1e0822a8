package forkjoin

import (
	"runtime"
	"testing"
	"time"
)

// spinArg is a spawned task of the record tests: enough work (a few hundred
// nanoseconds) that the second worker steals plenty while the first spawns.
type spinArg struct {
	i   int
	out []uint64
}

var spinFunc = NewFunc(func(_ *Worker, a spinArg) struct{} {
	a.out[a.i] = spin(uint64(a.i))
	return struct{}{}
})

//go:noinline
func spin(x uint64) uint64 {
	x |= 1
	for range 64 {
		x = x*6364136223846793005 + 1
		x ^= x >> 33
	}
	return x
}

func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// Records of tasks that a thief ran go back to the worker that spawned them
// (giveBack), which keeps them all while busy: a scope of many times its
// backlog bound, with a thief taking about half, allocates next to nothing
// once the spawner has as many records as it needs at once. When the
// spawner's cache kept only 256 records per key, about two stolen tasks in
// five allocated a new record.
func TestSpawnedRecordsReturnToSpawner(t *testing.T) {
	p := New(Workers(2))
	defer p.Close()
	n := 4 * pendingPerWorker * 2
	out := make([]uint64, n)
	// One closure for every S.Go: a closure made per spawn would allocate
	// by itself, and this test counts the runtime's allocations only.
	task := func(*Worker) { spin(7) }
	for _, tc := range []struct {
		name  string
		spawn func(s *S, i int)
	}{
		{"Func.Go", func(s *S, i int) { spinFunc.Go(s, spinArg{i, out}) }},
		{"S.Go", func(s *S, _ int) { s.Go(task) }},
	} {
		var allocs, stolen uint64
		Run(p, func(w *Worker) {
			scope := func() {
				Scope(w, func(s *S) {
					for i := range n {
						tc.spawn(s, i)
					}
				})
			}
			for range 5 {
				scope() // the spawner gathers the records it needs at once
			}
			before, st := mallocs(), p.Stats().Stolen
			scope()
			allocs, stolen = mallocs()-before, p.Stats().Stolen-st
		})
		if stolen == 0 {
			t.Skipf("%s: the second worker stole nothing; nothing to check", tc.name)
		}
		t.Logf("%s: %d tasks, %d stolen, %d allocations", tc.name, n, stolen, allocs)
		if allocs > uint64(n)/100 {
			t.Errorf("%s: a scope of %d tasks (%d stolen) made %d allocations, want under 1%% of the tasks",
				tc.name, n, stolen, allocs)
		}
	}
}

// An idle worker keeps at most idleFreeRecords free records per key, however
// many the burst before needed.
func TestIdleWorkerTrimsItsRecords(t *testing.T) {
	p := New(Workers(1))
	defer p.Close()
	n := 2 * pendingPerWorker
	out := make([]uint64, n)
	Run(p, func(w *Worker) {
		Scope(w, func(s *S) {
			for i := range n {
				spinFunc.Go(s, spinArg{i, out})
			}
		})
	})
	w := p.workers[0]
	deadline := time.Now().Add(10 * time.Second)
	for {
		// park takes the sleep lock after trimming, so holding it while we
		// see w parked orders the worker's writes before our reads.
		p.sleep.mu.Lock()
		if w.isParked {
			held := 0
			for i := range w.funcs {
				if e := &w.funcs[i]; e.n > idleFreeRecords {
					t.Errorf("idle worker keeps %d free records of one key, want at most %d", e.n, idleFreeRecords)
				} else {
					held += e.n
				}
			}
			p.sleep.mu.Unlock()
			if held == 0 {
				t.Error("idle worker keeps no free records at all, want up to idleFreeRecords for reuse")
			}
			return
		}
		p.sleep.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the worker did not park within 10s of the end of the work")
		}
		time.Sleep(time.Millisecond)
	}
}
