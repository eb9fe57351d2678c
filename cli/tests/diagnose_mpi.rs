//! `diagnose` (issue 20) on real hung jobs under Open MPI and MPICH: the MPI call recorder
//! that `cohort launch` preloads says what each rank waits for, and `diagnose` names the
//! culprit rank and line in plain words. The fixtures are in tests/mpi/.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `tests/mpi/NAME.c` (or `NAME.f90`, with the family's `mpif90`) built with the MPI family
/// of `mpicc`, in a folder of its own; `NAME.cc` (C++ with the standard library, as production
/// codes) with the family's `mpicxx` at `-O2`.
fn build_mpi(name: &str, mpicc: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{mpicc}-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mpi = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mpi");
    let (file, compiler, opt) = if mpi.join(format!("{name}.f90")).is_file() {
        (
            format!("{name}.f90"),
            mpicc.replace("mpicc", "mpif90"),
            "-O0",
        )
    } else if mpi.join(format!("{name}.cc")).is_file() {
        (
            format!("{name}.cc"),
            mpicc.replace("mpicc", "mpicxx"),
            "-O2",
        )
    } else {
        (format!("{name}.c"), mpicc.to_string(), "-O0")
    };
    std::fs::copy(mpi.join(&file), dir.join(&file)).unwrap();
    let st = Command::new(compiler)
        .args(["-g", opt, "-o", name])
        .arg(&file)
        .current_dir(&dir)
        .status()
        .expect("Open MPI and MPICH are installed by scripts/test.sh");
    assert!(st.success());
    dir.join(name)
}

/// `cohort launch -n N --launcher LAUNCHER EXTRA -batch -ex continue -ex diagnose -- ./PROG`
/// in the program's folder: (stdout, stderr).
fn diagnose(name: &str, launcher: &str, n: u32, extra: &[&str]) -> (String, String) {
    run_diagnose(name, launcher, n, extra, &[])
}

/// The same, then the commands `then`.
fn diagnose_then(name: &str, launcher: &str, n: u32, then: &[&str]) -> (String, String) {
    run_diagnose(name, launcher, n, &[], then)
}

fn run_diagnose(
    name: &str,
    launcher: &str,
    n: u32,
    extra: &[&str],
    then: &[&str],
) -> (String, String) {
    let mpicc = match launcher {
        "openmpi" => "mpicc.openmpi",
        _ => "mpicc.mpich",
    };
    let prog = build_mpi(name, mpicc);
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["launch", "-n", &n.to_string(), "--launcher", launcher])
        .args(["--settle", "1000"])
        .args(extra)
        .args(["-batch", "-ex", "continue", "-ex", "diagnose"])
        .args(then.iter().flat_map(|c| ["-ex", c]))
        .arg("--")
        .arg(Path::new(".").join(name))
        .current_dir(prog.parent().unwrap())
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The verdicts among the interrupted ranks' stops (whose lines never say these words).
fn verdicts(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| {
            [
                " wait in ",
                " waits in ",
                " wait for each other",
                " made ",
                " MPI call recorder",
                "(--settle)",
            ]
            .iter()
            .any(|w| l.contains(w))
        })
        .collect()
}

/// `continue` that does not end within `--settle` offers `diagnose`; its verdicts.
fn check(name: &str, launcher: &str, n: u32, want: &[&str]) {
    check_with(name, launcher, n, &[], want);
}

fn check_with(name: &str, launcher: &str, n: u32, extra: &[&str], want: &[&str]) {
    let (out, err) = diagnose(name, launcher, n, extra);
    let mut all = vec![OFFER];
    all.extend_from_slice(want);
    assert_eq!(verdicts(&out), all, "\nstdout:\n{out}\nstderr:\n{err}");
}

const OFFER: &str =
    "Not all ranks stopped within 1000 ms (--settle): `diagnose` says what they wait for.";

const DEADLOCK: &[&str] = &[
    "ranks 0 and 1 wait for each other: rank 0 in MPI_Recv from 1 tag 7 at deadlock.c:11, rank 1 in MPI_Recv from 0 tag 7 at deadlock.c:11",
];

