package forkjoin_test

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// The fork paths count their ticks and use the frame stack through small
// methods written once (the countdown, the idle test, an eager point's
// tick, the frame stack's accessors); those paths are as fast as code typed
// out at each fork only while the compiler inlines the methods, so this
// test fails when one grows past the inlining budget.
func TestForkPathHelpersInline(t *testing.T) {
	if testing.Short() && runtime.GOOS != "linux" {
		t.Skip("the compiler's inlining report is checked on linux")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(gobin, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, fn := range []string{"(*Worker).countdown", "(*Worker).idleWaits", "(*Worker).tick",
		"(*Worker).depth", "(*Worker).deepInline", "(*Worker).promotable", "(*Worker).frame", "(*Worker).pushFrame"} {
		if !strings.Contains(string(out), "can inline "+fn+" ") && !strings.Contains(string(out), "can inline "+fn+"\n") {
			t.Errorf("the compiler no longer inlines %s, which every fork calls", fn)
		}
	}
}
