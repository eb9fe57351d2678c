//! The process engine on real programs, below the symbol layer.

use cohort_engine::arch::WatchKind;
use cohort_engine::process::{LaunchOptions, Process, StopKind};
use cohort_fixtures::{nm_address, program};

/// PIE programs are loaded at this base when randomisation is off (x86-64 Linux).
const PIE_BASE: u64 = 0x5555_5555_4000;

fn launch(name: &str, args: &[&str]) -> (Process, std::path::PathBuf) {
    let prog = program(name);
    let opts = LaunchOptions {
        program: prog.clone(),
        args: args.iter().map(|a| a.into()).collect(),
        disable_aslr: true,
        ..Default::default()
    };
    (Process::launch(&opts).expect("launch"), prog)
}

#[test]
fn breakpoint_in_loop_counts_exactly() {
    let (mut p, prog) = launch("loop", &["50"]);
    let tick = PIE_BASE + nm_address(&prog, "tick");
    p.add_breakpoint(tick).unwrap();
    let mut hits = 0;
    loop {
        let s = p.cont().unwrap();
        match s.kind {
            StopKind::Breakpoint(a) => {
                assert_eq!(a, tick);
                assert_eq!(p.pc(s.tid).unwrap(), tick);
                // The trap byte is hidden from reads.
                let mut b = [0u8; 1];
                p.read_memory(tick, &mut b).unwrap();
                assert_ne!(b[0], 0xcc);
                hits += 1;
            }
            StopKind::Exited(code) => {
                assert_eq!(code, 0);
                break;
            }
            k => panic!("unexpected stop {k:?}"),
        }
    }
    assert_eq!(hits, 50);
}

#[test]
fn eight_threads_hit_one_breakpoint() {
    let (mut p, prog) = launch("threads", &[]);
    let work = PIE_BASE + nm_address(&prog, "work");
    p.add_breakpoint(work).unwrap();
    let mut hits = 0;
    let mut tids = std::collections::BTreeSet::new();
    loop {
        let s = p.cont().unwrap();
        match s.kind {
            StopKind::Breakpoint(a) => {
                assert_eq!(a, work);
                assert_ne!(s.tid, p.pid(), "work() runs only in the worker threads");
                tids.insert(s.tid);
                hits += 1;
            }
            StopKind::Exited(code) => {
                assert_eq!(code, 0);
                break;
            }
            k => panic!("unexpected stop {k:?}"),
        }
    }
    assert_eq!(hits, 8 * 25);
    assert_eq!(tids.len(), 8);
}

#[test]
fn watchpoint_catches_write_from_later_thread() {
    let (mut p, prog) = launch("watch", &[]);
    let ready = PIE_BASE + nm_address(&prog, "ready");
    let watched = PIE_BASE + nm_address(&prog, "watched");
    p.add_breakpoint(ready).unwrap();
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Breakpoint(ready));
    p.remove_breakpoint(ready).unwrap();
    let slot = p.add_watchpoint(watched, 4, WatchKind::Write).unwrap();
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Watch { slot });
    assert_ne!(s.tid, p.pid(), "the write comes from the new thread");
    let mut v = [0u8; 4];
    p.read_memory(watched, &mut v).unwrap();
    assert_eq!(i32::from_le_bytes(v), 42);
    assert_eq!(p.watch_slot(slot), Some((watched, WatchKind::Write, 4)));
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Exited(0));
}

#[test]
fn sigsegv_reports_faulting_address() {
    let (mut p, _) = launch("segv", &[]);
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Signal(libc::SIGSEGV));
    assert_eq!(p.fault_address(s.tid).unwrap(), Some(0x10));
    // Delivering it kills the program, as without a debugger.
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Killed(libc::SIGSEGV));
}

#[test]
fn exit_codes_and_killing_signals() {
    let (mut p, _) = launch("exitcode", &["3"]);
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(3));
    let (mut p, _) = launch("exitcode", &["sig", "15"]);
    // SIGTERM stops first (gdb's table says stop), then kills on delivery.
    assert_eq!(p.cont().unwrap().kind, StopKind::Signal(libc::SIGTERM));
    assert_eq!(p.cont().unwrap().kind, StopKind::Killed(libc::SIGTERM));
    let (mut p, _) = launch("exitcode", &["sig", "15"]);
    assert_eq!(p.cont().unwrap().kind, StopKind::Signal(libc::SIGTERM));
    p.discard_signal(p.pid());
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(0));
}

