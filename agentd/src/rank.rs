//! One rank: a [`Debugger`] whose output is captured for merging, run as a coroutine on the
//! tracer thread that owns the rank's process (crate::tracers). A rank whose step waits
//! (inside `MPI_Recv` whose sender has not sent yet) holds only its suspended coroutine while
//! every other rank goes on; the agent reports it as waiting and forwards its stop when it
//! comes (docs/ARCHITECTURE.md).

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::tracers::{self, StartPermit, Suspend};
use std::sync::{Arc, Mutex, mpsc};

use cohort_debugger::launched::ProgramStart;
use cohort_debugger::{Debugger, Flow, output};

/// Said of ranks shown after `MPI_Init` rather than at `main` (Open MPI's `mpirun` lets them go
/// only inside it).
pub const AFTER_MPI_INIT: &str = "The launcher lets its ranks go only inside MPI_Init: they are shown at the first line after it.\n";

/// How a rank's process comes under control.
pub enum Init {
    /// Start the program (the local launcher and MPICH's per-rank wrapper).
    Launch {
        program: PathBuf,
        args: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
        cwd: Option<PathBuf>,
        fds: Vec<(Arc<OwnedFd>, i32)>,
    },
    /// Attach to a running process (ranks acquired through MPIR): detached at the end, or
    /// killed when the session launched the job (`kill_at_end`). `exit_note` says why the
    /// rank would die early (its `MPI_Init` cannot work under the launcher), with its end when
    /// that is a failure.
    Attach {
        pid: i32,
        kill_at_end: bool,
        exit_note: Option<String>,
    },
    /// Examine a core file of the program (`cohort launch --cores`): read-only.
    Core { program: PathBuf, core: PathBuf },
    /// Start the rank a launcher's wrapper handed over (MPICH's hydra through
    /// `cohort-rankwrap`), and tell the wrapper how it ended.
    Wrapped(Box<cohort_launch::WrappedRank>),
}

/// A job for a rank's thread.
pub enum Job {
    /// Run one command line (or one of the agent's own: `:start`, `:state`); `history` is the
    /// job's value-history count, which the rank's own catches up with first.
    Exec { id: u64, line: String, history: u32 },
    /// End: kill a launched program or detach (also from a launched one, when `detach`).
    Shutdown { detach: bool },
}

/// What one rank answered.
#[derive(Debug)]
pub struct Done {
    pub id: u64,
    pub rank: u32,
    pub out: String,
    pub err: String,
    /// The rank's value-history count after the command.
    pub history: u32,
    /// The command failed (an error, as gdb's).
    pub failed: bool,
    /// The rank's typed state after the command.
    pub state: cohort_wire::RankState,
    /// The typed value of `:value EXPR` and `:locals`.
    pub value: Option<cohort_wire::TypedValue>,
}

/// The agent's commands answered with typed values: `:locals` (`:locals N`: frame N's),
/// `:value EXPR`, `:array EXPR` (`:value@N EXPR`, `:array@N EXPR`: in frame N),
/// `:breakpoints` (the rank's breakpoints: `cohort_wire::Breakpoint`).
pub fn is_typed(line: &str) -> bool {
    line == ":locals"
        || line.starts_with(":locals ")
        || line == ":breakpoints"
        || line.starts_with(":value ")
        || line.starts_with(":array ")
        || line.starts_with(":value@")
        || line.starts_with(":array@")
}

/// `N EXPR` of `:value@N EXPR`: the frame's level and the expression.
fn frame_and_expr(rest: &str) -> Result<(usize, &str), cohort_engine::EngineError> {
    let (n, expr) = rest.split_once(' ').unwrap_or((rest, ""));
    match n.parse::<usize>() {
        Ok(n) => Ok((n, expr)),
        Err(_) => Err(cohort_engine::EngineError::Other(format!(
            "Invalid frame level \"{n}\"."
        ))),
    }
}

/// The rank's breakpoints in the wire's form.
fn typed_breakpoints(d: &Debugger) -> cohort_wire::TypedValue {
    let list: Vec<cohort_wire::Breakpoint> = d
        .breakpoint_facts()
        .into_iter()
        .map(|b| cohort_wire::Breakpoint {
            number: b.number,
            file: b.file,
            path: b.path,
            line: b.line,
            enabled: b.enabled,
            temporary: b.temporary,
        })
        .collect();
    cohort_wire::Breakpoint::list_value(&list)
}

