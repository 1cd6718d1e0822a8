package forkjoin_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// boomError is a panic value that is an error, to check errors.Is/As
// through a *forkjoin.PanicError.
type boomError struct{ where string }

func (e *boomError) Error() string { return "boom in " + e.where }

// sideState is shared by the two sides of a join in the panic tests.
type sideState struct {
	started, finished atomic.Bool
}

// slowSide is the side that does not panic: it records that it started,
// takes a while, and records that it finished.
func slowSide(st *sideState) int {
	st.started.Store(true)
	time.Sleep(20 * time.Millisecond)
	st.finished.Store(true)
	return 1
}

// panickingTask is the side that panics. If waitOther, it first waits until
// the other side has started (on a thief), so that the panic must wait for it.
func panickingTask(st *sideState, waitOther bool, v any) int {
	if waitOther {
		deadline := time.Now().Add(5 * time.Second)
		for !st.started.Load() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Microsecond)
		}
	}
	panic(v)
}

type sideArg struct {
	panics    bool
	waitOther bool
	value     any
	st        *sideState
}

var sideFunc *forkjoin.Func[sideArg, int]

func init() {
	sideFunc = forkjoin.NewFunc(func(_ *forkjoin.Worker, a sideArg) int {
		if a.panics {
			return panickingTask(a.st, a.waitOther, a.value)
		}
		return slowSide(a.st)
	})
}

// checkPanic asserts that v is a *PanicError holding want, with a stack that
// names the panicking function.
func checkPanic(t *testing.T, v any, want any) *forkjoin.PanicError {
	t.Helper()
	pe := mustPanicError(t, v)
	if pe.Value != want {
		t.Errorf("PanicError.Value = %v, want %v", pe.Value, want)
	}
	if !strings.Contains(string(pe.Stack), "panickingTask") {
		t.Errorf("PanicError.Stack does not name panickingTask:\n%s", pe.Stack)
	}
	if !strings.Contains(pe.Error(), fmt.Sprint(want)) {
		t.Errorf("PanicError.Error() = %q does not mention the value %v", pe.Error(), want)
	}
	if at := frameSite(pe.Stack, "panickingTask("); at == "" || !strings.HasSuffix(pe.Error(), " at "+at) || strings.Contains(pe.Error(), "\n") {
		t.Errorf("PanicError.Error() = %q, want one line ending with panickingTask's file:line %q", pe.Error(), at)
	}
	if err, ok := want.(error); ok {
		if !errors.Is(pe, err) {
			t.Errorf("errors.Is(PanicError, %v) = false", err)
		}
		var be *boomError
		if !errors.As(pe, &be) || be != err {
			t.Errorf("errors.As(PanicError, *boomError) did not find the value")
		}
	} else if pe.Unwrap() != nil {
		t.Errorf("Unwrap() = %v for a non-error value", pe.Unwrap())
	}
	return pe
}

// frameSite returns the file:line of the first frame in stack whose line
// starts with fn.
func frameSite(stack []byte, fn string) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if strings.Contains(l, fn) && i+1 < len(lines) {
			at := strings.TrimSpace(lines[i+1])
			if k := strings.LastIndex(at, " +0x"); k >= 0 {
				at = at[:k]
			}
			return at
		}
	}
	return ""
}

// joinKind abstracts Func.Join and the closure Join for the panic tests.
type joinKind struct {
	name string
	join func(w *forkjoin.Worker, a, b sideArg) (int, int)
}

var joinKinds = []joinKind{
	{"Func.Join", func(w *forkjoin.Worker, a, b sideArg) (int, int) { return sideFunc.Join(w, a, b) }},
	{"Join", func(w *forkjoin.Worker, a, b sideArg) (int, int) {
		return forkjoin.Join(w,
			func(w *forkjoin.Worker) int { return sideFunc.Call(w, a) },
			func(w *forkjoin.Worker) int { return sideFunc.Call(w, b) })
	}},
}

