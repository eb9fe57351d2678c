//! Preloading the MPI call recorder (cohort_launch::recorder) into the ranks `cohort launch`
//! starts: the launcher's own way of setting a variable for its ranks only (`mpirun -x`,
//! `mpiexec -genv`), so that the launcher and `cohort-rankwrap` do not load it.

use std::ffi::OsString;
use std::path::Path;

use cohort_launch::MpiFamily;

use cohort_agentd::mpirec::RECORDER_ENV;

/// The recorder for `program`: `None` (with a note on why, when it is not just that the
/// program uses no MPI) when it cannot be had.
fn recorder(program: &Path) -> Option<OsString> {
    let family: MpiFamily = cohort_launch::mpi_family(program)?;
    match cohort_launch::recorder::recorder_for(family) {
        Ok(p) => Some(p.into_os_string()),
        Err(e) => {
            println!(
                "cohort: no MPI call recorder ({e}): `diagnose` goes by the ranks' frames alone"
            );
            None
        }
    }
}

/// `LD_PRELOAD=RECORDER[:the user's]`.
fn preload(lib: OsString) -> OsString {
    let mut v = lib;
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|o| !o.is_empty()) {
        v.push(":");
        v.push(old);
    }
    let mut set = OsString::from("LD_PRELOAD=");
    set.push(v);
    set
}

/// `mpirun` options that preload the recorder into the ranks.
pub fn open_mpi_args(program: &Path) -> Vec<OsString> {
    match recorder(program) {
        Some(lib) => vec!["-x".into(), preload(lib)],
        None => Vec::new(),
    }
}

/// `srun` options that preload the recorder into the tasks (the whole environment goes with
/// them, as without the option).
pub fn slurm_args(program: &Path) -> Vec<OsString> {
    match recorder(program) {
        Some(lib) => {
            let mut e = OsString::from("--export=ALL,");
            e.push(preload(lib));
            vec![e]
        }
        None => Vec::new(),
    }
}

/// `mpiexec` (hydra) options that hand the recorder to the wrapped ranks.
pub fn mpich_args(program: &Path) -> Vec<OsString> {
    match recorder(program) {
        Some(lib) => vec!["-genv".into(), RECORDER_ENV.into(), lib],
        None => Vec::new(),
    }
}
