//! ELF symbols: the minimal-symbol tables of the main program and its shared libraries.
//!
//! An [`ObjectFile`] is one ELF file on disk (or an image read from memory, such as the vDSO)
//! with its sections, `.symtab` + `.dynsym` symbols and the PLT stubs synthesized as
//! `name@plt` (and `.got.plt` slots as `name@got.plt`) the way BFD and gdb name them.
//! Addresses are link-time (unrelocated); a [`LoadedObject`] adds the load bias and a
//! [`SymbolTable`] joins the main program and its libraries.
//!
//! Turning an address into `<sym+off>` follows gdb's `lookup_minimal_symbol_by_pc_section` and
//! `build_address_symbolic`: only symbols of the section holding the address count; a sized
//! symbol must contain the address; otherwise the nearest preceding zero-sized symbol is used,
//! and zero-sized non-code symbols are never shown.
//!
//! Each file is parsed once per debugger process while in use ([`ObjectFile::load_cached`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, Weak};

use object::elf;
use object::read::elf::{
    ElfFile, FileHeader, ProgramHeader, Rel, Rela, SectionHeader, Sym, VersionTable,
};
use object::{Endianness, FileKind};

use crate::error::{EngineError, Result};
use crate::memory::MemoryRead;

/// What a symbol names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymKind {
    /// Code: `STT_FUNC`, `STT_GNU_IFUNC`, a PLT stub, or an untyped symbol in an executable
    /// section (an assembler label).
    Function,
    /// `STT_OBJECT`, `STT_COMMON`, a GOT slot.
    Data,
    /// Anything else (untyped symbols outside code, thread-local and absolute symbols).
    Other,
}

/// gdb's minimal-symbol classification, which drives address-to-symbol choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MsymType {
    Text,
    TextIfunc,
    FileText,
    Data,
    FileData,
    Bss,
    FileBss,
    SlotGotPlt,
    Abs,
    Unknown,
}

impl MsymType {
    fn is_text(self) -> bool {
        matches!(
            self,
            MsymType::Text | MsymType::TextIfunc | MsymType::FileText
        )
    }
}

/// One symbol of an object file.
#[derive(Debug, Clone)]
pub struct Symbol {
    /// Borrowed from the mapped file where it can be (a large C++ program has half a million
    /// symbols, most of them long mangled names).
    pub name: Cow<'static, str>,
    /// Link-time (unrelocated) address.
    pub addr: u64,
    pub size: u64,
    pub kind: SymKind,
    /// Global, weak or GNU-unique binding (a synthesized PLT / GOT symbol counts as global).
    pub global: bool,
    /// Synthesized by the debugger (`name@plt`, `name@got.plt`), not in any symbol table.
    pub synthetic: bool,
    /// Index into [`ObjectFile::sections`]; `None` for absolute symbols.
    section: Option<usize>,
    msym: MsymType,
    /// False for a non-default (hidden) symbol version such as `memcpy@GLIBC_2.2.5`.
    default_version: bool,
    /// Whether the size came from the ELF symbol (gdb does not size synthetic PLT symbols).
    has_size: bool,
}

impl Symbol {
    /// An `STT_GNU_IFUNC` symbol (gdb's `mst_text_gnu_ifunc`): its address is the resolver's.
    pub fn is_ifunc(&self) -> bool {
        self.msym == MsymType::TextIfunc
    }

    /// The name as gdb shows it: without the numeric suffix GCC gives static locals and
    /// clones (`cnt.1` is `cnt`, `helper.constprop.0` is `helper.constprop`). Look-ups by
    /// name take the full [`Symbol::name`], as gdb's do.
    pub fn print_name(&self) -> &str {
        print_name(&self.name)
    }

    /// The size gdb uses when choosing a symbol for an address (0 for PLT stubs).
    fn gdb_size(&self) -> u64 {
        if self.has_size { self.size } else { 0 }
    }

    /// Index of the symbol's section in [`ObjectFile::sections`] (`None`: absolute).
    pub fn section_index(&self) -> Option<usize> {
        self.section
    }
}

/// `name` without a final `.DIGITS` component (see [`Symbol::print_name`]).
pub fn print_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((head, tail))
            if !head.is_empty() && !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) =>
        {
            head
        }
        _ => name,
    }
}

/// A [`SymbolTable::symbolize`] answer (`name` or `name+off`) with the name as gdb shows it
/// for a pointer's value (see [`Symbol::print_name`]).
pub fn symbolized_print_name(symbolized: &str) -> std::borrow::Cow<'_, str> {
    let (name, off) = match symbolized.rsplit_once('+') {
        Some((name, off)) if off.bytes().all(|b| b.is_ascii_digit()) => (name, Some(off)),
        _ => (symbolized, None),
    };
    match (print_name(name), off) {
        (p, _) if p.len() == name.len() => std::borrow::Cow::Borrowed(symbolized),
        (p, None) => std::borrow::Cow::Borrowed(p),
        (p, Some(off)) => std::borrow::Cow::Owned(format!("{p}+{off}")),
    }
}

/// One section header of an object file.
#[derive(Debug, Clone)]
pub struct Section {
    pub name: String,
    pub addr: u64,
    pub size: u64,
    /// File offset of the contents (meaningless for `SHT_NOBITS`).
    pub offset: u64,
    pub sh_type: u32,
    pub flags: u64,
}

impl Section {
    pub fn is_alloc(&self) -> bool {
        self.flags & u64::from(elf::SHF_ALLOC) != 0
    }
    pub fn is_exec(&self) -> bool {
        self.flags & u64::from(elf::SHF_EXECINSTR) != 0
    }
    pub fn is_tls(&self) -> bool {
        self.flags & u64::from(elf::SHF_TLS) != 0
    }
    /// Whether the file holds the contents (not `.bss`-like).
    pub fn has_contents(&self) -> bool {
        self.sh_type != elf::SHT_NOBITS && self.sh_type != elf::SHT_NULL
    }
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.addr && addr - self.addr < self.size
    }
}

/// One `PT_LOAD` segment.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    pub vaddr: u64,
    pub memsz: u64,
    pub offset: u64,
    pub filesz: u64,
    pub flags: u32,
    pub align: u64,
}

enum Backing {
    /// A file mapped for the rest of the run ([`crate::mapped`]): symbol names are borrowed
    /// from it.
    Map(&'static [u8]),
    Owned(Vec<u8>),
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Map(m) => m,
            Backing::Owned(v) => v,
        }
    }
}

/// Identity of a file on disk, so a rebuilt file is parsed again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: i64,
    mtime_nsec: i64,
}

impl FileStamp {
    fn of(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
        }
    }
}

/// A parsed ELF file.
pub struct ObjectFile {
    pub path: PathBuf,
    data: Backing,
    stamp: Option<FileStamp>,
    /// Everything read out of the ELF headers, sections and symbol tables.
    info: Parsed,
    /// (hash of a symbol's name, its index), sorted: a lookup checks the names of the hits. (A
    /// map from copies of the names doubled the memory of a large C++ program's symbols.)
    by_name: Vec<(u64, u32)>,
}

/// The hash the name maps of symbol tables and DWARF name indexes keep instead of the names.
pub fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    name.hash(&mut h);
    h.finish()
}

fn names_of(symbols: &[Symbol]) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = symbols
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((name_hash(&s.name), u32::try_from(i).ok()?)))
        .collect();
    v.sort_unstable();
    v
}

impl std::fmt::Debug for ObjectFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectFile")
            .field("path", &self.path)
            .field("symbols", &self.info.symbols.len())
            .finish_non_exhaustive()
    }
}

static LOADING: Mutex<()> = Mutex::new(());
static CACHE: LazyLock<Mutex<HashMap<PathBuf, Weak<ObjectFile>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn open_error(path: &Path, e: std::io::Error) -> EngineError {
    if e.kind() == std::io::ErrorKind::NotFound {
        EngineError::NoSuchFile(path.to_path_buf())
    } else {
        EngineError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    }
}