#[test]
fn handled_signal_passes_and_nostop_is_silent() {
    let (mut p, _) = launch("signals", &["quiet"]);
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Signal(libc::SIGUSR1));
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(0));
    let (mut p, _) = launch("signals", &[]);
    let mut t = p.signals.clone();
    let rows = t.select("SIGUSR1").unwrap();
    t.apply(&rows, "nostop").unwrap();
    t.apply(&rows, "noprint").unwrap();
    p.signals = t;
    assert_eq!(p.cont().unwrap().kind, StopKind::Signal(libc::SIGFPE));
}

#[test]
fn single_step_and_registers() {
    let (mut p, prog) = launch("loop", &["1"]);
    let tick = PIE_BASE + nm_address(&prog, "tick");
    p.add_breakpoint(tick).unwrap();
    let s = p.cont().unwrap();
    let pid = s.tid;
    let r = p.registers(pid).unwrap();
    assert_eq!(r.pc(), tick);
    // First instruction of tick is `push %rbp`: one step moves the stack pointer by 8.
    let st = p.step_instruction(pid).unwrap();
    assert_eq!(st.kind, StopKind::Step);
    let r2 = p.registers(pid).unwrap();
    assert_eq!(r2.pc(), tick + 1);
    assert_eq!(r2.sp(), r.sp() - 8);
    let all = p.all_registers(pid).unwrap();
    assert!(all.by_name("mxcsr").is_some());
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(0));
}

#[test]
fn memory_write_to_text_and_trap_hidden() {
    let (mut p, prog) = launch("loop", &["1"]);
    let main = PIE_BASE + nm_address(&prog, "main");
    let tick = PIE_BASE + nm_address(&prog, "tick");
    let mut before = [0u8; 4];
    p.read_memory(tick, &mut before).unwrap();
    p.add_breakpoint(tick).unwrap();
    p.add_breakpoint(tick).unwrap(); // two breakpoints at one address
    let mut after = [0u8; 4];
    p.read_memory(tick, &mut after).unwrap();
    assert_eq!(before, after);
    // Writing read-only text works (and keeps the trap in place).
    let mut orig = [0u8; 1];
    p.read_memory(main, &mut orig).unwrap();
    p.write_memory(main, &orig).unwrap();
    p.remove_breakpoint(tick).unwrap();
    assert_eq!(p.cont().unwrap().kind, StopKind::Breakpoint(tick));
    p.remove_breakpoint(tick).unwrap();
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(0));
}

/// Start the sleeper fixture untraced and wait until it has said its pid (it runs ~2 s).
fn spawn_sleeper() -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStdout>,
) {
    use std::io::BufRead;
    let prog = program("sleeper");
    let mut child = std::process::Command::new(&prog)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("pid="));
    (child, out)
}

#[test]
fn attach_break_detach_leaves_program_running() {
    let prog = program("sleeper");
    let (mut child, mut out) = spawn_sleeper();
    let pid = child.id() as i32;
    let mut p = Process::attach(pid).unwrap();
    let bias = {
        let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
        let first = maps.lines().next().unwrap();
        u64::from_str_radix(first.split('-').next().unwrap(), 16).unwrap()
    };
    let step = bias + nm_address(&prog, "step");
    p.add_breakpoint(step).unwrap();
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Breakpoint(step));
    p.detach().unwrap();
    drop(p);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success());
    assert_eq!(rest, "acc=4950 usr1=0\n");
}

#[test]
fn bad_input_is_a_clear_error() {
    let missing = LaunchOptions {
        program: "/nonexistent/prog".into(),
        ..Default::default()
    };
    let e = Process::launch(&missing).err().unwrap();
    assert_eq!(
        e.to_string(),
        "/nonexistent/prog: No such file or directory."
    );
    let text = LaunchOptions {
        program: cohort_fixtures::source_dir().join("loop.c"),
        ..Default::default()
    };
    let e = Process::launch(&text).err().unwrap();
    assert!(
        e.to_string()
            .ends_with("loop.c\": not in executable format: file format not recognized"),
        "{e}"
    );
    let e = Process::attach(999_999_999).err().unwrap();
    assert_eq!(e.to_string(), "ptrace: No such process.");
    // A process someone else already traces cannot be attached.
    let (p, _) = launch("loop", &[]);
    let e = std::thread::spawn({
        let pid = p.pid();
        move || Process::attach(pid).err().map(|e| e.to_string())
    })
    .join()
    .unwrap();
    assert_eq!(e.as_deref(), Some("ptrace: Operation not permitted."));
}

