//go:build !amd64 || purego

package gemm

// useAsm is false: this build has no assembly micro-kernel.
var useAsm = false

func kernelAsm(kb int, a, b, c *float64, ldc int, add bool) {
	panic("gemm: no assembly micro-kernel in this build")
}
