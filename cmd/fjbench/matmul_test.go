package main

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/cpu"
)

// finishMatMul's table rates each row against the cores it used: the same
// time on two workers is half the percentage of one worker's, gonum's Mul
// counts every CPU, and the serial code one.
func TestFinishMatMulPeakTable(t *testing.T) {
	// 64 Mflop in a millisecond: about one core's peak, so that the
	// percentages come out large enough to compare.
	base := Result{Scenario: "matmul", Params: []Param{{"n", "400"}}, Work: 64e6, Unit: "flop",
		Durations: []time.Duration{time.Millisecond}}
	row := func(sched string, workers int) Result {
		r := base
		r.Scheduler, r.Workers = sched, workers
		return r
	}
	sec := Section{Results: []Result{row("serial", 0), row("gonum", 0), row("ws", 1), row("ws", 2)}}
	finishMatMul(nil, &sec)
	if len(sec.Notes) != 1 {
		t.Fatalf("notes = %q, want one saying how the peak is estimated", sec.Notes)
	}
	if runtime.GOARCH != "amd64" || !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		if !strings.HasPrefix(sec.Notes[0], "No peak estimate") || len(sec.Extra) != 0 {
			t.Errorf("without AVX2+FMA: notes %q, %d extra tables; want no estimate and no table", sec.Notes, len(sec.Extra))
		}
		return
	}
	if !strings.HasPrefix(sec.Notes[0], "Peak: ") || !strings.Contains(sec.Notes[0], "× 16 flop/cycle") {
		t.Errorf("note %q does not say how the peak is estimated", sec.Notes[0])
	}
	if len(sec.Extra) != 1 || len(sec.Extra[0].Rows) != 4 {
		t.Fatalf("extra tables %+v, want one with a row per result", sec.Extra)
	}
	pct := map[string]string{}
	for _, r := range sec.Extra[0].Rows {
		pct[r[0]+"/"+strings.TrimSuffix(r[1], " (oversubscribed)")] = r[4] // one core: 2 workers are marked
	}
	// Two workers use two cores where there are two: on one core, the
	// peak they are rated against is one core's.
	cores := min(runtime.NumCPU(), runtime.GOMAXPROCS(0))
	p1, p2 := parsePct(t, pct["ws/1"]), parsePct(t, pct["ws/2"])
	if used := float64(min(2, cores)); p2 < p1/used-1 || p2 > p1/used+1 {
		t.Errorf("same time on 2 workers (%v cores) is %v%% of the peak, on 1 worker %v%%: want 1/%v", used, p2, p1, used)
	}
	if ps, pg := parsePct(t, pct["serial/—"]), parsePct(t, pct["gonum/—"]); pg < ps/float64(cores)-1 || pg > ps/float64(cores)+1 {
		t.Errorf("serial %v%%, gonum %v%% at the same time: want gonum's over %d cores", ps, pg, cores)
	}
}

func parsePct(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(strings.TrimSuffix(s, " %"), 64)
	if err != nil {
		t.Fatalf("percentage %q: %v", s, err)
	}
	return x
}
