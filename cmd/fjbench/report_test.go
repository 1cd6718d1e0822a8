package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// ms turns milliseconds into the durations of a result's runs.
func ms(xs ...float64) []time.Duration {
	var ds []time.Duration
	for _, x := range xs {
		ds = append(ds, time.Duration(x*float64(time.Millisecond)))
	}
	return ds
}

// fixedReport is a small report with every kind of row: fjkit schedulers with
// counters, a capped baseline, baselines without a worker count, a second
// group, an extra table and a note.
func fixedReport() *Report {
	w4 := []Param{{"weight", "4"}}
	r := func(sched string, workers int, params []Param, ds []time.Duration, cs ...forkjoin.Stats) Result {
		return Result{Scenario: "tiny", Params: params, Scheduler: sched, Workers: workers,
			Work: 2e6, Unit: "tasks", Durations: ds, Checksum: 0xdeadbeefcafe, Counters: cs}
	}
	return &Report{
		Env: Env{CPU: "Test CPU", Cores: 2, GOMAXPROCS: 2, Go: "go1.99", OS: "linux", Arch: "amd64",
			UsableBefore: 1.9, UsableAfter: 1.25},
		Sections: []Section{{
			Name: "tiny",
			Results: []Result{
				r("serial", 0, w4, ms(8, 9, 10)),
				r("shared-spawn", 1, w4, ms(100, 110, 120), forkjoin.Stats{}, forkjoin.Stats{LockWaits: 2}, forkjoin.Stats{LockWaits: 4}),
				r("shared-spawn", 2, w4, ms(300, 310, 290), forkjoin.Stats{LockWaits: 90000}, forkjoin.Stats{LockWaits: 80000}, forkjoin.Stats{LockWaits: 85000}),
				r("ws-spawn", 1, w4, ms(50, 52, 51), forkjoin.Stats{}, forkjoin.Stats{}, forkjoin.Stats{}),
				r("ws-spawn", 2, w4, ms(30, 29, 31), forkjoin.Stats{Steals: 300}, forkjoin.Stats{Steals: 200}, forkjoin.Stats{Steals: 250}),
				r("errgroup", 2, w4, ms(400, 420)),
				r("goroutines", 0, w4, ms(500)),
				r("serial", 0, []Param{{"weight", "400"}}, ms(2000, 2100, 1900)),
				r("ws-spawn", 2, []Param{{"weight", "400"}}, ms(1000, 1010, 990), forkjoin.Stats{Steals: 10}, forkjoin.Stats{Steals: 12}, forkjoin.Stats{Steals: 11}),
			},
			Extra: []Table{{Title: "extra", Header: []string{"a", "b"}, Right: []bool{false, true}, Rows: [][]string{{"x", "1"}, {"yy", "22"}}, Legend: "Columns: a names a row, b counts it."}},
			Notes: []string{"Note: a footnote."},
		}},
	}
}

func TestGoldenFormats(t *testing.T) {
	for _, format := range []string{"table", "bench"} {
		var buf bytes.Buffer
		if err := writeReport(&buf, format, fixedReport()); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, buf.Bytes(), filepath.Join("testdata", "report."+format+".golden"))
	}
}

// checkGolden compares got with the golden file (go test -update rewrites it).
func checkGolden(t *testing.T, got []byte, golden string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

func TestSummarize(t *testing.T) {
	odd := summarize([]time.Duration{30, 10, 20})
	if odd != (summary{Median: 20, Min: 10, Max: 30}) || odd.spread() != 0.5 {
		t.Errorf("summarize(30,10,20) = %+v, spread %v; want median 20, min 10, max 30, spread 0.5", odd, odd.spread())
	}
	if even := summarize([]time.Duration{40, 10, 20, 1000}); even.Median != 30 {
		t.Errorf("median of 10,20,40,1000 = %v, want 30 (mean of the middle two)", even.Median)
	}
	r := Result{Counters: []forkjoin.Stats{{Steals: 300}, {Steals: 200}, {Steals: 250, LockWaits: 1}}}
	if s, ok := r.counter(steals); !ok || s != 250 {
		t.Errorf("median steals = %d, %v; want 250", s, ok)
	}
	if _, ok := (&Result{}).counter(steals); ok {
		t.Error("a result without counters reported a median counter")
	}
}

func TestSpeedups(t *testing.T) {
	sp := speedups(fixedReport().Sections[0].Results)
	// ws at 2 workers: 51 ms at 1 worker / 30 ms; serial 9 ms / 30 ms.
	for i, want := range map[int]speedup{4: {Self: 1.7, Serial: 0.3}, 8: {Self: 1, Serial: 2}, 6: {Self: 0, Serial: 0.018}} {
		if got := sp[i]; !near(got.Self, want.Self) || !near(got.Serial, want.Serial) {
			t.Errorf("speed-ups of row %d = %+v, want %+v", i, got, want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestCheckGroupsCatchesDisagreement(t *testing.T) {
	rs := fixedReport().Sections[0].Results
	if err := checkGroups(rs); err != nil {
		t.Fatalf("agreeing results: %v", err)
	}
	rs[3].Checksum++ // ws w=1 dropped or repeated a task
	if err := checkGroups(rs); err == nil {
		t.Fatal("checkGroups accepted a result whose checksum differs from its group's")
	}
}

func TestMeasureCatchesUnstableChecksum(t *testing.T) {
	b := &bench{runs: 3}
	calls := uint64(0)
	_, err := b.measure(Result{Scenario: "x"}, contender{scheduler: "flaky", work: func() uint64 {
		calls++
		return calls / 2 // equal to the warm-up's once, then not
	}})
	if err == nil {
		t.Fatal("measure accepted runs whose checksums differ")
	}
	// The error stays, and nothing more is measured.
	if _, err2 := b.measure(Result{}, contender{work: func() uint64 { t.Error("measured after an error"); return 0 }}); err2 != err {
		t.Errorf("the next measurement returned %v, want the first error", err2)
	}
	b = &bench{runs: 3}
	r, err := b.measure(Result{Scenario: "x"}, contender{scheduler: "steady", workers: 3,
		work: func() uint64 { return 42 }, counters: func() forkjoin.Stats { return forkjoin.Stats{Steals: 1} }})
	if err != nil || len(r.Durations) != 3 || len(r.Counters) != 3 || r.Checksum != 42 || r.Workers != 3 {
		t.Fatalf("measure = %+v, %v; want 3 runs, 3 counters, checksum 42, 3 workers", r, err)
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
