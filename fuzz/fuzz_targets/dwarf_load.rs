//! Fuzz target: the input is an ELF file. Load it with `DebugFile::from_bytes` and walk what
//! the loader makes cheaply available: every unit (`unit(i)`), every DIE of each unit with all
//! its attributes (string forms resolved, DIE ranges iterated), every row of each unit's line
//! program (file names resolved), and `unit_for_pc` / `unit_index_for_offset` on a few
//! addresses. Any panic, abort, sanitizer report or timeout is a finding (see docs/FUZZING.md).
#![no_main]

use std::path::Path;

use cohort_dwarf::R;
use cohort_dwarf::loader::DebugFile;
use libfuzzer_sys::fuzz_target;

/// Upper bound on the items walked per input, so a huge (valid) file cannot turn into a
/// timeout of the harness rather than of the library.
const MAX_ITEMS: usize = 200_000;

/// Compressed sections claiming more than this uncompressed size are skipped. Known finding
/// (docs/FUZZING.md, artifacts/dwarf_load/crash-24f4843070e00ed7fed9a776928de7c893cc8068): the
/// loader passes the size from the compression header straight to an allocation, so a 3 KB
/// file can ask for exabytes (an abort under the sanitizer). Remove this filter once the
/// loader bounds the size itself.
const MAX_CLAIMED_UNCOMPRESSED: u64 = 64 << 20;

fn claims_huge_section(obj: &object::File) -> bool {
    use object::{Object, ObjectSection};
    obj.sections().any(|s| {
        s.compressed_file_range()
            .is_ok_and(|r| r.uncompressed_size > MAX_CLAIMED_UNCOMPRESSED)
    })
}

fuzz_target!(|data: &[u8]| {
    // from_bytes wants 'static bytes (the debugger maps each binary once for the whole run).
    // Inputs that are not even an object file fail the same parse inside from_bytes; skip them
    // here so that they do not leak.
    match object::File::parse(data) {
        Ok(obj) if !claims_huge_section(&obj) => {}
        _ => return,
    }
    let data: &'static [u8] = data.to_vec().leak();
    let Ok(file) = DebugFile::from_bytes(Path::new("fuzz"), Path::new("fuzz"), data) else {
        return;
    };
    let _ = file.has_debug_info();
    let mut budget = MAX_ITEMS;
    let mut pcs = vec![0u64, 1, 0x1000, u64::MAX];
    for i in 0..file.units.len() + 1 {
        let Ok(unit) = file.unit(i) else { continue };
        walk_dies(&file.dwarf, unit, &mut budget, &mut pcs);
        walk_lines(&file.dwarf, unit, &mut budget, &mut pcs);
        if let Some(off) = unit.header.offset().as_debug_info_offset() {
            let _ = file.unit_index_for_offset(off);
        }
    }
    for pc in pcs {
        if let Some(u) = file.unit_for_pc(pc) {
            let _ = file.unit(u);
        }
    }
});

fn walk_dies(
    dwarf: &gimli::Dwarf<R>,
    unit: &gimli::Unit<R>,
    budget: &mut usize,
    pcs: &mut Vec<u64>,
) {
    let mut cursor = unit.entries();
    while let Ok(Some((_, entry))) = cursor.next_dfs() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let mut attrs = entry.attrs();
        while let Ok(Some(attr)) = attrs.next() {
            let value = attr.value();
            match value {
                gimli::AttributeValue::Addr(a) if pcs.len() < 16 => pcs.push(a),
                _ => {}
            }
            if let Ok(s) = dwarf.attr_string(unit, value) {
                let _ = s.to_string_lossy();
            }
            let _ = dwarf.attr_address(unit, value);
            let _ = attr.udata_value();
            let _ = attr.sdata_value();
        }
        if let Ok(mut ranges) = dwarf.die_ranges(unit, entry) {
            let mut n = 0;
            while let Ok(Some(r)) = ranges.next() {
                n += 1;
                if n > 1000 {
                    break;
                }
                if pcs.len() < 16 {
                    pcs.push(r.begin);
                }
            }
        }
    }
}

fn walk_lines(
    dwarf: &gimli::Dwarf<R>,
    unit: &gimli::Unit<R>,
    budget: &mut usize,
    pcs: &mut Vec<u64>,
) {
    let Some(program) = unit.line_program.clone() else {
        return;
    };
    let mut rows = program.rows();
    while let Ok(Some((header, row))) = rows.next_row() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        if pcs.len() < 16 {
            pcs.push(row.address());
        }
        if let Some(file) = row.file(header) {
            if let Ok(name) = dwarf.attr_string(unit, file.path_name()) {
                let _ = name.to_string_lossy();
            }
            if let Some(dir) = file.directory(header) {
                let _ = dwarf.attr_string(unit, dir);
            }
        }
        let _ = (row.line(), row.column(), row.is_stmt(), row.end_sequence());
    }
}
