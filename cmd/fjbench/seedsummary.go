package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The seed scenario's summary in words. Every figure and every verdict in it
// is computed from the results; nothing is fixed text but the connecting
// words, and nothing is claimed that the numbers contradict.

// ourPattern pairs fjkit's two modes in one spawn pattern with the words
// that name it and what it does per task.
type ourPattern struct {
	ws, shared string
	name       string // "one producer (a Func.Go loop in a Scope)"
	short      string // "one producer"
	perTask    string // what the runtime does for every task, inside the clock
}

var ourPatterns = []ourPattern{
	{"ws", "shared", "one producer (a Func.Go loop in a Scope)", "one producer", "spawning each task with Func.Go"},
	{"ws-range", "shared-range", "a fixed-grain loop (ForRange, grain 1)", "ForRange grain 1", "running the range piece by piece, split only for a hungry worker (work stealing) or every piece queued (shared queue)"},
	{"ws-for", "shared-for", "recursive split (For, adaptive grain)", "For adaptive grain", "splitting the range adaptively and calling the body per task"},
}

// levelRatio bounds the throughput ratios read as "level": on a shared
// 2-core machine runs differ by several percent, so closer than 15% is no
// verdict either way.
const levelRatio = 1.15

// gentle is the least share of its throughput at the cores' worker count a
// scheduler should keep with more workers than cores.
const gentle = 0.8

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

// seedView is the main weight's results with the worker counts that the
// summary compares: the fewest (lo), the most within the cores (wc) and
// the most (hi).
type seedView struct {
	m           seedLookup
	weight      int
	lo, wc, hi  int
	cores       int
	serialPerNs float64 // the serial loop's time per task
}

func newSeedView(rs []Result, weight, cores int) (*seedView, bool) {
	v := &seedView{m: newSeedLookup(rs), weight: weight, cores: cores}
	var ws []int
	for i := range rs {
		r := &rs[i]
		if r.param("weight") == strconv.Itoa(weight) && r.Workers > 0 && !slices.Contains(ws, r.Workers) {
			ws = append(ws, r.Workers)
		}
	}
	if len(ws) < 2 {
		return nil, false
	}
	slices.Sort(ws)
	v.lo, v.hi, v.wc = ws[0], ws[len(ws)-1], ws[0]
	for _, w := range ws {
		if w <= cores {
			v.wc = w
		}
	}
	if s := v.m.get(weight, "serial", 0); s != nil && s.Work > 0 {
		v.serialPerNs = medianNs(s) / s.Work
	}
	return v, true
}

func (v *seedView) get(sched string, w int) *Result { return v.m.get(v.weight, sched, w) }

// rate is a scheduler's throughput at w workers; 0 when it was not measured.
func (v *seedView) rate(sched string, w int) float64 {
	if r := v.get(sched, w); r != nil {
		return r.rate()
	}
	return 0
}

func (v *seedView) has(sched string, ws ...int) bool {
	for _, w := range ws {
		if v.get(sched, w) == nil {
			return false
		}
	}
	return true
}

// counters are a scheduler's median counters at w workers.
func (v *seedView) counters(sched string, w int) Counters {
	var c Counters
	if r := v.get(sched, w); r != nil {
		c, _ = medianCounters(r.Counters)
	}
	return c
}

// perTask is what a scheduler adds to each task at w workers: its time per
// task less the serial loop's.
func (v *seedView) perTask(sched string, w int) float64 {
	r := v.get(sched, w)
	if r == nil || r.Work == 0 {
		return math.NaN()
	}
	return max(0, medianNs(r)/r.Work-v.serialPerNs)
}

// timeRatio is a's time over b's, at wa and wb workers.
func (v *seedView) timeRatio(a string, wa int, b string, wb int) float64 {
	return medianNs(v.get(a, wa)) / medianNs(v.get(b, wb))
}

// scales reports whether sched got faster by more than the noise from lo
// to wc workers; it needs a worker count above lo within the cores.
func (v *seedView) scales(sched string) bool {
	return v.wc > v.lo && v.rate(sched, v.wc) >= levelRatio*v.rate(sched, v.lo)
}