impl ObjectFile {
    /// Parse the ELF file at `path`.
    pub fn load(path: &Path) -> Result<Arc<ObjectFile>> {
        let file = File::open(path).map_err(|e| open_error(path, e))?;
        let meta = file.metadata().map_err(|e| open_error(path, e))?;
        if !meta.is_file() {
            return Err(EngineError::NotExecutable(path.to_path_buf()));
        }
        drop(file);
        let data = Backing::Map(crate::mapped::map_static(path).map_err(|e| open_error(path, e))?);
        let mut obj = Self::parse(path.to_path_buf(), data, Some(FileStamp::of(&meta)))?;
        obj.add_separate_debug_symbols();
        Ok(Arc::new(obj))
    }

    /// A stripped file (no `.symtab`) whose separate debug file is installed gets that file's
    /// `.symtab` too, as gdb reads it: library code is then named by its local symbols
    /// (`__libc_start_call_main`) instead of the nearest exported one.
    fn add_separate_debug_symbols(&mut self) {
        if self
            .info
            .sections
            .iter()
            .any(|s| s.sh_type == elf::SHT_SYMTAB)
        {
            return;
        }
        let Some(path) = self.separate_debug_file() else {
            return;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            return;
        };
        let extra = match FileKind::parse(&bytes[..]) {
            Ok(FileKind::Elf64) => ElfFile::<elf::FileHeader64<Endianness>>::parse(&bytes[..])
                .map(|f| debug_file_symbols(&f, &self.info.sections))
                .unwrap_or_default(),
            Ok(FileKind::Elf32) => ElfFile::<elf::FileHeader32<Endianness>>::parse(&bytes[..])
                .map(|f| debug_file_symbols(&f, &self.info.sections))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        if extra.is_empty() {
            return;
        }
        let mut symbols = std::mem::take(&mut self.info.symbols);
        symbols.extend(extra);
        self.info.symbols = sort_and_merge(symbols);
        self.by_name = names_of(&self.info.symbols);
    }

    /// Like [`ObjectFile::load`], but each path is parsed once while anyone holds the result
    /// (and again if the file changed on disk).
    pub fn load_cached(path: &Path) -> Result<Arc<ObjectFile>> {
        let stamp = std::fs::metadata(path)
            .map(|m| FileStamp::of(&m))
            .map_err(|e| open_error(path, e))?;
        {
            let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(obj) = cache.get(path).and_then(Weak::upgrade)
                && obj.stamp == Some(stamp)
            {
                return Ok(obj);
            }
        }
        // One load at a time (the ranks of an agent load the same libraries together).
        let _loading = LOADING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(obj) = CACHE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(path)
            .and_then(Weak::upgrade)
            && obj.stamp == Some(stamp)
        {
            return Ok(obj);
        }
        let obj = Self::load(path)?;
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        // Another thread (another rank's) may have loaded it meanwhile: keep one copy.
        if let Some(other) = cache.get(path).and_then(Weak::upgrade)
            && other.stamp == obj.stamp
        {
            return Ok(other);
        }
        cache.retain(|_, w| w.strong_count() > 0);
        cache.insert(path.to_path_buf(), Arc::downgrade(&obj));
        Ok(obj)
    }

    /// Parse an ELF image held in memory (e.g. the vDSO read from a process); `name` is only
    /// used for messages.
    pub fn from_bytes(name: PathBuf, data: Vec<u8>) -> Result<Arc<ObjectFile>> {
        Self::parse(name, Backing::Owned(data), None).map(Arc::new)
    }

    fn parse(path: PathBuf, data: Backing, stamp: Option<FileStamp>) -> Result<ObjectFile> {
        let bytes = data.bytes();
        let stat = match &data {
            Backing::Map(m) => Some(*m),
            Backing::Owned(_) => None,
        };
        if bytes.len() < 4 || &bytes[..4] != b"\x7fELF" {
            return Err(EngineError::NotExecutable(path));
        }
        let bad = |msg: String| EngineError::BadElf {
            path: path.clone(),
            msg,
        };
        let parsed = match FileKind::parse(bytes) {
            Ok(FileKind::Elf32) => {
                let f = ElfFile::<elf::FileHeader32<Endianness>>::parse(bytes)
                    .map_err(|e| bad(e.to_string()))?;
                Parsed::from_elf(&f, stat).map_err(|e| bad(e.to_string()))?
            }
            Ok(FileKind::Elf64) => {
                let f = ElfFile::<elf::FileHeader64<Endianness>>::parse(bytes)
                    .map_err(|e| bad(e.to_string()))?;
                Parsed::from_elf(&f, stat).map_err(|e| bad(e.to_string()))?
            }
            Ok(_) => return Err(EngineError::NotExecutable(path)),
            Err(e) => return Err(bad(e.to_string())),
        };
        let by_name = names_of(&parsed.symbols);
        // Hashing the names read the whole string table.
        if let Some(m) = stat {
            crate::mapped::release_pages(&[m]);
        }
        Ok(ObjectFile {
            path,
            data,
            stamp,
            info: parsed,
            by_name,
        })
    }

    /// The raw file contents.
    pub fn data(&self) -> &[u8] {
        self.data.bytes()
    }

    /// `e_entry` (link-time).
    pub fn entry(&self) -> u64 {
        self.info.entry
    }

    /// Position-independent: `ET_DYN` (PIE executables and shared libraries).
    pub fn is_pie(&self) -> bool {
        self.info.e_type == elf::ET_DYN
    }

    /// `e_machine`.
    pub fn machine(&self) -> u16 {
        self.info.machine
    }

    /// ELFCLASS64.
    pub fn is_64(&self) -> bool {
        self.info.is_64
    }

    /// The program interpreter (`PT_INTERP`), e.g. `/lib64/ld-linux-x86-64.so.2`.
    pub fn interp(&self) -> Option<String> {
        self.info.interp.clone()
    }

    /// Link-time address of the dynamic section (`PT_DYNAMIC`).
    pub fn dynamic_vaddr(&self) -> Option<u64> {
        self.info.dynamic
    }

    /// `[start, end)` of `.text`.
    pub fn text_range(&self) -> Option<(u64, u64)> {
        self.info
            .sections
            .iter()
            .find(|s| s.name == ".text")
            .map(|s| (s.addr, s.addr.wrapping_add(s.size)))
    }

    /// Whether the file itself carries DWARF (`.debug_info`); a `.gnu_debuglink` or build-id
    /// pointing elsewhere does not count (see [`ObjectFile::separate_debug_file`]).
    pub fn has_debug_info(&self) -> bool {
        self.info.debug_info
    }

    /// The GNU build-id note, if any.
    pub fn build_id(&self) -> Option<&[u8]> {
        self.info.build_id.as_deref()
    }

    /// `/usr/lib/debug/.build-id/xx/yyyy.debug` for this file's build id, if installed.
    pub fn separate_debug_file(&self) -> Option<PathBuf> {
        let id = self.build_id()?;
        if id.len() < 2 {
            return None;
        }
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let p = PathBuf::from(format!(
            "/usr/lib/debug/.build-id/{}/{}.debug",
            &hex[..2],
            &hex[2..]
        ));
        p.exists().then_some(p)
    }

    pub fn sections(&self) -> &[Section] {
        &self.info.sections
    }

    /// The link-time addresses of the SystemTap probes `provider:name` (the
    /// `.note.stapsdt` notes: pc, base, semaphore, then the provider and name), each moved
    /// by where `.stapsdt.base` really is (prelink). 64-bit little-endian objects only.
    pub fn stap_probes(&self, provider: &str, name: &str) -> Vec<u64> {
        let mut out = Vec::new();
        if !self.is_64() {
            return out;
        }
        let base_sec = self
            .sections()
            .iter()
            .find(|s| s.name == ".stapsdt.base")
            .map(|s| s.addr);
        let Some(sec) = self.sections().iter().find(|s| s.name == ".note.stapsdt") else {
            return out;
        };
        let data = self.data();
        let (Ok(start), Ok(size)) = (usize::try_from(sec.offset), usize::try_from(sec.size)) else {
            return out;
        };
        let Some(notes) = data.get(start..start.saturating_add(size)) else {
            return out;
        };
        let u32_at = |b: &[u8], i: usize| -> Option<usize> {
            Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?) as usize)
        };
        let u64_at = |b: &[u8], i: usize| -> Option<u64> {
            Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
        };
        let mut i = 0;
        while let (Some(namesz), Some(descsz), Some(ntype)) =
            (u32_at(notes, i), u32_at(notes, i + 4), u32_at(notes, i + 8))
        {
            let name_at = i + 12;
            let desc_at = name_at + namesz.next_multiple_of(4);
            let next = desc_at + descsz.next_multiple_of(4);
            if ntype == 3
                && notes.get(name_at..name_at + namesz) == Some(b"stapsdt\0")
                && let (Some(desc), Some(pc), Some(base)) = (
                    notes.get(desc_at..desc_at + descsz),
                    u64_at(notes, desc_at),
                    u64_at(notes, desc_at + 8),
                )
            {
                let mut strs = desc.get(24..).unwrap_or(&[]).split(|&b| b == 0);
                if strs.next() == Some(provider.as_bytes()) && strs.next() == Some(name.as_bytes())
                {
                    let adjust = base_sec.map_or(0, |b| b.wrapping_sub(base));
                    out.push(pc.wrapping_add(adjust));
                }
            }
            if next <= i {
                break;
            }
            i = next;
        }
        out
    }

    /// The `PT_LOAD` segments.
    pub fn segments(&self) -> &[Segment] {
        &self.info.segments
    }

    /// Lowest `PT_LOAD` address, page aligned (what a load address is relative to).
    pub fn min_load_vaddr(&self) -> u64 {
        self.info
            .segments
            .iter()
            .map(|s| s.vaddr & !(s.align.clamp(1, 1 << 32).next_power_of_two() - 1))
            .min()
            .unwrap_or(0)
    }

    /// The allocated, non-TLS section containing `addr` (gdb's `find_pc_section`).
    pub fn section_containing(&self, addr: u64) -> Option<&Section> {
        self.section_index_containing(addr)
            .map(|i| &self.info.sections[i])
    }

    fn section_index_containing(&self, addr: u64) -> Option<usize> {
        self.info
            .sections
            .iter()
            .position(|s| s.is_alloc() && !s.is_tls() && s.size > 0 && s.contains(addr))
    }

    /// File bytes at link-time address `addr`, up to `len` bytes and the end of the section
    /// holding them (what a static `x/i` of the file can read).
    pub fn bytes_at(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let sec = self
            .info
            .sections
            .iter()
            .find(|s| s.is_alloc() && s.has_contents() && s.size > 0 && s.contains(addr))?;
        let within = addr - sec.addr;
        let n = (len as u64).min(sec.size - within);
        let start = sec.offset.checked_add(within)?;
        let end = start.checked_add(n)?;
        self.data()
            .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }

    /// How many of `len` bytes at link-time `addr` lie in an allocated section without file
    /// contents (`.bss`: zeros until the program runs, as gdb reads it), if one holds `addr`.
    pub fn zero_bytes_at(&self, addr: u64, len: usize) -> Option<usize> {
        let sec = self.info.sections.iter().find(|s| {
            s.is_alloc() && !s.is_tls() && s.sh_type == elf::SHT_NOBITS && s.contains(addr)
        })?;
        Some((len as u64).min(sec.size - (addr - sec.addr)) as usize)
    }

    /// File bytes of read-only code at link-time `addr`: all `len` of them inside one
    /// executable, non-writable section, or none.
    pub fn code_bytes_at(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let sec = self.info.sections.iter().find(|s| {
            s.is_exec()
                && s.flags & u64::from(elf::SHF_WRITE) == 0
                && s.is_alloc()
                && s.has_contents()
                && s.contains(addr)
        })?;
        let within = addr - sec.addr;
        if (len as u64) > sec.size - within {
            return None;
        }
        let start = usize::try_from(sec.offset.checked_add(within)?).ok()?;
        self.data().get(start..start.checked_add(len)?)
    }

    /// Fill `buf` with the file bytes at link-time `addr`; false unless all of it is backed by
    /// section contents.
    pub fn read_at(&self, addr: u64, buf: &mut [u8]) -> bool {
        let mut done = 0;
        while done < buf.len() {
            match self.bytes_at(addr.wrapping_add(done as u64), buf.len() - done) {
                Some(b) if !b.is_empty() => {
                    buf[done..done + b.len()].copy_from_slice(b);
                    done += b.len();
                }
                _ => return false,
            }
        }
        true
    }

    /// All symbols, sorted by address then name.
    pub fn symbols(&self) -> &[Symbol] {
        &self.info.symbols
    }

    /// The symbol called exactly `name` (preferring global functions of the default version),
    /// or failing that `name@plt`.
    pub fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.lookup_exact(name)
            .or_else(|| self.lookup_exact(&format!("{name}@plt")))
    }

    /// The symbol called exactly `name`, preferring global functions of the default version.
    /// Thread-local symbols (whose value is no address) are left out.
    pub fn lookup_exact(&self, name: &str) -> Option<&Symbol> {
        let h = name_hash(name);
        let from = self.by_name.partition_point(|e| e.0 < h);
        self.by_name[from..]
            .iter()
            .take_while(|e| e.0 == h)
            .filter_map(|e| self.info.symbols.get(e.1 as usize))
            .filter(|s| s.name == name)
            .filter(|s| s.section.is_none_or(|i| !self.info.sections[i].is_tls()))
            .max_by_key(|s| {
                (
                    s.global,
                    s.kind == SymKind::Function,
                    s.default_version,
                    !s.synthetic,
                    std::cmp::Reverse(s.addr),
                )
            })
    }

    /// The symbol gdb would show for link-time address `addr`, and the offset into it.
    pub fn symbolize(&self, addr: u64) -> Option<(&Symbol, u64)> {
        let sec = self.section_index_containing(addr)?;
        let syms = &self.info.symbols;
        // The last symbol at or below addr (ties are sorted by name: the last name).
        let mut hi = syms.partition_point(|s| s.addr <= addr) as isize - 1;
        let mut best_zero: Option<usize> = None;
        while hi >= 0 {
            let h = hi as usize;
            let s = &syms[h];
            if s.msym == MsymType::Abs || s.section != Some(sec) {
                hi -= 1;
                continue;
            }
            // Prefer a global text symbol over an otherwise identical other one before it.
            if h > 0 {
                let p = &syms[h - 1];
                if s.msym != MsymType::Text
                    && p.msym == MsymType::Text
                    && s.gdb_size() == p.gdb_size()
                    && s.addr == p.addr
                    && s.section == p.section
                {
                    hi -= 1;
                    continue;
                }
            }
            // Remember the nearest zero-sized one; keep looking for a sized one.
            if s.gdb_size() == 0 {
                if best_zero.is_none() {
                    best_zero = Some(h);
                }
                hi -= 1;
                continue;
            }
            break;
        }
        let mut pick = if hi >= 0 {
            Some(hi as usize)
        } else {
            best_zero
        };
        if let Some(p) = pick {
            let s = &syms[p];
            if s.gdb_size() != 0 && addr >= s.addr.wrapping_add(s.gdb_size()) {
                pick = best_zero;
            }
        }
        let s = &syms[pick?];
        // gdb never shows a zero-sized symbol that is not code (`_edata`, `__bss_start`...).
        if s.has_size && s.size == 0 && !s.msym.is_text() {
            return None;
        }
        Some((s, addr - s.addr))
    }
}

