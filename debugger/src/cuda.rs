//! CUDA programs in the gdb-compatible command loop, as cuda-gdb debugs them: the program is
//! stopped when its CUDA driver initialises (an engine load hook on `cuInit`, no user
//! breakpoint), the handshake with the driver's debugger API is made (cohort-cuda's
//! [`host`]), and from then on the driver's wake-ups are pumped into CUDA events.
//!
//! Focus follows cuda-gdb: a device stop (breakpoint in a kernel, exception) moves the focus to
//! a GPU thread, and `print`, `info locals`, `info args`, `stepi`, `next`/`step` and `bt` then
//! work on that thread and its warp; `cuda kernel|block|thread|device|sm|warp|lane ...` switches between GPU threads;
//! `thread N` and any resuming command (`continue`, host steps) return the focus to the host.
//! `info cuda devices|kernels|blocks|threads` answer in either focus. `break` on a location
//! that a loaded module resolves is a device breakpoint; one that nothing resolves yet and is
//! made pending (gdb's question, `set breakpoint pending on`) is also tried in every module
//! the driver loads later.
//!
//! The library of the API: `--cuda-library PATH` of the command line, else
//! `$COHORT_CUDA_LIBRARY`, else `libcuda.so.1` (see [`host::library_choice`]).

use std::path::PathBuf;

use cohort_cuda::host::{self, HostStop};
use cohort_cuda::state::CudaState;
use cohort_dwarf::types::{Encoding, Type};
use cohort_dwarf::value::{Lval, Value};
use cohort_engine::session::Event;
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow};

/// The CUDA side of a [`Debugger`].
#[derive(Default)]
pub(crate) struct CudaSide {
    /// `--cuda-library PATH` (None: `$COHORT_CUDA_LIBRARY`, else `libcuda.so.1`).
    pub(crate) library: Option<PathBuf>,
    /// The session with the driver, from the handshake to the program's end.
    pub(crate) state: Option<CudaState>,
    /// cuda-gdb's device focus: commands work on the focused GPU thread.
    pub(crate) device_focus: bool,
    /// The devices are suspended by a device stop; they resume with the host.
    pub(crate) suspended: bool,
    /// Breakpoints that may be in device code: id and location, kept across runs.
    pub(crate) breakpoints: Vec<(u32, String)>,
    /// Those of them the host has too, at a line after the one asked for (`FILE:LINE`):
    /// id and the line asked for. A module that has a nearer line takes them over.
    pub(crate) host_fallbacks: Vec<(u32, u32)>,
}

fn cerr(e: cohort_cuda::CudaError) -> EngineError {
    EngineError::Other(e.to_string())
}

const NO_FOCUS: &str = "Focus not set on any active CUDA kernel.";

impl Debugger {
    /// `--cuda-library PATH`: the library the driver's debugger API is loaded from.
    pub fn set_cuda_library(&mut self, path: Option<PathBuf>) {
        self.cuda.library = path;
    }

    /// The events of the CUDA layer among the host's: the load hook (the handshake), the
    /// driver's wake-ups (device stops are reported here). `Some(stopped)` when handled, as
    /// [`Debugger::report`] answers; `None` for the front end's own events.
    pub(crate) fn cuda_event(&mut self, ev: &Event) -> Result<Option<bool>> {
        match ev {
            Event::StepBreakpoint { pc, .. }
                if self.session.load_hook_at(*pc) == Some(host::INIT_HOOK) =>
            {
                self.session.take_load_hook(*pc)?;
                self.cuda_handshake();
                Ok(Some(false))
            }
            // A user breakpoint on `cuInit` itself: the handshake, then the user's stop.
            Event::Breakpoint { pc, .. }
                if self.session.load_hook_at(*pc) == Some(host::INIT_HOOK) =>
            {
                self.session.take_load_hook(*pc)?;
                self.cuda_handshake();
                Ok(None)
            }
            Event::Exited { .. } | Event::Killed { .. } => {
                self.cuda_end();
                Ok(None)
            }
            Event::Signal { tid, .. } => {
                // A device exception is reported to this thread, in gdb's words.
                let label = self
                    .session
                    .process()
                    .filter(|p| p.highest_thread_num() > 1)
                    .map_or_else(
                        || "Program".to_string(),
                        |p| {
                            format!(
                                "Thread {} \"{}\"",
                                p.thread_num(*tid).unwrap_or(1),
                                p.thread_name(*tid)
                            )
                        },
                    );
                let Some(state) = self.cuda.state.as_mut() else {
                    return Ok(None);
                };
                state.set_host_label(label);
                let stop = host::triage(&mut self.session, state, ev.clone()).map_err(cerr)?;
                self.cuda_settle_breakpoints();
                match stop {
                    HostStop::Absorbed => Ok(Some(false)),
                    HostStop::Host(_) => Ok(None),
                    HostStop::Cuda(notes) => {
                        self.cuda.device_focus = true;
                        self.cuda.suspended = true;
                        self.invalidate_frames();
                        crate::output::write_out(&host::stop_report(&notes));
                        Ok(Some(true))
                    }
                }
            }
            _ => Ok(None),
        }
    }

