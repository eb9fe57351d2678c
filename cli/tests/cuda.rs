//! `cohort cuda` (an alias of `cohort --cuda-library LIB --args PROGRAM`): the GPU check's
//! command script (`tests/cuda/bitreverse.gdb`) in batch mode
//! against the CUDBG test double of the driver (cuda-backend's `testing`; see docs/CUDA.md).
//! The double scripts the device; the command line, the engine and the CUDA layer are real.

use std::process::Command;

#[test]
fn cuda_batch_script_against_the_double() {
    let f = cohort_cuda::testing::build_double("cli").expect("build the double");
    let script = cohort_cuda::testing::cuda_sources().join("bitreverse.gdb");
    let out = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .arg("cuda")
        .arg("--library")
        .arg(&f.library)
        .args(["-batch", "-x"])
        .arg(&script)
        .arg("--args")
        .arg(&f.debuggee)
        .args(f.args())
        .envs(f.env())
        .output()
        .expect("run cohort cuda");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // gdb's message before it makes the breakpoint pending (the script sets pending on).
    assert_eq!(stderr, "No source file named bitreverse.cu.\n");
    let pid = stdout
        .rsplit_once("(process ")
        .and_then(|(_, r)| r.split_once(')'))
        .map(|(p, _)| p.to_string())
        .unwrap_or_default();
    let stdout = stdout.replace(&format!("(process {pid}) "), "(process N) ");
    let line15 = "15\t    unsigned int v = sdata[idx];\n";
    let expected = format!(
        "Breakpoint 1 (bitreverse.cu:15) pending.\n\
         [Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (0,0,0), device 0, sm 0, warp 0, lane 0]\n\
         \n\
         CUDA thread hit Breakpoint 1, bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:15\n\
         {line15}\
         \x20 Dev PCI Bus/Dev ID              Name Description SM Type SMs Warps/SM Lanes/Warp Max Regs/Lane Active SMs Mask \n\
         *   0        45:00.0 CUDBG test double       GH100   sm_90   4       64         32           255            0x01 \n\
         \x20 Kernel Parent Dev Grid Status SMs Mask GridDim BlockDim Invocation                      \n\
         *      0      -   0    1 Active     0x01 (2,1,1) (64,1,1) bitreverse(data=0x7fffce000000) \n\
         \x20 BlockIdx To BlockIdx Count   State \n\
         Kernel 0\n\
         *  (0,0,0)     (0,0,0)     1 running \n\
         \x20 BlockIdx ThreadIdx To BlockIdx ThreadIdx Count                 PC      Filename  Line \n\
         Kernel 0\n\
         *  (0,0,0)   (0,0,0)     (0,0,0)  (63,0,0)    64 0x0000000000000510 bitreverse.cu    15 \n\
         [Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (53,0,0), device 0, sm 0, warp 1, lane 21]\n\
         {line15}\
         $1 = 53\n\
         $2 = 4149\n\
         #0  bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:15\n\
         device 0, sm 0, warp 1, lane 21\n\
         0x0000000000000520\t{line15}\
         16\t    v = ((0xf0f0f0f0 & v) >> 4) | ((0x0f0f0f0f & v) << 4);\n\
         \x20 BlockIdx ThreadIdx To BlockIdx ThreadIdx Count                 PC      Filename  Line \n\
         Kernel 0\n\
         \x20  (0,0,0)   (0,0,0)     (0,0,0)  (31,0,0)    32 0x0000000000000510 bitreverse.cu    15 \n\
         *  (0,0,0)  (32,0,0)     (0,0,0)  (63,0,0)    32 0x0000000000000630 bitreverse.cu    16 \n\
         [Switching focus to CUDA kernel 0, grid 1, block (1,0,0), thread (0,0,0), device 0, sm 1, warp 0, lane 0]\n\
         \n\
         CUDA thread hit Breakpoint 1, bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:15\n\
         {line15}\
         kernel 0, block (1,0,0), thread (0,0,0)\n\
         $3 = 0\n\
         $4 = 4160\n\
         PASSED (SIGURG handled 1 time)\n\
         [Inferior 1 (process N) exited normally]\n"
    );
    assert_eq!(stdout, expected);
}

#[test]
fn cuda_errors_are_messages() {
    let out = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["cuda", "-batch"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "usage: cohort cuda [--library LIBCUDA] [-batch] [-ex CMD]... [-x FILE] [--args] PROGRAM [ARGS...]\n"
    );
    // A program that never initialises CUDA runs as under gdb: the API is not even loaded.
    let out = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args([
            "cuda",
            "-batch",
            "--library",
            "/nonexistent/libcuda.so.1",
            "-ex",
            "run",
            "-ex",
            "info cuda devices",
            "/bin/true",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("[Inferior 1 (process ")
            && stdout.ends_with(") exited normally]\nNo CUDA devices.\n"),
        "{stdout}"
    );
}
