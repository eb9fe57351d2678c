//! Inputs the fuzz target (`fuzz/`, docs/FUZZING.md) found, kept as regression tests: each
//! must load and be walked without a panic or an absurd allocation.

use std::path::Path;

use cohort_dwarf::loader::DebugFile;

const ART: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/artifacts/dwarf_load");

fn load(name: &str) -> DebugFile {
    let b: &'static [u8] = std::fs::read(format!("{ART}/{name}")).unwrap().leak();
    DebugFile::from_bytes(Path::new(name), Path::new(name), b).unwrap()
}

/// A compressed `.debug_info` whose header claims exabytes: ignored, so no units.
#[test]
fn compressed_section_with_absurd_size_gives_no_units() {
    assert!(
        load("crash-24f4843070e00ed7fed9a776928de7c893cc8068")
            .units
            .is_empty()
    );
}

/// `DW_AT_high_pc` offsets that overflow the address space: no range, no panic, for the
/// units and for every DIE.
#[test]
fn overflowing_high_pc_gives_no_range() {
    let mut seen = 0;
    for e in std::fs::read_dir(ART).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if !name.starts_with("crash-") {
            continue;
        }
        let d = load(&name);
        let _ = d.unit_for_pc(0);
        let _ = d.unit_for_pc(u64::MAX);
        for i in 0..d.units.len() {
            let Ok(unit) = d.unit(i) else { continue };
            let mut entries = unit.entries();
            while let Ok(Some((_, entry))) = entries.next_dfs() {
                for (b, e) in d.entry_ranges(unit, entry) {
                    assert!(b < e);
                }
            }
        }
        seen += 1;
    }
    assert!(
        seen >= 8,
        "expected the committed crash inputs, found {seen}"
    );
}
