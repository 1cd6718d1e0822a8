//go:build fjkit_workspan && !race

package forkjoin_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// The work/span tests check measurements against answers known on paper.
// Their bodies busy-wait for known times and record how long they took,
// so that each test has two answers: the paper's composition (sums along
// sequences, maxima over a join's branches) of the times the bodies took,
// which the measurement must match closely, whatever the load; and the
// nominal figures of the busy waits (a parallelism of 64 for 64 equal
// leaves), which it must match within a wide tolerance (a loaded machine
// preempts a busy wait, which then counts longer, and the span, a maximum,
// takes the longest). A composition that summed a join's branches, or
// took the maximum of a sequence, misses both by far. Each check runs up
// to five times, and passes if one of them does.

// spin busy-waits for d, and returns how long it took.
func spin(d time.Duration) time.Duration {
	t := time.Now()
	for time.Since(t) < d {
	}
	return time.Since(t)
}

// checker collects a measurement's failures.
type checker []string

// near records a failure unless got is within tol (a fraction) of want.
func (c *checker) near(what string, got, want, tol float64) {
	if math.Abs(got-want) > tol*want {
		*c = append(*c, fmt.Sprintf("%s = %.4g, want %.4g ± %.0f%%", what, got, want, tol*100))
	}
}

// paper records a failure unless the measured time got is the paper's
// want, give or take the measurement's own cost: 10 %, and 2 µs for each
// of forks forks.
func (c *checker) paper(what string, got, want time.Duration, forks int64) {
	slack := want/10 + time.Duration(forks)*2*time.Microsecond
	if got < want-slack || got > want+slack {
		*c = append(*c, fmt.Sprintf("%s = %v, the paper's %v ± %v", what, got, want, slack))
	}
}

func (c *checker) errorf(format string, args ...any) { *c = append(*c, fmt.Sprintf(format, args...)) }

// attempts runs check, a measurement and its checks, up to five times,
// until one passes.
func attempts(t *testing.T, check func(c *checker)) {
	t.Helper()
	for i := range 5 {
		var c checker
		check(&c)
		if len(c) == 0 {
			return
		}
		t.Logf("attempt %d:\n\t%s", i+1, strings.Join(c, "\n\t"))
	}
	t.Errorf("every attempt failed")
}

func measure(t *testing.T, fn func(*forkjoin.Worker)) forkjoin.WorkSpan {
	t.Helper()
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	ws, err := forkjoin.MeasureWorkSpan(p, fn)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("work %v span %v parallelism %.2f burdened span %v burdened parallelism %.2f forks %d",
		ws.Work, ws.Span, ws.Parallelism(), ws.BurdenedSpan, ws.BurdenedParallelism(), ws.Forks)
	return ws
}

const tol = 0.3

// A serial chain: each step forks a body and joins it before the next
// step, so the span is the work, and each step's fork is on the burdened
// path.
func TestWorkSpanSerialChain(t *testing.T) {
	const steps, d = 20, 100 * time.Microsecond
	attempts(t, func(c *checker) {
		var sum time.Duration
		ws := measure(t, func(w *forkjoin.Worker) {
			for range steps {
				_, b := forkjoin.Join(w, func(*forkjoin.Worker) time.Duration { return 0 }, func(*forkjoin.Worker) time.Duration { return spin(d) })
				sum += b
			}
		})
		c.paper("work", ws.Work, sum, steps)
		c.paper("span", ws.Span, sum, steps)
		c.near("parallelism", ws.Parallelism(), 1, 0.05)
		if ws.Forks != steps {
			c.errorf("forks = %d, want %d", ws.Forks, steps)
		}
		c.paper("burdened span", ws.BurdenedSpan, ws.Span+steps*ws.Burden, 0)
		if ws.CriticalForks != steps {
			c.errorf("critical forks = %d, want %d", ws.CriticalForks, steps)
		}
	})
}

// tally is a node's result in the recursive tests: its value, and the
// paper's work and span of its subtree, from the times its bodies took.
type tally struct {
	v                    int
	work, span, burdened time.Duration
}

func leafTally(v int, own time.Duration) tally { return tally{v, own, own, own} }

