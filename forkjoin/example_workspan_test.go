//go:build fjkit_workspan && !race

package forkjoin_test

import (
	"fmt"
	"os"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// A program of two parts, measured: a serial setup, then eight equal
// pieces in parallel. The table (WriteTable) shows which part holds the
// span. This example runs only in a build with the fjkit_workspan tag
// (go test -tags fjkit_workspan); elsewhere MeasureWorkSpan returns
// ErrWorkSpanOff.
func ExampleMeasureWorkSpan() {
	busy := func(d time.Duration) {
		for t := time.Now(); time.Since(t) < d; {
		}
	}
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	ws, err := forkjoin.MeasureWorkSpan(p, func(w *forkjoin.Worker) {
		forkjoin.Region(w, "setup", func(*forkjoin.Worker) { busy(2 * time.Millisecond) })
		forkjoin.Region(w, "pieces", func(w *forkjoin.Worker) {
			forkjoin.For(w, 0, 8, func(*forkjoin.Worker, int) { busy(time.Millisecond) })
		})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if false { // the figures vary from run to run; print them so:
		ws.WriteTable(os.Stdout)
		ws.WritePrediction(os.Stdout, 256)
	}
	fmt.Println("forks:", ws.Forks)
	for _, r := range ws.Regions {
		fmt.Printf("%s: parallelism over 2: %v\n", r.Name, r.Parallelism() > 2)
	}
	fmt.Println("speed-up on 4 workers at most 4:", ws.Bound(4).MaxSpeedup <= 4)
	// Output:
	// forks: 7
	// setup: parallelism over 2: false
	// pieces: parallelism over 2: true
	// speed-up on 4 workers at most 4: true
}
