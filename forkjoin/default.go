package forkjoin

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// WorkersEnv is the environment variable that sizes the default pool: a
// number of workers, read once, when Default first makes the pool (as Rayon
// reads RAYON_NUM_THREADS). 0 or unset means runtime.GOMAXPROCS(0). A Workers
// option given to SetDefault takes precedence, as code that sizes the pool
// explicitly means it.
const WorkersEnv = "FJKIT_WORKERS"

// ErrDefaultMade is what SetDefault returns once the default pool exists.
var ErrDefaultMade = errors.New("forkjoin.SetDefault: the default pool is already made (SetDefault must run before the first Default, at most once)")

// defaultPool holds the process-wide pool. p is loaded without the lock on
// every Default call, which a par call makes each time: one atomic load.
var defaultPool struct {
	p  atomic.Pointer[Pool]
	mu sync.Mutex // serialises making p
}

// Default returns the process-wide pool, made on first use with the options
// given to SetDefault, or else sized by FJKIT_WORKERS (see WorkersEnv), or
// else with runtime.GOMAXPROCS(0) workers. It lives as long as the process:
// Close on it does nothing. It panics, naming the variable, if FJKIT_WORKERS
// is not a non-negative integer: a typo that silently ran with another size
// would be found much later, in a benchmark or an outage.
func Default() *Pool {
	if p := defaultPool.p.Load(); p != nil {
		return p
	}
	p, err := makeDefault(nil)
	if err != nil {
		panic(err)
	}
	return p
}

// SetDefault makes the default pool now, with opts (as New takes them), and
// returns nil; call it once, early in main, before anything calls Default (par
// calls it). Once the default pool exists it returns ErrDefaultMade and
// changes nothing. If opts include no Workers option, FJKIT_WORKERS still
// sizes the pool, and an invalid value is returned as an error.
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
// the answer.
func makeDefault(opts []Option) (*Pool, error) {
	defaultPool.mu.Lock()
	defer defaultPool.mu.Unlock()
	if p := defaultPool.p.Load(); p != nil {
		if opts != nil {
			return p, ErrDefaultMade
		}
		return p, nil
	}
	if !setsWorkers(opts) {
		n, err := envWorkers()
		if err != nil {
			return nil, err
		}
		// Put first, so that the options after it still win.
		opts = append([]Option{Workers(n)}, opts...)
	}
	p := New(opts...)
	p.isDefault = true
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
