package workloads

import (
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// Every walk of the irregular tree finds what the serial recursion finds,
// on 1 and 2 workers, so that the benchmarks measure right code. The
// smallest tree is mostly its chains, deep enough for Worker.Inline to say
// true.
func TestTreeWalks(t *testing.T) {
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		for _, n := range []int{MinTreeNodes, MinTreeNodes + 40_000} {
			tr := NewTree(n)
			want := tr.Serial(0)
			if got := tr.SerialAlloc(0); got != want {
				t.Errorf("SerialAlloc, tree of %d: %s, want %s", n, got.Check(), want.Check())
			}
			walks := map[string]func(w *forkjoin.Worker) Tot{
				"WalkSpawn":  func(w *forkjoin.Worker) Tot { return tr.WalkSpawn(w, 0) },
				"WalkScope":  tr.WalkScope,
				"WalkFuncGo": tr.WalkFuncGo,
				"WalkFor":    tr.WalkFor,
				"WalkReduce": tr.WalkReduce,
				"WalkFork":   tr.WalkFork,
				"WalkJoin":   tr.WalkJoin,
				"WalkPar":    func(*forkjoin.Worker) Tot { return tr.WalkPar(0) },
			}
			for name, walk := range walks {
				if got := forkjoin.Invoke(p, walk); got != want {
					t.Errorf("%s, %d workers, tree of %d: %s, want %s", name, workers, n, got.Check(), want.Check())
				}
			}
		}
		p.Close()
	}
}

// TestHashedWalks checks the Group walks and their floor against the serial
// hashed walk, on pools of 1 and 2 workers.
func TestHashedWalks(t *testing.T) {
	tr := NewTree(MinTreeNodes + 20000)
	want := tr.SerialHash(0)
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		for name, walk := range map[string]func(int32) HashTot{"group": tr.WalkGroup, "group-dirs": tr.WalkGroupDirs, "closures": tr.WalkClosures} {
			if got := forkjoin.Invoke(p, func(*forkjoin.Worker) HashTot { return walk(0) }); got != want {
				t.Errorf("%s on %d workers = %v, want %v", name, workers, got, want)
			}
		}
		p.Close()
	}
}
