// Package exact tells whether a type's values combine exactly: whether
// every grouping of an associative function over them gives the same
// value, so that a reduction may fold in whatever grouping is cheapest and
// still return what its documented tree would.
//
// Integers, booleans and strings do, and arrays and structs made of them
// (a struct of counters added field by field). Floating-point and complex
// values round, so the grouping of their additions shows; pointers,
// interfaces and the other kinds may carry anything, and count as not
// exact.
package exact

import (
	"reflect"
	"sync/atomic"
	"unsafe"
)

// Of reports whether T's values combine exactly. It costs a few loads once
// T has been asked about.
func Of[T any]() bool {
	var e any = (*T)(nil)
	k := (*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0] // *T's type descriptor, one per type
	slot := &cache[uintptr(k)>>4%uintptr(len(cache))]
	if c := slot.Load(); c != nil && c.key == k {
		return c.exact
	}
	x := kind(reflect.TypeFor[T]())
	slot.Store(&entry{key: k, exact: x})
	return x
}

// An entry caches Of's answer for the type whose descriptor is key; two
// types that share a slot take turns in it.
type entry struct {
	key   unsafe.Pointer
	exact bool
}

var cache [256]atomic.Pointer[entry]

func kind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.String:
		return true
	case reflect.Array:
		return kind(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !kind(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
