//go:build !fjkit_workspan || race

package forkjoin_test

import (
	"errors"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// Without the fjkit_workspan tag the measurement runs nothing and says how
// to get it; Region is a plain call.
func TestWorkSpanOff(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	ran := false
	if _, err := forkjoin.MeasureWorkSpan(p, func(*forkjoin.Worker) { ran = true }); !errors.Is(err, forkjoin.ErrWorkSpanOff) || ran {
		t.Errorf("err %v, ran %v; want ErrWorkSpanOff and nothing run", err, ran)
	}
	n := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
		n := 0
		forkjoin.Region(w, "r", func(*forkjoin.Worker) { n++ })
		return n
	})
	if n != 1 {
		t.Errorf("Region ran %d times", n)
	}
}
