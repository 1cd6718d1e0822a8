package main

import (
	"math"
	"runtime"
	"strconv"

	"github.com/fjkit/fjkit/forkjoin"
)

// seedTask is the seeds' unit of work: weight rounds of a 64-bit linear
// congruential step followed by an xorshift, from seed|1. The weight sets how
// long a task computes against how often the scheduler is asked for the next.
func seedTask(seed uint64, weight int) uint64 {
	state := seed | 1
	for range weight {
		state = state*6364136223846793005 + 1
		state ^= state >> 33
	}
	return state
}

// seedWork is one flat run: task i stores its result in out[i], and the
// checksum is the sum of out after all have finished. Writing to a slot of its
// own keeps the tasks from contending on a shared accumulator, so that only the
// scheduler's coordination is measured; the sum catches a dropped or repeated
// task, which a XOR would let cancel out in pairs.
type seedWork struct {
	weight int
	out    []uint64
}

func (s *seedWork) task(i int) { s.out[i] = seedTask(uint64(i), s.weight) }

// seedSpawnArg is the argument of seedSpawn: the work and the task's index.
type seedSpawnArg struct {
	sw *seedWork
	i  int
}

// seedSpawn is the seeds' task as a forkjoin.Func, so that fjkit's runs
// spawn each task with Func.Go: the runtime's allocation-free path, the same
// in both of its modes. With s.Go and a closure per task, the collector's
// work would swamp the scheduling both modes are compared on.
var seedSpawn = forkjoin.NewFunc(func(_ *forkjoin.Worker, a seedSpawnArg) struct{} {
	a.sw.task(a.i)
	return struct{}{}
})

func (s *seedWork) sum() uint64 {
	var c uint64
	for _, v := range s.out {
		c += v
	}
	return c
}

func (s *seedWork) reset() { clear(s.out) }

// sweepTasks is the number of tasks at a sweep weight: the full count up to
// weight 40, fewer above, so that every weight costs about the same compute
// (weight 400 with 2·10^6 tasks would be 2 s a run on one core). Throughput
// in tasks/s and the ws/shared ratio are per task, so they stay comparable.
func sweepTasks(tasks, weight int) int {
	const budget = 40
	if weight <= budget {
		return tasks
	}
	return max(1, int(int64(tasks)*budget/int64(weight)))
}

// seedPattern is one way a user hands the seed's tasks to an fjkit pool;
// each is measured in both modes, named mode+suffix.
type seedPattern struct {
	suffix string
	body   func(sw *seedWork, n int) func(w *forkjoin.Worker) uint64
}

var seedPatterns = []seedPattern{
	// One producer: one task spawns every task into a scope and waits.
	{"", func(sw *seedWork, n int) func(w *forkjoin.Worker) uint64 {
		return func(w *forkjoin.Worker) uint64 {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				for i := range n {
					seedSpawn.Go(s, seedSpawnArg{sw, i})
				}
			})
			return sw.sum()
		}
	}},
	// A fixed-grain loop of single tasks: work stealing runs it piece by
	// piece and splits it only for a hungry worker; the shared queue gets
	// every piece from the caller.
	{"-range", func(sw *seedWork, n int) func(w *forkjoin.Worker) uint64 {
		return func(w *forkjoin.Worker) uint64 {
			forkjoin.ForRange(w, 0, n, 1, func(_ *forkjoin.Worker, lo, hi int) {
				for i := lo; i < hi; i++ {
					sw.task(i)
				}
			})
			return sw.sum()
		}
	}},
	// Recursive split with the adaptive grain: what For does for a user
	// who does not choose one.
	{"-for", func(sw *seedWork, n int) func(w *forkjoin.Worker) uint64 {
		return func(w *forkjoin.Worker) uint64 {
			forkjoin.For(w, 0, n, func(_ *forkjoin.Worker, i int) { sw.task(i) })
			return sw.sum()
		}
	}},
}

