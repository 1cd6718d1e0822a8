package par

import (
	"math/bits"
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
)

// Reduce returns the combination of mapf(s[0]), ..., mapf(s[n-1]) over
// the tree that the package doc describes, with a leaf per element,
// computed in parallel, or zero if s is empty. The tree depends on len(s)
// alone, so the result does not depend on the schedule or the number of
// workers: a float sum is the pairwise sum, the same bits on every run and
// every machine. combine must be associative for the result to be the
// fold in index order, and for integer, boolean and string results (and
// arrays and structs of them), which a serial stretch folds in a grouping
// of its own (four quarters side by side, combined in order), for it to be
// the same on every run; it need not be commutative (string concatenation
// is fine).
//
// zero is the result for an empty s and is used for nothing else: it is
// never passed to combine, so a map or any other reference is a safe zero.
// Each value mapf or combine returns is passed to combine at most once, so
// combine may update its first argument and return it (merging one map into
// another, say), as long as mapf returns a new value each time. mapf is
// called once per element; mapf and combine are called concurrently.
//
// Reduce calls two function values per element, which the compiler cannot
// inline here; ReduceRange, whose body gets a whole leaf, runs a cheap
// fold at the speed of a hand-written loop.
func Reduce[S ~[]E, E, R any](s S, zero R, mapf func(E) R, combine func(R, R) R) R {
	if mapf == nil || combine == nil {
		panic("par.Reduce: mapf and combine must not be nil")
	}
	if len(s) == 0 {
		return zero
	}
	var acc R
	exact := exactKind[R]()
	p := startTree(len(s), func(lo, hi int) {
		acc = extend(acc, lo, hi, func(a, b int) R { return subtree(s[a:b], mapf, combine, exact) }, combine)
	})
	if !p.parallel() {
		return acc
	}
	return reduceRest(p, acc, func(a, b int) R { return subtree(s[a:b], mapf, combine, exact) }, combine) // made here: see start
}

// ReduceRange returns the combination of body(lo₀, hi₀), body(lo₁, hi₁),
// ..., body(loₘ₋₁, hiₘ₋₁) over the tree that the package doc describes, for
// the m leaves [lo₀, hi₀), [lo₁, hi₁), ... that cover [0, n) in order,
// computed in parallel, or zero if n <= 0. The leaves hold L indices each,
// the last one the rest, L being the smallest power of two that makes m at
// most 1024: L is 1 for n up to 1024, 2 up to 2048, and so on. The leaves
// and the tree depend on n alone, so the result does not depend on the
// schedule or the number of workers. It is Reduce for cheap bodies: the
// loop over a leaf is the caller's, with no call per index, and a map and a
// reduction fused in it need no slice between them:
//
//	sum := par.ReduceRange(len(s), 0, func(lo, hi int) uint64 {
//		var acc uint64
//		for _, x := range s[lo:hi] {
//			acc += x * x
//		}
//		return acc
//	}, func(a, b uint64) uint64 { return a + b })
//
// combine must be associative for the result to be the fold in index
// order, as for Reduce, and the same rules hold: zero is the result for
// n <= 0 only, and each value body or combine returns is passed to combine
// at most once. body is called once per leaf, concurrently, and combine
// once per leaf after the first.
func ReduceRange[R any](n int, zero R, body func(lo, hi int) R, combine func(R, R) R) R {
	if body == nil || combine == nil {
		panic("par.ReduceRange: body and combine must not be nil")
	}
	if n <= 0 {
		return zero
	}
	leaf := leafSize(n)
	if leaf == 1 {
		var acc R
		p := startTree(n, func(lo, hi int) {
			acc = extend(acc, lo, hi, func(a, b int) R { return treeNode(a, b, body, combine) }, combine)
		})
		if !p.parallel() {
			return acc
		}
		return reduceRest(p, acc, func(a, b int) R { return treeNode(a, b, body, combine) }, combine)
	}
	ofLeaf := func(j, _ int) R { lo := j * leaf; return body(lo, lo+min(leaf, n-lo)) }
	var acc R
	p := startTree((n-1)/leaf+1, func(lo, hi int) {
		acc = extend(acc, lo, hi, func(a, b int) R { return treeNode(a, b, ofLeaf, combine) }, combine)
	})
	if !p.parallel() {
		return acc
	}
	return reduceRest(p, acc, func(a, b int) R {
		return treeNode(a, b, func(j, _ int) R { lo := j * leaf; return body(lo, lo+min(leaf, n-lo)) }, combine)
	}, combine)
}

