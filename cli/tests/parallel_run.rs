//! `run` in a launched session starts the job again as its launcher starts it, and runs every
//! rank to its first breakpoint, as gdb's `run` does for one process: every rank of the new job
//! knows its rank and the job's size, the breakpoints are kept, the old processes are gone, and
//! `run` again does the same.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{Session, job, show, unique_marker};

/// The line of `tests/mpi/start.c` holding `marker`.
fn line_of(marker: &str) -> usize {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mpi/start.c"))
            .unwrap();
    text.lines().position(|l| l.contains(marker)).unwrap() + 1
}

/// The pids of the job's processes running `exe`, sorted.
fn pids_of(marker: &str, exe: &Path) -> Vec<i32> {
    let mut v: Vec<i32> = job(marker)
        .into_iter()
        .filter(|p| p.exe == exe)
        .map(|p| p.pid)
        .collect();
    v.sort();
    v
}

/// 4 ranks of `start` under `launch`; `break` at its print, then `run` twice: each time a new
/// job (new rank processes, and a new launcher where `launcher` names it), every rank stopped
/// at the breakpoint (number `bp`) knowing it is rank r of 4.
fn run_starts_the_job_again(
    launch: &[&str],
    cc: &str,
    launcher: Option<&str>,
    bp: u32,
    env: &[(&str, &str)],
) {
    let prog = cohort_fixtures::mpi_program_in_own_dir("start", cc);
    let prog = prog.canonicalize().unwrap();
    let marker = unique_marker();
    let mut args: Vec<String> = ["launch", "-n", "4"].map(String::from).into();
    args.extend(launch.iter().map(|s| s.to_string()));
    args.extend(["--".to_string(), "./start".to_string()]);
    let mut env = env.to_vec();
    env.push(("COHORT_TEST_MARKER", &marker));
    let mut s = Session::start(&args, prog.parent().unwrap(), &env);
    let print = line_of("/* PRINT */");
    s.send(&format!("break start.c:{print}"));
    // (Under Slurm the tasks' addresses are randomised: the address is a range.)
    s.wait_for(|l| l.contains(&format!("] Breakpoint {bp} at ")));
    let launcher_pids = |m: &str| -> Vec<i32> {
        job(m)
            .into_iter()
            .filter(|p| launcher.is_some_and(|l| p.cmdline.starts_with(l)))
            .map(|p| p.pid)
            .collect()
    };
    let mut history = 0;
    for round in 0..2 {
        let ranks_before = pids_of(&marker, &prog);
        let launcher_before = launcher_pids(&marker);
        assert_eq!(ranks_before.len(), 4, "{}", show(&job(&marker)));
        s.send("run");
        s.wait_for(|l| {
            l.ends_with(&format!(
                "] Thread 1 \"start\" hit Breakpoint {bp}, main () at start.c:{print}"
            ))
        });
        s.send("print rank");
        s.send("print size");
        s.send("info ranks");
        for r in 0..4 {
            let want = format!("[{r}] ${} = {r}", history + 1);
            s.wait_for(|l| l.ends_with(&want));
        }
        let want = format!("[0-3] ${} = 4", history + 2);
        s.wait_for(|l| l.ends_with(&want));
        let want = format!("[0-3] stopped in main at start.c:{print}");
        s.wait_for(|l| l.ends_with(&want));
        history += 2;
        // A new job: other processes, none of the old left.
        let ranks_after = pids_of(&marker, &prog);
        assert_eq!(
            ranks_after.len(),
            4,
            "round {round}: {}",
            show(&job(&marker))
        );
        assert!(
            ranks_after.iter().all(|p| !ranks_before.contains(p)),
            "round {round}: {ranks_before:?} → {ranks_after:?}"
        );
        if launcher.is_some() {
            // (`srun` is two processes.)
            let after = launcher_pids(&marker);
            assert!(!after.is_empty(), "round {round}: {}", show(&job(&marker)));
            assert!(
                after.iter().all(|p| !launcher_before.contains(p)),
                "round {round}: the launcher {launcher_before:?} → {after:?}"
            );
        }
    }
    // As gdb's `run`, which starts the hit counts again: one hit in this run.
    s.send("info breakpoints");
    s.wait_for(|l| l.ends_with("[0-3] \tbreakpoint already hit 1 time"));
    s.send("quit");
    let t0 = Instant::now();
    while !(s.exited() && job(&marker).is_empty()) {
        assert!(
            t0.elapsed() < Duration::from_secs(2),
            "left after quit:\n{}",
            show(&job(&marker))
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // (srun says its own words when its step is ended: `srun: error: n1: tasks 0-3: Killed`.)
    let errors: Vec<&String> = s
        .seen
        .iter()
        .filter(|l| !l.starts_with("srun: ") && !l.starts_with("slurmstepd-"))
        .filter(|l| l.contains("rror") || l.contains("annot"))
        .collect();
    assert!(errors.is_empty(), "{}", s.seen.join("\n"));
}

#[test]
fn run_starts_an_open_mpi_job_again_through_mpirun() {
    run_starts_the_job_again(
        &["--launcher", "openmpi"],
        "mpicc.openmpi",
        Some("/usr/bin/mpirun "),
        1,
        &[("OMPI_MCA_btl", "self,vader")],
    );
}

#[test]
fn run_starts_an_mpich_job_again() {
    // (Breakpoint 1 was `start`'s.)
    run_starts_the_job_again(&["--launcher", "mpich"], "mpicc.mpich", None, 2, &[]);
}

/// The one-host Slurm cluster serves one test at a time.
static SLURM: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Inside the user's allocation (as after `salloc`), `run` starts the job's step again
/// through `srun`: the agents' own step lives on in the allocation.
#[test]
fn run_starts_a_slurm_job_again_inside_an_allocation() {
    let _one = SLURM.lock().unwrap_or_else(|e| e.into_inner());
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let o = std::process::Command::new("salloc")
        .args(["--no-shell", "-n", "4", "--job-name", "cohort-run-test"])
        .env("SLURM_CONF", cohort_fixtures::SLURM_CONF)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    let jobid = said
        .lines()
        .find_map(|l| l.strip_prefix("salloc: Granted job allocation "))
        .unwrap_or_else(|| panic!("salloc: {said}"))
        .trim()
        .to_string();
    run_starts_the_job_again(
        &["--launcher", "slurm"],
        "mpicc.openmpi",
        Some("/usr/bin/srun -n "),
        2,
        &[
            ("SLURM_CONF", cohort_fixtures::SLURM_CONF),
            ("SLURM_JOB_ID", &jobid),
            ("OMPI_MCA_btl", "self,vader"),
        ],
    );
    let _ = std::process::Command::new("scancel")
        .arg(&jobid)
        .env("SLURM_CONF", cohort_fixtures::SLURM_CONF)
        .status();
}

#[test]
fn run_in_a_slurm_session_says_why_it_cannot() {
    let _one = SLURM.lock().unwrap_or_else(|e| e.into_inner());
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let prog = cohort_fixtures::mpi_program_in_own_dir("task", "cc");
    let o = std::process::Command::new(common::cohort())
        .args(["launch", "-n", "2", "--launcher", "slurm", "-batch"])
        .args(["-ex", "run", "-ex", "info ranks"])
        .args(["--", "./task"])
        .current_dir(prog.parent().unwrap())
        .env("SLURM_CONF", cohort_fixtures::SLURM_CONF)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("`run` cannot start a Slurm job again outside an allocation: its agents run in the job's allocation, which ends with srun (quit, and launch it again; or start cohort inside `salloc`, where `run` starts the job's step again).\n"),
        "{err}"
    );
    assert!(
        out.ends_with("[0-1] stopped in main at task.c:11\n"),
        "{out}"
    );
}

#[test]
fn run_does_not_start_an_attached_job_again() {
    let prog = cohort_fixtures::mpi_program_in_own_dir("ring", "mpicc.openmpi");
    let prog = prog.canonicalize().unwrap();
    let marker = unique_marker();
    let file = std::env::temp_dir().join(format!("{marker}-go"));
    let mut mpirun = std::process::Command::new("mpirun");
    mpirun.args(["-np", "2", "--oversubscribe"]);
    if nix::unistd::getuid().is_root() {
        mpirun.arg("--allow-run-as-root");
    }
    let mut job_proc = mpirun
        .arg(&prog)
        .arg(&file)
        .env("OMPI_MCA_btl", "self,vader")
        .env("OMPI_MPIR_DO_NOT_WARN", "1")
        .env("COHORT_TEST_MARKER", &marker)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    while pids_of(&marker, &prog).len() < 2 {
        assert!(Instant::now() < until, "the job did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ranks = pids_of(&marker, &prog);
    let o = std::process::Command::new(common::cohort())
        .args(["attach", "--mpirun", &job_proc.id().to_string(), "-batch"])
        .args(["-ex", "run", "-ex", "detach"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // The ranks are the same processes, and run on to their end.
    assert_eq!(pids_of(&marker, &prog), ranks);
    std::fs::write(&file, "").unwrap();
    let st = job_proc.wait().unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(st.success());
    assert!(
        err.lines().any(|l| l
            == "The job was attached to: `run` cannot start it again (its launcher is not this session's)."),
        "{err}"
    );
}
