//! The Fortran foundation (issue 5, wave 1): small programs under `tests/fortran_fixtures/`
//! built with gfortran and flang-22 at test time, run under gdb 13 and under `cohort` with the
//! same commands. Where gdb is right the outputs must be identical; where gdb is wrong the
//! expected text is written here.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cohort_fixtures::normalize_gdb_output;

#[derive(Clone, Copy, Debug)]
enum Compiler {
    Gfortran,
    Flang,
}

/// `tests/fortran_fixtures/NAME.f90` copied into its own folder and compiled there with
/// relative names (so that the debug information names `NAME.f90`).
fn build(name: &str, c: Compiler) -> PathBuf {
    // Built once per test process: tests run in parallel on the same program.
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let key = format!("{c:?}-{name}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = root
        .join("tests/fortran_fixtures")
        .join(format!("{name}.f90"));
    let tag = match c {
        Compiler::Gfortran => "gfortran",
        Compiler::Flang => "flang",
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fortran-core-{tag}-{name}"));
    if built.contains(&key) {
        return dir.join(name);
    }
    std::fs::create_dir_all(&dir).expect("fixture dir");
    std::fs::copy(&src, dir.join(format!("{name}.f90"))).expect("copy fixture");
    let cc = match c {
        Compiler::Gfortran => "gfortran",
        Compiler::Flang => "flang-22",
    };
    let st = Command::new(cc)
        .current_dir(&dir)
        .args(["-g", "-O0", "-o", name, &format!("{name}.f90")])
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e} (scripts/test.sh installs it)"));
    assert!(st.success(), "{cc} {name}.f90 failed");
    built.push(key);
    dir.join(name)
}

fn run(tool: &str, prog: &Path, cmds: &[&str]) -> String {
    let mut c = Command::new(tool);
    c.args(["-nx", "-batch"]);
    for x in cmds {
        c.args(["-ex", x]);
    }
    c.arg(prog);
    if let Some(d) = prog.parent() {
        c.current_dir(d);
    }
    c.env_remove("LINES")
        .env_remove("COLUMNS")
        .stdin(Stdio::null());
    let o = c.output().unwrap_or_else(|e| panic!("run {tool}: {e}"));
    let mut s = normalize_gdb_output(&String::from_utf8_lossy(&o.stdout));
    s.push_str(&normalize_gdb_output(&String::from_utf8_lossy(&o.stderr)));
    s
}

fn cohort(prog: &Path, cmds: &[&str]) -> String {
    run(env!("CARGO_BIN_EXE_cohort"), prog, cmds)
}

/// Scalars of every kind, arrays with lower bounds, assumed shape, strings, derived types,
/// sections, intrinsics, operators, assignment, frame lines and `info locals`/`info args`.
const BASICS: &[&str] = &[
    "break fcore_basics.f90:15",
    "run",
    "print a",
    "print b",
    "ptype a",
    "whatis b",
    "ptype b",
    "print s",
    "print counter",
    "info args",
    "up",
    "info locals",
    "ptype pt",
    "whatis pt",
    "whatis m",
    "print empty",
    "ptype empty",
    "print word",
    "whatis word",
    "print m(3,4)",
    "print v(3)",
    "print i1",
    "whatis c8",
    "whatis l1",
    "print pt%w",
    "bt",
    "print m(-2:0, 1)",
    "print i8 * 2",
    "print r4 + 1",
    "print i2 .gt. 5 .and. l1",
    "print 2**10",
    "print shapes::counter",
    "set var v(3) = 7.5",
    "print v(3)",
    "print word(1:2)",
    "print size(m, 2)",
    "print ubound(m)",
    "show language",
    "print c8",
    "print m(9,9)",
];

fn same_as_gdb(name: &str, c: Compiler, cmds: &[&str]) {
    let prog = build(name, c);
    let want = run("gdb", &prog, cmds);
    let got = cohort(&prog, cmds);
    assert_eq!(got, want, "{name} ({c:?}): cohort differs from gdb");
}

#[test]
fn fortran_basics_gfortran_same_as_gdb() {
    same_as_gdb("fcore_basics", Compiler::Gfortran, BASICS);
}

#[test]
fn fortran_basics_flang_same_as_gdb() {
    same_as_gdb("fcore_basics", Compiler::Flang, BASICS);
}

/// The commands of the shared particles case where gdb 13 is right (no program output in
/// between: `finish` and `next` print what the program writes, buffered differently).
const PARTICLES: &[&str] = &[
    "break fcore_particles.f90:30",
    "run",
    "print name",
    "print k",
    "print nsteps",
    "print swarm(2)",
    "print swarm(3)%pos",
    "print swarm(3)%pos(2)",
    "print size(swarm)",
    "print density",
    "print density(1,0)",
    "print lbound(density)",
    "print ubound(density, 2)",
    "ptype swarm",
    "whatis density",
    "ptype density",
    "bt",
    "up",
    "print z",
    "print grid",
    "print grid(2,3)",
    "print grid(:,2)",
    "print allocated(density)",
    "print particles::nsteps",
    "info locals",
];

#[test]
fn fortran_particles_gfortran_same_as_gdb() {
    same_as_gdb("fcore_particles", Compiler::Gfortran, PARTICLES);
}

#[test]
fn fortran_particles_flang_same_as_gdb() {
    // flang keeps `name` in a location list that does not cover the line: gdb and cohort
    // both say `<optimized out>`.
    same_as_gdb("fcore_particles", Compiler::Flang, PARTICLES);
}

/// gdb 13 fails on a component over an array of derived type ("Attempt to extract a
/// component of a value that is not a structure."); it is the array of the components.
#[test]
fn fortran_component_over_array_of_derived_type() {
    for c in [Compiler::Gfortran, Compiler::Flang] {
        let prog = build("fcore_particles", c);
        let got = cohort(
            &prog,
            &[
                "break fcore_particles.f90:30",
                "run",
                "print swarm%id",
                "print swarm%active",
                "print swarm(2:4:2)%mass",
                "print size(swarm%id)",
            ],
        );
        let tail: Vec<&str> = got.lines().rev().take(4).collect();
        assert_eq!(
            tail,
            [
                "$4 = 4",
                "$3 = (3, 6)",
                "$2 = (.TRUE., .FALSE., .TRUE., .FALSE.)",
                "$1 = (101, 102, 103, 104)",
            ],
            "{c:?}: {got}"
        );
    }
}

/// Errors are gdb's words (checked against gdb 13), and a bad expression does not stop the
/// session.
#[test]
fn fortran_expression_errors() {
    let prog = build("fcore_particles", Compiler::Gfortran);
    let got = cohort(
        &prog,
        &[
            "break fcore_particles.f90:30",
            "run",
            "print nosuch",
            "print swarm(9)",
            "print k .foo. 2",
            "print k%x",
            "print k .eq. 2",
            "print swarm(3)%nope",
        ],
    );
    let tail: Vec<&str> = got.lines().rev().take(6).collect();
    assert_eq!(
        tail,
        // (stdout, then stderr: the errors)
        [
            "There is no member named nope.",
            "Attempt to extract a component of a value that is not a structure.",
            "A syntax error in expression, near `.foo. 2'.",
            "no such vector element",
            "No symbol \"nosuch\" in current context.",
            "$1 = .TRUE.",
        ],
        "{got}"
    );
}

/// `break` on Fortran procedures: plain, `module::proc`, any case (flang's main program is
/// `SIM` in its DWARF, gfortran's `sim`), and `file:line`; the frame lines and `bt` that follow.
#[test]
fn fortran_break_names_same_as_gdb() {
    for c in [Compiler::Gfortran, Compiler::Flang] {
        let prog = build("fcore_particles", c);
        for bp in [
            "label",
            "particles::label",
            "LABEL",
            "Particles::Label",
            "sim",
            "fcore_particles.f90:41",
        ] {
            let cmds = [&format!("break {bp}") as &str, "run", "bt", "info args"];
            let want: Vec<String> = run("gdb", &prog, &cmds)
                .lines()
                .take(6)
                .map(str::to_string)
                .collect();
            let got: Vec<String> = cohort(&prog, &cmds)
                .lines()
                .take(6)
                .map(str::to_string)
                .collect();
            assert_eq!(got, want, "{c:?}: break {bp}");
        }
    }
}

/// Extended types, allocatable components (also inside a printed derived type), pointer
/// arrays (whole and strided targets), unallocated/unassociated before the assignments.
const MORE: &[&str] = &[
    "break fcore_more.f90:25",
    "break fcore_more.f90:36",
    "run",
    "print p",
    "ptype p",
    "print big",
    "ptype big",
    "print h",
    "continue",
    "print q",
    "print q%z",
    "print q%point%y",
    "ptype q",
    "print h",
    "print h%vals",
    "print h%vals(2)",
    "print p",
    "print ps",
    "ptype ps",
    "print ps(2)",
    "print big",
    "whatis big",
    "print t",
    "info locals",
];

#[test]
fn fortran_more_gfortran_same_as_gdb() {
    same_as_gdb("fcore_more", Compiler::Gfortran, MORE);
}

#[test]
fn fortran_more_flang_same_as_gdb() {
    same_as_gdb("fcore_more", Compiler::Flang, MORE);
}

/// A component of the parent type by its own name: gdb 13 says "There is no member named
/// x."; it is `q%point%x`.
#[test]
fn fortran_parent_component_by_name() {
    for c in [Compiler::Gfortran, Compiler::Flang] {
        let prog = build("fcore_more", c);
        let got = cohort(
            &prog,
            &[
                "break fcore_more.f90:36",
                "run",
                "print q%x",
                "print q%y + q%z",
            ],
        );
        let tail: Vec<&str> = got.lines().rev().take(2).collect();
        assert_eq!(tail, ["$2 = 5", "$1 = 1"], "{c:?}: {got}");
    }
}

/// gdb 13's Fortran repeats (`0, <repeats 23 times>`, `(7, 7) <repeats 11 times>`), the
/// element limit (`200, ...)`), blank-padded strings, `real(kind=10)`.
const REPEATS: &[&str] = &[
    "break fcore_repeats.f90:18",
    "run",
    "print x",
    "print y",
    "print z",
    "whatis y",
    "print pad",
    "print a",
    "print m",
    "print w",
    "print a(2:24)",
    "print w(1:20)",
    "print m(:, 2:12)",
];

#[test]
fn fortran_repeats_gfortran_same_as_gdb() {
    same_as_gdb("fcore_repeats", Compiler::Gfortran, REPEATS);
}

#[test]
fn fortran_repeats_flang_same_as_gdb() {
    same_as_gdb("fcore_repeats", Compiler::Flang, REPEATS);
}

/// `real(kind=16)` and `complex(kind=16)` are IEEE binary128 (gfortran only: flang-22 has no
/// `real(16)` on x86-64).
#[test]
fn fortran_quad_gfortran_same_as_gdb() {
    same_as_gdb(
        "fcore_quad",
        Compiler::Gfortran,
        &[
            "break fcore_quad.f90:6",
            "run",
            "print x",
            "print z",
            "whatis x",
            "whatis z",
        ],
    );
}

/// Conditions in Fortran syntax on Fortran breakpoints, `finish` out of Fortran functions
/// (`Value returned`), the function result variable in `info locals`, `set var`, `display`.
const FUNCS: &[&str] = &[
    "break twice if n .eq. 2",
    "run",
    "info args",
    "info locals",
    "finish",
    "break half",
    "c",
    "finish",
    "print r .eq. 4",
    "set var r = 10",
    "print r",
    "whatis r",
    "display r",
    "next",
    "print i .ne. 0 .or. r /= 3",
];

#[test]
fn fortran_funcs_gfortran_same_as_gdb() {
    same_as_gdb("fcore_funcs", Compiler::Gfortran, FUNCS);
}

#[test]
fn fortran_funcs_flang_same_as_gdb() {
    same_as_gdb("fcore_funcs", Compiler::Flang, FUNCS);
}

/// A procedure as a value: gdb names its address by the function's source name
/// (`<calc::twice>`, not the linkage name `__calc_MOD_twice`). gfortran only: gdb 13 does not
/// find flang's module functions by name.
#[test]
fn fortran_procedure_value_gfortran_same_as_gdb() {
    same_as_gdb(
        "fcore_funcs",
        Compiler::Gfortran,
        &[
            "break twice",
            "run",
            "print calc::twice",
            "up",
            "print twice",
        ],
    );
}

/// The intrinsics gdb 13 knows, with its result types (`integer*4`, `int`, `logical*4`,
/// `complex*4`, `integer*8`) and its messages.
const INTRINSIC_CMDS: &[&str] = &[
    "break fcore_basics.f90:15",
    "run",
    "up",
    "print kind(i8)",
    "print kind(c8)",
    "print kind(l1)",
    "print kind(r4)",
    "print cmplx(1,2)",
    "print abs(-3)",
    "print mod(7,3)",
    "print rank(m)",
    "print shape(m)",
    "print lbound(m)",
    "print allocated(empty)",
    "print loc(i1)",
    "whatis kind(i8)",
    "whatis size(m)",
    "whatis lbound(m)",
    "whatis rank(m)",
    "whatis shape(m)",
    "whatis ubound(m,1)",
    "whatis cmplx(1,2)",
    "whatis mod(7,3)",
    "whatis abs(-3)",
    "whatis loc(i1)",
    "whatis allocated(empty)",
];

#[test]
fn fortran_intrinsics_gfortran_same_as_gdb() {
    same_as_gdb("fcore_basics", Compiler::Gfortran, INTRINSIC_CMDS);
}

#[test]
fn fortran_intrinsics_flang_same_as_gdb() {
    same_as_gdb("fcore_basics", Compiler::Flang, INTRINSIC_CMDS);
}

/// Intrinsics gdb 13 does not know (`No symbol "len" in current context.`, `real(c8)` a
/// syntax error): `len`, `aimag`/`imag`, `real`; and `abs` of a complex, its modulus (gdb 13:
/// "ABS of type complex(kind=8) not supported").
#[test]
fn fortran_intrinsics_beyond_gdb() {
    for c in [Compiler::Gfortran, Compiler::Flang] {
        let prog = build("fcore_basics", c);
        let got = cohort(
            &prog,
            &[
                "break fcore_basics.f90:15",
                "run",
                "print len(s)",
                "up",
                "print len(word)",
                "print aimag(c8)",
                "print imag(c8)",
                "print real(c8)",
                "print real(i2)",
                "print len(word(2:5))",
                "print abs(c8)",
            ],
        );
        let values: Vec<&str> = got.lines().filter(|l| l.starts_with('$')).collect();
        assert_eq!(
            values,
            [
                "$1 = 10",
                "$2 = 10",
                "$3 = -1",
                "$4 = -1",
                "$5 = 2.5",
                "$6 = 300",
                "$7 = 4",
                "$8 = 2.6925824035672519",
            ],
            "{c:?}: {got}"
        );
    }
}
