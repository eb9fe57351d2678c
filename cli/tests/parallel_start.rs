//! Every launcher presents its ranks at the same place in the user's code: at `main` (C) or
//! the main program (Fortran), as gdb's `start` does (gdb is the oracle for those lines); where
//! the launcher lets ranks go only inside `MPI_Init` (Open MPI's `mpirun`), at the first line
//! after `MPI_Init` returns, said so in one line. Under Slurm an Open MPI program gets the
//! `--mpi` plugin it needs without the user's help, and a rank that dies in `MPI_Init` says
//! why in one line.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cohort() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cohort"))
}

/// The line of `tests/mpi/FILE` holding `marker`.
fn line_of(file: &str, marker: &str) -> usize {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/mpi")
            .join(file),
    )
    .unwrap();
    text.lines().position(|l| l.contains(marker)).unwrap() + 1
}

/// gdb 13's `start` and `bt` on the program run alone (it stops before `MPI_Init`).
fn gdb_start(prog: &Path) -> String {
    let o = Command::new("gdb")
        .args(["-nx", "-batch", "-ex", "start", "-ex", "bt"])
        .arg(prog.file_name().unwrap())
        .current_dir(prog.parent().unwrap())
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.contains("libthread_db") && !l.starts_with("[Thread debugging"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Each line prefixed with the rank set, as the front end prints an answer of every rank.
fn all_ranks(set: &str, text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                format!("[{set}]\n")
            } else {
                format!("[{set}] {l}\n")
            }
        })
        .collect()
}

/// `cohort launch -n N ARGS -batch -ex CMD… -- ./PROG`: (stdout without the front end's own
/// lines, the ranks' thread notices and the program's output; all of stdout; stderr).
fn launch(
    prog: &Path,
    n: u32,
    args: &[&str],
    cmds: &[&str],
    env: &[(&str, &str)],
) -> (String, String, String) {
    let mut c = Command::new(cohort());
    c.arg("launch")
        .args(["-n", &n.to_string()])
        .args(args)
        .arg("-batch");
    for x in cmds {
        c.args(["-ex", x]);
    }
    c.arg("--")
        .arg(format!("./{}", prog.file_name().unwrap().to_string_lossy()))
        .current_dir(prog.parent().unwrap())
        .envs(env.iter().copied());
    let o = c.output().unwrap();
    let all = String::from_utf8_lossy(&o.stdout).into_owned();
    let answers = all
        .lines()
        .filter(|l| {
            let noise = ["cohort: ", "rank "].iter().any(|p| l.starts_with(p))
                || ["] rank ", "] [New Thread ", "] [Thread 0x"]
                    .iter()
                    .any(|p| l.contains(p));
            !noise
        })
        .map(|l| format!("{l}\n"))
        .collect();
    (
        answers,
        all,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

const AFTER_INIT_NOTE: &str = "The launcher lets its ranks go only inside MPI_Init: they are shown at the first line after it.";

/// The C and the Fortran program, built with `cc`/`fc` for the launcher: where they are shown
/// first (`info ranks`, `bt`), every rank alike. `at_main` is true where the launcher's ranks
/// stop at main (gdb's `start`, whose first line, the breakpoint's address, is said only
/// where `said_address`); else they stop after `MPI_Init`.
fn shown_at_the_same_place(
    launcher: &[&str],
    cc: &str,
    fc: &str,
    at_main: bool,
    said_address: bool,
    env: &[(&str, &str)],
) {
    for (name, compiler, file, main, after) in [
        (
            "start",
            cc,
            "start.c",
            "main",
            "MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* AFTER_INIT */",
        ),
        (
            "fstart",
            fc,
            "fstart.f90",
            "fstart",
            "call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)",
        ),
    ] {
        let prog = cohort_fixtures::mpi_program_in_own_dir(name, compiler);
        let (got, all, err) = launch(&prog, 4, launcher, &["info ranks", "bt"], env);
        let expected = if at_main {
            let gdb = gdb_start(&prog);
            let line = gdb
                .lines()
                .find_map(|l| l.strip_prefix("#0  "))
                .and_then(|f| f.rsplit_once(':'))
                .map(|(_, n)| n.to_string())
                .unwrap_or_else(|| panic!("gdb: {gdb}"));
            let (start, bt) = gdb.split_at(gdb.find("#0").unwrap());
            let start = if said_address {
                start
            } else {
                // Without the breakpoint's address line.
                start.split_once('\n').unwrap().1
            };
            format!(
                "{}[0-3] stopped in {main} at {file}:{line}\n{}",
                all_ranks("0-3", start),
                all_ranks("0-3", bt)
            )
        } else {
            let line = line_of(file, after);
            format!(
                "[0-3] {AFTER_INIT_NOTE}\n[0-3] {main} () at {file}:{line}\n[0-3] {line}\t{}\n[0-3] stopped in {main} at {file}:{line}\n[0-3] #0  {main} () at {file}:{line}\n",
                after_text(file, line)
            )
        };
        assert_eq!(
            got, expected,
            "{launcher:?} {name}\nall:\n{all}\nstderr:\n{err}"
        );
    }
}

/// The text of line `line` of `tests/mpi/FILE`.
fn after_text(file: &str, line: usize) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/mpi")
            .join(file),
    )
    .unwrap();
    text.lines().nth(line - 1).unwrap().to_string()
}

