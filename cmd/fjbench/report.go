package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The four output formats. Only the table is for people; CSV and JSON carry
// every run for other tools, and the bench format is what benchstat reads.
const (
	formatTable = "table"
	formatCSV   = "csv"
	formatJSON  = "json"
	formatBench = "bench"
)

var formats = []string{formatTable, formatCSV, formatJSON, formatBench}

func writeReport(w io.Writer, format string, rep *Report) error {
	switch format {
	case formatTable:
		return writeTables(w, rep)
	case formatCSV:
		return writeCSV(w, rep)
	case formatJSON:
		return writeJSON(w, rep)
	case formatBench:
		return writeBench(w, rep)
	}
	return fmt.Errorf("unknown format %q", format)
}

// Table is a rendered view: a title, a header and rows of cells. Right marks
// the columns that hold numbers, so that they line up on the right.
type Table struct {
	Title  string
	Header []string
	Right  []bool
	Rows   [][]string
}

// schedulerDoc says in a heading what each scheduler name stands for.
var schedulerDoc = map[string]string{
	"ws":             "fjkit, work stealing",
	"shared":         "fjkit, one shared mutex queue",
	"ws-range":       "fjkit ForRange grain 1, work stealing",
	"shared-range":   "fjkit ForRange grain 1, shared queue",
	"ws-for":         "fjkit For, work stealing",
	"shared-for":     "fjkit For, shared queue",
	"ws-func":        "fjkit Func.Join, work stealing",
	"shared-func":    "fjkit Func.Join, shared queue",
	"ws-closure":     "fjkit closure Join, work stealing",
	"shared-closure": "fjkit closure Join, shared queue",
	"seeds-ws":       "the seeds' work stealing, ported",
	"seeds-shared":   "the seeds' global queue, ported",
	"static":         "no scheduler: worker k runs tasks k, k+P, …",
	"ws-merge":       "fjkit merge sort, work stealing",
	"shared-merge":   "fjkit merge sort, shared queue",
	"ws-quick":       "fjkit quicksort, work stealing",
	"shared-quick":   "fjkit quicksort, shared queue",
	"serial":         "serial code, no goroutines",
	"goroutines":     "one goroutine per task, sync.WaitGroup",
	"chanpool":       "fixed pool of goroutines reading a channel",
	"errgroup":       "errgroup.Group with SetLimit(workers)",
	"slices.Sort":    "slices.Sort, serial",
	"gonum":          "gonum (*mat.Dense).Mul",
}