/// What [`ObjectFile::parse`] extracts, independent of the ELF class.
struct Parsed {
    e_type: u16,
    machine: u16,
    is_64: bool,
    entry: u64,
    interp: Option<String>,
    dynamic: Option<u64>,
    sections: Vec<Section>,
    segments: Vec<Segment>,
    symbols: Vec<Symbol>,
    debug_info: bool,
    build_id: Option<Vec<u8>>,
}

/// A dynamic relocation, reduced to what PLT naming needs.
struct DynReloc {
    offset: u64,
    r_type: u32,
    /// Symbol name (`*ABS*` for none).
    name: String,
    addend: i64,
    /// The relocation section applies to `.plt` / `.got.plt` (it is `.rela.plt`).
    plt_section: bool,
}

impl Parsed {
    /// `stat`: the file's bytes when they live for the rest of the run (names are borrowed).
    fn from_elf<Elf: FileHeader<Endian = Endianness>>(
        f: &ElfFile<'_, Elf>,
        stat: Option<&'static [u8]>,
    ) -> object::read::Result<Parsed> {
        let endian = f.endian();
        let data = f.data();
        let header = f.elf_header();
        let table = f.elf_section_table();

        let mut sections = Vec::new();
        for sh in table.iter() {
            let name = table.section_name(endian, sh).unwrap_or(b"");
            sections.push(Section {
                name: String::from_utf8_lossy(name).into_owned(),
                addr: sh.sh_addr(endian).into(),
                size: sh.sh_size(endian).into(),
                offset: sh.sh_offset(endian).into(),
                sh_type: sh.sh_type(endian),
                flags: sh.sh_flags(endian).into(),
            });
        }

        let mut build_id = None;
        for sh in table.iter() {
            if let Ok(Some(mut notes)) = sh.notes(endian, data) {
                while let Ok(Some(note)) = notes.next() {
                    if note.name() == elf::ELF_NOTE_GNU
                        && note.n_type(endian) == elf::NT_GNU_BUILD_ID
                    {
                        build_id = Some(note.desc().to_vec());
                    }
                }
            }
        }

        let mut segments = Vec::new();
        let mut interp = None;
        let mut dynamic = None;
        for ph in f.elf_program_headers() {
            match ph.p_type(endian) {
                elf::PT_LOAD => segments.push(Segment {
                    vaddr: ph.p_vaddr(endian).into(),
                    memsz: ph.p_memsz(endian).into(),
                    offset: ph.p_offset(endian).into(),
                    filesz: ph.p_filesz(endian).into(),
                    flags: ph.p_flags(endian),
                    align: ph.p_align(endian).into(),
                }),
                elf::PT_INTERP => {
                    if let Ok(bytes) = ph.data(endian, data) {
                        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                        interp = Some(String::from_utf8_lossy(&bytes[..end]).into_owned());
                    }
                }
                elf::PT_DYNAMIC => dynamic = Some(ph.p_vaddr(endian).into()),
                _ => {}
            }
        }

        let debug_info = sections
            .iter()
            .any(|s| (s.name == ".debug_info" || s.name == ".zdebug_info") && s.size > 0);

        let mut symbols = Vec::new();
        let symtab = f.elf_symbol_table();
        let dynsym = f.elf_dynamic_symbol_table();
        let versions = table.versions(endian, data).ok().flatten();
        read_symbols(f, symtab, None, &sections, stat, &mut symbols);
        read_symbols(f, dynsym, versions.as_ref(), &sections, stat, &mut symbols);

        // Dynamic relocations: those whose symbol table is .dynsym.
        let is_mips64el = header.is_mips64el(endian);
        let dynsym_index = dynsym.section().0;
        let plt_index = sections.iter().position(|s| s.name == ".plt");
        let got_plt_index = sections
            .iter()
            .position(|s| s.name == ".got.plt")
            .or_else(|| sections.iter().position(|s| s.name == ".got"));
        let mut relocs = Vec::new();
        for sh in table.iter() {
            let link = sh.sh_link(endian) as usize;
            if dynsym_index == 0 || link != dynsym_index {
                continue;
            }
            let info = sh.sh_info(endian) as usize;
            let plt_section = info != 0 && (Some(info) == plt_index || Some(info) == got_plt_index);
            let sym_name = |sym: u32| -> String {
                if sym == 0 {
                    return "*ABS*".to_string();
                }
                dynsym
                    .symbol(object::SymbolIndex(sym as usize))
                    .and_then(|s| dynsym.symbol_name(endian, s))
                    .map(|n| String::from_utf8_lossy(n).into_owned())
                    .unwrap_or_default()
            };
            if let Ok(Some((rela, _))) = sh.rela(endian, data) {
                for r in rela {
                    relocs.push(DynReloc {
                        offset: r.r_offset(endian).into(),
                        r_type: r.r_type(endian, is_mips64el),
                        name: sym_name(r.r_sym(endian, is_mips64el)),
                        addend: r.r_addend(endian).into(),
                        plt_section,
                    });
                }
            } else if let Ok(Some((rel, _))) = sh.rel(endian, data) {
                for r in rel {
                    relocs.push(DynReloc {
                        offset: r.r_offset(endian).into(),
                        r_type: r.r_type(endian),
                        name: sym_name(r.r_sym(endian)),
                        addend: 0,
                        plt_section,
                    });
                }
            }
        }
        let machine = header.e_machine(endian);
        synthesize_plt(data, machine, &sections, &relocs, &mut symbols);
        synthesize_got_plt(&sections, &relocs, header.is_type_64(), &mut symbols);

        let merged = sort_and_merge(symbols);

        Ok(Parsed {
            e_type: header.e_type(endian),
            machine,
            is_64: header.is_type_64(),
            entry: header.e_entry(endian).into(),
            interp,
            dynamic,
            sections,
            segments,
            symbols: merged,
            debug_info,
            build_id,
        })
    }
}

