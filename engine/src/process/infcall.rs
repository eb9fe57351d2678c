//! Calling a function of the program from the debugger (gdb's "inferior calls").
//!
//! The stopped thread's whole register state is saved; the arguments go where the
//! architecture's calling convention ([`crate::arch::CallConv`]) says, below the red zone of
//! the thread's stack; the return address is a trap where gdb puts it (x86-64: on the
//! stack, just below the red zone, where the return faults on a stack that is not
//! executable; aarch64: the address the caller gives, the program's entry point); and the
//! thread runs until it comes back there, traps elsewhere, or gets a signal. The return
//! value is read, then the registers are put back exactly.
//!
//! The other threads run during the call too, as gdb runs them (`scheduler-locking off`,
//! its default): a call that waits for another thread (a lock it holds, an answer it
//! gives) returns. They are stopped again when the call ends (their registers are their
//! own: they ran). One that hits a breakpoint of the user's or gets a signal that stops the
//! program ends the call ([`CallStop::ThreadBreakpoint`], [`CallStop::ThreadSignal`]); what
//! changes their state in the thread table (a breakpoint to step over, a signal to deliver,
//! threads made or gone during the call) is noted and applied at the next
//! [`Process::settle_call`].
//!
//! A call that stops inside the function (a breakpoint, a signal) can be left there
//! ([`Process::call_keep`]): gdb's dummy frame. The thread's registers from before the call
//! are kept; when the function returns to the trap ([`Process::dummy_returned`]), the front
//! end puts them back ([`Process::pop_dummy`]), as gdb does when it "silently stops". Calls
//! nest: a call made while stopped inside a called function has its own dummy frame.
//!
//! A thread stopped inside a system call is never used: the kernel would restart the call
//! (`read`, a futex wait) when the thread resumes, with the called function's registers.

use nix::sys::ptrace;
use nix::unistd::Pid;

use super::{Process, StopKind, TState, wait_flags};
use crate::arch::WatchKind;
use crate::arch::{AbiValue, Place};
use crate::error::{EngineError, Result};
use crate::native;
use crate::regs::Registers;
use crate::signals::Signo;
use crate::sigwait::{self, WaitStatus};

/// A call to make in [`Process::call_function`].
#[derive(Debug, Clone)]
pub struct CallRequest {
    /// Address of the function.
    pub func: u64,
    pub args: Vec<AbiValue>,
    /// The return value's shape (its bytes are not used); `None` for `void`.
    pub ret: Option<AbiValue>,
    /// Where the function returns to: a trap is placed there for the call.
    pub return_addr: u64,
    /// The lowest address the caller already uses below the stack pointer (data it wrote for
    /// the call, such as a string argument); the call's frame goes below it.
    pub stack_top: Option<u64>,
    /// `std::terminate()`: a trap there during the call ends it ([`CallStop::Terminate`]),
    /// as gdb's `unwind-on-terminating-exception`.
    pub terminate: Option<u64>,
    /// The other threads run during the call (gdb: unless `scheduler-locking on`).
    pub others_run: bool,
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallStop {
    /// The function returned: the bytes of its return value (empty for `void`).
    Returned(Vec<u8>),
    /// A signal stopped the thread inside the function.
    Signal(Signo),
    /// A breakpoint of the user's at this address stopped the thread inside the function.
    Breakpoint(u64),
    /// The process exited with this code during the call.
    Exited(i32),
    /// The process was killed by this signal during the call.
    Killed(Signo),
    /// Another thread, running during the call, hit a breakpoint of the user's at `addr`
    /// (its pc is back on it); the calling thread is stopped inside the function.
    ThreadBreakpoint { tid: i32, addr: u64 },
    /// The function called `std::terminate()` (an exception nobody catches): the thread is
    /// on its first instruction.
    Terminate,
    /// Another thread got a signal that stops the program (delivered when it resumes, if
    /// `handle` passes it); the calling thread is stopped inside the function.
    ThreadSignal { tid: i32, sig: Signo },
}

/// A change to the thread table that a call made behind it (applied by
/// [`Process::settle_call`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum CallFix {
    /// The thread is (or is no longer) on a breakpoint to step over when it resumes.
    AtBreakpoint(i32, bool),
    /// A stop collected while the threads were being stopped, reported at the next resume
    /// (`None`: a call reported it, or let the thread run).
    Pending(i32, Option<StopKind>),
    /// A signal to deliver when the thread resumes (`None`: a call delivered it).
    Deliver(i32, Option<Signo>),
    /// A thread made during the call (stopped now).
    NewThread(i32),
    /// The thread pointer of a thread made during the call, read at its first stop.
    ThreadPointer(i32, u64),
    /// A thread that ended during the call.
    Gone(i32),
}

/// A thread's state for a call: the thread table's, with the [`CallFix`]es since.
#[derive(Debug, Clone, Copy, Default)]
struct CallView {
    pending: Option<StopKind>,
    deliver: Option<Signo>,
    at_breakpoint: bool,
}

/// A call left inside its function (gdb's dummy frame), as the unwinder sees it.
#[derive(Debug, Clone)]
pub struct CallDummy {
    pub tid: i32,
    /// Where the function returns to (the trap) and the stack pointer after it returned.
    pub pc: u64,
    pub sp: u64,
    /// gdb's frame address of the dummy frame (`info frame`'s "frame at").
    pub frame: u64,
    /// The thread's registers before the call: the frames past the dummy frame.
    pub regs: Registers,
}

/// A call left inside its function, with what puts the thread back.
pub(super) struct Dummy {
    pub(super) view: CallDummy,
    saved: native::SavedState,
    /// The return trap this call wrote (another call's may be there already).
    trap: Option<(u64, Vec<u8>)>,
    /// The signal the function stopped with (delivered when the thread resumes, as after
    /// any stop), and whether it stopped at a breakpoint; taken by the next resume.
    stop: Option<CallStop>,
}

/// A call made: how it ended, and what [`Process::call_restore`] needs to put the thread
/// back.
pub struct CallRun {
    pub stop: CallStop,
    tid: Pid,
    saved: native::SavedState,
    /// The registers before the call, and where it returns to with which stack pointer.
    before: Registers,
    return_addr: u64,
    return_sp: u64,
    terminate: Option<u64>,
    others_run: bool,
    /// Where the return value is (for [`Process::call_resume`]).
    ret_place: Place,
    ret: Option<AbiValue>,
    buffer: Option<u64>,
    /// The trap written at the return address: (address, the bytes it replaced).
    trap: Option<(u64, Vec<u8>)>,
}

