package forkjoin

import (
	"reflect"
	"testing"
	"unsafe"
)

// A field of a Worker, flattened out of the structs Worker embeds and of
// those its fields are: its full name and the bytes it spans.
type layoutField struct {
	name       string
	start, end uintptr
}

// flattenLayout lists the named fields of t, a struct at offset base,
// descending into struct fields (but not into the deque, which has its own
// layout test, nor into arrays). Blank fields, the padding, are left out.
func flattenLayout(t reflect.Type, base uintptr, prefix string) []layoutField {
	var fs []layoutField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "_" {
			continue
		}
		off := base + f.Offset
		name := prefix + f.Name
		if f.Type.Kind() == reflect.Struct && f.Name != "deque" && f.Type.PkgPath() == t.PkgPath() {
			fs = append(fs, flattenLayout(f.Type, off, name+".")...)
			continue
		}
		fs = append(fs, layoutField{name, off, off + f.Type.Size()})
	}
	return fs
}

// The fields of a Worker that other goroutines write (remoteLine: returned,
// beat) and the counters of its stats (which other workers add to: wakeups)
// must share no cache line with any other field, or every such write costs
// the owner a miss on a line it uses on its hot path. A Worker is only
// 8-byte aligned, and a gap of 56 bytes between two 8-aligned fields contains
// every residue of a 64-byte line boundary, so fields that far apart never
// share a line, wherever the Worker lies (as wsdeque's
// TestFieldsOnSeparateCacheLines argues).
func TestWorkerLayout(t *testing.T) {
	const minGap = 64 - 8
	var w Worker
	if a := unsafe.Alignof(w); a < 8 {
		t.Fatalf("Worker is %d-byte aligned, want 8", a)
	}
	fields := flattenLayout(reflect.TypeFor[Worker](), 0, "")
	groups := map[string][]string{
		"written by other workers": {"remoteLine.returned", "remoteLine.beat"},
		"the stats counters": {"stats.tasks", "stats.steals", "stats.stolen", "stats.stealAttempts",
			"stats.lockWaits", "stats.parks", "stats.wakeups"},
	}
	for what, names := range groups {
		in := map[string]bool{}
		for _, n := range names {
			in[n] = true
		}
		lo, hi := ^uintptr(0), uintptr(0)
		found := 0
		for _, f := range fields {
			if in[f.name] {
				lo, hi = min(lo, f.start), max(hi, f.end)
				found++
			}
		}
		if found != len(names) {
			t.Fatalf("%s: found %d of the fields %v in Worker", what, found, names)
		}
		for _, f := range fields {
			if in[f.name] {
				continue
			}
			switch {
			case f.end <= lo && lo-f.end < minGap:
				t.Errorf("%s: %s ends %d bytes before them, want at least %d", what, f.name, lo-f.end, minGap)
			case f.start >= hi && f.start-hi < minGap:
				t.Errorf("%s: %s starts %d bytes after them, want at least %d", what, f.name, f.start-hi, minGap)
			case f.start < hi && f.end > lo:
				t.Errorf("%s: %s lies among them", what, f.name)
			}
		}
	}
}
