//! `mq` (issue 20): MPI message queues through the MPI library's own debugger interface
//! (Open MPI's `libompi_dbg_msgq.so`, loaded by the agent: agentd/src/msgq.rs), on a real
//! job whose ranks all block with messages pending (tests/mpi/queues.c).

use std::path::{Path, PathBuf};
use std::process::Command;

fn build(mpicc: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{mpicc}-queues"));
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mpi/queues.c");
    std::fs::copy(&src, dir.join("queues.c")).unwrap();
    let st = Command::new(mpicc)
        .args(["-g", "-O0", "-o", "queues", "queues.c"])
        .current_dir(&dir)
        .status()
        .expect("Open MPI and MPICH are installed by scripts/test.sh");
    assert!(st.success());
    dir.join("queues")
}

/// `cohort launch -n 3 --launcher LAUNCHER -batch -ex continue -ex CMD… -- ./queues`:
/// (stdout, stderr).
fn run(launcher: &str, mpicc: &str, cmds: &[&str]) -> (String, String) {
    let prog = build(mpicc);
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args(["launch", "-n", "3", "--launcher", launcher])
        .args(["--settle", "1000", "-batch", "-ex", "continue"]);
    for cmd in cmds {
        c.args(["-ex", cmd]);
    }
    let o = c
        .args(["--", "./queues"])
        .current_dir(prog.parent().unwrap())
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The address that `[R] print &VAR` printed: `[R] $N = (T *) 0x… <VAR>`.
fn address_of(out: &str, rank: u32, var: &str) -> String {
    let head = format!("[{rank}] $");
    let tail = format!(" <{var}>");
    out.lines()
        .filter(|l| l.starts_with(&head))
        .find_map(|l| {
            let l = l.strip_suffix(&tail).unwrap_or(l);
            l.rsplit(' ').next().filter(|a| a.starts_with("0x"))
        })
        .unwrap_or_else(|| panic!("no address of {var} on rank {rank} in:\n{out}"))
        .to_string()
}

/// Every rank's communicators and pending operations, with the peers, tags and lengths the
/// program used, and the buffers its variables are at.
#[test]
fn open_mpi_mq_shows_pending_sends_and_receives_per_communicator() {
    let (out, err) = run(
        "openmpi",
        "mpicc.openmpi",
        &[
            "mq",
            "[0] print &big",
            "[0] print &small",
            "[1] print &small",
            "[2] print &dbl",
            "mq 1",
        ],
    );
    let big = address_of(&out, 0, "big");
    let small0 = address_of(&out, 0, "small");
    let small1 = address_of(&out, 1, "small");
    let dbl = address_of(&out, 2, "dbl");
    let queues: Vec<&str> = out
        .lines()
        .filter(|l| {
            [
                "Communicator ",
                "  ",
                "No pending messages",
                "(The MPI library",
            ]
            .iter()
            .any(|w| l.split_once("] ").is_some_and(|(_, t)| t.starts_with(w)))
        })
        .collect();
    let unexpected =
        "(The MPI library's message-queue interface does not show unexpected messages.)";
    let rank1 = [
        "[1] Communicator MPI_COMM_WORLD (size 3, this rank 1):".to_string(),
        "[1]   Pending sends: none".to_string(),
        "[1]   Pending receives:".to_string(),
        format!("[1]     from 0, tag 8: 40 bytes, buffer {small1}"),
        "[1] No pending messages in MPI_COMM_SELF, MPI_COMM_NULL, work.".to_string(),
        format!("[1] {unexpected}"),
    ];
    let mut want = vec![
        "[0] Communicator MPI_COMM_WORLD (size 3, this rank 0):".to_string(),
        "[0]   Pending sends:".to_string(),
        format!("[0]     to 1, tag 7: 400000 bytes, buffer {big}"),
        "[0]   Pending receives:".to_string(),
        format!("[0]     from 2, tag 9: 40 bytes, buffer {small0}"),
        "[0] No pending messages in MPI_COMM_SELF, MPI_COMM_NULL, work.".to_string(),
        format!("[0] {unexpected}"),
    ];
    want.extend(rank1.iter().cloned());
    want.extend([
        "[2] Communicator work (size 3, this rank 2):".to_string(),
        "[2]   Pending sends: none".to_string(),
        "[2]   Pending receives:".to_string(),
        format!("[2]     any source, any tag: 40 bytes, buffer {dbl}"),
        "[2] No pending messages in MPI_COMM_WORLD, MPI_COMM_SELF, MPI_COMM_NULL.".to_string(),
        format!("[2] {unexpected}"),
    ]);
    // `mq 1`: rank 1 alone.
    want.extend(rank1.iter().cloned());
    assert_eq!(queues, want, "\nstdout:\n{out}\nstderr:\n{err}");
}

/// MPICH as packaged here ships no message-queue library: `mq` says so for every rank.
#[test]
fn mpich_mq_says_the_library_has_no_queue_interface() {
    let (out, err) = run("mpich", "mpicc.mpich", &["mq"]);
    assert!(
        err.contains("[0-2] No message queues: the rank's MPI library names no message-queue library (no MPIR_dll_name; Open MPI has one, MPICH as packaged here does not).")
            || out.contains("[0-2] No message queues: the rank's MPI library names no message-queue library (no MPIR_dll_name; Open MPI has one, MPICH as packaged here does not)."),
        "\nstdout:\n{out}\nstderr:\n{err}"
    );
}

/// Without the MPI call recorder `diagnose` takes the peers and tags of the calls the frames
/// show from the message queues: the mutual receive is a deadlock again, not a bare call.
#[test]
fn open_mpi_diagnose_without_the_recorder_reads_the_queues() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mpicc.openmpi-queues-deadlock");
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mpi/deadlock.c");
    std::fs::copy(&src, dir.join("deadlock.c")).unwrap();
    let st = Command::new("mpicc.openmpi")
        .args(["-g", "-O0", "-o", "deadlock", "deadlock.c"])
        .current_dir(&dir)
        .status()
        .expect("Open MPI is installed by scripts/test.sh");
    assert!(st.success());
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args([
            "launch",
            "-n",
            "2",
            "--launcher",
            "openmpi",
            "--no-mpi-recorder",
        ])
        .args([
            "--settle", "1000", "-batch", "-ex", "continue", "-ex", "diagnose",
        ])
        .args(["--", "./deadlock"])
        .current_dir(&dir)
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let verdicts: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" MPI call recorder") || l.contains(" wait for each other"))
        .collect();
    assert_eq!(
        verdicts,
        [
            "[0-1] have no MPI call recorder: peers and tags are from the MPI library's message queues",
            "ranks 0 and 1 wait for each other: rank 0 in MPI_Recv from 1 tag 7 at deadlock.c:11, rank 1 in MPI_Recv from 0 tag 7 at deadlock.c:11",
        ],
        "\nstdout:\n{out}\nstderr:\n{err}"
    );
}

