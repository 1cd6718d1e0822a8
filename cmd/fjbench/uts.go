package main

import (
	"strconv"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
)

// utsTree is the sample tree T1 of the UTS suite (geometric, fixed branching
// factor 4, seed 19) with the depth as the size: depth 10 is T1 itself, 4,130,071
// nodes; every level down divides the work by about four.
func utsTree(depth int) algos.UTSParams {
	return algos.UTSParams{Tree: algos.Geometric, Shape: algos.Fixed, Depth: depth, B0: 4, Seed: 19,
		Q: 15.0 / 64.0, M: 4, ShiftDepth: 0.5}
}

// utsChecksum folds the whole search result into one number.
func utsChecksum(r algos.UTSResult) uint64 {
	return uint64(r.Nodes)*1_000_003 + uint64(r.Leaves)*31 + uint64(r.MaxDepth)
}

func runUTS(cfg *config, b *bench) (Section, error) {
	depth := cfg.n
	if depth == 0 {
		depth = 9
	}
	if depth > 13 {
		return Section{}, errSize("uts", "-n", depth, "a tree depth of at most 13 (13 is 10^8 nodes)")
	}
	p := utsTree(depth)
	sec := Section{Name: "uts", Notes: []string{
		"The tree is UTS's T1 (geometric, fixed shape, b0 4, seed 19) cut at depth -n; depth 10 is T1 itself. " +
			"There are no Go-idiom baselines here: they would need the tree's node expansion (the SHA-1 child " +
			"generator), which package algos keeps unexported, and a second copy of it would not be the same tree."}}
	ref := algos.UTSSerial(p)
	base := Result{Scenario: "uts", Params: []Param{{"tree", "T1"}, {"depth", strconv.Itoa(depth)}},
		Work: float64(ref.Nodes), Unit: "nodes"}
	sec.add(b.measureOne(base, contender{scheduler: "serial", work: func() uint64 { return utsChecksum(algos.UTSSerial(p)) }}))
	sec.add(measureOurs(b, base, cfg.modes, cfg.workers, "", nil, func(w *forkjoin.Worker) uint64 { return utsChecksum(algos.UTS(w, p)) }))
	return sec, b.err
}
