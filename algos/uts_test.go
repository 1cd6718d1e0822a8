package algos

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// The trees every `go test` run checks (the -short set); the others of
// sample_trees.txt run without -short.
var utsRequired = []string{"T1", "T5", "T3"}

// utsSmallSamples are the ~4-million-node trees of sample_trees.txt.
var utsSmallSamples = []string{"T1", "T5", "T2", "T3", "T4"}

// TestUTSSampleTreesSerial checks the published counts of every small
// tree through the serial search (without -short; TestUTSSampleTrees checks
// the required trees in parallel in every run).
func TestUTSSampleTreesSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("serial search of 4M-node trees: skipped in -short mode")
	}
	samples := loadUTSSamples(t)
	for _, name := range utsSmallSamples {
		t.Run(name, func(t *testing.T) {
			s, ok := samples[name]
			if !ok {
				t.Fatalf("sample %s missing from sample_trees.txt", name)
			}
			if got := UTSSerial(s.p); got != s.want {
				t.Errorf("UTSSerial(%s: %s) = %+v, want %+v", name, s.flags, got, s.want)
			}
		})
	}
}

// TestUTSSampleTrees checks the published counts through the parallel
// search, which makes it a test of the scheduler too: a task lost or run
// twice among ~800,000 forks changes the count. With -short or -race (where
// a 4M-node parallel search takes ~10 s) each required tree runs once, on one
// pool configuration each; otherwise every small tree runs under both
// schedulers.
func TestUTSSampleTrees(t *testing.T) {
	samples := loadUTSSamples(t)
	type run struct {
		tree    string
		mode    int // index into testModes
		workers int
	}
	var runs []run
	if testing.Short() || utsRace {
		runs = []run{{"T1", 0, 2}, {"T5", 1, 2}, {"T3", 0, 4}}
	} else {
		for _, name := range utsSmallSamples {
			runs = append(runs, run{name, 0, 2}, run{name, 1, 2})
		}
	}
	for _, r := range runs {
		m := testModes[r.mode]
		t.Run(fmt.Sprintf("%s/%s/workers=%d", r.tree, m.name, r.workers), func(t *testing.T) {
			s, ok := samples[r.tree]
			if !ok {
				t.Fatalf("sample %s missing from sample_trees.txt", r.tree)
			}
			p := forkjoin.New(forkjoin.Workers(r.workers), forkjoin.WithMode(m.mode))
			defer p.Close()
			got := forkjoin.Invoke(p, func(w *forkjoin.Worker) UTSResult { return UTS(w, s.p) })
			if got != s.want {
				t.Errorf("UTS(%s: %s) = %+v, want %+v", r.tree, s.flags, got, s.want)
			}
		})
	}
}

// utsSmallTrees are a few thousand to ~100,000 nodes of every tree kind and
// shape, cheap enough to search under every pool configuration.
var utsSmallTrees = []UTSParams{
	{Tree: Geometric, Shape: Fixed, Depth: 6, B0: 4, Seed: 19},
	{Tree: Geometric, Shape: Linear, Depth: 12, B0: 4, Seed: 34},
	{Tree: Geometric, Shape: ExpDec, Depth: 8, B0: 4, Seed: 0},
	{Tree: Geometric, Shape: Cyclic, Depth: 7, B0: 5, Seed: 502},
	{Tree: Binomial, B0: 100, Q: 0.124875, M: 8, Seed: 42},
	{Tree: Hybrid, Shape: Linear, Depth: 12, B0: 4, Q: 0.234375, M: 4, Seed: 1, ShiftDepth: 0.5},
}

func TestUTSMatchesSerial(t *testing.T) {
	want := make([]UTSResult, len(utsSmallTrees))
	for i, p := range utsSmallTrees {
		want[i] = UTSSerial(p)
		if want[i].Nodes < 1000 {
			t.Fatalf("UTSSerial(%+v) = %+v: too small a tree to test the parallel search with", p, want[i])
		}
	}
	eachPool(t, func(t *testing.T, pool *forkjoin.Pool) {
		for i, p := range utsSmallTrees {
			got := forkjoin.Invoke(pool, func(w *forkjoin.Worker) UTSResult { return UTS(w, p) })
			if got != want[i] {
				t.Errorf("UTS(%+v) = %+v, want %+v (UTSSerial)", p, got, want[i])
			}
		}
	})
}

