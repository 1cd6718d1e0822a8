package gemm

// kernelGo is the micro-kernel in plain Go, for machines without the
// assembly one: the same packed panels, the same tile. It walks the 6×8 tile
// in 2×4 pieces, whose 8 accumulators and 6 operands fit the 16
// floating-point registers of amd64 (arm64 has 32), reading each piece's
// part of the panels once per piece.
func kernelGo(kb int, a, b, c []float64, ldc int, add bool) {
	a, b = a[:kb*mr], b[:kb*nr]
	for i := 0; i < mr; i += 2 {
		for j := 0; j < nr; j += 4 {
			var c00, c01, c02, c03, c10, c11, c12, c13 float64
			for l := range kb {
				x := (*[2]float64)(a[l*mr+i:])
				y := (*[4]float64)(b[l*nr+j:])
				a0, a1 := x[0], x[1]
				b0, b1, b2, b3 := y[0], y[1], y[2], y[3]
				c00 += a0 * b0
				c01 += a0 * b1
				c02 += a0 * b2
				c03 += a0 * b3
				c10 += a1 * b0
				c11 += a1 * b1
				c12 += a1 * b2
				c13 += a1 * b3
			}
			r0 := (*[4]float64)(c[i*ldc+j:])
			r1 := (*[4]float64)(c[(i+1)*ldc+j:])
			if add {
				c00 += r0[0]
				c01 += r0[1]
				c02 += r0[2]
				c03 += r0[3]
				c10 += r1[0]
				c11 += r1[1]
				c12 += r1[2]
				c13 += r1[3]
			}
			r0[0], r0[1], r0[2], r0[3] = c00, c01, c02, c03
			r1[0], r1[1], r1[2], r1[3] = c10, c11, c12, c13
		}
	}
}
