package workloads

import (
	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// The walks of the irregular tree, one per way of forking a Go programmer
// may reach for. Each returns the same total as Tree.Serial.

// maxKids bounds the children of any node of NewTree's tree (8 from the
// breadth-first part, and the chains hang at most one more from each of
// four nodes), so that the walks that collect futures keep them in an array
// on the stack.
const maxKids = 16

// WalkSpawn forks every child with Spawn and joins the futures in order.
func (t *Tree) WalkSpawn(w *forkjoin.Worker, i int32) Tot {
	s := t.Visit(i)
	var buf [maxKids]forkjoin.Future[Tot]
	fs := buf[:0]
	for _, c := range t.Children(i) {
		fs = append(fs, forkjoin.Spawn(w, func(w *forkjoin.Worker) Tot { return t.WalkSpawn(w, c) }))
	}
	for k := range fs {
		s = s.Add(fs[k].Join(w))
	}
	return s
}

// perWorker is one worker's running total, on a cache line of its own.
type perWorker struct {
	Tot
	_ [64 - 24]byte
}

func sum(acc []perWorker) Tot {
	var s Tot
	for i := range acc {
		s = s.Add(acc[i].Tot)
	}
	return s
}

// WalkScope walks the tree in one scope: every node's task adds its own
// total to its worker's and spawns a task per child with s.Go, as the Rayon
// peer's scope walk does.
func (t *Tree) WalkScope(w *forkjoin.Worker) Tot {
	g := &goWalk{t: t, acc: make([]perWorker, w.Pool().Workers()+forkjoin.MaxSpares)}
	forkjoin.Scope(w, func(s *forkjoin.S) {
		g.s = s
		g.spawnWalk(w, 0)
	})
	return sum(g.acc)
}

func (g *goWalk) spawnWalk(w *forkjoin.Worker, i int32) {
	a := &g.acc[w.ID()]
	a.Tot = a.Tot.Add(g.t.Visit(i))
	for _, c := range g.t.Children(i) {
		g.s.Go(func(w *forkjoin.Worker) { g.spawnWalk(w, c) })
	}
}

// goWalk is what every task of WalkFuncGo shares.
type goWalk struct {
	t   *Tree
	s   *forkjoin.S
	acc []perWorker
}

// goArg is a node for WalkFuncGo's spawns.
type goArg struct {
	g *goWalk
	i int32
}

var goWalkFunc *forkjoin.Func[goArg, struct{}]

func init() { goWalkFunc = forkjoin.NewFunc(goWalkBody) }

// WalkFuncGo is WalkScope with Func.Go, the spawn that allocates nothing.
func (t *Tree) WalkFuncGo(w *forkjoin.Worker) Tot {
	g := &goWalk{t: t, acc: make([]perWorker, w.Pool().Workers()+forkjoin.MaxSpares)}
	forkjoin.Scope(w, func(s *forkjoin.S) {
		g.s = s
		goWalkBody(w, goArg{g, 0})
	})
	return sum(g.acc)
}

func goWalkBody(w *forkjoin.Worker, a goArg) struct{} {
	g := a.g
	p := &g.acc[w.ID()]
	p.Tot = p.Tot.Add(g.t.Visit(a.i))
	for _, c := range g.t.Children(a.i) {
		goWalkFunc.Go(g.s, goArg{g, c})
	}
	return struct{}{}
}

// forWalk is WalkFor's state: the loop body is made once per walk, and
// runs over a node's children as they sit in Kids, Start[i] to Start[i+1].
type forWalk struct {
	t    *Tree
	acc  []perWorker
	body func(w *forkjoin.Worker, k int)
}

// WalkFor runs forkjoin.For over every node's children; each node adds its
// own total to its worker's.
func (t *Tree) WalkFor(w *forkjoin.Worker) Tot {
	fw := &forWalk{t: t, acc: make([]perWorker, w.Pool().Workers()+forkjoin.MaxSpares)}
	fw.body = func(w *forkjoin.Worker, k int) { fw.walk(w, t.Kids[k]) }
	fw.walk(w, 0)
	return sum(fw.acc)
}

func (fw *forWalk) walk(w *forkjoin.Worker, i int32) {
	a := &fw.acc[w.ID()]
	a.Tot = a.Tot.Add(fw.t.Visit(i))
	if lo, hi := fw.t.Start[i], fw.t.Start[i+1]; lo < hi { // a file has nothing to loop over
		forkjoin.For(w, int(lo), int(hi), fw.body)
	}
}

// reduceWalk is WalkReduce's state: mapf is made once per walk.
type reduceWalk struct {
	t    *Tree
	mapf func(w *forkjoin.Worker, k int) Tot
}

// WalkReduce sums every node's children with forkjoin.ReduceW, whose mapf
// recurses into the child.
func (t *Tree) WalkReduce(w *forkjoin.Worker) Tot {
	rw := &reduceWalk{t: t}
	rw.mapf = func(w *forkjoin.Worker, k int) Tot { return rw.walk(w, t.Kids[k]) }
	return rw.walk(w, 0)
}

func (rw *reduceWalk) walk(w *forkjoin.Worker, i int32) Tot {
	t := rw.t
	s := t.Visit(i)
	if lo, hi := t.Start[i], t.Start[i+1]; lo < hi { // a file has nothing to reduce over
		s = s.Add(forkjoin.ReduceW(w, int(lo), int(hi), Tot{}, rw.mapf, Tot.Add))
	}
	return s
}

// node is a node of a tree, for the Func walks.
type node struct {
	t *Tree
	i int32
}

var forkWalk *forkjoin.Func[node, Tot]

func init() { forkWalk = forkjoin.NewFunc(forkWalkBody) }

// WalkFork forks every child with Func.Fork and joins the handles in order,
// calling a child directly where Worker.Inline says a fork would run inline.
func (t *Tree) WalkFork(w *forkjoin.Worker) Tot { return forkWalkBody(w, node{t, 0}) }

func forkWalkBody(w *forkjoin.Worker, a node) Tot {
	s := a.t.Visit(a.i)
	var hs [maxKids]forkjoin.Forked[node, Tot]
	n := 0
	for _, c := range a.t.Children(a.i) {
		if w.Inline() {
			s = s.Add(forkWalkBody(w, node{a.t, c}))
			continue
		}
		hs[n] = forkWalk.Fork(w, node{a.t, c})
		n++
	}
	for k := range n {
		s = s.Add(hs[k].Join(w))
	}
	return s
}

// WalkPar calls par.For over every node's children, nested in the tasks
// of the default pool; the children's totals land in a slice per node.
func (t *Tree) WalkPar(i int32) Tot {
	s := t.Visit(i)
	kids := t.Children(i)
	if len(kids) == 0 {
		return s
	}
	res := make([]Tot, len(kids))
	par.For(len(kids), func(k int) { res[k] = t.WalkPar(kids[k]) })
	for _, r := range res {
		s = s.Add(r)
	}
	return s
}

// span is a run of sibling nodes, Kids[lo:hi], for the Func walks.
type span struct {
	t      *Tree
	lo, hi int32
}

var joinWalk *forkjoin.Func[span, Tot]

func init() { joinWalk = forkjoin.NewFunc(joinWalkBody) }

// WalkJoin walks the tree with Func.Join over halves of every child list,
// as the Rayon peer's join walk does, except where a join would run inline
// (Worker.Inline): there it walks the span's children one by one, as the
// serial recursion does.
func (t *Tree) WalkJoin(w *forkjoin.Worker) Tot {
	s := t.Visit(0)
	if lo, hi := t.Start[0], t.Start[1]; lo < hi {
		s = s.Add(joinWalkBody(w, span{t, lo, hi}))
	}
	return s
}

// joinWalkBody walks the subtrees of the children Kids[a.lo:a.hi], a
// span of at least one.
func joinWalkBody(w *forkjoin.Worker, a span) Tot {
	if a.hi-a.lo == 1 {
		return joinWalkChild(w, a.t, a.t.Kids[a.lo])
	}
	if w.Inline() {
		// The join would run inline: walk the children one by one, as
		// the serial recursion does, instead of halving the span.
		var s Tot
		for _, i := range a.t.Kids[a.lo:a.hi] {
			s = s.Add(joinWalkChild(w, a.t, i))
		}
		return s
	}
	mid := a.lo + (a.hi-a.lo)/2
	x, y := joinWalk.Join(w, span{a.t, a.lo, mid}, span{a.t, mid, a.hi})
	return x.Add(y)
}

// joinWalkChild walks the subtree of node i for joinWalkBody.
func joinWalkChild(w *forkjoin.Worker, t *Tree, i int32) Tot {
	s := t.Visit(i)
	if lo, hi := t.Start[i], t.Start[i+1]; lo < hi {
		s = s.Add(joinWalkBody(w, span{t, lo, hi}))
	}
	return s
}
