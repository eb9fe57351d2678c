//! Value and type printing compared with gdb 13 itself: `format_gdb.c` is compiled, gdb prints
//! its globals from the file (`gdb -nx -batch -ex 'print g_x' prog`), and the same bytes,
//! read from the ELF sections, are printed by `cohort_dwarf::format` with types built by hand.

#[path = "format_common.rs"]
mod common;

use cohort_dwarf::format::{FormatOptions, format_value, ptype, type_name};
use cohort_dwarf::types::{Encoding, Type, TypeRef};
use common::*;

/// `print VAR`, `whatis VAR`, `ptype VAR`.
fn pwt(c: &mut Cases, var: &str, ty: &TypeRef) {
    let t = target();
    let v = t.value(var, ty.clone());
    c.add(
        &format!("print {var}"),
        format_value(&v, t, &FormatOptions::default()),
    );
    c.add(&format!("whatis {var}"), type_name(ty));
    c.add(&format!("ptype {var}"), ptype(ty));
}

/// `print VAR` only.
fn p(c: &mut Cases, var: &str, ty: &TypeRef) {
    let t = target();
    let v = t.value(var, ty.clone());
    c.add(
        &format!("print {var}"),
        format_value(&v, t, &FormatOptions::default()),
    );
}

/// `print/F VAR` for each format letter in `fmts`.
fn pf(c: &mut Cases, var: &str, ty: &TypeRef, fmts: &str) {
    let t = target();
    let v = t.value(var, ty.clone());
    for f in fmts.chars() {
        c.add(
            &format!("print/{f} {var}"),
            format_value(&v, t, &FormatOptions::with_format(f)),
        );
    }
}

fn point() -> TypeRef {
    strukt(
        Some("point"),
        8,
        vec![mem("x", int(), 0), mem("y", int(), 4)],
    )
}

fn item() -> TypeRef {
    // The pointer's target only needs its name here.
    let decl = strukt(Some("item"), 16, vec![]);
    strukt(
        Some("item"),
        16,
        vec![mem("kind", int(), 0), mem("next", ptr(decl), 8)],
    )
}

fn s_struct() -> TypeRef {
    strukt(
        Some("s"),
        40,
        vec![
            mem("name", ptr(cnst(char_t())), 0),
            mem("fp", ptr(func(Some(int()), vec![int()], false)), 8),
            mem("p", ptr(int()), 16),
            mem("d", double(), 24),
            mem("f", float(), 32),
            mem("c", char_t(), 36),
            mem("uc", uchar(), 37),
            mem("b", bool_t(), 38),
        ],
    )
}

fn withbits() -> TypeRef {
    strukt(
        Some("withbits"),
        8,
        vec![
            mem("c", char_t(), 0),
            bitf("big", ulonglong(), 8, 40),
            bitf("s", ushort(), 48, 5),
            bitf("sc", schar(), 53, 3),
            bitf("bb", bool_t(), 56, 1),
        ],
    )
}

#[test]
fn integers_chars_bools() {
    let mut c = Cases::default();
    pwt(&mut c, "counter", &int());
    pwt(&mut c, "g_sc", &schar());
    pwt(&mut c, "g_uc", &uchar());
    pwt(&mut c, "g_s", &short());
    pwt(&mut c, "g_us", &ushort());
    pwt(&mut c, "g_i", &int());
    pwt(&mut c, "g_ui", &uint());
    pwt(&mut c, "g_l", &long());
    pwt(&mut c, "g_ul", &ulong());
    pwt(
        &mut c,
        "g_ll",
        &Type::base("long long", 8, Encoding::Signed),
    );
    pwt(&mut c, "g_ull", &ulonglong());
    for v in [
        "g_cA", "g_cm1", "g_c0", "g_cnl", "g_ctab", "g_cbs", "g_cq", "g_c1", "g_c127", "g_cdq",
        "g_cesc", "g_cbell",
    ] {
        pwt(&mut c, v, &char_t());
    }
    pwt(&mut c, "g_bt", &bool_t());
    pwt(&mut c, "g_bf", &bool_t());
    pwt(
        &mut c,
        "g_i128",
        &Type::base("__int128", 16, Encoding::Signed),
    );
    pwt(
        &mut c,
        "g_u128",
        &Type::base("__int128 unsigned", 16, Encoding::Unsigned),
    );
    c.check();
}

