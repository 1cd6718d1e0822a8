package main

import (
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
)

// summary describes the timed runs of one result, in nanoseconds.
type summary struct {
	Median, Min, Max, Mean, StdDev float64
}

// summarize reduces the runs to a median and a spread. The median, not the
// mean, is the headline because a shared 2-core machine produces the odd slow
// run from outside interference, and one outlier must not move the figure.
func summarize(ds []time.Duration) summary {
	if len(ds) == 0 {
		return summary{}
	}
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d.Nanoseconds())
	}
	slices.Sort(xs)
	var s summary
	s.Median = median(xs)
	s.Min, s.Max = xs[0], xs[len(xs)-1]
	if len(xs) > 1 {
		s.Mean, s.StdDev = stat.MeanStdDev(xs, nil)
	} else {
		s.Mean = xs[0]
	}
	return s
}

// median of sorted xs; with an even count, the mean of the middle two (the
// empirical quantile alone would pick the lower one).
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return stat.Quantile(0.5, stat.Empirical, xs, nil)
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// spread is the relative half-range of the runs around the median, the
// "±" shown beside a time: how far apart the fastest and slowest runs were.
func (s summary) spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return (s.Max - s.Min) / 2 / s.Median
}

// rate is units of work per second at the median time.
func (r *Result) rate() float64 {
	m := summarize(r.Durations).Median
	if m == 0 {
		return 0
	}
	return r.Work / (m / 1e9)
}

// speedup is a result's speed-up over the same scheduler at the fewest
// workers measured (Self) and over the serial baseline of its group (Serial).
type speedup struct{ Self, Serial float64 }

// speedups gives, for each result, its speed-up over the same scheduler at
// the fewest workers measured (1 unless -workers says otherwise) and over the
// serial baseline of its group; 0 where there is nothing to compare with.
func speedups(rs []Result) []speedup {
	type key struct{ group, sched string }
	base := map[key]float64{} // median at the fewest workers
	baseW := map[key]int{}    // that worker count
	serial := map[string]float64{}
	for i := range rs {
		r := &rs[i]
		m := summarize(r.Durations).Median
		if isSerial(r.Scheduler) {
			serial[r.group()] = m
		}
		if r.Workers == 0 {
			continue
		}
		k := key{r.group(), r.Scheduler}
		if w, ok := baseW[k]; !ok || r.Workers < w {
			baseW[k], base[k] = r.Workers, m
		}
	}
	out := make([]speedup, len(rs))
	for i := range rs {
		r := &rs[i]
		m := summarize(r.Durations).Median
		if m == 0 {
			continue
		}
		if r.Workers > 0 {
			out[i].Self = base[key{r.group(), r.Scheduler}] / m
		}
		if s, ok := serial[r.group()]; ok {
			out[i].Serial = s / m
		}
	}
	return out
}

// isSerial reports whether sched is a group's serial reference: plain serial
// code, or slices.Sort for the sort scenario.
func isSerial(sched string) bool { return sched == "serial" || sched == "slices.Sort" }
