//! The CUDBG client and the CUDA session state, end to end against a real debuggee process
//! under the real engine: `tests/cuda/cudbg_debuggee.c` linked with `tests/cuda/cudbg_double.c`,
//! a test double of the driver side of NVIDIA's debugger API (a scripted device; see the
//! double's header comment and docs/CUDA.md). The kernel's cubin is the real NVRTC `-G` build
//! of `tests/cuda/bitreverse.cu`, so breakpoints, lines and variables come from real DWARF.

mod common;

use std::path::Path;
use std::process::Command;

use cohort_cuda::client::{Cudbg, Debuggee, WAKE_SIGNAL, take_pending};
use cohort_cuda::cubin::AddressClass;
use cohort_cuda::cudbg::CuDim3;
use cohort_cuda::state::{CudaState, Note};
use cohort_engine::session::{BpSpec, Event, Session};

use cohort_cuda::testing::DoubleFixture as Fixture;

/// The driver's debugger API is one per process (one callback, one session at a time), so
/// the tests that run a CUDA session take turns.
static ONE_SESSION: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_session() -> std::sync::MutexGuard<'static, ()> {
    ONE_SESSION.lock().unwrap_or_else(|e| e.into_inner())
}

fn fixture(tag: &str) -> Fixture {
    cohort_cuda::testing::build_double(tag).expect("build the CUDBG double fixture")
}

/// Start the debuggee under the engine and stop it at the driver's initialisation point.
fn start_at_cuinit(f: &Fixture) -> Session {
    let mut s = Session::new();
    s.load_program(&f.debuggee).unwrap();
    let mut env = cohort_engine::session::gdb_environment();
    env.push((
        "COHORT_CUDBG_DOUBLE_CUBIN".into(),
        f.cubin.clone().into_os_string(),
    ));
    s.env = Some(env);
    s.args = vec![f.library.clone().into_os_string()];
    cohort_cuda::client::prepare_signals(&mut s.signals).unwrap();
    s.add_breakpoint(
        BpSpec::SymbolExact(cohort_cuda::cudbg::SYM_INIT_POINT.into()),
        true,
    )
    .unwrap();
    s.start_process().unwrap();
    let ev = s.cont().unwrap();
    let at = s.symbols().lookup("cuInit").unwrap();
    assert!(
        matches!(ev, Event::Breakpoint { pc, .. } if pc == at),
        "not stopped at cuInit: {ev:?}"
    );
    s
}

/// Continue the host until the driver has something to say (the callback's wake signal),
/// then pump the events. Returns the notes, or None when the program exited (with its code).
fn run_until_cuda(s: &mut Session, cuda: &mut CudaState) -> Result<Vec<Note>, i32> {
    loop {
        match s.cont().unwrap() {
            Event::Signal { tid, signo, .. } if signo == WAKE_SIGNAL => {
                if !take_pending() {
                    // Not the driver's: the program's own, delivered on resume.
                    continue;
                }
                s.process_mut().unwrap().discard_signal(tid);
                let notes = cuda.handle_events().unwrap();
                if !notes.is_empty() {
                    return Ok(notes);
                }
            }
            Event::Exited { code, .. } => return Err(code),
            other => panic!("unexpected host event {other:?}"),
        }
    }
}

const LINE15: &str = "15\t    unsigned int v = sdata[idx];\n";

