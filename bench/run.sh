#!/usr/bin/env bash
# Side-by-side benchmarks of cohort and gdb (see docs/BENCHMARKS.md).
#
#   bash bench/run.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_REPS   repetitions of every timed command; the median is used [5]
#   BENCH_HITS   breakpoint resumes per run (N `continue` lines)          [2000]
#   BENCH_STEPS  instructions single-stepped per run (`stepi N`)          [20000]
#   GDB          the gdb binary                                           [gdb]
#
# Every figure is (median wall time of the command with the work) minus (median wall time
# of the same command without it), so start-up, symbol loading, `run` and teardown cancel.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${BENCH_HITS:-2000}
STEPS=${BENCH_STEPS:-20000}
FIX=target/bench/hot
MEM_WORDS=131072 # 131072 8-byte words = 1 MiB, the size of `big`

# Timing, medians, table rows and warnings are shared with the source-level benchmarks.
source bench/lib.sh
COHORT=target/release/cohort
COHORT_CMD=("$COHORT" -nx)

echo "== building cohort (release) and the fixture" >&2
cargo build --release -q -p cohort
mkdir -p "$OUT/logs"
cc -g -O0 -o "$FIX" bench/fixtures/hot.c
CONT="$OUT/continue-$N.gdb"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) print "continue" }' >"$CONT"

# value RATE OK: the figure for the table (rounded), or FAIL when a sanity check failed.
value() { if [ "$2" = ok ] && [ -n "$1" ]; then printf '%.0f\n' "$1"; else echo FAIL; fi; }


# ------------------------------------------------------------------ a. breakpoint hits

echo "== a. breakpoint hits: break hot, run, then $N x continue (program makes $((N + 1)) calls)" >&2
declare -A HITS
for tool in gdb cohort; do
    if [ $tool = gdb ]; then T=("${GDB_CMD[@]}"); else T=("${COHORT_CMD[@]}"); fi
    measure "$tool continue/hit" "$N" "$L/$tool-hits.txt" "$L/$tool-hits-base.txt" \
        -- "${T[@]}" -batch -ex 'break hot' -ex run --args "$FIX" $((N + 1)) \
        -- "${T[@]}" -batch -ex 'break hot' -ex run -x "$CONT" --args "$FIX" $((N + 1))
    ok=ok
    got=$(count '^Breakpoint 1,' "$L/$tool-hits.txt")
    gotb=$(count '^Breakpoint 1,' "$L/$tool-hits-base.txt")
    if [ "$got" != $((N + 1)) ] || [ "$gotb" != 1 ]; then
        ok=bad
        warn "$tool hits: expected $((N + 1)) (baseline 1) 'Breakpoint 1,' lines, got $got (baseline $gotb); see $L/$tool-hits.txt"
    fi
    HITS[$tool]=$(value "$RATE" $ok)
done
row "breakpoint hits/s, continue per hit" "hits/s" "${HITS[gdb]}" "${HITS[cohort]}"

echo "== a'. conditional breakpoint 'break hot if i < 0' (never true), $N calls" >&2
measure "gdb conditional" "$N" "$L/gdb-cond.txt" "$L/gdb-cond-base.txt" \
    -- "${GDB_CMD[@]}" -batch -ex 'break hot if i < 0' -ex run --args "$FIX" 0 \
    -- "${GDB_CMD[@]}" -batch -ex 'break hot if i < 0' -ex run --args "$FIX" "$N"
ok=ok
if [ "$(count '^Breakpoint 1,' "$L/gdb-cond.txt")" != 0 ] || ! grep -q 'exited normally' "$L/gdb-cond.txt"; then
    ok=bad
    warn "gdb conditional: expected no stops and a normal exit; see $L/gdb-cond.txt"
fi
COND=$(value "$RATE" $ok)
# cohort has no breakpoint conditions yet: record what it does with one (not timed).
"${COHORT_CMD[@]}" -batch -ex 'break hot if i < 0' -ex run --args "$FIX" 3 >"$L/cohort-cond.txt" 2>&1 </dev/null || true
COHORT_COND_SAYS=$(head -n 1 "$L/cohort-cond.txt")
row "conditional bp evaluations/s (never true)" "hits/s" "$COND" "unsupported"

# ------------------------------------------------------------------ b. single-steps

