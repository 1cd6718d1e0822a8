package main

import (
	"strings"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// Param is one named input of a scenario (weight=4, n=35). Params stay in the
// order the scenario gives them so that table titles and benchmark names come
// out the same on every run, which benchstat and the golden files need.
type Param struct{ Key, Value string }

// Result is one scheduler at one worker count on one scenario: every timed run
// it made (the warm-up excluded), the checksum of the work, and the pool's
// counters per run where the scheduler has them.
type Result struct {
	Scenario  string
	Params    []Param
	Scheduler string
	// Workers is the number of workers, pool goroutines or the errgroup limit;
	// 0 where the scheduler has no such number (serial code, one goroutine per task).
	Workers int
	// Work counts what one run did, in Unit ("tasks", "elems", "flop", "nodes"),
	// so that a rate (Work per second) can be shown beside the time.
	Work      float64
	Unit      string
	Durations []time.Duration
	Checksum  uint64
	Counters  []forkjoin.Stats // one per timed run; nil for schedulers without counters
	// Usable is the fewest cores a spin loop could use just before or just
	// after the result's runs (usableCores), over every round; 0 where it
	// was not measured.
	Usable float64
	// Copy is the median time of a parallel copy of the scenario's data at
	// Workers (1 for serial code), measured in the same run; 0 where the
	// scenario does not measure it. Tables then show the time as a multiple.
	Copy time.Duration
	// WorkSpan is the row's work and span (-workspan), measured once
	// after its timed runs; nil where not measured.
	WorkSpan *forkjoin.WorkSpan
}

// group names the table a result belongs in: results with the same scenario
// and parameters did the same work and must agree on the checksum.
func (r *Result) group() string {
	var b strings.Builder
	b.WriteString(r.Scenario)
	for _, p := range r.Params {
		b.WriteString(" " + p.Key + "=" + p.Value)
	}
	return b.String()
}

// Section is what one subcommand reports: its results, the tables beyond the
// one per group, and footnotes.
type Section struct {
	Name    string
	Results []Result
	// OwnTables says that Extra shows every result, so the group tables are
	// left out (serve).
	OwnTables bool
	Extra     []Table
	Notes     []string
	// Compare names two schedulers, work stealing first, whose throughput
	// ratio the charts draw across the section's groups (tiny's weights).
	Compare [2]string
	// usable is how many cores a spin loop could use when the section's
	// first round started.
	usable float64
}

// Report is everything one invocation of fjbench measured.
type Report struct {
	Env      Env
	Sections []Section
}

// modes are the -mode names of fjkit's two schedulers.
var modes = map[string]struct {
	mode forkjoin.Mode
	doc  string
}{
	"ws":     {forkjoin.WorkStealing, "fjkit, work stealing"},
	"shared": {forkjoin.SharedQueue, "fjkit, one shared mutex queue"},
}

// schedulers says what each scheduler name stands for: the one list of them.
// fjkit's rows are named mode-variant ("ws-spawn"): the mode from modes, the
// variant (how the scenario uses the pool) from here.
var schedulers = map[string]string{
	"serial":      "serial code, no goroutines",
	"slices.Sort": "slices.Sort, serial",
	"gonum":       "gonum (*mat.Dense).Mul",
	"goroutines":  "one goroutine per task, sync.WaitGroup",
	"chanpool":    "fixed pool of goroutines reading an unbuffered channel",
	"errgroup":    "errgroup.Group with SetLimit(workers)",
	"static":      "no scheduler: worker k runs tasks k, k+P, …",
	"port-ws":     "the experiment's per-worker queues, ported: tasks dealt out first, steal half when dry",
	"port-shared": "the experiment's one global mutex queue, ported: every task queued first",
	"par-for":     "par.For nested in the default pool's tasks",
	// package par's sorts, each called from a task of a work-stealing pool
	// of the row's workers, on which it then runs.
	"par.Sort":           "par.Sort: radix sort for integers",
	"par.SortFunc":       "par.SortFunc with cmp.Compare: parallel pattern-defeating quicksort",
	"par.SortStableFunc": "par.SortStableFunc with cmp.Compare: parallel merge sort",
	"par.SortByKey":      "par.SortByKey, the element its own key: stable radix sort",
	// The variants of fjkit's rows.
	"spawn":       "one producer, a Func.Go loop in a Scope",
	"spawns":      "a Spawn per child, its Futures joined",
	"range":       "ForRange, grain 1",
	"for":         "For, adaptive grain",
	"scope-go":    "one Scope, an s.Go per child",
	"func-go":     "one Scope, a Func.Go per child",
	"reducew":     "ReduceW over every node's children",
	"fork-inline": "Func.Fork per child beside Worker.Inline",
	"join-inline": "Func.Join over halves of the child list; a serial loop where Worker.Inline says true",
	"merge":       "merge sort",
	"quick":       "quicksort",
	"func":        "Func.Join",
	"inline":      "Func.Join behind Worker.Inline",
	"closure":     "closure Join",
}

// schedulerDoc says what a scheduler name stands for; "" for a name in
// neither list.
func schedulerDoc(name string) string {
	mode, variant, _ := strings.Cut(name, "-")
	m, ok := modes[mode]
	switch {
	case !ok:
		return schedulers[name]
	case variant == "":
		return m.doc
	case schedulers[variant] == "":
		return ""
	}
	return m.doc + ": " + schedulers[variant]
}
