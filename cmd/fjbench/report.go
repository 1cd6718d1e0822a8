package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// writeReport writes the report as Markdown tables ("table"), or as Go
// benchmark lines ("bench"), one per timed run, so that benchstat sees every
// run as a sample and computes its own medians and confidence intervals when
// it compares two invocations of fjbench.
func writeReport(w io.Writer, format string, rep *Report) error {
	ew := &errWriter{w: w}
	if format == "bench" {
		writeBench(ew, rep)
	} else {
		writeTables(ew, rep)
	}
	return ew.err
}

// Table is a rendered view: a title, a header and rows of cells. Right marks
// the columns that hold numbers, so that they line up on the right.
type Table struct {
	Title  string
	Header []string
	Right  []bool
	Rows   [][]string
	// Legend says what each column means, and what the marks in the cells
	// mean; it is printed under the table.
	Legend string
}

// writeTables renders one table per group of each section (rows are the
// schedulers at each worker count), then the section's own tables and notes.
func writeTables(ew *errWriter, rep *Report) {
	ew.printf("Machine: %s.\n", rep.Env)
	for _, sec := range rep.Sections {
		ew.printf("\n## %s\n", sec.Name)
		var tables []Table
		if !sec.OwnTables {
			for _, g := range groupsOf(sec.Results) {
				tables = append(tables, groupTable(sec.Results, g, coresOf(rep.Env)))
			}
		}
		for _, t := range append(tables, sec.Extra...) {
			ew.printf("\n")
			renderTable(ew, t)
		}
		if len(sec.Notes) > 0 {
			ew.printf("\n%s\n", strings.Join(sec.Notes, "\n"))
		}
	}
}

// groupsOf lists the groups of rs in the order they first appear, each as the
// indices of its results.
func groupsOf(rs []Result) [][]int {
	var order []string
	idx := map[string][]int{}
	for i := range rs {
		g := rs[i].group()
		if _, ok := idx[g]; !ok {
			order = append(order, g)
		}
		idx[g] = append(idx[g], i)
	}
	out := make([][]int, len(order))
	for i, g := range order {
		out[i] = idx[g]
	}
	return out
}

// groupTable shows every result of group g, in the order measured, with
// what each scheduler is on its first row, the unreliable, "?" and
// oversubscribed marks for a machine of the given cores, and a legend for
// the columns it has.
func groupTable(rs []Result, g []int, cores int) Table {
	sp := speedups(rs)
	first := &rs[g[0]]
	hasSerial, hasCounters, hasCopy, hasWorkSpan := false, false, false, false
	serialName := ""
	for _, i := range g {
		if isSerial(rs[i].Scheduler) {
			hasSerial, serialName = true, rs[i].Scheduler
		}
		hasCounters = hasCounters || len(rs[i].Counters) > 0
		hasCopy = hasCopy || rs[i].Copy > 0
		hasWorkSpan = hasWorkSpan || rs[i].WorkSpan != nil
	}
	rate := first.Unit + "/s"
	t := Table{Title: first.group() + " (time: median of the runs)",
		Header: []string{"scheduler", "what it is", "workers", "time", "±", rate, "speed-up"}}
	legend := []string{
		"Columns: scheduler and what it is name the code measured (its doc on its first row); workers is the pool's workers, or the baseline's goroutines or limit (— for none);",
		"time is the median of the timed runs, and ± half the range from the fastest to the slowest run, relative to it;",
		rate + " is the work done per second at the median time;",
		"speed-up is the time of the same scheduler at the fewest workers measured divided by this row's (1.00× on that row; above 1, faster with more workers);",
	}
	if hasSerial {
		t.Header = append(t.Header, "vs serial")
		legend = append(legend, "vs serial is "+serialName+"'s time divided by this row's (above 1, faster than the serial code);")
	}
	if hasCopy {
		t.Header = append(t.Header, "× copy")
		legend = append(legend, "× copy is this row's time divided by a parallel copy of the same data at the same workers, measured in the same run (how many memory passes the sort costs);")
	}
	if hasCounters {
		t.Header = append(t.Header, "steals", "lock waits")
		legend = append(legend, "steals and lock waits are the fjkit pool's counters, the median over the runs.")
	}
	if hasWorkSpan {
		t.Header = append(t.Header, "work", "span", "parallelism", "burdened par.")
		legend = append(legend, "work, span and parallelism are the row's work (T₁, every strand's time) and span (T∞, the longest chain of strands), measured serially with forkjoin.MeasureWorkSpan (the run of the least span of three), and work/span, the most speed-up any number of workers can give; burdened par. is work over the span with a steal's cost added for each fork on its path.")
	}
	t.Header = append(t.Header, "marks")
	t.Legend = strings.Join(legend, " ") + " " + marksLegend(cores)
	t.Right = make([]bool, len(t.Header))
	for i := 2; i < len(t.Right)-1; i++ {
		t.Right[i] = true
	}
	at := func(i int) *Result {
		if i < 0 {
			return nil
		}
		return &rs[i]
	}
	prev := ""
	for _, i := range g {
		r := &rs[i]
		sum := summarize(r.Durations)
		doc, self := "", ""
		if r.Scheduler != prev {
			doc, prev = schedulerDoc(r.Scheduler), r.Scheduler
		}
		if r.Workers > 0 {
			self = ratioCell(sp[i].Self, at(sp[i].selfBase), r, cores)
		}
		row := []string{r.Scheduler, doc, workersCell(r.Workers, cores), fmtDuration(sum.Median), fmtSpread(sum.spread()), fmtSI(r.rate()), self}
		if hasSerial {
			row = append(row, ratioCell(sp[i].Serial, at(sp[i].serialBase), r, cores))
		}
		if hasCopy {
			row = append(row, fmtRatio(sum.Median/float64(r.Copy.Nanoseconds())))
		}
		if hasCounters {
			s, ok := r.counter(steals)
			l, _ := r.counter(lockWaits)
			if ok {
				row = append(row, strconv.FormatUint(s, 10), strconv.FormatUint(l, 10))
			} else {
				row = append(row, "", "")
			}
		}
		if hasWorkSpan {
			if ws := r.WorkSpan; ws != nil {
				row = append(row, fmtDuration(float64(ws.Work)), fmtDuration(float64(ws.Span)),
					sig3(ws.Parallelism()), sig3(ws.BurdenedParallelism()))
			} else {
				row = append(row, "", "", "", "")
			}
		}
		row = append(row, unreliable(r, cores))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// renderTable writes t as a Markdown table padded to line up in a terminal too.
func renderTable(ew *errWriter, t Table) {
	if t.Title != "" {
		ew.printf("### %s\n\n", t.Title)
	}
	width := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c), 3)
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteByte('|')
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i < len(t.Right) && t.Right[i] {
				c = pad + c
			} else {
				c += pad
			}
			b.WriteString(" " + c + " |")
		}
		ew.printf("%s\n", b.String())
	}
	line(t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
		if i < len(t.Right) && t.Right[i] {
			sep[i] = sep[i][1:] + ":"
		}
	}
	line(sep)
	for _, row := range t.Rows {
		line(row)
	}
	if t.Legend != "" {
		ew.printf("\n%s\n", t.Legend)
	}
}

