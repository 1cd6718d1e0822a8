package forkjoin_test

import (
	"strconv"
	"sync"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/workloads"
)

// BenchmarkTreeWalk walks the irregular tree (internal/workloads: 10⁶ nodes
// of a file system, the Rayon peer's tree) with every way of forking beside
// the serial recursion, so that 1 worker against serial is the price of the
// forks and 2 workers against serial what they buy. The nested par.For walk
// runs on the default pool, whose size FJKIT_WORKERS sets.

var irregularTree = sync.OnceValue(func() *workloads.Tree { return workloads.NewTree(workloads.TreeNodes) })

// treeWalks are the parallel walks, each from the root.
var treeWalks = []struct {
	name string
	walk func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot
}{
	{"spawn", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkSpawn(w, 0) }},
	{"scope-go", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkScope(w) }},
	{"func-go", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkFuncGo(w) }},
	{"for", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkFor(w) }},
	{"reducew", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkReduce(w) }},
	{"fork-inline", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkFork(w) }},
	{"join-inline", func(w *forkjoin.Worker, t *workloads.Tree) workloads.Tot { return t.WalkJoin(w) }},
}

func BenchmarkTreeWalk(b *testing.B) {
	t := irregularTree()
	want := t.Serial(0)
	check := func(b *testing.B, got workloads.Tot) {
		if got != want {
			b.Fatalf("walk = %s, want %s", got.Check(), want.Check())
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(b, t.Serial(0))
		}
	})
	// The floor of the walks that fork a closure per child: the serial
	// recursion making the same allocation.
	b.Run("serial-alloc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(b, t.SerialAlloc(0))
		}
	})
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		for _, wk := range treeWalks {
			b.Run(wk.name+"/workers="+strconv.Itoa(workers), func(b *testing.B) {
				b.ReportAllocs()
				p.ResetStats()
				n := 0
				for b.Loop() {
					check(b, forkjoin.Invoke(p, func(w *forkjoin.Worker) workloads.Tot { return wk.walk(w, t) }))
					n++
				}
				reportScheduling(b, p.Stats(), n)
			})
		}
		p.Close()
	}
	b.Run("par-for/workers="+strconv.Itoa(forkjoin.Default().Workers()), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(b, t.WalkPar(0))
		}
	})
}

// reportScheduling reports a multi-worker row's steals and parks per walk,
// what its scaling buys them with.
func reportScheduling(b *testing.B, s forkjoin.Stats, walks int) {
	if s.Workers > 1 && walks > 0 {
		b.ReportMetric(float64(s.Steals)/float64(walks), "steals/op")
		b.ReportMetric(float64(s.Parks)/float64(walks), "parks/op")
	}
}

// TestTreeWalks checks every walk against the serial one on the benchmark's
// tree, on 1 and 2 workers.
func TestTreeWalks(t *testing.T) {
	tr := irregularTree()
	want := tr.Serial(0)
	if got := want.Check(); got != "9712315380/771227/44009" {
		t.Fatalf("serial walk = %s, want the Rayon peer's 9712315380/771227/44009", got)
	}
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		for _, wk := range treeWalks {
			if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) workloads.Tot { return wk.walk(w, tr) }); got != want {
				t.Errorf("%s on %d workers = %s, want %s", wk.name, workers, got.Check(), want.Check())
			}
		}
		p.Close()
	}
	if got := tr.SerialAlloc(0); got != want {
		t.Errorf("serial-alloc = %s, want %s", got.Check(), want.Check())
	}
	if got := tr.WalkPar(0); got != want {
		t.Errorf("par-for = %s, want %s", got.Check(), want.Check())
	}
}
