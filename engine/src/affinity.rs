//! Tracer threads kept on one CPU each, and programs started with the CPUs they would have had.
//!
//! A tracer thread resumes each of its tracees (`PTRACE_CONT`) and the kernel wakes a tracee
//! on or near the CPU of the thread that woke it. With several tracer threads free to move,
//! each thread's tracees end up spread over all CPUs, and the trap of one thread's tracee
//! preempts another tracer thread (docs/BENCHMARKS.md, "Tracer threads on their own CPUs").
//! [`pin_thread`] keeps the calling thread on one of the CPUs the process may use; its tracees
//! then stay there too.
//!
//! A child forked by a pinned thread would inherit that one CPU. [`Process::launch`] therefore
//! gives a program the CPU set the process had before its first thread was pinned
//! ([`restore_in_child`]): the debugger never narrows where the program may run.
//!
//! [`Process::launch`]: crate::process::Process::launch

use std::sync::OnceLock;

use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;

/// The process's CPU set as it was before any thread was pinned.
static ORIGINAL: OnceLock<CpuSet> = OnceLock::new();

/// The CPUs of a set, in order.
fn cpus(set: &CpuSet) -> Vec<usize> {
    (0..CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .collect()
}

/// Every CPU (when the process's set cannot be read).
fn all_cpus() -> CpuSet {
    let mut set = CpuSet::new();
    for c in 0..CpuSet::count() {
        let _ = set.set(c);
    }
    set
}

/// Keep the calling thread on the `n`-th (modulo their number) of the CPUs the process may
/// use, as they were before the first call. Returns the CPU.
pub fn pin_thread(n: usize) -> std::io::Result<usize> {
    let original = *ORIGINAL.get_or_init(|| {
        // The first caller is not pinned yet: its set is the process's.
        sched_getaffinity(Pid::from_raw(0)).unwrap_or_else(|_| all_cpus())
    });
    let allowed = cpus(&original);
    let Some(&cpu) = allowed.get(n % allowed.len().max(1)) else {
        return Err(std::io::Error::other("the process may run on no CPU"));
    };
    let mut one = CpuSet::new();
    one.set(cpu).map_err(std::io::Error::from)?;
    sched_setaffinity(Pid::from_raw(0), &one).map_err(std::io::Error::from)?;
    Ok(cpu)
}

/// The CPU set a started program gets, if a thread of this process was pinned.
pub(crate) fn original() -> Option<CpuSet> {
    ORIGINAL.get().copied()
}

/// In a child between `fork` and `exec`: run on `set` (the CPU set [`original`] gave before
/// the fork). One system call, safe after a fork.
pub(crate) fn restore_in_child(set: &CpuSet) {
    let _ = sched_setaffinity(Pid::from_raw(0), set);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_runs_on_one_allowed_cpu_and_others_keep_theirs() {
        let before = cpus(&sched_getaffinity(Pid::from_raw(0)).expect("affinity"));
        let t = std::thread::spawn(|| {
            let cpu = pin_thread(1).expect("pin");
            (
                cpu,
                cpus(&sched_getaffinity(Pid::from_raw(0)).expect("affinity")),
            )
        });
        let (cpu, now) = t.join().expect("thread");
        assert_eq!(now, vec![cpu]);
        assert_eq!(cpu, before[1 % before.len()]);
        // The pin is the thread's own; the set kept for programs is the process's.
        assert_eq!(
            cpus(&sched_getaffinity(Pid::from_raw(0)).expect("affinity")),
            before
        );
        assert_eq!(cpus(&original().expect("kept")), before);
    }
}