#[test]
fn floats() {
    let mut c = Cases::default();
    for v in ["g_f", "g_f1", "g_f2", "g_f3", "g_f4", "g_fnan"] {
        pwt(&mut c, v, &float());
    }
    for v in [
        "g_d",
        "g_d01",
        "g_d1",
        "g_dm25",
        "g_dbig",
        "g_dinf",
        "g_dninf",
        "g_dsmall",
        "g_d123",
        "g_d1e16",
        "g_d1e17",
        "g_negzero",
        "g_dnorm",
        "g_dmax",
        "g_d6",
        "g_d7",
        "g_d4",
        "g_nan1",
        "g_nan2",
    ] {
        pwt(&mut c, v, &double());
    }
    for v in ["g_ld", "g_ld1", "g_ld2", "g_ld3", "g_ld4", "g_ld5"] {
        pwt(&mut c, v, &long_double());
    }
    pwt(
        &mut c,
        "g_cd",
        &Type::base("complex double", 16, Encoding::ComplexFloat),
    );
    pwt(
        &mut c,
        "g_cf",
        &Type::base("complex float", 8, Encoding::ComplexFloat),
    );
    p(&mut c, "g_darr", &arr(double(), 3));
    p(&mut c, "g_farr", &arr(float(), 3));
    p(&mut c, "g_ldarr", &arr(long_double(), 2));
    p(&mut c, "g_dmany", &arr(double(), 71));
    p(&mut c, "g_fmany", &arr(float(), 46));
    p(&mut c, "g_ldmany", &arr(long_double(), 34));
    let half = Type::base("_Float16", 2, Encoding::Float);
    pwt(&mut c, "g_h", &half);
    pwt(&mut c, "g_h2", &half);
    let quad = Type::base("_Float128", 16, Encoding::Float);
    pwt(&mut c, "g_q", &quad);
    pwt(&mut c, "g_q2", &quad);
    pf(&mut c, "g_q", &quad, "x");
    c.check();
}

#[test]
fn pointers_and_functions() {
    let mut c = Cases::default();
    let t = target();
    pwt(&mut c, "g_pi", &ptr(int()));
    pwt(&mut c, "g_pv", &ptr(void()));
    pwt(&mut c, "g_str", &ptr(cnst(char_t())));
    pwt(&mut c, "g_esc", &ptr(char_t()));
    pwt(&mut c, "g_empty_str", &ptr(char_t()));
    pwt(&mut c, "g_u8p", &ptr(char_t()));
    pwt(&mut c, "g_badp", &ptr(char_t()));
    pwt(&mut c, "g_ucp", &ptr(uchar()));
    pwt(&mut c, "g_plong", &ptr(cnst(char_t())));
    let sq = func(Some(int()), vec![int()], false);
    pwt(&mut c, "g_fp", &ptr(sq.clone()));
    pwt(
        &mut c,
        "g_vfp",
        &ptr(func(None, vec![int(), ptr(char_t())], false)),
    );
    pwt(
        &mut c,
        "g_vap",
        &ptr(func(Some(int()), vec![ptr(cnst(char_t()))], true)),
    );
    let v = t.function("square", sq.clone());
    c.add(
        "print square",
        format_value(&v, t, &FormatOptions::default()),
    );
    c.add("whatis square", type_name(&sq));
    c.add("ptype square", ptype(&sq));
    let mainf = func(Some(int()), vec![], false);
    let v = t.function("main", mainf.clone());
    c.add("print main", format_value(&v, t, &FormatOptions::default()));
    c.add("ptype main", ptype(&mainf));
    pwt(&mut c, "g_strs", &arr(ptr(char_t()), 3));
    pwt(&mut c, "g_ptrs", &arr(ptr(int()), 2));
    pwt(&mut c, "g_fparr", &arr(ptr(sq.clone()), 2));
    pwt(&mut c, "g_pa", &ptr(arr(int(), 4)));
    let weird = ptr(func(Some(ptr(arr(char_t(), 3))), vec![], false));
    pwt(&mut c, "g_weird", &weird);
    pwt(&mut c, "g_ppt", &ptr(point()));
    pwt(&mut c, "g_ts", &typedef("str_t", ptr(char_t())));
    pwt(&mut c, "g_mcp", &ptr(typedef("mychar", char_t())));
    let v = t.function("main", mainf.clone());
    c.add(
        "print/x main",
        format_value(&v, t, &FormatOptions::with_format('x')),
    );
    let mp = func(Some(point()), vec![int(), int()], false);
    let v = t.function("make_point", mp.clone());
    c.add(
        "print make_point",
        format_value(&v, t, &FormatOptions::default()),
    );
    c.add("whatis make_point", type_name(&mp));
    c.add("ptype make_point", ptype(&mp));
    c.check();
}

