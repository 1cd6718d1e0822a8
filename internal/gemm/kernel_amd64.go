//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// useAsm selects kernelAsm, which needs AVX2 and FMA. cpu.X86.HasAVX2 is set
// only when the OS also saves the YMM registers on a context switch.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernelAsm is kernel's AVX2 and FMA micro-kernel (kernel_amd64.s). a and b
// must point at kb·mr and kb·nr packed values, c at a full mr×nr tile with
// row stride ldc; kernel checks this before calling it.
//
//go:noescape
func kernelAsm(kb int, a, b, c *float64, ldc int, add bool)
