//! Stack unwinding from call-frame information, as gdb's frame unwinders do it.
//!
//! An [`Unwinder`] turns the registers of a stopped thread into the frames of its stack:
//! each caller's registers are recovered from the CFI row of the callee's pc (`.eh_frame`
//! through `.eh_frame_hdr`, or `.debug_frame`, also from a separate debug file), with the
//! frame-pointer chain as the fallback where no CFI covers a pc, and signal frames read from
//! the `ucontext_t` the kernel pushed. Architecture facts come from
//! [`cohort_engine::arch::UnwindInfo`].
//!
//! One `Unwinder` serves every thread and process of the debugger: each object's CFI is
//! parsed once (cache keyed by the object) and each computed row is kept, so that repeated
//! unwinds through the same code cost a map lookup per frame.

mod cfi;
mod eval;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use cohort_engine::memory::MemoryRead;
use cohort_engine::process::CallDummy;
use cohort_engine::regs::Registers;
use cohort_engine::symbols::{LoadedObject, ObjectFile, SymbolTable};

pub use cfi::{CacheStats, CfaRule, RegRule, UnwindRow};

/// Why one unwinding step failed.
#[derive(Debug, thiserror::Error)]
pub enum UnwindError {
    #[error("Cannot access memory at address {0:#x}")]
    Memory(u64),
    #[error("bad call frame information in {path}: {msg}")]
    Cfi { path: String, msg: String },
    #[error("cannot evaluate call frame expression: {0}")]
    Expression(String),
    #[error("the frame at pc {0:#x} has no frame address")]
    NoCfa(u64),
}

/// What kind of frame this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Normal,
    /// A signal trampoline: the frame above it (its caller) was interrupted by a signal and
    /// the frame below it is the handler. gdb prints `<signal handler called>`.
    SignalHandler,
    /// A function that tail-called the frame below it (rebuilt from call-site DWARF by the
    /// front end; gdb's TAILCALL_FRAME): its pc is the address after the jump.
    TailCall,
    /// Where a function called from the debugger returns to (gdb's DUMMY_FRAME, printed
    /// `<function called from gdb>`): the frame below it is the called function, the frame
    /// above it the thread as it was before the call (its registers saved then).
    Dummy,
}

/// One frame of a stack.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Registers of this frame as recovered (`None`: not recoverable).
    pub regs: Registers,
    /// Canonical frame address of this frame (stable frame identity).
    pub cfa: Option<u64>,
    pub kind: FrameKind,
    /// The pc is where execution stopped or was interrupted (frame 0, or the frame a signal
    /// interrupted), not a return address.
    pub exact_pc: bool,
    /// Which of the calls at this pc the frame stands for, as gdb splits one machine frame
    /// into inlined-call frames: 0 is the innermost (an inlined call, or the function itself
    /// when nothing is inlined here); set by the front end, 0 from the unwinder.
    pub inline_depth: usize,
}

impl Frame {
    pub fn pc(&self) -> u64 {
        self.regs.pc()
    }

    pub fn sp(&self) -> u64 {
        self.regs.sp()
    }

    /// The pc to use for symbol, line and CFI lookup: pc - 1 for a caller frame (whose pc is
    /// a return address, possibly past the end of the function), pc itself for frame 0, for
    /// a frame interrupted by a signal and for a signal trampoline.
    pub fn lookup_pc(&self) -> u64 {
        if self.exact_pc || self.kind == FrameKind::SignalHandler {
            self.pc()
        } else {
            self.pc().wrapping_sub(1)
        }
    }
}

struct CachedObject {
    file: Weak<ObjectFile>,
    cfi: Arc<cfi::ObjectCfi>,
}

/// What [`Unwinder::row_for`] answers: the row and its object's bias, if CFI covers the pc.
type RowLookup = Result<Option<(Arc<UnwindRow>, u64)>, UnwindError>;

/// Unwinds stacks; shared by all threads and processes of the debugger.
#[derive(Default)]
pub struct Unwinder {
    objects: Mutex<HashMap<usize, CachedObject>>,
    counters: cfi::Counters,
}

