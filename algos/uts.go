package algos

import (
	"fmt"
	"math"

	"github.com/fjkit/fjkit/forkjoin"
)

// UTSTree is the kind of Unbalanced Tree Search tree: how the number of
// children of a node is drawn. The values match the UTS -t flag.
type UTSTree int

const (
	// Binomial: the root has floor(B0) children; every other node has M
	// children with probability Q, else none (-t 0).
	Binomial UTSTree = iota
	// Geometric: the number of children is geometrically distributed with
	// a mean that Shape sets from the node's depth (-t 1).
	Geometric
	// Hybrid: geometric above depth ShiftDepth·Depth, binomial below (-t 2).
	Hybrid
)

func (t UTSTree) String() string {
	switch t {
	case Binomial:
		return "Binomial"
	case Geometric:
		return "Geometric"
	case Hybrid:
		return "Hybrid"
	}
	return fmt.Sprintf("UTSTree(%d)", int(t))
}

// UTSShape is the shape function of a geometric tree: the expected number of
// children as a function of depth. The values match the UTS -a flag.
type UTSShape int

const (
	// Linear: B0·(1 - depth/Depth) (-a 0).
	Linear UTSShape = iota
	// ExpDec: B0·depth^(-log(B0)/log(Depth)) (-a 1).
	ExpDec
	// Cyclic: B0^sin(2π·depth/Depth), none below 5·Depth (-a 2).
	Cyclic
	// Fixed: B0 above Depth, none at Depth (-a 3).
	Fixed
)

func (s UTSShape) String() string {
	switch s {
	case Linear:
		return "Linear"
	case ExpDec:
		return "ExpDec"
	case Cyclic:
		return "Cyclic"
	case Fixed:
		return "Fixed"
	}
	return fmt.Sprintf("UTSShape(%d)", int(s))
}

// UTSParams describes a UTS tree; each field is one flag of the reference
// implementation: Tree -t, Shape -a, Depth -d (gen_mx), B0 -b, Seed -r,
// Q -q, M -m, ShiftDepth -f. The reference defaults are Tree Geometric,
// Shape Linear, Depth 6, B0 4, Seed 0, Q 15/64, M 4, ShiftDepth 0.5.
//
// A binomial tree with Q·M >= 1 is (almost surely) infinite; UTS does not
// guard against that and neither does this package.
type UTSParams struct {
	Tree       UTSTree
	Shape      UTSShape
	Depth      int
	B0         float64
	Seed       int
	Q          float64
	M          int
	ShiftDepth float64
}

// UTSResult is what a tree search finds: the number of nodes (root
// included), the number of leaves and the depth of the deepest node (the
// root has depth 0).
type UTSResult struct {
	Nodes, Leaves int64
	MaxDepth      int
}

func (r *UTSResult) add(o UTSResult) {
	r.Nodes += o.Nodes
	r.Leaves += o.Leaves
	r.MaxDepth = max(r.MaxDepth, o.MaxDepth)
}

// utsMaxChildren caps the children of every node but a binomial root, as
// the reference implementation does (its MAXNUMCHILDREN).
const utsMaxChildren = 100

// utsConfig is UTSParams checked once, with the constants of the shape
// functions computed up front.
type utsConfig struct {
	tree        UTSTree
	shape       UTSShape
	genMx       float64
	b0          float64
	q           float64
	m           int
	shiftHeight float64 // ShiftDepth·Depth: hybrid nodes above it are geometric
	expDecPow   float64 // -log(B0)/log(Depth)
}

func newUTSConfig(p UTSParams) *utsConfig {
	if p.Tree < Binomial || p.Tree > Hybrid {
		panic(fmt.Sprintf("algos: UTS: unknown Tree %d (want Binomial, Geometric or Hybrid)", int(p.Tree)))
	}
	if !(p.B0 >= 0 && p.B0 < math.MaxInt32) {
		// The parallel search numbers children with int32.
		panic(fmt.Sprintf("algos: UTS: B0 = %v, want 0 <= B0 < 2³¹", p.B0))
	}
	if p.Tree != Binomial {
		if p.Shape < Linear || p.Shape > Fixed {
			panic(fmt.Sprintf("algos: UTS: unknown Shape %d (want Linear, ExpDec, Cyclic or Fixed)", int(p.Shape)))
		}
		if p.Depth < 1 {
			panic(fmt.Sprintf("algos: UTS: Depth = %d, want >= 1 for a %v tree", p.Depth, p.Tree))
		}
	}
	if p.Tree != Geometric {
		if !(p.Q >= 0 && p.Q <= 1) {
			panic(fmt.Sprintf("algos: UTS: Q = %v, want a probability in [0, 1]", p.Q))
		}
		if p.M < 0 {
			panic(fmt.Sprintf("algos: UTS: M = %d, want >= 0", p.M))
		}
	}
	genMx := float64(p.Depth)
	return &utsConfig{
		tree:        p.Tree,
		shape:       p.Shape,
		genMx:       genMx,
		b0:          p.B0,
		q:           p.Q,
		m:           p.M,
		shiftHeight: p.ShiftDepth * genMx,
		expDecPow:   -math.Log(p.B0) / math.Log(genMx),
	}
}

