//! Running a few instructions of one stopped thread in a sandbox and rolling them back.
//!
//! A front end uses it where the program has not yet computed what the debug information
//! describes (gfortran fills the bounds of a runtime-sized array and the frame record of a
//! host procedure only after the address gdb stops at on entry): it runs the thread to the
//! end of that code, reads the values there and puts everything back as it was.
//!
//! Only instructions whose effects the sandbox can see are run (the decoder's operands and
//! the architecture's [`crate::arch::SandboxRules`]): no calls, system calls, indirect
//! branches, nor stores outside the frame (between the red zone below the stack pointer and
//! the caller's top of frame). Every byte stored is saved first and written back, and the
//! whole register state (general, XSAVE area, debug status) is restored and checked. Other
//! threads are not resumed. A thread stopped inside a system call is never run: the kernel
//! would restart the call (`read`, `write`, a futex wait) before the first step, which reads
//! or writes the program's data a second time, or blocks.

use std::collections::BTreeMap;
use std::ops::Range;

use nix::sys::ptrace;
use nix::unistd::Pid;

use super::{Process, TState, wait_flags};
use crate::error::{EngineError, Result};
use crate::flow::{SandboxStep, sandbox_step};
use crate::native;
use crate::regs::Registers;
use crate::signals::Signo;
use crate::sigwait::WaitStatus;

/// What to run in [`Process::sandbox_run`].
#[derive(Debug, Clone)]
pub struct SandboxRequest {
    /// Stop when the pc reaches this address.
    pub until: u64,
    /// The pc must stay in this range until then.
    pub within: Range<u64>,
    /// Stores must end at or below this address (the frame's canonical frame address).
    pub stack_top: u64,
    /// At most this many instructions.
    pub budget: usize,
}

/// The state a sandbox run reached, read before it was rolled back.
#[derive(Debug, Clone)]
pub struct SandboxRun {
    /// General registers of the thread at `until`.
    pub regs: Registers,
    /// Memory the run stored to, with what it left there: (address, bytes), ascending.
    pub stores: Vec<(u64, Vec<u8>)>,
    /// Instructions run.
    pub steps: usize,
}

/// Runs of consecutive addresses of `bytes`: (address, bytes).
fn runs(bytes: &BTreeMap<u64, u8>) -> Vec<(u64, Vec<u8>)> {
    let mut out: Vec<(u64, Vec<u8>)> = Vec::new();
    for (&a, &b) in bytes {
        match out.last_mut() {
            Some((start, v)) if start.wrapping_add(v.len() as u64) == a => v.push(b),
            _ => out.push((a, vec![b])),
        }
    }
    out
}

impl Process {
    /// Run thread `tid` from where it stopped up to `req.until` in a sandbox, note the
    /// registers and the memory it stored, and put the thread and memory back exactly as
    /// they were. An error says why the run could not be done safely (nothing changed).
    pub fn sandbox_run(&self, tid: i32, req: &SandboxRequest) -> Result<SandboxRun> {
        let t = self.thread(tid)?;
        if self.gone || t.state != TState::Stopped || t.pending.is_some() {
            return Err(EngineError::Sandbox("the thread is not stopped"));
        }
        if self.arch.sandbox.is_none() {
            return Err(EngineError::Sandbox("no sandbox on this architecture"));
        }
        if self.watch.iter().any(Option::is_some) {
            return Err(EngineError::Sandbox("hardware watchpoints are set"));
        }
        let pid = t.tid;
        let saved = native::save_state(pid)?;
        if saved.in_system_call() {
            return Err(EngineError::Sandbox("the thread is in a system call"));
        }
        // Original contents of every byte stored to, saved before the first store.
        let mut original: BTreeMap<u64, u8> = BTreeMap::new();
        let mut resend: Option<Signo> = None;
        let outcome = self.sandbox_steps(pid, req, &mut original, &mut resend);
        // What the run left in memory, read before rolling it back.
        let outcome = outcome.and_then(|(regs, steps)| {
            let mut stores = runs(&original);
            for (a, v) in &mut stores {
                self.mem.read(*a, v)?;
            }
            Ok(SandboxRun {
                regs,
                stores,
                steps,
            })
        });
        let restored = self.sandbox_restore(pid, &saved, &original);
        if let Some(sig) = resend {
            // A signal sent to the thread during the run: queue it again for the program.
            // SAFETY: tgkill with plain integers; no memory is passed.
            unsafe {
                libc::syscall(libc::SYS_tgkill, self.pid.as_raw(), pid.as_raw(), sig.raw());
            }
        }
        restored?;
        outcome
    }

