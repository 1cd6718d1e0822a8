// Command fjbench measures fjkit's fork-join runtime against the code a Go
// programmer would otherwise write.
//
// With no arguments it retells the seeds' experiment: two million tiny tasks
// on 1 to 16 workers, a shared mutex queue against work stealing, then a
// sweep over the task weight. The subcommands fib, sort, matmul, uts and
// nqueens run the algorithms of package algos the same way; all runs them all.
//
//	fjbench [subcommand] [flags]
//
// Results go to stdout (-format table|csv|json|bench); progress goes to
// stderr, and only when stderr is a terminal.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/term"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is the parsed command line.
type config struct {
	workers    []int
	sweep      []int
	weights    []int
	tasks      int
	n          int // the scenario's size; 0: its default
	cutoff     int // 0: the scenario's default
	runs       int
	modes      []string // "ws", "shared"
	format     string
	plot       string
	cpuprofile string
	input      string // sort's input kind; "": random
}

// scenario is one subcommand.
type scenario struct {
	name string
	doc  string
	run  func(cfg *config, b *bench) (Section, error)
}

var scenarios = []scenario{
	{"seed", "the seeds' experiment: 2·10^6 tiny tasks, shared queue vs work stealing, weight sweep (default)", runSeed},
	{"fib", "doubly recursive Fibonacci, fib(-n, default 35) with a serial -cutoff (default 12)", runFib},
	{"sort", "sorting -n (default 10^6) int64s (-input, default random): fjkit merge sort and quicksort, slices.Sort, a goroutine merge sort", runSort},
	{"matmul", "-n×-n (default 512) matrix product: fjkit MatMul, gonum's Mul, row-block pools", runMatMul},
	{"uts", "Unbalanced Tree Search on T1 cut at depth -n (default 9)", runUTS},
	{"nqueens", "counting -n-queens solutions (default 13), baselines forking the first -cutoff rows (default 3)", runNQueens},
}

func findScenario(name string) (scenario, bool) {
	for _, s := range scenarios {
		if s.name == name {
			return s, true
		}
	}
	return scenario{}, false
}

