// Package par runs the loops and slice operations of ordinary Go code in
// parallel, shaped like package slices: Sort, SortFunc and SortStableFunc;
// For, ForRange and ForErr; Map, Reduce, Filter and Scan; IndexFunc and
// ContainsFunc.
//
// Every call runs on forkjoin.Default(), the process-wide pool, sized by the
// FJKIT_WORKERS environment variable or by forkjoin.SetDefault before first
// use (runtime.GOMAXPROCS(0) workers otherwise). A call blocks until all of
// its work is done and may be made from any goroutine, any number at once.
//
// Small inputs run serially in the calling goroutine, with no trip through
// the pool: the slice operations below SerialCutoff elements, the sorts
// below a thousand or a few thousand elements (where they are the slices
// functions themselves), and every call but the comparison sorts when the
// pool has one worker. For, ForRange and ForErr treat each index as a body of
// unknown cost and go parallel from two indices on.
//
// A panic in a body or comparison function comes back out of the call as a
// *forkjoin.PanicError holding the original value and the stack where it
// happened, serial paths included, once every body started beside it has
// returned. Bodies run concurrently: they must not write shared state without
// synchronization, and should not block for long (each blocked body holds a
// worker of the shared pool).
//
// Called from inside a task of the default pool (a par call in a par body),
// a call runs on the calling worker, as forkjoin.Invoke on one's own pool
// does, and its work spreads to idle workers by stealing.
package par
