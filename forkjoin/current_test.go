package forkjoin_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// TestCurrentFindsTheCallersWorker checks Current from tasks of several
// pools at once, stolen tasks included, and from goroutines that are not
// workers.
func TestCurrentFindsTheCallersWorker(t *testing.T) {
	if forkjoin.Current() != nil {
		t.Fatal("Current() outside any pool is not nil")
	}
	pools := []*forkjoin.Pool{newPool(t, forkjoin.Workers(1)), newPool(t, forkjoin.Workers(3)), newPool(t, forkjoin.Workers(4), forkjoin.WithMode(forkjoin.SharedQueue))}
	var wrong atomic.Int64
	var wg sync.WaitGroup
	for _, p := range pools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			forkjoin.Run(p, func(w *forkjoin.Worker) {
				forkjoin.For(w, 0, 2000, func(w *forkjoin.Worker, i int) {
					if c := forkjoin.Current(); c != w || c.Pool() != p {
						wrong.Add(1)
					}
					if i%100 == 0 {
						done := make(chan bool)
						go func() { done <- forkjoin.Current() == nil }() // a goroutine a task starts is no worker
						if !<-done {
							wrong.Add(1)
						}
					}
				})
			})
		}()
	}
	wg.Wait()
	if n := wrong.Load(); n != 0 {
		t.Fatalf("Current() answered wrongly %d times", n)
	}
}

// TestCurrentAfterClose checks that a closed pool's workers leave the
// registry, and that many pools, more workers than the table first holds,
// come and go without a wrong answer.
func TestCurrentAfterClose(t *testing.T) {
	for round := range 3 {
		var ps []*forkjoin.Pool
		for range 20 {
			ps = append(ps, forkjoin.New(forkjoin.Workers(7+round)))
		}
		for _, p := range ps {
			got := forkjoin.Invoke(p, func(w *forkjoin.Worker) bool { return forkjoin.Current() == w })
			if !got {
				t.Fatal("Current() in a task is not the task's worker")
			}
		}
		for _, p := range ps {
			p.Close()
		}
	}
	if forkjoin.Current() != nil {
		t.Fatal("Current() outside any pool is not nil")
	}
}

// TestCurrentAfterGoexit checks that a worker that carries on in a new
// goroutine, after a task's runtime.Goexit ended its old one, is found by
// the new one.
func TestCurrentAfterGoexit(t *testing.T) {
	p := newPool(t, forkjoin.Workers(1))
	func() {
		defer func() { recover() }()
		forkjoin.Run(p, func(*forkjoin.Worker) { runtime.Goexit() })
	}()
	if !forkjoin.Invoke(p, func(w *forkjoin.Worker) bool { return forkjoin.Current() == w }) {
		t.Fatal("Current() after a Goexit is not the task's worker")
	}
}

func BenchmarkCurrent(b *testing.B) {
	p := newPool(b, forkjoin.Workers(2))
	b.Run("task", func(b *testing.B) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			for b.Loop() {
				if forkjoin.Current() != w {
					b.Fatal("wrong worker")
				}
			}
		})
	})
	b.Run("outside", func(b *testing.B) {
		for b.Loop() {
			if forkjoin.Current() != nil {
				b.Fatal("not nil")
			}
		}
	})
}
