package forkjoin

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fjkit/fjkit/internal/usage"
)

// A Pool is a set of worker goroutines that run fork-join tasks. Make one with
// New, or use Default. A Pool is safe for use by any number of goroutines.
type Pool struct {
	// workers are the pool's own Workers() workers, size of them; all
	// holds them and the spares made so far (blocking.go), in ID order.
	workers []*Worker
	all     atomic.Pointer[[]*Worker]
	size    int
	spares  spareSet
	mon     monitor
	mode    Mode
	steal   StealPolicy

	injector queue // root tasks from Invoke
	shared   queue // every forked task, in SharedQueue mode
	sleep    sleep

	mu       sync.Mutex // guards closed and the Add side of active
	closed   bool
	active   sync.WaitGroup // invocations not yet finished
	shutdown atomic.Bool    // set once no invocation can run: workers exit
	wg       sync.WaitGroup // worker goroutines
	close    sync.Once
	seed     uint64 // of the workers' random number generators
	// isDefault marks a pool Default made, which Close leaves alone;
	// followProcs, one that GOMAXPROCS sized and whose size Default keeps
	// in step with it, replacing it by a pool made with opts (default.go).
	// They are set before the pool is published and never change.
	isDefault   bool
	followProcs bool
	//lint:ignore U1000 used in race builds (race.go)
	race racePool // strand mode (strand.go); no room outside race builds
	opts []Option
}

// New starts a pool. With no options it has runtime.GOMAXPROCS(0) workers,
// work stealing and steal-half. Close it when done to stop its goroutines; an
// idle pool's workers are parked and use no CPU.
func New(opts ...Option) *Pool {
	c := defaultConfig()
	for _, o := range opts {
		if o == nil {
			panic("forkjoin.New: nil Option")
		}
		o(&c)
	}
	n := c.workers
	p := &Pool{mode: c.mode, steal: c.steal, size: n}
	p.seed = uint64(time.Now().UnixNano()) | 1
	p.initRace()
	p.workers = make([]*Worker, n)
	for i := range p.workers {
		p.workers[i] = p.newWorker(i)
	}
	all := slices.Clone(p.workers)
	p.all.Store(&all)
	// The workers start parked: nothing is queued yet, so none has
	// anything to look for, and the first producer wakes one (sleep.go).
	// A worker that began by looking would probe every other worker's
	// deque, n² probes in all.
	p.sleep.parked = slices.Clone(p.workers)
	for _, w := range p.workers {
		w.isParked = true
	}
	p.sleep.counts.Store(uint64(n) * oneIdle)
	p.wg.Add(n)
	for _, w := range p.workers {
		go w.loop(true)
	}
	p.startMonitor()
	return p
}

// newWorker makes the worker with the given ID (New, and blocking.go for
// spares).
func (p *Pool) newWorker(id int) *Worker {
	return &Worker{
		pool:    p,
		id:      id,
		shared:  p.mode == SharedQueue,
		rng:     p.seed + uint64(id)*0x9E3779B97F4A7C15 | 1,
		parking: parking{wake: make(chan struct{}, 1)},
	}
}

// Workers returns the number of workers (not counting those Blocking lends
// for a while).
func (p *Pool) Workers() int { return p.size }

// Mode returns the pool's scheduling mode.
func (p *Pool) Mode() Mode { return p.mode }

// Close waits for running invocations to finish, then stops the workers and
// waits for their goroutines to exit. It is idempotent: every call returns
// once the pool is closed. Invoke after Close panics with ErrClosed. Close
// panics if called from a task of the same pool, which it would wait for
// for ever; from a goroutine that such a task waits for it cannot tell, and
// hangs the same way.
func (p *Pool) Close() {
	if p.isDefault {
		return
	}
	if p.current() != nil {
		panic(usage.New("forkjoin.Close: called from a task of the same pool, which Close would wait for; close the pool after Invoke returns"))
	}
	p.shutDown()
}

// retire stops p, a default pool Default has replaced, once the
// invocations running on it have finished, without waiting for them: the
// pool is closed at once, so that a later Invoke on it goes to the default
// pool of the moment (submit), and its workers exit with the last of its
// invocations.
func (p *Pool) retire() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	go p.shutDown()
}

// shutDown closes p, waits for the running invocations, then stops the
// workers and waits for their goroutines to exit.
func (p *Pool) shutDown() {
	p.close.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.active.Wait()
		p.stopMonitor()
		p.shutdown.Store(true)
		p.sleep.wakeAll()
		p.wakeSpares()
		p.wg.Wait()
	})
}

// isClosed reports whether Close has begun: Invoke panics with ErrClosed.
func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// hasWork reports whether any queue or deque holds a task: the last look a
// worker takes before it parks.
func (p *Pool) hasWork(w *Worker) bool {
	ws := p.live()
	w.probes += uint64(len(ws))
	return p.workWaits(ws)
}

// workWaits reports whether the injector, the shared queue or one of ws's
// deques holds a task (hasWork, and the blocking monitor's samples).
func (p *Pool) workWaits(ws []*Worker) bool {
	if !p.injector.empty() {
		return true
	}
	if p.mode == SharedQueue {
		return !p.shared.empty()
	}
	for _, w := range ws {
		if w.deque.Len() > 0 {
			return true
		}
	}
	return false
}

// hasWorkFor is hasWork for a worker w waiting in invocation r: only the
// work it may run counts (see Worker.waitFor), so that a joiner parks while
// other invocations' work waits for idle workers instead of spinning on it.
// A producer of work it may run wakes it as any producer wakes a worker.
func (p *Pool) hasWorkFor(w *Worker, r *invocation) bool {
	if p.mode == SharedQueue {
		return p.shared.hasOf(r)
	}
	for _, v := range p.live() {
		if v != w && v.curInv.Load() == r && v.deque.Len() > 0 {
			return true
		}
	}
	return p.injector.hasForkedOf(r)
}
