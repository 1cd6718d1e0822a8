package main

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

func TestSweepTasks(t *testing.T) {
	for _, tc := range []struct{ tasks, weight, want int }{
		{2_000_000, 4, 2_000_000}, {2_000_000, 40, 2_000_000}, {2_000_000, 400, 200_000}, {10, 4000, 1},
	} {
		if got := sweepTasks(tc.tasks, tc.weight); got != tc.want {
			t.Errorf("sweepTasks(%d, %d) = %d, want %d", tc.tasks, tc.weight, got, tc.want)
		}
	}
}

// tinyRun fabricates the main weight (4) of a run on 2 cores: for each
// scheduler its throughput in M tasks/s at 1, 2 and 16 workers. The serial
// loop takes 4 ms for the 1e6 tasks; the sweep's weights 20 and 400 get the
// single producer's and the ports' rows from sweep (M tasks/s at 1 and 16
// workers, in the order port-ws, port-shared, ws-spawn, shared-spawn).
func tinyRun(rates map[string][3]float64, sweep map[int][4][2]float64) *Section {
	row := func(weight int, sched string, w int, rate float64) Result {
		return Result{Scenario: "tiny", Params: []Param{{"weight", strconv.Itoa(weight)}}, Scheduler: sched, Workers: w,
			Work: 1e6, Unit: "tasks", Durations: []time.Duration{time.Duration(1e9 * 1e6 / rate)},
			Counters: []forkjoin.Stats{{Tasks: 1e6, Steals: uint64(w * 10), LockWaits: uint64(w * 100)}}}
	}
	serial := func(weight int) Result {
		return Result{Scenario: "tiny", Params: []Param{{"weight", strconv.Itoa(weight)}}, Scheduler: "serial", Work: 1e6, Unit: "tasks",
			Durations: []time.Duration{time.Duration(weight) * time.Millisecond}}
	}
	sec := &Section{Name: "tiny", Results: []Result{serial(4)}}
	for _, s := range slices.Sorted(maps.Keys(rates)) {
		for i, w := range []int{1, 2, 16} {
			sec.Results = append(sec.Results, row(4, s, w, rates[s][i]*1e6))
		}
	}
	for _, weight := range slices.Sorted(maps.Keys(sweep)) {
		sec.Results = append(sec.Results, serial(weight))
		for k, s := range []string{"port-ws", "port-shared", "ws-spawn", "shared-spawn"} {
			for i, w := range []int{1, 16} {
				sec.Results = append(sec.Results, row(weight, s, w, sweep[weight][k][i]*1e6))
			}
		}
	}
	addTinyTables(sec, []int{4, 20, 400}, []int{1, 2, 16}, []int{1, 16}, 2)
	return sec
}

// scalingPicture is a run that shows the experiment's claim everywhere:
// every stealing row scales to 2 workers and holds up at 16, every one-queue
// row collapses, and the ratio at 16 workers falls with the weight.
var scalingPicture = map[string][3]float64{
	"port-ws": {100, 190, 180}, "port-shared": {100, 60, 20},
	"ws-spawn": {95, 180, 170}, "ws-range": {90, 175, 165}, "ws-for": {100, 195, 185},
	"shared-spawn": {95, 50, 15}, "shared-range": {90, 50, 15}, "shared-for": {100, 120, 100},
}

var scalingSweep = map[int][4][2]float64{
	20:  {{40, 70}, {40, 30}, {35, 60}, {30, 20}},
	400: {{2, 3.6}, {2, 3.5}, {2, 3.5}, {2, 3.4}},
}

// TestTinyVerdictsOfAScalingRun renders the verdicts and the sweep of a run
// that shows the claim against testdata/tiny.table.golden.
func TestTinyVerdictsOfAScalingRun(t *testing.T) {
	sec := tinyRun(scalingPicture, scalingSweep)
	for _, row := range sec.Extra[0].Rows {
		if row[len(row)-1] != "holds" {
			t.Errorf("verdict on %s: %q, want holds", row[0], row[len(row)-1])
		}
	}
	if want := "ws ÷ shared 11.33×, 3.00×, 1.03× (falls with the weight: yes); port-ws ÷ port-shared 9.00×, 2.33×, 1.03× (falls: yes)"; !strings.Contains(sec.Notes[0], want) {
		t.Errorf("sweep note %q, want it to contain %q", sec.Notes[0], want)
	}
	sec.Results = nil // the golden file holds the tiny section's own tables
	var buf bytes.Buffer
	if err := writeReport(&buf, "table", &Report{Env: Env{CPU: "Test CPU", Cores: 2, GOMAXPROCS: 2, Go: "go1.99", OS: "linux", Arch: "amd64"},
		Sections: []Section{*sec}}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, buf.Bytes(), filepath.Join("testdata", "tiny.table.golden"))
}

// TestTinyVerdictsDoNotCallALossAWin: where our stealing gets slower with
// a second worker and the shared queue beats it, the verdicts say so, and
// a ratio that never started ahead does not "fall".
func TestTinyVerdictsDoNotCallALossAWin(t *testing.T) {
	rates := maps.Clone(scalingPicture)
	rates["ws-spawn"] = [3]float64{50, 30, 10}
	rates["ws-range"] = [3]float64{20, 24, 9}
	rates["shared-range"] = [3]float64{10, 35, 40}
	rates["port-ws"] = [3]float64{100, 110, 50}
	sweep := map[int][4][2]float64{20: {{40, 100}, {40, 30}, {5, 5}, {5, 6}}, 400: {{2, 2}, {2, 2}, {1, 1}, {1, 2}}}
	sec := tinyRun(rates, sweep)
	want := map[string]string{
		"port-ws":  "no: did not scale",
		"ws-spawn": "no: did not scale; not ahead at 16",
		"ws-range": "no: not ahead at 16", // 1.20× up to 2 workers is a gain, 0.23× the queue at 16 is not
		"ws-for":   "holds",
	}
	for _, row := range sec.Extra[0].Rows {
		if got := row[len(row)-1]; got != want[row[0]] {
			t.Errorf("verdict on %s: %q, want %q", row[0], got, want[row[0]])
		}
	}
	if !strings.Contains(sec.Notes[0], "(falls with the weight: no)") || !strings.Contains(sec.Notes[0], "(falls: no)") {
		t.Errorf("sweep note %q: neither ratio falls from ahead", sec.Notes[0])
	}
	// Without the one-queue rows (-mode ws) no verdict can say the claim holds.
	wsOnly := &Section{}
	for _, r := range tinyRun(scalingPicture, scalingSweep).Results {
		if !strings.HasPrefix(r.Scheduler, "shared-") && r.Scheduler != "port-shared" {
			wsOnly.Results = append(wsOnly.Results, r)
		}
	}
	addTinyTables(wsOnly, []int{4, 20, 400}, []int{1, 2, 16}, []int{1, 16}, 2)
	for _, row := range wsOnly.Extra[0].Rows {
		if got := row[len(row)-1]; got != "no: not ahead at 16" {
			t.Errorf("verdict on %s without its one queue: %q, want no: not ahead at 16", row[0], got)
		}
	}
	// On a busy machine the section opens with a caution.
	busy := &Section{Results: sec.Results, usable: 0.77}
	addTinyTables(busy, []int{4, 20, 400}, []int{1, 2, 16}, []int{1, 16}, 2)
	if !strings.HasPrefix(busy.Notes[0], "Caution: just before this scenario a spin loop could use only 0.77 of the 2 cores") {
		t.Errorf("a busy machine's notes: %q", busy.Notes)
	}
}
