//! Differential tests: the same command script under gdb 13 and under `cohort`, on programs
//! without debug information (so that gdb works at the instruction level too). What a user
//! reads must be identical, apart from process ids and gdb's libthread_db banner.

use std::path::Path;
use std::process::Command;

use cohort_fixtures::{
    normalize_gdb_output as normalize, program_nodebug, shared_library_nodebug, source_dir,
};

fn run(tool: &str, cmds: &[&str], prog: &Path, args: &[&str]) -> (String, String) {
    let mut c = Command::new(tool);
    c.args(["-nx", "-batch"]);
    for x in cmds {
        c.args(["-ex", x]);
    }
    c.arg("--args").arg(prog).args(args);
    if let Some(d) = prog.parent().filter(|d| d.is_dir()) {
        c.current_dir(d);
    }
    c.env_remove("LINES").env_remove("COLUMNS");
    let o = c.output().expect("run debugger");
    (
        normalize(&String::from_utf8_lossy(&o.stdout)),
        normalize(&String::from_utf8_lossy(&o.stderr)),
    )
}

fn cohort() -> &'static str {
    env!("CARGO_BIN_EXE_cohort")
}

fn same_as_gdb(name: &str, args: &[&str], cmds: &[&str]) {
    let prog = program_nodebug(name);
    let g = run("gdb", cmds, &prog, args);
    let c = run(cohort(), cmds, &prog, args);
    assert_eq!(c.0, g.0, "stdout differs from gdb for {name} {cmds:?}");
    assert_eq!(c.1, g.1, "stderr differs from gdb for {name} {cmds:?}");
}

#[test]
fn breakpoints_stepping_and_disassembly() {
    same_as_gdb(
        "loop",
        &["3"],
        &[
            "break tick",
            "tbreak main",
            "info breakpoints",
            "run",
            "info breakpoints",
            "continue",
            "stepi",
            "stepi 3",
            "x/12i $pc",
            "x/20i main",
            "disable 1",
            "info breakpoints",
            "enable 1",
            "continue",
            "info breakpoints",
            "delete 1",
            "continue",
        ],
    );
}

#[test]
fn memory_and_registers() {
    same_as_gdb(
        "loop",
        &["2"],
        &[
            "break *0",
            "delete",
            "break tick",
            "run",
            "x/8xb $pc",
            "x/3xg main",
            "x/4dw main",
            "x/4uh main",
            "x/2c main",
            "x/2ow main",
            "info registers",
            "info registers rip",
            "info registers eflags cs ss",
            "info registers nosuchreg",
            "x/2i 0",
            "x/4xw 0",
            "kill",
            "info registers",
        ],
    );
}

#[test]
fn signals_stop_and_terminate() {
    same_as_gdb("segv", &[], &["run", "continue", "info threads"]);
    same_as_gdb(
        "signals",
        &[],
        &["handle SIGUSR1 nostop print", "run", "continue"],
    );
    same_as_gdb(
        "signals",
        &[],
        &[
            "handle SIGUSR1 nostop noprint",
            "handle SIGFPE nopass",
            "run",
            "info signals SIGFPE",
        ],
    );
    same_as_gdb("exitcode", &["3"], &["run"]);
    same_as_gdb("exitcode", &["0"], &["run"]);
    same_as_gdb(
        "exitcode",
        &["sig", "6"],
        &["handle SIGABRT nostop noprint", "run"],
    );
}

#[test]
fn signal_table() {
    same_as_gdb("loop", &[], &["info signals"]);
}

#[test]
fn threads_select_and_kill() {
    same_as_gdb(
        "loop",
        &["4"],
        &[
            "break tick",
            "run",
            "info threads",
            "thread 1",
            "thread",
            "thread 2",
            "kill",
        ],
    );
}

#[test]
fn shared_libraries() {
    same_as_gdb(
        "loop",
        &[],
        &[
            "info sharedlibrary",
            "break main",
            "run",
            "info sharedlibrary",
        ],
    );
}

#[test]
fn bad_input() {
    // A missing program and a file that is not ELF.
    let c = run(cohort(), &["run"], Path::new("/nonexistent/prog"), &[]);
    let g = run("gdb", &["run"], Path::new("/nonexistent/prog"), &[]);
    assert_eq!(c.1.lines().next(), g.1.lines().next());
    let src = source_dir().join("loop.c");
    let c = run(cohort(), &[], &src, &[]);
    let g = run("gdb", &[], &src, &[]);
    assert_eq!(c.1, g.1);
    // A pid that does not exist.
    let o = Command::new(cohort())
        .args(["-nx", "-batch", "-p", "999999999"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim(), "ptrace: No such process.");
}

#[test]
fn pending_breakpoint_in_dlopened_library() {
    let lib = shared_library_nodebug("plugin");
    let lib = lib.to_str().unwrap();
    same_as_gdb(
        "dlmain",
        &[lib],
        &[
            "set breakpoint pending on",
            "break plugin_fn",
            "info breakpoints",
            "run",
            "info breakpoints",
            "x/2i $pc",
            "continue",
        ],
    );
    // Without `set breakpoint pending on`, batch mode answers no, as gdb does.
    same_as_gdb("dlmain", &[lib], &["break plugin_fn", "info breakpoints"]);
}

#[test]
fn watchpoint_hit_in_new_thread() {
    same_as_gdb(
        "watch",
        &[],
        &[
            "break ready",
            "run",
            "watch *(int *) &watched",
            "info breakpoints",
            "continue",
            "info breakpoints",
        ],
    );
}

#[test]
fn address_breakpoints_before_run() {
    // `*tick` follows the program to its load address; a raw link-time address cannot be
    // inserted, and both debuggers say so the same way.
    same_as_gdb(
        "loop",
        &["1"],
        &[
            "break *tick",
            "break *0x1139",
            "run",
            "info breakpoints",
            "delete 2",
            "continue",
        ],
    );
}
