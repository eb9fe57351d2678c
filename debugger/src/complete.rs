//! `complete TEXT`: gdb's list of the completions of a command line.

use std::collections::BTreeSet;

use cohort_engine::Result;

use crate::debugger::{Debugger, Flow, out};

/// gdb 13's command names: the first word of a line, and the word after `info`, `set` and
/// `show` (`[top]`, `[info]`, `[set]`, `[show]` sections).
const NAMES: &str = include_str!("complete_names.txt");

/// gdb's `max-completions` default.
const MAX_COMPLETIONS: usize = 200;

/// Commands whose argument is an expression or a location: their last word completes as a
/// symbol.
const SYMBOL_COMMANDS: &[&str] = &[
    "print",
    "p",
    "inspect",
    "output",
    "call",
    "ptype",
    "whatis",
    "x",
    "display",
    "break",
    "b",
    "br",
    "bre",
    "brea",
    "tbreak",
    "tb",
    "hbreak",
    "thbreak",
    "list",
    "l",
    "until",
    "u",
    "advance",
    "watch",
    "rwatch",
    "awatch",
    "dprintf",
    "print-object",
    "po",
];

/// The names of one section of [`NAMES`].
pub(crate) fn section(name: &str) -> impl Iterator<Item = &'static str> {
    let head = format!("[{name}]");
    NAMES
        .lines()
        .skip_while(move |l| *l != head)
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

impl Debugger {
    /// `complete TEXT`: each completion of TEXT, as the whole line, sorted.
    pub(crate) fn cmd_complete(&mut self, arg: &str) -> Result<Flow> {
        // gdb keeps the text as typed, leading blanks aside.
        let text = arg.trim_start();
        let found = self.completions(text);
        let truncated = found.len() > MAX_COMPLETIONS;
        for c in found.iter().take(MAX_COMPLETIONS) {
            out(c);
        }
        if truncated {
            out(format!(
                "{text} *** List may be truncated, max-completions reached. ***"
            ));
        }
        Ok(Flow::Go)
    }

    /// `set history save`: the terminal's history is written back on exit.
    pub fn history_save(&self) -> bool {
        self.settings.on("history save")
    }

    /// The completions of a command line being typed, each as the whole line, sorted (the
    /// terminal's Tab and `complete`).
    pub fn completions(&self, text: &str) -> Vec<String> {
        self.complete_line(text, true)
    }

    /// [`Self::completions`]; `symbols`: whether a command's argument may be a symbol (not
    /// after `help`, which completes the rest of the line as command names).
    fn complete_line(&self, text: &str, symbols: bool) -> Vec<String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        // `help WORDS`: WORDS completed as a command line of their own (gdb's classes of
        // commands too, at the first word), the text before them kept as typed.
        if matches!(words.first(), Some(&("help" | "h")))
            && (words.len() > 1 || text.ends_with(char::is_whitespace))
        {
            let start = text.len() - text.trim_start().len() + words[0].len();
            let start = start + (text[start..].len() - text[start..].trim_start().len());
            let (head, rest) = text.split_at(start);
            let mut found: BTreeSet<String> = self.complete_line(rest, false).into_iter().collect();
            if !rest.contains(char::is_whitespace) {
                found.extend(
                    crate::help::class_names()
                        .filter(|c| c.starts_with(rest))
                        .map(String::from),
                );
            }
            return found.into_iter().map(|c| format!("{head}{c}")).collect();
        }
        let ends_blank = text.ends_with(char::is_whitespace);
        let mut found: BTreeSet<String> = BTreeSet::new();
        // The word being completed and the text before it.
        let (before, word) = if ends_blank || text.is_empty() {
            (text, "")
        } else {
            let i = text.rfind(char::is_whitespace).map_or(0, |i| i + 1);
            (&text[..i], &text[i..])
        };
        let index = if ends_blank {
            words.len()
        } else {
            words.len().saturating_sub(1)
        };
        let first = words.first().copied().unwrap_or("");
        // The prefix command the word follows (`set print`), aliases of `info` spelled out.
        let path: Vec<&str> = words[..index]
            .iter()
            .enumerate()
            .map(|(i, w)| match *w {
                "i" | "inf" if i == 0 => "info",
                w => w,
            })
            .collect();
        let path = path.join(" ");
        let symbols = symbols
            && (SYMBOL_COMMANDS.contains(&first)
                || (path.starts_with("info ") && index >= 2)
                || (first == "set"
                    && matches!(words.get(1), Some(&("var" | "variable")))
                    && index >= 2));
        if index == 0 {
            found.extend(
                section("top")
                    .filter(|n| n.starts_with(word))
                    .map(String::from),
            );
        } else if section(&path).next().is_some() {
            found.extend(
                section(&path)
                    .filter(|n| n.starts_with(word))
                    .map(String::from),
            );
        } else if symbols {
            // The identifier at the end of the word (`g+h` completes `h`).
            let start = word
                .rfind(|c: char| !(c.is_alphanumeric() || "_.$@".contains(c)))
                .map_or(0, |i| i + 1);
            let (lead, ident) = word.split_at(start);
            for n in self.symbol_names() {
                if n.starts_with(ident) {
                    found.insert(format!("{lead}{n}"));
                }
            }
        }
        found.iter().map(|c| format!("{before}{c}")).collect()
    }

    /// Names a symbol completion offers: ELF symbols of every loaded object, and the
    /// functions, variables and types of the debug information.
    fn symbol_names(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for o in self.session.symbols().objects() {
            for s in o.file.symbols() {
                if !s.name.is_empty() {
                    names.insert(s.name.to_string());
                }
            }
        }
        for (d, _) in self.debug_objects() {
            names.extend(d.all_functions().map(|f| f.name));
            names.extend(d.all_variables().iter().map(|v| v.name.to_string()));
            names.extend(d.all_types().iter().map(|t| t.name.to_string()));
        }
        names
    }
}
