// Command fjbench measures fjkit's fork-join runtime against the code a Go
// programmer would otherwise write.
//
// With no arguments it retells the seeds' experiment: two million tiny tasks
// on 1 to 16 workers, the seeds' own two schedulers (ported, tasks dealt out
// before the clock starts) beside fjkit's work stealing and shared queue in
// each spawn pattern and the Go idioms, in one table, then a sweep over the
// task weight. The subcommands fib, sort, matmul, uts, nqueens and treesum
// run the algorithms the same way; serve loads a pool as a server does,
// with deadlines; all runs them all.
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
	"github.com/fjkit/fjkit/internal/sorts/sortinput"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

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
	rounds     int      // the whole subcommand measured this many times in turn (measureRounds)
	modes      []string // "ws", "shared"
	format     string
	plot       string
	cpuprofile string
	// workersSet says -workers was given: serve measures the default list
	// only when asked, and otherwise one pool of GOMAXPROCS workers.
	workersSet bool
	modeSet    bool          // -mode was given: serve measures work stealing only unless asked
	clients    int           // serve: client goroutines
	deadline   time.Duration // serve: per-request deadline
	duration   time.Duration // serve: how long to send requests per pool
	input      string        // sort's input kind; "": random
}

// scenario is one subcommand.
type scenario struct {
	name string
	doc  string
	run  func(cfg *config, b *bench) (Section, error)
	// finish, if set, derives the section's own tables and reading from its
	// results, once every round is in (measureRounds).
	finish func(cfg *config, sec *Section)
	// once: the scenario measures each pool once for a fixed time and
	// ignores -rounds (serve).
	once bool
}

var scenarios = []scenario{
	{name: "seed", doc: "the seeds' experiment: 2·10^6 tiny tasks, shared queue vs work stealing, weight sweep (default)", run: runSeed, finish: finishSeed},
	{name: "fib", doc: "doubly recursive Fibonacci, fib(-n, default 35) with a serial -cutoff (default 12)", run: runFib},
	{name: "sort", doc: "sorting -n (default 10^6) int64s (-input, default random): fjkit merge sort and quicksort, slices.Sort, a goroutine merge sort", run: runSort},
	{name: "matmul", doc: "-n×-n (default 512) matrix product: fjkit MatMul, gonum's Mul, row-block pools", run: runMatMul},
	{name: "uts", doc: "Unbalanced Tree Search on T1 cut at depth -n (default 9)", run: runUTS},
	{name: "nqueens", doc: "counting -n-queens solutions (default 13), baselines forking the first -cutoff rows (default 3)", run: runNQueens},
	{name: "treesum", doc: "summing a balanced binary tree of -n nodes (default 10^7): Func.Join, closure Join, serial recursion", run: runTreeSum},
	{name: "serve", doc: "-clients (32) loop InvokeContext with a -deadline (5ms) for -duration: lateness, hand-back, ticker", run: runServe, once: true},
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
	inv, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		writeUsage(stdout)
		return 0
	}
	if err != nil {
		return failUsage(stderr, err)
	}
	return execute(inv, stdout, stderr)
}

// invocation is a parsed command line: the scenarios to run and how.
type invocation struct {
	cfg  config
	todo []scenario
}

// rawFlags holds the flags that need parsing beyond what package flag does.
type rawFlags struct {
	workers, sweep, weights, mode string
}

// newFlagSet defines every flag, writing into cfg and raw.
func newFlagSet(cfg *config, raw *rawFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("fjbench", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by run, with the usage
	fs.StringVar(&raw.workers, "workers", "1,2,4,8,16", "worker counts, comma-separated")
	fs.StringVar(&raw.sweep, "sweep", "1,4,16", "worker counts of the seed's weight sweep")
	fs.StringVar(&raw.weights, "weights", "4,20,400", "seed task weights: the first is the main experiment's, all are swept")
	fs.IntVar(&cfg.tasks, "tasks", 2_000_000, "seed: number of tasks")
	fs.IntVar(&cfg.n, "n", 0, "problem size of a subcommand (fib n, sort length, matmul dimension, uts depth, nqueens board, treesum nodes, serve reduce length); 0: its default")
	fs.IntVar(&cfg.n, "size", 0, "the same as -n")
	fs.IntVar(&cfg.cutoff, "cutoff", 0, "sequential cutoff of a recursive subcommand; 0: its default")
	fs.StringVar(&cfg.input, "input", "random", "sort: the input, one of "+sortInputKinds)
	fs.IntVar(&cfg.runs, "runs", 3, "timed runs per measurement after one warm-up; the median and spread are reported")
	fs.IntVar(&cfg.rounds, "rounds", 1, "measure each subcommand this many times in turn, pooling every row's -runs timed runs: a slow spell of a shared machine then slows one run of every row, not every run of a few (serve: always 1)")
	fs.StringVar(&raw.mode, "mode", "both", "fjkit scheduler: ws, shared or both")
	fs.StringVar(&cfg.format, "format", formatTable, "output format: "+strings.Join(formats, ", "))
	fs.StringVar(&cfg.plot, "plot", "", "write speed-up and throughput charts to `FILE`.svg or FILE.png")
	fs.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile to `FILE`")
	fs.IntVar(&cfg.clients, "clients", 32, "serve: client goroutines sending requests")
	fs.DurationVar(&cfg.deadline, "deadline", 5*time.Millisecond, "serve: each request's deadline")
	fs.DurationVar(&cfg.duration, "duration", 3*time.Second, "serve: how long the clients send requests at each worker count")
	return fs
}

// writeUsage prints the subcommands and the flags with their defaults.
func writeUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: fjbench [subcommand] [flags]\n\nSubcommands:\n")
	for _, s := range scenarios {
		fmt.Fprintf(w, "  %-8s %s\n", s.name, s.doc)
	}
	fmt.Fprintf(w, "  %-8s %s\n\nFlags:\n", "all", "every subcommand in turn")
	fs := newFlagSet(new(config), new(rawFlags))
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// failUsage reports a wrong command line with the usage; exit status 2.
func failUsage(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "fjbench: %v\n\n", err)
	writeUsage(stderr)
	return 2
}

