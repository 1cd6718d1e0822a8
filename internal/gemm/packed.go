package gemm

import (
	"fmt"
	"sync"
)

// Budget is the number of floats (32 MiB) to which callers bound a Packed,
// through Depth: the packed operands of a 1024×1024 product fit whole
// (16 MiB); bigger products go in chunks of k.
const Budget = 4 << 20

// mulBudget is Mul's bound; tests lower it to reach the chunked paths. It
// must be at least kc·(mr+nr), or Mul would halve a single tile for ever.
var mulBudget = Budget

// Packed holds a and b of a product c = a·b packed for the micro-kernel,
// over a chunk of the inner dimension: all m rows of a[:, k0:k0+depth] in
// micro-panels of mr rows, and all n columns of b[k0:k0+depth, :] in
// micro-panels of nr columns, each in slices of kc. A parallel product packs
// them once, in pieces of panels (PackA, PackB, which may run concurrently
// on disjoint panels), and then multiplies blocks of c from them (Mul, also
// concurrently on disjoint blocks), so that no operand is packed twice
// however c is divided.
//
// The slice of depth kb that starts at k0+s·kc holds a's panels from
// a[s·kc·⌈m/mr⌉·mr], panel p at offset p·mr·kb within it, and likewise b's
// from b[s·kc·⌈n/nr⌉·nr]; every slice but the last has kb = kc.
type Packed struct {
	m, n, depth int
	mpad, npad  int // m and n rounded up to mr and nr
	a, b        []float64
}

var packedPool = sync.Pool{New: func() any { return new(Packed) }}

// GetPacked returns a Packed for an m×n product over chunks of the given
// depth, from a pool; PutPacked returns it.
func GetPacked(m, n, depth int) *Packed {
	if m <= 0 || n <= 0 || depth <= 0 {
		panic(fmt.Sprintf("gemm.GetPacked: want positive sizes, got m=%d n=%d depth=%d", m, n, depth))
	}
	p := packedPool.Get().(*Packed)
	p.m, p.n = m, n
	p.mpad, p.npad = roundUp(m, mr), roundUp(n, nr)
	p.Reset(depth)
	return p
}

// PutPacked returns p to the pool. p must not be used afterwards.
func PutPacked(p *Packed) { packedPool.Put(p) }

// Reset makes p hold a chunk of the given depth, to be packed anew.
func (p *Packed) Reset(depth int) {
	p.depth = depth
	if need := depth * p.mpad; cap(p.a) < need {
		p.a = make([]float64, need)
	}
	if need := depth * p.npad; cap(p.b) < need {
		p.b = make([]float64, need)
	}
	p.a, p.b = p.a[:depth*p.mpad], p.b[:depth*p.npad]
}

// Depth returns the depth of the chunks in which to pack an m×n product with
// inner dimension k so that a Packed holds at most budget floats: all of k
// if that fits, else the most slices of kc that do. It returns 0 when not
// even one slice fits: then the caller should divide c first.
func Depth(m, n, k, budget int) int {
	width := roundUp(m, mr) + roundUp(n, nr)
	if k*width <= budget {
		return k
	}
	return budget / width / kc * kc
}

// APanels and BPanels return the numbers of micro-panels of a and b: the
// ranges PackA and PackB take.
func (p *Packed) APanels() int { return p.mpad / mr }
func (p *Packed) BPanels() int { return p.npad / nr }

// PackA packs a's micro-panels [p0, p1) of the chunk: a holds the chunk's
// m×depth window, from its element (0, 0), with row stride lda.
func (p *Packed) PackA(a []float64, lda, p0, p1 int) {
	i0, i1 := p0*mr, min(p1*mr, p.m)
	for k0 := 0; k0 < p.depth; k0 += kc {
		kb := min(kc, p.depth-k0)
		packA(p.a[k0*p.mpad+i0*kb:], a[i0*lda+k0:], lda, i1-i0, kb)
	}
}

// PackB packs b's micro-panels [q0, q1) of the chunk: b holds the chunk's
// depth×n window, from its element (0, 0), with row stride ldb.
func (p *Packed) PackB(b []float64, ldb, q0, q1 int) {
	j0, j1 := q0*nr, min(q1*nr, p.n)
	for k0 := 0; k0 < p.depth; k0 += kc {
		kb := min(kc, p.depth-k0)
		packB(p.b[k0*p.npad+j0*kb:], b[k0*ldb+j0:], ldb, kb, j1-j0)
	}
}

// Mul sets the block of rows [i0, i1) and columns [j0, j1) of c to its part
// of the chunk's product, or adds that to it when add is set. c holds the
// whole m×n matrix from its element (0, 0), with row stride ldc; i0 and j0
// must be multiples of MR and NR. The loop over slices is the outer one, so
// the block of c stays in cache from one slice to the next.
func (p *Packed) Mul(c []float64, ldc, i0, i1, j0, j1 int, add bool) {
	if i0%mr != 0 || j0%nr != 0 || i1 > p.m || j1 > p.n {
		panic(fmt.Sprintf("gemm.Packed.Mul: block [%d, %d)×[%d, %d) is not on tile boundaries inside %d×%d", i0, i1, j0, j1, p.m, p.n))
	}
	if i0 >= i1 || j0 >= j1 {
		return
	}
	// The rows go in ⌈rows/mc⌉ blocks of nearly equal size, so that no
	// block is a sliver that reuses b's micro-panels only a few times.
	blocks := (i1 - i0 + mc - 1) / mc
	step := roundUp((i1-i0+blocks-1)/blocks, mr)
	for k0 := 0; k0 < p.depth; k0 += kc {
		kb := min(kc, p.depth-k0)
		as, bs := p.a[k0*p.mpad:], p.b[k0*p.npad+j0*kb:]
		for ic := i0; ic < i1; ic += step {
			mb := min(step, i1-ic)
			macroKernel(mb, j1-j0, kb, as[ic*kb:], bs, c[ic*ldc+j0:], ldc, add || k0 > 0)
		}
	}
}
