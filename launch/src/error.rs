//! Errors of process acquisition.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("no launcher command given")]
    EmptyCommand,
    #[error(
        "{}: not an MPIR launcher (no {symbol} in it or its libraries); for MPICH's hydra use cohort-rankwrap",
        .path.display()
    )]
    NoMpir { path: PathBuf, symbol: &'static str },
    #[error("the launcher (pid {pid}) exited with code {code} before the job was spawned")]
    LauncherExited { pid: i32, code: i32 },
    #[error("the launcher (pid {pid}) was killed by signal {signo} before the job was spawned")]
    LauncherKilled { pid: i32, signo: i32 },
    #[error("rank pid {pid} exited with code {code} while being released")]
    RankExited { pid: i32, code: i32 },
    #[error("rank pid {pid} was killed by signal {signo} while being released")]
    RankKilled { pid: i32, signo: i32 },
    #[error("the launcher (pid {pid}) reports that the job is aborting")]
    JobAborting { pid: i32 },
    #[error("timed out after {secs} s waiting for {what}")]
    Timeout { what: String, secs: u64 },
    #[error("bad MPIR process table in pid {pid}: {msg}")]
    BadTable { pid: i32, msg: String },
    #[error("no srun of Slurm job {0} found on this host")]
    NoSrun(u64),
    #[error("rank wrapper protocol: {0}")]
    Protocol(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Engine(#[from] cohort_engine::EngineError),
    #[error("the tracer thread has stopped")]
    TracerGone,
}

impl From<cohort_engine::tracer::TracerGone> for LaunchError {
    fn from(_: cohort_engine::tracer::TracerGone) -> Self {
        LaunchError::TracerGone
    }
}

pub(crate) fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> LaunchError {
    let what = what.into();
    move |source| LaunchError::Io { what, source }
}
