#!/usr/bin/env bash
# Many-rank benchmarks of issue 4 (docs/BENCHMARKS.md, "Many ranks (issue 4)"): cohort's agent
# tree against one gdb/MI process per rank, side by side in one run.
#
#   bash bench/parallel.sh          # full: N = 1..1024, 3 repetitions, scale up to 10,000 ranks
#   bash bench/parallel.sh quick    # N = 1, 16, 64, one repetition, scale 1,000 ranks
#
# Environment knobs (defaults in brackets):
#   BENCH_REPS        repetitions of every measurement; medians are reported   [3, quick 1]
#   BENCH_K           `next`s timed per run                                    [20, quick 10]
#   BENCH_NS          rank counts for step-all and memory        [1 16 64 256 1024, quick 1 16 64]
#   BENCH_SCALE       N/AGENTS pairs of the scale runs, in order; a pair is skipped when a
#                     smaller N under as many agents failed
#                     [200/100 500/100 1000/100 10000/100 1000/10 10000/10, quick 100/100 1000/10 1000/100]
#   BENCH_MIN_AVAIL   MiB of MemAvailable under which a run is killed (the machine is shared) [3072]
#   BENCH_PARTS       which parts run: any of steps tree scale views        [steps tree scale]
#   BENCH_VIEW_NS     rank counts of the views part (one agent)             [64 1024]
#   BENCH_VIEW_SCALE  ranks/agents of the views part's tree runs            [10000/100]
#   BENCH_OUT         where results go                                 [target/bench/parallel]
#   GDB               the gdb binary                                           [gdb]
#
# What runs (bench/parallel_driver.py does the driving and checking; one JSON line per run in
# target/bench/parallel/results.jsonl, the tables come from bench/parallel_report.py):
#  1. step-all: for every N, cohort (`cohort launch -n N`, interactive on pipes) and N gdbs
#     (`gdb --interpreter=mi`, one per rank) run to main, break at the loop line, continue,
#     then K `next`s; each `next` is timed from writing the command to the answer of all N
#     ranks (cohort: its prompt after the merged stop; gdb: all N `*stopped` records).
#  2. memory: the cohort side's RSS/PSS (front end + agentd) and each gdb's, all ranks stopped
#     in the loop; also once with `break LINE` (which loads libc's line tables in every rank).
#  3. start: launch to all ranks at main (cohort: first prompt; gdbs: all `*stopped` at main).
#  Also, for every N, the kernel's floor under the step: bench/ptrace_floor.c makes only the
#     system calls the agent makes per rank and step, on as many threads as the agent uses.
#  4. scale: many ranks under 100 agents; and the tree formation time for several fan-outs.
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=0
[ "${1:-}" = quick ] && QUICK=1
if [ $QUICK = 1 ]; then
    REPS=${BENCH_REPS:-1}
    K=${BENCH_K:-10}
    NS=${BENCH_NS:-"1 16 64"}
    SCALE=${BENCH_SCALE:-"100/100 1000/10 1000/100"}
    FAN_AGENTS="128"
else
    REPS=${BENCH_REPS:-3}
    K=${BENCH_K:-20}
    NS=${BENCH_NS:-"1 16 64 256 1024"}
    SCALE=${BENCH_SCALE:-"200/100 500/100 1000/100 10000/100 1000/10 10000/10"}
    FAN_AGENTS="128 256"
fi
FANOUTS="32,8 8,8 4,4 256,1"
MIN_AVAIL=${BENCH_MIN_AVAIL:-3072}
GDB=${GDB:-gdb}
unset DEBUGINFOD_URLS

PARTS=${BENCH_PARTS:-"steps tree scale"}
part() { [[ " $PARTS " == *" $1 "* ]]; }
D=${BENCH_OUT:-target/bench/parallel}
mkdir -p "$D"
RES=$D/results.jsonl
: >"$RES"
PROG=target/bench/ploop

echo "== building cohort and cohort-agentd (release) and the fixture" >&2
cargo build --release -q -p cohort -p cohort-agentd
cc -g -O0 -o "$PROG" bench/fixtures/ploop.c
cc -O2 -pthread -o target/bench/ptrace_floor bench/ptrace_floor.c
LINE=$(grep -n 'LOOP_LINE \*/' bench/fixtures/ploop.c | cut -d: -f1)

# ------------------------------------------------------------------ limits