func panicConfigs() []poolConfig {
	return []poolConfig{
		{forkjoin.WorkStealing, forkjoin.StealHalf, 1},
		{forkjoin.WorkStealing, forkjoin.StealHalf, 2},
		{forkjoin.WorkStealing, forkjoin.StealOne, 4},
		{forkjoin.SharedQueue, forkjoin.StealHalf, 3},
	}
}

// checkUsable runs more work on p after a panic.
func checkUsable(t *testing.T, p *forkjoin.Pool) {
	t.Helper()
	if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 15) + fibClosureJoin(w, 12) }); got != serialFib(15)+serialFib(12) {
		t.Errorf("pool after a panic computed %d, want %d", got, serialFib(15)+serialFib(12))
	}
}

// TestJoinPanics panics on either side of a join. The panic reaches the
// caller as a *PanicError only after the other side has finished.
func TestJoinPanics(t *testing.T) {
	for _, c := range panicConfigs() {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			for _, k := range joinKinds {
				t.Run(k.name+"/inline-side", func(t *testing.T) {
					// The inline side panics once the forked side is
					// running on a thief: the panic waits for it.
					if c.workers == 1 {
						t.Skip("needs a thief")
					}
					st := &sideState{}
					want := &boomError{"inline side"}
					v := recovered(func() {
						forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
							a, b := k.join(w, sideArg{panics: true, waitOther: true, value: want, st: st}, sideArg{st: st})
							return a + b
						})
					})
					checkPanic(t, v, want)
					if !st.started.Load() || !st.finished.Load() {
						t.Errorf("panic raised with the forked side started=%v finished=%v", st.started.Load(), st.finished.Load())
					}
					checkUsable(t, p)
				})
				t.Run(k.name+"/inline-side-at-once", func(t *testing.T) {
					// The forked side may be taken back unrun or be
					// running on a thief; it must not be left running.
					st := &sideState{}
					v := recovered(func() {
						forkjoin.Run(p, func(w *forkjoin.Worker) {
							k.join(w, sideArg{panics: true, value: "at once", st: st}, sideArg{st: st})
						})
					})
					started, finished := st.started.Load(), st.finished.Load()
					checkPanic(t, v, "at once")
					if started != finished {
						t.Errorf("panic raised while the forked side was still running")
					}
					checkUsable(t, p)
				})
				t.Run(k.name+"/forked-side", func(t *testing.T) {
					st := &sideState{}
					v := recovered(func() {
						forkjoin.Run(p, func(w *forkjoin.Worker) {
							k.join(w, sideArg{st: st}, sideArg{panics: true, value: 42, st: st})
						})
					})
					checkPanic(t, v, 42)
					if !st.finished.Load() {
						t.Error("panic raised before the inline side finished")
					}
					checkUsable(t, p)
				})
				t.Run(k.name+"/both-sides", func(t *testing.T) {
					v := recovered(func() {
						forkjoin.Run(p, func(w *forkjoin.Worker) {
							k.join(w, sideArg{panics: true, value: "a", st: &sideState{}}, sideArg{panics: true, value: "b", st: &sideState{}})
						})
					})
					checkPanic(t, v, "a") // the inline side's panic wins
					checkUsable(t, p)
				})
			}
			t.Run("nested", func(t *testing.T) {
				// A panic deep in a recursion surfaces once, with its
				// original value, not wrapped at every level.
				v := recovered(func() { forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return panicAtLeaf.Call(w, 12) }) })
				checkPanic(t, v, "leaf")
				checkUsable(t, p)
			})
		})
	}
}

var panicAtLeaf *forkjoin.Func[int, int]

func init() {
	panicAtLeaf = forkjoin.NewFunc(func(w *forkjoin.Worker, n int) int {
		if n < 2 {
			if n == 1 {
				return panickingTask(nil, false, "leaf")
			}
			return 0
		}
		a, b := panicAtLeaf.Join(w, n-1, n-2)
		return a + b
	})
}

