package algos

import (
	"fmt"
	"math/bits"

	"github.com/fjkit/fjkit/forkjoin"
)

// nqForkRows is how many rows from the top are searched in parallel. Three
// rows leave 364 serial searches for n = 10, 756 for 12 and 1,364 for 14:
// enough to keep many workers busy, each big enough (for n >= 10) to dwarf
// the cost of forking it. The cutoff still pays with heartbeat forks
// (BenchmarkNQueens13 at 3, 5 and 8 rows and forking at every row:
// docs/benchmarks.md): below the top rows the search's own bit loop
// (nqSerial) is cheaper than any per-node call.
const nqForkRows = 3

// nqBoard is a partial placement: one queen in each row above row, with the
// columns and the two diagonal directions they attack as bit masks, and avail
// the columns of row still to be tried by this task.
type nqBoard struct {
	all, cols, left, right, avail uint64
	row                           int
}

var nqTask *forkjoin.Func[nqBoard, int]

func init() { nqTask = forkjoin.NewFunc(nqueens) }

// nqueens counts the solutions that extend b with a queen in row b.row on
// one of the columns b.avail. Several candidate columns are split in two
// halves forked against each other; a single one is placed, and the next row
// searched in parallel or serially.
func nqueens(w *forkjoin.Worker, b nqBoard) int {
	switch bits.OnesCount64(b.avail) {
	case 0:
		return 0
	case 1:
	default:
		lo := lowBits(b.avail, bits.OnesCount64(b.avail)/2)
		hi := b
		hi.avail &^= lo
		b.avail = lo
		x, y := nqTask.Join(w, b, hi)
		return x + y
	}
	bit := b.avail
	next := nqBoard{all: b.all, cols: b.cols | bit, left: (b.left | bit) << 1, right: (b.right | bit) >> 1, row: b.row + 1}
	if next.cols == b.all {
		return 1
	}
	if next.row >= nqForkRows {
		return nqSerial(next.all, next.cols, next.left, next.right)
	}
	next.avail = next.all &^ (next.cols | next.left | next.right)
	return nqueens(w, next)
}

// lowBits returns the k lowest set bits of x.
func lowBits(x uint64, k int) uint64 {
	var lo uint64
	for range k {
		bit := x & -x
		lo |= bit
		x ^= bit
	}
	return lo
}

// nqSerial counts the completions of a placement; bits that the diagonal
// masks shift beyond the board are dropped by the &^ against all.
func nqSerial(all, cols, left, right uint64) int {
	if cols == all {
		return 1
	}
	n := 0
	for avail := all &^ (cols | left | right); avail != 0; {
		bit := avail & -avail
		avail ^= bit
		n += nqSerial(all, cols|bit, (left|bit)<<1, (right|bit)>>1)
	}
	return n
}

// NQueens counts the ways to place n non-attacking queens on an n×n board
// (NQueens(8) = 92), searching the first rows in parallel and the rest with
// a serial bit-mask backtracking search. The empty board (n = 0) has one
// solution. NQueens panics if n is negative or above 64.
func NQueens(w *forkjoin.Worker, n int) int {
	all := nqAll(n)
	if n == 0 {
		return 1
	}
	return nqueens(w, nqBoard{all: all, avail: all})
}

// NQueensSerial is NQueens without forking, the baseline for its speedup.
func NQueensSerial(n int) int {
	return nqSerial(nqAll(n), 0, 0, 0)
}

func nqAll(n int) uint64 {
	if n < 0 || n > 64 {
		panic(fmt.Sprintf("algos: NQueens: n = %d, want 0 <= n <= 64", n))
	}
	return ^uint64(0) >> (64 - n)
}
