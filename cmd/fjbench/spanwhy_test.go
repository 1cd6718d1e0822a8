package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// The tiny verdict says, from a row's measured span, whether the span is
// why it did not scale.
func TestSpanWhy(t *testing.T) {
	mk := func(sched string, workers int, d time.Duration, ws *forkjoin.WorkSpan) *Result {
		return &Result{Scenario: "tiny", Params: []Param{{"weight", "4"}}, Scheduler: sched, Workers: workers,
			Work: 1000, Durations: []time.Duration{d}, WorkSpan: ws}
	}
	producer := &forkjoin.WorkSpan{Work: 10 * time.Millisecond, Span: 9 * time.Millisecond, BurdenedSpan: 9500 * time.Microsecond}
	wide := &forkjoin.WorkSpan{Work: 10 * time.Millisecond, Span: time.Millisecond, BurdenedSpan: 2 * time.Millisecond}
	for _, c := range []struct {
		ws   *forkjoin.WorkSpan
		want string
	}{
		{producer, "did not scale: its span, 9.00 ms of 10.0 ms of work, allows at most 1.11× (1.05× with a steal's cost per fork on it)"},
		{wide, "did not scale: its span allows 10.00× (5.00× burdened), so the span does not explain it"},
		{nil, "no: did not scale; not ahead at 2"},
	} {
		m := tinyLookup{}
		for _, r := range []*Result{mk("ws-spawn", 1, time.Millisecond, nil), mk("ws-spawn", 2, time.Millisecond, c.ws),
			mk("shared-spawn", 1, time.Millisecond, nil), mk("shared-spawn", 2, time.Millisecond, nil)} {
			m["4/"+r.Scheduler+"/"+strconv.Itoa(r.Workers)] = r
		}
		tb := verdictTable(m, 4, 1, 2, 2, 2)
		if len(tb.Rows) != 1 || !strings.Contains(tb.Rows[0][len(tb.Rows[0])-1], c.want) {
			t.Errorf("verdict %q, want it to contain %q", tb.Rows, c.want)
		}
	}
}
