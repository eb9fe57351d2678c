//! The source-level view of the stopped program: debug information per loaded object (parsed
//! once, shared), frames from the unwinder, the selected frame, line lookups, source text, and
//! the frame lines gdb prints (`fact (n=3) at recurse.c:5`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Weak};

// The caches below are looked up many times per stop by small keys: FxHash rather than SipHash
// (their keys come from the debugger, not from a peer).
use rustc_hash::FxHashMap;

use cohort_dwarf::format::{FormatOptions, Language, format_value};
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::location::FrameContext;
use cohort_dwarf::scopes::{self, Scope, Variable};
use cohort_dwarf::value::Value;
use cohort_engine::memory::MemoryRead;
use cohort_engine::regs::Registers;
use cohort_unwind::{Frame, FrameKind, Unwinder};

use crate::data::EvalCtx;
use crate::debugger::{Debugger, out};

/// A source file: the offsets of its lines, read once; each line is read from the file when it
/// is shown (a 270k-line, 10 MB file costs 8 bytes a line here, not its whole text).
pub struct SourceText {
    file: std::fs::File,
    /// Start offset of each line; a final entry marks the end of the last line (one past its
    /// newline).
    starts: Vec<u64>,
    /// Lines already read (a stepping loop prints the same few lines again and again).
    read: RefCell<FxHashMap<usize, String>>,
}

/// How many lines a [`SourceText`] keeps read before it starts again.
const SOURCE_LINES_KEPT: usize = 4096;

impl SourceText {
    fn open(path: &Path) -> Option<SourceText> {
        use std::io::Read;
        let mut file = std::fs::File::open(path).ok()?;
        let mut starts = vec![0u64];
        let mut buf = vec![0u8; 64 * 1024];
        let mut pos = 0u64;
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return None,
            };
            for (k, &b) in buf[..n].iter().enumerate() {
                if b == b'\n' {
                    starts.push(pos + k as u64 + 1);
                }
            }
            pos += n as u64;
        }
        // Like `str::lines`: a final newline does not start another line; a last line
        // without one ends at the end of the file.
        if pos == 0 {
            starts.clear();
            starts.push(0);
        } else if starts.last() != Some(&pos) {
            starts.push(pos + 1);
        }
        Some(SourceText {
            file,
            starts,
            read: RefCell::new(FxHashMap::default()),
        })
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Line `i` (0-based), without its newline (or `\r\n`).
    pub fn get(&self, i: usize) -> Option<String> {
        if let Some(t) = self.read.borrow().get(&i) {
            return Some(t.clone());
        }
        let t = self.read_line(i)?;
        let mut read = self.read.borrow_mut();
        if read.len() >= SOURCE_LINES_KEPT {
            read.clear();
        }
        read.insert(i, t.clone());
        Some(t)
    }

    fn read_line(&self, i: usize) -> Option<String> {
        use std::os::unix::fs::FileExt;
        let a = *self.starts.get(i)?;
        let b = self.starts.get(i + 1)?.saturating_sub(1).max(a);
        let mut buf = vec![0u8; usize::try_from(b - a).ok()?];
        self.file.read_exact_at(&mut buf, a).ok()?;
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Some(match String::from_utf8(buf) {
            Ok(t) => t,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }
}

/// `Target` (memory and symbols of the program) for a view that holds the debugger as `dbg`.
#[macro_export]
macro_rules! session_target {
    ($t:ident) => {
        impl cohort_dwarf::context::Target for $t<'_> {
            fn read_memory(&self, addr: u64, buf: &mut [u8]) -> cohort_dwarf::Result<()> {
                self.dbg.session.read_memory(addr, buf).map_err(Into::into)
            }

            fn ptr_size(&self) -> u64 {
                self.dbg.session.arch().ptr_size as u64
            }

            fn symbol_for(&self, addr: u64) -> Option<String> {
                self.dbg.value_symbol(addr)
            }

            fn static_member(&self, qualified: &str) -> Option<cohort_dwarf::value::Value> {
                $crate::source::static_member_value(self.dbg, qualified)
            }

            fn full_object(&self, addr: u64) {
                self.dbg.full_object(addr)
            }

            fn print_error(&self, line: &str) {
                $crate::errln!("{line}");
            }
        }
    };
}

/// A C++ static data member (a global variable named `Class::member`), as printing shows it
/// in its class's objects.
pub(crate) fn static_member_value(
    dbg: &Debugger,
    qualified: &str,
) -> Option<cohort_dwarf::value::Value> {
    for (d, bias) in dbg.debug_objects() {
        if let Ok(Some(var)) = cohort_dwarf::scopes::lookup_global(&d, qualified, None) {
            let ctx = StaticCtx::new(dbg, bias);
            return cohort_dwarf::location::variable_value(&d, &var, &ctx).ok();
        }
    }
    None
}

/// A line-table answer in run-time addresses.
#[derive(Debug, Clone)]
pub struct SrcLine {
    /// Full path of the file (to read it).
    pub file: Rc<Path>,
    /// The file as gdb names it in frame lines.
    pub name: Rc<str>,
    pub line: u32,
    /// Run-time start and end of the line-table entry.
    pub start: u64,
    pub end: u64,
    pub is_stmt: bool,
}

/// Lines by (debug file, bias, pc), the most recent first: see `line_at`.
type LineCache = RefCell<Vec<((usize, u64, u64), Option<SrcLine>)>>;

/// How many pcs' lines `line_at` keeps (a loop's few line starts, and the pc of the stop).
const LINE_CACHE: usize = 16;

/// Scopes by (debug file, link-time pc), with the file they were read from (kept allocated,
/// so that no other file can have its address while the entry exists).
type ScopeCache = FxHashMap<(usize, u64), (Weak<DebugFile>, Option<Rc<Scope>>)>;

/// Most scopes a thread keeps (then it starts again).
const SCOPES_KEPT: usize = 4096;

thread_local! {
    /// The scopes and source texts read on this thread, shared by its debuggers: agentd runs
    /// a tracer thread's ranks there, and ranks of one program stop at the same pcs and
    /// print the same lines; each is read once per thread, not once per rank.
    static SCOPES: RefCell<ScopeCache> = RefCell::new(FxHashMap::default());
    static SOURCES: RefCell<FxHashMap<PathBuf, Option<Rc<SourceText>>>> =
        RefCell::new(FxHashMap::default());
}

/// DWARF of loaded objects by the object's address (the object is kept with it).
type DebugByObject = RefCell<
    FxHashMap<
        usize,
        (
            Arc<cohort_engine::symbols::ObjectFile>,
            Option<Arc<DebugFile>>,
        ),
    >,
>;

/// Cached frames: (tid, pc, sp) of frame 0, the frames, whether the stack is complete.
type FramesCache = ((i32, u64, u64), Rc<Vec<Frame>>, bool);

/// Memory as a stop's entry code leaves it: (address, bytes) runs.
type Overlay = Rc<Vec<(u64, Vec<u8>)>>;

/// `entry_overlay`'s cache: (tid, pc, sp, epoch) and its answer.
type EntryOverlay = ((i32, u64, u64, u64), Option<Overlay>);

/// A frame as gdb identifies it: its CFA and the function (inlined call or not) it stands for.
pub(crate) type FrameIdentity = (Option<u64>, Option<cohort_dwarf::types::DieRef>);

/// `SourceState::all_regs`: (tid, epoch) and the registers read then.
type AllRegisters = ((i32, u64), Option<Rc<Registers>>);

/// `SourceState::ymm_high`: (tid, epoch) and the upper halves read then.
type YmmHigh = ((i32, u64), Option<[u128; 16]>);

/// Most instructions of entry code the sandbox runs (gfortran's bound computations for a
/// few runtime-sized arrays take some tens).
const ENTRY_SANDBOX_BUDGET: usize = 512;

/// Per-session source-level state.
#[derive(Default)]
pub struct SourceState {
    pub unwinder: Unwinder,
    debug: RefCell<HashMap<PathBuf, Option<Arc<DebugFile>>>>,
    /// The same by loaded object (its address), see `debug_for`.
    debug_by_object: DebugByObject,
    /// Frames of the current thread at the last stop, keyed by (tid, pc, sp) of frame 0.
    frames: RefCell<Option<FramesCache>>,
    pub selected: Cell<usize>,
    /// Tail-call chains by (callee pc, caller pc): see `tail_call_chain`.
    tails: RefCell<HashMap<(u64, u64), Vec<u64>>>,
    /// Lines of the last few pcs asked for: see `line_at`.
    lines: LineCache,
    /// gdb's skipped inline frames at frame 0: (pc, how many of the innermost inlined calls
    /// starting at that pc are hidden). A stop at the entry of an inlined call shows the
    /// caller; `step` then enters the call without moving.
    inline_skip: Cell<Option<(u64, usize)>>,
    /// The stack memory frame 0's entry code will have written, by (tid, pc, sp, process
    /// epoch): see `entry_overlay`.
    entry: RefCell<Option<EntryOverlay>>,
    /// Every register of the current thread (vector and x87 ones included), by (tid, process
    /// epoch): read only when a variable lives in one (see `Ctx::reg_bytes`).
    all_regs: RefCell<Option<AllRegisters>>,
    /// The upper halves of the thread's `ymm` registers, the same way (a 32-byte vector
    /// variable in a register).
    ymm_high: RefCell<Option<YmmHigh>>,
    /// `list`: the last line listed and its file, for a bare `list` to go on.
    pub list_last: RefCell<Option<(PathBuf, String, u32)>>,
    /// The first line of the last listing (for `list -`).
    pub list_first: RefCell<Option<(PathBuf, String, u32)>>,
    /// `list` first lines: set by a stop (centre) — gdb lists around the stop line first.
    pub list_center: RefCell<Option<(PathBuf, String, u32)>>,
    /// The file of the last source line printed at a stop, and whether it was missing
    /// (gdb's `last_source_visited` and `last_source_error`): a missing file is reported once,
    /// then its lines are shown as `LINE\tin FILE` while it stays the file shown. A library's
    /// file counts for its process only ([`SourceState::process_gen`] then): gdb reads a
    /// library's symbols again for every process (attach, run), the program's once.
    last_source: RefCell<Option<(PathBuf, bool, Option<u64>)>>,
    /// Which process this is, counted from 1 (run, attach).
    pub process_gen: std::cell::Cell<u64>,
}

