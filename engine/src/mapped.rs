//! Files mapped for the rest of the run, so that what is read out of them (symbol names,
//! DWARF sections and their strings) can be borrowed instead of copied. One map per file: the
//! ELF symbol table and the DWARF reader of one binary share it.
//!
//! A map is never unmapped; a file changed on disk (another stamp) is mapped again.

use std::path::Path;
use std::sync::Mutex;

/// Identity of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: i64,
    mtime_nsec: i64,
}

/// Every map made here, by the file it maps (only those: memory read or decompressed is not
/// in here and is never released).
static MAPS: Mutex<Vec<(Stamp, &'static memmap2::Mmap)>> = Mutex::new(Vec::new());

/// Map `path` (read-only, private) for the rest of the run, or give the map made before if
/// the file has not changed since.
pub fn map_static(path: &Path) -> std::io::Result<&'static [u8]> {
    use std::os::unix::fs::MetadataExt;
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.len() == 0 {
        return Ok(&[]);
    }
    let stamp = Stamp {
        dev: meta.dev(),
        ino: meta.ino(),
        len: meta.len(),
        mtime: meta.mtime(),
        mtime_nsec: meta.mtime_nsec(),
    };
    let mut maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, m)) = maps.iter().find(|(s, _)| *s == stamp) {
        return Ok(&m[..]);
    }
    // SAFETY: mmap(2) of a regular file, read-only and private; every access is bounds-checked,
    // so a file changed underneath gives wrong data, not unsafety.
    let map = unsafe { memmap2::Mmap::map(&file) }?;
    let map: &'static memmap2::Mmap = Box::leak(Box::new(map));
    maps.push((stamp, map));
    Ok(&map[..])
}

/// Drop the resident pages of the maps holding any of `slices`. A walk over a whole large
/// binary (its DWARF for the name index, its symbol names for their hashes) touches every
/// page, which then counts in the debugger's resident memory for the rest of the run though
/// few are read again; dropped, they are read again from the page cache when used.
pub fn release_pages(slices: &[&[u8]]) {
    let maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
    for (_, m) in maps.iter() {
        let start = m.as_ptr() as usize;
        let holds = |s: &&[u8]| {
            let p = s.as_ptr() as usize;
            !s.is_empty() && start <= p && p < start + m.len()
        };
        if slices.iter().any(holds) {
            // SAFETY: a read-only private map of a file that nothing writes: MADV_DONTNEED
            // drops its pages and the next access reads the same bytes from the file again.
            let _ = unsafe { m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

/// `part` as a slice of `whole` with `whole`'s lifetime, when `part` lies inside it.
pub fn within(whole: &'static [u8], part: &[u8]) -> Option<&'static [u8]> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    whole.get(start..start.checked_add(part.len())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_map_per_file_and_borrowed_parts() {
        let dir = std::env::temp_dir().join(format!("cohort-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f");
        std::fs::write(&p, b"hello world").unwrap();
        let a = map_static(&p).unwrap();
        let b = map_static(&p).unwrap();
        assert_eq!(a.as_ptr(), b.as_ptr());
        assert_eq!(within(a, &b[6..]), Some(&b"world"[..]));
        assert_eq!(within(a, b"world"), None);
        release_pages(&[a]);
        assert_eq!(a, b"hello world");
        std::fs::write(dir.join("empty"), b"").unwrap();
        assert_eq!(map_static(&dir.join("empty")).unwrap(), b"");
        assert!(map_static(&dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
