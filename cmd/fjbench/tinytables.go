package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// The tiny-tasks experiment's own tables, computed from every round's
// results: the verdicts on its claim, that per-worker queues with
// steal-half scale where one mutex queue does not, for its own two
// schedulers and for fjkit's in each spawn pattern; and the weight sweep.

// levelRatio bounds the ratios read as "level": on a shared 2-core machine
// runs differ by several percent, so closer than 15% is no verdict either way.
const levelRatio = 1.15

// tinyPairs are the schedulers the verdicts compare: work stealing, and the
// one queue of the same kind.
var tinyPairs = [][2]string{{"port-ws", "port-shared"}, {"ws-spawn", "shared-spawn"}, {"ws-range", "shared-range"}, {"ws-for", "shared-for"}}

// tinyLookup finds the result of a scheduler at a weight and worker count.
type tinyLookup map[string]*Result

func (m tinyLookup) get(weight int, sched string, workers int) *Result {
	return m[strconv.Itoa(weight)+"/"+sched+"/"+strconv.Itoa(workers)]
}

func finishTiny(cfg *config, sec *Section) {
	addTinyTables(sec, cfg.weights, cfg.workers, cfg.sweep, min(runtime.NumCPU(), runtime.GOMAXPROCS(0)))
}

// addTinyTables adds the verdicts, the sweep and their notes to sec, for a
// machine of the given number of cores.
func addTinyTables(sec *Section, weights, workers, sweep []int, cores int) {
	m := tinyLookup{}
	for i := range sec.Results {
		r := &sec.Results[i]
		m[r.Params[0].Value+"/"+r.Scheduler+"/"+strconv.Itoa(r.Workers)] = r
	}
	ws := slices.Sorted(slices.Values(workers))
	lo, hi, wc := ws[0], ws[len(ws)-1], ws[0]
	for _, w := range ws {
		if w <= cores {
			wc = w
		}
	}
	if u := sec.usable; u > 0 && u < 0.85*float64(wc) {
		sec.Notes = append(sec.Notes, fmt.Sprintf("Caution: just before this scenario a spin loop could use only %.2f of "+
			"the %d cores, so every speed-up here understates what a scheduler can do on a quiet machine.", u, cores))
	}
	sec.Extra = append(sec.Extra, verdictTable(m, weights[0], lo, wc, hi))
	if t, note := sweepTable(m, weights, sweep); len(t.Rows) > 0 {
		sec.Extra = append(sec.Extra, t)
		sec.Notes = append(sec.Notes, note)
	}
}

// verdictTable reads the main weight's results at the fewest workers (lo),
// the most within the cores (wc) and the most (hi): does each kind of work
// stealing get faster up to the cores and stay ahead of its one queue?
func verdictTable(m tinyLookup, weight, lo, wc, hi int) Table {
	t := Table{
		Title: fmt.Sprintf("tiny weight=%d — verdicts: does work stealing scale where one queue does not?", weight),
		Header: []string{"stealing", "one queue", "cost a task at 1 worker (stealing / queue)",
			fmt.Sprintf("speed-up %d→%d", lo, wc), fmt.Sprintf("kept at %d", hi), fmt.Sprintf("÷ queue at %d", hi),
			fmt.Sprintf("time ÷ port-ws at %d", wc), "the claim"},
		Right: []bool{false, false, true, true, true, true, true, false},
	}
	serial := m.get(weight, "serial", 0)
	// cost is what a scheduler adds to each task at one worker, where nothing
	// contends: its time per task less the serial loop's.
	cost := func(r *Result) string {
		if r == nil || serial == nil || lo != 1 {
			return "—"
		}
		return fmtDuration(max(0.01, medianNs(r)/r.Work-medianNs(serial)/serial.Work))
	}
	for _, pair := range tinyPairs {
		ws, sh := pair[0], pair[1]
		rate := func(s string, w int) float64 { return m.get(weight, s, w).rate() }
		if rate(ws, lo) == 0 || rate(ws, wc) == 0 || rate(ws, hi) == 0 {
			continue
		}
		up, ahead := rate(ws, wc)/rate(ws, lo), math.NaN()
		if q := rate(sh, hi); q > 0 {
			ahead = rate(ws, hi) / q
		}
		var why []string
		switch {
		case wc == lo:
			why = append(why, fmt.Sprintf("not judged: no worker count above %d within the cores", lo))
		case up < levelRatio:
			why = append(why, "did not scale")
		}
		if !(ahead >= levelRatio) { // NaN (no shared row) too
			why = append(why, fmt.Sprintf("not ahead at %d", hi))
		}
		claim := "holds"
		if len(why) > 0 {
			claim = "no: " + strings.Join(why, "; ")
		}
		t.Rows = append(t.Rows, []string{ws, sh,
			cost(m.get(weight, ws, 1)) + " / " + cost(m.get(weight, sh, 1)),
			fmtRatio(up), fmtRatio(rate(ws, hi) / rate(ws, wc)), fmtRatio(ahead),
			fmtRatio(medianNs(m.get(weight, ws, wc)) / medianNs(m.get(weight, "port-ws", wc))), claim})
	}
	return t
}

