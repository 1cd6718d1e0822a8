package main

import (
	"strings"
	"time"
)

// Param is one named input of a scenario (weight=4, n=35). Params stay in the
// order the scenario gives them so that table titles, benchmark names and CSV
// cells come out the same on every run, which benchstat and the golden files need.
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
	Counters  []Counters // one per timed run; nil for schedulers without counters
}

// group names the table a result belongs in: results with the same scenario
// and parameters did the same work and must agree on the checksum.
func (r *Result) group() string {
	var b strings.Builder
	b.WriteString(r.Scenario)
	for _, p := range r.Params {
		b.WriteByte(' ')
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(p.Value)
	}
	return b.String()
}

// param returns the value of the parameter key, or "".
func (r *Result) param(key string) string {
	for _, p := range r.Params {
		if p.Key == key {
			return p.Value
		}
	}
	return ""
}

// Section is what one subcommand reports: its results, the views beyond the
// per-scheduler tables (the seed's weight sweep), footnotes, and a reading of
// the numbers in words.
type Section struct {
	Name    string
	Results []Result
	// OwnTables says that Extra shows every result, so the per-scheduler
	// tables are left out (the seed puts all its schedulers in one table).
	OwnTables bool
	Extra     []Table
	Notes     []string
	Summary   []string
	// usable is how many cores a spin loop could use when the section's
	// first round started (seed: its reading cautions on a busy machine).
	usable float64
}

// Report is everything one invocation of fjbench measured.
type Report struct {
	Env      Env
	Sections []Section
}

// results returns every result of the report in order.
func (r *Report) results() []Result {
	var out []Result
	for _, s := range r.Sections {
		out = append(out, s.Results...)
	}
	return out
}
