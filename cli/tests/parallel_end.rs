//! When `cohort launch` ends, nothing of the job is left running: the ranks, the launcher
//! (`mpirun`, `srun`, `mpiexec`) and its daemons, the agents. Every way a session ends is
//! tried — the last batch command, `quit`, the end of input, SIGTERM, SIGHUP, Ctrl-C twice, the
//! front end killed with SIGKILL — with every launcher, the ranks running (inside `continue`).
//! Each process of the job carries a marker in its environment (and the program's argument):
//! within `GONE_WITHIN` (5 s) of the end no process with it may be left. A job the session
//! attached to (`cohort attach`) is detached instead and runs on to its normal end.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Proc, Session, job, show, status_field, unique_marker};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    /// The last `-ex` command of `-batch`.
    Batch,
    Quit,
    /// End of standard input.
    Eof,
    Term,
    Hup,
    /// Two Ctrl-Cs in a row.
    IntTwice,
    /// The front end killed with SIGKILL.
    Kill,
    /// `interrupt` twice (the second to ranks already stopped), then `quit`.
    QuitAfterInterrupts,
}

const ENDS: [End; 7] = [
    End::Batch,
    End::Quit,
    End::Eof,
    End::Term,
    End::Hup,
    End::IntTwice,
    End::Kill,
];

/// How long everything may take to go (Open MPI's `mpirun`, its ranks killed when the front
/// end was, was once still going 2.0 s after it in CI, with the machine's 2 CPUs busy).
const GONE_WITHIN: Duration = Duration::from_secs(5);

/// End the session the way `end` says (after the batch commands for `End::Batch`).
fn end_session(s: &mut Session, end: End) {
    let sig = |s: &Session, sig| kill(s.pid(), sig).unwrap();
    match end {
        End::Batch => {}
        End::Quit => s.send("quit"),
        End::Eof => drop(s.stdin.take()),
        End::Term => sig(s, Signal::SIGTERM),
        End::Hup => sig(s, Signal::SIGHUP),
        End::IntTwice => {
            sig(s, Signal::SIGINT);
            std::thread::sleep(Duration::from_millis(200));
            sig(s, Signal::SIGINT);
        }
        End::Kill => sig(s, Signal::SIGKILL),
        End::QuitAfterInterrupts => {
            s.send("interrupt");
            s.wait_for(|l| l.contains(" received signal SIGINT, Interrupt."));
            std::thread::sleep(Duration::from_millis(300));
            s.send("interrupt");
            s.send("quit");
        }
    }
}

/// The arguments of a session that runs `cmds` (all of them at once under `-batch`, else
/// typed one by one later).
fn launch_args(launch: &[&str], end: End, prog: &Path, prog_args: &[String]) -> Vec<String> {
    let mut a: Vec<String> = launch.iter().map(|s| s.to_string()).collect();
    if end == End::Batch {
        a.extend(["-batch", "-ex", "continue", "-ex", "info ranks"].map(String::from));
    }
    if !prog.as_os_str().is_empty() {
        a.push("--".into());
        a.push(format!("./{}", prog.file_name().unwrap().to_string_lossy()));
        a.extend(prog_args.iter().cloned());
    }
    a
}

/// Let every rank run (`continue`), check that `before` holds (the job is there: the test is
/// not vacuous), then end the session as `end` says.
fn run_then_end(s: &mut Session, end: End, before: impl FnOnce()) {
    if end != End::Batch {
        s.send("continue");
    }
    s.wait_for(|l| l.contains("] running (`continue` has not finished)"));
    before();
    if end == End::Batch {
        // `info ranks`, after the `continue` that leaves them running, is the last command.
        s.wait_for(|l| l.ends_with("] running"));
    }
    end_session(s, end);
}