#[test]
fn launch_with_arguments_environment_and_directory() {
    let prog = program("envcwd");
    let dir = std::env::temp_dir();
    let out = dir.join(format!("cohort-envcwd-{}.txt", std::process::id()));
    // The program's stdout is ours; send it to a file through the shell to check it.
    let opts = LaunchOptions {
        program: prog,
        args: vec!["one".into(), "two words".into()],
        env: Some(vec![("COHORT_TEST_VAR".into(), "hello".into())]),
        cwd: Some(dir.clone()),
        disable_aslr: true,
        shell: Some("/bin/sh".into()),
        args_line: Some(format!("one 'two words' > {}", out.display())),
        fds: Vec::new(),
        death_signal: None,
    };
    let mut p = Process::launch(&opts).unwrap();
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(0));
    let text = std::fs::read_to_string(&out).unwrap();
    let cwd = std::fs::canonicalize(&dir).unwrap();
    assert_eq!(
        text,
        format!(
            "cwd={}\nvar=hello\narg1=one\narg2=two words\n",
            cwd.display()
        )
    );
    let _ = std::fs::remove_file(out);
}

#[test]
fn detach_keeps_a_pending_signal() {
    use std::io::Read;
    let (mut child, mut out) = spawn_sleeper();
    let pid = child.id() as i32;
    let mut p = Process::attach(pid).unwrap();
    // Sent while the program is stopped under the debugger: it must still arrive after detach.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGUSR1,
    )
    .unwrap();
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Signal(libc::SIGUSR1));
    p.detach().unwrap();
    drop(p);
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(rest, "acc=4950 usr1=1\n");
}

#[test]
fn read_write_watchpoint_of_eight_bytes() {
    let (mut p, prog) = launch("watch", &[]);
    let main = PIE_BASE + nm_address(&prog, "main");
    let other = PIE_BASE + nm_address(&prog, "other");
    p.add_breakpoint(main).unwrap();
    assert_eq!(p.cont().unwrap().kind, StopKind::Breakpoint(main));
    p.remove_breakpoint(main).unwrap();
    let slot = p.add_watchpoint(other, 8, WatchKind::ReadWrite).unwrap();
    // ready() writes other = 1 in the main thread, then the new thread writes other = 2.
    let s = p.cont().unwrap();
    assert_eq!((s.tid, s.kind), (p.pid(), StopKind::Watch { slot }));
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Watch { slot });
    assert_ne!(s.tid, p.pid());
    let mut v = [0u8; 8];
    p.read_memory(other, &mut v).unwrap();
    assert_eq!(i64::from_le_bytes(v), 2);
    // Unaligned and odd sizes are refused with a clear error.
    assert!(p.add_watchpoint(other + 1, 4, WatchKind::Write).is_err());
    assert!(p.add_watchpoint(other, 3, WatchKind::Write).is_err());
    p.remove_watchpoint(slot).unwrap();
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(0));
}

/// A conditional breakpoint lives in a hardware slot (where the architecture resumes from one
/// without stepping): every crossing is still reported exactly once, and when watchpoints need
/// every slot the breakpoint moves back to a trap instruction without losing a crossing.
#[test]
fn hardware_breakpoint_deleted_while_other_threads_trap_on_it() {
    // 8 threads call `work` 25 times each; a hardware breakpoint there is reported once, and
    // deleted at once. Threads that hit it at the same moment hold a pending trap at its
    // address: each must run on (the address is moribund), never stop with SIGTRAP.
    for _ in 0..5 {
        let (mut p, prog) = launch("threads", &[]);
        let work = PIE_BASE + nm_address(&prog, "work");
        let slot = p.add_hw_breakpoint(work).unwrap();
        let s = p.cont().unwrap();
        assert_eq!(s.kind, StopKind::Breakpoint(work));
        p.remove_watchpoint(slot).unwrap();
        let k = p.cont().unwrap().kind;
        assert_eq!(k, StopKind::Exited(0), "after the breakpoint was deleted");
    }
}

