package algos

import (
	"strings"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// fibIter is the iterative definition, independent of the recursion tested.
func fibIter(n int) uint64 {
	var a, b uint64 = 0, 1
	for range n {
		a, b = b, a+b
	}
	return a
}

func TestFibIterKnownValues(t *testing.T) {
	for n, want := range map[int]uint64{0: 0, 1: 1, 2: 1, 10: 55, 20: 6765, 93: 12200160415121876738} {
		if got := fibIter(n); got != want {
			t.Errorf("fibIter(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestFibSerial(t *testing.T) {
	for n := range 26 {
		if got, want := FibSerial(n), fibIter(n); got != want {
			t.Errorf("FibSerial(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestFib(t *testing.T) {
	maxN := 22 // fork at every call: ~90,000 forks under -race per pool
	if !testing.Short() {
		maxN = 27
	}
	eachPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, cutoff := range []int{-1, 0, 1, 2, 10, 40} {
			for _, n := range []int{0, 1, 2, 3, 7, maxN} {
				got := forkjoin.Invoke(p, func(w *forkjoin.Worker) uint64 { return Fib(w, n, cutoff) })
				if want := fibIter(n); got != want {
					t.Errorf("Fib(%d, cutoff %d) = %d, want %d", n, cutoff, got, want)
				}
			}
		}
	})
}

// A high cutoff forks only near the root and runs FibSerial below it.
func TestFibHighCutoff(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	got := forkjoin.Invoke(p, func(w *forkjoin.Worker) uint64 { return Fib(w, 30, 25) })
	if want := fibIter(30); got != want {
		t.Errorf("Fib(30, 25) = %d, want %d", got, want)
	}
}

func TestFibBadNPanics(t *testing.T) {
	for _, n := range []int{-1, 94} {
		msg := panicMessage(func() { FibSerial(n) })
		if !strings.Contains(msg, "n = ") {
			t.Errorf("FibSerial(%d) panicked with %q, want a message naming n", n, msg)
		}
		p := forkjoin.New(forkjoin.Workers(1))
		msg = panicMessage(func() {
			forkjoin.Invoke(p, func(w *forkjoin.Worker) uint64 { return Fib(w, n, 0) })
		})
		p.Close()
		if !strings.Contains(msg, "n = ") {
			t.Errorf("Fib(%d) panicked with %q, want a message naming n", n, msg)
		}
	}
}

// Fib forks through a Func, whose job records are reused: the ~11,000 forks
// of Fib(20) must not allocate, only the handful of Invoke itself may.
func TestFibForksWithoutAllocating(t *testing.T) {
	if strandMode() {
		t.Skip("strand mode runs every fork on a goroutine of its own")
	}
	for _, m := range testModes {
		p := forkjoin.New(forkjoin.Workers(2), forkjoin.WithMode(m.mode))
		allocs := testing.AllocsPerRun(20, func() {
			forkjoin.Invoke(p, func(w *forkjoin.Worker) uint64 { return Fib(w, 20, 0) })
		})
		p.Close()
		if allocs > 50 {
			t.Errorf("%s: Fib(20) with ~11,000 forks allocates %v times per call, want a small constant", m.name, allocs)
		}
	}
}
