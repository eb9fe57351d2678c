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

/// A regular expression as gdb's `info` commands read it: POSIX basic syntax (`\(`, `\{`,
/// `\|`, `\+` and `\?` are operators; plain `(`, `{`, `|`, `+`, `?` are literal), matched
/// anywhere in the text. Translated to the `regex` crate's syntax.
pub struct Regex(regex::Regex);

impl Regex {
    pub fn new(pattern: &str) -> std::result::Result<Regex, String> {
        let mut out = String::with_capacity(pattern.len() + 8);
        let mut it = pattern.chars().peekable();
        let mut in_set = false;
        while let Some(c) = it.next() {
            if in_set {
                // Bracket expressions read the same, except that a backslash is literal in
                // POSIX and `[` `&` `~` are special in the regex crate.
                match c {
                    ']' => {
                        in_set = false;
                        out.push(']');
                    }
                    '\\' | '[' | '&' | '~' => {
                        out.push('\\');
                        out.push(c);
                    }
                    _ => out.push(c),
                }
                continue;
            }
            match c {
                '\\' => match it.next() {
                    Some(o @ ('(' | ')' | '{' | '}' | '|' | '+' | '?')) => out.push(o),
                    Some(o) => {
                        out.push('\\');
                        out.push(o);
                    }
                    None => return Err("Trailing backslash".into()),
                },
                '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                    out.push('\\');
                    out.push(c);
                }
                '[' => {
                    in_set = true;
                    out.push('[');
                    if it.peek() == Some(&'^') {
                        it.next();
                        out.push('^');
                    }
                    if it.peek() == Some(&']') {
                        it.next();
                        out.push_str("\\]");
                    }
                }
                // A leading `*` is literal in POSIX basic syntax.
                '*' if out.is_empty() || out == "^" => out.push_str("\\*"),
                c => out.push(c),
            }
        }
        if in_set {
            return Err("Unmatched [, [^, [:, [., or [=".into());
        }
        regex::Regex::new(&out)
            .map(Regex)
            .map_err(|e| e.to_string())
    }

    /// As [`Regex::new`], ignoring case (gdb's `REG_ICASE` for case-insensitive languages).
    pub fn new_case_insensitive(pattern: &str) -> std::result::Result<Regex, String> {
        let r = Regex::new(pattern)?;
        regex::RegexBuilder::new(r.0.as_str())
            .case_insensitive(true)
            .build()
            .map(Regex)
            .map_err(|e| e.to_string())
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

fn die_type(d: &Arc<DebugFile>, unit: usize, off: gimli::UnitOffset) -> Option<DieRef> {
    let u = d.unit(unit).ok()?;
    off.to_debug_info_offset(&u.header).map(DieRef)
}

/// A function's declaration as `info functions` and `rbreak` print it (`static int
/// square(int);`).
pub(crate) fn function_declaration(
    d: &Arc<DebugFile>,
    f: &cohort_dwarf::index::FunctionEntry,
) -> String {
    let fortran = cohort_dwarf::scopes::unit_language(d, f.unit) == Language::Fortran;
    let decl = match die_type(d, f.unit, f.offset) {
        Some(r) if fortran => crate::fortran_info::function_text(d, r, &f.name),
        Some(r) => {
            let ty = cohort_dwarf::dietypes::type_of(d, r);
            typeprint::declaration(&ty, &f.name, Language::C)
        }
        None => f.name.clone(),
    };
    let st = if f.external || fortran { "" } else { "static " };
    format!("{st}{decl};")
}

impl Debugger {
    /// `info functions|variables|types [-q] [-n] [REGEX]`.
    pub(crate) fn cmd_info_symbols(&mut self, class: SymbolClass, arg: &str) -> Result<Flow> {
        let (flags, pattern) = info_options(arg, &["-n", "-q"]);
        let nondebug = class != SymbolClass::Types && !flags.contains(&"-n");
        // gdb matches case-insensitively while the language is (like Fortran) case-insensitive.
        let re = if self.language() == Language::Fortran {
            Regex::new_case_insensitive(&pattern)
        } else {
            Regex::new(&pattern)
        }
        .map_err(|e| EngineError::Other(format!("Invalid regexp: {e}")))?;
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
                            let fortran = cohort_dwarf::scopes::unit_language(&d, f.unit)
                                == Language::Fortran;
                            let die = die_type(&d, f.unit, f.offset);
                            let decl = match die {
                                // Fortran: gdb's Fortran type printer, `void outer::inner(void)`.
                                Some(r) if fortran => {
                                    crate::fortran_info::function_text(&d, r, &f.name)
                                }
                                Some(r) => {
                                    let ty = cohort_dwarf::dietypes::type_of(&d, r);
                                    typeprint::declaration(&ty, &f.name, Language::C)
                                }
                                None => f.name.clone(),
                            };
                            // gdb keeps every Fortran procedure global, external or not.
                            let st = if f.external || fortran { "" } else { "static " };
                            out(format!("{}:\t{st}{decl};", f.decl_line));
                        }
                    }
                }
                SymbolClass::Variables => {
                    // Fortran module variables are matched as `module::name` (as gdb names
                    // them): with modules, every variable is looked at.
                    let types = cohort_dwarf::dietypes::types(&d);
                    let members = &types.index().module_members;
                    let groups = if members.is_empty() {
                        d.variables_by_file(matches)
                    } else {
                        d.variables_by_file(|_| true)
                    };
                    for g in groups {
                        let mut lines = Vec::new();
                        for v in g.entries {
                            let r = die_type(&d, v.unit, v.offset);
                            let fortran = cohort_dwarf::scopes::unit_language(&d, v.unit)
                                == Language::Fortran;
                            let name = match r.and_then(|r| members.get(&r)) {
                                Some(m) if fortran => format!("{m}::{}", v.name),
                                _ => v.name.to_string(),
                            };
                            if !re.is_match(&name) {
                                continue;
                            }
                            with_debug.insert(v.name.to_string());
                            let decl = r
                                .map(|r| {
                                    let ty = cohort_dwarf::dietypes::type_of(&d, r);
                                    if fortran {
                                        cohort_fortran::declaration(&ty, &name)
                                    } else {
                                        typeprint::declaration(&ty, &v.name, Language::C)
                                    }
                                })
                                .unwrap_or_else(|| v.name.to_string());
                            let st = if v.external { "" } else { "static " };
                            lines.push(format!("{}:\t{st}{decl};", v.decl_line));
                        }
                        if !lines.is_empty() {
                            out(format!("\nFile {}:", g.file));
                            for l in lines {
                                out(l);
                            }
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
                                (None, _) => t.name.to_string(),
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
                    // gdb lists and matches symbols by the name it shows (`cnt.1` is `cnt`).
                    let name = s.print_name();
                    if s.kind != want
                        || name.is_empty()
                        || with_debug.contains(name)
                        || !re.is_match(name)
                    {
                        continue;
                    }
                    // As gdb: a function symbol inside a unit with debug information is not a
                    // non-debugging symbol (Fortran's `inner.0`, `__mod_MOD_proc`, whose
                    // debug names differ). Only Fortran units, to keep C listings as they are.
                    if want == SymKind::Function
                        && let Some(d) = self.debug_for(s.addr.wrapping_add(o.bias)).map(|(d, _)| d)
                        && let Some(u) = d.unit_for_pc(s.addr)
                        && cohort_dwarf::scopes::unit_language(&d, u) == Language::Fortran
                    {
                        continue;
                    }
                    rows.push((s.addr.wrapping_add(o.bias), name.to_string()));
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

impl Debugger {
    /// `info symbol ADDR`: the ELF symbol containing the address and its section.
    pub(crate) fn cmd_info_symbol(&mut self, arg: &str) -> Result<Flow> {
        let a = arg.trim();
        if a.is_empty() {
            return Err(EngineError::Other("Argument required (address).".into()));
        }
        let addr = self.address_of_expr(a)?;
        let syms = self.session.symbols();
        let multi = syms.objects().count() > 1;
        let Some((obj, sym, off)) = syms.symbolize_parts(addr) else {
            // gdb says so on stdout: not an error.
            out(format!("No symbol matches {a}."));
            return Ok(Flow::Go);
        };
        let sec = obj
            .file
            .section_containing(addr.wrapping_sub(obj.bias))
            .map(|s| s.name.clone())
            .unwrap_or_default();
        // A C++ symbol by its demangled name, as gdb's minimal symbols show it (else from the
        // debug information: the function whose entry it is, or a variable's plain name).
        // (`set print demangle off`: the symbol as it is.)
        let demangle = self.settings.on("print demangle");
        let name = match demangle && sym.name.starts_with("_Z") {
            true => cohort_dwarf::demangle::demangle(&sym.name)
                .or_else(|| {
                    self.value_symbol(addr.wrapping_sub(off))
                        .filter(|n| !n.starts_with("_Z") && !n.contains('+'))
                })
                .unwrap_or_else(|| sym.print_name().to_string()),
            false => sym.print_name().to_string(),
        };
        let mut s = if off == 0 {
            format!("{name} in section {sec}")
        } else {
            format!("{name} + {off} in section {sec}")
        };
        if multi {
            s.push_str(&format!(" of {}", obj.file.path.display()));
        }
        out(s);
        Ok(Flow::Go)
    }

    /// `info address NAME` for globals and functions.
    pub(crate) fn cmd_info_address(&mut self, arg: &str) -> Result<Flow> {
        let name = arg.trim();
        if name.is_empty() {
            return Err(EngineError::Other("Argument required.".into()));
        }
        // Fortran matches a name in any case (`info address qtab` finds C's `QTAB`), and
        // names the symbol as it is spelled.
        let mut names = vec![name.to_string()];
        if self.language() == Language::Fortran {
            for n in [name.to_ascii_lowercase(), name.to_ascii_uppercase()] {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        let found = names.iter().find_map(|n| {
            self.session.symbols().objects().find_map(|o| {
                o.file
                    .lookup_exact(n)
                    .map(|s| ((s.addr.wrapping_add(o.bias), s.kind), n.clone()))
            })
        });
        let spelled = found.as_ref().map_or(name.to_string(), |(_, n)| n.clone());
        let name = spelled.as_str();
        let elf = found.map(|(e, _)| e);
        let mut debug_fn = false;
        let mut debug_var = false;
        for (d, _) in self.debug_objects() {
            debug_fn |= d.functions_named(name).iter().any(|f| !f.inlined_copy);
            debug_var |= !d.variables_named(name).is_empty();
        }
        match elf {
            Some((a, _)) if debug_fn => out(format!(
                "Symbol \"{name}\" is a function at address {a:#x}."
            )),
            Some((a, _)) if debug_var => out(format!(
                "Symbol \"{name}\" is static storage at address {a:#x}."
            )),
            Some((a, _)) => out(format!(
                "Symbol \"{name}\" is at {a:#x} in a file compiled without debugging."
            )),
            // gdb names a PLT entry by its function.
            None if let Some(a) = self.session.symbols().lookup(&format!("{name}@plt")) => out(
                format!("Symbol \"{name}\" is at {a:#x} in a file compiled without debugging."),
            ),
            None => {
                return Err(EngineError::Other(format!(
                    "No symbol \"{name}\" in current context."
                )));
            }
        }
        Ok(Flow::Go)
    }

    /// `info line [FUNCTION|*ADDR]`: the address range of a line.
    pub(crate) fn cmd_info_line(&mut self, arg: &str) -> Result<Flow> {
        let a = arg.trim();
        let pc = if a.is_empty() {
            let cur = self.current_source();
            let Some((file, _, line)) = cur else {
                return Err(EngineError::Other(
                    "No line number information available.".into(),
                ));
            };
            self.first_address_of_line(&file, line)
        } else if let Some(x) = a.strip_prefix('*') {
            Some(self.address_of_expr(x.trim())?)
        } else if let Some((file, line)) = self.file_line_spec(a) {
            match self.first_address_of_line(&file, line) {
                Some(pc) if line > 0 => Some(pc),
                _ => return self.info_line_without_code(&file, line),
            }
        } else {
            let mut found = None;
            for (d, bias) in self.debug_objects() {
                if let Some(f) = d.functions_named(a).into_iter().find(|f| !f.inlined_copy) {
                    found = f.entry_pc().map(|p| p.wrapping_add(bias));
                    break;
                }
            }
            if found.is_none() {
                // A function known only to the ELF symbols (of a library with its own line
                // information, found through the symbol).
                found = self.session.symbols().lookup(a);
            }
            if found.is_none() {
                return Err(EngineError::Other(format!("Function \"{a}\" not defined.")));
            }
            found
        };
        let Some(pc) = pc else {
            return Err(EngineError::Other(
                "No line number information available.".into(),
            ));
        };
        match self.line_at(pc) {
            Some(l) if l.line != 0 => {
                let start = self.address_with_symbol(l.start);
                let end = self.address_with_symbol(l.end);
                out(format!(
                    "Line {} of \"{}\" starts at address {start} and ends at {end}.",
                    l.line, l.name
                ));
                self.set_next_address(l.start);
            }
            _ if pc == 0 => out("No line number information available."),
            _ => out(format!(
                "No line number information available for address {}",
                self.address_with_symbol(pc)
            )),
        }
        Ok(Flow::Go)
    }

    /// `LINE` (in the default source file) or `FILE:LINE`: the file's full path and the line.
    fn file_line_spec(&self, spec: &str) -> Option<(std::path::PathBuf, u32)> {
        let spec = self.qualify_linespec(spec);
        let (f, l) = spec.rsplit_once(':')?;
        let line = l.trim().parse::<u32>().ok()?;
        self.debug_objects().into_iter().find_map(|(d, _)| {
            d.source_files()
                .into_iter()
                .find(|(name, full)| cohort_dwarf::lines::file_matches(name, full, f))
                .map(|(_, full)| (full, line))
        })
    }

    /// `info line FILE:LINE` for a line with no code: gdb takes the next line that has some
    /// (`Line 20 of "f.c" is at address … but contains no code.`), or says the line is past
    /// the file's.
    fn info_line_without_code(&mut self, file: &std::path::Path, line: u32) -> Result<Flow> {
        let mut name = None;
        let mut next: Option<u32> = None;
        for (d, _) in self.debug_objects() {
            for ui in 0..d.units.len() {
                let Ok(lines) = d.unit_lines(ui) else {
                    continue;
                };
                for s in lines.subfiles.iter().filter(|s| s.full == file) {
                    name.get_or_insert_with(|| s.name.to_string());
                    for r in s.rows.iter().filter(|r| r.line > line) {
                        next = Some(next.map_or(r.line, |n| n.min(r.line)));
                    }
                }
            }
        }
        let name = name.unwrap_or_else(|| file.display().to_string());
        match next.and_then(|n| self.first_address_of_line(file, n)) {
            Some(pc) if line > 0 => {
                out(format!(
                    "Line {line} of \"{name}\" is at address {} but contains no code.",
                    self.address_with_symbol(pc)
                ));
                self.set_next_address(pc);
            }
            _ => out(format!(
                "Line number {line} is out of range for \"{name}\"."
            )),
        }
        Ok(Flow::Go)
    }

    /// The lowest address of a line-table row for `line` of `file` (gdb's `find_line_pc`).
    fn first_address_of_line(&self, file: &std::path::Path, line: u32) -> Option<u64> {
        let mut best: Option<u64> = None;
        for (d, bias) in self.debug_objects() {
            for ui in 0..d.units.len() {
                let Ok(lines) = d.unit_lines(ui) else {
                    continue;
                };
                for s in lines.subfiles.iter().filter(|s| s.full == file) {
                    for r in s.rows.iter().filter(|r| r.line == line) {
                        let a = r.address.wrapping_add(bias);
                        best = Some(best.map_or(a, |b| b.min(a)));
                    }
                }
            }
        }
        best
    }
}

/// The leading options of an `info` command that takes a pattern (`-q`, `-n`, … among
/// `known`, up to `--` or the first other word), and the pattern: the rest.
pub(crate) fn info_options<'a>(arg: &'a str, known: &[&str]) -> (Vec<&'a str>, String) {
    let mut words = arg.split_whitespace().peekable();
    let mut flags = Vec::new();
    while let Some(&w) = words.peek() {
        if w == "--" {
            words.next();
            break;
        }
        if !known.contains(&w) {
            break;
        }
        flags.push(w);
        words.next();
    }
    (flags, words.collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::Regex;

    #[test]
    fn regex_basics() {
        let m = |p: &str, t: &str| Regex::new(p).unwrap().is_match(t);
        assert!(m("widget_", "gadget_widget_make"));
        assert!(m("^gadget", "gadget_make"));
        assert!(!m("^gadget", "a_gadget"));
        assert!(m("_make$", "widget_make"));
        assert!(!m("_make$", "widget_make2"));
        assert!(m("^w.*t$", "widget_count"));
        assert!(m("^[a-c]x", "bx"));
        assert!(!m("^[^a-c]x", "bx"));
        assert!(m("", "anything"));
        assert!(m("^_init$", "_init"));
        // POSIX basic syntax: groups and alternation are escaped, plain ones are literal.
        assert!(m("^a\\(b\\|c\\)$", "ac"));
        assert!(m("f(x)", "f(x)"));
        assert!(m("a+b", "a+b"));
        assert!(!m("a+b", "aab"));
        assert!(m("*x", "*x"));
        assert!(m("libc\\.so", "/lib/libc.so.6"));
        assert!(!m("libc\\.so", "/lib/libcXso.6"));
    }
}
