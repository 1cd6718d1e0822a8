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

// treeWalk is a parallel walk of one tree from its root.
type treeWalk struct {
	name string
	walk func(w *forkjoin.Worker) workloads.Tot
}

// walker is a tree with the parallel walks: workloads.Tree and HashedTree.
type walker interface {
	WalkSpawn(w *forkjoin.Worker, i int32) workloads.Tot
	WalkScope(w *forkjoin.Worker) workloads.Tot
	WalkFuncGo(w *forkjoin.Worker) workloads.Tot
	WalkFor(w *forkjoin.Worker) workloads.Tot
	WalkReduce(w *forkjoin.Worker) workloads.Tot
	WalkFork(w *forkjoin.Worker) workloads.Tot
	WalkJoin(w *forkjoin.Worker) workloads.Tot
}

// treeWalks are t's parallel walks.
func treeWalks(t walker) []treeWalk {
	return []treeWalk{
		{"spawn", func(w *forkjoin.Worker) workloads.Tot { return t.WalkSpawn(w, 0) }},
		{"scope-go", t.WalkScope},
		{"func-go", t.WalkFuncGo},
		{"for", t.WalkFor},
		{"reducew", t.WalkReduce},
		{"fork-inline", t.WalkFork},
		{"join-inline", t.WalkJoin},
	}
}

func BenchmarkTreeWalk(b *testing.B) {
	t := irregularTree()
	benchTreeWalks(b, t.Serial, t.SerialAlloc, treeWalks(t), t.WalkPar)
}

// BenchmarkTreeWalkHashed is BenchmarkTreeWalk on the same tree with real
// work at every node (workloads.HashedTree, about as long as a SHA-256 of
// 64 bytes), where the forks cost little beside the work, as they do in
// most trees a program walks.
func BenchmarkTreeWalkHashed(b *testing.B) {
	t := irregularTree().WithHash()
	benchTreeWalks(b, t.Serial, nil, treeWalks(t), t.WalkPar)
}

// benchTreeWalks runs a tree's serial walk, serialAlloc if not nil, its
// parallel walks on 1 and 2 workers, and walkPar on the default pool, each
// from the root, and checks every result against the serial walk's.
func benchTreeWalks(b *testing.B, serial, serialAlloc func(int32) workloads.Tot, walks []treeWalk, walkPar func(int32) workloads.Tot) {
	want := serial(0)
	check := func(b *testing.B, got workloads.Tot) {
		if got != want {
			b.Fatalf("walk = %s, want %s", got.Check(), want.Check())
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(b, serial(0))
		}
	})
	// The floor of the walks that fork a closure per child: the serial
	// recursion making the same allocation.
	if serialAlloc != nil {
		b.Run("serial-alloc", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(b, serialAlloc(0))
			}
		})
	}
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		for _, wk := range walks {
			b.Run(wk.name+"/workers="+strconv.Itoa(workers), func(b *testing.B) {
				b.ReportAllocs()
				p.ResetStats()
				n := 0
				for b.Loop() {
					check(b, forkjoin.Invoke(p, wk.walk))
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
			check(b, walkPar(0))
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
// tree, and on the smallest tree, hashed, on 1 and 2 workers.
func TestTreeWalks(t *testing.T) {
	tr := irregularTree()
	want := tr.Serial(0)
	if got := want.Check(); got != "9712315380/771227/44009" {
		t.Fatalf("serial walk = %s, want the Rayon peer's 9712315380/771227/44009", got)
	}
	checkTreeWalks(t, want, treeWalks(tr))
	if got := tr.SerialAlloc(0); got != want {
		t.Errorf("serial-alloc = %s, want %s", got.Check(), want.Check())
	}
	if got := tr.WalkPar(0); got != want {
		t.Errorf("par-for = %s, want %s", got.Check(), want.Check())
	}

	small := workloads.NewTree(workloads.MinTreeNodes)
	hashed := small.WithHash()
	plain := small.Serial(0)
	want = hashed.Serial(0)
	if want.Files != plain.Files || want.Bytes <= plain.Bytes {
		t.Fatalf("hashed serial walk = %s, plain %s: the nodes' work is not counted", want.Check(), plain.Check())
	}
	checkTreeWalks(t, want, treeWalks(hashed))
	if got := hashed.WalkPar(0); got != want {
		t.Errorf("hashed par-for = %s, want %s", got.Check(), want.Check())
	}
}

func checkTreeWalks(t *testing.T, want workloads.Tot, walks []treeWalk) {
	t.Helper()
	for _, workers := range []int{1, 2} {
		p := forkjoin.New(forkjoin.Workers(workers))
		for _, wk := range walks {
			if got := forkjoin.Invoke(p, wk.walk); got != want {
				t.Errorf("%s on %d workers = %s, want %s", wk.name, workers, got.Check(), want.Check())
			}
		}
		p.Close()
	}
}
