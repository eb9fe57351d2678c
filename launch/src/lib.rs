//! Process acquisition for MPI launchers.
//!
//! DOC-PLACEHOLDER

mod error;
mod gate;
mod mpir;
mod proc_util;
mod slurm;
pub mod wrap;

pub use error::LaunchError;
pub use gate::release_gate;
pub use mpir::{
    DEFAULT_TIMEOUT, Launcher, LauncherHandle, MpirJob, ProcDesc, attach_mpir, attach_mpir_timeout,
    launch_mpir, launch_mpir_timeout,
};
pub use slurm::find_srun_of_job;
pub use wrap::{WrapListener, WrappedRank, wait_status_exited, wait_status_killed};
