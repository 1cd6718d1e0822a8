package par

import (
	"math/bits"
	"runtime/metrics"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// How a call over n units (elements or indices) is cut. A call does not
// know what its body costs, so it starts serially in the calling goroutine
// and times itself: the first unit, then chunks growing eightfold, until
// probeTime has passed or all is done. A call that ends within probeTime (a
// cheap body over a short slice) never goes near the pool. Otherwise the
// cost per unit measured so far says what the rest will cost: if less than
// parallelMin, the call finishes serially; if every processor is busy
// (cpusBusy), it goes on serially and looks again later; else the rest runs
// on the pool in pieces of about pieceTime each, as a ForRange with that
// grain: each worker runs its part piece by piece and splits what is left
// only when another worker asks, so the pieces cost a function call each,
// and a slow or descheduled worker is helped at its next piece boundary.
//
// A call made from a task reads no clock: see startInTask.
//
// The body is called once per chunk or piece, never per unit: the loop
// over a piece is the kernel's own, where the compiler can see it.
const (
	// probeTime is the serial start: a few pool trips' worth, so that a
	// call the pool could not speed up does not pay for one.
	probeTime = 20 * time.Microsecond
	// parallelMin is what the rest must cost, by the estimate, to be
	// worth a trip to the pool.
	parallelMin = 20 * time.Microsecond
	// pieceTime is the cost a parallel piece aims at: far above a
	// piece's own cost (a call, and a steal when split), far below a
	// scheduler's time slice.
	pieceTime = 10 * time.Microsecond
	// probeGrowth is how many times longer each chunk of the serial
	// start is than everything before it, less one.
	probeGrowth = 7
	// maxPieces bounds the pieces per worker of a parallel rest: enough
	// for the others to balance a worker that is slow, few enough that
	// they cost a few microseconds in all.
	maxPieces = 256
)

// timing holds the tuning above, so that tests can force the parallel
// paths with tiny pieces: see export_test.go.
var timing = struct {
	probe, parallel, piece time.Duration
	grain                  int // if > 0, the grain of every parallel rest, busy or not
}{probeTime, parallelMin, pieceTime, 0}

// plan is what the serial start of a call decided: units [0, done) have
// run; if done < n, the rest runs in pieces of grain units, on w's pool as
// part of w's task if w is not nil (the call was made from a task), else on
// the default pool.
type plan struct {
	done, n, grain int
	w              *forkjoin.Worker
}

// parallel reports whether the rest of the call is to run on the pool.
func (p plan) parallel() bool { return p.done < p.n }

// start runs step over [0, n) serially, in growing chunks, and decides how
// the rest runs (see the top of this file). A panic in step comes out as a
// *forkjoin.PanicError. step is not kept: a kernel hands finish a function
// of its own, made only once the call goes parallel, so that a serial call
// allocates nothing.
func start(n int, step func(lo, hi int)) plan { return startUntil(n, step, nil) }

// startUntil is start for a search: once stop, if not nil, returns true
// after a step, the call is over, and the plan says all of it has run.
//
// A call made outside any task times itself as the top of this file says,
// unless the default pool has one worker: then it runs all of step at once,
// with no clock to read.
func startUntil(n int, step func(lo, hi int), stop func() bool) plan {
	return startChunks(n, step, stop, false)
}

// startTree is start for a reduction over the fixed tree (see reduce.go):
// every chunk of the serial start ends at a power of two or at n, so that
// what has run, [0, done), is one subtree, or all of it.
func startTree(n int, step func(lo, hi int)) plan { return startChunks(n, step, nil, true) }

// startChunks is startUntil, with the chunks of startTree if tree is set.
func startChunks(n int, step func(lo, hi int), stop func() bool, tree bool) plan {
	defer rewrap()
	entered()
	serialDone := plan{done: n, n: n}
	if n <= 0 {
		return serialDone
	}
	if strandCalls() {
		return strandPlan(n)
	}
	if w := forkjoin.Current(); w != nil {
		return startInTask(w, n, step, stop, tree)
	}
	procs := forkjoin.Default().Workers()
	if procs == 1 {
		step(0, n)
		return serialDone
	}
	t0 := clock()
	budget := timing.probe // serial time after which the call looks again
	done, hi := 0, 1
	for {
		step(done, hi)
		done = hi
		if done == n || stop != nil && stop() {
			return serialDone
		}
		elapsed := clock() - t0
		if elapsed >= budget {
			rest := n - done
			perUnit := float64(elapsed) / float64(done)
			if timing.grain == 0 && perUnit*float64(rest) < float64(timing.parallel) {
				step(done, n)
				return serialDone
			}
			if timing.grain > 0 {
				return plan{done: done, n: n, grain: min(timing.grain, rest)}
			}
			if !cpusBusy(procs) {
				// At least rest/(maxPieces·P) units: a serial start
				// that lost its processor for a while measured a cost
				// far too high, and would cut the rest into pieces of a
				// few units each.
				grain := max(1, rest/(maxPieces*procs))
				if g := float64(timing.piece) / perUnit; g > float64(grain) {
					grain = int(min(g, float64(rest)))
				}
				return plan{done: done, n: n, grain: grain}
			}
			// Every processor is busy: go on serially for as long
			// again, then look again: the next chunk is cut to end
			// near twice the budget, and the budget is now what has
			// run.
			budget = elapsed
		}
		hi = done + chunk(done, n, elapsed, budget)
		if tree && hi < n {
			hi = max(2*done, 1<<(bits.Len(uint(hi))-1)) // doubling at least: a chunk is a subtree
		}
		hi = min(hi, n)
	}
}

// startInTask is startUntil for a call made from a task on worker w (a
// loop nested per node of a tree walk, say). It reads no clock, which
// would cost more than such a loop: the call is a loop on w, in chunks
// doubling from one unit (up to maxInline, and at most half of what is
// left), that goes on as long as a fork at this point would run inline
// (forkjoin's Worker.Inline: w is deep in its task, below the frames other
// workers may take, and no heartbeat is due). Where Inline says no, a
// forkjoin loop of one index (beat) runs the heartbeat, which promotes
// w's oldest frame if one is due and sets the next beat; if Inline still
// says no, the call is near the top of its task, where forks must be
// stealable, and the rest becomes a forkjoin loop on w (finish), which
// other workers can take parts of. So a call deep in a task allocates
// nothing, heartbeats included.
//
// A call that finds itself near the top of its task at once runs all of
// its units in the forkjoin loop, the first one too (done is 0): the rest
// is then stealable while the first runs, and the frames of the calls
// nested in it count it, as the frames of a forkjoin.For's nested loops
// count it. A call nested in a first unit run here would otherwise find
// itself as near the top as its caller, and so would every call down the
// first children of a tree.
//
// With tree set (startTree), the chunks double exactly, [done, 2·done), so
// that each is a subtree, and past maxInline units the rest is the
// forkjoin loop, which checks the heartbeat as it goes.
func startInTask(w *forkjoin.Worker, n int, step func(lo, hi int), stop func() bool, tree bool) plan {
	if !w.Inline() && (beat(w) || !w.Inline()) {
		return plan{done: 0, n: n, grain: taskGrain(w, n), w: w}
	}
	step(0, 1)
	done, c := 1, 1
	for done < n && (stop == nil || !stop()) {
		if !w.Inline() && (beat(w) || !w.Inline()) || tree && done >= maxInline {
			return plan{done: done, n: n, grain: taskGrain(w, n-done), w: w}
		}
		k := min(c, max((n-done)/2, 1))
		if tree {
			k = min(done, n-done)
		}
		step(done, done+k)
		done += k
		c = min(2*c, maxInline)
	}
	return plan{done: n, n: n}
}

// taskGrain is the grain of the forkjoin loop over the rest units of a call
// from a task on w: fixed (Filter's counts need it), and large enough that
// the loop has at most maxPieces pieces per worker.
func taskGrain(w *forkjoin.Worker, rest int) int {
	if timing.grain > 0 {
		return min(timing.grain, rest)
	}
	return max(1, rest/(maxPieces*w.Pool().Workers()))
}

// beat runs w's heartbeat, due or not, through an inline forkjoin loop of
// one index with a body that does nothing (and captures nothing, so that
// it allocates nothing), and reports false: the loop's look at the
// heartbeat is all it is for. Near the top of a task the loop is a lazy
// frame, which a thief cannot split.
func beat(w *forkjoin.Worker) bool {
	forkjoin.ForRange(w, 0, 1, 1, func(*forkjoin.Worker, int, int) {})
	return false
}

// maxInline bounds the chunks of a call from a task that runs inline:
// each chunk is one fork toward w's heartbeat, which is how the call lets
// other workers in.
const maxInline = 1 << 12

// epoch is the origin of clock.
var epoch = time.Now()

// clock returns the monotonic time since epoch: one read of the clock,
// where time.Now makes two (the wall clock and the monotonic one).
func clock() time.Duration { return time.Since(epoch) }

// chunk returns the length of the serial start's next chunk, done of n
// units having run in elapsed: probeGrowth times all so far, or less on a
// body whose cost is already measurable, and at most what is left. n may
// be near MaxInt (a ForRange whose body costs the same for any piece), so
// nothing is multiplied past n, and the estimate stays a float until it is
// known to be below the rest.
func chunk(done, n int, elapsed, budget time.Duration) int {
	next := n - done
	if done <= next/probeGrowth {
		next = probeGrowth * done
	}
	if elapsed > 0 {
		// Do not overshoot the budget by much on a body whose cost is
		// already measurable.
		perUnit := float64(elapsed) / float64(done)
		if est := float64(2*budget-elapsed) / perUnit; est < float64(next) {
			next = max(int(est), 1)
		}
	}
	return next
}

// finish runs the rest of p, p.parallel(), in pieces through piece (see
// the top of this file), and reports whether all of the call has run:
// pieces are skipped once the invocation is canceled. setup, if not nil,
// runs on the pool first. piece learns the worker that runs it.
func (p plan) finish(setup func(w *forkjoin.Worker), piece func(w *forkjoin.Worker, lo, hi int)) (complete bool) {
	if w := p.w; w != nil {
		// From a task: run's work, without the closure it would take.
		defer rewrap()
		checkCanceled(w)
		if setup != nil {
			setup(w)
		}
		forkjoin.ForRange(w, p.done, p.n, p.grain, piece)
		checkCanceled(w)
		return true
	}
	run(func(w *forkjoin.Worker) {
		if setup != nil {
			setup(w)
		}
		forkjoin.ForRange(w, p.done, p.n, p.grain, piece)
		complete = !w.Canceled()
	})
	return complete
}

// runRest is finish for a rest that is not one forkjoin loop (the
// reductions' combines in strand mode, Scan's two passes): it runs rest on p's
// worker for a call from a task, else on the pool, and reports whether
// every piece ran. finish writes the same out, to take no closure.
func (p plan) runRest(rest func(w *forkjoin.Worker)) (complete bool) {
	if w := p.w; w != nil {
		defer rewrap()
		checkCanceled(w)
		rest(w)
		checkCanceled(w)
		return true
	}
	run(func(w *forkjoin.Worker) {
		rest(w)
		complete = !w.Canceled()
	})
	return complete
}

// cpusBusy reports whether every processor is busy and a queue of other
// goroutines waits: as many goroutines are runnable as the program has
// processors (GOMAXPROCS), not counting the pool's procs workers (they
// are often runnable for a moment, just woken or yielding in their
// idle loop, and would run the call's pieces). This is a server whose
// handlers all compute: the pool could only take processor time from
// goroutines that would use it anyway, and a call that went parallel would
// pay the trip for nothing. The call goes on serially instead, and looks
// again each time it has run as long again as before, so that a busy spell
// (a garbage collection's mark workers, say) costs it at most what it ran
// serially before. A read of the scheduler's counts costs some 200 ns,
// beside at least 20µs of serial work.
func cpusBusy(procs int) bool {
	s := [2]metrics.Sample{
		{Name: "/sched/goroutines/runnable:goroutines"},
		{Name: "/sched/gomaxprocs:threads"},
	}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return false // a runtime without these counts: assume idle processors
	}
	return s[0].Value.Uint64() >= s[1].Value.Uint64()+uint64(procs)
}
