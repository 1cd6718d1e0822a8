package forkjoin_test

import (
	"strconv"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
)

// BenchmarkTinyTasks is the tiny-tasks experiment (docs/benchmarks.md) under
// testing.B, with fjbench tiny's tasks (internal/workloads): 2²¹ tasks of
// each weight handed to a pool in each mode by one producer (closure: S.Go;
// func: Func.Go) or by ForRange with grain 1 (range: a loop split on demand
// in work-stealing mode, every piece queued in shared-queue mode), and the
// experiment's own two schedulers (port), in the same run.
func BenchmarkTinyTasks(b *testing.B) {
	const tasks = 1 << 21 // about 2·10⁶
	for _, weight := range []int{4, 20, 400} {
		t := workloads.NewTiny(tasks, weight)
		for _, spawn := range []string{"closure", "func", "range"} {
			body := map[string]func(*forkjoin.Worker){"closure": t.SpawnClosure, "func": t.SpawnFunc, "range": t.Range}[spawn]
			for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
				for _, workers := range []int{1, 2, 16} {
					name := "weight=" + strconv.Itoa(weight) + "/" + spawn + "/" + mode.String() + "/workers=" + strconv.Itoa(workers)
					b.Run(name, func(b *testing.B) {
						p := forkjoin.New(forkjoin.Workers(workers), forkjoin.WithMode(mode))
						defer p.Close()
						forkjoin.Run(p, body)
						p.ResetStats()
						b.ReportAllocs()
						b.ResetTimer()
						for range b.N {
							forkjoin.Run(p, body)
						}
						b.StopTimer()
						reportTiny(b, tasks, p.Stats())
					})
				}
			}
		}
		for _, workers := range []int{1, 2, 16} {
			ports := map[string]workloads.Port{"port-ws": workloads.NewPortStealing(workers, tasks), "port-shared": workloads.NewPortShared(workers, tasks)}
			for _, kind := range []string{"port-ws", "port-shared"} {
				b.Run("weight="+strconv.Itoa(weight)+"/"+kind+"/workers="+strconv.Itoa(workers), func(b *testing.B) {
					p := ports[kind]
					var sum forkjoin.Stats
					b.ReportAllocs()
					for range b.N {
						b.StopTimer()
						p.Deal(tasks) // the port gets its tasks before the clock starts
						b.StartTimer()
						p.Run(t.Run)
						c := p.Counters()
						sum.Steals, sum.LockWaits, sum.Stolen = sum.Steals+c.Steals, sum.LockWaits+c.LockWaits, sum.Stolen+c.Stolen
					}
					b.StopTimer()
					reportTiny(b, tasks, sum)
				})
			}
		}
	}
}

// reportTiny adds the throughput and the scheduler's counters per run.
func reportTiny(b *testing.B, tasks int, st forkjoin.Stats) {
	b.ReportMetric(float64(tasks)*float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
	for _, m := range []struct {
		v    uint64
		unit string
	}{{st.Steals, "steals/op"}, {st.LockWaits, "lockwaits/op"}, {st.Stolen, "stolen/op"}, {st.Parks, "parks/op"}} {
		b.ReportMetric(float64(m.v)/float64(b.N), m.unit)
	}
}