#[test]
fn open_mpi_diagnose_names_a_mutual_receive_deadlock() {
    check("deadlock", "openmpi", 2, DEADLOCK);
}

#[test]
fn mpich_diagnose_names_a_mutual_receive_deadlock() {
    check("deadlock", "mpich", 2, DEADLOCK);
}

/// Fortran programs call the Fortran bindings (`mpi_recv_`), which Open MPI builds on
/// `PMPI_Recv` (the recorder saw nothing: "No rank is found waiting for another.") and MPICH
/// on `MPI_Recv` (seen from inside the binding: no line of the program's).
const DEADLOCK_F: &[&str] = &[
    "ranks 0 and 1 wait for each other: rank 0 in MPI_Recv from 1 tag 7 at deadlockf.f90:11, rank 1 in MPI_Recv from 0 tag 7 at deadlockf.f90:11",
];

#[test]
fn open_mpi_diagnose_names_a_fortran_deadlock() {
    check("deadlockf", "openmpi", 2, DEADLOCK_F);
}

#[test]
fn mpich_diagnose_names_a_fortran_deadlock() {
    check("deadlockf", "mpich", 2, DEADLOCK_F);
}

/// The `mpi_f08` module's bindings (`mpi_recv_f08_` under Open MPI, `mpi_recv_f08ts_` under
/// MPICH), with no `ierror`.
const DEADLOCK_F08: &[&str] = &[
    "ranks 0 and 1 wait for each other: rank 0 in MPI_Recv from 1 tag 7 at deadlockf08.f90:12, rank 1 in MPI_Recv from 0 tag 7 at deadlockf08.f90:12",
];

#[test]
fn open_mpi_diagnose_names_an_mpi_f08_deadlock() {
    check("deadlockf08", "openmpi", 2, DEADLOCK_F08);
}

#[test]
fn mpich_diagnose_names_an_mpi_f08_deadlock() {
    check("deadlockf08", "mpich", 2, DEADLOCK_F08);
}

/// Every Fortran binding the recorder wraps passes its call on unchanged: `fcalls.f90`
/// checks each call's result on every rank and says `calls ok`.
fn fortran_calls_pass_through(launcher: &str) {
    let mpicc = match launcher {
        "openmpi" => "mpicc.openmpi",
        _ => "mpicc.mpich",
    };
    let prog = build_mpi("fcalls", mpicc);
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["launch", "-n", "3", "--launcher", launcher])
        .args(["-batch", "-ex", "continue", "--", "./fcalls"])
        .current_dir(prog.parent().unwrap())
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let said: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("calls ok") || l.contains(" wrong: "))
        .collect();
    assert_eq!(said, ["calls ok"; 3], "\nstdout:\n{out}");
}

#[test]
fn open_mpi_fortran_calls_pass_through_the_recorder() {
    fortran_calls_pass_through("openmpi");
}

#[test]
fn mpich_fortran_calls_pass_through_the_recorder() {
    fortran_calls_pass_through("mpich");
}

const WAITALL_F: &[&str] = &[
    "ranks 0, 1 and 2 wait for each other in a cycle: rank 0 in MPI_Waitall for a receive from 2 tag 3 and a receive from 1 tag 3 at waitallf.f90:13, rank 1 in MPI_Waitall for a receive from 0 tag 3 and a receive from 2 tag 3 at waitallf.f90:13, rank 2 in MPI_Waitall for a receive from 1 tag 3 and a receive from 0 tag 3 at waitallf.f90:13",
];

/// Fortran requests (integers) are followed to what `mpi_irecv_` posted.
#[test]
fn open_mpi_diagnose_follows_fortran_requests() {
    check("waitallf", "openmpi", 3, WAITALL_F);
}

#[test]
fn mpich_diagnose_follows_fortran_requests() {
    check("waitallf", "mpich", 3, WAITALL_F);
}

const SPIN_F: &[&str] = &[
    "[0,2] wait in MPI_Barrier at spinf.f90:22 for rank 1, which is running in relaxation::relax at spinf.f90:8",
];

