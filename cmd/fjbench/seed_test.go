package main

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestSeedTaskIsTheSeedsFunction(t *testing.T) {
	// weight 0 returns seed|1; one round is one LCG step and one xorshift.
	if got := seedTask(6, 0); got != 7 {
		t.Errorf("seedTask(6, 0) = %d, want 7 (seed|1)", got)
	}
	s := uint64(7)
	s = s*6364136223846793005 + 1
	s ^= s >> 33
	if got := seedTask(6, 1); got != s {
		t.Errorf("seedTask(6, 1) = %#x, want %#x", got, s)
	}
}

func TestSweepTasks(t *testing.T) {
	for _, tc := range []struct{ tasks, weight, want int }{
		{2_000_000, 4, 2_000_000}, {2_000_000, 40, 2_000_000}, {2_000_000, 400, 200_000}, {10, 4000, 1},
	} {
		if got := sweepTasks(tc.tasks, tc.weight); got != tc.want {
			t.Errorf("sweepTasks(%d, %d) = %d, want %d", tc.tasks, tc.weight, got, tc.want)
		}
	}
}

// seedResult is one fabricated seed result: Work 1e6 tasks at rate tasks/s.
func seedResult(weight int, sched string, w int, rate float64, c Counters) Result {
	r := Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Scheduler: sched, Workers: w,
		Work: 1e6, Unit: "tasks", Durations: []time.Duration{time.Duration(1e9 * 1e6 / rate)}}
	if sched != "serial" && c != (Counters{}) || strings.Contains(sched, "ws") || strings.Contains(sched, "shared") {
		r.Counters = []Counters{c}
	}
	return r
}

// seedResults makes the results of a seed run in which each weight's ws and
// shared throughputs are given at 1 and 16 workers (tasks per second).
func seedResults(rates map[int][4]float64) []Result {
	var rs []Result
	for _, weight := range []int{4, 20, 400} {
		r4 := rates[weight]
		rs = append(rs,
			Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Scheduler: "serial", Work: 1e6, Unit: "tasks",
				Durations: []time.Duration{time.Duration(weight) * time.Millisecond}},
			seedResult(weight, "shared", 1, r4[0], Counters{}), seedResult(weight, "shared", 16, r4[1], Counters{LockWaits: 5000}),
			seedResult(weight, "ws", 1, r4[2], Counters{}), seedResult(weight, "ws", 16, r4[3], Counters{Steals: 300}))
	}
	return rs
}

// seedRun fabricates the main weight (4) of a full seed run on 2 cores:
// for each scheduler its throughput in M tasks/s at 1, 2 and 16 workers;
// steals grow with the workers for the stealing rows, lock waits for the
// shared ones. The serial loop takes 4 ms for the 1e6 tasks.
func seedRun(rates map[string][3]float64) []Result {
	rs := []Result{{Scenario: "seed", Params: []Param{{"weight", "4"}}, Scheduler: "serial", Work: 1e6, Unit: "tasks",
		Durations: []time.Duration{4 * time.Millisecond}}}
	for _, row := range seedRows {
		r3, ok := rates[row.sched]
		if !ok {
			continue
		}
		if row.sched == "goroutines" {
			rs = append(rs, seedResult(4, row.sched, 0, r3[0]*1e6, Counters{}))
			continue
		}
		for i, w := range []int{1, 2, 16} {
			var c Counters
			if strings.Contains(row.sched, "ws") {
				c = Counters{Tasks: 1e6, Steals: uint64(100 * i), Stolen: uint64(1000 * i), StealAttempts: uint64(200 * i), Parks: uint64(10 * i)}
			} else if strings.Contains(row.sched, "shared") {
				c = Counters{Tasks: 1e6, LockWaits: uint64(5000 * i)}
			}
			rs = append(rs, seedResult(4, row.sched, w, r3[i]*1e6, c))
		}
	}
	return rs
}

// seedsPicture is a run that shows the seeds' claim everywhere: every
// stealing row scales to 2 workers and holds up at 16, every shared row
// collapses, and ours stay within 15% of the seeds' port.
var seedsPicture = map[string][3]float64{
	"seeds-ws": {100, 190, 180}, "seeds-shared": {100, 60, 20},
	"ws": {95, 180, 170}, "ws-range": {90, 175, 165}, "ws-for": {100, 195, 185},
	"shared": {95, 50, 15}, "shared-range": {90, 50, 15}, "shared-for": {100, 120, 100},
	"chanpool": {5, 4, 3}, "errgroup": {2, 2, 1}, "goroutines": {1}, "static": {200, 390, 380},
}

