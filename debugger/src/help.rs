//! `help [COMMAND]` and `apropos [-v] REGEXP`: Cohort's own help texts (`command_help.txt` for
//! the gdb commands and settings Cohort implements, `help.txt` for the overview and Cohort's own
//! commands), found as gdb finds a command's help: its words written out or abbreviated, its
//! aliases, gdb's errors for unknown and ambiguous words. The names come from gdb
//! (`gdb_commands.txt`, `setting_words.txt`: names only, written by
//! scripts/gen-setting-words.py); none of gdb's help text is in this tree. A gdb command Cohort
//! does not implement is said to be one.

use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

/// gdb 13's commands but set and show: `CLASS<tab>NAME, ALIAS…` a line (full names; `|` is
/// one, gdb's alias of pipe).
const GDB_COMMANDS: &str = include_str!("gdb_commands.txt");
/// Cohort's texts for the gdb commands and settings it implements, `@@ FULL NAME` before each.
const COMMAND_HELP: &str = include_str!("command_help.txt");
/// Cohort's overview (`@@ ` with no name) and its own commands, `@@ NAME|ALIAS…` before each.
const HELP: &str = include_str!("help.txt");

/// gdb's prefix commands that take an unknown word as an argument (`allow_unknown`): `help`
/// of one followed by such a word is the prefix's help; after the others it is an error.
const ALLOW_UNKNOWN: &[&str] = &[
    "delete",
    "disable",
    "enable",
    "frame",
    "frame apply",
    "info frame",
    "thread",
    "thread apply",
];

/// gdb's classes of commands (`help CLASS` lists the ones Cohort implements), with Cohort's
/// description of each.
const CLASSES: &[(&str, &str)] = &[
    (
        "aliases",
        "Aliases of other commands, made with gdb's alias command.",
    ),
    (
        "breakpoints",
        "Stopping the program: breakpoints, watchpoints, catchpoints.",
    ),
    ("data", "Reading and changing the program's data."),
    (
        "files",
        "Choosing and reading program files, core dumps and source files.",
    ),
    ("internals", "Commands for maintaining gdb itself."),
    ("obscure", "Seldom used commands."),
    (
        "running",
        "Starting, stepping, resuming and stopping the program.",
    ),
    ("stack", "Reading the call stack and choosing a frame."),
    (
        "status",
        "Facts about the program and the debugger (mostly info subcommands).",
    ),
    (
        "support",
        "Scripting, help and the debugger's own facilities.",
    ),
    ("text-user-interface", "gdb's full-screen text interface."),
    (
        "tracepoints",
        "Collecting data without stopping the program.",
    ),
    ("user-defined", "Commands defined with define."),
];

/// The names of gdb's classes of commands (what `help` completes besides commands).
pub(crate) fn class_names() -> impl Iterator<Item = &'static str> {
    CLASSES.iter().map(|(c, _)| *c)
}

/// One gdb command: its class and its full names (the command's, then its aliases').
#[derive(Debug, Clone)]
struct GdbCommand {
    class: &'static str,
    names: Vec<&'static str>,
}

/// gdb's commands (set and show aside), sorted by name.
fn gdb_commands() -> Vec<GdbCommand> {
    GDB_COMMANDS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let (class, names) = l.split_once('\t')?;
            Some(GdbCommand {
                class,
                names: names.split(", ").collect(),
            })
        })
        .collect()
}

/// The entries of a help file: `(names, text)`, names split at `|`.
fn parse(file: &'static str) -> Vec<(Vec<&'static str>, &'static str)> {
    file.split("\n@@ ")
        .filter_map(|e| {
            let e = e.strip_prefix("@@ ").unwrap_or(e);
            let (names, body) = e.split_once('\n').unwrap_or((e, ""));
            if names.starts_with('#') {
                return None;
            }
            Some((names.split('|').collect(), body.trim_end_matches('\n')))
        })
        .collect()
}