// maxLeafBits makes ReduceRange's leaves at most 1<<maxLeafBits: enough
// for any pool to balance, few enough that the calls of body and combine
// per leaf cost little beside a leaf of a cheap body.
const maxLeafBits = 10

// leafSize returns the length of ReduceRange's leaves over n > 0 indices:
// the smallest power of two that makes them at most 1<<maxLeafBits.
func leafSize(n int) int {
	if k := bits.Len(uint(n-1)) - maxLeafBits; k > 0 {
		return 1 << k
	}
	return 1
}

// The reductions combine over a tree fixed by the number of units m
// (elements or leaves): units [a, b) with b-a > 1 are the combination of
// [a, a+p) and [a+p, b), p the largest power of two below b-a (see the
// package doc). A subtree of 2^k units starts at a multiple of 2^k, so the
// tree of [0, 2^k) is that of [0, 2^(k-1)) combined with that of
// [2^(k-1), 2^k), and the serial start runs chunks that double: after each,
// one partial result holds all that has run. The rest, [d, m) for d a
// power of two or 0, is cut into pieces that are subtrees too: [b, b+s) is one
// wherever s is a power of two that divides b, and [b, m) is one when b is
// a multiple of a power of two at least m-b (reduceRest).

// extend returns acc, the result of the subtree [0, lo), extended by the
// units [lo, hi): hi is a power of two, or all units (the chunks of
// startTree).
func extend[R any](acc R, lo, hi int, node func(a, b int) R, combine func(R, R) R) R {
	if lo == 0 {
		return node(0, hi)
	}
	for lo < hi {
		b := hi
		if hi-lo >= lo {
			b = 2 * lo // a complete subtree as long as the first
		}
		acc = combine(acc, node(lo, b))
		lo = b
	}
	return acc
}

// reduceRest returns acc, the result of [0, p.done), extended by the rest
// of p, run on the pool; a call cut short by a cancellation panics with a
// *forkjoin.CanceledError, or, made outside any task, returns the zero R.
// node(a, b) computes a subtree [a, b) serially: b-a is at most the
// largest power of two that divides a (any, for a = 0).
//
// The rest is one forkjoin loop over pieces of at most p.grain units (or
// more, to keep them at most maxFoldPieces), each a subtree (newFold), and
// their results combine up the tree as they come (fold.arrive): so the
// combines run on the workers beside the pieces, each as soon as both its
// operands exist.
func reduceRest[R any](p plan, acc R, node func(a, b int) R, combine func(R, R) R) R {
	strand := strandCalls()
	piece := 1 << (bits.Len(uint(max(p.grain, 1))) - 1) // a power of two units
	if rest := p.n - p.done; rest/piece > maxFoldPieces {
		piece = 1 << bits.Len(uint((rest-1)/maxFoldPieces))
	}
	f := newFold[R](p.done, p.n, piece, strand)
	first := 0
	if p.done > 0 {
		f.put(0, acc)
		f.arrive(0, combine)
		first = 1
	}
	pieces := plan{done: first, n: len(f.cuts) - 1, grain: 1, w: p.w}
	if !pieces.finish(nil, func(_ *forkjoin.Worker, lo, hi int) {
		for j := lo; j < hi; j++ {
			f.put(j, node(f.cuts[j], f.cuts[j+1]))
			if !strand {
				f.arrive(j, combine)
			}
		}
	}) {
		var z R
		return z // pieces were skipped: what ran is not the result
	}
	if strand && len(f.kids) > 0 {
		// Strand mode: the combines run after every piece, as the
		// strands of a join per node, so that the detector sees
		// them, and the pieces, unordered but for the tree's order.
		if !pieces.runRest(func(w *forkjoin.Worker) { f.root = f.joinNode(w, 0, combine) }) {
			var z R
			return z
		}
	}
	return f.root
}

