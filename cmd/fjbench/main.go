// Command fjbench measures fjkit's fork-join runtime against the code a Go
// programmer would otherwise write.
//
// With no arguments it runs the tiny-tasks experiment (docs/benchmarks.md):
// two million tiny tasks on 1 to 16 workers, the experiment's own two
// schedulers (one global mutex queue, per-worker queues with steal-half;
// ported, tasks dealt out before the clock starts) beside fjkit's work
// stealing and shared queue in each spawn pattern and the Go idioms, then a
// sweep over the task weight and a table of verdicts. The subcommands fib,
// sort, matmul, uts, nqueens and treesum run the algorithms the same way;
// serve loads a pool as a server does, with deadlines; all runs them all.
//
//	fjbench [subcommand] [flags]
//
// Under each table a legend says what its columns mean. A row is marked
// unreliable when its runs lie far apart or when other work took the cores
// it needed, a ratio resting on such a row gets a "?", and a worker count
// above the machine's cores reads "(oversubscribed)".
//
// Results go to stdout as Markdown tables, or with -format bench as Go
// benchmark lines that benchstat reads; progress goes to stderr, and only
// when stderr is a terminal. Built with -tags fjkit_workspan, fjbench
// -workspan also measures each fjkit row's work and span
// (forkjoin.MeasureWorkSpan) and adds them, with the parallelism they
// give, to its table and its bench lines.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/sorts/sortinput"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is the parsed command line.
type config struct {
	workers, sweep, weights []int
	modes                   []string // "ws", "shared"
	tasks                   int
	n, cutoff               int // the scenario's size and cutoff; 0: its default
	runs, rounds            int
	format, plot, cpuprof   string
	input                   string // sort's input kind
	// Flags serve reads only when given: without -workers it measures one
	// pool of GOMAXPROCS workers, without -mode work stealing only.
	workersSet, modeSet bool
	clients             int
	deadline, duration  time.Duration
	workspan            bool
}

// scenario is one subcommand.
type scenario struct {
	name, doc string
	run       func(cfg *config, b *bench) (Section, error)
	// finish, if set, adds the section's own tables once every round is in.
	finish func(cfg *config, sec *Section)
	once   bool // measured once for a fixed time; -rounds does not apply (serve)
}

var scenarios = []scenario{
	{name: "tiny", doc: "the tiny-tasks experiment: 2·10^6 tiny tasks, one queue vs per-worker stealing, weight sweep (default)", run: runTiny, finish: finishTiny},
	{name: "fib", doc: "doubly recursive Fibonacci, fib(-n, default 35) with a serial -cutoff (default 12)", run: runFib},
	{name: "sort", doc: "sorting -n (default 10^6) int64s (-input, default random): par.Sort, par.SortFunc, par.SortStableFunc, par.SortByKey, fjkit merge sort and quicksort, slices.Sort, a goroutine merge sort", run: runSort},
	{name: "matmul", doc: "-n×-n (default 512) matrix product: fjkit MatMul, gonum's Mul, row-block pools", run: runMatMul, finish: finishMatMul},
	{name: "uts", doc: "Unbalanced Tree Search on T1 cut at depth -n (default 9)", run: runUTS},
	{name: "nqueens", doc: "counting -n-queens solutions (default 13), baselines forking the first -cutoff rows (default 3)", run: runNQueens},
	{name: "treesum", doc: "summing a balanced binary tree of -n nodes (default 10^7): Func.Join, closure Join, serial recursion", run: runTreeSum},
	{name: "serve", doc: "-clients (32) loop InvokeContext with a -deadline (5ms) for -duration: lateness, hand-back, ticker", run: runServe, once: true},
}

