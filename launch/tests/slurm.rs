//! MPIR acquisition against Slurm's srun on a local test cluster
//! (`scripts/slurm-cluster.sh`), with a plain C task. Skipped where srun is not installed.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use cohort_engine::session::{BpSpec, Event, Session};
use cohort_engine::tracer::Tracer;
use cohort_launch::{
    LaunchError, Launcher, ProcDesc, attach_mpir, find_srun_of_job, launch_mpir, release_gate,
};
use common::*;

const WAIT: Duration = Duration::from_secs(60);

fn slurm_env() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    vec![("SLURM_CONF".into(), cohort_fixtures::SLURM_CONF.into())]
}

/// Attach a session to each task, break at TASK_START, release, run to the breakpoint and on
/// to the end.
fn run_tasks(procs: &[ProcDesc], release: impl FnOnce()) {
    let line = line_of("task", "TASK_START");
    let mut tasks = Vec::new();
    for p in procs {
        let t = Tracer::spawn("task", Session::new).unwrap();
        let pid = p.pid;
        let addr = t
            .call(move |s| {
                s.attach(pid)?;
                let addr = line_address(s, "task.c", line);
                s.add_breakpoint(BpSpec::Address(addr), false)?;
                release_gate(s)?;
                Ok::<u64, LaunchError>(addr)
            })
            .unwrap()
            .unwrap();
        tasks.push((t, addr));
    }
    let running: Vec<_> = tasks
        .into_iter()
        .map(|(t, addr)| {
            std::thread::spawn(move || {
                let first = t.call(|s| s.cont()).unwrap().unwrap();
                let second = t.call(|s| s.cont()).unwrap().unwrap();
                (addr, first, second)
            })
        })
        .collect();
    release();
    for (h, p) in running.into_iter().zip(procs) {
        let (addr, first, second) = h.join().unwrap();
        assert!(
            matches!(first, Event::Breakpoint { pc, .. } if pc == addr),
            "{first:?}"
        );
        assert_eq!(
            second,
            Event::Exited {
                pid: p.pid,
                code: 0
            }
        );
    }
}

#[test]
fn srun_tasks_acquired_launched_and_attached() {
    if !have("srun") || !have("slurmctld") {
        eprintln!("srun not installed: skipped");
        return;
    }
    let _cluster = cohort_fixtures::SlurmCluster::start(2);
    let exe = build("task", "cc");

    // 1. srun started under control.
    let mut argv = os(&["srun", "-n", "4"]);
    argv.push(exe.clone().into());
    let job = launch_mpir(&argv, &slurm_env()).unwrap();
    assert_eq!(job.launcher(), Launcher::Slurm);
    let procs = job.procs().to_vec();
    assert_eq!(procs.len(), 4);
    for (i, p) in procs.iter().enumerate() {
        assert_eq!(p.rank, i as u32);
        // The virtual node's name (Slurm reports the node, not the machine).
        assert!(p.host == "n1" || p.host == "n2", "{}", p.host);
        assert_eq!(p.executable, exe);
        assert_eq!(
            std::fs::read_link(format!("/proc/{}/exe", p.pid)).unwrap(),
            exe
        );
    }
    let mut launcher = None;
    run_tasks(&procs, || launcher = Some(job.release_launcher().unwrap()));
    assert_eq!(launcher.unwrap().wait(WAIT).unwrap(), 0);

    // 2. A running srun found from its job id, attached.
    let dir = std::env::temp_dir().join(format!("cohort-srun-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let go = dir.join("go");
    let mut srun = Killed(
        Command::new("srun")
            .args(["-n", "2"])
            .arg(&exe)
            .arg(&go)
            .envs(slurm_env())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let jobid = wait_for_job(&exe);
    let pid = find_srun_of_job(jobid).unwrap();
    assert_eq!(pid, srun.0.id() as i32);
    let job = attach_mpir(pid).unwrap();
    assert_eq!(job.procs().len(), 2);
    for p in job.procs() {
        assert_eq!(
            std::fs::read_link(format!("/proc/{}/exe", p.pid)).unwrap(),
            exe
        );
    }
    job.release().unwrap();
    std::fs::write(&go, b"").unwrap();
    assert!(srun.0.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(
        find_srun_of_job(999_999),
        Err(LaunchError::NoSrun(999_999))
    ));
}

/// A child killed if the test fails before it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The id of the running job of `exe` once its tasks run (bounded wait).
fn wait_for_job(exe: &Path) -> u64 {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let out = Command::new("squeue")
            .args(["-h", "-t", "R", "-o", "%i %o"])
            .envs(slurm_env())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let job = text.lines().find_map(|l| {
            let (id, cmd) = l.split_once(' ')?;
            (Path::new(cmd.trim()) == exe)
                .then(|| id.parse::<u64>().ok())
                .flatten()
        });
        let tasks = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| std::fs::read_link(e.path().join("exe")).ok().as_deref() == Some(exe))
            .count();
        if let Some(id) = job
            && tasks == 2
        {
            return id;
        }
        assert!(std::time::Instant::now() < deadline, "job did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}
