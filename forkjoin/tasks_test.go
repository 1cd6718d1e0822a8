package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// endLog is a TaskEnd that keeps every call.
type endLog struct {
	mu     sync.Mutex
	errs   []error
	panics []*forkjoin.PanicError
	calls  int
}

func (l *endLog) TaskEnded(err error, pe *forkjoin.PanicError) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if err != nil {
		l.errs = append(l.errs, err)
	}
	if pe != nil {
		l.panics = append(l.panics, pe)
	}
}

// GoErr's tasks tell their TaskEnd how they ended, each once and before
// Wait returns: the error, or the panic, which Wait then does not re-raise.
// The tasks start each other, so that thieves run some on 2 workers.
func TestTasksGoErr(t *testing.T) {
	const n = 200
	for _, workers := range []int{1, 2} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) {
			p := newPool(t, forkjoin.Workers(workers))
			var end endLog
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				var ts forkjoin.Tasks
				var start func(w *forkjoin.Worker, i int)
				start = func(w *forkjoin.Worker, i int) {
					ok := ts.GoErr(w, func() error {
						if i+1 < n {
							start(forkjoin.Current(), i+1)
						}
						switch {
						case i == 7:
							panic("seven")
						case i%10 == 3:
							return fmt.Errorf("task %d", i)
						}
						return nil
					}, &end)
					if !ok {
						t.Errorf("GoErr of task %d reported false in an invocation not canceled", i)
					}
				}
				start(w, 0)
				ts.Wait(w) // does not re-raise task 7's panic
			})
			if end.calls != n {
				t.Errorf("TaskEnded called %d times, want %d", end.calls, n)
			}
			if len(end.errs) != n/10 {
				t.Errorf("TaskEnded got %d errors, want %d: %v", len(end.errs), n/10, end.errs)
			}
			if len(end.panics) != 1 || end.panics[0].Value != "seven" || len(end.panics[0].Stack) == 0 {
				t.Errorf("TaskEnded got panics %v, want one of \"seven\" with its stack", end.panics)
			}
		})
	}
}

// A GoErr task's runtime.Goexit is told to its TaskEnd as a nil error, and
// the invocation fails with ErrGoexit: re-raised by Wait when a thief ran
// the task, or ended with the waiting task when Wait ran it.
func TestTasksGoErrGoexit(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) {
			p := hangPool(t, forkjoin.Workers(workers))
			var end endLog
			var got any
			withTimeout(t, 10*time.Second, func() {
				defer func() { got = recover() }()
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					var ts forkjoin.Tasks
					ts.GoErr(w, func() error { runtime.Goexit(); return nil }, &end)
					ts.Wait(w)
				})
			})
			if pe, ok := got.(*forkjoin.PanicError); !ok || pe.Value != forkjoin.ErrGoexit {
				t.Errorf("Wait raised %v, want a *forkjoin.PanicError of ErrGoexit", got)
			}
			if end.calls != 1 || len(end.errs) != 0 || len(end.panics) != 0 {
				t.Errorf("TaskEnded: %d calls, errors %v, panics %v; want one call with neither", end.calls, end.errs, end.panics)
			}
		})
	}
}

// badEnd is a TaskEnd that panics, or calls runtime.Goexit, when told of
// an error.
type badEnd struct{ goexit bool }

func (b badEnd) TaskEnded(err error, _ *forkjoin.PanicError) {
	if err == nil {
		return
	}
	if b.goexit {
		runtime.Goexit()
	}
	panic("bad end")
}

