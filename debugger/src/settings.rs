//! gdb settings that `set` stores and `show` reports in gdb's words (`show print pretty` →
//! `Pretty formatting of structures is off.`), and `print -OPTION… --` overriding the print
//! settings for one command. The print settings cohort honours reach the value printer
//! through [`Debugger::format`]; `elements` and `repeats` live in their own fields.

use std::collections::HashMap;

use cohort_engine::{EngineError, Result};

use cohort_dwarf::context::SettingKind;

use crate::debugger::{Debugger, out};

/// How a setting's value is read and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `on`/`off` (and gdb's synonyms).
    Bool,
    /// A count where 0 and `unlimited` mean no limit.
    Unlimited,
    /// An integer shown as is (`can-use-hw-watchpoints`).
    Int,
    /// A count where `unlimited` and -1 mean no limit and 0 is 0 (`print max-depth`).
    ZUnlimited,
    /// One of the words, shown in quotes.
    Enum(&'static [&'static str]),
}

/// One setting: its name after `set`, its `show` sentence (before ` is VALUE.`), its kind and
/// default.
struct Setting {
    name: &'static str,
    doc: &'static str,
    kind: Kind,
    default: &'static str,
}

const fn s(name: &'static str, doc: &'static str, kind: Kind, default: &'static str) -> Setting {
    Setting {
        name,
        doc,
        kind,
        default,
    }
}

/// gdb 13's wording and defaults (in `-batch` mode).
const SETTINGS: &[Setting] = &[
    s("print address", "Printing of addresses", Kind::Bool, "on"),
    s(
        "print array",
        "Pretty formatting of arrays",
        Kind::Bool,
        "off",
    ),
    s(
        "print array-indexes",
        "Printing of array indexes",
        Kind::Bool,
        "off",
    ),
    s(
        "print asm-demangle",
        "Demangling of C++/ObjC names in disassembly listings",
        Kind::Bool,
        "off",
    ),
    s(
        "print demangle",
        "Demangling of encoded C++/ObjC names when displaying symbols",
        Kind::Bool,
        "on",
    ),
    s(
        "print elements",
        "Limit on string chars or array elements to print",
        Kind::Unlimited,
        "200",
    ),
    s(
        "print frame-arguments",
        "Printing of non-scalar frame arguments",
        Kind::Enum(&["all", "scalars", "none", "presence"]),
        "scalars",
    ),
    s(
        "print max-depth",
        "Maximum print depth",
        Kind::ZUnlimited,
        "20",
    ),
    s(
        "print null-stop",
        "Printing of char arrays to stop at first null char",
        Kind::Bool,
        "off",
    ),
    s(
        "print object",
        "Printing of object's derived type based on vtable info",
        Kind::Bool,
        "off",
    ),
    s(
        "print pretty",
        "Pretty formatting of structures",
        Kind::Bool,
        "off",
    ),
    s(
        "print repeats",
        "Threshold for repeated print elements",
        Kind::Unlimited,
        "10",
    ),
    s(
        "print sevenbit-strings",
        "Printing of 8-bit characters in strings as \\nnn",
        Kind::Bool,
        "off",
    ),
    s(
        "print static-members",
        "Printing of C++ static members",
        Kind::Bool,
        "on",
    ),
    s(
        "print symbol",
        "Printing of symbols when printing pointers",
        Kind::Bool,
        "on",
    ),
    s(
        "print union",
        "Printing of unions interior to structures",
        Kind::Bool,
        "on",
    ),
    s(
        "print vtbl",
        "Printing of C++ virtual function tables",
        Kind::Bool,
        "off",
    ),
    s(
        "output-radix",
        "Default output radix for printing of values",
        Kind::Int,
        "10",
    ),
    s(
        "listsize",
        "Number of source lines gdb will list by default",
        Kind::Unlimited,
        "10",
    ),
    s(
        "confirm",
        "Whether to confirm potentially dangerous operations",
        Kind::Bool,
        "on",
    ),
    s("pagination", "State of pagination", Kind::Bool, "on"),
    s(
        "history save",
        "Saving of the history record on exit",
        Kind::Bool,
        "off",
    ),
    s(
        "height",
        "Number of lines gdb thinks are in a page",
        Kind::Unlimited,
        "unlimited",
    ),
    s(
        "width",
        "Number of characters gdb thinks are in a line",
        Kind::Unlimited,
        "unlimited",
    ),
    s("step-mode", "Mode of the step operation", Kind::Bool, "off"),
    s(
        "can-use-hw-watchpoints",
        "Debugger's willingness to use watchpoint hardware",
        Kind::Int,
        "1",
    ),
    s(
        "non-stop",
        "Controlling the inferior in non-stop mode",
        Kind::Bool,
        "off",
    ),
    s(
        "scheduler-locking",
        "Mode for locking scheduler during execution",
        Kind::Enum(&["off", "on", "step", "replay"]),
        "replay",
    ),
    s(
        "unwindonsignal",
        "Unwinding of stack if a signal is received while in a call dummy",
        Kind::Bool,
        "off",
    ),
    s(
        "unwind-on-terminating-exception",
        "Unwind stack if a C++ exception is unhandled while in a call dummy",
        Kind::Bool,
        "on",
    ),
    s(
        "follow-fork-mode",
        "Debugger response to a program call of fork or vfork",
        Kind::Enum(&["parent", "child"]),
        "parent",
    ),
    s(
        "detach-on-fork",
        "Whether gdb will detach the child of a fork",
        Kind::Bool,
        "on",
    ),
];

