//! Two MPI mini-apps of our own (`tests/mpi`), debugged as a user would: `heat2d`, a C 2-D
//! Jacobi stencil (grid and halo structs, a 2x2 process grid, halo exchange through
//! `MPI_Sendrecv` in a second source file, the residual through `MPI_Allreduce`), and `heatf`,
//! a Fortran 90 one (a module with a derived type with allocatable components, module
//! procedures, `use mpi`), each built `-g -O0` and `-g -O2` with Open MPI's wrappers.
//!
//! The same commands run under `cohort launch -n 4 --launcher openmpi` and under gdb 13 on
//! each rank of an `mpirun -n 4` job (a wrapper runs `gdb -batch` as the rank, one output
//! per rank): each rank's part of cohort's merged answers must be what gdb printed on that
//! rank, from the first breakpoint stop on (cohort's ranks start already running inside
//! `MPI_Init`: where gdb has `run`, cohort has `continue`), with the breakpoints' `Breakpoint
//! N at` lines. Only hex numbers are normalised (`mpirun` randomises every rank's address
//! space and cohort shows an address that differs between ranks as `<0xLOW..0xHIGH>`; gdb
//! turns randomisation off), and gdb's `(process N)` in `[Inferior 1 (process N) exited
//! normally]`, which cohort leaves out so that the ranks' lines merge. Where gdb 13 is wrong
//! the expectation is written by hand: see [`gdb_corrected`].

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cohort_fixtures::{line_diff, normalize_gdb_output};

const RANKS: usize = 4;
/// A debugger job that runs longer than this is killed (and what it printed compared).
const LIMIT: Duration = Duration::from_secs(240);

/// `RUN` stands for the command that lets the ranks run to the first breakpoint.
const HEAT2D_O0: &[&str] = &[
    "break halo_exchange",
    "break stencil_sweep",
    "RUN",
    "bt",
    "info args",
    "print *g",
    "print *h",
    "ptype h",
    "next",
    "next",
    "next",
    "next",
    "next",
    // The north halo row, received by the first MPI_Sendrecv.
    "print u[30]@6",
    "print u[0]@6",
    "print g->north",
    "info locals",
    "step",
    "bt",
    "info args",
    "next",
    "info locals",
    "finish",
    "next",
    "next",
    "next",
    "next",
    "next",
    "next",
    "print h->recv_e[0]@h->len",
    "print *h->recv_w@4",
    "print g->west",
    "up",
    "info locals",
    "print field.g",
    "print halo.exchanges",
    "ptype field",
    "down",
    "finish",
    "continue",
    "bt",
    "print f->g.nx * f->g.ny",
    "print *f",
    "print f->u[25]@4",
    "x/4fg f->u + 24",
    "up",
    "info args",
    "print *f->unew@3",
    "down",
    "break heat2d.c:55 if j == 4 && i == 3",
    "continue",
    "info locals",
    "print v",
    "print d",
    "print f->u[(j + 1) * (g->nx + 2) + i]",
    "print g->north == -2",
    "delete 3",
    "finish",
    "next",
    "next",
    "print local",
    "print global",
    // Over MPI_Allreduce: every rank's global is the sum.
    "next",
    "print global",
    "info locals",
    "finish",
    "info breakpoints",
    "delete",
    "continue",
];

/// At -O2: halo_exchange keeps its frame, pack_column, stencil_sweep and residual are
/// inlined.
const HEAT2D_O2: &[&str] = &[
    "break halo_exchange",
    "break stencil_sweep",
    "RUN",
    "bt",
    "info args",
    "print *g",
    "print g->north",
    "print *h",
    "next",
    "next",
    "print u[30]@6",
    "next",
    "step",
    "bt",
    "info locals",
    "finish",
    "next",
    "next",
    "next",
    "info locals",
    "up",
    "info locals",
    "print field.g",
    "print halo",
    "down",
    "finish",
    "continue",
    "bt",
    "info locals",
    "print f->g",
    "up",
    "info args",
    "up",
    "print field.g.nx",
    "down 2",
    "next",
    "next",
    "next",
    "print u[0]@6",
    "info frame",
    "delete 2",
    "tbreak heat2d.c:56",
    "continue",
    "print i",
    "print j",
    "print g->ny",
    "bt",
    "up",
    "info locals",
    "up",
    "print res",
    "print it",
    "down",
    "finish",
    "next",
    "info breakpoints",
    "delete",
    "continue",
];