// run is the whole command, with its exit status as the result: 0 done,
// 1 the measurement failed, 2 the command line was wrong.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, todo, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		writeUsage(stdout)
		return 0
	}
	if err != nil {
		return failUsage(stderr, err)
	}
	failed := func(err error) int {
		fmt.Fprintf(stderr, "fjbench: %v\n", err)
		return 1
	}
	if cfg.cpuprof != "" {
		f, err := os.Create(cfg.cpuprof)
		if err != nil {
			return failed(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return failed(err)
		}
		defer pprof.StopCPUProfile()
	}
	b := &bench{runs: cfg.runs, usable: usableCores, workspan: cfg.workspan}
	if isTerminal(stderr) {
		b.progress = stderr
	}
	rep, err := measureAll(cfg, todo, b)
	var uerr usageError
	if errors.As(err, &uerr) {
		return failUsage(stderr, err)
	}
	if err != nil {
		return failed(err)
	}
	if err := writeReport(stdout, cfg.format, rep); err != nil {
		return failed(err)
	}
	if cfg.plot != "" {
		if err := writePlotFile(cfg.plot, rep); err != nil {
			return failed(err)
		}
	}
	return 0
}

// isTerminal reports whether w is a character device, as a terminal is:
// progress lines, which rewrite themselves, go there and not into a file
// or a pipe. (The standard library's check keeps golang.org/x/term out of
// the module's requirements.)
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// measureAll runs the scenarios in turn, each for cfg.rounds rounds, and
// checks that every group of results agrees on its checksum.
func measureAll(cfg *config, todo []scenario, b *bench) (*Report, error) {
	rep := &Report{Env: currentEnv()}
	rep.Env.UsableBefore = usableCores()
	for _, s := range todo {
		sec, err := measureRounds(s, cfg, b)
		if err == nil {
			err = checkGroups(sec.Results)
		}
		if _, ok := err.(usageError); !ok && err != nil {
			err = fmt.Errorf("%s: %w", s.name, err)
		}
		if err != nil {
			return nil, err
		}
		rep.Sections = append(rep.Sections, sec)
	}
	rep.Env.UsableAfter = usableCores()
	return rep, nil
}

