package algos

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestBlockOverlaps(t *testing.T) {
	big := mat.NewDense(10, 20, nil)
	view := func(i0, i1, j0, j1 int) block { return rawBlock(big.Slice(i0, i1, j0, j1).(*mat.Dense)) }
	other := rawBlock(mat.NewDense(10, 20, nil))
	for _, tc := range []struct {
		name string
		x, y block
		want bool
	}{
		{"same", view(0, 10, 0, 20), view(0, 10, 0, 20), true},
		{"other matrix", view(0, 10, 0, 20), other, false},
		{"left and right halves", view(0, 10, 0, 10), view(0, 10, 10, 20), false},
		{"top and bottom", view(0, 5, 0, 20), view(5, 10, 0, 20), false},
		{"corner cell", view(0, 5, 0, 10), view(4, 10, 9, 20), true},
		{"diagonal blocks", view(0, 5, 0, 10), view(5, 10, 10, 20), false},
		{"one column inside", view(0, 10, 3, 4), view(2, 3, 0, 20), true},
		{"columns beside", view(0, 10, 3, 4), view(0, 10, 4, 5), false},
	} {
		if got := tc.x.overlaps(tc.y); got != tc.want {
			t.Errorf("%s: x.overlaps(y) = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.y.overlaps(tc.x); got != tc.want {
			t.Errorf("%s: y.overlaps(x) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
