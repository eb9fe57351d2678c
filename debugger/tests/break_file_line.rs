//! `break FILE:LINE` on a running program: the file is looked up by the names in each unit's
//! line-program header, so objects without the file (libc with its separate debug information,
//! thousands of units) never have their line rows decoded; and every object that has the file
//! gets a location, as in gdb.

use std::sync::Arc;

use cohort_debugger::{Debugger, output};
use cohort_dwarf::loader::DebugFile;

fn run(d: &mut Debugger, cmd: &str) -> String {
    let (_, c) = output::capture(|| d.execute(cmd));
    format!("{}{}", c.out, c.err)
}

/// The debug information this process loaded for the object whose file name starts with
/// `prefix`.
fn loaded(prefix: &str) -> Option<Arc<DebugFile>> {
    DebugFile::loaded().into_iter().find(|d| {
        d.path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(prefix))
    })
}

#[test]
fn break_file_line_leaves_the_line_rows_of_other_objects_unread() {
    let prog = cohort_fixtures::program("ranks");
    let mut d = Debugger::new(true);
    run(&mut d, &format!("file {}", prog.display()));
    let o = run(&mut d, "break main");
    assert!(o.contains("Breakpoint 1 at"), "{o}");
    let o = run(&mut d, "run");
    assert!(o.contains("Breakpoint 1, main ()"), "{o}");
    let o = run(&mut d, "break ranks.c:24");
    assert!(
        o.contains("Breakpoint 2 at ") && o.contains("/tests/fixtures/ranks.c, line 24."),
        "{o}"
    );
    let o = run(&mut d, "break ranks.c:compute");
    assert!(o.contains("Breakpoint 3 at "), "{o}");
    let libc = loaded("libc.so").expect("libc's debug information loaded");
    if libc.has_debug_info() {
        assert_eq!(
            libc.line_tables_read(),
            0,
            "libc's line rows were decoded for a file it does not have ({} units)",
            libc.units.len()
        );
    }
    let main = loaded("ranks").expect("the program's debug information loaded");
    assert!(main.line_tables_read() >= 1);
    let o = run(&mut d, "continue");
    assert!(o.contains("Breakpoint 2, main ()"), "{o}");
    run(&mut d, "kill");
}

#[test]
fn break_file_line_puts_a_location_in_every_object_that_has_the_file() {
    // dlmain loads a library built from its own source: dlmain.c is in both objects.
    let prog = cohort_fixtures::program("dlmain");
    let lib = cohort_fixtures::shared_library("dlmain");
    let mut d = Debugger::new(true);
    run(&mut d, &format!("file {}", prog.display()));
    run(&mut d, &format!("set args {}", lib.display()));
    run(&mut d, "break dlmain.c:11");
    let o = run(&mut d, "run");
    assert!(o.contains("Breakpoint 1, main ("), "{o}");
    let o = run(&mut d, "break dlmain.c:11");
    assert!(o.contains("(2 locations)"), "{o}");
    let o = run(&mut d, "info breakpoints");
    assert!(
        o.contains("in main at ") && o.matches("dlmain.c:12").count() >= 3,
        "{o}"
    );
    let libc = loaded("libc.so").expect("libc's debug information loaded");
    if libc.has_debug_info() {
        assert_eq!(libc.line_tables_read(), 0);
    }
    run(&mut d, "kill");
}
