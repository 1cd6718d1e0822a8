//go:build gc && (amd64 || arm64)

package forkjoin

// goroutineID returns the address of the calling goroutine's runtime
// descriptor (the runtime's g): unique among live goroutines and fixed for a
// goroutine's life. It is only compared, never dereferenced.
func goroutineID() uintptr
