//! C++ values and types (references, classes with a base) compared with gdb 13.

#[path = "format_common.rs"]
mod common;

use cohort_dwarf::format::{FormatOptions, Language, format_value, ptype_in, type_name_in};
use cohort_dwarf::types::{AggregateKind, LazyType, Member, Type, TypeKind};
use cohort_dwarf::value::{Lval, Value};
use common::*;

fn setup() {
    use_program("format_gdb_cpp.cc", "g++");
}

#[test]
fn references_and_classes() {
    setup();
    let t = target();
    let mut c = Cases::default();
    let opts = FormatOptions {
        language: Language::Cplus,
        ..FormatOptions::default()
    };
    let type_name = |t: &cohort_dwarf::types::TypeRef| type_name_in(t, Language::Cplus);
    let ptype = |t: &cohort_dwarf::types::TypeRef| ptype_in(t, Language::Cplus);
    let b = aggregate(
        AggregateKind::Struct,
        Some("B"),
        4,
        vec![mem("b", int(), 0)],
    );
    let base = Member {
        is_base: true,
        ..anon_mem(b.clone(), 0)
    };
    let class_c = aggregate(
        AggregateKind::Class,
        Some("C"),
        16,
        vec![base, mem("x", int(), 4), mem("y", double(), 8)],
    );
    for (var, ty) in [
        ("gr", reference(int())),
        ("gcr", reference(cnst(int()))),
        (
            "grr",
            Type::new(None, 8, TypeKind::RvalueReference(LazyType::ready(int()))),
        ),
    ] {
        c.add(
            &format!("print {var}"),
            format_value(&t.value(var, ty.clone()), t, &opts),
        );
        c.add(&format!("whatis {var}"), type_name(&ty));
        c.add(&format!("ptype {var}"), ptype(&ty));
    }
    c.add(
        "print gc",
        format_value(&t.value("gc", class_c.clone()), t, &opts),
    );
    c.add("whatis gc", type_name(&class_c));
    c.add("ptype gc", ptype(&class_c));
    c.add("whatis &gc", type_name(&ptr(class_c.clone())));
    let s = aggregate(
        AggregateKind::Struct,
        Some("S"),
        16,
        vec![mem("a", int(), 0), mem("r", reference(int()), 8)],
    );
    c.add(
        "print gs",
        format_value(&t.value("gs", s.clone()), t, &opts),
    );
    c.add("whatis gs", type_name(&s));
    c.add("ptype gs", ptype(&s));
    let (a, _) = t.symbol("gs");
    let pv = Value::new(ptr(s.clone()), a.to_le_bytes().to_vec(), Lval::None);
    c.add("print &gs", format_value(&pv, t, &opts));
    let f = func(Some(int()), vec![], false);
    c.add("ptype main", ptype(&f));
    c.add(
        "print/x gs",
        format_value(
            &t.value("gs", s.clone()),
            t,
            &FormatOptions::with_format('x'),
        ),
    );
    c.check();
}