/// gdb's order: address, then name; then merge duplicates (same address, section, name).
fn sort_and_merge(mut symbols: Vec<Symbol>) -> Vec<Symbol> {
    symbols.sort_by(|a, b| a.addr.cmp(&b.addr).then_with(|| a.name.cmp(&b.name)));
    let mut merged: Vec<Symbol> = Vec::with_capacity(symbols.len());
    for s in symbols {
        if let Some(last) = merged.last_mut()
            && last.addr == s.addr
            && last.name == s.name
            && last.section == s.section
        {
            last.default_version &= s.default_version;
            last.global |= s.global;
            if last.kind == SymKind::Other {
                last.kind = s.kind;
            }
            continue;
        }
        merged.push(s);
    }
    merged
}

/// The `.symtab` symbols of a separate debug file, with their sections mapped onto the
/// stripped file's `main_sections` (same name and address); symbols of sections the stripped
/// file lacks are left out.
fn debug_file_symbols<Elf: FileHeader<Endian = Endianness>>(
    f: &ElfFile<'_, Elf>,
    main_sections: &[Section],
) -> Vec<Symbol> {
    let endian = f.endian();
    let table = f.elf_section_table();
    let mut map: Vec<Option<usize>> = Vec::new();
    // The debug file's section list, each replaced by the matching stripped-file section (so
    // that classification uses the real section's type); unmatched ones are made unallocated.
    let mut sections = Vec::new();
    for sh in table.iter() {
        let name = String::from_utf8_lossy(table.section_name(endian, sh).unwrap_or(b""));
        let addr: u64 = sh.sh_addr(endian).into();
        let found = main_sections
            .iter()
            .position(|m| m.name == name && m.addr == addr && m.is_alloc());
        map.push(found);
        sections.push(match found.and_then(|i| main_sections.get(i)) {
            Some(m) => m.clone(),
            None => Section {
                name: name.into_owned(),
                addr,
                size: sh.sh_size(endian).into(),
                offset: 0,
                sh_type: elf::SHT_NULL,
                flags: 0,
            },
        });
    }
    let mut out = Vec::new();
    read_symbols(f, f.elf_symbol_table(), None, &sections, None, &mut out);
    out.retain_mut(|s| match s.section {
        Some(i) => match map.get(i).copied().flatten() {
            Some(j) => {
                s.section = Some(j);
                true
            }
            None => false,
        },
        None => true,
    });
    out
}

