#!/usr/bin/env bash
# `next` latency of cohort next to gdb (see docs/BENCHMARKS.md):
#
#   bash bench/next.sh
#
# The fixture bench/fixtures/loop.c runs `x = f(x);` in a `for` loop (two source lines per
# iteration, so every second `next` steps over the call to f). Both tools stop at main, then
# run BENCH_NEXTS `next` commands, then `info locals`:
#   file mode:  -x next-N.gdb    (a file of N `next` lines: one command per step)
#   count mode: -ex 'next N'     (one command)
# Every figure is (median wall time with the nexts) minus (median wall time of the same
# command without them), divided by N: microseconds per `next`, start-up and teardown cancel.
# Target for cohort: <= 100 us per next.
#
# Knobs: BENCH_NEXTS [10000], and those of bench/lib.sh (BENCH_REPS, GDB, COHORT).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

N=${BENCH_NEXTS:-10000}
ITER=$((N * 10 + 100)) # loop iterations: more than the nexts can reach

build_cohort
build_loop
NEXTS="$OUT/next-$N.gdb"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) print "next" }' >"$NEXTS"

# Final `info locals` lines of a run (k, n, x): must agree between the tools.
final_locals() { { grep -E '^(k|n|x) = ' "$1" || true; } | tail -n 3 | tr '\n' ' '; }
# Source lines echoed by `next` (and by the first stop): "LINE<TAB>text".
echoed() { grep -c -P '^\d+\t' "$1" || true; }

declare -A US FINAL
for mode in file count; do
    echo "== next over a loop body with a call: $N nexts, $mode mode" >&2
    for tool in gdb cohort; do
        tool_cmd $tool
        if [ ${#T[@]} -eq 0 ]; then
            US[$tool-$mode]=n/a
            continue
        fi
        if [ $mode = file ]; then work=(-x "$NEXTS"); else work=(-ex "next $N"); fi
        pre=(-batch -ex 'break main' -ex run)
        post=(-ex 'info locals' --args "$LOOP" "$ITER")
        log=$L/$tool-next-$mode.txt
        measure "$tool next ($mode)" "$N" "$log" "$L/$tool-next-base.txt" \
            -- "${T[@]}" "${pre[@]}" "${post[@]}" \
            -- "${T[@]}" "${pre[@]}" "${work[@]}" "${post[@]}"
        FINAL[$tool-$mode]=$(final_locals "$log")
        US[$tool-$mode]=$(awk -v d="$DELTA" -v n="$N" 'BEGIN { if (d > 0) printf "%.1f", d / n * 1e6; else print "FAIL" }')
        # gdb echoes the source line at every stop: N nexts + the breakpoint stop. In count
        # mode gdb prints only the last line; cohort must print what gdb prints.
        if [ $tool = gdb ]; then
            want=$((N + 1))
            [ $mode = count ] && want=2
            if [ "$(echoed "$log")" != $want ] || [ -z "${FINAL[$tool-$mode]}" ]; then
                warn "gdb next ($mode): expected $want source lines and final locals; see $log"
                US[$tool-$mode]=FAIL
            fi
        elif [ "${FINAL[cohort-$mode]}" != "${FINAL[gdb-$mode]}" ] || [ "$(echoed "$log")" != "$(echoed "$L/gdb-next-$mode.txt")" ]; then
            warn "cohort next ($mode): final locals '${FINAL[cohort-$mode]}' (gdb '${FINAL[gdb-$mode]}') or echoed lines differ: diff $L/gdb-next-$mode.txt $log"
            US[cohort-$mode]=$(failed "$log" "${US[cohort-$mode]}")
        fi
    done
    if [ $mode = file ]; then what="$N x 'next' lines (-x file)"; else what="'next $N' (one command)"; fi
    row "next over 'x = f(x);' loop, $what" "us/next" "${US[gdb-$mode]}" "${US[cohort-$mode]}"
done

report "next latency: median of $REPS runs each, minus a baseline without the nexts; ratio = cohort/gdb (lower is better, target cohort <= 100 us)" \
    "bash bench/next.sh   (BENCH_NEXTS=$N)"
echo "final locals: gdb ${FINAL[gdb-file]}; cohort ${FINAL[cohort-file]:-}"