// joinTally is a node that ran for own, then joined a with b, the forked
// side, whose path bears a burden.
func joinTally(own time.Duration, a, b tally) tally {
	return tally{a.v + b.v, own + a.work + b.work, own + max(a.span, b.span), own + max(a.burdened, b.burdened+forkjoin.WorkSpanBurden)}
}

// parallelism checks ws's parallelism against the paper's, from the
// times the bodies took, and, when those were about the times they were
// to take, against the nominal one from those: a body preempted for
// milliseconds on a loaded machine makes the paper's (and the measured)
// span that long, which is no fault of the measurement.
func (c *checker) parallelism(ws forkjoin.WorkSpan, paperWork, paperSpan time.Duration, nominal float64) {
	paper := float64(paperWork) / float64(paperSpan)
	c.near("parallelism", ws.Parallelism(), paper, tol)
	if math.Abs(paper-nominal) <= tol*nominal {
		c.near("parallelism against the nominal", ws.Parallelism(), nominal, tol)
	}
}

// A balanced tree of 2^depth equal leaves: parallelism ≈ the leaves.
func TestWorkSpanTreeSum(t *testing.T) {
	const depth, d = 6, 50 * time.Microsecond
	var tree func(w *forkjoin.Worker, k int) tally
	tree = func(w *forkjoin.Worker, k int) tally {
		if k == 0 {
			return leafTally(1, spin(d))
		}
		a, b := forkjoin.Join(w, func(w *forkjoin.Worker) tally { return tree(w, k-1) }, func(w *forkjoin.Worker) tally { return tree(w, k-1) })
		return joinTally(0, a, b)
	}
	attempts(t, func(c *checker) {
		var r tally
		ws := measure(t, func(w *forkjoin.Worker) { r = tree(w, depth) })
		if r.v != 1<<depth {
			t.Fatalf("sum = %d", r.v)
		}
		c.paper("work", ws.Work, r.work, ws.Forks)
		c.paper("span", ws.Span, r.span, depth)
		if ws.Forks != 1<<depth-1 {
			c.errorf("forks = %d, want %d", ws.Forks, 1<<depth-1)
		}
		c.paper("burdened span", ws.BurdenedSpan, r.burdened, depth)
		c.parallelism(ws, r.work, r.span, 1<<depth)
	})
}

// fib with a fork at every call, each call busy for d: the work is the
// calls, 2·fib(n+1)-1, and the span the n calls down the longest path, so
// the parallelism grows as φⁿ/n.
func TestWorkSpanFib(t *testing.T) {
	const d = 4 * time.Microsecond
	fibs := []int{0, 1}
	for len(fibs) < 30 {
		fibs = append(fibs, fibs[len(fibs)-1]+fibs[len(fibs)-2])
	}
	var f *forkjoin.Func[int, tally]
	f = forkjoin.NewFunc(func(w *forkjoin.Worker, n int) tally {
		own := spin(d)
		if n < 2 {
			return leafTally(n, own)
		}
		a, b := f.Join(w, n-1, n-2)
		return joinTally(own, a, b)
	})
	for _, n := range []int{8, 11, 14} {
		attempts(t, func(c *checker) {
			var r tally
			ws := measure(t, func(w *forkjoin.Worker) { r = f.Call(w, n) })
			if r.v != fibs[n] {
				t.Fatalf("fib(%d) = %d", n, r.v)
			}
			calls := 2*fibs[n+1] - 1
			c.paper("work", ws.Work, r.work, ws.Forks)
			c.paper("span", ws.Span, r.span, int64(n))
			c.paper("burdened span", ws.BurdenedSpan, r.burdened, int64(n))
			c.parallelism(ws, r.work, r.span, float64(calls)/float64(n))
			if ws.Forks != int64(calls/2) {
				c.errorf("fib(%d): forks = %d, want %d (one per Join)", n, ws.Forks, calls/2)
			}
		})
	}
}

