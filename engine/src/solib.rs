//! Shared libraries, found the way gdb's `solib-svr4` finds them: the auxiliary vector gives
//! the program's entry point (hence its load bias) and the dynamic linker's base; the dynamic
//! linker's `_r_debug` (also reachable through the executable's `DT_DEBUG`) heads the
//! `link_map` list of loaded objects, and `r_brk` is the function it calls after each change.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{EngineError, Result};
use crate::memory::MemoryRead;
use crate::symbols::{LoadedObject, ObjectFile};

/// Program headers of the program (`AT_PHDR`).
pub const AT_PHDR: u64 = 3;
/// Size of one program header (`AT_PHENT`).
pub const AT_PHENT: u64 = 4;
/// Number of program headers (`AT_PHNUM`).
pub const AT_PHNUM: u64 = 5;
/// Base address of the dynamic linker (`AT_BASE`), 0 for a static program.
pub const AT_BASE: u64 = 7;
/// Entry point of the program (`AT_ENTRY`), relocated.
pub const AT_ENTRY: u64 = 9;
/// Address of the vDSO's ELF header (`AT_SYSINFO_EHDR`).
pub const AT_SYSINFO_EHDR: u64 = 33;

/// `r_state` values.
pub const RT_CONSISTENT: i32 = 0;
pub const RT_ADD: i32 = 1;
pub const RT_DELETE: i32 = 2;

/// `DT_NULL` and `DT_DEBUG` dynamic tags.
pub const DT_NULL: u64 = 0;
pub const DT_DEBUG: u64 = 21;

/// Most entries a link map or dynamic section is trusted to have.
const MAX_ENTRIES: usize = 10_000;

/// Parse an auxiliary vector image (native-endian `(type, value)` words) up to `AT_NULL`.
pub fn parse_auxv(bytes: &[u8], ptr_size: usize) -> Vec<(u64, u64)> {
    let word = |c: &[u8]| -> u64 {
        match ptr_size {
            4 => u64::from(u32::from_ne_bytes([c[0], c[1], c[2], c[3]])),
            _ => u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
        }
    };
    let ps = if ptr_size == 4 { 4 } else { 8 };
    let mut out = Vec::new();
    for pair in bytes.chunks_exact(2 * ps) {
        let (k, v) = (word(&pair[..ps]), word(&pair[ps..]));
        if k == 0 {
            break;
        }
        out.push((k, v));
    }
    out
}

/// The auxiliary vector of process `pid` (from `/proc/PID/auxv`).
pub fn read_auxv(pid: i32) -> Result<Vec<(u64, u64)>> {
    let path = PathBuf::from(format!("/proc/{pid}/auxv"));
    let bytes = std::fs::read(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => EngineError::NoSuchProcess(pid),
        std::io::ErrorKind::PermissionDenied => EngineError::NotPermitted(pid),
        _ => EngineError::Io { path, source: e },
    })?;
    Ok(parse_auxv(&bytes, std::mem::size_of::<usize>()))
}

/// The value of auxv entry `key`.
pub fn auxv_get(auxv: &[(u64, u64)], key: u64) -> Option<u64> {
    auxv.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// `AT_ENTRY`: the program's relocated entry point.
pub fn at_entry(auxv: &[(u64, u64)]) -> Option<u64> {
    auxv_get(auxv, AT_ENTRY)
}

/// `AT_BASE`: where the dynamic linker is loaded (`None` when 0: no interpreter).
pub fn at_base(auxv: &[(u64, u64)]) -> Option<u64> {
    auxv_get(auxv, AT_BASE).filter(|&b| b != 0)
}

/// `AT_PHDR`: the relocated address of the program headers.
pub fn at_phdr(auxv: &[(u64, u64)]) -> Option<u64> {
    auxv_get(auxv, AT_PHDR)
}

/// The load bias of the main program: `AT_ENTRY - e_entry` for a PIE, 0 for `ET_EXEC`.
pub fn load_bias(file: &ObjectFile, at_entry: u64) -> u64 {
    if file.is_pie() {
        at_entry.wrapping_sub(file.entry())
    } else {
        0
    }
}

/// Load bias of an object whose first segment was mapped at `base` (e.g. the dynamic linker
/// at `AT_BASE`, the vDSO at `AT_SYSINFO_EHDR`).
pub fn bias_from_base(file: &ObjectFile, base: u64) -> u64 {
    base.wrapping_sub(file.min_load_vaddr())
}

/// The dynamic linker's `struct r_debug`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RDebug {
    pub version: i32,
    /// Head of the `link_map` list.
    pub map: u64,
    /// Address of the function (`_dl_debug_state`) called around every change of the list.
    pub brk: u64,
    /// `RT_CONSISTENT`, `RT_ADD` or `RT_DELETE`.
    pub state: i32,
    /// Base address of the dynamic linker.
    pub ldbase: u64,
}