# `break *hot` is set once the program runs (cohort cannot yet set `break *SYMBOL` on a PIE
# before `run`), so both tools start stepping from the same instruction and must end at the
# same pc with the same `counter`.
echo "== b. single-steps: stepi $STEPS from the entry of hot" >&2
declare -A STEP FINAL
for tool in gdb cohort; do
    if [ $tool = gdb ]; then T=("${GDB_CMD[@]}"); else T=("${COHORT_CMD[@]}"); fi
    pre=(-batch -ex 'break main' -ex run -ex delete -ex 'break *hot' -ex continue -ex delete)
    post=(-ex 'info registers rip' -ex 'x/1dg &counter' --args "$FIX" 100000)
    measure "$tool stepi $STEPS" "$STEPS" "$L/$tool-step.txt" "$L/$tool-step-base.txt" \
        -- "${T[@]}" "${pre[@]}" "${post[@]}" \
        -- "${T[@]}" "${pre[@]}" -ex "stepi $STEPS" "${post[@]}"
    rip=$(awk '$1 == "rip" { print $2 }' "$L/$tool-step.txt")
    ctr=$(awk '/<counter>:/ { print $NF }' "$L/$tool-step.txt")
    FINAL[$tool]="rip=$rip counter=$ctr"
    ok=ok
    if [ -z "$rip" ] || [ -z "$ctr" ] || [ "$ctr" = 0 ] || [ "$(count '^Breakpoint 2,' "$L/$tool-step.txt")" != 1 ]; then
        ok=bad
        warn "$tool stepi: no final state or unexpected stops (${FINAL[$tool]}); see $L/$tool-step.txt"
    fi
    STEP[$tool]=$(value "$RATE" $ok)
done
if [ "${FINAL[gdb]}" != "${FINAL[cohort]}" ]; then
    warn "stepi end states differ: gdb ${FINAL[gdb]}, cohort ${FINAL[cohort]}"
    STEP[cohort]=FAIL
fi
row "instruction single-steps/s" "steps/s" "${STEP[gdb]}" "${STEP[cohort]}"

# ------------------------------------------------------------------ c. memory read

# Stop in hot (big is filled by then), then dump all of big as 8-byte hex words.
echo "== c. memory: x/${MEM_WORDS}xg big (1 MiB) to /dev/null" >&2
declare -A MEM
for tool in gdb cohort; do
    if [ $tool = gdb ]; then T=("${GDB_CMD[@]}"); else T=("${COHORT_CMD[@]}"); fi
    base=("${T[@]}" -batch -ex 'break hot' -ex run --args "$FIX" 1)
    work=("${T[@]}" -batch -ex 'break hot' -ex run -ex "x/${MEM_WORDS}xg big" --args "$FIX" 1)
    measure "$tool x 1 MiB" 1 /dev/null /dev/null -- "${base[@]}" -- "${work[@]}"
    MEM[$tool]=$RATE
    # One untimed run kept for the checks below.
    "${work[@]}" >"$L/$tool-mem.txt" 2>&1 </dev/null || true
    grep '^0x[0-9a-f]* <big' "$L/$tool-mem.txt" >"$L/$tool-mem.lines" || true
done
for tool in gdb cohort; do
    lines=$(wc -l <"$L/$tool-mem.lines")
    first=$(head -n 1 "$L/$tool-mem.lines" | awk '{ print $3 }')
    if [ "$lines" != $((MEM_WORDS / 2)) ] || [ "$first" != 0x312a231c150e0700 ]; then
        warn "$tool x: expected $((MEM_WORDS / 2)) lines starting with 0x312a231c150e0700, got $lines starting with '$first'; see $L/$tool-mem.txt"
        MEM[$tool]=""
    fi
done
if ! cmp -s "$L/gdb-mem.lines" "$L/cohort-mem.lines"; then
    warn "x output differs between gdb and cohort: diff $L/gdb-mem.lines $L/cohort-mem.lines"
    MEM[cohort]=""
fi
fmt_mib() { if [ -n "$1" ]; then awk -v r="$1" 'BEGIN { printf "%.2f", r }'; else echo FAIL; fi; }
row "memory read+format, x/${MEM_WORDS}xg" "MiB/s" "$(fmt_mib "${MEM[gdb]}")" "$(fmt_mib "${MEM[cohort]}")"

# ------------------------------------------------------------------ report

report "Instruction-level benchmarks: N=$N hits, $STEPS steps, 1 MiB; median of $REPS runs each; ratio = cohort/gdb (higher is better for cohort)" \
    "bash bench/run.sh"
echo "stepi end state: gdb ${FINAL[gdb]}; cohort ${FINAL[cohort]}"
echo "cohort with 'break hot if i < 0': $COHORT_COND_SAYS"
