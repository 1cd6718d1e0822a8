package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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

// runSeed measures the seeds' flat workload: first every scheduler over
// cfg.workers at the first weight, then the fjkit schedulers over cfg.sweep
// at the other weights.
func runSeed(cfg *config, b *bench) (Section, error) {
	sec := Section{Name: "seed"}
	add := func(r Result, err error) error {
		if err == nil {
			sec.Results = append(sec.Results, r)
		}
		return err
	}
	for wi, weight := range cfg.weights {
		n := cfg.tasks
		workers := cfg.workers
		if wi > 0 {
			n = sweepTasks(cfg.tasks, weight)
			workers = cfg.sweep // the sweep compares the fjkit schedulers only
		}
		sw := &seedWork{weight: weight, out: make([]uint64, n)}
		br := Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Work: float64(n), Unit: "tasks"}
		if err := add(b.measure(br, contender{scheduler: "serial", prepare: sw.reset, work: func() uint64 {
			for i := range n {
				sw.task(i)
			}
			return sw.sum()
		}})); err != nil {
			return sec, err
		}
		// The seeds' flat workload: one task spawns every task into a scope
		// and waits for them all.
		rs, err := measureOurs(b, br, cfg.modes, workers, "", sw.reset, func(w *forkjoin.Worker) uint64 {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				for i := range n {
					seedSpawn.Go(s, seedSpawnArg{sw, i})
				}
			})
			return sw.sum()
		})
		sec.Results = append(sec.Results, rs...)
		if err != nil {
			return sec, err
		}
		if wi > 0 {
			continue
		}
		rs, err = measureFlat(b, br, workers, sw.reset, n, sw.task, sw.sum)
		sec.Results = append(sec.Results, rs...)
		if err != nil {
			return sec, err
		}
	}
	if t, ok := sweepTable(sec.Results, cfg.weights, cfg.sweep); ok {
		sec.Extra = append(sec.Extra, t)
		sec.Summary = seedSummary(sec.Results, cfg.weights, cfg.sweep)
	}
	return sec, nil
}

// seedLookup finds the result of a scheduler at a weight and worker count.
type seedLookup map[string]*Result

func newSeedLookup(rs []Result) seedLookup {
	m := seedLookup{}
	for i := range rs {
		r := &rs[i]
		m[r.param("weight")+"/"+r.Scheduler+"/"+strconv.Itoa(r.Workers)] = r
	}
	return m
}

func (m seedLookup) get(weight int, sched string, workers int) *Result {
	return m[strconv.Itoa(weight)+"/"+sched+"/"+strconv.Itoa(workers)]
}

// sweepTable is the seeds' sweep: for each weight and worker count, the
// throughput of both schedulers, their ratio and what each paid in
// coordination. It needs both schedulers.
func sweepTable(rs []Result, weights, sweep []int) (Table, bool) {
	m := newSeedLookup(rs)
	t := Table{
		Title:  "seed weight sweep — work stealing against the shared queue",
		Header: []string{"weight", "tasks", "workers", "shared tasks/s", "ws tasks/s", "ws/shared", "lock waits per 1000 tasks", "steals"},
		Right:  []bool{true, true, true, true, true, true, true, true},
	}
	for _, weight := range weights {
		for _, w := range sweep {
			sh, ws := m.get(weight, "shared", w), m.get(weight, "ws", w)
			if sh == nil || ws == nil {
				continue
			}
			c, _ := medianCounters(sh.Counters)
			wc, _ := medianCounters(ws.Counters)
			t.Rows = append(t.Rows, []string{
				strconv.Itoa(weight), strconv.FormatFloat(sh.Work, 'f', 0, 64), strconv.Itoa(w),
				fmtSI(sh.rate()), fmtSI(ws.rate()), fmtRatio(ws.rate() / sh.rate()),
				strconv.FormatFloat(1000*float64(c.LockWaits)/sh.Work, 'f', 2, 64),
				strconv.FormatUint(wc.Steals, 10),
			})
		}
	}
	return t, len(t.Rows) > 0
}

// levelRatio bounds the ws/shared throughput ratios read as "level": on a
// shared 2-core machine runs differ by several percent, so closer than 15%
// is no verdict either way.
const levelRatio = 1.15

// verdict says in words who was ahead at a ws/shared throughput ratio.
func verdict(ratio float64) string {
	switch {
	case ratio >= levelRatio:
		return "work stealing ahead"
	case ratio <= 1/levelRatio:
		return "the shared queue ahead, which the seeds did not see"
	}
	return "level within 15%"
}

// overhead is what a scheduler adds to each task at one worker, where nothing
// contends: its time per task less the task's own serial compute time. It is
// the cost of handing one task out (spawn, queue, take, run, count).
func overhead(one, serial *Result) float64 {
	if one == nil || serial == nil || one.Work == 0 || serial.Work == 0 {
		return math.NaN()
	}
	return max(0, summarize(one.Durations).Median/one.Work-summarize(serial.Durations).Median/serial.Work)
}

// regime names what bounds a weight: coordination when handing a task out
// costs more than the task computes, compute when it costs less.
func regime(compute, overShared, overWS float64) string {
	sh, ws := overShared > compute, overWS > compute
	switch {
	case math.IsNaN(overShared) || math.IsNaN(overWS):
		return "not classified (a one-worker run is missing)"
	case sh && ws:
		return "coordination-bound under both schedulers"
	case !sh && !ws:
		return "compute-bound under both schedulers"
	case sh:
		return "compute-bound under work stealing, coordination-bound under the shared queue"
	}
	return "compute-bound under the shared queue, coordination-bound under work stealing"
}

