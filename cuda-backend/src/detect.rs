//! Whether a program uses CUDA, from its ELF sections, symbols and needed libraries: the front end gives each rank of such a
//! program its own agent, since the driver's debugger API serves one debuggee per debugger
//! process (docs/CUDA.md, "Several ranks on one node").

use std::path::Path;

use object::{Object, ObjectSection, ObjectSymbol};

/// Symbols a CUDA program defines or imports: the driver's entry (`cuInit`, called directly or
/// through the runtime, which nvcc links statically by default), and the runtime's
/// registration of the program's GPU code and its launches.
const CUDA_SYMBOLS: &[&str] = &[
    "cuInit",
    "__cudaRegisterFatBinary",
    "__cudaRegisterFatBinaryEnd",
    "cudaLaunchKernel",
];

/// Sections nvcc gives a program with GPU code (the fat binary and its wrapper); they survive
/// `strip`.
const CUDA_SECTIONS: &[&str] = &[".nv_fatbin", ".nvFatBinSegment"];

/// Libraries whose presence among a program's needed libraries marks it as a CUDA program.
const CUDA_LIBRARIES: &[&str] = &["libcuda.so", "libcudart.so"];

/// Whether the ELF file at `path` uses CUDA. A file that cannot be read or parsed does not.
pub fn program_uses_cuda(path: &Path) -> bool {
    let Ok(data) = std::fs::read(path) else {
        return false;
    };
    let Ok(file) = object::File::parse(&*data) else {
        return false;
    };
    let named = |name: &[u8]| {
        std::str::from_utf8(name)
            .map(|n| CUDA_SYMBOLS.contains(&n))
            .unwrap_or(false)
    };
    if file
        .sections()
        .any(|s| s.name().is_ok_and(|n| CUDA_SECTIONS.contains(&n)))
    {
        return true;
    }
    if file
        .dynamic_symbols()
        .chain(file.symbols())
        .any(|s| s.name_bytes().is_ok_and(named))
    {
        return true;
    }
    needed_libraries(&data)
        .iter()
        .any(|l| CUDA_LIBRARIES.iter().any(|c| l.starts_with(c)))
}

/// The ELF file's `DT_NEEDED` entries (64-bit files; none for others).
fn needed_libraries(data: &[u8]) -> Vec<String> {
    use object::read::elf::{Dyn, ElfFile64};
    let Ok(elf) = ElfFile64::<object::Endianness>::parse(data) else {
        return Vec::new();
    };
    let endian = elf.endian();
    let sections = elf.elf_section_table();
    let Ok(Some((entries, link))) = sections.dynamic(endian, data) else {
        return Vec::new();
    };
    let Ok(strings) = sections.strings(endian, data, link) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter(|d| d.d_tag(endian) == u64::from(object::elf::DT_NEEDED))
        .filter_map(|d| strings.get(d.d_val(endian) as u32).ok())
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_programs_and_non_elf_files_do_not_use_cuda() {
        assert!(!program_uses_cuda(Path::new("/bin/true")));
        assert!(!program_uses_cuda(Path::new("/etc/passwd")));
        assert!(!program_uses_cuda(Path::new("/nonexistent/program")));
        assert!(
            needed_libraries(&std::fs::read("/bin/true").unwrap())
                .iter()
                .any(|l| l.starts_with("libc.so")),
            "DT_NEEDED is read"
        );
    }
}
