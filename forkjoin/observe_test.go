package forkjoin_test

import (
	"bytes"
	"context"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// The tasks of an InvokeContext carry the context's profiler labels, on
// whichever worker they run, so profiles attribute them to the request.
func TestTasksCarryProfilerLabels(t *testing.T) {
	p := newPool(t, forkjoin.Workers(2))
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("request", "r42"))
	var prof bytes.Buffer
	_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
		if err := pprof.Lookup("goroutine").WriteTo(&prof, 1); err != nil {
			t.Error(err)
		}
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prof.String(), `"request":"r42"`) {
		t.Error("no goroutine carries the invocation's label request=r42 while its task runs")
	}
	// Afterwards the workers drop them.
	forkjoin.Run(p, func(*forkjoin.Worker) {
		prof.Reset()
		if err := pprof.Lookup("goroutine").WriteTo(&prof, 1); err != nil {
			t.Error(err)
		}
	})
	if strings.Contains(prof.String(), `"request":"r42"`) {
		t.Error("a worker still carries a finished invocation's labels")
	}
}

// Each Invoke and InvokeContext is a runtime/trace region.
func TestInvokeIsATraceRegion(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("a trace is already running")
	}
	p := newPool(t, forkjoin.Workers(2))
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	forkjoin.Run(p, func(*forkjoin.Worker) {})
	forkjoin.InvokeContext(context.Background(), p, func(*forkjoin.Worker) int { return 0 })
	trace.Stop()
	for _, name := range []string{"forkjoin.Invoke", "forkjoin.InvokeContext"} {
		if !bytes.Contains(buf.Bytes(), []byte(name)) {
			t.Errorf("the trace has no region %q", name)
		}
	}
}
