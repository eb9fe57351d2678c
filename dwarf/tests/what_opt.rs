//! -O2 programs: location lists (DWARF 5 `.debug_loclists` and DWARF 4 `.debug_loc`), values
//! in registers, composite pieces, entry values and inlined frames, against gdb.

mod what_support;

use std::path::Path;

use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::scopes;
use what_support::*;

fn line_of(marker: &str) -> usize {
    let text = std::fs::read_to_string(source_dir().join("what_opt.c")).unwrap();
    text.lines().position(|l| l.contains(marker)).unwrap() + 1
}

/// gdb's breakpoint address for a line, when the line has code.
fn line_address(prog: &Path, line: usize) -> Option<u64> {
    let out = gdb(prog, &[&format!("break what_opt.c:{line}")]);
    let l = out.lines().find(|l| l.starts_with("Breakpoint 1 at 0x"))?;
    if !l.contains(&format!(":{line}.")) && !l.contains(&format!("line {line}.")) {
        return None;
    }
    let hex = l["Breakpoint 1 at 0x".len()..]
        .split(|c: char| !c.is_ascii_hexdigit())
        .next()?;
    u64::from_str_radix(hex, 16).ok()
}

/// gdb's frame function name, `info args` and `info locals` at `addr`.
fn gdb_view(prog: &Path, addr: u64) -> (String, Vec<String>, Vec<String>) {
    let out = gdb(
        prog,
        &[
            "set output-radix 16",
            "set print entry-values no",
            &format!("break *{:#x}", PIE_BASE + addr),
            "run",
            "echo @@FN\\n",
            "output $_as_string($_any_caller_matches(\"\", 0))",
            "echo \\n@@F2\\n",
            "frame function",
            "info frame",
            "echo @@ARGS\\n",
            "info args",
            "echo @@LOCALS\\n",
            "info locals",
            "echo @@END\\n",
        ],
    );
    let func = out
        .lines()
        .find_map(|l| l.strip_prefix("Stack level 0, frame at ").map(|_| ()))
        .and_then(|_| {
            out.lines()
                .find(|l| l.starts_with(" rip = "))
                .and_then(|l| l.split(" in ").nth(1))
                .map(|s| {
                    s.split(' ')
                        .next()
                        .unwrap_or("")
                        .trim_end_matches(';')
                        .to_string()
                })
        })
        .unwrap_or_default();
    let a = out.find("@@ARGS\n").unwrap() + 7;
    let l = out.find("@@LOCALS\n").unwrap();
    let e = out.find("@@END\n").unwrap();
    let lines = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| *l != "No arguments." && *l != "No locals.")
            .map(hide_stack)
            .collect()
    };
    (func, lines(&out[a..l]), lines(&out[l + 9..e]))
}

fn check_lines(prog: &Path, from: usize, to: usize) -> usize {
    let file = DebugFile::load(prog).unwrap();
    let mut checked = 0;
    for line in from..=to {
        let Some(addr) = line_address(prog, line) else {
            continue;
        };
        let (gfunc, gargs, glocals) = gdb_view(prog, addr);
        let (p, tid) = run_to(prog, addr, 1);
        let frame = frame0(&p, tid, prog);
        let scope = scopes::scope_at(&file, addr).unwrap().unwrap();
        let f = scope.innermost().unwrap();
        assert_eq!(f.function.name, gfunc, "function at line {line}");
        let render = |v: &scopes::Variable| {
            gdb_line(&file, v, &frame)
                .map(|s| hide_stack(&s))
                .unwrap_or_else(|| format!("{} = ?", v.name))
        };
        let oargs: Vec<String> = f.params.iter().map(render).collect();
        let olocals: Vec<String> = f.locals().into_iter().map(render).collect();
        assert_eq!(oargs, gargs, "args at line {line} ({addr:#x})");
        assert_eq!(olocals, glocals, "locals at line {line} ({addr:#x})");
        checked += 1;
    }
    checked
}

fn check_program(prog: &Path) {
    let n = check_lines(
        prog,
        line_of("long acc = 0;"),
        line_of("return u + consume(n);"),
    );
    assert!(n >= 4, "only {n} lines had code");
    let n = check_lines(prog, line_of("long n = argc"), line_of("printf(\"%ld"));
    assert!(n >= 2, "only {n} lines had code");
}

#[test]
fn optimized_locals_match_gdb_dwarf5() {
    let prog = build("what_opt", &["what_opt.c"], &["-g", "-O2"]);
    check_program(&prog);
}

#[test]
fn optimized_locals_match_gdb_dwarf4() {
    let prog = build("what_opt_d4", &["what_opt.c"], &["-gdwarf-4", "-O2"]);
    check_program(&prog);
}

#[test]
fn inlined_call_is_its_own_frame() {
    let prog = build("what_opt", &["what_opt.c"], &["-g", "-O2"]);
    let file = DebugFile::load(&prog).unwrap();
    let addr = line_address(&prog, line_of("int k = w + 2;")).unwrap();
    let scope = scopes::scope_at(&file, addr).unwrap().unwrap();
    let names: Vec<_> = scope
        .frames
        .iter()
        .map(|f| (f.function.name.clone(), f.inlined))
        .collect();
    assert_eq!(
        names,
        [("inlined".to_string(), true), ("main".to_string(), false)]
    );
    assert_eq!(
        scope.frames[0].call_line,
        Some(line_of("r += inlined(") as u64)
    );
    let (gfunc, gargs, _) = gdb_view(&prog, addr);
    assert_eq!(gfunc, "inlined");
    assert_eq!(gargs.len(), 1);
}
