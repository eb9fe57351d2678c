//! One [`DebugFile`] per binary: its DWARF sections mapped once for the whole run, unit
//! headers listed up front, each unit parsed the first time something needs it.
//!
//! Section bytes are `'static`: the file's map is leaked on purpose (a binary's DWARF is
//! parsed once per debugger process and kept while it runs), which lets every gimli structure
//! borrow it without lifetimes or reference counts on the hot paths.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use gimli::{RunTimeEndian, Unit, UnitHeader};
use object::{Object, ObjectSection, ObjectSymbol};

use crate::R;
use crate::error::{DwarfError, Result};

/// One compilation unit, parsed on first use.
pub struct UnitEntry {
    pub header: UnitHeader<R>,
    parsed: OnceLock<std::result::Result<Unit<R>, String>>,
}

/// The DWARF of one binary (and of its separate debug file, when it has one).
pub struct DebugFile {
    /// The binary this was loaded for.
    pub path: PathBuf,
    /// The file the DWARF actually came from (the binary or its separate debug file).
    pub dwarf_path: PathBuf,
    pub dwarf: gimli::Dwarf<R>,
    pub endian: RunTimeEndian,
    pub units: Vec<UnitEntry>,
    /// The dwz supplementary file (`.gnu_debugaltlink`) the DWARF refers to, when loaded.
    pub sup_path: Option<PathBuf>,
    /// Address ranges of units, sorted by start: built on first address lookup.
    ranges: OnceLock<Vec<(u64, u64, usize)>>,
    /// Executable sections of the binary itself (address, bytes), for prologue analysis: a
    /// separate debug file has no code.
    pub(crate) code: Vec<(u64, &'static [u8])>,
    /// The binary's own ELF image (its symbol table), whichever file the DWARF came from.
    elf: &'static [u8],
    /// The link-time address of the ELF symbol `main`, looked up once.
    main_address: OnceLock<Option<u64>>,
    /// The name index, built on first query (see `index`).
    pub(crate) index: OnceLock<crate::index::NameIndex>,
    /// Per unit: its line table as gdb builds it, on first use (see `lines`).
    pub(crate) lines: Vec<OnceLock<std::result::Result<crate::lines::UnitLines, String>>>,
    /// Units by their files' names, from the line-program headers, on first use (see `lines`).
    pub(crate) file_index: OnceLock<crate::lines::FileIndex>,
    /// Per unit: facts gathered by one walk of its DIEs on first use (see `index`).
    pub(crate) unit_facts: Vec<OnceLock<crate::index::UnitFacts>>,
}

static CACHE: LazyLock<Mutex<HashMap<PathBuf, Arc<DebugFile>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));
static LOADING: Mutex<()> = Mutex::new(());

fn io_error(path: &Path, e: std::io::Error) -> DwarfError {
    if e.kind() == std::io::ErrorKind::NotFound {
        DwarfError::NoSuchFile(path.to_path_buf())
    } else {
        DwarfError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    }
}

/// Map `path` for the rest of the run (one map per file, shared with its ELF symbol table).
pub(crate) fn map_static(path: &Path) -> Result<&'static [u8]> {
    cohort_engine::mapped::map_static(path).map_err(|e| io_error(path, e))
}

