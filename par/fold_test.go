package par

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// TestFoldTree checks that reduceRest's fold combines the pieces of every
// cut of [0, n) over the documented tree, whatever order the pieces
// arrive in, and in strand mode's joins: combine writes its grouping out,
// so any other grouping gives another string.
func TestFoldTree(t *testing.T) {
	leaf := func(a, _ int) string { return strconv.Itoa(a) }
	combine := func(a, b string) string { return "(" + a + " " + b + ")" }
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 200; n++ {
		want := treeNode(0, n, leaf, combine)
		for _, done := range []int{0, 1, 2, 4, 8, 16, 32, 64, 128} {
			if done >= n {
				break
			}
			for piece := 1; piece <= 64; piece *= 2 {
				node := func(a, b int) string {
					first := done > 0 && a == 0 && b == done
					if !first && (b-a > piece || a > 0 && b-a > a&-a) {
						t.Fatalf("n=%d done=%d piece=%d: piece [%d, %d) is not a subtree of at most piece units", n, done, piece, a, b)
					}
					return treeNode(a, b, leaf, combine)
				}
				for _, strand := range []bool{false, true} {
					f := newFold[string](done, n, piece, strand)
					np := len(f.cuts) - 1
					order := rng.Perm(np)
					if done > 0 {
						f.put(0, node(0, done))
						f.arrive(0, combine)
					}
					for _, j := range order {
						if done > 0 && j == 0 {
							continue
						}
						f.put(j, node(f.cuts[j], f.cuts[j+1]))
						if !strand {
							f.arrive(j, combine)
						}
					}
					got := f.root
					if strand && np > 1 {
						got = forkjoin.Invoke(p, func(w *forkjoin.Worker) string { return f.joinNode(w, 0, combine) })
					}
					if got != want {
						t.Fatalf("n=%d done=%d piece=%d strand=%v: got %s, want %s", n, done, piece, strand, got, want)
					}
				}
			}
		}
	}
}
