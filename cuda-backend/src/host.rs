//! What a front end does with the host side of a CUDA program (the gdb-compatible command
//! loop of `cohort-debugger` uses it, so `cohort PROGRAM`, its alias `cohort cuda` and agentd's
//! ranks):
//!
//! - where to stop the program for the handshake ([`INIT_HOOK`]: a load hook of the engine,
//!   no user breakpoint) and which API library to load ([`library_choice`]);
//! - the handshake itself, with the engine told to stop on the wake-up signal ([`start`]);
//! - sorting the host's stops ([`triage`]): the driver's wake-ups are pumped into CUDA events,
//!   the program's own wake-up signal is passed on, everything else is the front end's;
//! - the text of a device stop ([`stop_report`]) and of a device breakpoint ([`break_message`]).

use std::path::{Path, PathBuf};

use cohort_engine::session::{Event, Session};

use crate::client::{Cudbg, WAKE_SIGNAL, prepare_signals, take_pending};
use crate::error::Result;
use crate::state::{CudaState, Note};

/// Where the program is stopped for the handshake: the driver's initialisation point.
pub const INIT_HOOK: &str = crate::cudbg::SYM_INIT_POINT;

/// The environment variable naming the API library when no option does.
pub const LIBRARY_ENV: &str = "COHORT_CUDA_LIBRARY";

/// The API library: the one given on the command line, else `$COHORT_CUDA_LIBRARY`, else
/// `None` (the client's default, `libcuda.so.1`).
pub fn library_choice(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit.map(Path::to_path_buf).or_else(|| {
        std::env::var_os(LIBRARY_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

/// The handshake, the program stopped at [`INIT_HOOK`]: the engine is told to stop on the
/// wake-up signal (gdb's `handle SIGURG stop pass`, given to the running process), the
/// debugger variables are written, the API is loaded and initialised.
pub fn start(session: &mut Session, library: Option<&Path>) -> Result<CudaState> {
    let mut signals = session.signals.clone();
    prepare_signals(&mut signals)?;
    let api = Cudbg::handshake(session, library)?;
    session.set_signals(signals);
    Ok(CudaState::new(api))
}

/// A host stop, sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostStop {
    /// Nothing to report: keep the program going (a wake-up whose events stop nothing, or
    /// the program's own wake-up signal, delivered when it resumes).
    Absorbed,
    /// The driver reported something that stops the program (a device stop, an error).
    Cuda(Vec<Note>),
    /// A host event for the front end.
    Host(Event),
}

/// Sort a host event: a wake-up signal sent by the notification callback is discarded and the
/// events pumped; one the callback did not send is the program's and is passed on.
pub fn triage(session: &mut Session, cuda: &mut CudaState, ev: Event) -> Result<HostStop> {
    match ev {
        Event::Signal { tid, signo, .. } if signo == WAKE_SIGNAL => {
            if !take_pending() {
                return Ok(HostStop::Absorbed);
            }
            session.process_mut()?.discard_signal(tid);
            let notes = cuda.handle_events()?;
            if notes
                .iter()
                .any(|n| matches!(n, Note::Stopped { .. } | Note::InternalError(_)))
            {
                Ok(HostStop::Cuda(notes))
            } else {
                Ok(HostStop::Absorbed)
            }
        }
        other => Ok(HostStop::Host(other)),
    }
}

/// The report of the notes of a device stop (focus switch, breakpoint hit or exception, and
/// the source line), as cuda-gdb prints it.
pub fn stop_report(notes: &[Note]) -> String {
    notes
        .iter()
        .filter_map(|n| match n {
            Note::Stopped { text } => Some(text.clone()),
            Note::InternalError(e) => Some(format!(
                "CUDA internal error: {}\n",
                crate::cudbg::result_name(*e)
            )),
            _ => None,
        })
        .collect()
}

/// gdb's line for a new breakpoint in device code at `addrs` (none: pending).
pub fn break_message(cuda: &CudaState, id: u32, spec: &str, addrs: &[u64]) -> String {
    match addrs.first() {
        Some(a) => {
            let at = cuda
                .modules()
                .iter()
                .find_map(|m| m.cubin.find_line(*a).map(|(f, l)| (f.to_string(), l)));
            match at {
                Some((f, l)) => format!("Breakpoint {id} at {a:#x}: file {f}, line {l}.\n"),
                None => format!("Breakpoint {id} at {a:#x}\n"),
            }
        }
        None => format!("Breakpoint {id} ({spec}) pending.\n"),
    }
}