/// A value's tree in the wire's form.
fn typed_value(v: cohort_debugger::typed::ValueFacts) -> cohort_wire::TypedValue {
    use cohort_debugger::typed::ValueFacts;
    use cohort_wire::{Dim, Elements, Num, TypedValue};
    match v {
        ValueFacts::Scalar { ty, text, num } => TypedValue::Scalar {
            ty,
            text,
            num: num.map(Num),
        },
        ValueFacts::Struct { ty, fields } => TypedValue::Struct {
            ty,
            fields: fields
                .into_iter()
                .map(|(n, f)| (n, typed_value(f)))
                .collect(),
        },
        ValueFacts::Array {
            ty,
            element,
            dims,
            column_major,
            numbers,
            values,
        } => TypedValue::Array {
            ty,
            element,
            dims: dims
                .into_iter()
                .map(|(lower, count)| Dim { lower, count })
                .collect(),
            column_major,
            elements: match numbers {
                Some(n) => Elements::Numbers(n.into_iter().map(Num).collect()),
                None => Elements::Values(values.into_iter().map(typed_value).collect()),
            },
        },
    }
}

/// A rank's state in the tree's typed form.
fn typed_state(d: &Debugger) -> cohort_wire::RankState {
    use cohort_debugger::facts::StateFacts;
    use cohort_wire::{Place, RankState, StopReason};
    match d.state_facts() {
        StateFacts::NotStarted => RankState::NotStarted,
        StateFacts::Exited(code) => RankState::Exited { code },
        StateFacts::Killed(signal) => RankState::Killed { signal },
        StateFacts::Stopped(s) => RankState::Stopped {
            reason: if s.at_breakpoint {
                StopReason::Breakpoint
            } else {
                StopReason::Other
            },
            place: Place {
                function: s.function,
                file: s.file,
                path: s.path,
                line: s.line,
                pc: s.pc,
            },
        },
    }
}

/// gdb names the process in a few lines; with many ranks those lines would never merge.
fn without_pids(s: String) -> String {
    if !s.contains("(process ") {
        return s;
    }
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\[Inferior 1 \(process \d+\) ").expect("static regex")
    });
    RE.replace_all(&s, "[Inferior 1 ").into_owned()
}

