//! Characters and strings as gdb prints them in a UTF-8 host locale (gdb's `generic_emit_char`,
//! `generic_printstr`, `count_next_character`, `print_converted_chars_to_obstack`,
//! `print_wchar`).
//!
//! Rules (checked against gdb 13, `LANG=C.UTF-8`):
//! - `\a \b \f \n \r \t \v` by name; other non-printable characters and bytes that are not
//!   valid UTF-8 as three-digit octal (`p g_cm1` → `-1 '\377'`, `p g_c127` → `'\177'`,
//!   `p "\e"` → `"\033"`); valid UTF-8 sequences print as they are (`"héllo"`).
//! - The quote character and backslash are escaped: `'\''`, `"a\"b"`, `'"'`.
//! - A string drops one trailing NUL (`char [4] "abc"` → `"abc"`, `char [6]` → `"abc\000\000"`).
//! - A run of more than `repeat_threshold` equal characters is a `'c' <repeats N times>`
//!   segment; segments are joined by `, ` (`p g_ab32` → `"ab", '\000' <repeats 29 times>`).
//! - At most `print_elements` characters (a run counts whole); `...` follows when more remain.
//! - A multi-byte sequence cut by the end prints as `<incomplete sequence \303>`, and gdb
//!   loses the character before it (`p "abc\303"` → `"ab", <incomplete sequence \303>`).

/// One decoded character of a string, with the bytes it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Char(char, Vec<u8>),
    /// A byte that is not valid UTF-8 here.
    Invalid(u8),
    /// A multi-byte sequence cut short by the end of the string.
    Incomplete(Vec<u8>),
}

fn utf8_width(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 0,
    }
}

fn decode(bytes: &[u8]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let lead = bytes[i];
        let w = utf8_width(lead);
        if w == 0 {
            items.push(Item::Invalid(lead));
            i += 1;
            continue;
        }
        if i + w > bytes.len() {
            let tail = &bytes[i..];
            if tail[1..].iter().all(|b| b & 0xc0 == 0x80) {
                // gdb's iconv loop loses the character converted in the same call as an
                // incomplete tail (`p "abc\303"` → `"ab", <incomplete sequence \303>`).
                if matches!(items.last(), Some(Item::Char(..))) {
                    items.pop();
                }
                items.push(Item::Incomplete(tail.to_vec()));
                break;
            }
            items.push(Item::Invalid(lead));
            i += 1;
            continue;
        }
        match std::str::from_utf8(&bytes[i..i + w])
            .ok()
            .and_then(|s| s.chars().next())
        {
            Some(c) => {
                items.push(Item::Char(c, bytes[i..i + w].to_vec()));
                i += w;
            }
            None => {
                items.push(Item::Invalid(lead));
                i += 1;
            }
        }
    }
    items
}

fn printable(c: char) -> bool {
    !c.is_control()
}

fn octal_bytes(out: &mut String, raw: &[u8]) {
    for b in raw {
        out.push_str(&format!("\\{b:03o}"));
    }
}

/// gdb's `print_wchar`: one character, escaped for a literal quoted by `quoter`.
fn push_char(out: &mut String, c: Option<char>, raw: &[u8], quoter: char) {
    match c {
        Some('\x07') => out.push_str("\\a"),
        Some('\x08') => out.push_str("\\b"),
        Some('\x0c') => out.push_str("\\f"),
        Some('\n') => out.push_str("\\n"),
        Some('\r') => out.push_str("\\r"),
        Some('\t') => out.push_str("\\t"),
        Some('\x0b') => out.push_str("\\v"),
        Some(c) if printable(c) => {
            if c == quoter || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        _ => octal_bytes(out, raw),
    }
}

fn push_item(out: &mut String, item: &Item, quoter: char) {
    match item {
        Item::Char(c, raw) => push_char(out, Some(*c), raw, quoter),
        Item::Invalid(b) => push_char(out, None, &[*b], quoter),
        Item::Incomplete(raw) => octal_bytes(out, raw),
    }
}

/// A single character literal for a one-byte value: `'A'`, `'\n'`, `'\377'`.
pub fn char_literal(byte: u8) -> String {
    let mut s = String::from("'");
    if byte < 0x80 {
        push_char(&mut s, Some(char::from(byte)), &[byte], '\'');
    } else {
        octal_bytes(&mut s, &[byte]);
    }
    s.push('\'');
    s
}

/// gdb's `generic_printstr` for one-byte characters.
pub fn print_string(
    bytes: &[u8],
    force_ellipses: bool,
    repeat_threshold: usize,
    print_max: usize,
) -> String {
    let mut len = bytes.len();
    if !force_ellipses && len > 0 && bytes[len - 1] == 0 {
        len -= 1;
    }
    if len == 0 {
        return "\"\"".into();
    }
    let items = decode(&bytes[..len]);
    // Group equal neighbours until `print_max` characters are taken.
    let mut groups: Vec<(&Item, usize)> = Vec::new();
    let mut pos = 0;
    let mut taken = 0;
    while taken < print_max && pos < items.len() {
        let item = &items[pos];
        let mut n = 1;
        while pos + n < items.len() && items[pos + n] == *item {
            n += 1;
        }
        groups.push((item, n));
        pos += n;
        taken += n;
    }
    let finished = pos >= items.len();

    #[derive(PartialEq, Clone, Copy)]
    enum State {
        Start,
        Single,
        Repeat,
    }
    let mut out = String::new();
    let mut last = State::Start;
    let mut incomplete = false;
    for (item, n) in groups {
        if let Item::Incomplete(raw) = item {
            if last == State::Single {
                out.push('"');
            }
            if last != State::Start {
                out.push_str(", ");
            }
            out.push_str("<incomplete sequence ");
            octal_bytes(&mut out, raw);
            out.push('>');
            incomplete = true;
            break;
        }
        if n > repeat_threshold {
            if last == State::Single {
                out.push('"');
            }
            if last != State::Start {
                out.push_str(", ");
            }
            out.push('\'');
            push_item(&mut out, item, '"');
            out.push_str(&format!("' <repeats {n} times>"));
            last = State::Repeat;
        } else {
            if last != State::Single {
                if last != State::Start {
                    out.push_str(", ");
                }
                out.push('"');
            }
            for _ in 0..n {
                push_item(&mut out, item, '"');
            }
            last = State::Single;
        }
    }
    if !incomplete && last == State::Single {
        out.push('"');
    }
    if force_ellipses || !finished {
        out.push_str("...");
    }
    out
}