#[test]
fn handshake_events_focus_and_variables() {
    let _turn = one_session();
    let f = fixture("e2e");
    let mut s = start_at_cuinit(&f);
    let api = Cudbg::handshake(&mut s, Some(&f.library)).expect("handshake");
    assert_eq!(api.version().to_string(), "12.9.156");
    // One program per debugger process: a second handshake is refused while this one lives.
    assert!(matches!(
        Cudbg::handshake(&mut s, Some(&f.library)),
        Err(cohort_cuda::CudaError::Busy)
    ));
    // The debugger variables are in the debuggee now.
    let read32 = |s: &Session, name: &str| {
        let mut b = [0u8; 4];
        s.read_memory(s.symbols().lookup(name).unwrap(), &mut b)
            .unwrap();
        u32::from_le_bytes(b)
    };
    assert_eq!(read32(&s, "cudbgIpcFlag"), 1);
    assert_eq!(read32(&s, "cudbgApiClientPid"), std::process::id());
    assert_eq!(read32(&s, "cudbgApiClientRevision"), 156);
    assert_ne!(api.session_id(), 0);
    assert_eq!(read32(&s, "cudbgSessionId"), api.session_id());
    assert_eq!(read32(&s, "cudbgDebuggerCapabilities"), 0b1010);
    let mut cuda = CudaState::new(api);
    // Pending until the module loads.
    assert_eq!(
        cuda.add_breakpoint(2, "bitreverse.cu:15").unwrap(),
        [] as [u64; 0]
    );
    assert_eq!(cuda.info_kernels(), "No CUDA kernels.\n");
    // The devices are read at the first device stop.
    assert_eq!(cuda.summary(), "CUDA initialised");

    // The driver initialises: the ELF image of the module.
    let notes = run_until_cuda(&mut s, &mut cuda).unwrap();
    assert_eq!(
        notes,
        [
            Note::BreakpointResolved { id: 2, addr: 0x510 },
            Note::ModuleLoaded {
                handle: 1,
                kernels: vec!["bitreverse".into(), "scale".into()]
            }
        ]
    );
    // The launch, then the breakpoint.
    let notes = run_until_cuda(&mut s, &mut cuda).unwrap();
    assert_eq!(
        notes[0],
        Note::KernelLaunched {
            id: 0,
            name: "bitreverse".into()
        }
    );
    assert_eq!(
        notes[1],
        Note::Stopped {
            text: format!(
                "[Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (0,0,0), device 0, sm 0, warp 0, lane 0]\n\
                 \n\
                 CUDA thread hit Breakpoint 2, bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:15\n\
                 {LINE15}"
            )
        }
    );
    assert_eq!(notes.len(), 2);

    // The GPU state as one line, merged over ranks like any answer on the agent tree.
    assert_eq!(
        cuda.summary(),
        "1 device sm_90, kernel 0 bitreverse<<<(2,1,1),(64,1,1)>>> at bitreverse.cu:15"
    );
    let mut merged = cohort_wire::Merged::default();
    for rank in 0..4 {
        merged.add(rank, &format!("{}\n", cuda.summary()), "");
    }
    assert_eq!(
        merged.render().0,
        "[0-3] 1 device sm_90, kernel 0 bitreverse<<<(2,1,1),(64,1,1)>>> at bitreverse.cu:15\n"
    );
    assert_eq!(
        cuda.info_devices(),
        "  Dev PCI Bus/Dev ID              Name Description SM Type SMs Warps/SM Lanes/Warp Max Regs/Lane Active SMs Mask \n\
         *   0        45:00.0 CUDBG test double       GH100   sm_90   4       64         32           255            0x01 \n"
    );
    assert_eq!(
        cuda.info_kernels(),
        "  Kernel Parent Dev Grid Status SMs Mask GridDim BlockDim Invocation                      \n\
         *      0      -   0    1 Active     0x01 (2,1,1) (64,1,1) bitreverse(data=0x7fffce000000) \n"
    );
    assert_eq!(
        cuda.info_blocks(),
        "  BlockIdx To BlockIdx Count   State \n\
         Kernel 0\n\
         *  (0,0,0)     (0,0,0)     1 running \n"
    );
    assert_eq!(
        cuda.info_threads(),
        "  BlockIdx ThreadIdx To BlockIdx ThreadIdx Count                 PC      Filename  Line \n\
         Kernel 0\n\
         *  (0,0,0)   (0,0,0)     (0,0,0)  (63,0,0)    64 0x0000000000000510 bitreverse.cu    15 \n"
    );

    // Logical focus: thread 53 is lane 21 of warp 1.
    assert_eq!(
        cuda.focus_logical(
            Some(0),
            Some(CuDim3::new(0, 0, 0)),
            Some(CuDim3::new(53, 0, 0))
        )
        .unwrap(),
        format!(
            "[Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (53,0,0), device 0, sm 0, warp 1, lane 21]\n{LINE15}"
        )
    );
    // Its local index (a register: %r4 in R3 at this pc) and its shared-memory element.
    assert_eq!(cuda.print("idx").unwrap(), "53");
    assert_eq!(cuda.print("sdata[idx]").unwrap(), "4149");
    assert_eq!(cuda.print("sdata[53]").unwrap(), "4149");
    assert_eq!(
        cuda.print("data").unwrap(),
        "(unsigned int * @generic) 0x7fffce000000"
    );
    assert_eq!(
        cuda.print("idata").unwrap(),
        "(unsigned int * @generic) 0x7fffce000000"
    );
    let sdata = cuda.print("sdata").unwrap();
    assert!(sdata.starts_with("{4096, 4097, 4098, "), "{sdata}");
    assert!(sdata.ends_with(", 4158, 4159}"), "{sdata}");
    assert_eq!(
        cuda.print("nosuch").unwrap_err().to_string(),
        "No symbol \"nosuch\" in current context."
    );
    // Memory of the focused thread by address class.
    let at = (0, 0, 1, 21);
    assert_eq!(
        cuda.api
            .read_memory(AddressClass::Local, at, 0xfffc80, 8)
            .unwrap(),
        [0x00, 0x35, 0, 0, 0x01, 0x35, 0, 0]
    );
    assert_eq!(
        cuda.api
            .read_memory(AddressClass::Shared, at, 0x400 + 4 * 53, 4)
            .unwrap(),
        0x1035u32.to_le_bytes()
    );
    assert_eq!(
        cuda.api
            .read_memory(AddressClass::Global, at, 0x7fffce000000 + 4 * 127, 4)
            .unwrap(),
        0x107fu32.to_le_bytes()
    );
    assert_eq!(
        cuda.api.read_memory(AddressClass::Param, at, 0, 8).unwrap(),
        0x7fffce000000u64.to_le_bytes()
    );
    let e = cuda
        .api
        .read_memory(AddressClass::Shared, at, 0x4fe, 4)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "read memory failed: CUDBG_ERROR_INVALID_MEMORY_ACCESS (0x8)"
    );
    // Physical focus.
    assert_eq!(
        cuda.focus_physical(Some(0), Some(0), Some(0), Some(7))
            .unwrap(),
        format!(
            "[Switching focus to CUDA kernel 0, grid 1, block (0,0,0), thread (7,0,0), device 0, sm 0, warp 0, lane 7]\n{LINE15}"
        )
    );
    assert_eq!(cuda.print("idx").unwrap(), "7");
    // Coordinates that do not exist leave the focus alone.
    assert_eq!(
        cuda.focus_logical(None, Some(CuDim3::new(5, 0, 0)), None)
            .unwrap_err()
            .to_string(),
        "Request cannot be satisfied. CUDA focus unchanged."
    );
    assert_eq!(
        cuda.focus_physical(None, Some(3), None, None)
            .unwrap_err()
            .to_string(),
        "Request cannot be satisfied. CUDA focus unchanged."
    );
    assert_eq!(
        cuda.describe_focus().unwrap(),
        "CUDA kernel 0, grid 1, block (0,0,0), thread (7,0,0), device 0, sm 0, warp 0, lane 7"
    );
    // Back to thread 53; step its warp one instruction.
    cuda.focus_logical(None, None, Some(CuDim3::new(53, 0, 0)))
        .unwrap();
    assert_eq!(
        cuda.step_warp().unwrap(),
        format!("0x0000000000000520\t{LINE15}")
    );
    assert_eq!(
        cuda.info_threads(),
        "  BlockIdx ThreadIdx To BlockIdx ThreadIdx Count                 PC      Filename  Line \n\
         Kernel 0\n\
         \x20  (0,0,0)   (0,0,0)     (0,0,0)  (31,0,0)    32 0x0000000000000510 bitreverse.cu    15 \n\
         *  (0,0,0)  (32,0,0)     (0,0,0)  (63,0,0)    32 0x0000000000000520 bitreverse.cu    15 \n"
    );

    // Continue: block 0 ends, block 1 reaches the breakpoint; the focused thread is gone, so
    // the focus moves to a live one.
    cuda.resume().unwrap();
    let notes = run_until_cuda(&mut s, &mut cuda).unwrap();
    assert_eq!(
        notes,
        [Note::Stopped {
            text: format!(
                "[Switching focus to CUDA kernel 0, grid 1, block (1,0,0), thread (0,0,0), device 0, sm 1, warp 0, lane 0]\n\
                 \n\
                 CUDA thread hit Breakpoint 2, bitreverse<<<(2,1,1),(64,1,1)>>> (data=0x7fffce000000) at bitreverse.cu:15\n\
                 {LINE15}"
            )
        }]
    );
    assert_eq!(cuda.print("idx").unwrap(), "0");
    assert_eq!(cuda.print("sdata[idx]").unwrap(), "4160");
    assert_eq!(
        cuda.print("idata").unwrap(),
        "(unsigned int * @generic) 0x7fffce000100"
    );
    assert_eq!(
        cuda.info_blocks(),
        "  BlockIdx To BlockIdx Count   State \n\
         Kernel 0\n\
         *  (1,0,0)     (1,0,0)     1 running \n"
    );
    assert_eq!(
        cuda.info_devices().lines().nth(1).unwrap(),
        "*   0        45:00.0 CUDBG test double       GH100   sm_90   4       64         32           255            0x02 "
    );

    // Continue to the end of the kernel and of the program (which checks the result).
    cuda.resume().unwrap();
    let notes = run_until_cuda(&mut s, &mut cuda).unwrap();
    assert_eq!(notes, [Note::KernelFinished { id: 0 }]);
    assert_eq!(cuda.info_kernels(), "No CUDA kernels.\n");
    assert_eq!(run_until_cuda(&mut s, &mut cuda), Err(0));
    cuda.api.finalize().unwrap();
}

