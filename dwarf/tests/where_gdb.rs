//! "Where" against gdb 13 as the oracle, without running anything: `break FUNCTION`,
//! `break FILE:LINE` and `info line *ADDR` resolved by cohort-dwarf and formatted as gdb prints
//! them, for the `where_a.c` + `where_b.c` fixture built at -O0 and -O2, with compressed DWARF
//! and with a separate debug file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use cohort_dwarf::lines::LineMatch;
use cohort_dwarf::loader::DebugFile;
use object::{Object, ObjectSymbol};

static SCRIPTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("where");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) {
    let st = cmd.status().unwrap();
    assert!(st.success(), "{cmd:?} failed");
}

/// The two-unit fixture built with `flags` (once per test binary), as `where-VARIANT`.
/// Variant "split": -O0, DWARF moved to `where-split.debug` next to a stripped binary with a
/// `.gnu_debuglink`.
fn build(variant: &str, flags: &[&str]) -> PathBuf {
    let mut g = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let map = g.get_or_insert_with(HashMap::new);
    if let Some(p) = map.get(variant) {
        return p.clone();
    }
    let dir = out_dir();
    let out = dir.join(format!("where-{variant}"));
    // Sources are compiled from the fixtures folder by bare name, so the units record
    // `where_a.c` as gdb's tests see it.
    let cc = if variant.starts_with("clang") {
        "clang"
    } else {
        "cc"
    };
    run(Command::new(cc)
        .current_dir(fixtures())
        .arg("-g")
        .args(flags)
        .arg("-o")
        .arg(&out)
        .args(["where_a.c", "where_b.c"]));
    if variant == "split" {
        let dbg = dir.join("where-split.debug");
        run(Command::new("objcopy")
            .arg("--only-keep-debug")
            .arg(&out)
            .arg(&dbg));
        run(Command::new("strip").arg(&out));
        run(Command::new("objcopy")
            .current_dir(&dir)
            .arg("--add-gnu-debuglink=where-split.debug")
            .arg(&out));
    }
    map.insert(variant.to_string(), out.clone());
    out
}

/// Run gdb in batch mode on `prog` with the commands in a script; stdout and stderr merged.
fn gdb(prog: &Path, cmds: &[String]) -> Vec<String> {
    let script = out_dir().join(format!(
        "gdb-{}-{}-{}.cmd",
        std::process::id(),
        SCRIPTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        prog.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&script, cmds.join("\n") + "\n").unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "gdb -nx -batch -x '{}' '{}' 2>&1",
            script.display(),
            prog.display()
        ))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("Make breakpoint pending"))
        .map(str::to_string)
        .collect()
}

/// gdb's first line for `break SPEC` given cohort's locations.
fn say_break(n: usize, spec: &str, locs: &[LineMatch]) -> String {
    match locs {
        [] => unreachable!(),
        [one] if one.actual_line != 0 => format!(
            "Breakpoint {n} at {:#x}: file {}, line {}.",
            one.address, one.name, one.actual_line
        ),
        [one] => format!("Breakpoint {n} at {:#x}", one.address),
        many => format!(
            "Breakpoint {n} at {:#x}: {spec}. ({} locations)",
            many[0].address,
            many.len()
        ),
    }
}

/// Resolve `break SPEC` with cohort: `Ok(first line of gdb's answer)` or the error line.
fn cohort_break(df: &DebugFile, n: usize, spec: &str) -> (bool, String) {
    if let Some((file, line)) = spec.rsplit_once(':') {
        let line: u32 = line.parse().unwrap();
        match df.addresses_for_line(file, line) {
            Ok(mut locs) => {
                locs.sort_by_key(|l| l.address);
                locs.dedup_by_key(|l| l.address);
                (true, say_break(n, spec, &locs))
            }
            Err(e) => (false, e.to_string()),
        }
    } else {
        let locs = df.breakpoint_locations_for_name(spec);
        if locs.is_empty() {
            (false, format!("Function \"{spec}\" not defined."))
        } else {
            (true, say_break(n, spec, &locs))
        }
    }
}