/// `cohort launch -n N LAUNCH -- PROG NEVER`, the ranks running, ended by `end`: within
/// `GONE_WITHIN` the front end has exited and no process of the job is left.
fn launched_job_is_gone(launch: &[&str], prog: &Path, n: usize, end: End, env: &[(&str, &str)]) {
    let prog = prog.canonicalize().unwrap();
    let prog = prog.as_path();
    let marker = unique_marker();
    // The program waits for this file (which never comes) after MPI_Init.
    let never = format!("/tmp/{marker}-never");
    let args = launch_args(launch, end, prog, std::slice::from_ref(&never));
    let mut env = env.to_vec();
    env.push(("COHORT_TEST_MARKER", &marker));
    let mut s = Session::start(&args, prog.parent().unwrap(), &env);
    run_then_end(&mut s, end, || {
        let before = job(&marker);
        let ranks = before.iter().filter(|p| p.exe == prog).count();
        assert_eq!(
            ranks,
            n,
            "{launch:?} {end:?}: the ranks:\n{}",
            show(&before)
        );
    });
    let t0 = Instant::now();
    loop {
        let exited = s.exited();
        let left = job(&marker);
        if exited && left.is_empty() {
            break;
        }
        assert!(
            t0.elapsed() < GONE_WITHIN,
            "{launch:?} {end:?}: {:?} after the end, {}still running:\n{}\noutput:\n{}",
            t0.elapsed(),
            if exited { "" } else { "cohort and " },
            show(&left),
            s.seen.join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn every_end(launch: &[&str], prog: &Path, n: usize, env: &[(&str, &str)]) {
    for end in ENDS {
        launched_job_is_gone(launch, prog, n, end, env);
    }
}

#[test]
fn local_ranks_are_gone_however_the_session_ends() {
    let prog = cohort_fixtures::program_in_own_dir("forever", "end");
    every_end(&["launch", "-n", "3", "--agents", "2"], &prog, 3, &[]);
}

#[test]
fn open_mpi_job_is_gone_however_the_session_ends() {
    let prog = cohort_fixtures::mpi_program_in_own_dir("ring", "mpicc.openmpi");
    every_end(
        &["launch", "-n", "4", "--launcher", "openmpi"],
        &prog,
        4,
        &[("OMPI_MCA_btl", "self,vader")],
    );
}

#[test]
fn mpich_job_is_gone_however_the_session_ends() {
    let prog = cohort_fixtures::mpi_program_in_own_dir("ring", "mpicc.mpich");
    every_end(&["launch", "-n", "3", "--launcher", "mpich"], &prog, 3, &[]);
}

#[test]
fn slurm_job_is_gone_however_the_session_ends() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let prog = cohort_fixtures::mpi_program_in_own_dir("task", "cc");
    every_end(
        &["launch", "-n", "3", "--launcher", "slurm"],
        &prog,
        3,
        &[("SLURM_CONF", cohort_fixtures::SLURM_CONF)],
    );
}

/// A job started without the debugger, ended if the test fails.
struct Launched(Option<Child>);

impl Launched {
    fn pid(&self) -> i32 {
        self.0.as_ref().map_or(0, |c| c.id() as i32)
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = kill(Pid::from_raw(c.id() as i32), Signal::SIGTERM);
            std::thread::sleep(Duration::from_secs(1));
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A job started without the debugger (`launcher ... PROG FILE`, its ranks waiting for FILE),
/// attached to with `cohort attach ATTACH PID`, the ranks running, the session ended by `end`:
/// within `GONE_WITHIN` the front end and its agents are gone and the ranks run on, untraced; once FILE
/// exists the job ends normally and prints every rank's line.
fn attached_job_runs_on(
    launcher: &[&str],
    attach: &str,
    prog: &Path,
    n: usize,
    end: End,
    env: &[(&str, &str)],
    expect_line: impl Fn(usize) -> String,
) {
    let prog = prog.canonicalize().unwrap();
    let prog = prog.as_path();
    let marker = unique_marker();
    let file = std::env::temp_dir().join(format!("{marker}-go"));
    let mut job_cmd = Command::new(launcher[0]);
    job_cmd
        .args(&launcher[1..])
        .arg(prog)
        .arg(&file)
        .envs(env.iter().copied())
        .env("COHORT_TEST_MARKER", &marker)
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    let mut launched = Launched(Some(job_cmd.spawn().unwrap()));
    let launcher_pid = launched.pid();
    // Attach once every rank runs its program. (mpirun's start-up beside another test's
    // spinning Open MPI job on 2 cores took over 30 s once in CI: a limit, not a measure.)
    let until = Instant::now() + Duration::from_secs(120);
    while job(&marker).iter().filter(|p| p.exe == prog).count() < n {
        assert!(Instant::now() < until, "the job did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let mut args = vec![
        "attach".to_string(),
        attach.to_string(),
        launcher_pid.to_string(),
    ];
    args.extend(launch_args(&[], end, Path::new(""), &[]));
    let mut env = env.to_vec();
    env.push(("COHORT_TEST_MARKER", &marker));
    let mut s = Session::start(&args, prog.parent().unwrap(), &env);
    s.wait_for(|l| l.starts_with("cohort: ") && l.contains(" ranks of "));
    run_then_end(&mut s, end, || {});
    let t0 = Instant::now();
    loop {
        let agents: Vec<Proc> = job(&marker)
            .into_iter()
            .filter(|p| p.cmdline.contains("cohort-agentd"))
            .collect();
        if s.exited() && agents.is_empty() {
            break;
        }
        assert!(
            t0.elapsed() < GONE_WITHIN,
            "{end:?}: the session has not ended after {:?}:\n{}\noutput:\n{}",
            t0.elapsed(),
            show(&agents),
            s.seen.join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Every rank runs on, untraced.
    let ranks: Vec<Proc> = job(&marker).into_iter().filter(|p| p.exe == prog).collect();
    assert_eq!(ranks.len(), n, "{end:?}:\n{}", show(&ranks));
    for r in &ranks {
        assert_eq!(
            status_field(r.pid, "TracerPid:").as_deref(),
            Some("0"),
            "{end:?}: rank {} is still traced",
            r.pid
        );
        assert!(
            !matches!(r.state, 't' | 'T'),
            "{end:?}: rank {} is stopped ({})",
            r.pid,
            r.state
        );
    }
    std::fs::write(&file, "").unwrap();
    let out = launched.0.take().unwrap().wait_with_output().unwrap();
    let _ = std::fs::remove_file(&file);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{end:?}: {:?}\n{text}", out.status);
    for i in 0..n {
        assert!(text.contains(&expect_line(i)), "{end:?}: {text}");
    }
}

#[test]
fn attached_open_mpi_job_runs_on_however_the_session_ends() {
    let prog = cohort_fixtures::mpi_program_in_own_dir("ring", "mpicc.openmpi");
    let mut mpirun = vec!["mpirun", "-np", "4", "--oversubscribe"];
    if nix::unistd::getuid().is_root() {
        mpirun.push("--allow-run-as-root");
    }
    for end in ENDS {
        attached_job_runs_on(
            &mpirun,
            "--mpirun",
            &prog,
            4,
            end,
            &[
                ("OMPI_MCA_btl", "self,vader"),
                ("OMPI_MPIR_DO_NOT_WARN", "1"),
            ],
            |i| format!("rank {i} of 4 got {}", ((i + 3) % 4) * 10),
        );
    }
}

#[test]
fn attached_ranks_interrupted_when_stopped_run_on_after_quit() {
    let prog = cohort_fixtures::mpi_program_in_own_dir("ring", "mpicc.openmpi");
    let mut mpirun = vec!["mpirun", "-np", "4", "--oversubscribe"];
    if nix::unistd::getuid().is_root() {
        mpirun.push("--allow-run-as-root");
    }
    attached_job_runs_on(
        &mpirun,
        "--mpirun",
        &prog,
        4,
        End::QuitAfterInterrupts,
        &[
            ("OMPI_MCA_btl", "self,vader"),
            ("OMPI_MPIR_DO_NOT_WARN", "1"),
        ],
        |i| format!("rank {i} of 4 got {}", ((i + 3) % 4) * 10),
    );
}

#[test]
fn attached_slurm_job_runs_on_however_the_session_ends() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let prog = cohort_fixtures::mpi_program_in_own_dir("task", "cc");
    for end in ENDS {
        attached_job_runs_on(
            &["srun", "-n", "2"],
            "--srun",
            &prog,
            2,
            end,
            &[("SLURM_CONF", cohort_fixtures::SLURM_CONF)],
            |i| format!("task {i}"),
        );
    }
}
