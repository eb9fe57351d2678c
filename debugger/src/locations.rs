//! Linespecs as gdb reads them — `FUNCTION`, `FILE:LINE`, `FILE:FUNCTION`, `LINE` — resolved
//! against the debug information of every loaded object (ELF symbols as the fallback), and
//! the breakpoint commands that use them.

use std::sync::Arc;

use cohort_dwarf::lines::LineMatch;
use cohort_dwarf::loader::DebugFile;
use cohort_engine::session::BpSpec;
use cohort_engine::symbols::SymbolTable;
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

/// One resolved location (run-time address).
#[derive(Debug, Clone)]
pub struct Loc {
    pub addr: u64,
    /// Display name of the file and the line, when there is line information.
    pub file: Option<(String, u32)>,
}

fn debug_files(symbols: &SymbolTable) -> Vec<(Arc<DebugFile>, u64)> {
    symbols
        .objects()
        .filter_map(|o| {
            DebugFile::load(&o.file.path)
                .ok()
                .filter(|d| d.has_debug_info())
                .map(|d| (d, o.bias))
        })
        .collect()
}

/// `break NAME` in one object: a C++ name with a parameter list (`f(double)`, `A::f(int)
/// const`) names the overloads whose signature it is; a plain name, every function so named.
fn locations_for_name(d: &Arc<DebugFile>, name: &str) -> Vec<LineMatch> {
    let name = name.trim();
    let name = name
        .strip_prefix('\'')
        .and_then(|n| n.strip_suffix('\''))
        .unwrap_or(name);
    cohort_dwarf::cxxname::locations_for_signature(d, name)
        .unwrap_or_else(|| d.breakpoint_locations_for_name(name))
}

fn loc_of(m: LineMatch, bias: u64) -> Loc {
    Loc {
        addr: m.address.wrapping_add(bias),
        file: (m.actual_line != 0).then_some((m.name, m.actual_line)),
    }
}

/// `FILE:REST` of a linespec: split at the first `:` that is not part of a C++ scope
/// operator (`Counter::add` has no file; `f.cc:Counter::add` has one).
pub(crate) fn split_file(text: &str) -> Option<(&str, &str)> {
    let b = text.as_bytes();
    let i = (0..b.len()).find(|&i| {
        b.get(i) == Some(&b':')
            && b.get(i + 1) != Some(&b':')
            && (i == 0 || b.get(i - 1) != Some(&b':'))
    })?;
    Some((text.get(..i)?, text.get(i + 1..)?))
}

/// gdb's error for a location when no program is loaded (a location not found: `break`
/// offers to make it pending).
pub(crate) const NO_SYMBOL_TABLE: &str = "No symbol table is loaded.  Use the \"file\" command.";