/// ARM / AArch64 mapping symbols (`$x`, `$d`, `$a`, `$t`, optionally `.suffix`).
fn is_mapping_symbol(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() >= 2
        && b[0] == b'$'
        && matches!(b[1], b'x' | b'd' | b'a' | b't')
        && (b.len() == 2 || b[2] == b'.')
}

fn read_symbols<Elf: FileHeader<Endian = Endianness>>(
    f: &ElfFile<'_, Elf>,
    table: &object::read::elf::SymbolTable<'_, Elf>,
    versions: Option<&VersionTable<'_, Elf>>,
    sections: &[Section],
    stat: Option<&'static [u8]>,
    out: &mut Vec<Symbol>,
) {
    let endian = f.endian();
    for (index, sym) in table.enumerate() {
        let Ok(name) = table.symbol_name(endian, sym) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        let name = match stat.and_then(|m| crate::mapped::within(m, name)) {
            Some(n) => match std::str::from_utf8(n) {
                Ok(n) => Cow::Borrowed(n),
                Err(_) => Cow::Owned(String::from_utf8_lossy(n).into_owned()),
            },
            None => Cow::Owned(String::from_utf8_lossy(name).into_owned()),
        };
        let st_type = sym.st_type();
        if st_type == elf::STT_SECTION || st_type == elf::STT_FILE {
            continue;
        }
        let bind = sym.st_bind();
        let global = matches!(bind, elf::STB_GLOBAL | elf::STB_WEAK | elf::STB_GNU_UNIQUE);
        let local = bind == elf::STB_LOCAL;
        let addr: u64 = sym.st_value(endian).into();
        let size: u64 = sym.st_size(endian).into();
        let default_version = versions
            .map(|v| !v.version_index(endian, index).is_hidden())
            .unwrap_or(true);
        let shndx = sym.st_shndx(endian);
        let (section, msym) = if shndx == elf::SHN_ABS {
            if addr == 0 {
                // Version-definition names and the like.
                continue;
            }
            (None, MsymType::Abs)
        } else {
            let Ok(Some(si)) = table.symbol_section(endian, sym, index) else {
                continue; // undefined, common or reserved
            };
            let Some(sec) = sections.get(si.0) else {
                continue;
            };
            if !sec.is_alloc() {
                continue;
            }
            let msym = if sec.is_exec() {
                if global {
                    if st_type == elf::STT_GNU_IFUNC {
                        MsymType::TextIfunc
                    } else {
                        MsymType::Text
                    }
                } else if name.starts_with(".L") || is_mapping_symbol(&name) {
                    continue;
                } else {
                    MsymType::FileText
                }
            } else if is_mapping_symbol(&name) {
                continue;
            } else if global {
                if sec.has_contents() {
                    MsymType::Data
                } else {
                    MsymType::Bss
                }
            } else if local {
                if sec.has_contents() {
                    MsymType::FileData
                } else {
                    MsymType::FileBss
                }
            } else {
                MsymType::Unknown
            };
            (Some(si.0), msym)
        };
        let tls = section.is_some_and(|i| sections[i].is_tls()) || st_type == elf::STT_TLS;
        let kind = match st_type {
            _ if tls => SymKind::Other,
            elf::STT_FUNC | elf::STT_GNU_IFUNC => SymKind::Function,
            elf::STT_OBJECT | elf::STT_COMMON => SymKind::Data,
            elf::STT_NOTYPE if msym.is_text() => SymKind::Function,
            _ => SymKind::Other,
        };
        let symbol = Symbol {
            name,
            addr,
            size,
            kind,
            global,
            synthetic: false,
            section,
            msym,
            default_version,
            has_size: true,
        };
        // A default-versioned `name@@VER` (seen in unstripped libraries' .symtab) is also
        // known by its bare name.
        if let Some(at) = symbol.name.find("@@")
            && at > 0
        {
            out.push(Symbol {
                name: match &symbol.name {
                    Cow::Borrowed(n) => Cow::Borrowed(&n[..at]),
                    Cow::Owned(n) => Cow::Owned(n[..at].to_string()),
                },
                ..symbol.clone()
            });
        }
        out.push(symbol);
    }
}

/// BFD's name for a PLT stub: `sym[+0xADDEND]@plt`.
fn plt_name(r: &DynReloc) -> String {
    if r.addend != 0 {
        format!("{}+{:#x}@plt", r.name, r.addend)
    } else {
        format!("{}@plt", r.name)
    }
}

/// Relocation types that fill a GOT slot a PLT stub jumps through.
fn is_plt_reloc(machine: u16, r_type: u32) -> bool {
    match machine {
        elf::EM_X86_64 => matches!(
            r_type,
            elf::R_X86_64_JUMP_SLOT
                | elf::R_X86_64_GLOB_DAT
                | elf::R_X86_64_IRELATIVE
                | elf::R_X86_64_TLSDESC
        ),
        elf::EM_AARCH64 => matches!(
            r_type,
            elf::R_AARCH64_JUMP_SLOT
                | elf::R_AARCH64_GLOB_DAT
                | elf::R_AARCH64_IRELATIVE
                | elf::R_AARCH64_TLSDESC
        ),
        _ => false,
    }
}

/// Name the PLT stubs after the GOT slot each jumps through, as BFD's synthetic symbol table.
fn synthesize_plt(
    data: &[u8],
    machine: u16,
    sections: &[Section],
    relocs: &[DynReloc],
    out: &mut Vec<Symbol>,
) {
    let mut by_slot: HashMap<u64, &DynReloc> = HashMap::new();
    for r in relocs.iter().rev() {
        if is_plt_reloc(machine, r.r_type) {
            by_slot.insert(r.offset, r);
        }
    }
    if by_slot.is_empty() {
        return;
    }
    for (si, sec) in sections.iter().enumerate() {
        if !sec.is_exec() || !sec.has_contents() || !sec.name.starts_with(".plt") {
            continue;
        }
        let Some(bytes) = usize::try_from(sec.offset)
            .ok()
            .zip(usize::try_from(sec.size).ok())
            .and_then(|(o, n)| data.get(o..o.checked_add(n)?))
        else {
            continue;
        };
        let stubs = match machine {
            elf::EM_X86_64 => x86_64_plt_stubs(&sec.name, sec.addr, bytes),
            elf::EM_AARCH64 => aarch64_plt_stubs(sec.addr, bytes),
            _ => Vec::new(),
        };
        for (start, size, slot) in stubs {
            if let Some(r) = by_slot.get(&slot) {
                out.push(Symbol {
                    name: plt_name(r).into(),
                    addr: start,
                    size,
                    kind: SymKind::Function,
                    global: true,
                    synthetic: true,
                    section: Some(si),
                    msym: MsymType::Text,
                    default_version: true,
                    has_size: false,
                });
            }
        }
    }
}