#[test]
fn conditional_breakpoints_in_hardware_slots_count_exactly() {
    use cohort_engine::session::{BpSpec, Event, Session};
    let prog = program("loop");
    let mut s = Session::new();
    s.load_program(&prog).unwrap();
    s.args = vec!["40".into()];
    let b = s
        .add_breakpoint(BpSpec::Symbol("tick".into()), false)
        .unwrap();
    s.set_condition(b.id, Some("whatever the front end evaluates".into()))
        .unwrap();
    s.start_process().unwrap();
    let total = PIE_BASE + nm_address(&prog, "total");
    let mut hits = 0;
    loop {
        match s.cont().unwrap() {
            Event::Breakpoint { id, .. } => {
                assert_eq!(id, b.id);
                hits += 1;
                if hits == 10 {
                    // Four watchpoints take every slot: the breakpoint goes back to software.
                    for k in 0..4 {
                        s.add_watchpoint(total + 8 * k, 8, WatchKind::Write, "w")
                            .unwrap();
                    }
                    for w in s.breakpoints().to_vec() {
                        if w.id != b.id {
                            s.delete_breakpoint(w.id).unwrap();
                        }
                    }
                }
            }
            Event::Exited { code, .. } => {
                assert_eq!(code, 0);
                break;
            }
            e => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!(hits, 40);
}

#[test]
fn code_is_read_from_the_file_until_the_debugger_writes_it() {
    use cohort_engine::symbols::{LoadedObject, ObjectFile, SymbolTable};
    let (mut p, prog) = launch("loop", &["1"]);
    let tick = PIE_BASE + nm_address(&prog, "tick");
    let file = ObjectFile::load(&prog).unwrap();
    let syms = SymbolTable::with_main(LoadedObject::new(file, PIE_BASE));
    // A step breakpoint's trap is hidden either way.
    p.add_internal_breakpoint(tick + 1).unwrap();
    let mut mem = [0u8; 16];
    let mut code = [0u8; 16];
    p.read_memory(tick, &mut mem).unwrap();
    assert!(p.unwritten(tick, 16));
    syms.read_code(&p, tick, &mut code).unwrap();
    assert_eq!(code, mem);
    // Once written by the debugger, that code comes from the process.
    let patched = [mem[0] ^ 0xff];
    p.write_memory(tick, &patched).unwrap();
    assert!(!p.unwritten(tick, 1));
    assert!(p.unwritten(tick + 1, 15));
    let mut one = [0u8; 1];
    syms.read_code(&p, tick, &mut one).unwrap();
    assert_eq!(one, patched);
    // Outside any object's code: from the process, or an error.
    assert!(syms.read_code(&p, 8, &mut one).is_err());
    p.kill().unwrap();
}

#[test]
fn real_time_and_glibc_internal_signals() {
    // Every signal stops (a bare Process keeps gdb's table, SIG32 stop included) and is
    // delivered on resume: the handlers ran and the thread was cancelled.
    let (mut p, _) = launch("rtsig", &[]);
    let s = p.cont().unwrap();
    assert_eq!((s.tid, s.kind), (p.pid(), StopKind::Signal(36)));
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Signal(37));
    assert_ne!(s.tid, p.pid(), "SIG37 is directed at the worker thread");
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Signal(32));
    assert_ne!(s.tid, p.pid(), "SIGCANCEL goes to the cancelled thread");
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(111));

    // `handle SIG37 nopass` after it stopped: not delivered on resume; SIG32 nostop noprint.
    let (mut p, _) = launch("rtsig", &[]);
    let mut t = p.signals.clone();
    let sig32 = t.select("SIG32").unwrap();
    t.apply(&sig32, "noprint").unwrap();
    p.signals = t.clone();
    assert_eq!(p.cont().unwrap().kind, StopKind::Signal(36));
    assert_eq!(p.cont().unwrap().kind, StopKind::Signal(37));
    let sig37 = t.select("SIG37").unwrap();
    t.apply(&sig37, "nopass").unwrap();
    p.signals = t;
    assert_eq!(p.cont().unwrap().kind, StopKind::Exited(101));

    // Killed by a real-time signal.
    let (mut p, _) = launch("rtsig", &["die"]);
    assert_eq!(p.cont().unwrap().kind, StopKind::Signal(38));
    assert_eq!(p.cont().unwrap().kind, StopKind::Killed(38));
}