/// Every `break SPEC` of `specs`, cohort against gdb.
fn check_breaks(prog: &Path, specs: &[String]) {
    let df = DebugFile::load(prog).unwrap();
    let want = gdb(
        prog,
        &specs
            .iter()
            .map(|s| format!("break {s}"))
            .collect::<Vec<_>>(),
    );
    let mut n = 1;
    let mut got = Vec::new();
    for s in specs {
        let (ok, line) = cohort_break(&df, n, s);
        if ok {
            n += 1;
        }
        got.push(line);
    }
    let mut bad = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        let w = want.get(i).map(String::as_str).unwrap_or("<none>");
        if got[i] != w {
            bad.push(format!("break {s}:\n  gdb:    {w}\n  cohort: {}", got[i]));
        }
    }
    assert!(
        bad.is_empty(),
        "{}: {} of {} differ:\n{}",
        prog.display(),
        bad.len(),
        specs.len(),
        bad.join("\n")
    );
}

const FUNCTIONS: &[&str] = &[
    "main",
    "b_compute",
    "loop_sum",
    "square",
    "add_points",
    "clamp",
    "no_args",
];

fn function_specs() -> Vec<String> {
    FUNCTIONS.iter().map(|s| s.to_string()).collect()
}

fn line_specs() -> Vec<String> {
    let mut v = Vec::new();
    for (file, n) in [("where_a.c", 64), ("where_b.c", 24)] {
        for l in 1..=n {
            v.push(format!("{file}:{l}"));
        }
    }
    v.push("tests/fixtures/where_b.c:17".into());
    v.push("fixtures/where_a.c:35".into());
    v
}

#[test]
fn break_functions_o0() {
    check_breaks(&build("O0", &["-O0"]), &function_specs());
}

#[test]
fn break_functions_o2() {
    check_breaks(&build("O2", &["-O2"]), &function_specs());
}

#[test]
fn break_lines_o0() {
    check_breaks(&build("O0", &["-O0"]), &line_specs());
}

#[test]
fn break_lines_o2() {
    check_breaks(&build("O2", &["-O2"]), &line_specs());
}

#[test]
fn compressed_zlib() {
    let p = build("gz", &["-O0", "-gz=zlib"]);
    let df = DebugFile::load(&p).unwrap();
    assert!(df.has_debug_info());
    let mut specs = function_specs();
    specs.extend(line_specs());
    check_breaks(&p, &specs);
}

#[test]
fn compressed_zlib_gnu() {
    let p = build("zdebug", &["-O2", "-gz=zlib-gnu"]);
    let sections = Command::new("readelf").arg("-S").arg(&p).output().unwrap();
    assert!(String::from_utf8_lossy(&sections.stdout).contains(".zdebug_info"));
    let mut specs = function_specs();
    specs.extend(line_specs());
    check_breaks(&p, &specs);
}

#[test]
fn separate_debug_file() {
    let p = build("split", &["-O0"]);
    let df = DebugFile::load(&p).unwrap();
    assert!(df.has_debug_info());
    assert!(df.dwarf_path.ends_with("where-split.debug"));
    let mut specs = function_specs();
    specs.extend(line_specs());
    check_breaks(&p, &specs);
}

/// ELF function symbols of `path`, sorted: gdb's `<sym+off>`.
fn symbols(path: &Path) -> Vec<(u64, u64, String)> {
    let data = std::fs::read(path).unwrap();
    let obj = object::File::parse(&*data).unwrap();
    let mut v: Vec<(u64, u64, String)> = obj
        .symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text && s.address() != 0)
        .map(|s| (s.address(), s.size(), s.name().unwrap().to_string()))
        .collect();
    v.sort();
    v
}

fn sym(syms: &[(u64, u64, String)], a: u64) -> String {
    let i = syms.partition_point(|s| s.0 <= a);
    match i.checked_sub(1).and_then(|i| syms.get(i)) {
        Some((s, _, n)) if *s == a => format!("{a:#x} <{n}>"),
        Some((s, z, n)) if a < s + z => format!("{a:#x} <{n}+{}>", a - s),
        _ => format!("{a:#x}"),
    }
}

