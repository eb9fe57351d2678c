//! Wait statuses and signal-carrying ptrace requests with raw signal numbers.
//!
//! nix's `WaitStatus` and `ptrace::cont`/`step`/`detach` go through its `Signal` enum, which has
//! no value for signals 32 to 64 (glibc's internal SIGCANCEL and SIGSETXID, and the real-time
//! signals): `waitpid` fails with EINVAL on such a status, and such a signal cannot be
//! delivered. Here the status word is decoded with the libc macros and signals travel as
//! [`Signo`], so a debuggee may receive any signal.

use nix::errno::Errno;
use nix::sys::wait::WaitPidFlag;
use nix::unistd::Pid;

use crate::signals::Signo;

/// A decoded wait status (the shapes of nix's `WaitStatus`, with [`Signo`] for signals).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitStatus {
    /// The process or thread exited with this code.
    Exited(Pid, i32),
    /// Killed by this signal; `true` if it dumped core.
    Signaled(Pid, Signo, bool),
    /// Stopped by this signal (a signal-delivery stop under ptrace).
    Stopped(Pid, Signo),
    /// A ptrace event stop: the signal field (SIGTRAP, or the stopping signal of a group-stop)
    /// and the `PTRACE_EVENT_*` number.
    PtraceEvent(Pid, Signo, i32),
    /// A syscall stop (`PTRACE_O_TRACESYSGOOD`).
    PtraceSyscall(Pid),
    /// Resumed by SIGCONT.
    Continued(Pid),
    /// `WNOHANG` and nothing to report.
    StillAlive,
}

impl WaitStatus {
    /// Decode the status word `waitpid` returned for `pid`.
    pub fn from_raw(pid: Pid, status: i32) -> WaitStatus {
        if libc::WIFEXITED(status) {
            return WaitStatus::Exited(pid, libc::WEXITSTATUS(status));
        }
        if libc::WIFSIGNALED(status) {
            return WaitStatus::Signaled(
                pid,
                Signo::from_kernel(libc::WTERMSIG(status)),
                libc::WCOREDUMP(status),
            );
        }
        if libc::WIFSTOPPED(status) {
            let sig = libc::WSTOPSIG(status);
            let event = (status >> 16) & 0xffff;
            if event != 0 {
                return WaitStatus::PtraceEvent(pid, Signo::from_kernel(sig), event);
            }
            if sig == libc::SIGTRAP | 0x80 {
                return WaitStatus::PtraceSyscall(pid);
            }
            return WaitStatus::Stopped(pid, Signo::from_kernel(sig));
        }
        WaitStatus::Continued(pid)
    }
}

/// `waitpid(2)`, decoded.
pub fn waitpid(pid: Pid, flags: Option<WaitPidFlag>) -> nix::Result<WaitStatus> {
    let mut status: libc::c_int = 0;
    let flags = flags.map_or(0, |f| f.bits());
    // SAFETY: waitpid writes one int to `status`, a live local.
    let r = unsafe { libc::waitpid(pid.as_raw(), &mut status, flags) };
    match r {
        -1 => Err(Errno::last()),
        0 => Ok(WaitStatus::StillAlive),
        p => Ok(WaitStatus::from_raw(Pid::from_raw(p), status)),
    }
}

/// A ptrace request whose data word is a signal to deliver (0 for none).
fn request_with_signal(req: libc::c_uint, tid: Pid, sig: Option<Signo>) -> nix::Result<()> {
    let data = sig.map_or(0, Signo::raw) as libc::c_long;
    // SAFETY: CONT, SINGLESTEP and DETACH read no memory: the address is ignored and the data
    // word is a signal number.
    let r = unsafe {
        libc::ptrace(
            req,
            tid.as_raw(),
            std::ptr::null_mut::<libc::c_void>(),
            data as *mut libc::c_void,
        )
    };
    Errno::result(r).map(drop)
}

/// `PTRACE_CONT`, delivering `sig` if given.
pub fn cont(tid: Pid, sig: Option<Signo>) -> nix::Result<()> {
    request_with_signal(libc::PTRACE_CONT, tid, sig)
}

/// `PTRACE_SYSCALL`: continue to the next system call entry or exit, delivering `sig` if
/// given.
pub fn cont_syscall(tid: Pid, sig: Option<Signo>) -> nix::Result<()> {
    request_with_signal(libc::PTRACE_SYSCALL, tid, sig)
}

