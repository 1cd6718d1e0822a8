package forkjoin

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// The worker's clock.
//
// A worker reads the time for two decisions: whether to yield its P (the
// yield rule below) and whether to promote a lazy frame (the heartbeat,
// heartbeat.go). Reading the clock at every fork would cost more than the
// fork, so one countdown serves both: every scheduling point (a fork of any
// kind, a job started, a loop leaf) counts a tick, and when ticksLeft runs
// out, at most every checkStride ticks, the worker checks: a lazy fork looks at
// its invocation's cancellation and at the beat flag (beatDue), an eager
// point does the same through tick. Every ticksPerRead ticks a check reads
// the clock; ticksPerRead adapts so that reads come about every checkPeriod,
// whatever the grain of the work: one read per some hundreds of tiny forks,
// one per leaf of a loop whose leaves are long. The read applies the yield
// rule, and the heartbeat compares it with its last promotion.
//
// Sharing Ps with the program.
//
// A pool's workers are goroutines, one per P by default, and a busy worker
// never blocks. Go preempts a goroutine that runs for 10 ms, but until then
// nothing else runs on its P: not the caller that Invoke woke when its
// result was ready, not the timer behind a context's deadline, not an HTTP
// handler of the same process. So a worker yields its P (runtime.Gosched)
// at two kinds of points:
//
//   - right after it finishes an invocation's root and wakes the caller
//     (invokeJob.complete), so that the caller, queued on this P, runs at once;
//   - at a clock read, once yieldInterval has passed since it last yielded,
//     so that timers fire, canceled invocations learn of it, and other
//     goroutines keep their latency; every oversubscribedYieldInterval
//     instead while more of the pool's workers are awake than there are Ps
//     (awake), when the Ps already rotate among them, or while a P is idle
//     and nobody waits for one (pWanted).
//
// Gosched puts the worker at the back of the global run queue; with nothing
// else to run it is back at once (about 100 ns, at most once per
// yieldInterval).
const (
	yieldInterval = 200 * time.Microsecond // longest run without a yield while somebody may wait for the P, give or take checkPeriod
	// oversubscribedYieldInterval replaces it while the pool is
	// oversubscribed (see awake) or nobody waits for a P (pWanted).
	oversubscribedYieldInterval = time.Millisecond
	// checkStride is the most ticks between two checks, and so between two
	// looks at the beat flag and at the invocation's cancellation.
	checkStride = 32
	// maxTicksPerRead is the largest ticksPerRead.
	maxTicksPerRead = 1 << 12
)

// checkPeriod is the time between reads of the clock that ticksPerRead
// aims at. A variable only so that tests can change it; read on the slow
// path.
var checkPeriod = 20 * time.Microsecond

// clock is a worker's clock and the state of the yield rule. Owner only.
type clock struct {
	// ticksLeft counts ticks down to the next check; a lazy fork
	// decrements it inline and checks once it is negative.
	ticksLeft int
	// checksLeft counts checks down to the next clock read, every
	// ticksPerRead ticks; lastRead and lastYield are the times of the last
	// clock read and of the last yield.
	checksLeft, ticksPerRead int
	lastRead, lastYield      time.Duration
	// GOMAXPROCS as last read, and the awake calls left before it is
	// read again.
	procs, procsLeft int
	sched            [4]metrics.Sample                                 // pWanted's reading of the scheduler
	quietUntil       time.Duration                                     // pWanted's last "nobody waits" holds until then
	readSched        func() (runnable, running, notInGo, procs uint64) // tests: schedCounts' reading instead of runtime/metrics
	yields           uint64                                            // Gosched calls, for tests
}

// epoch is the origin of the workers' clock readings (monotonic).
var epoch = time.Now()

func now() time.Duration { return time.Since(epoch) }

// countdown counts one tick and reports whether the countdown ran out.
// It is the one place that counts ticks down; only w's goroutine calls it.
func (w *Worker) countdown() bool {
	w.ticksLeft--
	return w.ticksLeft < 0
}

// checkNext makes the next tick run the countdown out, so that the next
// fork or scheduling point checks. Only w's goroutine calls it.
func (w *Worker) checkNext() { w.ticksLeft = 0 }

// ticksAhead reports whether a tick counted now leaves the countdown
// running: the next check is at least two ticks away.
func (w *Worker) ticksAhead() bool { return w.ticksLeft > 0 }

// countedOut reports whether the last tick ran the countdown out, and no
// check has restarted it since.
func (w *Worker) countedOut() bool { return w.ticksLeft < 0 }

// tick counts one eager scheduling point (a push, a job started, a leaf of
// an eager loop) and checks when the countdown runs out. Only w's
// goroutine calls it.
func (w *Worker) tick() {
	if w.countdown() {
		w.tickCheck()
	}
}

// tickCheck is tick's slow path: the heartbeat while w runs an invocation
// (an eager point may promote as a fork does; the cancellation it reports
// is for lazy forks, which stop at it, and eager points check their own),
// else the clock alone.
func (w *Worker) tickCheck() {
	if w.inv == nil {
		w.checkClock()
		return
	}
	w.heartbeat()
}

// checkClock counts one check, and reads the clock if one is due: then it
// reports the time, having applied the yield rule. It restarts the tick
// countdown. Only w's goroutine calls it.
func (w *Worker) checkClock() (t time.Duration, read bool) {
	if w.checksLeft--; w.checksLeft <= 0 {
		t, read = w.readClock(), true
	} else {
		w.answerMonitor()
	}
	w.ticksLeft = min(w.ticksPerRead, checkStride-1)
	return t, read
}

