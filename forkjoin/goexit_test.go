package forkjoin_test

import (
	"errors"
	"fmt"
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

// A task of a Tasks that calls runtime.Goexit ends its worker's goroutine,
// as any task's does; the set counts it as finished, and Wait re-raises it
// as a *PanicError of ErrGoexit, whether a thief ran it or it was a root
// that Submit started.
func TestTasksGoexit(t *testing.T) {
	isGoexit := func(v any) bool {
		pe, ok := v.(*forkjoin.PanicError)
		return ok && pe.Value == forkjoin.ErrGoexit
	}
	for _, goErr := range []bool{false, true} {
		t.Run(fmt.Sprintf("stolen/GoErr=%v", goErr), func(t *testing.T) {
			p := hangPool(t, forkjoin.Workers(2))
			var end endLog
			var got any
			withTimeout(t, 10*time.Second, func() {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					var ts forkjoin.Tasks
					started := make(chan struct{})
					if goErr {
						ts.GoErr(w, func() error { close(started); runtime.Goexit(); return nil }, &end)
					} else {
						ts.Go(w, func(*forkjoin.Worker) { close(started); runtime.Goexit() })
					}
					<-started // the other worker runs it
					defer func() { got = recover() }()
					ts.Wait(w)
				})
			})
			if !isGoexit(got) {
				t.Fatalf("Wait raised %v, want a *forkjoin.PanicError of ErrGoexit", got)
			}
			if goErr && (end.calls != 1 || len(end.errs) != 0 || len(end.panics) != 0) {
				t.Errorf("TaskEnded: %d calls, errors %v, panics %v; want one call with neither", end.calls, end.errs, end.panics)
			}
		})
	}
	t.Run("submitted", func(t *testing.T) {
		p := hangPool(t, forkjoin.Workers(2))
		var got any
		withTimeout(t, 10*time.Second, func() {
			var ts forkjoin.Tasks
			ts.Submit(p, func(*forkjoin.Worker) { runtime.Goexit() })
			defer func() { got = recover() }()
			ts.Wait(nil)
		})
		if !isGoexit(got) {
			t.Fatalf("Wait raised %v, want a *forkjoin.PanicError of ErrGoexit", got)
		}
	})
}
