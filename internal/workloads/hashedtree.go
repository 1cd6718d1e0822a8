package workloads

// HashedTree is the irregular tree whose nodes do real work: each visit
// also mixes the node's index for about as long as a SHA-256 of 64 bytes
// takes, as a walk that checksums file headers does, and counts the
// result's low 16 bits into the node's bytes. Its walks
// (ztreewalkhashed.go) are Tree's, generated from treewalk.go, so that
// each idiom is measured on both trees with the same code, and the plain
// tree's Visit stays small enough to inline.
type HashedTree struct{ *Tree }

// WithHash returns t's HashedTree.
func (t *Tree) WithHash() *HashedTree { return &HashedTree{t} }

// Visit is Tree.Visit and the node's work.
func (t *HashedTree) Visit(i int32) Tot {
	s := t.Tree.Visit(i)
	x := uint64(i)
	for range 128 {
		x = (x ^ x>>29) * 0xBF58476D1CE4E5B9
	}
	s.Bytes += int64(uint16(x))
	return s
}

// Serial is the plain recursion every idiom is measured against.
func (t *HashedTree) Serial(i int32) Tot {
	s := t.Visit(i)
	for _, c := range t.Children(i) {
		s = s.Add(t.Serial(c))
	}
	return s
}