#[test]
fn aggregates() {
    let mut c = Cases::default();
    pwt(&mut c, "g_pt", &point());
    let nested = strukt(
        Some("nested"),
        16,
        vec![
            mem("p", point(), 0),
            mem("next", ptr(strukt(Some("item"), 16, vec![])), 8),
        ],
    );
    pwt(&mut c, "g_nest", &nested);
    pwt(&mut c, "g_item1", &item());
    pwt(&mut c, "g_item2", &item());
    let u = union(
        Some("u"),
        4,
        vec![
            mem("i", int(), 0),
            mem("f", float(), 0),
            mem("c", arr(char_t(), 4), 0),
        ],
    );
    pwt(&mut c, "g_u", &u);
    let inner = strukt(None, 8, vec![mem("b", int(), 0), mem("c", int(), 4)]);
    let anon = strukt(
        Some("anon"),
        12,
        vec![mem("a", int(), 0), anon_mem(inner, 4)],
    );
    pwt(&mut c, "g_anon", &anon);
    let bits = strukt(
        Some("bits"),
        8,
        vec![
            bitf("flag", uint(), 0, 1),
            bitf("mode", uint(), 1, 3),
            bitf("sval", int(), 4, 4),
            mem("after", int(), 4),
        ],
    );
    pwt(&mut c, "g_bits", &bits);
    pf(&mut c, "g_bits", &bits, "xzotdu");
    pwt(&mut c, "g_empty", &strukt(Some("empty"), 0, vec![]));
    let wa = strukt(
        Some("witharr"),
        24,
        vec![
            mem("n", int(), 0),
            mem("a", arr(int(), 3), 4),
            mem("name", arr(char_t(), 8), 16),
        ],
    );
    pwt(&mut c, "g_wa", &wa);
    pwt(&mut c, "g_st", &s_struct());
    pwt(&mut c, "g_ptarr", &arr(point(), 12));
    let unnamed = strukt(None, 4, vec![mem("q", int(), 0)]);
    pwt(&mut c, "g_unnamed", &unnamed);
    let anon_t = typedef("anon_t", strukt(None, 4, vec![mem("a", int(), 0)]));
    pwt(&mut c, "g_anon_t", &anon_t);
    pwt(&mut c, "g_panon_t", &ptr(anon_t.clone()));
    pwt(&mut c, "g_pptt", &ptr(typedef("pt_t", point())));
    let lohi = strukt(None, 4, vec![mem("lo", short(), 0), mem("hi", short(), 2)]);
    let un = union(None, 4, vec![mem("a", int(), 0), anon_mem(lohi, 0)]);
    pwt(&mut c, "g_un", &un);
    pwt(&mut c, "g_wb", &withbits());
    pf(&mut c, "g_wb", &withbits(), "xzotducf");
    let color = enm("color", &[("RED", 0), ("GREEN", 1), ("BLUE", 2)]);
    let flags = enm("flags", &[("FA", 1), ("FB", 2), ("FC", 4)]);
    let u = union(
        Some("u"),
        4,
        vec![
            mem("i", int(), 0),
            mem("f", float(), 0),
            mem("c", arr(char_t(), 4), 0),
        ],
    );
    let holder = strukt(
        Some("holder"),
        40,
        vec![
            bitf("col", color, 0, 2),
            mem("fl", flags, 4),
            mem("pts", arr(point(), 2), 8),
            mem("un", u, 24),
            mem("cb", ptr(func(None, vec![int(), ptr(char_t())], false)), 32),
        ],
    );
    pwt(&mut c, "g_holder", &holder);
    pf(&mut c, "g_holder", &holder, "xd");
    c.check();
}

