//go:build !fjkit_workspan || race

package main

import (
	"bytes"
	"strings"
	"testing"
)

// Without the fjkit_workspan tag, -workspan is a usage error that says how
// to build fjbench for it.
func TestWorkSpanFlagOff(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"fib", "-workspan"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-tags fjkit_workspan") {
		t.Errorf("run(fib -workspan) = %d, stderr %q; want 2 and how to build", code, stderr.String())
	}
}