/// Resolve a linespec. `Err` carries gdb's message (`Function "x" not defined.`,
/// `No source file named f.c.`, `No line 99 in file "f.c".`).
pub fn resolve(symbols: &SymbolTable, text: &str) -> std::result::Result<Vec<Loc>, String> {
    let explicit = explicit_to_linespec(text.trim());
    let text = explicit.as_deref().unwrap_or(text.trim());
    // `-probe-stap PROVIDER:NAME`: SystemTap probes (libstdc++'s `libstdcxx:throw`, where
    // `catch throw` stops).
    if let Some(p) = text.strip_prefix("-probe-stap ") {
        let (provider, name) = p.trim().split_once(':').unwrap_or(("", p.trim()));
        let locs: Vec<Loc> = symbols
            .objects()
            .flat_map(|o| {
                o.file
                    .stap_probes(provider, name)
                    .into_iter()
                    .map(|a| Loc {
                        addr: a.wrapping_add(o.bias),
                        file: None,
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        if locs.is_empty() {
            return Err(format!(
                "No probe matching objfile=`', provider=`{provider}', name=`{name}'"
            ));
        }
        return Ok(locs);
    }
    let objs = debug_files(symbols);
    if let Some((file, rest)) = split_file(text)
        && !file.is_empty()
    {
        let rest = rest.trim();
        if let Ok(line) = rest.parse::<u32>() {
            let mut out = Vec::new();
            let mut err = None;
            for (d, bias) in &objs {
                match d.addresses_for_line(file, line) {
                    Ok(v) => out.extend(v.into_iter().map(|m| loc_of(m, *bias))),
                    Err(e) => {
                        if err.is_none() || !e.to_string().starts_with("No source file") {
                            err = Some(e.to_string());
                        }
                    }
                }
            }
            if out.is_empty() {
                return Err(err.unwrap_or_else(|| format!("No source file named {file}.")));
            }
            return Ok(out);
        }
        // FILE:FUNCTION
        let mut out = Vec::new();
        let file_known = objs.iter().any(|(d, _)| d.has_source_file(file));
        // FUNCTION:LABEL
        if !file_known && let Some(r) = resolve_label(&objs, file, rest) {
            return r;
        }
        for (d, bias) in &objs {
            for m in locations_for_name(d, rest) {
                if cohort_dwarf::lines::file_matches(&m.name, &m.file, file) {
                    out.push(loc_of(m, *bias));
                }
            }
        }
        if out.is_empty() {
            return Err(if file_known {
                format!("Function \"{rest}\" not defined in \"{file}\".")
            } else {
                format!("No source file named {file}.")
            });
        }
        return Ok(out);
    }
    let mut out = Vec::new();
    for (d, bias) in &objs {
        out.extend(
            locations_for_name(d, text)
                .into_iter()
                .map(|m| loc_of(m, *bias)),
        );
    }
    if !out.is_empty() {
        return Ok(out);
    }
    // An ELF symbol at the start of a function with debug information under another name
    // (gfortran's `MAIN__` is the program `hosted`): that function after its prologue, with
    // its line, as gdb's breakpoints on minimal symbols are.
    if let Some(addr) = symbols.lookup(text) {
        for (d, bias) in &objs {
            let pc = addr.wrapping_sub(*bias);
            let Some(f) = d
                .function_containing(pc)
                .filter(|f| f.entry_pc() == Some(pc))
            else {
                continue;
            };
            let locs: Vec<Loc> = locations_for_name(d, &f.name)
                .into_iter()
                .filter(|m| f.contains(m.address))
                .map(|m| loc_of(m, *bias))
                .collect();
            if !locs.is_empty() {
                return Ok(locs);
            }
        }
    }
    // ELF symbols: after the standard frame setup, as without debug info.
    if let Some(addr) = symbols.lookup(text) {
        let mut code = [0u8; 16];
        let skip = if symbols.read_file_bytes(addr, &mut code) {
            (cohort_engine::arch::native().skip_prologue)(&code)
        } else {
            0
        };
        return Ok(vec![Loc {
            addr: addr + skip as u64,
            file: None,
        }]);
    }
    Err(format!("Function \"{}\" not defined.", unquoted(text)))
}

/// `'int twice<int>(int)'` → `int twice<int>(int)`: gdb names a quoted function without
/// its quotes.
pub(crate) fn unquoted(name: &str) -> &str {
    name.strip_prefix('\'')
        .and_then(|n| n.strip_suffix('\''))
        .unwrap_or(name)
}

/// gdb's explicit location (`-function F -label L`, `-source S -line N`) as a linespec; None
/// for a linespec.
pub(crate) fn explicit_to_linespec(text: &str) -> Option<String> {
    if !text.starts_with('-') {
        return None;
    }
    let (mut source, mut function, mut label, mut line) = (None, None, None, None);
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        let slot = match w {
            "-source" => &mut source,
            "-function" => &mut function,
            "-label" => &mut label,
            "-line" => &mut line,
            "-qualified" => continue,
            _ => return None,
        };
        *slot = Some(words.next()?);
    }
    let mut out = String::new();
    if let Some(s) = source {
        out.push_str(s);
        out.push(':');
    }
    match (function, label, line) {
        (Some(f), Some(l), _) => out.push_str(&format!("{f}:{l}")),
        (Some(f), None, _) => out.push_str(f),
        (None, None, Some(n)) => out.push_str(n),
        _ => return None,
    }
    Some(out)
}

/// Whether a breakpoint's location text names a label (`scan:again`, `-function scan -label
/// again`): gdb shows such a breakpoint by its location text.
pub(crate) fn is_label_spec(symbols: &SymbolTable, text: &str) -> bool {
    let explicit = explicit_to_linespec(text.trim());
    let text = explicit.as_deref().unwrap_or(text.trim());
    let Some((func, label)) = split_file(text) else {
        return false;
    };
    let objs = debug_files(symbols);
    let file_known = objs.iter().any(|(d, _)| d.has_source_file(func));
    !file_known && matches!(resolve_label(&objs, func, label.trim()), Some(Ok(_)))
}

/// `FUNCTION:LABEL`: the labels named so in the functions named so; None when no function
/// has that name.
fn resolve_label(
    objs: &[(Arc<DebugFile>, u64)],
    func: &str,
    label: &str,
) -> Option<std::result::Result<Vec<Loc>, String>> {
    let mut any = false;
    let mut out = Vec::new();
    for (d, bias) in objs {
        for f in d.functions_named(func) {
            if f.inlined_copy {
                continue;
            }
            any = true;
            let Ok(tree) = cohort_dwarf::dietypes::read_tree_at(d, f.unit, Some(f.offset), 64)
            else {
                continue;
            };
            find_labels(d, &tree, label, *bias, &mut out);
        }
    }
    if !any {
        return None;
    }
    if out.is_empty() {
        return Some(Err(format!(
            "No label \"{label}\" defined in function \"{func}\"."
        )));
    }
    Some(Ok(out))
}

/// The `DW_TAG_label`s named `name` under `die` (its lexical blocks included, not nested
/// functions or inlined calls).
fn find_labels(
    d: &DebugFile,
    die: &cohort_dwarf::dietypes::Die,
    name: &str,
    bias: u64,
    out: &mut Vec<Loc>,
) {
    use gimli::{AttributeValue, constants as dw};
    for c in &die.children {
        match c.tag {
            dw::DW_TAG_label => {
                let Ok(unit) = d.unit(c.unit) else { continue };
                let named = c
                    .attr(dw::DW_AT_name)
                    .and_then(|v| d.dwarf.attr_string(unit, *v).ok())
                    .is_some_and(|n| n.slice() == name.as_bytes());
                let addr = match c.attr(dw::DW_AT_low_pc) {
                    Some(AttributeValue::Addr(a)) => Some(*a),
                    Some(AttributeValue::DebugAddrIndex(i)) => d.dwarf.address(unit, *i).ok(),
                    _ => None,
                };
                if !named {
                    continue;
                }
                let Some(addr) = addr else { continue };
                let line = match c.attr(dw::DW_AT_decl_line) {
                    Some(v) => v.udata_value().unwrap_or(0) as u32,
                    None => 0,
                };
                let file = c
                    .attr(dw::DW_AT_decl_file)
                    .and_then(|v| match v {
                        AttributeValue::FileIndex(i) => Some(*i),
                        v => v.udata_value(),
                    })
                    .and_then(|i| cohort_dwarf::scopes::file_name(d, c.unit, i));
                out.push(Loc {
                    addr: addr.wrapping_add(bias),
                    file: file.filter(|_| line != 0).map(|f| (f, line)),
                });
            }
            dw::DW_TAG_lexical_block => find_labels(d, c, name, bias, out),
            _ => {}
        }
    }
}

/// The resolver the session calls when symbols change (library loads, program start).
pub fn session_resolver() -> cohort_engine::session::LocationResolver {
    Box::new(|text, symbols| {
        resolve(symbols, text)
            .map(|v| v.into_iter().map(|l| l.addr).collect())
            .unwrap_or_default()
    })
}

impl Debugger {
    /// Run-time addresses of a linespec (for `until`/`advance`), `LINE` meaning a line of the
    /// current source file.
    pub(crate) fn resolve_location(&self, text: &str) -> Result<Vec<u64>> {
        let spec = self.qualify_linespec(text);
        resolve(self.session.symbols(), &spec)
            .map(|v| v.into_iter().map(|l| l.addr).collect())
            .map_err(EngineError::Other)
    }

    /// `LINE` → `FILE:LINE` with the default source file (the last listed or stopped at, else
    /// the file of `main`).
    pub(crate) fn qualify_linespec(&self, text: &str) -> String {
        let t = text.trim();
        if t.parse::<u32>().is_ok()
            && let Some(f) = self.default_source_file()
        {
            return format!("{f}:{t}");
        }
        t.to_string()
    }

    /// The default source file's display name.
    pub(crate) fn default_source_file(&self) -> Option<String> {
        if let Some((_, name, _)) = self.current_source() {
            return Some(name);
        }
        if self.session.is_running() {
            let pc = self.session.registers(false).ok()?.pc();
            if let Some(l) = self.line_at(pc) {
                return Some(l.name.to_string());
            }
        }
        let main = resolve(self.session.symbols(), "main").ok()?;
        main.first()?.file.as_ref().map(|(f, _)| f.clone())
    }

    /// `break`/`tbreak LINESPEC [if COND]` with debug information. Returns `Ok(None)` when the
    /// spec is not a source location this layer handles (the caller falls back to symbols).
    pub(crate) fn break_source(&mut self, arg: &str, temporary: bool) -> Result<Option<Flow>> {
        let (spec, cond) = match arg.find(" if ") {
            Some(i) => (arg[..i].trim(), Some(arg[i + 4..].trim().to_string())),
            None if arg.starts_with("if ") => ("", Some(arg[3..].trim().to_string())),
            None => (arg.trim(), None),
        };
        if spec.is_empty() || spec.starts_with('*') {
            return Ok(None);
        }
        let mut text = self.qualify_linespec(spec);
        // `-label L` alone: a label of the selected frame's function.
        if spec.starts_with('-')
            && spec.contains("-label")
            && !spec.contains("-function")
            && let Some(func) = self.selected_function_name()
        {
            text = format!("-function {func} {spec}");
        }
        let what = if temporary {
            "Temporary breakpoint"
        } else {
            "Breakpoint"
        };
        let mut found = resolve(self.session.symbols(), &text);
        // `break LABEL`: a label of the selected frame's function.
        if found.is_err()
            && spec.chars().all(|c| c.is_alphanumeric() || c == '_')
            && let Some(func) = self.selected_function_name()
        {
            let t = format!("{func}:{spec}");
            if let Ok(locs) = resolve(self.session.symbols(), &t)
                && is_label_spec(self.session.symbols(), &t)
            {
                text = t;
                found = Ok(locs);
            }
        }
        match found {
            Ok(locs) => {
                if let Some(c) = &cond {
                    // gdb checks the condition parses in the location's scope first.
                    self.check_condition(c, locs.first().map(|l| l.addr))?;
                }
                let b = self
                    .session
                    .add_breakpoint(BpSpec::Location(text.clone()), temporary)?;
                if let Some(c) = cond {
                    self.session.set_condition(b.id, Some(c))?;
                }
                // gdb names several locations by the spec as typed; a bare line number by
                // the full path of the file it is in.
                let label = match (spec.parse::<u32>(), locs.first()) {
                    (Ok(line), Some(l)) => self
                        .line_at(l.addr)
                        .map(|s| format!("{}:{line}", s.file.display()))
                        .unwrap_or_else(|| text.clone()),
                    _ => spec.to_string(),
                };
                out(format!(
                    "{what} {} at {}",
                    b.id,
                    describe_locs(&locs, &label)
                ));
                Ok(Some(Flow::Go))
            }
            Err(msg) => {
                // gdb's words for a line of the default file, and for no program at all.
                let msg = if self.session.symbols().is_empty() {
                    NO_SYMBOL_TABLE.to_string()
                } else if let Ok(n) = spec.parse::<u32>() {
                    format!("No line {n} in the current file.")
                } else {
                    msg
                };
                if !self.ask_pending(&msg)? {
                    return Ok(Some(Flow::Go));
                }
                let b = self
                    .session
                    .add_breakpoint(BpSpec::Location(text.clone()), temporary)?;
                if let Some(c) = cond {
                    self.session.set_condition(b.id, Some(c))?;
                }
                out(format!("{what} {} ({text}) pending.", b.id));
                Ok(Some(Flow::Go))
            }
        }
    }

    /// gdb parses a condition in the scope of the breakpoint's location: a syntax error or
    /// a name unknown there (`No symbol "x" in current context.`) rejects it.
    pub(crate) fn check_condition(&self, c: &str, at: Option<u64>) -> Result<()> {
        // A condition on a Fortran location is Fortran: checked for syntax here (names are
        // looked up when it is evaluated, at the stop).
        let fortran = at
            .and_then(|a| {
                let (d, bias) = self.debug_for(a)?;
                let u = d.unit_for_pc(a.wrapping_sub(bias))?;
                Some(cohort_dwarf::scopes::unit_language(&d, u))
            })
            .is_some_and(|l| l == cohort_dwarf::format::Language::Fortran);
        if fortran {
            cohort_fortran::parse::parse(c).map_err(|e| EngineError::Other(e.to_string()))?;
            return Ok(());
        }
        let ctx = self.eval_ctx();
        let e =
            cohort_dwarf::expr::parse_in(c, &ctx).map_err(|e| EngineError::Other(e.to_string()))?;
        let mut names = Vec::new();
        expr_names(&e, &mut names);
        let scope = at.and_then(|a| {
            let (d, bias) = self.debug_for(a)?;
            cohort_dwarf::scopes::scope_at(&d, a.wrapping_sub(bias))
                .ok()
                .flatten()
        });
        for n in names {
            // The innermost function only: gdb's local look-up stops at an inlined
            // function's block (its caller's locals are not in scope there).
            let local = scope
                .as_ref()
                .and_then(|s| s.innermost())
                .is_some_and(|f| f.lookup(n).is_some());
            if local || self.global_name_known(n) {
                continue;
            }
            return Err(EngineError::Other(format!(
                "No symbol \"{n}\" in current context."
            )));
        }
        Ok(())
    }

    /// Whether `name` is a global or static variable, a function or an enumerator of some
    /// loaded object.
    fn global_name_known(&self, name: &str) -> bool {
        use cohort_dwarf::context::EvalContext;
        for (d, _) in self.debug_objects() {
            if cohort_dwarf::scopes::lookup_global(&d, name, None)
                .ok()
                .flatten()
                .is_some()
                || cohort_dwarf::scopes::function_by_name(&d, name)
                    .ok()
                    .flatten()
                    .is_some()
            {
                return true;
            }
        }
        if self.session.symbols().lookup(name).is_some()
            || self.session.symbols().data_symbol(name).is_some()
        {
            return true;
        }
        // Enumerators (the selected frame's locals may answer too: a rare false accept).
        self.eval_ctx()
            .lookup_variable(name)
            .ok()
            .flatten()
            .is_some()
    }

    /// `condition N [EXPR]`.
    pub(crate) fn cmd_condition(&mut self, arg: &str) -> Result<Flow> {
        let arg = arg.trim();
        let (num, expr) = match arg.split_once(char::is_whitespace) {
            Some((n, e)) => (n, e.trim()),
            None => (arg, ""),
        };
        if num.is_empty() {
            return Err(EngineError::Other(
                "Argument required (breakpoint number).".into(),
            ));
        }
        let id = self
            .bp_number(num)
            .ok_or_else(|| EngineError::Other(format!("Bad breakpoint argument: '{arg}'")))?;
        if !self.session.breakpoints().iter().any(|b| b.id == id) {
            return Err(EngineError::Other(format!("No breakpoint number {id}.")));
        }
        if expr.is_empty() {
            self.session.set_condition(id, None)?;
            if self.from_tty {
                out(format!("Breakpoint {id} now unconditional."));
            }
        } else {
            let at = self
                .session
                .breakpoints()
                .iter()
                .find(|b| b.id == id)
                .and_then(|b| b.addrs.first().copied());
            self.check_condition(expr, at)?;
            self.session.set_condition(id, Some(expr.to_string()))?;
        }
        Ok(Flow::Go)
    }

    /// `ignore N COUNT`.
    pub(crate) fn cmd_ignore(&mut self, arg: &str) -> Result<Flow> {
        let mut w = arg.split_whitespace();
        let (Some(n), Some(c)) = (w.next(), w.next()) else {
            return Err(EngineError::Other(
                "Argument required (a breakpoint number).".into(),
            ));
        };
        let id = self
            .bp_number(n)
            .ok_or_else(|| EngineError::Other(format!("Bad breakpoint argument: '{n}'")))?;
        let count: u64 = c
            .parse()
            .map_err(|_| EngineError::Other(format!("No symbol \"{c}\" in current context.")))?;
        if !self.session.breakpoints().iter().any(|b| b.id == id) {
            return Err(EngineError::Other(format!("No breakpoint number {id}.")));
        }
        self.session.set_ignore(id, count)?;
        // gdb says so only to the user at the terminal (from_tty).
        if !self.from_tty {
            return Ok(Flow::Go);
        }
        match count {
            0 => out(format!("Will stop next time breakpoint {id} is reached.")),
            1 => out(format!("Will ignore next crossing of breakpoint {id}.")),
            n => out(format!(
                "Will ignore next {n} crossings of breakpoint {id}."
            )),
        }
        Ok(Flow::Go)
    }

    /// `in FUNC at FILE:LINE` for `info breakpoints`, or `<sym+off>` without line info.
    /// For a location of the breakpoint set at `spec`, gdb keeps the line it was resolved to
    /// (`break t.c:33` is at line 33 even where the line table names another line last at
    /// that address, as an -O2 loop's back edge does).
    /// The name of the selected frame's function, when the program runs.
    fn selected_function_name(&self) -> Option<String> {
        if !self.session.is_running() {
            return None;
        }
        let frames = self.frames(self.selected_frame() + 1);
        let f = frames.get(self.selected_frame())?;
        self.frame_function_name(f).0
    }

    /// The file (as gdb names it) and line of a location of the breakpoint set at `spec`: the
    /// line it was resolved to, else the line table's at `addr`.
    pub(crate) fn breakpoint_line(&self, spec: &BpSpec, addr: u64) -> Option<(String, u32)> {
        let resolved = match spec {
            BpSpec::Location(text) | BpSpec::Symbol(text) => resolve(self.session.symbols(), text)
                .ok()
                .and_then(|locs| locs.into_iter().find(|l| l.addr == addr))
                .and_then(|l| l.file),
            _ => None,
        };
        match (resolved, self.line_at(addr)) {
            (Some((name, line)), _) => Some((name, line)),
            (None, Some(l)) if l.line != 0 => Some((l.name.to_string(), l.line)),
            _ => None,
        }
    }

    pub(crate) fn breakpoint_what(&self, spec: &BpSpec, addr: u64) -> String {
        if let BpSpec::Location(text) = spec
            && is_label_spec(self.session.symbols(), text)
        {
            return text.clone();
        }
        if let Some((name, line)) = self.breakpoint_line(spec, addr) {
            let f = self.debug_for(addr).and_then(|(d, bias)| {
                let s = cohort_dwarf::scopes::scope_at(&d, addr.wrapping_sub(bias))
                    .ok()
                    .flatten()?;
                let f = &s.innermost()?.function;
                // `set print demangle off`: a C++ function's linkage name.
                if !self.settings.on("print demangle")
                    && let Some(l) = &f.linkage_name
                    && cohort_dwarf::scopes::unit_language(&d, f.unit)
                        == cohort_dwarf::format::Language::Cplus
                {
                    return Some(l.clone());
                }
                // A C++ function is named with its parameters (`f(double)`).
                Some(
                    cohort_dwarf::cxxname::physname(&d, f.die, &f.name)
                        .unwrap_or_else(|| f.name.clone()),
                )
            });
            return match f {
                Some(f) => format!("in {f} at {name}:{line}"),
                None => format!("at {name}:{line}"),
            };
        }
        self.session
            .symbolize(addr)
            .map(|s| format!("<{s}>"))
            .unwrap_or_default()
    }
}

/// The variable names an expression uses (not members, not types).
pub(crate) fn expr_names<'a>(e: &'a cohort_dwarf::expr::Expr, out: &mut Vec<&'a str>) {
    use cohort_dwarf::expr::Expr as E;
    match e {
        E::Name(n) => out.push(n),
        E::Unary(_, a) | E::Member(a, _, _) | E::Cast(_, a) | E::SizeOf(a) | E::AlignOf(a) => {
            expr_names(a, out)
        }
        E::Binary(_, a, b)
        | E::Logical(_, a, b)
        | E::Assign(_, a, b)
        | E::Comma(a, b)
        | E::Index(a, b)
        | E::At(a, b) => {
            expr_names(a, out);
            expr_names(b, out);
        }
        E::Ternary(a, b, c) => {
            expr_names(a, out);
            expr_names(b, out);
            expr_names(c, out);
        }
        E::Call(f, args) => {
            expr_names(f, out);
            for a in args {
                expr_names(a, out);
            }
        }
        _ => {}
    }
}

/// gdb's `0x1149: file t.c, line 5.` / `0x1149: f. (2 locations)` / `0x1139`: several
/// locations are named by `label` (gdb's location spec string).
fn describe_locs(locs: &[Loc], label: &str) -> String {
    match locs {
        [one] => match &one.file {
            Some((f, l)) => format!("{:#x}: file {f}, line {l}.", one.addr),
            None => format!("{:#x}", one.addr),
        },
        many => format!("{:#x}: {label}. ({} locations)", many[0].addr, many.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::split_file;

    #[test]
    fn file_part_of_linespecs() {
        assert_eq!(split_file("f.c:12"), Some(("f.c", "12")));
        assert_eq!(split_file("f.c:main"), Some(("f.c", "main")));
        assert_eq!(split_file("Counter::add"), None);
        assert_eq!(
            split_file("f.cc:Counter::add"),
            Some(("f.cc", "Counter::add"))
        );
        assert_eq!(split_file("main"), None);
    }
}
