package main

import (
	"math"
	"strconv"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
)

// The tiny-tasks experiment (docs/benchmarks.md): -tasks tasks of a few
// nanoseconds (internal/workloads) on every scheduler, at the first weight;
// then the single producer and the experiment's own two schedulers over the
// -sweep worker counts at the other weights.

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

// tinyPatterns are the ways a program hands the tasks to an fjkit pool, each
// measured in both modes, named mode-variant; the sweep measures the first.
var tinyPatterns = []struct {
	variant string
	run     func(*workloads.Tiny, *forkjoin.Worker)
}{{"spawn", (*workloads.Tiny).SpawnFunc}, {"range", (*workloads.Tiny).Range}, {"for", (*workloads.Tiny).For}}

// runTiny measures one round of the experiment; finishTiny makes its
// verdicts once every round is in.
func runTiny(cfg *config, b *bench) (Section, error) {
	sec := Section{Name: "tiny", Compare: [2]string{"ws-spawn", "shared-spawn"}}
	if cfg.tasks > math.MaxInt32 {
		return sec, errSize("tiny", "-tasks", cfg.tasks, "at most 2^31-1")
	}
	sec.usable = usableCores()
	for wi, weight := range cfg.weights {
		n, workers, patterns := cfg.tasks, cfg.workers, tinyPatterns
		if wi > 0 {
			n, workers, patterns = sweepTasks(cfg.tasks, weight), cfg.sweep, tinyPatterns[:1]
		}
		t := workloads.NewTiny(n, weight)
		base := Result{Scenario: "tiny", Params: []Param{{"weight", strconv.Itoa(weight)}}, Work: float64(n), Unit: "tasks"}
		sec.add(b.measureOne(base, contender{scheduler: "serial", prepare: t.Reset, work: func() uint64 {
			for i := range n {
				t.Run(i)
			}
			return t.Sum()
		}}))
		sec.add(measurePorts(b, base, workers, t))
		for _, p := range patterns {
			sec.add(measureOurs(b, base, cfg.modes, workers, "-"+p.variant, t.Reset,
				func(w *forkjoin.Worker) uint64 { p.run(t, w); return t.Sum() }))
		}
		if wi == 0 {
			sec.add(measureFlat(b, base, workers, t.Reset, n, t.Run, t.Sum))
			for _, w := range workers {
				sec.add(b.measureOne(base, contender{scheduler: "static", workers: w, prepare: t.Reset,
					work: func() uint64 { workloads.Static(w, n, t.Run); return t.Sum() }}))
			}
		}
	}
	return sec, b.err
}

// measurePorts measures the experiment's own two schedulers at every worker
// count, dealing the tasks out untimed before each run.
func measurePorts(b *bench, base Result, workers []int, t *workloads.Tiny) ([]Result, error) {
	var out []Result
	n := len(t.Out)
	for _, shared := range []bool{false, true} {
		for _, w := range workers {
			var p workloads.Port = workloads.NewPortStealing(w, n)
			name := "port-ws"
			if shared {
				p, name = workloads.NewPortShared(w, n), "port-shared"
			}
			r, _ := b.measure(base, contender{scheduler: name, workers: w,
				prepare:  func() { t.Reset(); p.Deal(n) },
				work:     func() uint64 { p.Run(t.Run); return t.Sum() },
				counters: p.Counters})
			out = append(out, r)
		}
	}
	return out, b.err
}