/// The options of `print -OPTION… --` (gdb 13's list), by the setting each one overrides.
const PRINT_OPTIONS: &[&str] = &[
    "address",
    "array",
    "array-indexes",
    "elements",
    "max-depth",
    "memory-tag-violations",
    "nibbles",
    "null-stop",
    "object",
    "pretty",
    "raw-values",
    "repeats",
    "static-members",
    "symbol",
    "union",
    "vtbl",
];

/// The values set so far (names as in [`SETTINGS`]); the others have their default.
#[derive(Debug, Default, Clone)]
pub(crate) struct Settings {
    values: HashMap<&'static str, String>,
}

impl Settings {
    pub(crate) fn get(&self, name: &str) -> &str {
        self.values
            .get(name)
            .map(String::as_str)
            .or_else(|| SETTINGS.iter().find(|s| s.name == name).map(|s| s.default))
            .unwrap_or("")
    }

    /// A boolean setting.
    pub(crate) fn on(&self, name: &str) -> bool {
        self.get(name) == "on"
    }

    /// A count setting (`None`: unlimited).
    pub(crate) fn count(&self, name: &str) -> Option<u64> {
        self.get(name).parse().ok()
    }
}

fn bool_word(v: &str) -> Option<&'static str> {
    match v {
        "" | "on" | "1" | "yes" | "enable" => Some("on"),
        "off" | "0" | "no" | "disable" => Some("off"),
        _ => None,
    }
}

/// A boolean setting's value (`on`, `off` and gdb's synonyms; nothing is `on`).
pub(crate) fn bool_value(v: &str) -> Result<bool> {
    Ok(parse_value(Kind::Bool, v.trim())? == "on")
}