// newFlagSet defines every flag, writing into cfg and, for the lists and the
// mode, which need parsing of their own, into raw.
func newFlagSet(cfg *config, raw map[string]*string) *flag.FlagSet {
	fs := flag.NewFlagSet("fjbench", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run reports errors, with the usage
	str := func(name, value, usage string) { raw[name] = fs.String(name, value, usage) }
	str("workers", "1,2,4,8,16", "worker counts, comma-separated")
	str("sweep", "1,4,16", "tiny: worker counts of the weight sweep")
	str("weights", "4,20,400", "tiny: task weights; the first is the main table's, all are swept")
	str("mode", "both", "fjkit scheduler: ws, shared or both")
	fs.IntVar(&cfg.tasks, "tasks", 2_000_000, "tiny: number of tasks")
	fs.IntVar(&cfg.n, "n", 0, "problem size of a subcommand (fib n, sort length, matmul dimension, uts depth, nqueens board, treesum nodes, serve reduce length); 0: its default")
	fs.IntVar(&cfg.cutoff, "cutoff", 0, "sequential cutoff of a recursive subcommand; 0: its default")
	fs.StringVar(&cfg.input, "input", "random", "sort: the input, one of "+strings.Join(sortinput.Kinds, ", "))
	fs.IntVar(&cfg.runs, "runs", 3, "timed runs per measurement after one warm-up; the median and spread are reported")
	fs.IntVar(&cfg.rounds, "rounds", 1, "measure each subcommand this many times in turn, pooling every row's runs: a slow spell of a shared machine then slows one run of every row, not every run of a few (serve: always 1)")
	fs.StringVar(&cfg.format, "format", "table", "output format: table (Markdown) or bench (Go benchmark lines for benchstat)")
	fs.StringVar(&cfg.plot, "plot", "", "write speed-up and throughput charts to `FILE`.svg or FILE.png")
	fs.StringVar(&cfg.cpuprof, "cpuprofile", "", "write a CPU profile to `FILE`")
	fs.BoolVar(&cfg.workspan, "workspan", false, "measure the work and span of every fjkit row, serially (forkjoin.MeasureWorkSpan; needs a build with -tags fjkit_workspan), and add work, span, parallelism and burdened parallelism to its table and its bench lines")
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
	fs := newFlagSet(new(config), map[string]*string{})
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// failUsage reports a wrong command line with the usage; exit status 2.
func failUsage(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "fjbench: %v\n\n", err)
	writeUsage(stderr)
	return 2
}

// parseArgs reads the command line into a config and the scenarios to run.
// It returns flag.ErrHelp when help was asked for, and an error saying what
// is wrong with a command line it cannot run; it measures nothing.
func parseArgs(args []string) (*config, []scenario, error) {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	cfg := &config{}
	raw := map[string]*string{}
	fs := newFlagSet(cfg, raw)
	err := fs.Parse(args)
	if err == nil && cmd == "" && fs.NArg() > 0 {
		// Flags before the subcommand: fjbench -runs 5 fib -n 30.
		cmd = fs.Arg(0)
		err = fs.Parse(fs.Args()[1:])
	}
	if err != nil {
		return nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		cfg.workersSet = cfg.workersSet || f.Name == "workers"
		cfg.modeSet = cfg.modeSet || f.Name == "mode"
	})
	var todo []scenario
	switch cmd {
	case "help":
		return nil, nil, flag.ErrHelp
	case "":
		todo = scenarios[:1]
	case "all":
		todo = scenarios
	default:
		for _, s := range scenarios {
			if s.name == cmd {
				todo = []scenario{s}
			}
		}
		if todo == nil {
			return nil, nil, fmt.Errorf("unknown subcommand %q", cmd)
		}
	}
	for _, l := range []struct {
		name string
		dst  *[]int
	}{{"workers", &cfg.workers}, {"sweep", &cfg.sweep}, {"weights", &cfg.weights}} {
		if *l.dst, err = parseCounts(l.name, *raw[l.name]); err != nil {
			return nil, nil, err
		}
	}
	switch m := *raw["mode"]; m {
	case "ws", "shared":
		cfg.modes = []string{m}
	case "both":
		cfg.modes = []string{"shared", "ws"}
	default:
		return nil, nil, fmt.Errorf("-mode must be ws, shared or both, not %q", m)
	}
	return cfg, todo, cfg.check(cmd)
}

// check rejects values no scenario can run with; cmd is the subcommand.
func (cfg *config) check(cmd string) error {
	switch {
	case cfg.format != "table" && cfg.format != "bench":
		return fmt.Errorf("-format must be table or bench, not %q", cfg.format)
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
	case sortinput.Check(cfg.input) != nil:
		return fmt.Errorf("-input: %v", sortinput.Check(cfg.input))
	case cfg.clients < 1:
		return fmt.Errorf("-clients must be at least 1, not %d", cfg.clients)
	case cfg.deadline <= 0 || cfg.duration <= 0:
		return errors.New("-deadline and -duration must be positive")
	case cfg.workspan && !workSpanBuilt():
		return errors.New("-workspan: " + forkjoin.ErrWorkSpanOff.Error())
	}
	if cfg.plot != "" {
		if ext := strings.ToLower(filepath.Ext(cfg.plot)); ext != ".svg" && ext != ".png" {
			return fmt.Errorf("-plot needs a file ending in .svg or .png, not %q", cfg.plot)
		}
		// The charts draw lines over the worker counts; one point is no line.
		sweepOnly := (cmd == "" || cmd == "tiny" || cmd == "all") && len(cfg.sweep) > 1 && len(cfg.weights) > 1
		if len(cfg.workers) < 2 && !sweepOnly {
			return errors.New("-plot needs at least two -workers counts to draw")
		}
		if cmd == "serve" && !cfg.workersSet {
			return errors.New("-plot with serve needs -workers: without it serve measures one pool")
		}
	}
	return nil
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
