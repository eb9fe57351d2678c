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

# The part of a run's output that must agree: from the first frame line on, without the
# "kill the program?" chatter of `quit`.
section() {
    sed -n '/^#0 /,$p' "$1" | grep -v -E '^(A debugging session is active|	Inferior 1 \[process|Quit anyway\?|$)' || true
}
frames() { section "$1" | grep -c '^#[0-9]' || true; }
# Names of the locals (`name = value` lines that are not inside a frame line).
local_names() { section "$1" | grep -v '^#' | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\) = .*/\1/p'; }

# case NAME BIN LOC
bench_case() {
    local name=$1 bin=$2 loc=$3 tool i
    echo "== $name: break $loc, run, bt, info locals, quit ($REPS runs per tool)" >&2
    declare -A SEC MEM
    for tool in gdb cohort; do
        tool_cmd $tool
        if [ ${#T[@]} -eq 0 ]; then
            SEC[$tool]=n/a
            MEM[$tool]=n/a
            continue
        fi
        local log=$L/$tool-source-$name.txt secs=() kibs=() r
        for ((i = 0; i < REPS; i++)); do
            r=$(timed_mem "$log" "${T[@]}" -batch -ex "break $loc" -ex run -ex bt -ex 'info locals' -ex quit --args "$bin")
            secs+=("${r% *}")
            kibs+=("${r#* }")
        done
        SEC[$tool]=$(median "${secs[@]}")
        MEM[$tool]=$(awk -v k="$(median "${kibs[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')
        printf '   %-8s %ss  %s MiB  (%s frames, %s locals)\n' "$tool" "${SEC[$tool]}" "${MEM[$tool]}" \
            "$(frames "$log")" "$(local_names "$log" | wc -l)" >&2
    done
    local g=$L/gdb-source-$name.txt c=$L/cohort-source-$name.txt
    if [ "$(frames "$g")" -lt 1 ] || [ "$(local_names "$g" | wc -l)" -lt 1 ]; then
        warn "gdb $name: no backtrace or no locals; see $g"
        SEC[gdb]=FAIL
        MEM[gdb]=FAIL
    fi
    # cohort's figures count only when it printed the same frames and the same local names as
    # gdb (values may differ: the two tools give the program different environments, so stack
    # contents of uninitialized locals differ).
    if [ "${SEC[cohort]}" != n/a ]; then
        if [ "$(frames "$c")" != "$(frames "$g")" ] || [ "$(local_names "$c")" != "$(local_names "$g")" ]; then
            warn "cohort $name: frames or local names differ from gdb's: diff $g $c"
            SEC[cohort]=$(failed "$c" "${SEC[cohort]}")
            MEM[cohort]=$(failed "$c" "${MEM[cohort]}")
        elif [ "$(section "$c")" != "$(section "$g")" ]; then
            echo "   note: cohort $name: same frames and locals, some text differs: diff $g $c" >&2
        fi
    fi
    row "$name: break $loc; run; bt; info locals; time" "s" "${SEC[gdb]}" "${SEC[cohort]}"
    row "$name: break $loc; run; bt; info locals; peak RSS" "MiB" "${MEM[gdb]}" "${MEM[cohort]}"
}

bench_case large-main "$LARGE" main
bench_case large-deep "$LARGE" chain_leaf
bench_case sqlite-main "$SQLITE" main
bench_case sqlite-deep "$SQLITE" sqlite3VdbeExec

report "source-level start-up: median of $REPS runs each; ratio = cohort/gdb (lower is better, target <= 0.5x)" \
    "bash bench/source.sh"
