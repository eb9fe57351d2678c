//! MPIR process acquisition: drive a launcher (`mpirun`, `srun`) to `MPIR_Breakpoint` and read
//! its process table. See the crate documentation for what each launcher does.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use cohort_engine::session::{Event, Session};
use cohort_engine::tracer::Tracer;

use crate::error::LaunchError;
use crate::proc_util;

/// How long each step of an acquisition may take before it is given up.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// `MPIR_debug_state` values (MPIR specification, section 9.2).
const MPIR_DEBUG_SPAWNED: i32 = 1;
const MPIR_DEBUG_ABORTING: i32 = 2;

/// More ranks than this in a table is taken as garbage.
const MAX_PROCS: i32 = 1 << 22;
/// Longest host or executable name read from the table.
const MAX_STRING: usize = 4096;

/// One rank of the job, from the launcher's `MPIR_proctable`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcDesc {
    pub rank: u32,
    pub host: String,
    pub executable: PathBuf,
    pub pid: i32,
}

/// Which launcher serves the MPIR interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    /// Open MPI's `mpirun` (the symbols live in `libopen-rte`).
    OpenMpi,
    /// Slurm's `srun`.
    Slurm,
    /// Another launcher exporting the MPIR symbols.
    Other,
}

/// A launcher held at `MPIR_Breakpoint` (or attached after it), with its process table.
pub struct MpirJob {
    tracer: Tracer<Session>,
    launcher: Launcher,
    pid: i32,
    procs: Vec<ProcDesc>,
    launched: bool,
}

impl std::fmt::Debug for MpirJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpirJob")
            .field("launcher", &self.launcher)
            .field("pid", &self.pid)
            .field("procs", &self.procs)
            .field("launched", &self.launched)
            .finish()
    }
}

impl MpirJob {
    /// The ranks, index = rank.
    pub fn procs(&self) -> &[ProcDesc] {
        &self.procs
    }

    pub fn launcher_pid(&self) -> i32 {
        self.pid
    }

    pub fn launcher(&self) -> Launcher {
        self.launcher
    }

    /// Let the launcher go on (detach from it, it keeps running and will reap the job).
    pub fn release(self) -> Result<(), LaunchError> {
        self.release_launcher().map(drop)
    }

    /// Like [`MpirJob::release`], returning a handle to wait for a launcher this crate started.
    pub fn release_launcher(self) -> Result<LauncherHandle, LaunchError> {
        let MpirJob {
            tracer,
            pid,
            launched,
            ..
        } = self;
        tracer.call(|s| s.detach().map(drop))??;
        Ok(LauncherHandle {
            pid,
            launched,
            reaped: None,
            // A launcher we started gets SIGTERM when the thread that started it ends: that
            // thread stays until the handle goes.
            _parent: launched.then_some(tracer),
        })
    }
}

/// A released launcher. For one this crate started (its child), [`LauncherHandle::wait`] gives
/// its exit status; dropped unwaited, it is reaped in the background. A launcher this crate
/// started gets SIGTERM when its handle is dropped or the process ends, however it ends.
pub struct LauncherHandle {
    pid: i32,
    launched: bool,
    reaped: Option<i32>,
    _parent: Option<Tracer<Session>>,
}

impl std::fmt::Debug for LauncherHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LauncherHandle")
            .field("pid", &self.pid)
            .field("launched", &self.launched)
            .field("reaped", &self.reaped)
            .finish()
    }
}

impl LauncherHandle {
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Tell a launcher this crate started that the job ends (SIGTERM): Open MPI's `mpirun`
    /// then ends its daemons and ranks and exits without a word, `srun` cancels its step. A
    /// launcher that was attached to is left alone.
    pub fn ask_to_end(&self) {
        if self.launched && self.reaped.is_none() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(self.pid),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }

    /// Wait up to `grace` for a launcher this crate started to exit; then kill it and whatever
    /// it started. Its exit code (as [`LauncherHandle::wait`]). An attached launcher is only
    /// waited for.
    pub fn end_within(&mut self, grace: Duration) -> Result<i32, LaunchError> {
        match self.wait(grace) {
            Err(LaunchError::Timeout { .. }) if self.launched => {
                proc_util::kill_with_descendants(self.pid);
                self.wait(Duration::from_secs(5))
            }
            r => r,
        }
    }

