package forkjoin_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// TestMisusePanics checks that bad arguments panic with a message that names
// the function and the argument, whether called outside or inside a task.
func TestMisusePanics(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	other := newPool(t, forkjoin.Workers(1)) // its worker is never p's
	inTask := func(f func(w *forkjoin.Worker)) func() {
		return func() { forkjoin.Run(p, f) }
	}
	nop := func(*forkjoin.Worker) {}
	nopInt := func(*forkjoin.Worker) int { return 0 }
	cases := []struct {
		name string
		f    func()
		want []string // substrings of the panic message
	}{
		{"Invoke nil fn", func() { forkjoin.Invoke[int](p, nil) }, []string{"forkjoin.Invoke", "fn"}},
		{"Run nil fn", func() { forkjoin.Run(p, nil) }, []string{"forkjoin.Run", "fn"}},
		{"InvokeContext nil fn", func() { forkjoin.InvokeContext[int](context.Background(), p, nil) }, []string{"forkjoin.InvokeContext", "fn"}},
		{"Invoke nil pool", func() { forkjoin.Invoke(nil, nopInt) }, []string{"forkjoin.Invoke", "p is nil"}},
		{"Join nil fa", inTask(func(w *forkjoin.Worker) { forkjoin.Join[int, int](w, nil, nopInt) }), []string{"forkjoin.Join", "fa"}},
		{"Join nil fb", inTask(func(w *forkjoin.Worker) { forkjoin.Join[int, int](w, nopInt, nil) }), []string{"forkjoin.Join", "fb"}},
		{"Do nil fn", inTask(func(w *forkjoin.Worker) { forkjoin.Do(w, nop, nil, nop) }), []string{"forkjoin.Do", "fns[1]"}},
		{"Spawn nil fn", inTask(func(w *forkjoin.Worker) { forkjoin.Spawn[int](w, nil) }), []string{"forkjoin.Spawn", "fn"}},
		{"Scope nil body", inTask(func(w *forkjoin.Worker) { forkjoin.Scope(w, nil) }), []string{"forkjoin.Scope", "body"}},
		{"S.Go nil fn", inTask(func(w *forkjoin.Worker) { forkjoin.Scope(w, func(s *forkjoin.S) { s.Go(nil) }) }), []string{"Go", "fn"}},
		{"For nil body", inTask(func(w *forkjoin.Worker) { forkjoin.For(w, 0, 10, nil) }), []string{"forkjoin.For", "body"}},
		{"ForRange nil body", inTask(func(w *forkjoin.Worker) { forkjoin.ForRange(w, 0, 10, 0, nil) }), []string{"forkjoin.ForRange", "body"}},
		{"ForRange negative grain", inTask(func(w *forkjoin.Worker) {
			forkjoin.ForRange(w, 0, 10, -1, func(*forkjoin.Worker, int, int) {})
		}), []string{"forkjoin.ForRange", "grain", "-1"}},
		{"Reduce nil mapf", inTask(func(w *forkjoin.Worker) {
			forkjoin.Reduce(w, 0, 10, 0, nil, func(x, y int) int { return x + y })
		}), []string{"forkjoin.Reduce", "mapf"}},
		{"Reduce nil combine", inTask(func(w *forkjoin.Worker) {
			forkjoin.Reduce(w, 0, 10, 0, func(i int) int { return i }, nil)
		}), []string{"forkjoin.Reduce", "combine"}},
		{"NewFunc nil fn", func() { forkjoin.NewFunc[int, int](nil) }, []string{"forkjoin.NewFunc", "fn"}},
		{"Workers(-3)", func() { forkjoin.Workers(-3) }, []string{"forkjoin.Workers", "n", "got -3"}},
		{"WithMode unknown", func() { forkjoin.WithMode(forkjoin.Mode(7)) }, []string{"forkjoin.WithMode", "mode", "7"}},
		{"WithSteal unknown", func() { forkjoin.WithSteal(forkjoin.StealPolicy(9)) }, []string{"forkjoin.WithSteal", "9"}},
		{"New nil Option", func() { forkjoin.New(nil) }, []string{"forkjoin.New", "nil Option"}},
		{"Future joined twice", inTask(func(w *forkjoin.Worker) {
			f := forkjoin.Spawn(w, nopInt)
			f.Join(w)
			f.Join(w)
		}), []string{"Future joined twice"}},
		{"Forked joined twice", inTask(func(w *forkjoin.Worker) {
			h := fibJoin.Fork(w, 5)
			h.Join(w)
			h.Join(w)
		}), []string{"Forked joined twice"}},
		{"Forked joined twice after reuse", inTask(func(w *forkjoin.Worker) {
			h := fibJoin.Fork(w, 5)
			h.Join(w)
			h2 := fibJoin.Fork(w, 6) // likely reuses h's record
			h.Join(w)
			h2.Join(w)
		}), []string{"Forked joined twice"}},
		{"Forked joined on another worker", inTask(func(w *forkjoin.Worker) {
			h := fibJoin.Fork(w, 5)
			forkjoin.Run(other, func(w2 *forkjoin.Worker) { h.Join(w2) })
		}), []string{"Forked joined on another worker"}},
		{"Future joined on another worker", inTask(func(w *forkjoin.Worker) {
			f := forkjoin.Spawn(w, nopInt)
			forkjoin.Run(other, func(w2 *forkjoin.Worker) { f.Join(w2) })
		}), []string{"Future joined on another worker"}},
		// Issue 16: each used to crash with a nil dereference, hang, or
		// run silently.
		{"InvokeContext nil ctx", func() {
			//lint:ignore SA1012 passing nil is the misuse under test
			forkjoin.InvokeContext(nil, p, nopInt) //nolint:staticcheck
		}, []string{"forkjoin.InvokeContext", "ctx is nil"}},
		{"Join nil worker", func() { forkjoin.Join(nil, nopInt, nopInt) }, []string{"forkjoin.Join", "w is nil"}},
		{"Func.Join nil worker", func() { fibJoin.Join(nil, 1, 2) }, []string{"forkjoin.Func.Join", "w is nil"}},
		{"Spawn nil worker", func() { forkjoin.Spawn(nil, nopInt) }, []string{"forkjoin.Spawn", "w is nil"}},
		{"Scope nil worker", func() { forkjoin.Scope(nil, func(*forkjoin.S) {}) }, []string{"forkjoin.Scope", "w is nil"}},
		{"For nil worker", func() { forkjoin.For(nil, 0, 1, func(*forkjoin.Worker, int) {}) }, []string{"forkjoin.For", "w is nil"}},
		{"Blocking nil worker", func() { forkjoin.Blocking(nil, func() {}) }, []string{"forkjoin.Blocking", "w is nil"}},
		{"Blocking nil fn", inTask(func(w *forkjoin.Worker) { forkjoin.Blocking(w, nil) }), []string{"forkjoin.Blocking", "fn"}},
		{"Close from a task of the pool", inTask(func(w *forkjoin.Worker) { p.Close() }), []string{"forkjoin.Close", "task of the same pool"}},
		{"S.Go after Scope returned", inTask(func(w *forkjoin.Worker) {
			var kept *forkjoin.S
			forkjoin.Scope(w, func(s *forkjoin.S) { kept = s })
			kept.Go(nop)
		}), []string{"forkjoin.S.Go", "scope has ended"}},
		{"Func.Go after Scope returned", inTask(func(w *forkjoin.Worker) {
			var kept *forkjoin.S
			forkjoin.Scope(w, func(s *forkjoin.S) { kept = s })
			fibJoin.Go(kept, 3)
		}), []string{"forkjoin.Func.Go", "scope has ended"}},
		{"Worker kept after Invoke returned", func() {
			var kept *forkjoin.Worker
			forkjoin.Run(p, func(w *forkjoin.Worker) { kept = w })
			forkjoin.Join(kept, nopInt, nopInt)
		}, []string{"forkjoin.Join", "not the calling task's worker"}},
		{"Func.Join on a Worker kept after Invoke returned", func() {
			var kept *forkjoin.Worker
			forkjoin.Run(p, func(w *forkjoin.Worker) { kept = w })
			fibJoin.Join(kept, 1, 2)
		}, []string{"forkjoin.Func.Join", "not the calling task's worker"}},
		{"Worker of one pool in a task of another", inTask(func(w *forkjoin.Worker) {
			forkjoin.Run(other, func(*forkjoin.Worker) { forkjoin.Spawn(w, nopInt) })
		}), []string{"forkjoin.Spawn", "not the calling task's worker"}},
		{"Worker used from another goroutine", inTask(func(w *forkjoin.Worker) {
			done := make(chan any)
			go func() {
				defer func() { done <- recover() }()
				forkjoin.For(w, 0, 2, func(*forkjoin.Worker, int) {})
			}()
			if v := <-done; v != nil {
				panic(v)
			}
		}), []string{"forkjoin.For", "not the calling task's worker"}},
		{"S.Go from a goroutine outside the pool", inTask(func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				done := make(chan any)
				go func() {
					defer func() { done <- recover() }()
					s.Go(nop)
				}()
				if v := <-done; v != nil {
					panic(v)
				}
			})
		}), []string{"forkjoin.S.Go", "not a worker of the scope's pool"}},
		// Issue 24: S.GoFrom ran a task on another pool, where it
		// outlived its Run; Do with one function or none checked
		// nothing; Canceled and Context on a nil *Worker crashed with a
		// nil dereference.
		{"S.GoFrom with a worker of another pool", inTask(func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				forkjoin.Run(other, func(w2 *forkjoin.Worker) { s.GoFrom(w2, nop) })
			})
		}), []string{"forkjoin.S.GoFrom", "another pool"}},
		{"Do one nil fn", inTask(func(w *forkjoin.Worker) { forkjoin.Do(w, nil) }), []string{"forkjoin.Do", "fns[0]"}},
		{"Do nil worker, one fn", func() { forkjoin.Do(nil, nop) }, []string{"forkjoin.Do", "w is nil"}},
		{"Do nil worker, no fn", func() { forkjoin.Do(nil) }, []string{"forkjoin.Do", "w is nil"}},
		{"Do on a Worker kept after Invoke returned", func() {
			var kept *forkjoin.Worker
			forkjoin.Run(p, func(w *forkjoin.Worker) { kept = w })
			forkjoin.Do(kept, nop)
		}, []string{"forkjoin.Do", "not the calling task's worker"}},
		{"Do with a worker of another pool", inTask(func(w *forkjoin.Worker) {
			forkjoin.Run(other, func(*forkjoin.Worker) { forkjoin.Do(w, nop) })
		}), []string{"forkjoin.Do", "not the calling task's worker"}},
		{"Canceled nil worker", func() { (*forkjoin.Worker)(nil).Canceled() }, []string{"Canceled", "w is nil"}},
		{"Context nil worker", func() { (*forkjoin.Worker)(nil).Context() }, []string{"Context", "w is nil"}},
		// Issue 38: a pending lazy fork's Join from another goroutine,
		// with the task's w, ran the fork there.
		{"Future.Join of a pending lazy spawn from another goroutine", inTask(func(w *forkjoin.Worker) {
			forkjoin.Join(w, nopInt, nopInt) // the first fork of a call is offered to thieves; not this one
			f := forkjoin.Spawn(w, nopInt)
			onOtherGoroutine(func() { f.Join(w) })
			f.Join(w)
		}), []string{"Future", "another goroutine"}},
		{"Forked.Join of a pending lazy fork from another goroutine", inTask(func(w *forkjoin.Worker) {
			forkjoin.Join(w, nopInt, nopInt)
			h := fibJoin.Fork(w, 5)
			onOtherGoroutine(func() { h.Join(w) })
			h.Join(w)
		}), []string{"Forked", "another goroutine"}},
		{"zero Forked", inTask(func(w *forkjoin.Worker) {
			var h forkjoin.Forked[int, int]
			h.Join(w)
		}), []string{"Forked"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := panicMessage(tc.f)
			if msg == "" {
				t.Fatal("did not panic")
			}
			for _, s := range tc.want {
				if !strings.Contains(msg, s) {
					t.Errorf("panic message %q does not contain %q", msg, s)
				}
			}
		})
	}
	// Misuse inside a task leaves the pool usable.
	checkUsable(t, p)
}