/// A setting's value as gdb reads it (`unlimited`, 0 for no limit; gdb's wording otherwise).
fn parse_value(kind: Kind, v: &str) -> Result<String> {
    let err = |m: String| Err(EngineError::Other(m));
    match kind {
        Kind::Bool => bool_word(v)
            .map(str::to_string)
            .ok_or_else(|| EngineError::Other("\"on\" or \"off\" expected.".into())),
        Kind::ZUnlimited => match v {
            "" => err("Argument required (integer to set it to, or \"unlimited\").".into()),
            "unlimited" | "-1" => Ok("unlimited".into()),
            _ => match parse_signed(v) {
                Some(n) if n >= 0 && n <= i64::from(i32::MAX) => Ok(n.to_string()),
                Some(_) => err("only -1 is allowed to set as unlimited".into()),
                None => err(format!("No symbol \"{v}\" in current context.")),
            },
        },
        Kind::Unlimited | Kind::Int => {
            if v.is_empty() {
                return err(if kind == Kind::Int {
                    "Argument required (integer to set it to.).".into()
                } else {
                    "Argument required (integer to set it to, or \"unlimited\".).".into()
                });
            }
            if kind == Kind::Unlimited && "unlimited".starts_with(v) {
                return Ok("unlimited".into());
            }
            match parse_signed(v) {
                Some(n) if kind == Kind::Int => Ok(n.to_string()),
                Some(0) => Ok("unlimited".into()),
                Some(n) if n > 0 && n <= i64::from(u32::MAX) => Ok(n.to_string()),
                Some(n) => err(format!("integer {n} out of range")),
                None => err(format!("No symbol \"{v}\" in current context.")),
            }
        }
        Kind::Enum(words) => {
            let hits: Vec<&str> = words.iter().copied().filter(|w| w.starts_with(v)).collect();
            match (v.is_empty(), hits.as_slice()) {
                (false, [w]) => Ok((*w).to_string()),
                _ if words.contains(&v) => Ok(v.to_string()),
                (true, _) => err(format!(
                    "Requires an argument. Valid arguments are {}.",
                    words.join(", ")
                )),
                (false, []) => err(format!("Undefined item: \"{v}\".")),
                (false, _) => err(format!("Ambiguous item \"{v}\".")),
            }
        }
    }
}

/// The setting named by the words of `text` (`print pretty on` → `print pretty`, `on`), each
/// word of the name possibly a unique prefix, as gdb takes them (`print elem 10`).
fn find(text: &str) -> Option<(&'static Setting, &str)> {
    let t = text.trim();
    let exact = SETTINGS
        .iter()
        .filter_map(|s| {
            let rest = t.strip_prefix(s.name)?;
            (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| (s, rest.trim()))
        })
        .max_by_key(|(s, _)| s.name.len());
    exact.or_else(|| abbreviated(t))
}

/// [`find`] with abbreviated words: at each word, the one name word it is (exactly, or as the
/// only one it begins); `None` when a word matches none or several.
fn abbreviated(t: &str) -> Option<(&'static Setting, &str)> {
    let mut cands: Vec<(&'static Setting, Vec<&'static str>)> = SETTINGS
        .iter()
        .map(|s| (s, s.name.split(' ').collect()))
        .collect();
    let mut rest = t;
    for level in 0.. {
        let (word, after) = split_word(rest);
        if word.is_empty() {
            return None;
        }
        let mut words: Vec<&str> = cands
            .iter()
            .filter_map(|(_, w)| w.get(level).copied())
            .filter(|w| w.starts_with(word))
            .collect();
        words.sort_unstable();
        words.dedup();
        let chosen = match words.iter().find(|w| **w == word) {
            Some(w) => *w,
            None if words.len() == 1 => words[0],
            None => return None,
        };
        cands.retain(|(_, w)| w.get(level) == Some(&chosen));
        rest = after;
        // A whole name, unless the next word goes on into a longer one.
        if let Some((s, _)) = cands.iter().find(|(_, w)| w.len() == level + 1) {
            let (next, _) = split_word(rest);
            let longer = !next.is_empty()
                && cands
                    .iter()
                    .any(|(_, w)| w.get(level + 1).is_some_and(|n| n.starts_with(next)));
            if !longer {
                return Some((s, rest.trim()));
            }
        }
    }
    None
}

/// The print settings one `print -OPTION… --` overrode, to put back afterwards.
pub(crate) struct Saved {
    settings: Settings,
    elements: usize,
    repeats: usize,
}

impl Debugger {
    /// `set NAME VALUE` for a setting of [`SETTINGS`]; None for another `set`.
    pub(crate) fn set_setting(&mut self, text: &str) -> Option<Result<()>> {
        let (setting, v) = find(text)?;
        Some(self.store(setting, v))
    }