    fn cuda_handshake(&mut self) {
        let library = host::library_choice(self.cuda.library.as_deref());
        match host::start(&mut self.session, library.as_deref()) {
            Ok(mut state) => {
                for (id, spec) in &self.cuda.breakpoints {
                    if let Err(e) = state.add_breakpoint(*id, spec) {
                        crate::errln!("warning: CUDA breakpoint {id}: {e}");
                    }
                }
                self.cuda.state = Some(state);
            }
            Err(e @ cohort_cuda::CudaError::Busy) => crate::errln!(
                "warning: CUDA: {e}: the GPU code of this one is not debugged (give each CUDA rank its own agent: cohort launch --agents N)"
            ),
            Err(e) => crate::errln!("warning: CUDA: {e}"),
        }
    }

    /// The program is gone (or restarted): so is its CUDA session.
    pub(crate) fn cuda_end(&mut self) {
        if let Some(state) = self.cuda.state.take() {
            let _ = state.api.finalize();
        }
        self.cuda.device_focus = false;
        self.cuda.suspended = false;
    }

    /// The part of [`Debugger::state_summary`] for a CUDA program: `None` without a session.
    pub(crate) fn cuda_summary(&self, host: impl FnOnce() -> String) -> Option<String> {
        let state = self.cuda.state.as_ref()?;
        Some(if self.cuda.suspended {
            format!("stopped on the GPU: {}", state.summary())
        } else {
            format!("{}; GPU: {}", host(), state.summary())
        })
    }

    /// After `break`: a location that a loaded module resolves is a device breakpoint; one
    /// made pending is also remembered for the modules the driver loads later. `Some` when
    /// the device breakpoint was set (the host path must not run).
    pub(crate) fn cuda_break(&mut self, arg: &str) -> Result<Option<Flow>> {
        let spec = arg.trim();
        if spec.is_empty() || spec.starts_with('*') || spec.contains(" if ") {
            return Ok(None);
        }
        let Some(state) = self.cuda.state.as_ref() else {
            return Ok(None);
        };
        if !state
            .modules()
            .iter()
            .any(|m| !m.cubin.resolve(spec).is_empty())
        {
            return Ok(None);
        }
        // The id comes from the engine, which numbers every breakpoint: its twin there stays
        // pending (the host has no such code).
        let b = self
            .session
            .add_breakpoint(cohort_engine::session::BpSpec::Location(spec.into()), false)?;
        let Some(state) = self.cuda.state.as_mut() else {
            return Ok(None);
        };
        let addrs = state.add_breakpoint(b.id, spec).map_err(cerr)?;
        self.cuda.breakpoints.push((b.id, spec.to_string()));
        crate::output::write_out(&host::break_message(state, b.id, spec, &addrs));
        Ok(Some(Flow::Go))
    }

    /// Where device breakpoint `id` is set (its first location), for `info breakpoints`:
    /// the address and `in KERNEL at FILE:LINE`.
    pub(crate) fn cuda_breakpoint_at(&self, id: u32) -> Option<(u64, String)> {
        let state = self.cuda.state.as_ref()?;
        let (dev, addr) = *state
            .breakpoints()
            .iter()
            .find(|b| b.id == id)?
            .locations
            .first()?;
        let m = state
            .modules()
            .iter()
            .find(|m| m.dev == dev && m.cubin.function_at(addr).is_some())?;
        let func = m.cubin.function_at(addr).map(|f| f.name.clone())?;
        Some(match m.cubin.find_line(addr) {
            Some((file, line)) => (addr, format!("in {func} at {file}:{line}")),
            None => (addr, format!("in {func}")),
        })
    }

