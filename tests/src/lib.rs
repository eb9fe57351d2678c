//! Test fixtures: small C programs under `tests/fixtures`, compiled at test time with
//! `cc -g -O0` into `target/fixtures/`. Each fixture is built once per test run even when many
//! tests (and test binaries) ask for it concurrently.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

static LOCK: Mutex<()> = Mutex::new(());

/// Folder holding the fixture sources.
pub fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fixtures");
    std::fs::create_dir_all(&d).expect("create target/fixtures");
    d
}

/// Path of `tests/fixtures/NAME.c` compiled without debug information (`cc -O0`): at the
/// instruction level gdb's output for such a program is the oracle for cohort's.
pub fn program_nodebug(name: &str) -> PathBuf {
    let out = out_dir().join(format!("{name}-nodebug"));
    build(name, &out, &["-g0"])
}

fn build(name: &str, out: &Path, extra: &[&str]) -> PathBuf {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let src = source_dir().join(format!("{name}.c"));
    let fresh = match (std::fs::metadata(&src), std::fs::metadata(out)) {
        (Ok(s), Ok(o)) => o.modified().ok() >= s.modified().ok(),
        _ => false,
    };
    if !fresh {
        // Build under a unique name, then rename: other test binaries may build concurrently.
        let tmp = out.with_extension(format!("tmp{}", std::process::id()));
        let st = Command::new("cc")
            .args(["-g", "-O0"])
            .args(extra)
            .arg("-o")
            .arg(&tmp)
            .arg(&src)
            .args(["-lpthread", "-ldl"])
            .status()
            .expect("run cc");
        assert!(st.success(), "compiling {name}.c failed");
        std::fs::rename(&tmp, out).expect("rename fixture");
    }
    out.to_path_buf()
}

/// Path of the compiled program `tests/fixtures/NAME.c`.
pub fn program(name: &str) -> PathBuf {
    let out = out_dir().join(name);
    build(name, &out, &[])
}

/// Path of the shared library built from `tests/fixtures/NAME.c` (as `libNAME.so`).
pub fn shared_library(name: &str) -> PathBuf {
    let out = out_dir().join(format!("lib{name}.so"));
    build(name, &out, &["-shared", "-fPIC"])
}

/// `libNAME-nodebug.so` built from `tests/fixtures/NAME.c` without debug information.
pub fn shared_library_nodebug(name: &str) -> PathBuf {
    let out = out_dir().join(format!("lib{name}-nodebug.so"));
    build(name, &out, &["-shared", "-fPIC", "-g0"])
}

/// Address of `sym` in the ELF file at `path` (link-time value, from `nm`), for tests that
/// check the engine below the symbol layer.
pub fn nm_address(path: &Path, sym: &str) -> u64 {
    let out = Command::new("nm").arg(path).output().expect("run nm");
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() == 3 && f[2] == sym {
            return u64::from_str_radix(f[0], 16).expect("nm address");
        }
    }
    panic!("{sym} not found in {}", path.display());
}