// stealingLoses is a run where our work stealing loses: it gets slower with a
// second worker, the shared queue beats it, and the seeds' port is far ahead.
var stealingLoses = map[string][3]float64{
	"seeds-ws": {100, 190, 180}, "seeds-shared": {100, 60, 20},
	"ws": {50, 30, 10}, "ws-range": {20, 22, 9}, "ws-for": {60, 40, 20},
	"shared": {10, 40, 45}, "shared-range": {10, 35, 40}, "shared-for": {12, 45, 50},
	"chanpool": {5, 4, 3}, "errgroup": {2, 2, 1}, "goroutines": {1}, "static": {200, 390, 380},
}

func TestSeedSummaryTellsTheSeedsPicture(t *testing.T) {
	text := strings.Join(seedSummary(seedRun(seedsPicture), []int{4}, []int{1, 16}, seedMachine{cores: 2}), "\n\n")
	for _, want := range []string{
		"its work stealing went from 100 M tasks/s with 1 worker to 190 M with 2 (1.90×), and kept 0.95× of that with 16 workers, with 200 steals at 16 workers",
		"its global queue went from 100 M tasks/s with 1 worker to 60.0 M with 2 (0.60×: more workers made it slower)",
		"finding its lock held 10.00 times per 1000 tasks at 16 workers",
		"At 16 workers its work stealing delivered 9.00× the global queue's throughput.",
		"holds for their own design in this run",
		"- One producer (a Func.Go loop in a Scope): work stealing went from 95.0 M tasks/s with 1 worker to 180 M with 2 (1.89×)",
		"it took 1.06× the seeds' work-stealing port's time at 2 workers (1.05× at 1)",
		"Against our shared queue at 16 workers: 11.33× (work stealing ahead); the seeds' design: 9.00×",
		"Where our runtime loses: nowhere by more than 15%",
		"In short: the seeds' claim holds for their own design on this machine; our work stealing shows it in 3 of 3 spawn patterns",
		"(in: one producer, ForRange grain 1, For adaptive grain). Against the seeds' work-stealing port it took from 0.97× their time (For adaptive grain, 16 workers) to 1.11× (ForRange grain 1, 1 worker).",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "This pattern shows the seeds' claim: reproduced."); n != 3 {
		t.Errorf("%d patterns reproduce the seeds' claim, want all 3:\n%s", n, text)
	}
}

