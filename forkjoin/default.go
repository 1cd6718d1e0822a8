package forkjoin

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// WorkersEnv is the environment variable that sizes the default pool: a
// number of workers, read once, when Default first makes the pool (as Rayon
// reads RAYON_NUM_THREADS). 0 or unset means runtime.GOMAXPROCS(0), followed
// as it changes (see Default). A Workers option given to SetDefault takes
// precedence, as code that sizes the pool explicitly means it.
const WorkersEnv = "FJKIT_WORKERS"

// ErrDefaultMade is what SetDefault returns once the default pool exists.
var ErrDefaultMade = errors.New("forkjoin.SetDefault: the default pool is already made (SetDefault must run before the first Default, at most once)")

// defaultPool holds the process-wide pool. p is loaded without the lock on
// every Default call, which a par call made outside any task makes each
// time: one atomic load, and a read of GOMAXPROCS if the pool follows it.
var defaultPool struct {
	p  atomic.Pointer[Pool]
	mu sync.Mutex // serialises making and replacing p
}

// Default returns the process-wide pool, made on first use with the options
// given to SetDefault, or else sized by FJKIT_WORKERS (see WorkersEnv), or
// else with runtime.GOMAXPROCS(0) workers. It lives as long as the process:
// Close on it does nothing. It panics, naming the variable, if FJKIT_WORKERS
// is not a non-negative integer: a typo that silently ran with another size
// would be found much later, in a benchmark or an outage.
//
// A default pool that neither FJKIT_WORKERS nor a Workers option sized
// follows GOMAXPROCS: when a call to Default finds that GOMAXPROCS changed
// (go test -cpu sets it for each run; the Go runtime lowers or raises it as
// the process's CPU limit changes), it makes a new pool of the new size,
// with the same options, and returns that from then on. That costs one read
// of GOMAXPROCS per call, about 20 ns. The pool it replaces stops once the
// invocations running on it end; a caller that kept it can go on using it,
// and Invoke on it runs on the default pool of the moment.
func Default() *Pool {
	if p := defaultPool.p.Load(); p != nil && p.sized() {
		return p
	}
	p, err := makeDefault(nil)
	if err != nil {
		panic(err)
	}
	return p
}

// sized reports whether p, a default pool, has the size it should have:
// always, unless it follows GOMAXPROCS and GOMAXPROCS changed.
func (p *Pool) sized() bool { return !p.followProcs || len(p.workers) == runtime.GOMAXPROCS(0) }

// SetDefault makes the default pool now, with opts (as New takes them), and
// returns nil; call it once, early in main, before anything calls Default (a
// par call made outside any task does, even on an input too small to reach
// the pool). Once the default pool exists it returns ErrDefaultMade and
// changes nothing. If opts include no Workers option, FJKIT_WORKERS still
// sizes the pool, and an invalid value is returned as an error; if neither
// sizes it, the pool follows GOMAXPROCS as Default describes.
func SetDefault(opts ...Option) error {
	for _, o := range opts {
		if o == nil {
			panic("forkjoin.SetDefault: nil Option")
		}
	}
	if defaultPool.p.Load() != nil {
		return ErrDefaultMade
	}
	if _, err := makeDefault(opts); err != nil {
		return err
	}
	return nil
}

// makeDefault makes the default pool with opts if nobody has made it yet.
// It returns ErrDefaultMade, with the pool, when opts != nil and the pool
// was already there: for Default (opts nil) a pool made meanwhile is simply
// the answer, once it has the size it should have (sized); a pool that
// follows GOMAXPROCS and lost track of it is replaced here.
func makeDefault(opts []Option) (*Pool, error) {
	defaultPool.mu.Lock()
	defer defaultPool.mu.Unlock()
	if p := defaultPool.p.Load(); p != nil {
		if opts != nil {
			return p, ErrDefaultMade
		}
		if p.sized() {
			return p, nil
		}
		np := New(p.opts...) // no Workers option: GOMAXPROCS's size
		np.isDefault, np.followProcs, np.opts = true, true, p.opts
		defaultPool.p.Store(np)
		p.retire()
		return np, nil
	}
	opts = slices.Clip(opts)
	follow := false
	if !setsWorkers(opts) {
		n, err := envWorkers()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			follow = true
		} else {
			// Put first, so that the options after it still win.
			opts = append([]Option{Workers(n)}, opts...)
		}
	}
	p := New(opts...)
	p.isDefault, p.followProcs = true, follow
	if follow {
		p.opts = opts
	}
	defaultPool.p.Store(p)
	return p, nil
}

// setsWorkers reports whether any of opts is a Workers option. Options only
// assign fields of a config, so applying them to a scratch one is harmless.
func setsWorkers(opts []Option) bool {
	c := config{workers: -1}
	for _, o := range opts {
		o(&c)
	}
	return c.workers != -1
}

// envWorkers parses FJKIT_WORKERS: 0 (GOMAXPROCS) when unset or empty.
func envWorkers() (int, error) {
	v, ok := os.LookupEnv(WorkersEnv)
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxWorkers {
		return 0, fmt.Errorf("forkjoin: %s=%q: want a number of workers from 0 to %d (0 means GOMAXPROCS)", WorkersEnv, v, maxWorkers)
	}
	return n, nil
}
