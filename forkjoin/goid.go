package forkjoin

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/fjkit/fjkit/internal/usage"
)

// Goroutine identity.
//
// Go has no goroutine-local storage, yet several entry points must know
// whether their caller is one of a pool's workers, and which:
//
//   - Invoke on the pool the caller already works for runs fn inline on
//     that worker (blocking the worker would deadlock a pool whose every
//     worker did it);
//   - S.Go and Func.Go from a task that another worker stole must push onto
//     that worker's deque, not the scope owner's (a deque has one owner);
//   - an entry point handed a *Worker that is not the caller's is misuse,
//     reported with a panic instead of corrupting the worker's deque;
//   - Current lets code that is handed no *Worker (package par) fork on the
//     calling task's worker, whatever its pool.
//
// Each worker goroutine records its runtime descriptor (getg) in Worker.g
// when it starts and clears it before it ends, so a descriptor the runtime
// reuses for a later goroutine is never mistaken for a worker. Reading one's
// own descriptor is a few instructions (goid_*.s); other platforms fall back
// to parsing the goroutine's ID from runtime.Stack (goid_other.go).
//
// The workers of every pool are also entered in one process-wide table
// from descriptor to *Worker (workersByG), so that finding the caller's
// worker costs a hash and a load or two, whatever the number of pools and
// workers.

// bindGoroutine records the calling goroutine as w's. Called by w's loop
// when it starts.
func (w *Worker) bindGoroutine() {
	workersByG.mu.Lock()
	w.g.Store(goroutineID())
	workersByG.insert(w)
	workersByG.mu.Unlock()
}

// unbindGoroutine forgets w's goroutine. Called by w's loop before its
// goroutine ends (at shutdown, or when a task's runtime.Goexit ends it).
func (w *Worker) unbindGoroutine() {
	workersByG.mu.Lock()
	workersByG.remove(w) // while w.g still gives its slot
	w.g.Store(0)
	workersByG.mu.Unlock()
}

// onOwnGoroutine reports whether the caller is w's goroutine.
func (w *Worker) onOwnGoroutine() bool { return w.g.Load() == goroutineID() }

// current returns the worker of p whose goroutine is the caller, or nil.
func (p *Pool) current() *Worker {
	if raceStrands {
		if w := strandCurrent(); w != nil && w.pool == p {
			return w
		}
	}
	if w := workersByG.lookup(goroutineID()); w != nil && w.pool == p {
		return w
	}
	return nil
}

// Current returns the worker that runs the calling task, in whichever pool,
// or nil if the caller is not running a task (it is an ordinary goroutine,
// not one of a pool's workers). It is for code that is handed no *Worker but
// may be called from inside a task, as package par's functions are: with
// the worker it can fork on the caller's pool and worker, as Invoke from a
// task runs inline, instead of entering a pool from outside. The *Worker is
// the calling task's, valid only inside that task (see Worker). Current
// costs a few nanoseconds (microseconds on platforms without goid_*.s).
func Current() *Worker {
	if raceStrands {
		if w := strandCurrent(); w != nil {
			return w
		}
	}
	w := workersByG.lookup(goroutineID())
	if w == nil || w.inv == nil {
		return nil
	}
	return w
}

// check panics unless the caller is w's goroutine, running a task: the
// misuse it catches (a *Worker kept after its task returned, used from
// another goroutine, or from a task of another pool) would otherwise push
// onto a deque its owner is using, which corrupts it. fn names the entry
// point for the message.
func (w *Worker) check(fn string) {
	if w == nil {
		panic(usage.New(fn + ": w is nil; pass the *Worker your task received"))
	}
	if !w.onOwnGoroutine() || w.inv == nil {
		panic(usage.New(fn + ": w is not the calling task's worker; a *Worker is valid only inside the task it was handed to, on that task's goroutine (not after Invoke returned, not from another goroutine, not in a task of another pool)"))
	}
}

// checkLive is check for the fork fast path (Func.Join), which cannot
// afford check's goroutine comparison on every fork: it catches a nil w, and
// a *Worker used while it runs no task (kept after Invoke returned), and
// leaves the rest of check's cases to the entry points around it (Invoke,
// Scope, For, Spawn), documented at Worker. It inlines to two compares.
func (w *Worker) checkLive() {
	if w == nil {
		panic(usage.New("forkjoin.Func.Join: w is nil; pass the *Worker your task received"))
	}
	if w.curInv.Load() == nil { // atomic: a misused w may be read from another goroutine
		w.check("forkjoin.Func.Join")
	}
}

