//! A reader of Itanium C++ mangled names, for the names gdb takes from its demangler:
//! - functions local to another (the members of a local class, clang's lambdas:
//!   `main::$_0::operator()`, `f(int)::Local::get`): gdb names a function by its demangled
//!   linkage name, which for these holds the enclosing function with its parameters, where
//!   the DWARF scopes do not (clang's lambda class has no name there);
//! - the class a vtable symbol is for (gdb's RTTI look-up);
//! - a symbol's demangled name (`info symbol`).
//!
//! What is read: source, nested, local and closure-type names, the standard abbreviations
//! and substitutions, template arguments and parameters, integer literals, built-in,
//! qualified, pointer, reference (collapsed) and function types. Anything else (packs,
//! `auto`, expressions, clones) gives `None`, and the caller keeps what it had; the
//! spelling is `c++filt`'s, checked on the 2,800 symbols of the C++ test programs.

/// gdb's name (without parameters) of the function whose linkage name is `linkage`, when it
/// is a local entity (`_ZZ4mainENK3$_0clEd` → `main::$_0::operator()`).
pub fn local_function_name(linkage: &str) -> Option<String> {
    let rest = linkage.strip_prefix("_Z")?;
    if !rest.starts_with('Z') {
        return None;
    }
    let mut p = Parser {
        s: rest.as_bytes(),
        i: 0,
        subs: Vec::new(),
        targs: Vec::new(),
        templated: false,
    };
    let (name, _) = p.name(false)?;
    Some(name)
}

/// The demangled name of a function's or variable's symbol, with the function's parameters
/// (`_ZN4geom4Vec23dotERKS0_` → `geom::Vec2::dot(geom::Vec2 const&) const`; a template's
/// return type first: `int twice<int>(int)`), as gdb's minimal symbols are named; `None` for
/// special names (vtables, thunks), clones (`.cold`) and what is not read here.
pub fn demangle(sym: &str) -> Option<String> {
    let rest = sym.strip_prefix("_Z")?;
    if rest.starts_with('T') || rest.starts_with("GV") {
        return None;
    }
    let mut p = Parser {
        s: rest.as_bytes(),
        i: 0,
        subs: Vec::new(),
        targs: Vec::new(),
        templated: false,
    };
    let d = p.encoding()?;
    (p.i == p.s.len()).then_some(d)
}

/// The class whose vtable symbol is `sym` (`_ZTVSt19_Sp_counted_deleterIPiPFvS0_E…` →
/// `std::_Sp_counted_deleter<int*, void (*)(int*), std::allocator<void>,
/// (__gnu_cxx::_Lock_policy)2>`), spelt as gdb's demangler spells it.
pub fn vtable_class(sym: &str) -> Option<String> {
    let rest = sym.strip_prefix("_ZTV")?;
    let mut p = Parser {
        s: rest.as_bytes(),
        i: 0,
        subs: Vec::new(),
        targs: Vec::new(),
        templated: false,
    };
    let t = p.ty()?;
    (p.i == p.s.len() && t.right.is_empty()).then_some(t.left)
}

/// A type split around where a declarator goes: `void (*` and `)(int*)` for a pointer to a
/// function; `raw`: a function type not yet inside a declarator.
#[derive(Clone, Default)]
struct Ty {
    left: String,
    right: String,
    raw: bool,
}

impl Ty {
    fn name(s: String) -> Ty {
        Ty {
            left: s,
            ..Ty::default()
        }
    }

    fn text(&self) -> String {
        format!("{}{}", self.left, self.right)
    }

