package forkjoin

// Goroutine identity.
//
// Go has no goroutine-local storage, yet three entry points must know
// whether their caller is one of a pool's workers, and which:
//
//   - Invoke on the pool the caller already works for runs fn inline on
//     that worker (blocking the worker would deadlock a pool whose every
//     worker did it);
//   - S.Go and Func.Go from a task that another worker stole must push onto
//     that worker's deque, not the scope owner's (a deque has one owner);
//   - an entry point handed a *Worker that is not the caller's is misuse,
//     reported with a panic instead of corrupting the worker's deque.
//
// Each worker goroutine records its runtime descriptor (getg) in Worker.g
// when it starts and clears it before it ends, so a descriptor the runtime
// reuses for a later goroutine is never mistaken for a worker. Reading one's
// own descriptor is a few instructions (goid_*.s); other platforms fall back
// to parsing the goroutine's ID from runtime.Stack (goid_other.go).

// bindGoroutine records the calling goroutine as w's. Called by w's loop
// when it starts.
func (w *Worker) bindGoroutine() { w.g.Store(goroutineID()) }

// unbindGoroutine forgets w's goroutine. Called by w's loop before its
// goroutine ends (at shutdown, or when a task's runtime.Goexit ends it).
func (w *Worker) unbindGoroutine() { w.g.Store(0) }

// onOwnGoroutine reports whether the caller is w's goroutine.
func (w *Worker) onOwnGoroutine() bool { return w.g.Load() == goroutineID() }

// current returns the worker of p whose goroutine is the caller, or nil.
func (p *Pool) current() *Worker {
	me := goroutineID()
	for _, w := range p.live() {
		if w.g.Load() == me {
			return w
		}
	}
	return nil
}

// check panics unless the caller is w's goroutine, running a task: the
// misuse it catches (a *Worker kept after its task returned, used from
// another goroutine, or from a task of another pool) would otherwise push
// onto a deque its owner is using, which corrupts it. fn names the entry
// point for the message.
func (w *Worker) check(fn string) {
	if w == nil {
		panic(fn + ": w is nil; pass the *Worker your task received")
	}
	if !w.onOwnGoroutine() || w.root == nil {
		panic(fn + ": w is not the calling task's worker; a *Worker is valid only inside the task it was handed to, on that task's goroutine (not after Invoke returned, not from another goroutine, not in a task of another pool)")
	}
}

// checkLive is check for the fork fast path (Func.Join), which cannot
// afford check's goroutine comparison on every fork: it catches a nil w, and
// a *Worker used while it runs no task (kept after Invoke returned), and
// leaves the rest of check's cases to the entry points around it (Invoke,
// Scope, For, Spawn), documented at Worker. It inlines to two compares.
func (w *Worker) checkLive() {
	if w == nil {
		panic("forkjoin.Func.Join: w is nil; pass the *Worker your task received")
	}
	if w.curRoot.Load() == nil { // atomic: a misused w may be read from another goroutine
		w.check("forkjoin.Func.Join")
	}
}
