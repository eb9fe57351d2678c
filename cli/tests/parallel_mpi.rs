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

/// `cohort launch -n N --launcher LAUNCHER EXTRA -batch -ex CMD... -- ./PROG` in the
/// program's folder.
fn launch_batch(
    prog: &Path,
    launcher: &str,
    n: u32,
    extra: &[&str],
    cmds: &[&str],
) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args(["launch", "-n", &n.to_string(), "--launcher", launcher])
        .args(extra)
        .arg("-batch");
    for x in cmds {
        c.args(["-ex", x]);
    }
    c.arg("--")
        .arg(Path::new(".").join(prog.file_name().unwrap()))
        .current_dir(prog.parent().unwrap())
        .env("OMPI_MCA_btl", "self,vader")
        .output()
        .unwrap()
}

#[test]
fn open_mpi_rank_waiting_in_mpi_recv_completes_when_its_peer_sends() {
    waiting_in_mpi_recv("openmpi", "mpicc.openmpi");
}

/// A hung job in the program's terms (issue 20): rank 0 waits in `MPI_Recv` deep in the MPI
/// library's progress engine, rank 1 sleeps in libc; `info ranks` names the MPI call or the
/// library function the program called, and the program's line, not the innermost frame.
#[test]
fn open_mpi_hung_ranks_in_the_programs_terms() {
    hung_ranks("openmpi", "mpicc.openmpi");
}

#[test]
fn mpich_hung_ranks_in_the_programs_terms() {
    hung_ranks("mpich", "mpicc.mpich");
}

fn hung_ranks(launcher: &str, mpicc: &str) {
    let prog = build_mpi("hang", mpicc);
    // `bt 1` waits for the interrupt's stops.
    let o = launch_batch(
        &prog,
        launcher,
        2,
        &["--settle", "1000"],
        &["continue", "interrupt", "bt 1", "info ranks"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let states: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" called from "))
        .collect();
    assert_eq!(
        states,
        [
            "[0] waiting in MPI_Recv called from hang.c:12",
            "[1] stopped in sleep called from hang.c:15"
        ],
        "\nstdout:\n{out}\nstderr:\n{err}"
    );
}

#[test]
fn mpich_rank_waiting_in_mpi_recv_completes_when_its_peer_sends() {
    waiting_in_mpi_recv("mpich", "mpicc.mpich");
}

fn waiting_in_mpi_recv(launcher: &str, mpicc: &str) {
    let prog = build_mpi("pingwait", mpicc);
    let o = launch_batch(
        &prog,
        launcher,
        2,
        &[],
        &[
            "break pingwait.c:11",
            "continue",
            "next",
            "next",
            "info ranks",
            "next",
            "print value",
            "continue",
        ],
    );
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

/// Each `<0xLOW..0xHIGH>` of `text` as `<RANGE>`, checked to be a range (LOW < HIGH).
fn ranges_named(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("<0x") {
        out.push_str(&rest[..i]);
        let Some(end) = rest[i..].find('>') else {
            break;
        };
        let range = &rest[i + 1..i + end];
        let (lo, hi) = range
            .split_once("..")
            .unwrap_or_else(|| panic!("not a range: {range}"));
        let v = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
        assert!(v(lo) < v(hi), "{range}");
        out.push_str("<RANGE>");
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    out
}

/// With address-space randomisation on (as `mpirun`'s ranks have it on other nodes; here
/// gdb's `set disable-randomization off`), every pc and pointer differs from rank to rank:
/// the stop, `bt`, `info frame` and a pointer's value are still one answer for the four ranks,
/// each address shown as the range of its values; the pointer printed with `/x` (a number) is
/// not merged.
#[test]
fn open_mpi_ranks_with_randomised_addresses_give_one_answer() {
    let prog = build_mpi("addrs", "mpicc.openmpi");
    let o = launch_batch(
        &prog,
        "openmpi",
        4,
        &[],
        &[
            "set disable-randomization off",
            "break leaf",
            "continue",
            "bt",
            "info frame",
            "print c",
            "print *c",
            "print/x c",
            "continue",
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let from = out
        .find("[0-3] Breakpoint 1 at ")
        .unwrap_or_else(|| panic!("{out}\n{err}"));
    let tail: Vec<&str> = out[from..]
        .lines()
        .filter(|l| !l.starts_with("rank ") && !l.contains("] [Thread 0x"))
        .collect();
    let (merged, hex): (Vec<&str>, Vec<&str>) = tail.iter().partition(|l| !l.contains("] $3 = 0x"));
    assert_eq!(
        ranges_named(&merged.join("\n")),
        "[0-3] Breakpoint 1 at <RANGE>: file addrs.c, line 14.
[0-3]
[0-3] Thread 1 \"addrs\" hit Breakpoint 1, leaf (c=<RANGE>, name=<RANGE> \"cell\", n=7) at addrs.c:14
[0-3] 14\t    int s = c->v + n;
[0-3] #0  leaf (c=<RANGE>, name=<RANGE> \"cell\", n=7) at addrs.c:14
[0-3] #1  <RANGE> in main (argc=1, argv=<RANGE>) at addrs.c:26
[0-3] Stack level 0, frame at <RANGE>:
[0-3]  rip = <RANGE> in leaf (addrs.c:14); saved rip = <RANGE>
[0-3]  called by frame at <RANGE>
[0-3]  source language c.
[0-3]  Arglist at <RANGE>, args: c=<RANGE>, name=<RANGE> \"cell\", n=7
[0-3]  Locals at <RANGE>, Previous frame's sp is <RANGE>
[0-3]  Saved registers:
[0-3]   rbp at <RANGE>, rip at <RANGE>
[0-3] $1 = (struct cell *) <RANGE>
[0-3] $2 = {v = 1, next = 0x0}
[0-3] [Inferior 1 exited normally]",
        "\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert_eq!(
        hex.iter()
            .map(|l| l.split(" = ").next().unwrap())
            .collect::<Vec<_>>(),
        ["[0] $3", "[1] $3", "[2] $3", "[3] $3"],
        "{out}"
    );
    for r in 0..4 {
        assert!(out.contains(&format!("rank {r}: 8\n")), "{out}");
    }
}
