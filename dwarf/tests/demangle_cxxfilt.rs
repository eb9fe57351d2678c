//! Every C++ symbol of the differential test programs (`tests/source/*.cc`, built by g++ and
//! clang++ at `-O0` and `-O2`), demangled by `cohort_dwarf::demangle` and by `c++filt -i`
//! (libiberty, gdb's demangler, with gdb's options): the two must agree, except for the
//! known cpp_demangle differences listed in `known_difference` (see `dwarf/src/demangle.rs`).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The symbols (`nm`) of each program built from the test sources.
fn symbols() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = root.join("tests/source");
    let out = root.join("target/fixtures/demangle");
    std::fs::create_dir_all(&out).expect("create target/fixtures/demangle");
    let mut syms = BTreeSet::new();
    let mut sources: Vec<_> = std::fs::read_dir(&src)
        .expect("tests/source")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cc"))
        .collect();
    sources.sort();
    let mut built = 0;
    for cc in &sources {
        let stem = cc.file_stem().and_then(|s| s.to_str()).unwrap_or("x");
        for compiler in ["g++", "clang++"] {
            for opt in ["-O0", "-O2"] {
                let exe = out.join(format!("{stem}-{compiler}{opt}"));
                let ok = Command::new(compiler)
                    .args(["-g", opt, "-pthread", "-o"])
                    .arg(&exe)
                    .arg(cc)
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success());
                if !ok {
                    // Some programs use g++-only extensions: clang++ does not build them.
                    eprintln!("not built: {stem} with {compiler} {opt}");
                    continue;
                }
                built += 1;
                let nm = Command::new("nm").arg(&exe).output().expect("run nm");
                for line in String::from_utf8_lossy(&nm.stdout).lines() {
                    let Some(name) = line.split_whitespace().last() else {
                        continue;
                    };
                    // gdb's minimal symbols of the program: its own, without versions.
                    let name = name.split('@').next().unwrap_or(name);
                    if name.starts_with("_Z") {
                        syms.insert(name.to_string());
                    }
                }
            }
        }
    }
    assert!(built >= sources.len() * 2, "too few programs built");
    syms
}

fn cxxfilt(syms: &[String]) -> Vec<String> {
    let mut child = Command::new("c++filt")
        .arg("-i")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run c++filt");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = syms.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("c++filt output");
    writer.join().expect("writer").expect("write c++filt");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The differences due to cpp_demangle 0.5 that no spelling pass repairs (documented in
/// `dwarf/src/demangle.rs`): a name it cannot read (an unresolved name, `sr…`); an rvalue
/// reference it drops (to a closure type, to a pack's elements).
fn known_difference(sym: &str, ours: Option<&str>, want: &str) -> bool {
    let Some(ours) = ours else {
        // Unresolved names such as `srSt7is_same…`.
        return sym.contains("sr");
    };
    let strip_rvalue = |s: &str| s.replace("&&", "");
    strip_rvalue(ours) == strip_rvalue(want) && (sym.contains("DpO") || sym.contains("UlOT_"))
}

#[test]
fn demangled_as_cxxfilt() {
    let syms: Vec<String> = symbols().into_iter().collect();
    let want = cxxfilt(&syms);
    assert_eq!(want.len(), syms.len(), "c++filt output");
    let mut bad = Vec::new();
    let mut known = 0;
    for (sym, want) in syms.iter().zip(&want) {
        let ours = cohort_dwarf::demangle::demangle(sym);
        if ours.as_deref() == Some(want.as_str()) {
            continue;
        }
        if known_difference(sym, ours.as_deref(), want) {
            known += 1;
            continue;
        }
        bad.push(format!(
            "{sym}\n  c++filt: {want}\n  cohort:  {}",
            ours.as_deref().unwrap_or("(none)")
        ));
    }
    eprintln!(
        "{} symbols, {} known cpp_demangle differences, {} mismatches",
        syms.len(),
        known,
        bad.len()
    );
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}