/// The `ymm` register a DWARF register number names on x86-64 (17–32: `xmm0`–`xmm15`, whose
/// upper halves gdb reads with them).
pub(crate) fn ymm_number(arch: &cohort_engine::arch::ArchInfo, dwarf_regno: u16) -> Option<usize> {
    (arch.name == "x86-64" && (17..=32).contains(&dwarf_regno))
        .then(|| usize::from(dwarf_regno - 17))
}

/// Whether a breakpoint's function name (as typed) names function `name` as the DWARF gives
/// it: the same name, or its last component (`relax` for a module's `stencil::relax`),
/// ignoring case as Fortran does.
fn function_name_matches(spec: &str, name: &str) -> bool {
    let eq = |a: &str, b: &str| a == b || a.eq_ignore_ascii_case(b);
    eq(spec, name)
        || name
            .rsplit_once("::")
            .is_some_and(|(_, last)| eq(spec, last))
}

/// What [`TailSearch`] has found so far (gdb's `chain_candidate`).
enum TailChains {
    None,
    /// The first chain's call sites (link-time return addresses, outermost first) and how
    /// many of them at its start (`callers`) and end (`callees`) every chain since shares.
    Some {
        sites: Vec<u64>,
        callers: usize,
        callees: usize,
    },
}

/// Why a tail-call search stopped without an answer (gdb's `NO_ENTRY_VALUE_ERROR`).
struct TailSearchFailed;

/// The depth-first search of gdb's `call_site_find_chain_1` over one file's tail calls.
struct TailSearch<'a> {
    file: &'a Arc<DebugFile>,
    /// Link-time entry of the callee's function.
    callee: u64,
    /// The tail-call sites of the path being followed (each at most once).
    chain: Vec<u64>,
    found: TailChains,
    /// Functions left to visit (a guard against exponential call graphs).
    budget: usize,
}

impl TailSearch<'_> {
    /// Follow call site `site` to the function it calls.
    fn visit_targets(&mut self, site: &scopes::CallSite) -> Result<(), TailSearchFailed> {
        let target = match &site.target {
            scopes::CallTarget::Expr(_) | scopes::CallTarget::Unspecified => {
                return Err(TailSearchFailed);
            }
            t => scopes::call_target_address(self.file, t),
        };
        // A function defined in another object: not followed.
        let Some(target) = target else { return Ok(()) };
        self.visit_function(target)
    }

    fn visit_function(&mut self, entry: u64) -> Result<(), TailSearchFailed> {
        if entry == self.callee {
            return self.candidate();
        }
        self.budget = self.budget.checked_sub(1).ok_or(TailSearchFailed)?;
        // gdb's `func_addr_to_tail_call_list`: the address must start a function.
        match scopes::function_at(self.file, entry) {
            Ok(Some(f)) if f.block_entry_pc() == entry => {}
            _ => return Err(TailSearchFailed),
        }
        let sites = scopes::call_sites(self.file, entry).map_err(|_| TailSearchFailed)?;
        for site in sites.iter().filter(|s| s.tail_call) {
            if self.chain.contains(&site.return_pc) {
                continue;
            }
            self.chain.push(site.return_pc);
            let r = self.visit_targets(site);
            self.chain.pop();
            r?;
        }
        Ok(())
    }

    /// gdb's `chain_candidate`: keep what every chain found shares; chains sharing nothing
    /// make the answer ambiguous (the search stops).
    fn candidate(&mut self) -> Result<(), TailSearchFailed> {
        let chain = &self.chain;
        match &mut self.found {
            TailChains::None => {
                self.found = TailChains::Some {
                    sites: chain.clone(),
                    callers: chain.len(),
                    callees: chain.len(),
                };
                Ok(())
            }
            TailChains::Some {
                sites,
                callers,
                callees,
            } => {
                let n = sites.len();
                *callers = (*callers).min(chain.len());
                if let Some(i) = (0..*callers).find(|&i| sites[i] != chain[i]) {
                    *callers = i;
                }
                *callees = (*callees).min(chain.len());
                if let Some(i) =
                    (0..*callees).find(|&i| sites[n - 1 - i] != chain[chain.len() - 1 - i])
                {
                    *callees = i;
                }
                if *callers == 0 && *callees == 0 {
                    self.found = TailChains::None;
                    return Err(TailSearchFailed);
                }
                Ok(())
            }
        }
    }
}

struct NoMem;
impl MemoryRead for NoMem {
    fn read(&self, addr: u64, _buf: &mut [u8]) -> cohort_engine::Result<()> {
        Err(cohort_engine::EngineError::Memory(addr))
    }
}