#[test]
fn open_mpi_diagnose_names_a_fortran_rank_that_computes() {
    check("spinf", "openmpi", 3, SPIN_F);
}

#[test]
fn mpich_diagnose_names_a_fortran_rank_that_computes() {
    check("spinf", "mpich", 3, SPIN_F);
}

/// A collective on a communicator split from the world waits for its members only (the
/// recorder keeps them): rank 0's barrier was taken for one of all ranks ("[0-1,3] wait in
/// MPI_Barrier at subcomm.c:22 and subcomm.c:23 for rank 2").
const SUBCOMM: &[&str] = &[
    "[1,3] wait in MPI_Barrier at subcomm.c:23 for ranks 0,2: [0] (which waits in MPI_Barrier on the communicator of ranks 0,2 at subcomm.c:22), [2] (which is running in relax at subcomm.c:8)",
    "rank 0 waits in MPI_Barrier on the communicator of ranks 0,2 at subcomm.c:22 for rank 2, which is running in relax at subcomm.c:8",
];

#[test]
fn open_mpi_diagnose_tells_a_sub_communicator_from_the_world() {
    check("subcomm", "openmpi", 4, SUBCOMM);
}

#[test]
fn mpich_diagnose_tells_a_sub_communicator_from_the_world() {
    check("subcomm", "mpich", 4, SUBCOMM);
}

const WAITALL: &[&str] = &[
    "ranks 0, 1 and 2 wait for each other in a cycle: rank 0 in MPI_Waitall for a receive from 2 tag 3 and a receive from 1 tag 3 at waitall.c:15, rank 1 in MPI_Waitall for a receive from 0 tag 3 and a receive from 2 tag 3 at waitall.c:15, rank 2 in MPI_Waitall for a receive from 1 tag 3 and a receive from 0 tag 3 at waitall.c:15",
];

/// The recorder knows what the requests of `MPI_Waitall` wait for (from `MPI_Irecv`).
#[test]
fn open_mpi_diagnose_follows_the_requests_of_waitall() {
    check("waitall", "openmpi", 3, WAITALL);
}

#[test]
fn mpich_diagnose_follows_the_requests_of_waitall() {
    check("waitall", "mpich", 3, WAITALL);
}

const HANG: &[&str] = &[
    "rank 0 waits in MPI_Recv from 1 tag 7 at hang.c:12 for rank 1, which is in sleep called from hang.c:15",
];

/// A receive from a rank that is in a library call of its own.
#[test]
fn open_mpi_diagnose_names_the_peer_a_receive_waits_for() {
    check("hang", "openmpi", 2, HANG);
}

#[test]
fn mpich_diagnose_names_the_peer_a_receive_waits_for() {
    check("hang", "mpich", 2, HANG);
}

const HALO: &[&str] = &[
    "[0,2] wait in MPI_Sendrecv to 1 tag 4 and from 1 tag 4 at halo.c:22 for rank 1, which is running in relax at halo.c:7",
    "rank 3 waits in MPI_Bcast with root 1 at halo.c:20 for ranks 0-2: [0,2] (which wait in MPI_Sendrecv to 1 tag 4 and from 1 tag 4 at halo.c:22), [1] (which is running in relax at halo.c:7)",
];

/// `MPI_Sendrecv`'s two peers and a broadcast's root.
#[test]
fn open_mpi_diagnose_names_sendrecv_and_broadcast_waits() {
    check("halo", "openmpi", 4, HALO);
}

#[test]
fn mpich_diagnose_names_sendrecv_and_broadcast_waits() {
    check("halo", "mpich", 4, HALO);
}

const SPIN: &[&str] =
    &["[0,2] wait in MPI_Barrier at spin.c:19 for rank 1, which is running in relax at spin.c:7"];

#[test]
fn open_mpi_diagnose_names_the_rank_that_computes_while_the_others_wait_in_a_barrier() {
    check("spin", "openmpi", 3, SPIN);
}

#[test]
fn mpich_diagnose_names_the_rank_that_computes_while_the_others_wait_in_a_barrier() {
    check("spin", "mpich", 3, SPIN);
}

