package gemm

import "fmt"

// The register and cache blocks; the package documentation says why.
const (
	mr = 6
	nr = 8
	kc = 256
	mc = 120 // a multiple of mr
)

// MR and NR are the rows and columns of the micro-kernel's tile of c.
// Callers that split c into blocks split at multiples of them, so that only
// the blocks at the matrix's edge have partial tiles.
const (
	MR = mr
	NR = nr
)

// Mul sets c = a·b, or c += a·b when acc is set, where c is m×n, a is m×k
// and b is k×n, all row-major: element (i, j) of c is c[i*ldc+j], and
// likewise for a with lda and b with ldb. Each slice must reach the last
// element of its matrix; elements outside the windows are not touched.
// With k = 0 the product is zero: c is cleared, or left alone when acc is
// set. Mul panics naming the argument if a dimension is negative, a leading
// dimension is below its matrix's width, or a slice is too short.
//
// Mul runs on the calling goroutine. It is what a parallel caller does with
// Packed, serially: pack a chunk of k, multiply, next chunk.
func Mul(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, acc bool) {
	checkMatrix("a", m, k, a, lda)
	checkMatrix("b", k, n, b, ldb)
	checkMatrix("c", m, n, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !acc {
			for i := range m {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	depth := Depth(m, n, k, mulBudget)
	if depth == 0 {
		// Too wide to pack one slice of k within the budget: one half of c
		// after the other.
		if m >= n {
			h := m / 2
			Mul(h, n, k, a, lda, b, ldb, c, ldc, acc)
			Mul(m-h, n, k, a[h*lda:], lda, b, ldb, c[h*ldc:], ldc, acc)
		} else {
			h := n / 2
			Mul(m, h, k, a, lda, b, ldb, c, ldc, acc)
			Mul(m, n-h, k, a, lda, b[h:], ldb, c[h:], ldc, acc)
		}
		return
	}
	p := GetPacked(m, n, depth)
	for k0 := 0; k0 < k; k0 += depth {
		p.Reset(min(depth, k-k0))
		p.PackA(a[k0:], lda, 0, p.APanels())
		p.PackB(b[k0*ldb:], ldb, 0, p.BPanels())
		p.Mul(c, ldc, 0, m, 0, n, acc || k0 > 0)
	}
	PutPacked(p)
}

// macroKernel computes the mb×nb block c (+)= ã·b̃ from a packed block ã of
// mb rows and panel b̃ of nb columns, both of depth kb, one mr×nr tile at a
// time. The loop over ã's micro-panels is the inner one, so that b̃'s
// micro-panel stays in L1 while ã streams from L2.
func macroKernel(mb, nb, kb int, ap, bp, c []float64, ldc int, add bool) {
	for j := 0; j < nb; j += nr {
		bpan := bp[j*kb : (j+nr)*kb]
		cols := min(nr, nb-j)
		for i := 0; i < mb; i += mr {
			apan := ap[i*kb : (i+mr)*kb]
			rows := min(mr, mb-i)
			if rows == mr && cols == nr {
				kernel(kb, apan, bpan, c[i*ldc+j:], ldc, add)
				continue
			}
			// A tile at the edge: compute it whole, keep the part inside c.
			var t [mr * nr]float64
			kernel(kb, apan, bpan, t[:], nr, false)
			for r := range rows {
				dst := c[(i+r)*ldc+j : (i+r)*ldc+j+cols]
				src := t[r*nr : r*nr+cols]
				if add {
					for x, v := range src {
						dst[x] += v
					}
				} else {
					copy(dst, src)
				}
			}
		}
	}
}

// kernel sets the mr×nr tile c (row stride ldc) to, or adds to it when add is
// set, the product of the micro-panels a (kb columns of mr values) and b (kb
// rows of nr values).
func kernel(kb int, a, b, c []float64, ldc int, add bool) {
	// These bounds checks are what keeps the assembly inside the slices.
	_ = a[kb*mr-1]
	_ = b[kb*nr-1]
	_ = c[(mr-1)*ldc+nr-1]
	if useAsm {
		kernelAsm(kb, &a[0], &b[0], &c[0], ldc, add)
		return
	}
	kernelGo(kb, a, b, c, ldc, add)
}

func roundUp(x, to int) int { return (x + to - 1) / to * to }

// checkMatrix panics unless x can hold a rows×cols matrix with row stride ld.
func checkMatrix(name string, rows, cols int, x []float64, ld int) {
	switch {
	case rows < 0 || cols < 0:
		panic(fmt.Sprintf("gemm.Mul: %s is %d×%d, want non-negative dimensions", name, rows, cols))
	case ld < max(cols, 1):
		panic(fmt.Sprintf("gemm.Mul: leading dimension of %s is %d, want at least %d", name, ld, max(cols, 1)))
	case rows > 0 && cols > 0 && len(x) < (rows-1)*ld+cols:
		panic(fmt.Sprintf("gemm.Mul: %s has %d elements, want at least %d for %d×%d with stride %d", name, len(x), (rows-1)*ld+cols, rows, cols, ld))
	}
}
