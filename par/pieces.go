package par

import (
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

// taskUntimed is the length below which a call made from a task skips
// the serial start and its timing (startUntil).
const taskUntimed = 1 << 12

// timing holds the tuning above, so that tests can force the parallel
// paths with tiny pieces: see export_test.go.
var timing = struct {
	probe, parallel, piece time.Duration
	grain                  int // if > 0, the grain of every parallel rest, busy or not
}{probeTime, parallelMin, pieceTime, 0}

// plan is what the serial start of a call decided: units [0, done) have
// run; if done < n, the rest runs on the pool in pieces of grain units.
type plan struct {
	done, n, grain int
	step           func(lo, hi int)
}

// parallel reports whether the rest of the call is to run on the pool.
func (p plan) parallel() bool { return p.done < p.n }

// start runs step over [0, n) serially, in growing chunks, and decides how
// the rest runs (see the top of this file). With a one-worker pool it runs
// everything serially without timing it. A panic in step comes out as a
// *forkjoin.PanicError.
func start(n int, step func(lo, hi int)) plan { return startUntil(n, step, nil) }

// startUntil is start for a search: once stop, if not nil, returns true
// after a step, the call is over, and the plan says all of it has run.
func startUntil(n int, step func(lo, hi int), stop func() bool) plan {
	defer rewrap()
	entered()
	serialDone := plan{done: n, n: n}
	if n <= 0 {
		return serialDone
	}
	if workers() == 1 {
		step(0, n)
		return serialDone
	}
	if n < taskUntimed && forkjoin.Current() != nil {
		// A call from a task over few units (a loop nested per node of a
		// tree walk): no timing, whose clock reads would cost more than
		// such a loop. The whole call is a loop on the calling worker,
		// one unit a piece, that hands half of what is left to another
		// worker only when one is idle (forkjoin.ForRange with a grain).
		// Its first unit runs here, as the serial start's does: the
		// kernels' rests follow a first unit.
		step(0, 1)
		if n == 1 || stop != nil && stop() {
			return serialDone
		}
		return plan{done: 1, n: n, grain: max(1, timing.grain), step: step}
	}
	t0 := time.Now()
	budget := timing.probe // serial time after which the call looks again
	done, hi := 0, 1
	for {
		step(done, hi)
		done = hi
		if done == n || stop != nil && stop() {
			return serialDone
		}
		elapsed := time.Since(t0)
		perUnit := float64(elapsed) / float64(done)
		if elapsed >= budget {
			rest := n - done
			if timing.grain > 0 {
				return plan{done: done, n: n, grain: min(timing.grain, rest), step: step}
			}
			if perUnit*float64(rest) < float64(timing.parallel) {
				step(done, n)
				return serialDone
			}
			if !cpusBusy() {
				// At least rest/(maxPieces·P) units: a serial start
				// that lost its processor for a while measured a cost
				// far too high, and would cut the rest into pieces of a
				// few units each.
				grain := max(1, rest/(maxPieces*workers()))
				if g := float64(timing.piece) / perUnit; g > float64(grain) {
					grain = int(min(g, float64(rest)))
				}
				return plan{done: done, n: n, grain: grain, step: step}
			}
			// Every processor is busy: go on serially for as long
			// again, then look again: the next chunk is cut to end
			// near twice the budget, and the budget is now what has
			// run.
			budget = elapsed
		}
		hi = done + chunk(done, n, elapsed, budget)
	}
}

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

// finish runs the rest of p, if any, on the pool, piece by piece (see the
// top of this file), and reports whether all of the call has run: pieces
// are skipped once the invocation is canceled.
func (p plan) finish() (complete bool) {
	if !p.parallel() {
		return true
	}
	return p.finishOn(nil, func(_ *forkjoin.Worker, lo, hi int) { p.step(lo, hi) })
}

// finishOn is finish with a piece function of its own, which learns the
// worker running it; setup, if not nil, runs on the pool first.
func (p plan) finishOn(setup func(w *forkjoin.Worker), piece func(w *forkjoin.Worker, lo, hi int)) (complete bool) {
	if w := forkjoin.Current(); w != nil {
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

// cpusBusy reports whether every processor is busy and a queue of other
// goroutines waits: as many goroutines are runnable as the program has
// processors (GOMAXPROCS), not counting as many as the pool has workers
// (they are often runnable for a moment, just woken or yielding in their
// idle loop, and would run the call's pieces). This is a server whose
// handlers all compute: the pool could only take processor time from
// goroutines that would use it anyway, and a call that went parallel would
// pay the trip for nothing. The call goes on serially instead, and looks
// again each time it has run as long again as before, so that a busy spell
// (a garbage collection's mark workers, say) costs it at most what it ran
// serially before. A read of the scheduler's counts costs some 200 ns,
// beside at least 20µs of serial work.
func cpusBusy() bool {
	s := [2]metrics.Sample{
		{Name: "/sched/goroutines/runnable:goroutines"},
		{Name: "/sched/gomaxprocs:threads"},
	}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return false // a runtime without these counts: assume idle processors
	}
	return s[0].Value.Uint64() >= s[1].Value.Uint64()+uint64(workers())
}