/// At a system call stop of `tid`: `Some((number, true))` at its entry, `Some((0, false))`
/// at its exit (the kernel does not repeat the number there), `None` when the kernel cannot
/// say (`PTRACE_GET_SYSCALL_INFO`, Linux 5.3).
pub fn syscall_info(tid: Pid) -> Option<(i64, bool)> {
    const PTRACE_GET_SYSCALL_INFO: libc::c_uint = 0x420e;
    const ENTRY: u8 = 1;
    const EXIT: u8 = 2;
    // struct ptrace_syscall_info: op (u8), pad, arch (u32), ip, sp, then entry.nr (u64).
    let mut buf = [0u64; 11];
    // SAFETY: GET_SYSCALL_INFO writes at most `addr` bytes (the buffer's size) to `data`, a
    // live local of that size.
    let r = unsafe {
        libc::ptrace(
            PTRACE_GET_SYSCALL_INFO,
            tid.as_raw(),
            std::mem::size_of_val(&buf) as *mut libc::c_void,
            buf.as_mut_ptr().cast::<libc::c_void>(),
        )
    };
    if r <= 0 {
        return None;
    }
    match buf[0].to_ne_bytes()[0] {
        ENTRY => Some((buf[3] as i64, true)),
        EXIT => Some((0, false)),
        _ => None,
    }
}

/// `PTRACE_SINGLESTEP`, delivering `sig` if given.
pub fn step(tid: Pid, sig: Option<Signo>) -> nix::Result<()> {
    request_with_signal(libc::PTRACE_SINGLESTEP, tid, sig)
}

/// `PTRACE_DETACH`, delivering `sig` if given.
pub fn detach(tid: Pid, sig: Option<Signo>) -> nix::Result<()> {
    request_with_signal(libc::PTRACE_DETACH, tid, sig)
}

/// Whether a SIGTRAP waits in `tid`'s own signal queue (`PTRACE_PEEKSIGINFO`): the trap of a
/// breakpoint or step the thread took just as it was interrupted, which the kernel reports
/// only after the interrupt's stop, once the thread is resumed.
pub fn trap_queued(tid: Pid) -> bool {
    const PEEK: usize = 8;
    let mut args = libc::ptrace_peeksiginfo_args {
        off: 0,
        flags: 0,
        nr: PEEK as i32,
    };
    // SAFETY: zeroed siginfo_t is a valid value (a plain C struct).
    let mut infos: [libc::siginfo_t; PEEK] = unsafe { std::mem::zeroed() };
    // SAFETY: PEEKSIGINFO reads `args` and writes at most `nr` siginfo_t to `infos`, both
    // live locals of those sizes.
    let r = unsafe {
        libc::ptrace(
            libc::PTRACE_PEEKSIGINFO,
            tid.as_raw(),
            (&mut args as *mut libc::ptrace_peeksiginfo_args).cast::<libc::c_void>(),
            infos.as_mut_ptr().cast::<libc::c_void>(),
        )
    };
    r > 0
        && infos[..(r as usize).min(PEEK)]
            .iter()
            .any(|i| i.si_signo == libc::SIGTRAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid() -> Pid {
        Pid::from_raw(7)
    }

    #[test]
    fn decodes_real_time_signals() {
        // Stopped by SIG36: 0x7f | 36 << 8.
        assert_eq!(
            WaitStatus::from_raw(pid(), 0x7f | (36 << 8)),
            WaitStatus::Stopped(pid(), Signo::new(36).unwrap())
        );
        // Killed by SIG64, core dumped.
        assert_eq!(
            WaitStatus::from_raw(pid(), 64 | 0x80),
            WaitStatus::Signaled(pid(), Signo::new(64).unwrap(), true)
        );
        // Killed by SIGCANCEL (32).
        assert_eq!(
            WaitStatus::from_raw(pid(), 32),
            WaitStatus::Signaled(pid(), Signo::new(32).unwrap(), false)
        );
        assert_eq!(
            WaitStatus::from_raw(pid(), 3 << 8),
            WaitStatus::Exited(pid(), 3)
        );
        // PTRACE_EVENT_CLONE (3) with SIGTRAP.
        assert_eq!(
            WaitStatus::from_raw(pid(), 0x7f | (libc::SIGTRAP << 8) | (3 << 16)),
            WaitStatus::PtraceEvent(pid(), Signo::new(libc::SIGTRAP).unwrap(), 3)
        );
        // A group-stop under PTRACE_SEIZE: PTRACE_EVENT_STOP (128) with SIGSTOP.
        assert_eq!(
            WaitStatus::from_raw(pid(), 0x7f | (libc::SIGSTOP << 8) | (128 << 16)),
            WaitStatus::PtraceEvent(pid(), Signo::new(libc::SIGSTOP).unwrap(), 128)
        );
        assert_eq!(
            WaitStatus::from_raw(pid(), 0x7f | ((libc::SIGTRAP | 0x80) << 8)),
            WaitStatus::PtraceSyscall(pid())
        );
        assert_eq!(
            WaitStatus::from_raw(pid(), 0xffff),
            WaitStatus::Continued(pid())
        );
    }
}
