#!/usr/bin/env bash
# C++ benchmarks of cohort next to gdb (issue 17; see docs/BENCHMARKS.md):
#
#   bash bench/cxx.sh
#
# 1. Start-up on a C++ program with over 100 MB of DWARF (bench/gen_cxx_large.py: templates
#    and the standard library's containers): `break LOC`, `run`, `bt`, `info locals`, `quit`,
#    median wall time and peak resident memory of BENCH_REPS runs per tool (targets: cohort at
#    most 0.5x gdb's time and memory).
# 2. `print big` of a std::vector<double> of 1,000,000 elements against `print small` of 200,
#    20 times each in one session, minus a session without the prints: printing stops at the
#    200 elements `print elements` shows, so the two should cost the same (the target).
#
# Knobs: see bench/lib.sh (BENCH_REPS, GDB, COHORT); CXX_FILES, CXX_SETS (generator size).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
[ -x /usr/bin/time ] || {
    echo "bench: /usr/bin/time is missing (Debian package \`time\`: apt-get install time)" >&2
    exit 1
}

build_cohort

CXX_FILES=${CXX_FILES:-24}
CXX_SETS=${CXX_SETS:-60}
CXXL=$OUT/cxx_large
if [ ! "$CXXL" -nt bench/gen_cxx_large.py ]; then
    echo "== generating and compiling the large C++ program ($CXX_FILES units x $CXX_SETS template sets)" >&2
    rm -rf "$OUT/cxx-src"
    python3 bench/gen_cxx_large.py "$OUT/cxx-src" --files "$CXX_FILES" --sets-per-file "$CXX_SETS"
    ls "$OUT"/cxx-src/*.cc | xargs -P "$(nproc)" -I{} sh -c 'g++ -g -O0 -c -o "${1%.cc}.o" "$1"' _ {}
    g++ -o "$CXXL.tmp" "$OUT"/cxx-src/*.o
    mv "$CXXL.tmp" "$CXXL"
fi
dwarf_mb=$(size -A "$CXXL" | awk '/^\.debug_/ { s += $2 } END { printf "%.1f", s / 1048576 }')
echo "== $CXXL: $dwarf_mb MB of DWARF (.debug_* sections)" >&2

bench_case "cxx-large-main ($dwarf_mb MB DWARF)" "$CXXL" main
bench_case "cxx-large-deep ($dwarf_mb MB DWARF)" "$CXXL" deep_leaf

# 2. print of a large vector.
declare -A VB VS
VEC=$OUT/bigvec
[ "$VEC" -nt bench/fixtures/bigvec.cc ] || g++ -g -O0 -o "$VEC" bench/fixtures/bigvec.cc
line=$(grep -n 'stop here' bench/fixtures/bigvec.cc | cut -d: -f1)
prints() {
    local what=$1 i args=()
    for ((i = 0; i < 20; i++)); do args+=(-ex "print $what"); done
    printf '%s\n' "${args[@]}"
}
for tool in gdb cohort; do
    tool_cmd $tool
    [ ${#T[@]} -gt 0 ] || continue
    declare -a base_t=() big_t=() small_t=()
    mapfile -t big_args < <(prints big)
    mapfile -t small_args < <(prints small)
    for ((i = 0; i < REPS; i++)); do
        start=("${T[@]}" -batch -ex "break $line" -ex run)
        base_t+=("$(timed "$L/$tool-vec-base.txt" "${start[@]}" -ex kill --args "$VEC")")
        big_t+=("$(timed "$L/$tool-vec-big.txt" "${start[@]}" "${big_args[@]}" -ex kill --args "$VEC")")
        small_t+=("$(timed "$L/$tool-vec-small.txt" "${start[@]}" "${small_args[@]}" -ex kill --args "$VEC")")
    done
    b=$(median "${base_t[@]}")
    VB[$tool]=$(awk -v w="$(median "${big_t[@]}")" -v b="$b" 'BEGIN { printf "%.4f", (w - b) / 20 }')
    VS[$tool]=$(awk -v w="$(median "${small_t[@]}")" -v b="$b" 'BEGIN { printf "%.4f", (w - b) / 20 }')
    echo "   $tool: print big ${VB[$tool]}s, print small ${VS[$tool]}s (per print)" >&2
    if ! grep -q '^\$20 = std::vector of length 1000000, capacity 1000000 = {0, 0.5, 1' "$L/$tool-vec-big.txt"; then
        warn "$tool: unexpected print big output; see $L/$tool-vec-big.txt"
    fi
done
row "print big: std::vector<double> of 1,000,000 (200 shown), per print" "s" "${VB[gdb]:-n/a}" "${VB[cohort]:-n/a}"
row "print small: std::vector<double> of 200, per print" "s" "${VS[gdb]:-n/a}" "${VS[cohort]:-n/a}"
row "cohort: print big / print small (target <= 1x)" "x" "-" \
    "$(awk -v a="${VB[cohort]:-0}" -v b="${VS[cohort]:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')"

report "C++: median of $REPS runs each; ratio = cohort/gdb (lower is better, target <= 0.5x for start-up)" \
    "bash bench/cxx.sh"