/// Cohort's text of the gdb command or setting `name` (full name), if it implements it.
pub(crate) fn command_text(name: &str) -> Option<&'static str> {
    parse(COMMAND_HELP)
        .into_iter()
        .find(|(names, _)| names[0] == name)
        .map(|(_, body)| body)
}

/// The help text of Cohort's own command `name` (or of the overview, for "").
pub(crate) fn own_help(name: &str) -> Option<&'static str> {
    parse(HELP)
        .into_iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, body)| body)
}

/// Cohort's own commands: names (the command's, then its aliases') and text.
fn own_commands() -> Vec<(Vec<&'static str>, &'static str)> {
    parse(HELP)
        .into_iter()
        .filter(|(names, _)| !names[0].is_empty())
        .collect()
}

/// The text `help set X`/`help show X` gives for a setting Cohort implements: its own entry;
/// for `show X` of a setting in the settings table without one, a text made from the name.
fn setting_text(full: &str) -> Option<String> {
    if let Some(t) = command_text(full) {
        return Some(t.to_string());
    }
    let name = full.strip_prefix("show ")?;
    crate::settings::table_names()
        .any(|n| n == name)
        .then(|| format!("Show the value of \"{name}\"; \"help set {name}\" says what it does.\nUsage: show {name}"))
}

/// The last word of a full command name (gdb's `c->name`).
fn last_word(name: &str) -> &str {
    name.rsplit(' ').next().unwrap_or(name)
}

fn err<T>(m: impl Into<String>) -> Result<T> {
    Err(EngineError::Other(m.into()))
}