const HEATF_O0: &[&str] = &[
    "break exchange_halo",
    "break heat_fields::sweep",
    "RUN",
    "bt",
    "info args",
    "print fld%nx",
    "print fld%u(1:3,2)",
    "print size(fld%u)",
    "print shape(fld%u)",
    "print lbound(fld%u)",
    "print ubound(fld%u, 2)",
    "print fld%north",
    "ptype fld",
    "whatis fld%u",
    "next",
    // Over the first MPI_Sendrecv: the south halo column.
    "next",
    "print fld%u(:,0)",
    "print n",
    "info locals",
    "next",
    "print fld%u(:, fld%ny+1)",
    "up",
    "info locals",
    "print temp%name",
    "print temp%u(0:1, 4)",
    "print temp%comm",
    "ptype temp",
    "down",
    "finish",
    "continue",
    "bt",
    "print fld%unew(1:2,1:2)",
    "print fld%h * 2",
    "print allocated(fld%unew)",
    "break heatf_mod.f90:70 if i == 2 .and. j == 3",
    "continue",
    "info locals",
    "print fld%unew(i, j)",
    "print d",
    "print fld%u(i-1:i+1, j)",
    "delete 3",
    "finish",
    "next",
    "next",
    "print local",
    "print total",
    // Over MPI_Allreduce.
    "next",
    "print total",
    "next",
    "info locals",
    "finish",
    "info breakpoints",
    "delete",
    "continue",
];

/// At -O2 the kernel's `d` and `diff` live in vector registers, and `local` is read before it
/// is set: see the report of issue 15 (vector registers are another change's).
const HEATF_O2: &[&str] = &[
    "break exchange_halo",
    "break heat_fields::sweep",
    "RUN",
    "bt",
    "info args",
    "print fld%u(1:3,2)",
    "print size(fld%u)",
    "print fld%north",
    "ptype fld",
    "next",
    "next",
    "print fld%u(:,0)",
    "print n",
    "info locals",
    "next",
    "print fld%u(:, fld%ny+1)",
    "up",
    "info locals",
    "print temp%u(0:1, 4)",
    "down",
    "finish",
    "continue",
    "bt",
    "print fld%unew(1:2,1:2)",
    "print allocated(fld%unew)",
    "break heatf_mod.f90:70 if i == 2 .and. j == 3",
    "continue",
    "print i",
    "print j",
    "print fld%unew(i, j)",
    "print fld%u(i-1:i+1, j)",
    "bt",
    "delete 3",
    "finish",
    "next",
    "next",
    "print total",
    "next",
    "print total",
    "next",
    "info locals",
    "finish",
    "info breakpoints",
    "delete",
    "continue",
];

struct App {
    name: &'static str,
    fortran: bool,
    /// The line the program prints at the end (rank 0).
    result_prefix: &'static str,
}

const HEAT2D: App = App {
    name: "heat2d",
    fortran: false,
    result_prefix: "heat2d: ",
};

const HEATF: App = App {
    name: "heatf",
    fortran: true,
    result_prefix: "heatf: ",
};

#[test]
fn heat2d_o0_ranks_answer_as_gdb_on_each_rank() {
    check(&HEAT2D, "-O0", HEAT2D_O0);
}

#[test]
fn heat2d_o2_ranks_answer_as_gdb_on_each_rank() {
    check(&HEAT2D, "-O2", HEAT2D_O2);
}

#[test]
fn heatf_o0_ranks_answer_as_gdb_on_each_rank() {
    check(&HEATF, "-O0", HEATF_O0);
}

#[test]
fn heatf_o2_ranks_answer_as_gdb_on_each_rank() {
    check(&HEATF, "-O2", HEATF_O2);
}

/// `tests/mpi/APP*` copied into their own folder and built there with bare file names (so
/// that the debug information names `heat2d.c`), `-g` and `opt`.
fn build(app: &App, opt: &str) -> PathBuf {
    build_in(app, opt, "")
}

