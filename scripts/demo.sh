#!/usr/bin/env bash
# Builds cohort and the bundled example, then debugs the example in batch mode.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cc >/dev/null || { echo "needs a C compiler: sudo apt-get install -y gcc" >&2; exit 1; }
cargo build --release -q -p cohort
mkdir -p target/examples
cc -g -O0 -pthread -o target/examples/demo examples/demo.c
exec target/release/cohort -batch \
    -ex 'break bump' \
    -ex 'run' \
    -ex 'bt' \
    -ex 'print counter' \
    -ex 'finish' \
    -ex 'info threads' \
    -ex 'info registers rip' \
    -ex 'x/3i $pc' \
    -ex 'delete 1' \
    -ex 'continue' \
    -ex 'print bad' \
    -ex 'info locals' \
    -ex 'info sharedlibrary' \
    target/examples/demo