#[test]
fn version_mismatch_and_missing_library() {
    let f = fixture("version");
    // A driver of a later major version that does not serve this client is refused before
    // anything is written into the program.
    let e = match cohort_cuda::client::CudaApi::load(Some(Path::new("/nonexistent/libcuda.so.1"))) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("loaded a missing library"),
    };
    assert!(
        e.starts_with("cannot load /nonexistent/libcuda.so.1: "),
        "{e}"
    );
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "version_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("COHORT_CUDBG_DOUBLE_VERSION", "14.0.0")
        .env("COHORT_TEST_DOUBLE", &f.library)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(
        "the CUDA debugger API of the driver is 14.0.0 and serves none of the versions Cohort was built for (12.9.156, 13.0.163)"
    ), "{text}");
    // An older major version is refused when the library is loaded.
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "version_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("COHORT_CUDBG_DOUBLE_VERSION", "11.8.120")
        .env("COHORT_TEST_DOUBLE", &f.library)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(
        "the CUDA debugger API of the driver is 11.8.120 and serves none of the versions Cohort was built for (12.9.156, 13.0.163)"
    ), "{text}");
}

#[test]
fn the_api_version_asked_for() {
    // The latest layout Cohort knows of the driver's major version, no later than the
    // driver's: a 13.0 driver is asked for 13.0 (whose slots Cohort uses are 12.9's).
    let f = fixture("versions");
    for (driver, asked) in [
        ("12.9.156", "12.9.156"),
        ("12.8.140", "12.8.140"),
        ("13.0.163", "13.0.163"),
        ("13.0.170", "13.0.163"),
        ("13.0.150", "13.0.150"),
        ("13.1.180", "13.0.163"),
    ] {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "version_asked_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("COHORT_CUDBG_DOUBLE_VERSION", driver)
            .env("COHORT_TEST_DOUBLE", &f.library)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("asked for {asked}\n")),
            "{driver}: {text}"
        );
    }
}

