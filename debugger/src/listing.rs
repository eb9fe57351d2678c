//! Source listing (`list`) and `info source`, following gdb's `list_command`: a current
//! source line (set by a stop, or by the last listing) and the first line last listed.

use std::path::{Path, PathBuf};

use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

/// A position in a source file: full path, display name, line.
type Pos = (PathBuf, String, u32);

fn err<T>(m: impl Into<String>) -> Result<T> {
    Err(EngineError::Other(m.into()))
}

impl Debugger {
    /// `list`, `list N`, `list FUNC`, `list FILE:N`, `list A,B`, `list A,`, `list ,B`, `list -`.
    pub(crate) fn cmd_list(&mut self, arg: &str) -> Result<Flow> {
        let a = arg.trim();
        if a.is_empty() || a == "+" || a == "-" {
            return self.list_default(a == "-");
        }
        let (beg, end) = match a.split_once(',') {
            Some((x, y)) => (x.trim(), Some(y.trim())),
            None => (a, None),
        };
        let sal = if beg.is_empty() {
            None
        } else {
            match self.locate_for_list(beg, None)? {
                Some(p) => Some(p),
                None => return Ok(Flow::Go),
            }
        };
        match (sal, end) {
            (Some((file, name, line)), None) => {
                let first = line.saturating_sub(self.lines_to_list() / 2).max(1);
                self.list_lines(&file, &name, first, first + self.lines_to_list())
            }
            (Some((file, name, line)), Some("")) => {
                self.list_lines(&file, &name, line, line + self.lines_to_list())
            }
            (Some((file, name, line)), Some(e)) => {
                let Some((efile, _, eline)) = self.locate_for_list(e, Some((&file, &name)))? else {
                    return Ok(Flow::Go);
                };
                if efile != file {
                    return err("Specified first and last lines are in different files.");
                }
                self.list_lines(&file, &name, line, eline + 1)
            }
            (None, Some("") | None) => err("Two empty args do not say what lines to list."),
            (None, Some(e)) => {
                let Some((file, name, line)) = self.locate_for_list(e, None)? else {
                    return Ok(Flow::Go);
                };
                let stop = line + 1;
                self.list_lines(
                    &file,
                    &name,
                    stop.saturating_sub(self.lines_to_list()).max(1),
                    stop,
                )
            }
        }
    }

    /// `list` / `list +` / `list -` without a location.
    fn list_default(&mut self, back: bool) -> Result<Flow> {
        let center = self.src.list_center.borrow().clone();
        if let Some((file, name, line)) = center {
            // First listing since a stop: centre on the stop line.
            let first = if back {
                line.saturating_sub(self.lines_to_list()).max(1)
            } else {
                line.saturating_sub(self.lines_to_list() / 2).max(1)
            };
            return self.list_lines(&file, &name, first, first + self.lines_to_list());
        }
        if back {
            let Some((file, name, first)) = self.src.list_first.borrow().clone() else {
                return Ok(Flow::Go);
            };
            if first <= 1 {
                return err(format!("Already at the start of {name}."));
            }
            return self.list_lines(
                &file,
                &name,
                first.saturating_sub(self.lines_to_list()).max(1),
                first,
            );
        }
        let last = self.src.list_last.borrow().clone();
        if let Some((file, name, last_line)) = last {
            return self.list_lines(
                &file,
                &name,
                last_line + 1,
                last_line + 1 + self.lines_to_list(),
            );
        }
        // No default yet: gdb selects main, with the current line `lines_to_list - 1` before
        // the line main's breakpoint would be on, and centres the first listing there.
        let (file, name, line) = self.main_position()?;
        let cur = line.saturating_sub(self.lines_to_list() - 1).max(1);
        let first = cur.saturating_sub(self.lines_to_list() / 2).max(1);
        self.list_lines(&file, &name, first, first + self.lines_to_list())
    }

    /// The file and line of `main` after its prologue.
    fn main_position(&self) -> Result<Pos> {
        for (d, _) in self.debug_objects() {
            for f in d.functions_named("main") {
                if f.inlined_copy {
                    continue;
                }
                if let Some(m) = d.breakpoint_location_for_function(&f) {
                    return Ok((m.file, m.name, m.actual_line));
                }
            }
        }
        if self.session.symbols().is_empty() {
            return err("No symbol table is loaded.  Use the \"file\" command.");
        }
        err("No symbol table is loaded.  Use the \"file\" command.")
    }

