//! One traced process: launch and attach, the all-stop thread state machine, software
//! breakpoint sites, hardware watch slots, signal routing, detach and kill.
//!
//! Every tracee is attached with `PTRACE_SEIZE`, so other threads are stopped with
//! `PTRACE_INTERRUPT` (no stray SIGSTOPs). All calls on a `Process` must come from the thread
//! that created it (see `crate::tracer`), because ptrace ties a tracee to its tracer thread.

use std::collections::{BTreeMap, HashSet};
use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::sys::ptrace::{self, Event, Options};
use nix::sys::signal::{self, Signal};
use nix::sys::wait::WaitPidFlag;
use nix::unistd::{ForkResult, Pid};

use crate::arch::{self, ArchInfo, WatchKind};
use crate::error::{EngineError, Result};
use crate::memory::{MemoryRead, ProcMem};
use crate::mux::wait_flags;
use crate::native::{self, WatchSlot};
use crate::regs::Registers;
use crate::signals::{SignalTable, Signo};
use crate::sigwait::{self, WaitStatus, waitpid};

mod infcall;
mod sandbox;
pub use infcall::{CallDummy, CallRequest, CallRun, CallStop};
pub use sandbox::{SandboxRequest, SandboxRun};

/// What made a thread stop, as the engine sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopKind {
    /// A software breakpoint site at this address was hit (the PC is back at the address).
    Breakpoint(u64),
    /// Hardware watch slot `slot` triggered.
    Watch { slot: usize },
    /// An instruction step completed.
    Step,
    /// A signal arrived whose disposition says stop. It is delivered on resume if `pass`.
    Signal(i32),
    /// The process exited with this code.
    Exited(i32),
    /// The process was killed by this signal.
    Killed(i32),
    /// The thread forked (or vforked) `child`, and a `catch fork` asked to stop there. The
    /// child is held until the process next resumes, then let go.
    Forked { child: i32, vfork: bool },
    /// The process called exec (the thread is the leader, at the new program's first
    /// instruction; [`Process::exe`] names the new program). Every breakpoint is gone.
    Exec,
    /// The thread entered (`entry`) or left system call `nr`, which a `catch syscall` asked
    /// to stop at (see [`Process::caught_syscalls`]).
    Syscall { nr: i64, entry: bool },
}

/// A stop of one thread of the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    pub tid: i32,
    pub kind: StopKind,
}

/// Things that happened while running that a front end reports as they come (gdb's
/// `[New Thread …]` lines and signals that print without stopping).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    NewThread {
        tid: i32,
        num: usize,
        pointer: u64,
    },
    ThreadExited {
        tid: i32,
        num: usize,
        pointer: u64,
    },
    /// A signal with `print` but not `stop` was received (and delivered if `pass`).
    SignalPrinted {
        tid: i32,
        signo: i32,
        /// gdb's thread number and the thread's name.
        num: usize,
        name: String,
        /// The process has ever had a second thread (gdb then names the thread).
        threaded: bool,
    },
    /// Process `pid` called exec.
    Exec {
        pid: i32,
        path: PathBuf,
    },
    /// The process forked (or vforked) child `pid`, which runs on without the debugger (its
    /// copy of the breakpoints taken out first), as gdb's `detach-on-fork` does.
    ForkDetached {
        pid: i32,
        vfork: bool,
    },
}

/// The ptrace options of every traced thread once the program runs: new threads are traced,
/// exec is reported, and so are fork and vfork, so that a child is let go without the
/// breakpoints it would inherit (an `int3` left in a child kills it with SIGTRAP).
/// System call stops are marked (`PTRACE_O_TRACESYSGOOD`); they happen only while a
/// `catch syscall` makes threads resume with `PTRACE_SYSCALL`.
fn run_options() -> Options {
    Options::PTRACE_O_TRACESYSGOOD
        | Options::PTRACE_O_TRACECLONE
        | Options::PTRACE_O_TRACEEXEC
        | Options::PTRACE_O_TRACEFORK
        | Options::PTRACE_O_TRACEVFORK
        | Options::PTRACE_O_TRACEVFORKDONE
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TState {
    /// Created by clone; its first stop has not been seen yet.
    Starting,
    Running,
    Stopped,
}

#[derive(Debug)]
struct Thread {
    tid: Pid,
    /// gdb's thread number.
    num: usize,
    state: TState,
    /// A stop already collected but not yet reported.
    pending: Option<StopKind>,
    /// Signal to deliver when the thread next resumes, if `handle` then says `pass` (gdb
    /// decides on resume, so a `handle` between stop and resume counts).
    deliver: Option<Signo>,
    /// The system call the thread entered at its last entry stop, until its exit stop.
    syscall_nr: Option<i64>,
    /// The thread reported a breakpoint at its PC and must step over it on resume.
    at_breakpoint: bool,
    interrupting: bool,
    stepping: bool,
    /// Thread pointer (pthread_t on glibc) as last read.
    pointer: u64,
    /// The kernel's register block as last read or written since the thread stopped (cleared
    /// whenever it runs): the pc, the registers and moving the pc back after a trap all use it.
    raw: std::cell::Cell<Option<native::RawGp>>,
    /// General registers read since the thread last stopped (cleared whenever it runs or they
    /// are written): a stop report asks for them several times.
    regs: std::cell::RefCell<Option<Registers>>,
}

impl Thread {
    /// The thread runs (or its registers were written behind the caches' back).
    fn forget_registers(&self) {
        self.raw.set(None);
        self.regs.replace(None);
    }

    /// The raw register block (read once per stop).
    fn raw_registers(&self) -> Result<native::RawGp> {
        if let Some(r) = self.raw.get() {
            return Ok(r);
        }
        let r = native::read_raw(self.tid)?;
        if self.state == TState::Stopped {
            self.raw.set(Some(r));
        }
        Ok(r)
    }
}

#[derive(Debug)]
struct Site {
    orig: Vec<u8>,
    user: u32,
    internal: bool,
}

/// Public view of a thread.
#[derive(Debug, Clone)]
pub struct ThreadInfo {
    pub tid: i32,
    pub num: usize,
    pub pointer: u64,
    pub name: String,
}

/// How to start a program.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Full environment; `None` inherits the debugger's.
    pub env: Option<Vec<(OsString, OsString)>>,
    pub cwd: Option<PathBuf>,
    /// Address-space randomisation off (gdb's default).
    pub disable_aslr: bool,
    /// Start through this shell as `SHELL -c "exec PROGRAM ARGS"` (gdb's `startup-with-shell`,
    /// on by default there), so that redirections and globs in the arguments work and the
    /// program's environment and stack match a gdb run.
    pub shell: Option<PathBuf>,
    /// Arguments exactly as typed to `run` (given to the shell unquoted); when `None`, `args`
    /// are quoted for the shell.
    pub args_line: Option<String>,
    /// Descriptors the program gets: each is dup2'd onto its number in the child just before
    /// exec (e.g. a rank's stdin/stdout/stderr and PMI socket passed by a launcher's wrapper).
    pub fds: Vec<(std::sync::Arc<std::os::fd::OwnedFd>, i32)>,
    /// A signal the program gets when the thread that started it ends (`PR_SET_PDEATHSIG`;
    /// kept across its exec): an MPI launcher started for a session ends with the session's
    /// front end, however that ends.
    pub death_signal: Option<i32>,
}

/// Quote one argument for a POSIX shell, as gdb does for `--args`.
pub fn shell_quote(arg: &[u8]) -> String {
    if arg.is_empty() {
        return "''".into();
    }
    let mut out = String::new();
    for &c in arg {
        if b"\"!#$&*()\\|[]{}<>?'`~^; \t".contains(&c) {
            out.push('\\');
        }
        if c == b'\n' {
            out.push_str("'\n'");
            continue;
        }
        out.push(c as char);
    }
    out
}