fn read_word(mem: &dyn MemoryRead, addr: u64, ptr_size: usize) -> Result<u64> {
    if ptr_size == 4 {
        mem.read_u32(addr).map(u64::from)
    } else {
        mem.read_u64(addr)
    }
}

/// Read `struct r_debug` at `addr` (LP64: version@0, r_map@8, r_brk@16, r_state@24,
/// r_ldbase@32; ILP32: 0, 4, 8, 12, 16).
pub fn read_r_debug(mem: &dyn MemoryRead, addr: u64, ptr_size: usize) -> Result<RDebug> {
    let p = if ptr_size == 4 { 4u64 } else { 8 };
    let version = mem.read_u32(addr)? as i32;
    let map = read_word(mem, addr.wrapping_add(p), ptr_size)?;
    let brk = read_word(mem, addr.wrapping_add(2 * p), ptr_size)?;
    let state = mem.read_u32(addr.wrapping_add(3 * p))? as i32;
    let ldbase = read_word(mem, addr.wrapping_add(4 * p), ptr_size)?;
    Ok(RDebug {
        version,
        map,
        brk,
        state,
        ldbase,
    })
}

/// One `struct link_map` of the dynamic linker's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkMapEntry {
    /// Load bias of the object.
    pub l_addr: u64,
    /// Path of the object: empty for the main program, `linux-vdso.so.1` for the vDSO.
    pub name: String,
    /// Runtime address of the object's dynamic section.
    pub l_ld: u64,
    /// Address of this `struct link_map` itself (glibc's private fields, such as the TLS
    /// module id, are found from it).
    pub node: u64,
}

impl LinkMapEntry {
    /// Whether this entry names a file to load symbols from (not the main program, whose
    /// name is empty, nor the vDSO, which has no file).
    pub fn is_file(&self) -> bool {
        !self.name.is_empty() && Path::new(&self.name).is_absolute()
    }
}

/// Walk the 64-bit `link_map` list from `first` (l_addr@0, l_name@8, l_ld@16, l_next@24).
/// Stops at a null `l_next`, at a node seen before, or after 10000 nodes.
pub fn read_link_map(mem: &dyn MemoryRead, first: u64) -> Result<Vec<LinkMapEntry>> {
    read_link_map_sized(mem, first, 8)
}

/// [`read_link_map`] for a given pointer size (4: ILP32 layout 0, 4, 8, 12).
pub fn read_link_map_sized(
    mem: &dyn MemoryRead,
    first: u64,
    ptr_size: usize,
) -> Result<Vec<LinkMapEntry>> {
    let p = if ptr_size == 4 { 4u64 } else { 8 };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut node = first;
    while node != 0 && out.len() < MAX_ENTRIES && seen.insert(node) {
        let l_addr = read_word(mem, node, ptr_size)?;
        let l_name = read_word(mem, node.wrapping_add(p), ptr_size)?;
        let l_ld = read_word(mem, node.wrapping_add(2 * p), ptr_size)?;
        let next = read_word(mem, node.wrapping_add(3 * p), ptr_size)?;
        let name = if l_name == 0 {
            String::new()
        } else {
            mem.read_cstr(l_name, 4096)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default()
        };
        out.push(LinkMapEntry {
            l_addr,
            name,
            l_ld,
            node,
        });
        node = next;
    }
    Ok(out)
}

/// Address of `_r_debug` in a dynamic linker `ld` loaded at `at_base` (ld.so exports it in
/// `.dynsym`).
pub fn r_debug_from_interp(ld: &ObjectFile, at_base: u64) -> Option<u64> {
    let bias = bias_from_base(ld, at_base);
    ld.lookup_exact("_r_debug")
        .map(|s| s.addr.wrapping_add(bias))
}

