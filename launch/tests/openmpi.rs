//! MPIR acquisition against Open MPI's mpirun, with a real MPI job.

mod common;

use std::ffi::OsString;
use std::time::Duration;

use cohort_engine::session::{BpSpec, Event, Session};
use cohort_engine::tracer::Tracer;
use cohort_launch::{LaunchError, Launcher, launch_mpir, release_gate};
use common::*;

const WAIT: Duration = Duration::from_secs(60);

#[test]
fn mpirun_four_ranks_stop_after_init_and_complete() {
    let exe = build("ring", "mpicc");
    let mut argv = os(&["mpirun", "--oversubscribe", "-np", "4"]);
    argv.push(exe.clone().into());
    let job = launch_mpir(&argv, &ompi_env()).unwrap();
    assert_eq!(job.launcher(), Launcher::OpenMpi);
    let procs = job.procs().to_vec();
    assert_eq!(procs.len(), 4);
    let mut pids: Vec<i32> = procs.iter().map(|p| p.pid).collect();
    pids.sort_unstable();
    pids.dedup();
    assert_eq!(pids.len(), 4);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string();
    for (i, p) in procs.iter().enumerate() {
        assert_eq!(p.rank, i as u32);
        assert_eq!(p.host, host);
        assert_eq!(p.executable, exe);
        // A real process of that executable on this host.
        assert_eq!(
            std::fs::read_link(format!("/proc/{}/exe", p.pid)).unwrap(),
            exe
        );
    }

    let line = line_of("ring", "AFTER_INIT");
    let mut ranks = Vec::new();
    for p in &procs {
        let t = Tracer::spawn("rank", Session::new).unwrap();
        let pid = p.pid;
        let addr = t
            .call(move |s| {
                s.attach(pid)?;
                let addr = line_address(s, "ring.c", line);
                s.add_breakpoint(BpSpec::Address(addr), false)?;
                release_gate(s)?;
                Ok::<u64, LaunchError>(addr)
            })
            .unwrap()
            .unwrap();
        ranks.push((t, addr));
    }
    let running: Vec<_> = ranks
        .into_iter()
        .map(|(t, addr)| {
            std::thread::spawn(move || {
                let ev = t.call(|s| s.cont()).unwrap().unwrap();
                (t, addr, ev)
            })
        })
        .collect();
    let mut launcher = job.release_launcher().unwrap();
    let stopped: Vec<_> = running.into_iter().map(|h| h.join().unwrap()).collect();
    for (_, addr, ev) in &stopped {
        assert!(
            matches!(ev, Event::Breakpoint { pc, .. } if pc == addr),
            "{ev:?}"
        );
    }
    let finishing: Vec<_> = stopped
        .into_iter()
        .map(|(t, _, _)| std::thread::spawn(move || t.call(|s| s.cont()).unwrap().unwrap()))
        .collect();
    for (h, p) in finishing.into_iter().zip(&procs) {
        assert_eq!(
            h.join().unwrap(),
            Event::Exited {
                pid: p.pid,
                code: 0
            }
        );
    }
    assert_eq!(launcher.wait(WAIT).unwrap(), 0);
}

#[test]
fn not_a_launcher_is_a_clear_error() {
    let exe = build("ring", "mpicc");
    let argv: Vec<OsString> = vec!["/bin/true".into(), exe.into()];
    match launch_mpir(&argv, &[]) {
        Err(LaunchError::NoMpir { symbol, .. }) => assert_eq!(symbol, "MPIR_Breakpoint"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn launcher_failing_before_spawn_reports_its_exit_code() {
    // mpirun refuses a program that does not exist, before MPIR_Breakpoint.
    let argv = os(&["mpirun", "-np", "2", "/nonexistent/cohort-prog"]);
    match launch_mpir(&argv, &ompi_env()) {
        Err(LaunchError::LauncherExited { code, .. }) => assert_ne!(code, 0),
        other => panic!("{other:?}"),
    }
}

#[test]
fn empty_command_is_an_error() {
    assert!(matches!(
        launch_mpir(&[], &[]),
        Err(LaunchError::EmptyCommand)
    ));
}

#[test]
fn attach_to_running_mpirun_reads_the_table() {
    let exe = build("ring", "mpicc");
    let dir = std::env::temp_dir().join(format!("cohort-attach-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let go = dir.join("go");
    let ready = dir.join("ready");
    let mut child = std::process::Command::new("mpirun")
        .args(["--oversubscribe", "-np", "3"])
        .arg(&exe)
        .arg(&go)
        .envs(ompi_env())
        .spawn()
        .unwrap();
    // Wait (safety-net bounded) until the three ranks run our program.
    let deadline = std::time::Instant::now() + WAIT;
    while std::time::Instant::now() < deadline {
        let n = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                std::fs::read_link(e.path().join("exe")).ok().as_deref() == Some(exe.as_path())
                    && std::fs::read_to_string(e.path().join("stat"))
                        .map(|s| {
                            s.contains(&format!(") S {} ", child.id()))
                                || s.contains(&format!(") R {} ", child.id()))
                        })
                        .unwrap_or(false)
            })
            .count();
        if n == 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = ready;
    let job = cohort_launch::attach_mpir(child.id() as i32).unwrap();
    assert_eq!(job.launcher(), Launcher::OpenMpi);
    assert_eq!(job.launcher_pid(), child.id() as i32);
    let procs = job.procs().to_vec();
    assert_eq!(procs.len(), 3);
    for (i, p) in procs.iter().enumerate() {
        assert_eq!(p.rank, i as u32);
        assert_eq!(p.executable, exe);
        assert_eq!(
            std::fs::read_link(format!("/proc/{}/exe", p.pid)).unwrap(),
            exe
        );
    }
    job.release().unwrap();
    std::fs::write(&go, b"").unwrap();
    assert!(child.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).unwrap();
}
