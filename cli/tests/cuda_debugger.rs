//! CUDA programs in the gdb-compatible front end (`cohort PROGRAM`) and in the agent tree
//! (`cohort launch`), against the CUDBG test double of NVIDIA's driver library (cuda-backend's
//! `testing`; see docs/CUDA.md). The double scripts the device; the command line, the agents,
//! the engine, the debugger and the CUDA layer are real, and so is the debuggee process.

use std::path::Path;
use std::process::{Command, Output};

use cohort_cuda::testing::{DoubleFixture, build_double, cuda_sources};

const LINE15: &str = "15\t    unsigned int v = sdata[idx];\n";

fn hit(block: u32, sm: u32) -> String {
    format!(
        "[Switching focus to CUDA kernel 0, grid 1, block ({block},0,0), thread (0,0,0), device 0, sm {sm}, warp 0, lane 0]\n\
         \n\
         CUDA thread hit Breakpoint 1, bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:15\n\
         {LINE15}"
    )
}

const DEVICES: &str = "  Dev PCI Bus/Dev ID              Name Description SM Type SMs Warps/SM Lanes/Warp Max Regs/Lane Active SMs Mask \n\
                       *   0        45:00.0 CUDBG test double       GH100   sm_90   4       64         32           255            0x01 \n";

/// A session of the launch tests: a pending breakpoint in the kernel, the stop there, the
/// devices and the ranks' states, then on to the end.
const KERNEL_BREAK: &[&str] = &[
    "set breakpoint pending on",
    "break bitreverse.cu:15",
    "continue",
    "info cuda devices",
    "info ranks",
    "delete",
    "continue",
];

/// `info ranks` of a rank stopped at the kernel's breakpoint.
const GPU_STOP: &str = "stopped on the GPU: 1 device sm_90, kernel 0 bitreverse<<<(2,1,1),(64,1,1)>>> at bitreverse.cu:15\n";

/// `s` with the host program's addresses (`argv=0x…`, `at 0x…: file /…` of a host breakpoint)
/// replaced by `ADDR` and process ids (`process N`) by `N`: they differ between systems and
/// runs. Device addresses (`at 0x510: file bitreverse.cu`) stay.
fn normalize(s: &str) -> String {
    let mut s = s.to_string();
    for (key, hex, with, before) in [
        ("argv=0x", true, "ADDR", ""),
        ("at 0x", true, "ADDR", ": file /"),
        ("process ", false, "N", ""),
    ] {
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find(key) {
            out.push_str(&rest[..i]);
            rest = &rest[i + key.len()..];
            let n = rest
                .chars()
                .take_while(|c| {
                    if hex {
                        c.is_ascii_hexdigit()
                    } else {
                        c.is_ascii_digit()
                    }
                })
                .count();
            if n > 0 && rest[n..].starts_with(before) {
                out.push_str(&key[..key.len() - if hex { 2 } else { 0 }]);
                out.push_str(with);
                rest = &rest[n..];
            } else {
                out.push_str(key);
            }
        }
        out.push_str(rest);
        s = out;
    }
    s
}

fn text(o: &Output) -> (String, String) {
    (
        normalize(&String::from_utf8_lossy(&o.stdout)),
        normalize(&String::from_utf8_lossy(&o.stderr)),
    )
}

fn cohort(f: &DoubleFixture, library: &Path, cmds: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.arg("-batch").arg("--cuda-library").arg(library);
    for x in cmds {
        c.args(["-ex", x]);
    }
    c.arg("--args")
        .arg(&f.debuggee)
        .args(f.args())
        .envs(f.env())
        .output()
        .expect("run cohort")
}

/// `cohort -batch --cuda-library DOUBLE -ex CMD... --args DEBUGGEE` with the double built
/// under `tag`: its standard output and error, normalized; it must exit with success.
fn session(tag: &str, cmds: &[&str]) -> (String, String) {
    let f = build_double(tag).expect("build the double");
    let o = cohort(&f, &f.library, cmds);
    assert!(o.status.success());
    text(&o)
}