// A TaskEnd that panics or calls runtime.Goexit does not leave the set
// waiting: the task counts as finished, and Wait re-raises what TaskEnded
// did. On a thief (the function waits until the waiting task sees it has
// started), and on the waiting worker, whose set is waited for again.
func TestTasksGoErrBadEnd(t *testing.T) {
	for _, goexit := range []bool{false, true} {
		t.Run(fmt.Sprintf("thief/goexit=%v", goexit), func(t *testing.T) {
			p := hangPool(t, forkjoin.Workers(2))
			var got any
			withTimeout(t, 10*time.Second, func() {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					var ts forkjoin.Tasks
					started := make(chan struct{})
					ts.GoErr(w, func() error { close(started); return errors.New("fails") }, badEnd{goexit})
					<-started // the other worker runs it
					defer func() { got = recover() }()
					ts.Wait(w)
				})
			})
			want := any("bad end")
			if goexit {
				want = forkjoin.ErrGoexit
			}
			if pe, ok := got.(*forkjoin.PanicError); !ok || pe.Value != want {
				t.Errorf("Wait raised %v, want a *forkjoin.PanicError of %v", got, want)
			}
		})
	}
	t.Run("waiter", func(t *testing.T) {
		p := hangPool(t, forkjoin.Workers(1))
		var got any
		withTimeout(t, 10*time.Second, func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				var ts forkjoin.Tasks
				ts.GoErr(w, func() error { return errors.New("fails") }, badEnd{})
				func() {
					defer func() { got = recover() }()
					ts.Wait(w)
				}()
				ts.Wait(w) // the task counted as finished: nothing to wait for
			})
		})
		if pe, ok := got.(*forkjoin.PanicError); !ok || pe.Value != "bad end" {
			t.Errorf("Wait raised %v, want a *forkjoin.PanicError of TaskEnded's panic", got)
		}
	})
}

// In a canceled invocation GoErr starts nothing and reports false; end is
// not called.
func TestTasksGoErrCanceled(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	ctx, cancel := context.WithCancel(context.Background())
	var end endLog
	var started, ok bool
	_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
		cancel()
		for !w.Canceled() { // the invocation learns of it asynchronously
			time.Sleep(time.Millisecond)
		}
		var ts forkjoin.Tasks
		ok = ts.GoErr(w, func() error { started = true; return nil }, &end)
		ts.Wait(w)
		return 0
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("InvokeContext returned %v, want context.Canceled", err)
	}
	if ok || started || end.calls != 0 {
		t.Errorf("GoErr in a canceled invocation: reported %v, ran %v, TaskEnded called %d times; want false, no run, no call", ok, started, end.calls)
	}
}

// GoErr names the argument it rejects.
func TestTasksGoErrNil(t *testing.T) {
	p := newPool(t, forkjoin.Workers(1))
	for _, c := range []struct {
		name string
		f    func() error
		end  forkjoin.TaskEnd
		want string
	}{
		{"f", nil, &endLog{}, "forkjoin.Tasks.GoErr: f is nil"},
		{"end", func() error { return nil }, nil, "forkjoin.Tasks.GoErr: end is nil"},
	} {
		var got any
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			var ts forkjoin.Tasks
			defer func() { got = recover() }()
			ts.GoErr(w, c.f, c.end)
		})
		if got != c.want {
			t.Errorf("GoErr with a nil %s panicked with %v, want %q", c.name, got, c.want)
		}
	}
}

// TestTasksShareGivenBackBeforeOtherWork: a worker that ended a task of a
// set holds the count back only while it runs the set's tasks. Here the
// one worker ends the set's last task with another caller's invocation
// queued, which blocks until the set's Wait returns: the worker must give
// the set's count back before it starts that invocation, or the Wait, and
// so the invocation, wait for ever.
func TestTasksShareGivenBackBeforeOtherWork(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	var ts forkjoin.Tasks
	gate, ran, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	ts.Submit(p, func(w *forkjoin.Worker) {
		ts.Go(w, func(*forkjoin.Worker) {
			close(ran)
			<-gate // until the other invocation is queued behind us
		})
	})
	<-ran
	other := make(chan struct{})
	go func() {
		forkjoin.Run(p, func(*forkjoin.Worker) { <-release })
		close(other)
	}()
	time.Sleep(2 * time.Millisecond) // the invocation reaches the pool's queue; less than a spare's delay
	close(gate)
	waited := make(chan struct{})
	go func() {
		ts.Wait(nil)
		close(waited)
	}()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		close(release) // so that Close can end the pool
		<-other
		t.Fatal("Tasks.Wait did not return: the worker kept the set's count while it ran another invocation")
	}
	close(release)
	<-other
}