/// `build` in a folder of its own for a test (`tag`): tests run in parallel.
fn build_in(app: &App, opt: &str, tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("mpi-apps")
        .join(format!("{}{opt}{tag}", app.name));
    std::fs::create_dir_all(&dir).expect("create the build folder");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mpi");
    for e in std::fs::read_dir(&src).expect("read tests/mpi") {
        let p = e.expect("a tests/mpi entry").path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with(app.name) {
            std::fs::copy(&p, dir.join(name)).expect("copy a source");
        }
    }
    let steps: Vec<Vec<&str>> = if app.fortran {
        vec![
            vec!["mpif90.openmpi", "-g", opt, "-c", "heatf_mod.f90"],
            vec![
                "mpif90.openmpi",
                "-g",
                opt,
                "-o",
                "heatf",
                "heatf_mod.o",
                "heatf.f90",
            ],
        ]
    } else {
        vec![vec![
            "mpicc.openmpi",
            "-g",
            opt,
            "-o",
            "heat2d",
            "heat2d.c",
            "heat2d_halo.c",
            "-lm",
        ]]
    };
    for s in steps {
        let st = Command::new(s[0])
            .args(&s[1..])
            .current_dir(&dir)
            .status()
            .expect("Open MPI's compiler wrappers are installed by scripts/test.sh");
        assert!(st.success(), "{s:?} failed");
    }
    dir.join(app.name)
}

/// `cmd`'s output, killing it after [`LIMIT`] (what it printed so far is kept).
fn output_within(mut cmd: Command) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start a debugger job");
    let mut so = child.stdout.take().expect("piped stdout");
    let mut se = child.stderr.take().expect("piped stderr");
    let ro = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let re = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Ok(Some(st)) = child.try_wait() {
            break st;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            break child.wait().expect("wait for a killed job");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: ro.join().unwrap_or_default(),
        stderr: re.join().unwrap_or_default(),
    }
}

/// gdb as each rank of `mpirun -n 4`: (stdout, stderr) per rank.
fn gdb_ranks(prog: &Path, commands: &[&str]) -> Vec<(String, String)> {
    let dir = prog.parent().expect("the program's folder");
    let out = dir.join("gdb-out");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("create the gdb output folder");
    let wrapper = dir.join("gdb-rank.sh");
    std::fs::write(
        &wrapper,
        "#!/bin/sh\nexec gdb -nx -batch \"$@\" >\"$GDB_OUT/$OMPI_COMM_WORLD_RANK.out\" \
         2>\"$GDB_OUT/$OMPI_COMM_WORLD_RANK.err\" </dev/null\n",
    )
    .expect("write the rank wrapper");
    let st = Command::new("chmod")
        .arg("+x")
        .arg(&wrapper)
        .status()
        .expect("chmod");
    assert!(st.success());
    let mut c = Command::new("mpirun");
    c.args(["-n", "4", "--oversubscribe", "--allow-run-as-root"])
        .args(["-x", "GDB_OUT"])
        .arg(&wrapper);
    for cmd in commands {
        c.arg("-ex").arg(if *cmd == "RUN" { "run" } else { cmd });
    }
    c.arg("--args")
        .arg(format!("./{}", prog.file_name().unwrap().to_string_lossy()))
        .current_dir(dir)
        .env("GDB_OUT", &out)
        .env("OMPI_MCA_btl", "self,vader")
        .env_remove("LINES")
        .env_remove("COLUMNS");
    let o = output_within(c);
    assert!(
        o.status.success(),
        "mpirun with gdb as its ranks: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (0..RANKS)
        .map(|r| {
            let read = |ext: &str| {
                std::fs::read_to_string(out.join(format!("{r}.{ext}")))
                    .unwrap_or_else(|e| panic!("rank {r}'s gdb {ext}: {e}"))
            };
            (read("out"), read("err"))
        })
        .collect()
}

/// The ranks of a merged answer's prefix (`0-3`, `1,3`, `0-1,3`).
fn rank_set(s: &str) -> Option<Vec<usize>> {
    let mut v = Vec::new();
    for part in s.split(',') {
        match part.split_once('-') {
            Some((a, b)) => v.extend(a.parse::<usize>().ok()?..=b.parse::<usize>().ok()?),
            None => v.push(part.parse().ok()?),
        }
    }
    Some(v)
}

/// cohort's merged lines split back per rank, and the lines without a rank prefix.
fn split_ranks(text: &str) -> (Vec<String>, Vec<String>) {
    let mut per = vec![String::new(); RANKS];
    let mut other = Vec::new();
    for line in text.lines() {
        let parsed = line.strip_prefix('[').and_then(|l| {
            let (set, rest) = l.split_once(']')?;
            let ranks = rank_set(set)?;
            let rest = match rest.strip_prefix(' ') {
                Some(r) => r,
                None if rest.is_empty() => "",
                None => return None,
            };
            Some((ranks, rest))
        });
        match parsed {
            Some((ranks, rest)) => {
                for r in ranks {
                    if let Some(p) = per.get_mut(r) {
                        p.push_str(rest);
                        p.push('\n');
                    }
                }
            }
            None => other.push(line.to_string()),
        }
    }
    (per, other)
}

/// Every hex number as `0x?`, cohort's `<0xLOW..0xHIGH>` included.
fn mask_hex(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let end = if b[i] == b'<' {
            // `<0xLOW..0xHIGH>`
            line[i + 1..].find('>').and_then(|e| {
                let (lo, hi) = line[i + 1..i + 1 + e].split_once("..")?;
                (is_hex(lo) && is_hex(hi)).then_some(i + e + 2)
            })
        } else if word_start && b[i..].starts_with(b"0x") && hex_len(&line[i + 2..]) > 0 {
            Some(i + 2 + hex_len(&line[i + 2..]))
        } else {
            None
        };
        match end {
            Some(e) => {
                out.push_str(&line[copied..i]);
                out.push_str("0x?");
                i = e;
                copied = e;
            }
            None => i += 1,
        }
    }
    out.push_str(&line[copied..]);
    out
}