#[test]
fn cuda_program_in_the_gdb_command_loop() {
    let (out, err) = session(
        "debugger",
        &[
            "info cuda devices",
            "cuda thread",
            "set breakpoint pending on",
            "break bitreverse.cu:15",
            "run",
            "info breakpoints",
            "info cuda devices",
            "info cuda kernels",
            "bt",
            "print idx",
            "cuda kernel 0 block (0,0,0) thread (53,0,0)",
            "cuda kernel block thread",
            "print idx",
            "print sdata[idx]",
            "info locals",
            "info args",
            "stepi",
            "next",
            "continue",
            "print idx",
            "delete 1",
            "break reversed",
            "continue",
            "print v",
            "print v + 1",
            "info cuda kernels",
            "delete",
            "continue",
            "info cuda devices",
        ],
    );
    let debuggee_c = cuda_sources().join("cudbg_debuggee.c");
    let expected = format!(
        "No CUDA devices.\n\
         Breakpoint 1 (bitreverse.cu:15) pending.\n\
         {hit0}\
         Num     Type           Disp Enb Address            What\n\
         1       breakpoint     keep y   0x0000000000000510 in bitreverse at bitreverse.cu:15\n\
         {DEVICES}\
         \x20 Kernel Parent Dev Grid Status SMs Mask GridDim BlockDim Invocation                      \n\
         *      0      -   0    1 Active     0x01 (2,1,1) (64,1,1) bitreverse(data=0x7fffce000000) \n\
         #0  bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:15\n\
         $1 = 0\n\
         [Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (53,0,0), device 0, sm 0, warp 1, lane 21]\n\
         {LINE15}\
         kernel 0, block (0,0,0), thread (53,0,0)\n\
         $2 = 53\n\
         $3 = 4149\n\
         idata = 0x7fffce000000\n\
         idx = 53\n\
         v = <optimized out>\n\
         data = 0x7fffce000000\n\
         0x0000000000000520\t{LINE15}\
         16\t    v = ((0xf0f0f0f0 & v) >> 4) | ((0x0f0f0f0f & v) << 4);\n\
         {hit1}\
         $4 = 0\n\
         Breakpoint 2 at ADDR: file {c}, line 23.\n\
         \n\
         Breakpoint 2, reversed (v=4096) at {c}:23\n\
         23\t    uint32_t r = 0;\n\
         $5 = 4096\n\
         $6 = 4097\n\
         No CUDA kernels.\n\
         PASSED (SIGURG handled 1 time)\n\
         [Inferior 1 (process N) exited normally]\n\
         No CUDA devices.\n",
        hit0 = hit(0, 0),
        hit1 = hit(1, 1),
        c = debuggee_c.display(),
    );
    assert_eq!(out, expected);
    assert_eq!(
        err,
        "Focus not set on any active CUDA kernel.\n\
         No source file named bitreverse.cu.\n"
    );
}

/// `cohort launch -n N [EXTRA] -batch -ex CMD... -- ./cudbg_debuggee LIBRARY` in the fixture's
/// folder, the API library named by `COHORT_CUDA_LIBRARY` (agentd's ranks have no command
/// line of their own). Returns the merged standard output without the launcher's own lines and
/// without the program's `PASSED` lines (their order between ranks is the processes'), those
/// lines sorted, and the standard error.
fn launch(
    f: &DoubleFixture,
    n: u32,
    extra: &[&str],
    cmds: &[&str],
) -> (String, Vec<String>, String) {
    let (out, passed, err, _) = launch_with_notes(f, n, extra, cmds);
    (out, passed, err)
}

