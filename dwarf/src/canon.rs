//! C++ names of template classes as gdb 13 shows them: gdb reads every C++ `DW_AT_name`
//! through `cp_canonicalize_string`, which writes types the way its demangler does. clang's
//! `std::pair<const int, int>` is gdb's `std::pair<int const, int>`, `Pt *` is `Pt*`,
//! `_Index_tuple<0UL>` is `_Index_tuple<0ul>`; g++'s names are mostly in that form already.
//!
//! Only what template arguments need is read: qualified names with arguments, built-in
//! types, cv-qualifiers, pointers, references, function pointers and integer literals. A name
//! with anything else is kept as it is.

use std::borrow::Cow;

/// `name` as gdb's canonical form spells it (unchanged when it has no template arguments or
/// cannot be read).
pub fn canonical_cxx_name(name: &str) -> Cow<'_, str> {
    if !name.contains('<') {
        return Cow::Borrowed(name);
    }
    let mut p = Parser {
        s: name.as_bytes(),
        i: 0,
    };
    match p.qualified_name() {
        Some(out) if p.i == p.s.len() && out != name => Cow::Owned(out),
        _ => Cow::Borrowed(name),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

const BUILTIN_WORDS: &[&str] = &[
    "unsigned", "signed", "short", "long", "int", "char", "bool", "float", "double", "void",
    "wchar_t", "char8_t", "char16_t", "char32_t", "__int128",
];

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn eat_str(&mut self, t: &str) -> bool {
        self.skip_ws();
        if self
            .s
            .get(self.i..)
            .is_some_and(|r| r.starts_with(t.as_bytes()))
        {
            self.i += t.len();
            true
        } else {
            false
        }
    }

    /// An identifier (letters, digits, `_`, `$`), without consuming it when `peek_only`.
    fn ident(&mut self, peek_only: bool) -> Option<String> {
        self.skip_ws();
        let start = self.i;
        let mut j = self.i;
        while self
            .s
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$')
        {
            j += 1;
        }
        if j == start || self.s[start].is_ascii_digit() {
            return None;
        }
        if !peek_only {
            self.i = j;
        }
        std::str::from_utf8(&self.s[start..j])
            .ok()
            .map(str::to_string)
    }

    /// `a::b<args>::c`: components, each with its template arguments.
    fn qualified_name(&mut self) -> Option<String> {
        let mut out = String::new();
        if self.eat_str("::") {
            out.push_str("::");
        }
        loop {
            let id = self.ident(false)?;
            if id == "operator" {
                return None;
            }
            out.push_str(&id);
            if self.peek() == Some(b'<') {
                self.i += 1;
                let mut args = Vec::new();
                if !self.eat(b'>') {
                    loop {
                        args.push(self.template_arg()?);
                        if self.eat(b',') {
                            continue;
                        }
                        if self.eat(b'>') {
                            break;
                        }
                        return None;
                    }
                }
                let list = args.join(", ");
                out.push('<');
                out.push_str(&list);
                if list.ends_with('>') {
                    out.push(' ');
                }
                out.push('>');
            }
            let save = self.i;
            if self.eat_str("::") && self.ident(true).is_some() {
                out.push_str("::");
                continue;
            }
            self.i = save;
            return Some(out);
        }
    }

    /// A template argument: a type or an integer literal.
    fn template_arg(&mut self) -> Option<String> {
        match self.peek()? {
            b'0'..=b'9' | b'-' => self.number(),
            b'(' => {
                // `(E)2`: an enumerator by value.
                self.i += 1;
                let t = self.ty()?;
                if !self.eat(b')') {
                    return None;
                }
                Some(format!("({t}){}", self.number()?))
            }
            _ => {
                let save = self.i;
                if let Some(w) = self.ident(false)
                    && (w == "true" || w == "false")
                    && matches!(self.peek(), Some(b',' | b'>'))
                {
                    return Some(w);
                }
                self.i = save;
                self.ty()
            }
        }
    }

    /// An integer literal, its suffix in lower case (`0UL` → `0ul`).
    fn number(&mut self) -> Option<String> {
        self.skip_ws();
        let start = self.i;
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        while self
            .s
            .get(self.i)
            .is_some_and(|c| matches!(c, b'u' | b'U' | b'l' | b'L'))
        {
            self.i += 1;
        }
        let t = std::str::from_utf8(self.s.get(start..self.i)?).ok()?;
        (t.len() > usize::from(t.starts_with('-'))).then(|| t.to_ascii_lowercase())
    }

    /// A type: specifiers, then an abstract declarator.
    fn ty(&mut self) -> Option<String> {
        let mut cv_const = false;
        let mut cv_volatile = false;
        let mut words: Vec<String> = Vec::new();
        let mut named: Option<String> = None;
        while let Some(w) = self.ident(true) {
            match w.as_str() {
                "const" => {
                    self.ident(false);
                    cv_const = true;
                }
                "volatile" => {
                    self.ident(false);
                    cv_volatile = true;
                }
                "struct" | "class" | "union" | "enum" | "typename" => {
                    self.ident(false);
                }
                w if BUILTIN_WORDS.contains(&w) && named.is_none() => {
                    self.ident(false);
                    words.push(w.to_string());
                }
                _ if named.is_none() && words.is_empty() => named = Some(self.qualified_name()?),
                _ => break,
            }
        }
        let mut base = match (named, words.is_empty()) {
            (Some(n), true) => n,
            (None, false) => builtin(&words)?,
            _ => return None,
        };
        if cv_const {
            base.push_str(" const");
        }
        if cv_volatile {
            base.push_str(" volatile");
        }
        // Declarator operators: `*`, `&`, `&&`, a `const` after a pointer; `(*)(params)`.
        loop {
            match self.peek() {
                Some(b'*') => {
                    self.i += 1;
                    base.push('*');
                }
                Some(b'&') => {
                    self.i += 1;
                    base.push('&');
                }
                Some(b'(') => {
                    self.i += 1;
                    let mut ops = String::new();
                    while let Some(c @ (b'*' | b'&')) = self.peek() {
                        self.i += 1;
                        ops.push(c as char);
                    }
                    if ops.is_empty() || !self.eat(b')') || !self.eat(b'(') {
                        return None;
                    }
                    let mut params = Vec::new();
                    if !self.eat(b')') {
                        loop {
                            params.push(self.ty()?);
                            if self.eat(b',') {
                                continue;
                            }
                            if self.eat(b')') {
                                break;
                            }
                            return None;
                        }
                    }
                    if params.len() == 1 && params[0] == "void" {
                        params.clear();
                    }
                    base = format!("{base} ({ops})({})", params.join(", "));
                }
                _ => {
                    let save = self.i;
                    match self.ident(false).as_deref() {
                        Some("const") if base.ends_with(['*', '&']) => base.push_str(" const"),
                        Some("volatile") if base.ends_with(['*', '&']) => {
                            base.push_str(" volatile")
                        }
                        _ => {
                            self.i = save;
                            return Some(base);
                        }
                    }
                }
            }
        }
    }
}