    /// Wait for a launched launcher to exit: its exit code, or 128 + signal number when it
    /// was killed. For an attached launcher (not our child) this waits for it to disappear
    /// and returns 0.
    pub fn wait(&mut self, timeout: Duration) -> Result<i32, LaunchError> {
        if let Some(c) = self.reaped {
            return Ok(c);
        }
        let deadline = Instant::now() + timeout;
        loop {
            if self.launched {
                if let Some(code) = proc_util::try_reap(self.pid)? {
                    self.reaped = Some(code);
                    return Ok(code);
                }
            } else if !proc_util::exists(self.pid) {
                self.reaped = Some(0);
                return Ok(0);
            }
            if Instant::now() >= deadline {
                return Err(LaunchError::Timeout {
                    what: format!("the launcher (pid {}) to exit", self.pid),
                    secs: timeout.as_secs(),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for LauncherHandle {
    fn drop(&mut self) {
        if self.launched && self.reaped.is_none() {
            let pid = self.pid;
            // Nobody will ask for the status: reap it when it comes so no zombie is left.
            let _ = std::thread::Builder::new()
                .name("cohort-reap".into())
                .spawn(move || proc_util::reap_blocking(pid));
        }
    }
}

/// Start `argv` (e.g. `["mpirun","-np","4","./prog"]` or `["srun","-n","4","./prog"]`) under
/// control, set `MPIR_being_debugged`, run to `MPIR_Breakpoint`, read the table.
pub fn launch_mpir(
    argv: &[OsString],
    env_extra: &[(OsString, OsString)],
) -> Result<MpirJob, LaunchError> {
    launch_mpir_timeout(argv, env_extra, DEFAULT_TIMEOUT)
}

/// [`launch_mpir`] with a chosen timeout for each wait.
pub fn launch_mpir_timeout(
    argv: &[OsString],
    env_extra: &[(OsString, OsString)],
    timeout: Duration,
) -> Result<MpirJob, LaunchError> {
    launch_mpir_with(argv, env_extra, timeout, true)
}

/// [`launch_mpir_timeout`], with the launcher's (and so its ranks') address-space
/// randomisation off or not (gdb's `set disable-randomization`).
pub fn launch_mpir_with(
    argv: &[OsString],
    env_extra: &[(OsString, OsString)],
    timeout: Duration,
    disable_randomization: bool,
) -> Result<MpirJob, LaunchError> {
    let (program, args) = argv.split_first().ok_or(LaunchError::EmptyCommand)?;
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    for (k, v) in env_extra {
        env.retain(|(ek, _)| ek != k);
        env.push((k.clone(), v.clone()));
    }
    // Open MPI prints a banner about MPIR being deprecated unless told not to.
    if !env.iter().any(|(k, _)| k == "OMPI_MPIR_DO_NOT_WARN") {
        env.push(("OMPI_MPIR_DO_NOT_WARN".into(), "1".into()));
    }
    let program = PathBuf::from(program);
    let args = args.to_vec();
    // `mpirun` and `srun` forward their standard input to rank 0: given the debugger's, they
    // would take the user's commands.
    let null = std::fs::File::open("/dev/null")
        .map_err(crate::error::io_err("opening /dev/null for the launcher"))?;
    let tracer = Tracer::spawn("cohort-launcher", Session::new).map_err(crate::error::io_err(
        "starting the launcher's tracer thread",
    ))?;
    let r = tracer.call(move |s| {
        s.load_program(&program)?;
        s.args = args;
        s.env = Some(env);
        s.fds = vec![(std::sync::Arc::new(std::os::fd::OwnedFd::from(null)), 0)];
        // However the debugger ends (SIGKILL included), the launcher is told the job ends: the
        // tracer thread that starts it lives as long as its `LauncherHandle`.
        s.death_signal = Some(libc::SIGTERM);
        s.startup_with_shell = false;
        // Address-space randomisation off by default, as gdb runs a program (and the local
        // launcher its ranks): `mpirun`'s ranks inherit it, so their addresses, and the frame
        // lines that show them, are the same from rank to rank and run to run.
        s.disable_randomization = disable_randomization;
        s.start_process()?;
        let pid = s.pid().ok_or(cohort_engine::EngineError::NotRunning)?;
        let r = run_to_breakpoint(s, pid, timeout);
        if r.is_err() {
            kill_launcher(s, pid);
        }
        r.map(|(launcher, procs)| (pid, launcher, procs))
    })?;
    let (pid, launcher, procs) = r?;
    Ok(MpirJob {
        tracer,
        launcher,
        pid,
        procs,
        launched: true,
    })
}

/// A launcher already running (`cohort attach --mpirun PID` / `--srun PID`): attach, read the
/// table (running it to `MPIR_Breakpoint` first if it has not spawned the job yet).
pub fn attach_mpir(pid: i32) -> Result<MpirJob, LaunchError> {
    attach_mpir_timeout(pid, DEFAULT_TIMEOUT)
}

/// [`attach_mpir`] with a chosen timeout.
pub fn attach_mpir_timeout(pid: i32, timeout: Duration) -> Result<MpirJob, LaunchError> {
    let tracer = Tracer::spawn("cohort-launcher", Session::new).map_err(crate::error::io_err(
        "starting the launcher's tracer thread",
    ))?;
    let r = tracer.call(move |s| {
        s.attach(pid)?;
        let r = attached_table(s, pid, timeout);
        if r.is_err() {
            let _ = s.detach();
        }
        r
    })?;
    let (launcher, procs) = r?;
    Ok(MpirJob {
        tracer,
        launcher,
        pid,
        procs,
        launched: false,
    })
}

/// Addresses of the MPIR symbols in the launcher.
struct MpirSyms {
    being_debugged: u64,
    breakpoint: u64,
    debug_state: u64,
    table: u64,
    table_size: u64,
    launcher: Launcher,
}

/// Runtime address of a defined symbol and the file defining it.
pub(crate) fn lookup(s: &Session, name: &str) -> Option<(u64, PathBuf)> {
    s.symbols().objects().find_map(|o| {
        o.file
            .lookup_exact(name)
            .filter(|sym| sym.addr != 0)
            .map(|sym| (sym.addr.wrapping_add(o.bias), o.file.path.clone()))
    })
}

fn mpir_symbols(s: &Session) -> Result<MpirSyms, LaunchError> {
    let path = s
        .process()
        .map(|p| p.exe().to_path_buf())
        .unwrap_or_default();
    let need = |name: &'static str| {
        lookup(s, name).ok_or_else(|| LaunchError::NoMpir {
            path: path.clone(),
            symbol: name,
        })
    };
    let (breakpoint, file) = need("MPIR_Breakpoint")?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let exe_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let launcher = if name.starts_with("libopen-rte") {
        Launcher::OpenMpi
    } else if exe_name == "srun" || lookup(s, "mpir_set_executable_names").is_some() {
        Launcher::Slurm
    } else {
        Launcher::Other
    };
    Ok(MpirSyms {
        being_debugged: need("MPIR_being_debugged")?.0,
        breakpoint,
        debug_state: need("MPIR_debug_state")?.0,
        table: need("MPIR_proctable")?.0,
        table_size: need("MPIR_proctable_size")?.0,
        launcher,
    })
}

fn read_i32(s: &Session, addr: u64) -> Result<i32, LaunchError> {
    let mut b = [0u8; 4];
    s.read_memory(addr, &mut b)?;
    Ok(i32::from_ne_bytes(b))
}

fn read_ptr(s: &Session, addr: u64) -> Result<u64, LaunchError> {
    let n = s.arch().ptr_size;
    let mut b = [0u8; 8];
    let buf = b.get_mut(..n).ok_or_else(|| {
        LaunchError::Engine(cohort_engine::EngineError::Other(format!(
            "unsupported pointer size {n}"
        )))
    })?;
    s.read_memory(addr, buf)?;
    Ok(if n == 4 {
        u64::from(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    } else {
        u64::from_ne_bytes(b)
    })
}

fn read_cstr(s: &Session, addr: u64) -> Result<String, LaunchError> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 64];
    while out.len() < MAX_STRING {
        let a = addr + out.len() as u64;
        // Do not read across a page: the string may end just before an unmapped one.
        let room = 4096 - (a % 4096) as usize;
        let n = room.min(chunk.len());
        let buf = &mut chunk[..n];
        s.read_memory(a, buf)?;
        match buf.iter().position(|&c| c == 0) {
            Some(i) => {
                out.extend_from_slice(&buf[..i]);
                return Ok(String::from_utf8_lossy(&out).into_owned());
            }
            None => out.extend_from_slice(buf),
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn read_table(s: &Session, pid: i32, syms: &MpirSyms) -> Result<Vec<ProcDesc>, LaunchError> {
    let bad = |msg: String| LaunchError::BadTable { pid, msg };
    let size = read_i32(s, syms.table_size)?;
    if size <= 0 || size > MAX_PROCS {
        return Err(bad(format!("MPIR_proctable_size is {size}")));
    }
    let table = read_ptr(s, syms.table)?;
    if table == 0 {
        return Err(bad("MPIR_proctable is NULL".into()));
    }
    let ps = s.arch().ptr_size as u64;
    // struct MPIR_PROCDESC { char *host_name; char *executable_name; int pid; }
    let entry = (2 * ps + 4).div_ceil(ps) * ps;
    let mut procs = Vec::with_capacity((size as usize).min(4096));
    for rank in 0..size as u32 {
        let e = table + u64::from(rank) * entry;
        let host = read_ptr(s, e)?;
        let exe = read_ptr(s, e + ps)?;
        let rpid = read_i32(s, e + 2 * ps)?;
        if rpid <= 0 {
            return Err(bad(format!("rank {rank} has pid {rpid}")));
        }
        let host = if host == 0 {
            String::new()
        } else {
            read_cstr(s, host)?
        };
        let executable = if exe == 0 {
            PathBuf::new()
        } else {
            PathBuf::from(read_cstr(s, exe)?)
        };
        procs.push(ProcDesc {
            rank,
            host,
            executable,
            pid: rpid,
        });
    }
    Ok(procs)
}

/// A watchdog that interrupts (SIGINT, which the session stops on and does not pass) the
/// launcher when a wait takes too long.
struct Watchdog {
    state: Arc<(Mutex<(bool, bool)>, Condvar)>,
}

impl Watchdog {
    fn start(pid: i32, timeout: Duration) -> Watchdog {
        let state = Arc::new((Mutex::new((false, false)), Condvar::new()));
        let st = state.clone();
        // Without a thread there is no safety net; the wait goes on all the same.
        let _ = std::thread::Builder::new()
            .name("cohort-watchdog".into())
            .spawn(move || {
                let (m, cv) = &*st;
                let g = m.lock().unwrap_or_else(|e| e.into_inner());
                let (mut g, _) = cv
                    .wait_timeout_while(g, timeout, |(done, _)| !*done)
                    .unwrap_or_else(|e| e.into_inner());
                if !g.0 {
                    g.1 = true;
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGINT,
                    );
                }
            });
        Watchdog { state }
    }

    /// Stop the watchdog; whether it fired.
    fn finish(self) -> bool {
        let (m, cv) = &*self.state;
        let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
        g.0 = true;
        cv.notify_all();
        g.1
    }
}

/// Continue the launcher until an event, at most `timeout`. `Ok(None)`: timed out (the
/// launcher is stopped again).
pub(crate) fn cont_timeout(
    s: &mut Session,
    pid: i32,
    timeout: Duration,
) -> Result<Option<Event>, LaunchError> {
    let dog = Watchdog::start(pid, timeout);
    let ev = s.cont();
    let fired = dog.finish();
    let ev = ev?;
    if !fired {
        return Ok(Some(ev));
    }
    // The watchdog's SIGINT may still be on its way: take it so it never reaches the launcher.
    let mut ev = ev;
    for _ in 0..8 {
        match ev {
            Event::Signal { signo, .. } if signo == libc::SIGINT => return Ok(None),
            Event::Exited { .. } | Event::Killed { .. } => return Ok(Some(ev)),
            _ => ev = s.cont()?,
        }
    }
    Ok(None)
}

fn launcher_gone(pid: i32, ev: &Event) -> Option<LaunchError> {
    match *ev {
        Event::Exited { code, .. } => Some(LaunchError::LauncherExited { pid, code }),
        Event::Killed { signo, .. } => Some(LaunchError::LauncherKilled { pid, signo }),
        _ => None,
    }
}

fn timed_out(what: &str, timeout: Duration) -> LaunchError {
    LaunchError::Timeout {
        what: what.into(),
        secs: timeout.as_secs(),
    }
}

/// Continue until the step breakpoint at `addr` is reached.
fn run_until(
    s: &mut Session,
    pid: i32,
    addr: u64,
    what: &str,
    timeout: Duration,
) -> Result<(), LaunchError> {
    let deadline = Instant::now() + timeout;
    s.set_step_breakpoint(addr)?;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(ev) = cont_timeout(s, pid, left)? else {
            return Err(timed_out(what, timeout));
        };
        if let Some(e) = launcher_gone(pid, &ev) {
            return Err(e);
        }
        match ev {
            Event::StepBreakpoint { pc, .. } if pc == addr => {
                s.clear_step_breakpoints()?;
                return Ok(());
            }
            // Other stops (signals the launcher gets) are passed on as the table says.
            _ => {}
        }
    }
}

/// Launched launcher stopped at its first instruction: to its entry point (libraries
/// loaded), set `MPIR_being_debugged`, run to `MPIR_Breakpoint`, read the table.
fn run_to_breakpoint(
    s: &mut Session,
    pid: i32,
    timeout: Duration,
) -> Result<(Launcher, Vec<ProcDesc>), LaunchError> {
    let entry = s
        .symbols()
        .main()
        .map(|m| m.file.entry().wrapping_add(m.bias))
        .ok_or_else(|| {
            LaunchError::Engine(cohort_engine::EngineError::Other(
                "the launcher has no entry point".into(),
            ))
        })?;
    run_until(s, pid, entry, "the launcher to start", timeout)?;
    let syms = mpir_symbols(s)?;
    s.write_memory(syms.being_debugged, &1i32.to_ne_bytes())?;
    run_until(
        s,
        pid,
        syms.breakpoint,
        "the launcher to spawn the job (MPIR_Breakpoint)",
        timeout,
    )?;
    spawned_table(s, pid, &syms).map(|t| (syms.launcher, t))
}

fn spawned_table(s: &Session, pid: i32, syms: &MpirSyms) -> Result<Vec<ProcDesc>, LaunchError> {
    match read_i32(s, syms.debug_state)? {
        MPIR_DEBUG_SPAWNED => read_table(s, pid, syms),
        MPIR_DEBUG_ABORTING => Err(LaunchError::JobAborting { pid }),
        st => Err(LaunchError::BadTable {
            pid,
            msg: format!("MPIR_Breakpoint reached with MPIR_debug_state {st}"),
        }),
    }
}

/// Attached launcher: the table if it is there, else run it to `MPIR_Breakpoint`.
fn attached_table(
    s: &mut Session,
    pid: i32,
    timeout: Duration,
) -> Result<(Launcher, Vec<ProcDesc>), LaunchError> {
    let syms = mpir_symbols(s)?;
    if read_i32(s, syms.debug_state)? == MPIR_DEBUG_SPAWNED && read_i32(s, syms.table_size)? > 0 {
        return read_table(s, pid, &syms).map(|t| (syms.launcher, t));
    }
    s.write_memory(syms.being_debugged, &1i32.to_ne_bytes())?;
    // Open MPI builds its table for a late debugger when a byte arrives on its attach fifo.
    if let Ok((fifo_addr, _)) = lookup(s, "MPIR_attach_fifo").ok_or(()) {
        let fifo = read_cstr(s, fifo_addr)?;
        if !fifo.is_empty() {
            proc_util::poke_fifo(Path::new(&fifo))?;
        }
    }
    run_until(
        s,
        pid,
        syms.breakpoint,
        "the launcher to spawn the job (MPIR_Breakpoint)",
        timeout,
    )?;
    spawned_table(s, pid, &syms).map(|t| (syms.launcher, t))
}

/// Kill a launcher we started, and whatever it had started.
fn kill_launcher(s: &mut Session, pid: i32) {
    let kids = proc_util::descendants(pid);
    let _ = s.kill();
    for k in kids {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(k),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}