// seedSummary reads the seed tables in words. Every figure and every verdict
// in it comes from rs; nothing is fixed text but the connecting words.
func seedSummary(rs []Result, weights, sweep []int) []string {
	m := newSeedLookup(rs)
	var out []string

	// The main experiment: does adding workers help each scheduler?
	main := weights[0]
	var ws []int
	for _, r := range rs {
		if r.param("weight") == strconv.Itoa(main) && r.Scheduler == "shared" {
			ws = append(ws, r.Workers)
		}
	}
	if len(ws) >= 2 {
		lo, hi := slices.Min(ws), slices.Max(ws)
		sl, sh := m.get(main, "shared", lo), m.get(main, "shared", hi)
		wl, wh := m.get(main, "ws", lo), m.get(main, "ws", hi)
		if sl != nil && sh != nil && wl != nil && wh != nil {
			c, _ := medianCounters(sh.Counters)
			wc, _ := medianCounters(wh.Counters)
			only := ""
			if float64(wc.Steals) < wh.Work/100 {
				only = "only "
			}
			out = append(out, fmt.Sprintf(
				"On %.0f tasks of weight %d, the shared queue with %d workers reached %s its throughput with %d "+
					"(%s vs %s tasks/s)%s, and found its lock held %d times (%.2f per 1000 tasks); work stealing "+
					"with %d workers reached %s its throughput with %d (%s vs %s tasks/s)%s, and needed %s%d steals "+
					"for all %.0f tasks. Against each other at %d workers, work stealing delivered %s the shared "+
					"queue's throughput.",
				sh.Work, main, hi, fmtRatio(sh.rate()/sl.rate()), lo, fmtSI(sh.rate()), fmtSI(sl.rate()), gain(sh.rate()/sl.rate()),
				c.LockWaits, 1000*float64(c.LockWaits)/sh.Work,
				hi, fmtRatio(wh.rate()/wl.rate()), lo, fmtSI(wh.rate()), fmtSI(wl.rate()), gain(wh.rate()/wl.rate()),
				only, wc.Steals, wh.Work, hi, fmtRatio(wh.rate()/sh.rate())))
		}
	}

	// The sweep: which regime is each weight in? Handing a task out (the
	// one-worker overhead) against the task's compute decides the regime;
	// the most workers decide who is ahead.
	var parts []string
	var ratios []float64
	for _, weight := range weights {
		lo, hi := 0, 0
		for _, w := range sweep {
			if m.get(weight, "shared", w) != nil && m.get(weight, "ws", w) != nil {
				hi = max(hi, w)
				if lo == 0 || w < lo {
					lo = w
				}
			}
		}
		serial := m.get(weight, "serial", 0)
		if hi == 0 || serial == nil {
			continue
		}
		sh, wh := m.get(weight, "shared", hi), m.get(weight, "ws", hi)
		ratio := wh.rate() / sh.rate()
		ratios = append(ratios, ratio)
		compute := summarize(serial.Durations).Median / serial.Work
		part := fmt.Sprintf("- Weight %d: a task computes for about %s", weight, fmtDuration(compute))
		var osh, ows = math.NaN(), math.NaN()
		if lo == 1 {
			osh, ows = overhead(m.get(weight, "shared", 1), serial), overhead(m.get(weight, "ws", 1), serial)
			part += fmt.Sprintf("; with one worker, handing it out costs about %s on the shared queue and %s with work stealing",
				fmtDuration(max(osh, 0.01)), fmtDuration(max(ows, 0.01)))
		}
		part += fmt.Sprintf(": %s. With %d workers work stealing delivered %s the shared queue's throughput (%s).",
			regime(compute, osh, ows), hi, fmtRatio(ratio), verdict(ratio))
		parts = append(parts, part)
	}
	if len(parts) > 0 {
		out = append(out, "By weight:\n\n"+strings.Join(parts, "\n"))
	}
	if len(ratios) >= 2 {
		// Falling: clearly lower at the heaviest weight than at the lightest,
		// and no step up larger than the noise that "level" allows.
		falling := ratios[0] >= ratios[len(ratios)-1]*levelRatio
		for i := 1; i < len(ratios); i++ {
			falling = falling && ratios[i] <= ratios[i-1]*levelRatio
		}
		if falling {
			out = append(out, fmt.Sprintf("The advantage of work stealing falls from %s to %s as the tasks get heavier. "+
				"The shared queue holds its lock for the same few instructions at every weight; what the weight changes is "+
				"how often per second the workers must take it. So the shared design's cost is the frequency of "+
				"coordination, not the lock's hold time — the seeds' conclusion, reproduced.",
				fmtRatio(ratios[0]), fmtRatio(ratios[len(ratios)-1])))
		} else {
			out = append(out, "In this run the ws/shared ratio does not fall clearly as the weight grows, so the run does not "+
				"by itself show that the frequency of coordination, rather than the lock's hold time, is the shared "+
				"design's cost; compare the spread columns, and rerun with more -runs on a quieter machine.")
		}
	}
	return out
}

// gain says in words what a throughput ratio (more workers over fewer) means.
func gain(r float64) string {
	switch {
	case r < 1/levelRatio:
		return ": more workers made it slower"
	case r <= levelRatio:
		return ": more workers did not help"
	}
	return ""
}