pub struct Process {
    pid: Pid,
    arch: &'static ArchInfo,
    mem: ProcMem,
    threads: BTreeMap<i32, Thread>,
    next_num: usize,
    sites: BTreeMap<u64, Site>,
    /// Addresses of breakpoints removed while the program ran: a thread that hit one just
    /// before it went may still report its trap (gdb's moribund locations).
    moribund: HashSet<u64>,
    watch: Vec<WatchSlot>,
    /// Stops of new threads seen before their parent's clone event.
    early: HashSet<i32>,
    /// The breakpoints' traps are out of memory while a vfork child runs in the process's
    /// address space (they go back at the vfork-done event); sites are still kept.
    lifted: bool,
    launched: bool,
    gone: bool,
    /// Ranges the debugger has written (`set var`, patches): code there is read from the
    /// process, not from its file. Collapses to everything past `MAX_WRITE_RANGES`.
    user_writes: std::cell::RefCell<Vec<(u64, u64)>>,
    notices: Vec<Notice>,
    pub signals: SignalTable,
    exe: PathBuf,
    /// Called for each notice as it happens (instead of queueing it), so a front end can
    /// print `[New Thread …]` lines and printed signals in order with the program's output.
    pub on_notice: Option<NoticeHook>,
    /// Counts what may change the program's state (waits for stops, writes): see
    /// [`Process::epoch`].
    epoch: std::cell::Cell<u64>,
    /// The end of the process, when it came during a function call from the debugger
    /// (reported by the next [`Process::poll_gone`]).
    call_ended: std::cell::Cell<Option<WaitStatus>>,
    /// Calls that stopped inside the called function and were left there (gdb's dummy
    /// frames), oldest first: see [`Process::call_keep`].
    dummies: std::cell::RefCell<Vec<infcall::Dummy>>,
    /// What calls changed in the thread table behind its back (the other threads ran
    /// during them), applied by [`Process::settle_call`].
    call_fixes: std::cell::RefCell<Vec<infcall::CallFix>>,
    /// Threads made during a call whose first stop is still to come, and first stops seen
    /// before their parent's clone event.
    call_starting: std::cell::RefCell<HashSet<i32>>,
    call_early: std::cell::RefCell<HashSet<i32>>,
    /// The `std::terminate()` trap of the call running now, with the bytes it replaced
    /// (`None` when a breakpoint site was there already).
    call_terminate: std::cell::RefCell<Option<(u64, Option<Vec<u8>>)>>,
    /// Stop at forks and vforks (gdb's `catch fork`, `catch vfork`).
    pub catch_fork: bool,
    pub catch_vfork: bool,
    /// A fork child held at a caught fork: let go when the process resumes.
    held_fork: Option<(i32, bool)>,
    /// Signals that stop the program whatever `handle` says (gdb's `catch signal`), and
    /// whether every signal but SIGTRAP and SIGINT does.
    pub caught_signals: Vec<i32>,
    pub catch_all_signals: bool,
    /// System calls that stop the program at their entry and exit (gdb's `catch syscall`):
    /// `None` catches none (threads resume with `PTRACE_CONT`, no cost), an empty list every
    /// one; otherwise threads resume with `PTRACE_SYSCALL`.
    pub caught_syscalls: Option<Vec<i64>>,
    /// Resume without system call stops even while some are caught: the front end runs
    /// through code it would single-step, as gdb does there (no syscall stops then).
    pub syscalls_quiet: bool,
}

/// See [`Process::on_notice`].
pub type NoticeHook = Box<dyn FnMut(&Notice) + Send>;

/// `si_code` of a SIGTRAP from a hardware breakpoint or watchpoint (Linux, all architectures).
const TRAP_HWBKPT: i32 = 4;

/// How long `wait_any` polls before it sleeps in `waitpid`, in microseconds.
static SPIN_BEFORE_SLEEP_US: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(200);

/// Set how long a wait for a stop polls before sleeping (200 µs by default: right for one
/// process on its own CPU; agentd, with a tracer thread per rank and more ranks than CPUs,
/// sets 0 so that waiting threads leave the CPUs to the ranks).
pub fn set_wait_spin(d: std::time::Duration) {
    SPIN_BEFORE_SLEEP_US.store(
        d.as_micros().min(u64::MAX as u128) as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
}

fn perr(op: &'static str, tid: Pid) -> impl Fn(Errno) -> EngineError {
    move |err| EngineError::Ptrace {
        op,
        tid: tid.as_raw(),
        err,
    }
}

/// Resolve the program as gdb does: a path with a slash as given, else the current directory,
/// else `PATH`.
pub fn resolve_program(p: &Path) -> Result<PathBuf> {
    let candidates: Vec<PathBuf> = if p.as_os_str().as_bytes().contains(&b'/') || p.exists() {
        vec![p.to_path_buf()]
    } else {
        std::env::var_os("PATH")
            .map(|path| std::env::split_paths(&path).map(|d| d.join(p)).collect())
            .unwrap_or_default()
    };
    for c in candidates {
        if c.is_file() {
            // Like gdb: an absolute path with the directories resolved and the file name kept.
            let abs = match (c.parent(), c.file_name()) {
                (Some(dir), Some(name)) => {
                    let dir = if dir.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        dir
                    };
                    std::fs::canonicalize(dir)
                        .map(|d| d.join(name))
                        .unwrap_or(c.clone())
                }
                _ => c.clone(),
            };
            let mut magic = [0u8; 4];
            let ok = std::fs::File::open(&abs)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
                .is_ok();
            if !ok || magic != *b"\x7fELF" {
                return Err(EngineError::NotExecutable(abs));
            }
            return Ok(abs);
        }
    }
    Err(EngineError::not_a_program(p))
}

impl Process {
    pub fn pid(&self) -> i32 {
        self.pid.as_raw()
    }