// TestSeedSummaryDoesNotCallALossAWin is the table where our stealing
// loses: the summary must say so, say where and why, and claim nothing the
// numbers contradict.
func TestSeedSummaryDoesNotCallALossAWin(t *testing.T) {
	text := strings.Join(seedSummary(seedRun(stealingLoses), []int{4}, []int{1, 16}, seedMachine{cores: 2}), "\n\n")
	for _, bad := range []string{"reproduced", "work stealing ahead", "Where our runtime loses: nowhere", "This pattern shows"} {
		if strings.Contains(text, bad) {
			t.Errorf("summary of a run where stealing loses says %q:\n%s", bad, text)
		}
	}
	for _, want := range []string{
		// The seeds' own design still holds: only ours loses.
		"holds for their own design in this run",
		"- One producer (a Func.Go loop in a Scope): work stealing went from 50.0 M tasks/s with 1 worker to 30.0 M with 2 (0.60×: more workers made it slower)",
		"This pattern does not show the seeds' claim: work stealing did not get faster from 1 to 2 workers (0.60×); at 16 workers it was not ahead of the shared queue (0.22× its throughput).",
		"the shared queue ahead, which the seeds did not see",
		// Where and why.
		"- One producer (a Func.Go loop in a Scope), 1 worker: 2.00× the seeds' port's time. Each task costs about 16.0 ns on top of the serial loop, against about 6.00 ns in the seeds' port",
		"own cost of spawning each task with Func.Go, inside the clock",
		"- One producer (a Func.Go loop in a Scope), 2 workers: slower than with 1 (0.60× the throughput) although the 2 cores had room; 6.33× the seeds' port's time, against 2.00× with 1.",
		"100 steals moving 1000 tasks and 200 steal attempts, against the seeds' 100 steals moving 1000 tasks",
		"- One producer (a Func.Go loop in a Scope), 16 workers on 2 cores: 0.33× of its 2-worker throughput (the seeds' port: 0.95×)",
		"- Our shared queue, one producer (a Func.Go loop in a Scope), 1 worker: 10.00× the seeds' global queue's time",
		// The closing paragraph counts the patterns and names the worst gap.
		"In short: the seeds' claim holds for their own design on this machine; our work stealing shows it in 0 of 3 spawn patterns (not in: one producer, ForRange grain 1, For adaptive grain).",
		"to 20.00× (ForRange grain 1, 16 workers).",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
}

// TestSeedSummaryWhenTheSeedsDesignFails: if even the seeds' port does not
// scale on the machine, the summary says so instead of retelling the seeds.
func TestSeedSummaryWhenTheSeedsDesignFails(t *testing.T) {
	rates := maps.Clone(seedsPicture)
	rates["seeds-ws"] = [3]float64{100, 90, 50}
	text := strings.Join(seedSummary(seedRun(rates), []int{4}, []int{1, 16}, seedMachine{cores: 2}), "\n\n")
	if !strings.Contains(text, "So in this run even the seeds' design does not show their claim: work stealing did not get faster from 1 to 2 workers (0.90×).") {
		t.Errorf("summary does not say the seeds' design failed here:\n%s", text)
	}
	if !strings.Contains(text, "In short: on this machine the seeds' claim does not hold even for their own design") {
		t.Errorf("the closing paragraph does not say the seeds' design failed here:\n%s", text)
	}
	if strings.Contains(text, "holds for their own design") {
		t.Errorf("summary says the seeds' claim holds for their design:\n%s", text)
	}
}

// TestGoldenSeedSection renders the seed section of the seeds' picture
// (the one table of every scheduler, the sweep, the summary) against
// testdata/seed.table.golden.
func TestGoldenSeedSection(t *testing.T) {
	rs := seedRun(seedsPicture)
	for _, weight := range []int{20, 400} {
		rs = append(rs,
			Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Scheduler: "serial", Work: 1e6, Unit: "tasks",
				Durations: []time.Duration{time.Duration(weight) * time.Millisecond}},
			seedResult(weight, "seeds-ws", 1, 40e6, Counters{}), seedResult(weight, "seeds-ws", 16, 70e6, Counters{Steals: 90}),
			seedResult(weight, "seeds-shared", 1, 40e6, Counters{}), seedResult(weight, "seeds-shared", 16, 30e6, Counters{LockWaits: 900}),
			seedResult(weight, "shared", 1, 30e6, Counters{}), seedResult(weight, "shared", 16, 20e6, Counters{LockWaits: 700}),
			seedResult(weight, "ws", 1, 35e6, Counters{}), seedResult(weight, "ws", 16, 60e6, Counters{Steals: 80}))
	}
	weights, sweep := []int{4, 20, 400}, []int{1, 16}
	sec := Section{Name: "seed", Results: rs, OwnTables: true, Extra: []Table{seedTable(rs, 4)}}
	if tb, ok := sweepTable(rs, weights, sweep); ok {
		sec.Extra = append(sec.Extra, tb)
	}
	sec.Summary = seedSummary(rs, weights, sweep, seedMachine{cores: 2})
	rep := &Report{Env: Env{CPU: "Test CPU", Cores: 2, GOMAXPROCS: 2, Go: "go1.99", OS: "linux", Arch: "amd64"}, Sections: []Section{sec}}
	var buf bytes.Buffer
	if err := writeReport(&buf, formatTable, rep); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, buf.Bytes(), filepath.Join("testdata", "seed.table.golden"))
}

