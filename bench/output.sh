#!/usr/bin/env bash
# Output flow control (issue 16; docs/BENCHMARKS.md, "Output under a slow terminal"):
# 8 ranks writing 800 MB each under a front end read at 1 MiB/s (memory of the agent and the
# front end against the bound), then 8 x 100 MiB read as fast as possible, beside 8 gdbs.
#   bash bench/output.sh
# Knobs: BENCH_RANKS [8], BENCH_MB [800], BENCH_RATE [1 MiB/s], BENCH_SLOW_S [15],
#        BENCH_FAST_MIB [100], BENCH_PARTS ["slow fast"], GDB [gdb]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p cohort -p cohort-agentd
mkdir -p target/bench
cc -O2 -g -o target/bench/flood tests/fixtures/flood.c
echo "cohort $(git rev-parse --short HEAD), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 bench/output.py --n "${BENCH_RANKS:-8}" --mb "${BENCH_MB:-800}" --rate "${BENCH_RATE:-1}" \
    --slow "${BENCH_SLOW_S:-15}" --fast "${BENCH_FAST_MIB:-100}" --parts "${BENCH_PARTS:-slow fast}" \
    --gdb "${GDB:-gdb}"