/// The next job for this rank: suspends its coroutine until one comes (`None`: the agent has
/// dropped the rank's handle).
fn next_job(rx: &mpsc::Receiver<Job>) -> Option<Job> {
    loop {
        match rx.try_recv() {
            Ok(j) => return Some(j),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) if tracers::in_coroutine() => {
                tracers::suspend(Suspend::Idle);
            }
            Err(mpsc::TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}

/// A rank's life, run as a coroutine on its tracer thread (crate::tracers).
pub(crate) fn worker(
    rank: u32,
    init: Init,
    rx: mpsc::Receiver<Job>,
    pid: Arc<AtomicI32>,
    activity: Arc<Mutex<Option<String>>>,
    done: impl Fn(Done),
) {
    let mut d = Debugger::new(true);
    d.set_activity_slot(activity);
    let mut attach_pid = None;
    let mut kill_attached = false;
    let mut exit_note: Option<String> = None;
    let mut wrapped: Option<Box<cohort_launch::WrappedRank>> = None;
    let mut core_file: Option<PathBuf> = None;
    match init {
        Init::Launch {
            program,
            args,
            env,
            cwd,
            fds,
        } => {
            d.session.args = args;
            d.session.env = Some(env);
            d.session.cwd = cwd;
            d.session.fds = fds;
            if let Err(e) = d.session.load_program(&program) {
                cohort_debugger::errln!("{e}");
            }
        }
        Init::Attach {
            pid,
            kill_at_end,
            exit_note: note,
        } => {
            attach_pid = Some(pid);
            kill_attached = kill_at_end;
            exit_note = note;
        }
        Init::Core { program, core } => {
            if let Err(e) = d.session.load_program(&program) {
                cohort_debugger::errln!("{e}");
            }
            core_file = Some(core);
        }
        Init::Wrapped(mut w) => {
            let lo = w.launch_options();
            d.session.args = lo.args;
            d.session.env = lo.env;
            if let Some(env) = d.session.env.as_mut() {
                crate::mpirec::preload_recorder(env);
            }
            d.session.cwd = lo.cwd;
            d.session.fds = lo.fds;
            if let Err(e) = d.session.load_program(&lo.program) {
                cohort_debugger::errln!("{e}");
            }
            wrapped = Some(w);
        }
    }
    // Whatever loading printed goes with the first answer.
    let mut detach_at_end = attach_pid.is_some() && !kill_attached;
    let mut queued: Option<Job> = None;
    let mut ended_by_session = false;
    while let Some(job) = queued.take().or_else(|| next_job(&rx)) {
        match job {
            Job::Exec { id, line, history } => {
                d.skip_history_to(history as usize);
                let line = line.trim();
                let mut failed = false;
                let mut value = None;
                // Killed while stopped: gdb's words for its end first, then the command finds
                // no program (the rank's state says how it ended).
                if tracers::process_news() && d.notice_gone() && line.starts_with(':') {
                    drop(output::take());
                }
                match line {
                    ":start" if core_file.is_some() => {
                        if let Some(c) = &core_file
                            && let Err(e) = d.load_core(c)
                        {
                            cohort_debugger::errln!("{e}");
                        }
                    }
                    ":start" => match attach_pid {
                        // Started a few at a time: forking from an agent with a hundred
                        // threads is mostly copying its page tables, and a thousand at once
                        // starve everything else on the node.
                        Some(p) => {
                            if let Err(e) = d.attach(p) {
                                cohort_debugger::errln!("{e}");
                            } else {
                                if kill_attached {
                                    // The session launched the job: where attaching found
                                    // the rank is no stop of the user's; `:to-main` shows
                                    // where it stops.
                                    let _ = output::take();
                                }
                                if let Err(e) = cohort_launch::release_gate(&mut d.session) {
                                    // Ranks acquired through MPIR may wait for the debugger
                                    // before leaving MPI_Init (MPIR_debug_gate, or a SIGSTOP
                                    // under Slurm).
                                    cohort_debugger::errln!("{e}");
                                }
                            }
                        }
                        None => {
                            let _permit = StartPermit::take();
                            d.execute("start");
                        }
                    },
                    ":kill" => {
                        // The job is started again (`run` under an MPI launcher): the process
                        // goes, the debugger (breakpoints, settings, history) stays.
                        if d.pid().is_some()
                            && let Err(e) = d.session.kill()
                        {
                            cohort_debugger::errln!("{e}");
                        }
                    }
                    l if l.starts_with(":reattach ") => {
                        // The started-again job's process of this rank: RANK=PID,… (silently,
                        // as at the first acquisition: `run` says where the ranks stop).
                        let p = l[":reattach ".len()..].split(',').find_map(|e| {
                            let (r, p) = e.split_once('=')?;
                            (r.trim().parse::<u32>().ok()? == rank)
                                .then(|| p.trim().parse::<i32>().ok())?
                        });
                        match p {
                            None => {
                                cohort_debugger::errln!("rank {rank} is not in the job's new table")
                            }
                            Some(p) => {
                                attach_pid = Some(p);
                                // The job's `run`: hit counts start again, as gdb's.
                                d.session.clear_hit_counts();
                                if let Err(e) = d.attach(p) {
                                    cohort_debugger::errln!("{e}");
                                } else {
                                    let _ = output::take();
                                    if let Err(e) = cohort_launch::release_gate(&mut d.session) {
                                        cohort_debugger::errln!("{e}");
                                    }
                                }
                            }
                        }
                    }
                    ":to-main" => {
                        // A launched job's rank, attached to where its launcher left it: to
                        // where every launcher's ranks are shown (at main, or after MPI_Init).
                        match d.run_to_program_start() {
                            Ok(ProgramStart::AfterMpiInit) => {
                                let c = output::take();
                                output::write_out(AFTER_MPI_INIT);
                                output::write_out(&c.out);
                                output::write_err(&c.err);
                            }
                            Ok(_) => {}
                            Err(e) => cohort_debugger::errln!("{e}"),
                        }
                    }
                    ":stacks" => {
                        d.execute("bt");
                    }
                    // `compare EXPR`: in the program's own innermost frame when the rank is
                    // stopped inside a library (MPI, libc, the OpenMP runtime).
                    l if l.starts_with(":compare ") => {
                        d.output_in_program_frame(&l[":compare ".len()..]);
                    }
                    // Typed values (the window's locals, watches and array viewer): the
                    // value's tree, or the error as `print` says it. `:array` reads more of
                    // an array's numbers (asked of one rank).
                    ":breakpoints" => value = Some(typed_breakpoints(&d)),
                    l if is_typed(l) => {
                        use cohort_debugger::typed::{MAX_NUMBERS, TREE_NUMBERS};
                        let v = if let Some(expr) = l.strip_prefix(":value ") {
                            d.typed_value(expr, TREE_NUMBERS)
                        } else if let Some(expr) = l.strip_prefix(":array ") {
                            d.typed_value(expr, MAX_NUMBERS)
                        } else if let Some(rest) = l.strip_prefix(":value@") {
                            frame_and_expr(rest)
                                .and_then(|(n, e)| d.typed_value_in(n, e, TREE_NUMBERS))
                        } else if let Some(rest) = l.strip_prefix(":array@") {
                            frame_and_expr(rest)
                                .and_then(|(n, e)| d.typed_value_in(n, e, MAX_NUMBERS))
                        } else if let Some(n) = l.strip_prefix(":locals ") {
                            match n.trim().parse::<usize>() {
                                Ok(n) => d.typed_locals_of(n),
                                Err(_) => Err(cohort_engine::EngineError::Other(format!(
                                    "Invalid frame level \"{}\".",
                                    n.trim()
                                ))),
                            }
                        } else {
                            d.typed_locals()
                        };
                        match v {
                            Ok(v) => value = Some(typed_value(v)),
                            Err(e) => {
                                cohort_debugger::errln!("{e}");
                                failed = true;
                            }
                        }
                    }
                    ":mpi" => {
                        output::write_out(&format!("{}\n", crate::mpirec::report(&d, rank)));
                    }
                    ":mq" => match crate::msgq::report(&d, rank) {
                        Ok(text) => output::write_out(&text),
                        Err(e) => cohort_debugger::errln!("No message queues: {e}."),
                    },
                    l if l.starts_with(":restore ") => {
                        // An item of the program's last session (session/src/saved.rs).
                        let lines: Vec<&str> = l[":restore ".len()..].lines().collect();
                        match d.restore_item(&lines) {
                            Ok(failed) => {
                                for f in failed {
                                    output::write_err(&format!("{f}\n"));
                                }
                            }
                            Err(why) => {
                                output::write_err(&format!("{why}\n"));
                                failed = true;
                            }
                        }
                    }
                    ":session-save" => {
                        // What the next session of the program restores (session/src/saved.rs).
                        output::write_out(&d.session_state());
                    }
                    // The front end's lines are typed by its user from now on (`on`), or
                    // come from a script or `-batch` (`off`).
                    ":typed on" | ":typed off" => d.typed = line == ":typed on",
                    ":state" => {
                        let s = d.state_summary();
                        output::write_out(&format!("{s}\n"));
                    }
                    _ => match d.run_command(line) {
                        Ok(Flow::Quit) => output::write_out(""),
                        Ok(_) => {}
                        Err(e) => {
                            cohort_debugger::errln!("{e}");
                            failed = true;
                        }
                    },
                }
                pid.store(d.pid().unwrap_or(0), Ordering::Relaxed);
                // A shutdown that came while the command ran: the agent ends a rank still in a
                // command with SIGKILL, and that end is the session's, not the program's.
                if let Ok(j) = rx.try_recv() {
                    queued = Some(j);
                }
                let ending = matches!(queued, Some(Job::Shutdown { .. }));
                if ending
                    && d.pid().is_none()
                    && d.exit_status == Some(cohort_launch::wait_status_killed(libc::SIGKILL))
                {
                    d.exit_status = None;
                    ended_by_session = true;
                } else if d.pid().is_none()
                    && d.exit_status.is_some_and(|st| st != 0)
                    && let Some(why) = exit_note.take()
                {
                    output::write_err(&format!("The rank died in MPI_Init: {why}.\n"));
                }
                if !ending {
                    report_end(&mut wrapped, &d);
                }
                let c = output::take();
                // (Anything it would say, a warning of the debug information, was said by the
                // command already.)
                let state = typed_state(&d);
                let _ = output::take();
                done(Done {
                    state,
                    value,
                    id,
                    rank,
                    out: without_pids(c.out),
                    err: without_pids(c.err),
                    history: u32::try_from(d.history_len()).unwrap_or(u32::MAX),
                    failed,
                });
            }
            Job::Shutdown { detach } => {
                detach_at_end |= detach;
                break;
            }
        }
    }
    if detach_at_end {
        if d.pid().is_some() {
            let _ = d.session.detach();
        }
    } else {
        let was_running = d.pid().is_some();
        if kill_attached {
            // Attached, but the session's own job: it ends with the session.
            let _ = d.session.kill();
        }
        d.finish();
        if (was_running || ended_by_session) && d.exit_status.is_none() {
            // Ended with the session, as gdb's `quit` kills its program: the wrapper ends
            // quietly, so that the launcher does not report the job as failed (hydra prints a
            // banner for every rank a signal ended).
            d.exit_status = Some(cohort_launch::wait_status_exited(0));
        }
    }
    report_end(&mut wrapped, &d);
    pid.store(0, Ordering::Relaxed);
}

/// A wrapped rank that has ended: its wrapper exits the same way (and the launcher sees it).
fn report_end(wrapped: &mut Option<Box<cohort_launch::WrappedRank>>, d: &Debugger) {
    if let Some(w) = wrapped
        && !w.reported()
        && d.pid().is_none()
        && let Some(st) = d.exit_status
        && let Err(e) = w.report_exit(st)
    {
        // (Its launcher may have ended the wrapper first: the job is over either way.)
        tracing::debug!("rank {}: telling its wrapper how it ended: {e}", w.rank);
    }
}
