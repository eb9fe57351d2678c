#!/usr/bin/env bash
# Source-level start-up benchmark of cohort next to gdb (see docs/BENCHMARKS.md):
#
#   bash bench/source.sh
#
# For each binary and stop location, runs in batch mode
#   TOOL -nx -batch -ex 'break LOC' -ex run -ex bt -ex 'info locals' -ex quit --args BIN
# BENCH_REPS times per tool under `/usr/bin/time -f '%e %M'` and reports the median wall time
# and the median peak resident memory, gdb's and cohort's side by side, and cohort/gdb (the
# targets are <= 0.5x for both). The whole command is timed: reading the binary's symbols and
# DWARF, setting the breakpoint, starting the program, unwinding and printing locals.
#
# Binaries (built once, cached under target/bench/):
#   large        bench/gen_large.py: 5,555 functions, 1,126 struct types, 56 units
#   sqlite_bench the sqlite3 amalgamation (271k lines, one unit) from the crate
#                libsqlite3-sys, fetched with `cargo vendor`, driven by
#                bench/fixtures/sqlite_main.c
#
# Knobs: see bench/lib.sh (BENCH_REPS, GDB, COHORT).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
[ -x /usr/bin/time ] || {
    echo "bench: /usr/bin/time is missing (Debian package \`time\`: apt-get install time)" >&2
    exit 1
}

build_cohort
build_large
build_sqlite


bench_case large-main "$LARGE" main
bench_case large-deep "$LARGE" chain_leaf
bench_case sqlite-main "$SQLITE" main
bench_case sqlite-deep "$SQLITE" sqlite3VdbeExec

report "source-level start-up: median of $REPS runs each; ratio = cohort/gdb (lower is better, target <= 0.5x)" \
    "bash bench/source.sh"
