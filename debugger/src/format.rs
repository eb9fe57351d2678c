//! gdb's output formats for registers and raw memory, as pure functions.

use cohort_engine::arch::{RegDesc, RegKind};

/// One line of `info registers`: name in 15 columns, hex in 19, then the natural form.
/// `sym` gives `<main+8>` for code pointers.
pub fn register_line(r: &RegDesc, v: u128, sym: &dyn Fn(u64) -> Option<String>) -> String {
    match r.kind {
        RegKind::Vector128 => format!("{:<15}{}", r.name, vector128(v)),
        RegKind::Float80 => {
            let hex = format!("(raw 0x{:020x})", v & ((1u128 << 80) - 1));
            format!("{:<15}{:<20}{}", r.name, float80(v), hex)
        }
        _ => {
            let bits = r.size * 8;
            let mask = if bits >= 128 {
                u128::MAX
            } else {
                (1u128 << bits) - 1
            };
            let v = v & mask;
            let hex = format!("{v:#x}");
            let natural = match r.kind {
                RegKind::Int => {
                    let shift = 128 - bits as u32;
                    (((v << shift) as i128) >> shift).to_string()
                }
                RegKind::CodePtr => match sym(v as u64) {
                    Some(s) => format!("{hex} <{s}>"),
                    None => hex.clone(),
                },
                RegKind::DataPtr => hex.clone(),
                RegKind::Flags(flags) => {
                    let set: Vec<&str> = flags
                        .bits
                        .iter()
                        .filter(|(bit, name)| !name.is_empty() && v & (1 << bit) != 0)
                        .map(|(_, n)| *n)
                        .collect();
                    format!(
                        "[ {}{}]",
                        set.join(" "),
                        if set.is_empty() { "" } else { " " }
                    )
                }
                _ => v.to_string(),
            };
            format!("{:<15}{:<20}{}", r.name, hex, natural)
        }
    }
}

/// An x87 80-bit value in gdb's `%g`-like form (through f64, which holds every value a
/// program normally keeps in these registers exactly enough for display).
pub fn float80(raw: u128) -> String {
    let mant = raw as u64;
    let exp = ((raw >> 64) & 0x7fff) as i32;
    let neg = (raw >> 79) & 1 == 1;
    let s = if exp == 0 && mant == 0 {
        "0".to_string()
    } else if exp == 0x7fff {
        if mant << 1 == 0 {
            "inf".to_string()
        } else {
            format!("nan(0x{mant:x})")
        }
    } else {
        let v = (mant as f64) * 2f64.powi(exp - 16383 - 63);
        let t = format!("{v}");
        if t.len() > 18 { format!("{v:e}") } else { t }
    };
    if neg { format!("-{s}") } else { s }
}

