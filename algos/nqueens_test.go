package algos

import (
	"strings"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// nqKnown are the solution counts of OEIS A000170.
var nqKnown = []int{1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596}

func TestNQueensSerialKnownCounts(t *testing.T) {
	maxN := 12
	if !testing.Short() {
		maxN = 14
	}
	for n := 0; n <= maxN; n++ {
		if got := NQueensSerial(n); got != nqKnown[n] {
			t.Errorf("NQueensSerial(%d) = %d, want %d", n, got, nqKnown[n])
		}
	}
}

func TestNQueens(t *testing.T) {
	eachPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 8, 12} {
			got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return NQueens(w, n) })
			if got != nqKnown[n] {
				t.Errorf("NQueens(%d) = %d, want %d", n, got, nqKnown[n])
			}
		}
	})
}

func TestNQueens14(t *testing.T) {
	if testing.Short() {
		t.Skip("NQueens(14): ~1 s, several under -race; skipped in -short mode")
	}
	p := forkjoin.New(forkjoin.Workers(4))
	defer p.Close()
	if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return NQueens(w, 14) }); got != 365596 {
		t.Errorf("NQueens(14) = %d, want 365596", got)
	}
}

func TestNQueensBadNPanics(t *testing.T) {
	for _, n := range []int{-1, 65} {
		if msg := panicMessage(func() { NQueensSerial(n) }); !strings.Contains(msg, "n = ") {
			t.Errorf("NQueensSerial(%d) panicked with %q, want a message naming n", n, msg)
		}
	}
}

func TestLowBits(t *testing.T) {
	for _, tc := range []struct {
		x    uint64
		k    int
		want uint64
	}{{0b1011_0110, 0, 0}, {0b1011_0110, 2, 0b110}, {0b1011_0110, 3, 0b1_0110}, {0b1011_0110, 5, 0b1011_0110}} {
		if got := lowBits(tc.x, tc.k); got != tc.want {
			t.Errorf("lowBits(%b, %d) = %b, want %b", tc.x, tc.k, got, tc.want)
		}
	}
}