// maxFoldPieces bounds the pieces of a reduction's rest, and so its fold's
// memory: a few megabytes for a small R. The plans ask for at most about
// 2·maxPieces per worker, so the bound binds from 128 workers on, and for a
// test's forced grain of one unit, which would ask for a piece per unit.
const maxFoldPieces = 1 << 16

// fold is the tree of combines over a reduction's pieces. Piece j is the
// units [cuts[j], cuts[j+1]); the nodes above the pieces are numbered
// after them. up[id] is node or piece id's parent k times two, plus one if
// it is the right child, or -1 at the root; slots[2k] and slots[2k+1] hold
// node k's children's results once they are done, and done[k] counts them.
// Node 0 is the root, unless a single piece is all of it. In strand mode
// (strandCalls), kids[k] are node k's children's ids, for joinNode.
type fold[R any] struct {
	cuts  []int
	up    []int32
	slots []R
	done  []atomic.Int32
	kids  [][2]int32
	root  R
}

// newFold returns the fold of the pieces that tile [0, n): [0, done) if
// done > 0 (a power of two), then pieces of at most piece units (a power
// of two), each a subtree: [b, b+size) with size at most the largest power
// of two that divides b. With strand set, it records kids.
func newFold[R any](done, n, piece int, strand bool) *fold[R] {
	f := &fold[R]{cuts: make([]int, 0, 2+bits.Len(uint(piece))+(n-done)/piece+1)}
	if done > 0 {
		f.cuts = append(f.cuts, 0)
	}
	for b := done; ; {
		f.cuts = append(f.cuts, b)
		if b == n {
			break
		}
		size := piece
		if b > 0 {
			size = min(piece, b&-b)
		}
		b = min(b+size, n)
	}
	np := len(f.cuts) - 1
	f.up = make([]int32, 2*np-1)
	f.slots = make([]R, 2*(np-1))
	f.done = make([]atomic.Int32, np-1)
	if strand {
		f.kids = make([][2]int32, np-1)
	}
	j, k := 0, 0
	f.up[f.build(0, n, &j, &k)] = -1
	return f
}

// build numbers the nodes of the subtree [a, b), whose pieces start at
// piece *j, from node *k on, and returns its root's id.
func (f *fold[R]) build(a, b int, j, k *int) int32 {
	if f.cuts[*j] == a && f.cuts[*j+1] == b {
		*j++
		return int32(*j - 1)
	}
	id := *k
	*k++
	m := a + 1<<(bits.Len(uint(b-a-1))-1)
	l := f.build(a, m, j, k)
	r := f.build(m, b, j, k)
	f.up[l], f.up[r] = int32(2*id), int32(2*id+1)
	if f.kids != nil {
		f.kids[id] = [2]int32{l, r}
	}
	return int32(len(f.cuts) - 1 + id)
}

// joinNode returns node k's result, its children's combined, computing
// the children that are nodes in parallel (strand mode).
func (f *fold[R]) joinNode(w *forkjoin.Worker, k int, combine func(R, R) R) R {
	l, r := forkjoin.Join(w, func(w *forkjoin.Worker) R { return f.result(w, f.kids[k][0], combine) },
		func(w *forkjoin.Worker) R { return f.result(w, f.kids[k][1], combine) })
	return combine(l, r)
}

// result returns the result of piece or node id (strand mode).
func (f *fold[R]) result(w *forkjoin.Worker, id int32, combine func(R, R) R) R {
	if np := len(f.cuts) - 1; int(id) >= np {
		return f.joinNode(w, int(id)-np, combine)
	}
	return f.slots[f.up[id]]
}

// put records piece j's result.
func (f *fold[R]) put(j int, v R) {
	if u := f.up[j]; u >= 0 {
		f.slots[u] = v
	} else {
		f.root = v
	}
}

// arrive counts piece j done, after put: the call that finds a node's
// other child done too combines the two and carries the result up.
func (f *fold[R]) arrive(j int, combine func(R, R) R) {
	for u := f.up[j]; u >= 0; {
		k := u >> 1
		if f.done[k].Add(1) == 1 {
			return // the other child is still running: its call goes on
		}
		v := combine(f.slots[2*k], f.slots[2*k+1])
		if u = f.up[len(f.cuts)-1+int(k)]; u >= 0 {
			f.slots[u] = v
		} else {
			f.root = v
		}
	}
}

