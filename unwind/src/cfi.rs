//! Call-frame information of one object file: `.eh_frame` (found through `.eh_frame_hdr`'s
//! binary search table) and `.debug_frame` (of the file itself or of its separate debug
//! file), parsed once, with the unwind rows already computed cached by address.
//!
//! Rows are stored in owned form ([`UnwindRow`]) so that the cache outlives any borrow of
//! the file's bytes. All addresses here are link-time (unrelocated).

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cohort_engine::symbols::{ObjectFile, Section};
use gimli::{
    BaseAddresses, CieOrFde, DebugFrame, EhFrame, EhFrameHdr, EndianSlice, RunTimeEndian,
    UnwindContext, UnwindSection,
};

use crate::UnwindError;

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;

/// How to compute the canonical frame address of a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CfaRule {
    /// DWARF register `register` plus `offset`.
    RegisterOffset { register: u16, offset: i64 },
    /// A DWARF expression (its bytes).
    Expression(Vec<u8>),
}

/// How to recover one register of the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegRule {
    Undefined,
    SameValue,
    /// Saved at CFA + offset.
    Offset(i64),
    /// Is CFA + offset.
    ValOffset(i64),
    /// Held in another (DWARF) register of this frame.
    Register(u16),
    /// Saved at the address the expression computes (the CFA pushed first).
    Expression(Vec<u8>),
    /// Is the value the expression computes (the CFA pushed first).
    ValExpression(Vec<u8>),
    Constant(u64),
    /// Defined by the augmenter; not recoverable here.
    Architectural,
}

/// One row of the CFI table: the rules valid for link-time addresses `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnwindRow {
    pub start: u64,
    pub end: u64,
    pub cfa: CfaRule,
    /// Rules by DWARF register number; a register not listed has no rule.
    pub rules: Vec<(u16, RegRule)>,
    /// The CIE's return-address column.
    pub return_address: u16,
    /// The FDE is marked as a signal trampoline (augmentation `S`).
    pub signal_frame: bool,
    /// Address size of the CFI, for expression evaluation.
    pub address_size: u8,
}

impl UnwindRow {
    /// The rule for DWARF register `reg`, if the row has one.
    pub fn rule(&self, reg: u16) -> Option<&RegRule> {
        self.rules.iter().find(|(r, _)| *r == reg).map(|(_, x)| x)
    }

    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.start && addr < self.end
    }
}

/// Where a section lies in a file.
#[derive(Debug, Clone, Copy)]
struct SecRange {
    addr: u64,
    offset: usize,
    size: usize,
}

impl SecRange {
    fn of(s: &Section) -> Option<SecRange> {
        if !s.has_contents() || s.size == 0 {
            return None;
        }
        Some(SecRange {
            addr: s.addr,
            offset: usize::try_from(s.offset).ok()?,
            size: usize::try_from(s.size).ok()?,
        })
    }

    fn bytes<'a>(&self, file: &'a ObjectFile) -> Option<&'a [u8]> {
        file.data()
            .get(self.offset..self.offset.checked_add(self.size)?)
    }
}

/// One FDE's address range and offset in its section.
#[derive(Debug, Clone, Copy)]
struct FdeSpan {
    start: u64,
    end: u64,
    offset: usize,
}

#[derive(Default)]
struct RowCache {
    /// Rows by start address.
    rows: BTreeMap<u64, Arc<UnwindRow>>,
    /// Addresses known to have no CFI.
    missing: HashSet<u64>,
}

/// Counters of the row cache (for tests and tuning).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Row lookups answered from the cache (including known misses).
    pub hits: u64,
    /// Rows computed from the CFI (and misses recorded).
    pub computed: u64,
}

#[derive(Default)]
pub(crate) struct Counters {
    hits: AtomicU64,
    computed: AtomicU64,
}

impl Counters {
    pub(crate) fn get(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            computed: self.computed.load(Ordering::Relaxed),
        }
    }
}