/// Drop the resident pages of the file maps holding `sections` (see
/// [`cohort_engine::mapped::release_pages`]).
pub(crate) fn release_pages(sections: &[&'static [u8]]) {
    cohort_engine::mapped::release_pages(sections);
}

impl DebugFile {
    /// [`release_pages`] for this binary's `.debug_info` and `.debug_str`.
    pub(crate) fn release_walked_pages(&self) {
        use gimli::Section;
        release_pages(&[
            self.dwarf.debug_info.reader().slice(),
            self.dwarf.debug_str.reader().slice(),
        ]);
    }
}

/// Every binary whose DWARF this debugger process has loaded (programs and their shared
/// libraries).
pub fn loaded_files() -> Vec<Arc<DebugFile>> {
    CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .values()
        .cloned()
        .collect()
}

impl DebugFile {
    /// The DWARF of `path`, parsed once per debugger process and shared.
    pub fn load(path: &Path) -> Result<Arc<DebugFile>> {
        {
            let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(f) = cache.get(path) {
                return Ok(f.clone());
            }
        }
        // One load at a time: ranks of one agent ask for the same files at the same moment, and
        // a load maps (and may decompress) sections for the life of the process.
        let _loading = LOADING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = CACHE.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
            return Ok(f.clone());
        }
        let f = Arc::new(Self::open(path)?);
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        Ok(cache.entry(path.to_path_buf()).or_insert(f).clone())
    }

    /// Every file loaded so far in this process (tests look at what a command read).
    pub fn loaded() -> Vec<Arc<DebugFile>> {
        let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache.values().cloned().collect()
    }

    fn open(path: &Path) -> Result<DebugFile> {
        let data = map_static(path)?;
        let obj = object::File::parse(data).map_err(|_| DwarfError::NotElf(path.to_path_buf()))?;
        let code = code_sections(&obj);
        let has_dwarf = obj
            .section_by_name(".debug_info")
            .is_some_and(|s| s.size() > 0);
        let mut file = None;
        if !has_dwarf && let Some(dbg) = find_separate_debug(path, &obj) {
            match map_static(&dbg).and_then(|d| Self::from_bytes(path, &dbg, d)) {
                Ok(f) => file = Some(f),
                Err(e) => tracing::warn!("{}: {e}", dbg.display()),
            }
        }
        let mut file = match file {
            Some(f) => f,
            None => Self::from_bytes(path, path, data)?,
        };
        file.code = code;
        file.elf = data;
        Ok(file)
    }

    /// Build from an ELF image (`dwarf_path` names where the bytes came from).
    pub fn from_bytes(path: &Path, dwarf_path: &Path, data: &'static [u8]) -> Result<DebugFile> {
        let obj = object::File::parse(data).map_err(|_| DwarfError::NotElf(path.to_path_buf()))?;
        let endian = if obj.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let load = |id: gimli::SectionId| -> std::result::Result<R, gimli::Error> {
            Ok(gimli::EndianSlice::new(
                section_bytes(&obj, id.name()),
                endian,
            ))
        };
        let mut dwarf = gimli::Dwarf::load(load)?;
        let mut sup_path = None;
        if let Some(sup) = find_sup_file(dwarf_path, &obj) {
            match map_static(&sup)
                .and_then(|d| object::File::parse(d).map_err(|_| DwarfError::NotElf(sup.clone())))
            {
                Ok(sobj) => {
                    let sload = |id: gimli::SectionId| -> std::result::Result<R, gimli::Error> {
                        Ok(gimli::EndianSlice::new(
                            section_bytes(&sobj, id.name()),
                            endian,
                        ))
                    };
                    dwarf.load_sup(sload)?;
                    sup_path = Some(sup);
                }
                Err(e) => tracing::warn!("{}: {e}", sup.display()),
            }
        }
        let mut units = Vec::new();
        let mut headers = dwarf.units();
        loop {
            match headers.next() {
                Ok(Some(header)) => units.push(UnitEntry {
                    header,
                    parsed: OnceLock::new(),
                }),
                Ok(None) => break,
                Err(e) => {
                    // A broken header ends the list: units before it stay usable.
                    tracing::warn!("{}: bad unit header: {e}", dwarf_path.display());
                    break;
                }
            }
        }
        let n = units.len();
        Ok(DebugFile {
            path: path.to_path_buf(),
            dwarf_path: dwarf_path.to_path_buf(),
            dwarf,
            endian,
            units,
            sup_path,
            ranges: OnceLock::new(),
            code: code_sections(&obj),
            elf: data,
            main_address: OnceLock::new(),
            index: OnceLock::new(),
            file_index: OnceLock::new(),
            lines: (0..n).map(|_| OnceLock::new()).collect(),
            unit_facts: (0..n).map(|_| OnceLock::new()).collect(),
        })
    }

    /// The unit holding the code of `main`, found through the ELF symbol table (no DWARF
    /// index is built: gdb's language before the program runs is `main`'s unit's).
    pub fn main_unit(&self) -> Option<usize> {
        let addr = (*self.main_address.get_or_init(|| {
            let obj = object::File::parse(self.elf).ok()?;
            obj.symbols()
                .chain(obj.dynamic_symbols())
                .find(|s| {
                    s.kind() == object::SymbolKind::Text && s.name_bytes().ok() == Some(b"main")
                })
                .map(|s| s.address())
        }))?;
        self.unit_for_pc(addr)
    }

    /// Whether there is any DWARF unit at all.
    pub fn has_debug_info(&self) -> bool {
        !self.units.is_empty()
    }

    /// Unit `i`, parsed now if it was not yet. A unit that cannot be parsed gives an error for
    /// that unit only.
    pub fn unit(&self, i: usize) -> Result<&Unit<R>> {
        let entry = self
            .units
            .get(i)
            .ok_or_else(|| DwarfError::Malformed(format!("no unit {i}")))?;
        entry
            .parsed
            .get_or_init(|| self.dwarf.unit(entry.header).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| DwarfError::Malformed(e.clone()))
    }

    /// Index of the unit containing the `.debug_info` offset `off`.
    pub fn unit_index_for_offset(&self, off: gimli::DebugInfoOffset<usize>) -> Option<usize> {
        let i = self.units.partition_point(|u| {
            u.header
                .offset()
                .as_debug_info_offset()
                .is_some_and(|o| o.0 <= off.0)
        });
        i.checked_sub(1)
    }

    /// Index of the unit whose code covers the link-time address `pc`. Uses `.debug_aranges`
    /// when the compiler wrote it, else the units' own ranges (parsing each unit once).
    pub fn unit_for_pc(&self, pc: u64) -> Option<usize> {
        let ranges = self.ranges.get_or_init(|| self.build_ranges());
        let i = ranges.partition_point(|r| r.0 <= pc);
        // Ranges may nest or overlap (e.g. a unit's range list around another's); look back a
        // little for one that really covers pc.
        ranges[..i]
            .iter()
            .rev()
            .take(8)
            .find(|r| pc < r.1)
            .map(|r| r.2)
    }

    fn build_ranges(&self) -> Vec<(u64, u64, usize)> {
        let mut out = Vec::new();
        let mut covered = vec![false; self.units.len()];
        let mut headers = self.dwarf.debug_aranges.headers();
        while let Ok(Some(h)) = headers.next() {
            let Some(ui) = self.unit_index_for_offset(h.debug_info_offset()) else {
                continue;
            };
            let mut entries = h.entries();
            while let Ok(Some(e)) = entries.next() {
                let r = e.range();
                if r.end > r.begin {
                    out.push((r.begin, r.end, ui));
                    covered[ui] = true;
                }
            }
        }
        for (ui, done) in covered.iter().enumerate() {
            if *done {
                continue;
            }
            let Ok(unit) = self.unit(ui) else { continue };
            for (b, e) in self.unit_code_ranges(unit) {
                out.push((b, e, ui));
            }
        }
        out.sort_unstable();
        out
    }
}

