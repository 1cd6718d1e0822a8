package par

import (
	"strconv"
	"testing"
)

// pairwise, with its subtrees of four and eight elements written out,
// combines over the tree that treeNode defines, at every length.
func TestPairwiseIsTheTree(t *testing.T) {
	paren := func(a, b string) string { return "(" + a + " " + b + ")" }
	for n := 1; n <= 600; n++ {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		got := pairwise(s, strconv.Itoa, paren)
		want := treeNode(0, n, func(lo, _ int) string { return strconv.Itoa(lo) }, paren)
		if got != want {
			t.Fatalf("n=%d: pairwise combined as\n%s\nwant the tree\n%s", n, got, want)
		}
	}
}
