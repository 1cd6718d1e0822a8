package workloads

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/fjkit/fjkit/par"
)

// The irregular tree with real work per node: each node hashes 64 bytes of
// its own (SHA-256), as a walk that checksums file headers does. The walks
// return the total and the XOR of each node's hash's first 8 bytes, which
// does not depend on the order of the visits.

// HashTot is a hashed walk's result.
type HashTot struct {
	Tot
	Sum uint64
}

func (a HashTot) add(b HashTot) HashTot { return HashTot{a.Tot.Add(b.Tot), a.Sum ^ b.Sum} }

// VisitHash is Visit and node i's hash.
func (t *Tree) VisitHash(i int32) HashTot {
	var b [64]byte
	binary.LittleEndian.PutUint64(b[:], uint64(i))
	binary.LittleEndian.PutUint64(b[8:], uint64(t.Size[i]))
	h := sha256.Sum256(b[:])
	return HashTot{t.Visit(i), binary.LittleEndian.Uint64(h[:])}
}

// SerialHash is the plain recursion of the hashed walk.
func (t *Tree) SerialHash(i int32) HashTot {
	s := t.VisitHash(i)
	for _, c := range t.Children(i) {
		s = s.add(t.SerialHash(c))
	}
	return s
}

// WalkGroup walks the tree with a par.Group per directory, the errgroup
// way: every child, file or directory, is a function passed to Go that
// stores its result in a slice made for the directory's children (as
// errgroup's own example keeps its results), and the directory's function
// waits for its group.
func (t *Tree) WalkGroup(i int32) HashTot {
	s := t.VisitHash(i)
	kids := t.Children(i)
	if len(kids) == 0 {
		return s
	}
	res := make([]HashTot, len(kids))
	var g par.Group
	for k, c := range kids {
		g.Go(func() error { res[k] = t.WalkGroup(c); return nil })
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
	for _, r := range res {
		s = s.add(r)
	}
	return s
}

// WalkGroupDirs walks the tree with a par.Group per directory that passes
// only the subdirectories to Go and hashes the files itself, as a walker
// that reads a directory's entries does.
func (t *Tree) WalkGroupDirs(i int32) HashTot {
	s := t.VisitHash(i)
	kids := t.Children(i)
	if len(kids) == 0 {
		return s
	}
	res := make([]HashTot, len(kids))
	var g par.Group
	for k, c := range kids {
		if t.Start[c] == t.Start[c+1] {
			res[k] = t.VisitHash(c) // a file
			continue
		}
		g.Go(func() error { res[k] = t.WalkGroupDirs(c); return nil })
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
	for _, r := range res {
		s = s.add(r)
	}
	return s
}

// WalkClosures is WalkGroupDirs with the group's scheduling taken out: the
// same results slice, and a closure per subdirectory made and kept as Go
// keeps it, then called in order. It is the floor of that code shape: what
// the closures and the slice the directory shares with them cost, on one
// worker, before any fork.
func (t *Tree) WalkClosures(i int32) HashTot {
	s := t.VisitHash(i)
	kids := t.Children(i)
	if len(kids) == 0 {
		return s
	}
	res := make([]HashTot, len(kids))
	fs := closureList{fs: make([]func() error, 0, maxKids)}
	for k, c := range kids {
		if t.Start[c] == t.Start[c+1] {
			res[k] = t.VisitHash(c) // a file
			continue
		}
		fs.add(func() error { res[k] = t.WalkClosures(c); return nil })
	}
	if err := fs.run(); err != nil {
		panic(err)
	}
	for _, r := range res {
		s = s.add(r)
	}
	return s
}

// closureList holds WalkClosures' closures. Its methods stay out of line,
// as a group's do, so that the closures escape to the heap as they do
// there.
type closureList struct{ fs []func() error }

//go:noinline
func (l *closureList) add(f func() error) { l.fs = append(l.fs, f) }

//go:noinline
func (l *closureList) run() error {
	for _, f := range l.fs {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}
