// Package gemm multiplies row-major float64 matrices at close to the
// machine's floating-point peak, in the way of GotoBLAS and BLIS (Goto and
// van de Geijn, "Anatomy of High-Performance Matrix Multiplication", TOMS
// 2008; Van Zee and van de Geijn, "BLIS", TOMS 2015). It holds the serial
// pieces: packing, the blocked loops and the micro-kernel. Mul runs them on
// one goroutine; a parallel caller (algos.MatMul) packs with PackA and PackB
// and multiplies blocks of c with Packed.Mul from several at once.
//
// # Design
//
// A product c = a·b goes in chunks of the inner dimension k (all of it when
// the packed operands fit in Budget), and each chunk in slices of kc:
//
//	pack a[:, chunk] in micro-panels of mr rows, b[chunk, :] in micro-panels of nr columns
//	for each block of c (a parallel caller runs blocks at once):
//	  for each kc-deep slice of the chunk:       the block of c stays in cache
//	    for each block of mc rows of the block:  a's mc×kc block, reused from L2
//	      for each nr-column micro-panel of b:   kc×nr, reused from L1
//	        for each mr-row micro-panel of a:
//	          c[mr×nr tile] (+)= a micro-panel · b micro-panel   (the micro-kernel)
//
// Packing copies each operand into the order the micro-kernel reads it, so
// that the kernel's loads are sequential whatever the strides of a and b,
// and pads the last micro-panels with zeros to a full mr or nr, so that the
// kernel has no edge cases: a tile of c that sticks out of the matrix is
// computed into a scratch tile and only its valid part is written. Each
// operand is packed once per chunk, however c is divided: a parallel
// caller can cut c as fine as balance needs without packing more.
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
//   - mc = 120 (at most: a block's rows are cut into nearly equal parts of
//     up to mc, so that no part is a sliver): a's block (120·256·8 B =
//     240 KiB) stays in a 512 KiB L2 (Zen 2's; newer cores have more) while
//     the loop over b's micro-panels streams it once per micro-panel.
//   - Budget = 32 MiB of packed operands per product: the 16 MiB of a
//     1024×1024 product fit whole; for bigger ones, a chunk is a barrier
//     for a parallel caller (it must be packed before it is used), so the
//     chunks are as deep as the budget allows.
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
// Each element of c is one k-term dot product, summed in order of k in
// slices of kc, each slice's sum started afresh in the kernel's accumulators
// and then added to c; the FMA kernel rounds once per multiply-add. Any such
// order is a recursive summation, whose error is bounded by
// γ_k·(|a|·|b|)ᵢⱼ with γ_k = k·u/(1−k·u) and u = 2⁻⁵³ (Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1). Results may differ in the last
// bits from another library's, and from the pure-Go kernel's, within that
// bound. They do not depend on how a parallel caller divides c: every
// element is summed in the same order whichever block it is in.
//
// # Invariants
//
//   - Mul and Packed read a and b only inside their windows and write c only
//     inside the block asked for: the elements between the rows of a strided
//     view are never touched.
//   - The micro-kernel is called only with a full mr×nr tile of c, or with
//     a scratch tile; it reads exactly kb·mr and kb·nr packed values, and
//     kernel checks that the slices are that long before the call.
//   - Concurrent calls of PackA and PackB on one Packed must take disjoint
//     panels, and Packed.Mul must not run until the packing is done (a
//     fork-join barrier); concurrent Packed.Muls must take disjoint blocks.
package gemm