// k independent equal bodies, through every primitive that forks them:
// parallelism ≈ k.
func TestWorkSpanPrimitives(t *testing.T) {
	const k, d = 16, 200 * time.Microsecond
	type rec struct{ work, span time.Duration }
	var mu sync.Mutex
	var r rec
	body := func(*forkjoin.Worker) {
		own := spin(d)
		mu.Lock()
		r.work += own
		r.span = max(r.span, own)
		mu.Unlock()
	}
	cases := []struct {
		name string
		fn   func(w *forkjoin.Worker)
	}{
		{"For", func(w *forkjoin.Worker) { forkjoin.For(w, 0, k, func(w *forkjoin.Worker, _ int) { body(w) }) }},
		{"ForRange", func(w *forkjoin.Worker) {
			forkjoin.ForRange(w, 0, k, 1, func(w *forkjoin.Worker, lo, hi int) {
				for range hi - lo {
					body(w)
				}
			})
		}},
		{"Reduce", func(w *forkjoin.Worker) {
			if s := forkjoin.ReduceW(w, 0, k, 0, func(w *forkjoin.Worker, _ int) int { body(w); return 1 }, func(x, y int) int { return x + y }); s != k {
				t.Errorf("ReduceW = %d", s)
			}
		}},
		{"Spawn", func(w *forkjoin.Worker) {
			var fs []forkjoin.Future[int]
			for range k {
				fs = append(fs, forkjoin.Spawn(w, func(w *forkjoin.Worker) int { body(w); return 1 }))
			}
			for _, f := range fs {
				f.Join(w)
			}
		}},
		{"Func.Fork", func(w *forkjoin.Worker) {
			f := forkjoin.NewFunc(func(w *forkjoin.Worker, _ int) int { body(w); return 1 })
			var hs []forkjoin.Forked[int, int]
			for i := range k {
				hs = append(hs, f.Fork(w, i))
			}
			for _, h := range hs {
				h.Join(w)
			}
		}},
		{"Scope", func(w *forkjoin.Worker) {
			forkjoin.Scope(w, func(s *forkjoin.S) {
				for range k {
					s.Go(body)
				}
			})
		}},
		{"Func.Go", func(w *forkjoin.Worker) {
			f := forkjoin.NewFunc(func(w *forkjoin.Worker, _ int) int { body(w); return 1 })
			forkjoin.Scope(w, func(s *forkjoin.S) {
				for i := range k {
					f.Go(s, i)
				}
			})
		}},
		{"Do", func(w *forkjoin.Worker) {
			fns := make([]func(*forkjoin.Worker), k)
			for i := range fns {
				fns[i] = body
			}
			forkjoin.Do(w, fns...)
		}},
		{"Tasks", func(w *forkjoin.Worker) {
			var ts forkjoin.Tasks
			for range k {
				ts.Go(w, body)
			}
			ts.Wait(w)
		}},
	}
	for _, cs := range cases {
		t.Run(cs.name, func(t *testing.T) {
			attempts(t, func(c *checker) {
				r = rec{}
				ws := measure(t, cs.fn)
				c.paper("work", ws.Work, r.work, ws.Forks)
				c.paper("span", ws.Span, r.span, 2*k)
				c.parallelism(ws, r.work, r.span, k)
			})
		})
	}
}

// One producer spawns tasks in a loop: the producer's loop is the span,
// so the parallelism is about (producer + task) / producer per step.
func TestWorkSpanSpawnLoop(t *testing.T) {
	const k, prod, task = 40, 20 * time.Microsecond, 200 * time.Microsecond
	attempts(t, func(c *checker) {
		var loop, work, span time.Duration
		ws := measure(t, func(w *forkjoin.Worker) {
			var fs []forkjoin.Future[time.Duration]
			for range k {
				loop += spin(prod)
				at := loop
				fs = append(fs, forkjoin.Spawn(w, func(*forkjoin.Worker) time.Duration { d := spin(task); span = max(span, at+d); return d }))
			}
			for _, f := range fs {
				work += f.Join(w)
			}
		})
		work += loop
		span = max(span, loop)
		c.paper("work", ws.Work, work, k)
		c.paper("span", ws.Span, span, k)
		c.parallelism(ws, work, span, float64(k*(prod+task))/float64(k*prod+task))
	})
}

