package forkjoin

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// freshDefault lets a test make the default pool again: it sets the process's
// pool aside for the test's duration and, when the test ends, closes the
// pool the test made (Close ignores a default pool, so the mark goes first)
// and puts the original back. Tests using it must not run in parallel.
func freshDefault(t *testing.T) {
	t.Helper()
	defaultPool.mu.Lock()
	saved := defaultPool.p.Swap(nil)
	defaultPool.mu.Unlock()
	t.Cleanup(func() {
		defaultPool.mu.Lock()
		made := defaultPool.p.Swap(saved)
		defaultPool.mu.Unlock()
		if made != nil && made != saved {
			made.isDefault = false
			made.Close()
		}
	})
}

func TestDefaultSizedByEnv(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int
	}{
		{"3", 3},
		{"1", 1},
		{"0", runtime.GOMAXPROCS(0)},
		{"", runtime.GOMAXPROCS(0)},
	} {
		t.Run("FJKIT_WORKERS="+tc.env, func(t *testing.T) {
			freshDefault(t)
			t.Setenv(WorkersEnv, tc.env)
			p := Default()
			if got := p.Workers(); got != tc.want {
				t.Fatalf("Default().Workers() = %d, want %d", got, tc.want)
			}
			if Default() != p {
				t.Fatal("a second Default() returned another pool")
			}
		})
	}
}

func TestDefaultBadEnvPanics(t *testing.T) {
	// Beyond maxWorkers: 99999999999999 used to crash in make with
	// "makeslice: len out of range".
	for _, env := range []string{"-2", "four", "2.5", " 3", "99999999999999", fmt.Sprint(maxWorkers + 1)} {
		t.Run(env, func(t *testing.T) {
			freshDefault(t)
			t.Setenv(WorkersEnv, env)
			defer func() {
				v := recover()
				err, _ := v.(error)
				if err == nil || !strings.Contains(err.Error(), "FJKIT_WORKERS") || !strings.Contains(err.Error(), env) {
					t.Fatalf("Default() with FJKIT_WORKERS=%q: recovered %v, want an error naming the variable and its value", env, v)
				}
				if defaultPool.p.Load() != nil {
					t.Fatal("a pool was made despite the bad variable")
				}
			}()
			Default()
		})
	}
}

func TestSetDefault(t *testing.T) {
	freshDefault(t)
	t.Setenv(WorkersEnv, "3")
	if err := SetDefault(Workers(2), WithMode(SharedQueue)); err != nil {
		t.Fatalf("SetDefault before first use: %v", err)
	}
	p := Default()
	if p.Workers() != 2 || p.Mode() != SharedQueue {
		t.Fatalf("Default() has %d workers in %v, want 2 in shared-queue (SetDefault's Workers wins over FJKIT_WORKERS)", p.Workers(), p.Mode())
	}
	if err := SetDefault(Workers(5)); !errors.Is(err, ErrDefaultMade) {
		t.Fatalf("SetDefault after first use = %v, want ErrDefaultMade", err)
	}
	if Default() != p || p.Workers() != 2 {
		t.Fatal("a late SetDefault changed the default pool")
	}
	if got := Invoke(p, func(*Worker) int { return 7 }); got != 7 {
		t.Fatalf("Invoke on the set default = %d", got)
	}
}

func TestSetDefaultKeepsEnvWithoutWorkers(t *testing.T) {
	freshDefault(t)
	t.Setenv(WorkersEnv, "3")
	if err := SetDefault(WithSteal(StealOne)); err != nil {
		t.Fatal(err)
	}
	if got := Default().Workers(); got != 3 {
		t.Fatalf("Default().Workers() = %d, want 3 from FJKIT_WORKERS", got)
	}
	if err := SetDefault(); !errors.Is(err, ErrDefaultMade) {
		t.Fatalf("second SetDefault = %v, want ErrDefaultMade", err)
	}
}

func TestSetDefaultBadEnvIsAnError(t *testing.T) {
	freshDefault(t)
	t.Setenv(WorkersEnv, "lots")
	err := SetDefault(WithMode(WorkStealing))
	if err == nil || !strings.Contains(err.Error(), "FJKIT_WORKERS") {
		t.Fatalf("SetDefault with FJKIT_WORKERS=lots = %v, want an error naming the variable", err)
	}
	// The variable does not matter when the code sizes the pool itself.
	if err := SetDefault(Workers(1)); err != nil {
		t.Fatalf("SetDefault(Workers(1)) with a bad FJKIT_WORKERS: %v", err)
	}
	if got := Default().Workers(); got != 1 {
		t.Fatalf("Default().Workers() = %d, want 1", got)
	}
}

func TestSetDefaultNilOptionPanics(t *testing.T) {
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "forkjoin.SetDefault") {
			t.Fatalf("recovered %v, want a panic naming SetDefault", v)
		}
	}()
	_ = SetDefault(nil)
}

// TestDefaultConcurrentFirstUse makes the default pool from many goroutines
// at once: all must get the same pool (run under -race).
func TestDefaultConcurrentFirstUse(t *testing.T) {
	freshDefault(t)
	t.Setenv(WorkersEnv, "2")
	const n = 16
	got := make([]*Pool, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			got[i] = Default()
		}()
	}
	start.Done()
	wg.Wait()
	for i, p := range got {
		if p == nil || p != got[0] {
			t.Fatalf("goroutine %d got pool %p, goroutine 0 got %p", i, p, got[0])
		}
	}
}

// setProcs sets GOMAXPROCS for the rest of the test.
func setProcs(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// waitStopped waits until every worker of p has exited.
func waitStopped(t *testing.T, p *Pool) {
	t.Helper()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a replaced default pool's workers did not exit")
	}
}