    /// Put memory and registers back and check them.
    fn sandbox_restore(
        &self,
        pid: Pid,
        saved: &native::SavedState,
        original: &BTreeMap<u64, u8>,
    ) -> Result<()> {
        let runs = runs(original);
        let mut ok = true;
        for (a, v) in &runs {
            ok &= self.mem.write(*a, v).is_ok();
        }
        ok &= native::restore_state(pid, saved).is_ok();
        for (a, v) in &runs {
            let mut now = vec![0u8; v.len()];
            ok &= self.mem.read(*a, &mut now).is_ok() && &now == v;
        }
        ok &= native::save_state(pid).is_ok_and(|s| s.same_as(saved));
        if ok {
            Ok(())
        } else {
            tracing::error!(tid = pid.as_raw(), "sandbox: state not restored exactly");
            Err(EngineError::SandboxRestore(pid.as_raw()))
        }
    }

    fn sandbox_steps(
        &self,
        pid: Pid,
        req: &SandboxRequest,
        original: &mut BTreeMap<u64, u8>,
        resend: &mut Option<Signo>,
    ) -> Result<(Registers, usize)> {
        let arch = self.arch;
        let mut steps = 0usize;
        loop {
            let regs = native::read_gp(pid)?;
            let pc = regs.pc();
            if pc == req.until {
                return Ok((regs, steps));
            }
            if steps >= req.budget {
                return Err(EngineError::Sandbox("step budget used up"));
            }
            if !req.within.contains(&pc) {
                return Err(EngineError::Sandbox("left the code range"));
            }
            let mut code = vec![0u8; arch.max_insn_len];
            self.read_memory(pc, &mut code)?;
            let (len, stores) = match sandbox_step(arch, &code, pc, &regs) {
                SandboxStep::Refuse(why) => return Err(EngineError::Sandbox(why)),
                SandboxStep::Run { len, stores, .. } => (len, stores),
            };
            let lo = regs.sp().wrapping_sub(arch.red_zone);
            for &(a, n) in &stores {
                let inside = a >= lo && a.checked_add(n).is_some_and(|e| e <= req.stack_top);
                if !inside {
                    return Err(EngineError::Sandbox("a store outside the frame"));
                }
                let mut old = vec![0u8; n as usize];
                self.mem.read(a, &mut old)?;
                for (i, b) in old.into_iter().enumerate() {
                    original.entry(a + i as u64).or_insert(b);
                }
            }
            let end = pc.wrapping_add(len as u64);
            if self.sites.range(pc + 1..end).next().is_some() {
                return Err(EngineError::Sandbox("a breakpoint inside an instruction"));
            }
            // A breakpoint here: run the original instruction, then put the trap back.
            let site = self.sites.get(&pc).map(|s| s.orig.clone());
            if let Some(orig) = &site {
                self.mem.write(pc, orig)?;
            }
            let stepped = self.step_one(pid, resend);
            if site.is_some() {
                self.mem.write(pc, arch.breakpoint_insn)?;
            }
            stepped?;
            steps += 1;
        }
    }

    /// Single-step `pid` (no signal delivered) and wait for its stop. The wait goes through
    /// the thread's wait hook ([`crate::mux`]): on a tracer thread the other ranks go on
    /// meanwhile. The process's other threads are stopped, so the stop is this thread's, or the
    /// end of the process.
    fn step_one(&self, pid: Pid, resend: &mut Option<Signo>) -> Result<()> {
        let perr = |op| {
            move |err| EngineError::Ptrace {
                op,
                tid: pid.as_raw(),
                err,
            }
        };
        ptrace::step(pid, None).map_err(perr("PTRACE_SINGLESTEP"))?;
        loop {
            match crate::mux::wait_process(self.pid, pid, wait_flags()) {
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(perr("waitpid")(e)),
                Ok(WaitStatus::Stopped(p, sig)) if p == pid && sig == Signo::SIGTRAP => {
                    return Ok(());
                }
                Ok(WaitStatus::Stopped(p, sig)) if p == pid => {
                    // The instruction did not run. A signal the instruction raised (a fault) is
                    // dropped with it; one sent from outside goes back to the program.
                    let sent = ptrace::getsiginfo(pid).is_ok_and(|i| i.si_code <= 0);
                    if sent {
                        *resend = Some(sig);
                    }
                    return Err(EngineError::Sandbox("a signal arrived"));
                }
                Ok(_) => {
                    return Err(EngineError::Sandbox(
                        "the thread did not stop after one step",
                    ));
                }
            }
        }
    }
}