// claimFails checks the seeds' claim on one pair of schedulers — stealing
// gets faster with workers up to the cores, and at the most workers it is
// ahead of the shared queue by more than the noise — and says why it does
// not hold; nil when it does.
func (v *seedView) claimFails(ws, shared string) []string {
	var why []string
	switch {
	case v.wc == v.lo:
		why = append(why, fmt.Sprintf("no worker count above %d within the %d cores was measured, so scaling cannot be judged", v.lo, v.cores))
	case !v.scales(ws):
		why = append(why, fmt.Sprintf("work stealing did not get faster from %d to %d workers (%s)",
			v.lo, v.wc, fmtRatio(v.rate(ws, v.wc)/v.rate(ws, v.lo))))
	}
	if r := v.rate(ws, v.hi) / v.rate(shared, v.hi); r < levelRatio {
		why = append(why, fmt.Sprintf("at %d workers it was not ahead of the shared queue (%s its throughput)", v.hi, fmtRatio(r)))
	}
	return why
}

// scaling describes a scheduler's throughput from lo to wc workers and, when
// more workers than cores were measured, at hi.
func (v *seedView) scaling(sched string) string {
	lo, wc := v.rate(sched, v.lo), v.rate(sched, v.wc)
	s := fmt.Sprintf("went from %s tasks/s with %s to %s with %d (%s%s)",
		fmtSI(lo), workersWord(v.lo), fmtSI(wc), v.wc, fmtRatio(wc/lo), gain(wc/lo))
	if v.hi > v.wc {
		s += fmt.Sprintf(", and kept %s of that with %d workers", fmtRatio(v.rate(sched, v.hi)/wc), v.hi)
	}
	return s
}

// seedMachine is what the summary needs to know of the machine: how many
// cores the process may use (worker counts above it cannot add speed) and
// how many of them a spin loop could actually use just before the scenario
// (0: not measured).
type seedMachine struct {
	cores  int
	usable float64
}

