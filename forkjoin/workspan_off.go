//go:build !fjkit_workspan || race

package forkjoin

// workSpan is false without the fjkit_workspan tag (and in race builds,
// whose strand mode the measurement would need for itself): the branches
// it guards are dead code the compiler removes, and these are never called.
const workSpan = false

func measureWorkSpan(*Pool, func(*Worker)) WorkSpan { panic("unreachable") }

func wsRegion(*Worker, string, func(*Worker)) { panic("unreachable") }

func wsCurrent() *Worker { return nil }

func wsFork(*Worker, func(*Worker)) *strand { panic("unreachable") }

func (w *Worker) wsJoin(*strand) { panic("unreachable") }

func wsLoop(*Worker, uint64, func(*Worker, int, uint64, uint64, func() bool)) {
	panic("unreachable")
}

func wsTasksStart(*Tasks, *Pool, *Worker, func(*Worker)) { panic("unreachable") }