impl Debugger {
    /// The function with debug information whose entry the ELF symbol `sym` (`name+off`,
    /// found at `addr`) is: its file and entry, the symbol's name and offset.
    fn symbol_function<'s>(
        &self,
        addr: u64,
        sym: &'s str,
    ) -> Option<(
        Arc<DebugFile>,
        cohort_dwarf::index::FunctionEntry,
        &'s str,
        u64,
    )> {
        let (name, off) = match sym.rsplit_once('+') {
            Some((n, o)) => (n, o.parse::<u64>().ok()?),
            None => (sym, 0),
        };
        let (d, bias) = self.debug_for(addr)?;
        let f = d.function_containing(addr.wrapping_sub(bias))?;
        (f.entry_pc()?.wrapping_add(bias) == addr.wrapping_sub(off)).then_some((d, f, name, off))
    }

    /// `<sym+off>` as gdb's `print_address` names a code address (`x`, `x/i`, `disassemble`,
    /// `info line`): the ELF symbol, except that a C++ function without a linkage name (`main`,
    /// a `static` function) is called by its physname (`main()`, `sfun(int)`), which is what
    /// gdb's symbol has as its linkage name.
    pub(crate) fn address_symbol(&self, addr: u64) -> Option<String> {
        // `set print asm-demangle on` (with `demangle`): the names a value shows.
        if self.settings.on("print asm-demangle") && self.settings.on("print demangle") {
            return self.value_symbol(addr);
        }
        let sym = self.session.symbolize(addr)?;
        let physname = || -> Option<String> {
            let (d, f, name, off) = self.symbol_function(addr, &sym)?;
            // A function of internal linkage (`static`) has no linkage name either; its ELF
            // symbol is mangled all the same (`_ZL4sfuni`).
            if f.linkage_name.is_some()
                || (f.name != name && !name.starts_with("_Z"))
                || scopes::unit_language(&d, f.unit) != Language::Cplus
            {
                return None;
            }
            Some(with_offset(physname_of(&d, &f)?, off))
        };
        // A function of another language by its name in the debug information (gdb's
        // `build_address_symbolic` prefers the block's function: `index`, the later of
        // glibc's two names for `strchr`'s code).
        let debug_name = || -> Option<String> {
            let (d, f, _, off) = self.symbol_function(addr, &sym)?;
            (scopes::unit_language(&d, f.unit) != Language::Cplus)
                .then(|| with_offset(f.name.clone(), off))
        };
        physname().or_else(debug_name).or(Some(sym))
    }

    /// `addr` as gdb names it in a value (`<cfun(int)>`, `<f(double)+4>`): a C++ function
    /// with debug information by its name with parameters, anything else by its ELF symbol.
    pub(crate) fn value_symbol(&self, addr: u64) -> Option<String> {
        // `set print demangle off`: the linkage names, as code addresses show them.
        if !self.settings.on("print demangle") {
            return self.address_symbol(addr);
        }
        let sym = self.session.symbolize(addr)?;
        // The function whose entry the ELF symbol is (whichever alias names it, as a complete
        // and a base object destructor share their code), by its name in the debug
        // information, as gdb's `build_address_symbolic` takes the block's function: of two
        // at the same code (glibc's `strchr` and its alias `index`), the later one.
        let cxx = || -> Option<String> {
            let (d, f, _, off) = self.symbol_function(addr, &sym)?;
            let name = match physname_of(&d, &f) {
                Some(n) => n,
                None if scopes::unit_language(&d, f.unit) != Language::Cplus => f.name.clone(),
                None => return None,
            };
            Some(with_offset(name, off))
        };
        // A C++ variable's mangled symbol, demangled (`<g>` for `_ZL1g`).
        let variable = || -> Option<String> {
            let (name, off) = match sym.rsplit_once('+') {
                Some((n, o)) => (n, Some(o)),
                None => (sym.as_str(), None),
            };
            let plain = cohort_dwarf::demangle::demangle_variable(name)?;
            Some(match off {
                Some(o) => format!("{plain}+{o}"),
                None => plain,
            })
        };
        // A function without debug information: its symbol demangled, as gdb's minimal
        // symbols are named (`<Hidden::~Hidden()>` in `info vtbl`).
        let minimal = || -> Option<String> {
            let (name, off) = match sym.rsplit_once('+') {
                Some((n, o)) => (n, Some(o)),
                None => (sym.as_str(), None),
            };
            let d = cohort_dwarf::demangle::demangle(name)?;
            Some(match off {
                Some(o) => format!("{d}+{o}"),
                None => d,
            })
        };
        cxx()
            .or_else(variable)
            .or_else(|| self.thunk_name(&sym))
            .or_else(minimal)
            .or(Some(sym))
    }

    /// A C++ thunk's symbol as gdb's demangler names it (`_ZThn16_N5MultiD1Ev` →
    /// `non-virtual thunk to Multi::~Multi()`).
    fn thunk_name(&self, sym: &str) -> Option<String> {
        let (name, off) = match sym.rsplit_once('+') {
            Some((n, o)) => (n, Some(o)),
            None => (sym, None),
        };
        if !(name.starts_with("_ZTh") || name.starts_with("_ZTv") || name.starts_with("_ZTc")) {
            return None;
        }
        let d = cohort_dwarf::demangle::demangle(name)?;
        Some(match off {
            Some(o) => format!("{d}+{o}"),
            None => d,
        })
    }

    /// The DWARF of the object containing run-time `pc`, with that object's bias.
    pub(crate) fn debug_for(&self, pc: u64) -> Option<(Arc<DebugFile>, u64)> {
        let obj = self.session.symbols().object_containing(pc)?;
        let bias = obj.bias;
        // By the loaded object (kept alive in the map, so its address stays its own): hashing
        // the path on every line and scope look-up of a step costs more than the look-up.
        let key = Arc::as_ptr(&obj.file) as usize;
        if let Some((_, d)) = self.src.debug_by_object.borrow().get(&key) {
            return d.clone().map(|d| (d, bias));
        }
        let file = obj.file.clone();
        let d = self.debug_file(&file.path);
        self.src
            .debug_by_object
            .borrow_mut()
            .insert(key, (file, d.clone()));
        d.map(|d| (d, bias))
    }

    /// The DWARF of the object at `path` (parsed once; `None` without debug info).
    pub(crate) fn debug_file(&self, path: &Path) -> Option<Arc<DebugFile>> {
        if let Some(d) = self.src.debug.borrow().get(path) {
            return d.clone();
        }
        let d = DebugFile::load(path).ok().filter(|d| d.has_debug_info());
        self.src
            .debug
            .borrow_mut()
            .insert(path.to_path_buf(), d.clone());
        d
    }

    /// Every loaded object with debug information, with its bias (the program first).
    pub(crate) fn debug_objects(&self) -> Vec<(Arc<DebugFile>, u64)> {
        let objs: Vec<(PathBuf, u64)> = self
            .session
            .symbols()
            .objects()
            .map(|o| (o.file.path.clone(), o.bias))
            .collect();
        objs.into_iter()
            .filter_map(|(p, b)| self.debug_file(&p).map(|d| (d, b)))
            .collect()
    }

    /// The line-table row of run-time `pc`. A step asks for the line of the same pc several
    /// times per stop, and a loop's stops come back to the same few pcs: the last
    /// [`LINE_CACHE`] answers are kept, by debug file and bias as well as pc (so a library
    /// loaded elsewhere is looked up again).
    pub(crate) fn line_at(&self, pc: u64) -> Option<SrcLine> {
        let (d, bias) = self.debug_for(pc)?;
        let key = (Arc::as_ptr(&d) as usize, bias, pc);
        if let Some((_, l)) = self.src.lines.borrow().iter().find(|(k, _)| *k == key) {
            return l.clone();
        }
        let l = d.find_line(pc.wrapping_sub(bias)).map(|l| SrcLine {
            file: Rc::from(l.file),
            name: Rc::from(l.name),
            line: l.line,
            start: l.address.wrapping_add(bias),
            end: l.end.wrapping_add(bias),
            is_stmt: l.is_stmt,
        });
        let mut cache = self.src.lines.borrow_mut();
        cache.truncate(LINE_CACHE - 1);
        cache.insert(0, (key, l.clone()));
        l
    }

    pub(crate) fn line_range(&self, pc: u64) -> Option<(u64, u64)> {
        let l = self.line_at(pc)?;
        (l.line != 0).then_some((l.start, l.end))
    }

    /// Start of the function containing `pc` (DWARF, else the ELF symbol).
    pub(crate) fn function_start(&self, pc: u64) -> Option<u64> {
        if let Some((d, bias)) = self.debug_for(pc)
            && let Ok(Some(f)) = scopes::function_at(&d, pc.wrapping_sub(bias))
        {
            return Some(f.low_pc.wrapping_add(bias));
        }
        self.session
            .symbols()
            .symbolize_parts(pc)
            .map(|(o, s, _)| s.addr + o.bias)
    }

    /// Where `step` stops in a function entered at `pc`: gdb's post-prologue address.
    pub(crate) fn post_prologue(&self, pc: u64) -> Option<u64> {
        let (d, bias) = self.debug_for(pc)?;
        let f = d.function_containing(pc.wrapping_sub(bias))?;
        d.breakpoint_address_for_function(&f)
            .map(|a| a.wrapping_add(bias))
    }

    // ------------------------------------------------------------------ frames

    /// Frames of the current thread (at most `limit`), cached until the thread moves.
    pub(crate) fn frames(&self, limit: usize) -> Rc<Vec<Frame>> {
        let Ok(regs) = self.session.registers(false) else {
            return Rc::new(Vec::new());
        };
        let key = (
            self.session.current_thread().unwrap_or(0),
            regs.pc(),
            regs.sp(),
        );
        if let Some((k, f, complete)) = &*self.src.frames.borrow()
            && *k == key
            && (*complete || f.len() >= limit)
        {
            return f.clone();
        }
        let mem: &dyn MemoryRead = match self.session.memory() {
            Some(p) => p,
            None => &NoMem,
        };
        // Unwind one frame at a time, as far as asked; gdb's `backtrace past-main` is off, so
        // the stack ends at main (and nothing past it is read).
        let limit_phys = limit.clamp(1, 100_000);
        let symbols = self.session.symbols();
        // Functions called from expressions and left where they stopped: their dummy frames.
        let dummies = self
            .session
            .process()
            .map(|p| p.call_dummies())
            .unwrap_or_default();
        let mut frames = vec![self.src.unwinder.frame0(symbols, mem, regs)];
        let mut complete = false;
        while let Some(last) = frames.last() {
            if self.frame_is_main(last) {
                complete = true;
                break;
            }
            if frames.len() >= limit_phys {
                break;
            }
            match self.src.unwinder.caller_with(symbols, mem, last, &dummies) {
                Ok(Some(f)) => frames.push(f),
                _ => {
                    complete = true;
                    break;
                }
            }
        }
        let frames = self.add_tail_calls(frames);
        let f = Rc::new(self.split_inline(frames));
        *self.src.frames.borrow_mut() = Some((key, f.clone(), complete));
        f
    }

    /// gdb's tail-call frames: where a caller's call site calls a function other than the
    /// callee found on the stack, the chain of tail calls (`DW_AT_call_tail_call` sites)
    /// leading from the one to the other, when there is exactly one, stands between them.
    fn add_tail_calls(&self, phys: Vec<Frame>) -> Vec<Frame> {
        if phys.len() < 2 {
            // Tail calls stand between a frame and its caller.
            return phys;
        }
        let mut out: Vec<Frame> = Vec::with_capacity(phys.len());
        let mut it = phys.into_iter().peekable();
        while let Some(f) = it.next() {
            let chain = match it.peek() {
                Some(caller) if f.kind == FrameKind::Normal && caller.kind == FrameKind::Normal => {
                    self.tail_call_chain(&f, caller)
                }
                _ => Vec::new(),
            };
            let cfa = f.cfa;
            let caller_regs = it.peek().map(|c| c.regs.clone());
            out.push(f);
            if let Some(regs) = caller_regs {
                // Innermost first: the function that jumped to the callee comes first.
                for ret in chain.into_iter().rev() {
                    let mut regs = regs.clone();
                    regs.set(regs.arch.pc, u128::from(ret));
                    out.push(Frame {
                        regs,
                        cfa,
                        kind: FrameKind::TailCall,
                        exact_pc: false,
                        inline_depth: 0,
                    });
                }
            }
        }
        out
    }

    /// The run-time return addresses of the tail calls from `caller`'s callee (per its call
    /// site) to the function of `callee`, outermost first; empty when none or not unique.
    fn tail_call_chain(&self, callee: &Frame, caller: &Frame) -> Vec<u64> {
        // Depends only on the two pcs: worked out once (conditions and stepping see the same
        // pairs again and again).
        let key = (callee.lookup_pc(), caller.pc());
        if let Some(c) = self.src.tails.borrow().get(&key) {
            return c.clone();
        }
        let chain = self.tail_call_chain_uncached(callee, caller);
        let mut cache = self.src.tails.borrow_mut();
        if cache.len() >= 4096 {
            cache.clear();
        }
        cache.insert(key, chain.clone());
        chain
    }

    /// gdb's `call_site_find_chain`: every chain of tail calls from the function the caller's
    /// call site calls to the callee's function (each call site at most once per chain); the
    /// tail calls all chains share at their start (callers) and at their end (callees) are
    /// frames. None when the call site calls the callee itself, when the chains share
    /// nothing, or when a target cannot be followed (an indirect tail call, a call site whose
    /// target the DWARF does not give).
    fn tail_call_chain_uncached(&self, callee: &Frame, caller: &Frame) -> Vec<u64> {
        let Some((d, bias)) = self.debug_for(caller.lookup_pc()) else {
            return Vec::new();
        };
        let Ok(Some(site)) = scopes::call_site(&d, caller.pc().wrapping_sub(bias)) else {
            return Vec::new();
        };
        let Some((cd, cbias)) = self.debug_for(callee.lookup_pc()) else {
            return Vec::new();
        };
        if !Arc::ptr_eq(&d, &cd) || cbias != bias {
            return Vec::new();
        }
        let Ok(Some(callee_fn)) = scopes::function_at(&d, callee.lookup_pc().wrapping_sub(bias))
        else {
            return Vec::new();
        };
        let mut search = TailSearch {
            file: &d,
            callee: callee_fn.block_entry_pc(),
            chain: Vec::new(),
            found: TailChains::None,
            budget: 10_000,
        };
        if search.visit_targets(&site).is_err() {
            return Vec::new();
        }
        let TailChains::Some {
            sites,
            callers,
            callees,
        } = search.found
        else {
            return Vec::new();
        };
        // gdb's `pretended_chain_levels`: all of a unique chain, else its common parts.
        let n = sites.len();
        let kept: Vec<u64> = if callers == n && callees == n {
            sites
        } else {
            sites[..callers]
                .iter()
                .chain(&sites[n - callees..])
                .copied()
                .collect()
        };
        kept.into_iter().map(|a| a.wrapping_add(bias)).collect()
    }

    /// gdb's frames: each machine frame split into its inlined calls (innermost first), less
    /// the inlined calls hidden at frame 0 (see [`SourceState::inline_skip`]).
    fn split_inline(&self, phys: Vec<Frame>) -> Vec<Frame> {
        let mut out = Vec::with_capacity(phys.len());
        for (pi, f) in phys.into_iter().enumerate() {
            let n = if matches!(f.kind, FrameKind::SignalHandler | FrameKind::Dummy) {
                1
            } else {
                self.frame_scopes(&f)
                    .map(|(s, k)| s.frames.len() - k)
                    .unwrap_or(1)
                    .max(1)
            };
            let skip = if pi == 0 && n > 1 {
                self.inline_skip_at(&f).min(n - 1)
            } else {
                0
            };
            if skip + 1 == n {
                // One frame for this machine frame (the usual case): moved, not copied.
                let mut f = f;
                f.inline_depth = skip;
                out.push(f);
                continue;
            }
            for k in skip..n {
                let mut v = f.clone();
                v.inline_depth = k;
                out.push(v);
            }
        }
        out
    }

    /// How many inlined calls are hidden at frame 0 (`frame` is the machine frame 0).
    fn inline_skip_at(&self, frame: &Frame) -> usize {
        let pc = frame.pc();
        if let Some((p, k)) = self.src.inline_skip.get()
            && p == pc
        {
            return k;
        }
        let mut k = 0;
        if let Some((_, bias, s)) = self.machine_scope_rc(frame) {
            let link = pc.wrapping_sub(bias);
            let depth = frame.inline_depth.min(s.frames.len().saturating_sub(1));
            for (i, fs) in s.frames.iter().enumerate().skip(depth) {
                if !fs.inlined {
                    break;
                }
                let f = &fs.function;
                // gdb: the block's entry, or the start of one of its ranges entered from
                // outside the block (`block_starting_point_at`).
                let starts_here = f.block_entry_pc() == link
                    || (f.ranges.len() > 1
                        && f.ranges.iter().any(|r| r.start == link)
                        && !f.contains(link.wrapping_sub(1)));
                if !starts_here || self.user_breakpoint_for(pc, &f.name, i == 0) {
                    break;
                }
                k += 1;
            }
        }
        self.src.inline_skip.set(Some((pc, k)));
        k
    }

    /// gdb's `stopped_by_user_bp_inline_frame`: an enabled breakpoint at `pc` whose location
    /// is in the inlined call of function `name` (gdb stops in the inlined call then, not in
    /// its caller). A breakpoint on a function is in that function's calls; one on a line or
    /// an address is in the innermost call there (`innermost`: the call is the innermost).
    fn user_breakpoint_for(&self, pc: u64, name: &str, innermost: bool) -> bool {
        use cohort_engine::session::BpSpec;
        self.session.breakpoints().iter().any(|b| {
            b.enabled
                && b.addrs.contains(&pc)
                && match &b.spec {
                    BpSpec::Symbol(s) | BpSpec::Location(s) => {
                        let f = match crate::locations::split_file(s) {
                            Some((file, rest)) if !file.is_empty() => rest.trim(),
                            _ => s.trim(),
                        };
                        if f.parse::<u32>().is_ok() || f.starts_with(['+', '-']) {
                            innermost
                        } else {
                            function_name_matches(f, name)
                        }
                    }
                    BpSpec::Address(_) | BpSpec::SymbolExact(_) => innermost,
                }
        })
    }

    /// The number of inlined calls hidden at frame 0 now.
    pub(crate) fn inline_skipped(&self) -> usize {
        let pc = self.frame0_pc();
        match self.src.inline_skip.get() {
            Some((p, k)) if p == pc => k,
            _ => 0,
        }
    }

    /// `step` into a hidden inlined call: show one more of them (the pc does not move).
    pub(crate) fn unskip_inline(&self) {
        if let Some((p, k)) = self.src.inline_skip.get() {
            self.src.inline_skip.set(Some((p, k.saturating_sub(1))));
        }
        *self.src.frames.borrow_mut() = None;
        self.src.selected.set(0);
    }

    fn frame_is_main(&self, f: &Frame) -> bool {
        if matches!(f.kind, FrameKind::SignalHandler | FrameKind::Dummy) {
            return false;
        }
        let pc = f.lookup_pc();
        // A Fortran main program (`DW_AT_main_subprogram`) is where gdb's backtrace ends.
        if let Some((d, bias)) = self.debug_for(pc)
            && scopes::main_subprogram_at(&d, pc.wrapping_sub(bias))
        {
            return true;
        }
        // GCC's cold part of main (`main.cold`, a handler of main's) is main's too: its
        // debug information says so.
        let dwarf_main = |pc: u64| {
            self.debug_for(pc).is_some_and(|(d, bias)| {
                scopes::function_at(&d, pc.wrapping_sub(bias))
                    .ok()
                    .flatten()
                    .is_some_and(|f| f.name == "main")
            })
        };
        match self.session.symbols().symbolize_parts(pc) {
            Some((o, s, _)) => {
                (s.name == "main" || (s.name == "main.cold" && dwarf_main(pc)))
                    && self
                        .session
                        .symbols()
                        .main()
                        .is_some_and(|m| Arc::ptr_eq(&m.file, &o.file))
            }
            None => false,
        }
    }

    pub(crate) fn cfa_of_frame0(&self) -> Option<u64> {
        self.frames(1).first().and_then(|f| f.cfa)
    }

    pub(crate) fn return_address_of_frame0(&self) -> Option<u64> {
        let frames = self.frames(2);
        machine_caller(&frames, 0)
            .and_then(|j| frames.get(j))
            .map(|f| f.pc())
    }

    pub(crate) fn selected_frame(&self) -> usize {
        self.src.selected.get()
    }

    pub(crate) fn select_frame(&self, n: usize) {
        self.src.selected.set(n);
    }

    /// A frame context for location evaluation at frame `idx` of `frames`.
    pub(crate) fn frame_ctx<'a>(&'a self, frames: &'a [Frame], idx: usize) -> Option<Ctx<'a>> {
        let frame = frames.get(idx)?;
        let pc = frame.lookup_pc();
        let bias = self
            .session
            .symbols()
            .object_containing(pc)
            .map(|o| o.bias)
            .unwrap_or(0);
        // The caller is the next machine frame (inlined calls share their frame's registers).
        let caller =
            machine_caller(frames, idx).and_then(|j| self.frame_ctx(frames, j).map(Box::new));
        let machine0 = (1..=idx).all(|j| frames.get(j).is_some_and(|f| f.inline_depth != 0));
        let overlay = if machine0 {
            self.entry_overlay(&frames[0])
        } else {
            None
        };
        Some(Ctx {
            dbg: self,
            regs: &frame.regs,
            frame0: &frames[0].regs,
            cfa: frame.cfa,
            pc,
            frame_pc: frame.pc(),
            bias,
            caller,
            overlay,
        })
    }

    /// Where frame 0 stopped in the entry code of its function (from gdb's post-prologue
    /// address to the end of the code of the function's first line, before the first line
    /// of its body: where gdb's breakpoint on a gfortran procedure stops), the stores that code is still to make into the frame, found by
    /// running it in a sandbox and rolling it back. Reads of the frame's variables see them:
    /// gfortran's DWARF describes runtime array bounds and a host procedure's dummies
    /// through frame slots that this code fills. `None` elsewhere, or when the sandbox
    /// cannot run the code safely (then memory is read as it is).
    fn entry_overlay(&self, frame0: &Frame) -> Option<Overlay> {
        if !frame0.exact_pc || frame0.kind != FrameKind::Normal {
            return None;
        }
        let p = self.session.process()?;
        let tid = self.session.current_thread()?;
        let pc = frame0.pc();
        let key = (tid, pc, frame0.sp(), p.epoch());
        if let Some((k, o)) = &*self.src.entry.borrow()
            && *k == key
        {
            return o.clone();
        }
        let o = self.entry_overlay_uncached(frame0, tid).map(Rc::new);
        *self.src.entry.borrow_mut() = Some((key, o.clone()));
        o
    }

    fn entry_overlay_uncached(&self, frame0: &Frame, tid: i32) -> Option<Vec<(u64, Vec<u8>)>> {
        let pc = frame0.pc();
        let (d, bias) = self.debug_for(pc)?;
        let f = scopes::function_at(&d, pc.wrapping_sub(bias))
            .ok()
            .flatten()?;
        let (low, high) = (f.low_pc.wrapping_add(bias), f.high_pc.wrapping_add(bias));
        let first = self.line_at(low)?;
        let here = self.line_at(pc)?;
        if here.line != first.line || here.file != first.file || first.line == 0 {
            return None;
        }
        // Only from gdb's post-prologue address on (where `break FUNCTION` stops): in the
        // prologue proper gdb reads the frame as it is, and so does cohort.
        if pc < self.post_prologue(pc)? {
            return None;
        }
        // The end of the entry code: the first row after pc of another line.
        let mut until = here.end;
        while until < high {
            let next = self.line_at(until)?;
            if next.line != first.line || next.file != first.file {
                break;
            }
            if next.end <= until {
                return None;
            }
            until = next.end;
        }
        if until >= high || until <= pc {
            return None;
        }
        let req = cohort_engine::process::SandboxRequest {
            until,
            within: low..high,
            stack_top: frame0.cfa?,
            budget: ENTRY_SANDBOX_BUDGET,
        };
        match self.session.process()?.sandbox_run(tid, &req) {
            Ok(run) => Some(run.stores),
            Err(e) => {
                tracing::debug!(pc, until, "entry sandbox: {e}");
                None
            }
        }
    }

    /// The scope (function, inlined calls, blocks) of `frame`: `innermost()` is the call the
    /// frame stands for (its `inline_depth`).
    pub(crate) fn scope_of(&self, frame: &Frame) -> Option<(Arc<DebugFile>, u64, Scope)> {
        let (d, bias, mut s) = self.machine_scope_of(frame)?;
        let k = frame.inline_depth.min(s.frames.len().saturating_sub(1));
        s.frames.drain(..k);
        Some((d, bias, s))
    }

    /// The whole scope at the pc of `frame` (every inlined call, innermost first). Read
    /// from the DWARF once per pc (conditions and stepping ask for the same pcs again and
    /// again).
    pub(crate) fn machine_scope_of(&self, frame: &Frame) -> Option<(Arc<DebugFile>, u64, Scope)> {
        self.machine_scope_rc(frame)
            .map(|(d, bias, s)| (d, bias, Scope::clone(&s)))
    }

    /// [`Self::machine_scope_of`] without copying the scope (stepping asks for it several
    /// times per stop).
    pub(crate) fn machine_scope_rc(
        &self,
        frame: &Frame,
    ) -> Option<(Arc<DebugFile>, u64, Rc<Scope>)> {
        if frame.kind == FrameKind::Dummy {
            return None;
        }
        let pc = frame.lookup_pc();
        let (d, bias) = self.debug_for(pc)?;
        let link = pc.wrapping_sub(bias);
        let key = (Arc::as_ptr(&d) as usize, link);
        let hit = SCOPES.with(|c| {
            c.borrow()
                .get(&key)
                .filter(|(f, _)| std::ptr::eq(f.as_ptr(), Arc::as_ptr(&d)))
                .map(|(_, s)| s.clone())
        });
        if let Some(s) = hit {
            return s.map(|s| (d, bias, s));
        }
        let s = scopes::scope_at(&d, link).ok().flatten().map(Rc::new);
        SCOPES.with(|c| {
            let mut cache = c.borrow_mut();
            if cache.len() >= SCOPES_KEPT {
                cache.clear();
            }
            cache.insert(key, (Arc::downgrade(&d), s.clone()));
        });
        s.map(|s| (d, bias, s))
    }

    /// The innermost function scope of `frame` as [`Self::scope_of`] gives it, and the ones
    /// that contain it (outwards), without copying the scope.
    pub(crate) fn frame_scopes(&self, frame: &Frame) -> Option<(Rc<Scope>, usize)> {
        let (_, _, s) = self.machine_scope_rc(frame)?;
        let k = frame.inline_depth.min(s.frames.len().saturating_sub(1));
        Some((s, k))
    }

    /// The source line of a frame: the line of its pc, or for a frame whose callee is an
    /// inlined call, the line of that call.
    pub(crate) fn frame_src_line(&self, frame: &Frame) -> Option<SrcLine> {
        if frame.kind == FrameKind::Dummy {
            return None;
        }
        if frame.inline_depth > 0 && frame.kind != FrameKind::SignalHandler {
            let (d, _, s) = self.machine_scope_rc(frame)?;
            let callee = s.frames.get(frame.inline_depth - 1)?;
            let line = u32::try_from(callee.call_line?).ok()?;
            let lines = d.unit_lines(callee.function.unit).ok()?;
            let sf = lines.file_by_index(callee.call_file_index?)?;
            return Some(SrcLine {
                file: Rc::from(sf.full.as_path()),
                name: Rc::from(sf.name.as_str()),
                line,
                start: frame.pc(),
                end: frame.pc(),
                is_stmt: true,
            });
        }
        self.line_at(frame.lookup_pc())
    }

    /// The value of `var` in frame `idx`, or the text gdb prints instead.
    pub(crate) fn var_value(
        &self,
        d: &Arc<DebugFile>,
        var: &Variable,
        frames: &[Frame],
        idx: usize,
    ) -> Result<Value, String> {
        let Some(ctx) = self.frame_ctx(frames, idx) else {
            return Err("<error: no frame>".into());
        };
        cohort_dwarf::location::variable_value(d, var, &ctx).map_err(|e| format!("<error: {e}>"))
    }

    /// gdb's `recurse` for an argument in a frame line (`print_frame_arg`).
    pub(crate) const FRAME_ARG_RECURSE: usize = 2;

    pub(crate) fn format(&self, v: &Value, opts: &FormatOptions) -> String {
        cohort_dwarf::format::without_abort(self.format_in(v, opts, None))
    }

    /// [`Self::format`], keeping a printing error that ends the command in gdb (see
    /// [`cohort_dwarf::format::split_abort`]): for `print` and the variable listings.
    pub(crate) fn format_keep_abort(&self, v: &Value, opts: &FormatOptions) -> String {
        self.format_in(v, opts, None)
    }

    /// [`Self::format`], a Fortran value's components resolved in `ctx` (a listed frame's)
    /// rather than in the selected frame.
    fn format_in(&self, v: &Value, opts: &FormatOptions, ctx: Option<&EvalCtx<'_>>) -> String {
        let opts = FormatOptions {
            language: self.language(),
            print_elements: self.print_elements,
            repeat_threshold: self.print_repeats,
            // gdb prints a frame line's arguments with `get_no_prettyformat_print_options`:
            // structures on one line, arrays as set.
            pretty: self.settings.on("print pretty") && opts.recurse != Self::FRAME_ARG_RECURSE,
            pretty_arrays: self.settings.on("print array"),
            static_members: self.settings.on("print static-members"),
            demangle: self.settings.on("print demangle"),
            addressprint: self.settings.on("print address"),
            array_indexes: self.settings.on("print array-indexes"),
            stop_at_null: self.settings.on("print null-stop"),
            unionprint: self.settings.on("print union"),
            symbolprint: self.settings.on("print symbol"),
            output_radix: self
                .settings
                .count("output-radix")
                .map_or(10, |n| u32::try_from(n).unwrap_or(10)),
            max_depth: self
                .settings
                .count("print max-depth")
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            ..opts.clone()
        };
        if opts.language == Language::Fortran {
            use cohort_dwarf::context::EvalContext;
            let selected;
            let ctx = match ctx {
                Some(c) => c,
                None => {
                    selected = self.eval_ctx();
                    &selected
                }
            };
            let resolve = |t: &cohort_dwarf::types::TypeRef, a: u64| ctx.resolve_object(t, a);
            return cohort_fortran::format_value_with(v, &self.target(), &opts, &resolve);
        }
        format_value(v, &self.target(), &opts)
    }

    /// What `info locals`, `info args`, `bt full` and `info common` print after `NAME = ` for
    /// `var` in frame `idx`: in a Fortran frame the value `print NAME` gives there
    /// (`cohort_fortran::eval::variable_value`: a `class(t)` object as its dynamic type, a
    /// deferred-length string or character array with its contents), else the variable's
    /// value as its DWARF makes it; `<error: …>` in its place when it cannot be read.
    pub(crate) fn listed_value(
        &self,
        d: &Arc<DebugFile>,
        var: &Variable,
        frames: &Rc<Vec<Frame>>,
        idx: usize,
        opts: &FormatOptions,
    ) -> String {
        let v = match self.var_value(d, var, frames, idx) {
            Ok(v) => v,
            Err(e) => return e,
        };
        if self.language() != Language::Fortran
            || scopes::unit_language(d, var.unit) != Language::Fortran
        {
            // A printing error gdb does not survive: the variable's error after what printed.
            let text = self.format_keep_abort(&v, opts);
            return match cohort_dwarf::format::split_abort(&text) {
                Some((before, msg)) => {
                    format!("{before}<error reading variable {} ({msg})>", var.name)
                }
                None => text,
            };
        }
        let ctx = self.frame_eval_ctx(frames.clone(), idx);
        match cohort_fortran::eval::variable_value(v, &ctx) {
            // gdb refuses arrays beyond `max-value-size` in listings as in `print`.
            Ok(v) => match cohort_fortran::eval::check_value_size(&v, self.max_value_size) {
                Ok(()) => cohort_dwarf::format::without_abort(self.format_in(&v, opts, Some(&ctx))),
                Err(e) => format!("<error reading variable {} ({e})>", var.name),
            },
            Err(e) => format!("<error: {e}>"),
        }
    }

    pub(crate) fn target(&self) -> SessionTarget<'_> {
        SessionTarget { dbg: self }
    }

    /// `(n=3, s=0x7ffe…)`: the arguments of a frame as gdb lists them in frame lines.
    pub(crate) fn frame_args(&self, frames: &[Frame], idx: usize) -> String {
        let Some(frame) = frames.get(idx) else {
            return String::new();
        };
        let Some((d, _, scope)) = self.scope_of(frame) else {
            return String::new();
        };
        let Some(fs) = scope.innermost() else {
            return String::new();
        };
        let opts = FormatOptions {
            type_prefix: false,
            recurse: Self::FRAME_ARG_RECURSE,
            ..FormatOptions::default()
        };
        let ctx = self.frame_ctx(frames, idx);
        // gdb looks a parameter's entry location up at the machine function's entry (also for
        // an inlined call: `get_frame_func` is the containing real function).
        let entry_pc = scope
            .function()
            .map(|f| f.block_entry_pc())
            .unwrap_or(fs.function.low_pc);
        let fortran = self.language() == Language::Fortran;
        // gdb's `set print frame-arguments`: `scalars` (aggregates as `...`), `all`, `none`
        // (every value `...`), `presence` (the whole list `...`).
        let mode = self.settings.get("print frame-arguments").to_string();
        if mode == "presence" {
            return if fs.params.is_empty() {
                String::new()
            } else {
                "...".to_string()
            };
        }
        let all = mode == "all";
        let parts: Vec<String> = fs
            .params
            .iter()
            .map(|p| {
                if mode == "none" {
                    return format!("{}=...", p.name);
                }
                // gdb's `print frame-arguments scalars`: aggregates show as `...`, also when
                // optimized out (gdb's summary mode decides on the type first).
                let val = self.var_value(&d, p, frames, idx);
                let v = match &val {
                    // `all`: every value in full, as `print` shows it.
                    Ok(v) if all => self.format(v, &opts),
                    // gdb checks for an incomplete class before its printers and the summary.
                    Ok(v) if is_incomplete_class(&v.ty) => "<incomplete type>".to_string(),
                    // Through a reference, the printer of a class the program has only as a
                    // declaration fails (see `top_level_printer_error`): nothing is shown.
                    Ok(v)
                        if let cohort_dwarf::types::TypeKind::Reference(t)
                        | cohort_dwarf::types::TypeKind::RvalueReference(t) =
                            &v.ty.strip().kind
                            && let Some(e) =
                                cohort_dwarf::format::top_level_printer_error(t.get()) =>
                    {
                        crate::errln!("Python Exception <class 'gdb.error'>: {e}");
                        String::new()
                    }
                    // The standard library's printers summarise (`std::vector of length 7,
                    // capacity 7 = {...}`).
                    Ok(v)
                        if let Some(s) =
                            cohort_dwarf::format::summary(v, &self.target(), &opts) =>
                    {
                        s
                    }
                    Ok(v) if is_aggregate(v) => "...".to_string(),
                    // gdb decides on the type: a Fortran string or array whose location is
                    // not known here is still `...`.
                    Ok(_) if is_fortran_nonscalar(&p.ty) => "...".to_string(),
                    // A polymorphic (`class(t)`) dummy is an aggregate of its dynamic type.
                    Ok(v)
                        if fortran
                            && cohort_fortran::descriptor::class_dynamic(v, &self.target())
                                .is_some() =>
                    {
                        "...".to_string()
                    }
                    Ok(v) => self.format(v, &opts),
                    Err(e) => e.clone(),
                };
                // gdb's `print entry-values default`: `x=x@entry=5` when the value on entry
                // is known and the same, `x=6, x@entry=5` when it differs.
                // Inlined calls too: gdb resolves them through the machine frame's caller.
                // A C++ reference's entry value is the object it referred to, which needs
                // the call site's DW_AT_call_data_value: gdb shows none without it (its
                // "Cannot resolve DW_AT_call_data_value"), and so none here.
                let is_ref = matches!(
                    p.ty.strip().kind,
                    cohort_dwarf::types::TypeKind::Reference(_)
                        | cohort_dwarf::types::TypeKind::RvalueReference(_)
                );
                let entry = match &ctx {
                    _ if is_ref => None,
                    Some(c) => cohort_dwarf::location::entry_value_of(&d, p, entry_pc, c)
                        .ok()
                        .filter(|e| !e.optimized_out),
                    None => None,
                };
                match (entry, &val) {
                    (Some(e), Ok(cur)) if !cur.optimized_out && cur.bytes == e.bytes => {
                        format!("{0}={0}@entry={v}", p.name)
                    }
                    (Some(e), _) => {
                        format!("{0}={v}, {0}@entry={1}", p.name, self.format(&e, &opts))
                    }
                    (None, _) => format!("{}={v}", p.name),
                }
            })
            .collect();
        parts.join(", ")
    }

    /// Where the current thread is in the user's terms, when its innermost frame is not in
    /// the user's program (a system or MPI library): the MPI call it is inside and the line of
    /// the program that called it (`waiting in MPI_Allreduce called from timestep.c:116`), or
    /// the library function the program called (`stopped in read called from cat.c:12`). `None` when
    /// frame 0 is the program's, or no frame of the program with a line is found.
    pub(crate) fn user_terms(&self) -> Option<String> {
        let frames = self.frames(64);
        let f0 = frames.first()?;
        if self.in_user_object(f0) {
            return None;
        }
        let (i, mpi) = self.user_frame(&frames);
        let i = i?;
        let l = self.frame_src_line(&frames[i])?;
        Some(match mpi {
            Some((0, m)) => format!("stopped in {m} called from {}:{}", l.name, l.line),
            Some((_, m)) => format!("waiting in {m} called from {}:{}", l.name, l.line),
            // The library function the program called (`sleep`, not the `clock_nanosleep`
            // it runs in); a function without a symbol by its library (`libgomp.so.1`).
            None => {
                let callee = frames.get(i.saturating_sub(1));
                let name = match callee.map(|f| self.frame_function(f)) {
                    Some((Some(n), _)) => public_name(&n).to_string(),
                    Some((None, Some(lib))) => format!(
                        "?? from {}",
                        std::path::Path::new(&lib)
                            .file_name()
                            .map_or(lib.clone(), |f| f.to_string_lossy().into_owned())
                    ),
                    _ => "??".to_string(),
                };
                format!("stopped in {name} called from {}:{}", l.name, l.line)
            }
        })
    }

    /// The innermost frame of the user's code in `frames`, and the MPI call below it: the
    /// outermost frame under it named like one, with its index.
    pub(crate) fn user_frame(&self, frames: &[Frame]) -> (Option<usize>, Option<(usize, String)>) {
        let mut mpi = None;
        for (i, f) in frames.iter().enumerate() {
            if self.in_user_object(f) {
                return (Some(i), mpi);
            }
            if let Some(m) = self.frame_function(f).0.as_deref().and_then(mpi_call_name) {
                mpi = Some((i, m));
            }
        }
        (None, mpi)
    }

    /// Where the program is stopped, as facts (see [`crate::facts::StopFacts`]): the innermost
    /// frame of the program's own code, the MPI call below it if any.
    pub(crate) fn stop_facts(&self) -> crate::facts::StopFacts {
        let frames = self.frames(64);
        let pc = frames.first().map_or(0, |f| f.pc());
        let at_breakpoint = !self.session.breakpoints_at(pc).is_empty();
        let (user, mpi) = self.user_frame(&frames);
        let mpi_call = mpi.map(|(_, m)| m);
        let frame = user.and_then(|i| frames.get(i)).or(frames.first());
        let line = frame.and_then(|f| self.frame_src_line(f));
        crate::facts::StopFacts {
            function: frame.and_then(|f| self.frame_function(f).0),
            file: line.as_ref().map(|l| l.name.to_string()),
            path: line.as_ref().map(|l| l.file.display().to_string()),
            line: line.as_ref().map(|l| l.line),
            pc,
            at_breakpoint,
            mpi_call,
        }
    }

    /// Whether a frame's code is the user's: the program, or a library outside the system's
    /// folders and the MPI installations.
    pub(crate) fn in_user_object(&self, frame: &Frame) -> bool {
        match self.session.function_at(frame.lookup_pc()).1 {
            None => true,
            Some(lib) => !is_system_library(&lib),
        }
    }

    /// The name of the function of a frame (innermost inlined call first), DWARF or ELF.
    pub(crate) fn frame_function(&self, frame: &Frame) -> (Option<String>, Option<String>) {
        if let Some((d, _, s)) = self.scope_of(frame)
            && let Some(f) = s.innermost()
        {
            return (Some(self.function_print_name(&d, &f.function)), None);
        }
        self.session.function_at(frame.lookup_pc())
    }

    /// gdb's frame line: `fact (n=3) at t.c:5`, `0x… in main () at t.c:12`,
    /// `0x… in __libc_start_call_main () from /lib/…`; `#N  ` prefixed when `idx` is given.
    pub(crate) fn describe_frame(&self, frames: &[Frame], idx: usize, numbered: bool) -> String {
        let Some(frame) = frames.get(idx) else {
            return String::new();
        };
        let mut s = String::new();
        if numbered {
            // gdb: "#0  ", "#10 ".
            s = format!("#{idx:<3}");
        }
        if frame.kind == FrameKind::SignalHandler {
            s.push_str("<signal handler called>");
            return s;
        }
        if frame.kind == FrameKind::Dummy {
            s.push_str("<function called from gdb>");
            return s;
        }
        let pc = frame.pc();
        let line = self.frame_src_line(frame);
        // gdb shows no address for a frame whose callee is an inlined call, nor at the start
        // of a statement line (`frame_show_address`: pc != sal.pc || !sal.is_stmt).
        let at_line_start = frame.inline_depth > 0
            || (frame.exact_pc && line.as_ref().is_some_and(|l| l.start == pc && l.is_stmt));
        if !at_line_start && self.settings.on("print address") {
            s.push_str(&format!("0x{pc:016x} in "));
        }
        let (name, lib) = self.frame_function(frame);
        s.push_str(name.as_deref().unwrap_or("??"));
        s.push_str(" (");
        if line.is_some() {
            s.push_str(&self.frame_args(frames, idx));
        }
        s.push(')');
        match (line, lib) {
            (Some(l), _) if l.line != 0 => s.push_str(&format!(" at {}:{}", l.name, l.line)),
            (_, Some(lib)) => s.push_str(&format!(" from {lib}")),
            _ => {}
        }
        s
    }

    /// The frame line for frame 0 at a stop (no `#0`).
    pub(crate) fn frame0_line(&self) -> String {
        let frames = self.frames(usize::MAX);
        self.describe_frame(&frames, 0, false)
    }

    /// `Run till exit from #0 …` text.
    pub(crate) fn frame_description(&self, _frame: &Frame, idx: usize, numbered: bool) -> String {
        let frames = self.frames(usize::MAX);
        self.describe_frame(&frames, idx, numbered)
    }

    /// Print frame 0's line (`fact (n=3) at t.c:5`); `with_addr` is implied by the pc.
    pub(crate) fn print_frame_header(&self, _pc: u64, _finish: bool) {
        out(self.frame0_line());
    }

    /// `12\t    return s->area;` for the line of `pc` (and remember it for `list`).
    pub(crate) fn print_source_line_at(&self, pc: u64) {
        let frames = self.frames(1);
        let l = match frames.first() {
            Some(f) if f.pc() == pc && f.inline_depth > 0 => self.frame_src_line(f),
            _ => self.line_at(pc),
        };
        let Some(l) = l else { return };
        if l.line == 0 {
            return;
        }
        self.print_source_line(&l.file, &l.name, l.line, pc);
    }

    /// After `stepi`/`nexti`: `0x…\t5\t…` mid-line, `5\t…` at a line start; a new function
    /// gets its frame line first.
    pub(crate) fn print_stop_location(&self, pc: u64) {
        match self.line_at(pc) {
            Some(l) if l.line != 0 => {
                if l.start == pc {
                    self.print_source_line(&l.file, &l.name, l.line, pc);
                } else {
                    crate::out!("0x{pc:016x}\t");
                    self.print_source_line(&l.file, &l.name, l.line, pc);
                }
            }
            _ => out(self.frame0_line()),
        }
    }

    /// Print one source line as gdb does after a stop, and centre the next `list` on it.
    /// `pc` is where the line is (which object's file it is).
    pub(crate) fn print_source_line(&self, file: &Path, name: &str, line: u32, pc: u64) {
        let text = self.source_text(file);
        let syms = self.session.symbols();
        let in_program = match (syms.object_containing(pc), syms.objects().next()) {
            (Some(o), Some(main)) => std::ptr::eq(o, main),
            _ => true,
        };
        let generation = (!in_program).then(|| self.src.process_gen.get());
        let mut last = self.src.last_source.borrow_mut();
        let reported = matches!(&*last, Some((f, true, g)) if f == file && *g == generation);
        match &text {
            Some(text) => match text.get(line as usize - 1) {
                Some(t) => out(format!("{line}\t{t}")),
                None => out(format!(
                    "Line number {line} out of range; \"{name}\" has {} lines.",
                    text.len()
                )),
            },
            // gdb reports a missing source file on stderr, once while it stays the file shown.
            None if reported => out(format!("{line}\tin {name}")),
            None => crate::errln!("{line}\t{name}: No such file or directory."),
        }
        *last = Some((file.to_path_buf(), text.is_none(), generation));
        drop(last);
        // (Reusing the buffers: a stepping loop prints a line at every stop.)
        match &mut *self.src.list_center.borrow_mut() {
            Some((f, n, l)) => {
                f.as_mut_os_string().clear();
                f.push(file);
                n.clear();
                n.push_str(name);
                *l = line;
            }
            c => *c = Some((file.to_path_buf(), name.to_string(), line)),
        }
        *self.src.list_last.borrow_mut() = None;
    }

    /// The lines of a source file (read once).
    pub(crate) fn source_text(&self, file: &Path) -> Option<Rc<SourceText>> {
        if let Some(t) = SOURCES.with(|c| c.borrow().get(file).cloned()) {
            return t;
        }
        let t = SourceText::open(file).map(Rc::new);
        SOURCES.with(|c| c.borrow_mut().insert(file.to_path_buf(), t.clone()));
        t
    }

    /// Address of `offset` in the thread-local block, for the thread whose registers are
    /// `regs`, of the object loaded at `bias`. glibc: the thread pointer's TCB holds the DTV one
    /// pointer in; entry `modid` of the DTV (two pointers each, entry 0 the generation) is the
    /// module's block. The program is module 1; a library's module id is read from its
    /// `struct link_map` at the offset glibc publishes for libthread_db
    /// (`_thread_db_link_map_l_tls_modid`: size in bits, count, offset).
    pub(crate) fn tls_address(
        &self,
        regs: &Registers,
        bias: u64,
        offset: u64,
    ) -> cohort_dwarf::Result<u64> {
        let cannot = || {
            cohort_dwarf::DwarfError::user("Cannot access thread-local variables in this context")
        };
        let arch = regs.arch;
        let tp = arch
            .thread_pointer
            .and_then(|i| regs.get(i))
            .ok_or_else(cannot)? as u64;
        let mem = self.session.memory().ok_or_else(cannot)?;
        let ptr = arch.ptr_size as u64;
        let is_program = self
            .session
            .symbols()
            .main()
            .is_some_and(|m| m.bias == bias);
        let lib = if is_program {
            None
        } else {
            Some(
                self.session
                    .libraries()
                    .iter()
                    .find(|l| l.bias == bias)
                    .ok_or_else(cannot)?,
            )
        };
        let modid = match lib {
            None => 1,
            Some(lib) => {
                let lm = lib.link_map.ok_or_else(cannot)?;
                let desc = self
                    .session
                    .symbols()
                    .lookup("_thread_db_link_map_l_tls_modid")
                    .ok_or_else(cannot)?;
                let mut d = [0u8; 12];
                mem.read(desc, &mut d).map_err(|_| cannot())?;
                let bits = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
                let off = u32::from_le_bytes([d[8], d[9], d[10], d[11]]);
                let mut v = [0u8; 8];
                let n = ((bits / 8) as usize).clamp(1, 8);
                mem.read(lm + u64::from(off), &mut v[..n])
                    .map_err(|_| cannot())?;
                u64::from_le_bytes(v)
            }
        };
        let dtv = mem.read_u64(tp + ptr).map_err(|_| cannot())?;
        let block = mem.read_u64(dtv + 2 * ptr * modid).map_err(|_| cannot())?;
        // Dynamic TLS is allocated for a thread on its first use (gdb's wording).
        if block == 0 || block == u64::MAX {
            let tid = self.session.current_thread().unwrap_or(0);
            let name = lib.map(|l| l.path.clone()).unwrap_or_default();
            return Err(cohort_dwarf::DwarfError::user(format!(
                "The inferior has not yet allocated storage for thread-local variables in\nthe shared library `{name}'\nfor {}",
                crate::debugger::thread_target(tp, tid, self.session.pid())
            )));
        }
        Ok(block + offset)
    }

    /// The current source file and line: where the last stop or `list` left it.
    pub(crate) fn current_source(&self) -> Option<(PathBuf, String, u32)> {
        self.src
            .list_center
            .borrow()
            .clone()
            .or_else(|| self.src.list_last.borrow().clone())
    }

    /// The pc of the current thread (0 without a process).
    pub(crate) fn frame0_pc(&self) -> u64 {
        self.session.registers(false).map(|r| r.pc()).unwrap_or(0)
    }

    /// A stop report's location: the frame line, then the source line when there is one.
    pub(crate) fn print_stop_frame(&self) {
        self.invalidate_frames();
        out(self.frame0_line());
        self.print_source_line_at(self.frame0_pc());
    }

    /// Register `i` of the current thread, vector and x87 ones included; read once per stop
    /// (per thread and process epoch).
    pub(crate) fn thread_register(&self, i: usize) -> Option<u128> {
        let key = (
            self.session.current_thread()?,
            self.session.process().map_or(0, |p| p.epoch()),
        );
        if let Some((k, r)) = &*self.src.all_regs.borrow()
            && *k == key
        {
            return r.as_ref()?.get(i);
        }
        let r = self.session.registers(true).ok().map(Rc::new);
        let v = r.as_ref().and_then(|r| r.get(i));
        *self.src.all_regs.borrow_mut() = Some((key, r));
        v
    }

    /// The upper 128 bits of the current thread's `ymm` register `n` (`None` without AVX);
    /// read once per stop.
    pub(crate) fn thread_ymm_high(&self, n: usize) -> Option<u128> {
        let key = (
            self.session.current_thread()?,
            self.session.process()?.epoch(),
        );
        if let Some((k, r)) = &*self.src.ymm_high.borrow()
            && *k == key
        {
            return r.as_ref()?.get(n).copied();
        }
        let r = self.session.process()?.ymm_high(key.0).ok().flatten();
        let v = r.as_ref().and_then(|r| r.get(n).copied());
        *self.src.ymm_high.borrow_mut() = Some((key, r));
        v
    }

    /// Forget cached frames (after the program or the selected thread moved).
    pub(crate) fn invalidate_frames(&self) {
        *self.src.frames.borrow_mut() = None;
        self.src.inline_skip.set(None);
        self.src.selected.set(0);
    }

    /// Frame 0 as gdb identifies frames: its CFA and the function (inlined call or not) it
    /// stands for.
    pub(crate) fn frame0_identity(&self) -> FrameIdentity {
        let frames = self.frames(1);
        let Some(f) = frames.first() else {
            return (None, None);
        };
        self.frame_identity(f)
    }

    /// The identity of frame `f` (see [`Self::frame0_identity`]).
    pub(crate) fn frame_identity(
        &self,
        f: &Frame,
    ) -> (Option<u64>, Option<cohort_dwarf::types::DieRef>) {
        let die = self
            .frame_scopes(f)
            .and_then(|(s, k)| s.frames.get(k).map(|fs| fs.function.die));
        (f.cfa, die)
    }

    /// Whether frame 0 is an inlined call made (directly or not) from the frame `outer`
    /// (gdb's `stepped_in_from`).
    pub(crate) fn frame0_inlined_from(
        &self,
        outer: &(Option<u64>, Option<cohort_dwarf::types::DieRef>),
    ) -> bool {
        let frames = self.frames(1);
        let Some(f) = frames.first() else {
            return false;
        };
        if f.cfa != outer.0 {
            return false;
        }
        let Some((s, k)) = self.frame_scopes(f) else {
            return false;
        };
        s.frames.get(k).is_some_and(|fs| fs.inlined)
            && s.frames
                .iter()
                .skip(k + 1)
                .any(|fs| Some(fs.function.die) == outer.1)
    }

    /// The source line of frame 0 as gdb sees it (the call line when inlined calls are
    /// hidden there).
    pub(crate) fn frame0_src_line(&self) -> Option<SrcLine> {
        let frames = self.frames(1);
        frames.first().and_then(|f| self.frame_src_line(f))
    }
}