    /// The file and line a list argument names (gdb's `decode_line_1` in list mode):
    /// `Ok(None)` when it names no source line (gdb then lists nothing). A bare line number is
    /// in `default`'s file when given, else in the default source file.
    fn locate_for_list(
        &mut self,
        spec: &str,
        default: Option<(&Path, &str)>,
    ) -> Result<Option<Pos>> {
        if let Some(addr) = spec.strip_prefix('*') {
            let pc = self.address_of_expr(addr.trim())?;
            return Ok(self
                .line_at(pc)
                .filter(|l| l.line != 0)
                .map(|l| (l.file.to_path_buf(), l.name.to_string(), l.line)));
        }
        if let (Some((file, name)), Ok(line)) = (default, spec.parse::<u32>()) {
            return Ok(Some((file.to_path_buf(), name.to_string(), line)));
        }
        let spec = self.qualify_linespec(spec);
        // FILE:LINE: the file may have no code on that line; find it by name.
        if let Some((f, l)) = crate::locations::split_file(&spec)
            && let Ok(line) = l.parse::<u32>()
        {
            for (d, _) in self.debug_objects() {
                for (name, full) in d.source_files() {
                    if cohort_dwarf::lines::file_matches(&name, &full, f) {
                        return Ok(Some((full, name, line)));
                    }
                }
            }
            return err(format!("No source file named {f}."));
        }
        // FILE:FUNCTION: the function as defined in that file.
        let (in_file, func) = match crate::locations::split_file(&spec) {
            Some((f, name)) if !f.is_empty() => (Some(f), name),
            _ => (None, spec.as_str()),
        };
        for (d, _) in self.debug_objects() {
            for f in d.functions_named(func) {
                if f.inlined_copy {
                    continue;
                }
                if let Some(l) = d.function_start_line(&f)
                    && in_file
                        .is_none_or(|s| cohort_dwarf::lines::file_matches(&l.name, &l.file, s))
                {
                    return Ok(Some((l.file, l.name, l.line)));
                }
            }
        }
        if self.session.symbols().lookup(&spec).is_some() {
            // A symbol without line information: gdb lists nothing.
            return Ok(None);
        }
        if let Some(f) = in_file {
            let known = self.debug_objects().iter().any(|(d, _)| {
                d.source_files()
                    .iter()
                    .any(|(n, full)| cohort_dwarf::lines::file_matches(n, full, f))
            });
            return err(if known {
                format!("Function \"{func}\" not defined in \"{f}\".")
            } else {
                format!("No source file named {f}.")
            });
        }
        if self.debug_objects().is_empty() && self.session.symbols().is_empty() {
            return err("No symbol table is loaded.  Use the \"file\" command.");
        }
        err(format!("Function \"{spec}\" not defined."))
    }

    /// gdb's `print_source_lines`: lines `first` up to (not including) `stop`.
    fn list_lines(&mut self, file: &Path, name: &str, first: u32, stop: u32) -> Result<Flow> {
        *self.src.list_center.borrow_mut() = None;
        *self.src.list_first.borrow_mut() = Some((file.to_path_buf(), name.to_string(), first));
        *self.src.list_last.borrow_mut() = Some((
            file.to_path_buf(),
            name.to_string(),
            first.saturating_sub(1),
        ));
        let Some(text) = self.source_text(file) else {
            return err(format!("{first}\tin {}", file.display()));
        };
        let n = text.len() as u32;
        if first > n {
            return err(format!(
                "Line number {first} out of range; {name} has {n} lines."
            ));
        }
        let last = stop.saturating_sub(1).min(n);
        for l in first..=last {
            out(format!(
                "{l}\t{}",
                text.get((l - 1) as usize).unwrap_or_default()
            ));
        }
        *self.src.list_last.borrow_mut() = Some((file.to_path_buf(), name.to_string(), last));
        Ok(Flow::Go)
    }

    /// `info source`: the current source file (the last listed or stopped at).
    pub(crate) fn cmd_info_source(&mut self) -> Result<Flow> {
        let cur = self.current_source();
        let Some((file, name, _)) = cur else {
            out("No current source file.");
            return Ok(Flow::Go);
        };
        for (d, _) in self.debug_objects() {
            let Some(info) = d.source_file_info(&file) else {
                continue;
            };
            out(format!("Current source file is {name}"));
            if let Some(dir) = &info.comp_dir {
                out(format!("Compilation directory is {dir}"));
            }
            out(format!("Located in {}", file.display()));
            if let Some(text) = self.source_text(&file) {
                out(format!("Contains {} lines.", text.len()));
            }
            out(format!("Source language is {}.", info.language));
            if let Some(p) = &info.producer {
                out(format!("Producer is {p}."));
            }
            out(format!(
                "Compiled with DWARF {} debugging format.",
                info.dwarf_version
            ));
            out("Does not include preprocessor macro info.");
            return Ok(Flow::Go);
        }
        out(format!("Current source file is {name}"));
        Ok(Flow::Go)
    }
}