    /// `self` under a declarator operator (`*`, `&`, `&&`, ` const`).
    fn with(&self, op: &str) -> Ty {
        // References collapse (`T&&` of `int&` is `int&`).
        if op.starts_with('&') && !self.raw && self.left.ends_with('&') {
            let mut t = self.clone();
            if op == "&" && t.left.ends_with("&&") {
                t.left.pop();
            }
            return t;
        }
        if self.raw {
            Ty {
                left: format!("{}({}", self.left, op.trim_start()),
                right: format!("){}", self.right),
                raw: false,
            }
        } else {
            Ty {
                left: format!("{}{op}", self.left),
                right: self.right.clone(),
                raw: false,
            }
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    /// The substitution candidates met so far (`S_`, `S0_`, …).
    subs: Vec<Ty>,
    /// The last template arguments read (what `T_`, `T0_` name).
    targs: Vec<Ty>,
    /// Whether the last name part read had template arguments (a function template).
    templated: bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// `<CV-qualifiers>` (`r`, `V`, `K`, in that order), as read.
    fn cv_qualifiers(&mut self) -> Vec<&'static str> {
        let mut quals = Vec::new();
        for (c, q) in [(b'r', "restrict"), (b'V', "volatile"), (b'K', "const")] {
            if self.eat(c) {
                quals.push(q);
            }
        }
        quals
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn push(&mut self, s: &str) {
        self.subs.push(Ty::name(s.to_string()));
    }

    /// An encoding: a function's name and its parameter types, up to `E` or the end
    /// (`3fooi` → `foo(int)`; `4main` → `main`). A function template's (its return type
    /// first) is not read.
    fn encoding(&mut self) -> Option<String> {
        self.encoding_ret(true)
    }

    /// An encoding; `show_ret`: a function template's return type is written (not for the
    /// function around a local name).
    fn encoding_ret(&mut self, show_ret: bool) -> Option<String> {
        let (name, quals) = self.name(true)?;
        if matches!(self.peek(), None | Some(b'E')) {
            return Some(name);
        }
        // A function template's return type comes first (not for a constructor, a
        // destructor or a conversion, which have none). `T_` names the function's template
        // arguments, not those of a type read since.
        let fn_targs = self.targs.clone();
        let last = last_component(&name);
        let ret = if self.templated
            && !last.starts_with('~')
            && !last.starts_with("operator ")
            && !is_constructor(&name)
        {
            Some(self.ty()?)
        } else {
            None
        };
        let mut params = Vec::new();
        while !matches!(self.peek(), None | Some(b'E')) {
            self.targs = fn_targs.clone();
            params.push(self.ty()?.text());
        }
        if params.len() == 1 && params[0] == "void" {
            params.clear();
        }
        let f = format!("{name}({}){quals}", params.join(", "));
        Some(match ret {
            // A return type with a declarator (a function pointer) goes around the name.
            Some(r) if show_ret && !r.right.is_empty() => format!("{}{f}{}", r.left, r.right),
            Some(r) if show_ret => format!("{} {f}", r.left),
            _ => f,
        })
    }

    /// Template arguments after `I`, up to `E`: `<int, std::allocator<int> >`.
    fn template_args(&mut self) -> Option<String> {
        if !self.eat(b'I') {
            return None;
        }
        let mut args: Vec<Ty> = Vec::new();
        while !self.eat(b'E') {
            if self.eat(b'L') {
                args.push(Ty::name(self.literal()?));
            } else {
                args.push(self.ty()?);
            }
        }
        let list: Vec<String> = args.iter().map(Ty::text).collect();
        let list = list.join(", ");
        self.targs = args;
        self.templated = true;
        Some(if list.ends_with('>') {
            format!("<{list} >")
        } else {
            format!("<{list}>")
        })
    }

    /// A literal after `L`, up to `E`: `2`, `true`, `(__gnu_cxx::_Lock_policy)2`.
    fn literal(&mut self) -> Option<String> {
        let before = self.subs.len();
        let ty = self.ty()?.text();
        let neg = self.eat(b'n');
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let digits = std::str::from_utf8(self.s.get(start..self.i)?).ok()?;
        if digits.is_empty() || !self.eat(b'E') {
            return None;
        }
        // A built-in type read here made no candidate; a named one did, as a type should.
        let _ = before;
        let n = if neg {
            format!("-{digits}")
        } else {
            digits.to_string()
        };
        Some(match ty.as_str() {
            "bool" if digits == "0" => "false".to_string(),
            "bool" => "true".to_string(),
            "int" => n,
            "unsigned int" => format!("{n}u"),
            "long" => format!("{n}l"),
            "unsigned long" => format!("{n}ul"),
            "long long" => format!("{n}ll"),
            "unsigned long long" => format!("{n}ull"),
            _ => format!("({ty}){n}"),
        })
    }

    /// A name; `function`: the name of a function (its last part is no substitution
    /// candidate). Returns the name and the method's qualifiers (` const`).
    fn name(&mut self, function: bool) -> Option<(String, String)> {
        match self.peek()? {
            b'N' => {
                self.i += 1;
                let mut quals: String = self
                    .cv_qualifiers()
                    .iter()
                    .map(|q| format!(" {q}"))
                    .collect();
                // The demangler writes `const volatile`, in that order.
                if quals == " volatile const" {
                    quals = " const volatile".to_string();
                }
                let ref_qual = if self.eat(b'R') {
                    " &"
                } else if self.eat(b'O') {
                    " &&"
                } else {
                    ""
                };
                let quals = format!("{quals}{ref_qual}");
                let mut parts: Vec<String> = Vec::new();
                while !self.eat(b'E') {
                    // A substitution is a candidate already.
                    let mut known = false;
                    let full = if self.peek()? == b'I' {
                        let prev = parts.pop()?;
                        with_args(&prev, &self.template_args()?)
                    } else if self.peek()? == b'S' {
                        let s = self.substitution()?.text();
                        if s.ends_with("::") {
                            let u = self.unqualified(None)?;
                            format!("{s}{u}")
                        } else {
                            known = true;
                            s
                        }
                    } else {
                        let class = parts.last().map(|p| last_component(p).to_string());
                        let part = self.unqualified(class.as_deref())?;
                        match parts.last() {
                            Some(prev) => format!("{prev}::{part}"),
                            None => part,
                        }
                    };
                    let last = self.peek() == Some(b'E');
                    let candidate = !(known || (function && last));
                    if candidate {
                        self.push(&full);
                    }
                    parts.push(full);
                }
                Some((parts.pop()?, quals))
            }
            b'Z' => {
                self.i += 1;
                let outer = self.encoding_ret(false)?;
                if !self.eat(b'E') {
                    return None;
                }
                let (entity, quals) = self.name(function)?;
                // A discriminator (`_0`, `__12_`) tells same-named entities apart.
                if self.eat(b'_') {
                    self.eat(b'_');
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.i += 1;
                    }
                    self.eat(b'_');
                }
                Some((format!("{outer}::{entity}"), quals))
            }
            b'L' if self.s.get(self.i + 1).is_some_and(u8::is_ascii_digit) => {
                // An internal-linkage name (`_ZL1g`).
                self.i += 1;
                self.name(function)
            }
            _ => {
                let n = if self.peek()? == b'S' {
                    let s = self.substitution()?.text();
                    if s.ends_with("::") {
                        let n = format!("{s}{}", self.unqualified(None)?);
                        if !function || self.peek() == Some(b'I') {
                            self.push(&n);
                        }
                        n
                    } else if self.peek() == Some(b'I') {
                        s
                    } else {
                        return Some((s, String::new()));
                    }
                } else {
                    let n = self.unqualified(None)?;
                    if !function || self.peek() == Some(b'I') {
                        self.push(&n);
                    }
                    n
                };
                if self.peek() == Some(b'I') {
                    let n = with_args(&n, &self.template_args()?);
                    if !function {
                        self.push(&n);
                    }
                    return Some((n, String::new()));
                }
                Some((n, String::new()))
            }
        }
    }

    /// A substitution: `S_`, `S<base 36>_`, or a standard abbreviation (`std::` for `St`,
    /// which a name follows).
    fn substitution(&mut self) -> Option<Ty> {
        if !self.eat(b'S') {
            return None;
        }
        let c = self.peek()?;
        self.i += 1;
        let std = match c {
            b't' => Some("std::"),
            b'a' => Some("std::allocator"),
            b'b' => Some("std::basic_string"),
            b's' => Some("std::string"),
            b'i' => Some("std::istream"),
            b'o' => Some("std::ostream"),
            b'd' => Some("std::iostream"),
            _ => None,
        };
        if let Some(s) = std {
            return Some(Ty::name(s.to_string()));
        }
        let mut n = 0usize;
        let mut c = c;
        if c != b'_' {
            loop {
                let d = match c {
                    b'0'..=b'9' => c - b'0',
                    b'A'..=b'Z' => c - b'A' + 10,
                    b'_' => break,
                    _ => return None,
                };
                n = n.checked_mul(36)?.checked_add(d as usize)?;
                c = self.peek()?;
                self.i += 1;
            }
            n += 1;
        }
        self.subs.get(n).cloned()
    }

    /// A source name, an operator, a constructor or destructor (of class `class`), a closure
    /// type.
    fn unqualified(&mut self, class: Option<&str>) -> Option<String> {
        self.templated = false;
        let c = self.peek()?;
        if c.is_ascii_digit() {
            let start = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
            let n: usize = std::str::from_utf8(self.s.get(start..self.i)?)
                .ok()?
                .parse()
                .ok()?;
            let id = self.s.get(self.i..self.i.checked_add(n)?)?;
            self.i += n;
            return std::str::from_utf8(id).ok().map(str::to_string);
        }
        if self.s.get(self.i..)?.starts_with(b"Ul") {
            // A closure type: `Ul <parameters> E [<number>] _` (`{lambda(int)#1}`).
            self.i += 2;
            let mut params = Vec::new();
            while !self.eat(b'E') {
                params.push(self.ty()?.text());
            }
            if params.len() == 1 && params[0] == "void" {
                params.clear();
            }
            let start = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
            let n = match std::str::from_utf8(self.s.get(start..self.i)?).ok()? {
                "" => 1,
                d => d.parse::<usize>().ok()?.checked_add(2)?,
            };
            if !self.eat(b'_') {
                return None;
            }
            return Some(format!("{{lambda({})#{n}}}", params.join(", ")));
        }
        let two = std::str::from_utf8(self.s.get(self.i..self.i + 2)?).ok()?;
        let class = class.map(|c| c.split('<').next().unwrap_or(c));
        let name = match two {
            "C1" | "C2" | "C3" | "C4" | "C5" => class?.to_string(),
            "D0" | "D1" | "D2" | "D4" | "D5" => format!("~{}", class?),
            _ => format!("operator{}", operator(two)?),
        };
        self.i += 2;
        Some(name)
    }

    /// A type, as the demangler spells it (`char const*`, `void (*)(int*)`).
    fn ty(&mut self) -> Option<Ty> {
        if let Some(b) = self.builtin() {
            return Some(Ty::name(b.to_string()));
        }
        let t = match self.peek()? {
            b'P' => {
                self.i += 1;
                self.ty()?.with("*")
            }
            b'R' => {
                self.i += 1;
                self.ty()?.with("&")
            }
            b'O' => {
                self.i += 1;
                self.ty()?.with("&&")
            }
            b'K' | b'V' | b'r' => {
                let mut quals = self.cv_qualifiers();
                quals.reverse();
                self.ty()?.with(&format!(" {}", quals.join(" ")))
            }
            b'F' => {
                self.i += 1;
                let ret = self.ty()?.text();
                let mut params = Vec::new();
                while !self.eat(b'E') {
                    params.push(self.ty()?.text());
                }
                if params.len() == 1 && params[0] == "void" {
                    params.clear();
                }
                Ty {
                    left: format!("{ret} "),
                    right: format!("({})", params.join(", ")),
                    raw: true,
                }
            }
            b'T' => {
                self.i += 1;
                let mut n = 0usize;
                while let Some(c @ b'0'..=b'9') = self.peek() {
                    n = n.checked_mul(10)?.checked_add((c - b'0') as usize + 1)?;
                    self.i += 1;
                }
                if !self.eat(b'_') {
                    return None;
                }
                let t = self.targs.get(n)?.clone();
                self.subs.push(t.clone());
                return Some(t);
            }
            b'S' if self.s.get(self.i + 1) != Some(&b't') => {
                // A substitution is no new candidate, but a template-id made of one is.
                let s = self.substitution()?;
                if self.peek() != Some(b'I') {
                    return (!s.left.ends_with("::")).then_some(s);
                }
                let n = with_args(&s.text(), &self.template_args()?);
                Ty::name(n)
            }
            b'N' | b'S' | b'Z' | b'0'..=b'9' => {
                // (The name's parts are candidates already, the whole too.)
                let (n, _) = self.name(false)?;
                return Some(Ty::name(n));
            }
            _ => return None,
        };
        self.subs.push(t.clone());
        Some(t)
    }

    fn builtin(&mut self) -> Option<&'static str> {
        let one = match self.peek()? {
            b'v' => "void",
            b'w' => "wchar_t",
            b'b' => "bool",
            b'c' => "char",
            b'a' => "signed char",
            b'h' => "unsigned char",
            b's' => "short",
            b't' => "unsigned short",
            b'i' => "int",
            b'j' => "unsigned int",
            b'l' => "long",
            b'm' => "unsigned long",
            b'x' => "long long",
            b'y' => "unsigned long long",
            b'n' => "__int128",
            b'o' => "unsigned __int128",
            b'f' => "float",
            b'd' => "double",
            b'e' => "long double",
            b'g' => "__float128",
            b'z' => "...",
            b'D' => {
                let t = match self.s.get(self.i + 1)? {
                    b'n' => "decltype(nullptr)",
                    b's' => "char16_t",
                    b'i' => "char32_t",
                    b'u' => "char8_t",
                    _ => return None,
                };
                self.i += 2;
                return Some(t);
            }
            _ => return None,
        };
        self.i += 1;
        Some(one)
    }
}

