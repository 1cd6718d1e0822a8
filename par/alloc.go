package par

import (
	"reflect"
	"unsafe"
)

// noZeroMin is the size in bytes from which makeNoZero skips the clearing
// of a slice it makes: clearing a large slice is a pass over memory as long
// as the body's own, while a small one is cleared in a few nanoseconds.
const noZeroMin = 64 << 10

// makeNoZero returns a slice of n elements that the caller promises to
// write in full before anyone can read it: Map, Filter and Scan, whose
// every element is set by their own code. For a large slice of a type
// without pointers it skips the clearing that make does (a pass over the
// slice, done by one core before the parallel work starts, or the page
// faults of fresh memory); the slice then holds whatever the memory held.
// A type with pointers is always cleared: the collector scans it.
//
// If the caller cannot write every element (a body panicked), it must
// drop the slice; if some pieces did not run (a canceled invocation), it
// must clear the slice before anyone sees it.
func makeNoZero[E any](n int) []E {
	var zero E
	size := unsafe.Sizeof(zero)
	if size == 0 || uintptr(n) < noZeroMin/size || uintptr(n) > maxAlloc/size || hasPointers(reflect.TypeFor[E]()) {
		return make([]E, n) // make panics for an n too large, with its own message
	}
	p := mallocgc(uintptr(n)*size, nil, false)
	return unsafe.Slice((*E)(p), n)
}

// maxAlloc bounds what makeNoZero asks the runtime for; make checks larger
// lengths and panics as it always does. It is at most the runtime's own
// bound, which mallocgc does not check: 2⁴⁰ bytes on 64-bit systems (the
// runtime's for ios/arm64), 2³¹ on 32-bit ones.
const maxAlloc = 1 << (31 + 9*(^uintptr(0)>>63))

// mallocgc is the runtime's allocator. With typ nil it allocates memory the
// collector does not scan; with needzero false it leaves the memory as it
// finds it. The runtime keeps this signature for the packages that link to
// it (go.dev/issue/67401).
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// hasPointers reports whether a value of type t holds a pointer the
// collector must see.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	default: // pointers, maps, channels, functions, interfaces, slices, strings
		return true
	}
}
