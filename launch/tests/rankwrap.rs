//! The per-rank wrapper: MPICH's hydra (no MPIR) starting `cohort-rankwrap`, and the agent
//! side starting each rank under its own tracer.

mod common;

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use cohort_engine::process::{LaunchOptions, Process, StopKind};
use cohort_engine::solib;
use cohort_engine::symbols::ObjectFile;
use cohort_engine::tracer::Tracer;
use cohort_launch::{WrapListener, WrappedRank, wait_status_exited, wait_status_killed};
use common::*;

const WAIT: Duration = Duration::from_secs(60);
const WRAP: &str = env!("CARGO_BIN_EXE_cohort-rankwrap");

fn sock_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cohort-wrap-{tag}-{}.sock", std::process::id()))
}

/// Load bias of the program of a process stopped at exec.
fn bias(pid: i32, exe: &std::path::Path) -> u64 {
    let auxv = solib::read_auxv(pid).unwrap();
    let file = ObjectFile::load_cached(exe).unwrap();
    solib::load_bias(&file, solib::at_entry(&auxv).unwrap())
}

#[test]
fn hydra_ranks_run_under_the_agent_and_the_job_completes() {
    let exe = build("ring", "mpicc.mpich");
    let line = line_of("ring", "AFTER_INIT");
    let link_addr = {
        let d = cohort_dwarf::loader::DebugFile::load(&exe).unwrap();
        d.addresses_for_line("ring.c", line).unwrap()[0].address
    };
    let sock = sock_path("hydra");
    let listener = WrapListener::bind(&sock).unwrap();
    let mut hydra = Command::new("mpiexec.hydra")
        .args(["-n", "4", WRAP, "--agent"])
        .arg(&sock)
        .arg("--")
        .arg(&exe)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ranks = Vec::new();
    for _ in 0..4 {
        let mut wr = listener.accept(WAIT).unwrap();
        assert_eq!(wr.argv, vec![exe.clone().into_os_string()]);
        assert_eq!(wr.program, exe);
        let nums: Vec<i32> = wr.fds.iter().map(|(_, n)| *n).collect();
        let pmi: i32 = wr
            .env
            .iter()
            .find(|(k, _)| k == "PMI_FD")
            .map(|(_, v)| v.to_str().unwrap().parse().unwrap())
            .unwrap();
        assert_eq!(nums, vec![0, 1, 2, pmi]);
        let exe = exe.clone();
        ranks.push(std::thread::spawn(move || {
            let t = Tracer::spawn("rank", || ()).unwrap();
            t.call(move |_| {
                let opts = wr.launch_options();
                let mut p = Process::launch(&opts).unwrap();
                let addr = link_addr + bias(p.pid(), &exe);
                p.add_breakpoint(addr).unwrap();
                let first = p.cont().unwrap().kind;
                let second = p.cont().unwrap().kind;
                if let StopKind::Exited(code) = second {
                    wr.report_exit(wait_status_exited(code)).unwrap();
                }
                (wr.rank, first == StopKind::Breakpoint(addr), second)
            })
            .unwrap()
        }));
    }
    let mut seen: Vec<(u32, bool, StopKind)> =
        ranks.into_iter().map(|h| h.join().unwrap()).collect();
    seen.sort_by_key(|s| s.0);
    assert_eq!(
        seen,
        (0..4)
            .map(|r| (r, true, StopKind::Exited(0)))
            .collect::<Vec<_>>()
    );
    let mut out = String::new();
    hydra
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(hydra.wait().unwrap().success());
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        vec![
            "rank 0 of 4 got 30",
            "rank 1 of 4 got 0",
            "rank 2 of 4 got 10",
            "rank 3 of 4 got 20"
        ]
    );
}