// TestUTSLargeTree searches T1L, the 100-million-node tree of the sample
// table (make stress): in parallel, or serially under -race, where the
// parallel search would take ~10 minutes.
func TestUTSLargeTree(t *testing.T) {
	if testing.Short() {
		t.Skip("T1L has 102 million nodes; skipped in -short mode")
	}
	s := loadUTSSamples(t)["T1L"]
	var got UTSResult
	if utsRace {
		got = UTSSerial(s.p)
	} else {
		got = forkjoin.Invoke(forkjoin.Default(), func(w *forkjoin.Worker) UTSResult { return UTS(w, s.p) })
	}
	if got != s.want {
		t.Errorf("UTS(T1L: %s) = %+v, want %+v", s.flags, got, s.want)
	}
}

func TestUTSSampleFileHasRequiredTrees(t *testing.T) {
	samples := loadUTSSamples(t)
	for _, name := range append(utsRequired, "T1L") {
		if _, ok := samples[name]; !ok {
			t.Errorf("sample %s missing from sample_trees.txt", name)
		}
	}
}

func TestUTSBadParamsPanic(t *testing.T) {
	ok := UTSParams{Tree: Geometric, Shape: Fixed, Depth: 3, B0: 2, Q: 0.5, M: 2}
	tests := []struct {
		name string
		edit func(p *UTSParams)
		want string // the argument the panic must name
	}{
		{"tree", func(p *UTSParams) { p.Tree = 7 }, "Tree"},
		{"shape", func(p *UTSParams) { p.Shape = -1 }, "Shape"},
		{"depth", func(p *UTSParams) { p.Depth = 0 }, "Depth"},
		{"b0", func(p *UTSParams) { p.B0 = -1 }, "B0"},
		{"b0 NaN", func(p *UTSParams) { p.B0 = math.NaN() }, "B0"},
		{"b0 beyond int32", func(p *UTSParams) { p.Tree = Binomial; p.B0 = 1e12 }, "B0"},
		{"q", func(p *UTSParams) { p.Tree = Binomial; p.Q = 1.5 }, "Q"},
		{"m", func(p *UTSParams) { p.Tree = Hybrid; p.M = -2 }, "M ="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ok
			tt.edit(&p)
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.Contains(msg, tt.want) {
					t.Errorf("UTSSerial(%+v) panicked with %v, want a message naming %q", p, r, tt.want)
				}
			}()
			UTSSerial(p)
		})
	}
	if got := UTSSerial(ok); got.Nodes < 1 {
		t.Errorf("UTSSerial(%+v) = %+v, want at least the root", ok, got)
	}
}

// A Fixed tree of depth 1 is the root and its children only: the counts can
// be worked out from the root's random number by hand.
func TestUTSDepthOneByHand(t *testing.T) {
	p := UTSParams{Tree: Geometric, Shape: Fixed, Depth: 1, B0: 4, Seed: 19}
	c := newUTSConfig(p)
	root := utsRootState(p.Seed)
	n := int64(c.numChildren(&root, 0))
	want := UTSResult{Nodes: 1 + n, Leaves: n, MaxDepth: 1}
	if n == 0 {
		want = UTSResult{Nodes: 1, Leaves: 1, MaxDepth: 0}
	}
	if got := UTSSerial(p); got != want {
		t.Errorf("UTSSerial(%+v) = %+v, want %+v (root has %d children)", p, got, want, n)
	}
	// A binomial root has floor(B0) children whatever Q says.
	b := UTSParams{Tree: Binomial, B0: 7.9, Q: 0, M: 3, Seed: 5}
	if got, want := UTSSerial(b), (UTSResult{Nodes: 8, Leaves: 7, MaxDepth: 1}); got != want {
		t.Errorf("UTSSerial(%+v) = %+v, want %+v", b, got, want)
	}
}

// The parallel search allocates its configuration, not a record per fork.
func TestUTSForksWithoutAllocating(t *testing.T) {
	if strandMode() {
		t.Skip("strand mode runs every fork on a goroutine of its own")
	}
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	tree := utsSmallTrees[0] // 16,000 nodes, ~3,000 forks
	allocs := testing.AllocsPerRun(10, func() {
		forkjoin.Invoke(p, func(w *forkjoin.Worker) UTSResult { return UTS(w, tree) })
	})
	if allocs > 50 {
		t.Errorf("UTS(%+v) allocates %v times per call, want a small constant", tree, allocs)
	}
}

// A geometric node draws from a distribution with mean B0; with a huge B0
// the draw (~10⁹ here) must be cut to the reference cap of 100 children.
func TestUTSGeometricChildrenCapped(t *testing.T) {
	p := UTSParams{Tree: Geometric, Shape: Fixed, Depth: 1, B0: 2e9, Seed: 19}
	want := UTSResult{Nodes: 1 + utsMaxChildren, Leaves: utsMaxChildren, MaxDepth: 1}
	if got := UTSSerial(p); got != want {
		t.Errorf("UTSSerial(%+v) = %+v, want %+v", p, got, want)
	}
}
