#!/usr/bin/env bash
# What sealing the tree's frames costs a step of all ranks (issue 16; docs/BENCHMARKS.md,
# "Security"): the same step benchmark as bench/parallel.sh (N ranks run to the loop, then K
# `next`s of all of them, each timed from the command to the merged answer), alternating a
# build without sealing (BASE_COHORT, e.g. a worktree at the commit before) and this one.
#   BASE_COHORT=/work/wt-base/target/release/cohort bash bench/wire_cost.sh
# Knobs: BENCH_N [64], BENCH_AGENTS [0: one agent], BENCH_K [20], BENCH_REPS [3]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BASE_COHORT:?BASE_COHORT: the cohort binary to compare with (its cohort-agentd beside it)}"
N=${BENCH_N:-64}
AG=${BENCH_AGENTS:-0}
K=${BENCH_K:-20}
REPS=${BENCH_REPS:-3}
cargo build --release -q -p cohort -p cohort-agentd
mkdir -p target/bench
PROG=target/bench/ploop
cc -g -O0 -o "$PROG" bench/fixtures/ploop.c
LINE=$(grep -n 'LOOP_LINE \*/' bench/fixtures/ploop.c | cut -d: -f1)
ADDR=$(target/release/cohort launch -n 1 -nx -batch -ex "break $LINE" -- "$PROG" 2>&1 |
    sed -n 's/.*Breakpoint [0-9]* at \(0x[0-9a-f]*\): .*/\1/p' | head -n 1)
echo "cohort $(git rev-parse --short HEAD) vs $BASE_COHORT; N=$N agents=$AG; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
extra=()
[ "$AG" -gt 0 ] && extra=(--agents "$AG" --fanout 32,8 --settle 600000)
for ((rep = 1; rep <= REPS; rep++)); do
    for c in "$BASE_COHORT" target/release/cohort; do
        python3 bench/parallel_driver.py cohort --n "$N" --k "$K" --reps 1 --line "$LINE" \
            --prog "$PROG" --bp "*$ADDR" --cohort "$c" "${extra[@]}" |
            python3 -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    keys = [k for k in r if "step" in k or k in ("ok", "error", "tree_ms", "start_ms")]
    print(sys.argv[1], json.dumps({k: r[k] for k in keys}))' "$c"
    done
done
