package algos

import (
	"fmt"

	"github.com/fjkit/fjkit/forkjoin"
)

// fibMaxN is the largest n whose Fibonacci number fits in a uint64.
const fibMaxN = 93

type fibArg struct{ n, cutoff int }

// fibTask is the fork-join recursion, made once: forking through a Func
// costs no allocation, which is what lets Fib measure the runtime's fork
// and join overhead rather than the garbage collector. Where a join would
// run inline anyway (Worker.Inline), fib makes the two calls directly:
// through Join they would be calls through a func value, each with its
// spills, and cost twice as much (BenchmarkFib30/func against inline in
// forkjoin).
var fibTask *forkjoin.Func[fibArg, uint64]

func init() {
	// Assigned here rather than at the declaration: fib refers to fibTask,
	// which a package-level initializer may not do to itself.
	fibTask = forkjoin.NewFunc(fib)
}

func fib(w *forkjoin.Worker, a fibArg) uint64 {
	if a.n < 2 {
		return uint64(a.n) // as fibSerial would, without the call
	}
	if a.n <= a.cutoff {
		return fibSerial(a.n)
	}
	if w.Inline() {
		// The join would run both calls here: make them direct calls.
		return fib(w, fibArg{a.n - 1, a.cutoff}) + fib(w, fibArg{a.n - 2, a.cutoff})
	}
	x, y := fibTask.Join(w, fibArg{a.n - 1, a.cutoff}, fibArg{a.n - 2, a.cutoff})
	return x + y
}

// Fib returns the n-th Fibonacci number (Fib(0) = 0, Fib(1) = 1) by the
// doubly recursive definition, forking both recursive calls at every n above
// cutoff and computing serially (FibSerial) at and below it. A cutoff below
// 2 forks at every call that recurses at all: the classic fork-join
// micro-benchmark, almost pure scheduling overhead. The exponential work is
// the point; it is not a way to compute Fibonacci numbers.
//
// Fib panics if n is negative or above 93 (the result would overflow a uint64).
func Fib(w *forkjoin.Worker, n, cutoff int) uint64 {
	checkFibN(n)
	return fib(w, fibArg{n, cutoff})
}

// FibSerial is Fib without forking: the plain doubly recursive function, the
// baseline Fib's overhead is measured against.
func FibSerial(n int) uint64 {
	checkFibN(n)
	return fibSerial(n)
}

func fibSerial(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	return fibSerial(n-1) + fibSerial(n-2)
}

func checkFibN(n int) {
	if n < 0 || n > fibMaxN {
		panic(fmt.Sprintf("algos: Fib: n = %d, want 0 <= n <= %d", n, fibMaxN))
	}
}