// parseArgs reads the command line into an invocation. It returns
// flag.ErrHelp when help was asked for, and an error saying what is wrong
// with a command line it cannot run; it measures nothing.
func parseArgs(args []string) (*invocation, error) {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	inv := &invocation{}
	cfg := &inv.cfg
	var raw rawFlags
	fs := newFlagSet(cfg, &raw)
	err := fs.Parse(args)
	if err == nil && cmd == "" && fs.NArg() > 0 {
		// Flags before the subcommand: fjbench -runs 5 fib -n 30.
		cmd = fs.Arg(0)
		err = fs.Parse(fs.Args()[1:])
	}
	if err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		cfg.workersSet = cfg.workersSet || f.Name == "workers"
		cfg.modeSet = cfg.modeSet || f.Name == "mode"
	})
	switch cmd {
	case "":
		cmd = "seed"
	case "help":
		return nil, flag.ErrHelp
	}
	if cmd == "all" {
		inv.todo = scenarios
	} else if s, ok := findScenario(cmd); ok {
		inv.todo = []scenario{s}
	} else {
		return nil, fmt.Errorf("unknown subcommand %q", cmd)
	}
	if cfg.workers, err = parseCounts("workers", raw.workers); err != nil {
		return nil, err
	}
	if cfg.sweep, err = parseCounts("sweep", raw.sweep); err != nil {
		return nil, err
	}
	if cfg.weights, err = parseCounts("weights", raw.weights); err != nil {
		return nil, err
	}
	switch raw.mode {
	case "ws", "shared":
		cfg.modes = []string{raw.mode}
	case "both":
		cfg.modes = []string{"shared", "ws"}
	default:
		return nil, fmt.Errorf("-mode must be ws, shared or both, not %q", raw.mode)
	}
	return inv, cfg.check(cmd)
}

// check rejects values no scenario can run with; cmd is the subcommand.
func (cfg *config) check(cmd string) error {
	switch {
	case !slices.Contains(formats, cfg.format):
		return fmt.Errorf("-format must be one of %s, not %q", strings.Join(formats, ", "), cfg.format)
	case cfg.runs < 1:
		return fmt.Errorf("-runs must be at least 1, not %d", cfg.runs)
	case cfg.rounds < 1:
		return fmt.Errorf("-rounds must be at least 1, not %d", cfg.rounds)
	case cfg.tasks < 1:
		return fmt.Errorf("-tasks must be at least 1, not %d", cfg.tasks)
	case cfg.n < 0 || cfg.cutoff < 0:
		return errors.New("-n and -cutoff must not be negative")
	case (cfg.n != 0 || cfg.cutoff != 0) && cmd == "all":
		return errors.New("-n and -cutoff mean something different in each subcommand; give them with one subcommand, not all")
	case cfg.input != "" && sortinput.Check(cfg.input) != nil:
		return fmt.Errorf("-input: %v", sortinput.Check(cfg.input))
	case cfg.clients < 1:
		return fmt.Errorf("-clients must be at least 1, not %d", cfg.clients)
	case cfg.deadline <= 0 || cfg.duration <= 0:
		return errors.New("-deadline and -duration must be positive")
	}
	if cfg.plot != "" {
		if ext := strings.ToLower(filepath.Ext(cfg.plot)); ext != ".svg" && ext != ".png" {
			return fmt.Errorf("-plot needs a file ending in .svg or .png, not %q", cfg.plot)
		}
		// The charts draw lines over the worker counts; one point is no line.
		sweepOnly := (cmd == "seed" || cmd == "all") && len(cfg.sweep) > 1 && len(cfg.weights) > 1
		if len(cfg.workers) < 2 && !sweepOnly {
			return errors.New("-plot needs at least two -workers counts to draw")
		}
		if cmd == "serve" && !cfg.workersSet {
			return errors.New("-plot with serve needs -workers: without it serve measures one pool")
		}
	}
	return nil
}

// execute runs the scenarios of inv and writes the report: the exit status
// of run for a command line that parsed.
func execute(inv *invocation, stdout, stderr io.Writer) int {
	cfg := &inv.cfg
	failed := func(err error) int {
		fmt.Fprintf(stderr, "fjbench: %v\n", err)
		return 1
	}
	if cfg.cpuprofile != "" {
		f, err := os.Create(cfg.cpuprofile)
		if err != nil {
			return failed(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return failed(err)
		}
		defer pprof.StopCPUProfile()
	}

	b := &bench{runs: cfg.runs}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.progress = stderr
	}
	rep := Report{Env: currentEnv()}
	rep.Env.UsableBefore = usableCores()
	for _, s := range inv.todo {
		sec, err := measureRounds(s, cfg, b)
		if err == nil {
			err = checkGroups(sec.Results)
		}
		var uerr usageError
		if errors.As(err, &uerr) {
			return failUsage(stderr, err)
		}
		if err != nil {
			return failed(fmt.Errorf("%s: %w", s.name, err))
		}
		rep.Sections = append(rep.Sections, sec)
	}
	rep.Env.UsableAfter = usableCores()
	if err := writeReport(stdout, cfg.format, &rep); err != nil {
		return failed(err)
	}
	if cfg.plot != "" {
		if err := writePlotFile(cfg.plot, &rep); err != nil {
			return failed(err)
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
