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

/// (case, compiler, reason): cases cohort does not pass yet. Each must still fail (a pending
/// case that passes fails its test, so that it is taken off this list). Empty: every case passes.
#[rustfmt::skip]
const PENDING: &[(&str, &str, &str)] = &[];

fn joined(out: &(String, String)) -> String {
    format!("{}{STDERR_MARK}{}", out.0, out.1)
}

/// Hand-written expectations do not pin code addresses (`Breakpoint 1 at 0x1169: …`, which
/// move with the compiler's version): every `0x` number becomes `0x?` on both sides. The
/// differential cases compare addresses exactly (gdb and the candidate run the same binary).
fn mask_addresses(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("0x") {
        out.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        let n = rest.chars().take_while(|c| c.is_ascii_hexdigit()).count();
        if n > 0 {
            out.push('?');
        }
        rest = &rest[n..];
    }
    out.push_str(rest);
    out
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
    let (expected, got, oracle) = match &case.expected {
        Some(e) => (
            mask_addresses(e),
            mask_addresses(&got),
            format!("{name}.{compiler}.expected"),
        ),
        None => (
            joined(&run_debugger(
                "gdb",
                &case.program,
                &[],
                &case.commands,
                &case.env,
                LIMIT,
            )),
            got,
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
    arrays_dummy_gfortran = ("arrays_dummy", "gfortran"),
    arrays_dummy_flang = ("arrays_dummy", "flang"),
    arrays_explicit_gfortran = ("arrays_explicit", "gfortran"),
    arrays_explicit_flang = ("arrays_explicit", "flang"),
    arrays_print_gfortran = ("arrays_print", "gfortran"),
    arrays_print_flang = ("arrays_print", "flang"),
    array_limits_gfortran = ("array_limits", "gfortran"),
    c_arrays_gfortran = ("c_arrays", "gfortran"),
    case_fold_gfortran = ("case_fold", "gfortran"),
    display_scope_gfortran = ("display_scope", "gfortran"),
    display_scope_flang = ("display_scope", "flang"),
    array_limits_flang = ("array_limits", "flang"),
    external_underscore_gfortran = ("external_underscore", "gfortran"),
    external_underscore_flang = ("external_underscore", "flang"),
    class_unallocated_gfortran = ("class_unallocated", "gfortran"),
    class_unallocated_flang = ("class_unallocated", "flang"),
    artificial_args_gfortran = ("artificial_args", "gfortran"),
    artificial_args_flang = ("artificial_args", "flang"),
    assumed_size_rank_gfortran = ("assumed_size_rank", "gfortran"),
    assumed_size_rank_flang = ("assumed_size_rank", "flang"),
    class_dynamic_gfortran = ("class_dynamic", "gfortran"),
    class_dynamic_flang = ("class_dynamic", "flang"),
    common_equiv_gfortran = ("common_equiv", "gfortran"),
    common_equiv_flang = ("common_equiv", "flang"),
    common_named_gfortran = ("common_named", "gfortran"),
    common_named_flang = ("common_named", "flang"),
    deferred_char_array_gfortran = ("deferred_char_array", "gfortran"),
    deferred_char_array_flang = ("deferred_char_array", "flang"),
    derived_nested_gfortran = ("derived_nested", "gfortran"),
    derived_nested_flang = ("derived_nested", "flang"),
    intrinsics_gfortran = ("intrinsics", "gfortran"),
    intrinsics_flang = ("intrinsics", "flang"),
    intrinsics_extra_gfortran = ("intrinsics_extra", "gfortran"),
    intrinsics_extra_flang = ("intrinsics_extra", "flang"),
    expr_more_gfortran = ("expr_more", "gfortran"),
    expr_more_flang = ("expr_more", "flang"),
    host_scope_gfortran = ("host_scope", "gfortran"),
    host_scope_flang = ("host_scope", "flang"),
    main_program_gfortran = ("main_program", "gfortran"),
    max_value_size_gfortran = ("max_value_size", "gfortran"),
    max_value_size_flang = ("max_value_size", "flang"),
    main_program_flang = ("main_program", "flang"),
    start_program_gfortran = ("start_program", "gfortran"),
    start_program_flang = ("start_program", "flang"),
    module_params_gfortran = ("module_params", "gfortran"),
    module_procs_gfortran = ("module_procs", "gfortran"),
    module_procs_flang = ("module_procs", "flang"),
    names_case_gfortran = ("names_case", "gfortran"),
    names_case_flang = ("names_case", "flang"),
    o2_sections_gfortran = ("o2_sections", "gfortran"),
    outer_entry_gfortran = ("outer_entry", "gfortran"),
    outer_entry_flang = ("outer_entry", "flang"),
    module_rename_gfortran = ("module_rename", "gfortran"),
    module_rename_flang = ("module_rename", "flang"),
    modules_use_gfortran = ("modules_use", "gfortran"),
    modules_use_flang = ("modules_use", "flang"),
    openmp_shared_gfortran = ("openmp_shared", "gfortran"),
    openmp_shared_flang = ("openmp_shared", "flang"),
    openmp_threads_gfortran = ("openmp_threads", "gfortran"),
    openmp_threads_flang = ("openmp_threads", "flang"),
    params_local_gfortran = ("params_local", "gfortran"),
    params_local_flang = ("params_local", "flang"),
    parent_component_gfortran = ("parent_component", "gfortran"),
    parent_component_flang = ("parent_component", "flang"),
    pdt_gfortran = ("pdt", "gfortran"),
    real16_arith_gfortran = ("real16_arith", "gfortran"),
    runtime_bounds_gfortran = ("runtime_bounds", "gfortran"),
    runtime_bounds_entry_gfortran = ("runtime_bounds_entry", "gfortran"),
    scalars_kinds_gfortran = ("scalars_kinds", "gfortran"),
    scalars_kinds_flang = ("scalars_kinds", "flang"),
    scalars_real_ext_gfortran = ("scalars_real_ext", "gfortran"),
    strings_gfortran = ("strings", "gfortran"),
    strings_flang = ("strings", "flang"),
    strings_deferred_gfortran = ("strings_deferred", "gfortran"),
    strings_deferred_flang = ("strings_deferred", "flang"),
    swarm_component_gfortran = ("swarm_component", "gfortran"),
    swarm_component_flang = ("swarm_component", "flang"),
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
    for (i, (n, c, _)) in PENDING.iter().enumerate() {
        assert!(
            !PENDING[..i].iter().any(|(m, d, _)| m == n && d == c),
            "PENDING lists ({n}, {c}) twice"
        );
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
