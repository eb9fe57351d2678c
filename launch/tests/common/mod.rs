//! Helpers shared by the launcher tests: MPI fixtures built at test time, line lookup.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use cohort_engine::session::Session;

static LOCK: Mutex<()> = Mutex::new(());

pub fn mpi_source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mpi")
}

/// Whether a command is on PATH.
pub fn have(cmd: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(cmd).is_file()))
        .unwrap_or(false)
}

/// `tests/mpi/NAME.c` compiled with `cc` (an MPI compiler wrapper or a plain compiler) into
/// `target/mpi-fixtures/NAME-CC`.
pub fn build(name: &str, cc: &str) -> PathBuf {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mpi-fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let out = dir.join(format!("{name}-{cc}"));
    let src = mpi_source_dir().join(format!("{name}.c"));
    let fresh = match (std::fs::metadata(&src), std::fs::metadata(&out)) {
        (Ok(s), Ok(o)) => o.modified().unwrap() >= s.modified().unwrap(),
        _ => false,
    };
    if !fresh {
        let tmp = out.with_extension(cohort_fixtures::tmp_extension());
        let st = Command::new(cc)
            .args(["-g", "-O0", "-o"])
            .arg(&tmp)
            .arg(&src)
            .status()
            .unwrap();
        assert!(st.success(), "{cc} {name}.c failed");
        std::fs::rename(&tmp, &out).unwrap();
    }
    out
}

/// The line of `tests/mpi/NAME.c` holding `marker`.
pub fn line_of(name: &str, marker: &str) -> u32 {
    let text = std::fs::read_to_string(mpi_source_dir().join(format!("{name}.c"))).unwrap();
    let i = text.lines().position(|l| l.contains(marker)).unwrap();
    i as u32 + 1
}

/// Run-time address of `file:line` in the session's main program.
pub fn line_address(s: &Session, file: &str, line: u32) -> u64 {
    let main = s.symbols().main().unwrap();
    let d = cohort_dwarf::loader::DebugFile::load(&main.file.path).unwrap();
    let m = d.addresses_for_line(file, line).unwrap();
    m[0].address + main.bias
}

/// The environment Open MPI needs to run as root on an oversubscribed host.
pub fn ompi_env() -> Vec<(OsString, OsString)> {
    [
        ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
        ("OMPI_MPIR_DO_NOT_WARN", "1"),
    ]
    .iter()
    .map(|(k, v)| (OsString::from(k), OsString::from(v)))
    .collect()
}

pub fn os(v: &[&str]) -> Vec<OsString> {
    v.iter().map(OsString::from).collect()
}