/// What the words after `help` name.
enum Named {
    /// A gdb command (its names).
    Command(GdbCommand),
    /// `set`/`show` and the words after it (as typed).
    Setting(&'static str, String),
    /// A class of commands.
    Class(&'static str),
}

/// gdb's `lookup_cmd` for `help`: each word, exactly or as a unique abbreviation, a command or
/// an alias one level down; words after a command that is not a prefix are ignored.
fn resolve(words: &[&str]) -> Result<Named> {
    let all = gdb_commands();
    let mut path = String::new();
    let mut found: Option<GdbCommand> = None;
    for (i, w) in words.iter().enumerate() {
        let depth = i + 1;
        if i == 0
            && let Some(s) = ["set", "show"].into_iter().find(|s| s == w)
        {
            return Ok(Named::Setting(s, words[1..].join(" ")));
        }
        // The commands one word below `path`.
        let below: Vec<&GdbCommand> = all
            .iter()
            .filter(|c| {
                let n = c.names[0];
                n.split(' ').count() == depth && (i == 0 || n.starts_with(&format!("{path} ")))
            })
            .collect();
        if i > 0 && below.is_empty() {
            break;
        }
        // A command's names at this depth, by their last word.
        let words_of = |c: &GdbCommand| -> Vec<&'static str> {
            c.names
                .iter()
                .filter(|n| n.split(' ').count() == depth)
                .map(|n| last_word(n))
                .collect()
        };
        let exact = below.iter().find(|c| words_of(c).contains(w));
        let command = match exact {
            Some(c) => (*c).clone(),
            None if i == 0 && CLASSES.iter().any(|(c, _)| c == w) => {
                let class = CLASSES.iter().find(|(c, _)| c == w).map_or("", |(c, _)| c);
                return Ok(Named::Class(class));
            }
            None => {
                let mut matching: Vec<&GdbCommand> = below
                    .iter()
                    .copied()
                    .filter(|c| words_of(c).iter().any(|n| n.starts_with(w)))
                    .collect();
                // set and show are at the top too, and gdb's classes of commands.
                let mut extra: Vec<&'static str> = Vec::new();
                let mut classes: Vec<&'static str> = Vec::new();
                if i == 0 {
                    extra.extend(["set", "show"].into_iter().filter(|s| s.starts_with(w)));
                    classes.extend(CLASSES.iter().map(|(c, _)| *c).filter(|c| c.starts_with(w)));
                }
                match (matching.len(), extra.len(), classes.len()) {
                    (1, 0, 0) => matching.remove(0).clone(),
                    (0, 1, 0) => return Ok(Named::Setting(extra[0], words[1..].join(" "))),
                    (0, 0, 1) => return Ok(Named::Class(classes[0])),
                    (0, 0, 0) => {
                        return if i == 0 {
                            err(format!("Undefined command: \"{w}\".  Try \"help\"."))
                        } else if ALLOW_UNKNOWN.contains(&path.as_str()) {
                            break;
                        } else {
                            // Under a prefix gdb quotes the rest of the line.
                            err(format!(
                                "Undefined {path} command: \"{}\".  Try \"help {path}\".",
                                words[i..].join(" ")
                            ))
                        };
                    }
                    _ => {
                        let mut names: Vec<&str> = matching
                            .iter()
                            .flat_map(|c| words_of(c))
                            .filter(|n| n.starts_with(w))
                            .chain(extra.iter().chain(&classes).copied())
                            .collect();
                        names.sort_unstable();
                        names.dedup();
                        let what = if i == 0 {
                            String::new()
                        } else {
                            format!("{path} ")
                        };
                        // gdb quotes the rest of the line.
                        return err(format!(
                            "Ambiguous {what}command \"{}\": {}.",
                            words[i..].join(" "),
                            names.join(", ")
                        ));
                    }
                }
            }
        };
        path = command.names[0].to_string();
        found = Some(command);
    }
    found
        .map(Named::Command)
        .ok_or_else(|| EngineError::Other("Undefined command: \"\".  Try \"help\".".into()))
}

/// What `help` says of a gdb command Cohort does not implement.
pub(crate) fn not_implemented(full: &str) -> String {
    format!("\"{full}\" is a gdb command Cohort does not implement.")
}

/// The first line of a text (what lists and `apropos` show).
fn summary(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The gdb commands one word below `prefix` that Cohort implements, as `(names, text)`.
fn implemented_below(prefix: &str) -> Vec<(Vec<&'static str>, &'static str)> {
    let depth = prefix.split(' ').count() + 1;
    gdb_commands()
        .into_iter()
        .filter(|c| {
            c.names[0].split(' ').count() == depth && c.names[0].starts_with(&format!("{prefix} "))
        })
        .filter_map(|c| command_text(c.names[0]).map(|t| (c.names, t)))
        .collect()
}

/// The settings one word below the set/show prefix `prefix` that Cohort implements.
fn settings_below(prefix: &str) -> Vec<(Vec<String>, String)> {
    crate::settings::gdb_subcommands(prefix)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(name, aliases)| {
            let full = format!("{prefix} {name}");
            let text = setting_text(&full)?;
            let names = std::iter::once(full)
                .chain(aliases.iter().map(|a| format!("{prefix} {a}")))
                .collect();
            Some((names, text))
        })
        .collect()
}

/// The list of a prefix command's subcommands gdb's help ends with, Cohort's implemented ones.
fn subcommand_list(prefix: &str, subs: &[(Vec<String>, String)]) -> String {
    let mut s = format!("\n\nList of {prefix} subcommands:\n\n");
    for (names, text) in subs {
        s.push_str(&format!("{} -- {}\n", names.join(", "), summary(text)));
    }
    s.push_str(&format!(
        "\nType \"help {prefix}\" followed by a subcommand's name for its whole text."
    ));
    s
}

/// `help` of a gdb command Cohort implements: its names when it has aliases, its text, and
/// for a prefix command the list of its subcommands.
fn command_help(c: &GdbCommand, text: &str) -> String {
    let mut s = String::new();
    if c.names.len() > 1 {
        s.push_str(&c.names.join(", "));
        s.push('\n');
    }
    s.push_str(text);
    let subs: Vec<(Vec<String>, String)> = implemented_below(c.names[0])
        .into_iter()
        .map(|(n, t)| (n.iter().map(|s| s.to_string()).collect(), t.to_string()))
        .collect();
    if !subs.is_empty() {
        s.push_str(&subcommand_list(c.names[0], &subs));
    }
    s
}

/// `help set WORDS`/`help show WORDS`: the longest setting or prefix the words name (words
/// after a setting are ignored, as gdb ignores them); an unknown word under a prefix is gdb's
/// error (under `set` itself, which takes expressions, the help of `set`).
fn setting_help(cmd: &str, rest: &str) -> Result<String> {
    let resolved = crate::settings::gdb_resolve(cmd, rest).map_err(EngineError::Other)?;
    let mut path = cmd.to_string();
    let words: Vec<&str> = resolved.split_whitespace().collect();
    for (i, w) in words.iter().copied().enumerate() {
        let Some(subs) = crate::settings::gdb_subcommands(&path) else {
            break;
        };
        if subs.iter().any(|(n, _)| *n == w) {
            path = format!("{path} {w}");
        } else if path == "set" {
            break;
        } else {
            return err(format!(
                "Undefined {path} command: \"{}\".  Try \"help {path}\".",
                words[i..].join(" ")
            ));
        }
    }
    let Some(text) = setting_text(&path) else {
        return Ok(not_implemented(&path));
    };
    let mut s = text;
    let subs = settings_below(&path);
    if !subs.is_empty() {
        s.push_str(&subcommand_list(&path, &subs));
    }
    Ok(s)
}

/// `help CLASS`: Cohort's description of the class and the commands of it Cohort implements.
fn class_help(class: &str) -> String {
    let what = CLASSES
        .iter()
        .find(|(c, _)| *c == class)
        .map_or("", |(_, d)| d);
    let list: Vec<String> = gdb_commands()
        .into_iter()
        .filter(|c| c.class == class)
        .filter_map(|c| {
            let text = command_text(c.names[0])?;
            Some(format!("{} -- {}", c.names.join(", "), summary(text)))
        })
        .collect();
    if list.is_empty() {
        return format!("{what}\n\nCohort implements none of gdb's \"{class}\" commands.");
    }
    format!(
        "{what}\n\nList of commands:\n\n{}\n\nType \"help\" followed by a command's name for its whole text.",
        list.join("\n")
    )
}

/// `help all`: every command Cohort implements, class by class as gdb lists its own
/// (`Command class: NAME`), with the settings under support and Cohort's own commands last.
fn all_help() -> String {
    let mut s = String::new();
    let commands = gdb_commands();
    for (class, _) in CLASSES {
        let mut list: Vec<(Vec<String>, String)> = commands
            .iter()
            .filter(|c| c.class == *class)
            .filter_map(|c| {
                let text = command_text(c.names[0])?;
                Some((
                    c.names.iter().map(|n| n.to_string()).collect(),
                    text.to_string(),
                ))
            })
            .collect();
        if *class == "support" {
            for cmd in ["set", "show"] {
                if let Some(text) = command_text(cmd) {
                    list.push((vec![cmd.to_string()], text.to_string()));
                }
                let mut settings = Vec::new();
                all_settings(cmd, &mut settings);
                list.extend(settings.into_iter().map(|d| (d.names, d.text)));
            }
            list.sort_by(|a, b| a.0[0].as_bytes().cmp(b.0[0].as_bytes()));
        }
        s.push_str(&format!("\nCommand class: {class}\n\n"));
        for (names, text) in list {
            s.push_str(&format!("{} -- {}\n", names.join(", "), summary(&text)));
        }
    }
    s.push_str("\nCohort's own commands\n\n");
    for (names, text) in own_commands() {
        s.push_str(&format!("{} -- {}\n", names.join(", "), summary(text)));
    }
    s.trim_end().to_string()
}

/// Every gdb command Cohort implements (set and show and their settings aside), as gdb's
/// full names: what `help` and `apropos` cover, and what the dispatcher must run.
#[cfg(test)]
fn implemented_commands() -> Vec<&'static str> {
    gdb_commands()
        .into_iter()
        .map(|c| c.names[0])
        .filter(|n| command_text(n).is_some())
        .collect()
}