// workersByG maps goroutine descriptors to the workers bound to them, for
// every pool.
var workersByG gRegistry

// gRegistry is an open-addressing hash table with linear probing, read
// without a lock. Only bindGoroutine and unbindGoroutine change it, under
// mu. A slot goes from nil to a worker, and from a worker to gone (a
// tombstone) and back to a worker; it never goes back to nil, so a probe
// that passed a slot when a worker was entered further on still passes it.
// A table that gets half full is replaced by a new one; readers that
// loaded the old one still find there every worker bound before the switch,
// which is all a goroutine can be looking for: its own worker, bound by
// itself before it looks. A reader compares a slot's w.g with its own
// descriptor, so a slot it reads while a worker unbinds, in a table old or
// new, never answers wrongly: only a worker's own goroutine can find its
// descriptor in w.g.
type gRegistry struct {
	mu    sync.Mutex
	table atomic.Pointer[gTable]
	live  int // workers in table; guarded by mu
	used  int // slots of table not nil (workers and tombstones); guarded by mu
}

// gTable is one generation of the registry's table.
type gTable struct {
	slots []atomic.Pointer[Worker]
	shift uint // 64 - log2(len(slots))
}

// gone marks a slot whose worker unbound: not the end of a probe, and never
// a match (its g is 0).
var gone = &Worker{}

// home is the first slot a probe for descriptor g looks at: the top bits
// of a multiplicative hash, which spreads descriptors that share their low
// bits (they are aligned allocations).
func (t *gTable) home(g uintptr) int {
	return int((uint64(g) * 0x9E3779B97F4A7C15) >> t.shift)
}

// lookup returns the worker bound to descriptor g, or nil.
func (m *gRegistry) lookup(g uintptr) *Worker {
	t := m.table.Load()
	if t == nil {
		return nil
	}
	mask := len(t.slots) - 1
	for i := t.home(g); ; i = (i + 1) & mask {
		w := t.slots[i].Load()
		if w == nil {
			return nil
		}
		if w.g.Load() == g {
			return w
		}
	}
}

// insert enters w, whose g is set, keeping the table at most half full.
// The caller holds mu.
func (m *gRegistry) insert(w *Worker) {
	t := m.table.Load()
	if t == nil || 2*(m.used+1) > len(t.slots) {
		t = m.rebuild(m.live + 1)
	}
	mask := len(t.slots) - 1
	for i := t.home(w.g.Load()); ; i = (i + 1) & mask {
		switch t.slots[i].Load() {
		case nil:
			m.used++
		case gone:
		default:
			continue
		}
		t.slots[i].Store(w)
		m.live++
		return
	}
}

// remove replaces w's slot by a tombstone. The caller holds mu.
func (m *gRegistry) remove(w *Worker) {
	t := m.table.Load()
	mask := len(t.slots) - 1
	for i := t.home(w.g.Load()); ; i = (i + 1) & mask {
		if t.slots[i].Load() == w {
			t.slots[i].Store(gone)
			m.live--
			return
		}
	}
}

// rebuild publishes a new table holding the live workers, with room for
// live of them at a quarter full (so the next rebuild is as many binds
// away as there are workers: linear in all), and returns it. The caller
// holds mu.
func (m *gRegistry) rebuild(live int) *gTable {
	n := max(64, 1<<bits.Len(uint(4*live-1)))
	nt := &gTable{slots: make([]atomic.Pointer[Worker], n), shift: uint(64 - bits.TrailingZeros(uint(n)))}
	m.used = 0
	if old := m.table.Load(); old != nil {
		for i := range old.slots {
			if w := old.slots[i].Load(); w != nil && w != gone {
				for j := nt.home(w.g.Load()); ; j = (j + 1) & (n - 1) {
					if nt.slots[j].Load() == nil {
						nt.slots[j].Store(w)
						m.used++
						break
					}
				}
			}
		}
	}
	m.table.Store(nt)
	return nt
}