// run is the whole command, with its exit status as the result: 0 done,
// 1 the measurement failed, 2 the command line was wrong.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	cfg := config{}
	fs := flag.NewFlagSet("fjbench", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, with the usage
	workers := fs.String("workers", "1,2,4,8,16", "worker counts, comma-separated")
	sweep := fs.String("sweep", "1,4,16", "worker counts of the seed's weight sweep")
	weights := fs.String("weights", "4,20,400", "seed task weights: the first is the main experiment's, all are swept")
	fs.IntVar(&cfg.tasks, "tasks", 2_000_000, "seed: number of tasks")
	fs.IntVar(&cfg.n, "n", 0, "problem size of a subcommand (fib n, sort length, matmul dimension, uts depth, nqueens board); 0: its default")
	fs.IntVar(&cfg.n, "size", 0, "the same as -n")
	fs.IntVar(&cfg.cutoff, "cutoff", 0, "sequential cutoff of a recursive subcommand; 0: its default")
	fs.StringVar(&cfg.input, "input", "random", "sort: the input, one of "+sortInputKinds)
	fs.IntVar(&cfg.runs, "runs", 3, "timed runs per measurement after one warm-up; the median and spread are reported")
	mode := fs.String("mode", "both", "fjkit scheduler: ws, shared or both")
	fs.StringVar(&cfg.format, "format", formatTable, "output format: "+strings.Join(formats, ", "))
	fs.StringVar(&cfg.plot, "plot", "", "write speed-up and throughput charts to `FILE`.svg or FILE.png")
	fs.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile to `FILE`")

	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: fjbench [subcommand] [flags]\n\nSubcommands:\n")
		for _, s := range scenarios {
			fmt.Fprintf(w, "  %-8s %s\n", s.name, s.doc)
		}
		fmt.Fprintf(w, "  %-8s %s\n\nFlags:\n", "all", "every subcommand in turn")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "fjbench: "+format+"\n\n", a...)
		usage(stderr)
		return 2
	}

	err := fs.Parse(args)
	if err == nil && cmd == "" && fs.NArg() > 0 {
		// Flags before the subcommand: fjbench -runs 5 fib -n 30.
		cmd = fs.Arg(0)
		err = fs.Parse(fs.Args()[1:])
	}
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout)
		return 0
	}
	if err != nil {
		return fail("%v", err)
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if cmd == "" {
		cmd = "seed"
	}
	if cmd == "help" {
		usage(stdout)
		return 0
	}
	var todo []scenario
	if cmd == "all" {
		todo = scenarios
	} else if s, ok := findScenario(cmd); ok {
		todo = []scenario{s}
	} else {
		return fail("unknown subcommand %q", cmd)
	}

	if cfg.workers, err = parseCounts("workers", *workers); err != nil {
		return fail("%v", err)
	}
	if cfg.sweep, err = parseCounts("sweep", *sweep); err != nil {
		return fail("%v", err)
	}
	if cfg.weights, err = parseCounts("weights", *weights); err != nil {
		return fail("%v", err)
	}
	switch *mode {
	case "ws", "shared":
		cfg.modes = []string{*mode}
	case "both":
		cfg.modes = []string{"shared", "ws"}
	default:
		return fail("-mode must be ws, shared or both, not %q", *mode)
	}
	if !slices.Contains(formats, cfg.format) {
		return fail("-format must be one of %s, not %q", strings.Join(formats, ", "), cfg.format)
	}
	if cfg.runs < 1 {
		return fail("-runs must be at least 1, not %d", cfg.runs)
	}
	if cfg.tasks < 1 {
		return fail("-tasks must be at least 1, not %d", cfg.tasks)
	}
	if cfg.n < 0 || cfg.cutoff < 0 {
		return fail("-n and -cutoff must not be negative")
	}
	if (cfg.n != 0 || cfg.cutoff != 0) && cmd == "all" {
		return fail("-n and -cutoff mean something different in each subcommand; give them with one subcommand, not all")
	}
	if cfg.plot != "" {
		if ext := strings.ToLower(filepath.Ext(cfg.plot)); ext != ".svg" && ext != ".png" {
			return fail("-plot needs a file ending in .svg or .png, not %q", cfg.plot)
		}
		// The charts draw lines over the worker counts; one point is no line.
		sweepOnly := (cmd == "seed" || cmd == "all") && len(cfg.sweep) > 1 && len(cfg.weights) > 1
		if len(cfg.workers) < 2 && !sweepOnly {
			return fail("-plot needs at least two -workers counts to draw")
		}
	}

	if cfg.cpuprofile != "" {
		f, err := os.Create(cfg.cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "fjbench: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "fjbench: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}

	b := &bench{runs: cfg.runs}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.progress = stderr
	}
	rep := Report{Env: currentEnv()}
	rep.Env.UsableBefore = usableCores()
	for _, s := range todo {
		sec, err := s.run(&cfg, b)
		if err == nil {
			err = checkGroups(sec.Results)
		}
		var uerr usageError
		if errors.As(err, &uerr) {
			return fail("%v", err)
		}
		if err != nil {
			fmt.Fprintf(stderr, "fjbench: %s: %v\n", s.name, err)
			return 1
		}
		rep.Sections = append(rep.Sections, sec)
	}
	rep.Env.UsableAfter = usableCores()
	if err := writeReport(stdout, cfg.format, &rep); err != nil {
		fmt.Fprintf(stderr, "fjbench: %v\n", err)
		return 1
	}
	if cfg.plot != "" {
		if err := writePlotFile(cfg.plot, &rep); err != nil {
			fmt.Fprintf(stderr, "fjbench: %v\n", err)
			return 1
		}
	}
	return 0
}

// usageError is a scenario's complaint about its flags (a size out of
// range); it exits with status 2 and the usage, as a bad flag does.
type usageError string

func (e usageError) Error() string { return string(e) }

func errSize(scenario, flag string, v int, want string) error {
	return usageError(fmt.Sprintf("%s: %s %d: must be %s", scenario, flag, v, want))
}

// parseCounts reads a comma-separated list of positive integers.
func parseCounts(name, s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-%s: %q is not a positive integer", name, f)
		}
		out = append(out, n)
	}
	return out, nil
}
