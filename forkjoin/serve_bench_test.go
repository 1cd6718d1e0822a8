package forkjoin_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fjkit/fjkit/forkjoin"
)

// BenchmarkDeadlineServe loads a pool the way a server under ordinary load
// does: serveHandlers goroutines, each looping requests, every request a
// parallel reduction over 10^5 int64s (one call of a func value per item)
// under a context with a 20 ms deadline, on a pool of 2 workers; beside it,
// the same requests as a hand-written errgroup (one goroutine per worker's
// share of the items, each stopping at the deadline) and through plain
// Invoke (no deadline). b.N is the number of requests per handler. It
// reports the share of requests that missed their deadline (late-%: for
// InvokeContext, a non-nil error) and the 50th and 99th percentile
// latencies from submission to return. The variants run in turn, a batch
// of requests each, so that a slow spell of a shared machine falls on all
// of them:
//
//	go test -run '^$' -bench DeadlineServe -benchtime 2000x ./forkjoin/
func BenchmarkDeadlineServe(b *testing.B) {
	const (
		n        = 100_000
		deadline = 20 * time.Millisecond
		workers  = 2
	)
	data := make([]int64, n)
	for i := range data {
		data[i] = int64(i + 1)
	}
	want := int64(n) * (n + 1) / 2
	at := func(i int) int64 { return data[i] }
	sum := func(x, y int64) int64 { return x + y }
	p := forkjoin.New(forkjoin.Workers(workers))
	defer p.Close()

	variants := []serveVariant{
		{"errgroup", func(ctx context.Context) (int64, error) {
			g, ctx := errgroup.WithContext(ctx)
			var parts [workers]int64
			for k := range workers {
				g.Go(func() error {
					lo, hi := k*n/workers, (k+1)*n/workers
					var s int64
					for i := lo; i < hi; i++ {
						if i%4096 == 0 && ctx.Err() != nil {
							return ctx.Err()
						}
						s = sum(s, at(i))
					}
					parts[k] = s
					return nil
				})
			}
			err := g.Wait()
			var s int64
			for _, x := range parts {
				s += x
			}
			return s, err
		}},
		{"InvokeContext", func(ctx context.Context) (int64, error) {
			return forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int64 {
				return forkjoin.Reduce(w, 0, n, 0, at, sum)
			})
		}},
		{"Invoke", func(context.Context) (int64, error) {
			return forkjoin.Invoke(p, func(w *forkjoin.Worker) int64 {
				return forkjoin.Reduce(w, 0, n, 0, at, sum)
			}), nil
		}},
	}
	stats := make([]serveResult, len(variants))
	const batch = 50 // requests per handler per turn
	for done := 0; done < b.N; done += batch {
		for v := range variants {
			stats[v].add(serveHandlersLoad(variants[v].call, min(batch, b.N-done), deadline, want))
		}
	}
	b.ReportMetric(0, "ns/op") // the time per request is in the latencies
	for v, st := range stats {
		if st.wrong > 0 {
			b.Fatalf("%s: %d wrong results with a nil error", variants[v].name, st.wrong)
		}
		b.Logf("%-14s %6d requests, late %6.2f %%, p50 %7.3f ms, p99 %7.3f ms",
			variants[v].name, len(st.latency), st.latePercent(), ms(st.quantile(0.5)), ms(st.quantile(0.99)))
	}
	for v, st := range stats {
		b.ReportMetric(st.latePercent(), variants[v].name+"-late-%")
		b.ReportMetric(ms(st.quantile(0.99)), variants[v].name+"-p99-ms")
	}
}

// serveHandlers is the number of handler goroutines BenchmarkDeadlineServe
// runs, each sending its next request when the last one returned.
const serveHandlers = 16

type serveVariant struct {
	name string
	call func(ctx context.Context) (int64, error)
}

type serveResult struct {
	latency     []time.Duration
	late, wrong int
}

func (r *serveResult) add(o serveResult) {
	r.latency = append(r.latency, o.latency...)
	r.late += o.late
	r.wrong += o.wrong
}

func (r *serveResult) latePercent() float64 {
	return 100 * float64(r.late) / float64(max(1, len(r.latency)))
}

func (r *serveResult) quantile(q float64) time.Duration {
	if len(r.latency) == 0 {
		return 0
	}
	s := slices.Clone(r.latency)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// serveHandlersLoad runs serveHandlers goroutines, each sending reqs
// requests through call one after the other, with a deadline each. A
// request is late if its call returned an error or returned after its
// deadline.
func serveHandlersLoad(call func(ctx context.Context) (int64, error), reqs int, deadline time.Duration, want int64) serveResult {
	var mu sync.Mutex
	var out serveResult
	var wg sync.WaitGroup
	for range serveHandlers {
		wg.Go(func() {
			var mine serveResult
			for range reqs {
				start := time.Now()
				ctx, cancel := context.WithDeadline(context.Background(), start.Add(deadline))
				v, err := call(ctx)
				took := time.Since(start)
				cancel()
				mine.latency = append(mine.latency, took)
				switch {
				case err != nil || took > deadline:
					mine.late++
				case v != want:
					mine.wrong++
				}
			}
			mu.Lock()
			out.add(mine)
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}
