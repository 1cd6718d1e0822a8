package algos

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// utsSample is one line of testdata/uts/sample_trees.txt.
type utsSample struct {
	name  string
	large bool
	flags string
	p     UTSParams
	want  UTSResult
}

// utsDefaults are the reference implementation's defaults for flags a
// sample does not give.
var utsDefaults = UTSParams{Tree: Geometric, Shape: Linear, Depth: 6, B0: 4, Seed: 0, Q: 15.0 / 64.0, M: 4, ShiftDepth: 0.5}

func loadUTSSamples(t testing.TB) map[string]utsSample {
	t.Helper()
	f, err := os.Open("../testdata/uts/sample_trees.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	samples := make(map[string]utsSample)
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		s, err := parseUTSSample(text)
		if err != nil {
			t.Fatalf("sample_trees.txt:%d: %v", line, err)
		}
		samples[s.name] = s
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return samples
}

func parseUTSSample(text string) (utsSample, error) {
	lhs, rhs, ok := strings.Cut(text, ":")
	if !ok {
		return utsSample{}, fmt.Errorf("no ':' between flags and counts")
	}
	head := strings.Fields(lhs)
	if len(head) < 2 || (head[1] != "small" && head[1] != "large") {
		return utsSample{}, fmt.Errorf("want name and size class (small or large) first, got %q", lhs)
	}
	s := utsSample{name: head[0], large: head[1] == "large", flags: strings.Join(head[2:], " ")}
	p, err := parseUTSFlags(head[2:])
	if err != nil {
		return utsSample{}, err
	}
	s.p = p
	counts := strings.Fields(rhs)
	if len(counts) != 3 {
		return utsSample{}, fmt.Errorf("want nodes, leaves, depth after ':', got %q", rhs)
	}
	var n [3]int64
	for i, c := range counts {
		if n[i], err = strconv.ParseInt(c, 10, 64); err != nil {
			return utsSample{}, err
		}
	}
	s.want = UTSResult{Nodes: n[0], Leaves: n[1], MaxDepth: int(n[2])}
	return s, nil
}

// parseUTSFlags reads UTS command-line flags; a flag given twice keeps its
// last value, as getopt-style parsing in the reference does.
func parseUTSFlags(args []string) (UTSParams, error) {
	p := utsDefaults
	if len(args)%2 != 0 {
		return p, fmt.Errorf("flags %q: want flag-value pairs", args)
	}
	for i := 0; i < len(args); i += 2 {
		flag, val := args[i], args[i+1]
		var err error
		var n int
		switch flag {
		case "-t":
			n, err = strconv.Atoi(val)
			p.Tree = UTSTree(n)
		case "-a":
			n, err = strconv.Atoi(val)
			p.Shape = UTSShape(n)
		case "-d":
			p.Depth, err = strconv.Atoi(val)
		case "-b":
			p.B0, err = strconv.ParseFloat(val, 64)
		case "-r":
			p.Seed, err = strconv.Atoi(val)
		case "-q":
			p.Q, err = strconv.ParseFloat(val, 64)
		case "-m":
			p.M, err = strconv.Atoi(val)
		case "-f":
			p.ShiftDepth, err = strconv.ParseFloat(val, 64)
		default:
			return p, fmt.Errorf("unknown flag %q", flag)
		}
		if err != nil {
			return p, fmt.Errorf("flag %s: %v", flag, err)
		}
	}
	return p, nil
}
