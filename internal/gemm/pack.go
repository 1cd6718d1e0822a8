package gemm

// packA copies the mb×kb block of a (row stride lda) into dst as
// ⌈mb/mr⌉ micro-panels of mr rows. Micro-panel p starts at dst[p*mr*kb] and
// holds its rows column by column: element (p*mr+r, l) is at
// dst[p*mr*kb + l*mr + r], which is the order in which the micro-kernel
// broadcasts them. Rows past mb are zero: they reach only the part of a
// tile that is thrown away, but a stale value there could be a subnormal,
// which costs some cores a microcode assist per FMA.
func packA(dst, a []float64, lda, mb, kb int) {
	i := 0
	for ; i+mr <= mb; i += mr {
		p := dst[i*kb : (i+mr)*kb]
		r0 := a[i*lda : i*lda+kb]
		r1 := a[(i+1)*lda : (i+1)*lda+kb]
		r2 := a[(i+2)*lda : (i+2)*lda+kb]
		r3 := a[(i+3)*lda : (i+3)*lda+kb]
		r4 := a[(i+4)*lda : (i+4)*lda+kb]
		r5 := a[(i+5)*lda : (i+5)*lda+kb]
		for l := range kb {
			q := (*[mr]float64)(p[l*mr:])
			q[0], q[1], q[2], q[3], q[4], q[5] = r0[l], r1[l], r2[l], r3[l], r4[l], r5[l]
		}
	}
	if rows := mb - i; rows > 0 {
		p := dst[i*kb : (i+mr)*kb]
		clear(p)
		for r := range rows {
			for l, v := range a[(i+r)*lda : (i+r)*lda+kb] {
				p[l*mr+r] = v
			}
		}
	}
}

// packB copies the kb×nb block of b (row stride ldb) into dst as
// ⌈nb/nr⌉ micro-panels of nr columns. Micro-panel q starts at dst[q*nr*kb]
// and holds its columns row by row: element (l, q*nr+c) is at
// dst[q*nr*kb + l*nr + c], so that one step of the micro-kernel loads nr
// contiguous values. Columns past nb are zero, for the reason packA gives.
//
// It reads b row by row: going down a column of panels instead would take
// each nr values from another page of a wide b, a TLB miss per load
// (four times slower on a 4096-wide b). The panels it writes stay in cache.
func packB(dst, b []float64, ldb, kb, nb int) {
	full := nb / nr * nr
	for l := range kb {
		row := b[l*ldb : l*ldb+nb]
		for j := 0; j < full; j += nr {
			// Element by element: an array assignment through pointers
			// would be a call of memmove.
			q, r := (*[nr]float64)(dst[j*kb+l*nr:]), (*[nr]float64)(row[j:])
			q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7] = r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
		}
		if full < nb {
			q := dst[full*kb+l*nr : full*kb+l*nr+nr]
			copy(q, row[full:])
			clear(q[nb-full:])
		}
	}
}
