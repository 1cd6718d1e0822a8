package forkjoin

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
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
// (giveBack), which keeps them all while busy. So however many tasks a
// spawning loop runs, its worker allocates no more records than it has in
// use at once: the scope's backlog bound, plus the batches in transit. When
// the spawner's cache kept only 256 records per key, about two stolen tasks
// in five allocated a new record.
func TestSpawnedRecordsReturnToSpawner(t *testing.T) {
	const workers, rounds = 2, 4
	p := New(Workers(workers))
	defer p.Close()
	limit := pendingPerWorker * workers
	n := 4 * limit // per round
	// Records in use at once: the backlog bound (in tasks, so at least as
	// many as batch records), the open batch, a giveBack batch per thief. A quarter more for everything else that
	// allocates (scopes, the deques' rings, which a busy owner sometimes
	// replaces rather than wait for a thief; see wsdeque's makeRoom).
	bound := uint64(limit + 1 + giveBackBatch*(workers-1) + limit/4)
	out := make([]uint64, n)
	// One closure for every S.Go: a closure made per spawn would allocate
	// by itself, and this test counts the runtime's allocations only.
	var sink atomic.Uint64
	task := func(*Worker) {
		if spin(7) == 0 { // never true; keeps the work
			sink.Add(1)
		}
	}
	for _, tc := range []struct {
		name  string
		spawn func(s *S, i int)
	}{
		{"Func.Go", func(s *S, i int) { spinFunc.Go(s, spinArg{i, out}) }},
		{"S.Go", func(s *S, _ int) { s.Go(task) }},
	} {
		before, st := mallocs(), p.Stats().Stolen
		Run(p, func(w *Worker) {
			for range rounds {
				Scope(w, func(s *S) {
					for i := range n {
						tc.spawn(s, i)
					}
				})
			}
		})
		allocs, stolen := mallocs()-before, p.Stats().Stolen-st
		t.Logf("%s: %d tasks, %d stolen, %d allocations (bound %d)", tc.name, rounds*n, stolen, allocs, bound)
		if stolen == 0 {
			t.Skipf("%s: the second worker stole nothing; nothing to check", tc.name)
		}
		if allocs > bound {
			t.Errorf("%s: %d tasks (%d stolen) made %d allocations, want at most %d: the records one scope has in use at once",
				tc.name, rounds*n, stolen, allocs, bound)
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
			for i := range w.freeRecords {
				if e := &w.freeRecords[i]; e.n > idleFreeRecords {
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

// Every record type begins with its job header: the record cache, newRecord
// and the deques convert between *job and the record's type by pointer cast.
func TestRecordHeadersComeFirst(t *testing.T) {
	for name, off := range map[string]uintptr{
		"funcJob":      unsafe.Offsetof(funcJob[int, int]{}.job),
		"closureJob":   unsafe.Offsetof(closureJob[int]{}.job),
		"funcBatch":    unsafe.Offsetof(funcBatch[int, int]{}.job),
		"closureBatch": unsafe.Offsetof(closureBatch{}.job),
		"rangeBatch":   unsafe.Offsetof(rangeBatch{}.job),
		"invokeJob":    unsafe.Offsetof(invokeJob[int]{}.job),
		"closureSpawn": unsafe.Offsetof(closureSpawn{}.job),
		"funcSpawn":    unsafe.Offsetof(funcSpawn[int, int]{}.job),
	} {
		if off != 0 {
			t.Errorf("%s's job header is at offset %d, want 0", name, off)
		}
	}
}