impl std::fmt::Debug for CallRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallRun")
            .field("stop", &self.stop)
            .field("tid", &self.tid)
            .finish_non_exhaustive()
    }
}

fn align_down(x: u64, a: u64) -> u64 {
    x & !(a.max(1) - 1)
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// How long the other threads may take to stop after a call.
const STOP_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The thread a wait status is about.
fn status_tid(st: &WaitStatus) -> Option<Pid> {
    match *st {
        WaitStatus::Exited(t, _)
        | WaitStatus::Signaled(t, _, _)
        | WaitStatus::Stopped(t, _)
        | WaitStatus::PtraceEvent(t, _, _)
        | WaitStatus::PtraceSyscall(t)
        | WaitStatus::Continued(t) => Some(t),
        WaitStatus::StillAlive => None,
    }
}

/// Little-endian integer of up to 16 bytes.
fn le(bytes: &[u8]) -> u128 {
    bytes
        .iter()
        .rev()
        .fold(0u128, |acc, &b| (acc << 8) | b as u128)
}

impl Process {
    /// Call `req.func` in thread `tid` and run the thread until the call ends. The thread is
    /// left where it stopped (inside the function unless it returned) so that the stop can be
    /// shown; [`Process::call_restore`] puts it back as it was before the call.
    pub fn call_function(&self, tid: i32, req: &CallRequest) -> Result<CallRun> {
        let conv = self.arch.call.ok_or(EngineError::Call(
            "calling functions is not supported on this architecture",
        ))?;
        let t = self.thread(tid)?;
        if self.gone || t.state != TState::Stopped || self.call_view(tid).pending.is_some() {
            return Err(EngineError::Call("the thread is not stopped"));
        }
        let pid = t.tid;
        let saved = native::save_state(pid)?;
        if saved.in_system_call() {
            return Err(EngineError::CallInSyscall);
        }
        let layout = (conv.layout)(&req.args, req.ret.as_ref());
        let mut regs: Registers = native::read_all(pid)?;
        let before = regs.clone();
        // As gdb: the stack pointer aligned, below the red zone (always lower than it was).
        let old_sp = regs.sp();
        let mut sp = align_down(old_sp, conv.stack_align).wrapping_sub(self.arch.red_zone);
        if sp == old_sp {
            sp = align_down(old_sp.wrapping_sub(1), conv.stack_align);
        }
        if let Some(top) = req.stack_top {
            sp = sp.min(top);
        }
        let return_addr = if conv.return_on_stack {
            sp.wrapping_sub(1)
        } else {
            req.return_addr
        };
        sp = sp.wrapping_sub(conv.reserved);
        // The buffer for a value returned in memory.
        let mut buffer = None;
        if let (Place::Indirect, Some(r)) = (&layout.ret, &req.ret) {
            sp = align_down(sp - r.bytes.len() as u64, r.align.max(16));
            buffer = Some(sp);
        }
        // Copies of the arguments passed by reference; then their addresses are the
        // arguments.
        let mut args: Vec<(AbiValue, Place)> = Vec::with_capacity(req.args.len());
        for (a, place) in req.args.iter().zip(&layout.args) {
            match place {
                Place::ByReference(inner) => {
                    sp = align_down(sp - a.bytes.len() as u64, a.align.max(16));
                    self.mem.write(sp, &a.bytes)?;
                    let w = self.arch.ptr_size;
                    let ptr = AbiValue {
                        bytes: sp.to_le_bytes()[..w].to_vec(),
                        align: w as u64,
                        pieces: vec![(0, w as u64, crate::arch::Scalar::Int)],
                        memory: false,
                    };
                    args.push((ptr, (**inner).clone()));
                }
                p => args.push((a.clone(), p.clone())),
            }
        }
        // The stack arguments, in order, each in slots of its alignment.
        let mut area = 0u64;
        let mut offsets = Vec::new();
        for (a, place) in &args {
            if *place == Place::Stack {
                area = align_up(area, a.align.max(conv.stack_slot));
                offsets.push((area, a));
                area += align_up(a.bytes.len() as u64, conv.stack_slot);
            }
        }
        sp = align_down(sp - area, conv.stack_align);
        for (off, a) in offsets {
            self.mem.write(sp + off, &a.bytes)?;
        }
        for (a, place) in &args {
            if let Place::Regs(rs) = place {
                for &(reg, off, n) in rs {
                    let end = (off + n) as usize;
                    let v = a.bytes.get(off as usize..end).map(le).unwrap_or(0);
                    regs.set(reg, v);
                }
            }
        }
        for &(reg, v) in &layout.extra {
            regs.set(reg, v as u128);
        }
        if let Some(b) = buffer {
            regs.set(conv.indirect_in, b as u128);
        }
        match conv.link_register {
            Some(lr) => regs.set(lr, return_addr as u128),
            None => {
                let w = self.arch.ptr_size as u64;
                sp -= w;
                self.mem
                    .write(sp, &return_addr.to_le_bytes()[..w as usize])?;
            }
        }
        regs.set(self.arch.sp, sp as u128);
        regs.set(self.arch.pc, req.func as u128);
        // The trap the function returns to (unless a breakpoint is there already).
        let bp = self.arch.breakpoint_insn;
        let trap = if self.sites.contains_key(&return_addr) || self.dummy_trap_at(return_addr) {
            None
        } else {
            let mut orig = vec![0u8; bp.len()];
            self.mem.read(return_addr, &mut orig)?;
            self.mem.write(return_addr, bp)?;
            Some((return_addr, orig))
        };
        let expected_sp = sp + if conv.link_register.is_none() { 8 } else { 0 };
        let mut run = CallRun {
            stop: CallStop::Returned(Vec::new()),
            tid: pid,
            saved,
            before,
            return_addr,
            return_sp: expected_sp,
            terminate: req.terminate,
            others_run: req.others_run,
            ret_place: layout.ret.clone(),
            ret: req.ret.clone(),
            buffer,
            trap,
        };
        t.forget_registers();
        self.bump_epoch();
        let started = native::write_gp(pid, None, &regs).and_then(|_| native::write_fp(pid, &regs));
        if let Err(e) = started {
            let _ = self.call_restore(run);
            return Err(e);
        }
        run.stop = match self.call_go(&run) {
            Ok(s) => s,
            Err(e) => {
                let _ = self.call_restore(run);
                return Err(e);
            }
        };
        self.call_read_return(run)
    }

    /// The return value into `run.stop` when the call returned.
    fn call_read_return(&self, mut run: CallRun) -> Result<CallRun> {
        if let CallStop::Returned(bytes) = &mut run.stop {
            let ret = self.call_return_value(run.tid, &run.ret_place, run.ret.as_ref(), run.buffer);
            match ret {
                Ok(b) => *bytes = b,
                Err(e) => {
                    let _ = self.call_restore(run);
                    return Err(e);
                }
            }
        }
        Ok(run)
    }

    /// Go on with a call that stopped at a breakpoint the front end does not stop at (its
    /// condition is false, its ignore count not used up): the instruction under it runs
    /// (in the thread that hit it), then every thread until the call ends again.
    pub fn call_resume(&self, mut run: CallRun) -> Result<CallRun> {
        let (at, hit) = match run.stop {
            CallStop::Breakpoint(at) => (at, run.tid),
            CallStop::ThreadBreakpoint { tid, addr } => (addr, Pid::from_raw(tid)),
            _ => return Ok(run),
        };
        for t in [run.tid, hit] {
            if let Ok(t) = self.thread(t.as_raw()) {
                t.forget_registers();
            }
        }
        self.bump_epoch();
        // The thread is on the breakpoint (a hardware one, or one deleted since, leaves no
        // trap to step over).
        let stepped = match self.sites.get(&at).map(|s| s.orig.clone()) {
            Some(orig) => self.call_step_over(hit, at, &orig),
            None => self.call_step(hit),
        };
        if hit != run.tid {
            self.call_fixes
                .borrow_mut()
                .push(CallFix::AtBreakpoint(hit.as_raw(), false));
        }
        let stop = match stepped {
            // A signal the other thread got as it stepped: delivered when it next resumes.
            Ok(Some(CallStop::Signal(sig))) if hit != run.tid => {
                self.call_fixes
                    .borrow_mut()
                    .push(CallFix::Deliver(hit.as_raw(), Some(sig)));
                self.call_go(&run)
            }
            Ok(Some(stop)) => Ok(stop),
            Ok(None) => self.call_go(&run),
            Err(e) => Err(e),
        };
        match stop {
            Ok(s) => run.stop = s,
            Err(e) => {
                let _ = self.call_restore(run);
                return Err(e);
            }
        }
        self.call_read_return(run)
    }

    /// Run the calling thread with the other threads until the call ends (see
    /// [`Self::call_wait_stopped`]); every thread is stopped again then. A trap at
    /// `std::terminate()` is there meanwhile.
    fn call_go(&self, run: &CallRun) -> Result<CallStop> {
        let (pid, ret_addr, sp) = (run.tid, run.return_addr, run.return_sp);
        let terminate = match run.terminate {
            Some(a) if !self.sites.contains_key(&a) && !self.dummy_trap_at(a) => {
                let bp = self.arch.breakpoint_insn;
                let mut orig = vec![0u8; bp.len()];
                self.mem.read(a, &mut orig)?;
                self.mem.write(a, bp)?;
                Some((a, Some(orig)))
            }
            Some(a) => Some((a, None)),
            None => None,
        };
        let before = self.call_terminate.replace(terminate);
        let r = self.call_go_trapped(pid, ret_addr, sp, run.others_run);
        let trap = self.call_terminate.replace(before);
        if let Some((a, Some(orig))) = trap {
            self.mem.write(a, &orig)?;
        }
        r
    }

    /// [`Self::call_go`] once the `std::terminate()` trap is in.
    fn call_go_trapped(&self, pid: Pid, ret_addr: u64, sp: u64, others: bool) -> Result<CallStop> {
        let (mut running, first) = if others {
            self.call_resume_others(pid)?
        } else {
            (Vec::new(), None)
        };
        // A stop another thread had still to report ends the call at once, as gdb reports
        // such a thread's event as soon as it resumes it.
        let ran = ptrace::cont(pid, None)
            .map_err(|err| EngineError::Ptrace {
                op: "PTRACE_CONT",
                tid: pid.as_raw(),
                err,
            })
            .and_then(|()| match first {
                Some(stop) => Ok(stop),
                None => self.call_wait_stopped(pid, ret_addr, sp, &mut running),
            });
        if matches!(
            ran,
            Ok(CallStop::ThreadBreakpoint { .. } | CallStop::ThreadSignal { .. })
        ) {
            running.push(pid);
        }
        let stopped = self.call_stop_others(&mut running, ret_addr);
        let stop = ran?;
        stopped?;
        Ok(stop)
    }

    /// Let the other stopped threads run for a call: one on a breakpoint steps over it first,
    /// and one with a signal to deliver gets it (gdb passes a thread's stop signal whenever
    /// it resumes it). Returns the threads that run, and the first stop another thread had
    /// still to report (a breakpoint still there, a signal): that thread stays stopped and
    /// the call ends with its stop. A thread with another kind of stop to report stays
    /// stopped; one whose breakpoint is gone since runs.
    fn call_resume_others(&self, pid: Pid) -> Result<(Vec<Pid>, Option<CallStop>)> {
        let mut running = Vec::new();
        let mut first = None;
        let ids: Vec<i32> = self
            .threads
            .values()
            .filter(|t| t.tid != pid && t.state == TState::Stopped)
            .map(|t| t.tid.as_raw())
            .collect();
        for tid in ids {
            let t = self.thread(tid)?;
            let tpid = t.tid;
            let view = self.call_view(tid);
            let mut at_breakpoint = view.at_breakpoint;
            match view.pending {
                None => {}
                Some(StopKind::Breakpoint(addr)) if self.breakpoint_at(addr) => {
                    if first.is_none() {
                        let mut fixes = self.call_fixes.borrow_mut();
                        fixes.push(CallFix::Pending(tid, None));
                        fixes.push(CallFix::AtBreakpoint(tid, true));
                        first = Some(CallStop::ThreadBreakpoint { tid, addr });
                    }
                    continue;
                }
                Some(StopKind::Breakpoint(_)) => {
                    // Its breakpoint is gone: the thread is on the instruction, and runs.
                    let mut fixes = self.call_fixes.borrow_mut();
                    fixes.push(CallFix::Pending(tid, None));
                    fixes.push(CallFix::AtBreakpoint(tid, false));
                    at_breakpoint = false;
                }
                Some(StopKind::Signal(s)) => {
                    if first.is_none()
                        && let Some(sig) = Signo::new(s)
                    {
                        let mut fixes = self.call_fixes.borrow_mut();
                        fixes.push(CallFix::Pending(tid, None));
                        fixes.push(CallFix::Deliver(tid, Some(sig)));
                        first = Some(CallStop::ThreadSignal { tid, sig });
                    }
                    continue;
                }
                Some(_) => continue,
            }
            t.forget_registers();
            if at_breakpoint {
                let pc = native::read_gp(tpid)?.pc();
                if let Some(orig) = self.sites.get(&pc).map(|s| s.orig.clone()) {
                    match self.call_step_over(tpid, pc, &orig)? {
                        None => {}
                        Some(CallStop::Signal(sig)) => {
                            self.call_fixes
                                .borrow_mut()
                                .push(CallFix::Deliver(tid, Some(sig)));
                        }
                        // The process ended: the calling thread's wait reports it.
                        Some(_) => return Ok((running, first)),
                    }
                }
                self.call_fixes
                    .borrow_mut()
                    .push(CallFix::AtBreakpoint(tid, false));
            }
            let deliver = self.call_view(tid).deliver;
            if deliver.is_some() {
                self.call_fixes
                    .borrow_mut()
                    .push(CallFix::Deliver(tid, None));
            }
            let sig = deliver.filter(|s| self.signals.get(s.raw()).pass);
            match sigwait::cont(tpid, sig) {
                Ok(()) => running.push(tpid),
                Err(nix::errno::Errno::ESRCH) => {}
                Err(err) => {
                    // Those already running stop again.
                    let _ = self.call_stop_others(&mut running, 0);
                    return Err(EngineError::Ptrace {
                        op: "PTRACE_CONT",
                        tid,
                        err,
                    });
                }
            }
        }
        Ok((running, first))
    }

    /// Thread `tid` as the thread table has it, with what calls changed behind it since
    /// (the latest [`CallFix`] about it counts).
    fn call_view(&self, tid: i32) -> CallView {
        let mut view = self
            .threads
            .get(&tid)
            .map(|t| CallView {
                pending: t.pending,
                deliver: t.deliver,
                at_breakpoint: t.at_breakpoint,
            })
            .unwrap_or_default();
        for fix in self.call_fixes.borrow().iter() {
            match *fix {
                CallFix::Pending(t, kind) if t == tid => view.pending = kind,
                CallFix::Deliver(t, sig) if t == tid => view.deliver = sig,
                CallFix::AtBreakpoint(t, on) if t == tid => view.at_breakpoint = on,
                _ => {}
            }
        }
        view
    }

    /// Whether a breakpoint of the user's is at `addr` (a trap or a debug register).
    fn breakpoint_at(&self, addr: u64) -> bool {
        self.sites.get(&addr).is_some_and(|s| s.user > 0)
            || self
                .watch
                .iter()
                .flatten()
                .any(|(a, k, _)| *k == WatchKind::Execute && *a == addr)
    }

    /// Step thread `t`, stopped on the trap at `at` (its pc is moved back there), over
    /// the instruction `orig` the trap replaced; the trap goes back after. `Some` when
    /// the step did not end quietly (a signal, the end of the process).
    fn call_step_over(&self, t: Pid, at: u64, orig: &[u8]) -> Result<Option<CallStop>> {
        let mut r = Registers::new(self.arch);
        r.set(self.arch.pc, at as u128);
        native::write_gp(t, None, &r)?;
        self.mem.write(at, orig)?;
        let stepped = self.call_step(t);
        self.mem.write(at, self.arch.breakpoint_insn)?;
        stepped
    }

    /// Stop the threads in `running` again after a call (all-stop), collecting what they
    /// did meanwhile: a breakpoint one hit just then or a signal it got is its stop to
    /// report at the next resume, as after any stop of all threads.
    /// The calling thread, stopped as another thread stopped the program, may have just
    /// come back to the call's return trap at `ret_addr`: it is left to come back there
    /// again when it resumes (the call is then kept as a dummy frame).
    fn call_stop_others(&self, running: &mut Vec<Pid>, ret_addr: u64) -> Result<()> {
        for &t in running.iter() {
            match ptrace::interrupt(t) {
                Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
                Err(err) => {
                    return Err(EngineError::Ptrace {
                        op: "PTRACE_INTERRUPT",
                        tid: t.as_raw(),
                        err,
                    });
                }
            }
        }
        // New threads whose first stop is still to come are waited for too. A thread that
        // does not stop is an error, not a hang.
        let deadline = std::time::Instant::now() + STOP_LIMIT;
        while !running.is_empty() || !self.call_starting.borrow().is_empty() {
            let flags = wait_flags() | nix::sys::wait::WaitPidFlag::WNOHANG;
            let st = match crate::mux::wait_process(self.pid, Pid::from_raw(-1), flags) {
                Ok(WaitStatus::StillAlive) => {
                    if std::time::Instant::now() > deadline {
                        return Err(EngineError::Call(
                            "the other threads did not stop after the call",
                        ));
                    }
                    std::thread::sleep(std::time::Duration::from_micros(200));
                    continue;
                }
                Err(nix::errno::Errno::EINTR) => continue,
                Err(nix::errno::Errno::ECHILD) => break,
                Err(err) => {
                    return Err(EngineError::Ptrace {
                        op: "waitpid",
                        tid: -1,
                        err,
                    });
                }
                Ok(st) => st,
            };
            let Some(t) = status_tid(&st) else { continue };
            let tid = t.as_raw();
            let first_stop = !running.contains(&t) && !self.threads.contains_key(&tid);
            let mut fixes = self.call_fixes.borrow_mut();
            match st {
                WaitStatus::PtraceEvent(_, _, ev) if ev == libc::PTRACE_EVENT_CLONE => {
                    if let Ok(new) = ptrace::getevent(t) {
                        let new = new as i32;
                        fixes.push(CallFix::NewThread(new));
                        if !self.call_early.borrow_mut().remove(&new) {
                            self.call_starting.borrow_mut().insert(new);
                        }
                    }
                    running.retain(|&r| r != t);
                }
                // A new thread's first stop (it stays stopped); before its parent's clone
                // event, that event is still to come.
                WaitStatus::PtraceEvent(_, _, ev)
                    if first_stop && ev == libc::PTRACE_EVENT_STOP =>
                {
                    fixes.push(self.call_thread_pointer(t));
                    if !self.call_starting.borrow_mut().remove(&tid) {
                        self.call_early.borrow_mut().insert(tid);
                    }
                }
                WaitStatus::Stopped(_, sig) if first_stop && sig.raw() == libc::SIGSTOP => {
                    fixes.push(self.call_thread_pointer(t));
                    if !self.call_starting.borrow_mut().remove(&tid) {
                        self.call_early.borrow_mut().insert(tid);
                    }
                }
                WaitStatus::PtraceEvent(_, _, ev) if ev == libc::PTRACE_EVENT_STOP => {
                    if sigwait::trap_queued(t) && sigwait::cont(t, None).is_ok() {
                        // A trap taken just before the interrupt comes after it, once
                        // resumed (see `Process::handle_event`).
                    } else {
                        running.retain(|&r| r != t);
                    }
                }
                WaitStatus::Stopped(_, sig) => {
                    running.retain(|&r| r != t);
                    let regs = native::read_gp(t);
                    if sig == Signo::SIGSEGV
                        && regs
                            .as_ref()
                            .is_ok_and(|r| r.pc() == ret_addr && ret_addr != 0)
                    {
                        continue;
                    }
                    if sig == Signo::SIGTRAP
                        && let Ok(regs) = regs
                    {
                        let at = regs.pc().wrapping_sub(self.arch.pc_after_breakpoint);
                        if (self.terminate_trap_at(at) && !self.sites.contains_key(&at))
                            || (at == ret_addr && ret_addr != 0)
                        {
                            // The trap goes with the call (the thread runs the instruction),
                            // or is the return trap (the thread comes back to it).
                            let mut r = Registers::new(self.arch);
                            r.set(self.arch.pc, at as u128);
                            native::write_gp(t, None, &r)?;
                            continue;
                        }
                        if let Some(site) = self.sites.get(&at) {
                            let mut r = Registers::new(self.arch);
                            r.set(self.arch.pc, at as u128);
                            native::write_gp(t, None, &r)?;
                            fixes.push(CallFix::AtBreakpoint(tid, true));
                            if site.user > 0 {
                                fixes.push(CallFix::Pending(tid, Some(StopKind::Breakpoint(at))));
                            }
                            continue;
                        }
                    }
                    if sig != Signo::SIGTRAP {
                        fixes.push(CallFix::Deliver(tid, Some(sig)));
                        let d = self.signals.get(sig.raw());
                        if d.stop || self.caught_signals.contains(&sig.raw()) {
                            fixes.push(CallFix::Pending(tid, Some(StopKind::Signal(sig.raw()))));
                        }
                    }
                }
                WaitStatus::Exited(..) | WaitStatus::Signaled(..) => {
                    running.retain(|&r| r != t);
                    self.call_starting.borrow_mut().remove(&tid);
                    if t == self.pid {
                        self.call_ended.set(Some(st));
                        break;
                    }
                    fixes.push(CallFix::Gone(tid));
                }
                // Another event (a system call stop, a fork, an exec): the thread is stopped.
                _ => running.retain(|&r| r != t),
            }
        }
        Ok(())
    }

    /// Wait until the call of `pid` returns to `ret_addr` with the stack pointer at `sp`, or
    /// stops for another reason, while the threads in `running` run too (threads they make
    /// join them).
    fn call_wait_stopped(
        &self,
        pid: Pid,
        ret_addr: u64,
        sp: u64,
        running: &mut Vec<Pid>,
    ) -> Result<CallStop> {
        let perr = |op, t: Pid| {
            move |err| EngineError::Ptrace {
                op,
                tid: t.as_raw(),
                err,
            }
        };
        loop {
            let st = match crate::mux::wait_process(self.pid, Pid::from_raw(-1), wait_flags()) {
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(perr("waitpid", pid)(e)),
                Ok(st) => st,
            };
            let Some(t) = status_tid(&st) else { continue };
            if t != pid {
                if let Some(stop) = self.call_other_thread(st, running)? {
                    // That thread is stopped already.
                    running.retain(|&r| r != t);
                    return Ok(stop);
                }
                continue;
            }
            match st {
                WaitStatus::Stopped(_, sig) if sig == Signo::SIGTRAP => {
                    let regs = native::read_gp(pid)?;
                    // A breakpoint of the user's in a debug register (the pc is on it); the
                    // debug status is read and cleared, as at any stop.
                    if self.watch.iter().any(Option::is_some)
                        && let Some(slot) = native::take_watch_hit(pid)?
                    {
                        if let Some((addr, WatchKind::Execute, _)) =
                            self.watch.get(slot).copied().flatten()
                        {
                            return Ok(CallStop::Breakpoint(addr));
                        }
                        // A data watchpoint does not stop a call (gdb 13 does not check
                        // them during one).
                        ptrace::cont(pid, None).map_err(perr("PTRACE_CONT", pid))?;
                        continue;
                    }
                    let at = regs.pc().wrapping_sub(self.arch.pc_after_breakpoint);
                    if at == ret_addr && regs.sp() == sp {
                        return Ok(CallStop::Returned(Vec::new()));
                    }
                    if self.terminate_trap_at(at) {
                        let mut r = Registers::new(self.arch);
                        r.set(self.arch.pc, at as u128);
                        native::write_gp(pid, None, &r)?;
                        return Ok(CallStop::Terminate);
                    }
                    if self.dummy_trap_at(at) {
                        // The return of a call made earlier and left in its function (the
                        // function returned past this call's frame: a longjmp): a stop.
                        let mut r = Registers::new(self.arch);
                        r.set(self.arch.pc, at as u128);
                        native::write_gp(pid, None, &r)?;
                        return Ok(CallStop::Breakpoint(at));
                    }
                    if let Some(site) = self.sites.get(&at) {
                        // Put the pc on the breakpoint, as a stop there shows it.
                        let mut r = Registers::new(self.arch);
                        r.set(self.arch.pc, at as u128);
                        native::write_gp(pid, None, &r)?;
                        if site.user > 0 {
                            return Ok(CallStop::Breakpoint(at));
                        }
                        // The debugger's own breakpoint (a library load hook): run the
                        // instruction under it and go on.
                        if let Some(stop) = self.call_step_over(pid, at, &site.orig)? {
                            return Ok(stop);
                        }
                        ptrace::cont(pid, None).map_err(perr("PTRACE_CONT", pid))?;
                        continue;
                    }
                    return Ok(CallStop::Signal(sig));
                }
                WaitStatus::Stopped(_, sig) => {
                    // The return to a trap on a stack that is not executable faults there.
                    if sig == Signo::SIGSEGV {
                        let regs = native::read_gp(pid)?;
                        if regs.pc() == ret_addr && regs.sp() == sp {
                            return Ok(CallStop::Returned(Vec::new()));
                        }
                        if self.dummy_trap_at(regs.pc()) {
                            return Ok(CallStop::Breakpoint(regs.pc()));
                        }
                    }
                    return Ok(CallStop::Signal(sig));
                }
                WaitStatus::Exited(_, code) => {
                    self.call_ended.set(Some(st));
                    return Ok(CallStop::Exited(code));
                }
                WaitStatus::Signaled(_, sig, _) => {
                    self.call_ended.set(Some(st));
                    return Ok(CallStop::Killed(sig));
                }
                // A thread the function made runs with the others.
                WaitStatus::PtraceEvent(_, _, ev) if ev == libc::PTRACE_EVENT_CLONE => {
                    self.call_new_thread(pid, running);
                    ptrace::cont(pid, None).map_err(perr("PTRACE_CONT", pid))?;
                }
                // Another event of the function's own (an exec, a stale interrupt): let it
                // go on.
                WaitStatus::PtraceEvent(..) | WaitStatus::PtraceSyscall(_) => {
                    ptrace::cont(pid, None).map_err(perr("PTRACE_CONT", pid))?;
                }
                WaitStatus::Continued(_) | WaitStatus::StillAlive => {}
            }
        }
    }

    /// Thread `parent` made a thread (a clone event): it runs with the others.
    fn call_new_thread(&self, parent: Pid, running: &mut Vec<Pid>) {
        let Ok(new) = ptrace::getevent(parent) else {
            return;
        };
        let new = Pid::from_raw(new as i32);
        self.call_fixes
            .borrow_mut()
            .push(CallFix::NewThread(new.as_raw()));
        // Its first stop may have come already.
        if self.call_early.borrow_mut().remove(&new.as_raw()) && sigwait::cont(new, None).is_ok() {
            running.push(new);
        } else {
            self.call_starting.borrow_mut().insert(new.as_raw());
        }
    }

    /// An event of a thread other than the calling one during a call: `Some` when it ends
    /// the call (a breakpoint of the user's, a signal that stops the program), else the
    /// thread goes on.
    fn call_other_thread(
        &self,
        st: WaitStatus,
        running: &mut Vec<Pid>,
    ) -> Result<Option<CallStop>> {
        let Some(t) = status_tid(&st) else {
            return Ok(None);
        };
        let tid = t.as_raw();
        let go = |sig: Option<Signo>| match sigwait::cont(t, sig) {
            Ok(()) | Err(nix::errno::Errno::ESRCH) => Ok(()),
            Err(err) => Err(EngineError::Ptrace {
                op: "PTRACE_CONT",
                tid,
                err,
            }),
        };
        match st {
            WaitStatus::Stopped(_, sig) if sig == Signo::SIGTRAP => {
                if self.watch.iter().any(Option::is_some)
                    && let Some(slot) = native::take_watch_hit(t)?
                {
                    if let Some((addr, WatchKind::Execute, _)) =
                        self.watch.get(slot).copied().flatten()
                    {
                        self.call_fixes
                            .borrow_mut()
                            .push(CallFix::AtBreakpoint(tid, true));
                        return Ok(Some(CallStop::ThreadBreakpoint { tid, addr }));
                    }
                    // A data watchpoint does not stop a call, in any thread (as gdb 13).
                    go(None)?;
                    return Ok(None);
                }
                let regs = native::read_gp(t)?;
                let at = regs.pc().wrapping_sub(self.arch.pc_after_breakpoint);
                let terminate = self.call_terminate.borrow().clone();
                let trap = match (terminate, self.sites.get(&at)) {
                    // Another thread's std::terminate() is not the call's: over the trap.
                    (Some((a, Some(orig))), _) if a == at => Some(orig),
                    (_, Some(site)) if site.user > 0 => {
                        let mut r = Registers::new(self.arch);
                        r.set(self.arch.pc, at as u128);
                        native::write_gp(t, None, &r)?;
                        // It steps over the breakpoint when it resumes.
                        self.call_fixes
                            .borrow_mut()
                            .push(CallFix::AtBreakpoint(tid, true));
                        return Ok(Some(CallStop::ThreadBreakpoint { tid, addr: at }));
                    }
                    // The debugger's own breakpoint: over it, and on.
                    (_, Some(site)) => Some(site.orig.clone()),
                    _ => None,
                };
                let Some(orig) = trap else {
                    return self.call_other_signal(t, sig);
                };
                match self.call_step_over(t, at, &orig)? {
                    None => go(None)?,
                    Some(CallStop::Signal(sig)) => go(Some(sig))?,
                    Some(stop) => return Ok(Some(stop)),
                }
                Ok(None)
            }
            WaitStatus::Stopped(_, sig) => {
                if !running.contains(&t) && !self.threads.contains_key(&tid) {
                    // A new thread's first stop (a SIGSTOP) before its parent's clone event.
                    self.call_first_stop(t, running)?;
                    return Ok(None);
                }
                self.call_other_signal(t, sig)
            }
            WaitStatus::PtraceEvent(_, _, ev) if ev == libc::PTRACE_EVENT_CLONE => {
                self.call_new_thread(t, running);
                go(None)?;
                Ok(None)
            }
            WaitStatus::PtraceEvent(_, _, ev) if ev == libc::PTRACE_EVENT_STOP => {
                if running.contains(&t) {
                    // A stale interrupt or a group-stop: on.
                    go(None)?;
                } else {
                    self.call_first_stop(t, running)?;
                }
                Ok(None)
            }
            WaitStatus::Exited(..) | WaitStatus::Signaled(..) => {
                running.retain(|&r| r != t);
                if t == self.pid {
                    // The leader's end is reported last: the whole process ended.
                    self.call_ended.set(Some(st));
                    return Ok(Some(match st {
                        WaitStatus::Signaled(_, sig, _) => CallStop::Killed(sig),
                        WaitStatus::Exited(_, code) => CallStop::Exited(code),
                        _ => CallStop::Exited(0),
                    }));
                }
                self.call_starting.borrow_mut().remove(&tid);
                self.call_fixes.borrow_mut().push(CallFix::Gone(tid));
                Ok(None)
            }
            _ => {
                go(None)?;
                Ok(None)
            }
        }
    }

    /// The thread pointer of a thread made during the call, read at its first stop (it
    /// may be gone by the time the thread table learns of it).
    fn call_thread_pointer(&self, t: Pid) -> CallFix {
        let pointer = self
            .arch
            .thread_pointer
            .and_then(|tp| native::read_gp(t).ok().map(|r| r.u64(tp)))
            .unwrap_or(0);
        CallFix::ThreadPointer(t.as_raw(), pointer)
    }

    /// The first stop of a thread made during the call: it runs with the others.
    fn call_first_stop(&self, t: Pid, running: &mut Vec<Pid>) -> Result<()> {
        let pointer = self.call_thread_pointer(t);
        self.call_fixes.borrow_mut().push(pointer);
        if self.call_starting.borrow_mut().remove(&t.as_raw()) {
            if sigwait::cont(t, None).is_ok() {
                running.push(t);
            }
        } else {
            // Before its parent's clone event: it goes once that comes.
            self.call_early.borrow_mut().insert(t.as_raw());
        }
        Ok(())
    }

    /// A signal another thread got during a call: one that stops the program ends the call
    /// (it is delivered when the thread resumes, if `handle` passes it); any other is
    /// passed on (or not) at once.
    fn call_other_signal(&self, t: Pid, sig: Signo) -> Result<Option<CallStop>> {
        let d = self.signals.get(sig.raw());
        let caught = self.caught_signals.contains(&sig.raw())
            || (self.catch_all_signals && sig != Signo::SIGTRAP && sig.raw() != libc::SIGINT);
        if d.stop || caught {
            self.call_fixes
                .borrow_mut()
                .push(CallFix::Deliver(t.as_raw(), Some(sig)));
            return Ok(Some(CallStop::ThreadSignal {
                tid: t.as_raw(),
                sig,
            }));
        }
        match sigwait::cont(t, d.pass.then_some(sig)) {
            Ok(()) | Err(nix::errno::Errno::ESRCH) => Ok(None),
            Err(err) => Err(EngineError::Ptrace {
                op: "PTRACE_CONT",
                tid: t.as_raw(),
                err,
            }),
        }
    }

    /// One instruction of the called function; `Some` when the call ended there.
    fn call_step(&self, pid: Pid) -> Result<Option<CallStop>> {
        ptrace::step(pid, None).map_err(|err| EngineError::Ptrace {
            op: "PTRACE_SINGLESTEP",
            tid: pid.as_raw(),
            err,
        })?;
        loop {
            match crate::mux::wait_process(self.pid, pid, wait_flags()) {
                Err(nix::errno::Errno::EINTR) => continue,
                Err(err) => {
                    return Err(EngineError::Ptrace {
                        op: "waitpid",
                        tid: pid.as_raw(),
                        err,
                    });
                }
                Ok(WaitStatus::Stopped(_, sig)) if sig == Signo::SIGTRAP => return Ok(None),
                Ok(WaitStatus::Stopped(_, sig)) => return Ok(Some(CallStop::Signal(sig))),
                Ok(st @ WaitStatus::Exited(_, code)) => {
                    self.call_ended.set(Some(st));
                    return Ok(Some(CallStop::Exited(code)));
                }
                Ok(st @ WaitStatus::Signaled(_, sig, _)) => {
                    self.call_ended.set(Some(st));
                    return Ok(Some(CallStop::Killed(sig)));
                }
                Ok(_) => continue,
            }
        }
    }

    /// The return value's bytes after the call returned.
    fn call_return_value(
        &self,
        pid: Pid,
        place: &Place,
        ret: Option<&AbiValue>,
        buffer: Option<u64>,
    ) -> Result<Vec<u8>> {
        let Some(ret) = ret else {
            return Ok(Vec::new());
        };
        let mut out = vec![0u8; ret.bytes.len()];
        match place {
            Place::Regs(rs) => {
                let regs = native::read_all(pid)?;
                for &(reg, off, n) in rs {
                    let v = regs.get(reg).unwrap_or(0).to_le_bytes();
                    let end = ((off + n) as usize).min(out.len());
                    let take = end.saturating_sub(off as usize);
                    out[off as usize..end].copy_from_slice(&v[..take]);
                }
            }
            Place::Indirect => {
                if let Some(b) = buffer {
                    self.mem.read(b, &mut out)?;
                }
            }
            Place::Stack | Place::Nothing | Place::ByReference(_) => {}
        }
        Ok(out)
    }

    /// Whether a function call ended the process (the next [`Process::poll_gone`] reports
    /// it).
    pub fn call_ended_pending(&self) -> bool {
        let st = self.call_ended.get();
        st.is_some()
    }

    /// Put the thread of a call back as it was before it, and take the return trap away.
    pub fn call_restore(&self, run: CallRun) -> Result<()> {
        let mut result = Ok(());
        if let Some((a, orig)) = &run.trap
            && let Err(e) = self.mem.write(*a, orig)
        {
            result = Err(e);
        }
        if matches!(run.stop, CallStop::Exited(_) | CallStop::Killed(_)) {
            return result;
        }
        if let Ok(t) = self.thread(run.tid.as_raw()) {
            t.forget_registers();
        }
        self.bump_epoch();
        native::restore_state(run.tid, &run.saved)?;
        result
    }
}

impl Process {
    /// Leave a call that stopped inside the function (a breakpoint or a signal) where it
    /// is: gdb's dummy frame. The return trap stays; when the function returns there
    /// ([`Process::dummy_returned`]), [`Process::pop_dummy`] puts the thread back as it was
    /// before the call. A call that returned or ended the process is restored instead.
    pub fn call_keep(&self, run: CallRun) -> Result<()> {
        let stop = match run.stop {
            CallStop::Signal(_) | CallStop::Breakpoint(_) => Some(run.stop.clone()),
            // Stopped where it was when another thread stopped the program.
            CallStop::ThreadBreakpoint { .. } | CallStop::ThreadSignal { .. } => None,
            _ => return self.call_restore(run),
        };
        if let Ok(t) = self.thread(run.tid.as_raw()) {
            t.forget_registers();
        }
        self.bump_epoch();
        self.dummies.borrow_mut().push(Dummy {
            view: CallDummy {
                tid: run.tid.as_raw(),
                pc: run.return_addr,
                sp: run.return_sp,
                frame: run
                    .return_sp
                    .wrapping_add(self.arch.call.map_or(0, |c| c.dummy_frame_offset)),
                regs: run.before,
            },
            saved: run.saved,
            trap: run.trap,
            stop,
        });
        Ok(())
    }

    /// The calls left inside their functions (gdb's dummy frames), oldest first.
    pub fn call_dummies(&self) -> Vec<CallDummy> {
        self.dummies
            .borrow()
            .iter()
            .map(|d| d.view.clone())
            .collect()
    }

    /// Whether the `std::terminate()` trap of the call running now is at `addr`.
    fn terminate_trap_at(&self, addr: u64) -> bool {
        self.call_terminate
            .borrow()
            .as_ref()
            .is_some_and(|(a, _)| *a == addr)
    }

    /// Whether a return trap of a call left in its function is at `addr`.
    pub(super) fn dummy_trap_at(&self, addr: u64) -> bool {
        self.dummies
            .borrow()
            .iter()
            .any(|d| d.trap.as_ref().is_some_and(|(a, _)| *a == addr))
    }

    /// Show the program's bytes under the return traps of calls left in their functions.
    pub(super) fn hide_dummy_traps(&self, addr: u64, buf: &mut [u8]) {
        let end = addr.saturating_add(buf.len() as u64);
        for d in self.dummies.borrow().iter() {
            let Some((a, orig)) = &d.trap else { continue };
            for (i, &b) in orig.iter().enumerate() {
                let at = a + i as u64;
                if at >= addr && at < end {
                    buf[(at - addr) as usize] = b;
                }
            }
        }
    }

    /// Whether thread `tid`, stopped at `pc` with stack pointer `sp`, is back from the
    /// latest call it was left in (the function returned to the dummy frame).
    pub fn dummy_returned(&self, tid: i32, pc: u64, sp: u64) -> bool {
        self.dummies
            .borrow()
            .iter()
            .rev()
            .find(|d| d.view.tid == tid)
            .is_some_and(|d| d.view.pc == pc && d.view.sp == sp)
    }

    /// Apply to the thread table what calls changed behind it (see [`CallFix`]): the
    /// other threads ran during them. Done before the program resumes and by the front end
    /// after each command.
    pub fn settle_call(&mut self) {
        let fixes = std::mem::take(&mut *self.call_fixes.borrow_mut());
        let pointers: std::collections::HashMap<i32, u64> = fixes
            .iter()
            .filter_map(|f| match *f {
                CallFix::ThreadPointer(tid, p) => Some((tid, p)),
                _ => None,
            })
            .collect();
        for fix in fixes {
            match fix {
                CallFix::AtBreakpoint(tid, on) => {
                    if let Some(t) = self.threads.get_mut(&tid) {
                        t.at_breakpoint = on;
                    }
                }
                CallFix::Pending(tid, kind) => {
                    if let Some(t) = self.threads.get_mut(&tid) {
                        t.pending = kind;
                    }
                }
                CallFix::Deliver(tid, sig) => {
                    if let Some(t) = self.threads.get_mut(&tid) {
                        t.deliver = sig;
                    }
                }
                CallFix::NewThread(tid) => {
                    if !self.threads.contains_key(&tid) {
                        self.add_thread(Pid::from_raw(tid), TState::Starting);
                        if let Some(t) = self.threads.get_mut(&tid) {
                            t.pointer = pointers.get(&tid).copied().unwrap_or(0);
                        }
                        if let Err(e) = self.thread_started(tid, true) {
                            tracing::warn!(tid, "a thread made during a call: {e}");
                        }
                    }
                }
                CallFix::Gone(tid) => self.thread_gone(tid),
                CallFix::ThreadPointer(..) => {}
            }
        }
    }

    /// The thread of a call left in its function resumes: it goes on from the stop inside
    /// the function as from any stop (over the breakpoint, with the signal if `handle`
    /// passes it).
    pub(super) fn adopt_call_stops(&mut self) {
        self.settle_call();
        let stops: Vec<(i32, CallStop)> = self
            .dummies
            .borrow_mut()
            .iter_mut()
            .filter_map(|d| Some((d.view.tid, d.stop.take()?)))
            .collect();
        for (tid, stop) in stops {
            if let Some(t) = self.threads.get_mut(&tid) {
                match stop {
                    CallStop::Signal(sig) => t.deliver = Some(sig),
                    CallStop::Breakpoint(_) => t.at_breakpoint = true,
                    _ => {}
                }
            }
        }
    }

    /// Put thread `tid` back as it was before the latest call it was left in (gdb pops the
    /// dummy frame); false when it has none.
    pub fn pop_dummy(&mut self, tid: i32) -> Result<bool> {
        let d = {
            let mut ds = self.dummies.borrow_mut();
            let Some(i) = ds.iter().rposition(|d| d.view.tid == tid) else {
                return Ok(false);
            };
            let mut d = ds.remove(i);
            // Another call left at the same place keeps the trap.
            if let Some((a, orig)) = d.trap.take() {
                match ds.iter_mut().rev().find(|o| o.view.pc == a) {
                    Some(o) => o.trap = Some((a, orig)),
                    None => d.trap = Some((a, orig)),
                }
            }
            d
        };
        let mut result = Ok(());
        if let Some((a, orig)) = &d.trap {
            match self.sites.get_mut(a) {
                // A breakpoint of the user's there now keeps its trap.
                Some(site) => site.orig.clone_from(orig),
                None => {
                    if let Err(e) = self.mem.write(*a, orig) {
                        result = Err(e);
                    }
                }
            }
        }
        // Back where it stopped before the call: at a breakpoint, it steps over it when it
        // resumes (gdb restores the stop pc with the registers).
        let at_site = self.sites.contains_key(&d.view.regs.pc());
        if let Some(t) = self.threads.get_mut(&tid) {
            t.forget_registers();
            t.at_breakpoint = at_site;
            t.deliver = None;
        }
        self.bump_epoch();
        native::restore_state(d.view.tid_pid(), &d.saved)?;
        result.map(|()| true)
    }

    /// Put back every thread left in a called function (before a detach).
    pub(super) fn pop_all_dummies(&mut self) {
        let tids: Vec<i32> = self
            .dummies
            .borrow()
            .iter()
            .rev()
            .map(|d| d.view.tid)
            .collect();
        for tid in tids {
            if let Err(e) = self.pop_dummy(tid) {
                tracing::warn!(tid, "putting back a thread left in a called function: {e}");
            }
        }
    }
}

impl CallDummy {
    fn tid_pid(&self) -> Pid {
        Pid::from_raw(self.tid)
    }
}
