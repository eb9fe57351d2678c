//! A CUDA program under the engine and the CUDA layer together, driven by command lines: the
//! program is stopped at the driver's initialisation point for the handshake, host stops
//! caused by the driver's wake-ups are turned into CUDA events, and `break` (in device code),
//! `continue`, `info cuda ...`, `cuda ...`, `print`, `stepi` are answered as cuda-gdb would.
//! Used by `cohort cuda` (cli/src/cuda.rs, and so by `scripts/gpu-check.sh`) and the tests.

use std::ffi::OsString;
use std::path::Path;

use cohort_engine::session::{BpSpec, Event, Session};

use crate::client::{Cudbg, WAKE_SIGNAL, prepare_signals, take_pending};
use crate::commands::{History, execute};
use crate::cudbg::SYM_INIT_POINT;
use crate::error::{CudaError, Result};
use crate::state::{CudaState, Note};

pub struct Runner {
    pub session: Session,
    pub cuda: CudaState,
    history: History,
    next_breakpoint: u32,
    exited: Option<i32>,
}

/// What a wait ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    Cuda(Vec<Note>),
    Exited(i32),
    Host(Event),
}

impl Runner {
    /// Start `program` with `args` (and `env` added to gdb's environment), stop it at the
    /// driver's initialisation point and perform the handshake with the API in `library`
    /// (default `libcuda.so.1`).
    pub fn launch(
        program: &Path,
        args: &[OsString],
        env: &[(OsString, OsString)],
        library: Option<&Path>,
    ) -> Result<Runner> {
        let mut s = Session::new();
        s.load_program(program)?;
        let mut e = cohort_engine::session::gdb_environment();
        e.extend(env.iter().cloned());
        s.env = Some(e);
        s.args = args.to_vec();
        prepare_signals(&mut s.signals)?;
        s.add_breakpoint(BpSpec::SymbolExact(SYM_INIT_POINT.into()), true)?;
        s.start_process()?;
        match s.cont()? {
            Event::Breakpoint { .. } => {}
            Event::Exited { code, .. } => {
                return Err(CudaError::Handshake(format!(
                    "the program exited with code {code} before initialising CUDA"
                )));
            }
            other => {
                return Err(CudaError::Handshake(format!(
                    "the program stopped before initialising CUDA: {other:?}"
                )));
            }
        }
        let api = Cudbg::handshake(&mut s, library)?;
        Ok(Runner {
            session: s,
            cuda: CudaState::new(api),
            history: History::default(),
            next_breakpoint: 1,
            exited: None,
        })
    }

    /// Run the host until the driver reports something, the program exits, or the host
    /// stops for its own reasons.
    pub fn wait(&mut self) -> Result<Stop> {
        if let Some(code) = self.exited {
            return Ok(Stop::Exited(code));
        }
        loop {
            match self.session.cont()? {
                Event::Signal { tid, signo, .. } if signo == WAKE_SIGNAL && take_pending() => {
                    self.session.process_mut()?.discard_signal(tid);
                    let notes = self.cuda.handle_events()?;
                    if notes
                        .iter()
                        .any(|n| matches!(n, Note::Stopped { .. } | Note::InternalError(_)))
                    {
                        return Ok(Stop::Cuda(notes));
                    }
                }
                Event::Signal { signo, .. } if signo == WAKE_SIGNAL => {
                    // No event announced: the program's own SIGURG (or a late wake-up, which
                    // its default disposition ignores). It is delivered on resume.
                }
                Event::Exited { code, .. } => {
                    self.exited = Some(code);
                    return Ok(Stop::Exited(code));
                }
                other => return Ok(Stop::Host(other)),
            }
        }
    }

    fn report(stop: &Stop) -> String {
        match stop {
            Stop::Cuda(notes) => notes
                .iter()
                .filter_map(|n| match n {
                    Note::Stopped { text } => Some(text.clone()),
                    Note::InternalError(e) => Some(format!(
                        "CUDA internal error: {}\n",
                        crate::cudbg::result_name(*e)
                    )),
                    _ => None,
                })
                .collect(),
            Stop::Exited(0) => "[Inferior 1 exited normally]\n".into(),
            Stop::Exited(c) => format!("[Inferior 1 exited with code {c:02o}]\n"),
            Stop::Host(e) => format!("host stop: {e:?}\n"),
        }
    }

    /// One command line; its output.
    pub fn command(&mut self, line: &str) -> Result<String> {
        let l = line.trim();
        let (cmd, args) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        match cmd {
            "break" | "b" => {
                let id = self.next_breakpoint;
                self.next_breakpoint += 1;
                let addrs = self.cuda.add_breakpoint(id, args.trim())?;
                Ok(match addrs.first() {
                    Some(a) => {
                        let at =
                            self.cuda.modules().iter().find_map(|m| {
                                m.cubin.find_line(*a).map(|(f, l)| (f.to_string(), l))
                            });
                        match at {
                            Some((f, l)) => {
                                format!("Breakpoint {id} at {a:#x}: file {f}, line {l}.\n")
                            }
                            None => format!("Breakpoint {id} at {a:#x}\n"),
                        }
                    }
                    None => format!("Breakpoint {id} ({}) pending.\n", args.trim()),
                })
            }
            "run" | "r" | "continue" | "c" => {
                if cmd.starts_with('c') {
                    self.cuda.resume()?;
                }
                let stop = self.wait()?;
                Ok(Self::report(&stop))
            }
            // gdb settings of the script (pagination, confirmation) mean nothing here.
            "set" => Ok(String::new()),
            "delete" | "d" => {
                if args.trim().is_empty() {
                    let ids: Vec<u32> = self.cuda.breakpoints().iter().map(|b| b.id).collect();
                    for id in ids {
                        self.cuda.delete_breakpoint(id)?;
                    }
                } else {
                    for w in args.split_whitespace() {
                        let id = w
                            .parse()
                            .map_err(|_| CudaError::Focus(format!("Convenience variable must have integer value.\nArgs must be numbers or '$' variables.: {w}")))?;
                        self.cuda.delete_breakpoint(id)?;
                    }
                }
                Ok(String::new())
            }
            _ => match execute(&mut self.cuda, &mut self.history, l)? {
                Some(out) => Ok(out),
                None => Err(CudaError::Focus(format!(
                    "Undefined command: \"{cmd}\".  Try \"help\"."
                ))),
            },
        }
    }

    /// Run each line, returning a transcript (`(cohort) LINE` then its output or error).
    pub fn script(&mut self, lines: &[&str]) -> String {
        let mut out = String::new();
        for l in lines {
            out.push_str(&format!("(cohort) {l}\n"));
            match self.command(l) {
                Ok(o) => out.push_str(&o),
                Err(e) => out.push_str(&format!("{e}\n")),
            }
        }
        out
    }
}
