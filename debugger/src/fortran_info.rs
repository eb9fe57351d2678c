//! Fortran `info` commands, as gdb 13 prints them: `info common [NAME]`, `info modules
//! [REGEXP]`, `info module variables|functions [-q] [-m MODREGEXP] [-t TYPEREGEXP]
//! [REGEXP]`.

use std::sync::Arc;

use cohort_dwarf::dietypes::{self, read_die, read_tree};
use cohort_dwarf::format::FormatOptions;
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::types::DieRef;
use cohort_engine::{EngineError, Result};
use gimli::constants as dw;

use crate::debugger::{Debugger, Flow, out};
use crate::symtab_info::Regex;

/// One member of a module in `info module variables|functions`.
struct Row {
    file: String,
    module: String,
    external: bool,
    /// `module::name`
    qualified: String,
    line: u64,
    text: String,
}

/// gdb matches Fortran names case-insensitively.
fn regex(p: &str) -> Result<Regex> {
    Regex::new_case_insensitive(p).map_err(|e| EngineError::Other(format!("Invalid regexp: {e}")))
}

/// The text gdb prints for a Fortran procedure: `real(kind=8) geometry::area(real(kind=8))`,
/// `void outer::inner(void)`.
pub(crate) fn function_text(d: &Arc<DebugFile>, die: DieRef, qualified: &str) -> String {
    let Ok(t) = read_tree(d, die, 1) else {
        return qualified.to_string();
    };
    let ret = t
        .reference(d, dw::DW_AT_type)
        .map(|r| cohort_fortran::whatis(&dietypes::type_of(d, r)))
        .unwrap_or_else(|| "void".into());
    let params: Vec<String> = t
        .children
        .iter()
        .filter(|c| c.tag == dw::DW_TAG_formal_parameter)
        .map(|c| match c.reference(d, dw::DW_AT_type) {
            Some(r) => cohort_fortran::whatis(&dietypes::type_of(d, r)),
            None => "void".into(),
        })
        .collect();
    if params.is_empty() {
        // gdb's Fortran types of procedures are prototyped.
        return format!("{ret} {qualified}(void)");
    }
    format!("{ret} {qualified}({})", params.join(", "))
}