/// `cohort launch -n N EXTRA -batch -ex CMD... -- PROGRAM LIBCUDA` in the fixture's folder,
/// with the double as the CUDA library.
fn run_launch(f: &DoubleFixture, program: &str, n: u32, extra: &[&str], cmds: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.arg("launch")
        .args(["-n", &n.to_string()])
        .args(extra)
        .arg("-batch");
    for x in cmds {
        c.args(["-ex", x]);
    }
    c.arg("--")
        .arg(program)
        .args(f.args())
        .envs(f.env())
        .env("COHORT_CUDA_LIBRARY", &f.library)
        .env("OMPI_MCA_btl", "self,vader")
        .current_dir(f.debuggee.parent().expect("fixture folder"))
        .output()
        .expect("run cohort launch")
}

/// [`launch`], and the front end's own lines (`cohort: …`, the tree line without its time).
fn launch_with_notes(
    f: &DoubleFixture,
    n: u32,
    extra: &[&str],
    cmds: &[&str],
) -> (String, Vec<String>, String, Vec<String>) {
    let o = run_launch(f, "./cudbg_debuggee", n, extra, cmds);
    let (out, err) = text(&o);
    let mut passed: Vec<String> = out
        .lines()
        .filter(|l| l.contains("] PASSED"))
        .map(String::from)
        .collect();
    passed.sort();
    let notes = out
        .lines()
        .filter(|l| l.starts_with("cohort: "))
        .map(|l| match l.split_once(", tree formed in ") {
            Some((head, _)) => head.to_string(),
            None => l.to_string(),
        })
        .collect();
    let out = out
        .lines()
        .filter(|l| !l.starts_with("cohort: ") && !l.contains("] PASSED"))
        .map(|l| format!("{l}\n"))
        .collect();
    (out, passed, err, notes)
}

/// The launcher's `start` on every rank of `set`.
fn started(set: &str) -> String {
    let c = cuda_sources().join("cudbg_debuggee.c");
    let c = c.display();
    format!(
        "[{set}] Temporary breakpoint 1 at ADDR: file {c}, line 32.\n\
         [{set}]\n\
         [{set}] Temporary breakpoint 1, main (argc=2, argv=ADDR) at {c}:32\n\
         [{set}] 32\t    if (argc < 2) {{\n"
    )
}

/// What the debuggee prints at its end on each of ranks 0..n when it ran to completion, its
/// own wake-up signal handled once (sorted as `launch` gives them).
fn passed_on(n: u32) -> Vec<String> {
    (0..n)
        .map(|r| format!("[{r}] PASSED (SIGURG handled 1 time)"))
        .collect()
}

/// The merged output is `expected`, ranks 0..n all ran to their end, and the only error is the
/// host's `break bitreverse.cu:15`, which becomes a device breakpoint.
fn assert_every_rank_ran(out: &str, passed: &[String], err: &str, expected: &str, n: u32) {
    assert_eq!(out, expected);
    assert_eq!(passed, passed_on(n));
    assert_eq!(
        err,
        format!("[0-{}] No source file named bitreverse.cu.\n", n - 1)
    );
}

fn prefixed(set: &str, text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                format!("[{set}]\n")
            } else {
                format!("[{set}] {l}\n")
            }
        })
        .collect()
}

