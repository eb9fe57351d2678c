# Shared helpers for the source-level benchmarks (bench/source.sh, bench/next.sh,
# bench/cond.sh). Sourced, not run. Expects to be sourced from the repository root.
#
# Environment knobs common to all of them (defaults in brackets):
#   BENCH_REPS      repetitions of every timed command; the median is used  [5]
#   GDB             the gdb binary                                          [gdb]
#   COHORT          the cohort binary; when unset, `cargo build --release -p cohort` is run
#                   and target/release/cohort is used                      [unset]

REPS=${BENCH_REPS:-5}
GDB=${GDB:-gdb}
OUT=target/bench
L=$OUT/logs
mkdir -p "$L"

# No network look-ups and no init files for gdb; cohort accepts and ignores -nx.
unset DEBUGINFOD_URLS
GDB_CMD=("$GDB" -nx)

bench_start=$(date +%s.%N)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# build_cohort: sets COHORT_CMD, or leaves it empty (and warns) when cohort cannot be built.
COHORT_CMD=()
build_cohort() {
    if [ -n "${COHORT:-}" ]; then
        COHORT_CMD=("$COHORT" -nx)
        return
    fi
    echo "== building cohort (release)" >&2
    if cargo build --release -q -p cohort >"$L/cohort-build.txt" 2>&1; then
        COHORT_CMD=(target/release/cohort -nx)
    else
        warn "cohort does not build; see $L/cohort-build.txt"
    fi
}

# tool_cmd TOOL: sets T to the command array of gdb or cohort.
tool_cmd() {
    if [ "$1" = gdb ]; then T=("${GDB_CMD[@]}"); else T=("${COHORT_CMD[@]}"); fi
}

# ------------------------------------------------------------------ fixtures

# build_loop: target/bench/loop from bench/fixtures/loop.c.
build_loop() {
    LOOP=$OUT/loop
    if [ ! "$LOOP" -nt bench/fixtures/loop.c ]; then
        cc -g -O0 -o "$LOOP" bench/fixtures/loop.c
    fi
}

