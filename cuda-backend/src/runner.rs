//! A CUDA program under the engine and the CUDA layer together, driven by command lines: the
//! program is stopped at the driver's initialisation point for the handshake, host stops
//! caused by the driver's wake-ups are turned into CUDA events, and `break` (in device code),
//! `continue`, `info cuda ...`, `cuda ...`, `print`, `stepi` are answered as cuda-gdb would.
//! Used by `cohort cuda` (cli/src/cuda.rs, and so by `scripts/gpu-check.sh`) and the tests.

use std::ffi::OsString;
use std::path::Path;

use cohort_engine::session::{Event, Session};

use crate::commands::{History, execute};
use crate::error::{CudaError, Result};
use crate::host::{self, HostStop, INIT_HOOK};
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
        s.load_hooks = vec![INIT_HOOK.to_string()];
        s.start_process()?;
        match s.cont()? {
            Event::StepBreakpoint { pc, .. } if s.load_hook_at(pc).is_some() => {
                s.clear_scope_breakpoint(pc)?;
            }
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
        let cuda = host::start(&mut s, library)?;
        Ok(Runner {
            session: s,
            cuda,
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
            let ev = self.session.cont()?;
            match host::triage(&mut self.session, &mut self.cuda, ev)? {
                HostStop::Absorbed => {}
                HostStop::Cuda(notes) => return Ok(Stop::Cuda(notes)),
                HostStop::Host(Event::Exited { code, .. }) => {
                    self.exited = Some(code);
                    return Ok(Stop::Exited(code));
                }
                HostStop::Host(other) => return Ok(Stop::Host(other)),
            }
        }
    }

    fn report(stop: &Stop) -> String {
        match stop {
            Stop::Cuda(notes) => host::stop_report(notes),
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
                Ok(host::break_message(&self.cuda, id, args.trim(), &addrs))
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