#[test]
fn three_ranks_under_three_agents_merge_gpu_state() {
    let f = build_double("launch3").expect("build the double");
    let (out, passed, err) = launch(
        &f,
        3,
        &["--agents", "3", "--settle", "30000"],
        &[
            "set breakpoint pending on",
            "break bitreverse.cu:15",
            "info ranks",
            "continue",
            "info cuda devices",
            "print idx",
            "info ranks",
            "cuda kernel 0 block (0,0,0) thread (53,0,0)",
            "print idx",
            "print sdata[idx]",
            "continue",
            "info ranks",
            "delete",
            "break reversed",
            "continue",
            "info ranks",
            "delete",
            "continue",
            "info ranks",
        ],
    );
    let all = "0-2";
    let hit = |block, sm| hit(block, sm).replace("Breakpoint 1,", "Breakpoint 2,");
    let expected = [
        started(all),
        prefixed(all, "Breakpoint 2 (bitreverse.cu:15) pending.\n"),
        prefixed(
            all,
            &format!(
                "stopped in main at {}:32\n",
                cuda_sources().join("cudbg_debuggee.c").display()
            ),
        ),
        prefixed(all, &hit(0, 0)),
        prefixed(all, DEVICES),
        prefixed(all, "$1 = 0\n"),
        prefixed(
            all,
            GPU_STOP,
        ),
        prefixed(
            all,
            &format!("[Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (53,0,0), device 0, sm 0, warp 1, lane 21]\n{LINE15}"),
        ),
        prefixed(all, "$2 = 53\n$3 = 4149\n"),
        prefixed(all, &hit(1, 1)),
        prefixed(
            all,
            GPU_STOP,
        ),
        prefixed(
            all,
            &format!(
                "Breakpoint 3 at ADDR: file {c}, line 23.\n\
                 \n\
                 Breakpoint 3, reversed (v=4096) at {c}:23\n\
                 23\t    uint32_t r = 0;\n\
                 stopped in reversed at {c}:23; GPU: 1 device sm_90\n",
                c = cuda_sources().join("cudbg_debuggee.c").display()
            ),
        ),
        prefixed(all, "[Inferior 1 exited normally]\nexited normally\n"),
    ]
    .concat();
    assert_every_rank_ran(&out, &passed, &err, &expected, 3);
}

#[test]
fn one_agent_debugs_the_gpu_code_of_one_rank() {
    let f = build_double("launch1").expect("build the double");
    let (out, passed, err) = launch(&f, 2, &["--agents", "1"], KERNEL_BREAK);
    // The rank whose driver initialised first has the agent's CUDA session.
    let (w, l) = if out.contains("[0] [Switching focus") {
        ("0", "1")
    } else {
        ("1", "0")
    };
    let ordered = |a: String, b: String| if w == "0" { a + &b } else { b + &a };
    let hit = hit(0, 0).replace("Breakpoint 1,", "Breakpoint 2,");
    let expected = [
        started("0-1"),
        prefixed("0-1", "Breakpoint 2 (bitreverse.cu:15) pending.\n"),
        ordered(
            prefixed(w, &hit),
            prefixed(l, "[Inferior 1 exited normally]\n"),
        ),
        ordered(prefixed(w, DEVICES), prefixed(l, "No CUDA devices.\n")),
        ordered(prefixed(w, GPU_STOP), prefixed(l, "exited normally\n")),
        prefixed(w, "[Inferior 1 exited normally]\n"),
    ]
    .concat();
    assert_eq!(out, expected);
    assert_eq!(passed, passed_on(2));
    assert_eq!(
        err,
        format!(
            "[0-1] No source file named bitreverse.cu.\n\
             [{l}] warning: CUDA: the driver's debugger API of this process already debugs another program (one program per debugger process): the GPU code of this one is not debugged (give each CUDA rank its own agent: cohort launch --agents N)\n\
             [{l}] The program is not being run.\n"
        )
    );
}

