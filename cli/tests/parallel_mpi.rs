//! `cohort launch --launcher openmpi`: ranks acquired from `mpirun` through MPIR, and the
//! parallel step of ../shared/CLI.md: a rank blocked in `MPI_Recv` is reported as waiting and
//! completes its step when a later command lets its peer send.

use std::path::{Path, PathBuf};
use std::process::Command;

fn build_mpi(name: &str, mpicc: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{mpicc}-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/mpi/{name}.c"));
    std::fs::copy(&src, dir.join(format!("{name}.c"))).unwrap();
    let st = Command::new(mpicc)
        .args(["-g", "-O0", "-o", name])
        .arg(format!("{name}.c"))
        .current_dir(&dir)
        .status()
        .expect("Open MPI and MPICH are installed by scripts/test.sh");
    assert!(st.success());
    dir.join(name)
}

#[test]
fn open_mpi_rank_waiting_in_mpi_recv_completes_when_its_peer_sends() {
    waiting_in_mpi_recv("openmpi", "mpicc.openmpi");
}

#[test]
fn mpich_rank_waiting_in_mpi_recv_completes_when_its_peer_sends() {
    waiting_in_mpi_recv("mpich", "mpicc.mpich");
}

fn waiting_in_mpi_recv(launcher: &str, mpicc: &str) {
    let prog = build_mpi("pingwait", mpicc);
    let o = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["launch", "-n", "2", "--launcher", launcher, "-batch"])
        .args(["-ex", "break pingwait.c:11", "-ex", "continue"])
        .args(["-ex", "next", "-ex", "next", "-ex", "info ranks"])
        .args(["-ex", "next", "-ex", "print value", "-ex", "continue"])
        .arg("--")
        .arg("./pingwait")
        .current_dir(prog.parent().unwrap())
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    // From the first stop on (attaching prints pids and addresses that change run to run).
    let from = out
        .find("[0-1] 11\t")
        .unwrap_or_else(|| panic!("{out}\n{err}"));
    let tail: Vec<&str> = out[from..]
        .lines()
        .filter(|l| !l.contains("(LWP ") && !l.starts_with("rank "))
        .collect();
    assert_eq!(
        tail.join("\n"),
        "[0-1] 11\t    if (rank == 0) {
[0] 12\t        MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
[1] 15\t        value = 41;
[0] waiting in MPI_Recv from 1 (`next` completes when it returns)
[1] 16\t        MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
[0] running (waiting in MPI_Recv from 1)
[1] stopped in main at pingwait.c:16
[0] 13\t        value += 1;
[1] 18\t    printf(\"rank %d value %d\\n\", rank, value);
[0-1] $1 = 41
[0-1] [Inferior 1 exited normally]",
        "\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert_eq!(
        err.lines()
            // Where attaching found the ranks (inside MPI_Init, in libc without its sources).
            .filter(|l| !l.is_empty() && !l.ends_with(": No such file or directory."))
            .collect::<Vec<_>>()
            .join("\n"),
        "",
        "{err}"
    );
    assert!(
        out.contains("rank 0 value 42\n") && out.contains("rank 1 value 41\n"),
        "{out}"
    );
}
