// Package gemm multiplies row-major float64 matrices on one core at close to
// the machine's floating-point peak, in the way of GotoBLAS and BLIS (Goto and
// van de Geijn, "Anatomy of High-Performance Matrix Multiplication", TOMS
// 2008; Van Zee and van de Geijn, "BLIS", TOMS 2015). It is serial: callers
// split the product of big matrices into blocks of c and run them in parallel
// (algos.MatMul does, with fork-join).
//
// # Design
//
// Mul computes c = a·b (or c += a·b) in three loops of cache blocks around a
// register-blocked micro-kernel:
//
//	for jc in steps of nc over the columns of c:    b's panel: kc×nc, in L3
//	  for pc in steps of kc over the inner dimension:
//	    pack b[pc:pc+kc, jc:jc+nc] into micro-panels of nr columns
//	    for ic in steps of mc over the rows of c:    a's block: mc×kc, in L2
//	      pack a[ic:ic+mc, pc:pc+kc] into micro-panels of mr rows
//	      for each nr-column micro-panel of b:       kc×nr, in L1
//	        for each mr-row micro-panel of a:
//	          c[mr×nr tile] (+)= a micro-panel · b micro-panel   (the micro-kernel)
//
// Packing copies each operand block into the order the micro-kernel reads
// it, so that the kernel's loads are sequential whatever the strides of a and
// b, and pads the last micro-panels with zeros to a full mr or nr, so that
// the kernel never needs an edge case: a tile of c that sticks out of the
// matrix is computed into a scratch tile and only its valid part is written.
//
// The block sizes, and why:
//
//   - mr×nr = 6×8: the micro-kernel holds the 6×8 tile of c in twelve of
//     the sixteen 256-bit registers of AVX2 (two per row of 8 doubles), one
//     row of the b micro-panel in two more, and a broadcast element of a in
//     the last two. Each step of k then does 12 FMAs for 2 loads of b and 6
//     broadcasts of a: within the two loads per cycle a core issues beside
//     its two FMAs, and 12 independent accumulators cover the 4–5 cycle FMA
//     latency of two FMA pipes. It is the shape of BLIS's Haswell and Zen
//     kernels, for the same reasons.
//   - kc = 256: one micro-panel of a (6·256·8 B = 12 KiB) and one of b
//     (8·256·8 B = 16 KiB) fit together in a 32 KiB L1, so the b panel,
//     which the inner loop reuses for every micro-panel of a, stays there.
//     A larger kc would spread the cost of loading and storing c over more
//     work but push b out of L1.
//   - mc = 120: the packed block of a (120·256·8 B = 240 KiB) stays in a
//     512 KiB L2 (Zen 2's; newer cores have more) while the loop over b's
//     micro-panels streams it once per micro-panel.
//   - nc = 4080: b's packed panel (kc·nc·8 B = 8 MiB at most) is shared by
//     every block of a and lives in L3; callers that split c into blocks
//     mostly pass blocks narrower than nc, and then it is packed once per kc.
//
// # Kernels
//
// On amd64 with AVX2 and FMA (detected at run time with golang.org/x/sys/cpu,
// which also checks that the OS saves the YMM registers) the micro-kernel is
// the assembly in kernel_amd64.s; everywhere else, and with the build tag
// purego, it is kernelGo, plain Go over the same packed panels. Nothing
// else depends on the choice: the packed layouts, the edge handling and
// the results' error bound are the same.
//
// # Accuracy
//
// Each element of c is one k-term dot product, summed in blocks of kc in
// order of k, each block's sum started afresh in the kernel's accumulators
// and then added to c; the FMA kernel rounds once per multiply-add. Any such
// order is a recursive summation, whose error is bounded by
// γ_k·(|a|·|b|)ᵢⱼ with γ_k = k·u/(1−k·u) and u = 2⁻⁵³ (Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1). Results may differ in the last
// bits from another library's, and from the pure-Go kernel's, within that
// bound.
//
// # Invariants
//
//   - Mul reads a and b only inside their m×k and k×n windows and writes c
//     only inside its m×n window: the elements between rows of a strided
//     view are never touched.
//   - The micro-kernel is called only with a full mr×nr tile of c, or with
//     a scratch tile; it reads exactly kc·mr and kc·nr packed values, and
//     its callers check that the slices are that long before the call.
//   - Packed panels come from a sync.Pool, one set per Mul in progress, so
//     concurrent Muls share nothing.
package gemm
