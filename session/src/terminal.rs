//! The interactive terminal of `cohort` and `cohort launch` (only when standard input and
//! output are terminals; pipes and batch mode read plain lines): line editing, history
//! (`~/.cohort_history`, read at start and written back on exit when `set history save` is
//! on, as gdb's), Ctrl-R searches, and Tab completes through the debugger's `complete`.

use std::path::PathBuf;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

/// Completions of the line before the cursor, each the whole line (as `complete` gives them).
pub type CompleteFn = Box<dyn Fn(String) -> Vec<String>>;

struct CohortHelper {
    complete: CompleteFn,
}

impl Completer for CohortHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let text = &line[..pos];
        // The word being completed starts after the last blank; each completion is the whole
        // line, so what replaces the word is its tail from there.
        let start = text.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let lead = text.len() - text.trim_start().len();
        let lines = (self.complete)(text.trim_start().to_string());
        let pairs = lines
            .into_iter()
            .filter_map(|l| {
                let tail = l.get(start.saturating_sub(lead)..)?.to_string();
                Some(Pair {
                    display: tail.clone(),
                    replacement: tail,
                })
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for CohortHelper {
    type Hint = String;
}
impl Highlighter for CohortHelper {}
impl Validator for CohortHelper {}
impl Helper for CohortHelper {}

/// Where the history is kept: `~/.cohort_history`.
pub fn history_file() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".cohort_history"))
}

/// A line editor over the terminal.
pub struct Terminal {
    editor: Editor<CohortHelper, DefaultHistory>,
    history: Option<PathBuf>,
}

/// What reading a line gave.
pub enum Line {
    Text(String),
    /// Ctrl-D on an empty line (gdb's end of input: `quit`).
    Eof,
    /// Ctrl-C: the line is dropped.
    Interrupted,
}

impl Terminal {
    pub fn new(complete: CompleteFn) -> rustyline::Result<Terminal> {
        let config = rustyline::Config::builder()
            .auto_add_history(false)
            .completion_type(rustyline::CompletionType::List)
            // gdb's `history size`.
            .max_history_size(256)?
            .build();
        let mut editor = Editor::with_config(config)?;
        editor.set_helper(Some(CohortHelper { complete }));
        let history = history_file();
        if let Some(h) = &history {
            // No file yet is no error.
            let _ = editor.load_history(h);
        }
        Ok(Terminal { editor, history })
    }

    pub fn read(&mut self, prompt: &str) -> Line {
        match self.editor.readline(prompt) {
            Ok(l) => {
                if !l.trim().is_empty() {
                    let _ = self.editor.add_history_entry(l.as_str());
                }
                Line::Text(l)
            }
            Err(ReadlineError::Interrupted) => Line::Interrupted,
            Err(_) => Line::Eof,
        }
    }

    /// Write the history back (`set history save on`) as gdb writes it: one command a line,
    /// no header (rustyline's own format begins with `#V2`, which gdb would read back as a
    /// command).
    pub fn save(&mut self) {
        let Some(h) = &self.history else { return };
        let mut text = String::new();
        for l in self.editor.history().iter() {
            text.push_str(l);
            text.push('\n');
        }
        if let Err(e) = std::fs::write(h, text) {
            eprintln!(
                "warning: could not save the history in {}: {e}",
                h.display()
            );
        }
    }
}
