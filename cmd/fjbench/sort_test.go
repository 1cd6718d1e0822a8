package main

import (
	"slices"
	"strconv"
	"testing"
)

func TestSmokeSort(t *testing.T) {
	const n = 5000
	rep := smoke(t, "sort", "-n", strconv.Itoa(n), "-cutoff", "100", "-workers", "1,2")
	s := sortInput(n)
	slices.Sort(s)
	checkSmoke(t, rep, map[string]string{"sort n=5000 cutoff=100": fmtChecksum(sortChecksum(s))},
		"slices.Sort", "ws-merge", "shared-merge", "ws-quick", "shared-quick", "goroutines", "chanpool", "errgroup")
}
