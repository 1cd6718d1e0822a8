package main

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
)

// queensFork is the baselines' N-Queens: the usual bit-mask backtracking,
// forking one task per free square of each of the first depth rows, and
// searching the rest serially.
func queensFork(f forker, n, depth int) uint64 {
	all := uint64(1)<<n - 1
	var count atomic.Uint64
	var place func(row int, cols, d1, d2 uint64)
	place = func(row int, cols, d1, d2 uint64) {
		if row >= depth {
			count.Add(queensSerial(all, row, n, cols, d1, d2))
			return
		}
		var wg sync.WaitGroup
		for free := all &^ (cols | d1 | d2); free != 0; free &= free - 1 {
			bit := free & -free
			f.fork(&wg, func() { place(row+1, cols|bit, (d1|bit)<<1&all, (d2|bit)>>1) })
		}
		wg.Wait()
	}
	place(0, 0, 0, 0)
	return count.Load()
}

// queensSerial counts the completions of a board whose first row rows are set.
func queensSerial(all uint64, row, n int, cols, d1, d2 uint64) uint64 {
	if row == n {
		return 1
	}
	var c uint64
	for free := all &^ (cols | d1 | d2); free != 0; free &= free - 1 {
		bit := free & -free
		c += queensSerial(all, row+1, n, cols|bit, (d1|bit)<<1&all, (d2|bit)>>1)
	}
	return c
}

func runNQueens(cfg *config, b *bench) (Section, error) {
	n, depth := cfg.n, cfg.cutoff
	if n == 0 {
		n = 13
	}
	if depth == 0 {
		depth = 3
	}
	if n > 63 {
		return Section{}, errSize("nqueens", "-n", n, "at most 63")
	}
	depth = min(depth, n)
	sec := Section{Name: "nqueens", Notes: []string{cappedNote,
		"The baselines fork one task per free square of each of the first -cutoff rows (default 3) and search the rest serially; fjkit's NQueens chooses its own split."}}
	base := Result{Scenario: "nqueens", Params: []Param{{"n", strconv.Itoa(n)}, {"cutoff", strconv.Itoa(depth)}}, Unit: "solutions"}
	ref := algos.NQueensSerial(n)
	base.Work = float64(ref)
	sec.add(b.measureOne(base, contender{scheduler: "serial", work: func() uint64 { return uint64(algos.NQueensSerial(n)) }}))
	sec.add(measureOurs(b, base, cfg.modes, cfg.workers, "", nil, func(w *forkjoin.Worker) uint64 { return uint64(algos.NQueens(w, n)) }))
	sec.add(measureRecursive(b, base, cfg.workers, nil, func(f forker) uint64 { return queensFork(f, n, depth) }))
	return sec, b.err
}
