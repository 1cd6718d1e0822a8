package algos

import (
	"strings"
	"testing"
)

// The trees every `go test` run checks (the -short set); the others of
// sample_trees.txt run without -short.
var utsRequired = []string{"T1", "T5", "T3"}

func TestUTSSampleTreesSerial(t *testing.T) {
	samples := loadUTSSamples(t)
	for _, name := range []string{"T1", "T5", "T2", "T3", "T4"} {
		t.Run(name, func(t *testing.T) {
			s, ok := samples[name]
			if !ok {
				t.Fatalf("sample %s missing from sample_trees.txt", name)
			}
			if testing.Short() {
				// make test checks the required trees through the
				// parallel search; here they cost ~4 s each under -race.
				t.Skip("serial search of a 4M-node tree: skipped in -short mode")
			}
			if got := UTSSerial(s.p); got != s.want {
				t.Errorf("UTSSerial(%s: %s) = %+v, want %+v", name, s.flags, got, s.want)
			}
		})
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