/// `name` with its template arguments (`operator< <char>`, not `operator<<char>`).
fn with_args(name: &str, args: &str) -> String {
    if name.ends_with('<') {
        format!("{name} {args}")
    } else {
        format!("{name}{args}")
    }
}

/// Whether `name` (`A<int>::A<int>`) names a constructor: its last component is its class's.
fn is_constructor(name: &str) -> bool {
    let strip = |n: &str| n.split('<').next().unwrap_or(n).to_string();
    let last = last_component(name);
    let Some(scope) = name.strip_suffix(last).and_then(|s| s.strip_suffix("::")) else {
        return false;
    };
    strip(last) == strip(last_component(scope))
}

/// The last `::` component of a name, outside template arguments.
fn last_component(name: &str) -> &str {
    crate::index::unqualified(name).unwrap_or(name)
}

/// The operator an operator name's code stands for (`cl` → `()`).
fn operator(code: &str) -> Option<&'static str> {
    Some(match code {
        "cl" => "()",
        "ix" => "[]",
        "pl" => "+",
        "mi" => "-",
        "ml" => "*",
        "dv" => "/",
        "rm" => "%",
        "an" => "&",
        "or" => "|",
        "eo" => "^",
        "aS" => "=",
        "pL" => "+=",
        "mI" => "-=",
        "mL" => "*=",
        "dV" => "/=",
        "eq" => "==",
        "ne" => "!=",
        "lt" => "<",
        "gt" => ">",
        "le" => "<=",
        "ge" => ">=",
        "nt" => "!",
        "aa" => "&&",
        "oo" => "||",
        "ls" => "<<",
        "rs" => ">>",
        "pp" => "++",
        "mm" => "--",
        "co" => "~",
        "pt" => "->",
        "nw" => " new",
        "dl" => " delete",
        "na" => " new[]",
        "da" => " delete[]",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{demangle, local_function_name, vtable_class};

    #[test]
    fn vtable_classes() {
        let cases = [
            ("_ZTV6Circle", "Circle"),
            ("_ZTVN4geom6SquareE", "geom::Square"),
            (
                "_ZTVSt19_Sp_counted_deleterIPiPFvS0_ESaIvELN9__gnu_cxx12_Lock_policyE2EE",
                "std::_Sp_counted_deleter<int*, void (*)(int*), std::allocator<void>, \
                 (__gnu_cxx::_Lock_policy)2>",
            ),
            (
                "_ZTVSt19_Sp_counted_deleterIPSt6vectorIiSaIiEEPFvS3_ESaIvELN9__gnu_cxx12_Lock_policyE2EE",
                "std::_Sp_counted_deleter<std::vector<int, std::allocator<int> >*, \
                 void (*)(std::vector<int, std::allocator<int> >*), std::allocator<void>, \
                 (__gnu_cxx::_Lock_policy)2>",
            ),
            (
                "_ZTVSt23_Sp_counted_ptr_inplaceI2PtSaIvELN9__gnu_cxx12_Lock_policyE2EE",
                "std::_Sp_counted_ptr_inplace<Pt, std::allocator<void>, (__gnu_cxx::_Lock_policy)2>",
            ),
            ("_ZTV1BILb1ELi3ELj4EE", "B<true, 3, 4u>"),
        ];
        for (sym, class) in cases {
            assert_eq!(vtable_class(sym).as_deref(), Some(class), "{sym}");
        }
        assert_eq!(vtable_class("_ZTI6Circle"), None);
    }

    /// Symbols of the C++ test programs (g++ 12 and clang++), as `c++filt` reads them.
    #[test]
    fn symbols() {
        let cases = [
            ("_ZL1g", "g"),
            ("_Z5twiceIiET_S0_", "int twice<int>(int)"),
            (
                "_ZSteqRKSt17_Rb_tree_iteratorISt4pairIKiiEES5_",
                "std::operator==(std::_Rb_tree_iterator<std::pair<int const, int> > const&, \
                 std::_Rb_tree_iterator<std::pair<int const, int> > const&)",
            ),
            (
                "_ZSt7forwardIRiEOT_RNSt16remove_referenceIS1_E4typeE",
                "int& std::forward<int&>(std::remove_reference<int&>::type&)",
            ),
            (
                "_ZSt11__addressofIPFvPiEEPT_RS3_",
                "void (**std::__addressof<void (*)(int*)>(void (*&)(int*)))(int*)",
            ),
            (
                "_ZNKSt10unique_ptrI2PtSt14default_deleteIS0_EEptEv",
                "std::unique_ptr<Pt, std::default_delete<Pt> >::operator->() const",
            ),
            (
                "_ZNRSt8__detail9__variant14_UninitializedIiLb1EE6_M_getEv",
                "std::__detail::__variant::_Uninitialized<int, true>::_M_get() &",
            ),
            (
                "_ZSt8_DestroyINSt7__cxx114listINS0_12basic_stringIcSt11char_traitsIcESaIcEEESaIS6_EEEEvPT_",
                "void std::_Destroy<std::__cxx11::list<std::__cxx11::basic_string<char, \
                 std::char_traits<char>, std::allocator<char> >, \
                 std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, \
                 std::allocator<char> > > > >(std::__cxx11::list<std::__cxx11::basic_string<char, \
                 std::char_traits<char>, std::allocator<char> >, \
                 std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, \
                 std::allocator<char> > > >*)",
            ),
            ("_ZZ4mainENK3$_1clEi", "main::$_1::operator()(int) const"),
        ];
        for (sym, want) in cases {
            assert_eq!(demangle(sym).as_deref(), Some(want), "{sym}");
        }
        // Packs, `auto` and clones are not read.
        assert_eq!(demangle("_Z1fv.cold"), None);
        assert_eq!(demangle("_ZTV6Circle"), None);
    }

    /// Names from clang++ and g++ 12 objects, as `c++filt -p` (and gdb) reads them.
    #[test]
    fn local_names() {
        let cases = [
            ("_ZZ4mainENK3$_0clEd", "main::$_0::operator()"),
            ("_ZZ1fP1SS0_EN1LC1E_0v", "f(S*, S*)::L::L"),
            ("_ZZ1fP1SS0_EN1LC2Ev", "f(S*, S*)::L::L"),
            ("_ZZ1fP1SS0_ENK3$_1clEv", "f(S*, S*)::$_1::operator()"),
            (
                "_ZZ1fP1SS0_ENKUlvE_clEv",
                "f(S*, S*)::{lambda()#1}::operator()",
            ),
            (
                "_ZZZ1fP1SS0_ENK3$_1clEvENKUliE_clEi",
                "f(S*, S*)::$_1::operator()() const::{lambda(int)#1}::operator()",
            ),
            (
                "_ZZZ1fP1SS0_ENKUlvE_clEvENKUliE0_clEi",
                "f(S*, S*)::{lambda()#1}::operator()() const::{lambda(int)#2}::operator()",
            ),
            (
                "_ZZN2ns1A1mEPKcRKSsEN5Local3getEv",
                "ns::A::m(char const*, std::string const&)::Local::get",
            ),
            ("_ZZ1gvEN1LD2Ev", "g()::L::~L"),
            ("_ZZ1gRVKiEN1L1hEv", "g(int const volatile&)::L::h"),
        ];
        for (mangled, name) in cases {
            assert_eq!(
                local_function_name(mangled).as_deref(),
                Some(name),
                "{mangled}"
            );
        }
        assert_eq!(
            local_function_name(
                "_ZZNK2ns1A1mEPKcRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEENK3$_0clEi"
            )
            .as_deref(),
            Some(
                "ns::A::m(char const*, std::__cxx11::basic_string<char, std::char_traits<char>, \
                 std::allocator<char> > const&) const::$_0::operator()"
            )
        );
        // A function template's return type is not written for the enclosing function.
        assert_eq!(
            local_function_name("_ZZ1fIiEvT_EN1L1gEv").as_deref(),
            Some("f<int>(int)::L::g")
        );
        // Packs and `auto` are not read: the caller keeps the DWARF's name.
        assert_eq!(
            local_function_name(
                "_ZZNSt8__detail9__variant16_Variant_storageILb0EJiSt6vectorIiSaIiEEEE8_M_resetEvENUlOT_E_clIRiEEDaS7_"
            ),
            None
        );
        assert_eq!(local_function_name("_ZN1A1fEv"), None);
        assert_eq!(local_function_name("main"), None);
    }
}