/// The processes running `prog` (by their executable).
fn ranks_of(prog: &Path) -> usize {
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    std::fs::read_link(e.path().join("exe")).is_ok_and(|x| x.as_path() == prog)
                })
                .count()
        })
        .unwrap_or(0)
}

/// `mq` on a job started without the debugger and attached to (`cohort attach --mpirun`):
/// the same queues as under `cohort launch`, read from ranks cohort did not start.
#[test]
fn open_mpi_mq_of_an_attached_job() {
    // A copy of its own: the other tests' jobs run the built program at the same time, and the
    // ranks are counted by their executable.
    let built = build("mpicc.openmpi");
    let dir = built
        .parent()
        .unwrap()
        .with_file_name("mpicc.openmpi-queues-attach");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&built, dir.join("queues")).unwrap();
    let prog = dir.join("queues").canonicalize().unwrap();
    let dir = prog.parent().unwrap();
    let mut job = Command::new("mpirun")
        .args(["-np", "3", "--oversubscribe", "--allow-run-as-root"])
        .arg(&prog)
        .current_dir(dir)
        .env("OMPI_MCA_btl", "self,vader")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Every rank started and blocked (mpirun's start-up is slow on a loaded machine).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while ranks_of(&prog) < 3 {
        assert!(std::time::Instant::now() < until, "the job did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["attach", "--mpirun", &job.id().to_string()])
        .args(["-batch", "-ex", "[1] mq", "-ex", "[1] print &small"])
        .current_dir(dir)
        .output()
        .unwrap();
    // mpirun ends its ranks on SIGTERM (SIGKILL would leave them to init).
    let _ = Command::new("kill").arg(job.id().to_string()).status();
    let _ = job.wait();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        out.contains("[1] $1 = "),
        "\nstdout:\n{out}\nstderr:\n{err}"
    );
    let small1 = address_of(&out, 1, "small");
    let queues: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("[1] ") && !l.starts_with("[1] $"))
        .filter(|l| {
            ["Communicator ", "  ", "No pending messages"]
                .iter()
                .any(|w| l["[1] ".len()..].starts_with(w))
        })
        .collect();
    assert_eq!(
        queues,
        [
            "[1] Communicator MPI_COMM_WORLD (size 3, this rank 1):".to_string(),
            "[1]   Pending sends: none".to_string(),
            "[1]   Pending receives:".to_string(),
            format!("[1]     from 0, tag 8: 40 bytes, buffer {small1}"),
            "[1] No pending messages in MPI_COMM_SELF, MPI_COMM_NULL, work.".to_string(),
        ],
        "\nstdout:\n{out}\nstderr:\n{err}"
    );
}
