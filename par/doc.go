// Package par runs the loops and slice operations of ordinary Go code in
// parallel, shaped like package slices: Sort, SortFunc, SortStableFunc and
// SortByKey; Min, Max, MinFunc and MaxFunc; For, ForRange, ForEach and
// ForEach2; Map, Reduce, ReduceRange, Filter and Scan; IndexFunc and
// ContainsFunc; and, with errors and contexts, ForErr, MapErr and Group
// (errgroup's API, safe for recursion).
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
// stealing. Since the call is part of the task's invocation, a worker
// waiting inside it may run other tasks of that invocation: do not hold a
// lock across a nested par call that other bodies of the same outer call
// take.
//
// The bodies a call runs in the calling goroutine (its serial start, or all
// of a call that stays serial) run there as a plain loop would: made from
// an ordinary goroutine, forkjoin.Current() is nil in them. The bodies that
// run on the pool's workers see their worker in forkjoin.Current(). A
// runtime.Goexit in any body of a call made from an ordinary goroutine
// (t.FailNow in a test) ends the calling goroutine, as it would in the loop
// the call replaces: in a body the caller runs, at once; in a body the pool
// runs, once every body of the call has stopped. Made from a task, every
// body runs on a worker, and a Goexit there fails the task with a
// *forkjoin.PanicError whose Value is forkjoin.ErrGoexit, which the task's
// joiner re-raises.
//
// # When a call goes parallel
//
// A call goes parallel only where that pays. The loops and slice
// operations (For, ForRange, Map, Reduce, ReduceRange, Filter, Scan,
// IndexFunc, ContainsFunc, Min, Max, MinFunc, MaxFunc) start in the calling
// goroutine on the first element (Scan's first leaf), then on chunks
// growing eightfold (the reductions' at least doubling, ending at powers of
// two), and time themselves: a call whose work is done within about 20µs,
// the cost of a few trips to the pool, never leaves the caller; otherwise,
// if the cost measured says the rest takes 20µs more, the rest runs on the
// pool in pieces of about 10µs of work each (the reductions' of a power of
// two elements or leaves, Scan's of whole leaves). A costly body over a few elements thus goes parallel after the
// first, and a cheap one over a short slice stays serial. While as many
// goroutines wait for a processor as GOMAXPROCS and the pool's workers
// together (a server whose handlers all compute), a call goes on serially:
// the pool could only take processor time from them. Made from a task (a
// loop nested per node of a tree walk), a call skips the timing, whose
// clock reads would cost more than such a loop: it is a loop on the calling
// worker, in chunks doubling from one element, for as long as a fork at
// that point would run inline (forkjoin's Worker.Inline); where it would
// not (near the top of the task, or when the worker's heartbeat is due), the
// rest becomes a forkjoin loop that other workers can take parts of. A call
// that stays serial allocates nothing of its own. The sorts below a
// thousand or a few thousand elements are the slices functions themselves.
// ForErr, MapErr, ForEach and Group treat each element as work of unknown
// cost and go parallel from two on. With a one-worker pool every call but
// the comparison sorts and Group is serial.
//
// Their bodies are called through function values, which the compiler
// cannot inline into par's loops: a call per element costs a nanosecond or
// two, as much as a cheap body. ForRange and ReduceRange hand the body a
// whole piece [lo, hi), so that the loop over it is the caller's and runs at
// the speed of a hand-written one; use them for bodies of a few
// nanoseconds.
//
// # Reductions give the same answer every time
//
// Reduce, ReduceRange, MinFunc, MaxFunc and Scan return results that
// depend only on their input and functions: never on the number of
// workers, the pool, the schedule, or how long the serial start ran. A
// parallel float sum is the same bits on every run and every machine.
// Which worker computes what stays dynamic; the grouping of the combines
// is fixed by the input's length. Reduce has a leaf per element,
// ReduceRange (and MinFunc and MaxFunc, through it) a leaf per L indices,
// and the leaves' results v₀, ..., vₘ₋₁ combine over the balanced binary
// tree whose left subtrees hold a power of two leaves:
//
//	func tree(v []R) R {
//		if len(v) == 1 {
//			return v[0]
//		}
//		p := 1 << (bits.Len(uint(len(v)-1)) - 1) // the largest power of two below len(v)
//		return combine(tree(v[:p]), tree(v[p:]))
//	}
//
// This is forkjoin.Reduce's tree; a float sum by Reduce is the pairwise sum.
// A call that goes parallel cuts the rest into pieces (about 512 per worker
// at most, and 65 536 in all), each a subtree, and combines their results up
// the tree as they come in: the worker that finishes the second operand of a
// combine runs it (under the race detector, a join per combine after the
// pieces). Its extra memory is two partial results and about 20 bytes of
// bookkeeping per piece, freed when it returns, beside the partial results
// (log₂ of a piece's length) a worker keeps on its stack in a piece. Scan's
// grouping, leaves folded to totals and scanned from carries, is in its doc.
// A combine that is associative gives the serial fold's result, grouped
// differently; one that is not (float addition) gives the same result on
// every run. For integer, boolean and string values, and arrays and structs
// of them, which any grouping of an associative combine leaves the same,
// Reduce and Scan fold a serial stretch without the tree: Scan from the
// left, Reduce as four folds of its quarters side by side, combined in
// order. The value is the same, with fewer partial results kept across the
// calls. There, a combine that is not associative (integer subtraction) has
// no result to keep: it is a bug.
//
// # Panics and cancellation
//
// A panic in a body or comparison function comes back out of the call as a
// *forkjoin.PanicError holding the original value and the stack where it
// happened, serial paths included, once every body started beside it has
// returned; its Error names the panicking line. Bodies run concurrently:
// they must not write shared state without synchronization. A body may
// block (on a channel, a lock, I/O, another par call's functions): it holds
// its worker meanwhile, and a pool whose workers are blocked while work
// waits lends compensating workers within 10 to 140 milliseconds, so that code
// correct with goroutines stays correct here (forkjoin's package doc gives
// the rule and its bound). A body that mostly waits is still better served
// by a goroutine.
//
// Under the race detector every call runs its functions (bodies,
// comparisons, keys, Group's and ForErr's functions) in logically parallel
// pieces on the pool, at every input size, small ones that would stay
// serial included (see the forkjoin package doc): go test -race reports a
// race between two calls of a function as it would between goroutines,
// even when the test's input is small.
//
// A call made from a task of an invocation that gets canceled (the context
// given to forkjoin.InvokeContext is done) does not return as if it had
// done its work: ForErr, MapErr and Group.Wait return the context's error,
// and the calls without an error result panic with a
// *forkjoin.CanceledError, which InvokeContext returns as its ctx.Err().
package par
