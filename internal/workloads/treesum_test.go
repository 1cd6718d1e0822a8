package workloads

import (
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// The tree and its four sums on trees of every small size, single-child
// nodes included, and on one deep enough for Worker.Inline to say true, so
// that the benchmarks measure right code.
func TestTreeSums(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for n := range 42 {
		if n == 41 {
			n = 1<<14 + 5
		}
		tr := NewSumTree(n)
		want := int64(n * (n + 1) / 2)
		if len(tr.Nodes) != n {
			t.Fatalf("tree of %d has %d nodes", n, len(tr.Nodes))
		}
		got := forkjoin.Invoke(p, func(w *forkjoin.Worker) [4]int64 {
			r := tr.Root()
			return [4]int64{tr.SumSerial(r), tr.SumJoin(w, r), tr.SumInline(w, r), tr.SumClosure(w, r)}
		})
		if got != [4]int64{want, want, want, want} {
			t.Errorf("tree of %d: serial, Func.Join, Inline and closure Join sum %v, want %d", n, got, want)
		}
	}
}
