//go:build !amd64 && !arm64

package forkjoin

import "runtime"

// goroutineID returns the calling goroutine's ID, parsed from the first line
// of its stack trace ("goroutine 42 [running]:"). It costs microseconds
// where goid_*.s costs nanoseconds, but it is only needed by the entry points
// goid.go lists. IDs are never reused, so an ID is as good as a descriptor.
func goroutineID() uintptr {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	var id uintptr
	for _, c := range b[len("goroutine "):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	return id
}