/// Run by `the_api_version_asked_for` in a child with the double's version set.
#[test]
fn version_asked_child() {
    let Some(lib) = std::env::var_os("COHORT_TEST_DOUBLE") else {
        return;
    };
    match cohort_cuda::client::CudaApi::load(Some(Path::new(&lib))) {
        Ok(api) => println!("asked for {}", api.version()),
        Err(e) => println!("{e}"),
    }
}

/// Run by `version_mismatch_and_missing_library` in a child with the double's version set.
#[test]
fn version_child() {
    let Some(lib) = std::env::var_os("COHORT_TEST_DOUBLE") else {
        return;
    };
    // A later driver is asked for the API this client was built for; this one refuses it,
    // and nothing is written into the program before that.
    struct Untouched;
    impl Debuggee for Untouched {
        fn pid(&self) -> Option<i32> {
            Some(1)
        }
        fn symbol(&self, _: &str) -> Option<u64> {
            Some(0x1000)
        }
        fn write(&mut self, _: u64, _: &[u8]) -> cohort_cuda::Result<()> {
            panic!("written into the program before the driver accepted the client")
        }
    }
    match Cudbg::handshake(&mut Untouched, Some(Path::new(&lib))) {
        Err(e) => println!("{e}"),
        Ok(_) => panic!("a 14.0 driver that serves no known version was accepted"),
    }
}

#[test]
fn handshake_needs_the_driver_variables() {
    // A program without the driver: the handshake says so instead of writing anywhere.
    struct NoDriver;
    impl Debuggee for NoDriver {
        fn pid(&self) -> Option<i32> {
            Some(1)
        }
        fn symbol(&self, _: &str) -> Option<u64> {
            None
        }
        fn write(&mut self, _: u64, _: &[u8]) -> cohort_cuda::Result<()> {
            panic!("nothing may be written")
        }
    }
    let _turn = one_session();
    let f = fixture("nodriver");
    let e = match Cudbg::handshake(&mut NoDriver, Some(&f.library)) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("handshake without the driver"),
    };
    assert_eq!(
        e,
        "handshake: the program has no cudbgApiClientPid: is the CUDA driver loaded?"
    );
}