/// Stack bytes from below the red zone up to `top`.
fn stack_bytes(p: &Process, sp: u64, top: u64) -> Vec<u8> {
    let lo = sp - 256;
    let mut v = vec![0u8; (top - lo) as usize];
    p.read_memory(lo, &mut v).unwrap();
    v
}

/// Every register, as (name, value) pairs, for comparison.
fn all_regs(p: &Process, tid: i32) -> Vec<(String, Option<u128>)> {
    let r = p.all_registers(tid).unwrap();
    r.arch
        .regs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.to_string(), r.get(i)))
        .collect()
}

#[cfg(target_arch = "x86_64")]
#[test]
fn sandbox_runs_entry_code_and_restores_everything() {
    use cohort_engine::EngineError;
    use cohort_engine::process::SandboxRequest;
    let (mut p, prog) = launch("sandbox", &[]);
    let at = |s: &str| PIE_BASE + nm_address(&prog, s);
    let (fill, body, mid, done, after, end) = (
        at("fill"),
        at("fill_body"),
        at("fill_mid"),
        at("fill_done"),
        at("fill_after"),
        at("fill_end"),
    );
    p.add_breakpoint(body).unwrap();
    // A breakpoint inside the range the sandbox runs through.
    p.add_breakpoint(mid).unwrap();
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Breakpoint(body));
    let tid = s.tid;
    let regs = p.registers(tid).unwrap();
    let (sp, rbp) = (regs.sp(), regs.by_name("rbp").unwrap() as u64);
    let top = rbp + 16;
    let before_regs = all_regs(&p, tid);
    let before_stack = stack_bytes(&p, sp, top);
    let mut sink = [0u8; 8];
    let sink_addr = at("sink");
    p.read_memory(sink_addr, &mut sink).unwrap();

    let req = SandboxRequest {
        until: done,
        within: fill..end,
        stack_top: top,
        budget: 64,
    };
    let run = p.sandbox_run(tid, &req).unwrap();
    // What the entry code computed, as it left it.
    assert_eq!(run.regs.pc(), done);
    assert_eq!(run.regs.by_name("rax"), Some(8));
    assert_eq!(run.regs.by_name("rcx"), Some(6));
    assert_eq!(run.steps, 11);
    let word = |a: u64| {
        let (base, v) = run
            .stores
            .iter()
            .find(|(b, v)| *b <= a && a + 8 <= b + v.len() as u64)
            .expect("store recorded");
        let o = (a - base) as usize;
        u64::from_le_bytes(v[o..o + 8].try_into().unwrap())
    };
    assert_eq!(word(rbp - 8), 5);
    assert_eq!(word(rbp - 0x10), 6);
    assert_eq!(word(rbp - 0x18), 6f64.to_bits());
    assert_eq!(word(rbp - 0x20), 8);
    assert_eq!(word(sp - 8), 6, "the push below the stack pointer");
    // Rolled back: every register (SSE included) and every stack byte as before.
    assert_eq!(all_regs(&p, tid), before_regs);
    assert_eq!(stack_bytes(&p, sp, top), before_stack);

    // Up to the store to a global: refused, and still nothing changed.
    let req = SandboxRequest {
        until: after,
        ..req
    };
    match p.sandbox_run(tid, &req) {
        Err(EngineError::Sandbox(why)) => assert_eq!(why, "a store outside the frame"),
        r => panic!("expected a refusal, got {r:?}"),
    }
    // A budget too small: refused.
    let req = SandboxRequest {
        until: done,
        budget: 3,
        ..req
    };
    assert!(matches!(
        p.sandbox_run(tid, &req),
        Err(EngineError::Sandbox(_))
    ));
    assert_eq!(all_regs(&p, tid), before_regs);
    assert_eq!(stack_bytes(&p, sp, top), before_stack);
    let mut now = [0u8; 8];
    p.read_memory(sink_addr, &mut now).unwrap();
    assert_eq!(now, sink);

    // The program runs on as if nothing happened: it stops at the breakpoint inside the
    // range (its trap is still there) and ends with fill's value.
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Breakpoint(mid));
    assert_eq!(p.registers(tid).unwrap().by_name("rax"), Some(8));
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Exited(8));
}

