package algos

import (
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// block is a row-major sub-matrix: element (i, j) is data[i*stride+j].
type block struct {
	data               []float64
	rows, cols, stride int
}

func rawBlock(m *mat.Dense) block {
	r := m.RawMatrix()
	return block{data: r.Data, rows: r.Rows, cols: r.Cols, stride: r.Stride}
}

// sub returns the rows [i0, i1) and columns [j0, j1) of b.
func (b block) sub(i0, i1, j0, j1 int) block {
	s := block{rows: i1 - i0, cols: j1 - j0, stride: b.stride}
	if s.rows > 0 && s.cols > 0 {
		off := i0*b.stride + j0
		s.data = b.data[off : off+(s.rows-1)*b.stride+s.cols]
	}
	return s
}

// addr returns the address of element (i, 0) of b.
func (b block) addr(i int) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(b.data))) + uintptr(i*b.stride)*unsafe.Sizeof(b.data[0])
}

// overlaps reports whether b and o share an element. Two views of one
// matrix may interleave without sharing (its left and right halves), so
// after the cheap test on the address ranges it compares row by row.
func (b block) overlaps(o block) bool {
	if len(b.data) == 0 || len(o.data) == 0 {
		return false
	}
	const size = unsafe.Sizeof(float64(0))
	bLo, oLo := b.addr(0), o.addr(0)
	if bLo >= oLo+uintptr(len(o.data))*size || oLo >= bLo+uintptr(len(b.data))*size {
		return false
	}
	oRow := uintptr(o.stride) * size
	for i := range b.rows {
		s := b.addr(i)
		e := s + uintptr(b.cols)*size
		// The first row of o that can reach s, then on while o's rows
		// start before e.
		j := 0
		if s > oLo {
			j = int((s - oLo) / oRow)
		}
		for ; j < o.rows; j++ {
			rs := o.addr(j)
			if rs >= e {
				break
			}
			if s < rs+uintptr(o.cols)*size {
				return true
			}
		}
	}
	return false
}
