#!/usr/bin/env bash
# Conditional-breakpoint throughput of cohort next to gdb (see docs/BENCHMARKS.md):
#
#   bash bench/cond.sh
#
# The fixture bench/fixtures/loop.c calls the noinline `f(int i)` for i = 0 .. N-1.
#   work:     TOOL -nx -batch -ex 'break f if i == -1' -ex run --args target/bench/loop N
#   baseline: the same with 0 calls
# The condition is never true, so every call is a trap, an evaluation of `i == -1` in f's
# frame, a step over the breakpoint and a resume; the program runs to its end. The figure is
# N / (median work - median baseline) in evaluations per second. Target for cohort: >= 5x gdb.
#
# Checks: the breakpoint was set (`Breakpoint 1 at`), no stop, a normal exit and the program's
# own `x=N` line; and, untimed, `break f if i == 777` must stop exactly once, at i=777 (so a
# tool that ignores the condition, or never sets the breakpoint, fails).
#
# Knobs: BENCH_CALLS [100000], and those of bench/lib.sh (BENCH_REPS, GDB, COHORT).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

N=${BENCH_CALLS:-100000}

build_cohort
build_loop

declare -A RATE_OF
for tool in gdb cohort; do
    tool_cmd $tool
    if [ ${#T[@]} -eq 0 ]; then
        RATE_OF[$tool]=n/a
        continue
    fi
    echo "== $tool: break f if i == -1, $N calls to f ($REPS runs)" >&2
    log=$L/$tool-cond.txt
    measure "$tool conditional" "$N" "$log" "$L/$tool-cond-base.txt" \
        -- "${T[@]}" -batch -ex 'break f if i == -1' -ex run --args "$LOOP" 0 \
        -- "${T[@]}" -batch -ex 'break f if i == -1' -ex run --args "$LOOP" "$N"
    v=$(awk -v r="$RATE" 'BEGIN { if (r > 0) printf "%.0f", r; else print "FAIL" }')
    # Untimed: a condition true exactly once.
    once=$L/$tool-cond-once.txt
    "${T[@]}" -batch -ex 'break f if i == 777' -ex run -ex continue --args "$LOOP" 1000 >"$once" 2>&1 </dev/null || true
    problems=()
    grep -q '^Breakpoint 1 at ' "$log" || problems+=("no 'Breakpoint 1 at' line")
    [ "$(count '^Breakpoint 1,' "$log")" = 0 ] || problems+=("it stopped")
    grep -q 'exited normally' "$log" || problems+=("no normal exit")
    grep -q "^x=$N\$" "$log" || problems+=("no x=$N line from the program")
    [ "$(count '^Breakpoint 1,' "$once")" = 1 ] || problems+=("'if i == 777' did not stop exactly once")
    grep -q '^Breakpoint 1, f (i=777)' "$once" || problems+=("'if i == 777' did not stop with i=777")
    if [ ${#problems[@]} -gt 0 ]; then
        warn "$tool conditional: $(IFS=,; echo "${problems[*]}"); see $log and $once"
        if [ $tool = gdb ]; then v=FAIL; else v=$(failed "$log" "$v"); fi
    fi
    RATE_OF[$tool]=$v
done
row "conditional bp 'break f if i == -1', never true, $N calls" "evals/s" "${RATE_OF[gdb]}" "${RATE_OF[cohort]}"

report "conditional breakpoint throughput: median of $REPS runs each, minus a baseline with no calls; ratio = cohort/gdb (higher is better, target >= 5x)" \
    "bash bench/cond.sh   (BENCH_CALLS=$N)"