// sweepTable is the weight sweep: for each weight and worker count, the
// throughput of both fjkit schedulers (single producer), their ratio and
// what each paid in coordination, beside the same ratio for the
// experiment's own two. The note says whether the ratio at the most workers
// falls as the tasks get heavier, as the experiment concludes: the shared
// queue's cost is the frequency of coordination, not the lock's hold time.
func sweepTable(m tinyLookup, weights, sweep []int) (Table, string) {
	t := Table{
		Title: "tiny weight sweep — work stealing against the shared queue, one producer",
		Header: []string{"weight", "tasks", "workers", "shared tasks/s", "ws tasks/s", "ws ÷ shared",
			"lock waits per 1000 tasks", "steals", "port-ws ÷ port-shared"},
		Right: []bool{true, true, true, true, true, true, true, true, true},
	}
	hi := slices.Max(sweep)
	var ours, theirs []string
	var oursR, theirsR []float64
	for _, weight := range weights {
		for _, w := range sweep {
			sh, ws := m.get(weight, "shared-spawn", w), m.get(weight, "ws-spawn", w)
			if sh == nil || ws == nil {
				continue
			}
			waits, _ := sh.counter(lockWaits)
			st, _ := ws.counter(steals)
			port := m.get(weight, "port-ws", w).rate() / m.get(weight, "port-shared", w).rate()
			t.Rows = append(t.Rows, []string{
				strconv.Itoa(weight), strconv.FormatFloat(sh.Work, 'f', 0, 64), strconv.Itoa(w),
				fmtSI(sh.rate()), fmtSI(ws.rate()), fmtRatio(ws.rate() / sh.rate()),
				strconv.FormatFloat(1000*float64(waits)/sh.Work, 'f', 2, 64), strconv.FormatUint(st, 10), fmtRatio(port),
			})
			if w == hi {
				oursR, theirsR = append(oursR, ws.rate()/sh.rate()), append(theirsR, port)
				ours, theirs = append(ours, fmtRatio(ws.rate()/sh.rate())), append(theirs, fmtRatio(port))
			}
		}
	}
	note := fmt.Sprintf("Sweep: at %d workers, by weight, ws ÷ shared %s (falls with the weight: %s); port-ws ÷ port-shared %s (falls: %s).",
		hi, strings.Join(ours, ", "), yesNo(falling(oursR)), strings.Join(theirs, ", "), yesNo(falling(theirsR)))
	return t, note
}

// falling says a sequence of ratios clearly falls: it starts ahead by more
// than the noise, ends lower by more than the noise, and never steps up by
// more than the noise.
func falling(ratios []float64) bool {
	if len(ratios) < 2 || !(ratios[0] >= levelRatio) {
		return false
	}
	f := ratios[0] >= ratios[len(ratios)-1]*levelRatio
	for i := 1; i < len(ratios); i++ {
		f = f && ratios[i] <= ratios[i-1]*levelRatio
	}
	return f
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