// numChildren draws the number of children of the node with state s at
// depth h. The arithmetic follows the reference implementation step by step,
// since a count that differs in one node changes the whole tree.
func (c *utsConfig) numChildren(s *utsState, h int) int {
	var n int
	switch c.tree {
	case Binomial:
		if h == 0 {
			// Only the binomial root escapes the cap: it is how T3 gets
			// its 2000 first-level subtrees.
			return int(math.Floor(c.b0))
		}
		n = c.binomial(s)
	case Geometric:
		n = c.geometric(s, h)
	case Hybrid:
		if float64(h) < c.shiftHeight {
			n = c.geometric(s, h)
		} else {
			n = c.binomial(s)
		}
	}
	return min(n, utsMaxChildren)
}

func (c *utsConfig) binomial(s *utsState) int {
	if utsProb(s.rand()) < c.q {
		return c.m
	}
	return 0
}

func (c *utsConfig) geometric(s *utsState, h int) int {
	bi := c.b0
	if h > 0 {
		d := float64(h)
		switch c.shape {
		case Linear:
			bi = c.b0 * (1.0 - d/c.genMx)
		case ExpDec:
			bi = c.b0 * math.Pow(d, c.expDecPow)
		case Cyclic:
			if d > 5*c.genMx {
				bi = 0
			} else {
				bi = math.Pow(c.b0, math.Sin(2.0*math.Pi*d/c.genMx))
			}
		case Fixed:
			if d >= c.genMx {
				bi = 0
			}
		}
	}
	// Invert the geometric distribution's CDF at a uniform u: the
	// distribution with success probability p has mean b_i.
	p := 1.0 / (1.0 + bi)
	u := utsProb(s.rand())
	x := math.Floor(math.Log(1-u) / math.Log(1-p))
	switch {
	case x >= utsMaxChildren: // +Inf included, which int() would garble
		return utsMaxChildren
	case !(x >= 0): // NaN from a negative b_i (a Linear shape past Depth in a hybrid tree)
		return 0
	}
	return int(x)
}

// utsSpan is the children [lo, hi) of the node with state parent at depth
// height: the unit of parallel work.
type utsSpan struct {
	c      *utsConfig
	parent utsState
	height int32
	lo, hi int32
}

// utsGrain is the most children one task scans itself; more are split in
// halves forked against each other, so that a binomial root's 2000 children
// spread over the workers in a few steps rather than one at a time. With
// heartbeat forks it still pays (BenchmarkUTST1 at grains 2, 8 and 32:
// docs/benchmarks.md); 8 keeps the root's children spreading in few steps.
const utsGrain = 8

var utsTask *forkjoin.Func[utsSpan, UTSResult]

func init() { utsTask = forkjoin.NewFunc(utsChildren) }

// utsChildren searches the subtrees of the children in s and returns their
// sum (the parent itself not included). It draws each child's number of
// children first and forks only the children that have some: four out of
// five nodes of a typical UTS tree are leaves, and a fork for each would
// cost more than the leaf's hash. The last inner child runs inline.
func utsChildren(w *forkjoin.Worker, s utsSpan) UTSResult {
	if s.hi-s.lo > utsGrain {
		mid := s.lo + (s.hi-s.lo)/2
		left, right := s, s
		left.hi, right.lo = mid, mid
		r, o := utsTask.Join(w, left, right)
		r.add(o)
		return r
	}
	var (
		r       UTSResult
		forks   [utsGrain]forkjoin.Forked[utsSpan, UTSResult]
		nf      int
		pending bool
		next    utsSpan
	)
	h := s.height + 1
	for i := s.lo; i < s.hi; i++ {
		child := s.parent.spawn(int(i))
		n := s.c.numChildren(&child, int(h))
		r.Nodes++
		if n == 0 {
			r.Leaves++
			continue
		}
		if pending {
			forks[nf] = utsTask.Fork(w, next)
			nf++
		}
		next = utsSpan{c: s.c, parent: child, height: h, lo: 0, hi: int32(n)}
		pending = true
	}
	r.MaxDepth = int(h)
	if pending {
		r.add(utsChildren(w, next))
	}
	for nf > 0 {
		nf--
		r.add(forks[nf].Join(w))
	}
	return r
}

// UTS searches the tree p describes in parallel, forking the subtree of
// every child that has children of its own, and returns its size, leaves and depth: the
// same result as UTSSerial, whatever the schedule.
//
// UTS panics if p names an unknown Tree or Shape, or a parameter out of
// its range (negative B0 or M, Q outside [0, 1], Depth < 1 for a geometric
// or hybrid tree).
func UTS(w *forkjoin.Worker, p UTSParams) UTSResult {
	c := newUTSConfig(p)
	root := utsRootState(p.Seed)
	n := c.numChildren(&root, 0)
	if n == 0 {
		return UTSResult{Nodes: 1, Leaves: 1}
	}
	r := utsChildren(w, utsSpan{c: c, parent: root, lo: 0, hi: int32(n)})
	r.Nodes++
	return r
}

// UTSSerial searches the tree p describes on the calling goroutine, the
// plain depth-first recursion that the parallel UTS is measured
// against.
func UTSSerial(p UTSParams) UTSResult {
	c := newUTSConfig(p)
	return c.serial(utsRootState(p.Seed), 0)
}

// serial takes the state by value: through a pointer, escape analysis
// cannot follow the recursion and moves every child's state to the heap.
func (c *utsConfig) serial(s utsState, h int) UTSResult {
	r := UTSResult{Nodes: 1, MaxDepth: h}
	n := c.numChildren(&s, h)
	if n == 0 {
		r.Leaves = 1
		return r
	}
	for i := range n {
		r.add(c.serial(s.spawn(i), h+1))
	}
	return r
}