// onOtherGoroutine runs f on a new goroutine, waits for it, and re-raises
// its panic on the caller's.
func onOtherGoroutine(f func()) {
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	if v := <-done; v != nil {
		panic(v)
	}
}

// A misuse panic names the line of the caller's code that misused the API,
// not the library's line that raised it, and a misuse inside a task is not
// reported as the task's own panic ("task panicked").
func TestMisuseNamesCallSite(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	nopInt := func(*forkjoin.Worker) int { return 0 }
	var site string
	cases := []struct {
		name string
		f    func()
	}{
		{"Worker used from another goroutine", func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				onOtherGoroutine(func() {
					site = callSite(1)
					forkjoin.For(w, 0, 2, func(*forkjoin.Worker, int) {})
				})
			})
		}},
		{"S.Go after Scope returned", func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				var kept *forkjoin.S
				forkjoin.Scope(w, func(s *forkjoin.S) { kept = s })
				site = callSite(1)
				kept.Go(func(*forkjoin.Worker) {})
			})
		}},
		{"Future joined twice, in a spawned task", func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.Spawn(w, func(w *forkjoin.Worker) int {
					f := forkjoin.Spawn(w, nopInt)
					f.Join(w)
					site = callSite(1)
					return f.Join(w)
				}).Join(w)
			})
		}},
		{"Func.Join on a Worker kept after Invoke returned", func() {
			var kept *forkjoin.Worker
			forkjoin.Run(p, func(w *forkjoin.Worker) { kept = w })
			site = callSite(1)
			fibJoin.Join(kept, 1, 2)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := recovered(tc.f)
			if v == nil {
				t.Fatal("did not panic")
			}
			msg := fmt.Sprint(v)
			if !strings.Contains(msg, site) {
				t.Errorf("panic message %q does not name the call site %s", msg, site)
			}
			if strings.Contains(msg, "task panicked") {
				t.Errorf("panic message %q reports the misuse as a task's panic", msg)
			}
		})
	}
}

// callSite returns file:line of the line skip lines below its call.
func callSite(skip int) string {
	_, file, line, _ := runtime.Caller(1)
	return file + ":" + strconv.Itoa(line+skip)
}