// TestScopePanics panics in a scope task and in the scope body; Scope
// re-raises after every task has finished.
func TestScopePanics(t *testing.T) {
	for _, c := range panicConfigs() {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			t.Run("task", func(t *testing.T) {
				st := &sideState{}
				var others atomic.Int32
				want := &boomError{"scope task"}
				v := recovered(func() {
					forkjoin.Run(p, func(w *forkjoin.Worker) {
						forkjoin.Scope(w, func(s *forkjoin.S) {
							s.Go(func(*forkjoin.Worker) { slowSide(st) })
							for range 20 {
								s.Go(func(*forkjoin.Worker) { others.Add(1) })
							}
							s.Go(func(*forkjoin.Worker) { panickingTask(st, c.workers > 1, want) })
						})
					})
				})
				checkPanic(t, v, want)
				if !st.finished.Load() || others.Load() != 20 {
					t.Errorf("Scope re-raised before its tasks finished: slow finished=%v, %d of 20 others", st.finished.Load(), others.Load())
				}
				checkUsable(t, p)
			})
			t.Run("body", func(t *testing.T) {
				st := &sideState{}
				v := recovered(func() {
					forkjoin.Run(p, func(w *forkjoin.Worker) {
						forkjoin.Scope(w, func(s *forkjoin.S) {
							s.Go(func(*forkjoin.Worker) { slowSide(st) })
							panickingTask(st, c.workers > 1, "body")
						})
					})
				})
				checkPanic(t, v, "body")
				if !st.finished.Load() {
					t.Error("Scope re-raised the body's panic before its task finished")
				}
				checkUsable(t, p)
			})
		})
	}
}

// TestForPanics panics in one iteration of a loop; the others that started
// have finished when the panic arrives.
func TestForPanics(t *testing.T) {
	for _, c := range panicConfigs() {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			const n = 64
			var started, finished atomic.Int32
			v := recovered(func() {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.For(w, 0, n, func(_ *forkjoin.Worker, i int) {
						if i == n/3 {
							panickingTask(nil, false, i)
						}
						started.Add(1)
						time.Sleep(100 * time.Microsecond)
						finished.Add(1)
					})
				})
			})
			checkPanic(t, v, n/3)
			if s, f := started.Load(), finished.Load(); s != f {
				t.Errorf("For re-raised with %d iterations started and %d finished", s, f)
			}
			checkUsable(t, p)
		})
	}
}

// TestFuturePanics panics in spawned tasks; each Join re-raises its own.
func TestFuturePanics(t *testing.T) {
	for _, c := range panicConfigs() {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			want := &boomError{"future"}
			// Checked after Run: a t.Fatal on a worker would end the
			// worker's goroutine, not the test.
			const n = 8
			var got [n]int
			var vs [n]any
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				var fs [n]forkjoin.Future[int]
				for i := range fs {
					fs[i] = forkjoin.Spawn(w, func(*forkjoin.Worker) int {
						if i%2 == 1 {
							return panickingTask(nil, false, want)
						}
						return i
					})
				}
				for i := n - 1; i >= 0; i-- {
					vs[i] = recovered(func() { got[i] = fs[i].Join(w) })
				}
			})
			for i := range n {
				if i%2 == 1 {
					checkPanic(t, vs[i], want)
				} else if vs[i] != nil || got[i] != i {
					t.Errorf("future %d = %d, panic %v; want %d", i, got[i], vs[i], i)
				}
			}
			// A Future panicking in Invoke's own function.
			v := recovered(func() {
				forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
					return forkjoin.Spawn(w, func(*forkjoin.Worker) int { return panickingTask(nil, false, "root") }).Join(w)
				})
			})
			checkPanic(t, v, "root")
			checkUsable(t, p)
		})
	}
}