/// The CFI of one object file.
pub(crate) struct ObjectCfi {
    endian: RunTimeEndian,
    address_size: u8,
    eh_frame: Option<SecRange>,
    eh_frame_hdr: Option<SecRange>,
    text: Option<u64>,
    got: Option<u64>,
    /// `.debug_frame` and the file holding it (this file, or its separate debug file).
    debug_frame: Option<(SecRange, Option<Arc<ObjectFile>>)>,
    /// FDEs of `.eh_frame` when there is no usable `.eh_frame_hdr` table (built on demand).
    eh_index: OnceLock<Vec<FdeSpan>>,
    debug_index: OnceLock<Vec<FdeSpan>>,
    cache: Mutex<RowCache>,
}

fn find<'a>(file: &'a ObjectFile, name: &str) -> Option<&'a Section> {
    file.sections().iter().find(|s| s.name == name)
}

fn cfi_error(file: &ObjectFile, e: gimli::Error) -> UnwindError {
    UnwindError::Cfi {
        path: file.path.display().to_string(),
        msg: e.to_string(),
    }
}

impl ObjectCfi {
    pub(crate) fn new(file: &ObjectFile) -> ObjectCfi {
        let endian = if file.data().get(5) == Some(&2) {
            RunTimeEndian::Big
        } else {
            RunTimeEndian::Little
        };
        let mut debug_frame = find(file, ".debug_frame")
            .and_then(SecRange::of)
            .map(|r| (r, None));
        if debug_frame.is_none()
            && let Some(p) = file.separate_debug_file()
            && let Ok(dbg) = ObjectFile::load_cached(&p)
            && let Some(r) = find(&dbg, ".debug_frame").and_then(SecRange::of)
        {
            debug_frame = Some((r, Some(dbg)));
        }
        ObjectCfi {
            endian,
            address_size: if file.is_64() { 8 } else { 4 },
            eh_frame: find(file, ".eh_frame").and_then(SecRange::of),
            eh_frame_hdr: find(file, ".eh_frame_hdr").and_then(SecRange::of),
            text: find(file, ".text").map(|s| s.addr),
            got: find(file, ".got").map(|s| s.addr),
            debug_frame,
            eh_index: OnceLock::new(),
            debug_index: OnceLock::new(),
            cache: Mutex::new(RowCache::default()),
        }
    }