// seedSummary reads the seed tables in words, one paragraph each: a caution
// when the machine was busy, the seeds' own design in this run, our runtime
// in each spawn pattern, where our runtime loses and why, the weight sweep,
// and what it all shows.
func seedSummary(rs []Result, weights, sweep []int, mc seedMachine) []string {
	var out []string
	v, ok := newSeedView(rs, weights[0], mc.cores)
	if ok && mc.usable > 0 && mc.usable < 0.85*float64(v.wc) {
		out = append(out, fmt.Sprintf("Caution: just before this scenario a spin loop could use only %.2f of the %d cores "+
			"(other jobs share the machine), so up to %d workers had fewer cores than workers, and every speed-up below "+
			"understates what a scheduler can do on a quiet machine.", mc.usable, mc.cores, v.wc))
	}
	if ok {
		for _, p := range []string{v.seedsParagraph(), v.oursParagraph(), v.lossParagraph()} {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	out = append(out, sweepParagraphs(rs, weights, sweep)...)
	if ok {
		if p := v.closingParagraph(); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// closingParagraph says in two sentences what the main table shows: whether
// the seeds' claim holds for their design here, in how many of our spawn
// patterns it holds, and how far from the seeds' port our runtime was.
func (v *seedView) closingParagraph() string {
	if !v.has("seeds-ws", v.lo, v.wc, v.hi) || !v.has("seeds-shared", v.lo, v.wc, v.hi) {
		return ""
	}
	var yes, no []string
	worst, best := 0.0, math.Inf(1)
	var worstAt, bestAt string
	for _, p := range ourPatterns {
		if !v.has(p.ws, v.lo, v.wc, v.hi) || !v.has(p.shared, v.lo, v.wc, v.hi) {
			continue
		}
		if len(v.claimFails(p.ws, p.shared)) == 0 {
			yes = append(yes, p.short)
		} else {
			no = append(no, p.short)
		}
		for _, w := range []int{v.lo, v.wc, v.hi} {
			r := v.timeRatio(p.ws, w, "seeds-ws", w)
			at := fmt.Sprintf("%s, %s", p.short, workersWord(w))
			if r > worst {
				worst, worstAt = r, at
			}
			if r < best {
				best, bestAt = r, at
			}
		}
	}
	if len(yes)+len(no) == 0 {
		return ""
	}
	s := "In short: the seeds' claim holds for their own design on this machine"
	if len(v.claimFails("seeds-ws", "seeds-shared")) > 0 {
		s = "In short: on this machine the seeds' claim does not hold even for their own design"
	}
	s += fmt.Sprintf("; our work stealing shows it in %d of %d spawn patterns", len(yes), len(yes)+len(no))
	var which []string
	if len(yes) > 0 {
		which = append(which, "in: "+strings.Join(yes, ", "))
	}
	if len(no) > 0 {
		which = append(which, "not in: "+strings.Join(no, ", "))
	}
	s += " (" + strings.Join(which, "; ") + ")"
	return s + fmt.Sprintf(". Against the seeds' work-stealing port it took from %s their time (%s) to %s (%s).",
		fmtRatio(best), bestAt, fmtRatio(worst), worstAt)
}

// seedsParagraph: do the seeds' two schedulers, ported, show the seeds'
// claim on this machine?
func (v *seedView) seedsParagraph() string {
	if !v.has("seeds-ws", v.lo, v.wc, v.hi) || !v.has("seeds-shared", v.lo, v.wc, v.hi) {
		return ""
	}
	wsC, shC := v.counters("seeds-ws", v.hi), v.counters("seeds-shared", v.hi)
	s := fmt.Sprintf("The seeds' own design, ported to Go, with every task dealt out before the clock starts: "+
		"its work stealing %s, with %d steals at %d workers; its global queue %s, finding its lock held %.2f times "+
		"per 1000 tasks at %d workers. At %d workers its work stealing delivered %s the global queue's throughput.",
		v.scaling("seeds-ws"), wsC.Steals, v.hi, v.scaling("seeds-shared"),
		1000*float64(shC.LockWaits)/v.get("seeds-shared", v.hi).Work, v.hi,
		v.hi, fmtRatio(v.rate("seeds-ws", v.hi)/v.rate("seeds-shared", v.hi)))
	if why := v.claimFails("seeds-ws", "seeds-shared"); len(why) > 0 {
		return s + " So in this run even the seeds' design does not show their claim: " + strings.Join(why, "; ") + "."
	}
	return s + " So the seeds' claim, that per-worker queues with steal-half scale where one mutex queue does not, " +
		"holds for their own design in this run."
}

// oursParagraph: does our runtime show the seeds' claim, pattern by pattern?
func (v *seedView) oursParagraph() string {
	var parts []string
	for _, p := range ourPatterns {
		if !v.has(p.ws, v.lo, v.wc, v.hi) {
			continue
		}
		part := fmt.Sprintf("- %s: work stealing %s", upper(p.name), v.scaling(p.ws))
		if v.has("seeds-ws", v.lo, v.wc) {
			part += fmt.Sprintf("; it took %s the seeds' work-stealing port's time at %d workers (%s at %d)",
				fmtRatio(v.timeRatio(p.ws, v.wc, "seeds-ws", v.wc)), v.wc,
				fmtRatio(v.timeRatio(p.ws, v.lo, "seeds-ws", v.lo)), v.lo)
		}
		if !v.has(p.shared, v.lo, v.wc, v.hi) {
			parts = append(parts, part+".")
			continue
		}
		part += fmt.Sprintf(". Against our shared queue at %d workers: %s (%s)", v.hi,
			fmtRatio(v.rate(p.ws, v.hi)/v.rate(p.shared, v.hi)), verdict(v.rate(p.ws, v.hi)/v.rate(p.shared, v.hi)))
		if v.has("seeds-ws", v.hi) && v.has("seeds-shared", v.hi) {
			part += fmt.Sprintf("; the seeds' design: %s", fmtRatio(v.rate("seeds-ws", v.hi)/v.rate("seeds-shared", v.hi)))
		}
		if why := v.claimFails(p.ws, p.shared); len(why) > 0 {
			part += ". This pattern does not show the seeds' claim: " + strings.Join(why, "; ") + "."
		} else {
			part += ". This pattern shows the seeds' claim: reproduced."
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Our runtime, which creates every task while the clock runs:\n\n" + strings.Join(parts, "\n")
}

// lossParagraph: where does our runtime lose, to the seeds' ports, to the
// Go idioms or to itself with more workers, and what do the numbers say
// the time went to?
func (v *seedView) lossParagraph() string {
	var parts []string
	seedsWS := v.has("seeds-ws", v.lo, v.wc)
	for _, p := range ourPatterns {
		if !v.has(p.ws, v.lo, v.wc, v.hi) {
			continue
		}
		name := upper(p.name)
		atLo := v.timeRatio(p.ws, v.lo, "seeds-ws", v.lo)
		if seedsWS && v.lo == 1 && atLo >= levelRatio {
			parts = append(parts, fmt.Sprintf("- %s, 1 worker: %s the seeds' port's time. Each task costs %s on top of "+
				"the serial loop, against %s in the seeds' port; nothing contends with one worker, so this is our runtime's "+
				"own cost of %s, inside the clock, where the seeds deal the tasks out before it starts.",
				name, fmtRatio(atLo), fmtCost(v.perTask(p.ws, 1)), fmtCost(v.perTask("seeds-ws", 1)), p.perTask))
		}
		up := v.rate(p.ws, v.wc) / v.rate(p.ws, v.lo)
		atWC := v.timeRatio(p.ws, v.wc, "seeds-ws", v.wc)
		if v.wc > v.lo && (up < 1/levelRatio || (seedsWS && atWC >= levelRatio && atWC >= atLo*levelRatio)) {
			c := v.counters(p.ws, v.wc)
			part := fmt.Sprintf("- %s, %d workers:", name, v.wc)
			if up < 1/levelRatio {
				part += fmt.Sprintf(" slower than with %d (%s the throughput) although the %d cores had room;", v.lo, fmtRatio(up), v.cores)
			}
			if seedsWS && atWC >= levelRatio && atWC >= atLo*levelRatio {
				sc := v.counters("seeds-ws", v.wc)
				part += fmt.Sprintf(" %s the seeds' port's time, against %s with %d. The gap grew with the workers, so beyond "+
					"its cost per task our runtime paid for coordinating them: %d steals moving %d tasks and %d steal attempts, "+
					"against the seeds' %d steals moving %d tasks.",
					fmtRatio(atWC), fmtRatio(atLo), v.lo, c.Steals, c.Stolen, c.StealAttempts, sc.Steals, sc.Stolen)
			} else {
				part += fmt.Sprintf(" it made %d steals moving %d tasks, %d steal attempts and %d parks a run.",
					c.Steals, c.Stolen, c.StealAttempts, c.Parks)
			}
			parts = append(parts, part)
		}
		if v.hi > v.wc {
			if keep := v.rate(p.ws, v.hi) / v.rate(p.ws, v.wc); keep < gentle {
				c := v.counters(p.ws, v.hi)
				part := fmt.Sprintf("- %s, %d workers on %d cores: %s of its %d-worker throughput", name, v.hi, v.cores, fmtRatio(keep), v.wc)
				if v.has("seeds-ws", v.hi, v.wc) {
					part += fmt.Sprintf(" (the seeds' port: %s)", fmtRatio(v.rate("seeds-ws", v.hi)/v.rate("seeds-ws", v.wc)))
				}
				part += fmt.Sprintf(". The workers beyond the cores take turns on them with those that have work: "+
					"%d steal attempts, %d parks and %d wake-ups a run, against %d, %d and %d with %d workers.",
					c.StealAttempts, c.Parks, c.Wakeups, v.counters(p.ws, v.wc).StealAttempts, v.counters(p.ws, v.wc).Parks,
					v.counters(p.ws, v.wc).Wakeups, v.wc)
				parts = append(parts, part)
			}
		}
		if v.lo == 1 && v.has(p.shared, 1) && v.has("seeds-shared", 1) {
			if r := v.timeRatio(p.shared, 1, "seeds-shared", 1); r >= levelRatio {
				parts = append(parts, fmt.Sprintf("- Our shared queue, %s, 1 worker: %s the seeds' global queue's time, "+
					"%s a task on top of the serial loop against %s, with %d lock waits. That cost is not the lock's, "+
					"so with more workers our shared rows measure this overhead spread over the workers as much as "+
					"contention on the lock, and their ws/shared ratios are no measure of what one mutex queue costs.",
					p.name, fmtRatio(r), fmtCost(v.perTask(p.shared, 1)), fmtCost(v.perTask("seeds-shared", 1)),
					v.counters(p.shared, 1).LockWaits))
			}
		}
	}
	// A Go idiom that beats every work-stealing pattern at the cores.
	best, bestName := 0.0, ""
	for _, p := range ourPatterns {
		if r := v.rate(p.ws, v.wc); r > best {
			best, bestName = r, p.ws
		}
	}
	for _, idiom := range []struct {
		sched string
		w     int
	}{{"chanpool", v.wc}, {"errgroup", v.wc}, {"goroutines", 0}} {
		if r := v.rate(idiom.sched, idiom.w); best > 0 && r >= levelRatio*best {
			parts = append(parts, fmt.Sprintf("- %s beat every work-stealing pattern at %d workers: %s tasks/s against %s for %s.",
				idiom.sched, v.wc, fmtSI(r), fmtSI(best), bestName))
		}
	}
	if len(parts) == 0 {
		return "Where our runtime loses: nowhere by more than 15% in this run — no pattern was slower than the seeds' " +
			"port, got slower with workers added within the cores, lost more than a fifth of its throughput with " +
			"more workers than cores, or was beaten by a Go idiom."
	}
	return "Where our runtime loses, and what the numbers say the time went to:\n\n" + strings.Join(parts, "\n")
}

// sweepParagraphs read the weight sweep: which regime each weight is in,
// and whether the ws/shared ratio falls as the tasks get heavier, for our
// single-producer rows and for the seeds' design.
func sweepParagraphs(rs []Result, weights, sweep []int) []string {
	m := newSeedLookup(rs)
	var out []string
	var parts []string
	var ratios, seedsRatios []float64
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
			part += fmt.Sprintf("; with one worker, handing it out costs %s on the shared queue and %s with work stealing",
				fmtCost(osh), fmtCost(ows))
		}
		part += fmt.Sprintf(": %s. With %d workers work stealing delivered %s the shared queue's throughput (%s)",
			regime(compute, osh, ows), hi, fmtRatio(ratio), verdict(ratio))
		if ss, sw := m.get(weight, "seeds-shared", hi), m.get(weight, "seeds-ws", hi); ss != nil && sw != nil {
			sr := sw.rate() / ss.rate()
			seedsRatios = append(seedsRatios, sr)
			part += fmt.Sprintf("; the seeds' design %s", fmtRatio(sr))
		}
		parts = append(parts, part+".")
	}
	if len(parts) > 0 {
		out = append(out, "By weight (single producer):\n\n"+strings.Join(parts, "\n"))
	}
	if len(ratios) >= 2 {
		first, last := fmtRatio(ratios[0]), fmtRatio(ratios[len(ratios)-1])
		var s string
		// Our shared queue's time per task at one worker, where its lock is
		// never contended, against the seeds' global queue's: far above it,
		// the ratios measure that overhead, not the frequency of locking.
		sharedOver := 1.0
		if sh, ss := m.get(weights[0], "shared", 1), m.get(weights[0], "seeds-shared", 1); sh != nil && ss != nil {
			sharedOver = medianNs(sh) / sh.Work / (medianNs(ss) / ss.Work)
		}
		switch {
		case falling(ratios) && ratios[0] >= levelRatio && sharedOver >= levelRatio:
			s = fmt.Sprintf("Our ws/shared ratio falls from %s to %s as the tasks get heavier, but at one worker, where its "+
				"lock is never contended, our shared queue took %s the seeds' global queue's time per task at weight %d. "+
				"So the fall shows that overhead spread over heavier tasks, not the frequency of coordination on a lock, "+
				"and the run does not show the seeds' conclusion for our runtime.", first, last, fmtRatio(sharedOver), weights[0])
		case falling(ratios) && ratios[0] >= levelRatio:
			s = fmt.Sprintf("The advantage of our work stealing falls from %s to %s as the tasks get heavier. "+
				"The shared queue holds its lock for the same few instructions at every weight; what the weight changes is "+
				"how often per second the workers must take it. So the shared design's cost is the frequency of "+
				"coordination, not the lock's hold time — the seeds' conclusion, reproduced.", first, last)
		case ratios[0] < levelRatio:
			s = fmt.Sprintf("At the lightest weight our work stealing was not ahead of our shared queue (%s), so there is no "+
				"advantage to watch fall as the tasks get heavier (%s at the heaviest), and the run does not show the seeds' "+
				"conclusion for our runtime.", first, last)
		default:
			s = "In this run our ws/shared ratio does not fall clearly as the weight grows (" + first + " to " + last +
				"), so the run does not by itself show that the frequency of coordination, rather than the lock's hold " +
				"time, is the shared design's cost; compare the spread columns, and rerun with more -runs on a quieter machine."
		}
		if len(seedsRatios) == len(ratios) {
			s += fmt.Sprintf(" The seeds' own design went from %s to %s", fmtRatio(seedsRatios[0]), fmtRatio(seedsRatios[len(seedsRatios)-1]))
			if falling(seedsRatios) && seedsRatios[0] >= levelRatio {
				s += ", falling as their conclusion says."
			} else {
				s += ", which does not show their conclusion."
			}
		}
		out = append(out, s)
	}
	return out
}

// falling says a sequence of ratios clearly falls: lower by more than the
// noise at the end than at the start, and no step up larger than the noise.
func falling(ratios []float64) bool {
	f := ratios[0] >= ratios[len(ratios)-1]*levelRatio
	for i := 1; i < len(ratios); i++ {
		f = f && ratios[i] <= ratios[i-1]*levelRatio
	}
	return f
}

// fmtCost shows a cost per task, "about 12.2 ns"; below 0.1 ns it is
// within the noise of the serial loop it was measured against.
func fmtCost(ns float64) string {
	if ns < 0.1 {
		return "less than 0.1 ns"
	}
	return "about " + fmtDuration(ns)
}

// workersWord is "1 worker" or "n workers".
func workersWord(n int) string {
	if n == 1 {
		return "1 worker"
	}
	return strconv.Itoa(n) + " workers"
}

// upper capitalizes the first letter of s.
func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
