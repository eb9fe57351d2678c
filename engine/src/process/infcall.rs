//! Calling a function of the program from the debugger (gdb's "inferior calls").
//!
//! The stopped thread's whole register state is saved; the arguments go where the
//! architecture's calling convention ([`crate::arch::CallConv`]) says, below the red zone of
//! the thread's stack; the return address is a trap where gdb puts it (x86-64: on the
//! stack, just below the red zone, where the return faults on a stack that is not
//! executable; aarch64: the address the caller gives, the program's entry point); and the
//! thread alone runs until it comes back there, traps elsewhere, or gets a signal. The
//! return value is read, then the registers are put back exactly. Only the calling thread runs: the others stay stopped, so a call that waits
//! for another thread (a lock it holds) does not return.
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

use super::{Process, TState, wait_flags};
use crate::arch::WatchKind;
use crate::arch::{AbiValue, Place};
use crate::error::{EngineError, Result};
use crate::native;
use crate::regs::Registers;
use crate::signals::Signo;
use crate::sigwait::WaitStatus;

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
        if self.gone || t.state != TState::Stopped || t.pending.is_some() {
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
        run.stop = match self.call_wait(pid, return_addr, expected_sp) {
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
    /// condition is false): the instruction under it runs, then the thread until the call
    /// ends again.
    pub fn call_resume(&self, mut run: CallRun) -> Result<CallRun> {
        let CallStop::Breakpoint(at) = run.stop else {
            return Ok(run);
        };
        let pid = run.tid;
        if let Ok(t) = self.thread(pid.as_raw()) {
            t.forget_registers();
        }
        self.bump_epoch();
        let orig = self.sites.get(&at).map(|s| s.orig.clone());
        if let Some(o) = &orig {
            self.mem.write(at, o)?;
        }
        let stepped = self.call_step(pid);
        if orig.is_some() {
            self.mem.write(at, self.arch.breakpoint_insn)?;
        }
        let stop = match stepped {
            Ok(Some(stop)) => Ok(stop),
            Ok(None) => {
                let ran = ptrace::cont(pid, None).map_err(|err| EngineError::Ptrace {
                    op: "PTRACE_CONT",
                    tid: pid.as_raw(),
                    err,
                });
                ran.and_then(|()| self.call_wait_stopped(pid, run.return_addr, run.return_sp))
            }
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

    /// Run `pid` until the call returns to `ret_addr` with the stack pointer at `sp`, or
    /// stops for another reason.
    fn call_wait(&self, pid: Pid, ret_addr: u64, sp: u64) -> Result<CallStop> {
        ptrace::cont(pid, None).map_err(|err| EngineError::Ptrace {
            op: "PTRACE_CONT",
            tid: pid.as_raw(),
            err,
        })?;
        self.call_wait_stopped(pid, ret_addr, sp)
    }

    /// [`Self::call_wait`] once the thread runs.
    fn call_wait_stopped(&self, pid: Pid, ret_addr: u64, sp: u64) -> Result<CallStop> {
        let perr = |op| {
            move |err| EngineError::Ptrace {
                op,
                tid: pid.as_raw(),
                err,
            }
        };
        loop {
            let st = match crate::mux::wait_process(self.pid, pid, wait_flags()) {
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(perr("waitpid")(e)),
                Ok(st) => st,
            };
            match st {
                WaitStatus::Stopped(_, sig) if sig == Signo::SIGTRAP => {
                    let regs = native::read_gp(pid)?;
                    // A breakpoint of the user's in a debug register (the pc is on it); the
                    // debug status is read and cleared, as at any stop.
                    if self.watch.iter().any(Option::is_some)
                        && let Some(slot) = native::take_watch_hit(pid)?
                        && let Some((addr, WatchKind::Execute, _)) =
                            self.watch.get(slot).copied().flatten()
                    {
                        return Ok(CallStop::Breakpoint(addr));
                    }
                    let at = regs.pc().wrapping_sub(self.arch.pc_after_breakpoint);
                    if at == ret_addr && regs.sp() == sp {
                        return Ok(CallStop::Returned(Vec::new()));
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
                        self.mem.write(at, &site.orig)?;
                        let stepped = self.call_step(pid);
                        self.mem.write(at, self.arch.breakpoint_insn)?;
                        if let Some(stop) = stepped? {
                            return Ok(stop);
                        }
                        ptrace::cont(pid, None).map_err(perr("PTRACE_CONT"))?;
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
                // An event of the function's own (a thread it made, an exec): let it go on.
                WaitStatus::PtraceEvent(..) | WaitStatus::PtraceSyscall(_) => {
                    ptrace::cont(pid, None).map_err(perr("PTRACE_CONT"))?;
                }
                WaitStatus::Continued(_) | WaitStatus::StillAlive => {}
            }
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
        if !matches!(run.stop, CallStop::Signal(_) | CallStop::Breakpoint(_)) {
            return self.call_restore(run);
        }
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
            stop: Some(run.stop),
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

    /// The thread of a call left in its function resumes: it goes on from the stop inside
    /// the function as from any stop (over the breakpoint, with the signal if `handle`
    /// passes it).
    pub(super) fn adopt_call_stops(&mut self) {
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