/// The `DT_DEBUG` value of the dynamic section at runtime address `dynamic` (`None` while the
/// dynamic linker has not filled it in yet, or if there is no such entry).
pub fn r_debug_from_dynamic(
    mem: &dyn MemoryRead,
    dynamic: u64,
    ptr_size: usize,
) -> Result<Option<u64>> {
    let p = if ptr_size == 4 { 4u64 } else { 8 };
    for i in 0..MAX_ENTRIES as u64 {
        let at = dynamic.wrapping_add(i * 2 * p);
        let tag = read_word(mem, at, ptr_size)?;
        if tag == DT_NULL {
            break;
        }
        if tag == DT_DEBUG {
            let v = read_word(mem, at.wrapping_add(p), ptr_size)?;
            return Ok((v != 0).then_some(v));
        }
    }
    Ok(None)
}

/// Find `_r_debug`: through the executable's `DT_DEBUG` (set once the dynamic linker ran),
/// else through the dynamic linker's own symbol.
pub fn find_r_debug(
    mem: &dyn MemoryRead,
    exe: &LoadedObject,
    interp: Option<&LoadedObject>,
    ptr_size: usize,
) -> Option<u64> {
    if let Some(d) = exe.file.dynamic_vaddr()
        && let Ok(Some(r)) = r_debug_from_dynamic(mem, d.wrapping_add(exe.bias), ptr_size)
    {
        return Some(r);
    }
    let ld = interp?;
    ld.file
        .lookup_exact("_r_debug")
        .map(|s| s.addr.wrapping_add(ld.bias))
}

/// Load the symbol files of the link-map entries that name files (skipping the main program
/// and the vDSO); files that cannot be read are left out.
pub fn load_libraries(entries: &[LinkMapEntry]) -> Vec<LoadedObject> {
    entries
        .iter()
        .filter(|e| e.is_file())
        .filter_map(|e| match ObjectFile::load_cached(Path::new(&e.name)) {
            Ok(file) => Some(LoadedObject::new(file, e.l_addr)),
            Err(err) => {
                tracing::warn!("{}: {err}", e.name);
                None
            }
        })
        .collect()
}

