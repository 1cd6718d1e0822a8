package forkjoin

import (
	"sync/atomic"
	"unsafe"
)

// executor is implemented by every job record. execute runs the job's body on
// w, records a panic instead of propagating it, and signals completion.
type executor interface {
	execute(w *Worker)
	// abandon completes the job with ErrGoexit when its goroutine is being
	// ended by runtime.Goexit before execute could finish (see
	// Worker.runJob).
	abandon(w *Worker)
}

// job is the header every job record embeds first. The deques hold *job; the
// record behind it is reached through run.
//
// A record is written by the forking worker before it is published (the
// deque's or queue's publishing store orders those writes before any thief's
// read) and, when a thief runs it, by that thief before it sets the latch
// (which orders them before the joiner's read).
type job struct {
	// The fields are ordered for size: the header is 80 bytes, so that a
	// record with a few words of arguments fits two cache lines.
	run   executor       // the record that embeds this header
	owner *Worker        // the worker that forked it and will join it; nil for roots
	inv   *invocation    // the invocation it belongs to (its context)
	scope *S             // the scope a spawned task belongs to; nil for joined jobs
	panic *PanicError    // set by execute when the body panicked
	next  *job           // free-list link
	key   unsafe.Pointer // the record cache key of the record's type (records.go)
	latch latch          // set when a thief (or a helper) has finished running it
	// thief is 1 + the ID of the worker that ran the job after stealing it,
	// 0 while nobody did. A joiner waiting for the job steals from there
	// first: the thief's deque holds the job's own children.
	thief atomic.Int32
	gen   uint32 // bumped on every reuse, to catch a double Join
	// tasks is how many spawned tasks a batch record carries (batch.go);
	// it fills the header's last four bytes, which were padding.
	tasks uint32
}

// reset makes a record that was completed by another worker ready for reuse.
// Records that the joiner took back and ran itself never touched these fields.
func (j *job) reset() {
	j.latch.state.Store(latchUnset)
	j.thief.Store(0)
	j.panic = nil
}

// markThief records w as the worker running j, if w is not j's owner, so that
// the owner, waiting for j, steals from w first. Only jobs that are joined one
// by one (Join, Func, Spawn) need it.
func (j *job) markThief(w *Worker) {
	if j.owner != w {
		j.thief.Store(int32(w.id + 1))
	}
}