const SKIP: &[&str] = &[
    "[0-1] wait in MPI_Allreduce at skip.c:13 for rank 2, which never arrives: it is in MPI_Finalize at skip.c:15",
    "rank 2 made 3 calls of MPI_Allreduce at skip.c:13, the others 4",
];

#[test]
fn open_mpi_diagnose_names_the_rank_that_never_calls_a_collective() {
    check("skip", "openmpi", 3, SKIP);
}

#[test]
fn mpich_diagnose_names_the_rank_that_never_calls_a_collective() {
    check("skip", "mpich", 3, SKIP);
}

const TAGS: &[&str] = &[
    "rank 0 waits in MPI_Recv from 1 tag 7 at tags.c:11, but rank 1 sent to it with tag 8 at tags.c:13, and finished: it is in MPI_Finalize at tags.c:14",
];

#[test]
fn open_mpi_diagnose_names_mismatched_tags() {
    check("tags", "openmpi", 2, TAGS);
}

#[test]
fn mpich_diagnose_names_mismatched_tags() {
    check("tags", "mpich", 2, TAGS);
}

/// Without the recorder (`--no-mpi-recorder`), `diagnose` goes by the frames: the collective
/// the ranks are in and the rank that computes are still found.
const SPIN_FRAMES: &[&str] = &[
    "[0,2] have no MPI call recorder: peers and tags are not known, only the calls the frames show",
    "[0,2] wait in MPI_Barrier at spin.c:19 for rank 1, which is running in relax at spin.c:7",
];

#[test]
fn open_mpi_diagnose_without_the_recorder_goes_by_the_frames() {
    check_with("spin", "openmpi", 3, &["--no-mpi-recorder"], SPIN_FRAMES);
}

#[test]
fn mpich_diagnose_without_the_recorder_goes_by_the_frames() {
    check_with("spin", "mpich", 3, &["--no-mpi-recorder"], SPIN_FRAMES);
}

/// `compare` (classes of a value across ranks, min and max with their ranks, NaN counts) and
/// `group` (named sets, wherever a set is written).
fn compare_and_groups(launcher: &str) {
    let mpicc = match launcher {
        "openmpi" => "mpicc.openmpi",
        _ => "mpicc.mpich",
    };
    let prog = build_mpi("values", mpicc);
    let cmds = [
        "break values.c:17",
        "continue",
        "compare residual",
        "group evens 0,2",
        "group lows [0-1]",
        "group list",
        "compare cells evens",
        "[lows,3] compare residual",
        "compare nosuch",
        "[nosuch] compare cells",
        "compare field",
    ];
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args(["launch", "-n", "4", "--launcher", launcher, "-batch"]);
    for x in cmds {
        c.args(["-ex", x]);
    }
    let o = c
        .arg("--")
        .arg("./values")
        .current_dir(prog.parent().unwrap())
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let from = out
        .find("[0-3] 17\t")
        .unwrap_or_else(|| panic!("{out}\n{err}"));
    let tail: Vec<&str> = out[from..]
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("rank ") && !l.contains("exited normally"))
        .collect();
    assert_eq!(
        tail.join("\n"),
        "[0-1] 1.5
[2] 2.5
[3] nan(0x8000000000000)
min 1.5 on [0-1], max 2.5 on [2]
NaN on 1 rank: [3]
evens: [0,2]
lows: [0-1]
evens: [0,2]
lows: [0-1]
[0] 0
[2] 20
min 0 on [0], max 20 on [2]
[0-1] 1.5
[3] nan(0x8000000000000)
min 1.5 on [0-1], max 1.5 on [0-1]
NaN on 1 rank: [3]
[0-1] {1, 2, 3, 4}
[2] {1, 5, 3, 4}
[3] {1, 2, nan(0x8000000000000), 4}
[0-1] min 1, max 4, sum 10
[2] min 1, max 5, sum 13
[3] min 1, max 4, sum 7, 1 NaN
the ranks differ first at element 1: [0-1,3] 2, [2] 5",
        "\nstdout:\n{out}\nstderr:\n{err}"
    );
    let errs: Vec<&str> = err
        .lines()
        .filter(|l| !l.ends_with(": No such file or directory."))
        .collect();
    assert_eq!(
        errs,
        [
            "[0-3] No symbol \"nosuch\" in current context.",
            "No group named \"nosuch\"."
        ],
        "{err}"
    );
}

