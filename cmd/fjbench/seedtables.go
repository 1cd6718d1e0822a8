package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// The seed scenario's tables: the one table of every scheduler at the main
// weight, in the seeds' shape, and the weight sweep. seedsummary.go reads
// the same results in words.

// seedRow is one scheduler of the seed table: its name and how its tasks
// reach the workers, which is what the rows differ in.
type seedRow struct{ sched, how string }

// seedRows lists the seed table's schedulers in order.
var seedRows = []seedRow{
	{"seeds-ws", "dealt up front to per-worker queues; steal half when dry"},
	{"seeds-shared", "all queued up front in one mutex queue"},
	{"ws", "one producer: Func.Go loop in a Scope"},
	{"ws-range", "ForRange, grain 1: a loop, split on demand"},
	{"ws-for", "recursive split: For, adaptive grain"},
	{"shared", "one producer: Func.Go loop in a Scope"},
	{"shared-range", "ForRange, grain 1: every piece queued"},
	{"shared-for", "recursive split: For, adaptive grain"},
	{"chanpool", "one producer: send on an unbuffered channel"},
	{"errgroup", "one producer: g.Go with SetLimit(workers)"},
	{"goroutines", "one producer: a goroutine per task"},
	{"static", "dealt up front: worker k runs k, k+P, …; no scheduler"},
	{"serial", "one loop, no goroutines"},
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

// medianNs is a result's median time, or NaN for a missing result.
func medianNs(r *Result) float64 {
	if r == nil {
		return math.NaN()
	}
	return summarize(r.Durations).Median
}

// seedTable is the seeds' table shape for every scheduler at the main
// weight: one row per scheduler and worker count, saying how the tasks reach
// the workers, with the time beside the seeds' work-stealing port's.
func seedTable(rs []Result, weight int) Table {
	m := newSeedLookup(rs)
	sp := speedups(rs)
	n := 0.0
	var ws []int
	for i := range rs {
		r := &rs[i]
		if r.param("weight") != strconv.Itoa(weight) {
			continue
		}
		n = r.Work
		if r.Workers > 0 && !slices.Contains(ws, r.Workers) {
			ws = append(ws, r.Workers)
		}
	}
	slices.Sort(ws)
	index := map[*Result]int{}
	for i := range rs {
		index[&rs[i]] = i
	}
	t := Table{
		Title: fmt.Sprintf("seed weight=%d — %.0f tasks, every scheduler (time: median of the runs)", weight, n),
		Header: []string{"scheduler", "how tasks reach the workers", "workers", "time", "±", "tasks/s", "speed-up",
			"time ÷ seeds-ws", "steals", "lock waits"},
		Right: []bool{false, false, true, true, true, true, true, true, true, true},
	}
	for _, row := range seedRows {
		for _, w := range append([]int{0}, ws...) {
			r := m.get(weight, row.sched, w)
			if r == nil {
				continue
			}
			sum := summarize(r.Durations)
			cells := []string{row.sched, row.how, "—", fmtDuration(sum.Median), fmtSpread(sum.spread()), fmtSI(r.rate()), "", "", "", ""}
			if w > 0 {
				cells[2] = strconv.Itoa(w)
				cells[6] = fmtRatio(sp[index[r]].Self)
				if ref := medianNs(m.get(weight, "seeds-ws", w)); ref > 0 {
					cells[7] = fmtRatio(sum.Median / ref)
				}
			}
			if c, ok := medianCounters(r.Counters); ok {
				cells[8], cells[9] = strconv.FormatUint(c.Steals, 10), strconv.FormatUint(c.LockWaits, 10)
			}
			t.Rows = append(t.Rows, cells)
		}
	}
	return t
}

// sweepTable is the seeds' sweep: for each weight and worker count, the
// throughput of both fjkit schedulers (single producer), their ratio and
// what each paid in coordination, beside the same ratio for the seeds' own
// two schedulers. It needs both fjkit schedulers.
func sweepTable(rs []Result, weights, sweep []int) (Table, bool) {
	m := newSeedLookup(rs)
	t := Table{
		Title: "seed weight sweep — work stealing against the shared queue, ours and the seeds'",
		Header: []string{"weight", "tasks", "workers", "shared tasks/s", "ws tasks/s", "ws/shared", "lock waits per 1000 tasks", "steals",
			"seeds' ws/shared"},
		Right: []bool{true, true, true, true, true, true, true, true, true},
	}
	for _, weight := range weights {
		for _, w := range sweep {
			sh, ws := m.get(weight, "shared", w), m.get(weight, "ws", w)
			if sh == nil || ws == nil {
				continue
			}
			c, _ := medianCounters(sh.Counters)
			wc, _ := medianCounters(ws.Counters)
			seeds := ""
			if ss, sw := m.get(weight, "seeds-shared", w), m.get(weight, "seeds-ws", w); ss != nil && sw != nil {
				seeds = fmtRatio(sw.rate() / ss.rate())
			}
			t.Rows = append(t.Rows, []string{
				strconv.Itoa(weight), strconv.FormatFloat(sh.Work, 'f', 0, 64), strconv.Itoa(w),
				fmtSI(sh.rate()), fmtSI(ws.rate()), fmtRatio(ws.rate() / sh.rate()),
				strconv.FormatFloat(1000*float64(c.LockWaits)/sh.Work, 'f', 2, 64),
				strconv.FormatUint(wc.Steals, 10), seeds,
			})
		}
	}
	return t, len(t.Rows) > 0
}
