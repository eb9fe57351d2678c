//! The source-level view of the stopped program: debug information per loaded object (parsed
//! once, shared), frames from the unwinder, the selected frame, line lookups, source text, and
//! the frame lines gdb prints (`fact (n=3) at recurse.c:5`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use cohort_dwarf::context::Target;
use cohort_dwarf::format::{FormatOptions, format_value};
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::location::FrameContext;
use cohort_dwarf::scopes::{self, Scope, Variable};
use cohort_dwarf::value::Value;
use cohort_engine::memory::MemoryRead;
use cohort_engine::regs::Registers;
use cohort_unwind::{Frame, FrameKind, Unwinder};

use crate::debugger::{Debugger, out};

/// A line-table answer in run-time addresses.
#[derive(Debug, Clone)]
pub struct SrcLine {
    /// Full path of the file (to read it).
    pub file: PathBuf,
    /// The file as gdb names it in frame lines.
    pub name: String,
    pub line: u32,
    /// Run-time start and end of the line-table entry.
    pub start: u64,
    pub end: u64,
    pub is_stmt: bool,
}

/// Frames of one stop: keyed by (tid, pc, sp) of frame 0; whether the list is complete.
type CachedFrames = ((i32, u64, u64), Rc<Vec<Frame>>, bool);

/// Per-session source-level state.
#[derive(Default)]
pub struct SourceState {
    pub unwinder: Unwinder,
    debug: RefCell<HashMap<PathBuf, Option<Arc<DebugFile>>>>,
    files: RefCell<HashMap<PathBuf, Option<Rc<Vec<String>>>>>,
    /// Frames of the current thread at the last stop, keyed by (tid, pc, sp) of frame 0.
    frames: RefCell<Option<CachedFrames>>,
    pub selected: Cell<usize>,
    /// `list`: the last line listed and its file, for a bare `list` to go on.
    pub list_last: RefCell<Option<(PathBuf, String, u32)>>,
    /// The first line of the last listing (for `list -`).
    pub list_first: RefCell<Option<(PathBuf, String, u32)>>,
    /// `list` first lines: set by a stop (centre) — gdb lists around the stop line first.
    pub list_center: RefCell<Option<(PathBuf, String, u32)>>,
}

struct NoMem;
impl MemoryRead for NoMem {
    fn read(&self, addr: u64, _buf: &mut [u8]) -> cohort_engine::Result<()> {
        Err(cohort_engine::EngineError::Memory(addr))
    }
}