echo "== machine limits" >&2
if [ "$(id -u)" = 0 ] && [ "$(cat /proc/sys/kernel/pid_max)" -lt 4194304 ]; then
    # Every rank is a process and, in its agent, a thread: 10,000 ranks take 20,000+ pids.
    echo 4194304 >/proc/sys/kernel/pid_max 2>/dev/null || true
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
ulimit -u "$(ulimit -Hu)" 2>/dev/null || true
{
    echo "cpus $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
    echo "memory $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), available at start $(awk '/MemAvailable/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "pid_max $(cat /proc/sys/kernel/pid_max), threads-max $(cat /proc/sys/kernel/threads-max), ulimit -u $(ulimit -u), ulimit -n $(ulimit -n)"
    echo "kernel $(uname -r), $("$GDB" --version | head -n 1), cohort $(git rev-parse --short HEAD)"
    echo "load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$D/machine.txt" >&2

drive() { python3 bench/parallel_driver.py "$@" --line "$LINE" --prog "$PROG" --min-avail "$MIN_AVAIL" --gdb "$GDB" | tee -a "$RES" | cut -c1-220 >&2 || true; }

# The loop line's run-time address (no address-space randomization under either debugger):
# both reach the loop with `break *ADDR`, because `break LINE` makes every rank of cohort
# parse libc's line tables (about 16 MiB and 20 ms a rank; measured separately below).
ADDR=$(target/release/cohort launch -n 1 -nx -batch -ex "break $LINE" -- "$PROG" 2>&1 |
    sed -n 's/.*Breakpoint [0-9]* at \(0x[0-9a-f]*\): .*/\1/p' | head -n 1)
[ -n "$ADDR" ] || {
    echo "cannot find the address of line $LINE" >&2
    exit 1
}
echo "loop line $LINE at $ADDR" >&2

# gdb_fits N: room for N more gdbs (each about 36 MiB of its own, measured: PSS at 64 gdbs)?
gdb_fits() {
    local avail
    avail=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
    [ $(($1 * 40 + MIN_AVAIL + 2048)) -lt "$avail" ]
}

# cool_down: wait (up to 2 minutes) until the ranks of the last run are gone and the machine
# is quiet again (tearing down thousands of ranks takes a while after the session ends).
cool_down() {
    local i
    for ((i = 0; i < 120; i++)); do
        if ! pgrep -x ploop >/dev/null && ! pgrep -x cohort-agentd >/dev/null &&
            [ "$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f1)" -le 3 ]; then
            return
        fi
        sleep 1
    done
}

# ------------------------------------------------------------------ 1-3: step-all, memory, start

part steps && for ((rep = 1; rep <= REPS; rep++)); do
    for n in $NS; do
        echo "== rep $rep, N=$n: cohort" >&2
        drive cohort --n "$n" --k "$K" --bp "*$ADDR"
        if gdb_fits "$n"; then
            echo "== rep $rep, N=$n: $n gdbs" >&2
            drive gdb --n "$n" --k "$K" --bp "*$ADDR"
        else
            echo "{\"tool\": \"gdb\", \"n\": $n, \"ok\": false, \"skipped\": true, \"error\": \"not started: $n gdbs need about $((n * 40)) MiB, more than MemAvailable minus a reserve\"}" | tee -a "$RES" >&2
        fi
    done
done

# The kernel's floor: only the system calls the agent makes per rank and step
# (bench/ptrace_floor.c), on as many threads as the agent would use.
part steps && echo "== the kernel's floor (bench/ptrace_floor.c)" >&2
part steps && for ((rep = 1; rep <= REPS; rep++)); do
    for n in $NS; do
        t=$(( (n + 127) / 128 ))
        [ "$t" -ge "$(nproc)" ] || t=$(nproc)
        [ "$t" -le "$n" ] || t=$n
        us=$(target/bench/ptrace_floor "$n" "$t" int3 | awk '{ print $4 }')
        echo "{\"tool\": \"floor\", \"n\": $n, \"threads\": $t, \"ok\": true, \"step_ms\": $(awk "BEGIN { print $us / 1000 }")}" >>"$RES"
    done
done

part steps && echo "== memory with 'break $LINE' (line tables in every rank)" >&2
part steps && for n in $NS; do
    [ "$n" -le 256 ] || continue
    drive cohort --n "$n" --k 2
done

part steps && echo "== cross-check at N=64: the subtraction method (batch, with and without $K nexts)" >&2
part steps && drive cohort-batch --n 64 --k "$K" --bp "*$ADDR" --reps "$REPS"

# ------------------------------------------------------------------ 4: fan-out and scale

part tree && for a in $FAN_AGENTS; do
    for ((rep = 1; rep <= REPS; rep++)); do
        for f in $FANOUTS; do
            echo "== tree: $a agents (one rank each), fanout $f, rep $rep" >&2
            drive tree --n "$a" --agents "$a" --fanout "$f"
            cool_down
        done
    done
done

declare -A FAILED_AT=()
part scale && for s in $SCALE; do
    n=${s%/*}
    a=${s#*/}
    if [ -n "${FAILED_AT[$a]:-}" ] && [ "$n" -gt "${FAILED_AT[$a]}" ]; then
        echo "{\"tool\": \"cohort\", \"bp\": \"*$ADDR\", \"n\": $n, \"agents\": $a, \"ok\": false, \"skipped\": true, \"error\": \"not run: $((FAILED_AT[$a])) ranks under $a agents failed\"}" | tee -a "$RES" >&2
        continue
    fi
    echo "== scale: $n ranks under $a agents" >&2
    cool_down
    before=$(wc -l <"$RES")
    drive cohort --n "$n" --agents "$a" --fanout 32,8 --k 5 --bp "*$ADDR" --settle 600000
    if [ "$(wc -l <"$RES")" = "$before" ] || tail -n 1 "$RES" | grep -q '"ok": false'; then
        FAILED_AT[$a]=$n
    fi
done

# ------------------------------------------------------------------ 5: issue 20's views
# stacks, compare and diagnose with every rank stopped in the loop (5 times each, the median),
# next to N gdbs' -stack-list-frames and -data-evaluate-expression where they fit.

part views && for n in ${BENCH_VIEW_NS:-64 1024}; do
    echo "== views: N=$n, cohort" >&2
    cool_down
    drive cohort --n "$n" --k 2 --bp "*$ADDR" --views 5
    if gdb_fits "$n"; then
        echo "== views: N=$n, $n gdbs" >&2
        drive gdb --n "$n" --k 2 --bp "*$ADDR" --views 5
    fi
done
part views && for s in ${BENCH_VIEW_SCALE:-10000/100}; do
    echo "== views: ${s%/*} ranks under ${s#*/} agents" >&2
    cool_down
    drive cohort --n "${s%/*}" --agents "${s#*/}" --fanout 32,8 --k 2 --bp "*$ADDR" --settle 600000 --views 3
done

echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$D/machine.txt" >&2
python3 bench/parallel_report.py "$RES" "$D/machine.txt" | tee "$D/report.md"
