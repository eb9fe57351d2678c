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

fuzz_target!(|data: &[u8]| {
    // from_bytes wants 'static bytes (the debugger maps each binary once for the whole run).
    // Inputs that are not even an object file fail the same parse inside from_bytes; skip them
    // here so that they do not leak.
    if object::File::parse(data).is_err() {
        return;
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
        walk_dies(&file, &file.dwarf, unit, &mut budget, &mut pcs);
        walk_lines(&file.dwarf, unit, &mut budget, &mut pcs);
        if let Some(off) = unit.header.offset().as_debug_info_offset() {
            let _ = file.unit_index_for_offset(off);
        }
    }
    for &pc in &pcs {
        if let Some(u) = file.unit_for_pc(pc) {
            let _ = file.unit(u);
        }
    }
    walk_source_level(std::sync::Arc::new(file), &pcs);
});

/// The debugger's own queries: the name index, line tables both ways, scopes with their
/// variables, and types (built and printed) of every indexed type.
fn walk_source_level(file: std::sync::Arc<DebugFile>, pcs: &[u64]) {
    use cohort_dwarf::{dietypes, format, scopes, types::DieRef};
    for &pc in pcs {
        let _ = file.find_line(pc);
        let _ = file.line_range(pc);
        let _ = file.function_containing(pc);
        if let Ok(Some(scope)) = scopes::scope_at(&file, pc) {
            for f in &scope.frames {
                for v in f.params.iter().chain(f.locals()) {
                    let _ = format::type_name(&v.ty);
                }
            }
        }
    }
    let _ = file.breakpoint_locations_for_name("main");
    let _ = file.addresses_for_line("a.c", 3);
    let names: Vec<String> = file
        .all_functions()
        .take(64)
        .map(|f| f.name)
        .collect();
    for n in names {
        let _ = file.breakpoint_locations_for_name(&n);
        let _ = scopes::function_by_name(&file, &n);
    }
    let _ = file.source_files();
    for t in file.all_types().iter().take(256) {
        let Ok(unit) = file.unit(t.unit) else { continue };
        if let Some(off) = t.offset.to_debug_info_offset(&unit.header) {
            let ty = dietypes::type_of(&file, DieRef(off));
            let _ = format::ptype(&ty);
        }
    }
    let _ = dietypes::lookup_type(&file, "struct item");
}

fn walk_dies(
    file: &DebugFile,
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
        for (begin, _) in file.entry_ranges(unit, entry).into_iter().take(1000) {
            if pcs.len() < 16 {
                pcs.push(begin);
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