impl std::fmt::Debug for Unwinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unwinder")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Unwinder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counters of the row cache.
    pub fn stats(&self) -> CacheStats {
        self.counters.get()
    }

    fn object_cfi(&self, obj: &LoadedObject) -> Arc<cfi::ObjectCfi> {
        let key = Arc::as_ptr(&obj.file) as usize;
        let mut map = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = map.get(&key)
            && c.file.upgrade().is_some_and(|f| Arc::ptr_eq(&f, &obj.file))
        {
            return c.cfi.clone();
        }
        map.retain(|_, c| c.file.strong_count() > 0);
        let cfi = Arc::new(cfi::ObjectCfi::new(&obj.file));
        map.insert(
            key,
            CachedObject {
                file: Arc::downgrade(&obj.file),
                cfi: cfi.clone(),
            },
        );
        cfi
    }

    /// The CFI row covering runtime address `pc` and the load bias of its object (row
    /// addresses are link-time); `None` when no CFI covers it.
    pub fn row_for(
        &self,
        objects: &SymbolTable,
        pc: u64,
    ) -> Result<Option<(Arc<UnwindRow>, u64)>, UnwindError> {
        let Some(obj) = objects.object_containing(pc) else {
            return Ok(None);
        };
        let cfi = self.object_cfi(obj);
        Ok(cfi
            .row(&obj.file, pc.wrapping_sub(obj.bias), &self.counters)?
            .map(|r| (r, obj.bias)))
    }

    /// Frame 0 from the registers of a stopped thread.
    pub fn frame0(&self, objects: &SymbolTable, mem: &dyn MemoryRead, regs: Registers) -> Frame {
        let mut frame = Frame {
            regs,
            cfa: None,
            kind: FrameKind::Normal,
            exact_pc: true,
            inline_depth: 0,
        };
        // One look-up of the row for both the frame's kind and its CFA (stepping unwinds
        // frame 0 at every stop).
        let row = self.row_for(objects, frame.lookup_pc());
        frame.kind = self.kind_with(objects, mem, &frame, &row);
        frame.cfa = self.cfa_with(objects, mem, &frame, row);
        frame
    }

    /// The caller of `frame`; `Ok(None)` when `frame` is the outermost one.
    pub fn caller(
        &self,
        objects: &SymbolTable,
        mem: &dyn MemoryRead,
        frame: &Frame,
    ) -> Result<Option<Frame>, UnwindError> {
        self.caller_with(objects, mem, frame, &[])
    }

    /// The caller of `frame` where functions were called from the debugger and left where
    /// they stopped (`dummies`): a function returning to a call's trap with the stack
    /// pointer it had there has a dummy frame as caller, whose caller is the thread as it
    /// was before the call.
    pub fn caller_with(
        &self,
        objects: &SymbolTable,
        mem: &dyn MemoryRead,
        frame: &Frame,
        dummies: &[CallDummy],
    ) -> Result<Option<Frame>, UnwindError> {
        if frame.kind == FrameKind::Dummy {
            let d = dummies
                .iter()
                .rev()
                .find(|d| d.pc == frame.pc() && frame.cfa == Some(d.frame));
            return Ok(d.map(|d| self.frame0(objects, mem, d.regs.clone())));
        }
        if frame.pc() == 0 {
            return Ok(None);
        }
        let regs = if frame.kind == FrameKind::SignalHandler {
            signal_context(mem, frame)?
        } else {
            match self.row_for(objects, frame.lookup_pc())? {
                Some((row, _)) => match self.unwind_row(mem, frame, &row)? {
                    Some(r) => r,
                    None => return Ok(None),
                },
                None => match fallback(objects, mem, frame)? {
                    Some(r) => r,
                    None => return Ok(None),
                },
            }
        };
        // A caller at pc 0 is shown (gdb's `0x0000000000000000 in ?? ()`), and is the last.
        if regs.get(regs.arch.pc).is_none() {
            return Ok(None);
        }
        if let Some(d) = dummies
            .iter()
            .rev()
            .find(|d| d.pc == regs.pc() && d.sp == regs.sp())
        {
            return Ok(Some(Frame {
                regs,
                cfa: Some(d.frame),
                kind: FrameKind::Dummy,
                exact_pc: true,
                inline_depth: 0,
            }));
        }
        let mut caller = Frame {
            regs,
            cfa: None,
            kind: FrameKind::Normal,
            exact_pc: frame.kind == FrameKind::SignalHandler,
            inline_depth: 0,
        };
        let row = self.row_for(objects, caller.lookup_pc());
        caller.kind = self.kind_with(objects, mem, &caller, &row);
        caller.cfa = self.cfa_with(objects, mem, &caller, row);
        // Stop where the stack does not grow (loop protection); a signal frame may switch
        // stacks (sigaltstack), so only a repeat is refused there.
        let across_signal =
            frame.kind == FrameKind::SignalHandler || caller.kind == FrameKind::SignalHandler;
        let (a, b) = match (frame.cfa, caller.cfa) {
            (Some(a), Some(b)) => (a, b),
            _ => (frame.sp(), caller.sp()),
        };
        if (across_signal && a == b && frame.pc() == caller.pc()) || (!across_signal && b <= a) {
            return Ok(None);
        }
        Ok(Some(caller))
    }

    /// Frames from the thread's registers outwards, at most `limit`; the error of the step
    /// that failed, if one did (the frames before it are kept).
    pub fn backtrace(
        &self,
        objects: &SymbolTable,
        mem: &dyn MemoryRead,
        regs: Registers,
        limit: usize,
    ) -> (Vec<Frame>, Option<UnwindError>) {
        let mut frames = Vec::new();
        if limit == 0 {
            return (frames, None);
        }
        frames.push(self.frame0(objects, mem, regs));
        while frames.len() < limit {
            let Some(last) = frames.last() else { break };
            match self.caller(objects, mem, last) {
                Ok(Some(f)) => frames.push(f),
                Ok(None) => break,
                Err(e) => return (frames, Some(e)),
            }
        }
        (frames, None)
    }

    /// Whether `frame` is a signal trampoline: the kernel's `rt_sigreturn` code at its pc,
    /// or CFI marking it so.
    fn kind_with(
        &self,
        objects: &SymbolTable,
        mem: &dyn MemoryRead,
        frame: &Frame,
        row: &RowLookup,
    ) -> FrameKind {
        let tramp = frame.regs.arch.unwind().signal_frame.trampoline;
        let mut code = [0u8; 16];
        if let Some(buf) = code.get_mut(..tramp.len())
            && objects.read_code(mem, frame.pc(), buf).is_ok()
            && buf == tramp
        {
            return FrameKind::SignalHandler;
        }
        match row {
            Ok(Some((row, _))) if row.signal_frame => FrameKind::SignalHandler,
            _ => FrameKind::Normal,
        }
    }

    /// This frame's CFA, given its row (as `row_for` answered): from the row, else the
    /// frame-pointer or function-entry rules.
    fn cfa_with(
        &self,
        objects: &SymbolTable,
        mem: &dyn MemoryRead,
        frame: &Frame,
        row: RowLookup,
    ) -> Option<u64> {
        if frame.kind == FrameKind::SignalHandler {
            return Some(frame.sp());
        }
        match row {
            Ok(Some((row, _))) => eval::cfa(&row, &frame.regs, mem).ok(),
            Ok(None) => fallback_cfa(objects, mem, frame),
            Err(_) => None,
        }
    }

    /// The caller's registers by the rules of `row`; `None` when the return address is
    /// undefined (the outermost frame).
    fn unwind_row(
        &self,
        mem: &dyn MemoryRead,
        frame: &Frame,
        row: &UnwindRow,
    ) -> Result<Option<Registers>, UnwindError> {
        let arch = frame.regs.arch;
        if matches!(row.rule(row.return_address), Some(RegRule::Undefined)) {
            return Ok(None);
        }
        let cfa = match frame.cfa {
            Some(c) => c,
            None => eval::cfa(row, &frame.regs, mem)?,
        };
        let mut out = Registers::with_room(arch, frame.regs.span());
        for (i, desc) in arch.regs.iter().enumerate() {
            let Some(n) = desc.dwarf else {
                continue;
            };
            // A register without a rule keeps its value, as gdb assumes (GCC leaves
            // "same value" registers out of the CFI); call-clobbered ones included.
            let value = match row.rule(n) {
                None | Some(RegRule::SameValue) => frame.regs.get(i),
                Some(rule) => eval::register(rule, cfa, desc.size, row, &frame.regs, mem)?,
            };
            if let Some(v) = value {
                out.set(i, v);
            }
        }
        // The stack pointer of the caller is the CFA unless a rule says otherwise.
        if arch
            .regs
            .get(arch.sp)
            .and_then(|d| d.dwarf)
            .is_none_or(|n| row.rule(n).is_none())
        {
            out.set(arch.sp, u128::from(cfa));
        }
        // The pc of the caller is the return address.
        // Without a rule, a return-address register other than the pc itself (aarch64's
        // x30 in a leaf) still holds it; the pc itself cannot be its own return address.
        let ra = match arch.reg_by_dwarf(row.return_address) {
            Some(i) => match row.rule(row.return_address) {
                Some(_) => out.get(i),
                None if i != arch.pc => frame.regs.get(i),
                None => None,
            },
            None => None,
        };
        match ra {
            Some(pc) => out.set(arch.pc, pc),
            None => return Ok(None),
        }
        Ok(Some(out))
    }
}

