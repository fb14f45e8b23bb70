#!/usr/bin/env bash
# instructions.sh PKG BENCH N1 N2: the instructions one iteration of a Go
# benchmark executes, counted by valgrind's cachegrind: the count of a run
# of N2 iterations less that of N1 iterations, over N2-N1. Unlike a time,
# the count does not change with what else the machine runs, so two builds
# can be compared on a shared or throttled machine (a difference of a
# fraction of a percent is real). For example, the highlighter on 100 KB:
#
#	scripts/instructions.sh ./highlight 'BenchmarkDocument/100KB' 10 60
#
# The garbage collector is off (GOGC=off): when it runs, and so what it
# costs, depends on timers, which made counts of one binary differ by 15%
# from run to run; its cost is the allocations', which -benchmem shows.
# GOMAXPROCS=1 and GODEBUG=asyncpreemptoff=1 keep the scheduler out of it
# (and cachegrind cannot follow the preemption signals). cpu.rdtscp=off:
# the runtime's spinning locks read the clock with RDTSCP, which this
# valgrind does not know (SIGILL, seen with a benchmark of sockets or of
# badger's goroutines); without it they use RDTSC. Installs valgrind
# when it is missing.
set -euo pipefail

[[ $# -eq 4 ]] || { echo "usage: $0 PACKAGE BENCHMARK N1 N2 (N1 < N2)" >&2; exit 2; }
pkg=$1 bench=$2 n1=$3 n2=$4
(( n1 < n2 )) || { echo "$0: N1 ($n1) must be less than N2 ($n2)" >&2; exit 2; }
command -v valgrind >/dev/null 2>&1 || "$(dirname "$0")/apt-install.sh" valgrind

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/bench.test" "$pkg"
# The binary runs in the package's directory, as go test runs it (the
# benchmarks that read the cached corpora find them from there).
pkgdir=$(go list -f '{{.Dir}}' "$pkg")
count() {
	cd "$pkgdir" && GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file="$dir/cg.$1.out" "$dir/bench.test" -test.run '^$' \
		-test.bench "$bench" -test.benchtime "${1}x" -test.cpu 1 >"$dir/cg.$1.log" 2>&1 ||
		{ cat "$dir/cg.$1.log" >&2; exit 1; }
	grep -E 'I +refs' "$dir/cg.$1.log" | awk '{gsub(",", "", $NF); print $NF}'
}
a=$(count "$n1")
b=$(count "$n2")
echo "$bench: $(( (b - a) / (n2 - n1) )) instructions per iteration"