// Regions: a serial part and a parallel part, each with its own figures,
// which the table and the CSV show.
func TestWorkSpanRegions(t *testing.T) {
	const d = 200 * time.Microsecond
	var ws forkjoin.WorkSpan
	attempts(t, func(c *checker) {
		var serial, work, span time.Duration
		var mu sync.Mutex
		ws = measure(t, func(w *forkjoin.Worker) {
			forkjoin.Region(w, "serial", func(*forkjoin.Worker) { serial = spin(4 * d) })
			forkjoin.Region(w, "parallel", func(w *forkjoin.Worker) {
				forkjoin.For(w, 0, 8, func(w *forkjoin.Worker, _ int) {
					forkjoin.Region(w, "parallel", func(*forkjoin.Worker) { // nested: counts once
						own := spin(d)
						mu.Lock()
						work += own
						span = max(span, own)
						mu.Unlock()
					})
				})
			})
		})
		if len(ws.Regions) != 2 || ws.Regions[0].Name != "serial" || ws.Regions[1].Name != "parallel" {
			t.Fatalf("regions = %+v", ws.Regions)
		}
		s, p := ws.Regions[0], ws.Regions[1]
		c.paper("serial work", s.Work, serial, 1)
		c.paper("serial span", s.Span, serial, 1)
		c.paper("parallel work", p.Work, work, 16)
		c.paper("parallel span", p.Span, span, 16)
		c.paper("program span", ws.Span, serial+span, 16)
		c.near("parallel parallelism", p.Parallelism(), float64(work)/float64(span), tol)
		if s.Count != 1 || p.Count != 1 || p.Forks != 7 {
			c.errorf("counts %d, %d, parallel forks %d; want 1, 1, 7", s.Count, p.Count, p.Forks)
		}
	})

	var tb bytes.Buffer
	if err := ws.WriteTable(&tb); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + tb.String())
	if lines := strings.Split(strings.TrimSpace(tb.String()), "\n"); len(lines) != 4 || !strings.Contains(lines[3], "parallel") {
		t.Errorf("table:\n%s", tb.String())
	}
	var cb bytes.Buffer
	if err := ws.WriteCSV(&cb); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&cb).ReadAll()
	if err != nil || len(rows) != 4 || rows[3][0] != "parallel" || rows[0][4] != "parallelism" {
		t.Errorf("CSV rows %q, %v", rows, err)
	}
}

// A panic in the measured program comes out of MeasureWorkSpan, which can
// then measure again.
func TestWorkSpanPanic(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	func() {
		defer func() {
			if _, ok := recover().(*forkjoin.PanicError); !ok {
				t.Error("no *PanicError")
			}
		}()
		forkjoin.MeasureWorkSpan(p, func(w *forkjoin.Worker) {
			forkjoin.Join(w, func(*forkjoin.Worker) int { return 0 }, func(*forkjoin.Worker) int { panic("boom") })
		})
	}()
	if forkjoin.Current() != nil {
		t.Error("Current is set after the measurement")
	}
	ws, err := forkjoin.MeasureWorkSpan(p, func(w *forkjoin.Worker) { forkjoin.For(w, 0, 4, func(*forkjoin.Worker, int) {}) })
	if err != nil || ws.Forks != 3 {
		t.Errorf("after a panic: forks %d, %v", ws.Forks, err)
	}
}

// Inside a measurement, Invoke and Tasks.Submit on the measured pool are
// part of the program (their forks count), and MeasureWorkSpan from a task
// panics, naming the misuse.
func TestWorkSpanNested(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	ws, err := forkjoin.MeasureWorkSpan(p, func(w *forkjoin.Worker) {
		n := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
			if forkjoin.Current() != w {
				t.Error("Current in a nested Invoke is not its worker")
			}
			a, b := forkjoin.Join(w, func(*forkjoin.Worker) int { return 1 }, func(*forkjoin.Worker) int { return 2 })
			return a + b
		})
		if n != 3 {
			t.Errorf("nested Invoke = %d", n)
		}
		var ts forkjoin.Tasks
		ran := 0
		for range 3 {
			ts.Submit(p, func(*forkjoin.Worker) { ran++ })
		}
		ts.Wait(nil)
		if ran != 3 {
			t.Errorf("%d submitted tasks ran", ran)
		}
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "called from a task") {
					t.Errorf("MeasureWorkSpan from a task: panic %v", v)
				}
			}()
			forkjoin.MeasureWorkSpan(p, func(*forkjoin.Worker) {})
		}()
	})
	if err != nil || ws.Forks != 4 {
		t.Errorf("forks %d, %v; want 4 (the Join, three Submits)", ws.Forks, err)
	}
}
