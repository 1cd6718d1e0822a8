package main

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/internal/sorts/sortinput"
)

func TestSmokeSort(t *testing.T) {
	const n = 5000
	rep := smoke(t, "sort", "-n", strconv.Itoa(n), "-cutoff", "100", "-workers", "1,2")
	s := sortInput("random", n)
	slices.Sort(s)
	checkSmoke(t, rep, map[string]string{"sort n=5000 cutoff=100": fmtChecksum(sortChecksum(s))},
		"slices.Sort", "ws-merge", "shared-merge", "ws-quick", "shared-quick", "goroutines", "chanpool", "errgroup")
}

// TestSmokeSortInputs runs every -input kind but random (TestSmokeSort's)
// and holds every sort to slices.Sort's checksum of it.
func TestSmokeSortInputs(t *testing.T) {
	const n = 3000
	for _, kind := range sortinput.Kinds[1:] {
		rep := smoke(t, "sort", "-input", kind, "-n", strconv.Itoa(n), "-cutoff", "100", "-workers", "2", "-mode", "ws")
		s := sortInput(kind, n)
		slices.Sort(s)
		checkSmoke(t, rep, map[string]string{"sort n=3000 cutoff=100": fmtChecksum(sortChecksum(s))},
			"slices.Sort", "ws-merge", "ws-quick", "goroutines")
	}
}

func TestSortInputFlagRejectsUnknownKind(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sort", "-input", "zigzag", "-n", "100", "-runs", "1"}, &stdout, &stderr); code == 0 ||
		!strings.Contains(stderr.String(), "zigzag") {
		t.Errorf("fjbench sort -input zigzag: exit %d, stderr %q; want a failure naming the kind", code, stderr.String())
	}
}
