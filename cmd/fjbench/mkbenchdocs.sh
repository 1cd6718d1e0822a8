#!/bin/sh
# Makes the measurements behind docs/benchmarks.md: runs fjbench's default
# experiment and every subcommand at its default sizes, writing the tables to
# docs/bench/NAME.md and the charts to docs/bench/NAME.svg, each with the wall
# time and the load average around it (the machine may be shared). Each
# subcommand but serve (which loads each pool once for a fixed time) is
# measured in three rounds of one timed run per row (-rounds 3
# -runs 1), so that a slow spell of the host falls on one run of every row
# rather than on every run of the rows measured during it. Run it from the
# repository root; it takes several minutes on 2 cores.
set -eu
out=docs/bench
mkdir -p "$out"
bin=$(mktemp -d)/fjbench
go build -o "$bin" ./cmd/fjbench
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- forkjoin wsdeque algos cmd/fjbench 2>/dev/null)" ]; then
	commit="$commit (with uncommitted changes)"
fi
# serve measures one pool (GOMAXPROCS workers) unless given -workers, so it
# has no worker axis to chart.
for c in tiny fib sort matmul uts nqueens treesum serve; do
	echo "fjbench $c ..." >&2
	before=$(cut -d' ' -f1 /proc/loadavg)
	start=$(date +%s)
	if [ "$c" = serve ]; then
		"$bin" "$c" >"$out/$c.md"
	else
		"$bin" "$c" -rounds 3 -runs 1 -plot "$out/$c.svg" >"$out/$c.md"
	fi
	end=$(date +%s)
	after=$(cut -d' ' -f1 /proc/loadavg)
	printf '\n`fjbench %s` at commit %s: %d s wall; 1-minute load average %s before, %s after.\n' \
		"$c" "$commit" $((end - start)) "$before" "$after" >>"$out/$c.md"
done
