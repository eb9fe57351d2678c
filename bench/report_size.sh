#!/usr/bin/env bash
# The offline report at scale (issue 20: "readable at 10,000 ranks, at most 5 MB"): N ranks of
# bench/fixtures/ploop.c (a loop that never ends) under A agents, one stop at the loop line
# with `--evaluate rank` (a value different on every rank), then the hang the report finds.
# Prints the wall time and the sizes of the HTML and JSON reports.
#
#   bash bench/report_size.sh [N] [A]      (default 10000 100)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000}
A=${2:-100}
D=target/bench/report
mkdir -p "$D"
cargo build --release -q -p cohort -p cohort-agentd
cc -g -O0 -o "$D/ploop" bench/fixtures/ploop.c
LINE=$(grep -n LOOP_LINE bench/fixtures/ploop.c | head -n 1 | cut -d: -f1)
t0=$(date +%s.%N)
target/release/cohort offline -n "$N" --agents "$A" --fanout 32,8 --settle 5000 --timeout 600000 \
    --break "ploop.c:$LINE" --evaluate rank --max-stops 2 \
    -o "$D/report-$N.html" --json "$D/report-$N.json" -- "$D/ploop" >"$D/offline-$N.log" 2>&1
t1=$(date +%s.%N)
html=$(stat -c %s "$D/report-$N.html")
json=$(stat -c %s "$D/report-$N.json")
echo "ranks $N, agents $A: $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s; HTML $html bytes ($(awk "BEGIN { printf \"%.2f\", $html / 1048576 }") MiB), JSON $json bytes"
python3 - "$D/report-$N.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("summary:", *r["summary"], sep="\n  ")
PY
