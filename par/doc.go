// Package par runs the loops and slice operations of ordinary Go code in
// parallel, shaped like package slices: Sort, SortFunc and SortStableFunc;
// For, ForRange and ForErr; Map, Reduce, ReduceRange, Filter and Scan;
// IndexFunc and ContainsFunc.
//
// Every call runs on forkjoin.Default(), the process-wide pool, sized by the
// FJKIT_WORKERS environment variable or by forkjoin.SetDefault before first
// use (runtime.GOMAXPROCS(0) workers otherwise). A call blocks until all of
// its work is done and may be made from any goroutine, any number at once.
//
// A call goes parallel only where that pays. The loops and slice
// operations (For, ForRange, Map, Reduce, ReduceRange, Filter, Scan,
// IndexFunc, ContainsFunc) start in the calling goroutine on the first
// element, then on chunks growing eightfold, and time themselves: a call
// whose work is done within about 20µs, the cost of a few trips to the
// pool, never leaves the caller; otherwise, if the cost measured says the
// rest takes 20µs more, the rest runs on the pool in pieces of about 10µs
// of work each (Scan's in a piece per worker and one more). A costly body
// over a few elements thus goes parallel after the first, and a cheap one
// over a short slice stays serial. While as many goroutines wait for a
// processor as GOMAXPROCS and the pool's workers together (a server whose
// handlers all compute), a call goes on serially: the pool could only take
// processor time from them. The sorts below a thousand or a few thousand
// elements are the slices functions themselves. With a one-worker pool
// every call but the comparison sorts is serial.
//
// Their bodies are called through function values, which the compiler
// cannot inline into par's loops: a call per element costs a nanosecond or
// two, as much as a cheap body. ForRange and ReduceRange hand the body a
// whole piece [lo, hi), so that the loop over it is the caller's and runs at
// the speed of a hand-written one; use them for bodies of a few
// nanoseconds.
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