    /// The row for link-time address `pc` of `file` (the file this was made from), from the
    /// cache or computed; `None` when no CFI covers it.
    pub(crate) fn row(
        &self,
        file: &ObjectFile,
        pc: u64,
        counters: &Counters,
    ) -> Result<Option<Arc<UnwindRow>>, UnwindError> {
        {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, row)) = cache.rows.range(..=pc).next_back()
                && row.contains(pc)
            {
                counters.hits.fetch_add(1, Ordering::Relaxed);
                return Ok(Some(row.clone()));
            }
            if cache.missing.contains(&pc) {
                counters.hits.fetch_add(1, Ordering::Relaxed);
                return Ok(None);
            }
        }
        counters.computed.fetch_add(1, Ordering::Relaxed);
        let row = self.compute(file, pc)?.map(Arc::new);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        match &row {
            Some(r) => {
                cache.rows.insert(r.start, r.clone());
            }
            None => {
                cache.missing.insert(pc);
            }
        }
        Ok(row)
    }

    fn bases(&self) -> BaseAddresses {
        let mut b = BaseAddresses::default();
        if let Some(h) = self.eh_frame_hdr {
            b = b.set_eh_frame_hdr(h.addr);
        }
        if let Some(e) = self.eh_frame {
            b = b.set_eh_frame(e.addr);
        }
        if let Some(t) = self.text {
            b = b.set_text(t);
        }
        if let Some(g) = self.got {
            b = b.set_got(g);
        }
        b
    }

    fn compute(&self, file: &ObjectFile, pc: u64) -> Result<Option<UnwindRow>, UnwindError> {
        if let Some(row) = self.eh_frame_row(file, pc)? {
            return Ok(Some(row));
        }
        self.debug_frame_row(file, pc)
    }

    fn eh_frame_row(&self, file: &ObjectFile, pc: u64) -> Result<Option<UnwindRow>, UnwindError> {
        let Some(eh_bytes) = self.eh_frame.and_then(|r| r.bytes(file)) else {
            return Ok(None);
        };
        let mut eh = EhFrame::from(Slice::new(eh_bytes, self.endian));
        eh.set_address_size(self.address_size);
        let bases = self.bases();
        let hdr = self
            .eh_frame_hdr
            .and_then(|r| r.bytes(file))
            .map(|b| EhFrameHdr::from(Slice::new(b, self.endian)))
            .and_then(|h| h.parse(&bases, self.address_size).ok());
        let fde = match hdr.as_ref().and_then(|h| h.table()) {
            Some(table) => table.fde_for_address(&eh, &bases, pc, EhFrame::cie_from_offset),
            None => {
                let index = self.eh_index.get_or_init(|| index_fdes(&eh, &bases));
                match lookup_span(index, pc) {
                    Some(off) => eh.fde_from_offset(
                        &bases,
                        gimli::EhFrameOffset(off),
                        EhFrame::cie_from_offset,
                    ),
                    None => return Ok(None),
                }
            }
        };
        let fde = match fde {
            Ok(f) => f,
            Err(gimli::Error::NoUnwindInfoForAddress) => return Ok(None),
            Err(e) => return Err(cfi_error(file, e)),
        };
        if !fde.contains(pc) {
            return Ok(None);
        }
        let mut ctx = UnwindContext::new();
        let row = match fde.unwind_info_for_address(&eh, &bases, &mut ctx, pc) {
            Ok(r) => r,
            Err(gimli::Error::NoUnwindInfoForAddress) => return Ok(None),
            Err(e) => return Err(cfi_error(file, e)),
        };
        convert(file, &eh, &bases, row, &fde, self.address_size).map(Some)
    }

    fn debug_frame_row(
        &self,
        file: &ObjectFile,
        pc: u64,
    ) -> Result<Option<UnwindRow>, UnwindError> {
        let Some((range, holder)) = &self.debug_frame else {
            return Ok(None);
        };
        let holder: &ObjectFile = holder.as_deref().unwrap_or(file);
        let Some(bytes) = range.bytes(holder) else {
            return Ok(None);
        };
        let mut df = DebugFrame::from(Slice::new(bytes, self.endian));
        df.set_address_size(self.address_size);
        let bases = BaseAddresses::default();
        let index = self.debug_index.get_or_init(|| index_fdes(&df, &bases));
        let Some(off) = lookup_span(index, pc) else {
            return Ok(None);
        };
        let fde = df
            .fde_from_offset(
                &bases,
                gimli::DebugFrameOffset(off),
                DebugFrame::cie_from_offset,
            )
            .map_err(|e| cfi_error(holder, e))?;
        let mut ctx = UnwindContext::new();
        let row = match fde.unwind_info_for_address(&df, &bases, &mut ctx, pc) {
            Ok(r) => r,
            Err(gimli::Error::NoUnwindInfoForAddress) => return Ok(None),
            Err(e) => return Err(cfi_error(holder, e)),
        };
        convert(holder, &df, &bases, row, &fde, self.address_size).map(Some)
    }
}

/// All FDEs of a section, sorted by start address (a CFI section without a search table).
fn index_fdes<'a, S>(section: &S, bases: &BaseAddresses) -> Vec<FdeSpan>
where
    S: UnwindSection<Slice<'a>>,
    S::Offset: gimli::UnwindOffset<usize>,
{
    let mut out = Vec::new();
    let mut entries = section.entries(bases);
    while let Ok(Some(entry)) = entries.next() {
        if let CieOrFde::Fde(partial) = entry
            && let Ok(fde) = partial.parse(S::cie_from_offset)
            && fde.len() > 0
        {
            out.push(FdeSpan {
                start: fde.initial_address(),
                end: fde.end_address(),
                offset: fde.offset(),
            });
        }
    }
    out.sort_by_key(|s| s.start);
    out
}

