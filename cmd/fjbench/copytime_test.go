package main

import (
	"slices"
	"testing"
	"time"
)

// TestCopyColumn: a group whose results carry a copy time gets a "× copy"
// column holding the median over the copy time; one without gets none.
func TestCopyColumn(t *testing.T) {
	rs := []Result{
		{Scenario: "sort", Scheduler: "slices.Sort", Durations: []time.Duration{40 * time.Millisecond}, Copy: 10 * time.Millisecond},
		{Scenario: "sort", Scheduler: "ws-quick", Workers: 2, Durations: []time.Duration{30, 20, 10}, Copy: 4},
	}
	tab := groupTable(rs, []int{0, 1}, 2)
	col := slices.Index(tab.Header, "× copy")
	if col < 0 {
		t.Fatalf("no × copy column in %q", tab.Header)
	}
	if got := tab.Rows[0][col]; got != "4.00×" {
		t.Errorf("serial row: × copy %q, want 4.00×", got)
	}
	if got := tab.Rows[1][col]; got != "5.00×" {
		t.Errorf("parallel row: × copy %q, want 5.00× (median 20 over 4)", got)
	}
	rs[0].Copy, rs[1].Copy = 0, 0
	if tab := groupTable(rs, []int{0, 1}, 2); slices.Contains(tab.Header, "× copy") {
		t.Errorf("× copy column without copy times: %q", tab.Header)
	}
}

// TestAddCopyTimes: every result gets the copy time of its worker count,
// serial code that of one worker.
func TestAddCopyTimes(t *testing.T) {
	sec := Section{Results: []Result{{Scheduler: "slices.Sort"}, {Workers: 1}, {Workers: 2}, {Workers: 2}}}
	addCopyTimes(&bench{runs: 3}, &sec, 1<<16)
	r := sec.Results
	for i := range r {
		if r[i].Copy <= 0 {
			t.Fatalf("result %d: Copy %v", i, r[i].Copy)
		}
	}
	if r[0].Copy != r[1].Copy || r[2].Copy != r[3].Copy {
		t.Errorf("copy times differ within a worker count: %v", []time.Duration{r[0].Copy, r[1].Copy, r[2].Copy, r[3].Copy})
	}
}