    /// A `FILE:LINE` breakpoint the host placed: when its line there is not the one asked
    /// for, a module loaded later may have a nearer one, as gdb chooses among locations.
    pub(crate) fn cuda_host_fallback(&mut self, id: u32, spec: &str) {
        let Some((_, line)) = spec.rsplit_once(':') else {
            return;
        };
        let Ok(line) = line.trim().parse::<u32>() else {
            return;
        };
        if self.host_line_of(id) == Some(line) {
            return;
        }
        self.cuda.host_fallbacks.push((id, line));
        self.cuda_pending(id, spec);
        self.cuda_settle_breakpoints();
    }

    /// After modules resolved breakpoints the host also has at a later line: gdb keeps the
    /// locations at the nearest line, so the device's nearer line takes the breakpoint over
    /// (its host locations go), an equal one keeps both, a farther one is dropped.
    fn cuda_settle_breakpoints(&mut self) {
        let resolved: Vec<(u32, u32)> = match self.cuda.state.as_mut() {
            Some(state) => {
                let r = state.take_resolved();
                r.into_iter()
                    .filter_map(|(id, addr)| Some((id, state.line_of(addr)?.1)))
                    .collect()
            }
            None => return,
        };
        for (id, device_line) in resolved {
            let Some(&(_, asked)) = self.cuda.host_fallbacks.iter().find(|(b, _)| *b == id) else {
                continue;
            };
            let Some(host_line) = self.host_line_of(id) else {
                continue;
            };
            let (d, h) = (device_line.abs_diff(asked), host_line.abs_diff(asked));
            if device_line >= asked && (host_line < asked || d < h) {
                if let Err(e) = self.session.move_off_host(id) {
                    crate::errln!("warning: breakpoint {id}: {e}");
                }
                self.cuda.host_fallbacks.retain(|(b, _)| *b != id);
            } else if d > h
                && let Some(state) = self.cuda.state.as_mut()
                && let Err(e) = state.delete_breakpoint(id)
            {
                crate::errln!("warning: CUDA breakpoint {id}: {e}");
            }
        }
    }

    /// The source line of breakpoint `id`'s first host location.
    fn host_line_of(&self, id: u32) -> Option<u32> {
        let b = self.session.breakpoints().iter().find(|b| b.id == id)?;
        self.line_at(*b.addrs.first()?).map(|l| l.line)
    }

    /// A breakpoint the host made pending: the device may have it later.
    pub(crate) fn cuda_pending(&mut self, id: u32, spec: &str) {
        self.cuda.breakpoints.push((id, spec.to_string()));
        if let Some(state) = self.cuda.state.as_mut()
            && let Err(e) = state.add_breakpoint(id, spec)
        {
            crate::errln!("warning: CUDA breakpoint {id}: {e}");
        }
    }

    /// Commands the CUDA layer answers (before the host's). `Some` when it did.
    pub(crate) fn cuda_dispatch(&mut self, cmd: &str, rest: &str) -> Result<Option<Flow>> {
        match cmd {
            "info" | "i" | "inf" if rest == "cuda" || rest.starts_with("cuda ") => {
                let what = rest[4..].trim();
                let Some(state) = self.cuda.state.as_ref() else {
                    return match what {
                        "devices" => {
                            crate::out!("No CUDA devices.\n");
                            Ok(Some(Flow::Go))
                        }
                        "kernels" => {
                            crate::out!("No CUDA kernels.\n");
                            Ok(Some(Flow::Go))
                        }
                        "blocks" | "threads" => Err(EngineError::Other(NO_FOCUS.into())),
                        other => Err(EngineError::Other(format!(
                            "Undefined info cuda command: \"{other}\".  Try \"help info cuda\"."
                        ))),
                    };
                };
                let text = match what {
                    "devices" => state.info_devices(),
                    "kernels" => state.info_kernels(),
                    "blocks" => state.info_blocks(),
                    "threads" => state.info_threads(),
                    other => {
                        return Err(EngineError::Other(format!(
                            "Undefined info cuda command: \"{other}\".  Try \"help info cuda\"."
                        )));
                    }
                };
                crate::output::write_out(&text);
                Ok(Some(Flow::Go))
            }
            "cuda" => {
                let Some(state) = self.cuda.state.as_mut() else {
                    return Err(EngineError::Other(NO_FOCUS.into()));
                };
                let coords = cohort_cuda::commands::parse_coords(rest).map_err(cerr)?;
                let switch = [
                    coords.kernel,
                    coords.device,
                    coords.sm,
                    coords.warp,
                    coords.lane,
                ]
                .iter()
                .any(|c| c.flatten().is_some())
                    || coords.block.flatten().is_some()
                    || coords.thread.flatten().is_some();
                if !switch && !self.cuda.device_focus {
                    return Err(EngineError::Other(NO_FOCUS.into()));
                }
                let mut history = cohort_cuda::commands::History::default();
                let line = format!("cuda {rest}");
                if let Some(text) =
                    cohort_cuda::commands::execute(state, &mut history, &line).map_err(cerr)?
                {
                    crate::output::write_out(&text);
                }
                if switch {
                    self.cuda.device_focus = true;
                    self.invalidate_frames();
                }
                Ok(Some(Flow::Go))
            }
            "delete" | "d" if !rest.starts_with("display") => {
                let ids: Vec<u32> = if rest.is_empty() {
                    self.cuda.breakpoints.iter().map(|b| b.0).collect()
                } else {
                    rest.split_whitespace()
                        .filter_map(|w| w.parse().ok())
                        .collect()
                };
                for id in ids {
                    if let Some(i) = self.cuda.breakpoints.iter().position(|b| b.0 == id) {
                        self.cuda.breakpoints.remove(i);
                        if let Some(state) = self.cuda.state.as_mut() {
                            state.delete_breakpoint(id).map_err(cerr)?;
                        }
                    }
                }
                // The engine's twins go the host's way.
                Ok(None)
            }
            "thread" | "t" if !rest.is_empty() => {
                self.cuda.device_focus = false;
                Ok(None)
            }
            "run" | "r" | "start" | "starti" | "kill" | "k" | "detach" => {
                self.cuda_end();
                Ok(None)
            }
            _ if self.cuda.device_focus => self.cuda_device_command(cmd, rest),
            _ => {
                self.cuda_resume_if(cmd)?;
                Ok(None)
            }
        }
    }

