package forkjoin_test

import (
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: every pool a
// test makes must be closed. The default pool lives as long as the process,
// so it is started here, before the snapshot of goroutines to ignore.
func TestMain(m *testing.M) {
	forkjoin.Default()
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