#[test]
fn arrays_and_strings() {
    let mut c = Cases::default();
    pwt(&mut c, "g_arr", &arr(int(), 3));
    pwt(&mut c, "g_zeros", &arr(int(), 16));
    pwt(&mut c, "g_rep", &arr(int(), 17));
    pwt(&mut c, "g_r10", &arr(int(), 12));
    pwt(&mut c, "g_r11", &arr(int(), 13));
    pwt(&mut c, "g_big", &arr(int(), 300));
    pwt(&mut c, "g_seq", &arr(int(), 300));
    pwt(&mut c, "g_2d", &arr(arr(int(), 2), 2));
    pwt(&mut c, "g_34", &arr(arr(int(), 4), 3));
    for (v, n) in [
        ("g_abc", 4),
        ("g_abc00", 6),
        ("g_ab32", 32),
        ("g_escarr", 8),
        ("g_full", 3),
        ("g_mix", 40),
        ("g_rep3", 30),
        ("g_rep5", 30),
        ("g_x300", 300),
        ("g_long", 301),
        ("g_u8", 8),
        ("g_u8bad", 4),
        ("g_ctl", 4),
    ] {
        pwt(&mut c, v, &arr(char_t(), n));
    }
    pwt(&mut c, "g_bytes", &arr(uchar(), 5));
    pwt(&mut c, "g_bools", &arr(bool_t(), 3));
    pf(&mut c, "g_abc", &arr(char_t(), 4), "xdcsz");
    pf(&mut c, "g_mix", &arr(char_t(), 40), "x");
    pf(&mut c, "g_x300", &arr(char_t(), 300), "d");
    pf(&mut c, "g_r11", &arr(int(), 13), "x");
    pf(&mut c, "g_ptarr", &arr(point(), 12), "x");
    pf(&mut c, "g_seq", &arr(int(), 300), "s");
    c.check();
}

#[test]
fn enums() {
    let mut c = Cases::default();
    let color = enm("color", &[("RED", 0), ("GREEN", 1), ("BLUE", 2)]);
    let flags = enm("flags", &[("FA", 1), ("FB", 2), ("FC", 4)]);
    let e2 = enm("e2", &[("A0", 0), ("A1", 1), ("A2", 2), ("A3", 3)]);
    let e3 = enm("e3", &[("N1", -1), ("N2", 5)]);
    let e4 = enm("e4", &[("D1", 1), ("D2", 1), ("D4", 4)]);
    let e5 = enm("e5", &[("M3", 3), ("M4", 4)]);
    pwt(&mut c, "g_col", &color);
    pwt(&mut c, "g_colbad", &color);
    pwt(&mut c, "g_fl", &flags);
    pwt(&mut c, "g_flu", &flags);
    pwt(&mut c, "g_fl0", &flags);
    pwt(&mut c, "g_e2", &e2);
    pwt(&mut c, "g_e2b", &e2);
    pwt(&mut c, "g_e3", &e3);
    pwt(&mut c, "g_e3b", &e3);
    pwt(&mut c, "g_e4", &e4);
    pwt(&mut c, "g_e5", &e5);
    pf(&mut c, "g_col", &color, "xdzcf");
    pf(&mut c, "g_e3b", &e3, "xuz");
    c.check();
}