/// A built-in type from its words in any order, as the demangler names it (`long unsigned
/// int` → `unsigned long`).
fn builtin(words: &[String]) -> Option<String> {
    let count = |w: &str| words.iter().filter(|x| *x == w).count();
    let (uns, sig, short, long) = (
        count("unsigned"),
        count("signed"),
        count("short"),
        count("long"),
    );
    let others: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !matches!(*w, "unsigned" | "signed" | "short" | "long" | "int"))
        .collect();
    let prefix = if uns > 0 { "unsigned " } else { "" };
    Some(match others.as_slice() {
        [] => match (short, long) {
            (1, 0) => format!("{prefix}short"),
            (0, 1) => format!("{prefix}long"),
            (0, 2) => format!("{prefix}long long"),
            (0, 0) => format!("{prefix}int"),
            _ => return None,
        },
        ["char"] if uns > 0 => "unsigned char".to_string(),
        ["char"] if sig > 0 => "signed char".to_string(),
        ["double"] if long == 1 => "long double".to_string(),
        ["__int128"] if uns > 0 => "unsigned __int128".to_string(),
        [one] if uns == 0 && sig == 0 && short == 0 && long == 0 => one.to_string(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::canonical_cxx_name;

    #[test]
    fn clang_names_as_gdb_writes_them() {
        let cases = [
            ("std::pair<const int, int>", "std::pair<int const, int>"),
            (
                "std::map<int, int, std::less<int>, std::allocator<std::pair<const int, int> > >",
                "std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > >",
            ),
            (
                "_Sp_counted_deleter<Pt *, void (*)(Pt *), std::allocator<void>, __gnu_cxx::_S_atomic>",
                "_Sp_counted_deleter<Pt*, void (*)(Pt*), std::allocator<void>, __gnu_cxx::_S_atomic>",
            ),
            ("_Index_tuple<0UL>", "_Index_tuple<0ul>"),
            (
                "_Head_base<0UL, int &&, false>",
                "_Head_base<0ul, int&&, false>",
            ),
            (
                "_M_insert_range_unique<const std::pair<const int, double> *>",
                "_M_insert_range_unique<std::pair<int const, double> const*>",
            ),
            (
                "A<long unsigned int, short int, char>",
                "A<unsigned long, short, char>",
            ),
            (
                "B<const char *const, unsigned char>",
                "B<char const* const, unsigned char>",
            ),
            ("f<void (*)(void)>", "f<void (*)()>"),
        ];
        for (clang, gdb) in cases {
            assert_eq!(canonical_cxx_name(clang), gdb, "{clang}");
        }
        // g++'s spelling, and names without arguments, are kept.
        for same in [
            "std::pair<int const, int>",
            "std::vector<int, std::allocator<int> >",
            "std::_Sp_counted_deleter<int*, void (*)(int*), std::allocator<void>, (__gnu_cxx::_Lock_policy)2>",
            "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
            "Point",
            "geom::Shape",
            "std::map<int, int>::_Rep_type",
            "A<(anonymous namespace)::B>",
        ] {
            assert_eq!(canonical_cxx_name(same), same);
        }
    }
}
