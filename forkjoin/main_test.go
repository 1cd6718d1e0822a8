package forkjoin_test

import (
	"runtime"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: every pool a
// test makes must be closed. The default pool lives as long as the process,
// so it is started here, before the snapshot of goroutines to ignore, with
// a fixed size: one that followed GOMAXPROCS would be replaced, with new
// goroutines, by the first Default call of a -cpu run of another size (the
// tests of that are in default_test.go, on pools of their own).
func TestMain(m *testing.M) {
	if err := forkjoin.SetDefault(forkjoin.Workers(runtime.GOMAXPROCS(0))); err != nil {
		panic(err)
	}
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
