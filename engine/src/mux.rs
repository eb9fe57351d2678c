//! Several processes on one tracer thread.
//!
//! ptrace ties a tracee to the thread that attached it, and a thread's `waitpid(-1, __WNOTHREAD)`
//! returns the stops of all its tracees. A program that drives one process per thread (the
//! `cohort` command line) needs nothing here. agentd runs many ranks as coroutines on a few
//! tracer threads: it installs a *wait hook* on each of them, and every wait of a [`Process`]
//! on that thread goes through the hook, which hands the thread to the other ranks until a stop
//! of this process has come (agentd's `tracers` module).
//!
//! [`Process`]: crate::process::Process

use std::cell::RefCell;
use std::rc::Rc;

use nix::sys::wait::WaitPidFlag;
use nix::unistd::Pid;

use crate::sigwait::{WaitStatus, waitpid};

/// Wait for a stop of any thread of `process`; with `nohang`, return
/// [`WaitStatus::StillAlive`] at once when there is none. `Err(ECHILD)` when the process is
/// gone.
pub type WaitHook = Rc<dyn Fn(Pid, bool) -> nix::Result<WaitStatus>>;

thread_local! {
    static HOOK: RefCell<Option<WaitHook>> = const { RefCell::new(None) };
}

/// How a tracer thread waits: for all its tracees (`__WALL`: threads too), and only its own
/// (`__WNOTHREAD`: not those of the agent's other tracer threads).
pub fn wait_flags() -> WaitPidFlag {
    WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD
}

/// Route this thread's waits through `hook` (or, with `None`, straight to `waitpid`).
pub fn set_wait_hook(hook: Option<WaitHook>) {
    HOOK.with(|h| *h.borrow_mut() = hook);
}

/// Wait for the next stop of a thread of `process`: through this thread's hook if it has one,
/// else `waitpid(target, flags)` (`target` is -1 for "any tracee of this thread", or the one
/// thread being waited for).
pub(crate) fn wait_process(
    process: Pid,
    target: Pid,
    flags: WaitPidFlag,
) -> nix::Result<WaitStatus> {
    let hook = HOOK.with(|h| h.borrow().clone());
    match hook {
        Some(h) => h(process, flags.contains(WaitPidFlag::WNOHANG)),
        None => waitpid(target, Some(flags)),
    }
}
