package algos

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/forkjoin"
)

func TestTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	shapes := [][2]int{{1, 1}, {1, 9}, {9, 1}, {1, 5000}, {5000, 1}, {7, 13}, {64, 64}, {65, 63}, {130, 70}, {301, 257}}
	eachPool(t, func(t *testing.T, p *forkjoin.Pool) {
		for _, s := range shapes {
			for _, views := range []bool{false, true} {
				t.Run(fmt.Sprintf("%dx%d/views=%v", s[0], s[1], views), func(t *testing.T) {
					mk := randDense
					if views {
						mk = randView
					}
					src, dst := mk(rng, s[0], s[1]), mk(rng, s[1], s[0])
					forkjoin.Run(p, func(w *forkjoin.Worker) { Transpose(w, dst, src) })
					if !mat.Equal(dst, src.T()) {
						t.Errorf("Transpose of a %d×%d matrix differs from src.T()", s[0], s[1])
					}
				})
			}
		}
	})
}

func TestTransposeEmptyDstAndPanics(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	src := randDense(rand.New(rand.NewPCG(11, 12)), 3, 5)
	var dst mat.Dense
	forkjoin.Run(p, func(w *forkjoin.Worker) { Transpose(w, &dst, src) })
	if !mat.Equal(&dst, src.T()) {
		t.Errorf("Transpose into an empty dst = %v, want %v", mat.Formatted(&dst), mat.Formatted(src.T()))
	}
	run := func(dst, src *mat.Dense) string {
		return panicMessage(func() { forkjoin.Run(p, func(w *forkjoin.Worker) { Transpose(w, dst, src) }) })
	}
	if msg := run(mat.NewDense(3, 5, nil), src); !strings.Contains(msg, "dst is 3×5") || !strings.Contains(msg, "src 3×5") {
		t.Errorf("Transpose into a 3×5 dst panicked with %q, want a message naming both shapes", msg)
	}
	sq := mat.NewDense(4, 4, nil)
	if msg := run(sq, sq); !strings.Contains(msg, "shares memory") {
		t.Errorf("Transpose in place panicked with %q, want the overlap named", msg)
	}
}