/// `(stub address, stub size, GOT slot)` for each x86-64 PLT entry that jumps through a slot.
fn x86_64_plt_stubs(name: &str, base: u64, bytes: &[u8]) -> Vec<(u64, u64, u64)> {
    // .plt / .plt.sec / .plt.bnd entries are 16 bytes; .plt.got entries are 8 bytes
    // (`jmp *slot(%rip); xchg %ax,%ax`) or 16 with IBT (`endbr64; bnd jmp *slot(%rip); nop`).
    let entry = if name == ".plt.got" && bytes.starts_with(&[0xff, 0x25]) {
        8
    } else {
        16
    };
    let endbr64 = [0xf3, 0x0f, 0x1e, 0xfa];
    let mut out = Vec::new();
    for (k, e) in bytes.chunks(entry).enumerate() {
        let start = base.wrapping_add((k * entry) as u64);
        // Where an indirect `jmp *disp32(%rip)` (ff 25) can begin inside an entry.
        let at = [0usize, 1, 4, 5].into_iter().find(|&i| {
            let prefix_ok = match i {
                0 => true,
                1 => e.first() == Some(&0xf2),
                4 => e.starts_with(&endbr64),
                5 => e.starts_with(&endbr64) && e.get(4) == Some(&0xf2),
                _ => false,
            };
            prefix_ok && e.get(i) == Some(&0xff) && e.get(i + 1) == Some(&0x25)
        });
        let Some(i) = at else { continue };
        let Some(d) = e.get(i + 2..i + 6) else {
            continue;
        };
        let disp = i64::from(i32::from_le_bytes([d[0], d[1], d[2], d[3]]));
        let next = start.wrapping_add((i + 6) as u64);
        out.push((start, entry as u64, next.wrapping_add(disp as u64)));
    }
    out
}

/// `(stub address, stub size, GOT slot)` for AArch64 PLT entries
/// (`[bti c;] adrp x16, page; ldr x17, [x16, #off]; add x16, x16, #off; br x17`).
fn aarch64_plt_stubs(base: u64, bytes: &[u8]) -> Vec<(u64, u64, u64)> {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = Vec::new();
    for i in 0..words.len().saturating_sub(1) {
        let (adrp, ldr) = (words[i], words[i + 1]);
        // `adrp x16, …` followed by `ldr x17, [x16, #imm]`; PLT0's slot has no relocation.
        if adrp & 0x9f00_001f != 0x9000_0010 || ldr & 0xffc0_03ff != 0xf940_0211 {
            continue;
        }
        let pc = base.wrapping_add(4 * i as u64);
        let immlo = u64::from((adrp >> 29) & 3);
        let immhi = u64::from((adrp >> 5) & 0x7ffff);
        // Sign-extend the 21-bit page count and scale it by 4 KiB.
        let imm = ((((immhi << 2) | immlo) << 43) as i64) >> 31;
        let page = (pc & !0xfff).wrapping_add(imm as u64);
        let slot = page.wrapping_add(u64::from((ldr >> 10) & 0xfff) * 8);
        let start = if i > 0 && words[i - 1] == 0xd503_245f {
            pc.wrapping_sub(4) // bti c
        } else {
            pc
        };
        out.push((start, 16, slot));
    }
    out
}

/// gdb's `name@got.plt` symbols for the `.got.plt` slots of `.rela.plt`.
fn synthesize_got_plt(
    sections: &[Section],
    relocs: &[DynReloc],
    is_64: bool,
    out: &mut Vec<Symbol>,
) {
    let got_plt = sections
        .iter()
        .position(|s| s.name == ".got.plt")
        .or_else(|| sections.iter().position(|s| s.name == ".got"));
    let plt = sections.iter().position(|s| s.name == ".plt");
    for r in relocs.iter().filter(|r| r.plt_section) {
        let section = [got_plt, plt]
            .into_iter()
            .flatten()
            .find(|&i| sections[i].contains(r.offset));
        let Some(section) = section else { continue };
        out.push(Symbol {
            name: format!("{}@got.plt", r.name).into(),
            addr: r.offset,
            size: if is_64 { 8 } else { 4 },
            kind: SymKind::Data,
            global: true,
            synthetic: true,
            section: Some(section),
            msym: MsymType::SlotGotPlt,
            default_version: true,
            has_size: true,
        });
    }
}

/// An object file mapped into a process at `bias` (runtime address = link-time + bias).
#[derive(Debug, Clone)]
pub struct LoadedObject {
    pub file: Arc<ObjectFile>,
    pub bias: u64,
}

impl LoadedObject {
    pub fn new(file: Arc<ObjectFile>, bias: u64) -> Self {
        LoadedObject { file, bias }
    }

    /// The symbol containing runtime address `addr` and the offset into it.
    pub fn symbolize_runtime(&self, addr: u64) -> Option<(&Symbol, u64)> {
        self.file.symbolize(addr.wrapping_sub(self.bias))
    }

    /// Runtime address of the symbol `name` (see [`ObjectFile::lookup`]).
    pub fn lookup_runtime(&self, name: &str) -> Option<u64> {
        self.file
            .lookup(name)
            .map(|s| s.addr.wrapping_add(self.bias))
    }

    /// Whether runtime address `addr` falls in one of the file's allocated sections.
    pub fn contains(&self, addr: u64) -> bool {
        self.file
            .section_containing(addr.wrapping_sub(self.bias))
            .is_some()
    }

    /// Runtime `[start, end)` of `.text`.
    pub fn text_range_runtime(&self) -> Option<(u64, u64)> {
        self.file
            .text_range()
            .map(|(a, b)| (a.wrapping_add(self.bias), b.wrapping_add(self.bias)))
    }
}

/// The symbols of a process: the main program and its shared libraries in load order.
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    main: Option<LoadedObject>,
    libs: Vec<LoadedObject>,
    /// The section [`SymbolTable::object_containing`] found last: its runtime `[start, end)`
    /// and its object's place in [`SymbolTable::objects`]. Stepping asks for the object of
    /// the same few addresses many times per stop; every change of the objects forgets it.
    last_found: std::cell::Cell<Option<(u64, u64, usize)>>,
}

impl SymbolTable {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_main(main: LoadedObject) -> Self {
        SymbolTable {
            main: Some(main),
            libs: Vec::new(),
            last_found: Default::default(),
        }
    }

    pub fn set_main(&mut self, main: Option<LoadedObject>) {
        self.last_found.set(None);
        self.main = main;
    }

    pub fn main(&self) -> Option<&LoadedObject> {
        self.main.as_ref()
    }

    /// Add an object: the first one becomes the main program, later ones libraries.
    pub fn push(&mut self, obj: LoadedObject) {
        self.last_found.set(None);
        if self.main.is_none() {
            self.main = Some(obj);
        } else {
            self.libs.push(obj);
        }
    }

    /// Append a shared library (load order).
    pub fn add_library(&mut self, lib: LoadedObject) {
        self.last_found.set(None);
        self.libs.push(lib);
    }

    /// Replace the shared libraries (after the dynamic linker's list changed).
    pub fn set_libraries(&mut self, libs: Vec<LoadedObject>) {
        self.last_found.set(None);
        self.libs = libs;
    }

    pub fn libraries(&self) -> &[LoadedObject] {
        &self.libs
    }

    pub fn is_empty(&self) -> bool {
        self.main.is_none() && self.libs.is_empty()
    }

    /// Main program first, then the libraries in load order.
    pub fn objects(&self) -> impl Iterator<Item = &LoadedObject> {
        self.main.iter().chain(self.libs.iter())
    }

    /// The object whose sections hold runtime address `addr`.
    pub fn object_containing(&self, addr: u64) -> Option<&LoadedObject> {
        if let Some((start, end, i)) = self.last_found.get()
            && addr >= start
            && addr < end
        {
            return self.objects().nth(i);
        }
        let (i, obj, sec) = self.objects().enumerate().find_map(|(i, o)| {
            o.file
                .section_containing(addr.wrapping_sub(o.bias))
                .map(|s| (i, o, s))
        })?;
        let start = sec.addr.wrapping_add(obj.bias);
        self.last_found
            .set(Some((start, start.saturating_add(sec.size), i)));
        Some(obj)
    }

    /// The object, symbol and offset gdb would name runtime address `addr` by.
    pub fn symbolize_parts(&self, addr: u64) -> Option<(&LoadedObject, &Symbol, u64)> {
        let obj = self.object_containing(addr)?;
        let (sym, off) = obj.symbolize_runtime(addr)?;
        Some((obj, sym, off))
    }

