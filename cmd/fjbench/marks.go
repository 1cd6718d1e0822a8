package main

import (
	"fmt"
	"strconv"
	"strings"
)

// A table marks what a reader should not take at face value: a time whose
// runs disagree, a time measured while other work took the cores it needed,
// a ratio that rests on such a time, and a worker count above the cores.

// unreliableSpread is the largest spread (± half the range of the runs,
// relative to the median) a time may have and stand unmarked: on a quiet
// machine the runs of every scenario lie within a few percent.
const unreliableSpread = 0.15

// usableShare is how much of the cores a row needs a spin loop must find
// usable before and after its runs for the row to stand unmarked; the rest
// is the spin loop's own noise.
const usableShare = 0.85

// coresOf is how many cores the report's runs could use: the machine's
// CPUs, or GOMAXPROCS where it is lower.
func coresOf(env Env) int {
	c := env.Cores
	if env.GOMAXPROCS > 0 && (c == 0 || env.GOMAXPROCS < c) {
		c = env.GOMAXPROCS
	}
	return max(c, 1)
}

// coresWanted is how many cores a row's scheduler can keep busy: its
// workers up to the cores, one for serial code, and every core for the
// baselines without a worker count (a goroutine per task).
func coresWanted(r *Result, cores int) int {
	switch {
	case r.Workers > 0:
		return min(r.Workers, cores)
	case isSerial(r.Scheduler):
		return 1
	}
	return cores
}

// unreliable says why a row's time is not to be trusted, "" when nothing
// says so: its runs lie more than unreliableSpread apart, or a spin loop
// found fewer cores usable around its runs than the row needs.
func unreliable(r *Result, cores int) string {
	if r == nil || len(r.Durations) == 0 {
		return ""
	}
	var why []string
	if s := summarize(r.Durations).spread(); s > unreliableSpread {
		why = append(why, "runs "+fmtSpread(s)+" apart")
	}
	if want := coresWanted(r, cores); r.Usable > 0 && r.Usable < usableShare*float64(want) {
		cores := "cores"
		if want == 1 {
			cores = "core"
		}
		why = append(why, fmt.Sprintf("%.2f of the %d %s it needs usable", r.Usable, want, cores))
	}
	if len(why) == 0 {
		return ""
	}
	return "unreliable: " + strings.Join(why, ", ")
}

// oversubscribedMark follows a worker count above the cores.
const oversubscribedMark = " (oversubscribed)"

// workersCell shows a worker count, marked when it exceeds the cores: the
// workers then take turns on them, and the row measures that.
func workersCell(workers, cores int) string {
	if workers <= 0 {
		return "—"
	}
	s := strconv.Itoa(workers)
	if workers > cores {
		s += oversubscribedMark
	}
	return s
}

// doubtfulMark follows a ratio whose numerator or denominator is a time
// marked unreliable.
const doubtfulMark = " ?"

// ratioCell shows a ratio of two rows' times, marked doubtful when either
// row is unreliable.
func ratioCell(x float64, a, b *Result, cores int) string {
	s := fmtRatio(x)
	if s != "—" && (unreliable(a, cores) != "" || unreliable(b, cores) != "") {
		s += doubtfulMark
	}
	return s
}

// marksLegend explains the marks, for a machine of the given cores.
func marksLegend(cores int) string {
	return fmt.Sprintf("Marks: \"unreliable\" in the marks column: the row's runs lie more than ±%.0f%% apart, or a spin loop "+
		"just before or after them could use less than %.0f%% of the cores the row needs (other work was running); "+
		"\"?\" after a ratio: one of the two times it divides is unreliable; \"(oversubscribed)\": more workers than "+
		"the machine's %d cores, which take turns on them.", 100*unreliableSpread, 100*usableShare, cores)
}
