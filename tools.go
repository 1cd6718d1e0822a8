//go:build tools

// Package tools pins module dependencies that the packages below import, so that
// go mod tidy keeps them while the code that uses them is written.
package tools

import (
	_ "github.com/anishathalye/porcupine"
	_ "github.com/google/go-cmp/cmp"
	_ "go.uber.org/goleak"
	_ "golang.org/x/exp/constraints"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/term"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/gonum/stat"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/plotter"
	_ "gonum.org/v1/plot/vg"
)