/// The index of the machine caller of frame `idx`: the next frame that is not one of the
/// inlined calls of the same machine frame.
pub(crate) fn machine_caller(frames: &[Frame], idx: usize) -> Option<usize> {
    frames
        .iter()
        .enumerate()
        .skip(idx + 1)
        .find(|(_, f)| f.inline_depth == 0)
        .map(|(j, _)| j)
}

fn is_fortran_nonscalar(ty: &cohort_dwarf::types::TypeRef) -> bool {
    use cohort_dwarf::types::TypeKind;
    matches!(
        ty.strip().kind,
        TypeKind::DynArray(_) | TypeKind::Shaped(_) | TypeKind::DynString { .. }
    )
}

fn is_aggregate(v: &Value) -> bool {
    use cohort_dwarf::types::TypeKind;
    // gdb's `val_print_scalar_type_p`: references are looked through.
    let mut t = v.ty.strip();
    while let TypeKind::Reference(l) | TypeKind::RvalueReference(l) = &t.kind {
        t = l.get().strip();
    }
    matches!(
        t.kind,
        TypeKind::Aggregate { .. }
            | TypeKind::Array { .. }
            | TypeKind::Shaped(_)
            | TypeKind::DynArray(_)
            | TypeKind::DynString { .. }
    )
}