// writeBench writes the Go benchmark format, one line per timed run.
func writeBench(ew *errWriter, rep *Report) {
	ew.printf("goos: %s\ngoarch: %s\npkg: github.com/fjkit/fjkit/cmd/fjbench\ncpu: %s\n", rep.Env.OS, rep.Env.Arch, rep.Env.CPU)
	if rep.Env.UsableBefore > 0 {
		ew.printf("usable-cores: %.2f before, %.2f after\n", rep.Env.UsableBefore, rep.Env.UsableAfter)
	}
	for _, sec := range rep.Sections {
		for _, r := range sec.Results {
			name := benchName(&r)
			for i, d := range r.Durations {
				ew.printf("%s\t1\t%d ns/op", name, d.Nanoseconds())
				if d > 0 {
					ew.printf("\t%s %s/s", fmtFloat(round(r.Work/d.Seconds(), 3)), r.Unit)
				}
				if i < len(r.Counters) {
					c := r.Counters[i]
					ew.printf("\t%d steals/op\t%d lockwaits/op", c.Steals, c.LockWaits)
				}
				if ws := r.WorkSpan; ws != nil {
					ew.printf("\t%d work-ns/op\t%d span-ns/op\t%s parallelism\t%s burdened-parallelism",
						ws.Work.Nanoseconds(), ws.Span.Nanoseconds(), fmtFloat(round(ws.Parallelism(), 3)), fmtFloat(round(ws.BurdenedParallelism(), 3)))
				}
				ew.printf("\n")
			}
		}
	}
}

// benchName is BenchmarkScenario/scheduler[/w=N]/key=value...; benchstat
// reads the key=value parts as configuration it can group by.
func benchName(r *Result) string {
	sc := []rune(r.Scenario)
	sc[0] = unicode.ToUpper(sc[0])
	name := "Benchmark" + string(sc) + "/" + r.Scheduler
	if r.Workers > 0 {
		name += "/w=" + strconv.Itoa(r.Workers)
	}
	for _, p := range r.Params {
		name += "/" + p.Key + "=" + p.Value
	}
	return name
}

func fmtChecksum(c uint64) string { return fmt.Sprintf("%#016x", c) }

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// fmtDuration shows ns with three significant digits in a fitting unit.
func fmtDuration(ns float64) string {
	switch {
	case ns == 0 || math.IsNaN(ns):
		return "—"
	case ns < 1e3:
		return sig3(ns) + " ns"
	case ns < 1e6:
		return sig3(ns/1e3) + " µs"
	case ns < 1e9:
		return sig3(ns/1e6) + " ms"
	}
	return sig3(ns/1e9) + " s"
}

// fmtSI shows a rate with an SI prefix and three significant digits.
func fmtSI(x float64) string {
	switch {
	case x == 0:
		return "—"
	case x >= 1e9:
		return sig3(x/1e9) + " G"
	case x >= 1e6:
		return sig3(x/1e6) + " M"
	case x >= 1e3:
		return sig3(x/1e3) + " k"
	}
	return sig3(x)
}

func sig3(x float64) string {
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// fmtRatio shows a ratio as "1.23×"; "—" for one with nothing to compare.
func fmtRatio(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + "×"
}

func fmtSpread(x float64) string { return "±" + strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// errWriter keeps the first write error so that the renderers can print
// freely and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