/// `[start, end)` check that the pc is the first instruction of its function.
fn at_function_entry(objects: &SymbolTable, pc: u64) -> bool {
    objects
        .symbolize_parts(pc)
        .is_some_and(|(_, _, off)| off == 0)
}

/// Whether a frame without CFI is taken as frameless, its return address on top of the stack:
/// at its function's first instruction, or, where calls leave the return address on the stack
/// (x86-64), as gdb's amd64 prologue analysis does: in code of no known function, or in a
/// function that does not start by setting up the frame pointer (the dynamic linker's
/// `_start`).
fn frameless(objects: &SymbolTable, mem: &dyn MemoryRead, frame: &Frame) -> bool {
    if frame.exact_pc && at_function_entry(objects, frame.pc()) {
        return true;
    }
    let arch = frame.regs.arch;
    if arch.unwind().entry_ra_register.is_some() {
        return false;
    }
    let pc = frame.lookup_pc();
    match objects.symbolize_parts(pc) {
        None => true,
        Some((_, _, off)) => {
            // Enough for the longest frame setup the table knows (`endbr64; push; mov`).
            let mut code = [0u8; 8];
            mem.read(pc.wrapping_sub(off), &mut code).is_ok() && (arch.skip_prologue)(&code) == 0
        }
    }
}

