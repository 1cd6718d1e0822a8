package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// sortRow is a row of the sort scenario with the given runs (ms) and the
// cores a spin loop found usable around them.
func sortRow(sched string, workers int, usable float64, runs ...float64) Result {
	return Result{Scenario: "sort", Params: []Param{{"n", "1000000"}}, Scheduler: sched, Workers: workers,
		Work: 1e6, Unit: "elems", Durations: ms(runs...), Checksum: 1, Usable: usable}
}

// cell is the cell of table t in the row whose first two cells are sched
// and workers, under the column named col.
func cell(t *testing.T, tb Table, sched, workers, col string) string {
	t.Helper()
	c := -1
	for i, h := range tb.Header {
		if h == col {
			c = i
		}
	}
	if c < 0 {
		t.Fatalf("table %q has no column %q: %q", tb.Title, col, tb.Header)
	}
	for _, row := range tb.Rows {
		if row[0] == sched && row[2] == workers {
			return row[c]
		}
	}
	t.Fatalf("table %q has no row %s w=%s", tb.Title, sched, workers)
	return ""
}

// The table: slices.Sort's runs ±42% apart made a one-worker merge
// sort look 4.4× faster than serial, the cores a spin loop could use fell to
// 0.82 during the two-worker rows, and -workers went to 16 on two cores.
// Each of those is marked in the table itself.
func TestSortTableMarks(t *testing.T) {
	rs := []Result{
		sortRow("slices.Sort", 0, 1.9, 44, 88, 120),          // median 88 ms, ±43%
		sortRow("ws-merge", 1, 1.9, 20, 20, 20.4),            // 4.4× "vs serial" on a doubtful baseline
		sortRow("ws-merge", 2, 0.82, 11, 11, 11.2),           // the cores were taken
		sortRow("ws-merge", 16, 1.9, 12, 12, 12.1),           // oversubscribed
		sortRow("par.Sort", 1, 1.95, 5, 5, 5.1),              // steady, enough cores
		sortRow("par.Sort", 2, 1.8, 2.6, 2.6, 2.65),          // steady, enough cores
		sortRow("goroutines", 0, 1.9, 30, 30, 30.3),          // wants every core, had them
		sortRow("par.SortByKey", 1, 1.95, 10, 10, 10.1),      // steady
		sortRow("par.SortFunc", 1, 1.9, 30, 30, 30.2),        // steady
		sortRow("par.SortStableFunc", 1, 1.9, 31, 31, 31.05), // steady
	}
	tb := groupTable(rs, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 2)

	if m := cell(t, tb, "slices.Sort", "—", "marks"); !strings.Contains(m, "unreliable") || !strings.Contains(m, "±43.2%") {
		t.Errorf("slices.Sort ±43%%: marks %q, want unreliable naming the spread", m)
	}
	if v := cell(t, tb, "ws-merge", "1", "vs serial"); v != "4.40× ?" {
		t.Errorf("ws-merge w=1 vs serial = %q, want 4.40× marked doubtful (its baseline is unreliable)", v)
	}
	if m := cell(t, tb, "ws-merge", "1", "marks"); m != "" {
		t.Errorf("ws-merge w=1 is steady with its core, but marked %q", m)
	}
	if m := cell(t, tb, "ws-merge", "2", "marks"); !strings.Contains(m, "unreliable") || !strings.Contains(m, "0.82 of the 2 cores") {
		t.Errorf("ws-merge w=2 with 0.82 cores usable: marks %q, want unreliable naming the cores", m)
	}
	if s := cell(t, tb, "ws-merge", "2", "speed-up"); !strings.HasSuffix(s, doubtfulMark) {
		t.Errorf("ws-merge w=2 speed-up %q rests on an unreliable row, want it marked", s)
	}
	cell(t, tb, "ws-merge", "16 (oversubscribed)", "time") // the worker count is marked
	if m := cell(t, tb, "par.Sort", "2", "marks"); m != "" {
		t.Errorf("par.Sort w=2 with 1.8 of 2 cores and steady runs: marked %q", m)
	}
	if s := cell(t, tb, "par.Sort", "2", "speed-up"); s != "1.92×" {
		t.Errorf("par.Sort w=2 speed-up %q, want 1.92× unmarked", s)
	}
	if m := cell(t, tb, "goroutines", "—", "marks"); m != "" {
		t.Errorf("goroutines with 1.9 of 2 cores: marked %q", m)
	}

	// The legend names every column and every mark, and the table prints it.
	for _, h := range tb.Header {
		if !strings.Contains(tb.Legend, h) {
			t.Errorf("legend does not explain column %q:\n%s", h, tb.Legend)
		}
	}
	for _, m := range []string{"unreliable", "?", "(oversubscribed)", "±15%", "2 cores", "slices.Sort's time"} {
		if !strings.Contains(tb.Legend, m) {
			t.Errorf("legend does not mention %q:\n%s", m, tb.Legend)
		}
	}
	var buf bytes.Buffer
	renderTable(&errWriter{w: &buf}, tb)
	if !strings.HasSuffix(buf.String(), "|\n\n"+tb.Legend+"\n") {
		t.Errorf("the legend is not printed under the table:\n%s", buf.String())
	}
}