    fn store(&mut self, setting: &'static Setting, v: &str) -> Result<()> {
        let value = parse_value(setting.kind, v)?;
        if setting.name == "output-radix" {
            let n: u32 = value.parse().unwrap_or(0);
            if !matches!(n, 8 | 10 | 16) {
                return Err(EngineError::Other(format!(
                    "Unsupported output radix ``decimal {value}''; output radix unchanged."
                )));
            }
            if self.from_tty {
                out(format!(
                    "Output radix now set to decimal {n}, hex {n:x}, octal {n:o}."
                ));
            }
        }
        let limit = || match value.parse::<usize>() {
            Ok(n) => n,
            Err(_) => usize::MAX,
        };
        match setting.name {
            "print elements" => self.print_elements = limit(),
            "print repeats" => self.print_repeats = limit(),
            _ => {}
        }
        self.settings.values.insert(setting.name, value);
        Ok(())
    }

    /// `show NAME` for a setting of [`SETTINGS`]; None for another `show`.
    pub(crate) fn show_setting(&self, text: &str) -> Option<Result<()>> {
        let (setting, _) = find(text)?;
        let v = self.setting_text(setting);
        let v = match setting.kind {
            Kind::Enum(_) => format!("\"{v}\""),
            _ => v,
        };
        out(format!("{} is {v}.", setting.doc));
        Some(Ok(()))
    }

    /// A setting's value as `show` words it (`200`, `unlimited`, `off`).
    fn setting_text(&self, setting: &Setting) -> String {
        match setting.name {
            "print elements" => limit_text(self.print_elements),
            "print repeats" => limit_text(self.print_repeats),
            _ => self.settings.get(setting.name).to_string(),
        }
    }

    /// `$_gdb_setting(NAME)`: the setting's kind as gdb's `value_from_setting` converts it
    /// and its value as `show` words it; `None` when `NAME` is no setting cohort knows.
    pub(crate) fn setting_value(&self, text: &str) -> Option<(SettingKind, String)> {
        // The settings `show` knows outside the table.
        match gdb_resolve("show", text).unwrap_or_default().as_str() {
            "language" => {
                let l = self.language_set.map_or("auto", |l| l.name());
                return Some((SettingKind::Text, l.to_string()));
            }
            "args" => return Some((SettingKind::Text, self.args_string())),
            "cwd" => {
                let d = self.session.cwd.as_ref();
                let d = d.map_or_else(String::new, |d| d.display().to_string());
                return Some((SettingKind::Text, d));
            }
            "startup-with-shell" => {
                let v = if self.session.startup_with_shell {
                    "on"
                } else {
                    "off"
                };
                return Some((SettingKind::Bool, v.to_string()));
            }
            "disable-randomization" => {
                let v = if self.session.disable_randomization {
                    "on"
                } else {
                    "off"
                };
                return Some((SettingKind::Bool, v.to_string()));
            }
            "max-value-size" => {
                let v = self
                    .max_value_size
                    .map_or_else(|| "unlimited".to_string(), |n| n.to_string());
                return Some((SettingKind::ZUnlimited, v));
            }
            _ => {}
        }
        let (setting, rest) = find(text)?;
        if !rest.is_empty() {
            return None;
        }
        let kind = match setting.kind {
            Kind::Bool => SettingKind::Bool,
            // gdb 13's `listsize` is a signed `integer` setting, the others `uinteger`.
            Kind::Unlimited if setting.name == "listsize" => SettingKind::Int,
            Kind::Unlimited => SettingKind::UInt,
            Kind::Int => SettingKind::Int,
            Kind::ZUnlimited => SettingKind::ZUnlimited,
            Kind::Enum(_) => SettingKind::Text,
        };
        Some((kind, self.setting_text(setting)))
    }

