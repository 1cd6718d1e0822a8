package workloads

import "strconv"

// The irregular tree: a file system of about 10⁶ nodes, grown breadth first
// with 0 to 8 children per directory, plus four chains of 5 000 directories.
// Walking it sums a few numbers per node, so the walk measures what each
// way of forking costs where the structure, not a cutoff, decides where the
// forks are. The generator is the Rayon peer's gen_tree
// (/work/shared/peers/rayon, group tree) step for step, so that both sides
// walk the same tree and print the same check, bytes/files/gofiles.

// TreeNodes is the size of the tree the benchmarks walk.
const TreeNodes = 1_000_000

// MinTreeNodes is the smallest tree NewTree grows: the chains and the root's
// first children.
const MinTreeNodes = 4*3*treeChain + 9

// treeChain is the length of each of the four chains of directories, hung
// from random nodes after the breadth-first part; each of their directories
// holds two files as well.
const treeChain = 5000

// Tree is a file-system tree in index form: node i's children are
// Kids[Start[i]:Start[i+1]], node 0 is the root. Flat slices of integers
// make the tree a few allocations that the garbage collector need not scan,
// so that an idiom which allocates pays for its own garbage only.
type Tree struct {
	Size  []int64 // bytes: 4096 for a directory
	IsGo  []bool  // a file whose name ends in .go
	Start []int32 // len(Size)+1 offsets into Kids
	Kids  []int32
}

// Tot is what a walk adds up: bytes, files (leaves) and .go files.
type Tot struct {
	Bytes, Files, GoFiles int64
}

// Add returns the sum of two totals.
func (a Tot) Add(b Tot) Tot {
	return Tot{a.Bytes + b.Bytes, a.Files + b.Files, a.GoFiles + b.GoFiles}
}

// NewTree grows the tree of n nodes (n ≥ MinTreeNodes) from splitmix64
// state 99, as the Rayon peer does: the root gets 8 directories; then, breadth
// first over the directories, each gets splitmix%9 children, each a
// directory when splitmix%3 > 0, until n-60 000 nodes; then 4 chains of 5 000
// directories, each hung from node splitmix%count and each holding 2 files.
// A node's size comes from one draw r: 4096 for a directory, r%40000 for a
// file, which is a .go file when (r>>20)%8 == 0. It panics for a smaller n.
func NewTree(n int) *Tree {
	const chains = 4
	budget := n - chains*treeChain*3
	if n < MinTreeNodes {
		panic("workloads.NewTree: n is too small for the chains")
	}
	st := uint64(99)
	var size []int64
	var isGo []bool
	var kids [][]int32
	mk := func(dir bool) int32 {
		r := SplitMix64(&st)
		if dir {
			size = append(size, 4096)
		} else {
			size = append(size, int64(r%40000))
		}
		isGo = append(isGo, !dir && (r>>20)%8 == 0)
		kids = append(kids, nil)
		return int32(len(size) - 1)
	}
	root := mk(true)
	for range 8 {
		c := mk(true)
		kids[root] = append(kids[root], c)
	}
	queue := append([]int32(nil), kids[root]...)
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if len(size) >= budget {
			break
		}
		f := SplitMix64(&st) % 9
		for range f {
			if len(size) >= budget {
				break
			}
			isDir := SplitMix64(&st)%3 > 0
			c := mk(isDir)
			kids[d] = append(kids[d], c)
			if isDir {
				queue = append(queue, c)
			}
		}
	}
	for range chains {
		at := int32(SplitMix64(&st) % uint64(len(size)))
		for range treeChain {
			c := mk(true)
			kids[at] = append(kids[at], c)
			for range 2 {
				f := mk(false)
				kids[c] = append(kids[c], f)
			}
			at = c
		}
	}
	t := &Tree{Size: size, IsGo: isGo, Start: make([]int32, len(size)+1)}
	for i, ks := range kids {
		t.Start[i+1] = t.Start[i] + int32(len(ks))
	}
	t.Kids = make([]int32, 0, t.Start[len(size)])
	for _, ks := range kids {
		t.Kids = append(t.Kids, ks...)
	}
	return t
}

// SplitMix64 advances state and returns the next value of Vigna's
// splitmix64, as every peer computes it.
func SplitMix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Children returns node i's children.
func (t *Tree) Children(i int32) []int32 { return t.Kids[t.Start[i]:t.Start[i+1]] }

// Visit is the work of node i alone: its bytes, and whether it is a file
// (a leaf) and a .go file.
func (t *Tree) Visit(i int32) Tot {
	if t.Start[i] != t.Start[i+1] {
		return Tot{Bytes: t.Size[i]}
	}
	g := int64(0)
	if t.IsGo[i] {
		g = 1
	}
	return Tot{Bytes: t.Size[i], Files: 1, GoFiles: g}
}

// Check formats a total as the Rayon peer's check does: bytes/files/gofiles.
func (a Tot) Check() string {
	return strconv.FormatInt(a.Bytes, 10) + "/" + strconv.FormatInt(a.Files, 10) + "/" + strconv.FormatInt(a.GoFiles, 10)
}

// Serial is the plain recursion every idiom is measured against.
func (t *Tree) Serial(i int32) Tot {
	s := t.Visit(i)
	for _, c := range t.Children(i) {
		s = s.Add(t.Serial(c))
	}
	return s
}

// closureSink keeps the closures SerialAlloc makes on the heap, as a fork's
// closure is.
//
//lint:ignore U1000 written, never read: the write is what makes the closures escape
var closureSink func() Tot

// SerialAlloc is Serial with the one allocation a walk that forks a closure
// per child cannot avoid (Spawn, S.Go, nested par.For): each child's call
// goes through a closure that escapes to the heap. It is the floor of those
// walks.
func (t *Tree) SerialAlloc(i int32) Tot {
	s := t.Visit(i)
	for _, c := range t.Children(i) {
		f := func() Tot { return t.SerialAlloc(c) }
		closureSink = f
		s = s.Add(f())
	}
	return s
}