#[test]
fn formats_on_scalars() {
    let mut c = Cases::default();
    pf(&mut c, "g_i", &int(), "xzotducfas");
    pf(&mut c, "counter", &int(), "xzotducfas");
    pf(&mut c, "g_sc", &schar(), "xzotducfs");
    pf(&mut c, "g_uc", &uchar(), "xtcd");
    pf(&mut c, "g_s", &short(), "xf");
    pf(&mut c, "g_ui", &uint(), "dc");
    pf(&mut c, "g_l", &long(), "xf");
    pf(&mut c, "g_ul", &ulong(), "xzot");
    pf(&mut c, "g_bt", &bool_t(), "xzcdf");
    let u128 = Type::base("__int128 unsigned", 16, Encoding::Unsigned);
    pf(&mut c, "g_u128", &u128, "xdof");
    pf(
        &mut c,
        "g_i128",
        &Type::base("__int128", 16, Encoding::Signed),
        "x",
    );
    pf(&mut c, "g_d", &double(), "xzotducfa");
    pf(&mut c, "g_dm25", &double(), "xdu");
    pf(&mut c, "g_dmax", &double(), "cd");
    pf(&mut c, "g_dinf", &double(), "x");
    pf(&mut c, "g_negzero", &double(), "x");
    pf(&mut c, "g_f", &float(), "x");
    pf(&mut c, "g_fnan", &float(), "x");
    pf(&mut c, "g_farr", &arr(float(), 3), "xfacut");
    pf(&mut c, "g_darr", &arr(double(), 3), "d");
    pf(&mut c, "g_ld", &long_double(), "xf");
    pf(&mut c, "g_ld1", &long_double(), "xzot");
    pf(&mut c, "g_ld4", &long_double(), "xd");
    pf(
        &mut c,
        "g_cd",
        &Type::base("complex double", 16, Encoding::ComplexFloat),
        "x",
    );
    pf(&mut c, "g_pi", &ptr(int()), "xzdauf");
    pf(&mut c, "g_str", &ptr(cnst(char_t())), "xsa");
    pf(&mut c, "g_plong", &ptr(cnst(char_t())), "xdc");
    let sq = ptr(func(Some(int()), vec![int()], false));
    pf(&mut c, "g_fp", &sq, "xas");
    pf(&mut c, "g_pptt", &ptr(typedef("pt_t", point())), "z");
    pf(&mut c, "g_pt", &point(), "xz");
    pf(&mut c, "g_arr", &arr(int(), 3), "x");
    pf(&mut c, "g_st", &s_struct(), "xzadcsfotu");
    pf(&mut c, "g_strs", &arr(ptr(char_t()), 3), "x");
    pf(&mut c, "g_ptrs", &arr(ptr(int()), 2), "as");
    pf(&mut c, "g_empty", &strukt(Some("empty"), 0, vec![]), "x");
    pf(&mut c, "g_bytes", &arr(uchar(), 5), "sx");
    pf(&mut c, "g_bools", &arr(bool_t(), 3), "xf");
    c.check();
}

#[test]
fn type_names() {
    let mut c = Cases::default();
    pwt(&mut c, "g_sz", &typedef("size_t2", ulong()));
    pwt(
        &mut c,
        "g_sz3",
        &typedef("size_t3", typedef("size_t2", ulong())),
    );
    pwt(&mut c, "g_ccp", &ptr(cnst(char_t())));
    pwt(&mut c, "g_cpc", &cnst(ptr(char_t())));
    pwt(&mut c, "g_cvi", &cnst(vol(int())));
    pwt(&mut c, "g_pvol", &vol(ptr(int())));
    pwt(&mut c, "g_prestr", &restrict(ptr(int())));
    pwt(&mut c, "g_cpci", &cnst(ptr(cnst(int()))));
    c.check();
}