/// A load hook (the front end's stop at a symbol of a library loaded later, e.g. CUDA's
/// `cuInit`): placed when the library defines the symbol, reported as a step breakpoint at its
/// address, never a numbered breakpoint, and placed again in the next run.
#[test]
fn load_hook_stops_at_a_symbol_of_a_dlopened_library() {
    use cohort_engine::session::{Event, Session};
    let prog = program("dlmain");
    let lib = cohort_fixtures::shared_library("plugin");
    let mut s = Session::new();
    s.load_program(&prog).unwrap();
    s.args = vec![lib.clone().into_os_string()];
    s.load_hooks = vec!["plugin_fn".into()];
    for _run in 0..2 {
        s.start_process().unwrap();
        let ev = s.cont().unwrap();
        let at = s.symbols().lookup("plugin_fn").expect("plugin_fn loaded");
        assert!(
            matches!(ev, Event::StepBreakpoint { pc, .. } if pc == at),
            "{ev:?}"
        );
        assert_eq!(s.load_hook_at(at), Some("plugin_fn"));
        assert_eq!(s.load_hook_at(at + 1), None);
        assert!(s.breakpoints().is_empty());
        assert_eq!(s.take_load_hook(at).unwrap().as_deref(), Some("plugin_fn"));
        // Disarmed: no longer a hook, and taking it again finds nothing.
        assert_eq!(s.load_hook_at(at), None);
        assert_eq!(s.take_load_hook(at).unwrap(), None);
        assert!(matches!(s.cont().unwrap(), Event::Exited { code: 0, .. }));
    }
}

#[test]
fn waits_go_through_the_threads_wait_hook() {
    // agentd's tracer threads route every wait of a process through their hook (engine::mux);
    // here the hook records the calls and waits as the engine would without it.
    use cohort_engine::mux;
    use cohort_engine::sigwait::waitpid;
    use nix::sys::wait::WaitPidFlag;
    use std::cell::RefCell;
    use std::rc::Rc;
    let calls: Rc<RefCell<Vec<(i32, bool)>>> = Rc::new(RefCell::new(Vec::new()));
    let seen = calls.clone();
    mux::set_wait_hook(Some(Rc::new(move |process, nohang| {
        seen.borrow_mut().push((process.as_raw(), nohang));
        let mut flags = WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD;
        if nohang {
            flags |= WaitPidFlag::WNOHANG;
        }
        waitpid(nix::unistd::Pid::from_raw(-1), Some(flags))
    })));
    let (mut p, prog) = launch("loop", &["3"]);
    let tick = PIE_BASE + nm_address(&prog, "tick");
    p.add_breakpoint(tick).unwrap();
    let mut hits = 0;
    loop {
        match p.cont().unwrap().kind {
            StopKind::Breakpoint(_) => hits += 1,
            StopKind::Exited(0) => break,
            k => panic!("unexpected stop {k:?}"),
        }
    }
    mux::set_wait_hook(None);
    assert_eq!(hits, 3);
    let pid = p.pid();
    let calls = calls.borrow();
    // The start's wait for the program's exec, each stop, and the exit: all through the hook,
    // all for this process.
    assert!(calls.len() >= 5, "{calls:?}");
    assert!(
        calls.iter().all(|(p, _)| *p == pid),
        "{calls:?} (pid {pid})"
    );
}

/// Launch `call_pending` (with `args`) until the first worker thread's stop is reported
/// while the other one's is still to report (the two race; one run in a few gives that, and
/// fewer on a busy machine, hence the many tries). Returns
/// the process, the program, `hit` and the thread with the pending stop.
fn pending_stop(args: &[&str]) -> (Process, std::path::PathBuf, u64, i32) {
    for _ in 0..400 {
        let (mut p, prog) = launch("call_pending", args);
        let hit = PIE_BASE + nm_address(&prog, "hit");
        p.add_breakpoint(hit).unwrap();
        let s = p.cont().unwrap();
        let other = p
            .threads()
            .iter()
            .map(|t| t.tid)
            .find(|&t| t != p.pid() && t != s.tid && p.pending_stop(t).is_some());
        if let Some(other) = other {
            assert_eq!(p.pending_stop(other), Some(s.kind));
            return (p, prog, hit, other);
        }
        p.kill().unwrap();
    }
    panic!("no run left a worker's stop pending");
}

fn pending_hit() -> (Process, std::path::PathBuf, u64, i32) {
    let (p, prog, hit, other) = pending_stop(&[]);
    assert_eq!(p.pending_stop(other), Some(StopKind::Breakpoint(hit)));
    (p, prog, hit, other)
}