/// One command `apropos` looks at: its full names and its text.
struct Doc {
    names: Vec<String>,
    text: String,
}

/// Every set/show command Cohort implements, with its aliases, below `prefix` (recursively).
fn all_settings(prefix: &str, into: &mut Vec<Doc>) {
    for (names, text) in settings_below(prefix) {
        let full = names[0].clone();
        into.push(Doc { names, text });
        all_settings(&full, into);
    }
}

impl Debugger {
    /// `help [COMMAND]`: the documentation of a user command; Cohort's text for its own
    /// commands and for the gdb commands and settings it implements; for another gdb command,
    /// that Cohort does not implement it.
    pub(crate) fn cmd_help(&mut self, arg: &str) -> Result<Flow> {
        let key = arg.split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(doc) = self.user_help(&key) {
            out(doc);
            return Ok(Flow::Go);
        }
        if let Some(text) = own_help(&key) {
            out(text);
            return Ok(Flow::Go);
        }
        if key == "all" {
            out(all_help());
            return Ok(Flow::Go);
        }
        let words: Vec<&str> = key.split(' ').collect();
        let text = match resolve(&words)? {
            Named::Setting(cmd, rest) => setting_help(cmd, &rest)?,
            Named::Class(class) => class_help(class),
            Named::Command(c) => match command_text(c.names[0]) {
                Some(text) => command_help(&c, text),
                None => not_implemented(c.names[0]),
            },
        };
        out(text);
        Ok(Flow::Go)
    }

