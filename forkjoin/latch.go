package forkjoin

import "sync/atomic"

// A probe is a completion condition a worker can wait for: a job's latch or a
// scope's count of unfinished children.
type probe interface {
	// done reports whether the condition holds.
	done() bool
	// arm announces that w, the waiter, is about to park and reports
	// whether it may: false means the condition already holds. Whoever
	// makes the condition true after a successful arm must wake w.
	arm(w *Worker) bool
}

const (
	latchUnset  = iota // the job has not finished
	latchSet           // the job has finished; its result may be read
	latchSleepy        // not finished, and the owner is (about to be) parked
)

// latch signals that a stolen job has finished. Its owner polls it while
// helping and parks on it when there is nothing to help with.
type latch struct {
	state atomic.Uint32
}

func (l *latch) done() bool { return l.state.Load() == latchSet }

func (l *latch) arm(*Worker) bool {
	for {
		switch l.state.Load() {
		case latchSet:
			return false
		case latchSleepy:
			return true
		}
		if l.state.CompareAndSwap(latchUnset, latchSleepy) {
			return true
		}
	}
}

// set marks the job finished and wakes its owner if the owner armed the latch.
// The owner may reuse the record as soon as it sees latchSet, so owner must be
// read before the swap, not from the record after it.
func (l *latch) set(owner *Worker) {
	if l.state.Swap(latchSet) == latchSleepy {
		owner.wakeOwner()
	}
}
