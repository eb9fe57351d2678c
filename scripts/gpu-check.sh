#!/usr/bin/env bash
# The on-GPU check of issue 6 (CUDA kernels through NVIDIA's debugger API), with cuda-gdb in
# batch mode as the oracle. Cohort's side is its CUDA layer alone: the CUDBG API of the
# driver's libcuda.so.1, no cuda-gdb. Three scenarios:
#
# 1. bitreverse: tests/cuda/bitreverse.cu (file-scope __shared__ array, <<<2,64>>>) built with
#    nvcc -g -G for this machine's GPU; tests/cuda/bitreverse.gdb under cuda-gdb and under
#    `cohort cuda -batch`: the stop at line 15, block/thread listings, focus on block (0,0,0)
#    thread (53,0,0), its index (53) and shared-memory element (53), the warp step, a clean exit.
# 2. fault: tests/cuda/fault.cu, where thread (37,0,0) of block (1,0,0) stores through a null
#    pointer; tests/cuda/fault.gdb: the device exception, reported with that thread in focus.
# 3. two ranks of bitreverse under `cohort launch -n 2` (an agent each, so two debugger
#    processes on one GPU): both stop at line 15, print thread (53,0,0)'s values, and end.
#
# Needs an NVIDIA GPU with its driver, and the CUDA toolkit (nvcc, cuda-gdb). Cohort's binaries
# come from COHORT_BIN_DIR (cohort, cohort-agentd, cohort-rankwrap built elsewhere: the GPU
# machine may have no Rust), else from a release build here. Outputs land in target/gpu-check/
# (transcripts, diffs, and with a failure a trace: COHORT_LOG=cohort_cuda=trace, the driver's
# ELF images). Exit status 0 when Cohort's answers are right.
set -uo pipefail
cd "$(dirname "$0")/.."
out=target/gpu-check
rm -rf "$out"
mkdir -p "$out/images"
images=$PWD/$out/images
export PATH="$PATH:/usr/local/cuda/bin"

missing=()
for tool in nvidia-smi nvcc cuda-gdb; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "gpu-check: missing ${missing[*]} (needs an NVIDIA GPU, its driver and the CUDA toolkit)" >&2
    exit 2
fi

if [ -n "${COHORT_BIN_DIR:-}" ]; then
    bin=$(cd "$COHORT_BIN_DIR" && pwd)
else
    cargo build --release -q -p cohort -p cohort-agentd || exit 2
    bin=$PWD/target/release
fi
cohort=$bin/cohort

