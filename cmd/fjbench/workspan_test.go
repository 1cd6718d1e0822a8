//go:build fjkit_workspan && !race

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -workspan adds the work and span of the fjkit rows to the table and to
// the bench lines, and nothing to the baselines'.
func TestWorkSpanFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"fib", "-n", "16", "-cutoff", "6", "-workers", "1,2", "-mode", "ws", "-runs", "1", "-workspan"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d: %s", args, code, stderr.String())
	}
	out := stdout.String()
	var ws, others int
	for _, line := range strings.Split(out, "\n") {
		cells := strings.Split(line, "|")
		switch {
		case strings.Contains(line, "| scheduler"):
			if !strings.Contains(line, "| parallelism |") || !strings.Contains(line, "| burdened par. |") {
				t.Errorf("header lacks the work/span columns: %s", line)
			}
		case len(cells) > 16 && strings.TrimSpace(cells[1]) == "ws":
			ws++
			if strings.TrimSpace(cells[13]) == "" || strings.TrimSpace(cells[14]) == "" {
				t.Errorf("a ws row without parallelism: %s", line)
			}
		case len(cells) > 16 && strings.TrimSpace(cells[1]) == "serial":
			others++
			if strings.TrimSpace(cells[13]) != "" {
				t.Errorf("the serial row has a parallelism: %s", line)
			}
		}
	}
	if ws != 2 || others != 1 {
		t.Errorf("%d ws rows and %d serial rows, want 2 and 1:\n%s", ws, others, out)
	}
	stdout.Reset()
	if code := run(append(args, "-format", "bench"), &stdout, &stderr); code != 0 {
		t.Fatalf("-format bench: %d: %s", code, stderr.String())
	}
	n := 0
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "BenchmarkFib/ws/") {
			n++
			for _, m := range []string{" work-ns/op", " span-ns/op", " parallelism", " burdened-parallelism"} {
				if !strings.Contains(line, m) {
					t.Errorf("bench line lacks%s: %s", m, line)
				}
			}
		} else if strings.Contains(line, "work-ns/op") {
			t.Errorf("a baseline with work and span: %s", line)
		}
	}
	if n != 2 {
		t.Errorf("%d ws bench lines, want 2:\n%s", n, stdout.String())
	}

	// -plot draws the predicted range beside the measured speed-up.
	svg := filepath.Join(t.TempDir(), "fib.svg")
	if code := run(append(args, "-plot", svg), &stdout, &stderr); code != 0 {
		t.Fatalf("-plot: %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ws predicted, at most", "ws predicted, at least (burdened)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}

// -workspan measures par's sorts too: they are fjkit rows.
func TestWorkSpanFlagParRows(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"sort", "-n", "200000", "-workers", "2", "-mode", "ws", "-runs", "1", "-workspan"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d: %s", args, code, stderr.String())
	}
	n := 0
	for _, line := range strings.Split(stdout.String(), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) > 16 && strings.HasPrefix(strings.TrimSpace(cells[1]), "par.") {
			n++
			if strings.TrimSpace(cells[15]) == "" {
				t.Errorf("a par row without parallelism: %s", line)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d par rows, want 4:\n%s", n, stdout.String())
	}
}