    /// gdb's `name+off` (decimal offset) or `name` for runtime address `addr`, with the
    /// symbol's full name, as `print/a`, `x/a` and disassembly show it (a pointer's value
    /// shows [`print_name`]s: [`symbolized_print_name`]).
    pub fn symbolize(&self, addr: u64) -> Option<String> {
        let (_, sym, off) = self.symbolize_parts(addr)?;
        Some(if off == 0 {
            sym.name.to_string()
        } else {
            format!("{}+{off}", sym.name)
        })
    }

    /// Name of the symbol containing runtime address `addr`, without the offset: what gdb
    /// shows in a frame line (`in main ()`).
    pub fn function_name(&self, addr: u64) -> Option<String> {
        self.symbolize_parts(addr)
            .map(|(_, s, _)| s.print_name().to_string())
    }

    /// Runtime address of `name`: a definition in the main program, else in the libraries in
    /// load order; failing all, a `name@plt` stub (main program first).
    pub fn lookup(&self, name: &str) -> Option<u64> {
        self.lookup_symbol(name)
            .map(|(o, s)| s.addr.wrapping_add(o.bias))
    }

    /// Like [`SymbolTable::lookup`], giving the object and the symbol.
    pub fn lookup_symbol(&self, name: &str) -> Option<(&LoadedObject, &Symbol)> {
        let find = |n: &str| {
            self.objects()
                .find_map(|o| o.file.lookup_exact(n).map(|s| (o, s)))
        };
        find(name).or_else(|| find(&format!("{name}@plt")))
    }

    /// Runtime address of the symbol `name` as gdb's `lookup_minimal_symbol` finds it (a call
    /// site's target named by its linkage name): the first global one, in object order; else
    /// the file-local one of the last object that has one (glibc's hidden `__GI__exit` is
    /// libc's, not the dynamic linker's copy, though the dynamic linker comes first).
    pub fn lookup_minimal(&self, name: &str) -> Option<u64> {
        let mut local = None;
        for o in self.objects() {
            if let Some(s) = o.file.lookup_exact(name) {
                let addr = s.addr.wrapping_add(o.bias);
                if s.global {
                    return Some(addr);
                }
                local = Some(addr);
            }
        }
        local.or_else(|| self.lookup(name))
    }

    /// Runtime address and size of the data symbol `name`.
    pub fn data_symbol(&self, name: &str) -> Option<(u64, u64)> {
        let (o, s) = self.lookup_symbol(name)?;
        (s.kind == SymKind::Data).then(|| (s.addr.wrapping_add(o.bias), s.size))
    }

    /// Fill `buf` with the file contents at runtime address `addr` (from the objects whose
    /// sections hold it); false if any byte is not backed by a section's contents.
    /// Read code at runtime `addr`: from the object's file when it lies in read-only code that
    /// `mem` says the debugger has not written (the same bytes, without a system call: every
    /// step reads the code it runs through, and ranks of one program share the file), else
    /// from `mem`.
    pub fn read_code(&self, mem: &dyn MemoryRead, addr: u64, buf: &mut [u8]) -> Result<()> {
        if mem.code_unchanged(addr, buf.len()) && self.file_code(addr, buf) {
            return Ok(());
        }
        mem.read(addr, buf)
    }

    /// Fill `buf` with the read-only code of the file at runtime `addr`; false when it is not
    /// all inside one such section.
    pub fn file_code(&self, addr: u64, buf: &mut [u8]) -> bool {
        match self.object_containing(addr).and_then(|obj| {
            obj.file
                .code_bytes_at(addr.wrapping_sub(obj.bias), buf.len())
        }) {
            Some(b) => {
                buf.copy_from_slice(b);
                true
            }
            None => false,
        }
    }

    pub fn read_file_bytes(&self, addr: u64, buf: &mut [u8]) -> bool {
        let mut done = 0;
        while done < buf.len() {
            let a = addr.wrapping_add(done as u64);
            let Some(obj) = self.object_containing(a) else {
                return false;
            };
            match obj
                .file
                .bytes_at(a.wrapping_sub(obj.bias), buf.len() - done)
            {
                Some(b) if !b.is_empty() => {
                    buf[done..done + b.len()].copy_from_slice(b);
                    done += b.len();
                }
                _ => match obj
                    .file
                    .zero_bytes_at(a.wrapping_sub(obj.bias), buf.len() - done)
                {
                    Some(n) if n > 0 => {
                        buf[done..done + n].fill(0);
                        done += n;
                    }
                    _ => return false,
                },
            }
        }
        true
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Compiling small C programs for tests.

    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A directory removed when dropped.
    pub struct TempDir(pub PathBuf);

    impl TempDir {
        pub fn new(tag: &str) -> TempDir {
            static N: AtomicUsize = AtomicUsize::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!(
                "cohort-test-{}-{}-{tag}",
                std::process::id(),
                n
            ));
            std::fs::create_dir_all(&dir).expect("create temp dir");
            TempDir(dir)
        }
        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Compile `src` with `cc <flags>` into `dir/name`.
    pub fn compile(dir: &Path, name: &str, src: &str, flags: &[&str]) -> PathBuf {
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, src).expect("write source");
        let out = dir.join(name);
        let st = Command::new("cc")
            .args(flags)
            .arg("-o")
            .arg(&out)
            .arg(&c)
            .status()
            .expect("run cc");
        assert!(st.success(), "cc failed for {name}");
        out
    }

    /// Output of `gdb -nx -batch` with the given `-ex` commands on `prog` (separate debug
    /// files switched off, so gdb uses the ELF symbols alone).
    pub fn gdb(prog: &Path, cmds: &[&str]) -> String {
        let mut cmd = Command::new("gdb");
        cmd.args([
            "-nx",
            "-batch",
            "-ex",
            "set debug-file-directory /nonexistent",
        ]);
        for c in cmds {
            cmd.arg("-ex").arg(c);
        }
        let out = cmd.arg(prog).output().expect("run gdb");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn have(tool: &str) -> bool {
        Command::new(tool)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{TempDir, compile, gdb, have};
    use super::*;

    const PROG: &str = r#"
#include <stdio.h>
#include <stdlib.h>
int counter = 5;
static long total;
int add(int a, int b) { return a + b; }
static int helper(int x) { return x * 3; }
int main(int argc, char **argv) {
    for (int i = 0; i < 3; i++) { counter += add(i, argc); total += helper(i); }
    if (argc > 100) abort();
    printf("%d %ld\n", counter, total);
    puts(argv[0]);
    return 0;
}
"#;

    #[test]
    fn symbols_errors() {
        let dir = TempDir::new("symerr");
        let missing = dir.path().join("nope");
        assert!(matches!(
            ObjectFile::load(&missing),
            Err(EngineError::NoSuchFile(p)) if p == missing
        ));
        let text = dir.path().join("text");
        std::fs::write(&text, "hello world").unwrap();
        assert!(matches!(
            ObjectFile::load(&text),
            Err(EngineError::NotExecutable(_))
        ));
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        assert!(matches!(
            ObjectFile::load(&empty),
            Err(EngineError::NotExecutable(_))
        ));
        let bad = dir.path().join("bad");
        let mut b = b"\x7fELF\x02\x01\x01".to_vec();
        b.resize(80, 0xff);
        std::fs::write(&bad, b).unwrap();
        assert!(matches!(
            ObjectFile::load(&bad),
            Err(EngineError::BadElf { .. })
        ));
        assert!(matches!(
            ObjectFile::load(dir.path()),
            Err(EngineError::NotExecutable(_))
        ));
        // Truncated copies of a real ELF never panic.
        let me = std::fs::read("/proc/self/exe").unwrap();
        for n in [20, 64, 100, 1000, 5000, me.len() / 2] {
            let _ = ObjectFile::from_bytes("cut".into(), me[..n.min(me.len())].to_vec());
        }
    }

    #[test]
    fn symbols_of_pie_program() {
        if !have("cc") {
            return;
        }
        let dir = TempDir::new("sympie");
        let prog = compile(dir.path(), "prog", PROG, &["-g", "-O0"]);
        let obj = ObjectFile::load(&prog).unwrap();
        assert!(obj.is_pie());
        assert!(obj.has_debug_info());
        assert!(obj.interp().is_some_and(|i| i.contains("ld-linux")));
        assert!(obj.dynamic_vaddr().is_some());
        assert!(obj.build_id().is_some());
        let (ts, te) = obj.text_range().unwrap();
        assert!(ts < te);
        let main = obj.lookup("main").unwrap();
        assert_eq!(main.kind, SymKind::Function);
        assert!(main.size > 0 && main.global);
        assert!(main.addr >= ts && main.addr < te);
        let start = obj.lookup("_start").unwrap();
        assert_eq!(start.addr, obj.entry());
        assert_eq!(obj.lookup("counter").unwrap().kind, SymKind::Data);
        assert!(obj.lookup("helper").is_some_and(|s| !s.global));
        assert!(obj.lookup("no_such_symbol").is_none());
        assert!(obj.symbols().windows(2).all(|w| w[0].addr <= w[1].addr));
        // PLT stubs.
        let printf_plt = obj.lookup("printf@plt").expect("printf@plt");
        assert!(printf_plt.synthetic);
        assert_eq!(obj.lookup("printf").unwrap().addr, printf_plt.addr);
        assert!(obj.lookup("printf@got.plt").is_some());
        let (s, off) = obj.symbolize(main.addr + 4).unwrap();
        assert_eq!((&*s.name, off), ("main", 4));
        if have("gdb") {
            let out = gdb(
                &prog,
                &["info address printf@plt", "info address abort@plt"],
            );
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.len(), 2, "{out}");
            for (name, line) in ["printf@plt", "abort@plt"].iter().zip(lines) {
                let addr = line
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("0x"))
                    .and_then(|h| u64::from_str_radix(h.trim_end_matches('.'), 16).ok())
                    .unwrap_or_else(|| panic!("no address in {line:?}"));
                assert_eq!(obj.lookup(name).unwrap().addr, addr, "{line}");
            }
        }
        // The cache hands out the same object while it is alive.
        let a = ObjectFile::load_cached(&prog).unwrap();
        let b = ObjectFile::load_cached(&prog).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // Static bytes.
        assert_eq!(obj.bytes_at(main.addr, 4).unwrap().len(), 4);
        let mut buf = [0u8; 4];
        assert!(obj.read_at(main.addr, &mut buf));
        assert!(!obj.read_at(0, &mut buf));
    }