    /// gdb's `lines_to_list`: `set listsize` (unlimited lists everything).
    pub(crate) fn lines_to_list(&self) -> u32 {
        self.settings
            .count("listsize")
            .map_or(u32::MAX / 4, |n| u32::try_from(n).unwrap_or(u32::MAX / 4))
    }

    /// `print -OPTION [VALUE]… -- EXPR`: the options are applied for this command (undone with
    /// [`Self::restore_print_options`]) and the text after `--` returned. Without a `--`
    /// token the whole text is the expression, as gdb reads `print -x`.
    pub(crate) fn print_options<'a>(&mut self, arg: &'a str) -> Result<(Option<Saved>, &'a str)> {
        let a = arg.trim_start();
        if !a.starts_with('-') || !a.split_whitespace().any(|w| w == "--") {
            return Ok((None, arg));
        }
        let saved = Saved {
            settings: self.settings.clone(),
            elements: self.print_elements,
            repeats: self.print_repeats,
        };
        let mut rest = a;
        let r = loop {
            let (word, after) = split_word(rest);
            if word == "--" {
                break Ok(after);
            }
            let name = word.trim_start_matches('-');
            let hits: Vec<&str> = PRINT_OPTIONS
                .iter()
                .copied()
                .filter(|o| o.starts_with(name))
                .collect();
            let option = match hits.as_slice() {
                _ if PRINT_OPTIONS.contains(&name) => name,
                [o] if !name.is_empty() && word.starts_with('-') => *o,
                [_, _, ..] if !name.is_empty() => {
                    break Err(EngineError::Other(format!("Ambiguous option at: {rest}")));
                }
                _ => {
                    break Err(EngineError::Other(format!(
                        "Unrecognized option at: {rest}"
                    )));
                }
            };
            let Some(setting) = SETTINGS
                .iter()
                .find(|s| s.name.strip_prefix("print ") == Some(option))
            else {
                // An option cohort has no setting for (`-raw-values`): its value is skipped.
                let (v, after2) = split_word(after);
                rest = if bool_word(v).is_some() && v != "--" && !v.is_empty() {
                    after2
                } else {
                    after
                };
                continue;
            };
            let (v, after2) = split_word(after);
            let (value, next) = match setting.kind {
                Kind::Bool if v != "--" && bool_word(v).is_some() && !v.is_empty() => (v, after2),
                Kind::Bool => ("on", after),
                _ if v == "--" || v.is_empty() => {
                    break Err(EngineError::Other(
                        "integer to set it to, or \"unlimited\" expected".into(),
                    ));
                }
                _ => (v, after2),
            };
            if let Err(e) = self.store(setting, value) {
                break Err(e);
            }
            rest = next;
        };
        match r {
            Ok(text) => Ok((Some(saved), text)),
            Err(e) => {
                self.restore_print_options(Some(saved));
                Err(e)
            }
        }
    }

    /// All settings as they are, for [`Self::restore_print_options`].
    pub(crate) fn save_settings(&self) -> Saved {
        Saved {
            settings: self.settings.clone(),
            elements: self.print_elements,
            repeats: self.print_repeats,
        }
    }

    pub(crate) fn restore_print_options(&mut self, saved: Option<Saved>) {
        if let Some(s) = saved {
            self.settings = s.settings;
            self.print_elements = s.elements;
            self.print_repeats = s.repeats;
        }
    }
}

/// A decimal, hex or octal integer with an optional sign.
fn parse_signed(v: &str) -> Option<i64> {
    let (neg, digits) = v.strip_prefix('-').map_or((false, v), |d| (true, d));
    let n = i64::try_from(crate::debugger::parse_number(digits)?).ok()?;
    Some(if neg { -n } else { n })
}

fn limit_text(n: usize) -> String {
    if n == usize::MAX {
        "unlimited".into()
    } else {
        n.to_string()
    }
}

/// The first whitespace-separated word of `s` and what follows it (spaces skipped).
fn split_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim_start()),
        None => (s, ""),
    }
}