/// [`Target`] over the session: memory and symbols of the program.
pub struct SessionTarget<'a> {
    dbg: &'a Debugger,
}

crate::session_target!(SessionTarget);

/// One frame of the program, as location evaluation sees it.
pub struct Ctx<'a> {
    dbg: &'a Debugger,
    regs: &'a Registers,
    /// Frame 0's registers as read at the stop (the general-purpose ones).
    frame0: &'a Registers,
    cfa: Option<u64>,
    pc: u64,
    /// gdb's `get_frame_pc` (the return address in a caller, where `pc` is one less).
    frame_pc: u64,
    bias: u64,
    caller: Option<Box<Ctx<'a>>>,
    /// Frame 0 stopped in its entry code: the stores that code is still to make (see
    /// `Debugger::entry_overlay`), seen by reads.
    overlay: Option<Overlay>,
}

impl cohort_dwarf::context::Target for Ctx<'_> {
    fn static_member(&self, qualified: &str) -> Option<cohort_dwarf::value::Value> {
        static_member_value(self.dbg, qualified)
    }

    fn full_object(&self, addr: u64) {
        self.dbg.full_object(addr)
    }

    fn print_error(&self, line: &str) {
        crate::errln!("{line}");
    }

    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> cohort_dwarf::Result<()> {
        self.dbg.session.read_memory(addr, buf)?;
        if let Some(o) = &self.overlay {
            let end = addr.saturating_add(buf.len() as u64);
            for (a, v) in o.iter() {
                let vend = a.saturating_add(v.len() as u64);
                let (lo, hi) = ((*a).max(addr), vend.min(end));
                if lo < hi {
                    buf[(lo - addr) as usize..(hi - addr) as usize]
                        .copy_from_slice(&v[(lo - a) as usize..(hi - a) as usize]);
                }
            }
        }
        Ok(())
    }

    fn ptr_size(&self) -> u64 {
        self.dbg.session.arch().ptr_size as u64
    }

    fn symbol_for(&self, addr: u64) -> Option<String> {
        self.dbg.value_symbol(addr)
    }
}