func TestSeedSummaryReadsTheNumbers(t *testing.T) {
	// The seeds' picture: at weight 4 the shared queue slows down with 16
	// workers and work stealing is 4× ahead; at 400 they are level. The serial
	// runs make a task compute for weight ns, so handing a task out at one
	// worker costs 1e9/rate − weight ns.
	rs := seedResults(map[int][4]float64{
		4:   {4e6, 2e6, 5e6, 8e6},     // 246 and 196 ns against 4: coordination
		20:  {3e6, 2e6, 30e6, 4e6},    // 313 ns against 20, but 13 ns with ws
		400: {2e6, 1.9e6, 2.2e6, 2e6}, // 100 and 55 ns against 400: compute
	})
	text := strings.Join(seedSummary(rs, []int{4, 20, 400}, []int{1, 16}, seedMachine{cores: 2}), "\n")
	for _, want := range []string{
		"- Weight 4: a task computes for about 4.00 ns; with one worker, handing it out costs about 246 ns on the shared queue and about 196 ns with work stealing: coordination-bound under both schedulers. With 16 workers work stealing delivered 4.00× the shared queue's throughput (work stealing ahead).",
		"- Weight 20: a task computes for about 20.0 ns; with one worker, handing it out costs about 313 ns on the shared queue and about 13.3 ns with work stealing: compute-bound under work stealing, coordination-bound under the shared queue.",
		"- Weight 400: a task computes for about 400 ns; with one worker, handing it out costs about 100 ns on the shared queue and about 54.5 ns with work stealing: compute-bound under both schedulers. With 16 workers work stealing delivered 1.05× the shared queue's throughput (level within 15%).",
		"falls from 4.00× to 1.05×",
		"the seeds' conclusion, reproduced",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}

	// Reversed numbers must give the reversed reading, not the seeds' text.
	rs = seedResults(map[int][4]float64{
		4:   {4e6, 6e6, 4e6, 6e6},
		20:  {3e6, 2e6, 3e6, 6e6},
		400: {1e6, 2e6, 1e6, 1e6},
	})
	text = strings.Join(seedSummary(rs, []int{4, 20, 400}, []int{1, 16}, seedMachine{cores: 2}), "\n")
	for _, want := range []string{
		"With 16 workers work stealing delivered 1.00× the shared queue's throughput (level within 15%).",
		"With 16 workers work stealing delivered 0.50× the shared queue's throughput (the shared queue ahead, which the seeds did not see).",
		"At the lightest weight our work stealing was not ahead of our shared queue (1.00×)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "reproduced") {
		t.Errorf("summary claims the seeds' conclusion from numbers that contradict it:\n%s", text)
	}

	// A ratio that falls from below 1: stealing was never ahead, so the
	// fall is not the seeds' conclusion.
	rs = seedResults(map[int][4]float64{
		4:   {4e6, 8e6, 4e6, 6e6},
		20:  {3e6, 6e6, 3e6, 3e6},
		400: {1e6, 2e6, 1e6, 0.5e6},
	})
	text = strings.Join(seedSummary(rs, []int{4, 20, 400}, []int{1, 16}, seedMachine{cores: 2}), "\n")
	if strings.Contains(text, "reproduced") || !strings.Contains(text, "not ahead of our shared queue (0.75×)") {
		t.Errorf("a ratio falling from 0.75× is read as the seeds' conclusion:\n%s", text)
	}

	// A rise within the noise (1.00× to 1.02×) does not undo a clear fall.
	rs = seedResults(map[int][4]float64{
		4:   {4e6, 2e6, 5e6, 3.34e6},
		20:  {3e6, 2e6, 3e6, 2e6},
		400: {1e6, 1e6, 1e6, 1.02e6},
	})
	text = strings.Join(seedSummary(rs, []int{4, 20, 400}, []int{1, 16}, seedMachine{cores: 2}), "\n")
	if !strings.Contains(text, "falls from 1.67× to 1.02×") {
		t.Errorf("summary does not read 1.67×, 1.00×, 1.02× as falling:\n%s", text)
	}
}

// TestSeedPortsRunEveryTaskOnce: the seeds' schedulers and the static
// baseline run each task exactly once, at every worker count, run after run.
func TestSeedPortsRunEveryTaskOnce(t *testing.T) {
	const n = 10_007
	for _, workers := range []int{1, 2, 3, 8} {
		counts := make([]atomic.Int32, n)
		task := func(i int) { counts[i].Add(1) }
		check := func(name string, runs int) {
			t.Helper()
			for i := range counts {
				if c := counts[i].Swap(0); c != int32(runs) {
					t.Fatalf("%s, %d workers: task %d ran %d times in %d runs", name, workers, i, c, runs)
				}
			}
		}
		st := newSeedStealing(workers, n)
		for range 3 {
			st.deal(n)
			st.run(task)
			if c := st.counters(n); workers == 1 && (c.Steals != 0 || c.LockWaits != 0) {
				t.Errorf("seeds-ws with one worker: %+v, want no steals or lock waits", c)
			}
		}
		check("seeds-ws", 3)
		sh := newSeedShared(workers, n)
		for range 3 {
			sh.fill(n)
			sh.run(task)
		}
		check("seeds-shared", 3)
		flatStatic(workers, n, task)
		check("static", 1)
	}
}

