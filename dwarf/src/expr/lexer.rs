//! Tokens of gdb's C expression language, with gdb's lexical error wording.

use crate::error::{DwarfError, Result};
use crate::extfloat::FloatKind;

/// The C type of an integer literal, chosen as gdb chooses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntLit {
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
}

/// The C type of a floating literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatLit {
    Float,
    Double,
    /// The x87 extended value's bits (the literal rounded to 64 bits of precision, not
    /// through a `double`).
    LongDouble(u128),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Int(u64, IntLit),
    Float(f64, FloatLit),
    /// A character constant; `wide` for `L'x'`.
    Char(u32, bool),
    Str(Vec<u8>),
    Ident(String),
    /// A quoted name `'file.c'` or `'name'` (more than one character between single quotes).
    QuotedName(String),
    /// `$…`: the text after the dollar (`""` for `$`, `"$"` for `$$`, `"$2"`, `"3"`, `"pc"`).
    Dollar(String),
    Punct(&'static str),
    /// gdb's `@entry` right after a name (`x@entry`: the parameter's value on entry).
    Entry,
    Eof,
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    /// Byte offset of the token's first character in the input.
    pub start: usize,
}

const PUNCTS: &[&str] = &[
    "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "::", "+", "-", "*", "/", "%", "<", ">", "=", "!", "~",
    "&", "|", "^", "?", ":", ",", ".", "(", ")", "[", "]", "{", "}", "@",
];

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Split `text` into tokens (the last one is [`Tok::Eof`] at the end of the input).
pub fn tokenize(text: &str) -> Result<Vec<Token>> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let (tok, end) = lex_number(text, i)?;
            out.push(Token { tok, start });
            i = end;
            continue;
        }
        if c == b'L' && b.get(i + 1) == Some(&b'\'') {
            let (v, end) = lex_char(b, i + 1)?;
            match v {
                CharOrName::Char(v) => out.push(Token {
                    tok: Tok::Char(v, true),
                    start,
                }),
                CharOrName::Name(_) => return Err(DwarfError::user("Invalid character constant.")),
            }
            i = end;
            continue;
        }
        if is_ident_start(c) {
            let mut j = i;
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
            out.push(Token {
                tok: Tok::Ident(text[i..j].to_string()),
                start,
            });
            i = j;
            continue;
        }
        if c == b'$' {
            let mut j = i + 1;
            if b.get(j) == Some(&b'$') {
                j += 1;
            }
            while j < b.len() && (is_ident_char(b[j]) || b[j] == b'$') {
                j += 1;
            }
            out.push(Token {
                tok: Tok::Dollar(text[i + 1..j].to_string()),
                start,
            });
            i = j;
            continue;
        }
        if c == b'\'' {
            let (v, end) = lex_char(b, i)?;
            let tok = match v {
                CharOrName::Char(v) => Tok::Char(v, false),
                CharOrName::Name(n) => Tok::QuotedName(n),
            };
            out.push(Token { tok, start });
            i = end;
            continue;
        }
        if c == b'"' {
            let mut s = Vec::new();
            // Adjacent string literals concatenate.
            loop {
                let end = lex_string(b, i, &mut s)?;
                i = end;
                let mut k = i;
                while k < b.len() && b[k].is_ascii_whitespace() {
                    k += 1;
                }
                if b.get(k) == Some(&b'"') {
                    i = k;
                } else {
                    break;
                }
            }
            out.push(Token {
                tok: Tok::Str(s),
                start,
            });
            continue;
        }
        // gdb's lexer: `@entry` not followed by an identifier character is one token.
        if b[i..].starts_with(b"@entry") && !b.get(i + 6).is_some_and(|&c| is_ident_char(c)) {
            out.push(Token {
                tok: Tok::Entry,
                start,
            });
            i += 6;
            continue;
        }
        match PUNCTS.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            Some(p) => {
                out.push(Token {
                    tok: Tok::Punct(p),
                    start,
                });
                i += p.len();
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(DwarfError::user(format!(
                    "Invalid character '{ch}' in expression."
                )));
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        start: b.len(),
    });
    Ok(out)
}

enum CharOrName {
    Char(u32),
    Name(String),
}

/// One (possibly escaped) character at `b[i]`; returns it and the index after it.
fn escape(b: &[u8], mut i: usize) -> (u32, usize) {
    let c = b[i];
    if c != b'\\' {
        return (c as u32, i + 1);
    }
    i += 1;
    let Some(&e) = b.get(i) else {
        return (b'\\' as u32, i);
    };
    i += 1;
    let v = match e {
        b'n' => 10,
        b't' => 9,
        b'r' => 13,
        b'a' => 7,
        b'b' => 8,
        b'f' => 12,
        b'v' => 11,
        b'e' => 27,
        b'0'..=b'7' => {
            let mut v = (e - b'0') as u32;
            let mut n = 1;
            while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                v = v * 8 + (b[i] - b'0') as u32;
                i += 1;
                n += 1;
            }
            v
        }
        b'x' => {
            let mut v: u32 = 0;
            while i < b.len() && b[i].is_ascii_hexdigit() {
                v = v.wrapping_mul(16) + (b[i] as char).to_digit(16).unwrap_or(0);
                i += 1;
            }
            v
        }
        other => other as u32,
    };
    (v, i)
}