    /// Addresses all over the program's sections named like gdb names them (`output/a`).
    #[test]
    fn symbols_symbolize_like_gdb() {
        if !have("cc") || !have("gdb") {
            return;
        }
        for (tag, flags) in [
            ("pie", &["-g", "-O0"][..]),
            ("nopie", &["-O0", "-no-pie", "-fno-pie"][..]),
            ("now", &["-O0", "-Wl,-z,now", "-fcf-protection=full"][..]),
        ] {
            let dir = TempDir::new(tag);
            let prog = compile(dir.path(), "prog", PROG, flags);
            let obj = ObjectFile::load(&prog).unwrap();
            let mut addrs = Vec::new();
            for sec in obj.sections() {
                if !sec.is_alloc() || sec.is_tls() || sec.size == 0 {
                    continue;
                }
                let step = (sec.size / 40).max(1);
                let mut a = sec.addr;
                while a < sec.addr + sec.size {
                    addrs.push(a);
                    a += step;
                }
                addrs.push(sec.addr + sec.size - 1);
            }
            for s in obj.symbols() {
                addrs.extend([s.addr, s.addr + 1, s.addr + s.size]);
            }
            addrs.sort_unstable();
            addrs.dedup();
            let cmds: Vec<String> = addrs
                .iter()
                .map(|a| format!("output/a {a:#x}\necho \\n"))
                .collect();
            let script = dir.path().join("cmds.gdb");
            std::fs::write(&script, cmds.join("\n")).unwrap();
            let out = gdb(&prog, &[&format!("source {}", script.display())]);
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.len(), addrs.len(), "{tag}: gdb output:\n{out}");
            for (a, line) in addrs.iter().zip(lines) {
                let want = line
                    .split_once(" <")
                    .map(|(_, r)| r.trim_end_matches('>').to_string());
                let got = obj.symbolize(*a).map(|(s, off)| {
                    if off == 0 {
                        s.name.to_string()
                    } else {
                        format!("{}+{off}", s.name)
                    }
                });
                assert_eq!(got, want, "{tag}: address {a:#x}: gdb says {line:?}");
            }
        }
    }

    #[test]
    fn symbols_table_over_objects() {
        if !have("cc") {
            return;
        }
        let dir = TempDir::new("symtab");
        let prog = compile(dir.path(), "prog", PROG, &["-O0"]);
        let obj = ObjectFile::load_cached(&prog).unwrap();
        let main_addr = obj.lookup("main").unwrap().addr;
        let bias = 0x5555_5555_4000;
        let mut table = SymbolTable::with_main(LoadedObject::new(obj.clone(), bias));
        assert_eq!(
            table.symbolize(bias + main_addr + 8).as_deref(),
            Some("main+8")
        );
        assert_eq!(table.symbolize(bias + main_addr).as_deref(), Some("main"));
        assert_eq!(table.lookup("main"), Some(bias + main_addr));
        assert_eq!(table.data_symbol("counter").map(|d| d.1), Some(4));
        let plt = table.lookup("printf").unwrap();
        assert_eq!(table.symbolize(plt).as_deref(), Some("printf@plt"));
        let mut code = [0u8; 8];
        assert!(table.read_file_bytes(bias + main_addr, &mut code));
        // A library defining printf wins over the main program's PLT stub.
        let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
        if let Ok(libc) = ObjectFile::load_cached(libc) {
            let lb = 0x7fff_f000_0000;
            let real = libc.lookup("printf").unwrap().addr;
            table.push(LoadedObject::new(libc, lb));
            assert_eq!(table.lookup("printf"), Some(lb + real));
            assert_eq!(table.symbolize(lb + real + 3).as_deref(), Some("printf+3"));
            let o = table.object_containing(lb + real).unwrap();
            assert!(o.file.path.ends_with("libc.so.6"));
            // The default version wins: realpath@@GLIBC_2.3 over realpath@GLIBC_2.2.5.
            let rp = table.libraries()[0].file.lookup("realpath").unwrap();
            assert!(rp.default_version);
            assert!(!libc_plt_names(&table.libraries()[0].file).is_empty());
        }
        assert!(table.symbolize(0x10).is_none());
    }

    fn libc_plt_names(f: &ObjectFile) -> Vec<&str> {
        f.symbols()
            .iter()
            .filter(|s| s.name.ends_with("@plt"))
            .map(|s| &*s.name)
            .collect()
    }

    #[test]
    fn symbols_aarch64_plt_decoding() {
        // PLT0 (32 bytes) then one entry at 0x420: adrp x16, 0x11000; ldr x17, [x16, #0xf80];
        // add x16, x16, #0xf80; br x17.
        let mut words = vec![
            0xa9bf7bf0u32,
            0xb0000090,
            0xf947fe11,
            0x913fe210,
            0xd61f0220,
            0xd503201f,
            0xd503201f,
            0xd503201f,
        ];
        words.extend([0xb0000090u32, 0xf947c211, 0x913e0210, 0xd61f0220]);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let stubs = aarch64_plt_stubs(0x400, &bytes);
        assert_eq!(stubs.len(), 2);
        assert_eq!(stubs[1].0, 0x420);
        // adrp at 0x420 with immlo=1 (bits 29-30 of 0xb0000090 = 0b01), immhi=4: page
        // 0x0 + (0x11 << 12) = 0x11000; ldr offset 0x1f0 * 8 = 0xf80.
        assert_eq!(stubs[1].2, 0x11000 + 0xf80);
    }
}
