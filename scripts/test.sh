#!/usr/bin/env bash
# Installs what the tests need (when missing) and runs every test. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for tool in cc:gcc c++:g++ gfortran:gfortran flang-22:flang-22 gdb:gdb nm:binutils objdump:binutils clang:clang dwz:dwz ip:iproute2 sysctl:procps tmux:tmux; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || need+=("${tool#*:}")
done
# Python's pip installs NVRTC (below) for cuda-backend's cubin fixtures.
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
# libc's separate debug information: gdb (the oracle) and cohort both read it.
dpkg -s libc6-dbg >/dev/null 2>&1 || need+=(libc6-dbg)
# MPI and a resource manager for the multi-rank tests: Open MPI (mpirun, MPIR), MPICH (hydra,
# through cohort-rankwrap), Slurm (slurmctld + slurmd "nodes" on this host, srun with MPIR).
# libomp-22-dev: `flang-22 -fopenmp` links -lomp (tests/fortran/openmp_shared).
# xvfb and imagemagick: a screenshot of the real window (cohort-gui) on a virtual display.
# libc++-dev: a C++ case built against clang's standard library (tests/source/cxx_libcxx).
# chromium: the offline report read by a headless browser (cli/tests/parallel.rs).
for pkg in openmpi-bin libopenmpi-dev mpich libmpich-dev slurm-wlm libomp-22-dev xvfb imagemagick libc++-dev libc++abi-dev chromium; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi

# NVRTC (CUDA's run-time compiler, no GPU needed) builds the cubin fixtures of cuda-backend's
# tests; pinned, as the tests assert the exact addresses of its output.
python3 -c 'import importlib.metadata as m; assert m.version("nvidia-cuda-nvrtc-cu12") == "12.9.86"' 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages 'nvidia-cuda-nvrtc-cu12==12.9.86' \
    || python3 -m pip install --quiet 'nvidia-cuda-nvrtc-cu12==12.9.86'

# ptrace must be allowed between a process and its children (Yama scope 0 or 1).
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
if [ "$scope" -gt 1 ]; then
    echo "kernel.yama.ptrace_scope=$scope forbids tracing; run: sudo sysctl kernel.yama.ptrace_scope=1" >&2
    exit 1
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo build --workspace --release
# Tests drive real processes with ptrace; two at a time keeps a 2-core machine honest.
cargo test --workspace --release -- --test-threads=2
# The real window under Xvfb (tiny-skia): a screenshot, target/gui-screenshot.png.
bash scripts/gui-screenshot.sh target/gui-screenshot.png
