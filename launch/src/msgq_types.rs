//! The types of Open MPI's message queues for its debugger library (`libompi_dbg_msgq.so`,
//! read by cohort's agent through the MQS interface): where the rank's `libmpi` has no DWARF
//! (a distribution's stripped library without its debug symbols), `recorder/cohort_msgq_types.c`
//! is compiled with `-g` by the Open MPI's own `mpicc` against its installed internal headers
//! and configuration, into the user's cache (`…/cohort/msgq-types/`), once per compiler and
//! version of the source. Its DWARF describes the same structures as the library's build.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::MpiFamily;
use crate::recorder::{RecorderError, build_shared, cache_root, compiler_of, fnv};

/// The source whose DWARF holds the types.
pub const TYPES_SOURCE: &str = include_str!("../recorder/cohort_msgq_types.c");

/// The file name of the built library (never loaded: only its DWARF is read).
pub const TYPES_NAME: &str = "libcohort_msgq_types.so";

/// Open MPI's `mpicc` and the folders of its libraries (`--showme:libdirs`): the caller checks
/// that the rank's `libmpi` is one of them before trusting the types.
pub fn open_mpi_compiler() -> Result<(PathBuf, Vec<PathBuf>), RecorderError> {
    let family = MpiFamily::OpenMpi;
    let cc = compiler_of(family).ok_or(RecorderError::NoCompiler(family.name()))?;
    let out = Command::new(&cc)
        .arg("--showme:libdirs")
        .output()
        .map_err(|e| RecorderError::Io(cc.display().to_string(), e))?;
    let dirs = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(PathBuf::from)
        .collect();
    Ok((cc, dirs))
}

/// The library with the types, built with `cc` now if this source never was with it.
pub fn types_library(cc: &Path) -> Result<PathBuf, RecorderError> {
    let root = cache_root().ok_or(RecorderError::NoCache)?;
    let tag = fnv(&[TYPES_SOURCE.as_bytes(), cc.as_os_str().as_encoded_bytes()]);
    let dir = root
        .join("cohort")
        .join("msgq-types")
        .join(format!("openmpi-{tag:016x}"));
    let lib = dir.join(TYPES_NAME);
    if lib.is_file() {
        return Ok(lib);
    }
    // A shared object, not an object file: its DWARF is relocated.
    build_shared(
        cc,
        &dir,
        &lib,
        "cohort_msgq_types",
        TYPES_SOURCE,
        &["-g", "-O0"],
    )?;
    Ok(lib)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The types build with the installed Open MPI's headers.
    #[test]
    fn the_queue_types_build_with_open_mpi() {
        let (cc, dirs) = open_mpi_compiler().expect("Open MPI is installed by scripts/test.sh");
        assert!(!dirs.is_empty());
        let lib = types_library(&cc).unwrap();
        assert!(lib.is_file());
    }
}