    /// A host command that lets the program run resumes the suspended devices first. After a
    /// device exception the program cannot go on (its context is lost; resuming the devices
    /// let it see a kernel that never ran to its end succeed): it is ended with SIGKILL, as
    /// cuda-gdb ends it, and the command reports that.
    fn cuda_resume_if(&mut self, cmd: &str) -> Result<()> {
        if self.cuda.suspended && crate::data::resumes(cmd) {
            if let Some(state) = self.cuda.state.as_mut() {
                if state.faulted() {
                    if let Some(pid) = self.session.pid() {
                        nix::sys::signal::kill(
                            nix::unistd::Pid::from_raw(pid),
                            nix::sys::signal::Signal::SIGKILL,
                        )
                        .map_err(|e| EngineError::Other(format!("cannot end the program: {e}")))?;
                    }
                } else {
                    state.resume().map_err(cerr)?;
                }
            }
            self.cuda.suspended = false;
            self.cuda.device_focus = false;
        }
        Ok(())
    }

    /// Commands in device focus: the focused GPU thread's variables, its warp's steps, its
    /// backtrace. Other commands are the host's (resuming ones resume the devices too).
    fn cuda_device_command(&mut self, cmd: &str, rest: &str) -> Result<Option<Flow>> {
        let Some(state) = self.cuda.state.as_mut() else {
            self.cuda.device_focus = false;
            return Ok(None);
        };
        let text = match cmd {
            "print" | "p" | "inspect" => {
                // `print/FMT EXPR`: the format letter (a size letter means nothing here).
                let (fmt, expr) = match rest.strip_prefix('/') {
                    Some(r) => {
                        let (f, e) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
                        (f.chars().rfind(|c| !"bhwg".contains(*c)), e)
                    }
                    None => (None, rest),
                };
                let v = state.print_as(expr, fmt).map_err(cerr)?;
                // The history keeps gdb's numbering; the GPU value itself is not kept.
                let n = self.record_history(Value::new(
                    Type::base("<GPU value>", 0, Encoding::Unsigned),
                    Vec::new(),
                    Lval::None,
                ));
                format!("${n} = {v}\n")
            }
            "stepi" | "si" => state.step_warp().map_err(cerr)?,
            "next" | "n" | "step" | "s" => state.step_line().map_err(cerr)?,
            "backtrace" | "bt" | "where" => state.backtrace().map_err(cerr)?,
            "info" | "i" | "inf" if rest == "locals" => state.info_locals().map_err(cerr)?,
            "info" | "i" | "inf" if rest == "args" => state.info_args().map_err(cerr)?,
            _ => {
                self.cuda_resume_if(cmd)?;
                return Ok(None);
            }
        };
        crate::output::write_out(&text);
        Ok(Some(Flow::Go))
    }
}