/// Read the vDSO's ELF image from memory at `base` (`AT_SYSINFO_EHDR`) and parse it.
pub fn read_vdso(mem: &dyn MemoryRead, base: u64) -> Result<Arc<ObjectFile>> {
    let mut ehdr = [0u8; 64];
    mem.read(base, &mut ehdr)?;
    let name = PathBuf::from("[vdso]");
    if &ehdr[..4] != b"\x7fELF" || ehdr[4] != 2 {
        return Err(EngineError::NotExecutable(name));
    }
    let u16_at = |o: usize| u64::from(u16::from_le_bytes([ehdr[o], ehdr[o + 1]]));
    let phoff = u64::from_le_bytes(ehdr[32..40].try_into().unwrap_or([0; 8]));
    let shoff = u64::from_le_bytes(ehdr[40..48].try_into().unwrap_or([0; 8]));
    let (phentsize, phnum) = (u16_at(54), u16_at(56));
    let (shentsize, shnum) = (u16_at(58), u16_at(60));
    // Extent of the image: the end of its PT_LOAD segments and of its section headers.
    let mut end = shoff.saturating_add(shentsize.saturating_mul(shnum));
    let mut ph = vec![0u8; (phentsize.saturating_mul(phnum)).min(64 * 1024) as usize];
    mem.read(base.wrapping_add(phoff), &mut ph)?;
    if phentsize >= 56 {
        for c in ph.chunks_exact(phentsize as usize) {
            let p_type = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            if p_type == 1 {
                let off = u64::from_le_bytes(c[8..16].try_into().unwrap_or([0; 8]));
                let filesz = u64::from_le_bytes(c[32..40].try_into().unwrap_or([0; 8]));
                end = end.max(off.saturating_add(filesz));
            }
        }
    }
    if end == 0 || end > 16 * 1024 * 1024 {
        return Err(EngineError::BadElf {
            path: name,
            msg: format!("implausible image size {end:#x}"),
        });
    }
    let mut image = vec![0u8; end as usize];
    mem.read(base, &mut image)?;
    ObjectFile::from_bytes(name, image)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Sparse fake memory: a page is mapped once any byte of it is written; unwritten bytes
    /// of mapped pages read as 0.
    #[derive(Default)]
    struct FakeMem {
        bytes: HashMap<u64, u8>,
        pages: HashSet<u64>,
    }

    impl FakeMem {
        fn put(&mut self, addr: u64, data: &[u8]) {
            for (i, b) in data.iter().enumerate() {
                self.bytes.insert(addr + i as u64, *b);
                self.pages.insert((addr + i as u64) & !0xfff);
            }
        }
        fn put_u64(&mut self, addr: u64, v: u64) {
            self.put(addr, &v.to_le_bytes());
        }
        fn put_str(&mut self, addr: u64, s: &str) {
            self.put(addr, s.as_bytes());
            self.put(addr + s.len() as u64, &[0]);
        }
        /// A link_map node: l_addr, l_name, l_ld, l_next, l_prev.
        fn node(&mut self, at: u64, l_addr: u64, name: u64, l_ld: u64, next: u64) {
            for (i, v) in [l_addr, name, l_ld, next, 0].into_iter().enumerate() {
                self.put_u64(at + 8 * i as u64, v);
            }
        }
    }

    impl MemoryRead for FakeMem {
        fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
            for (i, b) in buf.iter_mut().enumerate() {
                let a = addr + i as u64;
                if !self.pages.contains(&(a & !0xfff)) {
                    return Err(EngineError::Memory(a));
                }
                *b = self.bytes.get(&a).copied().unwrap_or(0);
            }
            Ok(())
        }
    }

    #[test]
    fn link_map_walk() {
        let mut m = FakeMem::default();
        m.put_str(0x9000, "");
        m.put_str(0x9100, "linux-vdso.so.1");
        m.put_str(0x9200, "/lib/x86_64-linux-gnu/libc.so.6");
        m.put_str(0x9300, "/lib64/ld-linux-x86-64.so.2");
        m.node(0x1000, 0x5555_5555_4000, 0x9000, 0x5555_5555_7de0, 0x2000);
        m.node(0x2000, 0x7fff_f7fc_1000, 0x9100, 0x7fff_f7fc_13e0, 0x3000);
        m.node(0x3000, 0x7fff_f7d8_0000, 0x9200, 0x7fff_f7f9_cbc0, 0x4000);
        m.node(0x4000, 0x7fff_f7fc_3000, 0x9300, 0x7fff_f7ffce80, 0);
        let v = read_link_map(&m, 0x1000).unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(v[0].name, "");
        assert_eq!(v[0].l_addr, 0x5555_5555_4000);
        assert_eq!(v[2].name, "/lib/x86_64-linux-gnu/libc.so.6");
        assert_eq!(v[2].l_ld, 0x7fff_f7f9_cbc0);
        let files: Vec<_> = v.iter().filter(|e| e.is_file()).map(|e| &e.name).collect();
        assert_eq!(files.len(), 2);
        // Empty list.
        assert!(read_link_map(&m, 0).unwrap().is_empty());
        // Unreadable node.
        assert!(matches!(
            read_link_map(&m, 0xdead_0000),
            Err(EngineError::Memory(_))
        ));
    }

    #[test]
    fn link_map_cycle_and_garbage() {
        let mut m = FakeMem::default();
        m.put_str(0x9000, "/a.so");
        m.put_str(0x9100, "/b.so");
        m.node(0x1000, 1, 0x9000, 0, 0x2000);
        m.node(0x2000, 2, 0x9100, 0, 0x1000); // back to the first
        let v = read_link_map(&m, 0x1000).unwrap();
        assert_eq!(v.len(), 2);
        // A node pointing at itself.
        m.node(0x3000, 3, 0x9000, 0, 0x3000);
        assert_eq!(read_link_map(&m, 0x3000).unwrap().len(), 1);
        // An unreadable name gives an empty name, not an error.
        m.node(0x4000, 4, 0xbad0_0000, 0, 0);
        let v = read_link_map(&m, 0x4000).unwrap();
        assert_eq!(v[0].name, "");
        // A long list without a cycle stops at the limit.
        struct Endless;
        impl MemoryRead for Endless {
            fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
                // Every node's next is the following 32-byte node; names are empty strings.
                let v = if addr % 32 == 24 { addr + 8 } else { 0 };
                let bytes = v.to_le_bytes();
                for (i, b) in buf.iter_mut().enumerate() {
                    *b = *bytes.get(i).unwrap_or(&0);
                }
                Ok(())
            }
        }
        assert_eq!(read_link_map(&Endless, 0x1_0000).unwrap().len(), 10_000);
    }

    #[test]
    fn r_debug_layout() {
        let mut m = FakeMem::default();
        m.put(0x5000, &1i32.to_le_bytes());
        m.put(0x5004, &[0; 4]);
        m.put_u64(0x5008, 0x1000);
        m.put_u64(0x5010, 0x7fff_f7fd_0b50);
        m.put(0x5018, &RT_ADD.to_le_bytes());
        m.put(0x501c, &[0; 4]);
        m.put_u64(0x5020, 0x7fff_f7fc_3000);
        let r = read_r_debug(&m, 0x5000, 8).unwrap();
        assert_eq!(
            r,
            RDebug {
                version: 1,
                map: 0x1000,
                brk: 0x7fff_f7fd_0b50,
                state: RT_ADD,
                ldbase: 0x7fff_f7fc_3000
            }
        );
        // DT_DEBUG lookup in a fake dynamic section.
        m.put_u64(0x6000, 1); // DT_NEEDED
        m.put_u64(0x6008, 0x42);
        m.put_u64(0x6010, DT_DEBUG);
        m.put_u64(0x6018, 0x5000);
        m.put_u64(0x6020, DT_NULL);
        m.put_u64(0x6028, 0);
        assert_eq!(r_debug_from_dynamic(&m, 0x6000, 8).unwrap(), Some(0x5000));
        m.put_u64(0x6018, 0);
        assert_eq!(r_debug_from_dynamic(&m, 0x6000, 8).unwrap(), None);
    }

    #[test]
    fn auxv_of_self() {
        let auxv = read_auxv(std::process::id() as i32).unwrap();
        let entry = at_entry(&auxv).unwrap();
        assert_ne!(entry, 0);
        assert!(at_phdr(&auxv).is_some_and(|p| p != 0));
        // Our own load bias from our own executable file.
        let exe = ObjectFile::load(&std::fs::read_link("/proc/self/exe").unwrap()).unwrap();
        let bias = load_bias(&exe, entry);
        assert_eq!(exe.entry().wrapping_add(bias), entry);
        assert!(read_auxv(-5).is_err());
        let bytes: Vec<u8> = [9u64, 0x1234, 7, 0x7000, 0, 0, 5, 5]
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .collect();
        assert_eq!(parse_auxv(&bytes, 8), vec![(9, 0x1234), (7, 0x7000)]);
    }

    /// The real thing: our own process's dynamic linker list and vDSO.
    #[test]
    fn own_link_map_and_vdso() {
        struct SelfMem;
        impl MemoryRead for SelfMem {
            fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
                use std::os::unix::fs::FileExt;
                let f =
                    std::fs::File::open("/proc/self/mem").map_err(|_| EngineError::Memory(addr))?;
                f.read_exact_at(buf, addr)
                    .map_err(|_| EngineError::Memory(addr))
            }
        }
        let auxv = read_auxv(std::process::id() as i32).unwrap();
        let exe_path = std::fs::read_link("/proc/self/exe").unwrap();
        let exe_file = ObjectFile::load(&exe_path).unwrap();
        let Some(interp) = exe_file.interp() else {
            return; // statically linked test binary
        };
        let exe = LoadedObject::new(
            exe_file.clone(),
            load_bias(&exe_file, at_entry(&auxv).unwrap()),
        );
        let base = at_base(&auxv).unwrap();
        let ld = ObjectFile::load_cached(Path::new(&interp)).unwrap();
        let ld = LoadedObject::new(ld.clone(), bias_from_base(&ld, base));
        let via_sym = r_debug_from_interp(&ld.file, base).unwrap();
        let found = find_r_debug(&SelfMem, &exe, Some(&ld), 8).unwrap();
        assert_eq!(found, via_sym);
        let r = read_r_debug(&SelfMem, found, 8).unwrap();
        assert!(r.version >= 1);
        assert_eq!(r.state, RT_CONSISTENT);
        let list = read_link_map(&SelfMem, r.map).unwrap();
        assert_eq!(list[0].name, "");
        assert!(list.iter().any(|e| e.name.contains("libc.so")));
        let libs = load_libraries(&list);
        let libc = libs
            .iter()
            .find(|l| l.file.path.to_string_lossy().contains("libc.so"))
            .unwrap();
        // The bias puts libc's `getpid` where our process calls it.
        let getpid = libc.lookup_runtime("getpid").unwrap();
        assert_eq!(getpid, libc::getpid as *const () as u64);
        if let Some(v) = auxv_get(&auxv, AT_SYSINFO_EHDR) {
            let vdso = read_vdso(&SelfMem, v).unwrap();
            assert!(
                vdso.symbols()
                    .iter()
                    .any(|s| s.name.contains("clock_gettime"))
            );
        }
    }
}