#[test]
fn local_ranks_are_shown_at_main() {
    // (Open MPI programs run alone: they stop before MPI_Init.)
    shown_at_the_same_place(&[], "mpicc.openmpi", "mpif90.openmpi", true, true, &[]);
}

#[test]
fn mpich_ranks_are_shown_at_main() {
    shown_at_the_same_place(
        &["--launcher", "mpich"],
        "mpicc.mpich",
        "mpif90.mpich",
        true,
        true,
        &[],
    );
}

#[test]
fn open_mpi_ranks_are_shown_after_mpi_init_and_say_so() {
    shown_at_the_same_place(
        &["--launcher", "openmpi"],
        "mpicc.openmpi",
        "mpif90.openmpi",
        false,
        false,
        &[("OMPI_MCA_btl", "self,vader")],
    );
}

#[test]
fn slurm_ranks_are_shown_at_main_and_open_mpi_programs_just_work() {
    let _c = cohort_fixtures::SlurmCluster::start(2);
    let conf = [("SLURM_CONF", cohort_fixtures::SLURM_CONF)];
    // srun leaves its tasks stopped at their first instruction: they are run to main as
    // `start` runs a program (where address-space randomisation put main is not said).
    shown_at_the_same_place(
        &["--launcher", "slurm"],
        "mpicc.openmpi",
        "mpif90.openmpi",
        true,
        false,
        &conf,
    );

    // An Open MPI program under Slurm without SLURM_MPI_TYPE=pmix: every rank knows the job.
    let prog = cohort_fixtures::mpi_program_in_own_dir("start", "mpicc.openmpi");
    let print = line_of("start.c", "/* PRINT */");
    let (got, all, err) = launch(
        &prog,
        4,
        &["--launcher", "slurm"],
        &[
            &format!("tbreak start.c:{print}"),
            "continue",
            "print rank",
            "print size",
            "info ranks",
        ],
        &conf,
    );
    assert!(
        all.starts_with(
            "cohort: ./start uses Open MPI: its ranks start with srun --mpi=pmix\ncohort: 4 ranks of srun (pid "
        ),
        "{all}"
    );
    let from = got.find("[0] $1").unwrap_or_else(|| panic!("{all}\n{err}"));
    assert_eq!(
        &got[from..],
        format!(
            "[0] $1 = 0\n[1] $1 = 1\n[2] $1 = 2\n[3] $1 = 3\n[0-3] $2 = 4\n[0-3] stopped in main at start.c:{print}\n"
        ),
        "{all}"
    );

    // The user's own choice stands; where it cannot work, a rank that dies in MPI_Init says
    // why.
    let (got, all, err) = launch(
        &prog,
        2,
        &["--launcher", "slurm"],
        &["continue", "info ranks"],
        &[conf[0], ("SLURM_MPI_TYPE", "none")],
    );
    assert!(all.starts_with("cohort: 2 ranks of srun (pid "), "{all}");
    let from = got
        .find("[0-1] [Inferior 1")
        .unwrap_or_else(|| panic!("{all}\n{err}"));
    assert_eq!(
        &got[from..],
        "[0-1] [Inferior 1 exited with code 01]\n[0-1] exited with code 1\n",
        "{all}"
    );
    assert!(
        err.contains("\n[0-1] The rank died in MPI_Init: an Open MPI program's MPI_Init fails under srun's MPI plugin 'none' (SLURM_MPI_TYPE).\n"),
        "{err}"
    );
}
