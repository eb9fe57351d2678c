//! Small helpers on processes found in `/proc`.

use std::path::Path;

use cohort_engine::sigwait::{WaitStatus, waitpid};
use nix::errno::Errno;
use nix::sys::wait::WaitPidFlag;
use nix::unistd::Pid;

use crate::error::LaunchError;

pub(crate) fn exists(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Parent pid from `/proc/PID/stat` (the field after the parenthesised command name).
pub(crate) fn ppid(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Every process id in `/proc`.
pub(crate) fn all_pids() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse().ok()))
                .collect()
        })
        .unwrap_or_default()
}

/// Descendants of `pid` (children first).
pub(crate) fn descendants(pid: i32) -> Vec<i32> {
    let pairs: Vec<(i32, i32)> = all_pids()
        .into_iter()
        .filter_map(|p| ppid(p).map(|pp| (p, pp)))
        .collect();
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for &(c, pp) in &pairs {
            if pp == p && !out.contains(&c) {
                out.push(c);
                todo.push(c);
            }
        }
    }
    out
}

/// Kill `pid` and every process it started (SIGKILL), the descendants first found, then it.
pub fn kill_with_descendants(pid: i32) {
    let kids = descendants(pid);
    for p in std::iter::once(pid).chain(kids) {
        let _ = nix::sys::signal::kill(Pid::from_raw(p), nix::sys::signal::Signal::SIGKILL);
    }
}

/// The environment of a process.
pub(crate) fn environ(pid: i32) -> Vec<(String, String)> {
    let Ok(raw) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return Vec::new();
    };
    raw.split(|&b| b == 0)
        .filter_map(|kv| {
            let s = String::from_utf8_lossy(kv);
            let (k, v) = s.split_once('=')?;
            Some((k.to_string(), v.to_string()))
        })
        .collect()
}

fn code_of(st: WaitStatus) -> Option<i32> {
    match st {
        WaitStatus::Exited(_, c) => Some(c),
        WaitStatus::Signaled(_, sig, _) => Some(128 + sig.raw()),
        _ => None,
    }
}

/// Reap our child `pid` if it has exited: its exit code (128 + signal when killed).
pub(crate) fn try_reap(pid: i32) -> Result<Option<i32>, LaunchError> {
    loop {
        match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
            Ok(st) => return Ok(code_of(st)),
            Err(Errno::EINTR) => continue,
            Err(e) => {
                return Err(LaunchError::Io {
                    what: format!("waiting for the launcher (pid {pid})"),
                    source: e.into(),
                });
            }
        }
    }
}

/// Wait (blocking) until our child `pid` exits.
pub(crate) fn reap_blocking(pid: i32) {
    loop {
        match waitpid(Pid::from_raw(pid), None) {
            Ok(st) if code_of(st).is_some() => return,
            Ok(_) | Err(Errno::EINTR) => continue,
            Err(_) => return,
        }
    }
}

/// Write one byte `1` to a fifo whose reader is the launcher (Open MPI's attach fifo).
pub(crate) fn poke_fifo(path: &Path) -> Result<(), LaunchError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(crate::error::io_err(format!(
            "opening the attach fifo {}",
            path.display()
        )))?;
    f.write_all(b"1").map_err(crate::error::io_err(format!(
        "writing the attach fifo {}",
        path.display()
    )))
}
