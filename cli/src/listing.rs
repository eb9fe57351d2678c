//! Source listing (`list`).

use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

impl Debugger {
    /// `list`, `list N`, `list FUNC`, `list FILE:N`, `list N,M`, `list -`.
    pub(crate) fn cmd_list(&mut self, arg: &str) -> Result<Flow> {
        let a = arg.trim();
        if a.is_empty() {
            let last = self.src.list_last.borrow().clone();
            if let Some((file, name, last_line)) = last {
                return self.list_lines(&file, &name, last_line + 1, last_line + 10);
            }
            let center = self.src.list_center.borrow().clone();
            if let Some((file, name, line)) = center {
                let first = line.saturating_sub(5).max(1);
                return self.list_lines(&file, &name, first, first + 9);
            }
            // No default yet: around main.
            let (file, name, line) = self.locate_for_list("main")?;
            let first = line.saturating_sub(4).max(1);
            return self.list_lines(&file, &name, first, first + 9);
        }
        if a == "-" {
            let last = self.src.list_first.borrow().clone();
            if let Some((file, name, first)) = last {
                if first <= 1 {
                    return Err(EngineError::Other(
                        "Already at the start of ".to_string() + &name + ".",
                    ));
                }
                let start = first.saturating_sub(10).max(1);
                return self.list_lines(&file, &name, start, first - 1);
            }
            return Ok(Flow::Go);
        }
        if let Some((x, y)) = a.split_once(',') {
            let (file, name, first) = self.locate_for_list(x.trim())?;
            let last = y.trim().parse::<u32>().unwrap_or(first + 9);
            return self.list_lines(&file, &name, first, last);
        }
        let (file, name, line) = self.locate_for_list(a)?;
        let is_line = a
            .rsplit(':')
            .next()
            .is_some_and(|l| l.parse::<u32>().is_ok());
        let first = if is_line {
            line.saturating_sub(5).max(1)
        } else {
            line.saturating_sub(4).max(1)
        };
        self.list_lines(&file, &name, first, first + 9)
    }

    /// The file and line a list argument names.
    fn locate_for_list(&self, spec: &str) -> Result<(std::path::PathBuf, String, u32)> {
        let spec = self.qualify_linespec(spec);
        // FILE:LINE: the file may have no code on that line; find it by name.
        if let Some((f, l)) = spec.rsplit_once(':')
            && let Ok(line) = l.parse::<u32>()
        {
            for (d, _) in self.debug_objects() {
                for (name, full) in d.source_files() {
                    if cohort_dwarf::lines::file_matches(&name, &full, f) {
                        return Ok((full, name, line));
                    }
                }
            }
            return Err(EngineError::Other(format!("No source file named {f}.")));
        }
        for (d, _) in self.debug_objects() {
            for f in d.functions_named(&spec) {
                if f.inlined_copy {
                    continue;
                }
                if let Some(l) = d.function_start_line(&f) {
                    return Ok((l.file, l.name, l.line));
                }
            }
        }
        Err(EngineError::Other(format!(
            "Function \"{spec}\" not defined."
        )))
    }

    fn list_lines(
        &mut self,
        file: &std::path::Path,
        name: &str,
        first: u32,
        last: u32,
    ) -> Result<Flow> {
        let Some(text) = self.source_text(file) else {
            return Err(EngineError::Other(format!(
                "{first}\tin {}",
                file.display()
            )));
        };
        let n = text.len() as u32;
        if first > n {
            return Err(EngineError::Other(format!(
                "Line number {first} out of range; \"{name}\" has {n} lines."
            )));
        }
        let last = last.min(n);
        for l in first..=last {
            out(format!("{l}\t{}", text[(l - 1) as usize]));
        }
        *self.src.list_last.borrow_mut() = Some((file.to_path_buf(), name.to_string(), last));
        *self.src.list_first.borrow_mut() = Some((file.to_path_buf(), name.to_string(), first));
        *self.src.list_center.borrow_mut() = None;
        Ok(Flow::Go)
    }
}
