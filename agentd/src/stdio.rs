//! A rank's standard streams: pipes whose far ends become the program's 0, 1 and 2, and whose
//! near ends the agent reads (stdout, stderr) and writes (stdin, for the focus rank).

use std::os::fd::OwnedFd;
use std::sync::Arc;

use nix::fcntl::OFlag;

/// The agent's ends of a rank's pipes, and the program's.
pub struct RankPipes {
    pub stdin_w: OwnedFd,
    pub stdout_r: OwnedFd,
    pub stderr_r: OwnedFd,
    /// For `LaunchOptions::fds`: the program's ends at 0, 1, 2.
    pub child: Vec<(Arc<OwnedFd>, i32)>,
}

pub fn rank_pipes() -> std::io::Result<RankPipes> {
    let p = || nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(std::io::Error::from);
    let (in_r, in_w) = p()?;
    let (out_r, out_w) = p()?;
    let (err_r, err_w) = p()?;
    Ok(RankPipes {
        stdin_w: in_w,
        stdout_r: out_r,
        stderr_r: err_r,
        child: vec![
            (Arc::new(in_r), 0),
            (Arc::new(out_w), 1),
            (Arc::new(err_w), 2),
        ],
    })
}

/// Raise the open-file limit to its hard maximum (three pipes per rank).
pub fn raise_fd_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}
