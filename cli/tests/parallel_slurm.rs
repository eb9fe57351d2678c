//! `cohort launch --launcher slurm` and `cohort attach --slurm-job` on the one-host Slurm test
//! cluster (`scripts/slurm-cluster.sh`: slurmctld and two slurmd "nodes").

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CONF: &str = cohort_fixtures::SLURM_CONF;

fn build(name: &str) -> PathBuf {
    cohort_fixtures::program_in_own_dir(name, "slurm")
}

#[test]
fn slurm_launch_and_attach_to_a_running_job() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let prog = build("ranks");
    let dir = prog.parent().unwrap();
    // 1. Launch through srun (MPIR), agents started in the job with srun --overlap.
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["launch", "-n", "3", "--launcher", "slurm", "-batch"])
        .args([
            "-ex",
            "break compute",
            "-ex",
            "continue",
            "-ex",
            "print step",
        ])
        .args(["-ex", "info ranks", "-ex", "delete", "-ex", "continue"])
        .args(["--", "./ranks"])
        .current_dir(dir)
        .env("SLURM_CONF", CONF)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let from = out
        .find("[0-2] $1 = 0")
        .unwrap_or_else(|| panic!("{out}\n{}", String::from_utf8_lossy(&o.stderr)));
    let tail: Vec<&str> = out[from..]
        .lines()
        .filter(|l| !l.starts_with("rank "))
        .collect();
    assert_eq!(
        tail.join("\n"),
        "[0-2] $1 = 0\n[0-2] stopped in compute at ranks.c:10\n[0-2] [Inferior 1 exited normally]"
    );
    assert!(out.starts_with("cohort: 3 ranks of srun (pid "), "{out}");

    // 2. A job running without a debugger: attach by job id, look, detach; it runs on.
    let sleeper = build("sleeper");
    let mut job = Command::new("srun")
        .args(["-n", "2", "./sleeper"])
        .current_dir(sleeper.parent().unwrap())
        .env("SLURM_CONF", CONF)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    let jobid = loop {
        let q = Command::new("squeue")
            .args(["-h", "-o", "%i %j", "-t", "R"])
            .env("SLURM_CONF", CONF)
            .output()
            .unwrap();
        let q = String::from_utf8_lossy(&q.stdout).to_string();
        if let Some(l) = q.lines().find(|l| l.ends_with(" sleeper")) {
            break l.split_whitespace().next().unwrap().to_string();
        }
        assert!(Instant::now() < until, "the job did not start");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_millis(300));
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["attach", "--slurm-job", &jobid, "-batch"])
        .args(["-ex", "break step", "-ex", "continue", "-ex", "info ranks"])
        .args(["-ex", "delete", "-ex", "detach"])
        .env("SLURM_CONF", CONF)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("cohort: 2 ranks of srun (pid "), "{out}");
    assert!(
        out.contains("[0-1] stopped in step at sleeper.c:11\n"),
        "{out}"
    );
    assert!(out.ends_with("[0-1] [Inferior 1 detached]\n"), "{out}");
    // Detached: the job finishes by itself, every task with its normal end.
    let st = job.wait().unwrap();
    assert!(st.success());
    let mut text = String::new();
    std::io::Read::read_to_string(&mut job.stdout.take().unwrap(), &mut text).unwrap();
    assert_eq!(text.matches("acc=4950 usr1=0").count(), 2, "{text}");
}

/// `--nodes` and `--time` go to `srun` (the window's start form has them): 4 ranks on 1 node
/// of the 2, so one agent.
#[test]
fn slurm_launch_with_nodes_and_time() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let prog = build("ranks");
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["launch", "-n", "4", "--launcher", "slurm"])
        .args(["--nodes", "1", "--time", "5"])
        .args(["-batch", "-ex", "continue", "--", "./ranks"])
        .current_dir(prog.parent().unwrap())
        .env("SLURM_CONF", CONF)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let first = out.lines().next().unwrap_or("");
    assert!(
        first.starts_with("cohort: 4 ranks of srun (pid ") && first.contains(" under 1 agent,"),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("[0-3] [Inferior 1 exited normally]"), "{out}");
}

/// A job on two nodes: one agent per node, each acquiring its node's ranks. (Every agent was
/// told `--agents 1`, the count of the acquire lists, which Slurm's agents share: the second
/// node's agent refused to start and its ranks ran on unseen, "[3] never joined".)
#[test]
fn slurm_launch_on_two_nodes() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let prog = build("ranks");
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["launch", "-n", "4", "--launcher", "slurm", "--nodes", "2"])
        .args([
            "-batch", "-ex", "print 1", "-ex", "continue", "--", "./ranks",
        ])
        .current_dir(prog.parent().unwrap())
        .env("SLURM_CONF", CONF)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let first = out.lines().next().unwrap_or("");
    assert!(
        first.starts_with("cohort: 4 ranks of srun (pid ") && first.contains(" under 2 agents,"),
        "{out}\n{err}"
    );
    assert!(out.contains("\n[0-3] $1 = 1\n"), "{out}\n{err}");
    assert!(
        out.contains("[0-3] [Inferior 1 exited normally]"),
        "{out}\n{err}"
    );
    assert!(!err.contains("never joined"), "{err}");
}
