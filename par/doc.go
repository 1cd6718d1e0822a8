// Package par runs the loops and slice operations of ordinary Go code in
// parallel, shaped like package slices: Sort, SortFunc, SortStableFunc and
// SortByKey; Min, Max, MinFunc and MaxFunc; For, ForRange, ForEach and
// ForEach2; Map, Reduce, Filter and Scan; IndexFunc and ContainsFunc; and,
// with errors and contexts, ForErr, MapErr and Group (errgroup's API, safe
// for recursion).
//
// # Where a call runs
//
// A call made from an ordinary goroutine runs on forkjoin.Default(), the
// process-wide pool. The default pool is made by the first par call, of
// any size (forkjoin.SetDefault must come before it), with the size
// FJKIT_WORKERS or SetDefault gives it, or else runtime.GOMAXPROCS(0)
// workers; in that last case it follows GOMAXPROCS when it changes (go test
// -cpu 1,2,4 measures three sizes). A call blocks until all of its work is
// done and may be made from any goroutine, any number at once.
//
// A call made from a task of any pool (a par call in a par body, or in a
// function given to forkjoin.Run) runs on that task's worker and pool, as
// part of the task's own invocation: no trip through the pool's queue, no
// nested invocation, and its work spreads to the pool's idle workers by
// stealing. For and ForRange there are loops on the calling worker that
// hand half of what is left to another worker only when one is idle, so a
// call per node of a recursive walk costs little more than the loop while
// the pool is busy. Since the call is part of the task's invocation, a
// worker waiting inside it may run other tasks of that invocation: do not
// hold a lock across a nested par call that other bodies of the same
// outer call take.
//
// Small inputs run serially in the calling goroutine, with no trip through
// the pool: the slice operations below SerialCutoff elements, the sorts
// below a thousand or a few thousand elements (where they are the slices
// functions themselves), and every call but the comparison sorts when the
// pool has one worker. For, ForRange, ForErr, MapErr, ForEach and Group
// treat each element as work of unknown cost and go parallel from two on.
//
// # Panics and cancellation
//
// A panic in a body or comparison function comes back out of the call as a
// *forkjoin.PanicError holding the original value and the stack where it
// happened, serial paths included, once every body started beside it has
// returned; its Error names the panicking line. Bodies run concurrently:
// they must not write shared state without synchronization, and should not
// block for long (each blocked body holds a worker of the pool).
//
// A call made from a task of an invocation that gets canceled (the context
// given to forkjoin.InvokeContext is done) does not return as if it had
// done its work: ForErr, MapErr and Group.Wait return the context's error,
// and the calls without an error result panic with a
// *forkjoin.CanceledError, which InvokeContext returns as its ctx.Err().
package par