// TestDefaultFollowsGOMAXPROCS checks that a default pool sized by
// GOMAXPROCS is replaced when GOMAXPROCS changes, keeps its options, and
// that the pool it replaces stops while a caller that kept it can still
// use it.
func TestDefaultFollowsGOMAXPROCS(t *testing.T) {
	freshDefault(t)
	t.Setenv(WorkersEnv, "")
	setProcs(t, 2)
	if err := SetDefault(WithMode(SharedQueue)); err != nil {
		t.Fatal(err)
	}
	p1 := Default()
	if p1.Workers() != 2 {
		t.Fatalf("Default().Workers() = %d, want GOMAXPROCS 2", p1.Workers())
	}
	runtime.GOMAXPROCS(3)
	p2 := Default()
	if p2 == p1 || p2.Workers() != 3 || p2.Mode() != SharedQueue {
		t.Fatalf("after GOMAXPROCS(3), Default() has %d workers in %v (same pool: %v), want a new pool of 3 in shared-queue mode", p2.Workers(), p2.Mode(), p2 == p1)
	}
	if Default() != p2 {
		t.Fatal("a second Default() returned another pool")
	}
	if got := Invoke(p1, func(w *Worker) *Pool { return w.Pool() }); got != p2 {
		t.Fatal("Invoke on the replaced pool did not run on the default pool")
	}
	waitStopped(t, p1)
	runtime.GOMAXPROCS(2)
	if p3 := Default(); p3 == p2 || p3.Workers() != 2 {
		t.Fatalf("after GOMAXPROCS(2) again, Default() has %d workers (same pool: %v), want a new pool of 2", p3.Workers(), p3 == p2)
	}
	waitStopped(t, p2)
}

// TestDefaultReplacedWhileRunning replaces the default pool while an
// invocation runs on it: the invocation finishes on its pool (Invoke from
// its task runs inline there), a new caller of the old pool is served by
// the new one, and the old pool stops only after the invocation returned.
func TestDefaultReplacedWhileRunning(t *testing.T) {
	freshDefault(t)
	t.Setenv(WorkersEnv, "")
	setProcs(t, 2)
	p1 := Default()
	started, release, inside := make(chan struct{}), make(chan struct{}), make(chan *Pool)
	go func() {
		Run(p1, func(w *Worker) {
			close(started)
			<-release
			inside <- Invoke(p1, func(w *Worker) *Pool { return w.Pool() })
		})
	}()
	<-started
	runtime.GOMAXPROCS(1)
	p2 := Default()
	if p2 == p1 || p2.Workers() != 1 {
		t.Errorf("Default() after GOMAXPROCS(1) has %d workers (same pool: %v)", p2.Workers(), p2 == p1)
	}
	if got := Invoke(p1, func(w *Worker) *Pool { return w.Pool() }); got != p2 {
		t.Error("a new Invoke on the replaced pool did not run on the new default pool")
	}
	close(release)
	if got := <-inside; got != p1 {
		t.Fatal("Invoke from a task of the replaced pool did not run inline on it")
	}
	waitStopped(t, p1)
}

// TestDefaultSizedDoesNotFollow checks that a default pool sized by
// FJKIT_WORKERS or by SetDefault's Workers keeps its size.
func TestDefaultSizedDoesNotFollow(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		opts []Option
	}{
		{"env", "3", nil},
		{"Workers", "", []Option{Workers(3)}},
		{"Workers(0)", "", []Option{Workers(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			freshDefault(t)
			t.Setenv(WorkersEnv, tc.env)
			setProcs(t, 3)
			if err := SetDefault(tc.opts...); err != nil {
				t.Fatal(err)
			}
			p := Default()
			runtime.GOMAXPROCS(2)
			if Default() != p || p.Workers() != 3 {
				t.Fatalf("Default() changed with GOMAXPROCS: %d workers, same pool %v", Default().Workers(), Default() == p)
			}
		})
	}
}

// TestDefaultConcurrentResize calls Default and Invoke from many goroutines
// while GOMAXPROCS changes (run under -race): every call must succeed and
// run on a pool of some size GOMAXPROCS had.
func TestDefaultConcurrentResize(t *testing.T) {
	freshDefault(t)
	t.Setenv(WorkersEnv, "")
	setProcs(t, 2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := Invoke(Default(), func(w *Worker) int { return w.Pool().Workers() })
				if n < 1 || n > 3 {
					bad.Add(1)
				}
			}
		}()
	}
	for i := range 50 {
		runtime.GOMAXPROCS(1 + i%3)
		time.Sleep(200 * time.Microsecond)
	}
	close(stop)
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d invocations ran on a pool of a size GOMAXPROCS never had", bad.Load())
	}
}

func TestWorkersZeroIsGOMAXPROCS(t *testing.T) {
	p := New(Workers(0))
	defer p.Close()
	if got, want := p.Workers(), runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("New(Workers(0)).Workers() = %d, want GOMAXPROCS %d", got, want)
	}
}

func ExampleSetDefault() {
	// In main, before anything (par included) uses the default pool:
	err := SetDefault(Workers(4), WithSteal(StealOne))
	// In this test binary TestMain made the default pool already, so
	// SetDefault says so and changes nothing.
	fmt.Println(errors.Is(err, ErrDefaultMade))
	// Output: true
}

func ExampleWorkers() {
	p := New(Workers(0)) // 0: one worker per GOMAXPROCS
	defer p.Close()
	fmt.Println(p.Workers() == runtime.GOMAXPROCS(0))
	// Output: true
}