#[test]
fn open_mpi_compare_and_groups() {
    compare_and_groups("openmpi");
}

#[test]
fn mpich_compare_and_groups() {
    compare_and_groups("mpich");
}

/// Under Slurm too: `srun` preloads the recorder into its tasks (`--export=ALL,LD_PRELOAD=…`).
#[test]
fn slurm_diagnose_names_the_rank_that_never_calls_a_collective() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let prog = build_mpi("skip", "mpicc.openmpi");
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args([
            "launch",
            "-n",
            "3",
            "--launcher",
            "slurm",
            "--settle",
            "1000",
        ])
        .args([
            "-batch", "-ex", "continue", "-ex", "diagnose", "--", "./skip",
        ])
        .current_dir(prog.parent().unwrap())
        .env("SLURM_CONF", cohort_fixtures::SLURM_CONF)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    let mut want = vec![OFFER];
    want.extend_from_slice(SKIP);
    assert_eq!(verdicts(&out), want, "\nstdout:\n{out}\nstderr:\n{err}");
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect()
}

/// `cohort offline --launcher LAUNCHER EXTRA` on a job: the JSON report.
fn offline_json(name: &str, launcher: &str, n: u32, extra: &[&str]) -> serde_json::Value {
    let mpicc = match launcher {
        "mpich" => "mpicc.mpich",
        _ => "mpicc.openmpi",
    };
    let prog = build_mpi(name, mpicc);
    let dir = prog.parent().unwrap();
    let json = format!("{launcher}-{name}.json");
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["offline", "-n", &n.to_string(), "--launcher", launcher])
        .args(["--settle", "2000"])
        .args(extra)
        .args(["-o", &format!("{launcher}-{name}.html"), "--json", &json])
        .arg("--")
        .arg(Path::new(".").join(name))
        .current_dir(dir)
        .env("OMPI_MCA_btl", "self,vader")
        .env("SLURM_CONF", cohort_fixtures::SLURM_CONF)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join(&json)).unwrap()).unwrap()
}

/// The offline report of a hung MPI job ends with the hang and `diagnose`'s verdict, under
/// every MPI launcher (offline took only the local one).
fn offline_names_the_spinning_rank(launcher: &str) {
    let r = offline_json("spin", launcher, 3, &["--break", "spin.c:16"]);
    let s = strings(&r["summary"]);
    assert!(
        s[0].starts_with("The job hung at stop ") && s[0].contains(": [0-2] did not stop"),
        "{s:?}"
    );
    assert_eq!(
        s[1..],
        [
            "[0,2] waiting in MPI_Barrier called from spin.c:19",
            "[1] stopped in relax at spin.c:7",
            "Diverged from the most ranks ([0,2]): [1].",
            "[0,2] wait in MPI_Barrier at spin.c:19 for rank 1, which is running in relax at spin.c:7",
        ],
        "{s:?}"
    );
    // The stacks of the hang are those of every rank, those stopped inside MPI too (they were
    // left out: their state says "waiting in MPI_Barrier called from …").
    let hang = r["stops"].as_array().unwrap().last().unwrap().clone();
    let stacks = hang["stacks"].as_array().unwrap();
    assert_eq!(stacks.len(), 1, "{hang}");
    assert_eq!(stacks[0]["ranks"], "0-2", "{hang}");
    let tree = stacks[0]["text"].as_str().unwrap();
    assert!(
        tree.contains("MPI_Barrier") && tree.contains("relax"),
        "{tree}"
    );
}