fn hex_len(s: &str) -> usize {
    s.chars().take_while(|c| c.is_ascii_hexdigit()).count()
}

fn is_hex(s: &str) -> bool {
    s.strip_prefix("0x")
        .is_some_and(|h| !h.is_empty() && hex_len(h) == h.len())
}

/// One side's text of one rank, compared line by line: [`normalize_gdb_output`], hex
/// masked, gdb's exit line without its process, the program's own result line out.
fn normalized(text: &str, app: &App) -> Vec<String> {
    normalize_gdb_output(text)
        .lines()
        .filter(|l| !l.starts_with(app.result_prefix))
        .map(|l| mask_hex(&l.replace("[Inferior 1 (process N) ", "[Inferior 1 ")))
        .collect()
}

fn is_stop(l: &str) -> bool {
    l.contains(" hit Breakpoint ") || l.contains(" hit Temporary breakpoint ")
}

/// What is compared of a rank's standard output: the `Breakpoint N at` lines before the
/// first stop, then everything from the first stop on.
fn from_first_stop(lines: &[String]) -> String {
    let first = lines.iter().position(|l| is_stop(l)).unwrap_or(lines.len());
    let mut out: Vec<&str> = lines[..first]
        .iter()
        .filter(|l| l.starts_with("Breakpoint ") || l.starts_with("Temporary breakpoint "))
        .map(String::as_str)
        .collect();
    out.extend(lines[first..].iter().map(String::as_str));
    out.join("\n")
}

/// gdb's output of one rank with what gdb 13 gets wrong replaced by what it should print:
/// - `ptype` of a Fortran derived type with a `character*8` component prints that component
///   without the indentation of the others (gdb's `f_type_print_base` indents only named
///   types);
/// - at -O2, where the module is in another unit than the main program, gdb's `bt` goes on
///   past the Fortran main program into gfortran's C `main` and libc's start (at -O0 it ends
///   at the main program, as its `backtrace past-main` says and cohort does at both).
fn gdb_corrected(lines: Vec<String>, app: &App, opt: &str) -> Vec<String> {
    if !app.fortran {
        return lines;
    }
    let mut out = Vec::new();
    let mut past_main = false;
    for l in lines {
        if past_main && l.starts_with('#') {
            continue;
        }
        past_main = opt == "-O2" && l.starts_with('#') && l.contains(" in heatf () at heatf.f90:");
        if l.starts_with("character*") && l.contains(" :: ") {
            out.push(format!("    {l}"));
        } else {
            out.push(l);
        }
    }
    out
}

