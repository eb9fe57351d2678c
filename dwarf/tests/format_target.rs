//! Printing that needs a live process or cannot come from a file: strings running into
//! unmapped memory, optimized-out values, settings. Expected texts are gdb 13's, captured from
//! a program that maps one page at 0x700000000000 and unmaps the next
//! (`break stop`, `run`, `print g_p`, …), then rebuilt here over a fake memory.

#[path = "format_common.rs"]
mod common;

use cohort_dwarf::context::Target;
use cohort_dwarf::format::{FormatOptions, format_value, ptype, text, type_name};
use cohort_dwarf::types::{Bound, DynamicBound, EncodingInfo, Type, TypeKind};
use cohort_dwarf::value::{Lval, Value};
use cohort_dwarf::{DwarfError, Result};
use common::*;

/// One readable page at 0x700000000000: 4093 'x' then "abc"; nothing after it.
struct Page {
    mem: Vec<u8>,
}

const BASE: u64 = 0x7000_0000_0000;

impl Page {
    fn new() -> Page {
        let mut mem = vec![b'x'; 4096];
        mem[4093..].copy_from_slice(b"abc");
        Page { mem }
    }
}

impl Target for Page {
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        for (i, b) in buf.iter_mut().enumerate() {
            let a = addr + i as u64;
            if !(BASE..BASE + 4096).contains(&a) {
                return Err(DwarfError::Memory(a));
            }
            *b = self.mem[(a - BASE) as usize];
        }
        Ok(())
    }

    fn symbol_for(&self, _addr: u64) -> Option<String> {
        None
    }
}

fn charp(addr: u64) -> Value {
    Value::new(ptr(char_t()), addr.to_le_bytes().to_vec(), Lval::None)
}

#[test]
fn strings_at_the_edge_of_memory() {
    let t = Page::new();
    let o = FormatOptions::default();
    // print g_p: the string runs into the unmapped page.
    assert_eq!(
        format_value(&charp(BASE + 4093), &t, &o),
        "0x700000000ffd \"abc\"<error: Cannot access memory at address 0x700000001000>"
    );
    // print g_p2: nothing readable.
    assert_eq!(
        format_value(&charp(BASE + 4096), &t, &o),
        "0x700000001000 <error: Cannot access memory at address 0x700000001000>"
    );
    // print g_p3: 200 characters read, the next one is not NUL.
    assert_eq!(
        format_value(&charp(BASE + 4096 - 250), &t, &o),
        "0x700000000f06 'x' <repeats 200 times>..."
    );
    // print g_p4: exactly 200 characters, then unreadable: no ellipsis.
    assert_eq!(
        format_value(&charp(BASE + 4096 - 200), &t, &o),
        "0x700000000f38 'x' <repeats 197 times>, \"abc\""
    );
    // set print elements 4 / print g_p4
    let o4 = FormatOptions {
        print_elements: 4,
        ..FormatOptions::default()
    };
    assert_eq!(
        format_value(&charp(BASE + 4096 - 200), &t, &o4),
        "0x700000000f38 \"xxxx\"..."
    );
    // set print repeats unlimited-ish
    let o_norep = FormatOptions {
        repeat_threshold: usize::MAX,
        print_elements: 5,
        ..FormatOptions::default()
    };
    assert_eq!(
        format_value(&charp(BASE + 4096 - 200), &t, &o_norep),
        "0x700000000f38 \"xxxxx\"..."
    );
}

