//! Syntax colouring of the source view, hand-written (no highlighting crate: they bring
//! grammars and regex engines, heavy for a window drawn by tiny-skia): C, C++ and Fortran
//! (free and fixed form) by the file's extension; comments, strings and characters, numbers,
//! preprocessor lines, keywords and type names. A line at a time, with what continues from
//! the line before (a C comment left open).

use iced::Color;

/// A source language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    Cxx,
    /// Free-form Fortran (`.f90`, …).
    Fortran,
    /// Fixed-form Fortran (`.f`, `.for`): a `c`, `C` or `*` in column 1 starts a comment.
    FortranFixed,
    /// Anything else: no colours.
    Plain,
}

/// What a piece of a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Keyword,
    Type,
    Comment,
    Str,
    Number,
    Preproc,
}

/// The language of a file, by its extension.
pub fn lang_of(path: &str) -> Lang {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "c" | "h" => Lang::C,
        "cc" | "cpp" | "cxx" | "c++" | "C" | "hh" | "hpp" | "hxx" | "H" | "tcc" | "ipp" => {
            Lang::Cxx
        }
        "f" | "for" | "ftn" | "F" | "FOR" | "fpp" | "FPP" => Lang::FortranFixed,
        "f90" | "f95" | "f03" | "f08" | "F90" | "F95" | "F03" | "F08" => Lang::Fortran,
        _ => Lang::Plain,
    }
}

/// The colour of a kind (on the dark theme).
pub fn colour(k: Kind) -> Option<Color> {
    Some(match k {
        Kind::Plain => return None,
        Kind::Keyword => Color::from_rgb8(0xc6, 0x78, 0xdd),
        Kind::Type => Color::from_rgb8(0x56, 0xb6, 0xc2),
        Kind::Comment => Color::from_rgb8(0x7f, 0x84, 0x8e),
        Kind::Str => Color::from_rgb8(0x98, 0xc3, 0x79),
        Kind::Number => Color::from_rgb8(0xd1, 0x9a, 0x66),
        Kind::Preproc => Color::from_rgb8(0xe0, 0x6c, 0x75),
    })
}