// writeTables renders the report as Markdown: one table per scheduler and
// group (rows are worker counts), the schedulers without a worker count
// together, then the scenario's own views, footnotes and summary.
func writeTables(w io.Writer, rep *Report) error {
	ew := &errWriter{w: w}
	ew.printf("Machine: %s.\n", rep.Env)
	for _, sec := range rep.Sections {
		ew.printf("\n## %s\n", sec.Name)
		if !sec.OwnTables {
			rs := sec.Results
			sp := speedups(rs)
			for _, g := range groupsOf(rs) {
				for _, t := range groupTables(rs, sp, g) {
					ew.printf("\n")
					renderTable(ew, t)
				}
			}
		}
		for _, t := range sec.Extra {
			ew.printf("\n")
			renderTable(ew, t)
		}
		if len(sec.Notes) > 0 {
			ew.printf("\n")
			for _, n := range sec.Notes {
				ew.printf("%s\n", n)
			}
		}
		for _, p := range sec.Summary {
			ew.printf("\n%s\n", p)
		}
	}
	return ew.err
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

func groupTables(rs []Result, sp []speedup, g []int) []Table {
	first := &rs[g[0]]
	unit := first.Unit + "/s"
	hasSerial := false
	var scheds []string
	bySched := map[string][]int{}
	var flat []int // schedulers without a worker count
	for _, i := range g {
		r := &rs[i]
		if isSerial(r.Scheduler) {
			hasSerial = true
		}
		if r.Workers == 0 {
			flat = append(flat, i)
			continue
		}
		if _, ok := bySched[r.Scheduler]; !ok {
			scheds = append(scheds, r.Scheduler)
		}
		bySched[r.Scheduler] = append(bySched[r.Scheduler], i)
	}
	var out []Table
	for _, s := range scheds {
		t := Table{Title: first.group() + " — " + s}
		if d := schedulerDoc[s]; d != "" {
			t.Title += " (" + d + ")"
		}
		t.Header = []string{"workers", "time", "±", unit, "speed-up"}
		if hasSerial {
			t.Header = append(t.Header, "vs serial")
		}
		withCounters := len(rs[bySched[s][0]].Counters) > 0
		if withCounters {
			t.Header = append(t.Header, "steals", "lock waits")
		}
		for _, i := range bySched[s] {
			r := &rs[i]
			sum := summarize(r.Durations)
			row := []string{strconv.Itoa(r.Workers), fmtDuration(sum.Median), fmtSpread(sum.spread()), fmtSI(r.rate()), fmtRatio(sp[i].Self)}
			if hasSerial {
				row = append(row, fmtRatio(sp[i].Serial))
			}
			if withCounters {
				c, _ := medianCounters(r.Counters)
				row = append(row, strconv.FormatUint(c.Steals, 10), strconv.FormatUint(c.LockWaits, 10))
			}
			t.Rows = append(t.Rows, row)
		}
		t.Right = rightFrom(len(t.Header), 0)
		out = append(out, t)
	}
	if len(flat) > 0 {
		t := Table{Title: first.group() + " — baselines without a worker count"}
		t.Header = []string{"scheduler", "time", "±", unit}
		if hasSerial {
			t.Header = append(t.Header, "vs serial")
		}
		for _, i := range flat {
			r := &rs[i]
			sum := summarize(r.Durations)
			name := r.Scheduler
			if d := schedulerDoc[name]; d != "" {
				name += " (" + d + ")"
			}
			row := []string{name, fmtDuration(sum.Median), fmtSpread(sum.spread()), fmtSI(r.rate())}
			if hasSerial {
				row = append(row, fmtRatio(sp[i].Serial))
			}
			t.Rows = append(t.Rows, row)
		}
		t.Right = rightFrom(len(t.Header), 1)
		out = append(out, t)
	}
	return out
}

// rightFrom right-aligns the columns from the first numeric one on.
func rightFrom(n, from int) []bool {
	r := make([]bool, n)
	for i := from; i < n; i++ {
		r[i] = true
	}
	return r
}

// renderTable writes t as a Markdown table padded to line up in a terminal too.
func renderTable(ew *errWriter, t Table) {
	if t.Title != "" {
		ew.printf("### %s\n\n", t.Title)
	}
	width := make([]int, len(t.Header))
	for i, h := range t.Header {
		width[i] = max(utf8.RuneCountInString(h), 3)
	}
	for _, row := range t.Rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteByte('|')
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			b.WriteByte(' ')
			if i < len(t.Right) && t.Right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
			b.WriteString(" |")
		}
		ew.printf("%s\n", b.String())
	}
	line(t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		if i < len(t.Right) && t.Right[i] {
			sep[i] = strings.Repeat("-", width[i]-1) + ":"
		} else {
			sep[i] = strings.Repeat("-", width[i])
		}
	}
	line(sep)
	for _, row := range t.Rows {
		line(row)
	}
}

// csvHeader names the CSV columns before the counters, which follow in
// counterFields order.
var csvHeader = []string{
	"scenario", "params", "scheduler", "workers", "runs", "median_ns", "min_ns", "max_ns", "stddev_ns",
	"work", "unit", "rate_per_s", "speedup", "speedup_vs_serial", "checksum",
}

