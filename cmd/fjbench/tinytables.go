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
	sec.Extra = append(sec.Extra, verdictTable(m, weights[0], lo, wc, hi, cores))
	if t, note := sweepTable(m, weights, sweep, cores); len(t.Rows) > 0 {
		sec.Extra = append(sec.Extra, t)
		sec.Notes = append(sec.Notes, note)
	}
}

// verdictTable reads the main weight's results at the fewest workers (lo),
// the most within the cores (wc) and the most (hi): does each kind of work
// stealing get faster up to the cores and stay ahead of its one queue?
func verdictTable(m tinyLookup, weight, lo, wc, hi, cores int) Table {
	up, kept, queue, port := fmt.Sprintf("speed-up %d→%d", lo, wc), fmt.Sprintf("kept at %d", hi),
		fmt.Sprintf("÷ queue at %d", hi), fmt.Sprintf("time ÷ port-ws at %d", wc)
	t := Table{
		Title: fmt.Sprintf("tiny weight=%d — verdicts: does work stealing scale where one queue does not?", weight),
		Header: []string{"stealing", "one queue", "cost a task at 1 worker (stealing / queue)",
			up, kept, queue, port, "the claim"},
		Right: []bool{false, false, true, true, true, true, true, false},
		Legend: fmt.Sprintf("Columns: stealing is a work-stealing scheduler and one queue its one-queue twin; "+
			"cost a task at 1 worker (stealing / queue) is each one's time per task at one worker less the serial loop's; "+
			"%s is the stealing scheduler's throughput at %d workers (the most within the %d cores) divided by its throughput at %d; "+
			"%s is its throughput at %d workers divided by its throughput at %d (1.00× keeps all of it%s); "+
			"%s is its throughput at %d workers divided by the one queue's; "+
			"%s is its time at %d workers divided by the ported experiment's per-worker queues'; "+
			"the claim holds when the stealing scheduler gets %.2f× faster from %d to %d workers and is %.2f× ahead of its one queue at %d. "+
			"\"?\" after a ratio: a time it divides is marked unreliable in the table above.",
			up, wc, cores, lo, kept, hi, wc, oversubscribedNote(hi, cores), queue, hi, port, wc, levelRatio, lo, wc, levelRatio, hi),
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
			why = append(why, "did not scale"+spanWhy(m.get(weight, ws, wc), wc))
		}
		if !(ahead >= levelRatio) { // NaN (no shared row) too
			why = append(why, fmt.Sprintf("not ahead at %d", hi))
		}
		claim := "holds"
		if len(why) > 0 {
			claim = "no: " + strings.Join(why, "; ")
		}
		get := func(s string, w int) *Result { return m.get(weight, s, w) }
		t.Rows = append(t.Rows, []string{ws, sh,
			cost(get(ws, 1)) + " / " + cost(get(sh, 1)),
			ratioCell(up, get(ws, wc), get(ws, lo), cores), ratioCell(rate(ws, hi)/rate(ws, wc), get(ws, hi), get(ws, wc), cores),
			ratioCell(ahead, get(ws, hi), get(sh, hi), cores),
			ratioCell(medianNs(get(ws, wc))/medianNs(get("port-ws", wc)), get(ws, wc), get("port-ws", wc), cores), claim})
	}
	return t
}

// spanWhy says, for a row that did not scale to workers, whether its
// measured span (-workspan) explains it: "" if it was not measured.
func spanWhy(r *Result, workers int) string {
	if r == nil || r.WorkSpan == nil {
		return ""
	}
	ws := r.WorkSpan
	if bp := ws.BurdenedParallelism(); bp < float64(workers)*levelRatio {
		return fmt.Sprintf(": its span, %s of %s of work, allows at most %s (%s with a steal's cost per fork on it): "+
			"its longest chain of tasks, such as one producer's loop, runs one step after another",
			fmtDuration(float64(ws.Span)), fmtDuration(float64(ws.Work)), fmtRatio(ws.Parallelism()), fmtRatio(bp))
	}
	return fmt.Sprintf(": its span allows %s (%s burdened), so the span does not explain it",
		fmtRatio(ws.Parallelism()), fmtRatio(ws.BurdenedParallelism()))
}

// sweepTable is the weight sweep: for each weight and worker count, the
// throughput of both fjkit schedulers (single producer), their ratio and
// what each paid in coordination, beside the same ratio for the
// experiment's own two. The note says whether the ratio at the most workers
// falls as the tasks get heavier, as the experiment concludes: the shared
// queue's cost is the frequency of coordination, not the lock's hold time.
func sweepTable(m tinyLookup, weights, sweep []int, cores int) (Table, string) {
	t := Table{
		Title: "tiny weight sweep — work stealing against the shared queue, one producer",
		Header: []string{"weight", "tasks", "workers", "shared tasks/s", "ws tasks/s", "ws ÷ shared",
			"lock waits per 1000 tasks", "steals", "port-ws ÷ port-shared"},
		Right: []bool{true, true, true, true, true, true, true, true, true},
		Legend: "Columns: weight is the work in each task and tasks their number; workers the pool's workers; " +
			"shared tasks/s and ws tasks/s are the throughputs of shared-spawn and ws-spawn (a Func.Go loop in a Scope); " +
			"ws ÷ shared is the ratio of the two (above 1, work stealing is faster); " +
			"lock waits per 1000 tasks is how often shared-spawn's queue lock was found taken; " +
			"steals is ws-spawn's steals per run (median); port-ws ÷ port-shared is the same ratio for the experiment's own two " +
			"schedulers, ported. \"?\" after a ratio: a time it divides is marked unreliable in the weight's table above; " +
			"\"(oversubscribed)\": more workers than the machine's " + strconv.Itoa(cores) + " cores, which take turns on them.",
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
				strconv.Itoa(weight), strconv.FormatFloat(sh.Work, 'f', 0, 64), workersCell(w, cores),
				fmtSI(sh.rate()), fmtSI(ws.rate()), ratioCell(ws.rate()/sh.rate(), ws, sh, cores),
				strconv.FormatFloat(1000*float64(waits)/sh.Work, 'f', 2, 64), strconv.FormatUint(st, 10),
				ratioCell(port, m.get(weight, "port-ws", w), m.get(weight, "port-shared", w), cores),
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

// oversubscribedNote says, inside a legend, that a worker count is above
// the cores; "" when it is not.
func oversubscribedNote(workers, cores int) string {
	if workers <= cores {
		return ""
	}
	return fmt.Sprintf("; %d workers oversubscribe the %d cores, so below 1.00× is what taking turns costs", workers, cores)
}
