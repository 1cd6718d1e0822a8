//go:build !gc || (!amd64 && !arm64)

package forkjoin

import "runtime"

// goroutineID returns the calling goroutine's ID, parsed from the first line
// of its stack trace ("goroutine 42 [running]:"). IDs are never reused, so an
// ID is as good as a descriptor. It costs microseconds where goid_*.s costs
// nanoseconds, and the entry points goid.go lists call it every time (S.Go
// and Func.Go on every spawn, Join, Spawn and Scope on every call): on these
// platforms fork with Func.Join, which does not, where forks are many.
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