/// gdb's union view of an SSE register: every lane in hex.
pub fn vector128(v: u128) -> String {
    let lanes = |w: u32| -> String {
        let n = 128 / w;
        let mask = (1u128 << w) - 1;
        (0..n)
            .map(|i| format!("{:#x}", (v >> (i * w)) & mask))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{{v8_bfloat16 = {{{}}}, v8_half = {{{}}}, v4_float = {{{}}}, v2_double = {{{}}}, v16_int8 = {{{}}}, v8_int16 = {{{}}}, v4_int32 = {{{}}}, v2_int64 = {{{}}}, uint128 = {:#x}}}",
        lanes(16),
        lanes(16),
        lanes(32),
        lanes(64),
        lanes(8),
        lanes(16),
        lanes(32),
        lanes(64),
        v
    )
}

/// How `x` shows each unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XFormat {
    Hex,
    Decimal,
    Unsigned,
    Octal,
    Binary,
    Char,
}

impl XFormat {
    pub fn from_letter(c: char) -> Option<XFormat> {
        Some(match c {
            'x' => XFormat::Hex,
            'd' => XFormat::Decimal,
            'u' => XFormat::Unsigned,
            'o' => XFormat::Octal,
            't' => XFormat::Binary,
            'c' => XFormat::Char,
            _ => return None,
        })
    }
}

/// Units per line for a unit size, as gdb lays them out.
pub fn per_line(size: usize, fmt: XFormat) -> usize {
    match (fmt, size) {
        (XFormat::Char, _) => 8,
        (XFormat::Binary, 8) => 1,
        (XFormat::Binary, 4) => 2,
        (XFormat::Binary, 2) => 4,
        (_, 1) | (_, 2) => 8,
        (_, 4) => 4,
        _ => 2,
    }
}

/// One unit of `x` output.
pub fn unit(bytes: &[u8], fmt: XFormat) -> String {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    let v = u64::from_le_bytes(b);
    let bits = bytes.len() * 8;
    match fmt {
        XFormat::Hex => format!("0x{:0w$x}", v, w = bytes.len() * 2),
        XFormat::Unsigned => v.to_string(),
        XFormat::Decimal => {
            let shift = 64 - bits as u32;
            (((v << shift) as i64) >> shift).to_string()
        }
        XFormat::Octal => {
            if v == 0 {
                "0".into()
            } else {
                format!("0{v:o}")
            }
        }
        XFormat::Binary => format!("{:0w$b}", v, w = bits),
        XFormat::Char => {
            let c = bytes[0] as i8;
            format!("{} {}", c, char_literal(bytes[0]))
        }
    }
}

/// gdb's quoted form of a byte: `'A'`, `'\n'`, `'\000'`, `'\377'`.
pub fn char_literal(c: u8) -> String {
    let body = match c {
        b'\n' => "\\n".to_string(),
        b'\t' => "\\t".to_string(),
        b'\r' => "\\r".to_string(),
        0x07 => "\\a".to_string(),
        0x08 => "\\b".to_string(),
        0x0c => "\\f".to_string(),
        0x0b => "\\v".to_string(),
        0x1b => "\\033".to_string(),
        b'\'' => "\\'".to_string(),
        b'\\' => "\\\\".to_string(),
        0x20..=0x7e => (c as char).to_string(),
        _ => format!("\\{c:03o}"),
    };
    format!("'{body}'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_engine::arch::x86_64::REGS;

    fn r(name: &str) -> &'static RegDesc {
        REGS.iter().find(|r| r.name == name).unwrap()
    }

    #[test]
    fn registers_like_gdb() {
        let none = |_| None;
        assert_eq!(
            register_line(r("rax"), 0x555555555139, &none),
            "rax            0x555555555139      93824992235833"
        );
        assert_eq!(
            register_line(r("rax"), u64::MAX as u128, &none),
            "rax            0xffffffffffffffff  -1"
        );
        assert_eq!(
            register_line(r("rbp"), 0x7fffffffe6f0, &none),
            "rbp            0x7fffffffe6f0      0x7fffffffe6f0"
        );
        let sym = |_| Some("main+8".to_string());
        assert_eq!(
            register_line(r("rip"), 0x555555555141, &sym),
            "rip            0x555555555141      0x555555555141 <main+8>"
        );
        assert_eq!(
            register_line(r("eflags"), 0x202, &none),
            "eflags         0x202               [ IF ]"
        );
        assert_eq!(
            register_line(r("eflags"), 0x246, &none),
            "eflags         0x246               [ PF ZF IF ]"
        );
        assert_eq!(
            register_line(r("cs"), 0x33, &none),
            "cs             0x33                51"
        );
        assert_eq!(
            register_line(r("mxcsr"), 0x1f80, &none),
            "mxcsr          0x1f80              [ IM DM ZM OM UM PM ]"
        );
        assert_eq!(
            register_line(r("st0"), 0, &none),
            "st0            0                   (raw 0x00000000000000000000)"
        );
        assert!(
            register_line(r("xmm0"), 0, &none)
                .starts_with("xmm0           {v8_bfloat16 = {0x0, 0x0,")
        );
    }

    #[test]
    fn memory_units() {
        assert_eq!(unit(&[0xc7], XFormat::Hex), "0xc7");
        assert_eq!(
            unit(&[1, 0, 0, 0, 0, 0, 0, 0], XFormat::Hex),
            "0x0000000000000001"
        );
        assert_eq!(unit(&[0xff, 0xff, 0xff, 0xff], XFormat::Decimal), "-1");
        assert_eq!(
            unit(&[0xff, 0xff, 0xff, 0xff], XFormat::Unsigned),
            "4294967295"
        );
        assert_eq!(unit(&[8], XFormat::Octal), "010");
        assert_eq!(unit(b"A", XFormat::Char), "65 'A'");
        assert_eq!(unit(&[5], XFormat::Binary), "00000101");
        assert_eq!(per_line(1, XFormat::Hex), 8);
        assert_eq!(per_line(8, XFormat::Hex), 2);
    }
}
