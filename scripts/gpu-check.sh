#!/usr/bin/env bash
# The on-GPU check of issue 6 (CUDA kernels through NVIDIA's debugger API): builds
# tests/cuda/bitreverse.cu with nvcc -G for this machine's GPU, runs the command script
# tests/cuda/bitreverse.gdb under cuda-gdb (the oracle) and under `cohort cuda -batch` (the gdb front end)
# (Cohort's CUDA layer: the CUDBG API of the driver's libcuda.so.1, no cuda-gdb), and
# compares what matters: the stop at line 15, block/thread listings, focus on block (0,0,0)
# thread (53,0,0), its index (53) and shared-memory element (53), the warp step, a clean exit.
#
# Needs an NVIDIA GPU with its driver, and the CUDA toolkit (nvcc, cuda-gdb) on PATH.
# Outputs land in target/gpu-check/. Exit status 0 when Cohort's answers are right.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/gpu-check
mkdir -p "$out"

missing=()
for tool in nvidia-smi nvcc cuda-gdb; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "gpu-check: missing ${missing[*]} (needs an NVIDIA GPU, its driver and the CUDA toolkit)" >&2
    exit 2
fi

cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), sm_$cap"
nvcc -g -G -arch="sm_$cap" -o "$out/bitreverse" tests/cuda/bitreverse.cu
"$out/bitreverse" | tee "$out/plain.txt"
grep -qx PASSED "$out/plain.txt"

# The oracle.
cuda-gdb -q -nx -batch -x tests/cuda/bitreverse.gdb "$out/bitreverse" >"$out/cuda-gdb.txt" 2>&1 || true
# Cohort.
cargo build --release -q -p cohort
status=0
target/release/cohort cuda -batch -x tests/cuda/bitreverse.gdb "$out/bitreverse" \
    >"$out/cohort.txt" 2>&1 || status=$?
diff -u "$out/cuda-gdb.txt" "$out/cohort.txt" >"$out/diff.txt" || true

fail=0
check() {
    if grep -qE "$2" "$out/cohort.txt"; then
        echo "ok    $1"
    else
        echo "FAIL  $1 (no line matching /$2/ in $out/cohort.txt)"
        fail=1
    fi
}
check "runs to completion" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
check "breakpoint at bitreverse.cu:15" 'hit Breakpoint 1, bitreverse<<<\(2,1,1\),\(64,1,1\)>>> .* at bitreverse.cu:15$'
check "focus on block (0,0,0) thread (53,0,0)" '^\[Switching focus to CUDA kernel 0, grid [0-9]+, block \(0,0,0\), thread \(53,0,0\), device 0, sm [0-9]+, warp [0-9]+, lane 21\]$'
check "its index" '^\$1 = 53$'
check "its shared-memory element" '^\$2 = 53$'
check "info cuda threads shows threads at line 15" '^\* +\(0,0,0\) +\(0,0,0\) .* bitreverse\.cu +15 $'
check "the warp step" '^0x[0-9a-f]{16}$'
echo "cohort cuda exit status: $status; transcripts: $out/cuda-gdb.txt $out/cohort.txt; diff: $out/diff.txt"
exit $fail