/// Offset of the FDE covering `pc` (the last one starting at or below it).
fn lookup_span(index: &[FdeSpan], pc: u64) -> Option<usize> {
    let n = index.partition_point(|s| s.start <= pc);
    index[..n]
        .iter()
        .rev()
        .take(8)
        .find(|s| pc < s.end)
        .map(|s| s.offset)
}

/// DWARF registers the CIE or FDE marks `DW_CFA_undefined` anywhere.
fn marked_undefined<'a, S>(
    section: &S,
    bases: &BaseAddresses,
    fde: &gimli::FrameDescriptionEntry<Slice<'a>>,
) -> Vec<u16>
where
    S: UnwindSection<Slice<'a>>,
{
    let mut out = Vec::new();
    let mut scan = |mut it: gimli::CallFrameInstructionIter<'_, Slice<'a>>| {
        while let Ok(Some(insn)) = it.next() {
            if let gimli::CallFrameInstruction::Undefined { register } = insn {
                out.push(register.0);
            }
        }
    };
    scan(fde.cie().instructions(section, bases));
    scan(fde.instructions(section, bases));
    out
}

/// The owned form of gimli's row. gimli drops undefined rules from a row (an absent rule
/// reads as undefined there), which loses the difference between "no rule" (same value for a
/// callee-saved register) and `DW_CFA_undefined` (the outermost frame's return address):
/// registers the instructions mark undefined get an explicit [`RegRule::Undefined`].
fn convert<'a, S>(
    file: &ObjectFile,
    section: &S,
    bases: &BaseAddresses,
    row: &gimli::UnwindTableRow<usize>,
    fde: &gimli::FrameDescriptionEntry<Slice<'a>>,
    address_size: u8,
) -> Result<UnwindRow, UnwindError>
where
    S: UnwindSection<Slice<'a>>,
{
    let expr = |e: &gimli::UnwindExpression<usize>| -> Result<Vec<u8>, UnwindError> {
        e.get(section)
            .map(|x| x.0.slice().to_vec())
            .map_err(|err| cfi_error(file, err))
    };
    let cfa = match row.cfa() {
        gimli::CfaRule::RegisterAndOffset { register, offset } => CfaRule::RegisterOffset {
            register: register.0,
            offset: *offset,
        },
        gimli::CfaRule::Expression(e) => CfaRule::Expression(expr(e)?),
    };
    let mut rules = Vec::new();
    for (reg, rule) in row.registers() {
        let r = match rule {
            gimli::RegisterRule::Undefined => RegRule::Undefined,
            gimli::RegisterRule::SameValue => RegRule::SameValue,
            gimli::RegisterRule::Offset(o) => RegRule::Offset(*o),
            gimli::RegisterRule::ValOffset(o) => RegRule::ValOffset(*o),
            gimli::RegisterRule::Register(r) => RegRule::Register(r.0),
            gimli::RegisterRule::Expression(e) => RegRule::Expression(expr(e)?),
            gimli::RegisterRule::ValExpression(e) => RegRule::ValExpression(expr(e)?),
            gimli::RegisterRule::Constant(c) => RegRule::Constant(*c),
            _ => RegRule::Architectural,
        };
        rules.push((reg.0, r));
    }
    for reg in marked_undefined(section, bases, fde) {
        if !rules.iter().any(|(r, _)| *r == reg) {
            rules.push((reg, RegRule::Undefined));
        }
    }
    Ok(UnwindRow {
        start: row.start_address(),
        end: row.end_address(),
        cfa,
        rules,
        return_address: fde.cie().return_address_register().0,
        signal_frame: fde.is_signal_trampoline(),
        address_size,
    })
}