#[test]
fn device_exception_in_the_gdb_command_loop() {
    let f = build_double("debugger-fault").expect("build the double");
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.arg("-batch").arg("--cuda-library").arg(&f.library);
    for x in [
        "run",
        "print idx",
        "print idata",
        "info cuda threads",
        "continue",
    ] {
        c.args(["-ex", x]);
    }
    // Thread 37 of block 1 faults at 0x750 (line 19, the store to global memory). Continuing
    // ends the program, as cuda-gdb ends it (seen on an H200: tests/cuda/hardware/fault.*).
    let o = c
        .arg("--args")
        .arg(&f.debuggee)
        .args(f.args())
        .envs(f.env())
        .env("COHORT_CUDBG_DOUBLE_FAULT", "1:37:750")
        .output()
        .expect("run cohort");
    let (out, err) = text(&o);
    assert_eq!(
        out,
        "\n\
         CUDA Exception: Warp Illegal Address\n\
         The exception was triggered at PC 0x750  bitreverse  (bitreverse.cu:19)\n\
         \n\
         Program received signal CUDA_EXCEPTION_14, Warp Illegal Address.\n\
         [Switching focus to CUDA kernel 0, grid 1, block (1,0,0), thread (37,0,0), device 0, sm 1, warp 1, lane 5]\n\
         bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:19\n\
         19\t    idata[idx] = v;\n\
         $1 = 37\n\
         $2 = (unsigned int * @generic) 0x7fffce000100\n\
         \x20 BlockIdx ThreadIdx To BlockIdx ThreadIdx Count                 PC      Filename  Line \n\
         Kernel 0\n\
         *  (1,0,0)  (32,0,0)     (1,0,0)  (63,0,0)    32 0x0000000000000750 bitreverse.cu    19 \n\
         \n\
         Program terminated with signal SIGKILL, Killed.\n\
         The program no longer exists.\n"
    );
    assert_eq!(err, "");
}

#[test]
fn a_missing_api_library_leaves_the_host_debuggable() {
    let f = build_double("debugger-nolib").expect("build the double");
    let o = cohort(
        &f,
        Path::new("/nonexistent/libcuda.so.1"),
        &[
            "break reversed",
            "run",
            "info cuda devices",
            "print v",
            "kill",
        ],
    );
    let (out, err) = text(&o);
    let c = cuda_sources().join("cudbg_debuggee.c");
    let c = c.display();
    assert_eq!(
        out,
        format!(
            "Breakpoint 1 at ADDR: file {c}, line 23.\n\
             \n\
             Breakpoint 1, reversed (v=4096) at {c}:23\n\
             23\t    uint32_t r = 0;\n\
             No CUDA devices.\n\
             $1 = 4096\n\
             Kill the program being debugged? (y or n) [answered Y; input not from terminal]\n\
             [Inferior 1 (process N) killed]\n"
        )
    );
    assert_eq!(
        err,
        "warning: CUDA: cannot load /nonexistent/libcuda.so.1: dlopen failed\n"
    );
}

