package main

import (
	"slices"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// summary describes the timed runs of one result, in nanoseconds.
type summary struct{ Median, Min, Max float64 }

// summarize reduces the runs to a median and a range. The median, not the
// mean, is the headline because a shared machine produces the odd slow run
// from outside interference, and one outlier must not move the figure.
func summarize(ds []time.Duration) summary {
	if len(ds) == 0 {
		return summary{}
	}
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d.Nanoseconds())
	}
	return summary{Median: median(xs), Min: slices.Min(xs), Max: slices.Max(xs)}
}

// median of xs (which it sorts); with an even count, the mean of the middle two.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
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

// medianNs is a result's median time; 0 for a missing result.
func medianNs(r *Result) float64 {
	if r == nil {
		return 0
	}
	return summarize(r.Durations).Median
}

// rate is units of work per second at the median time; 0 for a missing result.
func (r *Result) rate() float64 {
	if m := medianNs(r); m > 0 {
		return r.Work / (m / 1e9)
	}
	return 0
}

// counter is the median of one counter (read by f) over the result's runs,
// so that one run that happened to steal a lot does not stand for the
// others; ok is false for a result without counters.
func (r *Result) counter(f func(forkjoin.Stats) uint64) (c uint64, ok bool) {
	if r == nil || len(r.Counters) == 0 {
		return 0, false
	}
	xs := make([]float64, len(r.Counters))
	for i, s := range r.Counters {
		xs[i] = float64(f(s))
	}
	return uint64(median(xs)), true
}

func steals(s forkjoin.Stats) uint64    { return s.Steals }
func lockWaits(s forkjoin.Stats) uint64 { return s.LockWaits }

// speedup is a result's speed-up over the same scheduler at the fewest
// workers measured (Self) and over the serial baseline of its group
// (Serial); selfBase and serialBase are the indices of those results, -1
// where there is none.
type speedup struct {
	Self, Serial         float64
	selfBase, serialBase int
}

// speedups gives, for each result, its speed-up over the same scheduler at
// the fewest workers measured (1 unless -workers says otherwise) and over the
// serial baseline of its group; 0 where there is nothing to compare with.
func speedups(rs []Result) []speedup {
	type key struct{ group, sched string }
	base := map[key]int{} // at the fewest workers
	serial := map[string]int{}
	for i := range rs {
		r := &rs[i]
		if isSerial(r.Scheduler) {
			serial[r.group()] = i
		}
		k := key{r.group(), r.Scheduler}
		if b, ok := base[k]; r.Workers > 0 && (!ok || r.Workers < rs[b].Workers) {
			base[k] = i
		}
	}
	out := make([]speedup, len(rs))
	for i := range rs {
		r := &rs[i]
		out[i].selfBase, out[i].serialBase = -1, -1
		m := medianNs(r)
		if m == 0 {
			continue
		}
		if b, ok := base[key{r.group(), r.Scheduler}]; ok && r.Workers > 0 {
			out[i].Self, out[i].selfBase = medianNs(&rs[b])/m, b
		}
		if s, ok := serial[r.group()]; ok {
			out[i].Serial, out[i].serialBase = medianNs(&rs[s])/m, s
		}
	}
	return out
}

// isSerial reports whether sched is a group's serial reference: plain serial
// code, or slices.Sort for the sort scenario.
func isSerial(sched string) bool { return sched == "serial" || sched == "slices.Sort" }
