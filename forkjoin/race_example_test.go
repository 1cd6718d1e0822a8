//go:build race

package forkjoin_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// sumSquares is a racy fork-join program: every index adds to one
// variable. On two workers it is wrong only now and then, when a thief
// takes part of the loop, and a test of it may well pass; under the race
// detector the race is reported in every run, even on one worker.
func sumSquares(p *forkjoin.Pool, n int) int {
	sum := 0
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.For(w, 0, n, func(_ *forkjoin.Worker, i int) {
			sum += i * i // the race: every strand writes sum
		})
	})
	return sum
}

// TestRaceReportExample runs a test of sumSquares under the race detector,
// in a child process, and shows its report: "WARNING: DATA RACE", the two
// accesses to sum in sumSquares's loop body, and the test failing with
// "race detected during execution of test".
func TestRaceReportExample(t *testing.T) {
	if os.Getenv("FJKIT_RACE_EXAMPLE") != "" {
		p := forkjoin.New(forkjoin.Workers(1))
		defer p.Close()
		if got := sumSquares(p, 10); got != 285 {
			t.Errorf("sumSquares(10) = %d, want 285", got)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRaceReportExample$", "-test.count=1")
	// FJKIT_RACE=strands: this package's tests otherwise run the scheduler.
	cmd.Env = append(os.Environ(), "FJKIT_RACE_EXAMPLE=1", "FJKIT_RACE=strands")
	out, err := cmd.CombinedOutput()
	report := string(out)
	if err == nil || !strings.Contains(report, "WARNING: DATA RACE") ||
		!strings.Contains(report, "forkjoin_test.sumSquares.func1.1()") ||
		!strings.Contains(report, "race detected during execution of test") {
		t.Fatalf("the race in sumSquares was not reported (%v):\n%s", err, report)
	}
	t.Logf("the report of a test of sumSquares, on one worker:\n%s", report)
}