/// The names of the settings `set` stores and `show` reports from cohort's table
/// (`print pretty`, `listsize`), for `help`.
pub(crate) fn table_names() -> impl Iterator<Item = &'static str> {
    SETTINGS.iter().map(|s| s.name)
}

/// gdb's subcommands of the set/show prefix `prefix` (`set print`): each name with its
/// aliases under the same prefix, in gdb's order; `None` when `prefix` is not a prefix.
pub(crate) fn gdb_subcommands(prefix: &str) -> Option<Vec<(&'static str, Vec<&'static str>)>> {
    let words = gdb_words(prefix)?;
    let mut out: Vec<(&'static str, Vec<&'static str>)> = words
        .iter()
        .filter(|w| !w.contains('>'))
        .map(|w| (*w, Vec::new()))
        .collect();
    for w in &words {
        if let Some((alias, target)) = w.split_once('>')
            && let Some(e) = out.iter_mut().find(|e| e.0 == target)
        {
            e.1.push(alias);
        }
    }
    Some(out)
}

/// gdb 13's subcommands of `set` and `show` and their prefixes, with aliases
/// (`scripts/gen-setting-words.py`).
const GDB_WORDS: &str = include_str!("setting_words.txt");

/// The names (and `ALIAS>NAME` aliases) under the prefix command `prefix` (`set print`), in
/// gdb's order; `None` when `prefix` has no subcommands.
fn gdb_words(prefix: &str) -> Option<Vec<&'static str>> {
    let head = format!("[{prefix}]");
    let mut lines = GDB_WORDS.lines().skip_while(|l| *l != head);
    lines.next()?;
    Some(
        lines
            .take_while(|l| !l.starts_with('['))
            .filter(|l| !l.starts_with('#'))
            .collect(),
    )
}

/// gdb's lookup of the words of `text` after `cmd` (`set` or `show`) through its command
/// lists: `text` with each command word written out (`p pre on` → `print pretty on`), or
/// gdb's error when a word begins several subcommands and is none of them
/// (`Ambiguous show command "conf": configuration, confirm.`), even where cohort knows only
/// one of them.
pub(crate) fn gdb_resolve(cmd: &str, text: &str) -> std::result::Result<String, String> {
    let mut prefix = cmd.to_string();
    let mut rest = text.trim();
    let mut words: Vec<&str> = Vec::new();
    let done = |words: &[&str], rest: &str| {
        let mut t = words.join(" ");
        if !rest.is_empty() {
            if !t.is_empty() {
                t.push(' ');
            }
            t.push_str(rest);
        }
        t
    };
    loop {
        let Some(entries) = gdb_words(&prefix) else {
            return Ok(done(&words, rest));
        };
        // gdb's command words: letters, digits, `-` and `_`.
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..end];
        if word.is_empty() {
            return Ok(done(&words, rest));
        }
        let name_of = |e: &'static str| e.split_once('>').map_or(e, |(a, _)| a);
        let target_of = |e: &'static str| e.split_once('>').map_or(e, |(_, t)| t);
        let found: Vec<&str> = entries
            .iter()
            .copied()
            .filter(|e| name_of(e).starts_with(word))
            .collect();
        let chosen = match found.iter().find(|e| name_of(e) == word) {
            Some(e) => target_of(e),
            None if found.len() == 1 => target_of(found[0]),
            None if found.is_empty() => return Ok(done(&words, rest)),
            None => {
                // gdb's buffer of 100 bytes: names while they fit, then `..`.
                let mut list = String::new();
                for e in &found {
                    let n = name_of(e);
                    if list.len() + n.len() + 6 < 100 {
                        if !list.is_empty() {
                            list.push_str(", ");
                        }
                        list.push_str(n);
                    } else {
                        list.push_str("..");
                        break;
                    }
                }
                return Err(format!("Ambiguous {prefix} command \"{rest}\": {list}."));
            }
        };
        words.push(chosen);
        prefix = format!("{prefix} {chosen}");
        rest = rest[end..].trim_start();
    }
}
