//! A debugging session of one program: the executable's symbols, the process when there is
//! one, shared libraries, and the user's breakpoints (numbered, with hit counts, temporary,
//! enabled or not, pending until their library loads) and watchpoints.
//!
//! Everything here runs on the tracer thread (`crate::tracer`).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::arch::{ArchInfo, WatchKind};
use crate::error::{EngineError, Result};
use crate::process::{LaunchOptions, Notice, Process, Stop, StopKind, ThreadInfo, resolve_program};
use crate::regs::Registers;
use crate::signals::SignalTable;
use crate::solib;
use crate::symbols::{LoadedObject, ObjectFile, SymbolTable};

mod core_target;

/// Where a breakpoint was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BpSpec {
    /// `break NAME`: after the function's prologue.
    Symbol(String),
    /// `break *ADDR`: exactly there.
    Address(u64),
    /// `break *NAME`: exactly at the symbol, re-resolved when the program is relocated.
    SymbolExact(String),
    /// A source location as typed (`file.c:12`, `func`, `file.c:func`), resolved by the
    /// front end's [`LocationResolver`] each time the symbols change.
    Location(String),
}

/// Resolves a [`BpSpec::Location`] against the loaded objects (run-time addresses, empty when
/// nothing matches yet). Supplied by the front end, which knows the debug information.
pub type LocationResolver = Box<dyn Fn(&str, &SymbolTable) -> Vec<u64> + Send>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BpKind {
    Software,
    Watch {
        addr: u64,
        len: usize,
        kind: WatchKind,
        slot: Option<usize>,
        expr: String,
        /// gdb's software watchpoint: no hardware slot; the front end single-steps and
        /// compares the expression's value after each instruction.
        software: bool,
    },
    /// A catchpoint with no location (gdb's `catch fork`, `catch signal`).
    Catch(Catch),
}

/// What a location-less catchpoint catches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Catch {
    Fork,
    Vfork,
    /// These signals (empty: every signal but SIGTRAP and SIGINT, as gdb's plain
    /// `catch signal`), when the program stops for one.
    Signal(Vec<i32>),
    /// The program calls exec.
    Exec,
    /// The entry and the exit of these system calls, by number, as typed (empty: every one).
    Syscall(Vec<i64>),
}

/// A user breakpoint or watchpoint, numbered as gdb numbers them.
#[derive(Debug, Clone)]
pub struct Breakpoint {
    pub id: u32,
    pub spec: BpSpec,
    pub kind: BpKind,
    /// Resolved addresses (run-time once a process exists, link-time before); empty while
    /// pending. Several for a line or function with several copies (inlining).
    pub addrs: Vec<u64>,
    pub enabled: bool,
    pub temporary: bool,
    pub hits: u64,
    /// `condition N EXPR` / `break … if EXPR`, as typed (the front end evaluates it).
    pub condition: Option<String>,
    /// `ignore N COUNT`: crossings still to ignore.
    pub ignore: u64,
    /// gdb's disposition `dis` (`enable once`, `enable count`): the stops still allowed before
    /// the breakpoint disables itself (at most 0: at the next stop).
    pub disable_after: Option<i64>,
    /// Inserted in the process.
    inserted: bool,
    /// Hardware slots holding this breakpoint's locations (instead of trap instructions).
    hw: Vec<usize>,
    /// Its locations are outside the host (GPU code): the host neither resolves nor inserts
    /// it (see [`Session::move_off_host`]).
    off_host: bool,
}

/// Why the program stopped, as a front end reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A caught fork or vfork (catchpoint `id`); the child is let go at the next resume.
    Forked {
        tid: i32,
        id: u32,
        child: i32,
        vfork: bool,
        pc: u64,
    },
    Breakpoint {
        tid: i32,
        id: u32,
        temporary: bool,
        pc: u64,
    },
    /// The program called exec, and exec catchpoint `id` caught it. The new program's
    /// symbols are loaded and the breakpoints placed in it already.
    Exec {
        tid: i32,
        id: u32,
        path: PathBuf,
        pc: u64,
    },
    /// Thread `tid` entered (`entry`) or left system call `nr`, caught by the syscall
    /// catchpoints `ids` (in number order).
    Syscall {
        tid: i32,
        ids: Vec<u32>,
        nr: i64,
        entry: bool,
        pc: u64,
    },
    Watchpoint {
        tid: i32,
        id: u32,
        addr: u64,
    },
    Step {
        tid: i32,
        pc: u64,
    },
    /// A step breakpoint (see [`Session::set_step_breakpoint`]) was reached.
    StepBreakpoint {
        tid: i32,
        pc: u64,
    },
    Signal {
        tid: i32,
        signo: i32,
        pc: u64,
    },
    /// A function called from the debugger and left where it stopped (see
    /// [`Process::call_keep`]) returned to its dummy frame at `pc` in thread `tid`; the
    /// front end puts the thread back ([`Session::pop_call_dummy`]) and stops silently.
    CallReturned {
        tid: i32,
        pc: u64,
    },
    Exited {
        pid: i32,
        code: i32,
    },
    Killed {
        pid: i32,
        signo: i32,
    },
}

/// One loaded shared library.
#[derive(Debug, Clone)]
pub struct SharedLib {
    pub path: String,
    pub bias: u64,
    /// Run-time `.text` range.
    pub text: Option<(u64, u64)>,
    pub has_debug_info: bool,
    /// Its `struct link_map` in the program (None for the dynamic linker found from auxv).
    pub link_map: Option<u64>,
}

/// Messages a front end shows while the program runs (gdb's bracketed lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Thread(Notice),
    LibraryLoaded(String),
    /// A library was unloaded (`dlclose`); some breakpoint had a location in it.
    LibraryUnloaded {
        path: String,
        breakpoints_disabled: bool,
    },
    BreakpointResolved {
        id: u32,
        addr: u64,
    },
    /// After an exec, breakpoint `id` (placed in the old program) is not found in the new
    /// one: it is disabled and pending, as gdb's "Error in re-setting breakpoint N: …".
    BreakpointResetFailed {
        id: u32,
        spec: BpSpec,
    },
}

