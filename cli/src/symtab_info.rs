//! `info functions`, `info variables`, `info types` with a regular expression: debug symbols
//! grouped by file, then (functions and variables) the matching ELF symbols without debug
//! information, as gdb 13 prints them.

use std::collections::HashSet;
use std::sync::Arc;

use cohort_dwarf::format::{self as typeprint, Language};
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::types::DieRef;
use cohort_engine::symbols::SymKind;
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

/// Which `info` listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolClass {
    Functions,
    Variables,
    Types,
}

impl SymbolClass {
    fn word(self) -> &'static str {
        match self {
            SymbolClass::Functions => "functions",
            SymbolClass::Variables => "variables",
            SymbolClass::Types => "types",
        }
    }
}

/// A small regular-expression matcher (POSIX basic syntax as gdb's `info` commands use it:
/// `^`, `$`, `.`, `*`, `[...]`, `\c`), searching anywhere in the text.
pub struct Regex {
    items: Vec<(Atom, bool)>,
    anchored: bool,
    end: bool,
}

#[derive(Debug, Clone)]
enum Atom {
    Any,
    Char(char),
    Set(Vec<(char, char)>, bool),
}

impl Atom {
    fn matches(&self, c: char) -> bool {
        match self {
            Atom::Any => true,
            Atom::Char(x) => *x == c,
            Atom::Set(ranges, neg) => ranges.iter().any(|(a, b)| *a <= c && c <= *b) != *neg,
        }
    }
}

impl Regex {
    pub fn new(pattern: &str) -> std::result::Result<Regex, String> {
        let mut p = pattern;
        let anchored = p.starts_with('^');
        if anchored {
            p = &p[1..];
        }
        let end = p.ends_with('$') && !p.ends_with("\\$");
        if end {
            p = &p[..p.len() - 1];
        }
        let mut items: Vec<(Atom, bool)> = Vec::new();
        let mut it = p.chars().peekable();
        while let Some(c) = it.next() {
            let atom = match c {
                '.' => Atom::Any,
                '*' => {
                    match items.last_mut() {
                        Some(last) => last.1 = true,
                        None => items.push((Atom::Char('*'), false)),
                    }
                    continue;
                }
                '\\' => Atom::Char(it.next().ok_or("Trailing backslash")?),
                '[' => {
                    let neg = it.peek() == Some(&'^');
                    if neg {
                        it.next();
                    }
                    let mut ranges = Vec::new();
                    let mut first = true;
                    loop {
                        let Some(a) = it.next() else {
                            return Err("Unmatched [, [^, [:, [., or [=".into());
                        };
                        if a == ']' && !first {
                            break;
                        }
                        first = false;
                        if it.peek() == Some(&'-') {
                            it.next();
                            match it.next() {
                                Some(']') => {
                                    ranges.push((a, a));
                                    ranges.push(('-', '-'));
                                    break;
                                }
                                Some(b) => ranges.push((a, b)),
                                None => return Err("Unmatched [, [^, [:, [., or [=".into()),
                            }
                        } else {
                            ranges.push((a, a));
                        }
                    }
                    Atom::Set(ranges, neg)
                }
                c => Atom::Char(c),
            };
            items.push((atom, false));
        }
        Ok(Regex {
            items,
            anchored,
            end,
        })
    }

    pub fn is_match(&self, text: &str) -> bool {
        let t: Vec<char> = text.chars().collect();
        if self.anchored {
            return self.match_here(0, &t, 0);
        }
        (0..=t.len()).any(|s| self.match_here(0, &t, s))
    }

    fn match_here(&self, i: usize, t: &[char], at: usize) -> bool {
        let Some((atom, star)) = self.items.get(i) else {
            return !self.end || at == t.len();
        };
        if *star {
            let mut k = at;
            loop {
                if self.match_here(i + 1, t, k) {
                    return true;
                }
                match t.get(k) {
                    Some(&c) if atom.matches(c) => k += 1,
                    _ => return false,
                }
            }
        }
        match t.get(at) {
            Some(&c) if atom.matches(c) => self.match_here(i + 1, t, at + 1),
            _ => false,
        }
    }
}

fn die_type(d: &Arc<DebugFile>, unit: usize, off: gimli::UnitOffset) -> Option<DieRef> {
    let u = d.unit(unit).ok()?;
    off.to_debug_info_offset(&u.header).map(DieRef)
}

