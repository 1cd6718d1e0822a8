//go:build amd64 && !purego

#include "textflag.h"

// The 6×8 micro-kernel with AVX2 and FMA. Registers:
//
//	Y0..Y11   the tile of c: row r in Y(2r) (columns 0–3) and Y(2r+1) (4–7)
//	Y12, Y13  one row of the b micro-panel (nr = 8 values)
//	Y14, Y15  an element of the a micro-panel broadcast to all four lanes;
//	          the rows alternate between them, so that a broadcast need not
//	          wait until the previous one's two FMAs have read it
//	AX        a, advancing mr values (48 bytes) per step of k
//	BX        b, advancing nr values (64 bytes) per step of k
//	CX        steps of 4 left, DX single steps left
//	DI        c; SI the row stride of c in bytes; R8 a row of c

// STEP does one step of k, the s-th after AX and BX: the outer product of
// column s of the a micro-panel and row s of the b micro-panel, added to
// the tile. 12 FMAs, 2 loads, 6 broadcasts.
#define STEP(s) \
	VMOVUPD (s*64)(BX), Y12;           \
	VMOVUPD (s*64+32)(BX), Y13;        \
	ROWSTEP((s*48), Y14, Y0, Y1);      \
	ROWSTEP((s*48+8), Y15, Y2, Y3);    \
	ROWSTEP((s*48+16), Y14, Y4, Y5);   \
	ROWSTEP((s*48+24), Y15, Y6, Y7);   \
	ROWSTEP((s*48+32), Y14, Y8, Y9);   \
	ROWSTEP((s*48+40), Y15, Y10, Y11)

// ROWSTEP adds to one row of the tile (lo, hi) the row of b in Y12, Y13
// times the element of a at off(AX), broadcast into bc.
#define ROWSTEP(off, bc, lo, hi) \
	VBROADCASTSD off(AX), bc;   \
	VFMADD231PD  Y12, bc, lo;   \
	VFMADD231PD  Y13, bc, hi

// PREFETCHROW prefetches the row of c at R8, 64 bytes on one cache line or
// two, and moves R8 to the next row.
#define PREFETCHROW \
	PREFETCHT0 (R8); \
	PREFETCHT0 63(R8); \
	ADDQ       SI, R8

// ADDROW adds the row of c at R8 to the tile's row in lo and hi, STOREROW
// stores that row there; both then move R8 to the next row of c.
#define ADDROW(lo, hi) \
	VADDPD (R8), lo, lo; \
	VADDPD 32(R8), hi, hi; \
	ADDQ   SI, R8

#define STOREROW(lo, hi) \
	VMOVUPD lo, (R8); \
	VMOVUPD hi, 32(R8); \
	ADDQ    SI, R8

// func kernelAsm(kb int, a, b, c *float64, ldc int, add bool)
TEXT ·kernelAsm(SB), NOSPLIT, $0-41
	MOVQ kb+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), SI
	SHLQ $3, SI

	// Start loading the tile of c, read or written only after the loop.
	MOVQ DI, R8
	PREFETCHROW
	PREFETCHROW
	PREFETCHROW
	PREFETCHROW
	PREFETCHROW
	PREFETCHROW

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

	MOVQ CX, DX
	ANDQ $3, DX
	SHRQ $2, CX
	JZ   tail

	PCALIGN $32
loop4:
	STEP(0)
	STEP(1)
	STEP(2)
	STEP(3)
	ADDQ $192, AX
	ADDQ $256, BX
	DECQ CX
	JNZ  loop4

tail:
	TESTQ DX, DX
	JZ    update

loop1:
	STEP(0)
	ADDQ $48, AX
	ADDQ $64, BX
	DECQ DX
	JNZ  loop1

update:
	MOVQ DI, R8
	CMPB add+40(FP), $0
	JEQ  store
	ADDROW(Y0, Y1)
	ADDROW(Y2, Y3)
	ADDROW(Y4, Y5)
	ADDROW(Y6, Y7)
	ADDROW(Y8, Y9)
	ADDROW(Y10, Y11)
	MOVQ DI, R8

store:
	STOREROW(Y0, Y1)
	STOREROW(Y2, Y3)
	STOREROW(Y4, Y5)
	STOREROW(Y6, Y7)
	STOREROW(Y8, Y9)
	STOREROW(Y10, Y11)
	VZEROUPPER
	RET
