package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixedReport is a small report with every kind of row: fjkit schedulers with
// counters, a capped baseline, baselines without a worker count, a second
// group, an extra table, notes and a summary.
func fixedReport() *Report {
	ms := func(xs ...float64) []time.Duration {
		var ds []time.Duration
		for _, x := range xs {
			ds = append(ds, time.Duration(x*float64(time.Millisecond)))
		}
		return ds
	}
	w4 := []Param{{"weight", "4"}}
	r := func(sched string, workers int, params []Param, ds []time.Duration, cs []Counters) Result {
		return Result{Scenario: "seed", Params: params, Scheduler: sched, Workers: workers,
			Work: 2e6, Unit: "tasks", Durations: ds, Checksum: 0xdeadbeefcafe, Counters: cs}
	}
	return &Report{
		Env: Env{CPU: "Test CPU", Cores: 2, GOMAXPROCS: 2, Go: "go1.99", OS: "linux", Arch: "amd64",
			UsableBefore: 1.9, UsableAfter: 1.25},
		Sections: []Section{{
			Name: "seed",
			Results: []Result{
				r("serial", 0, w4, ms(8, 9, 10), nil),
				r("shared", 1, w4, ms(100, 110, 120), []Counters{{Tasks: 2e6}, {Tasks: 2e6, LockWaits: 2}, {Tasks: 2e6, LockWaits: 4}}),
				r("shared", 2, w4, ms(300, 310, 290), []Counters{{Tasks: 2e6, LockWaits: 90000}, {Tasks: 2e6, LockWaits: 80000}, {Tasks: 2e6, LockWaits: 85000}}),
				r("ws", 1, w4, ms(50, 52, 51), []Counters{{Tasks: 2e6}, {Tasks: 2e6}, {Tasks: 2e6}}),
				r("ws", 2, w4, ms(30, 29, 31), []Counters{{Tasks: 2e6, Steals: 300, Stolen: 40000}, {Tasks: 2e6, Steals: 200}, {Tasks: 2e6, Steals: 250}}),
				r("errgroup", 2, w4, ms(400, 420), nil),
				r("goroutines", 0, w4, ms(500), nil),
				r("serial", 0, []Param{{"weight", "400"}}, ms(2000, 2100, 1900), nil),
				r("ws", 2, []Param{{"weight", "400"}}, ms(1000, 1010, 990), []Counters{{Steals: 10}, {Steals: 12}, {Steals: 11}}),
			},
			Extra:   []Table{{Title: "extra", Header: []string{"a", "b"}, Right: []bool{false, true}, Rows: [][]string{{"x", "1"}, {"yy", "22"}}}},
			Notes:   []string{"Note: a footnote."},
			Summary: []string{"A summary."},
		}},
	}
}

func TestGoldenFormats(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeReport(&buf, format, fixedReport()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, buf.Bytes(), filepath.Join("testdata", "report."+format+".golden"))
		})
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
	if odd.Median != 20 || odd.Min != 10 || odd.Max != 30 || odd.Mean != 20 || odd.StdDev != 10 {
		t.Errorf("summarize(30,10,20) = %+v, want median 20, min 10, max 30, mean 20, stddev 10", odd)
	}
	if got := odd.spread(); got != 0.5 {
		t.Errorf("spread of 10..30 around 20 = %v, want 0.5", got)
	}
	even := summarize([]time.Duration{40, 10, 20, 1000})
	if even.Median != 30 {
		t.Errorf("median of 10,20,40,1000 = %v, want 30 (mean of the middle two)", even.Median)
	}
	if one := summarize([]time.Duration{7}); one.Median != 7 || one.StdDev != 0 {
		t.Errorf("summarize(7) = %+v", one)
	}
}

func TestSpeedups(t *testing.T) {
	rs := fixedReport().Sections[0].Results
	sp := speedups(rs)
	// ws at 2 workers: 51 ms at 1 worker / 30 ms; serial 9 ms / 30 ms.
	if got := sp[4]; !near(got.Self, 1.7) || !near(got.Serial, 0.3) {
		t.Errorf("ws w=2 speed-ups = %+v, want self 1.7, vs serial 0.3", got)
	}
	// weight=400 is a group of its own: ws has only w=2, so it is its own base.
	if got := sp[8]; !near(got.Self, 1) || !near(got.Serial, 2) {
		t.Errorf("weight=400 ws speed-ups = %+v, want self 1, vs serial 2", got)
	}
	if got := sp[6]; got.Self != 0 || !near(got.Serial, 0.018) {
		t.Errorf("goroutines speed-ups = %+v, want no self speed-up and 0.018 vs serial", got)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestMedianCounters(t *testing.T) {
	c, ok := medianCounters([]Counters{{Steals: 300}, {Steals: 200}, {Steals: 250, LockWaits: 1}})
	if !ok || c.Steals != 250 || c.LockWaits != 0 {
		t.Errorf("medianCounters = %+v, %v; want steals 250, lock waits 0", c, ok)
	}
	if _, ok := medianCounters(nil); ok {
		t.Error("medianCounters(nil) reported counters")
	}
}

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
	r, err := b.measure(Result{Scenario: "x"}, contender{scheduler: "steady", workers: 3,
		work: func() uint64 { return 42 }, counters: func() Counters { return Counters{Steals: 1} }})
	if err != nil || len(r.Durations) != 3 || len(r.Counters) != 3 || r.Checksum != 42 || r.Workers != 3 {
		t.Fatalf("measure = %+v, %v; want 3 runs, 3 counters, checksum 42, 3 workers", r, err)
	}
}

func TestUsableCores(t *testing.T) {
	u := usableCores()
	if max := float64(runtime.GOMAXPROCS(0)); u <= 0 || u > max {
		t.Errorf("usableCores() = %v, want in (0, %v]", u, max)
	}
}

// TestCounterFieldsCoverCounters keeps the one table of counters complete: a
// field added to Counters without a row in counterFields would be missing
// from the CSV, the JSON and the medians.
func TestCounterFieldsCoverCounters(t *testing.T) {
	var c Counters
	if n := reflect.TypeOf(c).NumField(); n != len(counterFields) {
		t.Fatalf("Counters has %d fields, counterFields %d rows", n, len(counterFields))
	}
	seen := map[*uint64]string{}
	for _, f := range counterFields {
		p := f.in(&c)
		if other, ok := seen[p]; ok {
			t.Errorf("counters %s and %s read the same field", f.name, other)
		}
		seen[p] = f.name
	}
	// Every row copies its own Stats field: a Stats with distinct values
	// comes through countersOf unchanged.
	st := forkjoin.Stats{Tasks: 1, Steals: 2, Stolen: 3, StealAttempts: 4, LockWaits: 5, Parks: 6, Wakeups: 7}
	if got, want := countersOf(st), (Counters{1, 2, 3, 4, 5, 6, 7}); got != want {
		t.Errorf("countersOf(%+v) = %+v, want %+v", st, got, want)
	}
	// And the JSON object round-trips.
	data, err := json.Marshal(jsonCounters{1, 2, 3, 4, 5, 6, 7})
	if err != nil {
		t.Fatal(err)
	}
	var back jsonCounters
	if err := json.Unmarshal(data, &back); err != nil || back != (jsonCounters{1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("JSON %s read back as %+v, %v", data, back, err)
	}
}