/// The wrapper alone (rank from PMI_RANK): environment, cwd and descriptors reach the rank
/// exactly, and the exit status comes back.
#[test]
fn wrapper_passes_environment_cwd_and_descriptors() {
    let sock = sock_path("env");
    let listener = WrapListener::bind(&sock).unwrap();
    let dir = std::env::temp_dir().canonicalize().unwrap();
    let mut w = Command::new(WRAP)
        .arg("--agent")
        .arg(&sock)
        .args([
            "--",
            "sh",
            "-c",
            "echo \"$COHORT_X $PMI_RANK $(pwd)\"; echo err >&2; exit 3",
        ])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("PMI_RANK", "7")
        .env("COHORT_X", "hello world")
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut wr = listener.accept(WAIT).unwrap();
    assert_eq!(wr.rank, 7);
    assert_eq!(wr.program, PathBuf::from("/usr/bin/sh"));
    assert_eq!(wr.cwd, dir);
    let mut env = wr.env.clone();
    env.sort();
    assert_eq!(
        env,
        vec![
            ("COHORT_X".into(), "hello world".into()),
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("PMI_RANK".into(), "7".into())
        ]
    );
    let code = run_rank(&mut wr);
    assert_eq!(code, StopKind::Exited(3));
    let mut out = String::new();
    w.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let mut err = String::new();
    w.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(out, format!("hello world 7 {}\n", dir.display()));
    assert_eq!(err, "err\n");
    assert_eq!(w.wait().unwrap().code(), Some(3));
}

fn run_rank(wr: &mut WrappedRank) -> StopKind {
    let opts: LaunchOptions = wr.launch_options();
    let t = Tracer::spawn("rank", || ()).unwrap();
    let kind = t
        .call(move |_| {
            let mut p = Process::launch(&opts).unwrap();
            loop {
                let k = p.cont().unwrap().kind;
                if matches!(k, StopKind::Exited(_) | StopKind::Killed(_)) {
                    return k;
                }
            }
        })
        .unwrap();
    let status = match kind {
        StopKind::Exited(c) => wait_status_exited(c),
        StopKind::Killed(s) => wait_status_killed(s),
        _ => unreachable!(),
    };
    wr.report_exit(status).unwrap();
    kind
}

/// A signal sent to the wrapper is forwarded to the agent; a rank killed by it makes the
/// wrapper die of the same signal.
#[test]
fn wrapper_forwards_signals_and_dies_like_the_rank() {
    let sock = sock_path("sig");
    let listener = WrapListener::bind(&sock).unwrap();
    let mut w = Command::new(WRAP)
        .arg("--agent")
        .arg(&sock)
        .args(["--", "sleep", "600"])
        .env("PMI_RANK", "0")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut wr = listener.accept(WAIT).unwrap();
    let opts = wr.launch_options();
    let t = Tracer::spawn("rank", || None::<Process>).unwrap();
    let pid = t
        .call(move |s| {
            let p = Process::launch(&opts).unwrap();
            let pid = p.pid();
            *s = Some(p);
            pid
        })
        .unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(w.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    // Wait (bounded) for the forwarded signal on the wrapper's connection.
    let mut pfd = libc::pollfd {
        fd: std::os::fd::AsRawFd::as_raw_fd(&wr.signal_fd()),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    assert_eq!(unsafe { libc::poll(&mut pfd, 1, 60_000) }, 1);
    assert_eq!(wr.take_forwarded_signal(), Some(libc::SIGTERM));
    assert_eq!(wr.take_forwarded_signal(), None);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let kind = t
        .call(|s| {
            let p = s.as_mut().unwrap();
            loop {
                let k = p.cont().unwrap().kind;
                if matches!(k, StopKind::Exited(_) | StopKind::Killed(_)) {
                    return k;
                }
            }
        })
        .unwrap();
    assert_eq!(kind, StopKind::Killed(libc::SIGTERM));
    wr.report_exit(wait_status_killed(libc::SIGTERM)).unwrap();
    assert_eq!(w.wait().unwrap().signal(), Some(libc::SIGTERM));
}

#[test]
fn accept_times_out_without_a_wrapper() {
    let listener = WrapListener::bind(&sock_path("none")).unwrap();
    assert!(matches!(
        listener.accept(Duration::from_millis(50)),
        Err(cohort_launch::LaunchError::Timeout { .. })
    ));
}