impl Debugger {
    /// The DWARF of the object containing run-time `pc`, with that object's bias.
    pub(crate) fn debug_for(&self, pc: u64) -> Option<(Arc<DebugFile>, u64)> {
        let obj = self.session.symbols().object_containing(pc)?;
        let bias = obj.bias;
        let path = obj.file.path.clone();
        self.debug_file(&path).map(|d| (d, bias))
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

    pub(crate) fn line_at(&self, pc: u64) -> Option<SrcLine> {
        let (d, bias) = self.debug_for(pc)?;
        let l = d.find_line(pc.wrapping_sub(bias))?;
        Some(SrcLine {
            file: l.file,
            name: l.name,
            line: l.line,
            start: l.address.wrapping_add(bias),
            end: l.end.wrapping_add(bias),
            is_stmt: l.is_stmt,
        })
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
        let mem: &dyn MemoryRead = match self.session.process() {
            Some(p) => p,
            None => &NoMem,
        };
        let (mut frames, _err) =
            self.src
                .unwinder
                .backtrace(self.session.symbols(), mem, regs, limit.min(100_000));
        let complete = frames.len() < limit;
        // gdb's `backtrace past-main` is off: the stack ends at main.
        if let Some(i) = frames.iter().position(|f| self.frame_is_main(f)) {
            frames.truncate(i + 1);
        }
        let f = Rc::new(frames);
        *self.src.frames.borrow_mut() = Some((key, f.clone(), complete));
        f
    }

    fn frame_is_main(&self, f: &Frame) -> bool {
        if f.kind == FrameKind::SignalHandler {
            return false;
        }
        let pc = f.lookup_pc();
        match self.session.symbols().symbolize_parts(pc) {
            Some((o, s, _)) => {
                s.name == "main"
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
        self.frames(2).get(1).map(|f| f.pc())
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
        let caller = if idx + 1 < frames.len() {
            self.frame_ctx(frames, idx + 1).map(Box::new)
        } else {
            None
        };
        Some(Ctx {
            dbg: self,
            regs: &frame.regs,
            cfa: frame.cfa,
            pc,
            bias,
            caller,
        })
    }

    /// The scope (function, inlined calls, blocks) at frame `idx`.
    pub(crate) fn scope_of(&self, frame: &Frame) -> Option<(Arc<DebugFile>, u64, Scope)> {
        let pc = frame.lookup_pc();
        let (d, bias) = self.debug_for(pc)?;
        let s = scopes::scope_at(&d, pc.wrapping_sub(bias)).ok()??;
        Some((d, bias, s))
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

    pub(crate) fn format(&self, v: &Value, opts: &FormatOptions) -> String {
        let opts = FormatOptions {
            language: self.language(),
            ..opts.clone()
        };
        format_value(v, &self.target(), &opts)
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
            ..FormatOptions::default()
        };
        let parts: Vec<String> = fs
            .params
            .iter()
            .map(|p| {
                // gdb's `print frame-arguments scalars`: aggregates show as `...`.
                let v = match self.var_value(&d, p, frames, idx) {
                    Ok(v) if !v.optimized_out && is_aggregate(&v) => "...".to_string(),
                    Ok(v) => self.format(&v, &opts),
                    Err(e) => e,
                };
                format!("{}={v}", p.name)
            })
            .collect();
        parts.join(", ")
    }

    /// The name of the function of a frame (innermost inlined call first), DWARF or ELF.
    fn frame_function(&self, frame: &Frame) -> (Option<String>, Option<String>) {
        if let Some((_, _, s)) = self.scope_of(frame)
            && let Some(f) = s.innermost()
        {
            return (Some(f.function.name.clone()), None);
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
        let pc = frame.pc();
        let line = self.line_at(frame.lookup_pc());
        let at_line_start = frame.exact_pc && line.as_ref().is_some_and(|l| l.start == pc);
        if !at_line_start {
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
        let Some(l) = self.line_at(pc) else { return };
        if l.line == 0 {
            return;
        }
        self.print_source_line(&l.file, &l.name, l.line, false);
    }

    /// After `stepi`/`nexti`: `0x…\t5\t…` mid-line, `5\t…` at a line start; a new function
    /// gets its frame line first.
    pub(crate) fn print_stop_location(&self, pc: u64) {
        match self.line_at(pc) {
            Some(l) if l.line != 0 => {
                if l.start == pc {
                    self.print_source_line(&l.file, &l.name, l.line, false);
                } else {
                    print!("0x{pc:016x}\t");
                    self.print_source_line(&l.file, &l.name, l.line, false);
                }
            }
            _ => out(self.frame0_line()),
        }
    }

    /// Print one source line as gdb does after a stop, and centre the next `list` on it.
    pub(crate) fn print_source_line(&self, file: &Path, name: &str, line: u32, _mid: bool) {
        match self.source_text(file) {
            Some(text) => match text.get(line as usize - 1) {
                Some(t) => out(format!("{line}\t{t}")),
                None => out(format!(
                    "Line number {line} out of range; \"{name}\" has {} lines.",
                    text.len()
                )),
            },
            None => out(format!("{line}\t{name}: No such file or directory.")),
        }
        *self.src.list_center.borrow_mut() = Some((file.to_path_buf(), name.to_string(), line));
        *self.src.list_last.borrow_mut() = None;
    }

    /// The lines of a source file (read once).
    pub(crate) fn source_text(&self, file: &Path) -> Option<Rc<Vec<String>>> {
        if let Some(t) = self.src.files.borrow().get(file) {
            return t.clone();
        }
        let t = std::fs::read(file).ok().map(|b| {
            Rc::new(
                String::from_utf8_lossy(&b)
                    .lines()
                    .map(|l| l.to_string())
                    .collect::<Vec<_>>(),
            )
        });
        self.src
            .files
            .borrow_mut()
            .insert(file.to_path_buf(), t.clone());
        t
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

    /// Forget cached frames (after the program or the selected thread moved).
    pub(crate) fn invalidate_frames(&self) {
        *self.src.frames.borrow_mut() = None;
        self.src.selected.set(0);
    }
}

fn is_aggregate(v: &Value) -> bool {
    use cohort_dwarf::types::TypeKind;
    // gdb's `val_print_scalar_type_p`: references are looked through.
    let mut t = v.ty.strip();
    while let TypeKind::Reference(l) | TypeKind::RvalueReference(l) = &t.kind {
        t = l.get().strip();
    }
    matches!(t.kind, TypeKind::Aggregate { .. } | TypeKind::Array { .. })
}

/// [`Target`] over the session: memory and symbols of the program.
pub struct SessionTarget<'a> {
    dbg: &'a Debugger,
}

impl Target for SessionTarget<'_> {
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> cohort_dwarf::Result<()> {
        self.dbg.session.read_memory(addr, buf).map_err(Into::into)
    }

    fn ptr_size(&self) -> u64 {
        self.dbg.session.arch().ptr_size as u64
    }

    fn symbol_for(&self, addr: u64) -> Option<String> {
        self.dbg.session.symbolize(addr)
    }
}

/// One frame of the program, as location evaluation sees it.
pub struct Ctx<'a> {
    dbg: &'a Debugger,
    regs: &'a Registers,
    cfa: Option<u64>,
    pc: u64,
    bias: u64,
    caller: Option<Box<Ctx<'a>>>,
}

impl Target for Ctx<'_> {
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> cohort_dwarf::Result<()> {
        self.dbg.session.read_memory(addr, buf).map_err(Into::into)
    }

    fn ptr_size(&self) -> u64 {
        self.dbg.session.arch().ptr_size as u64
    }

    fn symbol_for(&self, addr: u64) -> Option<String> {
        self.dbg.session.symbolize(addr)
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
        self.regs.get(i).map(|v| v as u64)
    }

    fn reg_bytes(&self, dwarf_regno: u16) -> Option<Vec<u8>> {
        let i = self.regs.arch.reg_by_dwarf(dwarf_regno)?;
        let size = self.regs.arch.regs.get(i)?.size;
        let v = self.regs.get(i)?;
        Some(v.to_le_bytes()[..size.min(16)].to_vec())
    }

    fn cfa(&self) -> Option<u64> {
        self.cfa
    }

    fn tls_address(&self, offset: u64) -> Option<u64> {
        // glibc: the thread pointer's TCB holds the DTV at one pointer; entry `modid` of the
        // DTV (two pointers each, entry 0 is the generation) is the module's TLS block.
        // The program itself is module 1.
        let arch = self.regs.arch;
        let tp = self.regs.get(arch.thread_pointer?)? as u64;
        let mem = self.dbg.session.process()?;
        let ptr = arch.ptr_size as u64;
        let dtv = mem.read_u64(tp + ptr).ok()?;
        let modid = 1u64;
        let block = mem.read_u64(dtv + 2 * ptr * modid).ok()?;
        Some(block + offset)
    }

    fn caller(&self) -> Option<&dyn FrameContext> {
        self.caller.as_deref().map(|c| c as &dyn FrameContext)
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

impl Target for StaticCtx<'_> {
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> cohort_dwarf::Result<()> {
        self.dbg.session.read_memory(addr, buf).map_err(Into::into)
    }

    fn ptr_size(&self) -> u64 {
        self.dbg.session.arch().ptr_size as u64
    }

    fn symbol_for(&self, addr: u64) -> Option<String> {
        self.dbg.session.symbolize(addr)
    }
}

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

    fn tls_address(&self, offset: u64) -> Option<u64> {
        // Thread-local globals: through the selected thread's frame 0 registers.
        let frames = self.dbg.frames(1);
        let ctx = self.dbg.frame_ctx(&frames, 0)?;
        ctx.tls_address(offset)
    }

    fn caller(&self) -> Option<&dyn FrameContext> {
        None
    }
}