# build_large: the generated program (bench/gen_large.py) as target/bench/large.
build_large() {
    LARGE=$OUT/large
    if [ ! "$LARGE" -nt bench/gen_large.py ]; then
        echo "== generating and compiling the large program (bench/gen_large.py)" >&2
        rm -rf "$OUT/large-src"
        python3 bench/gen_large.py "$OUT/large-src" >&2
        cc -g -O0 -o "$LARGE.tmp" "$OUT"/large-src/*.c
        mv "$LARGE.tmp" "$LARGE"
    fi
}

# build_sqlite: the sqlite3 amalgamation bundled by the crate libsqlite3-sys (fetched with
# `cargo vendor` from crates.io into target/bench/sqlite/vendor, once) and the driver
# bench/fixtures/sqlite_main.c, as target/bench/sqlite_bench.
SQLITE_CRATE=libsqlite3-sys
SQLITE_CRATE_VERSION=0.39.1
build_sqlite() {
    SQLITE=$OUT/sqlite_bench
    local dir=$OUT/sqlite
    local src=$dir/vendor/$SQLITE_CRATE-$SQLITE_CRATE_VERSION/sqlite3
    if [ ! -f "$src/sqlite3.c" ]; then
        echo "== fetching $SQLITE_CRATE $SQLITE_CRATE_VERSION (sqlite3 amalgamation) with cargo vendor" >&2
        mkdir -p "$dir/fetch/src"
        cat >"$dir/fetch/Cargo.toml" <<EOF
[package]
name = "sqlite-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
$SQLITE_CRATE = { version = "=$SQLITE_CRATE_VERSION", default-features = false }
EOF
        : >"$dir/fetch/src/lib.rs"
        (cd "$dir/fetch" && cargo vendor -q --versioned-dirs ../vendor >/dev/null)
    fi
    if [ ! "$SQLITE" -nt bench/fixtures/sqlite_main.c ] || [ ! "$SQLITE" -nt "$src/sqlite3.c" ]; then
        echo "== compiling sqlite3 ($(wc -l <"$src/sqlite3.c") lines) with cc -g -O0" >&2
        cc -g -O0 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I"$src" \
            -o "$SQLITE.tmp" bench/fixtures/sqlite_main.c "$src/sqlite3.c" -lm
        mv "$SQLITE.tmp" "$SQLITE"
    fi
}

# ------------------------------------------------------------------ timing

# timed LOG CMD...: run CMD with stdout+stderr to LOG (or /dev/null), print wall seconds. A failing exit
# status is recorded in LOG.rc rather than aborting the benchmark.
timed() {
    local log=$1
    shift
    local s e rc=0
    s=$(date +%s.%N)
    "$@" >"$log" 2>&1 </dev/null || rc=$?
    e=$(date +%s.%N)
    [ "$log" = /dev/null ] || echo "$rc" >"$log.rc"
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }'
}

# timed_mem LOG CMD...: run CMD under `/usr/bin/time -f '%e %M'`, output to LOG; prints
# "SECONDS KIB" (wall time, peak resident set of the tool and its waited-for children).
timed_mem() {
    local log=$1
    shift
    local rc=0
    /usr/bin/time -f '%e %M' -o "$log.time" "$@" >"$log" 2>&1 </dev/null || rc=$?
    echo "$rc" >"$log.rc"
    tail -n 1 "$log.time"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure NAME WORK LOG_WORK LOG_BASE -- BASE_CMD... -- WORK_CMD...
# Alternates baseline and work runs REPS times; sets RATE (WORK per second, or empty when
# the difference is not positive), DELTA (seconds), BASE and WORKT (median seconds).
measure() {
    local name=$1 work=$2 log_w=$3 log_b=$4
    shift 4
    [ "$1" = -- ] && shift
    local base=() cmd=()
    while [ "$1" != -- ]; do
        base+=("$1")
        shift
    done
    shift
    cmd=("$@")
    local tb=() tw=() i
    for ((i = 0; i < REPS; i++)); do
        tb+=("$(timed "$log_b" "${base[@]}")")
        tw+=("$(timed "$log_w" "${cmd[@]}")")
    done
    BASE=$(median "${tb[@]}")
    WORKT=$(median "${tw[@]}")
    DELTA=$(awk -v a="$WORKT" -v b="$BASE" 'BEGIN { printf "%.4f", a - b }')
    RATE=$(awk -v d="$DELTA" -v w="$work" 'BEGIN { if (d > 0) printf "%.3f", w / d }')
    printf '   %-28s base %.3fs  work %.3fs  delta %ss\n' "$name" "$BASE" "$WORKT" "$DELTA" >&2
}

count() { grep -c -- "$1" "$2" || true; }

# ------------------------------------------------------------------ start-up cases

# The part of a run's output that must agree: from the first frame line on, without the
# "kill the program?" chatter of `quit`.
section() {
    sed -n '/^#0 /,$p' "$1" | grep -v -E '^(A debugging session is active|	Inferior 1 \[process|Quit anyway\?|$)' || true
}
frames() { section "$1" | grep -c '^#[0-9]' || true; }
# Names of the locals (`name = value` lines that are not inside a frame line).
local_names() { section "$1" | grep -v '^#' | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\) = .*/\1/p'; }

# case NAME BIN LOC
bench_case() {
    local name=$1 bin=$2 loc=$3 tool i
    echo "== $name: break $loc, run, bt, info locals, quit ($REPS runs per tool)" >&2
    declare -A SEC MEM
    for tool in gdb cohort; do
        tool_cmd $tool
        if [ ${#T[@]} -eq 0 ]; then
            SEC[$tool]=n/a
            MEM[$tool]=n/a
            continue
        fi
        local log=$L/$tool-source-$name.txt secs=() kibs=() r
        for ((i = 0; i < REPS; i++)); do
            r=$(timed_mem "$log" "${T[@]}" -batch -ex "break $loc" -ex run -ex bt -ex 'info locals' -ex quit --args "$bin")
            secs+=("${r% *}")
            kibs+=("${r#* }")
        done
        SEC[$tool]=$(median "${secs[@]}")
        MEM[$tool]=$(awk -v k="$(median "${kibs[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')
        printf '   %-8s %ss  %s MiB  (%s frames, %s locals)\n' "$tool" "${SEC[$tool]}" "${MEM[$tool]}" \
            "$(frames "$log")" "$(local_names "$log" | wc -l)" >&2
    done
    local g=$L/gdb-source-$name.txt c=$L/cohort-source-$name.txt
    if [ "$(frames "$g")" -lt 1 ] || [ "$(local_names "$g" | wc -l)" -lt 1 ]; then
        warn "gdb $name: no backtrace or no locals; see $g"
        SEC[gdb]=FAIL
        MEM[gdb]=FAIL
    fi
    # cohort's figures count only when it printed the same frames and the same local names as
    # gdb (values may differ: the two tools give the program different environments, so stack
    # contents of uninitialized locals differ).
    if [ "${SEC[cohort]}" != n/a ]; then
        if [ "$(frames "$c")" != "$(frames "$g")" ] || [ "$(local_names "$c")" != "$(local_names "$g")" ]; then
            warn "cohort $name: frames or local names differ from gdb's: diff $g $c"
            SEC[cohort]=$(failed "$c" "${SEC[cohort]}")
            MEM[cohort]=$(failed "$c" "${MEM[cohort]}")
        elif [ "$(section "$c")" != "$(section "$g")" ]; then
            echo "   note: cohort $name: same frames and locals, some text differs: diff $g $c" >&2
        fi
    fi
    row "$name: break $loc; run; bt; info locals; time" "s" "${SEC[gdb]}" "${SEC[cohort]}"
    row "$name: break $loc; run; bt; info locals; peak RSS" "MiB" "${MEM[gdb]}" "${MEM[cohort]}"
}

# ------------------------------------------------------------------ report

ROWS=()
WARNINGS=()
# row METRIC UNIT GDB_VALUE COHORT_VALUE RATIO_KIND: RATIO_KIND is `rate` (higher is better,
# ratio cohort/gdb) or `cost` (lower is better, ratio cohort/gdb too: the targets read
# "cohort <= 0.5x gdb").
row() {
    local ratio=-
    if [[ $3 =~ ^[0-9.]+$ && $4 =~ ^[0-9.]+$ ]]; then
        ratio=$(awk -v g="$3" -v c="$4" 'BEGIN { if (g > 0) printf "%.2fx", c / g; else print "-" }')
    fi
    ROWS+=("$(printf '| %-72s | %12s | %12s | %8s |' "$1 ($2)" "$3" "$4" "$ratio")")
}
warn() {
    WARNINGS+=("$1")
    echo "WARNING: $1" >&2
}

# report TITLE REPRODUCE: the table and the environment it was measured in.
report() {
    local bench_end
    bench_end=$(date +%s.%N)
    echo
    echo "$1"
    echo "reproduce: $2"
    echo "cohort $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- cli engine dwarf || echo '+dirty') vs $("$GDB" --version | head -n 1)"
    echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(uname -sr), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "load average at start $load_start, at end $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews every figure)"
    echo
    printf '| %-72s | %12s | %12s | %8s |\n' "metric" "gdb" "cohort" "ratio"
    printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..74})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..10})"
    printf '%s\n' "${ROWS[@]}"
    local w
    for w in "${WARNINGS[@]+"${WARNINGS[@]}"}"; do
        printf '| %-72s | %s |\n' "WARNING" "$w"
    done
    echo
    awk -v s="$bench_start" -v e="$bench_end" 'BEGIN { printf "total %.0fs; logs in target/bench/logs\n", e - s }'
}

# failed LOG VALUE: what to show for cohort when its output failed the checks: `unsupported`
# when it rejected a command as unknown, else FAIL(VALUE) (the figure it would have had).
failed() {
    if grep -q -E '^Undefined (info )?command|^Function ".* if .*" not defined' "$1" 2>/dev/null; then
        echo unsupported
    else
        echo "FAIL($2)"
    fi
}