impl Ctx<'_> {
    /// Register `i` of this frame. The vector and x87 registers are not read at a stop (only
    /// the general-purpose ones are): a register frame 0 lacks is read from the thread when a
    /// location asks for it. No frame's unwind rules save those (the x86-64 ABI preserves no
    /// vector register), so every frame sees the thread's own, as gdb's same-value rule does.
    fn reg_value(&self, i: usize) -> Option<u128> {
        match self.regs.get(i) {
            Some(v) => Some(v),
            None if self.frame0.get(i).is_none() => self.dbg.thread_register(i),
            None => None,
        }
    }
}

impl FrameContext for Ctx<'_> {
    fn pc(&self) -> u64 {
        self.pc
    }

    fn bias(&self) -> u64 {
        self.bias
    }

    fn reg(&self, dwarf_regno: u16) -> Option<u64> {
        let i = self.regs.arch.reg_by_dwarf(dwarf_regno)?;
        self.reg_value(i).map(|v| v as u64)
    }

    fn reg_bytes(&self, dwarf_regno: u16) -> Option<Vec<u8>> {
        let i = self.regs.arch.reg_by_dwarf(dwarf_regno)?;
        let size = self.regs.arch.regs.get(i)?.size;
        let v = self.reg_value(i)?;
        Some(v.to_le_bytes()[..size.min(16)].to_vec())
    }

    fn reg_bytes_wide(&self, dwarf_regno: u16, size: usize) -> Option<Vec<u8>> {
        let mut b = self.reg_bytes(dwarf_regno)?;
        // gdb reads x86-64's DWARF xmm numbers as the whole ymm registers where AVX exists.
        if size > 16
            && let Some(n) = ymm_number(self.regs.arch, dwarf_regno)
            && let Some(high) = self.dbg.thread_ymm_high(n)
        {
            b.resize(16, 0);
            b.extend_from_slice(&high.to_le_bytes());
        }
        Some(b)
    }

    fn cfa(&self) -> Option<u64> {
        self.cfa
    }

    fn tls_address(&self, offset: u64) -> cohort_dwarf::Result<u64> {
        self.dbg.tls_address(self.regs, self.bias, offset)
    }

    fn caller(&self) -> Option<&dyn FrameContext> {
        self.caller.as_deref().map(|c| c as &dyn FrameContext)
    }

    fn frame_pc(&self) -> u64 {
        self.frame_pc
    }

    fn debug_file(&self) -> Option<Arc<DebugFile>> {
        self.dbg.debug_for(self.pc).map(|(d, _)| d)
    }

    fn function_address(&self, name: &str) -> Option<u64> {
        self.dbg.session.symbols().lookup_minimal(name)
    }
}