// runSeed measures the seeds' flat workload: first every scheduler over
// cfg.workers at the first weight (the seeds' two schedulers, fjkit's modes
// in each spawn pattern, the Go idioms), then the seeds' schedulers and
// fjkit's single-producer rows over cfg.sweep at the other weights. Its
// tables and reading come after every round (finishSeed).
func runSeed(cfg *config, b *bench) (Section, error) {
	sec := Section{Name: "seed", OwnTables: true}
	if cfg.tasks > math.MaxInt32 {
		return sec, errSize("seed", "-tasks", cfg.tasks, "at most 2^31-1")
	}
	// What the reading must know of the machine (finishSeed): how many of
	// its cores the run really had when it started.
	sec.usable = usableCores()
	add := func(rs []Result, err error) error {
		sec.Results = append(sec.Results, rs...)
		return err
	}
	for wi, weight := range cfg.weights {
		n := cfg.tasks
		workers := cfg.workers
		patterns := seedPatterns
		if wi > 0 {
			n = sweepTasks(cfg.tasks, weight)
			workers = cfg.sweep
			patterns = seedPatterns[:1] // the sweep compares the single-producer rows only
		}
		sw := &seedWork{weight: weight, out: make([]uint64, n)}
		br := Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Work: float64(n), Unit: "tasks"}
		r, err := b.measure(br, contender{scheduler: "serial", prepare: sw.reset, work: func() uint64 {
			for i := range n {
				sw.task(i)
			}
			return sw.sum()
		}})
		if err := add([]Result{r}, err); err != nil {
			return sec, err
		}
		if err := add(measureSeedPorts(b, br, workers, sw, n)); err != nil {
			return sec, err
		}
		for _, p := range patterns {
			if err := add(measureOurs(b, br, cfg.modes, workers, p.suffix, sw.reset, p.body(sw, n))); err != nil {
				return sec, err
			}
		}
		if wi > 0 {
			continue
		}
		if err := add(measureFlat(b, br, workers, sw.reset, n, sw.task, sw.sum)); err != nil {
			return sec, err
		}
		for _, w := range workers {
			if err := add(b.measureOne(br, contender{scheduler: "static", workers: w, prepare: sw.reset,
				work: func() uint64 { flatStatic(w, n, sw.task); return sw.sum() }})); err != nil {
				return sec, err
			}
		}
	}
	return sec, nil
}

// finishSeed adds the seed section's own tables and its reading, from every
// round's results (measureRounds); the machine's usable cores are the first
// round's.
func finishSeed(cfg *config, sec *Section) {
	mc := seedMachine{cores: min(runtime.NumCPU(), runtime.GOMAXPROCS(0)), usable: sec.usable}
	sec.Extra = append(sec.Extra, seedTable(sec.Results, cfg.weights[0]))
	if t, ok := sweepTable(sec.Results, cfg.weights, cfg.sweep); ok {
		sec.Extra = append(sec.Extra, t)
	}
	sec.Summary = seedSummary(sec.Results, cfg.weights, cfg.sweep, mc)
}

// measureSeedPorts measures the seeds' two schedulers at every worker
// count, dealing the tasks out untimed before each run.
func measureSeedPorts(b *bench, base Result, workers []int, sw *seedWork, n int) ([]Result, error) {
	var out []Result
	for _, w := range workers {
		st := newSeedStealing(w, n)
		r, err := b.measure(base, contender{scheduler: "seeds-ws", workers: w,
			prepare:  func() { sw.reset(); st.deal(n) },
			work:     func() uint64 { st.run(sw.task); return sw.sum() },
			counters: func() Counters { return st.counters(n) }})
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	for _, w := range workers {
		sh := newSeedShared(w, n)
		r, err := b.measure(base, contender{scheduler: "seeds-shared", workers: w,
			prepare:  func() { sw.reset(); sh.fill(n) },
			work:     func() uint64 { sh.run(sw.task); return sw.sum() },
			counters: func() Counters { return sh.counters(n) }})
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}