# What the machine is, for the record.
{
    echo "date: $(date -u)"
    echo "kernel: $(uname -r)"
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
    nvcc --version | tail -2
    cuda-gdb --version | head -1
    ls -l /usr/lib/x86_64-linux-gnu/libcuda.so* /usr/lib/x86_64-linux-gnu/libcudadebugger.so* \
        /usr/local/nvidia/lib64/libcuda*.so* 2>/dev/null
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
# The header of the driver's debugger API that came with this toolkit.
find / -xdev -name cudadebugger.h 2>/dev/null | head -3 | while read -r h; do
    cp "$h" "$out/$(echo "$h" | tr / _)"
done

cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
for prog in bitreverse fault; do
    nvcc -g -G -arch="sm_$cap" -o "$out/$prog" "tests/cuda/$prog.cu" || exit 2
done
timeout 60 "$out/bitreverse" | tee "$out/plain.txt"

fail=0
check() { # FILE WHAT REGEX
    if grep -qE "$3" "$1"; then
        echo "ok    $2"
    else
        echo "FAIL  $2 (no line matching /$3/ in $1)"
        fail=1
    fi
}

# Run scenario NAME: the oracle, then Cohort; on a failure Cohort again with its trace.
oracle() { # NAME PROGRAM SCRIPT (GPU_CHECK_NO_ORACLE=1: skip)
    [ -n "${GPU_CHECK_NO_ORACLE:-}" ] && return
    (cd "$out" && timeout 60 cuda-gdb -q -nx -batch -x "../../$3" "./$2") \
        >"$out/$1.cuda-gdb.txt" 2>&1
    echo "cuda-gdb $1: exit $?"
}
cohort_run() { # NAME PROGRAM SCRIPT [ENV...]
    local name=$1 prog=$2 script=$3
    shift 3
    (cd "$out" && env COHORT_CUDA_SAVE_IMAGES="$images" "$@" timeout 45 "$cohort" cuda -batch -x "../../$script" "./$prog") \
        >"$out/$name.txt" 2>&1
    echo "cohort $name: exit $?"
}

oracle bitreverse bitreverse tests/cuda/bitreverse.gdb
cohort_run cohort bitreverse tests/cuda/bitreverse.gdb
diff -u "$out/bitreverse.cuda-gdb.txt" "$out/cohort.txt" >"$out/bitreverse.diff"
before=$fail
c=$out/cohort.txt
check "$c" "runs to completion" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
check "$c" "breakpoint at bitreverse.cu:15" 'hit Breakpoint 1, bitreverse<<<\(2,1,1\),\(64,1,1\)>>> .* at bitreverse.cu:15$'
check "$c" "focus on block (0,0,0) thread (53,0,0)" '^\[Switching focus to CUDA kernel 0, grid [0-9]+, block \(0,0,0\), thread \(53,0,0\), device 0, sm [0-9]+, warp [0-9]+, lane 21\]$'
check "$c" "its index" '^\$1 = 53$'
check "$c" "its shared-memory element" '^\$2 = 53$'
check "$c" "info cuda threads shows threads at line 15" '^\* +\(0,0,0\) +\(0,0,0\) .* bitreverse\.cu +15 $'
check "$c" "the program's own result" '^PASSED$'
if [ "$fail" != "$before" ]; then
    cohort_run cohort-trace bitreverse tests/cuda/bitreverse.gdb COHORT_LOG=cohort_cuda=trace
fi

oracle fault fault tests/cuda/fault.gdb
cohort_run cohort-fault fault tests/cuda/fault.gdb
diff -u "$out/fault.cuda-gdb.txt" "$out/cohort-fault.txt" >"$out/fault.diff"
before=$fail
c=$out/cohort-fault.txt
check "$c" "the exception" 'CUDA Exception: Warp Illegal Address'
# A warp exception: cuda-gdb focuses the warp's first lane, thread (32,0,0).
check "$c" "the faulting warp in focus" 'block \(1,0,0\), thread \((32|37),0,0\)'
check "$c" "its index" '^\$1 = (96|101)$'
check "$c" "the program ends" '^\[Inferior 1 \(process [0-9]+\) (exited|exited with code [0-9]+|killed)\]$|Program terminated'
if [ "$fail" != "$before" ]; then
    cohort_run cohort-fault-trace fault tests/cuda/fault.gdb COHORT_LOG=cohort_cuda=trace
fi

# Two ranks, an agent each, one GPU.
(cd "$out" && timeout 60 "$cohort" launch -n 2 -batch \
    -ex 'set breakpoint pending on' -ex 'break bitreverse.cu:15' -ex continue \
    -ex 'info cuda devices' -ex 'cuda kernel 0 block (0,0,0) thread (53,0,0)' \
    -ex 'print idx' -ex 'print sdata[idx]' -ex continue -ex delete -ex continue \
    -- ./bitreverse) >"$out/launch2.txt" 2>&1
echo "cohort launch -n 2: exit $?"
c=$out/launch2.txt
check "$c" "both ranks stop at line 15" '^\[(0-1|0|1)\] .*hit Breakpoint [0-9]+, bitreverse<<<'
check "$c" "both ranks print thread 53's index" '^\[(0-1|0|1)\] \$1 = 53$'
check "$c" "both ranks' programs pass" '^\[[01]\] PASSED$|^\[0-1\] PASSED$'

echo "transcripts and diffs: $out"
exit $fail