#[test]
fn optimized_out_and_errors() {
    let t = Page::new();
    let o = FormatOptions::default();
    assert_eq!(
        format_value(&Value::optimized_out(int()), &t, &o),
        "<optimized out>"
    );
    let e = Type::error("DW_FORM_foo not supported");
    assert_eq!(
        format_value(&Value::new(e.clone(), vec![], Lval::None), &t, &o),
        "<error: DW_FORM_foo not supported>"
    );
    assert_eq!(type_name(&e), "<error: DW_FORM_foo not supported>");
    // Too few bytes for the type: never a panic.
    let short = Value::new(double(), vec![1, 2], Lval::None);
    assert_eq!(format_value(&short, &t, &o), "<unavailable>");
    let st = strukt(
        Some("point"),
        8,
        vec![mem("x", int(), 0), mem("y", int(), 4)],
    );
    let v = Value::new(st, vec![1, 0, 0, 0], Lval::None);
    assert_eq!(format_value(&v, &t, &o), "{x = 1, y = <unavailable>}");
    // A reference to unreadable memory.
    let r = Value::new(reference(int()), 0x10u64.to_le_bytes().to_vec(), Lval::None);
    assert_eq!(
        format_value(&r, &t, &o),
        "(int &) @0x10: <error: Cannot access memory at address 0x10>"
    );
}

#[test]
fn strings_near_the_top_of_the_address_space() {
    let t = Page::new();
    // Never an overflow panic, whatever the pointer.
    assert_eq!(
        format_value(&charp(u64::MAX), &t, &FormatOptions::default()),
        "0xffffffffffffffff <error: Cannot access memory at address 0xffffffffffffffff>"
    );
}

#[test]
fn null_stop_and_unknown_bounds() {
    let t = Page::new();
    // set print null-stop on / print g_ab32 → "ab"
    let o = FormatOptions {
        stop_at_null: true,
        ..FormatOptions::default()
    };
    let mut bytes = vec![0u8; 32];
    bytes[..2].copy_from_slice(b"ab");
    let v = Value::new(arr(char_t(), 32), bytes, Lval::None);
    assert_eq!(format_value(&v, &t, &o), "\"ab\"");
    // An array of unknown length in memory prints as its address and, for chars, the string.
    let flex = Value::new(arr_unknown(char_t()), vec![], Lval::Memory(BASE + 4093));
    assert_eq!(
        format_value(&flex, &t, &FormatOptions::default()),
        "0x700000000ffd \"abc\"<error: Cannot access memory at address 0x700000001000>"
    );
    assert_eq!(type_name(&arr_unknown(int())), "int []");
    let vla = Type::new(
        None,
        0,
        TypeKind::Array {
            element: int(),
            bound: Bound::Dynamic(DynamicBound::Expr {
                expr: vec![],
                encoding: EncodingInfo {
                    address_size: 8,
                    version: 5,
                    dwarf64: false,
                },
                is_count: false,
            }),
        },
    );
    assert_eq!(type_name(&vla), "int [variable length]");
    assert_eq!(ptype(&ptr(vla)), "int (*)[variable length]");
}

#[test]
fn string_escapes() {
    // gdb: p "a\001b" → "a\001b"; a run of quotes inside a repeat block keeps the string quote
    // escaped (print_wchar with quoter '"').
    assert_eq!(
        text::print_string(b"a\x01b\0", false, 10, 200),
        "\"a\\001b\""
    );
    assert_eq!(
        text::print_string(&[b'"'; 12], false, 10, 200),
        "'\\\"' <repeats 12 times>"
    );
    // p "abc\303", p "\303", p "aaaaaaaaaaaaaa\303", p "x\342\202", p "\377\303"
    let cases: [(&[u8], &str); 5] = [
        (b"abc\xc3\0", "\"ab\", <incomplete sequence \\303>"),
        (b"\xc3\0", "<incomplete sequence \\303>"),
        (
            b"aaaaaaaaaaaaaa\xc3\0",
            "'a' <repeats 13 times>, <incomplete sequence \\303>",
        ),
        (b"x\xe2\x82\0", "<incomplete sequence \\342\\202>"),
        (b"\xff\xc3\0", "\"\\377\", <incomplete sequence \\303>"),
    ];
    for (bytes, want) in cases {
        assert_eq!(text::print_string(bytes, false, 10, 200), want);
    }
    assert_eq!(text::print_string(b"\0", false, 10, 200), "\"\"");
}