pub struct Session {
    pub program: Option<PathBuf>,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    pub env: Option<Vec<(OsString, OsString)>>,
    pub disable_randomization: bool,
    /// gdb's `startup-with-shell` (on by default).
    pub startup_with_shell: bool,
    /// Arguments as typed to `run`/`set args`, passed to the shell unquoted.
    pub args_line: Option<String>,
    /// Descriptors the program is started with (see `LaunchOptions::fds`).
    pub fds: Vec<(std::sync::Arc<std::os::fd::OwnedFd>, i32)>,
    /// The signal the program gets when the thread that started it ends (see
    /// `LaunchOptions::death_signal`).
    pub death_signal: Option<i32>,
    exe: Option<Arc<ObjectFile>>,
    process: Option<Process>,
    /// A core file being examined (gdb's core target): read-only, no process.
    core: Option<crate::core::Core>,
    symbols: SymbolTable,
    libs: Vec<SharedLib>,
    breakpoints: Vec<Breakpoint>,
    next_id: u32,
    pub signals: SignalTable,
    /// glibc's internal signals have been made silent (see `SignalTable::nptl_internal`).
    nptl_signals_set: bool,
    current: std::cell::Cell<Option<i32>>,
    r_debug: Option<u64>,
    /// The dynamic linker's `_dl_debug_state` (run-time).
    dl_hook: Option<u64>,
    /// Breakpoints the front end placed to run to a place (step, next, finish).
    step_bps: Vec<u64>,
    /// The front end's scope breakpoints (where a watched frame returns), kept across steps.
    scope_bps: Vec<u64>,
    /// Symbols where the front end wants to stop once a loaded object defines them (CUDA:
    /// the driver's `cuInit`), without a user breakpoint: placed as scope breakpoints when they
    /// resolve (reported as [`Event::StepBreakpoint`], see [`Session::load_hook_at`]).
    pub load_hooks: Vec<String>,
    /// The load hooks placed in this process: name, address, and whether it is still armed
    /// (see [`Session::take_load_hook`]).
    placed_hooks: Vec<(String, u64, bool)>,
    pub resolver: Option<LocationResolver>,
    /// Conditional breakpoints may use hardware slots until a watchpoint needs them.
    hw_for_conditions: bool,
    messages: Vec<Message>,
    /// Makes the hook given to each new process (see `Process::on_notice`).
    pub notice_hook: Option<Box<dyn Fn() -> crate::process::NoticeHook + Send>>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    pub fn new() -> Self {
        Session {
            program: None,
            args: Vec::new(),
            cwd: None,
            env: None,
            disable_randomization: true,
            startup_with_shell: true,
            args_line: None,
            fds: Vec::new(),
            death_signal: None,
            exe: None,
            process: None,
            core: None,
            symbols: SymbolTable::default(),
            libs: Vec::new(),
            breakpoints: Vec::new(),
            next_id: 1,
            signals: SignalTable::default(),
            nptl_signals_set: false,
            current: std::cell::Cell::new(None),
            r_debug: None,
            dl_hook: None,
            step_bps: Vec::new(),
            scope_bps: Vec::new(),
            load_hooks: Vec::new(),
            placed_hooks: Vec::new(),
            resolver: None,
            hw_for_conditions: true,
            messages: Vec::new(),
            notice_hook: None,
        }
    }

    /// Load the executable's symbols (gdb's `file`).
    pub fn load_program(&mut self, path: &Path) -> Result<()> {
        let resolved = resolve_program(path)?;
        let exe = ObjectFile::load_cached(&resolved)?;
        self.symbols = SymbolTable::default();
        self.symbols.push(LoadedObject {
            file: exe.clone(),
            bias: 0,
        });
        self.exe = Some(exe);
        self.program = Some(path.to_path_buf());
        Ok(())
    }