/// Call `wait_done()` in the main thread (it waits for both workers), with a watchdog that
/// kills the program if the call hangs.
fn call_wait_done(p: &Process, prog: &std::path::Path) -> cohort_engine::process::CallRun {
    use cohort_engine::arch::{AbiValue, Scalar};
    use cohort_engine::process::CallRequest;
    let req = CallRequest {
        func: PIE_BASE + nm_address(prog, "wait_done"),
        args: Vec::new(),
        ret: Some(AbiValue {
            bytes: vec![0; 4],
            align: 4,
            pieces: vec![(0, 4, Scalar::Int)],
            memory: false,
        }),
        return_addr: PIE_BASE + nm_address(prog, "_start"),
        stack_top: None,
        terminate: None,
        others_run: true,
    };
    let pid = p.pid();
    let (done, watchdog) = std::sync::mpsc::channel::<()>();
    let dog = std::thread::spawn(move || {
        if watchdog
            .recv_timeout(std::time::Duration::from_secs(20))
            .is_err()
        {
            // SAFETY: kill(2) on the test's own child process.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let run = p.call_function(pid, &req).expect("call");
    let _ = done.send(());
    dog.join().unwrap();
    run
}

#[test]
fn a_call_reports_another_threads_pending_breakpoint_hit() {
    use cohort_engine::process::CallStop;
    // As gdb 13: the other thread's stop is reported as soon as the call resumes it (the
    // call used to leave that thread stopped, and a function waiting for it hung).
    let (mut p, prog, hit, other) = pending_hit();
    let run = call_wait_done(&p, &prog);
    assert_eq!(
        run.stop,
        CallStop::ThreadBreakpoint {
            tid: other,
            addr: hit
        }
    );
    assert_eq!(p.pc(other).unwrap(), hit);
    p.call_keep(run).unwrap();
    p.settle_call();
    assert_eq!(p.pending_stop(other), None);
    // On from there: the worker steps over the breakpoint, the call returns to its trap.
    p.remove_breakpoint(hit).unwrap();
    let s = p.cont().unwrap();
    assert_eq!(s.tid, p.pid());
    assert!(p.dummy_returned(
        s.tid,
        p.pc(s.tid).unwrap(),
        p.registers(s.tid).unwrap().sp()
    ));
    p.kill().unwrap();
}

#[test]
fn a_call_runs_a_thread_whose_pending_hit_lost_its_breakpoint() {
    use cohort_engine::process::CallStop;
    // gdb drops the stop of a breakpoint deleted since: the thread runs with the call.
    let (mut p, prog, hit, other) = pending_hit();
    p.remove_breakpoint(hit).unwrap();
    let run = call_wait_done(&p, &prog);
    assert_eq!(run.stop, CallStop::Returned(2i32.to_le_bytes().to_vec()));
    p.call_restore(run).unwrap();
    p.settle_call();
    assert_eq!(p.pending_stop(other), None);
    let s = p.cont().unwrap();
    assert_eq!(s.kind, StopKind::Exited(0));
}

#[test]
fn a_call_reports_another_threads_pending_signal() {
    use cohort_engine::process::CallStop;
    use cohort_engine::signals::Signo;
    // As gdb 13: "The program received a signal in another thread …" at once; the signal is
    // delivered when the thread next resumes.
    let (mut p, prog, _, other) = pending_stop(&["sig"]);
    assert_eq!(p.pending_stop(other), Some(StopKind::Signal(libc::SIGUSR1)));
    let run = call_wait_done(&p, &prog);
    assert_eq!(
        run.stop,
        CallStop::ThreadSignal {
            tid: other,
            sig: Signo::new(libc::SIGUSR1).unwrap()
        }
    );
    p.call_keep(run).unwrap();
    p.settle_call();
    assert_eq!(p.pending_stop(other), None);
    // The call returns to its trap once both handlers ran; the process then ends.
    let s = p.cont().unwrap();
    assert_eq!(s.tid, p.pid());
    assert!(p.dummy_returned(
        s.tid,
        p.pc(s.tid).unwrap(),
        p.registers(s.tid).unwrap().sp()
    ));
    let handled = PIE_BASE + nm_address(&prog, "handled");
    let mut b = [0u8; 4];
    p.read_memory(handled, &mut b).unwrap();
    assert_eq!(i32::from_le_bytes(b), 2);
    p.kill().unwrap();
}
