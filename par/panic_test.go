package par_test

import (
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// panic((*forkjoin.PanicError)(nil)) in a body is a panic like any other,
// not taken for no panic at all, on the serial and the parallel paths.
func TestNilPanicErrorIsNotDropped(t *testing.T) {
	defer par.ForceParallel(7)() // parallel on a pool of more than one worker
	n := 1 << 14
	boom := func(i int) {
		if i == n/2+1 {
			panic((*forkjoin.PanicError)(nil))
		}
	}
	calls := map[string]func(){
		"For":        func() { par.For(n, boom) },
		"Map":        func() { par.Map(make([]int, n), func(x int) int { boom(n/2 + 1); return x }) },
		"For serial": func() { par.For(3, func(int) { boom(n/2 + 1) }) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			v := func() (v any) {
				defer func() { v = recover() }()
				call()
				return nil
			}()
			if pe, _ := v.(*forkjoin.PanicError); pe == nil {
				t.Fatalf("a body's panic((*PanicError)(nil)) came out as %#v: the call looks finished", v)
			}
		})
	}
}