/// CFA where no CFI covers the pc.
fn fallback_cfa(objects: &SymbolTable, mem: &dyn MemoryRead, frame: &Frame) -> Option<u64> {
    let info = frame.regs.arch.unwind();
    if frameless(objects, mem, frame) {
        return Some(frame.sp().wrapping_add(info.entry_cfa_offset));
    }
    let fp = frame.regs.get(frame.regs.arch.fp)? as u64;
    (fp != 0).then(|| fp.wrapping_add(info.fp_cfa_offset))
}

fn read_ptr(mem: &dyn MemoryRead, addr: u64, size: usize) -> Result<u64, UnwindError> {
    let mut b = [0u8; 8];
    let buf = b.get_mut(..size.min(8)).ok_or(UnwindError::Memory(addr))?;
    mem.read(addr, buf).map_err(|_| UnwindError::Memory(addr))?;
    Ok(u64::from_le_bytes(b))
}

/// The caller's registers where no CFI covers the pc: at a function's first instruction the
/// return address is where the call left it; elsewhere follow the frame-pointer chain.
fn fallback(
    objects: &SymbolTable,
    mem: &dyn MemoryRead,
    frame: &Frame,
) -> Result<Option<Registers>, UnwindError> {
    let arch = frame.regs.arch;
    let info = arch.unwind();
    let ptr = arch.ptr_size;
    let mut out = Registers::with_room(arch, frame.regs.span());
    for &i in info.preserved {
        if let Some(v) = frame.regs.get(i) {
            out.set(i, v);
        }
    }
    if frameless(objects, mem, frame) {
        let cfa = frame.sp().wrapping_add(info.entry_cfa_offset);
        let ra = match info.entry_ra_register {
            Some(r) => frame.regs.get(r).map(|v| v as u64),
            None => Some(read_ptr(mem, cfa.wrapping_sub(ptr as u64), ptr)?),
        };
        let Some(ra) = ra else { return Ok(None) };
        out.set(arch.sp, u128::from(cfa));
        out.set(arch.pc, u128::from(ra));
        return Ok(Some(out));
    }
    let Some(fp) = frame.regs.get(arch.fp).map(|v| v as u64) else {
        return Ok(None);
    };
    if fp == 0 {
        return Ok(None);
    }
    let ra = read_ptr(mem, fp.wrapping_add(info.fp_ra_offset), ptr)?;
    let saved_fp = read_ptr(mem, fp.wrapping_add(info.fp_saved_fp_offset), ptr)?;
    out.set(arch.sp, u128::from(fp.wrapping_add(info.fp_cfa_offset)));
    out.set(arch.fp, u128::from(saved_fp));
    out.set(arch.pc, u128::from(ra));
    Ok(Some(out))
}