/// A C++ code built `-O2` with the standard library (a halo exchange in a class, a
/// `std::map` of counters), where rank 2 receives with the wrong tag at step 3: the offline
/// report with no breakpoint runs it to the hang and names the pair and the lines.
fn offline_cxx_o2_hang(launcher: &str) {
    let r = offline_json("cxxhalo", launcher, 4, &[]);
    let s = strings(&r["summary"]);
    assert!(
        s[0].starts_with("The job hung at stop 2: [0-3] did not stop"),
        "{s:?}"
    );
    assert_eq!(
        s[1..],
        [
            "[0,3] waiting in MPI_Allreduce called from cxxhalo.cc:53",
            "[1] waiting in MPI_Sendrecv called from cxxhalo.cc:37",
            "[2] waiting in MPI_Sendrecv called from cxxhalo.cc:35",
            "Diverged from the most ranks ([0,3]): [1], [2].",
            "ranks 1 and 2 wait for each other: rank 1 in MPI_Sendrecv to 0 tag 3 and from 2 tag 3 at cxxhalo.cc:37, rank 2 in MPI_Sendrecv to 3 tag 3 and from 1 tag 99 at cxxhalo.cc:35",
            "[0,3] wait in MPI_Allreduce at cxxhalo.cc:53 for ranks 1-2: [1] (which waits in MPI_Sendrecv to 0 tag 3 and from 2 tag 3 at cxxhalo.cc:37), [2] (which waits in MPI_Sendrecv to 3 tag 3 and from 1 tag 99 at cxxhalo.cc:35)",
            "rank 2 made 3 calls of MPI_Sendrecv at cxxhalo.cc:37, the others 4",
            "[1-2] made 3 calls of MPI_Allreduce at cxxhalo.cc:53, the others 4",
        ],
        "{s:?}"
    );
    let hang = r["stops"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(hang["stacks"][0]["ranks"], "0-3", "{hang}");
}

#[test]
fn open_mpi_offline_report_of_a_cxx_o2_job_without_breakpoints() {
    offline_cxx_o2_hang("openmpi");
}

#[test]
fn mpich_offline_report_of_a_cxx_o2_job_without_breakpoints() {
    offline_cxx_o2_hang("mpich");
}

#[test]
fn open_mpi_offline_report_names_the_spinning_rank() {
    offline_names_the_spinning_rank("openmpi");
}

#[test]
fn mpich_offline_report_names_the_spinning_rank() {
    offline_names_the_spinning_rank("mpich");
}

#[test]
fn slurm_offline_report_names_the_spinning_rank() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    offline_names_the_spinning_rank("slurm");
}

/// `--submit slurm`: the job script from cohort's template, given to `sbatch`; the job runs
/// the offline report inside its allocation (the one-host cluster), which ends with the hang.
#[test]
fn offline_submitted_to_slurm_writes_the_report_from_the_job() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let prog = build_mpi("spin", "mpicc.openmpi");
    let dir = prog.parent().unwrap();
    for f in ["sub.html", "sub.json", "sub.sbatch"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["offline", "-n", "3", "--submit", "slurm", "--time", "5"])
        .args(["--settle", "2000", "--break", "spin.c:16"])
        .args(["-o", "sub.html", "--json", "sub.json", "--", "./spin"])
        .current_dir(dir)
        .env("SLURM_CONF", cohort_fixtures::SLURM_CONF)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("Submitted batch job "), "{out}");
    let script = std::fs::read_to_string(dir.join("sub.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --ntasks=3\n"), "{script}");
    assert!(script.contains("#SBATCH --time=5\n"), "{script}");
    assert!(
        script.contains(" offline -n 3 --time 5 --settle 2000 --break spin.c:16 -o sub.html --json sub.json --launcher slurm -- ./spin\n"),
        "{script}"
    );
    // The job's report (the job has a minute).
    let json = dir.join("sub.json");
    for _ in 0..120 {
        if json.is_file() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the job wrote its report"))
            .unwrap();
    let last = r["summary"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last,
        "[0,2] wait in MPI_Barrier at spin.c:19 for rank 1, which is running in relax at spin.c:7"
    );
}