// TestSeedStealingSteals: a dry worker takes the back half, rounded up, of
// the first non-empty queue after its own, and the counters say so.
func TestSeedStealingSteals(t *testing.T) {
	const n = 11
	st := newSeedStealing(4, n)
	st.deal(n) // queues 0..3 hold 3, 3, 3, 2 tasks
	st.qs[1].tasks, st.qs[2].tasks = st.qs[1].tasks[:0], st.qs[2].tasks[:0]
	if !st.stealHalf(1) { // 2 is empty, so 3 is the victim
		t.Fatal("stealHalf found nothing with tasks in queue 3")
	}
	if got := st.qs[1].tasks; !slices.Equal(got, []int32{7}) || !slices.Equal(st.qs[3].tasks, []int32{3}) {
		t.Errorf("after the steal queue 1 holds %v and queue 3 %v, want [7] and [3]", got, st.qs[3].tasks)
	}
	st.qs[0].tasks, st.qs[3].tasks = st.qs[0].tasks[:0], st.qs[3].tasks[:0]
	st.qs[1].tasks = append(st.qs[1].tasks, 1, 5, 9)
	if !st.stealHalf(0) || !slices.Equal(st.qs[0].tasks, []int32{5, 9}) {
		t.Errorf("stealing from 4 tasks took %v, want the back half [5 9]", st.qs[0].tasks)
	}
	if c := st.counters(n); c.Steals != 2 || c.Stolen != 3 {
		t.Errorf("counters %+v, want 2 steals moving 3 tasks", c)
	}
	st.qs[0].tasks, st.qs[1].tasks = st.qs[0].tasks[:0], st.qs[1].tasks[:0]
	if st.stealHalf(2) {
		t.Error("stealHalf reported a steal with every queue empty")
	}
}

// TestSeedSweepDoesNotCreditOverhead: a ws/shared ratio that falls with the
// weight is the seeds' conclusion only if the shared queue's cost is its
// lock's. Here our shared queue costs 10× the seeds' global queue per task at
// one worker, uncontended, so the fall must not be called reproduced.
func TestSeedSweepDoesNotCreditOverhead(t *testing.T) {
	rates := maps.Clone(stealingLoses)
	rates["shared"] = [3]float64{10, 12, 5} // ws/shared at 16 workers: 2.00×
	rs := seedRun(rates)
	for weight, ws := range map[int]float64{20: 7.5e6, 400: 5e6} {
		rs = append(rs,
			Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Scheduler: "serial", Work: 1e6, Unit: "tasks",
				Durations: []time.Duration{time.Duration(weight) * time.Millisecond}},
			seedResult(weight, "shared", 1, 5e6, Counters{}), seedResult(weight, "shared", 16, 5e6, Counters{}),
			seedResult(weight, "ws", 1, 5e6, Counters{}), seedResult(weight, "ws", 16, ws, Counters{}))
	}
	text := strings.Join(seedSummary(rs, []int{4, 20, 400}, []int{1, 16}, seedMachine{cores: 2}), "\n\n")
	want := "Our ws/shared ratio falls from 2.00× to 1.00× as the tasks get heavier, but at one worker, where its lock is never " +
		"contended, our shared queue took 10.00× the seeds' global queue's time per task at weight 4."
	if !strings.Contains(text, want) {
		t.Errorf("summary lacks %q:\n%s", want, text)
	}
	if strings.Contains(text, "reproduced") {
		t.Errorf("summary credits the shared queue's overhead as the seeds' conclusion:\n%s", text)
	}
}

// TestSeedSummaryCautionsOnABusyMachine: when a spin loop could not use the
// cores the workers were given, the summary says so before reading speed-ups.
func TestSeedSummaryCautionsOnABusyMachine(t *testing.T) {
	busy := seedSummary(seedRun(seedsPicture), []int{4}, []int{1, 16}, seedMachine{cores: 2, usable: 0.77})
	if len(busy) == 0 || !strings.HasPrefix(busy[0], "Caution: just before this scenario a spin loop could use only 0.77 of the 2 cores") {
		t.Errorf("summary of a busy machine does not open with the caution:\n%s", strings.Join(busy, "\n\n"))
	}
	quiet := seedSummary(seedRun(seedsPicture), []int{4}, []int{1, 16}, seedMachine{cores: 2, usable: 1.95})
	if strings.Contains(strings.Join(quiet, "\n"), "Caution") {
		t.Errorf("summary of a quiet machine cautions:\n%s", strings.Join(quiet, "\n\n"))
	}
}