    pub fn arch(&self) -> &'static ArchInfo {
        crate::arch::native()
    }

    pub fn process(&self) -> Option<&Process> {
        self.process.as_ref()
    }

    pub fn process_mut(&mut self) -> Result<&mut Process> {
        self.process.as_mut().ok_or(EngineError::NotRunning)
    }

    /// Whether there is a program state to look at: a process, or a core file (whose
    /// running commands then say "The program is not being run.").
    pub fn is_running(&self) -> bool {
        self.process.is_some() || self.core.is_some()
    }

    pub fn pid(&self) -> Option<i32> {
        match (&self.process, &self.core) {
            (Some(p), _) => Some(p.pid()),
            (None, Some(c)) => Some(c.pid),
            _ => None,
        }
    }

    pub fn symbols(&self) -> &SymbolTable {
        &self.symbols
    }

    pub fn libraries(&self) -> &[SharedLib] {
        &self.libs
    }

    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    pub fn take_messages(&mut self) -> Vec<Message> {
        if let Some(p) = self.process.as_mut() {
            let n = p.take_notices();
            self.messages.extend(n.into_iter().map(Message::Thread));
        }
        std::mem::take(&mut self.messages)
    }

    /// The thread commands apply to (gdb's current thread).
    pub fn current_thread(&self) -> Option<i32> {
        self.current.get()
    }

    /// Make `tid` the current thread from where the session is shared (a stop in another
    /// thread during a function call from an expression).
    pub fn switch_thread(&self, tid: i32) {
        self.current.set(Some(tid));
    }

    /// Apply what function calls changed in the thread table (see
    /// [`Process::settle_call`]).
    pub fn settle_call(&mut self) {
        if let Some(p) = self.process.as_mut() {
            p.settle_call();
        }
    }

    pub fn select_thread(&mut self, num: usize) -> Result<i32> {
        if let (None, Some(c)) = (&self.process, &self.core) {
            let tid = c.thread(num).ok_or(EngineError::NoThread(num))?.tid;
            self.current.set(Some(tid));
            return Ok(tid);
        }
        let p = self.process.as_ref().ok_or(EngineError::NotRunning)?;
        let tid = p.tid_of(num).ok_or(EngineError::NoThread(num))?;
        self.current.set(Some(tid));
        Ok(tid)
    }

    pub fn threads(&mut self) -> Vec<ThreadInfo> {
        if let (None, Some(c)) = (&self.process, &self.core) {
            return core_target::threads(c);
        }
        self.process
            .as_mut()
            .map(|p| p.threads())
            .unwrap_or_default()
    }

    // ------------------------------------------------------------ starting and ending

    fn after_start(&mut self) -> Result<()> {
        let Some(p) = self.process.as_ref() else {
            return Ok(());
        };
        let pid = p.pid();
        self.current.set(Some(pid));
        let auxv = solib::read_auxv(pid)?;
        let at = |k: u64| auxv.iter().find(|(t, _)| *t == k).map(|(_, v)| *v);
        let exe_path = p.exe().to_path_buf();
        let exe = match &self.exe {
            Some(e) => e.clone(),
            None => {
                let e = ObjectFile::load_cached(&exe_path)?;
                self.exe = Some(e.clone());
                e
            }
        };
        let bias = at(solib::AT_ENTRY)
            .map(|e| solib::load_bias(&exe, e))
            .unwrap_or(0);
        self.symbols = SymbolTable::default();
        self.symbols.push(LoadedObject {
            file: exe.clone(),
            bias,
        });
        self.libs.clear();
        self.r_debug = None;
        // The dynamic linker: symbols now, its hook for later library loads.
        if let (Some(interp), Some(base)) = (exe.interp(), at(solib::AT_BASE))
            && base != 0
            && let Ok(ld) = ObjectFile::load_cached(Path::new(&interp))
        {
            let hook = ld.lookup("_dl_debug_state").map(|s| s.addr + base);
            self.r_debug = ld.lookup("_r_debug").map(|s| s.addr + base);
            self.symbols.push(LoadedObject {
                file: ld.clone(),
                bias: base,
            });
            self.libs.push(lib_info(&interp, &ld, base));
            self.dl_hook = hook;
            if let Some(h) = hook {
                self.process_mut()?.add_internal_breakpoint(h)?;
            }
        }
        // Attached processes already have their libraries.
        self.refresh_libraries()?;
        self.reinsert_breakpoints()?;
        self.place_load_hooks()
    }

    /// Place the [`Session::load_hooks`] that the loaded objects now define.
    fn place_load_hooks(&mut self) -> Result<()> {
        for i in 0..self.load_hooks.len() {
            let name = &self.load_hooks[i];
            if self.placed_hooks.iter().any(|(n, _, _)| n == name) {
                continue;
            }
            if let Some(addr) = self.symbols.lookup(name) {
                let name = name.clone();
                self.set_scope_breakpoint(addr)?;
                self.placed_hooks.push((name, addr, true));
            }
        }
        Ok(())
    }

    /// The armed load hook at `addr`, if any.
    pub fn load_hook_at(&self, addr: u64) -> Option<&str> {
        self.placed_hooks
            .iter()
            .find(|(_, a, armed)| *a == addr && *armed)
            .map(|(n, _, _)| n.as_str())
    }

    /// Disarm the load hook at `addr` once the front end has handled its stop: it is not
    /// placed again in this process (it is in the next run). Its name, if one was armed there.
    pub fn take_load_hook(&mut self, addr: u64) -> Result<Option<String>> {
        let Some(h) = self
            .placed_hooks
            .iter_mut()
            .find(|(_, a, armed)| *a == addr && *armed)
        else {
            return Ok(None);
        };
        h.2 = false;
        let name = h.0.clone();
        self.clear_scope_breakpoint(addr)?;
        Ok(Some(name))
    }

    /// As gdb's `run`: every breakpoint's hit count starts again from 0 (a new process of the
    /// program, started here or, for a job started again, by its launcher).
    pub fn clear_hit_counts(&mut self) {
        for b in &mut self.breakpoints {
            b.hits = 0;
        }
    }

    /// Start the program under control, stopped at its first instruction.
    pub fn start_process(&mut self) -> Result<()> {
        if self.process.is_some() {
            self.kill()?;
        }
        let program = self.program.clone().ok_or_else(|| {
            EngineError::Other(
                "No executable file specified.\nUse the \"file\" or \"exec-file\" command.".into(),
            )
        })?;
        let opts = LaunchOptions {
            program,
            args: self.args.clone(),
            env: Some(self.env.clone().unwrap_or_else(gdb_environment)),
            cwd: self.cwd.clone(),
            disable_aslr: self.disable_randomization,
            shell: self.startup_with_shell.then(|| {
                std::env::var_os("SHELL")
                    .filter(|s| !s.is_empty())
                    .map(PathBuf::from)
                    .unwrap_or_else(|| "/bin/sh".into())
            }),
            args_line: self.args_line.clone(),
            fds: self.fds.clone(),
            death_signal: self.death_signal,
        };
        let mut p = Process::launch(&opts)?;
        self.clear_hit_counts();
        self.set_nptl_signals();
        p.signals = self.signals.clone();
        p.on_notice = self.notice_hook.as_ref().map(|f| f());
        self.process = Some(p);
        self.forget_breakpoint_places();
        self.sync_catches();
        self.after_start()
    }

    /// A new process: every breakpoint is placed again, a location found again in it (where
    /// it was loaded, address-space randomisation on or off).
    fn forget_breakpoint_places(&mut self) {
        for b in &mut self.breakpoints {
            b.inserted = false;
            b.hw.clear();
            if b.kind == BpKind::Software && !matches!(b.spec, BpSpec::Address(_)) {
                b.addrs.clear();
            }
            if let BpKind::Watch { slot, .. } = &mut b.kind {
                *slot = None;
            }
        }
    }

    /// Attach to a running process.
    pub fn attach(&mut self, pid: i32) -> Result<()> {
        let mut p = Process::attach(pid)?;
        self.set_nptl_signals();
        p.signals = self.signals.clone();
        p.on_notice = self.notice_hook.as_ref().map(|f| f());
        if self.exe.is_none() {
            let exe = p.exe().to_path_buf();
            self.exe = Some(ObjectFile::load_cached(&exe)?);
            self.program = Some(exe);
        }
        self.process = Some(p);
        self.forget_breakpoint_places();
        self.sync_catches();
        self.after_start()
    }

    pub fn kill(&mut self) -> Result<()> {
        if let Some(mut p) = self.process.take() {
            p.kill()?;
        }
        self.after_exit();
        Ok(())
    }

    pub fn detach(&mut self) -> Result<i32> {
        let mut p = self.process.take().ok_or(EngineError::NotRunning)?;
        let pid = p.pid();
        p.detach()?;
        self.after_exit();
        Ok(pid)
    }

    fn after_exit(&mut self) {
        self.current.set(None);
        // gdb keeps the dynamic linker (the first library, found from PT_INTERP at start) in
        // its list once the program is gone; the others go.
        let interp = self.exe.as_ref().and_then(|e| e.interp());
        self.libs
            .retain(|l| interp.as_deref() == Some(l.path.as_str()));
        self.libs.truncate(1);
        self.step_bps.clear();
        self.scope_bps.clear();
        self.placed_hooks.clear();
        self.dl_hook = None;
        for b in &mut self.breakpoints {
            b.inserted = false;
            b.hw.clear();
            if let BpKind::Watch { slot, .. } = &mut b.kind {
                *slot = None;
            }
        }
        // The program keeps the addresses it was loaded at (gdb relocates its objfile again
        // only at the next run): breakpoints and symbols show runtime addresses after an
        // exit or a kill, link-time ones only before the first run.
        if let Some(exe) = self.exe.clone() {
            let bias = self.symbols.main().map_or(0, |m| m.bias);
            self.symbols = SymbolTable::default();
            self.symbols.push(LoadedObject { file: exe, bias });
            let syms: Vec<(usize, Vec<u64>)> = self
                .breakpoints
                .iter()
                .enumerate()
                .filter(|(_, b)| {
                    b.kind == BpKind::Software && !matches!(b.spec, BpSpec::Address(_))
                })
                .map(|(i, b)| (i, self.resolve_spec(&b.spec)))
                .collect();
            for (i, a) in syms {
                if !a.is_empty() {
                    self.breakpoints[i].addrs = a;
                }
            }
        }
    }

    // ------------------------------------------------------------ shared libraries

    pub(crate) fn refresh_libraries(&mut self) -> Result<()> {
        let Some(p) = self.memory() else {
            return Ok(());
        };
        let Some(rd) = self.r_debug else {
            return Ok(());
        };
        let ptr = self.arch().ptr_size;
        let Ok(r) = solib::read_r_debug(p, rd, ptr) else {
            return Ok(());
        };
        if r.map == 0 {
            return Ok(());
        }
        let entries = solib::read_link_map(p, r.map)?;
        // A library is the same while its `link_map` node, name and bias are: one closed with
        // `dlclose` leaves the list (and another may then be mapped where it was).
        let listed: BTreeSet<(u64, &str, u64)> = entries
            .iter()
            .map(|e| (e.node, e.name.as_str(), e.l_addr))
            .collect();
        let gone: Vec<SharedLib> = self
            .libs
            .iter()
            .filter(|l| {
                l.link_map
                    .is_some_and(|n| !listed.contains(&(n, l.path.as_str(), l.bias)))
            })
            .cloned()
            .collect();
        for lib in gone {
            self.unload_library(&lib);
        }
        let known: BTreeSet<String> = self.libs.iter().map(|l| l.path.clone()).collect();
        for e in entries {
            if e.name.is_empty() || known.contains(&e.name) || e.name.starts_with("linux-vdso") {
                continue;
            }
            let Ok(file) = ObjectFile::load_cached(Path::new(&e.name)) else {
                continue;
            };
            let mut lib = lib_info(&e.name, &file, e.l_addr);
            lib.link_map = Some(e.node);
            self.libs.push(lib);
            self.symbols.push(LoadedObject {
                file,
                bias: e.l_addr,
            });
            self.messages.push(Message::LibraryLoaded(e.name.clone()));
        }
        Ok(())
    }

    /// A library left the dynamic linker's list (`dlclose`): its code is unmapped. Its symbols
    /// go, breakpoints there are forgotten without writing memory (another object may be
    /// mapped there next) and become pending again, as gdb's "Temporarily disabling
    /// breakpoints for unloaded shared library".
    fn unload_library(&mut self, lib: &SharedLib) {
        let Some(obj) = self
            .symbols
            .libraries()
            .iter()
            .find(|o| o.bias == lib.bias && o.file.path.to_str() == Some(lib.path.as_str()))
            .cloned()
        else {
            return;
        };
        let inside = |a: u64| obj.contains(a);
        let mut disabled = false;
        for b in &mut self.breakpoints {
            if b.kind != BpKind::Software || !b.addrs.iter().any(|&a| inside(a)) {
                continue;
            }
            disabled = true;
            if !b.hw.is_empty() {
                // Debug registers only: they can be cleared as usual.
                if let Some(p) = self.process.as_mut() {
                    for s in std::mem::take(&mut b.hw) {
                        let _ = p.remove_watchpoint(s);
                    }
                }
                b.inserted = false;
            }
            b.addrs.retain(|&a| !inside(a));
            if b.addrs.is_empty() {
                b.inserted = false;
            }
        }
        self.step_bps.retain(|&a| !inside(a));
        self.scope_bps.retain(|&a| !inside(a));
        self.placed_hooks.retain(|(_, a, _)| !inside(*a));
        if let Some(p) = self.process.as_mut() {
            p.forget_sites(inside);
        }
        self.libs
            .retain(|l| !(l.path == lib.path && l.bias == lib.bias && l.link_map == lib.link_map));
        let rest: Vec<LoadedObject> = self
            .symbols
            .libraries()
            .iter()
            .filter(|o| !(o.bias == obj.bias && Arc::ptr_eq(&o.file, &obj.file)))
            .cloned()
            .collect();
        self.symbols.set_libraries(rest);
        self.messages.push(Message::LibraryUnloaded {
            path: lib.path.clone(),
            breakpoints_disabled: disabled,
        });
    }

    // ------------------------------------------------------------ breakpoints

    /// Addresses a spec resolves to in the current symbol table (empty: pending).
    fn resolve_spec(&self, spec: &BpSpec) -> Vec<u64> {
        match spec {
            BpSpec::Address(a) => vec![*a],
            BpSpec::SymbolExact(name) => self.symbols.lookup(name).into_iter().collect(),
            BpSpec::Location(text) => match &self.resolver {
                Some(r) => r(text, &self.symbols),
                None => self.resolve_spec(&BpSpec::Symbol(text.clone())),
            },
            BpSpec::Symbol(name) => {
                let Some(addr) = self.symbols.lookup(name) else {
                    return Vec::new();
                };
                let mut code = vec![0u8; 16];
                let ok = match &self.process {
                    Some(p) => p.read_memory(addr, &mut code).is_ok(),
                    None => self.symbols.read_file_bytes(addr, &mut code),
                };
                let skip = if ok {
                    (self.arch().skip_prologue)(&code)
                } else {
                    0
                };
                vec![addr + skip as u64]
            }
        }
    }

    fn insert(&mut self, i: usize) -> Result<()> {
        let Some(p) = self.process.as_mut() else {
            return Ok(());
        };
        let b = &mut self.breakpoints[i];
        if !b.enabled || b.inserted {
            return Ok(());
        }
        let use_hw = self.hw_for_conditions
            && p.arch().hw_breakpoint_resumes
            && b.condition.is_some()
            && b.kind == BpKind::Software;
        if use_hw {
            // A conditional breakpoint is hit often and mostly goes on: a hardware slot saves
            // stepping over a trap instruction at every hit. Software when slots run out.
            let mut slots = Vec::new();
            for &a in &b.addrs {
                match p.add_hw_breakpoint(a) {
                    Ok(s) => slots.push(s),
                    Err(_) => break,
                }
            }
            if slots.len() == b.addrs.len() && !slots.is_empty() {
                b.hw = slots;
                b.inserted = true;
                return Ok(());
            }
            for s in slots {
                let _ = p.remove_watchpoint(s);
            }
        }
        match &mut b.kind {
            BpKind::Software => {
                for (n, &a) in b.addrs.iter().enumerate() {
                    if let Err(e) = p.add_breakpoint(a) {
                        for &done in &b.addrs[..n] {
                            let _ = p.remove_breakpoint(done);
                        }
                        return Err(e);
                    }
                }
                b.inserted = !b.addrs.is_empty();
            }
            BpKind::Watch { software: true, .. } | BpKind::Catch(_) => b.inserted = true,
            BpKind::Watch {
                addr,
                len,
                kind,
                slot,
                ..
            } => {
                *slot = Some(p.add_watchpoint(*addr, *len, *kind)?);
                b.inserted = true;
            }
        }
        Ok(())
    }

    fn uninsert(&mut self, i: usize) -> Result<()> {
        let Some(p) = self.process.as_mut() else {
            return Ok(());
        };
        let b = &mut self.breakpoints[i];
        if !b.inserted {
            return Ok(());
        }
        b.inserted = false;
        if !b.hw.is_empty() {
            for s in std::mem::take(&mut b.hw) {
                p.remove_watchpoint(s)?;
            }
            return Ok(());
        }
        match &mut b.kind {
            BpKind::Software => {
                for &a in &b.addrs {
                    p.remove_breakpoint(a)?;
                }
            }
            BpKind::Watch { slot, .. } => {
                if let Some(s) = slot.take() {
                    p.remove_watchpoint(s)?;
                }
            }
            BpKind::Catch(_) => {}
        }
        Ok(())
    }

    /// Tell the process which events the enabled catchpoints catch.
    fn sync_catches(&mut self) {
        let on = |c: &Catch| {
            self.breakpoints
                .iter()
                .any(|b| b.enabled && b.kind == BpKind::Catch(c.clone()))
        };
        let (fork, vfork) = (on(&Catch::Fork), on(&Catch::Vfork));
        let mut signals = Vec::new();
        let mut all = false;
        let mut syscalls: Option<Vec<i64>> = None;
        for b in self.breakpoints.iter().filter(|b| b.enabled) {
            match &b.kind {
                BpKind::Catch(Catch::Signal(set)) => {
                    all |= set.is_empty();
                    signals.extend(set.iter().copied());
                }
                BpKind::Catch(Catch::Syscall(list)) => {
                    syscalls
                        .get_or_insert_with(Vec::new)
                        .extend(list.iter().copied());
                }
                _ => {}
            }
        }
        // A catchpoint with no list catches every call (the process's empty list).
        if syscalls_any(&self.breakpoints) {
            syscalls = Some(Vec::new());
        }
        if let Some(p) = self.process.as_mut() {
            p.catch_fork = fork;
            p.catch_vfork = vfork;
            p.caught_signals = signals;
            p.catch_all_signals = all;
            p.caught_syscalls = syscalls;
        }
    }

    /// A catchpoint (`catch fork`, `catch vfork`, `catch signal`), numbered as breakpoints.
    pub fn add_catchpoint(&mut self, what: Catch, temporary: bool) -> Breakpoint {
        let id = self.next_id;
        self.next_id += 1;
        self.breakpoints.push(Breakpoint {
            id,
            spec: BpSpec::Location(String::new()),
            kind: BpKind::Catch(what),
            addrs: Vec::new(),
            enabled: true,
            temporary,
            hits: 0,
            condition: None,
            ignore: 0,
            disable_after: None,
            inserted: true,
            hw: Vec::new(),
            off_host: false,
        });
        self.sync_catches();
        self.breakpoints[self.breakpoints.len() - 1].clone()
    }

    /// The enabled catchpoints that catch signal `signo`, in number order.
    pub fn signal_catchpoints(&self, signo: i32) -> Vec<u32> {
        self.breakpoints
            .iter()
            .filter(|b| match &b.kind {
                BpKind::Catch(Catch::Signal(set)) => {
                    b.enabled
                        && (set.contains(&signo)
                            || (set.is_empty() && signo != libc::SIGTRAP && signo != libc::SIGINT))
                }
                _ => false,
            })
            .map(|b| b.id)
            .collect()
    }

    /// Run without system call stops (`quiet`) or with them again: gdb single-steps through
    /// a line's straight code and sees no system call there, which the front end runs
    /// through at once (see `Process::syscalls_quiet`).
    pub fn set_syscalls_quiet(&mut self, quiet: bool) {
        if let Some(p) = self.process.as_mut() {
            p.syscalls_quiet = quiet;
        }
    }

    /// The enabled syscall catchpoints that catch system call `nr`, in number order.
    pub fn syscall_catchpoints(&self, nr: i64) -> Vec<u32> {
        self.breakpoints
            .iter()
            .filter(|b| match &b.kind {
                BpKind::Catch(Catch::Syscall(list)) => {
                    b.enabled && (list.is_empty() || list.contains(&nr))
                }
                _ => false,
            })
            .map(|b| b.id)
            .collect()
    }

    /// The process called exec: the old program's symbols, libraries and breakpoint places
    /// go; the new program's symbols are loaded (it becomes the session's program, as gdb's
    /// exec file) and every breakpoint is found again in it, as gdb re-sets them.
    fn after_exec(&mut self) -> Result<()> {
        let Some(p) = self.process.as_ref() else {
            return Ok(());
        };
        let path = p.exe().to_path_buf();
        self.exe = Some(ObjectFile::load_cached(&path)?);
        self.program = Some(path);
        self.step_bps.clear();
        self.scope_bps.clear();
        self.placed_hooks.clear();
        self.dl_hook = None;
        let placed: Vec<u32> = self
            .breakpoints
            .iter()
            .filter(|b| {
                b.kind == BpKind::Software
                    && !b.addrs.is_empty()
                    && !b.off_host
                    && !matches!(b.spec, BpSpec::Address(_))
            })
            .map(|b| b.id)
            .collect();
        self.forget_breakpoint_places();
        self.sync_catches();
        self.after_start()?;
        for b in &mut self.breakpoints {
            if placed.contains(&b.id) && b.addrs.is_empty() {
                b.enabled = false;
                self.messages.push(Message::BreakpointResetFailed {
                    id: b.id,
                    spec: b.spec.clone(),
                });
            }
        }
        Ok(())
    }

    /// Resolve pending breakpoints and insert every enabled one.
    fn reinsert_breakpoints(&mut self) -> Result<()> {
        let mut failed = Vec::new();
        for i in 0..self.breakpoints.len() {
            if self.breakpoints[i].addrs.is_empty()
                && self.breakpoints[i].kind == BpKind::Software
                && !self.breakpoints[i].off_host
            {
                let a = self.resolve_spec(&self.breakpoints[i].spec.clone());
                if let Some(&first) = a.first() {
                    self.breakpoints[i].addrs = a;
                    self.messages.push(Message::BreakpointResolved {
                        id: self.breakpoints[i].id,
                        addr: first,
                    });
                }
            }
            if let Err(e) = self.insert(i) {
                failed.push(format!(
                    "Cannot insert breakpoint {}.\n{e}",
                    self.breakpoints[i].id
                ));
            }
        }
        if failed.is_empty() {
            Ok(())
        } else {
            Err(EngineError::Other(format!(
                "Warning:\n{}\n",
                failed.join("\n")
            )))
        }
    }

    /// `break`/`tbreak`. Returns the new breakpoint; `addrs` is empty when it is pending.
    pub fn add_breakpoint(&mut self, spec: BpSpec, temporary: bool) -> Result<Breakpoint> {
        let addrs = self.resolve_spec(&spec);
        if addrs.is_empty() && self.exe.is_none() {
            return Err(EngineError::Other(
                "No symbol table is loaded.  Use the \"file\" command.".into(),
            ));
        }
        let id = self.next_id;
        self.next_id += 1;
        self.breakpoints.push(Breakpoint {
            id,
            spec,
            kind: BpKind::Software,
            addrs,
            enabled: true,
            temporary,
            hits: 0,
            condition: None,
            ignore: 0,
            disable_after: None,
            inserted: false,
            hw: Vec::new(),
            off_host: false,
        });
        let i = self.breakpoints.len() - 1;
        if let Err(e) = self.insert(i) {
            self.breakpoints.pop();
            self.next_id -= 1;
            return Err(e);
        }
        Ok(self.breakpoints[i].clone())
    }

    /// A hardware watchpoint on `len` bytes at `addr` (needs a process).
    pub fn add_watchpoint(
        &mut self,
        addr: u64,
        len: usize,
        kind: WatchKind,
        expr: &str,
    ) -> Result<Breakpoint> {
        self.add_watch(addr, len, kind, expr, false)
    }

    /// A software watchpoint on `expr` (gdb's `Watchpoint N`): numbered and listed as the
    /// others, no hardware slot; `addr`/`len` are the bytes it watches, if in memory (0, 0
    /// for a register).
    pub fn add_software_watchpoint(
        &mut self,
        addr: u64,
        len: usize,
        expr: &str,
    ) -> Result<Breakpoint> {
        self.add_watch(addr, len, WatchKind::Write, expr, true)
    }

    fn add_watch(
        &mut self,
        addr: u64,
        len: usize,
        kind: WatchKind,
        expr: &str,
        software: bool,
    ) -> Result<Breakpoint> {
        if self.process.is_none() {
            return Err(EngineError::NotRunning);
        }
        let id = self.next_id;
        self.breakpoints.push(Breakpoint {
            id,
            spec: BpSpec::Address(addr),
            kind: BpKind::Watch {
                addr,
                len,
                kind,
                slot: None,
                expr: expr.to_string(),
                software,
            },
            addrs: vec![addr],
            enabled: true,
            temporary: false,
            hits: 0,
            condition: None,
            ignore: 0,
            disable_after: None,
            inserted: false,
            hw: Vec::new(),
            off_host: false,
        });
        let i = self.breakpoints.len() - 1;
        if let Err(e) = self.insert(i) {
            // Slots taken by conditional breakpoints go back to trap instructions first.
            let hw: Vec<usize> = (0..i)
                .filter(|&j| !self.breakpoints[j].hw.is_empty())
                .collect();
            let retried = if matches!(e, EngineError::NoWatchSlot(_)) && !hw.is_empty() {
                self.hw_for_conditions = false;
                for j in hw {
                    self.uninsert(j)?;
                    self.insert(j)?;
                }
                self.insert(i)
            } else {
                Err(e)
            };
            if let Err(e) = retried {
                self.breakpoints.pop();
                return Err(e);
            }
        }
        self.next_id += 1;
        Ok(self.breakpoints[i].clone())
    }

    fn index_of(&self, id: u32) -> Result<usize> {
        self.breakpoints
            .iter()
            .position(|b| b.id == id)
            .ok_or(EngineError::NoBreakpoint(id))
    }

    pub fn delete_breakpoint(&mut self, id: u32) -> Result<()> {
        let i = self.index_of(id)?;
        self.uninsert(i)?;
        self.breakpoints.remove(i);
        self.sync_catches();
        Ok(())
    }

    /// Breakpoint `id` has its locations elsewhere (in GPU code, found better than the
    /// host's): its host locations are removed, and the host never resolves it again. The
    /// number, condition and counts stay.
    pub fn move_off_host(&mut self, id: u32) -> Result<()> {
        let i = self.index_of(id)?;
        self.uninsert(i)?;
        self.breakpoints[i].addrs.clear();
        self.breakpoints[i].off_host = true;
        Ok(())
    }

    pub fn delete_all_breakpoints(&mut self) -> Result<()> {
        for i in 0..self.breakpoints.len() {
            self.uninsert(i)?;
        }
        self.breakpoints.clear();
        self.sync_catches();
        Ok(())
    }

    pub fn set_enabled(&mut self, id: u32, enabled: bool) -> Result<()> {
        let i = self.index_of(id)?;
        self.breakpoints[i].enabled = enabled;
        self.sync_catches();
        if enabled {
            self.insert(i)
        } else {
            self.uninsert(i)
        }
    }

    /// Enabled user breakpoints with a location at `pc`, in number order (the front end
    /// checks their conditions and ignore counts, then calls [`Session::count_hit`]).
    pub fn breakpoints_at(&self, pc: u64) -> Vec<u32> {
        self.breakpoints
            .iter()
            .filter(|b| b.enabled && b.kind == BpKind::Software && b.addrs.contains(&pc))
            .map(|b| b.id)
            .collect()
    }

    /// Count one hit of breakpoint `id`. Returns whether it stops the program: false while an
    /// ignore count is being used up.
    pub fn count_hit(&mut self, id: u32) -> bool {
        let Some(b) = self.breakpoints.iter_mut().find(|b| b.id == id) else {
            return false;
        };
        b.hits += 1;
        if b.ignore > 0 {
            b.ignore -= 1;
            return false;
        }
        // gdb's disposition `dis`: each stop uses up one of the enable count.
        if let Some(n) = b.disable_after.as_mut() {
            *n -= 1;
            if *n <= 0 {
                // The stop is reported all the same; only the breakpoint goes out. A trap
                // that cannot be taken out now (the process is gone) is not inserted again.
                let _ = self.set_enabled(id, false);
            }
        }
        true
    }

    /// gdb's `enable once|count|delete`: enable breakpoint `id` with disposition `dis`
    /// (`Some(count)`: disable after that many stops) or `del` (`None`: delete at its next stop).
    pub fn enable_with_disposition(&mut self, id: u32, disable_after: Option<i64>) -> Result<()> {
        let i = self.index_of(id)?;
        let b = &mut self.breakpoints[i];
        b.temporary = disable_after.is_none();
        b.disable_after = disable_after;
        self.set_enabled(id, true)
    }

    pub fn set_condition(&mut self, id: u32, cond: Option<String>) -> Result<()> {
        let i = self.index_of(id)?;
        self.breakpoints[i].condition = cond;
        // Re-insert: a conditional breakpoint may move to a hardware slot and back.
        if self.breakpoints[i].inserted {
            self.uninsert(i)?;
            self.insert(i)?;
        }
        Ok(())
    }

    pub fn set_ignore(&mut self, id: u32, count: u64) -> Result<()> {
        let i = self.index_of(id)?;
        self.breakpoints[i].ignore = count;
        Ok(())
    }

    /// Place a breakpoint of the front end's own at `addr` (reported as
    /// [`Event::StepBreakpoint`]); removed by [`Session::clear_step_breakpoints`].
    pub fn set_step_breakpoint(&mut self, addr: u64) -> Result<()> {
        if self.step_bps.contains(&addr) {
            return Ok(());
        }
        // The bytes under the trap, from the file when they are the file's.
        let mut code = [0u8; 16];
        let n = self.arch().breakpoint_insn.len().min(code.len());
        let known = match &self.process {
            Some(p) if p.unwritten(addr, n) => self.symbols.file_code(addr, &mut code[..n]),
            _ => false,
        };
        self.process_mut()?
            .add_internal_breakpoint_known(addr, known.then_some(&code[..n]))?;
        self.step_bps.push(addr);
        Ok(())
    }

    pub fn clear_step_breakpoints(&mut self) -> Result<()> {
        let keep = self.dl_hook;
        let mut result = Ok(());
        if let Some(p) = self.process.as_mut() {
            for &a in &self.step_bps {
                if result.is_ok() && Some(a) != keep && !self.scope_bps.contains(&a) {
                    result = p.remove_internal_breakpoint(a);
                }
            }
        }
        // Emptied in place, so that the next step's pushes find its capacity.
        self.step_bps.clear();
        result
    }

    /// Place a breakpoint of the front end's own at `addr` that stays until
    /// [`Session::clear_scope_breakpoint`] (reported as [`Event::StepBreakpoint`]), e.g. where
    /// the frame of a watched local returns.
    pub fn set_scope_breakpoint(&mut self, addr: u64) -> Result<()> {
        if !self.step_bps.contains(&addr) && Some(addr) != self.dl_hook {
            self.process_mut()?.add_internal_breakpoint(addr)?;
        }
        self.scope_bps.push(addr);
        Ok(())
    }

    /// Drop one scope breakpoint at `addr`.
    pub fn clear_scope_breakpoint(&mut self, addr: u64) -> Result<()> {
        let Some(i) = self.scope_bps.iter().position(|a| *a == addr) else {
            return Ok(());
        };
        self.scope_bps.remove(i);
        let keep = self.scope_bps.contains(&addr)
            || self.step_bps.contains(&addr)
            || Some(addr) == self.dl_hook;
        if !keep && let Some(p) = self.process.as_mut() {
            p.remove_internal_breakpoint(addr)?;
        }
        Ok(())
    }

    /// Resolve every breakpoint again (after the resolver or the symbols changed).
    pub fn re_resolve(&mut self) -> Result<()> {
        for i in 0..self.breakpoints.len() {
            if self.breakpoints[i].kind == BpKind::Software
                && !matches!(self.breakpoints[i].spec, BpSpec::Address(_))
                && self.breakpoints[i].addrs.is_empty()
                && !self.breakpoints[i].off_host
            {
                let a = self.resolve_spec(&self.breakpoints[i].spec.clone());
                self.breakpoints[i].addrs = a;
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------ running

    /// The program's end, if it died while stopped (see [`Process::poll_gone`]); nothing is
    /// resumed.
    pub fn poll_gone(&mut self) -> Result<Option<Event>> {
        let Some(p) = self.process.as_mut() else {
            return Ok(None);
        };
        match p.poll_gone()? {
            Some(stop) => self.classify(stop),
            None => Ok(None),
        }
    }

    /// Continue until a reportable event. Internal stops (library loads, breakpoints that no
    /// longer exist) are handled here and never reach the caller.
    pub fn cont(&mut self) -> Result<Event> {
        loop {
            let stop = self.process_mut()?.cont()?;
            if let Some(ev) = self.classify(stop)? {
                return Ok(ev);
            }
        }
    }

    /// Execute one instruction in the current thread.
    pub fn step_instruction(&mut self) -> Result<Event> {
        let tid = self.current.get().ok_or(EngineError::NotRunning)?;
        loop {
            let stop = self.process_mut()?.step_instruction(tid)?;
            if let StopKind::Breakpoint(a) = stop.kind
                && self
                    .process
                    .as_ref()
                    .is_some_and(|p| p.is_internal_breakpoint(a))
                && !self
                    .process
                    .as_ref()
                    .is_some_and(|p| p.has_user_breakpoint(a))
            {
                // Stepping onto the dynamic linker's hook: not an event.
                let pc = self.process_mut()?.pc(tid)?;
                return Ok(Event::Step { tid, pc });
            }
            if let Some(ev) = self.classify(stop)? {
                return Ok(ev);
            }
        }
    }

    /// Whether thread `tid`, stopped at `pc`, is back in the dummy frame of the latest call
    /// it was left in.
    fn at_call_dummy(&self, tid: i32, pc: u64) -> bool {
        let Some(p) = self.process.as_ref() else {
            return false;
        };
        p.call_dummies().iter().any(|d| d.tid == tid)
            && p.registers(tid)
                .is_ok_and(|r| p.dummy_returned(tid, pc, r.sp()))
    }

    /// Put thread `tid` back as it was before the latest call it was left in (gdb pops the
    /// dummy frame when the function returns to it).
    pub fn pop_call_dummy(&mut self, tid: i32) -> Result<bool> {
        self.process_mut()?.pop_dummy(tid)
    }

    fn classify(&mut self, stop: Stop) -> Result<Option<Event>> {
        let tid = stop.tid;
        match stop.kind {
            StopKind::Exited(code) => {
                let pid = self.pid().unwrap_or(tid);
                self.process = None;
                self.after_exit();
                Ok(Some(Event::Exited { pid, code }))
            }
            StopKind::Killed(signo) => {
                let pid = self.pid().unwrap_or(tid);
                self.process = None;
                self.after_exit();
                Ok(Some(Event::Killed { pid, signo }))
            }
            StopKind::Breakpoint(addr) if self.at_call_dummy(tid, addr) => {
                self.current.set(Some(tid));
                Ok(Some(Event::CallReturned { tid, pc: addr }))
            }
            StopKind::Breakpoint(addr) => {
                if self.dl_hook == Some(addr) {
                    self.refresh_libraries()?;
                    self.reinsert_breakpoints()?;
                    self.place_load_hooks()?;
                }
                let first = self.breakpoints.iter().find(|b| {
                    b.enabled && b.inserted && b.kind == BpKind::Software && b.addrs.contains(&addr)
                });
                let Some(b) = first else {
                    if self.step_bps.contains(&addr) || self.scope_bps.contains(&addr) {
                        self.current.set(Some(tid));
                        return Ok(Some(Event::StepBreakpoint { tid, pc: addr }));
                    }
                    return Ok(None);
                };
                let (id, temporary) = (b.id, b.temporary);
                self.current.set(Some(tid));
                Ok(Some(Event::Breakpoint {
                    tid,
                    id,
                    temporary,
                    pc: addr,
                }))
            }
            StopKind::Watch { slot } => {
                let found = self
                    .breakpoints
                    .iter_mut()
                    .find(|b| matches!(&b.kind, BpKind::Watch { slot: Some(s), .. } if *s == slot));
                // The front end counts a hit when it reports one (a `watch` whose value did
                // not change is no hit).
                let Some(b) = found else { return Ok(None) };
                let (id, addr) = (b.id, b.addrs.first().copied().unwrap_or(0));
                self.current.set(Some(tid));
                Ok(Some(Event::Watchpoint { tid, id, addr }))
            }
            StopKind::Step => {
                self.current.set(Some(tid));
                let pc = self.process_mut()?.pc(tid)?;
                if self.at_call_dummy(tid, pc) {
                    return Ok(Some(Event::CallReturned { tid, pc }));
                }
                Ok(Some(Event::Step { tid, pc }))
            }
            StopKind::Signal(signo) => {
                self.current.set(Some(tid));
                let pc = self.process_mut()?.pc(tid)?;
                Ok(Some(Event::Signal { tid, signo, pc }))
            }
            StopKind::Exec => {
                self.after_exec()?;
                let Some(id) = self
                    .breakpoints
                    .iter()
                    .find(|b| b.enabled && b.kind == BpKind::Catch(Catch::Exec))
                    .map(|b| b.id)
                else {
                    return Ok(None);
                };
                self.current.set(Some(tid));
                let p = self.process_mut()?;
                let (path, pc) = (p.exe().to_path_buf(), p.pc(tid)?);
                Ok(Some(Event::Exec { tid, id, path, pc }))
            }
            StopKind::Syscall { nr, entry } => {
                let ids = self.syscall_catchpoints(nr);
                if ids.is_empty() {
                    return Ok(None);
                }
                self.current.set(Some(tid));
                let pc = self.process_mut()?.pc(tid)?;
                Ok(Some(Event::Syscall {
                    tid,
                    ids,
                    nr,
                    entry,
                    pc,
                }))
            }
            StopKind::Forked { child, vfork } => {
                let want = if vfork { Catch::Vfork } else { Catch::Fork };
                let Some(id) = self
                    .breakpoints
                    .iter()
                    .find(|b| b.enabled && b.kind == BpKind::Catch(want.clone()))
                    .map(|b| b.id)
                else {
                    return Ok(None);
                };
                self.current.set(Some(tid));
                let pc = self.process_mut()?.pc(tid)?;
                Ok(Some(Event::Forked {
                    tid,
                    id,
                    child,
                    vfork,
                    pc,
                }))
            }
        }
    }

    // ------------------------------------------------------------ data

    pub fn read_memory(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        match &self.process {
            Some(p) => p.read_memory(addr, buf),
            None if self.core.is_some() => self.read_core_memory(addr, buf),
            None => {
                if self.symbols.read_file_bytes(addr, buf) {
                    Ok(())
                } else {
                    Err(EngineError::Memory(addr))
                }
            }
        }
    }

    /// Read code (see `SymbolTable::read_code`: from the file where it is the same).
    pub fn read_code(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        match &self.process {
            Some(p) => self.symbols.read_code(p, addr, buf),
            None => self.read_memory(addr, buf),
        }
    }

    pub fn write_memory(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        self.process_mut()?.write_memory(addr, data)
    }

    pub fn registers(&self, all: bool) -> Result<Registers> {
        if self.process.is_none()
            && let Some(r) = self.core_registers(all)
        {
            return r;
        }
        let (Some(p), Some(tid)) = (self.process.as_ref(), self.current.get()) else {
            return Err(EngineError::NotRunning);
        };
        if all {
            p.all_registers(tid)
        } else {
            p.registers(tid)
        }
    }

    /// gdb makes glibc's internal signals (SIGCANCEL and SIGSETXID, its SIG32 and SIG33)
    /// `nostop noprint` once, when it first loads libthread_db for a program; later `handle`
    /// settings stay.
    fn set_nptl_signals(&mut self) {
        if !std::mem::replace(&mut self.nptl_signals_set, true) {
            self.signals.nptl_internal();
        }
    }

    /// Set the signal table (also in the running process).
    pub fn set_signals(&mut self, t: SignalTable) {
        if let Some(p) = self.process.as_mut() {
            p.signals = t.clone();
        }
        self.signals = t;
    }

    /// `name+off` for an address, as gdb writes it inside `<…>`.
    pub fn symbolize(&self, addr: u64) -> Option<String> {
        self.symbols.symbolize(addr)
    }

    /// Name of the function containing `addr`, for frame lines (`in main ()`), and the
    /// library it comes from (`from /lib/…`, which gdb shows for code without line info — all
    /// code, until source-level support lands).
    pub fn function_at(&self, addr: u64) -> (Option<String>, Option<String>) {
        let name = self.symbols.function_name(addr);
        let lib = self
            .libs
            .iter()
            .find(|l| {
                l.text
                    .is_some_and(|(a, b)| addr >= l.bias && addr < b.max(a))
            })
            .map(|l| l.path.clone());
        (name, lib)
    }
}

/// The environment gdb gives a program: the debugger's own plus `LINES` and `COLUMNS` (which
/// gdb's readline exports: the terminal's size, or 24 by 80 without a terminal). Starting from
/// the same environment keeps stack addresses identical to a gdb run.
pub fn gdb_environment() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    let (rows, cols) = terminal_size().unwrap_or((24, 80));
    for (k, v) in [("LINES", rows), ("COLUMNS", cols)] {
        if !env.iter().any(|(name, _)| name == k) {
            env.push((k.into(), v.to_string().into()));
        }
    }
    env
}

fn terminal_size() -> Option<(u16, u16)> {
    // SAFETY: TIOCGWINSZ writes one winsize into `ws`, which we own.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    for fd in [0, 1, 2] {
        // SAFETY: ioctl on a standard descriptor with a valid out-pointer.
        if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) } == 0
            && ws.ws_row > 0
            && ws.ws_col > 0
        {
            return Some((ws.ws_row, ws.ws_col));
        }
    }
    None
}

fn lib_info(path: &str, file: &ObjectFile, bias: u64) -> SharedLib {
    SharedLib {
        path: path.to_string(),
        bias,
        text: file.text_range().map(|(a, b)| (a + bias, b + bias)),
        has_debug_info: file.has_debug_info() || file.separate_debug_file().is_some(),
        link_map: None,
    }
}

/// Whether an enabled syscall catchpoint catches every system call.
fn syscalls_any(bps: &[Breakpoint]) -> bool {
    bps.iter()
        .any(|b| b.enabled && matches!(&b.kind, BpKind::Catch(Catch::Syscall(l)) if l.is_empty()))
}
