//! Scopes, variables and locations on real -O0 programs, against gdb.

mod what_support;

use std::path::{Path, PathBuf};

use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::location::variable_value;
use cohort_dwarf::scopes::{self, VarKind};
use what_support::*;

fn main_prog() -> PathBuf {
    build(
        "what_main",
        &["what_main.c", "what_unit2.c"],
        &["-g", "-O0"],
    )
}

/// Line number of the source line of `src` containing `marker`.
fn line_of(src: &str, marker: &str) -> usize {
    let text = std::fs::read_to_string(source_dir().join(src)).unwrap();
    text.lines().position(|l| l.contains(marker)).unwrap() + 1
}

/// gdb's `info args` and `info locals` at the link-time address `addr` (first hit), with
/// output radix 16.
fn gdb_args_locals(prog: &Path, addr: u64) -> (Vec<String>, Vec<String>) {
    let out = gdb(
        prog,
        &[
            "set output-radix 16",
            &format!("break *{:#x}", PIE_BASE + addr),
            "run",
            "echo @@ARGS\\n",
            "info args",
            "echo @@LOCALS\\n",
            "info locals",
            "echo @@END\\n",
        ],
    );
    let a = out.find("@@ARGS\n").unwrap() + 7;
    let l = out.find("@@LOCALS\n").unwrap();
    let e = out.find("@@END\n").unwrap();
    let lines = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| *l != "No arguments." && *l != "No locals.")
            .map(hide_stack)
            .collect()
    };
    (lines(&out[a..l]), lines(&out[l + 9..e]))
}

/// Our `info args` and `info locals` at the same place, as (rendered line or None, name).
/// (rendered line or None, name) per variable.
type Rendered = Vec<(Option<String>, String)>;

fn ours(prog: &Path, addr: u64) -> (Rendered, Rendered) {
    let file = DebugFile::load(prog).unwrap();
    let (p, tid) = run_to(prog, addr, 1);
    let frame = frame0(&p, tid, prog);
    let scope = scopes::scope_at(&file, addr).unwrap().unwrap();
    let f = scope.innermost().unwrap();
    let render = |v: &scopes::Variable| {
        (
            gdb_line(&file, v, &frame).map(|s| hide_stack(&s)),
            v.name.clone(),
        )
    };
    let args = f.params.iter().map(render).collect();
    let locals = f.locals().into_iter().map(render).collect();
    (args, locals)
}

fn compare(gdb: &[String], ours: &[(Option<String>, String)]) {
    let names: Vec<&str> = gdb.iter().map(|l| l.split(" = ").next().unwrap()).collect();
    let our_names: Vec<&str> = ours.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(our_names, names, "names differ; gdb: {gdb:#?}");
    let mut compared = 0;
    for (g, (o, _)) in gdb.iter().zip(ours) {
        if let Some(o) = o {
            assert_eq!(o, g);
            compared += 1;
        }
    }
    assert!(compared > 0 || gdb.is_empty());
}

fn check_at(prog: &Path, addr: u64) {
    let (ga, gl) = gdb_args_locals(prog, addr);
    let (oa, ol) = ours(prog, addr);
    compare(&ga, &oa);
    compare(&gl, &ol);
}

#[test]
fn inner_block_locals_and_args_match_gdb() {
    let prog = main_prog();
    let addr = gdb_break_address(
        &prog,
        &format!("what_main.c:{}", line_of("what_main.c", "/* inner */")),
    );
    check_at(&prog, addr);
    // Block order: z (innermost), then y and the static hidden, then x.
    let file = DebugFile::load(&prog).unwrap();
    let scope = scopes::scope_at(&file, addr).unwrap().unwrap();
    let f = scope.innermost().unwrap();
    let names: Vec<_> = f
        .locals()
        .iter()
        .map(|v| (v.name.clone(), v.kind))
        .collect();
    assert_eq!(
        names,
        [
            ("z".to_string(), VarKind::Local),
            ("y".to_string(), VarKind::Local),
            ("hidden".to_string(), VarKind::StaticLocal),
            ("x".to_string(), VarKind::Local)
        ]
    );
    assert_eq!(f.function.name, "scopes");
    assert_eq!(
        f.function.decl_line,
        Some(line_of("what_main.c", "int scopes(") as u64)
    );
    assert_eq!(
        f.function.ret.as_ref().unwrap().name.as_deref(),
        Some("int")
    );
    assert!(
        f.function
            .decl_file
            .as_deref()
            .unwrap()
            .ends_with("what_main.c")
    );
    assert_eq!(scope.frames.len(), 1);
    assert_eq!(f.lookup("y").unwrap().name, "y");
    assert_eq!(f.lookup("a").unwrap().kind, VarKind::Param);
    assert!(f.lookup("nope").is_none());
}

#[test]
fn main_locals_with_structs_bitfields_enums_match_gdb() {
    let prog = main_prog();
    let addr = gdb_break_address(
        &prog,
        &format!("what_main.c:{}", line_of("what_main.c", "printf(")),
    );
    check_at(&prog, addr);
}

#[test]
fn vla_bounds_resolved_at_run_time() {
    let prog = main_prog();
    let addr = gdb_break_address(
        &prog,
        &format!("what_main.c:{}", line_of("what_main.c", "/* vla */")),
    );
    check_at(&prog, addr);
    let file = DebugFile::load(&prog).unwrap();
    let (p, tid) = run_to(&prog, addr, 1);
    let frame = frame0(&p, tid, &prog);
    let scope = scopes::scope_at(&file, addr).unwrap().unwrap();
    let vla = scope.innermost().unwrap().lookup("vla").unwrap().clone();
    let v = variable_value(&file, &vla, &frame).unwrap();
    assert_eq!(v.ty.byte_size(), 20);
    assert_eq!(fmt_value(&v).unwrap(), "{0x0, 0x1, 0x4, 0x9, 0x10}");
}

