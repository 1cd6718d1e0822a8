package forkjoin_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// A task that calls runtime.Goexit (as testing.T.FailNow does) ends its
// worker's goroutine. The caller must get an error instead of waiting for
// ever, and the pool must keep all its workers.
func TestGoexitInTask(t *testing.T) {
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		p := forkjoin.New(forkjoin.Workers(2), forkjoin.WithMode(mode))
		cases := map[string]func(w *forkjoin.Worker){
			"root": func(*forkjoin.Worker) { runtime.Goexit() },
			"forked side": func(w *forkjoin.Worker) {
				started := make(chan struct{})
				forkjoin.Join(w,
					func(*forkjoin.Worker) int { <-started; return 0 },
					func(*forkjoin.Worker) int { close(started); runtime.Goexit(); return 0 })
			},
			"scope task": func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.S) { s.Go(func(*forkjoin.Worker) { runtime.Goexit() }) })
			},
		}
		for name, body := range cases {
			var v any
			withTimeout(t, 10*time.Second, func() { v = recovered(func() { forkjoin.Run(p, body) }) })
			var pe *forkjoin.PanicError
			if err, ok := v.(error); !ok || !errors.As(err, &pe) || !strings.Contains(pe.Error(), "Goexit") {
				t.Fatalf("%v, %s: recovered %v; want a *PanicError about Goexit", mode, name, v)
			}
		}
		// Both workers are still there: the forked side must run on the
		// other worker while the inline side waits for it.
		withTimeout(t, 10*time.Second, func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				started := make(chan struct{})
				forkjoin.Join(w,
					func(*forkjoin.Worker) int { <-started; return 0 },
					func(*forkjoin.Worker) int { close(started); return 0 })
			})
		})
		p.Close()
	}
}