// readClock reads the clock, adapts ticksPerRead to the time since the
// last read, yields if it is time, and returns the time read.
func (w *Worker) readClock() time.Duration {
	t := now()
	switch el := t - w.lastRead; {
	case el < checkPeriod/2:
		if w.ticksPerRead < maxTicksPerRead {
			w.ticksPerRead = 2*w.ticksPerRead + 1
		}
	case el > 2*checkPeriod:
		w.ticksPerRead = int(int64(w.ticksPerRead) * int64(checkPeriod) / int64(el))
	}
	w.lastRead = t
	w.madeProgress() // for the blocking monitor (monitor.go)
	w.checksLeft = w.ticksPerRead/checkStride + 1
	if t-w.lastYield >= yieldInterval {
		w.yield(t)
	}
	return t
}

// yield lets the other goroutines queued on w's P run. t is the time now;
// the caller found that yieldInterval has passed since the last yield. It
// yields then, except within oversubscribedYieldInterval of the last yield
// while the pool is oversubscribed, or while a P is idle and nobody waits
// for one (pWanted). So a worker yields at least every millisecond, whatever
// the rest: the timers on its P then fire within a millisecond or two even
// when the runtime leaves them to an idle P (which, blocked in the network
// poller, wakes in whole milliseconds on Linux; BenchmarkTimerBesideAWorker
// and docs/design.md give the figures).
func (w *Worker) yield(t time.Duration) {
	if t-w.lastYield < oversubscribedYieldInterval {
		awake := w.awake()
		if awake > w.procs {
			return // oversubscribed: see below
		}
		if awake < w.procs && !w.pWanted(t) {
			return
		}
	}
	w.yieldNow(t)
}

// pWanted reports whether a yield of w's P could let anything else run
// sooner: some goroutine is runnable (queued on a P or on the global run
// queue), or every P is busy (running Go code, or held by a goroutine in a
// system call), so that the timers on w's P wait for it to enter the
// scheduler. Otherwise a P is idle: the runtime hands it any goroutine
// that becomes runnable (wakep) and lets it run the timers of busy Ps. A
// yield then gains little, and costs something: Gosched wakes the idle P's
// thread, which spins beside the worker or takes the worker's goroutine
// over, and one worker on two Ps runs slower with thousands more context
// switches (docs/benchmarks.md; docs/design.md gives the price of not
// yielding in timer precision).
//
// The counts come from runtime/metrics, a read of about 200 ns
// (BenchmarkSchedCounts) that takes
// the scheduler's lock to walk the Ps; a "no" is kept for yieldInterval, so
// a worker reads at most once per interval, and only while fewer of the
// pool's workers are awake than there are Ps (yield: with as many, every P
// is busy, and it yields without asking). They are approximate (a P whose
// thread searches for work counts as busy; a goroutine in a system call
// counts as holding a P, whether it does or not) and err towards yielding.
// Only w's goroutine calls it.
func (w *Worker) pWanted(t time.Duration) bool {
	if t < w.quietUntil {
		return false
	}
	runnable, running, notInGo, procs := w.schedCounts()
	if runnable > 0 || running+notInGo >= procs {
		return true
	}
	w.quietUntil = t + yieldInterval
	return false
}

// schedCounts reads runtime/metrics for pWanted: goroutines runnable,
// running, and not in Go (in system calls), and GOMAXPROCS; or, where a
// test set w.readSched, that instead. Only w's goroutine calls it.
func (w *Worker) schedCounts() (runnable, running, notInGo, procs uint64) {
	if w.readSched != nil {
		return w.readSched()
	}
	s := &w.sched
	if s[0].Name == "" {
		s[0].Name = "/sched/goroutines/runnable:goroutines"
		s[1].Name = "/sched/goroutines/running:goroutines"
		s[2].Name = "/sched/goroutines/not-in-go:goroutines"
		s[3].Name = "/sched/gomaxprocs:threads"
	}
	metrics.Read(s[:])
	return s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()
}

// yieldNow yields w's P whatever the pool's size: after a root completes
// the caller it woke is queued on this P (invokeJob.complete). t is the time
// now.
func (w *Worker) yieldNow(t time.Duration) {
	w.lastYield = t
	w.yields++
	runtime.Gosched()
}

// awake returns how many of the pool's workers are awake (not parked), and
// refreshes w.procs, GOMAXPROCS as last read: every 64th call, since reading
// it takes the scheduler's lock. With more workers awake than Ps the pool
// is oversubscribed: some of them already wait for a P, the Ps rotate among
// them and the program's goroutines each time one of them parks or
// searches, and a yield mostly hands the P to one of the pool's own thieves
// while the yielding worker, often the one producing the work, waits at the
// back of the global run queue. Never yielding would leave the program's
// timers late by the 10 ms of Go's preemption; so an oversubscribed pool
// yields every millisecond (yield; docs/benchmarks.md has the
// measurements). Only w's goroutine calls it.
func (w *Worker) awake() int {
	if w.procsLeft--; w.procsLeft <= 0 {
		w.procs, w.procsLeft = runtime.GOMAXPROCS(0), 64
	}
	p := w.pool
	return p.size + int(p.spares.active.Load()) - p.sleep.idle()
}
