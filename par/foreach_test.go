package par_test

import (
	"iter"
	"maps"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// everywhere runs fn outside any pool and from a task of a pool of 3.
func everywhere(t *testing.T, fn func(t *testing.T)) {
	t.Run("outside", fn)
	p := newPool(t, 3)
	t.Run("task", func(t *testing.T) { forkjoin.Run(p, func(*forkjoin.Worker) { fn(t) }) })
}

func TestForEachEveryElementOnce(t *testing.T) {
	everywhere(t, func(t *testing.T) {
		const n = 20000
		seen := make([]atomic.Int32, n)
		par.ForEach(slices.Values(slices.Collect(func(yield func(int) bool) {
			for i := range n {
				if !yield(i) {
					return
				}
			}
		})), func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("element %d: body ran %d times", i, c)
			}
		}
		m := map[string]int{}
		for i := range 1000 {
			m[string(rune('a'+i%26))+string(rune(i))] = i
		}
		var sum atomic.Int64
		par.ForEach2(maps.All(m), func(k string, v int) {
			if m[k] != v {
				t.Errorf("ForEach2 gave %q, %d; the map has %d", k, v, m[k])
			}
			sum.Add(int64(v))
		})
		if sum.Load() != 999*1000/2 {
			t.Fatalf("ForEach2 summed %d, want %d", sum.Load(), 999*1000/2)
		}
	})
}

// TestForEachSpreads checks that slow bodies run on more than one worker
// while one goroutine pulls.
func TestForEachSpreads(t *testing.T) {
	if runtime.GOMAXPROCS(0) == 1 {
		t.Skip("with one P, ForEach runs each body as it pulls it")
	}
	if strandMode() {
		t.Skip("strand mode runs each piece on a goroutine of its own, not on the workers")
	}
	p := newPool(t, 3)
	used := make([]atomic.Bool, 3+forkjoin.MaxSpares) // spares, if the pool lends any, have IDs from 3 on
	forkjoin.Run(p, func(*forkjoin.Worker) {
		par.ForEach(slices.Values(make([]int, 64)), func(int) {
			used[forkjoin.Current().ID()].Store(true)
			spin(2_000_000) // about a millisecond: idle workers wake within one
		})
	})
	if n := countTrue(used); n < 2 {
		t.Fatalf("bodies ran on %d of 3 workers", n)
	}
}

// TestForEachSequencePanics panics in the sequence itself: ForEach
// re-raises it as a *forkjoin.PanicError once the bodies it started have
// returned.
func TestForEachSequencePanics(t *testing.T) {
	everywhere(t, func(t *testing.T) {
		var running, ran atomic.Int64
		seq := func(yield func(int) bool) {
			for i := range 1000 {
				if i == 500 {
					panic("sequence broke")
				}
				if !yield(i) {
					return
				}
			}
		}
		func() {
			defer func() {
				pe, ok := recover().(*forkjoin.PanicError)
				if !ok || pe.Value != "sequence broke" {
					t.Fatalf("recovered %v, want a *forkjoin.PanicError of the sequence's panic", pe)
				}
				if running.Load() != 0 || ran.Load() != 500 {
					t.Fatalf("after the panic: %d bodies running, %d ran; want 0 and 500", running.Load(), ran.Load())
				}
			}()
			par.ForEach(iter.Seq[int](seq), func(int) {
				running.Add(1)
				spin(1000)
				ran.Add(1)
				running.Add(-1)
			})
		}()
	})
}

// TestForEachBodyPanicStopsPulling panics in one body of a long sequence:
// the panic comes out, and the sequence is not pulled to its end.
func TestForEachBodyPanicStopsPulling(t *testing.T) {
	everywhere(t, func(t *testing.T) {
		var pulled atomic.Int64
		seq := func(yield func(int) bool) {
			for i := range 1 << 30 {
				pulled.Add(1)
				if !yield(i) {
					return
				}
			}
		}
		defer func() {
			pe, ok := recover().(*forkjoin.PanicError)
			if !ok || pe.Value != "bad element" {
				t.Fatalf("recovered %v, want a *forkjoin.PanicError of the body's panic", pe)
			}
			if pulled.Load() > 1<<20 {
				t.Fatalf("the sequence was pulled %d times after a body panicked", pulled.Load())
			}
		}()
		par.ForEach(iter.Seq[int](seq), func(i int) {
			if i == 1000 {
				panic("bad element")
			}
		})
	})
}

func TestForEachNilPanics(t *testing.T) {
	for name, fn := range map[string]func(){
		"ForEach":  func() { par.ForEach[int](nil, func(int) {}) },
		"ForEach2": func() { par.ForEach2(maps.All(map[int]int{}), nil) },
	} {
		func() {
			defer func() {
				if v, _ := recover().(string); v == "" || v[:len("par."+name)] != "par."+name {
					t.Errorf("%s with nil: panic %q, want one naming par.%s", name, v, name)
				}
			}()
			fn()
		}()
	}
}