impl DebugFile {
    /// Up to `len` bytes of the binary's code at link-time address `addr` (fewer at the end of
    /// a section; empty when `addr` is not in code).
    pub fn code_at(&self, addr: u64, len: usize) -> &[u8] {
        for &(start, bytes) in &self.code {
            if addr >= start {
                let off = (addr - start) as usize;
                if off < bytes.len() {
                    let end = off.saturating_add(len).min(bytes.len());
                    return bytes.get(off..end).unwrap_or(&[]);
                }
            }
        }
        &[]
    }
}

/// Bytes of section `name` (decompressed when SHF_COMPRESSED or `.zdebug_*`); empty when
/// absent or undecodable, or when its header claims a size no real section has (a corrupt
/// file must not make us allocate exabytes).
fn section_bytes(obj: &object::File<'static>, name: &str) -> &'static [u8] {
    const MAX_RATIO: u64 = 1024;
    const MAX_SIZE: u64 = 8 << 30;
    match obj.section_by_name(name) {
        Some(s) => match s.compressed_file_range() {
            Ok(r)
                if r.format != object::CompressionFormat::None
                    && (r.uncompressed_size > MAX_SIZE
                        || r.uncompressed_size > r.compressed_size.saturating_mul(MAX_RATIO)) =>
            {
                tracing::warn!(
                    "section {name}: claims {} bytes uncompressed; ignored",
                    r.uncompressed_size
                );
                &[]
            }
            _ => match s.uncompressed_data() {
                Ok(std::borrow::Cow::Borrowed(b)) => b,
                Ok(std::borrow::Cow::Owned(v)) => Vec::leak(v),
                Err(e) => {
                    tracing::warn!("section {name}: {e}");
                    &[]
                }
            },
        },
        None => &[],
    }
}

fn code_sections(obj: &object::File<'static>) -> Vec<(u64, &'static [u8])> {
    obj.sections()
        .filter(|s| s.kind() == object::SectionKind::Text)
        .filter_map(|s| s.data().ok().map(|d| (s.address(), d)))
        .filter(|(_, d)| !d.is_empty())
        .collect()
}

/// Where gdb keeps global debug files.
const DEBUG_DIR: &str = "/usr/lib/debug";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `/usr/lib/debug/.build-id/ab/cdef….debug` for a build id.
fn build_id_path(id: &[u8]) -> Option<PathBuf> {
    let (first, rest) = id.split_first()?;
    if rest.is_empty() {
        return None;
    }
    Some(
        Path::new(DEBUG_DIR)
            .join(".build-id")
            .join(format!("{first:02x}"))
            .join(format!("{}.debug", hex(rest))),
    )
}

/// The separate debug file of a binary without DWARF, as gdb looks for it: by build id, then
/// by `.gnu_debuglink` (next to the binary, in its `.debug/`, under `/usr/lib/debug/<dir>/`)
/// with the link's CRC checked.
fn find_separate_debug(path: &Path, obj: &object::File<'static>) -> Option<PathBuf> {
    if let Ok(Some(id)) = obj.build_id()
        && let Some(p) = build_id_path(id)
        && p.is_file()
    {
        return Some(p);
    }
    let Ok(Some((name, crc))) = obj.gnu_debuglink() else {
        return None;
    };
    let name = Path::new(std::str::from_utf8(name).ok()?);
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = real.parent()?.to_path_buf();
    let mut candidates = vec![dir.join(name), dir.join(".debug").join(name)];
    let rel = dir.strip_prefix("/").unwrap_or(&dir);
    candidates.push(Path::new(DEBUG_DIR).join(rel).join(name));
    candidates
        .into_iter()
        .filter(|c| c.as_path() != real.as_path() && c.is_file())
        .find(|c| file_crc32(c) == Some(crc))
}

/// The dwz supplementary file named by `.gnu_debugaltlink` (relative to the debug file's
/// folder, or by its build id under `/usr/lib/debug/.build-id`).
fn find_sup_file(dwarf_path: &Path, obj: &object::File<'static>) -> Option<PathBuf> {
    let Ok(Some((name, id))) = obj.gnu_debugaltlink() else {
        return None;
    };
    let name = Path::new(std::str::from_utf8(name).ok()?);
    let direct = if name.is_absolute() {
        name.to_path_buf()
    } else {
        dwarf_path.parent().unwrap_or(Path::new(".")).join(name)
    };
    if direct.is_file() {
        return Some(direct);
    }
    build_id_path(id).filter(|p| p.is_file())
}

/// CRC-32 (IEEE, as `.gnu_debuglink` uses) of a whole file, read through a map.
fn file_crc32(path: &Path) -> Option<u32> {
    let file = std::fs::File::open(path).ok()?;
    if file.metadata().ok()?.len() == 0 {
        return Some(crc32fast::hash(&[]));
    }
    // SAFETY: mmap(2) of a regular file, read-only and private, dropped at the end of this
    // function; a concurrent change gives a wrong checksum, not unsafety.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    Some(crc32fast::hash(&map))
}

impl DebugFile {
    /// Code ranges of a DIE (`DW_AT_low_pc`/`high_pc` or `DW_AT_ranges`), link-time, without
    /// trusting the file: a `high_pc` offset that overflows gives no range instead of a panic.
    pub fn entry_ranges(
        &self,
        unit: &Unit<R>,
        entry: &gimli::DebuggingInformationEntry<R>,
    ) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        if let Ok(Some(v)) = entry.attr_value(gimli::DW_AT_ranges) {
            if let Ok(Some(mut it)) = self.dwarf.attr_ranges(unit, v) {
                while let Ok(Some(r)) = it.next() {
                    if r.end > r.begin {
                        out.push((r.begin, r.end));
                    }
                }
            }
            return out;
        }
        let low = match entry.attr_value(gimli::DW_AT_low_pc) {
            Ok(Some(v)) => self.dwarf.attr_address(unit, v).ok().flatten(),
            _ => None,
        };
        let Some(low) = low else { return out };
        let high = match entry.attr_value(gimli::DW_AT_high_pc) {
            Ok(Some(gimli::AttributeValue::Udata(n))) => low.checked_add(n),
            Ok(Some(v)) => match self.dwarf.attr_address(unit, v) {
                Ok(Some(a)) => Some(a),
                _ => v.udata_value().and_then(|n| low.checked_add(n)),
            },
            _ => None,
        };
        if let Some(high) = high
            && high > low
        {
            out.push((low, high));
        }
        out
    }

    /// Code ranges of a whole unit (its root DIE).
    pub fn unit_code_ranges(&self, unit: &Unit<R>) -> Vec<(u64, u64)> {
        let mut entries = unit.entries();
        match entries.next_dfs() {
            Ok(Some((_, root))) => self.entry_ranges(unit, root),
            _ => Vec::new(),
        }
    }
}
