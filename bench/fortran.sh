#!/usr/bin/env bash
# Fortran array printing, cohort next to gdb (issue 5; see docs/BENCHMARKS.md):
#
#   bash bench/fortran.sh
#
# A gfortran program (written below into target/bench/fbig.f90, built `gfortran -g -O0`)
# allocates `real(kind=8), allocatable :: a(:,:)` as 1000x1000, sets a(i,j) = i + 1000*(j-1)
# (all values distinct: no `<repeats>` folding) and stops at a breakpoint. Each tool runs
#   TOOL -nx -batch -ex 'break fbig.f90:11' -ex run -ex 'set print elements unlimited'
#        -ex 'set max-value-size unlimited' [-ex 'print a(1:1000:10, :)' | -ex 'print a']
#        --args target/bench/fbig  >FILE
# (output to a file by shell redirection), BENCH_REPS times each, alternating the work run
# with the baseline run (the same without the print). The figure is the median work time
# minus the median baseline time: the seconds the print itself takes. The ratio is
# cohort/gdb (target <= 0.2x). cohort's figure counts only when its `$1 = ...` line is
# byte-identical to gdb's.
#
# Knobs: see bench/lib.sh (BENCH_REPS, default 3 here: gdb needs about 30 s for the whole
# array on the 2-core machine; GDB, COHORT).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_REPS=${BENCH_REPS:-3}
source bench/lib.sh

command -v gfortran >/dev/null || {
    echo "bench: gfortran is missing (apt-get install gfortran)" >&2
    exit 1
}
build_cohort

FBIG=$OUT/fbig
cat >"$OUT/fbig.f90.new" <<'F90'
program fbig
  implicit none
  real(kind=8), allocatable :: a(:, :)
  integer :: i, j
  allocate(a(1000, 1000))
  do j = 1, 1000
     do i = 1, 1000
        a(i, j) = i + 1000 * (j - 1)
     end do
  end do
  i = 0
end program fbig
F90
if ! cmp -s "$OUT/fbig.f90.new" "$OUT/fbig.f90" 2>/dev/null || [ ! -x "$FBIG" ]; then
    mv "$OUT/fbig.f90.new" "$OUT/fbig.f90"
    (cd "$OUT" && gfortran -g -O0 -o fbig fbig.f90)
else
    rm -f "$OUT/fbig.f90.new"
fi

PRE=(-batch -ex 'break fbig.f90:11' -ex run -ex 'set print elements unlimited' -ex 'set max-value-size unlimited')

# The printed value: the `$1 = ` line.
value() { grep -m1 '^\$1 = ' "$1" || true; }

# bench_print NAME EXPR: one row.
bench_print() {
    local name=$1 expr=$2 tool
    echo "== $name: print $expr ($REPS runs per tool, alternating with the baseline)" >&2
    declare -A SEC
    for tool in gdb cohort; do
        tool_cmd $tool
        if [ ${#T[@]} -eq 0 ]; then
            SEC[$tool]=n/a
            continue
        fi
        local log=$L/$tool-fortran-$name.txt base=$L/$tool-fortran-$name-base.txt
        echo "   $tool:" >&2
        measure "$tool $name" 1 "$log" "$base" -- "${T[@]}" "${PRE[@]}" --args "$FBIG" \
            -- "${T[@]}" "${PRE[@]}" -ex "print $expr" --args "$FBIG"
        SEC[$tool]=$DELTA
    done
    local g=$L/gdb-fortran-$name.txt c=$L/cohort-fortran-$name.txt
    if [ -z "$(value "$g")" ]; then
        warn "gdb $name: no value printed; see $g"
        SEC[gdb]=FAIL
    fi
    if [ "${SEC[cohort]}" != n/a ] && [ "$(value "$c")" != "$(value "$g")" ]; then
        warn "cohort $name: its value differs from gdb's (or is missing): cmp $g $c"
        SEC[cohort]=$(failed "$c" "${SEC[cohort]}")
    fi
    row "print $expr to a file, 1000x1000 real(8) allocatable" "s" "${SEC[gdb]}" "${SEC[cohort]}" cost
}

bench_print section 'a(1:1000:10, :)'
bench_print whole 'a'

report "Fortran array printing (issue 5 target: cohort <= 0.2x gdb)" "bash bench/fortran.sh"
