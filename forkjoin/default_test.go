package forkjoin

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
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
