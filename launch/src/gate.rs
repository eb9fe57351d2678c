//! What a debugger must do, once attached to a rank, to let it leave `MPI_Init`.

use cohort_engine::session::{Event, Session};

use crate::error::LaunchError;
use crate::mpir::{DEFAULT_TIMEOUT, cont_timeout, lookup};
use crate::proc_util;

/// After a debugger has attached to a rank: what it must do to let the rank leave `MPI_Init`
/// (see the crate documentation); a no-op where nothing is needed.
///
/// - `MPIR_debug_gate` (in the rank's MPI library, where there is one) is set to 1.
/// - A Slurm task (one with `SLURM_JOB_ID` in its environment) may have been left stopped by
///   `slurmstepd` (SIGSTOP right after exec): it gets a SIGCONT, which ends the stop. The
///   SIGCONT itself is taken here (the rank is resumed until the signal is reported, before
///   it runs any instruction, and the signal is discarded), so the next `cont` of the caller
///   does not stop on it.
pub fn release_gate(session: &mut Session) -> Result<(), LaunchError> {
    let pid = session
        .pid()
        .ok_or(cohort_engine::EngineError::NotRunning)?;
    if let Some((addr, _)) = lookup(session, "MPIR_debug_gate") {
        session.write_memory(addr, &1i32.to_ne_bytes())?;
    }
    let slurm = proc_util::environ(pid)
        .iter()
        .any(|(k, _)| k == "SLURM_JOB_ID" || k == "SLURM_JOBID");
    if slurm {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGCONT,
        )
        .map_err(|e| LaunchError::Io {
            what: format!("sending SIGCONT to rank pid {pid}"),
            source: e.into(),
        })?;
        // Other signals may come first; they are passed on as the session's table says.
        for _ in 0..16 {
            let Some(ev) = cont_timeout(session, pid, DEFAULT_TIMEOUT)? else {
                return Err(LaunchError::Timeout {
                    what: format!("the SIGCONT of pid {pid} to be reported"),
                    secs: DEFAULT_TIMEOUT.as_secs(),
                });
            };
            match ev {
                Event::Signal { tid, signo, .. } if signo == libc::SIGCONT => {
                    session.process_mut()?.discard_signal(tid);
                    return Ok(());
                }
                Event::Exited { code, .. } => {
                    return Err(LaunchError::RankExited { pid, code });
                }
                Event::Killed { signo, .. } => {
                    return Err(LaunchError::RankKilled { pid, signo });
                }
                _ => {}
            }
        }
        return Err(LaunchError::Protocol(format!(
            "pid {pid}: SIGCONT never reported"
        )));
    }
    Ok(())
}