    pub fn arch(&self) -> &'static ArchInfo {
        self.arch
    }

    pub fn exe(&self) -> &Path {
        &self.exe
    }

    pub fn is_gone(&self) -> bool {
        self.gone
    }

    /// Whether this process was started by the debugger (killed at the end) or attached
    /// (detached at the end).
    pub fn launched(&self) -> bool {
        self.launched
    }

    fn new(pid: Pid, launched: bool, exe: PathBuf) -> Self {
        let arch = arch::native();
        Process {
            pid,
            arch,
            mem: ProcMem::new(pid),
            threads: BTreeMap::new(),
            next_num: 1,
            sites: BTreeMap::new(),
            moribund: HashSet::new(),
            watch: vec![None; arch.watch_slots],
            early: HashSet::new(),
            lifted: false,
            launched,
            gone: false,
            user_writes: std::cell::RefCell::new(Vec::new()),
            notices: Vec::new(),
            signals: SignalTable::default(),
            exe,
            on_notice: None,
            epoch: std::cell::Cell::new(0),
            call_ended: std::cell::Cell::new(None),
            dummies: std::cell::RefCell::new(Vec::new()),
            call_fixes: std::cell::RefCell::new(Vec::new()),
            call_starting: std::cell::RefCell::new(HashSet::new()),
            call_early: std::cell::RefCell::new(HashSet::new()),
            call_terminate: std::cell::RefCell::new(None),
            catch_fork: false,
            catch_vfork: false,
            held_fork: None,
            caught_signals: Vec::new(),
            catch_all_signals: false,
            caught_syscalls: None,
            syscalls_quiet: false,
        }
    }

    /// A number that changes whenever the program may have run or its memory or registers
    /// were written: a front end caches what it computed about a stop under it.
    pub fn epoch(&self) -> u64 {
        self.epoch.get()
    }

    fn bump_epoch(&self) {
        self.epoch.set(self.epoch.get().wrapping_add(1));
    }

    fn add_thread(&mut self, tid: Pid, state: TState) -> usize {
        let num = self.next_num;
        self.next_num += 1;
        self.threads.insert(
            tid.as_raw(),
            Thread {
                tid,
                num,
                state,
                pending: None,
                deliver: None,
                at_breakpoint: false,
                syscall_nr: None,
                interrupting: false,
                stepping: false,
                pointer: 0,
                raw: std::cell::Cell::new(None),
                regs: std::cell::RefCell::new(None),
            },
        );
        num
    }

    /// Start `opts.program` stopped at its first instruction (after exec).
    pub fn launch(opts: &LaunchOptions) -> Result<Process> {
        let program = resolve_program(&opts.program)?;
        let cstr = |s: &[u8]| {
            CString::new(s).map_err(|_| EngineError::Other("argument contains a NUL byte".into()))
        };
        let (path_c, argv) = match &opts.shell {
            Some(sh) => {
                let mut line = format!("exec {}", shell_quote(program.as_os_str().as_bytes()));
                match &opts.args_line {
                    Some(raw) => {
                        line.push(' ');
                        line.push_str(raw);
                    }
                    None => {
                        for a in &opts.args {
                            line.push(' ');
                            line.push_str(&shell_quote(a.as_bytes()));
                        }
                    }
                }
                let sh_c = cstr(sh.as_os_str().as_bytes())?;
                (
                    sh_c.clone(),
                    vec![sh_c, cstr(b"-c")?, cstr(line.as_bytes())?],
                )
            }
            None => {
                // argv[0] is the resolved path, as gdb passes it.
                let mut argv = vec![cstr(program.as_os_str().as_bytes())?];
                for a in &opts.args {
                    argv.push(cstr(a.as_bytes())?);
                }
                (cstr(program.as_os_str().as_bytes())?, argv)
            }
        };
        let mut execs_left = if opts.shell.is_some() { 2 } else { 1 };
        let env_pairs = opts
            .env
            .clone()
            .unwrap_or_else(|| std::env::vars_os().collect());
        let envp: Vec<CString> = env_pairs
            .iter()
            .map(|(k, v)| {
                let mut b = k.as_bytes().to_vec();
                b.push(b'=');
                b.extend_from_slice(v.as_bytes());
                cstr(&b)
            })
            .collect::<Result<_>>()?;
        let cwd_c = match &opts.cwd {
            Some(d) => Some(cstr(d.as_os_str().as_bytes())?),
            None => None,
        };
        // Close-on-exec: the program must not inherit the gate (its first fd is 3, as under gdb).
        let (gate_r, gate_w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
            .map_err(|e| EngineError::Other(format!("pipe: {e}")))?;
        let disable_aslr = opts.disable_aslr;
        let death_signal = opts.death_signal;
        // Forked from a tracer thread kept on one CPU, the program would inherit that CPU: it
        // gets the process's own set back (crate::affinity).
        let cpu_set = crate::affinity::original();
        // Above every target number, so that no dup2 in the child clobbers a source not yet
        // placed; close-on-exec, so that only the targets survive the exec.
        let min_high = opts.fds.iter().map(|(_, n)| *n).max().unwrap_or(0).max(2) + 1;
        let high: Vec<(std::os::fd::OwnedFd, i32)> = opts
            .fds
            .iter()
            .map(|(fd, n)| {
                if *n < 0 {
                    return Err(EngineError::Other(format!("bad descriptor number {n}")));
                }
                nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_DUPFD_CLOEXEC(min_high))
                    // SAFETY: F_DUPFD_CLOEXEC returned a new descriptor that nothing else owns.
                    .map(|h| (unsafe { std::os::fd::FromRawFd::from_raw_fd(h) }, *n))
                    .map_err(|e| EngineError::Other(format!("dup of descriptor for {n}: {e}")))
            })
            .collect::<Result<_>>()?;
        // SAFETY: the child only makes async-signal-safe calls (prctl, sched_setaffinity,
        // personality, chdir, read, execve, _exit) on data prepared before the fork.
        match unsafe { nix::unistd::fork() } {
            Err(e) => Err(EngineError::Other(format!("fork: {e}"))),
            Ok(ForkResult::Child) => {
                drop(gate_w);
                if let Some(sig) = death_signal {
                    // SAFETY: prctl(2) with a signal number; no memory is passed.
                    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, sig as libc::c_ulong) };
                }
                if let Some(set) = &cpu_set {
                    crate::affinity::restore_in_child(set);
                }
                if disable_aslr {
                    // SAFETY: personality(2) with a flag word; no memory is passed.
                    unsafe {
                        let cur = libc::personality(0xffff_ffff);
                        libc::personality(
                            (cur as libc::c_ulong | libc::ADDR_NO_RANDOMIZE as libc::c_ulong) as _,
                        );
                    }
                }
                if let Some(d) = &cwd_c {
                    // SAFETY: chdir with a valid NUL-terminated path.
                    if unsafe { libc::chdir(d.as_ptr()) } != 0 {
                        // SAFETY: _exit never returns and is async-signal-safe.
                        unsafe { libc::_exit(126) };
                    }
                }
                let mut b = [0u8; 1];
                // Wait until the parent has seized us, so exec is the first thing it sees.
                let _ = nix::unistd::read(&gate_r, &mut b);
                for (fd, n) in &high {
                    // SAFETY: dup2 on descriptors we own; the target number is the caller's.
                    if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(fd), *n) } < 0 {
                        // SAFETY: _exit never returns and is async-signal-safe.
                        unsafe { libc::_exit(126) };
                    }
                }
                let _ = nix::unistd::execve(&path_c, &argv, &envp);
                // SAFETY: _exit never returns and is async-signal-safe.
                unsafe { libc::_exit(127) }
            }
            Ok(ForkResult::Parent { child }) => {
                drop(gate_r);
                drop(high);
                let opts = Options::PTRACE_O_TRACECLONE
                    | Options::PTRACE_O_TRACEEXEC
                    | Options::PTRACE_O_EXITKILL;
                let seized = ptrace::seize(child, opts);
                let _ = nix::unistd::write(&gate_w, b"x");
                drop(gate_w);
                if let Err(e) = seized {
                    let _ = signal::kill(child, Signal::SIGKILL);
                    let _ = waitpid(child, None);
                    return Err(EngineError::Ptrace {
                        op: "PTRACE_SEIZE",
                        tid: child.as_raw(),
                        err: e,
                    });
                }
                let mut p = Process::new(child, true, program.clone());
                p.add_thread(child, TState::Running);
                loop {
                    match crate::mux::wait_process(child, child, WaitPidFlag::__WALL) {
                        Ok(WaitStatus::PtraceEvent(_, _, ev))
                            if ev == Event::PTRACE_EVENT_EXEC as i32 =>
                        {
                            execs_left -= 1;
                            if execs_left == 0 {
                                break;
                            }
                            let _ = sigwait::cont(child, None);
                        }
                        Ok(WaitStatus::Exited(_, code)) => {
                            p.gone = true;
                            return Err(EngineError::Other(format!(
                                "During startup program exited with code {code}."
                            )));
                        }
                        Ok(WaitStatus::Signaled(_, sig, _)) => {
                            p.gone = true;
                            let (name, desc) = crate::signals::describe(sig.raw());
                            return Err(EngineError::Other(format!(
                                "During startup program terminated with signal {name}, {desc}."
                            )));
                        }
                        Ok(WaitStatus::Stopped(_, sig)) => {
                            // A signal to the shell: it gets it.
                            let _ = sigwait::cont(child, Some(sig));
                        }
                        Ok(WaitStatus::PtraceEvent(..)) => {
                            let _ = sigwait::cont(child, None);
                        }
                        Ok(_) => {}
                        Err(Errno::EINTR) => {}
                        Err(e) => {
                            return Err(EngineError::Ptrace {
                                op: "waitpid",
                                tid: child.as_raw(),
                                err: e,
                            });
                        }
                    }
                }
                if let Some(t) = p.threads.get_mut(&child.as_raw()) {
                    t.state = TState::Stopped;
                }
                // Forks are followed only now: the shell that starts the program may fork
                // before it execs it, and those children are none of the debugger's business.
                // EXITKILL stays: a launched program dies with its debugger.
                let _ = ptrace::setoptions(child, run_options() | Options::PTRACE_O_EXITKILL);
                // `/proc/PID/mem` opened before the exec reaches the old image only (reads and
                // writes return nothing): open it again for the program.
                p.mem = ProcMem::new(child);
                Ok(p)
            }
        }
    }

    /// Attach to every thread of a running process and stop it.
    pub fn attach(pid: i32) -> Result<Process> {
        if pid <= 0 || !Path::new(&format!("/proc/{pid}")).exists() {
            return Err(EngineError::NoSuchProcess(pid));
        }
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
        let mut p = Process::new(Pid::from_raw(pid), false, exe);
        let opts = run_options();
        // Threads may be created while we attach: repeat until the task list is stable.
        loop {
            let mut new = 0;
            let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
                .map_err(|_| EngineError::NoSuchProcess(pid))?;
            let mut tids: Vec<i32> = tasks
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse().ok()))
                .collect();
            tids.sort_unstable();
            // The leader first, so it is thread 1.
            if let Some(i) = tids.iter().position(|&t| t == pid) {
                tids.remove(i);
                tids.insert(0, pid);
            }
            for tid in tids {
                if p.threads.contains_key(&tid) {
                    continue;
                }
                let t = Pid::from_raw(tid);
                match ptrace::seize(t, opts) {
                    Ok(()) => {}
                    Err(Errno::EPERM) if tid == pid => return Err(EngineError::NotPermitted(pid)),
                    Err(Errno::ESRCH) if tid == pid => return Err(EngineError::NoSuchProcess(pid)),
                    Err(Errno::ESRCH) | Err(Errno::EPERM) => continue,
                    Err(e) => {
                        return Err(EngineError::Ptrace {
                            op: "PTRACE_SEIZE",
                            tid,
                            err: e,
                        });
                    }
                }
                let _ = ptrace::interrupt(t);
                p.add_thread(t, TState::Running);
                if let Some(th) = p.threads.get_mut(&tid) {
                    th.interrupting = true;
                }
                new += 1;
            }
            if new == 0 {
                break;
            }
        }
        p.wait_all_stopped()?;
        // Signals caught at attach time are not events: they go back on resume.
        for t in p.threads.values_mut() {
            if let Some(StopKind::Signal(s)) = t.pending.take() {
                t.deliver = Signo::new(s);
            }
            t.pending = None;
        }
        Ok(p)
    }

    fn notice(&mut self, n: Notice) {
        match self.on_notice.as_mut() {
            Some(f) => f(&n),
            None => self.notices.push(n),
        }
    }

    /// Drain the notices collected since the last call.
    pub fn take_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    // ---------------------------------------------------------------- threads

    /// Threads in gdb's numbering order.
    pub fn threads(&mut self) -> Vec<ThreadInfo> {
        self.settle_call();
        let pid = self.pid;
        let tp = self.arch.thread_pointer;
        let mut out = Vec::new();
        for t in self.threads.values_mut() {
            if t.state == TState::Stopped
                && let Some(tp) = tp
                && let Ok(r) = native::read_gp(t.tid)
            {
                t.pointer = r.u64(tp);
            }
            let name = std::fs::read_to_string(format!("/proc/{pid}/task/{}/comm", t.tid))
                .map(|s| s.trim_end().to_string())
                .unwrap_or_default();
            out.push(ThreadInfo {
                tid: t.tid.as_raw(),
                num: t.num,
                pointer: t.pointer,
                name,
            });
        }
        out.sort_by_key(|t| t.num);
        out
    }

    /// The stop of thread `tid` collected but not reported yet (it is reported at the next
    /// resume, or ends the next call from an expression).
    pub fn pending_stop(&self, tid: i32) -> Option<StopKind> {
        self.threads.get(&tid).and_then(|t| t.pending)
    }

    /// The highest gdb thread number handed out so far (gdb names threads in stop reports once
    /// a program has had more than one).
    pub fn highest_thread_num(&self) -> usize {
        self.next_num - 1
    }

    /// The kernel's name for thread `tid` (`/proc/PID/task/TID/comm`).
    pub fn thread_name(&self, tid: i32) -> String {
        std::fs::read_to_string(format!("/proc/{}/task/{tid}/comm", self.pid))
            .map(|s| s.trim_end().to_string())
            .unwrap_or_default()
    }

    /// Thread `tid`'s thread pointer as last read (`pthread_t` on glibc).
    pub fn thread_pointer(&self, tid: i32) -> u64 {
        self.threads.get(&tid).map_or(0, |t| t.pointer)
    }

    /// How many threads the process has (`$_inferior_thread_count`).
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    pub fn thread_num(&self, tid: i32) -> Option<usize> {
        self.threads.get(&tid).map(|t| t.num)
    }

    pub fn tid_of(&self, num: usize) -> Option<i32> {
        self.threads
            .values()
            .find(|t| t.num == num)
            .map(|t| t.tid.as_raw())
    }

    fn thread(&self, tid: i32) -> Result<&Thread> {
        // (No error value is made when the thread is there: this is on every register read.)
        match self.threads.get(&tid) {
            Some(t) => Ok(t),
            None => Err(EngineError::NoThread(tid as usize)),
        }
    }

    // ---------------------------------------------------------------- memory and registers

    /// Read memory as the program sees it: inserted breakpoint instructions are hidden.
    pub fn read_memory(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        self.mem.read(addr, buf)?;
        let end = addr.saturating_add(buf.len() as u64);
        let lo = addr.saturating_sub(self.arch.breakpoint_insn.len() as u64);
        for (&a, site) in self.sites.range(lo..end) {
            for (i, &b) in site.orig.iter().enumerate() {
                let at = a + i as u64;
                if at >= addr && at < end {
                    buf[(at - addr) as usize] = b;
                }
            }
        }
        self.hide_dummy_traps(addr, buf);
        Ok(())
    }

    /// Remember that the debugger wrote `[addr, addr + len)`.
    fn note_write(&self, addr: u64, len: usize) {
        const MAX_WRITE_RANGES: usize = 64;
        let mut w = self.user_writes.borrow_mut();
        if w.len() >= MAX_WRITE_RANGES {
            w.clear();
            w.push((0, u64::MAX));
        } else {
            w.push((addr, addr.saturating_add(len as u64)));
        }
    }

    /// Whether the debugger has never written to `[addr, addr + len)`.
    pub fn unwritten(&self, addr: u64, len: usize) -> bool {
        let end = addr.saturating_add(len as u64);
        !self
            .user_writes
            .borrow()
            .iter()
            .any(|&(a, b)| a < end && addr < b)
    }

    /// Write memory (read-only text included); breakpoint sites keep their trap.
    pub fn write_memory(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        self.note_write(addr, data.len());
        self.bump_epoch();
        let end = addr.saturating_add(data.len() as u64);
        let lo = addr.saturating_sub(self.arch.breakpoint_insn.len() as u64);
        let mut out = data.to_vec();
        let bp = self.arch.breakpoint_insn;
        for (&a, site) in self.sites.range_mut(lo..end) {
            for (i, (o, &b)) in site.orig.iter_mut().zip(bp).enumerate() {
                let at = a + i as u64;
                if at >= addr && at < end {
                    *o = data[(at - addr) as usize];
                    if !self.lifted {
                        out[(at - addr) as usize] = b;
                    }
                }
            }
        }
        self.mem.write(addr, &out)
    }

    /// Write memory without `&mut` (for evaluators that hold the process shared). Refuses a
    /// range that covers a breakpoint site, whose original bytes only `write_memory` updates.
    pub fn write_memory_shared(&self, addr: u64, data: &[u8]) -> Result<()> {
        self.bump_epoch();
        let end = addr.saturating_add(data.len() as u64);
        let lo = addr.saturating_sub(self.arch.breakpoint_insn.len() as u64);
        if self.sites.range(lo..end).next().is_some() {
            return Err(EngineError::Memory(addr));
        }
        self.note_write(addr, data.len());
        self.mem.write(addr, data)
    }

    /// General-purpose registers of `tid`.
    pub fn registers(&self, tid: i32) -> Result<Registers> {
        let t = self.thread(tid)?;
        if let Some(r) = &*t.regs.borrow() {
            return Ok(r.clone());
        }
        let r = native::raw_to_registers(&t.raw_registers()?);
        if t.state == TState::Stopped {
            t.regs.replace(Some(r.clone()));
        }
        Ok(r)
    }

    /// Every register of `tid`, floating point and vector included.
    pub fn all_registers(&self, tid: i32) -> Result<Registers> {
        self.thread(tid)?;
        native::read_all(Pid::from_raw(tid))
    }

    /// The upper 128 bits of `ymm0`–`ymm15` of `tid` (`None` without AVX).
    pub fn ymm_high(&self, tid: i32) -> Result<Option<[u128; 16]>> {
        self.thread(tid)?;
        native::read_ymm_high(Pid::from_raw(tid))
    }

    /// Write the upper 128 bits of some `ymm` registers of `tid` (register number, bits).
    pub fn set_ymm_high(&mut self, tid: i32, values: &[(usize, u128)]) -> Result<()> {
        self.bump_epoch();
        self.thread(tid)?;
        native::write_ymm_high(Pid::from_raw(tid), values)
    }

    pub fn set_registers(&mut self, tid: i32, regs: &Registers) -> Result<()> {
        self.bump_epoch();
        let t = self.thread(tid)?;
        let base = t.raw.get();
        t.forget_registers();
        let r = native::write_gp(Pid::from_raw(tid), base, regs)?;
        if t.state == TState::Stopped {
            t.raw.set(Some(r));
        }
        // Vector and x87 registers only when `regs` holds some (a variable kept in one).
        native::write_fp(Pid::from_raw(tid), regs)?;
        Ok(())
    }

    pub fn pc(&self, tid: i32) -> Result<u64> {
        let t = self.thread(tid)?;
        Ok(native::raw_pc(&t.raw_registers()?))
    }

    fn set_pc(&self, tid: i32, pc: u64) -> Result<()> {
        let t = self.thread(tid)?;
        let mut r = t.raw_registers()?;
        t.forget_registers();
        native::write_raw_pc(Pid::from_raw(tid), &mut r, pc)?;
        if t.state == TState::Stopped {
            t.raw.set(Some(r));
        }
        Ok(())
    }

    // ---------------------------------------------------------------- breakpoint sites

    fn insert_site(&mut self, addr: u64, internal: bool) -> Result<()> {
        self.insert_site_known(addr, internal, None)
    }

    /// Insert a site; `known` holds the bytes under it when the caller knows them (the
    /// program's file, code the debugger has not written), which saves reading them.
    fn insert_site_known(&mut self, addr: u64, internal: bool, known: Option<&[u8]>) -> Result<()> {
        if let Some(s) = self.sites.get_mut(&addr) {
            if internal {
                s.internal = true;
            } else {
                s.user += 1;
            }
            return Ok(());
        }
        let bp = self.arch.breakpoint_insn;
        self.moribund.remove(&addr);
        let len = bp.len() as u64;
        let orig = match known {
            // No other site's trap among these bytes: they are the file's.
            Some(k)
                if k.len() == bp.len()
                    && self
                        .sites
                        .range(addr.saturating_sub(len - 1)..addr.saturating_add(len))
                        .next()
                        .is_none() =>
            {
                k.to_vec()
            }
            _ => {
                let mut orig = vec![0u8; bp.len()];
                self.mem.read(addr, &mut orig)?;
                // Under the return trap of a call left in its function: the code's bytes.
                self.hide_dummy_traps(addr, &mut orig);
                orig
            }
        };
        if !self.lifted {
            self.mem.write(addr, bp)?;
        }
        self.sites.insert(
            addr,
            Site {
                orig,
                user: u32::from(!internal),
                internal,
            },
        );
        Ok(())
    }

    /// Insert (or add a reference to) a user breakpoint at `addr`.
    pub fn add_breakpoint(&mut self, addr: u64) -> Result<()> {
        self.insert_site(addr, false)
    }

    /// Insert the debugger's own breakpoint at `addr` (e.g. the dynamic linker's hook).
    pub fn add_internal_breakpoint(&mut self, addr: u64) -> Result<()> {
        self.insert_site(addr, true)
    }

    /// [`Self::add_internal_breakpoint`] where the caller knows the code bytes at `addr` (as
    /// many as the breakpoint instruction has).
    pub fn add_internal_breakpoint_known(&mut self, addr: u64, code: Option<&[u8]>) -> Result<()> {
        self.insert_site_known(addr, true, code)
    }

    /// Drop one user reference to the site at `addr`; the original bytes return when none is left.
    pub fn remove_breakpoint(&mut self, addr: u64) -> Result<()> {
        let Some(s) = self.sites.get_mut(&addr) else {
            return Ok(());
        };
        s.user = s.user.saturating_sub(1);
        if s.user == 0 && !s.internal {
            self.remove_site(addr)?;
        }
        Ok(())
    }

    /// Forget every breakpoint site for which `gone` holds, without writing memory: the code
    /// there was unmapped (a library closed with `dlclose`), and what may be mapped there now
    /// is another object's. Returns how many there were.
    pub fn forget_sites(&mut self, gone: impl Fn(u64) -> bool) -> usize {
        let before = self.sites.len();
        self.sites.retain(|&a, _| !gone(a));
        self.moribund.retain(|&a| !gone(a));
        before - self.sites.len()
    }

    fn remove_site(&mut self, addr: u64) -> Result<()> {
        if let Some(s) = self.sites.remove(&addr) {
            // The return trap of a call left in its function stays.
            if !self.lifted && !self.dummy_trap_at(addr) {
                self.mem.write(addr, &s.orig)?;
            }
            self.moribund.insert(addr);
        }
        Ok(())
    }

    /// A fork or vfork of thread `tid` made child `child` (traced, as the options ask): take
    /// the breakpoints out of what the child runs and let it go, as gdb's `detach-on-fork`.
    /// A forked child has a copy of memory, traps included: they are written over in the
    /// child. A vforked child borrows the process's memory until it execs or exits: the traps
    /// come out of it until the vfork-done event puts them back.
    fn let_fork_child_go(&mut self, child: i32, vfork: bool) {
        let cpid = Pid::from_raw(child);
        if vfork {
            if !self.lifted {
                for (&addr, s) in &self.sites {
                    if let Err(e) = self.mem.write(addr, &s.orig) {
                        tracing::warn!(addr, "taking a breakpoint out for a vfork child: {e}");
                    }
                }
                self.lifted = true;
            }
        } else {
            let mem = ProcMem::new(cpid);
            for (&addr, s) in &self.sites {
                if let Err(e) = mem.write(addr, &s.orig) {
                    tracing::warn!(addr, child, "taking a breakpoint out of a fork child: {e}");
                }
            }
        }
        // The child reports its first stop (seized: an event stop) on its own, maybe later
        // than its parent's event; it can be detached once it is in it (its stop need not have
        // been waited for), and it runs no code of its own before.
        self.early.remove(&child);
        let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
        loop {
            match ptrace::detach(cpid, None) {
                Ok(()) => break,
                Err(Errno::ESRCH)
                    if std::time::Instant::now() < until
                        && Path::new(&format!("/proc/{child}")).exists() =>
                {
                    std::thread::sleep(std::time::Duration::from_micros(20));
                }
                Err(e) => {
                    tracing::warn!(child, "letting a fork child go: PTRACE_DETACH: {e}");
                    break;
                }
            }
        }
        self.notice(Notice::ForkDetached { pid: child, vfork });
    }

    /// Let go of a fork child held at a caught fork (before the process resumes, detaches
    /// or is killed), as gdb's `detach-on-fork` does then.
    fn release_held_fork(&mut self) {
        if let Some((child, vfork)) = self.held_fork.take() {
            self.let_fork_child_go(child, vfork);
        }
    }

    /// After a vfork child has exec'd or exited: the traps go back in.
    fn restore_lifted_sites(&mut self) {
        if !std::mem::replace(&mut self.lifted, false) {
            return;
        }
        let bp = self.arch.breakpoint_insn;
        for &addr in self.sites.keys() {
            if let Err(e) = self.mem.write(addr, bp) {
                tracing::warn!(addr, "putting a breakpoint back after a vfork: {e}");
            }
        }
    }

    /// A hardware instruction breakpoint at `addr` (reported as `StopKind::Breakpoint`);
    /// returns its slot.
    pub fn add_hw_breakpoint(&mut self, addr: u64) -> Result<usize> {
        self.add_watchpoint(addr, 1, WatchKind::Execute)
    }

    /// Drop the debugger's own breakpoint at `addr` (user breakpoints there stay).
    pub fn remove_internal_breakpoint(&mut self, addr: u64) -> Result<()> {
        let Some(s) = self.sites.get_mut(&addr) else {
            return Ok(());
        };
        s.internal = false;
        if s.user == 0 {
            self.remove_site(addr)?;
        }
        Ok(())
    }

    /// Whether `addr` holds the debugger's internal breakpoint.
    pub fn is_internal_breakpoint(&self, addr: u64) -> bool {
        self.sites.get(&addr).is_some_and(|s| s.internal)
    }

    pub fn has_user_breakpoint(&self, addr: u64) -> bool {
        self.sites.get(&addr).is_some_and(|s| s.user > 0)
    }

    // ---------------------------------------------------------------- watchpoints

    /// Occupy a hardware slot watching `len` bytes at `addr`, on every thread (and every
    /// thread created later). Returns the slot.
    pub fn add_watchpoint(&mut self, addr: u64, len: usize, kind: WatchKind) -> Result<usize> {
        if !self.arch.watch_fits(addr, len) {
            return Err(EngineError::WatchUnsupported { addr, len });
        }
        let slot = self
            .watch
            .iter()
            .position(|s| s.is_none())
            .ok_or(EngineError::NoWatchSlot(self.arch.watch_slots))?;
        self.watch[slot] = Some((addr, kind, len));
        if let Err(e) = self.apply_watch_all() {
            self.watch[slot] = None;
            let _ = self.apply_watch_all();
            return Err(e);
        }
        Ok(slot)
    }

    pub fn remove_watchpoint(&mut self, slot: usize) -> Result<()> {
        if let Some(s) = self.watch.get_mut(slot)
            && let Some((addr, kind, _)) = s.take()
            && kind == WatchKind::Execute
        {
            // A hardware breakpoint's trap may still be pending in a thread that hit it at
            // the same time as the one reported: like a removed trap instruction, its address
            // stays moribund so that such a trap is run again, not reported as a SIGTRAP.
            self.moribund.insert(addr);
        }
        self.apply_watch_all()
    }

    /// Address, kind and length of a watch slot.
    pub fn watch_slot(&self, slot: usize) -> WatchSlot {
        self.watch.get(slot).copied().flatten()
    }

    fn apply_watch_all(&self) -> Result<()> {
        for t in self.threads.values() {
            if t.state == TState::Stopped {
                native::set_watch_slots(t.tid, &self.watch)?;
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- the event machine

    fn wait_any(&self) -> Result<WaitStatus> {
        self.bump_epoch();
        // Most stops we wait for (a single step, a breakpoint in a loop) come within
        // microseconds. Polling briefly before sleeping keeps this thread on its CPU: waking a
        // sleeping CPU costs far more than the stop itself (on virtual machines above all).
        let spin_until = std::time::Instant::now()
            + std::time::Duration::from_micros(
                SPIN_BEFORE_SLEEP_US.load(std::sync::atomic::Ordering::Relaxed),
            );
        loop {
            let spinning = std::time::Instant::now() < spin_until;
            let flags = if spinning {
                wait_flags() | WaitPidFlag::WNOHANG
            } else {
                wait_flags()
            };
            match crate::mux::wait_process(self.pid, Pid::from_raw(-1), flags) {
                Ok(WaitStatus::StillAlive) | Err(Errno::EINTR) => std::hint::spin_loop(),
                Err(Errno::ECHILD) => return Ok(WaitStatus::Exited(self.pid, 0)),
                Err(e) => {
                    return Err(EngineError::Ptrace {
                        op: "waitpid",
                        tid: -1,
                        err: e,
                    });
                }
                Ok(s) => return Ok(s),
            }
        }
    }

    fn resume_thread(&mut self, tid: i32) -> Result<()> {
        let Some(t) = self.threads.get_mut(&tid) else {
            return Ok(());
        };
        let sig = t.deliver.take().filter(|s| self.signals.get(s.raw()).pass);
        t.state = TState::Running;
        t.stepping = false;
        t.forget_registers();
        let (r, op) = match self.caught_syscalls {
            Some(_) if !self.syscalls_quiet => {
                (sigwait::cont_syscall(t.tid, sig), "PTRACE_SYSCALL")
            }
            _ => (sigwait::cont(t.tid, sig), "PTRACE_CONT"),
        };
        match r {
            Ok(()) | Err(Errno::ESRCH) => Ok(()),
            Err(e) => Err(EngineError::Ptrace { op, tid, err: e }),
        }
    }

    fn thread_started(&mut self, tid: i32, stopping: bool) -> Result<()> {
        if let Some(t) = self.threads.get_mut(&tid) {
            t.state = TState::Stopped;
            if let Some(tp) = self.arch.thread_pointer
                && let Ok(r) = native::read_gp(t.tid)
            {
                t.pointer = r.u64(tp);
            }
            let (num, pointer) = (t.num, t.pointer);
            let _ = native::set_watch_slots(Pid::from_raw(tid), &self.watch);
            self.notice(Notice::NewThread { tid, num, pointer });
            if !stopping {
                self.resume_thread(tid)?;
            }
        }
        Ok(())
    }

    fn thread_gone(&mut self, tid: i32) {
        if let Some(t) = self.threads.remove(&tid) {
            self.notice(Notice::ThreadExited {
                tid,
                num: t.num,
                pointer: t.pointer,
            });
        }
    }

    /// Process one wait status. Returns a stop worth reporting; the thread is then stopped.
    /// With `stopping`, threads that stop for internal reasons are left stopped.
    fn handle_status(&mut self, st: WaitStatus, stopping: bool) -> Result<Option<Stop>> {
        tracing::trace!(?st, stopping, "wait status");
        match st {
            WaitStatus::Exited(tid, code) => {
                if tid == self.pid {
                    self.gone = true;
                    self.threads.clear();
                    return Ok(Some(Stop {
                        tid: tid.as_raw(),
                        kind: StopKind::Exited(code),
                    }));
                }
                self.thread_gone(tid.as_raw());
                Ok(None)
            }
            WaitStatus::Signaled(tid, sig, _) => {
                if tid == self.pid {
                    self.gone = true;
                    self.threads.clear();
                    return Ok(Some(Stop {
                        tid: tid.as_raw(),
                        kind: StopKind::Killed(sig.raw()),
                    }));
                }
                self.thread_gone(tid.as_raw());
                Ok(None)
            }
            WaitStatus::PtraceEvent(tid, _, ev) => {
                self.handle_event(tid.as_raw(), st, ev, stopping)
            }
            WaitStatus::Stopped(tid, sig) => self.handle_signal(tid.as_raw(), sig, stopping),
            WaitStatus::PtraceSyscall(tid) => self.handle_syscall(tid.as_raw(), stopping),
            _ => Ok(None),
        }
    }

    fn handle_event(
        &mut self,
        tid: i32,
        st: WaitStatus,
        ev: i32,
        stopping: bool,
    ) -> Result<Option<Stop>> {
        if ev == Event::PTRACE_EVENT_CLONE as i32 {
            let new = ptrace::getevent(Pid::from_raw(tid))
                .map_err(perr("PTRACE_GETEVENTMSG", Pid::from_raw(tid)))?
                as i32;
            if !self.threads.contains_key(&new) {
                self.add_thread(Pid::from_raw(new), TState::Starting);
                if self.early.remove(&new) {
                    self.thread_started(new, stopping)?;
                }
            }
            if let Some(t) = self.threads.get_mut(&tid) {
                t.state = TState::Stopped;
                // The parent's thread pointer, once (the leader's is read nowhere else): its
                // `[Thread … exited]` line names it should another thread exec.
                if t.pointer == 0
                    && let Some(tp) = self.arch.thread_pointer
                    && let Ok(r) = native::read_gp(t.tid)
                {
                    t.pointer = r.u64(tp);
                }
            }
            if !stopping {
                self.resume_thread(tid)?;
            }
            return Ok(None);
        }
        if ev == Event::PTRACE_EVENT_EXEC as i32 {
            // Only the exec'ing thread survives, as the leader; the old image's breakpoints are gone.
            let keep = self.pid.as_raw();
            // The exec'ing thread's id before it took the leader's (the event's message).
            let former = ptrace::getevent(Pid::from_raw(tid))
                .ok()
                .map_or(keep, |v| v as i32);
            if former != keep && self.threads.contains_key(&former) {
                // Another thread than the leader exec'd: as gdb shows it, the leader exits
                // and the exec'ing thread comes back as a new thread with the leader's id.
                let old = self.threads.remove(&keep);
                let execing = self.threads.remove(&former);
                self.threads.clear();
                if let Some(o) = old {
                    self.notice(Notice::ThreadExited {
                        tid: keep,
                        num: o.num,
                        pointer: o.pointer,
                    });
                }
                if let Some(mut t) = execing {
                    t.tid = self.pid;
                    t.state = TState::Stopped;
                    t.num = self.next_num;
                    t.pointer = 0;
                    t.forget_registers();
                    self.next_num += 1;
                    let num = t.num;
                    self.threads.insert(keep, t);
                    self.notice(Notice::NewThread {
                        tid: keep,
                        num,
                        pointer: 0,
                    });
                }
            } else {
                let leader = self
                    .threads
                    .remove(&keep)
                    .or_else(|| self.threads.remove(&tid));
                self.threads.clear();
                if let Some(mut l) = leader {
                    l.tid = self.pid;
                    l.state = TState::Stopped;
                    l.forget_registers();
                    self.threads.insert(keep, l);
                }
            }
            self.sites.clear();
            self.dummies.borrow_mut().clear();
            self.lifted = false;
            self.watch.iter_mut().for_each(|w| *w = None);
            self.mem = ProcMem::new(self.pid);
            self.user_writes.borrow_mut().clear();
            let path = std::fs::read_link(format!("/proc/{keep}/exe")).unwrap_or_default();
            self.exe = path.clone();
            self.notice(Notice::Exec { pid: keep, path });
            // Reported even when no `catch exec` asks: the session loads the new program's
            // symbols and places the breakpoints in it before the program goes on.
            return Ok(Some(Stop {
                tid: keep,
                kind: StopKind::Exec,
            }));
        }
        if ev == Event::PTRACE_EVENT_STOP as i32 {
            let Some(t) = self.threads.get_mut(&tid) else {
                // A new thread's first stop can arrive before its parent's clone event.
                self.early.insert(tid);
                return Ok(None);
            };
            match t.state {
                TState::Starting => {
                    self.thread_started(tid, stopping)?;
                }
                _ if t.interrupting => {
                    t.interrupting = false;
                    // A trap the thread took just before the interrupt (it hit a breakpoint
                    // as another thread's stop interrupted it) is reported after this stop,
                    // once resumed: collect it now, as gdb does (its pc goes back over the
                    // breakpoint). Left queued, it would kill the program after a detach.
                    if sigwait::trap_queued(t.tid) && sigwait::cont(t.tid, None).is_ok() {
                        t.state = TState::Running;
                        t.forget_registers();
                        return Ok(None);
                    }
                    t.state = TState::Stopped;
                }
                _ => {
                    // A stale interrupt or a group-stop: keep the thread running.
                    t.state = TState::Stopped;
                    if !stopping {
                        self.resume_thread(tid)?;
                    }
                    let _ = st;
                }
            }
            return Ok(None);
        }
        if ev == Event::PTRACE_EVENT_FORK as i32 || ev == Event::PTRACE_EVENT_VFORK as i32 {
            let vfork = ev == Event::PTRACE_EVENT_VFORK as i32;
            match ptrace::getevent(Pid::from_raw(tid)) {
                Ok(child) if (vfork && self.catch_vfork) || (!vfork && self.catch_fork) => {
                    // Caught: the child waits (stopped, traced) until the process resumes.
                    self.release_held_fork();
                    self.held_fork = Some((child as i32, vfork));
                    if let Some(t) = self.threads.get_mut(&tid) {
                        t.state = TState::Stopped;
                    }
                    return Ok(Some(Stop {
                        tid,
                        kind: StopKind::Forked {
                            child: child as i32,
                            vfork,
                        },
                    }));
                }
                Ok(child) => self.let_fork_child_go(child as i32, vfork),
                Err(e) => tracing::warn!(tid, "fork event: PTRACE_GETEVENTMSG: {e}"),
            }
        } else if ev == Event::PTRACE_EVENT_VFORK_DONE as i32 {
            self.restore_lifted_sites();
        }
        // Other events (exit) are not requested; keep going.
        if let Some(t) = self.threads.get_mut(&tid) {
            t.state = TState::Stopped;
        }
        if !stopping {
            self.resume_thread(tid)?;
        }
        Ok(None)
    }

    fn handle_signal(&mut self, tid: i32, sig: Signo, stopping: bool) -> Result<Option<Stop>> {
        let arch = self.arch;
        let Some(t) = self.threads.get_mut(&tid) else {
            // Unknown thread: let it go with its signal.
            let _ = sigwait::cont(Pid::from_raw(tid), Some(sig));
            return Ok(None);
        };
        t.state = TState::Stopped;
        t.interrupting = false;
        let tpid = t.tid;
        if sig == Signo::SIGTRAP {
            let stepping = std::mem::replace(&mut t.stepping, false);
            let watching = self.watch.iter().any(Option::is_some);
            if watching && let Some(slot) = native::take_watch_hit(tpid)? {
                if let Some((addr, WatchKind::Execute, _)) = self.watch.get(slot).copied().flatten()
                {
                    // A hardware breakpoint: the pc is at the instruction, not past it, and
                    // resuming does not trap again (see `ArchInfo::hw_breakpoint_resumes`).
                    // Marked as at a breakpoint all the same: should a trap instruction be put
                    // here before it resumes, it is stepped over, not hit again.
                    if let Some(t) = self.threads.get_mut(&tid) {
                        t.at_breakpoint = true;
                    }
                    return Ok(Some(Stop {
                        tid,
                        kind: StopKind::Breakpoint(addr),
                    }));
                }
                return Ok(Some(Stop {
                    tid,
                    kind: StopKind::Watch { slot },
                }));
            }
            if stepping {
                return Ok(Some(Stop {
                    tid,
                    kind: StopKind::Step,
                }));
            }
            let pc = self.pc(tid)?;
            // A hardware breakpoint's trap whose debug status was cleared before it was read
            // (several threads hit it at once; the others' events wait while slots are
            // re-applied): the pc is at the breakpoint itself.
            // Also when the breakpoint has since moved from its debug register to a trap
            // instruction (or been deleted: then it is run again).
            // Only a trap at a breakpoint address needs the siginfo (a trap instruction's
            // trap leaves the pc after the instruction): one request less per breakpoint hit.
            let hw_here = self
                .watch
                .iter()
                .flatten()
                .any(|(a, k, _)| *k == WatchKind::Execute && *a == pc);
            let may_be_hw = self.sites.contains_key(&pc) || self.moribund.contains(&pc) || hw_here;
            let hw_trap =
                may_be_hw && ptrace::getsiginfo(tpid).is_ok_and(|si| si.si_code == TRAP_HWBKPT);
            if hw_trap && self.moribund.contains(&pc) && !self.sites.contains_key(&pc) && !hw_here {
                if !stopping {
                    self.resume_thread(tid)?;
                }
                return Ok(None);
            }
            if hw_trap && (self.sites.contains_key(&pc) || hw_here) {
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.at_breakpoint = true;
                }
                return Ok(Some(Stop {
                    tid,
                    kind: StopKind::Breakpoint(pc),
                }));
            }
            let at = pc.wrapping_sub(arch.pc_after_breakpoint);
            if self.sites.contains_key(&at) || self.dummy_trap_at(at) {
                if arch.pc_after_breakpoint != 0 {
                    self.set_pc(tid, at)?;
                }
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.at_breakpoint = true;
                }
                return Ok(Some(Stop {
                    tid,
                    kind: StopKind::Breakpoint(at),
                }));
            }
            if self.moribund.contains(&at) {
                // The trap of a breakpoint removed since: run the instruction again.
                if arch.pc_after_breakpoint != 0 {
                    self.set_pc(tid, at)?;
                }
                if !stopping {
                    self.resume_thread(tid)?;
                }
                return Ok(None);
            }
        }
        // The return of a call left in its function to its trap on a stack that is not
        // executable: the fetch there faults (see `CallConv::return_on_stack`).
        if sig == Signo::SIGSEGV && !self.dummies.borrow().is_empty() {
            let pc = self.pc(tid)?;
            if self.dummy_trap_at(pc) {
                return Ok(Some(Stop {
                    tid,
                    kind: StopKind::Breakpoint(pc),
                }));
            }
        }
        let d = self.signals.get(sig.raw());
        let Some(t) = self.threads.get_mut(&tid) else {
            return Ok(None);
        };
        t.deliver = Some(sig);
        let caught = self.caught_signals.contains(&sig.raw())
            || (self.catch_all_signals && sig != Signo::SIGTRAP && sig.raw() != libc::SIGINT);
        if d.stop || caught {
            return Ok(Some(Stop {
                tid,
                kind: StopKind::Signal(sig.raw()),
            }));
        }
        if d.print {
            let num = t.num;
            let name = self.thread_name(tid);
            let threaded = self.highest_thread_num() > 1;
            self.notice(Notice::SignalPrinted {
                tid,
                signo: sig.raw(),
                num,
                name,
                threaded,
            });
        }
        if !stopping {
            self.resume_thread(tid)?;
        }
        Ok(None)
    }

    /// A system call entry or exit stop of `tid`: reported when [`Self::caught_syscalls`]
    /// asks for that call, else the thread goes on (unless `stopping`).
    fn handle_syscall(&mut self, tid: i32, stopping: bool) -> Result<Option<Stop>> {
        let info = sigwait::syscall_info(Pid::from_raw(tid));
        let Some(t) = self.threads.get_mut(&tid) else {
            let _ = sigwait::cont(Pid::from_raw(tid), None);
            return Ok(None);
        };
        t.state = TState::Stopped;
        t.interrupting = false;
        let (nr, entry) = match info {
            Some((nr, true)) => {
                t.syscall_nr = Some(nr);
                (Some(nr), true)
            }
            Some((_, false)) => (t.syscall_nr.take(), false),
            None => (None, false),
        };
        let caught = match (&self.caught_syscalls, nr) {
            (Some(list), Some(nr)) => list.is_empty() || list.contains(&nr),
            _ => false,
        };
        if let (true, Some(nr)) = (caught, nr) {
            return Ok(Some(Stop {
                tid,
                kind: StopKind::Syscall { nr, entry },
            }));
        }
        if !stopping {
            self.resume_thread(tid)?;
        }
        Ok(None)
    }

    /// Wait until every thread is stopped, collecting other threads' events as pending.
    fn wait_all_stopped(&mut self) -> Result<Option<Stop>> {
        while self.threads.values().any(|t| t.state != TState::Stopped) {
            let st = self.wait_any()?;
            if let Some(stop) = self.handle_status(st, true)? {
                if matches!(stop.kind, StopKind::Exited(_) | StopKind::Killed(_)) {
                    return Ok(Some(stop));
                }
                if let Some(t) = self.threads.get_mut(&stop.tid) {
                    t.pending = Some(stop.kind);
                }
            }
        }
        Ok(None)
    }

    /// All-stop: interrupt every running thread and wait for all of them.
    fn stop_all(&mut self) -> Result<Option<Stop>> {
        for t in self.threads.values_mut() {
            if t.state == TState::Running {
                match ptrace::interrupt(t.tid) {
                    Ok(()) => t.interrupting = true,
                    // Exiting: its exit status will come.
                    Err(Errno::ESRCH) => t.interrupting = true,
                    Err(e) => {
                        return Err(EngineError::Ptrace {
                            op: "PTRACE_INTERRUPT",
                            tid: t.tid.as_raw(),
                            err: e,
                        });
                    }
                }
            }
        }
        self.wait_all_stopped()
    }

    fn take_pending(&mut self, only: Option<i32>) -> Option<Stop> {
        for t in self.threads.values_mut() {
            if only.is_some_and(|o| o != t.tid.as_raw()) {
                continue;
            }
            match t.pending.take() {
                // The hit of a breakpoint deleted since it was collected: the thread's pc is
                // at the instruction (a trap instruction's hit was already moved back), so it
                // simply runs on with the others, as gdb drops such events.
                Some(StopKind::Breakpoint(addr))
                    if !self.sites.contains_key(&addr)
                        && !self
                            .watch
                            .iter()
                            .flatten()
                            .any(|(a, k, _)| *k == WatchKind::Execute && *a == addr) =>
                {
                    t.at_breakpoint = false;
                }
                Some(kind) => {
                    return Some(Stop {
                        tid: t.tid.as_raw(),
                        kind,
                    });
                }
                None => {}
            }
        }
        None
    }

    /// Step `tid` (alone) over the breakpoint at its PC: remove, step, re-insert.
    fn step_over(&mut self, tid: i32) -> Result<Option<Stop>> {
        let pc = self.pc(tid)?;
        // While a vfork child runs, the traps are out already (and stay out: the step may
        // itself be the vfork).
        let saved = match self.lifted {
            true => None,
            false => self.sites.get(&pc).map(|s| s.orig.clone()),
        };
        if let Some(orig) = &saved {
            self.mem.write(pc, orig)?;
        }
        let r = self.single_step_raw(tid);
        if saved.is_some() && !self.lifted {
            self.mem.write(pc, self.arch.breakpoint_insn)?;
        }
        if let Some(t) = self.threads.get_mut(&tid) {
            t.at_breakpoint = false;
        }
        r
    }

    /// Single-step `tid` with every other thread held; returns its stop (Step or another).
    fn single_step_raw(&mut self, tid: i32) -> Result<Option<Stop>> {
        let t = self
            .threads
            .get_mut(&tid)
            .ok_or(EngineError::NoThread(tid as usize))?;
        t.stepping = true;
        t.state = TState::Running;
        t.forget_registers();
        let sig = t.deliver.take().filter(|s| self.signals.get(s.raw()).pass);
        sigwait::step(t.tid, sig).map_err(perr("PTRACE_SINGLESTEP", t.tid))?;
        loop {
            let st = self.wait_any()?;
            let stop = self.handle_status(st, true)?;
            if let Some(s) = stop {
                if s.tid == tid || matches!(s.kind, StopKind::Exited(_) | StopKind::Killed(_)) {
                    return Ok(Some(s));
                }
                if let Some(t) = self.threads.get_mut(&s.tid) {
                    t.pending = Some(s.kind);
                }
            }
            match self.threads.get_mut(&tid) {
                None => return Ok(None),
                Some(t) if t.state == TState::Stopped => {
                    // Stopped for something internal (a clone event, a passed signal) before
                    // the step finished: keep stepping.
                    t.stepping = true;
                    t.state = TState::Running;
                    t.forget_registers();
                    let sig = t.deliver.take().filter(|s| self.signals.get(s.raw()).pass);
                    match sigwait::step(t.tid, sig) {
                        Ok(()) => {}
                        Err(Errno::ESRCH) => return Ok(None),
                        Err(e) => {
                            return Err(EngineError::Ptrace {
                                op: "PTRACE_SINGLESTEP",
                                tid,
                                err: e,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Resume every thread and run until something worth reporting happens; then every
    /// thread is stopped again (all-stop).
    pub fn cont(&mut self) -> Result<Stop> {
        if self.gone {
            return Err(EngineError::NotRunning);
        }
        self.release_held_fork();
        self.adopt_call_stops();
        if let Some(s) = self.take_pending(None) {
            return Ok(s);
        }
        let at_bp: Vec<i32> = self
            .threads
            .values()
            .filter(|t| t.state == TState::Stopped && t.at_breakpoint)
            .map(|t| t.tid.as_raw())
            .collect();
        for tid in at_bp {
            let pc = self.pc(tid)?;
            if !self.sites.contains_key(&pc) {
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.at_breakpoint = false;
                }
                continue;
            }
            if let Some(s) = self.step_over(tid)?
                && s.kind != StopKind::Step
            {
                return Ok(s);
            }
        }
        let stopped: Vec<i32> = self
            .threads
            .values()
            .filter(|t| t.state == TState::Stopped)
            .map(|t| t.tid.as_raw())
            .collect();
        for tid in stopped {
            self.resume_thread(tid)?;
        }
        loop {
            let st = self.wait_any()?;
            if let Some(stop) = self.handle_status(st, false)? {
                if matches!(stop.kind, StopKind::Exited(_) | StopKind::Killed(_)) {
                    return Ok(stop);
                }
                if let Some(exit) = self.stop_all()? {
                    return Ok(exit);
                }
                return Ok(stop);
            }
        }
    }

    /// Execute one instruction in `tid` while the other threads stay stopped.
    pub fn step_instruction(&mut self, tid: i32) -> Result<Stop> {
        if self.gone {
            return Err(EngineError::NotRunning);
        }
        self.release_held_fork();
        self.adopt_call_stops();
        if let Some(s) = self.take_pending(Some(tid)) {
            return Ok(s);
        }
        let t = self.thread(tid)?;
        let over = t.at_breakpoint || self.sites.contains_key(&self.pc(tid)?);
        let r = if over {
            self.step_over(tid)?
        } else {
            self.single_step_raw(tid)?
        };
        let stop = r.unwrap_or(Stop {
            tid,
            kind: StopKind::Step,
        });
        if stop.kind == StopKind::Step {
            // Arriving on a user breakpoint counts as hitting it, as in gdb.
            let pc = self.pc(tid)?;
            if self.has_user_breakpoint(pc) {
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.at_breakpoint = true;
                }
                return Ok(Stop {
                    tid,
                    kind: StopKind::Breakpoint(pc),
                });
            }
        }
        Ok(stop)
    }

    /// The raw `siginfo_t` of the signal `tid` stopped with (128 bytes on Linux), for
    /// `$_siginfo`.
    pub fn siginfo_bytes(&self, tid: i32) -> Result<Vec<u8>> {
        self.thread(tid)?;
        let mut bytes = vec![0u8; 128];
        // SAFETY: PTRACE_GETSIGINFO writes one siginfo_t (128 bytes on Linux) to the buffer,
        // which is 128 bytes long; `tid` is a thread this process traces and has stopped.
        let r = unsafe {
            libc::ptrace(
                libc::PTRACE_GETSIGINFO,
                tid,
                std::ptr::null_mut::<libc::c_void>(),
                bytes.as_mut_ptr().cast::<libc::c_void>(),
            )
        };
        if r < 0 {
            return Err(EngineError::Ptrace {
                op: "PTRACE_GETSIGINFO",
                tid,
                err: nix::Error::last(),
            });
        }
        Ok(bytes)
    }

    /// The faulting address of the signal `tid` stopped with (SIGSEGV, SIGBUS, SIGFPE, SIGILL).
    pub fn fault_address(&self, tid: i32) -> Result<Option<u64>> {
        self.thread(tid)?;
        let si = ptrace::getsiginfo(Pid::from_raw(tid))
            .map_err(perr("PTRACE_GETSIGINFO", Pid::from_raw(tid)))?;
        match si.si_signo {
            libc::SIGSEGV | libc::SIGBUS | libc::SIGFPE | libc::SIGILL => {
                // SAFETY: for these signals the kernel fills the fault-address member.
                Ok(Some(unsafe { si.si_addr() } as u64))
            }
            _ => Ok(None),
        }
    }

    /// Forget a reported signal so that it is not delivered on resume (gdb's `signal 0`).
    pub fn discard_signal(&mut self, tid: i32) {
        if let Some(t) = self.threads.get_mut(&tid) {
            t.deliver = None;
        }
    }

    /// Without waiting: whether the stopped process has died meanwhile (killed from outside:
    /// SIGKILL ends a process even in a ptrace stop). Returns its end; other events that came
    /// are kept pending, as while stopping. Nothing is resumed.
    pub fn poll_gone(&mut self) -> Result<Option<Stop>> {
        if self.gone {
            return Ok(None);
        }
        if let Some(st) = self.call_ended.take() {
            return self.handle_status(st, true);
        }
        loop {
            let flags = wait_flags() | WaitPidFlag::WNOHANG;
            let st = match crate::mux::wait_process(self.pid, Pid::from_raw(-1), flags) {
                Ok(WaitStatus::StillAlive) => return Ok(None),
                Err(Errno::EINTR) => continue,
                Err(Errno::ECHILD) => WaitStatus::Exited(self.pid, 0),
                Err(e) => {
                    return Err(EngineError::Ptrace {
                        op: "waitpid",
                        tid: -1,
                        err: e,
                    });
                }
                Ok(st) => st,
            };
            if let Some(stop) = self.handle_status(st, true)? {
                if matches!(stop.kind, StopKind::Exited(_) | StopKind::Killed(_)) {
                    return Ok(Some(stop));
                }
                if let Some(t) = self.threads.get_mut(&stop.tid) {
                    t.pending = Some(stop.kind);
                }
            }
        }
    }

    /// Kill the process and reap it.
    pub fn kill(&mut self) -> Result<()> {
        if self.gone {
            return Ok(());
        }
        self.release_held_fork();
        let _ = signal::kill(self.pid, Signal::SIGKILL);
        loop {
            match crate::mux::wait_process(self.pid, Pid::from_raw(-1), wait_flags()) {
                Ok(WaitStatus::Exited(p, _)) | Ok(WaitStatus::Signaled(p, _, _))
                    if p == self.pid =>
                {
                    break;
                }
                Ok(WaitStatus::Exited(p, _)) | Ok(WaitStatus::Signaled(p, _, _)) => {
                    self.threads.remove(&p.as_raw());
                }
                Ok(_) => {}
                Err(Errno::EINTR) => {}
                Err(_) => break,
            }
        }
        self.threads.clear();
        self.gone = true;
        Ok(())
    }

    /// Remove every breakpoint and watchpoint and let the process run on untraced, with any
    /// signal it was about to receive.
    pub fn detach(&mut self) -> Result<()> {
        if self.gone {
            return Ok(());
        }
        self.release_held_fork();
        // Calls left in their functions are unwound first: their return trap goes away.
        self.pop_all_dummies();
        let addrs: Vec<u64> = self.sites.keys().copied().collect();
        for a in addrs {
            self.remove_site(a)?;
        }
        self.watch.iter_mut().for_each(|w| *w = None);
        for t in self.threads.values_mut() {
            if t.state == TState::Stopped {
                let _ = native::set_watch_slots(t.tid, &[None, None, None, None]);
                // A pending signal stop was never delivered: hand it back.
                if let Some(StopKind::Signal(s)) = t.pending.take() {
                    t.deliver = Signo::new(s);
                }
                let sig = t.deliver.take().filter(|s| self.signals.get(s.raw()).pass);
                let _ = sigwait::detach(t.tid, sig);
            }
        }
        self.threads.clear();
        self.gone = true;
        Ok(())
    }
}

impl MemoryRead for Process {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        self.read_memory(addr, buf)
    }

    fn code_unchanged(&self, addr: u64, len: usize) -> bool {
        self.unwritten(addr, len)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if !self.gone {
            if self.launched {
                let _ = self.kill();
            } else {
                let _ = self.detach();
            }
        }
    }
}