// treeNode returns the tree's result over the units [a, b), leaf(j, j+1)
// being unit j's.
func treeNode[R any](a, b int, leaf func(lo, hi int) R, combine func(R, R) R) R {
	if b-a == 1 {
		return leaf(a, b)
	}
	p := 1 << (bits.Len(uint(b-a-1)) - 1)
	return combine(treeNode(a, a+p, leaf, combine), treeNode(a+p, b, leaf, combine))
}

// subtree returns the tree's result over mapf of the elements of s, not
// empty: pairwise's; or, if exact (see exactKind: R's values combine
// exactly, so that any grouping of an associative combine gives the
// tree's value), fold4's.
func subtree[E, R any](s []E, mapf func(E) R, combine func(R, R) R, exact bool) R {
	if !exact {
		return pairwise(s, mapf, combine)
	}
	return fold4(s, mapf, combine)
}

// fold4 returns the fold from the left of mapf over s, not empty, grouped
// as four folds of s's quarters, side by side, combined in order at the
// end: each call waits on the one before it only within its quarter, so
// the processor overlaps four chains of calls where one fold would run
// them one after another. Quarters shorter than 4 save less than the three
// extra combines cost: such an s is folded from the left.
func fold4[E, R any](s []E, mapf func(E) R, combine func(R, R) R) R {
	q := len(s) / 4
	if q < 4 {
		acc := mapf(s[0])
		for _, x := range s[1:] {
			acc = combine(acc, mapf(x))
		}
		return acc
	}
	s0, s1, s2, s3 := s[:q], s[q:2*q], s[2*q:3*q], s[3*q:]
	a0, a1, a2, a3 := mapf(s0[0]), mapf(s1[0]), mapf(s2[0]), mapf(s3[0])
	for i := 1; i < q; i++ {
		a0 = combine(a0, mapf(s0[i]))
		a1 = combine(a1, mapf(s1[i]))
		a2 = combine(a2, mapf(s2[i]))
		a3 = combine(a3, mapf(s3[i]))
	}
	for _, x := range s3[q:] {
		a3 = combine(a3, mapf(x))
	}
	return combine(combine(combine(a0, a1), a2), a3)
}

// pairwise returns the tree's result over mapf of the elements of s, not
// empty: treeNode with a leaf per element, the subtrees of 4, 8, 16 and 32
// elements written out, so that the recursion's calls are few beside
// mapf's and combine's.
func pairwise[E, R any](s []E, mapf func(E) R, combine func(R, R) R) R {
	switch len(s) {
	case 1:
		return mapf(s[0])
	case 4:
		return combine(combine(mapf(s[0]), mapf(s[1])), combine(mapf(s[2]), mapf(s[3])))
	case 8:
		return pairwise8((*[8]E)(s), mapf, combine)
	case 16:
		return combine(pairwise8((*[8]E)(s[0:8]), mapf, combine), pairwise8((*[8]E)(s[8:16]), mapf, combine))
	case 32:
		return combine(
			combine(pairwise8((*[8]E)(s[0:8]), mapf, combine), pairwise8((*[8]E)(s[8:16]), mapf, combine)),
			combine(pairwise8((*[8]E)(s[16:24]), mapf, combine), pairwise8((*[8]E)(s[24:32]), mapf, combine)))
	}
	p := 1 << (bits.Len(uint(len(s)-1)) - 1)
	return combine(pairwise(s[:p], mapf, combine), pairwise(s[p:], mapf, combine))
}

// pairwise8 is pairwise over eight elements.
func pairwise8[E, R any](x *[8]E, mapf func(E) R, combine func(R, R) R) R {
	return combine(
		combine(combine(mapf(x[0]), mapf(x[1])), combine(mapf(x[2]), mapf(x[3]))),
		combine(combine(mapf(x[4]), mapf(x[5])), combine(mapf(x[6]), mapf(x[7]))))
}
