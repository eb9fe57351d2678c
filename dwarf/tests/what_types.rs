//! Types from DIEs against gdb's `ptype/o` (offsets, bit positions, sizes) and C spellings.

mod what_support;

use std::path::Path;

use cohort_dwarf::dietypes::lookup_type;
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::types::{Bound, TypeKind, TypeRef};
use what_support::*;

/// (offset as gdb prints it — `B` or `B: b` for bitfields —, size, name) of each member line
/// of `ptype/o TYPE`, top level only.
fn gdb_layout(prog: &Path, ty: &str) -> Vec<(String, u64, String)> {
    let out = gdb(prog, &[&format!("ptype/o {ty}")]);
    let mut v = Vec::new();
    for l in out.lines().skip(1) {
        let Some(rest) = l.trim_start().strip_prefix("/*") else {
            continue;
        };
        let Some((nums, decl)) = rest.split_once("*/") else {
            continue;
        };
        let Some((off, size)) = nums.split_once('|') else {
            continue;
        };
        // Only direct members: their declaration is indented by exactly 4 spaces.
        if !decl.starts_with("    ") || decl.starts_with("     ") {
            continue;
        }
        let decl = decl.trim().trim_end_matches(';');
        if decl.ends_with('{') {
            // An anonymous struct or union member.
            v.push((
                off.trim().to_string(),
                size.trim().parse().unwrap(),
                String::new(),
            ));
            continue;
        }
        let name = decl
            .split(" : ")
            .next()
            .unwrap()
            .rsplit([' ', '*'])
            .next()
            .unwrap()
            .split('[')
            .next()
            .unwrap()
            .to_string();
        v.push((off.trim().to_string(), size.trim().parse().unwrap(), name));
    }
    v
}

fn our_layout(t: &TypeRef) -> Vec<(String, u64, String)> {
    let TypeKind::Aggregate { members, .. } = &t.strip().kind else {
        panic!("not an aggregate")
    };
    members
        .iter()
        .map(|m| {
            let off = match m.bitfield {
                Some(b) => format!("{:>6}:{:>2}", b.bit_offset / 8, b.bit_offset % 8)
                    .trim()
                    .to_string(),
                None => m.offset.to_string(),
            };
            (
                off,
                m.ty.get().byte_size(),
                m.name.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn check(prog: &Path, spelled: &str) {
    let file = DebugFile::load(prog).unwrap();
    let t = lookup_type(&file, spelled).unwrap();
    let want = gdb_layout(prog, spelled);
    assert!(!want.is_empty(), "{spelled}");
    assert_eq!(our_layout(&t), want, "{spelled}");
    let total = gdb(prog, &[&format!("print sizeof({spelled})")]);
    assert_eq!(format!("$1 = {}\n", t.byte_size()), total);
}

#[test]
fn struct_layouts_match_ptype_o_dwarf5_and_dwarf4() {
    for (out, flag) in [("what_main", "-g"), ("what_main_d4", "-gdwarf-4")] {
        let prog = build(out, &["what_main.c", "what_unit2.c"], &[flag, "-O0"]);
        for t in ["struct bits", "struct item", "struct fwd", "struct anon"] {
            check(&prog, t);
        }
    }
}

#[test]
fn c_spellings() {
    let prog = build(
        "what_main",
        &["what_main.c", "what_unit2.c"],
        &["-g", "-O0"],
    );
    let file = DebugFile::load(&prog).unwrap();
    let t = lookup_type(&file, "unsigned long").unwrap();
    assert_eq!(
        (t.name.as_deref(), t.byte_size()),
        (Some("unsigned long"), 8)
    );
    assert_eq!(lookup_type(&file, "int").unwrap().byte_size(), 4);
    assert_eq!(lookup_type(&file, "char").unwrap().byte_size(), 1);
    let item = lookup_type(&file, "item_t").unwrap();
    assert!(matches!(item.kind, TypeKind::Typedef(_)));
    assert_eq!(item.strip().name.as_deref(), Some("item"));
    assert_eq!(item.byte_size(), 32);
    // The `next` pointer leads back to struct item (recursive type through a lazy pointer).
    let TypeKind::Aggregate { members, .. } = &item.strip().kind else {
        panic!()
    };
    let next = members
        .iter()
        .find(|m| m.name.as_deref() == Some("next"))
        .unwrap();
    assert_eq!(
        next.ty.get().pointee().unwrap().name.as_deref(),
        Some("item")
    );
    let e = lookup_type(&file, "enum color").unwrap();
    let TypeKind::Enum {
        enumerators,
        signed,
        ..
    } = &e.kind
    else {
        panic!()
    };
    assert_eq!(
        enumerators,
        &[
            ("RED".to_string(), 0),
            ("GREEN".to_string(), 5),
            ("BLUE".to_string(), -2)
        ]
    );
    assert!(*signed);
    let ou = lookup_type(&file, "struct outer").unwrap();
    let TypeKind::Aggregate { members, .. } = &ou.kind else {
        panic!()
    };
    let arr = members[1].ty.get();
    let TypeKind::Array { element, bound } = &arr.kind else {
        panic!()
    };
    assert_eq!(bound, &Bound::Count(2));
    assert!(matches!(
        element.kind,
        TypeKind::Array {
            bound: Bound::Count(3),
            ..
        }
    ));
    assert!(lookup_type(&file, "struct nope").is_none());
    assert_eq!(lookup_type(&file, "struct item *").unwrap().byte_size(), 8);
}
