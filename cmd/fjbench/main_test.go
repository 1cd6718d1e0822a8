package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
		{[]string{"-format", "xml"}, `-format must be table or bench, not "xml"`},
		{[]string{"-runs", "0"}, "-runs must be at least 1"},
		{[]string{"-rounds", "0"}, "-rounds must be at least 1"},
		{[]string{"-tasks", "0"}, "-tasks must be at least 1"},
		{[]string{"-plot", "out.pdf"}, `-plot needs a file ending in .svg or .png, not "out.pdf"`},
		{[]string{"-n", "-3"}, "must not be negative"},
		{[]string{"fib", "-workers", "4", "-plot", "x.svg"}, "-plot needs at least two -workers counts"},
		{[]string{"all", "-n", "10"}, "give them with one subcommand"},
		{[]string{"tiny", "extra"}, `unexpected argument "extra"`},
		{[]string{"-runs", "2", "tiny", "fib"}, `unexpected argument "fib"`},
		{[]string{"-runs"}, "flag needs an argument: -runs"},
		{[]string{"sort", "-input", "zigzag"}, `zigzag`},
		{[]string{"serve", "-clients", "0"}, "-clients must be at least 1"},
		{[]string{"serve", "-deadline", "0s"}, "-deadline and -duration must be positive"},
		{[]string{"serve", "-plot", "x.svg"}, "-plot with serve needs -workers"},
		{[]string{"treesum", "-n", "3000000000"}, "treesum: -n 3000000000: must be below 2^31-1"},
		{[]string{"-tasks", "3000000000"}, "tiny: -tasks 3000000000: must be at most 2^31-1"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 {
			t.Errorf("run(%q) = %d with stdout %q, want 2 and nothing", tc.args, code, stdout.String())
		}
		if !strings.Contains(stderr.String(), tc.msg) || !strings.Contains(stderr.String(), "usage: fjbench") {
			t.Errorf("run(%q) stderr = %q, want it to contain %q and the usage", tc.args, stderr.String(), tc.msg)
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

// smoke measures a command line in-process with two timed runs per row.
func smoke(t *testing.T, args ...string) *Report {
	t.Helper()
	cfg, todo, err := parseArgs(append(args, "-runs", "2"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := measureAll(cfg, todo, &bench{runs: cfg.runs})
	if err != nil {
		t.Fatalf("fjbench %q: %v", args, err)
	}
	if u := rep.Env.UsableBefore; u <= 0 || u > float64(runtime.GOMAXPROCS(0)) {
		t.Errorf("usable cores %v, want in (0, GOMAXPROCS]", u)
	}
	return rep
}

// checkSmoke asserts that every result has as many runs as -runs asked, that
// want (if not empty) is the checksum of the group named by its key (measure
// and checkGroups already hold every row of a group to one checksum), that
// every scheduler in scheds was measured, and that every scheduler measured
// has a doc, and that every table explains its columns.
func checkSmoke(t *testing.T, rep *Report, runs int, want map[string]uint64, scheds ...string) {
	t.Helper()
	seen := map[string]bool{}
	for _, sec := range rep.Sections {
		for _, r := range sec.Results {
			seen[r.Scheduler] = true
			if len(r.Durations) != runs {
				t.Errorf("%s %s w=%d: %d runs, want %d", r.group(), r.Scheduler, r.Workers, len(r.Durations), runs)
			}
			if c, ok := want[r.group()]; ok && r.Checksum != c {
				t.Errorf("%s %s w=%d: checksum %s, want %s", r.group(), r.Scheduler, r.Workers, fmtChecksum(r.Checksum), fmtChecksum(c))
			}
			if schedulerDoc(r.Scheduler) == "" {
				t.Errorf("scheduler %s is not in the list of schedulers", r.Scheduler)
			}
		}
	}
	for _, s := range scheds {
		if !seen[s] {
			t.Errorf("scheduler %s was not measured", s)
		}
	}
	checkLegends(t, rep)
}

// -rounds measures the subcommand that many times in turn and pools the
// runs; serve ignores it.
func TestRoundsPoolRuns(t *testing.T) {
	rep := smoke(t, "tiny", "-tasks", "2000", "-weights", "4,20", "-workers", "1,2", "-sweep", "1,2", "-rounds", "2")
	checkSmoke(t, rep, 4, nil)
	if n := len(rep.Sections[0].Extra); n != 2 {
		t.Errorf("tiny with -rounds 2 has %d tables of its own, want the verdicts and the sweep once", n)
	}
	rep = smoke(t, "serve", "-duration", "20ms", "-clients", "2", "-n", "1000", "-workers", "1", "-rounds", "3")
	checkSmoke(t, rep, 1, nil, "ws")
}

// The bench format, a chart and a CPU profile from one command line.
func TestBenchFormatPlotAndProfile(t *testing.T) {
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	svg, prof := filepath.Join(dir, "tiny.svg"), filepath.Join(dir, "cpu.prof")
	args := []string{"-tasks", "500", "-weights", "4", "-workers", "1,2", "-runs", "2", "-mode", "ws", "-format", "bench",
		"-plot", svg, "-cpuprofile", prof}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d, stderr:\n%s", args, code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("run(%q) wrote to stderr, which is not a terminal: %q", args, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"BenchmarkTiny/ws-spawn/w=2/weight=4\t1\t", "BenchmarkTiny/serial/weight=4\t1\t", " tasks/s\t", " steals/op\t"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "/shared-") {
		t.Errorf("-mode ws measured the shared queue:\n%s", out)
	}
	if n := strings.Count(out, "BenchmarkTiny/ws-spawn/w=1/weight=4\t"); n != 2 {
		t.Errorf("%d lines for ws-spawn w=1, want one per run (2)", n)
	}
	if data, err := os.ReadFile(svg); err != nil || !bytes.Contains(data, []byte("tiny weight=4: speed-up")) {
		t.Errorf("-plot %s: %v, %.40q", svg, err, data)
	}
	// A CPU profile is gzip-compressed protobuf: it starts with gzip's magic.
	if data, err := os.ReadFile(prof); err != nil || !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		t.Errorf("-cpuprofile %s: %v, %.8q", prof, err, data)
	}
}

func TestPlotFiles(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "out.svg")
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
	if root != "svg" || !bytes.Contains(data, []byte("tiny weight=4: speed-up")) {
		t.Fatalf("%s: root element %q, want svg with the chart title", svg, root)
	}
	// With two groups that have both compared schedulers, the ratio row appears.
	rep := fixedReport()
	rep.Sections[0].Compare = [2]string{"ws-spawn", "shared-spawn"}
	for _, r := range rep.Sections[0].Results[1:5] {
		r.Params = []Param{{"weight", "20"}}
		rep.Sections[0].Results = append(rep.Sections[0].Results, r)
	}
	var buf bytes.Buffer
	if err := writePlot(&buf, ".png", rep); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 3*200 {
		t.Errorf("the PNG is %v, too small for three rows of charts", b)
	}
	err = writePlot(io.Discard, ".svg", &Report{Sections: []Section{{Results: []Result{{Scenario: "x", Scheduler: "serial", Work: 1}}}}})
	if err == nil {
		t.Error("writePlot drew a report with no worker counts to vary")
	}
}
