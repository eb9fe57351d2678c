//! The names gdb gives C++ functions local to another function: the members of a local class
//! and clang's lambdas (`main::$_0::operator()`, `f(int)::Local::get`). gdb names a function
//! by its demangled linkage name; for these, that name holds the enclosing function with its
//! parameters, which the DWARF scopes do not give (clang's lambda class has no name there).
//!
//! This reads the Itanium local names (`_ZZ <encoding> E <entity>`) whose parts are plain:
//! source names, nested names, the standard abbreviations, built-in, qualified, pointer and
//! reference types. Anything else (templates, function types, arrays) gives `None`, and the
//! caller keeps the name built from the DWARF.

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
    };
    let (name, _) = p.name(false)?;
    Some(name)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    /// The substitution candidates met so far (`S_`, `S0_`, …).
    subs: Vec<String>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
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

    /// An encoding: a function's name and its parameter types, up to `E` or the end
    /// (`3fooi` → `foo(int)`; `4main` → `main`).
    fn encoding(&mut self) -> Option<String> {
        let (name, quals) = self.name(true)?;
        if matches!(self.peek(), None | Some(b'E')) {
            return Some(name);
        }
        let mut params = Vec::new();
        while !matches!(self.peek(), None | Some(b'E')) {
            params.push(self.ty()?);
        }
        if params.len() == 1 && params[0] == "void" {
            params.clear();
        }
        Some(format!("{name}({}){quals}", params.join(", ")))
    }

    /// A name; `function`: the name of a function (its last part is no substitution
    /// candidate). Returns the name and the method's qualifiers (` const`).
    fn name(&mut self, function: bool) -> Option<(String, String)> {
        match self.peek()? {
            b'N' => {
                self.i += 1;
                let mut quals = String::new();
                loop {
                    if self.eat(b'r') {
                        quals.push_str(" restrict");
                    } else if self.eat(b'V') {
                        quals.push_str(" volatile");
                    } else if self.eat(b'K') {
                        quals.push_str(" const");
                    } else {
                        break;
                    }
                }
                // The demangler writes `const volatile`, in that order.
                let quals = match quals.as_str() {
                    " volatile const" => " const volatile".to_string(),
                    _ => quals,
                };
                if self.eat(b'R') {
                    // (ref-qualifiers after the cv-qualifiers)
                } else {
                    self.eat(b'O');
                }
                let mut parts: Vec<String> = Vec::new();
                while !self.eat(b'E') {
                    let part = if self.peek()? == b'S' {
                        let s = self.substitution()?;
                        if s.ends_with("::") {
                            let u = self.unqualified(parts.last().map(String::as_str))?;
                            format!("{s}{u}")
                        } else {
                            s
                        }
                    } else {
                        self.unqualified(parts.last().map(|p| p.rsplit("::").next().unwrap_or(p)))?
                    };
                    let full = match parts.last() {
                        Some(prev) => format!("{prev}::{part}"),
                        None => part,
                    };
                    parts.push(full);
                    if !(function && self.peek() == Some(b'E')) {
                        self.subs.push(parts.last()?.clone());
                    }
                }
                Some((parts.pop()?, quals))
            }
            b'Z' => {
                self.i += 1;
                let outer = self.encoding()?;
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
            b'S' if self.s.get(self.i + 1) == Some(&b't') => {
                self.i += 2;
                let u = self.unqualified(None)?;
                let n = format!("std::{u}");
                if !function {
                    self.subs.push(n.clone());
                }
                Some((n, String::new()))
            }
            b'S' => {
                let s = self.substitution()?;
                (!s.ends_with("::")).then_some((s, String::new()))
            }
            _ => {
                let n = self.unqualified(None)?;
                if !function {
                    self.subs.push(n.clone());
                }
                Some((n, String::new()))
            }
        }
    }

    /// A substitution: `S_`, `S<base 36>_`, or a standard abbreviation (`std::` for `St`,
    /// which a name follows).
    fn substitution(&mut self) -> Option<String> {
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
            return Some(s.to_string());
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

    /// A source name, an operator, a constructor or destructor (of class `class`).
    fn unqualified(&mut self, class: Option<&str>) -> Option<String> {
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
                params.push(self.ty()?);
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
        let class = class.and_then(|c| c.rsplit("::").next());
        let name = match two {
            "C1" | "C2" | "C3" => class?.to_string(),
            "D0" | "D1" | "D2" => format!("~{}", class?),
            _ => format!("operator{}", operator(two)?),
        };
        self.i += 2;
        Some(name)
    }

    /// A type, as the demangler spells it (`char const*`, `std::string const&`).
    fn ty(&mut self) -> Option<String> {
        if let Some(b) = self.builtin() {
            return Some(b.to_string());
        }
        let t = match self.peek()? {
            b'P' => {
                self.i += 1;
                format!("{}*", self.ty()?)
            }
            b'R' => {
                self.i += 1;
                format!("{}&", self.ty()?)
            }
            b'O' => {
                self.i += 1;
                format!("{}&&", self.ty()?)
            }
            b'K' | b'V' | b'r' => {
                let mut quals = Vec::new();
                loop {
                    if self.eat(b'r') {
                        quals.push("restrict");
                    } else if self.eat(b'V') {
                        quals.push("volatile");
                    } else if self.eat(b'K') {
                        quals.push("const");
                    } else {
                        break;
                    }
                }
                quals.reverse();
                format!("{} {}", self.ty()?, quals.join(" "))
            }
            b'S' if self.s.get(self.i + 1) != Some(&b't') => {
                // A substitution is no new candidate.
                let s = self.substitution()?;
                return (!s.ends_with("::") && self.peek() != Some(b'I')).then_some(s);
            }
            b'N' | b'S' | b'0'..=b'9' => {
                let (n, _) = self.name(false)?;
                if self.peek() == Some(b'I') {
                    return None;
                }
                return Some(n);
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
    use super::local_function_name;

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
        // Templates are not read: the caller keeps the DWARF's name.
        assert_eq!(
            local_function_name(
                "_ZZNK2ns1A1mEPKcRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEENK3$_0clEi"
            ),
            None
        );
        assert_eq!(local_function_name("_ZN1A1fEv"), None);
        assert_eq!(local_function_name("main"), None);
    }
}