/// The registers a signal interrupted, from the `ucontext_t` above the trampoline frame.
fn signal_context(mem: &dyn MemoryRead, frame: &Frame) -> Result<Registers, UnwindError> {
    let arch = frame.regs.arch;
    let layout = &arch.unwind().signal_frame;
    let base = frame.sp().wrapping_add(layout.context_offset);
    let mut out = Registers::with_room(arch, frame.regs.span());
    for &(i, off, size) in layout.regs {
        let v = read_ptr(mem, base.wrapping_add(off), size)?;
        out.set(i, u128::from(v));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_engine::arch;
    use cohort_engine::symbols::SymKind;

    /// Memory of a test: one block at `base`.
    struct Block {
        base: u64,
        bytes: Vec<u8>,
    }

    impl MemoryRead for Block {
        fn read(&self, addr: u64, buf: &mut [u8]) -> cohort_engine::Result<()> {
            let start = addr
                .checked_sub(self.base)
                .and_then(|o| usize::try_from(o).ok())
                .ok_or(cohort_engine::EngineError::Memory(addr))?;
            let src = self
                .bytes
                .get(start..start + buf.len())
                .ok_or(cohort_engine::EngineError::Memory(addr))?;
            buf.copy_from_slice(src);
            Ok(())
        }
    }

    /// Rows of this test program itself: computed once, then answered from the cache for
    /// every address they cover.
    #[test]
    fn row_cache() {
        let exe = ObjectFile::load(std::path::Path::new("/proc/self/exe")).unwrap();
        let f = exe
            .symbols()
            .iter()
            .find(|s| s.kind == SymKind::Function && s.size > 16 && !s.synthetic)
            .unwrap()
            .clone();
        let table = SymbolTable::with_main(LoadedObject::new(exe, 0));
        let u = Unwinder::new();
        let (row, bias) = u.row_for(&table, f.addr).unwrap().unwrap();
        assert_eq!(bias, 0);
        assert!(row.contains(f.addr));
        // At a function's entry the CFA is the stack pointer plus a constant.
        let a = arch::native();
        let sp = a.regs[a.sp].dwarf.unwrap();
        assert!(matches!(row.cfa, CfaRule::RegisterOffset { register, .. } if register == sp));
        assert_eq!(
            u.stats(),
            CacheStats {
                hits: 0,
                computed: 1
            }
        );
        let (again, _) = u.row_for(&table, f.addr).unwrap().unwrap();
        assert!(Arc::ptr_eq(&row, &again));
        assert_eq!(
            u.stats(),
            CacheStats {
                hits: 1,
                computed: 1
            }
        );
        // Another address the row covers is a hit too; a miss is remembered.
        if row.end > row.start + 1 {
            u.row_for(&table, row.end - 1).unwrap().unwrap();
            assert_eq!(u.stats().computed, 1);
        }
        assert!(u.row_for(&table, 1).unwrap().is_none());
        u.row_for(&table, f.addr + f.size - 1).unwrap();
        let computed = u.stats().computed;
        u.row_for(&table, f.addr + f.size - 1).unwrap();
        assert_eq!(u.stats().computed, computed);
    }

    /// `DW_CFA_expression`-style rules: `DW_OP_bregx sp 16; DW_OP_deref` over test memory.
    #[test]
    fn expression_rules() {
        let a = arch::native();
        let sp = a.regs[a.sp].dwarf.unwrap();
        let mut regs = Registers::new(a);
        regs.set(a.sp, 0x1000);
        let mut bytes = vec![0u8; 64];
        bytes[0x10..0x18].copy_from_slice(&0x2000u64.to_le_bytes());
        bytes[0x20..0x28].copy_from_slice(&0x1234u64.to_le_bytes());
        let mem = Block {
            base: 0x1000,
            bytes,
        };
        let deref = vec![0x92, sp as u8, 0x10, 0x06];
        assert_eq!(
            eval::expression(&deref, None, 8, &regs, &mem).unwrap(),
            0x2000
        );
        let row = UnwindRow {
            start: 0,
            end: 1,
            cfa: CfaRule::Expression(deref.clone()),
            rules: vec![],
            return_address: 0,
            signal_frame: false,
            address_size: 8,
        };
        assert_eq!(eval::cfa(&row, &regs, &mem).unwrap(), 0x2000);
        // The CFA is pushed first: `DW_OP_plus_uconst 0x20` gives the slot CFA + 0x20.
        let cfa = 0x1000;
        let saved = RegRule::Expression(vec![0x23, 0x20]);
        assert_eq!(
            eval::register(&saved, cfa, 8, &row, &regs, &mem).unwrap(),
            Some(0x1234)
        );
        let val = RegRule::ValExpression(vec![0x23, 0x20]);
        assert_eq!(
            eval::register(&val, cfa, 8, &row, &regs, &mem).unwrap(),
            Some(0x1020)
        );
        // Reading outside memory is an error value, not a panic.
        assert!(matches!(
            eval::register(&RegRule::Offset(0x100), cfa, 8, &row, &regs, &mem),
            Err(UnwindError::Memory(0x1100))
        ));
    }

    /// Code of no known function without CFI, where calls leave the return address on the
    /// stack (x86-64): frameless, as gdb's amd64 unwinder takes it (the return address on top
    /// of the stack, whatever the frame pointer says); a caller at pc 0 is the last frame.
    #[test]
    fn no_cfi_no_symbol_frameless() {
        let a = arch::native();
        if a.unwind().entry_ra_register.is_some() {
            return;
        }
        let table = SymbolTable::new();
        let mut bytes = vec![0u8; 0x100];
        for (i, v) in [0x4444u64, 0x5555, 0].iter().enumerate() {
            bytes[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        let mem = Block {
            base: 0x1000,
            bytes,
        };
        let mut regs = Registers::new(a);
        regs.set(a.pc, 0x3333);
        regs.set(a.sp, 0x1000);
        regs.set(a.fp, 0);
        let (frames, err) = Unwinder::new().backtrace(&table, &mem, regs, 10);
        assert!(err.is_none(), "{err:?}");
        let pcs: Vec<u64> = frames.iter().map(|f| f.pc()).collect();
        assert_eq!(pcs, vec![0x3333, 0x4444, 0x5555, 0]);
    }

    /// A stack with no CFI at all ends cleanly or with an error, never loops (architectures
    /// whose return address is in a register at entry follow the frame-pointer chain).
    #[test]
    fn no_cfi_frame_pointer_chain() {
        let a = arch::native();
        let info = a.unwind();
        if info.entry_ra_register.is_none() {
            return;
        }
        let table = SymbolTable::new();
        // fp chain: frame at 0x1000 -> saved fp 0x1040, ra 0x4444; frame at 0x1040 -> fp 0.
        let mut bytes = vec![0u8; 0x100];
        let put = |b: &mut Vec<u8>, off: u64, v: u64| {
            let o = off as usize;
            b[o..o + 8].copy_from_slice(&v.to_le_bytes());
        };
        put(&mut bytes, info.fp_saved_fp_offset, 0x1040);
        put(&mut bytes, info.fp_ra_offset, 0x4444);
        put(&mut bytes, 0x40 + info.fp_saved_fp_offset, 0);
        put(&mut bytes, 0x40 + info.fp_ra_offset, 0x5555);
        let mem = Block {
            base: 0x1000,
            bytes,
        };
        let mut regs = Registers::new(a);
        regs.set(a.pc, 0x3333);
        regs.set(a.sp, 0xff0);
        regs.set(a.fp, 0x1000);
        let u = Unwinder::new();
        let (frames, err) = u.backtrace(&table, &mem, regs, 10);
        assert!(err.is_none(), "{err:?}");
        let pcs: Vec<u64> = frames.iter().map(|f| f.pc()).collect();
        assert_eq!(pcs, vec![0x3333, 0x4444, 0x5555]);
        assert_eq!(frames[1].cfa, Some(0x1040 + info.fp_cfa_offset));
        assert_eq!(frames[1].lookup_pc(), 0x4443);
        assert_eq!(frames[0].lookup_pc(), 0x3333);
    }
}