/// A frame-less context for globals and statics (no registers; link-time addresses + bias).
pub struct StaticCtx<'a> {
    dbg: &'a Debugger,
    bias: u64,
}

impl<'a> StaticCtx<'a> {
    pub fn new(dbg: &'a Debugger, bias: u64) -> Self {
        StaticCtx { dbg, bias }
    }
}

crate::session_target!(StaticCtx);

impl FrameContext for StaticCtx<'_> {
    fn pc(&self) -> u64 {
        0
    }

    fn bias(&self) -> u64 {
        self.bias
    }

    fn reg(&self, _dwarf_regno: u16) -> Option<u64> {
        None
    }

    fn cfa(&self) -> Option<u64> {
        None
    }

    fn tls_address(&self, offset: u64) -> cohort_dwarf::Result<u64> {
        // Thread-local globals: through the selected thread's registers.
        let frames = self.dbg.frames(1);
        let f = frames.first().ok_or_else(|| {
            cohort_dwarf::DwarfError::user("Cannot access thread-local variables in this context")
        })?;
        self.dbg.tls_address(&f.regs, self.bias, offset)
    }

    fn caller(&self) -> Option<&dyn FrameContext> {
        None
    }
}

/// A library of the system or of an MPI installation (not the user's code).
fn is_system_library(path: &str) -> bool {
    const SYSTEM: [&str; 5] = [
        "/lib/",
        "/lib64/",
        "/usr/lib/",
        "/usr/lib64/",
        "/usr/libexec/",
    ];
    !path.starts_with('/')
        || SYSTEM.iter().any(|d| path.starts_with(d))
        || ["/openmpi", "/mpich", "/intel/", "/nvhpc", "/cray"]
            .iter()
            .any(|m| path.contains(m))
        // cohort's MPI call recorder (cohort_launch::recorder), preloaded into launched ranks:
        // part of the MPI library as far as the user is concerned.
        || path.ends_with("/libcohort_mpirec.so")
}