/// cuda-gdb's two foci: `thread N` puts it on the host (host variables, host frames), `cuda
/// ...` back on a GPU thread. What `thread 1` prints (the host thread waits in the C library,
/// whose frames differ between systems and runs) is left out between the `@@@` markers.
#[test]
fn host_and_device_focus_switch_during_a_device_stop() {
    let (out, err) = session(
        "debugger-focus",
        &[
            "set breakpoint pending on",
            "break bitreverse.cu:15",
            "run",
            "print urgent",
            "echo @@@\\n",
            "thread 1",
            "echo @@@\\n",
            "print urgent",
            "print idx",
            "cuda thread",
            "info cuda kernels",
            "cuda block (0,0,0) thread (5,0,0)",
            "print idx",
            "cuda thread",
            "cuda device 0 sm 0 warp 1 lane 2",
            "cuda device sm warp lane",
            "print idx",
            "p/x idx",
            "p/z sdata[idx]",
            "p/o idx",
            "p/t idx",
            "p/d data",
            "print/x data",
            "p/c idx",
            "p/y idx",
            "cuda kernel 0 warp 1",
            "kill",
        ],
    );
    // `thread 1`'s complaint that the C library's source is missing goes to stderr.
    let err: String = err
        .lines()
        .filter(|l| !l.contains("../sysdeps/"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (before, rest) = out.split_once("@@@\n").expect("first marker");
    let (_, after) = rest.split_once("@@@\n").expect("second marker");
    assert_eq!(
        before,
        format!("Breakpoint 1 (bitreverse.cu:15) pending.\n{}", hit(0, 0))
    );
    assert_eq!(
        after,
        "$1 = 1\n\
         \x20 Kernel Parent Dev Grid Status SMs Mask GridDim BlockDim Invocation                      \n\
         *      0      -   0    1 Active     0x01 (2,1,1) (64,1,1) bitreverse(data=0x7fffce000000) \n\
         [Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (5,0,0), device 0, sm 0, warp 0, lane 5]\n\
         15\t    unsigned int v = sdata[idx];\n\
         $2 = 5\n\
         thread (5,0,0)\n\
         [Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (34,0,0), device 0, sm 0, warp 1, lane 2]\n\
         15\t    unsigned int v = sdata[idx];\n\
         device 0, sm 0, warp 1, lane 2\n\
         $3 = 34\n\
         $4 = 0x22\n\
         $5 = 0x00001022\n\
         $6 = 042\n\
         $7 = 100010\n\
         $8 = 140736649494528\n\
         $9 = 0x7fffce000000\n\
         Kill the program being debugged? (y or n) [answered Y; input not from terminal]\n\
         [Inferior 1 (process N) killed]\n"
    );
    assert_eq!(
        err,
        "No source file named bitreverse.cu.\n\
         No symbol \"urgent\" in current context.\n\
         No symbol \"idx\" in current context.\n\
         Focus not set on any active CUDA kernel.\n\
         Format letter \"c\" is not supported for GPU values.\n\
         Undefined output format \"y\".\n\
         Cannot mix logical and physical coordinates. CUDA focus unchanged.\n"
    );
}

/// A user breakpoint in the driver's initialisation (`cuInit`) stops there as any host
/// breakpoint, and the handshake is made all the same.
#[test]
fn a_user_breakpoint_in_cuinit_and_the_handshake() {
    let (out, err) = session(
        "debugger-cuinit",
        &[
            "set breakpoint pending on",
            "break cuInit",
            "break bitreverse.cu:15",
            "run",
            "info cuda kernels",
            "continue",
            "print idx",
            "kill",
        ],
    );
    let double_c = cuda_sources().join("cudbg_double.c");
    assert_eq!(
        out,
        format!(
            "Breakpoint 1 (cuInit) pending.\n\
             Breakpoint 2 (bitreverse.cu:15) pending.\n\
             \n\
             Breakpoint 1, cuInit (flags=0) at {c}:129\n\
             129\t    if (!cudbgIpcFlag)\n\
             No CUDA kernels.\n\
             {hit}\
             $1 = 0\n\
             Kill the program being debugged? (y or n) [answered Y; input not from terminal]\n\
             [Inferior 1 (process N) killed]\n",
            c = double_c.display(),
            hit = hit(0, 0).replace("Breakpoint 1,", "Breakpoint 2,"),
        )
    );
    assert_eq!(
        err,
        "Function \"cuInit\" not defined.\nNo source file named bitreverse.cu.\n"
    );
}

/// The program's own SIGURG (the signal the driver's wake-ups use) reaches it while a CUDA
/// session is open: `next` over `raise(SIGURG)` runs its handler and stops on the next line,
/// as gdb's default for SIGURG (nostop noprint pass).
#[test]
fn the_programs_own_wake_up_signal_is_passed_during_next() {
    let (out, err) = session(
        "debugger-sigurg",
        &[
            "break 54",
            "run",
            "print urgent",
            "next",
            "print urgent",
            "kill",
        ],
    );
    let c = cuda_sources().join("cudbg_debuggee.c");
    let c = c.display();
    assert_eq!(
        out,
        format!(
            "Breakpoint 1 at ADDR: file {c}, line 54.\n\
             \n\
             Breakpoint 1, main (argc=2, argv=ADDR) at {c}:54\n\
             54\t    raise(SIGURG);\n\
             $1 = 0\n\
             55\t    if (launch(\"bitreverse\", 2, 64, data, 128) != 0) {{\n\
             $2 = 1\n\
             Kill the program being debugged? (y or n) [answered Y; input not from terminal]\n\
             [Inferior 1 (process N) killed]\n"
        )
    );
    assert_eq!(err, "");
}

/// `break KERNEL` before the module is loaded (pending, then at the kernel's first line), and
/// `break FILE:LINE` / `break KERNEL` while it is loaded (device breakpoints at once).
#[test]
fn device_breakpoints_on_kernels_and_lines() {
    let (out, err) = session(
        "debugger-kernels",
        &[
            "set breakpoint pending on",
            "break bitreverse",
            "run",
            "info breakpoints",
            "break bitreverse.cu:19",
            "break scale",
            "info cuda threads",
            "continue",
            "print v",
            "kill",
        ],
    );
    assert_eq!(
        out,
        "Breakpoint 1 (bitreverse) pending.\n\
         [Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (0,0,0), device 0, sm 0, warp 0, lane 0]\n\
         \n\
         CUDA thread hit Breakpoint 1, bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:11\n\
         11\t    unsigned int *idata = data + blockIdx.x * N;\n\
         Num     Type           Disp Enb Address            What\n\
         1       breakpoint     keep y   0x00000000000000a0 in bitreverse at bitreverse.cu:11\n\
         Breakpoint 2 at 0x750: file bitreverse.cu, line 19.\n\
         Breakpoint 3 at 0xc40: file bitreverse.cu, line 25.\n\
         \x20 BlockIdx ThreadIdx To BlockIdx ThreadIdx Count                 PC      Filename  Line \n\
         Kernel 0\n\
         *  (0,0,0)   (0,0,0)     (0,0,0)  (63,0,0)    64 0x00000000000000a0 bitreverse.cu    11 \n\
         \n\
         CUDA thread hit Breakpoint 2, bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:19\n\
         19\t    idata[idx] = v;\n\
         $1 = 0\n\
         Kill the program being debugged? (y or n) [answered Y; input not from terminal]\n\
         [Inferior 1 (process N) killed]\n"
    );
    assert_eq!(err, "Function \"bitreverse\" not defined.\n");
}

#[test]
fn cuda_ranks_get_an_agent_each_by_default() {
    // Without --agents, a CUDA program's ranks each get an agent, so every rank's GPU code is
    // debugged (the driver's debugger API serves one debuggee per agent).
    let f = build_double("launch2").expect("build the double");
    let (out, passed, err, notes) = launch_with_notes(&f, 2, &["--settle", "30000"], KERNEL_BREAK);
    assert_eq!(
        notes,
        [
            "cohort: ./cudbg_debuggee uses CUDA: one agent per rank, so that each rank's GPU code is debugged",
            "cohort: 2 ranks under 2 agents"
        ]
    );
    let hit = hit(0, 0).replace("Breakpoint 1,", "Breakpoint 2,");
    let expected = [
        started("0-1"),
        prefixed("0-1", "Breakpoint 2 (bitreverse.cu:15) pending.\n"),
        prefixed("0-1", &hit),
        prefixed("0-1", DEVICES),
        prefixed("0-1", GPU_STOP),
        prefixed("0-1", "[Inferior 1 exited normally]\n"),
    ]
    .concat();
    assert_every_rank_ran(&out, &passed, &err, &expected, 2);
}

#[test]
fn open_mpi_cuda_ranks_get_an_agent_each() {
    // The same default under `--launcher openmpi`: the ranks, acquired from mpirun through
    // MPIR, get an agent each, and both have their GPU code debugged.
    let f = build_double("mpi").expect("build the double");
    let dir = f.debuggee.parent().expect("fixture folder");
    let st = Command::new("mpicc.openmpi")
        .args(["-g", "-O0", "-o", "cudbg_mpi"])
        .arg(cuda_sources().join("cudbg_mpi.c"))
        .arg("-ldl")
        .current_dir(dir)
        .status()
        .expect("Open MPI is installed by scripts/test.sh");
    assert!(st.success());
    let o = run_launch(
        &f,
        "./cudbg_mpi",
        2,
        &["--launcher", "openmpi", "--settle", "30000"],
        KERNEL_BREAK,
    );
    let (out, err) = text(&o);
    let notes: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("cohort: "))
        .map(|l| l.split(" (pid ").next().unwrap_or(l))
        .collect();
    assert_eq!(
        notes,
        [
            "cohort: ./cudbg_mpi uses CUDA: one agent per rank, so that each rank's GPU code is debugged",
            "cohort: 2 ranks of mpirun"
        ],
        "{out}\n{err}"
    );
    // From the breakpoint on (attaching prints where each rank was found, in MPI_Init).
    let from = out
        .find("[0-1] Breakpoint 1 (bitreverse.cu:15) pending.")
        .unwrap_or_else(|| panic!("{out}\n{err}"));
    let tail: String = out[from..]
        .lines()
        .filter(|l| !l.contains("(LWP ") && !l.starts_with("PASSED"))
        .map(|l| format!("{l}\n"))
        .collect();
    let expected = [
        prefixed("0-1", "Breakpoint 1 (bitreverse.cu:15) pending.\n"),
        prefixed("0-1", &hit(0, 0)),
        prefixed("0-1", DEVICES),
        prefixed("0-1", GPU_STOP),
        prefixed("0-1", "[Inferior 1 exited normally]\n"),
    ]
    .concat();
    assert_eq!(tail, expected, "{out}\n{err}");
    let passed = out.lines().filter(|l| l.starts_with("PASSED")).count();
    assert_eq!(passed, 2, "{out}");
    let err: Vec<&str> = err
        .lines()
        // Where attaching found the ranks (inside MPI_Init, in libc without its sources).
        .filter(|l| !l.ends_with(": No such file or directory."))
        .collect();
    assert_eq!(err, ["[0-1] No source file named bitreverse.cu."]);
}

/// nvcc gives each kernel a host stub whose line is the kernel's last (found on an H200:
/// `break bitreverse.cu:15` first resolves on the host at line 20, and cuda-gdb then stops
/// in the kernel at line 15, never in the stub). The driver's module has line 15 itself, so
/// the breakpoint moves there: the stub, which runs first, does not stop the program.
#[test]
fn a_kernel_line_the_host_stub_also_has() {
    let f = cohort_cuda::testing::build_double_with_stub("stub").expect("build the double");
    let o = cohort(
        &f,
        &f.library,
        &[
            "break bitreverse.cu:15",
            "info breakpoints",
            "run",
            "info breakpoints",
            "print idx",
            "delete",
            "continue",
        ],
    );
    assert!(o.status.success());
    let (out, err) = text(&o);
    // The stub's link-time address in the first `info breakpoints`.
    let out: String = out
        .lines()
        .map(|l| match l.split_once("   0x") {
            Some((head, rest)) if l.contains("__device_stub__") => {
                format!("{head}   ADDR{}\n", &rest[rest.find(' ').unwrap_or(0)..])
            }
            _ => format!("{l}\n"),
        })
        .collect();
    let dir = std::env::current_dir().unwrap();
    assert_eq!(
        out,
        format!(
            "Breakpoint 1 at ADDR: file {d}/bitreverse.cu, line 20.\n\
             Num     Type           Disp Enb Address            What\n\
             1       breakpoint     keep y   ADDR in __device_stub__bitreverse at {d}/bitreverse.cu:20\n\
             {}\
             Num     Type           Disp Enb Address            What\n\
             1       breakpoint     keep y   0x0000000000000510 in bitreverse at bitreverse.cu:15\n\
             $1 = 0\n\
             PASSED (SIGURG handled 1 time)\n\
             [Inferior 1 (process N) exited normally]\n",
            hit(0, 0),
            d = dir.display()
        )
    );
    assert_eq!(err, "");
}
