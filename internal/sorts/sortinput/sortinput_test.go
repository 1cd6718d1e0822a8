package sortinput

import (
	"slices"
	"strings"
	"testing"
)

func TestInt64sShapes(t *testing.T) {
	const n = 10_000
	for _, kind := range Kinds {
		s := Int64s(kind, n, 1)
		if len(s) != n {
			t.Fatalf("%s: len %d, want %d", kind, len(s), n)
		}
		sorted := slices.IsSorted(s)
		switch kind {
		case "sorted", "dups":
			if !sorted {
				t.Errorf("%s is not sorted", kind)
			}
		case "reversed":
			if !slices.IsSortedFunc(s, func(a, b int64) int { return int(b - a) }) {
				t.Errorf("reversed is not descending")
			}
		case "random", "nearly", "organ":
			if sorted {
				t.Errorf("%s is sorted", kind)
			}
		}
		if !slices.Equal(s, Int64s(kind, n, 1)) {
			t.Errorf("%s differs between two calls with one seed", kind)
		}
	}
	if d := Int64s("dups", n, 1); d[63] != d[0] || d[64] == d[0] {
		t.Errorf("dups: keys do not repeat 64 times: %v", d[:65])
	}
	moved := 0
	for i, v := range Int64s("nearly", n, 1) {
		if v != int64(i) {
			moved++
		}
	}
	if moved == 0 || moved > n/100 {
		t.Errorf("nearly: %d of %d elements moved, want up to 1 %%", moved, n)
	}
}

func TestCheck(t *testing.T) {
	for _, k := range Kinds {
		if err := Check(k); err != nil {
			t.Errorf("Check(%q) = %v", k, err)
		}
	}
	if err := Check("shuffled"); err == nil || !strings.Contains(err.Error(), "shuffled") {
		t.Errorf("Check(shuffled) = %v, want an error naming it", err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "shuffled") {
			t.Errorf("Int64s(shuffled) panicked with %v, want a message naming it", r)
		}
	}()
	Int64s("shuffled", 1, 1)
}