// TestInvokePanics panics in the invoked function itself.
func TestInvokePanics(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	want := &boomError{"root"}
	checkPanic(t, recovered(func() { forkjoin.Run(p, func(*forkjoin.Worker) { panickingTask(nil, false, want) }) }), want)
	var pe *forkjoin.PanicError
	v := recovered(func() { forkjoin.Invoke(p, func(*forkjoin.Worker) int { return panickingTask(nil, false, want) }) })
	if err, ok := v.(error); !ok || !errors.As(err, &pe) {
		t.Fatalf("Invoke panicked with %T, want an error that is a *PanicError", v)
	}
	checkUsable(t, p)
}

// TestLoopAndDoPanics panics in ForRange, Reduce and Do.
func TestLoopAndDoPanics(t *testing.T) {
	for _, c := range panicConfigs() {
		t.Run(c.String(), func(t *testing.T) {
			p := c.new()
			defer p.Close()
			v := recovered(func() {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.ForRange(w, 0, 1000, 10, func(_ *forkjoin.Worker, lo, hi int) {
						if lo <= 500 && 500 < hi {
							panickingTask(nil, false, "range")
						}
					})
				})
			})
			checkPanic(t, v, "range")
			v = recovered(func() {
				forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
					return forkjoin.Reduce(w, 0, 1000, 0, func(i int) int {
						if i == 777 {
							return panickingTask(nil, false, "reduce")
						}
						return i
					}, func(x, y int) int { return x + y })
				})
			})
			checkPanic(t, v, "reduce")
			st := &sideState{}
			v = recovered(func() {
				forkjoin.Run(p, func(w *forkjoin.Worker) {
					forkjoin.Do(w,
						func(*forkjoin.Worker) { slowSide(st) },
						func(*forkjoin.Worker) { panickingTask(st, c.workers > 1, "do") },
						func(*forkjoin.Worker) {})
				})
			})
			checkPanic(t, v, "do")
			if !st.finished.Load() {
				t.Error("Do re-raised before its other functions finished")
			}
			checkUsable(t, p)
		})
	}
}

// Do with one function is a task's end like any other: its panic comes out
// as a *PanicError (it used to come out raw, while Do with two or more
// wrapped it), and its unjoined spawns are joined.
func TestDoWithOneFunctionWrapsItsPanic(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	v := recovered(func() {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			defer func() {
				if v := recover(); v != nil {
					if _, ok := v.(*forkjoin.PanicError); !ok {
						panic(fmt.Sprintf("Do(w, fn) let out %T %v, want a *forkjoin.PanicError", v, v))
					}
					panic(v)
				}
			}()
			forkjoin.Do(w, func(*forkjoin.Worker) { panic("one") })
		})
	})
	if pe := mustPanicError(t, v); pe.Value != "one" {
		t.Errorf("panic value %v, want %q", pe.Value, "one")
	}
}

// panic((*PanicError)(nil)) in a task is a panic like any other: the caller
// must not see the call finish normally. Recovering a nil *PanicError was
// taken for "no panic" by Invoke, Join, Spawn, Scope and For.
func TestNilPanicErrorIsNotDropped(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	boom := func() { panic((*forkjoin.PanicError)(nil)) }
	calls := map[string]func(w *forkjoin.Worker){
		"Invoke": func(*forkjoin.Worker) { boom() },
		"Join": func(w *forkjoin.Worker) {
			forkjoin.Join(w, func(*forkjoin.Worker) int { return 0 }, func(*forkjoin.Worker) int { boom(); return 0 })
		},
		"Spawn": func(w *forkjoin.Worker) {
			forkjoin.Spawn(w, func(*forkjoin.Worker) int { boom(); return 0 }).Join(w)
		},
		"Scope": func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.S) { s.Go(func(*forkjoin.Worker) { boom() }) })
		},
		"For": func(w *forkjoin.Worker) {
			forkjoin.For(w, 0, 100, func(_ *forkjoin.Worker, i int) {
				if i == 57 {
					boom()
				}
			})
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			v := recovered(func() { forkjoin.Run(p, call) })
			pe, _ := v.(*forkjoin.PanicError)
			if pe == nil {
				t.Fatalf("a task's panic((*PanicError)(nil)) came out as %#v: the call looks finished", v)
			}
		})
	}
}