impl Debugger {
    /// `info functions|variables|types [-q] [-n] [REGEX]`.
    pub(crate) fn cmd_info_symbols(&mut self, class: SymbolClass, arg: &str) -> Result<Flow> {
        let mut words = arg.split_whitespace().peekable();
        let mut nondebug = class != SymbolClass::Types;
        while let Some(w) = words.peek() {
            match *w {
                "-n" => nondebug = false,
                "-q" => {}
                "--" => {
                    words.next();
                    break;
                }
                _ => break,
            }
            words.next();
        }
        let pattern = words.collect::<Vec<_>>().join(" ");
        let re =
            Regex::new(&pattern).map_err(|e| EngineError::Other(format!("Invalid regexp: {e}")))?;
        if self.session.symbols().is_empty() {
            return Err(EngineError::Other(
                "No symbol table is loaded.  Use the \"file\" command.".into(),
            ));
        }
        let word = class.word();
        if pattern.is_empty() {
            out(format!("All defined {word}:"));
        } else {
            out(format!(
                "All {word} matching regular expression \"{pattern}\":"
            ));
        }
        let matches = |n: &str| re.is_match(n);
        let mut with_debug: HashSet<String> = HashSet::new();
        for (d, _) in self.debug_objects() {
            match class {
                SymbolClass::Functions => {
                    for g in d.functions_by_file(matches) {
                        out(format!("\nFile {}:", g.file));
                        for f in g.entries {
                            with_debug.insert(f.name.clone());
                            let decl = die_type(&d, f.unit, f.offset)
                                .map(|r| {
                                    let ty = cohort_dwarf::dietypes::type_of(&d, r);
                                    typeprint::declaration(&ty, &f.name, Language::C)
                                })
                                .unwrap_or_else(|| f.name.clone());
                            let st = if f.external { "" } else { "static " };
                            out(format!("{}:\t{st}{decl};", f.decl_line));
                        }
                    }
                }
                SymbolClass::Variables => {
                    for g in d.variables_by_file(matches) {
                        out(format!("\nFile {}:", g.file));
                        for v in g.entries {
                            with_debug.insert(v.name.clone());
                            let decl = die_type(&d, v.unit, v.offset)
                                .map(|r| {
                                    let ty = cohort_dwarf::dietypes::type_of(&d, r);
                                    typeprint::declaration(&ty, &v.name, Language::C)
                                })
                                .unwrap_or_else(|| v.name.clone());
                            let st = if v.external { "" } else { "static " };
                            out(format!("{}:\t{st}{decl};", v.decl_line));
                        }
                    }
                }
                SymbolClass::Types => {
                    for g in d.types_by_file(matches) {
                        out(format!("\nFile {}:", g.file));
                        for t in g.entries {
                            let ty = die_type(&d, t.unit, t.offset)
                                .map(|r| cohort_dwarf::dietypes::type_of(&d, r));
                            let text = match (&ty, t.tag) {
                                (Some(ty), gimli::constants::DW_TAG_typedef) => {
                                    let target = match &ty.kind {
                                        cohort_dwarf::types::TypeKind::Typedef(l) => {
                                            typeprint::type_name(l.get())
                                        }
                                        _ => String::new(),
                                    };
                                    format!("typedef {target} {};", t.name)
                                }
                                (Some(ty), gimli::constants::DW_TAG_base_type) => {
                                    typeprint::type_name(ty)
                                }
                                (Some(ty), _) => format!("{};", typeprint::type_name(ty)),
                                (None, _) => t.name.clone(),
                            };
                            if t.decl_line == 0 {
                                out(format!("\t{text}"));
                            } else {
                                out(format!("{}:\t{text}", t.decl_line));
                            }
                        }
                    }
                }
            }
        }
        if nondebug {
            let want = match class {
                SymbolClass::Functions => SymKind::Function,
                _ => SymKind::Data,
            };
            let mut rows: Vec<(u64, String)> = Vec::new();
            for o in self.session.symbols().objects() {
                for s in o.file.symbols() {
                    if s.kind != want
                        || s.name.is_empty()
                        || with_debug.contains(&s.name)
                        || !re.is_match(&s.name)
                    {
                        continue;
                    }
                    rows.push((s.addr.wrapping_add(o.bias), s.name.clone()));
                }
            }
            rows.sort();
            rows.dedup();
            if !rows.is_empty() {
                out("\nNon-debugging symbols:");
                for (a, n) in rows {
                    out(format!("0x{a:016x}  {n}"));
                }
            }
        }
        Ok(Flow::Go)
    }
}