const C_KEYWORDS: &[&str] = &[
    "break",
    "case",
    "continue",
    "default",
    "do",
    "else",
    "enum",
    "extern",
    "for",
    "goto",
    "if",
    "inline",
    "register",
    "restrict",
    "return",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "volatile",
    "while",
    "const",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Generic",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "NULL",
];
const CXX_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "catch",
    "class",
    "concept",
    "constexpr",
    "consteval",
    "constinit",
    "const_cast",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "delete",
    "dynamic_cast",
    "explicit",
    "export",
    "false",
    "final",
    "friend",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nullptr",
    "operator",
    "override",
    "private",
    "protected",
    "public",
    "reinterpret_cast",
    "requires",
    "static_assert",
    "static_cast",
    "template",
    "this",
    "throw",
    "true",
    "try",
    "typeid",
    "typename",
    "using",
    "virtual",
];
const C_TYPES: &[&str] = &[
    "void",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "bool",
    "_Bool",
    "_Complex",
    "size_t",
    "ssize_t",
    "ptrdiff_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "FILE",
    "auto",
    "wchar_t",
    "char16_t",
    "char32_t",
    "char8_t",
];
const FORTRAN_KEYWORDS: &[&str] = &[
    "program",
    "end",
    "subroutine",
    "function",
    "module",
    "use",
    "implicit",
    "none",
    "contains",
    "call",
    "return",
    "do",
    "while",
    "if",
    "then",
    "else",
    "elseif",
    "endif",
    "enddo",
    "select",
    "case",
    "where",
    "forall",
    "stop",
    "continue",
    "cycle",
    "exit",
    "allocate",
    "deallocate",
    "intent",
    "in",
    "out",
    "inout",
    "parameter",
    "dimension",
    "allocatable",
    "pointer",
    "target",
    "save",
    "data",
    "common",
    "goto",
    "go",
    "to",
    "print",
    "write",
    "read",
    "open",
    "close",
    "format",
    "interface",
    "type",
    "public",
    "private",
    "only",
    "result",
    "recursive",
    "pure",
    "elemental",
    "optional",
    "present",
    "associate",
    "block",
    "entry",
    "include",
    "sequence",
    "bind",
    "value",
    "external",
    "intrinsic",
    "procedure",
    "class",
    "extends",
    "abstract",
    "import",
    "submodule",
    "error",
];
const FORTRAN_TYPES: &[&str] = &[
    "integer",
    "real",
    "double",
    "precision",
    "complex",
    "logical",
    "character",
];

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The pieces of `line` in `lang`; `in_comment` says a C comment is open (before and after the
/// line).
pub fn spans(lang: Lang, line: &str, in_comment: &mut bool) -> Vec<(Kind, String)> {
    let mut out: Vec<(Kind, String)> = Vec::new();
    let mut push = |k: Kind, s: &str| {
        if s.is_empty() {
            return;
        }
        match out.last_mut() {
            Some((lk, ls)) if *lk == k => ls.push_str(s),
            _ => out.push((k, s.to_string())),
        }
    };
    let c_like = matches!(lang, Lang::C | Lang::Cxx);
    let fortran = matches!(lang, Lang::Fortran | Lang::FortranFixed);
    if lang == Lang::Plain {
        push(Kind::Plain, line);
        return out;
    }
    if lang == Lang::FortranFixed && line.starts_with(['c', 'C', '*', '!']) {
        push(Kind::Comment, line);
        return out;
    }
    let b = line.as_bytes();
    let mut i = 0;
    if c_like && !*in_comment && line.trim_start().starts_with('#') {
        // A preprocessor line: coloured whole, but for a comment at its end.
        let end = line
            .find("//")
            .or_else(|| line.find("/*"))
            .unwrap_or(line.len());
        push(Kind::Preproc, &line[..end]);
        i = end;
    }
    while i < b.len() {
        let rest = &line[i..];
        if *in_comment {
            match rest.find("*/") {
                Some(e) => {
                    push(Kind::Comment, &rest[..e + 2]);
                    *in_comment = false;
                    i += e + 2;
                }
                None => {
                    push(Kind::Comment, rest);
                    i = b.len();
                }
            }
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        if c_like && rest.starts_with("//") || fortran && c == '!' {
            push(Kind::Comment, rest);
            break;
        }
        if c_like && rest.starts_with("/*") {
            *in_comment = true;
            push(Kind::Comment, "/*");
            i += 2;
            continue;
        }
        if c == '"' || c == '\'' {
            // To the closing quote (a backslash escapes in C; a doubled quote in Fortran).
            let mut j = 1;
            let rb = rest.as_bytes();
            while j < rb.len() {
                if c_like && rb[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if rb[j] == c as u8 {
                    if fortran && rb.get(j + 1) == Some(&(c as u8)) {
                        j += 2;
                        continue;
                    }
                    j += 1;
                    break;
                }
                j += 1;
            }
            let j = j.min(rb.len());
            push(Kind::Str, &rest[..j]);
            i += j;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && rest[1..].starts_with(|d: char| d.is_ascii_digit())) {
            let j = rest
                .find(|d: char| !(is_word(d) || d == '.'))
                .unwrap_or(rest.len());
            push(Kind::Number, &rest[..j]);
            i += j;
            continue;
        }
        if is_word(c) {
            let j = rest.find(|d: char| !is_word(d)).unwrap_or(rest.len());
            let w = &rest[..j];
            let k = if c_like {
                if C_TYPES.contains(&w) {
                    Kind::Type
                } else if C_KEYWORDS.contains(&w) || lang == Lang::Cxx && CXX_KEYWORDS.contains(&w)
                {
                    Kind::Keyword
                } else {
                    Kind::Plain
                }
            } else {
                let lw = w.to_ascii_lowercase();
                if FORTRAN_TYPES.contains(&lw.as_str()) {
                    Kind::Type
                } else if FORTRAN_KEYWORDS.contains(&lw.as_str()) {
                    Kind::Keyword
                } else {
                    Kind::Plain
                }
            };
            push(k, w);
            i += j;
            continue;
        }
        push(Kind::Plain, &rest[..c.len_utf8()]);
        i += c.len_utf8();
    }
    out
}

/// A source line coloured: `→ ` in front of the focus rank's line (`here`), and after a line
/// where ranks are (`at`), how many and which (`◀ 2 ranks [0-1]`).
pub fn line_view<'a>(
    lang: Lang,
    line: &str,
    in_comment: &mut bool,
    here: bool,
    at: Option<&cohort_wire::RankSet>,
) -> iced::Element<'a, crate::Message> {
    use iced::widget::text::{Span, Wrapping};
    use iced::{Font, Pixels};
    let size = Pixels(13.0);
    let mut v: Vec<Span<'a, (), Font>> = vec![
        Span::new(if here { "→ " } else { "  " })
            .font(Font::MONOSPACE)
            .size(size),
    ];
    for (k, t) in spans(lang, line, in_comment) {
        v.push(
            Span::new(t)
                .font(Font::MONOSPACE)
                .size(size)
                .color_maybe(colour(k)),
        );
    }
    if let Some(r) = at {
        let n = r.len();
        v.push(
            Span::new(format!(
                "   ◀ {n} rank{} [{r}]",
                if n == 1 { "" } else { "s" }
            ))
            .font(Font::MONOSPACE)
            .size(Pixels(12.0))
            .color(Color::from_rgb8(0xf0, 0xc0, 0x40)),
        );
    }
    iced::widget::rich_text(v).wrapping(Wrapping::None).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(lang: Lang, line: &str, open: &mut bool) -> Vec<(Kind, String)> {
        spans(lang, line, open)
            .into_iter()
            .filter(|(k, _)| *k != Kind::Plain)
            .collect()
    }

    #[test]
    fn c_lines() {
        let mut open = false;
        let v = kinds(Lang::C, "    int v = rank * 10 + step; // x", &mut open);
        assert_eq!(
            v,
            [
                (Kind::Type, "int".to_string()),
                (Kind::Number, "10".to_string()),
                (Kind::Comment, "// x".to_string())
            ]
        );
        let v = kinds(
            Lang::C,
            "  printf(\"a \\\" %d\\n\", 'x'); /* open",
            &mut open,
        );
        assert_eq!(
            v,
            [
                (Kind::Str, "\"a \\\" %d\\n\"".to_string()),
                (Kind::Str, "'x'".to_string()),
                (Kind::Comment, "/* open".to_string())
            ]
        );
        assert!(open);
        let v = kinds(Lang::C, "still */ return 0;", &mut open);
        assert_eq!(
            v,
            [
                (Kind::Comment, "still */".to_string()),
                (Kind::Keyword, "return".to_string()),
                (Kind::Number, "0".to_string())
            ]
        );
        assert!(!open);
        let v = kinds(Lang::C, "#include <stdio.h> // io", &mut open);
        assert_eq!(v[0], (Kind::Preproc, "#include <stdio.h> ".to_string()));
        assert_eq!(lang_of("/a/b/ranks.c"), Lang::C);
        assert_eq!(lang_of("x.cpp"), Lang::Cxx);
    }

    #[test]
    fn cxx_and_fortran_lines() {
        let mut open = false;
        let v = kinds(
            Lang::Cxx,
            "template <class T> auto f() { return nullptr; }",
            &mut open,
        );
        let words: Vec<&str> = v.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(words, ["template", "class", "auto", "return", "nullptr"]);
        let v = kinds(Lang::Fortran, "  INTEGER :: i ! 'no string'", &mut open);
        assert_eq!(
            v,
            [
                (Kind::Type, "INTEGER".to_string()),
                (Kind::Comment, "! 'no string'".to_string())
            ]
        );
        let v = kinds(Lang::Fortran, "print *, 'it''s', 1.5e3", &mut open);
        assert_eq!(
            v,
            [
                (Kind::Keyword, "print".to_string()),
                (Kind::Str, "'it''s'".to_string()),
                (Kind::Number, "1.5e3".to_string())
            ]
        );
        assert_eq!(
            kinds(Lang::FortranFixed, "C     a comment", &mut open),
            [(Kind::Comment, "C     a comment".to_string())]
        );
        assert_eq!(lang_of("heat.f90"), Lang::Fortran);
        assert_eq!(lang_of("old.f"), Lang::FortranFixed);
    }
}
