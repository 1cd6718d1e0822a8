package main

import (
	"github.com/fjkit/fjkit/forkjoin"
)

// poolModes maps the -mode names to the runtime's scheduling modes.
var poolModes = map[string]forkjoin.Mode{
	"ws":     forkjoin.WorkStealing,
	"shared": forkjoin.SharedQueue,
}

// measureOurs measures body on an fjkit pool for every mode and worker
// count: a fresh pool per measurement, its counters reset before every run
// and read after it. prepare (may be nil) runs untimed before every run;
// the scheduler is named mode+suffix ("ws", "shared-merge").
func measureOurs(b *bench, base Result, modes []string, workers []int, suffix string, prepare func(), body func(w *forkjoin.Worker) uint64) ([]Result, error) {
	var out []Result
	for _, mode := range modes {
		for _, n := range workers {
			p := forkjoin.New(forkjoin.Workers(n), forkjoin.WithMode(poolModes[mode]))
			r, err := b.measure(base, contender{
				scheduler: mode + suffix,
				workers:   n,
				prepare: func() {
					if prepare != nil {
						prepare()
					}
					p.ResetStats()
				},
				work:     func() uint64 { return forkjoin.Invoke(p, body) },
				counters: func() Counters { return countersOf(p.Stats()) },
			})
			p.Close()
			if err != nil {
				return out, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}