/// The MPI call a function of an MPI library stands for: `MPI_Recv` for `MPI_Recv`,
/// `PMPI_Recv` (the profiling name Open MPI's entry points have), and Fortran's `mpi_recv_` /
/// `pmpi_recv__` / `mpi_recv_f08`.
pub(crate) fn mpi_call_name(f: &str) -> Option<String> {
    let rest = f
        .strip_prefix("PMPI_")
        .or_else(|| f.strip_prefix("MPI_"))
        .or_else(|| f.strip_prefix("pmpi_"))
        .or_else(|| f.strip_prefix("mpi_"))?;
    let rest = rest
        .strip_suffix("_f08")
        .unwrap_or(rest)
        .trim_end_matches('_');
    let mut c = rest.chars();
    let first = c.next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    Some(format!(
        "MPI_{}{}",
        first.to_ascii_uppercase(),
        c.as_str().to_ascii_lowercase()
    ))
}

/// The public name of a system library's function, as the program calls it: glibc's debug
/// information names `sleep` `__sleep`, `read` `__libc_read`, `fgets` `_IO_fgets`, and its
/// internal aliases `__GI___clock_nanosleep`.
pub(crate) fn public_name(f: &str) -> &str {
    let f = f.strip_prefix("__GI_").unwrap_or(f);
    let f = f
        .strip_prefix("__libc_")
        .or_else(|| f.strip_prefix("_IO_"))
        .or_else(|| f.strip_prefix("__"))
        .unwrap_or(f);
    if f.is_empty() { "??" } else { f }
}

/// A struct, class or union the debug information has only as a declaration (gdb's stub,
/// printed `<incomplete type>`).
fn is_incomplete_class(ty: &cohort_dwarf::types::TypeRef) -> bool {
    matches!(
        &ty.strip().kind,
        cohort_dwarf::types::TypeKind::Aggregate { members, declaration: true, .. } if members.is_empty()
    )
}

/// The C++ physname of function `f` of `d`: `geom::total(geom::Shape const&, …)`, `main()`
/// (what gdb calls a C++ function by; a C function's physname is its name).
pub(crate) fn physname_of(
    d: &Arc<DebugFile>,
    f: &cohort_dwarf::index::FunctionEntry,
) -> Option<String> {
    let u = d.unit(f.unit).ok()?;
    let die = cohort_dwarf::types::DieRef(f.offset.to_debug_info_offset(&u.header)?);
    cohort_dwarf::cxxname::physname(d, die, &f.name)
}

/// `name+off`, or `name` at offset 0.
fn with_offset(name: String, off: u64) -> String {
    if off == 0 {
        name
    } else {
        format!("{name}+{off}")
    }
}

#[cfg(test)]
mod tests {
    use super::SourceText;

    #[test]
    fn source_text_lines_as_str_lines() {
        let dir = std::env::temp_dir().join(format!("cohort-src-{}", std::process::id()));
        for (n, text) in [
            "", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "x\r\ny\n", "é\n\tz",
        ]
        .into_iter()
        .enumerate()
        {
            let p = dir.with_extension(format!("{n}"));
            std::fs::write(&p, text).unwrap();
            let t = SourceText::open(&p).unwrap();
            let want: Vec<&str> = text.lines().collect();
            let got: Vec<String> = (0..t.len()).map(|i| t.get(i).unwrap()).collect();
            assert_eq!(got, want, "{text:?}");
            assert_eq!(t.get(t.len()), None);
            let _ = std::fs::remove_file(&p);
        }
    }
}