/// A single-quoted token starting at `b[q] == '\''`.
fn lex_char(b: &[u8], q: usize) -> Result<(CharOrName, usize)> {
    let i = q + 1;
    if i >= b.len() {
        return Err(DwarfError::user("Unmatched single quote."));
    }
    if b[i] == b'\'' {
        return Err(DwarfError::user("Empty character constant."));
    }
    let (v, j) = escape(b, i);
    if b.get(j) == Some(&b'\'') {
        return Ok((CharOrName::Char(v), j + 1));
    }
    // More than one character: a quoted name (`'file.c'::x`, `'arr'`).
    match b[i..].iter().position(|&c| c == b'\'') {
        Some(len) => {
            let name = String::from_utf8_lossy(&b[i..i + len]).into_owned();
            // gdb: two characters are a bad constant, more are a quoted name.
            if len > 2
                && name
                    .bytes()
                    .all(|c| is_ident_char(c) || b".:<>~ -+/".contains(&c))
            {
                Ok((CharOrName::Name(name), i + len + 1))
            } else {
                Err(DwarfError::user("Invalid character constant."))
            }
        }
        None => Err(DwarfError::user("Unmatched single quote.")),
    }
}

/// A string literal starting at `b[q] == '"'`, appended to `out`; returns the index after it.
fn lex_string(b: &[u8], q: usize, out: &mut Vec<u8>) -> Result<usize> {
    let mut i = q + 1;
    loop {
        match b.get(i) {
            None => return Err(DwarfError::user("Unterminated string in expression.")),
            Some(b'"') => return Ok(i + 1),
            Some(_) => {
                let (v, j) = escape(b, i);
                out.push(v as u8);
                i = j;
            }
        }
    }
}

/// A number starting at `start`, scanned as gdb scans it (letters and one dot included, then
/// validated as a whole).
fn lex_number(text: &str, start: usize) -> Result<(Tok, usize)> {
    let b = text.as_bytes();
    let mut i = start;
    let hex = b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X'));
    if hex {
        i += 2;
    }
    let mut got_dot = false;
    let mut got_e = false;
    while i < b.len() {
        let c = b[i];
        if !hex && !got_e && (c == b'e' || c == b'E') {
            got_dot = true;
            got_e = true;
        } else if !got_dot && c == b'.' {
            got_dot = true;
        } else if got_e && matches!(b[i - 1], b'e' | b'E') && (c == b'-' || c == b'+') {
        } else if !c.is_ascii_alphanumeric() {
            break;
        }
        i += 1;
    }
    let s = &text[start..i];
    let invalid = || DwarfError::user(format!("Invalid number \"{s}\"."));
    if got_dot && !hex {
        let lower = s.to_ascii_lowercase();
        let (body, kind) = if let Some(x) = lower.strip_suffix('f') {
            (x.to_string(), FloatLit::Float)
        } else if let Some(x) = lower.strip_suffix('l') {
            (x.to_string(), FloatLit::LongDouble(0))
        } else {
            (lower.clone(), FloatLit::Double)
        };
        // gdb accepts a dangling exponent (`3e`).
        let body = body.trim_end_matches(['e', '+', '-']).to_string();
        let v: f64 = body.parse().map_err(|_| invalid())?;
        // Each literal is rounded once, to its own type (`1.1f`, `1.1l`).
        let (v, kind) = match kind {
            FloatLit::Float => (body.parse::<f32>().map_or(v, f64::from), kind),
            FloatLit::LongDouble(_) => {
                let q = crate::extfloat::parse(&body, FloatKind::X87)
                    .unwrap_or_else(|| crate::extfloat::quad_from_f64(v));
                let b = crate::extfloat::from_quad(q, FloatKind::X87, 16);
                let bits = u128::from_le_bytes(b.try_into().unwrap_or([0; 16]));
                (v, FloatLit::LongDouble(bits))
            }
            FloatLit::Double => (v, kind),
        };
        return Ok((Tok::Float(v, kind), i));
    }
    // Integer: split off the suffix.
    let lower = s.to_ascii_lowercase();
    let mut digits_end = lower.len();
    let mut unsigned = false;
    let mut longs = 0;
    while digits_end > 0 {
        let c = lower.as_bytes()[digits_end - 1];
        if c == b'u' && !unsigned {
            unsigned = true;
        } else if c == b'l' && longs < 2 {
            longs += 1;
        } else {
            break;
        }
        digits_end -= 1;
    }
    let body = &lower[..digits_end];
    let (radix, digits) = if hex {
        (16, &body[2.min(body.len())..])
    } else if let Some(d) = body.strip_prefix("0b") {
        (2, d)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() {
        return Err(invalid());
    }
    let mut v: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix).ok_or_else(invalid)?;
        v = v
            .checked_mul(radix as u64)
            .and_then(|v| v.checked_add(d as u64))
            .ok_or_else(|| DwarfError::user("Numeric constant too large."))?;
    }
    let decimal = radix == 10;
    let kind = match (unsigned, longs) {
        (false, 0) => {
            if v <= i32::MAX as u64 {
                IntLit::Int
            } else if !decimal && v <= u32::MAX as u64 {
                IntLit::UInt
            } else if v <= i64::MAX as u64 {
                IntLit::Long
            } else {
                IntLit::ULong
            }
        }
        (true, 0) => {
            if v <= u32::MAX as u64 {
                IntLit::UInt
            } else {
                IntLit::ULong
            }
        }
        (false, 1) => {
            if v <= i64::MAX as u64 {
                IntLit::Long
            } else {
                IntLit::ULong
            }
        }
        (true, 1) => IntLit::ULong,
        (false, _) => {
            if v <= i64::MAX as u64 {
                IntLit::LongLong
            } else {
                IntLit::ULongLong
            }
        }
        (true, _) => IntLit::ULongLong,
    };
    Ok((Tok::Int(v, kind), i))
}