// writeCSV writes one row per result; counters are medians over the runs and
// empty where the scheduler has none.
func writeCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append(slices.Clip(csvHeader), counterNames()...)); err != nil {
		return err
	}
	rs := rep.results()
	sp := speedups(rs)
	for i := range rs {
		r := &rs[i]
		s := summarize(r.Durations)
		var ps []string
		for _, p := range r.Params {
			ps = append(ps, p.Key+"="+p.Value)
		}
		row := []string{
			r.Scenario, strings.Join(ps, ";"), r.Scheduler, strconv.Itoa(r.Workers), strconv.Itoa(len(r.Durations)),
			fmtFloat(s.Median), fmtFloat(s.Min), fmtFloat(s.Max), fmtFloat(s.StdDev),
			fmtFloat(r.Work), r.Unit, fmtFloat(round(r.rate(), 3)), fmtFloat(round(sp[i].Self, 4)), fmtFloat(round(sp[i].Serial, 4)),
			fmtChecksum(r.Checksum),
		}
		if c, ok := medianCounters(r.Counters); ok {
			row = append(row, c.cells()...)
		} else {
			row = append(row, make([]string, len(counterFields))...)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

type jsonResult struct {
	Scenario        string            `json:"scenario"`
	Params          map[string]string `json:"params"`
	Scheduler       string            `json:"scheduler"`
	Workers         int               `json:"workers"`
	RunsNs          []int64           `json:"runs_ns"`
	MedianNs        float64           `json:"median_ns"`
	MinNs           float64           `json:"min_ns"`
	MaxNs           float64           `json:"max_ns"`
	StdDevNs        float64           `json:"stddev_ns"`
	Work            float64           `json:"work"`
	Unit            string            `json:"unit"`
	RatePerS        float64           `json:"rate_per_s"`
	Speedup         float64           `json:"speedup,omitempty"`
	SpeedupVsSerial float64           `json:"speedup_vs_serial,omitempty"`
	// Checksum is a string: JSON numbers lose integers above 2^53.
	Checksum string        `json:"checksum"`
	Counters *jsonCounters `json:"counters,omitempty"`
}

type jsonSection struct {
	Name    string   `json:"name"`
	Notes   []string `json:"notes,omitempty"`
	Summary []string `json:"summary,omitempty"`
}

type jsonReport struct {
	Env      Env           `json:"env"`
	Sections []jsonSection `json:"sections"`
	Results  []jsonResult  `json:"results"`
}

func writeJSON(w io.Writer, rep *Report) error {
	out := jsonReport{Env: rep.Env, Sections: []jsonSection{}, Results: []jsonResult{}}
	for _, s := range rep.Sections {
		out.Sections = append(out.Sections, jsonSection{Name: s.Name, Notes: s.Notes, Summary: s.Summary})
	}
	rs := rep.results()
	sp := speedups(rs)
	for i := range rs {
		r := &rs[i]
		s := summarize(r.Durations)
		jr := jsonResult{
			Scenario: r.Scenario, Params: map[string]string{}, Scheduler: r.Scheduler, Workers: r.Workers,
			MedianNs: s.Median, MinNs: s.Min, MaxNs: s.Max, StdDevNs: round(s.StdDev, 1),
			Work: r.Work, Unit: r.Unit, RatePerS: round(r.rate(), 3),
			Speedup: round(sp[i].Self, 4), SpeedupVsSerial: round(sp[i].Serial, 4),
			Checksum: fmtChecksum(r.Checksum),
		}
		for _, p := range r.Params {
			jr.Params[p.Key] = p.Value
		}
		for _, d := range r.Durations {
			jr.RunsNs = append(jr.RunsNs, d.Nanoseconds())
		}
		if c, ok := medianCounters(r.Counters); ok {
			jc := jsonCounters(c)
			jr.Counters = &jc
		}
		out.Results = append(out.Results, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeBench writes the Go benchmark format, one line per timed run, so that
// benchstat sees every run as a sample and can compute its own median and
// confidence interval when comparing two invocations of fjbench.
func writeBench(w io.Writer, rep *Report) error {
	ew := &errWriter{w: w}
	ew.printf("goos: %s\ngoarch: %s\npkg: github.com/fjkit/fjkit/cmd/fjbench\ncpu: %s\n", rep.Env.OS, rep.Env.Arch, rep.Env.CPU)
	if rep.Env.UsableBefore > 0 {
		ew.printf("usable-cores: %.2f before, %.2f after\n", rep.Env.UsableBefore, rep.Env.UsableAfter)
	}
	for _, r := range rep.results() {
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
			ew.printf("\n")
		}
	}
	return ew.err
}

// benchName is BenchmarkScenario/scheduler[/w=N]/key=value...; benchstat
// reads the key=value parts as configuration it can group by.
func benchName(r *Result) string {
	var b strings.Builder
	b.WriteString("Benchmark")
	sc := []rune(r.Scenario)
	if len(sc) > 0 {
		sc[0] = unicode.ToUpper(sc[0])
	}
	b.WriteString(string(sc))
	b.WriteString("/" + r.Scheduler)
	if r.Workers > 0 {
		b.WriteString("/w=" + strconv.Itoa(r.Workers))
	}
	for _, p := range r.Params {
		b.WriteString("/" + p.Key + "=" + p.Value)
	}
	return b.String()
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
	case ns == 0:
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

func fmtRatio(x float64) string {
	if x == 0 {
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
