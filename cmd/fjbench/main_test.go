package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"nosuch"}, `unknown subcommand "nosuch"`},
		{[]string{"-nosuch"}, "flag provided but not defined: -nosuch"},
		{[]string{"-workers", "1,x"}, `-workers: "x" is not a positive integer`},
		{[]string{"-workers", "0"}, `-workers: "0" is not a positive integer`},
		{[]string{"-weights", ""}, `-weights: "" is not a positive integer`},
		{[]string{"-mode", "fast"}, `-mode must be ws, shared or both, not "fast"`},
		{[]string{"-format", "xml"}, `-format must be one of table, csv, json, bench, not "xml"`},
		{[]string{"-runs", "0"}, "-runs must be at least 1"},
		{[]string{"-rounds", "0"}, "-rounds must be at least 1"},
		{[]string{"-tasks", "0"}, "-tasks must be at least 1"},
		{[]string{"-plot", "out.pdf"}, `-plot needs a file ending in .svg or .png, not "out.pdf"`},
		{[]string{"-n", "-3"}, "must not be negative"},
		{[]string{"fib", "-workers", "4", "-plot", "x.svg"}, "-plot needs at least two -workers counts"},
		{[]string{"all", "-n", "10"}, "give them with one subcommand"},
		{[]string{"seed", "extra"}, `unexpected argument "extra"`},
		{[]string{"-runs", "2", "seed", "fib"}, `unexpected argument "fib"`},
		{[]string{"-runs"}, "flag needs an argument: -runs"},
		{[]string{"serve", "-clients", "0"}, "-clients must be at least 1"},
		{[]string{"serve", "-deadline", "0s"}, "-deadline and -duration must be positive"},
		{[]string{"serve", "-plot", "x.svg"}, "-plot with serve needs -workers"},
		{[]string{"treesum", "-n", "3000000000"}, "treesum: -n 3000000000: must be below 2^31-1"},
		{[]string{"-tasks", "3000000000"}, "seed: -tasks 3000000000: must be at most 2^31-1"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != 2 {
			t.Errorf("run(%q) = %d, want 2", tc.args, code)
		}
		if !strings.Contains(stderr.String(), tc.msg) || !strings.Contains(stderr.String(), "usage: fjbench") {
			t.Errorf("run(%q) stderr = %q, want it to contain %q and the usage", tc.args, stderr.String(), tc.msg)
		}
		if stdout.Len() != 0 {
			t.Errorf("run(%q) wrote to stdout: %q", tc.args, stdout.String())
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Errorf("run(%q) = %d, want 0", args, code)
		}
		for _, s := range scenarios {
			if !strings.Contains(stdout.String(), "  "+s.name+" ") {
				t.Errorf("run(%q): usage does not list subcommand %s:\n%s", args, s.name, stdout.String())
			}
		}
	}
}

func TestPlotFiles(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "out.svg")
	if err := writePlotFile(svg, fixedReport()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	// A well-formed XML document whose root element is <svg>.
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", svg, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", svg, root)
	}
	if !bytes.Contains(data, []byte("seed weight=4: speed-up")) {
		t.Errorf("%s lacks the chart title", svg)
	}
	if bytes.Contains(data, []byte("work stealing over shared queue")) {
		t.Errorf("%s has a ratio chart, but only one group has both schedulers", svg)
	}

	// With a second group that has both schedulers, the ratio row appears.
	rep := fixedReport()
	more := rep.Sections[0].Results
	for _, r := range more {
		if r.param("weight") == "4" && (r.Scheduler == "ws" || r.Scheduler == "shared") {
			r.Params = []Param{{"weight", "20"}}
			rep.Sections[0].Results = append(rep.Sections[0].Results, r)
		}
	}
	var buf bytes.Buffer
	if err := writePlot(&buf, ".svg", rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seed: work stealing over shared queue", "lock waits per 1000 tasks", "weight=20"} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("the chart of two groups with both schedulers lacks %q", want)
		}
	}

	pngPath := filepath.Join(dir, "out.png")
	if err := writePlotFile(pngPath, fixedReport()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s does not decode as PNG: %v", pngPath, err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 200 {
		t.Errorf("%s is %v, too small for two charts", pngPath, b)
	}
}

func TestPlotNeedsSomethingToPlot(t *testing.T) {
	rep := &Report{Sections: []Section{{Results: []Result{{Scenario: "x", Scheduler: "serial", Work: 1}}}}}
	if err := writePlot(io.Discard, ".svg", rep); err == nil {
		t.Error("writePlot drew a report with no worker counts to vary")
	}
}

// smoke runs fjbench on tiny sizes with two timed runs and returns its JSON report.
func smoke(t *testing.T, args ...string) jsonReport {
	t.Helper()
	return smokeJSON(t, append(args, "-runs", "2")...)
}

// smokeJSON runs fjbench with args and returns its JSON report.
func smokeJSON(t *testing.T, args ...string) jsonReport {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append(args, "-format", "json")
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d, stderr:\n%s", args, code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("run(%q) wrote to stderr, which is not a terminal: %q", args, stderr.String())
	}
	var rep jsonReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("run(%q): output is not JSON: %v", args, err)
	}
	return rep
}

