#!/usr/bin/env bash
# A screenshot of the real window (cohort-gui, tiny-skia) under Xvfb: 4 ranks of the `ranks`
# fixture stopped at a breakpoint. Usage: scripts/gui-screenshot.sh OUT.png
# Needs xvfb and imagemagick (scripts/test.sh installs them) and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/gui-screenshot.png}
dir=$(mktemp -d)
gui= xvfb=
trap 'kill $gui $xvfb 2>/dev/null || true; rm -rf "$dir"' EXIT
cc -g -O0 -o "$dir/ranks" tests/fixtures/ranks.c
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x820x24 -nolisten tcp &
xvfb=$!
sleep 1
DISPLAY=$display target/release/cohort-gui -n 4 -ex 'break ranks.c:24' -ex 'continue' \
    -ex '[2] next' -- "$dir/ranks" &
gui=$!
sleep "${COHORT_GUI_WAIT:-6}"
# (Mouse clicks on the window are not needed: the session's commands ran from -ex.)
DISPLAY=$display import -window root "$out"
# SIGTERM ends the session (the ranks are killed) and the window with it.
kill "$gui"
wait "$gui" 2>/dev/null || true
kill "$xvfb" 2>/dev/null || true
wait "$xvfb" 2>/dev/null || true
echo "screenshot: $out"