/// `--submit pbs` where PBS is not installed: the job script is written (PBS's directives,
/// the Open MPI launcher inside the job) and the error says where to submit it.
#[test]
fn offline_for_pbs_writes_the_job_script() {
    let prog = build_mpi("spin", "mpicc.openmpi");
    let dir = prog.parent().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["offline", "-n", "4", "--submit", "pbs", "--nodes", "2"])
        .args(["--break", "spin.c:16", "-o", "pbs.html", "--", "./spin"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("qsub is not installed here: submit pbs.pbs where pbs is"),
        "{err}"
    );
    let script = std::fs::read_to_string(dir.join("pbs.pbs")).unwrap();
    assert!(script.contains("#PBS -l select=2:mpiprocs=2\n"), "{script}");
    assert!(
        script.contains(
            " offline -n 4 --nodes 2 --break spin.c:16 -o pbs.html --launcher openmpi -- ./spin\n"
        ),
        "{script}"
    );
}

/// `info ranks` and `compare` in a C++ method at -O2 (field check): the place is the method as
/// frames name it, and a `std::vector<double>` (printed by its pretty printer) gets each rank's
/// statistics and the first element where the ranks differ.
#[test]
fn open_mpi_compare_of_a_cxx_vector_in_a_method() {
    let prog = build_mpi("cxxhalo", "mpicc.openmpi");
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["launch", "-n", "4", "--launcher", "openmpi", "-batch"])
        .args(["-ex", "break Field::relax", "-ex", "continue"])
        .args([
            "-ex",
            "info ranks",
            "-ex",
            "compare u_.size()",
            "-ex",
            "compare u_",
        ])
        .arg("--")
        .arg("./cxxhalo")
        .current_dir(prog.parent().unwrap())
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let from = out
        .find("[0-3] stopped in ")
        .unwrap_or_else(|| panic!("{out}\n{}", String::from_utf8_lossy(&o.stderr)));
    let lines: Vec<&str> = out[from..]
        .lines()
        .filter(|l| !l.contains("std::vector of length 66"))
        .collect();
    assert_eq!(
        lines,
        [
            "[0-3] stopped in Field::relax at cxxhalo.cc:18",
            "[0-3] 66",
            "min 66 on [0-3], max 66 on [0-3]",
            "[0] min 0, max 3, sum 4",
            "[1] min 0, max 2, sum 66",
            "[2] min 1, max 3, sum 132",
            "[3] min 0, max 3, sum 194",
            "the ranks differ first at element 0: [0] 3, [1] 0, [2] 1, [3] 2",
        ],
        "{out}"
    );
}

/// `compare` on a hung job: the ranks stopped inside MPI answer in their innermost frame of
/// the program (`rank` of `main`, where they called `MPI_Barrier`), the computing rank in its
/// own frame 0 (`relax`, where `rank` is not in scope); the selected frame stays frame 0.
#[test]
fn open_mpi_compare_in_ranks_stopped_inside_mpi() {
    let (out, err) = diagnose_then("spin", "openmpi", 3, &["compare rank", "compare x", "bt 1"]);
    let from = out
        .find("[0] 0\n")
        .unwrap_or_else(|| panic!("{out}\n{err}"));
    assert_eq!(
        out[from..].trim_end(),
        "[0] 0\n[2] 2\nmin 0 on [0], max 2 on [2]\n[0,2] 0\n[1] 2\nmin 0 on [0,2], max 2 on [1]\n[0,2] #0  0x00007ffff7d6a017 in __GI_sched_yield () at ../sysdeps/unix/syscall-template.S:120\n[1] #0  0x0000555555555183 in relax (x=2) at spin.c:7"
            .replace("0x00007ffff7d6a017", &hex_of(&out, "[0,2] #0  "))
            .replace("0x0000555555555183", &hex_of(&out, "[1] #0  ")),
        "{err}"
    );
    assert!(
        err.contains("[1] No symbol \"rank\" in current context."),
        "{err}"
    );
}

/// The address after `prefix` in `out` (addresses differ between machines).
fn hex_of(out: &str, prefix: &str) -> String {
    out.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_default()
        .to_string()
}