// checkSmoke asserts that every group agrees on the checksum, that want (if
// not empty) is that checksum for the group named by its key, and that every
// scheduler in scheds was measured.
func checkSmoke(t *testing.T, rep jsonReport, want map[string]string, scheds ...string) {
	t.Helper()
	groups := map[string]string{}
	seen := map[string]bool{}
	for _, r := range rep.Results {
		seen[r.Scheduler] = true
		if len(r.RunsNs) != 2 || r.MedianNs <= 0 {
			t.Errorf("%s %v %s w=%d: runs %v, median %v; want 2 runs and a positive median", r.Scenario, r.Params, r.Scheduler, r.Workers, r.RunsNs, r.MedianNs)
		}
		key := r.Scenario
		for _, k := range []string{"weight", "n", "cutoff", "algo"} {
			if v, ok := r.Params[k]; ok {
				key += " " + k + "=" + v
			}
		}
		if c, ok := groups[key]; ok && c != r.Checksum {
			t.Errorf("%s: %s w=%d checksum %s, others %s", key, r.Scheduler, r.Workers, r.Checksum, c)
		}
		groups[key] = r.Checksum
	}
	for k, c := range want {
		if groups[k] != c {
			t.Errorf("%s: checksum %s, want %s", k, groups[k], c)
		}
	}
	for _, s := range scheds {
		if !seen[s] {
			t.Errorf("scheduler %s was not measured", s)
		}
	}
}

func TestSmokeSeed(t *testing.T) {
	const tasks = 3000
	rep := smoke(t, "seed", "-tasks", "3000", "-weights", "4,20", "-workers", "1,3", "-sweep", "1,2")
	want := map[string]string{}
	for _, weight := range []int{4, 20} {
		var sum uint64
		for i := range tasks {
			sum += seedTask(uint64(i), weight)
		}
		want["seed weight="+strconv.Itoa(weight)] = fmtChecksum(sum)
	}
	var scheds []string
	for _, row := range seedRows {
		scheds = append(scheds, row.sched)
	}
	checkSmoke(t, rep, want, scheds...)
	// The weight sweep measures the seeds' ports and the single producer only.
	for _, r := range rep.Results {
		if r.Params["weight"] == "20" && !slices.Contains([]string{"serial", "seeds-ws", "seeds-shared", "ws", "shared"}, r.Scheduler) {
			t.Errorf("the sweep measured %s", r.Scheduler)
		}
	}
	if len(rep.Sections) != 1 {
		t.Fatalf("seed report has %d sections, want 1", len(rep.Sections))
	}
	text := strings.Join(rep.Sections[0].Summary, "\n\n")
	for _, want := range []string{"The seeds' own design, ported to Go", "Our runtime, which creates every task",
		"- A fixed-grain loop (ForRange, grain 1):", "Where our runtime loses", "By weight (single producer):"} {
		if !strings.Contains(text, want) {
			t.Errorf("seed summary lacks %q:\n%s", want, text)
		}
	}

	// The table output shows every scheduler in the one seed table, with
	// how its tasks reach the workers, and no per-scheduler tables.
	var stdout, stderr bytes.Buffer
	args := []string{"seed", "-tasks", "2000", "-weights", "4", "-workers", "1,2", "-runs", "1"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d, stderr:\n%s", args, code, stderr.String())
	}
	out := stdout.String()
	for _, row := range seedRows {
		if !strings.Contains(out, "| "+row.sched+" ") || !strings.Contains(out, row.how) {
			t.Errorf("seed table lacks the row of %s (%s):\n%s", row.sched, row.how, out)
		}
	}
	if strings.Contains(out, "### seed weight=4 — ws (") {
		t.Errorf("seed output still has per-scheduler tables:\n%s", out)
	}
}

// -rounds measures the subcommand that many times in turn and pools the runs:
// every row has rounds × runs timed runs, the seed's own tables and reading
// are made once from all of them, and serve ignores it.
func TestRoundsPoolRuns(t *testing.T) {
	rep := smokeJSON(t, "seed", "-tasks", "2000", "-weights", "4,20", "-workers", "1,2", "-sweep", "1,2", "-runs", "1", "-rounds", "2")
	for _, r := range rep.Results {
		if len(r.RunsNs) != 2 {
			t.Errorf("%s %v %s w=%d: %d runs with -runs 1 -rounds 2, want 2", r.Scenario, r.Params, r.Scheduler, r.Workers, len(r.RunsNs))
		}
	}
	if len(rep.Sections) != 1 {
		t.Fatalf("seed report has %d sections, want 1", len(rep.Sections))
	}
	text := strings.Join(rep.Sections[0].Summary, "\n\n")
	if n := strings.Count(text, "The seeds' own design, ported to Go"); n != 1 {
		t.Errorf("the seed's reading appears %d times with -rounds 2, want once:\n%s", n, text)
	}
	rep = smokeJSON(t, "serve", "-duration", "20ms", "-clients", "2", "-n", "1000", "-workers", "1", "-rounds", "3")
	if len(rep.Sections) != 1 {
		t.Fatalf("serve report has %d sections, want 1", len(rep.Sections))
	}
}

// A later round that computed another checksum fails the measurement.
func TestMergeRoundCatchesAChangedChecksum(t *testing.T) {
	row := Result{Scenario: "fib", Params: []Param{{"n", "10"}}, Scheduler: "ws", Workers: 2, Checksum: 55, Durations: []time.Duration{1}}
	sec := Section{Results: []Result{row}}
	later := row
	later.Checksum = 56
	if err := mergeRound(&sec, &Section{Results: []Result{later}}); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("mergeRound with a changed checksum: %v, want a checksum error", err)
	}
	later = row
	later.Durations = []time.Duration{2}
	if err := mergeRound(&sec, &Section{Results: []Result{later}}); err != nil || len(sec.Results[0].Durations) != 2 {
		t.Errorf("mergeRound of an equal row: %v, durations %v; want both runs", err, sec.Results[0].Durations)
	}
}