/// `info line *ADDR` for every byte of every function, cohort against gdb.
fn check_info_line(prog: &Path) {
    let df = DebugFile::load(prog).unwrap();
    let syms = symbols(prog);
    let mut addrs = Vec::new();
    for f in df.all_functions() {
        for r in &f.ranges {
            addrs.extend(r.0..r.1);
        }
    }
    addrs.sort();
    addrs.dedup();
    let want = gdb(
        prog,
        &addrs
            .iter()
            .map(|a| format!("info line *{a:#x}"))
            .collect::<Vec<_>>(),
    );
    let mut bad = Vec::new();
    for (i, &a) in addrs.iter().enumerate() {
        let got = match df.find_line(a) {
            Some(l) => {
                assert_eq!(df.line_range(a), Some((l.address, l.end)));
                if l.address == l.end {
                    format!(
                        "Line {} of \"{}\" is at address {} but contains no code.",
                        l.line,
                        l.name,
                        sym(&syms, l.address)
                    )
                } else {
                    format!(
                        "Line {} of \"{}\" starts at address {} and ends at {}.",
                        l.line,
                        l.name,
                        sym(&syms, l.address),
                        sym(&syms, l.end)
                    )
                }
            }
            None => format!(
                "No line number information available for address {}",
                sym(&syms, a)
            ),
        };
        let w = want.get(i).map(String::as_str).unwrap_or("<none>");
        if got != w {
            bad.push(format!("*{a:#x}:\n  gdb:    {w}\n  cohort: {got}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{}: {} of {} differ:\n{}",
        prog.display(),
        bad.len(),
        addrs.len(),
        bad.join("\n")
    );
}

#[test]
fn info_line_o0() {
    check_info_line(&build("O0", &["-O0"]));
}

#[test]
fn info_line_o2() {
    check_info_line(&build("O2", &["-O2"]));
}

#[test]
fn libc_through_build_id() {
    let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
    if !libc.exists() {
        return;
    }
    let df: Arc<DebugFile> = DebugFile::load(libc).unwrap();
    assert!(df.has_debug_info());
    assert!(df.dwarf_path.starts_with("/usr/lib/debug/.build-id"));
    let fs = df.functions_named("__libc_start_call_main");
    let f = fs
        .iter()
        .find(|f| !f.inlined_copy)
        .expect("out-of-line copy");
    let entry = f.entry_pc().unwrap();
    let l = df.find_line(entry).unwrap();
    let want = gdb(libc, &["info line __libc_start_call_main".to_string()]);
    let prefix = format!(
        "Line {} of \"{}\" starts at address {entry:#x}",
        l.line, l.name
    );
    assert!(
        want.iter().any(|w| w.starts_with(&prefix)),
        "gdb: {want:?}\ncohort: {prefix}"
    );
}

/// (file, line, name) triples of gdb's `info functions/variables/types .` debugging section.
fn gdb_info_listing(prog: &Path, what: &str) -> Vec<(String, u32, String)> {
    let out = gdb(prog, &[format!("info {what} .")]);
    let mut file = String::new();
    let mut v = Vec::new();
    for l in out {
        if l.starts_with("Non-debugging symbols:") {
            break;
        }
        if let Some(f) = l.strip_prefix("File ").and_then(|f| f.strip_suffix(':')) {
            file = f.to_string();
            continue;
        }
        let Some((num, decl)) = l.split_once(":\t") else {
            continue;
        };
        let Ok(num) = num.parse::<u32>() else {
            continue;
        };
        let decl = decl.split('(').next().unwrap().trim_end_matches(';');
        let name = decl
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .find(|w| !w.is_empty())
            .unwrap()
            .to_string();
        v.push((file.clone(), num, name));
    }
    v
}

fn check_listings(prog: &Path) {
    let df = DebugFile::load(prog).unwrap();
    let funcs: Vec<(String, u32, String)> = df
        .functions_by_file(|_| true)
        .into_iter()
        .flat_map(|g| {
            g.entries
                .into_iter()
                .map(move |f| (g.file.clone(), f.decl_line, f.name))
        })
        .collect();
    assert_eq!(funcs, gdb_info_listing(prog, "functions"));
    let vars: Vec<(String, u32, String)> = df
        .variables_by_file(|_| true)
        .into_iter()
        .flat_map(|g| {
            g.entries
                .into_iter()
                .map(move |v| (g.file.clone(), v.decl_line, v.name.into_owned()))
        })
        .collect();
    assert_eq!(vars, gdb_info_listing(prog, "variables"));
    let types: Vec<(String, u32, String)> = df
        .types_by_file(|_| true)
        .into_iter()
        .flat_map(|g| {
            g.entries
                .into_iter()
                .filter(|t| t.decl_line != 0)
                .map(move |t| (g.file.clone(), t.decl_line, t.name.into_owned()))
        })
        .collect();
    assert_eq!(types, gdb_info_listing(prog, "types"));
}

#[test]
fn info_listings_o0() {
    check_listings(&build("O0", &["-O0"]));
}

#[test]
fn info_listings_o2() {
    check_listings(&build("O2", &["-O2"]));
}

#[test]
fn name_index() {
    let p = build("O2", &["-O2"]);
    let df = DebugFile::load(&p).unwrap();
    let v = df.variables_named("hidden");
    assert_eq!(v.len(), 1);
    assert!(!v[0].external);
    assert_eq!(v[0].decl_line, 14);
    let v = df.variables_named("b_total");
    assert_eq!(
        v.len(),
        1,
        "the extern declaration in where_a.c is not a definition"
    );
    assert!(v[0].external);
    assert_eq!(df.unit_display_name(v[0].unit), "where_b.c");
    assert!(df.variables_named("nope").is_empty());

    let t = df.types_named("point");
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].tag, gimli::DW_TAG_structure_type);
    assert_eq!(df.types_named("point_t")[0].tag, gimli::DW_TAG_typedef);
    assert_eq!(
        df.types_named("color")[0].tag,
        gimli::DW_TAG_enumeration_type
    );
    assert_eq!(df.types_named("int").len(), 2, "one base type per unit");

    // square is only inlined at -O2: every copy is an inlined_subroutine.
    let sq = df.functions_named("square");
    assert!(sq.len() >= 2);
    assert!(sq.iter().all(|f| f.inlined_copy && f.inline));
    assert!(sq.iter().all(|f| f.decl_line == 20 && !f.external));
    // clamp (static, not declared inline) was folded into b_compute without an inlined copy
    // left: no function of that name (gdb: `Function "clamp" not defined.`).
    assert!(df.functions_named("clamp").is_empty());

    // function_containing: the out-of-line function, never the inlined copy.
    for f in &sq {
        let pc = f.entry_pc().unwrap();
        let outer = df.function_containing(pc).unwrap();
        assert_ne!(outer.name, "square");
        assert!(outer.contains(pc));
    }
    let main = df.functions_named("main");
    let main = main.iter().find(|f| !f.inlined_copy).unwrap();
    assert!(main.external);
    assert_eq!(main.decl_line, 48);
    for pc in main.low_pc().unwrap()..main.high_pc().unwrap() {
        assert_eq!(df.function_containing(pc).unwrap().name, "main");
    }
    assert!(df.function_containing(0).is_none());
}

#[test]
fn source_files_and_function_lines() {
    let p = build("O0", &["-O0"]);
    let df = DebugFile::load(&p).unwrap();
    let files = df.source_files();
    let dir = std::fs::canonicalize(fixtures()).unwrap();
    assert!(files.contains(&("where_a.c".to_string(), dir.join("where_a.c"))));
    assert!(files.contains(&("where_b.c".to_string(), dir.join("where_b.c"))));
    let f = &df.functions_named("loop_sum")[0];
    let l = df.function_start_line(f).unwrap();
    assert_eq!((l.name.as_str(), l.line), ("where_a.c", 33));
    assert_eq!(l.file, dir.join("where_a.c"));
}

#[test]
fn no_debug_info() {
    let out = out_dir().join("where-g0");
    run(Command::new("cc")
        .current_dir(fixtures())
        .args(["-g0", "-O0", "-o"])
        .arg(&out)
        .args(["where_a.c", "where_b.c"]));
    let df = DebugFile::load(&out).unwrap();
    assert!(!df.has_debug_info());
    assert!(df.functions_named("main").is_empty());
    assert!(df.find_line(0x1139).is_none());
    assert!(df.addresses_for_line("where_a.c", 10).is_err());
}

#[test]
fn debuglink_crc_mismatch_is_not_used() {
    // A stripped copy whose debuglink names a debug file of another build: the CRC differs,
    // so there is no debug information (gdb ignores it too).
    let split = build("split", &["-O0"]);
    let dir = out_dir().join("crc");
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("where-split");
    std::fs::copy(&split, &prog).unwrap();
    let other = build("O2", &["-O2"]);
    run(Command::new("objcopy")
        .arg("--only-keep-debug")
        .arg(&other)
        .arg(dir.join("where-split.debug")));
    let df = DebugFile::load(&prog).unwrap();
    assert!(!df.has_debug_info());
}

#[test]
fn malformed_unit_is_an_error_for_that_unit_only() {
    let p = build("O0", &["-O0"]);
    let mut data = std::fs::read(&p).unwrap();
    let (off, size) = {
        let obj = object::File::parse(&*data).unwrap();
        use object::ObjectSection;
        let s = obj.section_by_name(".debug_info").unwrap();
        let (o, z) = s.file_range().unwrap();
        (o as usize, z as usize)
    };
    // Second unit: skip the first (4-byte length), then garble its DIEs after the DWARF 5
    // header (12 bytes).
    let len0 = u32::from_le_bytes(data[off..off + 4].try_into().unwrap()) as usize;
    let u1 = off + 4 + len0;
    let len1 = u32::from_le_bytes(data[u1..u1 + 4].try_into().unwrap()) as usize;
    assert!(u1 + 4 + len1 <= off + size);
    for b in &mut data[u1 + 12..u1 + 4 + len1] {
        *b = 0x7f;
    }
    let data: &'static [u8] = Vec::leak(data);
    let df = DebugFile::from_bytes(&p, &p, data).unwrap();
    assert_eq!(df.units.len(), 2);
    assert!(df.unit(0).is_ok());
    assert!(df.unit(1).is_err());
    let main = df.functions_named("main");
    assert_eq!(main.len(), 1);
    assert!(df.functions_named("b_compute").is_empty());
    let l = df.find_line(main[0].entry_pc().unwrap()).unwrap();
    assert_eq!(l.name, "where_a.c");
    assert!(df.addresses_for_line("where_a.c", 50).is_ok());
    assert!(df.addresses_for_line("where_b.c", 17).is_err());
}

fn have_clang() -> bool {
    Command::new("clang")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn clang_o0() {
    if !have_clang() {
        return;
    }
    let p = build("clang-O0", &["-O0"]);
    let mut specs = function_specs();
    specs.extend(line_specs());
    check_breaks(&p, &specs);
    check_info_line(&p);
}

#[test]
fn clang_o2() {
    if !have_clang() {
        return;
    }
    let p = build("clang-O2", &["-O2"]);
    let mut specs = function_specs();
    specs.extend(line_specs());
    check_breaks(&p, &specs);
    check_info_line(&p);
}

#[test]
fn dwz_supplementary_file() {
    if !Command::new("dwz")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return;
    }
    let dir = out_dir().join("dwz");
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("where-dwz1"), dir.join("where-dwz2"));
    std::fs::copy(build("O2", &["-O2"]), &a).unwrap();
    std::fs::copy(build("O0", &["-O0"]), &b).unwrap();
    run(Command::new("dwz").current_dir(&dir).args([
        "-m",
        "where.alt",
        "-M",
        "where.alt",
        "where-dwz1",
        "where-dwz2",
    ]));
    let df = DebugFile::load(&a).unwrap();
    assert_eq!(
        df.sup_path.as_deref(),
        Some(dir.join("where.alt").as_path())
    );
    // `counter`'s name lives in the supplementary file's strings.
    assert_eq!(df.variables_named("counter").len(), 1);
    let mut specs = function_specs();
    specs.extend(line_specs());
    check_breaks(&a, &specs);
    check_breaks(&b, &specs);
}
