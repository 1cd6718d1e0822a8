// Package forkjoin is a fork-join runtime: a pool of workers that run tasks
// which split themselves into smaller tasks, run the pieces in parallel and
// join the results.
//
// # Entering and forking
//
// Ordinary code hands a task to a pool with Invoke (or Run, or
// InvokeContext) and blocks until it is done. Inside a task, the *Worker the
// task receives is the handle for forking:
//
//   - Join(w, fa, fb) runs two closures in parallel and returns both results;
//     Do runs any number of them.
//   - Spawn(w, fn) forks a task now and returns a Future to join later.
//   - Scope(w, body) lets body spawn any number of tasks with s.Go and waits
//     for all of them.
//   - For, ForRange and Reduce run loops, splitting the range adaptively;
//     ReduceW is Reduce whose body receives the worker, to fork in it.
//   - A Func, made once with NewFunc, forks without allocating: its job
//     records carry the argument and the result and are reused. Recursive
//     algorithms with millions of forks (algos uses it throughout) should
//     fork through a Func; Join's closures cost an allocation each.
//     Worker.Inline tells such a recursion when a Func.Join would only run
//     both sides one after the other, so that it can make the two calls
//     itself, as direct calls.
//
// A panic in any task is re-raised in the task that joins it, and from Invoke
// in the calling goroutine, as a *PanicError holding the original value and
// the stack where it happened, once every task forked beside it has finished.
// The pool stays usable. A task that calls runtime.Goexit (as
// testing.T.FailNow does) cannot be stopped from ending its goroutine: the
// worker carries on in a new goroutine, and the tasks the exit cut short
// (that task and any it was running beneath on the same worker) fail with a
// *PanicError whose Value is ErrGoexit, so nobody waits for them for ever. Prefer
// t.Error in tasks, and check results after Invoke returns.
//
// # Scheduling
//
// In WorkStealing mode (the default) each worker owns a Chase-Lev deque
// (package wsdeque). A fork pushes the forked half on the worker's own deque
// and runs the other half at once (work-first). When the first half returns,
// the worker pops the forked half back and runs it itself, unless a thief
// took it. Every fork point forks lazily instead (Func.Join and Join,
// Func.Fork and Spawn, S.Go and Func.Go, For, ForRange, Reduce): the forked
// work waits in a frame of the worker's own, with no atomic and no deque
// operation, and the worker pushes its oldest such frame on its deque, a
// loop the upper half of what it has left, when another worker finds its
// deque empty or is parked; work nobody took the worker runs
// itself when the code that forked it gets there: a join when its first half
// returns, a fork at its Join, a spawn when the task that spawned it ends, a
// loop's indices in order. A fork nobody was offered costs about a function
// call, beside the closure a closure fork allocates. A worker
// whose deque is empty steals from a random victim: half of
// the victim's deque (StealHalf, the default) or its oldest task (StealOne).
// The oldest tasks are the largest in divide-and-conquer work, so a few
// hundred steals are typically enough to keep every worker busy for millions
// of tasks.
//
// A joiner whose forked half was stolen does not block: it helps, stealing
// first from the thief (whose deque holds the stolen task's children), then
// from the other workers, and parks on the task's latch only when there is
// nothing to take. It helps only with tasks of its own invocation: it never
// starts another caller's Invoke, nor runs that invocation's tasks, on top of
// its frames. So a lock that a task holds across a fork-join call cannot
// deadlock another invocation or code outside the pool that takes it.
// Within one invocation a waiting worker may run any of the invocation's
// tasks, so do not share a lock that a task holds across a Join with other
// tasks of the same invocation. A lock held outside the pool across Invoke
// is another matter: tasks that wait for it block their workers, and once
// every worker is blocked so, that Invoke waits for the pool to lend a
// compensating worker (see What a task may block on).
//
// # Structured calls
//
// When a fork-join call returns or panics, every task it started has
// stopped. Joins nest, a Scope waits for its tasks, and a Future or Forked
// that a task leaves unjoined is joined when that task returns (its panic
// becomes the task's). InvokeContext returns only once its tasks have
// stopped; cancellation makes them stop early, since every fork point starts
// nothing new once the invocation is canceled (a lazy fork sees it within 32
// forks). Invoke on the pool a task
// already runs on runs inline, as a nested invocation, canceled with the
// invocation it runs in (and, for InvokeContext, by its own context), and
// canceled from the start if that one already is. A *Worker is valid
// only inside the task it was handed to, on that task's goroutine. Every
// entry point panics on a nil *Worker. These also panic when given one kept
// after its task returned, used from another goroutine, or used in a task
// of another pool: For, ForRange, Reduce, ReduceW, Scope, S.GoFrom, Do,
// Blocking, Join where it forks, Func.Fork and Spawn in the outermost
// frames of a task, and, on every call, Future.Join, Forked.Join, S.Go and
// Func.Go. The fork points of the inner levels of a recursion do not
// compare goroutines, which would cost them a large share of a fork:
// Func.Join, and Join where it joins inline, catch only a *Worker kept after
// its task returned while its worker is idle; Worker.Inline, and Func.Fork
// and Spawn deep in a recursion, check only for nil. A misuse panic names
// the line of the call that misused the API.
//
// A scope's spawns (S.Go, Func.Go) wait in frames until the spawning task
// ends, which runs them, or until its heartbeat offers them to a worker
// that asked, up to 16 of them stolen and run as one batch; past 256 pending
// frames, and in shared-queue mode, they travel in batches published when
// full, when the spawning task forks, waits or ends, and at once while
// few are pending or while a worker is idle and the spawner's deque holds
// nothing for it. So wait for tasks only through the library (a scope's end,
// Join, Future.Join): a task that blocks on a channel, a lock or a
// sync.WaitGroup until another task of the scope has run may wait for ever
// (the other may be pending in the blocked task's own frames, or sit in one
// batch with it), as it always could in a one-worker pool.
//
// In SharedQueue mode every fork goes to one mutex-protected queue that all
// workers take from: the design most tutorials begin with, kept as a fallback
// and as the baseline that shows the cost of coordinating through one lock on
// every task. Stats counts its lock waits.
//
// # Idle workers
//
// A worker with nothing to do searches for a few rounds, then parks on a
// channel. A producer that publishes work wakes one parked worker when nobody
// is searching; the sleep protocol guarantees that no wake-up is
// lost. An idle pool's goroutines are all parked and use no CPU.
//
// # Sharing the machine: latency
//
// A pool's workers are goroutines, by default one per P (GOMAXPROCS), and
// while there is work they run without blocking. So that the rest of the
// program keeps its latency, a worker yields its P (runtime.Gosched) right
// after it finishes an invocation, letting the woken caller run at once,
// and every 200 µs while it runs tasks: timers fire, a canceled invocation
// learns of it, other goroutines get their turn. (While a P is idle and no
// goroutine waits for one, the runtime gives those to the idle P, and the
// worker yields only every millisecond.) It checks the
// clock at forks, spawns, task starts and loop leaves, so a task that runs
// for long without any of those (a long serial leaf) delays the yield by
// its own length. A caller of InvokeContext can expect its deadline to be
// honoured within a millisecond or two plus the longest such stretch. A
// program that needs a P for latency-critical goroutines at all times (a
// server's request handlers next to batch work) should size its pool below
// GOMAXPROCS: Workers(runtime.GOMAXPROCS(0)-1). A pool larger than
// GOMAXPROCS is oversubscribed: its workers already take turns on the Ps,
// and while more of them are awake than there are Ps they yield only every
// millisecond (a yield would mostly hand the P to another worker), so
// expect a few milliseconds of lateness there.
//
// # What a task may block on
//
// A task may block on anything outside the pool (I/O, a lock, a channel fed
// by other goroutines, time.Sleep, a sync.Cond, a Wait of any kind). It
// holds its worker meanwhile, and the pool makes up for it: a monitor
// goroutine samples the workers' progress while any is awake (every
// millisecond while the pool stalls, less often, down to every 64 ms,
// while it moves or has a worker idle), and when workers have made none
// for 10 ms (blocked, or
// parked waiting for a task) while work waits that no idle or searching
// worker will take, it lends a compensating worker, one more per sample
// while the blockage lasts, and retires them when it ends. So a spare
// starts 10 to 140 ms after a pool that was moving stalls (about 10 ms in
// a pool that has just started or woken from idle, and for each further
// spare), far sooner than .NET's thread pool injects a thread on
// starvation. A spare is lent only when the scheduler confirms it (fewer
// goroutines run or wait for a processor than the pool has awake workers,
// so some are truly blocked): a task that computes for long without
// forking gets none. It is lent at once while no
// other goroutine runs; while one does (it may be what the blocked workers
// wait for, a long task holding their lock, say), at most one spare is
// out, lent after 100 ms. The monitor costs nothing on the fork and join
// paths (a worker counts its progress at its clock reads, at its first
// check after a sample, and at wake-ups), and sleeps while every worker
// is parked: an idle pool uses no CPU. Wrapped in Blocking, a wait gets its
// compensating worker at once, without the monitor's delay; use it where
// the wait is known.
//
// The guarantee: a program whose tasks only block on each other or on the
// outside world makes progress whenever goroutines in their place would,
// within the bound on compensating workers (MaxSpares, 256 per pool,
// Blocking's and the monitor's together: past it, a program that needs
// every one of thousands of tasks blocked at once waits as it would on a
// thread pool). The one exception is work the blocked task itself holds
// back: forks and spawns may wait in their worker's lazy frames or in a
// spawn batch (above), which only the worker can publish, so a task must
// not block on another task of the pool it forked with Join, Spawn or a
// scope's Go, except through the library (a Join, a Future.Join, a scope's
// end): a worker blocked on a task that has not started cannot run it.
// Blocking publishes what its task held back before it blocks, and Tasks
// forks eagerly: a task started by Tasks.Go (par.Group's functions) is
// stealable at once, so its siblings may block on it. For the same reason
// a task that spawns and then computes for long without forking again
// keeps its spawns until it forks again or ends, unless a worker was
// already waiting for work when it spawned: split long serial work, or make
// it a task of its own. Compensation never lets a waiting worker start a
// queued invocation (that is what keeps a lock held across a Join safe):
// the spare, a fresh worker, does.
//
// # The race detector
//
// Under the race detector (go test -race, or any build with the race build
// tag) a pool runs each logically parallel strand of the program on a
// goroutine of its own: the forked side of Join and Func.Join, a task of
// Spawn, Func.Fork, S.Go, Func.Go and Do, each piece of For, ForRange,
// Reduce and ReduceW (at most 64 strands a loop, of contiguous pieces), and
// an invocation's root. A strand's goroutine is started by the strand that
// forks it, and its end is joined where the program joins it, with nothing
// else between strands that the detector could take for synchronization.
// So the detector sees two strands as unordered exactly when the program
// runs them in parallel, and reports a race between them in every run,
// whether or not any fork was stolen, as it would between two goroutines;
// a correct program stays silent. It cannot see a race in code that the
// test does not run, or between two indices of a loop that share a strand,
// and may miss one between two accesses with hundreds of strands ended
// between them. State kept per Worker.ID is reported: strands that share
// an ID are logically parallel.
// Stats, worker IDs and scheduling are then not the scheduler's (Blocking
// just calls its function), a fork costs a goroutine, and a fork beyond
// 4096 live strands runs inline. Set the environment variable FJKIT_RACE to
// "scheduler" to run the work-stealing scheduler itself under the race
// detector (pools made from then on); builds without the race tag are not
// affected.
//
// # Work and span: how far a program can scale
//
// A program's work T₁ is the time all its strands take one after another
// (a strand is the code between two fork or join points), and its span T∞
// the time of the longest chain of strands that must run one after
// another. Their ratio, the parallelism, bounds the speed-up on any number
// of workers, and Brent's bound, T_P ≤ T₁/P + T∞, says what a greedy
// scheduler reaches at least; so they tell, on a machine of two cores, how
// far a program can scale on sixteen. MeasureWorkSpan measures them, as
// Cilkscale does for Cilk: it runs the program as its serial elision (each
// fork runs its child to its end first, on the calling goroutine), times
// each strand with the monotonic clock, and composes the times along the
// program's forks and joins. Every way to fork takes part, par's calls
// made from a task too. The burdened span adds, for every fork on a path,
// the cost of running the forked side on another worker (WorkSpanBurden):
// a program whose strands are short scales less than its parallelism
// says, and its burdened parallelism tells how much. Region names a part
// of the program, which then has figures of its own, to find which part
// holds the span; WorkSpan's WriteTable and WriteCSV print them, and
// Predict gives the bounds for 1 to any number of workers.
//
// The measurement is compiled in only with the build tag fjkit_workspan
// (go test -tags fjkit_workspan, go build -tags fjkit_workspan), not with
// -race: in other builds the fork paths are exactly those of a build
// without it, MeasureWorkSpan returns ErrWorkSpanOff and Region is a
// plain call. A measured fork costs a few clock reads and allocations, all
// of it counted as work, so a program that forks at every tiny call runs
// many times slower measured and its figures say more about the
// measurement than about it; one whose strands average a microsecond or
// more runs a fraction slower, and its parallelism is its own.
//
// # Invariants
//
//   - Every task runs exactly once: a deque or the shared queue hands each
//     job to exactly one taker, and a joiner runs its job inline only when it
//     took it back from there, or never made it stealable (a lazy frame
//     nobody promoted).
//   - A job record is reused only by the worker that forked it, and only after
//     its join has seen it complete (a spawned task's record, which nobody
//     joins, after it ran).
//   - A joiner re-raises a panic only after both sides of its join finished,
//     so a task's data is never freed while a sibling still uses it.
//
// The repository's docs/design.md describes the worker loop, the join and
// help protocol and the sleep protocol in more detail.
package forkjoin
