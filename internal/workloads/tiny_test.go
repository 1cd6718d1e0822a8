package workloads

import (
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

func TestTinyTask(t *testing.T) {
	// Weight 0 is i|1; one round is one LCG step and one xorshift.
	if got := TinyTask(6, 0); got != 7 {
		t.Errorf("TinyTask(6, 0) = %d, want 7", got)
	}
	s := uint64(7)
	s = s*6364136223846793005 + 1
	if got, want := TinyTask(6, 1), s^s>>33; got != want {
		t.Errorf("TinyTask(6, 1) = %#x, want %#x", got, want)
	}
}

// Every way of handing the tasks out runs each task once, in both modes.
func TestTinyPatternsRunEveryTaskOnce(t *testing.T) {
	const n = 5003
	var want uint64
	for i := range n {
		want += TinyTask(uint64(i), 3)
	}
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		p := forkjoin.New(forkjoin.Workers(3), forkjoin.WithMode(mode))
		tiny := NewTiny(n, 3)
		for name, run := range map[string]func(*forkjoin.Worker){
			"SpawnFunc": tiny.SpawnFunc, "SpawnClosure": tiny.SpawnClosure, "Range": tiny.Range, "For": tiny.For,
		} {
			tiny.Reset()
			forkjoin.Run(p, run)
			if got := tiny.Sum(); got != want {
				t.Errorf("%v %s: sum %#x, want %#x", mode, name, got, want)
			}
		}
		p.Close()
	}
}
