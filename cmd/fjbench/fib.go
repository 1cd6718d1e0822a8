package main

import (
	"strconv"
	"sync"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
)

// fibCalls is the number of calls the doubly recursive Fibonacci makes for
// n: the work of one run, whatever the cutoff.
func fibCalls(n int) float64 {
	a, b := 1.0, 1.0 // calls(0), calls(1)
	for range n - 1 {
		a, b = b, a+b+1
	}
	if n == 0 {
		return a
	}
	return b
}

// fibFork is the baselines' Fibonacci: the same recursion and cutoff as
// algos.Fib, forking n-1 through f and computing n-2 inline.
func fibFork(f forker, n, cutoff int) uint64 {
	if n <= cutoff || n < 2 {
		return algos.FibSerial(n)
	}
	var x uint64
	var wg sync.WaitGroup
	f.fork(&wg, func() { x = fibFork(f, n-1, cutoff) })
	y := fibFork(f, n-2, cutoff)
	wg.Wait()
	return x + y
}

func runFib(cfg *config, b *bench) (Section, error) {
	n, cutoff := cfg.n, cfg.cutoff
	if n == 0 {
		n = 35
	}
	if cutoff == 0 {
		cutoff = 12
	}
	if n > 93 {
		return Section{}, errSize("fib", "-n", n, "at most 93 (fib(94) overflows a uint64)")
	}
	sec := Section{Name: "fib", Notes: []string{cappedNote}}
	base := Result{Scenario: "fib", Params: []Param{{"n", strconv.Itoa(n)}, {"cutoff", strconv.Itoa(cutoff)}},
		Work: fibCalls(n), Unit: "calls"}
	sec.add(b.measureOne(base, contender{scheduler: "serial", work: func() uint64 { return algos.FibSerial(n) }}))
	sec.add(measureOurs(b, base, cfg.modes, cfg.workers, "", nil, func(w *forkjoin.Worker) uint64 { return algos.Fib(w, n, cutoff) }))
	sec.add(measureRecursive(b, base, cfg.workers, nil, func(f forker) uint64 { return fibFork(f, n, cutoff) }))
	return sec, b.err
}
