package forkjoin

// taskForks is what the running task has forked and not yet ended, which
// the task's end settles (settleTask). Owner only.
type taskForks struct {
	// batch is the open spawn batch: a record on no deque, counted in no
	// scope yet, that the running task's next spawns fill (batch.go).
	batch *job
	// open holds the records of Spawn and Func.Fork not yet joined,
	// oldest first (future.go, func.go).
	open []*job
}
