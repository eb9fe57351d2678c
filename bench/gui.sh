#!/usr/bin/env bash
# The window at scale (issue 19, docs/BENCHMARKS.md "The window"): N real ranks of
# tests/fixtures/ranks.c under A agents stopped at a breakpoint, K `next`s of every rank from
# the window's toolbar (click → the batch bringing every rank's new place, the model's update,
# the whole window drawn with tiny-skia), then every rank's locals (asked at each stop); then
# the rank grid alone drawn at 10,000 ranks, and each pane scrolled at 10,000 ranks.
#
#   bash bench/gui.sh [N [A [K]]]      # defaults: 1024 ranks, 16 agents, 5 nexts
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1024}
A=${2:-16}
K=${3:-5}
D=target/bench/gui
mkdir -p "$D"
cc -g -O0 -o "$D/ranks" tests/fixtures/ranks.c
cargo build --release -p cohort-agentd
# The session finds cohort-agentd on PATH (the example is not next to it).
PATH="$PWD/target/release:$PATH" cargo run --release -p cohort-gui --example step_latency -- "$N" "$A" "$K" "$PWD/$D/ranks"
# Scrolling each pane at 10,000 ranks (a window fed as such a job feeds it: 100,000 lines of
# output, every rank's locals, a 5,000-line source): each notch of the wheel, the frame as
# iced's tiny-skia compositor draws it.
cargo run --release -p cohort-gui --example scroll -- 10000 5000 30
