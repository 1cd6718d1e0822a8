package forkjoin

import (
	"runtime"
	"sync"
	"testing"
)

// The benchmarks in this file measure the cost of a fork against the plain
// serial code and against what a Go programmer writes today (one goroutine per
// call with sync.WaitGroup), in the same run, so the ratios can be read off
// directly.

//go:noinline
func fibSerial(n int) int {
	if n < 2 {
		return n
	}
	return fibSerial(n-1) + fibSerial(n-2)
}

// fibFunc forks at every call through the allocation-free Func path.
var fibFunc *Func[int, int]

func fibFuncBody(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := fibFunc.Join(w, n-1, n-2)
	return a + b
}

// fibInlineFunc is fibFunc with the Worker.Inline guard: the joins that
// would run inline are direct calls.
var fibInlineFunc *Func[int, int]

func fibInlineFuncBody(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	if w.Inline() {
		return fibInlineFuncBody(w, n-1) + fibInlineFuncBody(w, n-2)
	}
	a, b := fibInlineFunc.Join(w, n-1, n-2)
	return a + b
}

// fibCutoff forks above a sequential cutoff.
type fibArg struct{ n, cutoff int }

var fibCutoff *Func[fibArg, int]

func fibCutoffBody(w *Worker, a fibArg) int {
	if a.n <= a.cutoff {
		return fibSerial(a.n)
	}
	x, y := fibCutoff.Join(w, fibArg{a.n - 1, a.cutoff}, fibArg{a.n - 2, a.cutoff})
	return x + y
}

// A Func whose body forks itself is set in init: a package-level initializer
// that refers to its own variable is an initialization cycle in Go.
func init() {
	fibFunc = NewFunc(fibFuncBody)
	fibInlineFunc = NewFunc(fibInlineFuncBody)
	fibCutoff = NewFunc(fibCutoffBody)
}

// fibClosure forks at every call through the closure Join.
func fibClosure(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := Join(w,
		func(w *Worker) int { return fibClosure(w, n-1) },
		func(w *Worker) int { return fibClosure(w, n-2) })
	return a + b
}

// fibGoroutines is the idiomatic Go version: a goroutine per call.
func fibGoroutines(n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a = fibGoroutines(n - 1)
	}()
	b = fibGoroutines(n - 2)
	wg.Wait()
	return a + b
}

const benchFibN = 30

var fibSink int

func benchPool(b *testing.B, workers int, mode Mode, fn func(w *Worker) int) {
	p := New(Workers(workers), WithMode(mode))
	defer p.Close()
	Invoke(p, fn) // warm up: grow deques, fill free lists
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		fibSink = Invoke(p, fn)
	}
}

func BenchmarkFib30(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			fibSink = fibSerial(benchFibN)
		}
	})
	for _, workers := range []int{1, 2} {
		w := itoa(workers)
		b.Run("func/workers="+w, func(b *testing.B) {
			benchPool(b, workers, WorkStealing, func(w *Worker) int { return fibFunc.Call(w, benchFibN) })
		})
		b.Run("inline/workers="+w, func(b *testing.B) {
			benchPool(b, workers, WorkStealing, func(w *Worker) int { return fibInlineFunc.Call(w, benchFibN) })
		})
		b.Run("closure/workers="+w, func(b *testing.B) {
			benchPool(b, workers, WorkStealing, func(w *Worker) int { return fibClosure(w, benchFibN) })
		})
		b.Run("shared-func/workers="+w, func(b *testing.B) {
			benchPool(b, workers, SharedQueue, func(w *Worker) int { return fibFunc.Call(w, benchFibN) })
		})
	}
	// What a Go programmer writes today, with the Go scheduler limited to
	// the same number of threads as the pools above.
	for _, procs := range []int{1, 2} {
		b.Run("goroutines/procs="+itoa(procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			b.ReportAllocs()
			for range b.N {
				fibSink = fibGoroutines(benchFibN)
			}
		})
	}
}

func BenchmarkFib40Cutoff20(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		for range b.N {
			fibSink = fibSerial(40)
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run("func/workers="+itoa(workers), func(b *testing.B) {
			benchPool(b, workers, WorkStealing, func(w *Worker) int { return fibCutoff.Call(w, fibArg{40, 20}) })
		})
	}
}
