//! The MPI call recorder (issue 20): `recorder/cohort_mpirec.c`, a PMPI interposition library
//! that `cohort launch` preloads into the ranks it launches. It is built at first use with the
//! job's own `mpicc` (the one of the program's MPI family) into the user's cache
//! (`$XDG_CACHE_HOME/cohort/mpi-recorder/`, else `~/.cache/…`), one build per MPI family,
//! compiler and version of the source, and reused afterwards.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::MpiFamily;

/// The recorder's source, built with the job's `mpicc`.
pub const RECORDER_SOURCE: &str = include_str!("../recorder/cohort_mpirec.c");

/// The file name of the built recorder (the debugger treats it as part of the MPI library).
pub const RECORDER_NAME: &str = "libcohort_mpirec.so";

/// Why the recorder could not be had.
#[derive(Debug, thiserror::Error)]
pub enum RecorderError {
    #[error("no mpicc for {0} found")]
    NoCompiler(&'static str),
    #[error("no cache folder (neither XDG_CACHE_HOME nor HOME is set)")]
    NoCache,
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error("{compiler} failed: {why}")]
    Build { compiler: String, why: String },
}

/// The `mpicc` of a family: its own name first (Debian's `mpicc.openmpi`, `mpicc.mpich`),
/// else plain `mpicc` when it belongs to that family.
pub(crate) fn compiler_of(family: MpiFamily) -> Option<PathBuf> {
    let own = match family {
        MpiFamily::OpenMpi => "mpicc.openmpi",
        MpiFamily::Mpich => "mpicc.mpich",
    };
    if let Some(p) = on_path(own) {
        return Some(p);
    }
    let p = on_path("mpicc")?;
    // Open MPI's wrapper answers `--showme`, MPICH's `-show`.
    let asks = match family {
        MpiFamily::OpenMpi => "--showme:version",
        MpiFamily::Mpich => "-show",
    };
    let ok = Command::new(&p)
        .arg(asks)
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(p)
}

fn on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

pub(crate) fn cache_root() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
}

/// FNV-1a: names one build (source and compiler), not a security measure.
pub(crate) fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The recorder for a program of `family`: built now if this source was never built with this
/// compiler (in a temporary file, renamed into place, so that jobs started at once do not see
/// each other's half-written library).
pub fn recorder_for(family: MpiFamily) -> Result<PathBuf, RecorderError> {
    let cc = compiler_of(family).ok_or(RecorderError::NoCompiler(family.name()))?;
    let root = cache_root().ok_or(RecorderError::NoCache)?;
    let tag = fnv(&[
        RECORDER_SOURCE.as_bytes(),
        cc.as_os_str().as_encoded_bytes(),
    ]);
    let fam = match family {
        MpiFamily::OpenMpi => "openmpi",
        MpiFamily::Mpich => "mpich",
    };
    let dir = root
        .join("cohort")
        .join("mpi-recorder")
        .join(format!("{fam}-{tag:016x}"));
    let lib = dir.join(RECORDER_NAME);
    if lib.is_file() {
        return Ok(lib);
    }
    build(&cc, &dir, &lib)?;
    Ok(lib)
}

fn build(cc: &Path, dir: &Path, lib: &Path) -> Result<(), RecorderError> {
    build_shared(cc, dir, lib, "cohort_mpirec", RECORDER_SOURCE, &["-O2"])
}

/// Compile C `source` with the MPI compiler `cc` (and `flags`) into the shared object `lib` in
/// `dir`, through a file of this process (`STEM-PID.c`) renamed into place when built, so
/// that agents building at once do not meet half-written files.
pub(crate) fn build_shared(
    cc: &Path,
    dir: &Path,
    lib: &Path,
    stem: &str,
    source: &str,
    flags: &[&str],
) -> Result<(), RecorderError> {
    let io = |what: &Path, e| RecorderError::Io(what.display().to_string(), e);
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let me = std::process::id();
    let src = dir.join(format!("{stem}-{me}.c"));
    let tmp = lib.with_extension(format!("so.{me}"));
    std::fs::write(&src, source).map_err(|e| io(&src, e))?;
    let out = Command::new(cc)
        .args(["-shared", "-fPIC"])
        .args(flags)
        .arg("-o")
        .arg(&tmp)
        .arg(&src)
        .output();
    let _ = std::fs::remove_file(&src);
    let out = out.map_err(|e| io(cc, e))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(RecorderError::Build {
            compiler: cc.display().to_string(),
            why: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    std::fs::rename(&tmp, lib).map_err(|e| io(lib, e))
}

/// Whether a library path is the recorder's.
pub fn is_recorder(path: &str) -> bool {
    path.ends_with(RECORDER_NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorder builds with both MPI families' compilers and exports the state the agent
    /// reads.
    #[test]
    fn recorder_builds_for_open_mpi_and_mpich() {
        let dir = std::env::temp_dir().join(format!("cohort-rec-test-{}", std::process::id()));
        for fam in [MpiFamily::OpenMpi, MpiFamily::Mpich] {
            let Some(cc) = compiler_of(fam) else {
                panic!("no mpicc for {}", fam.name());
            };
            let lib = dir.join(format!("{}.so", fam.name().replace(' ', "")));
            build(&cc, &dir, &lib).unwrap();
            let nm = Command::new("nm").arg("-D").arg(&lib).output().unwrap();
            let syms = String::from_utf8_lossy(&nm.stdout);
            assert!(syms.contains(" D cohort_mpi_recorder"), "{syms}");
            assert!(syms.contains(" T MPI_Waitall"), "{syms}");
            // The Fortran bindings' wrappers, which find the MPI library's at run time.
            assert!(syms.contains(" T mpi_waitall_"), "{syms}");
            assert!(!syms.contains(" U pmpi_"), "{syms}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
