//go:build fjkit_workspan && !race

package par_test

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// par's calls take part in a work/span measurement through the forkjoin
// primitives they use: called from the measured program, or from one of
// its tasks, k equal bodies measure a parallelism of about k, less what
// par's own chunking of small calls takes (at least k/4 is asked), and a
// parallel sort forks.

func wsSpin(d time.Duration) time.Duration {
	t := time.Now()
	for time.Since(t) < d {
	}
	return time.Since(t)
}

func TestWorkSpanPar(t *testing.T) {
	const k, d = 16, 200 * time.Microsecond
	body := func() { wsSpin(d) }
	cases := []struct {
		name string
		fn   func(w *forkjoin.Worker)
	}{
		{"For", func(*forkjoin.Worker) { par.For(k, func(int) { body() }) }},
		{"Map in a task", func(w *forkjoin.Worker) {
			forkjoin.Spawn(w, func(*forkjoin.Worker) int {
				par.Map(make([]int, k), func(int) int { body(); return 0 })
				return 0
			}).Join(w)
		}},
		{"ForEach", func(*forkjoin.Worker) { par.ForEach(slices.Values(make([]int, k)), func(int) { body() }) }},
	}
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 5 {
				ws, err := forkjoin.MeasureWorkSpan(p, c.fn)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("work %v span %v parallelism %.2f forks %d", ws.Work, ws.Span, ws.Parallelism(), ws.Forks)
				if ws.Parallelism() >= k/4 && ws.Work >= k*d*9/10 {
					return
				}
			}
			t.Error("every attempt failed")
		})
	}
}

func TestWorkSpanParSort(t *testing.T) {
	s := make([]int, 1<<20)
	for i := range s {
		s[i] = (i * 7919) % len(s)
	}
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	// A collection during the sort adds its marking to whichever strand it
	// lands in, which can make that strand the span. A sort beforehand
	// leaves the scratch buffer the measured one takes (a sort's one large
	// allocation), and a collection then starts the measured sort far from
	// the next.
	par.Sort(slices.Clone(s))
	runtime.GC()
	ws, err := forkjoin.MeasureWorkSpan(p, func(*forkjoin.Worker) { par.Sort(s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("work %v span %v parallelism %.2f forks %d", ws.Work, ws.Span, ws.Parallelism(), ws.Forks)
	if !slices.IsSorted(s) {
		t.Fatal("not sorted")
	}
	if ws.Forks == 0 || ws.Parallelism() < 1.5 {
		t.Errorf("par.Sort of %d measured %d forks, parallelism %.2f; want forks and more than 1.5", len(s), ws.Forks, ws.Parallelism())
	}
}