impl Debugger {
    /// `info common [NAME]`: the common blocks of the selected frame's procedure.
    pub(crate) fn cmd_info_common(&mut self, arg: &str) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::Other("No frame selected".into()));
        }
        let frames = self.frames(usize::MAX);
        let idx = self.selected_frame();
        let Some(frame) = frames.get(idx) else {
            return Err(EngineError::Other("No frame selected".into()));
        };
        let Some((d, _, scope)) = self.scope_of(frame) else {
            out("No symbol table info available.");
            return Ok(Flow::Go);
        };
        let wanted = arg.trim();
        let mut printed = false;
        let opts = FormatOptions::default();
        for fs in &scope.frames {
            for c in &fs.commons {
                if !wanted.is_empty() && c.name != wanted {
                    continue;
                }
                if printed {
                    out("");
                }
                printed = true;
                out(format!("Contents of F77 COMMON block '{}':", c.name));
                for m in &c.members {
                    let s = self.listed_value(&d, m, &frames, idx, &opts);
                    out(format!("{} = {s}", m.name));
                }
            }
            // gdb stops at the procedure's own block.
            if !fs.inlined {
                break;
            }
        }
        if !printed {
            if wanted.is_empty() {
                out("No common blocks.");
            } else {
                out(format!("No common block '{wanted}'."));
            }
        }
        Ok(Flow::Go)
    }

    /// `info modules [-q] [REGEXP]`.
    pub(crate) fn cmd_info_modules(&mut self, arg: &str) -> Result<Flow> {
        let (_, pattern) = crate::symtab_info::info_options(arg, &["-q"]);
        let re = regex(&pattern)?;
        if pattern.is_empty() {
            out("All defined modules:");
        } else {
            out(format!(
                "All modules matching regular expression \"{pattern}\":"
            ));
        }
        let mut rows: Vec<(String, String, u64)> = Vec::new();
        for (d, _) in self.debug_objects() {
            let types = dietypes::types(&d);
            for m in &types.index().modules {
                if m.declaration || !re.is_match(&m.name) {
                    continue;
                }
                rows.push((d.unit_display_name(m.unit), m.name.clone(), m.decl_line));
            }
        }
        rows.sort();
        rows.dedup();
        let mut last_file: Option<&str> = None;
        for (file, name, line) in &rows {
            if last_file != Some(file.as_str()) {
                out(format!("\nFile {file}:"));
                last_file = Some(file);
            }
            out(format!("{line}:\t{name}"));
        }
        Ok(Flow::Go)
    }

    /// `info module variables|functions [-q] [-m MODREGEXP] [-t TYPEREGEXP] [REGEXP]`.
    pub(crate) fn cmd_info_module(&mut self, arg: &str) -> Result<Flow> {
        let (what, rest) = match arg.find(char::is_whitespace) {
            Some(i) => (&arg[..i], arg[i..].trim()),
            None => (arg, ""),
        };
        let functions = match what {
            "functions" | "function" | "fu" | "func" => true,
            "variables" | "variable" | "va" | "var" => false,
            _ => {
                return Err(EngineError::Other(format!(
                    "Undefined info module command: \"{arg}\".  Try \"help info module\"."
                )));
            }
        };
        let mut module_re: Option<String> = None;
        let mut type_re: Option<String> = None;
        let mut words = rest.split_whitespace().peekable();
        while let Some(w) = words.peek().copied() {
            match w {
                "-q" => {
                    words.next();
                }
                "-m" | "-t" => {
                    words.next();
                    let Some(v) = words.next() else {
                        return Err(EngineError::Other(format!(
                            "Missing argument for \"{w}\" option."
                        )));
                    };
                    if w == "-m" {
                        module_re = Some(v.to_string());
                    } else {
                        type_re = Some(v.to_string());
                    }
                }
                "--" => {
                    words.next();
                    break;
                }
                _ => break,
            }
        }
        let pattern = words.collect::<Vec<_>>().join(" ");
        let pattern = (!pattern.is_empty()).then_some(pattern);
        let kind = if functions { "functions" } else { "variables" };
        let mut head = format!("All {kind}");
        match (&pattern, &type_re, &module_re) {
            (None, None, None) => head.push_str(" in all modules:"),
            (Some(r), None, None) => head.push_str(&format!(
                " matching regular expression \"{r}\" in all modules:"
            )),
            (None, Some(t), None) => head.push_str(&format!(
                " with type matching regular expression \"{t}\" in all modules:"
            )),
            (Some(r), Some(t), None) => head.push_str(&format!(
                " matching regular expression \"{r}\",\n\twith type matching regular \
                 expression \"{t}\" in all modules:"
            )),
            (None, None, Some(m)) => head.push_str(&format!(
                " in all modules matching regular expression \"{m}\":"
            )),
            (Some(r), None, Some(m)) => head.push_str(&format!(
                " matching regular expression \"{r}\",\n\tin all modules matching regular \
                 expression \"{m}\":"
            )),
            (None, Some(t), Some(m)) => head.push_str(&format!(
                " with type matching regular expression \"{t}\"\n\tin all modules matching \
                 regular expression \"{m}\":"
            )),
            (Some(r), Some(t), Some(m)) => head.push_str(&format!(
                " matching regular expression \"{r}\",\n\twith type matching regular \
                 expression \"{t}\",\n\tin all modules matching regular expression \"{m}\":"
            )),
        }
        out(head);
        let re = regex(pattern.as_deref().unwrap_or(""))?;
        let mre = regex(module_re.as_deref().unwrap_or(""))?;
        let tre = regex(type_re.as_deref().unwrap_or(""))?;
        let mut rows: Vec<Row> = Vec::new();
        for (d, _) in self.debug_objects() {
            let types = dietypes::types(&d);
            let idx = types.index();
            for (die, module) in &idx.module_members {
                if !mre.is_match(module) {
                    continue;
                }
                let Ok(m) = read_die(&d, *die) else { continue };
                let is_fn = m.tag == dw::DW_TAG_subprogram;
                let is_var = matches!(m.tag, dw::DW_TAG_variable | dw::DW_TAG_constant);
                if (functions && !is_fn) || (!functions && !is_var) {
                    continue;
                }
                if m.flag(dw::DW_AT_declaration) {
                    continue;
                }
                let Some(name) = m.name(&d) else { continue };
                let qualified = format!("{module}::{name}");
                if !re.is_match(&qualified) {
                    continue;
                }
                let text = if is_fn {
                    function_text(&d, *die, &qualified)
                } else {
                    let ty = match m.reference(&d, dw::DW_AT_type) {
                        Some(r) => dietypes::type_of(&d, r),
                        None => continue,
                    };
                    if type_re.is_some() && !tre.is_match(&cohort_fortran::whatis(&ty)) {
                        continue;
                    }
                    cohort_fortran::declaration(&ty, &qualified)
                };
                rows.push(Row {
                    file: d.unit_display_name(m.unit),
                    module: module.clone(),
                    external: m.flag(dw::DW_AT_external),
                    qualified,
                    line: m.udata(dw::DW_AT_decl_line).unwrap_or(0),
                    text,
                });
            }
        }
        // gdb sorts by module (file, name), then by symbol (file, block, name).
        rows.sort_by(|a, b| {
            (&a.module, &a.file, !a.external, &a.qualified).cmp(&(
                &b.module,
                &b.file,
                !b.external,
                &b.qualified,
            ))
        });
        let mut last_module: Option<&str> = None;
        let mut last_file: Option<&str> = None;
        for r in &rows {
            if last_module != Some(r.module.as_str()) {
                out(format!("\nModule \"{}\":", r.module));
                last_module = Some(&r.module);
                last_file = None;
            }
            if last_file != Some(r.file.as_str()) {
                out(format!("\nFile {}:", r.file));
                last_file = Some(&r.file);
            }
            let st = if r.external { "" } else { "static " };
            out(format!("{}:\t{st}{};", r.line, r.text));
        }
        Ok(Flow::Go)
    }
}
