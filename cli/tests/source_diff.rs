//! Source-level differential tests: each case in `tests/source` (a C program with debug
//! information and a gdb command script) runs under gdb 13 and under `cohort` with the same
//! argv; normalised stdout and stderr must be identical.
//!
//! `SOURCE_DIFF_CANDIDATE=gdb cargo test -p cohort --test source_diff` runs gdb against gdb:
//! that checks a case is deterministic under the oracle.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cohort_fixtures::{SourceCase, normalize_gdb_output, source_case, source_case_dir};

/// A debugger session that runs longer than this is killed (and its output so far compared).
const LIMIT: Duration = Duration::from_secs(300);

fn run(tool: &str, case: &SourceCase) -> (String, String) {
    let mut c = Command::new(tool);
    c.args(["-nx", "-batch"]);
    for x in &case.commands {
        c.args(["-ex", x]);
    }
    c.arg("--args").arg(&case.program).args(&case.args);
    if let Some(d) = case.program.parent() {
        c.current_dir(d);
    }
    c.env_remove("LINES").env_remove("COLUMNS");
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap_or_else(|e| panic!("run {tool}: {e}"));
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
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
    let mut timed_out = false;
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            timed_out = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = normalize_gdb_output(&String::from_utf8_lossy(&ro.join().unwrap()));
    let mut err = normalize_gdb_output(&String::from_utf8_lossy(&re.join().unwrap()));
    if timed_out {
        err.push_str(&format!("<killed after {}s>\n", LIMIT.as_secs()));
    }
    (out, err)
}

/// A line diff (longest common subsequence): `-` lines are gdb's, `+` lines the candidate's.
fn diff(expected: &str, got: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = got.lines().collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        }
    }
    out
}

fn check(name: &str) {
    let case = source_case(name);
    let candidate = std::env::var("SOURCE_DIFF_CANDIDATE")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_cohort").into());
    let g = run("gdb", &case);
    let c = run(&candidate, &case);
    let mut report = String::new();
    if c.0 != g.0 {
        report.push_str(&format!(
            "stdout differs from gdb (- gdb, + {candidate}):\n{}",
            diff(&g.0, &c.0)
        ));
    }
    if c.1 != g.1 {
        report.push_str(&format!(
            "stderr differs from gdb (- gdb, + {candidate}):\n{}",
            diff(&g.1, &c.1)
        ));
    }
    assert!(
        report.is_empty(),
        "case {name} ({} {}):\n{report}",
        case.program.display(),
        case.args.join(" ")
    );
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        const CASES: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

cases! {
    assign,
    backtrace,
    bad_input,
    break_cond,
    break_func,
    cxx_class,
    disassemble_x,
    dlopen,
    expressions,
    finish_values,
    history_display,
    info_symbols,
    list_source,
    o2_inline,
    o2_locals,
    o2_step,
    o2_tailcall,
    o2_values,
    print_formats,
    ptype_whatis,
    recursion,
    rt_killed,
    rt_signals,
    scope,
    segv_recursion,
    step_next,
    step_nodebug,
    step_signal,
    stepi_nexti,
    stripped,
    stripped_all,
    threads,
    threads_many,
    tls,
    tls_lib,
    two_units,
    until_advance,
    values_array,
    values_pointer,
    values_scalar,
    values_struct,
    watch_global,
    watch_local,
}

/// Every script in `tests/source` has its test above.
#[test]
fn every_case_is_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(source_case_dir())
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "cmds").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = CASES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(
        listed, on_disk,
        "cases! list and tests/source/*.cmds differ"
    );
}
