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
use object::{Object, ObjectSection};

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
    /// Address ranges of units, sorted by start: built on first address lookup.
    ranges: OnceLock<Vec<(u64, u64, usize)>>,
}

static CACHE: LazyLock<Mutex<HashMap<PathBuf, Arc<DebugFile>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

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

/// Map `path` for the rest of the run.
pub(crate) fn map_static(path: &Path) -> Result<&'static [u8]> {
    let file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    let len = file.metadata().map_err(|e| io_error(path, e))?.len();
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: mmap(2) of a regular file, read-only and private; every access is bounds-checked,
    // so a file changed underneath gives wrong data, not unsafety.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| io_error(path, e))?;
    let map: &'static memmap2::Mmap = Box::leak(Box::new(map));
    Ok(&map[..])
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
        let f = Arc::new(Self::open(path)?);
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        Ok(cache.entry(path.to_path_buf()).or_insert(f).clone())
    }

    fn open(path: &Path) -> Result<DebugFile> {
        let data = map_static(path)?;
        Self::from_bytes(path, path, data)
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
            let bytes: &'static [u8] = match obj.section_by_name(id.name()) {
                Some(s) => match s.uncompressed_data() {
                    Ok(std::borrow::Cow::Borrowed(b)) => b,
                    Ok(std::borrow::Cow::Owned(v)) => Vec::leak(v),
                    Err(_) => &[],
                },
                None => &[],
            };
            Ok(gimli::EndianSlice::new(bytes, endian))
        };
        let dwarf = gimli::Dwarf::load(load)?;
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
        Ok(DebugFile {
            path: path.to_path_buf(),
            dwarf_path: dwarf_path.to_path_buf(),
            dwarf,
            endian,
            units,
            ranges: OnceLock::new(),
        })
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
            let Ok(mut rs) = self.dwarf.unit_ranges(unit) else {
                continue;
            };
            while let Ok(Some(r)) = rs.next() {
                if r.end > r.begin {
                    out.push((r.begin, r.end, ui));
                }
            }
        }
        out.sort_unstable();
        out
    }
}
