package workloads

import (
	"slices"
	"sync/atomic"
	"testing"
)

// The experiment's ported schedulers and the static baseline run each task
// exactly once, at every worker count, run after run.
func TestPortsRunEveryTaskOnce(t *testing.T) {
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
		for name, p := range map[string]Port{"port-ws": NewPortStealing(workers, n), "port-shared": NewPortShared(workers, n)} {
			for range 3 {
				p.Deal(n)
				p.Run(task)
				if c := p.Counters(); c.Tasks != n || workers == 1 && (c.Steals != 0 || c.LockWaits != 0) {
					t.Errorf("%s with %d workers: %+v, want %d tasks (and with one worker no steals or lock waits)", name, workers, c, n)
				}
			}
			check(name, 3)
		}
		Static(workers, n, task)
		check("static", 1)
	}
}

// A dry worker takes the back half, rounded up, of the first non-empty
// queue after its own, and the counters say so.
func TestPortStealingSteals(t *testing.T) {
	const n = 11
	st := NewPortStealing(4, n)
	st.Deal(n) // queues 0..3 hold 3, 3, 3, 2 tasks
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
	if c := st.Counters(); c.Steals != 2 || c.Stolen != 3 {
		t.Errorf("counters %+v, want 2 steals moving 3 tasks", c)
	}
	st.qs[0].tasks, st.qs[1].tasks = st.qs[0].tasks[:0], st.qs[1].tasks[:0]
	if st.stealHalf(2) {
		t.Error("stealHalf reported a steal with every queue empty")
	}
}
