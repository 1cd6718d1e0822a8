package main

import (
	"strconv"
	"strings"
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

// seedResults makes the results of a seed run in which each weight's ws and
// shared throughputs are given at 1 and 16 workers (tasks per second).
func seedResults(rates map[int][4]float64) []Result {
	var rs []Result
	for _, weight := range []int{4, 20, 400} {
		r4 := rates[weight]
		mk := func(sched string, w int, rate float64, c Counters) Result {
			d := time.Duration(1e9 * 1e6 / rate)
			return Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Scheduler: sched, Workers: w,
				Work: 1e6, Unit: "tasks", Durations: []time.Duration{d}, Counters: []Counters{c}}
		}
		rs = append(rs,
			Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Scheduler: "serial", Work: 1e6, Unit: "tasks",
				Durations: []time.Duration{time.Duration(weight) * time.Millisecond}},
			mk("shared", 1, r4[0], Counters{}), mk("shared", 16, r4[1], Counters{LockWaits: 5000}),
			mk("ws", 1, r4[2], Counters{}), mk("ws", 16, r4[3], Counters{Steals: 300}))
	}
	return rs
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
	text := strings.Join(seedSummary(rs, []int{4, 20, 400}, []int{1, 16}), "\n")
	for _, want := range []string{
		"the shared queue with 16 workers reached 0.50× its throughput with 1 (2.00 M vs 4.00 M tasks/s): more workers made it slower",
		"work stealing with 16 workers reached 1.60× its throughput with 1 (8.00 M vs 5.00 M tasks/s), and",
		"needed only 300 steals",
		"work stealing delivered 4.00× the shared queue's throughput",
		"- Weight 4: a task computes for about 4.00 ns; with one worker, handing it out costs about 246 ns on the shared queue and 196 ns with work stealing: coordination-bound under both schedulers. With 16 workers work stealing delivered 4.00× the shared queue's throughput (work stealing ahead).",
		"- Weight 20: a task computes for about 20.0 ns; with one worker, handing it out costs about 313 ns on the shared queue and 13.3 ns with work stealing: compute-bound under work stealing, coordination-bound under the shared queue.",
		"- Weight 400: a task computes for about 400 ns; with one worker, handing it out costs about 100 ns on the shared queue and 54.5 ns with work stealing: compute-bound under both schedulers. With 16 workers work stealing delivered 1.05× the shared queue's throughput (level within 15%).",
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
	text = strings.Join(seedSummary(rs, []int{4, 20, 400}, []int{1, 16}), "\n")
	for _, want := range []string{
		"the shared queue with 16 workers reached 1.50× its throughput with 1 (6.00 M vs 4.00 M tasks/s), and",
		"With 16 workers work stealing delivered 1.00× the shared queue's throughput (level within 15%).",
		"With 16 workers work stealing delivered 0.50× the shared queue's throughput (the shared queue ahead, which the seeds did not see).",
		"does not fall clearly",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "reproduced") {
		t.Errorf("summary claims the seeds' conclusion from numbers that contradict it:\n%s", text)
	}

	// A rise within the noise (1.00× to 1.02×) does not undo a clear fall.
	rs = seedResults(map[int][4]float64{
		4:   {4e6, 2e6, 5e6, 3.34e6},
		20:  {3e6, 2e6, 3e6, 2e6},
		400: {1e6, 1e6, 1e6, 1.02e6},
	})
	text = strings.Join(seedSummary(rs, []int{4, 20, 400}, []int{1, 16}), "\n")
	if !strings.Contains(text, "falls from 1.67× to 1.02×") {
		t.Errorf("summary does not read 1.67×, 1.00×, 1.02× as falling:\n%s", text)
	}
}