// Without a usable-cores measurement (0) only the spread can mark a row; a
// serial row needs one core, a baseline without a worker count every core.
func TestUnreliable(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{sortRow("ws", 2, 0, 10, 10, 10), ""},
		{sortRow("ws", 2, 0, 10, 13, 16), "unreliable: runs ±23.1% apart"},
		{sortRow("ws", 2, 1.75, 10, 10, 10), ""},
		{sortRow("ws", 2, 1.6, 10, 10, 10), "unreliable: 1.60 of the 2 cores it needs usable"},
		{sortRow("ws", 1, 1.0, 10, 10, 10), ""},
		{sortRow("ws", 16, 1.6, 10, 10, 10), "unreliable: 1.60 of the 2 cores it needs usable"},
		{sortRow("slices.Sort", 0, 0.9, 10, 10, 10), ""},
		{sortRow("goroutines", 0, 1.2, 10, 10, 10), "unreliable: 1.20 of the 2 cores it needs usable"},
	} {
		if got := unreliable(&c.r, 2); got != c.want {
			t.Errorf("%s w=%d usable %.2f runs %v: %q, want %q", c.r.Scheduler, c.r.Workers, c.r.Usable, c.r.Durations, got, c.want)
		}
	}
}

// measure asks the bench's usable-cores probe before and after a row's
// runs and keeps the fewer; rounds keep the fewest.
func TestMeasureRecordsUsableCores(t *testing.T) {
	probes := []float64{1.9, 0.8, 1.7, 1.95}
	b := &bench{runs: 2, usable: func() float64 { u := probes[0]; probes = probes[1:]; return u }}
	c := contender{scheduler: "ws", workers: 2, work: func() uint64 { time.Sleep(time.Millisecond); return 1 }}
	r1, err := b.measure(Result{Scenario: "x"}, c)
	if err != nil || r1.Usable != 0.8 {
		t.Fatalf("first row: usable %v (err %v), want 0.8, the lower of 1.9 and 0.8", r1.Usable, err)
	}
	r2, _ := b.measure(Result{Scenario: "x"}, c)
	if r2.Usable != 1.7 {
		t.Fatalf("second row: usable %v, want 1.7", r2.Usable)
	}
	sec, next := Section{Results: []Result{r2}}, Section{Results: []Result{r1}}
	if err := mergeRound(&sec, &next); err != nil || sec.Results[0].Usable != 0.8 {
		t.Errorf("merged rounds: usable %v (err %v), want 0.8, the fewest of any round", sec.Results[0].Usable, err)
	}
}

// Every table a scenario makes explains each of its columns under it.
func checkLegends(t *testing.T, rep *Report) {
	t.Helper()
	for _, sec := range rep.Sections {
		tables := sec.Extra
		if !sec.OwnTables {
			for _, g := range groupsOf(sec.Results) {
				tables = append(tables, groupTable(sec.Results, g, coresOf(rep.Env)))
			}
		}
		for _, tb := range tables {
			if tb.Legend == "" {
				t.Errorf("%s: table %q has no legend", sec.Name, tb.Title)
			}
			for _, h := range tb.Header {
				if !strings.Contains(tb.Legend, h) {
					t.Errorf("%s: the legend of table %q does not explain column %q", sec.Name, tb.Title, h)
				}
			}
		}
	}
}

func TestUnreliableOneCore(t *testing.T) {
	r := sortRow("ws", 1, 0.6, 10, 10, 10)
	if got, want := unreliable(&r, 2), "unreliable: 0.60 of the 1 core it needs usable"; got != want {
		t.Errorf("unreliable = %q, want %q", got, want)
	}
}