/// `p/x EXPR` for each expression, in gdb, stopped at `addr`.
fn gdb_px(prog: &Path, addr: u64, exprs: &[&str]) -> Vec<String> {
    let mut cmds = vec![
        "set output-radix 16".to_string(),
        format!("break *{:#x}", PIE_BASE + addr),
        "run".into(),
    ];
    for e in exprs {
        cmds.push(format!("output {e}"));
        cmds.push("echo \\n".into());
    }
    let refs: Vec<&str> = cmds.iter().map(|s| s.as_str()).collect();
    let out = gdb(prog, &refs);
    let lines: Vec<String> = out.lines().map(|s| s.to_string()).collect();
    lines[lines.len() - exprs.len()..].to_vec()
}

#[test]
fn globals_statics_tls_and_second_unit_match_gdb() {
    let prog = main_prog();
    let addr = gdb_break_address(
        &prog,
        &format!("what_main.c:{}", line_of("what_main.c", "/* inner */")),
    );
    let exprs = [
        "shared_counter",
        "file_static",
        "'what_unit2.c'::file_static",
        "counter::calls",
        "tls_var",
        "global_arr",
        "gbits",
        "big",
        "us",
        "vol",
        "flag",
        "*fwd_ptr",
        "fwd_obj",
    ];
    let want = gdb_px(&prog, addr, &exprs);
    let file = DebugFile::load(&prog).unwrap();
    let (p, tid) = run_to(&prog, addr, 1);
    let frame = frame0(&p, tid, &prog);
    let main_unit = scopes::function_by_name(&file, "main")
        .unwrap()
        .unwrap()
        .unit;
    let value_of = |e: &str| -> String {
        let var = if let Some(rest) = e.strip_prefix("'what_unit2.c'::") {
            scopes::lookup_in_file(&file, "what_unit2.c", rest)
                .unwrap()
                .unwrap()
        } else if let Some((f, n)) = e.split_once("::") {
            scopes::lookup_in_function(&file, f, n).unwrap().unwrap()
        } else if e == "*fwd_ptr" {
            // Through the pointer: the declared `struct fwd` resolves to unit 2's definition.
            let ptr = scopes::lookup_global(&file, "fwd_ptr", Some(main_unit))
                .unwrap()
                .unwrap();
            let pv = variable_value(&file, &ptr, &frame).unwrap();
            let target = pv.ty.pointee().unwrap();
            let mut buf = vec![0u8; target.byte_size() as usize];
            use cohort_dwarf::context::Target;
            frame.read_memory(pv.as_u64(), &mut buf).unwrap();
            let v = cohort_dwarf::value::Value::new(
                target,
                buf,
                cohort_dwarf::value::Lval::Memory(pv.as_u64()),
            );
            return fmt_value(&v).unwrap();
        } else {
            scopes::lookup_global(&file, e, Some(main_unit))
                .unwrap()
                .unwrap()
        };
        let v = variable_value(&file, &var, &frame).unwrap();
        fmt_value(&v).unwrap()
    };
    let got: Vec<String> = exprs.iter().map(|e| value_of(e)).collect();
    assert_eq!(got, want);
    // The static of the other unit is found when that unit is preferred.
    let u2 = scopes::function_by_name(&file, "unit2_func")
        .unwrap()
        .unwrap()
        .unit;
    let fs2 = scopes::lookup_global(&file, "file_static", Some(u2))
        .unwrap()
        .unwrap();
    assert_eq!(
        fmt_value(&variable_value(&file, &fs2, &frame).unwrap()).unwrap(),
        "0x16"
    );
    assert_eq!(fs2.kind, VarKind::FileStatic);
    let hidden = scopes::lookup_in_function(&file, "scopes", "hidden")
        .unwrap()
        .unwrap();
    assert_eq!(hidden.kind, VarKind::StaticLocal);
    assert_eq!(
        fmt_value(&variable_value(&file, &hidden, &frame).unwrap()).unwrap(),
        "0x2b"
    );
}

#[test]
fn struct_bytes_match_gdb_memory() {
    let prog = main_prog();
    let addr = gdb_break_address(
        &prog,
        &format!("what_main.c:{}", line_of("what_main.c", "printf(")),
    );
    let out = gdb(
        &prog,
        &[
            &format!("break *{:#x}", PIE_BASE + addr),
            "run",
            "x/32xb &it1",
        ],
    );
    let want: Vec<u8> = out
        .lines()
        .filter(|l| l.starts_with("0x7ff"))
        .flat_map(|l| {
            l.split('\t')
                .skip(1)
                .map(|b| u8::from_str_radix(&b[2..], 16).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let file = DebugFile::load(&prog).unwrap();
    let (p, tid) = run_to(&prog, addr, 1);
    let frame = frame0(&p, tid, &prog);
    let scope = scopes::scope_at(&file, addr).unwrap().unwrap();
    let it1 = scope.innermost().unwrap().lookup("it1").unwrap().clone();
    let v = variable_value(&file, &it1, &frame).unwrap();
    assert_eq!(v.bytes.len(), 32);
    // Bytes 8..16 are the pointer to it2 (a stack address, different in gdb's run).
    assert_eq!(&v.bytes[..8], &want[..8]);
    assert_eq!(&v.bytes[8..16], &want[8..16]);
    assert_eq!(&v.bytes[24..], &want[24..]);
    assert!(matches!(v.lval, cohort_dwarf::value::Lval::Memory(a) if a >= 0x7ff0_0000_0000));
}