fn check(app: &App, opt: &str, commands: &[&str]) {
    let prog = build(app, opt);
    let gdb = gdb_ranks(&prog, commands);

    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    // Every rank finishes each step before the answer (no `waiting in MPI_…` on a loaded
    // machine).
    c.args(["launch", "-n", "4", "--launcher", "openmpi"])
        .args(["--settle", "120000", "-batch"]);
    for cmd in commands {
        c.arg("-ex")
            .arg(if *cmd == "RUN" { "continue" } else { cmd });
    }
    c.arg("--")
        .arg(format!("./{}", app.name))
        .current_dir(prog.parent().expect("the program's folder"))
        .env("OMPI_MCA_btl", "self,vader");
    let o = output_within(c);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let (out_ranks, out_other) = split_ranks(&out);
    let (err_ranks, _) = split_ranks(&err);

    let mut report = String::new();
    for r in 0..RANKS {
        let want = from_first_stop(&gdb_corrected(normalized(&gdb[r].0, app), app, opt));
        let got = from_first_stop(&normalized(&out_ranks[r], app));
        if want != got {
            report.push_str(&format!(
                "rank {r}: standard output differs from gdb's (- gdb, + cohort):\n{}",
                line_diff(&want, &got)
            ));
        }
        let want = normalized(&gdb[r].1, app).join("\n");
        // Where attaching found the rank: inside MPI_Init, in libc without its sources.
        let got: Vec<String> = normalized(&err_ranks[r], app)
            .into_iter()
            .skip_while(|l| l.ends_with(": No such file or directory."))
            .collect();
        let got = got.join("\n");
        if want != got {
            report.push_str(&format!(
                "rank {r}: standard error differs from gdb's (- gdb, + cohort):\n{}",
                line_diff(&want, &got)
            ));
        }
    }
    // The program ran to its end the same under both (rank 0 prints its result).
    let result: Vec<&str> = gdb[0]
        .0
        .lines()
        .filter(|l| l.starts_with(app.result_prefix))
        .collect();
    let cohort_result: Vec<&str> = out_other
        .iter()
        .map(String::as_str)
        .filter(|l| l.starts_with(app.result_prefix))
        .collect();
    if result.len() != 1 || result != cohort_result {
        report.push_str(&format!(
            "the program's result: gdb {result:?}, cohort {cohort_result:?}\n"
        ));
    }
    if !o.status.success() {
        report.push_str(&format!("cohort exited with {}\n", o.status));
    }
    assert!(
        report.is_empty(),
        "{} {opt}:\n{report}\ncohort's stdout:\n{out}\ncohort's stderr:\n{err}",
        app.name
    );
}

/// The ranks' place and `compare` in a Fortran module procedure: `info ranks` names it as the
/// frames do (`heat_fields::sweep`, not the linkage name `__heat_fields_MOD_sweep`), and
/// `compare` of a 2-D array (printed `((…) (…))`) gives each rank's statistics and the first
/// element where the ranks differ.
#[test]
fn fortran_module_procedure_in_info_ranks_and_compare() {
    let prog = build_in(&HEATF, "-O0", "-views");
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args(["launch", "-n", "4", "--launcher", "openmpi", "-batch"])
        .args(["-ex", "break heat_fields::sweep", "-ex", "continue"])
        .args(["-ex", "info ranks", "-ex", "compare fld%u(0:2, 0:1)"])
        .arg("--")
        .arg("./heatf")
        .current_dir(prog.parent().expect("the program's folder"))
        .env("OMPI_MCA_btl", "self,vader");
    let o = output_within(c);
    let out = String::from_utf8_lossy(&o.stdout);
    let from = out
        .find("[0-3] stopped in ")
        .unwrap_or_else(|| panic!("{out}\n{}", String::from_utf8_lossy(&o.stderr)));
    assert_eq!(
        out[from..].trim_end(),
        "[0-3] stopped in heat_fields::sweep at heatf_mod.f90:64
[0] ((0, 0, 0) (0, 0, 0))
[1] ((0, 0, 0) (0, 0.25, 0.25))
[2] ((0, 0.25, 0.25) (0, 0.5, 0.5))
[3] ((0, 0.5, 0.5) (0, 0.75, 0.75))
[0] min 0, max 0, sum 0
[1] min 0, max 0.25, sum 0.5
[2] min 0, max 0.5, sum 1.5
[3] min 0, max 0.75, sum 2.5
the ranks differ first at element 1: [0-1] 0, [2] 0.25, [3] 0.5"
    );
}

#[test]
fn merged_answers_split_back_per_rank() {
    let (per, other) = split_ranks(
        "cohort: 4 ranks\n[0-3] $1 = 4\n[0,2] a\n[1,3] b\n[0-1,3]\nprogram line\n[x] y\n",
    );
    assert_eq!(per[0], "$1 = 4\na\n\n");
    assert_eq!(per[1], "$1 = 4\nb\n\n");
    assert_eq!(per[2], "$1 = 4\na\n");
    assert_eq!(per[3], "$1 = 4\nb\n\n");
    assert_eq!(other, ["cohort: 4 ranks", "program line", "[x] y"]);
    assert_eq!(
        mask_hex("#1  <0x5568e21be890..0x562b08c80890> in main (g=0x7ffc) at x.c:3 t=0xfffe"),
        "#1  0x? in main (g=0x?) at x.c:3 t=0x?"
    );
    assert_eq!(mask_hex("h = 0.11 ab0x12 <0x1>"), "h = 0.11 ab0x12 <0x?>");
}