    /// `apropos [-v] REGEXP`: gdb's `apropos_cmd` over the gdb commands and settings Cohort
    /// implements, Cohort's own commands and the user's, in gdb's order (by full name): a
    /// command whose name matches, then again if one of its aliases does, else if its text
    /// does, as `NAME, ALIAS… -- first line` (`-v`: a blank line, the names, the whole text).
    pub(crate) fn cmd_apropos(&mut self, arg: &str) -> Result<Flow> {
        let mut pattern = arg.trim();
        let mut verbose = false;
        if let Some(r) = pattern
            .strip_prefix("-v")
            .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
        {
            verbose = true;
            pattern = r.trim_start();
        }
        if pattern.is_empty() {
            return err("REGEXP string is empty");
        }
        let re = crate::symtab_info::Regex::new_case_insensitive(pattern)
            .map_err(|e| EngineError::Other(format!("Error in regular expression: {e}")))?;
        let mut all: Vec<Doc> = gdb_commands()
            .into_iter()
            .filter_map(|c| {
                let text = command_text(c.names[0])?;
                Some(Doc {
                    names: c.names.iter().map(|n| n.to_string()).collect(),
                    text: text.to_string(),
                })
            })
            .collect();
        for cmd in ["set", "show"] {
            if let Some(text) = command_text(cmd) {
                all.push(Doc {
                    names: vec![cmd.to_string()],
                    text: text.to_string(),
                });
            }
            all_settings(cmd, &mut all);
        }
        all.extend(own_commands().into_iter().map(|(names, text)| Doc {
            names: names.iter().map(|n| n.to_string()).collect(),
            text: text.to_string(),
        }));
        for name in self.user_commands() {
            let text = self.user_help(&name).unwrap_or_default();
            all.push(Doc {
                names: vec![name],
                text,
            });
        }
        all.sort_by(|a, b| a.names[0].as_bytes().cmp(b.names[0].as_bytes()));
        let print = |d: &Doc| {
            let names = d.names.join(", ");
            if verbose {
                out("");
                out(names);
                out(&d.text);
            } else {
                out(format!("{names} -- {}", summary(&d.text)));
            }
        };
        for d in &all {
            // gdb's `returnvalue`: the name's match, then each alias's until one matches.
            let mut matched = re.is_match(last_word(&d.names[0]));
            if matched {
                print(d);
            }
            for a in &d.names[1..] {
                matched = re.is_match(last_word(a));
                if matched {
                    print(d);
                    break;
                }
            }
            if !matched && re.is_match(&d.text) {
                print(d);
            }
        }
        Ok(Flow::Go)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `line` through the dispatcher of a debugger with no program, its output captured;
    /// the error it gives, if any.
    fn dispatch_error(line: &str) -> Option<String> {
        let mut d = Debugger::new(true);
        let (r, _) = crate::output::capture(|| d.dispatch(line));
        r.err().map(|e| e.to_string())
    }

    /// Every gdb command Cohort implements has a text of its own: a summary line and a usage
    /// line; so has every setting in the settings table.
    #[test]
    fn every_implemented_command_has_a_text() {
        let names = implemented_commands();
        assert!(names.len() > 100, "{names:?}");
        let settings = crate::settings::table_names().map(|n| format!("set {n}"));
        for name in names.iter().map(|n| n.to_string()).chain(settings) {
            let text = command_text(&name).unwrap_or_default();
            let mut lines = text.lines();
            let first = lines.next().unwrap_or_default();
            assert!(first.ends_with('.') && first.len() > 10, "{name}: {text:?}");
            assert!(
                lines.any(|l| l.starts_with("Usage: ")),
                "{name}: no Usage line"
            );
        }
        // Every entry of command_help.txt is a gdb command or setting (no misspelt names).
        for (names, _) in parse(COMMAND_HELP) {
            let name = names[0];
            let known = gdb_commands().iter().any(|c| c.names[0] == name)
                || ["set", "show"].contains(&name)
                || name.split_once(' ').is_some_and(|(cmd, rest)| {
                    ["set", "show"].contains(&cmd)
                        && crate::settings::gdb_resolve(cmd, rest).is_ok_and(|r| r == rest)
                });
            assert!(known, "{name} is not a gdb command");
        }
    }

    /// The dispatcher and the help texts agree: each of gdb's commands (and info
    /// subcommands) the dispatcher runs has a text, and each one with a text is run, not
    /// refused as unknown. A command added without help fails here.
    #[test]
    fn dispatcher_runs_exactly_the_commands_with_help() {
        // `shell` without an argument would start a shell.
        let skip = ["shell"];
        for c in gdb_commands() {
            let name = c.names[0];
            let (top, sub) = match name.split_once(' ') {
                None => (name, None),
                Some(("info", s)) if !s.contains(' ') => ("info", Some(s)),
                _ => continue,
            };
            if skip.contains(&name) {
                continue;
            }
            let refusal = match sub {
                None => "Undefined command:".to_string(),
                Some(_) => format!("Undefined {top} command:"),
            };
            let error = dispatch_error(name).unwrap_or_default();
            let refused = error.starts_with(&refusal);
            let has_text = command_text(name).is_some();
            assert!(
                refused != has_text,
                "{name}: dispatcher says {error:?}, help text {}",
                if has_text { "present" } else { "missing" }
            );
        }
        // The show commands with a text of their own are run (a prefix, `show print`, by
        // its subcommands).
        for (names, _) in parse(COMMAND_HELP) {
            if let Some(rest) = names[0].strip_prefix("show ")
                && crate::settings::gdb_subcommands(names[0]).is_none()
            {
                let error = dispatch_error(names[0]).unwrap_or_default();
                assert!(
                    !error.starts_with("Undefined show command"),
                    "show {rest}: {error}"
                );
            }
        }
    }

    /// A gdb command Cohort lacks is said to be one, under its full name.
    #[test]
    fn gdb_commands_cohort_lacks_are_named() {
        let mut d = Debugger::new(true);
        let (r, got) = crate::output::capture(|| d.cmd_help("tui"));
        assert!(r.is_ok());
        assert_eq!(
            got.out,
            "\"tui\" is a gdb command Cohort does not implement.\n"
        );
        let (_, got) = crate::output::capture(|| d.cmd_help("set auto-load"));
        assert_eq!(
            got.out,
            "\"set auto-load\" is a gdb command Cohort does not implement.\n"
        );
    }
}
