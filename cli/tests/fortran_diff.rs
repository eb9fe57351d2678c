//! Fortran cases (issue 5): each program in `tests/fortran` is built with `gfortran -g -O0`
//! and `flang-22 -g -O0` (as its `# compilers:` line says) and its script run under `cohort`.
//! Where gdb 13 is right, gdb is the oracle (run live, same argv); where gdb is wrong, the
//! case has a hand-written `NAME.COMPILER.expected` (see `tests/fortran/README.md`).
//!
//! One test per (case, compiler). Cases listed in `PENDING` are not supported yet: they still
//! run and their diff is printed, and the test asserts that they still FAIL, so a case that
//! starts passing must be taken off the list.
//!
//! `FORTRAN_DIFF_CANDIDATE=gdb cargo test -p cohort --test fortran_diff` runs gdb against gdb
//! (differential cases: checks the oracle is deterministic; hand-expected cases: shows where
//! gdb differs from the expectation). `FORTRAN_DIFF_DUMP=DIR` also writes each candidate's
//! output to `DIR/NAME.COMPILER.out` in the `.expected` format.

use std::time::Duration;

use cohort_fixtures::{
    fortran_case, fortran_case_compilers, fortran_case_dir, line_diff, run_debugger,
};

/// A debugger session that runs longer than this is killed (and its output so far compared).
const LIMIT: Duration = Duration::from_secs(300);

/// Separates stdout from stderr in `.expected` files.
const STDERR_MARK: &str = "---- stderr ----\n";

/// (case, compiler, reason): cases cohort does not pass yet. Each must still fail.
const PENDING: &[(&str, &str, &str)] = &[
    (
        "arrays_alloc_ptr",
        "flang",
        "Fortran support (issue 5) not implemented yet",
    ),
    (
        "arrays_alloc_ptr",
        "gfortran",
        "Fortran support (issue 5) not implemented yet",
    ),
    (
        "arrays_dummy",
        "flang",
        "Fortran support (issue 5) not implemented yet",
    ),
    (
        "arrays_dummy",
        "gfortran",
        "Fortran support (issue 5) not implemented yet",
    ),
    (
        "arrays_explicit",
        "flang",
        "Fortran support (issue 5) not implemented yet",
    ),
    (
        "arrays_explicit",
        "gfortran",
        "Fortran support (issue 5) not implemented yet",
    ),
];

fn joined(out: &(String, String)) -> String {
    format!("{}{STDERR_MARK}{}", out.0, out.1)
}

fn outcome(name: &str, compiler: &str) -> Result<(), String> {
    let case = fortran_case(name, compiler);
    let candidate = std::env::var("FORTRAN_DIFF_CANDIDATE")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_cohort").into());
    let got = run_debugger(
        &candidate,
        &case.program,
        &[],
        &case.commands,
        &case.env,
        LIMIT,
    );
    let got = joined(&got);
    if let Ok(dir) = std::env::var("FORTRAN_DIFF_DUMP") {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(format!("{dir}/{name}.{compiler}.out"), &got);
    }
    let (expected, oracle) = match &case.expected {
        Some(e) => (e.clone(), format!("{name}.{compiler}.expected")),
        None => (
            joined(&run_debugger(
                "gdb",
                &case.program,
                &[],
                &case.commands,
                &case.env,
                LIMIT,
            )),
            "gdb".to_string(),
        ),
    };
    if got == expected {
        Ok(())
    } else {
        Err(format!(
            "case {name} ({compiler}, {}): output differs (- {oracle}, + {candidate}):\n{}",
            case.program.display(),
            line_diff(&expected, &got)
        ))
    }
}

fn check(name: &str, compiler: &str) {
    let pending = PENDING
        .iter()
        .find(|(n, c, _)| *n == name && *c == compiler);
    match (outcome(name, compiler), pending) {
        (Ok(()), None) => {}
        (Err(report), None) => panic!("{report}"),
        (Err(report), Some((_, _, why))) => {
            eprintln!("PENDING ({why}), still failing as listed:\n{report}");
        }
        (Ok(()), Some((_, _, why))) => panic!(
            "case {name} ({compiler}) now passes: take it off PENDING in \
             cli/tests/fortran_diff.rs (it was listed as: {why})"
        ),
    }
}

macro_rules! cases {
    ($($test:ident = ($name:literal, $compiler:literal)),* $(,)?) => {
        const CASES: &[(&str, &str)] = &[$(($name, $compiler)),*];
        $(
            #[test]
            fn $test() {
                check($name, $compiler);
            }
        )*
    };
}

cases! {
    arrays_alloc_ptr_gfortran = ("arrays_alloc_ptr", "gfortran"),
    arrays_alloc_ptr_flang = ("arrays_alloc_ptr", "flang"),
}

/// Every (script, compiler of its `# compilers:` line) in `tests/fortran` has its test above,
/// and every PENDING entry names a listed case.
#[test]
fn every_case_is_listed() {
    let mut on_disk: Vec<(String, String)> = Vec::new();
    for e in std::fs::read_dir(fortran_case_dir()).expect("read tests/fortran") {
        let p = e.expect("directory entry").path();
        if p.extension().is_some_and(|x| x == "cmds") {
            let name = p
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("case name")
                .to_string();
            for c in fortran_case_compilers(&name) {
                on_disk.push((name.clone(), c));
            }
        }
    }
    on_disk.sort();
    let mut listed: Vec<(String, String)> = CASES
        .iter()
        .map(|(n, c)| (n.to_string(), c.to_string()))
        .collect();
    listed.sort();
    assert_eq!(
        listed, on_disk,
        "cases! list and tests/fortran/*.cmds differ"
    );
    for (n, c, _) in PENDING {
        assert!(
            CASES.contains(&(*n, *c)),
            "PENDING names ({n}, {c}), which is not a case"
        );
    }
}

/// Every `.expected` file belongs to a case and compiler that exists.
#[test]
fn every_expected_file_has_a_case() {
    for e in std::fs::read_dir(fortran_case_dir()).expect("read tests/fortran") {
        let p = e.expect("directory entry").path();
        let f = p
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        if let Some(stem) = f.strip_suffix(".expected") {
            let (n, c) = stem.rsplit_once('.').expect("NAME.COMPILER.expected");
            assert!(CASES.contains(&(n, c)), "{f} has no case");
        }
    }
}
