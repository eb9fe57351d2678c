//! gdb's command language: `define`/`document` (user commands with `$arg0`… and `$argc`),
//! `if`/`else`/`while`/`end`, breakpoint `commands … end` (`silent`), `dprintf`, `printf`
//! and `echo`. A block is read line by line from wherever commands come from (a `-x` or
//! `source` script, standard input): [`Debugger::run_command`] hands each line to
//! [`Debugger::block_line`] while one is open.

use std::collections::{HashMap, HashSet};

use cohort_dwarf::types::{Encoding, Type, TypeKind};
use cohort_dwarf::value::Value;
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

fn err<T>(m: impl Into<String>) -> Result<T> {
    Err(EngineError::Other(m.into()))
}

/// Why the program last stopped, for `info program`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopReason {
    Breakpoint(u32),
    /// A temporary or internal breakpoint (`tbreak`, `finish`, `until LOCATION`).
    Deleted,
    Stepped,
    /// `SIGSEGV, Segmentation fault`.
    Signal(String),
}

/// What a block being read is for.
#[derive(Debug, Clone)]
enum BlockKind {
    Define(String),
    Document(String),
    While(String),
    If(String),
    Commands(Vec<u32>),
}

/// A block being read: its kind, its lines so far (`else` splits an `if`), nesting depth.
#[derive(Debug, Clone)]
struct Block {
    kind: BlockKind,
    lines: Vec<String>,
    else_lines: Option<Vec<String>>,
    depth: usize,
}

#[derive(Debug, Default)]
pub(crate) struct ScriptState {
    /// User-defined commands: their lines.
    user: HashMap<String, Vec<String>>,
    /// `document` texts of user commands.
    docs: HashMap<String, String>,
    /// Commands of each breakpoint (`commands N … end`), as typed (trimmed).
    bp_commands: HashMap<u32, Vec<String>>,
    /// Breakpoints made by `dprintf`, with their `printf` arguments.
    pub(crate) dprintf: HashMap<u32, String>,
    /// Catchpoints made by `catch throw|catch|rethrow`: which event.
    pub(crate) catchpoints: HashMap<u32, &'static str>,
    /// The child of the last fork each fork catchpoint caught (`info breakpoints` shows it).
    pub(crate) forked: HashMap<u32, i32>,
    /// The program the last exec each exec catchpoint caught ran (`info breakpoints`).
    pub(crate) execd: HashMap<u32, String>,
    /// The block being read.
    block: Option<Block>,
    /// The breakpoint whose stop was reported last, its commands not run yet.
    pub(crate) stop_bp: Option<u32>,
    /// Breakpoint commands are running (a `continue` among them does not run others itself).
    in_bp_commands: bool,
    /// `set logging …`: file (None: `gdb.txt`), overwrite, redirect, debugredirect, enabled.
    log_file: Option<String>,
    log_overwrite: bool,
    log_redirect: bool,
    log_debugredirect: bool,
    log_enabled: bool,
    /// Why the program last stopped.
    stop_reason: Option<StopReason>,
    /// The count of the last `x` command.
    x_count: usize,
    /// Breakpoints made by `hbreak` (listed as `hw breakpoint`).
    hardware: HashSet<u32>,
    /// A `watch` without `if` is being run by [`Debugger::cmd_watch_if`].
    in_watch: bool,
    /// Nesting of user commands (gdb's `max-user-call-depth`).
    call_depth: usize,
    /// Breakpoints whose commands start with `silent`.
    silent: HashSet<u32>,
}

/// Whether a line opens a nested block (counted to find its `end`).
fn opens_block(line: &str) -> bool {
    let w = line.split_whitespace().next().unwrap_or("");
    matches!(
        w,
        "while" | "if" | "define" | "document" | "commands" | "command" | "python" | "compile"
    )
}

impl Debugger {
    /// While a block is open, `line` belongs to it; Some when it was taken.
    pub(crate) fn block_line(&mut self, line: &str) -> Option<Result<Flow>> {
        let mut b = self.script.block.take()?;
        let t = line.trim();
        let raw = matches!(b.kind, BlockKind::Document(_));
        if t == "end" && b.depth == 0 {
            return Some(self.close_block(b));
        }
        if !raw {
            if t == "end" {
                b.depth -= 1;
            } else if opens_block(t) {
                b.depth += 1;
            }
        }
        if t == "else" && b.depth == 0 && matches!(b.kind, BlockKind::If(_)) {
            b.else_lines = Some(Vec::new());
        } else {
            let keep = if raw { line.trim_start() } else { t };
            match &mut b.else_lines {
                Some(l) => l.push(keep.to_string()),
                None => b.lines.push(keep.to_string()),
            }
        }
        self.script.block = Some(b);
        Some(Ok(Flow::Go))
    }

    fn open_block(&mut self, kind: BlockKind) -> Result<Flow> {
        self.script.block = Some(Block {
            kind,
            lines: Vec::new(),
            else_lines: None,
            depth: 0,
        });
        Ok(Flow::Go)
    }

    fn close_block(&mut self, b: Block) -> Result<Flow> {
        match b.kind {
            BlockKind::Define(name) => {
                self.script.user.insert(name, b.lines);
                Ok(Flow::Go)
            }
            BlockKind::Document(name) => {
                self.script.docs.insert(name, b.lines.join("\n"));
                Ok(Flow::Go)
            }
            BlockKind::Commands(ids) => {
                for id in ids {
                    let lines = b.lines.clone();
                    if lines.first().is_some_and(|l| l == "silent") {
                        self.script.silent.insert(id);
                    } else {
                        self.script.silent.remove(&id);
                    }
                    if lines.is_empty() {
                        self.script.bp_commands.remove(&id);
                    } else {
                        self.script.bp_commands.insert(id, lines);
                    }
                }
                Ok(Flow::Go)
            }
            BlockKind::If(cond) => {
                let lines = if self.condition_true(&cond)? {
                    b.lines
                } else {
                    b.else_lines.unwrap_or_default()
                };
                self.run_lines(&lines)
            }
            BlockKind::While(cond) => {
                while self.condition_true(&cond)? {
                    if self.run_lines(&b.lines)? == Flow::Quit {
                        return Ok(Flow::Quit);
                    }
                }
                Ok(Flow::Go)
            }
        }
    }

    fn condition_true(&mut self, cond: &str) -> Result<bool> {
        let v = self.evaluate(cond)?;
        cohort_dwarf::expr::is_truthy(&v).map_err(|e| EngineError::Other(e.to_string()))
    }

    /// Run lines of a block or a user command; the first error ends them.
    fn run_lines(&mut self, lines: &[String]) -> Result<Flow> {
        for l in lines {
            if self.run_command(l)? == Flow::Quit {
                return Ok(Flow::Quit);
            }
        }
        if let Some(b) = self.script.block.take() {
            // A block left open at the end of the body is dropped, as gdb does.
            drop(b);
        }
        Ok(Flow::Go)
    }

    /// Whether a block (`define`, `while`, `if`, `commands`, `document`) is being read: the
    /// next line belongs to it (an interactive session prompts with `>`).
    pub fn in_block(&self) -> bool {
        self.script.block.is_some()
    }

    /// The prompt for the next line of a block: gdb's `>`, after a space a control level
    /// (`while` and `if` typed at the top are one level in).
    pub fn block_prompt(&self) -> String {
        let level = self.script.block.as_ref().map_or(0, |b| match b.kind {
            BlockKind::While(_) | BlockKind::If(_) => b.depth + 1,
            _ => b.depth,
        });
        format!("{}>", " ".repeat(level))
    }

    /// The commands of the language, before the built-in ones: Some when `cmd` is one.
    pub(crate) fn script_dispatch(&mut self, cmd: &str, rest: &str) -> Option<Result<Flow>> {
        Some(match cmd {
            "define" => self.cmd_define(rest),
            "document" => self.cmd_document(rest),
            "while" => match rest.trim() {
                "" => err("while command requires an argument (an expression)"),
                c => self.open_block(BlockKind::While(c.to_string())),
            },
            "if" => match rest.trim() {
                "" => err("if command requires an argument (an expression)"),
                c => self.open_block(BlockKind::If(c.to_string())),
            },
            "commands" | "command" => self.cmd_commands(rest),
            "printf" => self.cmd_printf(rest),
            "echo" => {
                crate::out!("{}", echo_text(rest));
                Ok(Flow::Go)
            }
            "dprintf" => self.cmd_dprintf(rest),
            "break" | "b" | "br" | "bre" | "brea" | "tbreak" | "tb" => {
                let temporary = cmd.starts_with('t');
                // `-q`/`-qualified`: names are taken as fully qualified (all of C's are).
                let mut arg = rest;
                while let Some(r) = ["-qualified", "-q"].iter().find_map(|o| {
                    arg.strip_prefix(o)
                        .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
                }) {
                    arg = r.trim_start();
                }
                // `break if COND`: here, with a condition.
                match arg
                    .strip_prefix("if")
                    .filter(|c| c.starts_with(char::is_whitespace))
                {
                    Some(cond) => self.break_here_if(cond.trim(), temporary),
                    None => self.made_breakpoint(|d| d.cmd_break(arg, temporary)),
                }
            }
            "hbreak" | "thbreak" => {
                let temporary = cmd.starts_with('t');
                let title = "Hardware assisted breakpoint";
                let before = self.session.breakpoints().iter().map(|b| b.id).max();
                let r = self.made_breakpoint(|d| d.break_titled(rest, title, temporary));
                let after = self.session.breakpoints().iter().map(|b| b.id).max();
                if let Some(id) = after
                    && after != before
                {
                    self.script.hardware.insert(id);
                }
                r
            }
            "set" if split_word(rest).0 == "logging" => self.cmd_set_logging(split_word(rest).1),
            "show" if split_word(rest).0 == "logging" => self.cmd_show_logging(split_word(rest).1),
            // Cohort's own banner, not gdb's.
            "show" if crate::settings::gdb_resolve("show", rest).is_ok_and(|r| r == "version") => {
                out(format!("Cohort {}", env!("CARGO_PKG_VERSION")));
                out("A parallel debugger compatible with gdb's command language.");
                Ok(Flow::Go)
            }
            "show" if rest.starts_with("user") && !rest.starts_with("user-") => {
                self.cmd_show_user(rest.strip_prefix("user").unwrap_or(""))
            }
            "watch" | "rwatch" | "awatch" if !self.script.in_watch => self.cmd_watch_if(cmd, rest),
            "rbreak" => self.cmd_rbreak(rest),
            "select-frame" => self.cmd_select_frame(rest),
            "up-silently" | "down-silently" => {
                let dir = if cmd.starts_with("up") { "up" } else { "down" };
                let (r, got) = crate::output::capture(|| self.dispatch(&format!("{dir} {rest}")));
                if !got.err.is_empty() {
                    crate::output::write_err(&got.err);
                }
                r
            }
            "with" | "w" => self.cmd_with(rest),
            "info" | "i" | "inf" if split_word(rest).0 == "program" => self.cmd_info_program(),
            // `x` alone repeats the last count (gdb's `last_count`).
            "x" if rest.is_empty() && self.script.x_count > 1 => {
                let n = self.script.x_count;
                self.cmd_x(&format!("/{n}"))
            }
            "x" => {
                let count: String = rest
                    .strip_prefix('/')
                    .unwrap_or("")
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                self.script.x_count = count.parse().unwrap_or(1);
                self.cmd_x(rest)
            }
            "save" => match split_word(rest) {
                ("breakpoints", file) => self.cmd_save_breakpoints(file),
                _ => err(format!(
                    "Undefined save command: \"{rest}\".  Try \"help save\"."
                )),
            },
            "shell" => self.cmd_shell(rest),
            c if c.starts_with('!') => self.cmd_shell(&format!("{} {rest}", &c[1..])),
            "frame" | "f" if rest.starts_with("apply") => {
                self.cmd_frame_apply(rest.strip_prefix("apply").unwrap_or(rest))
            }
            "faas" => self.apply_all_silently(rest),
            "taas" if rest.is_empty() => err("Please specify a command to apply on all threads"),
            "taas" => self.dispatch(&format!("thread apply all -s {rest}")),
            "tfaas" => self.cmd_tfaas(rest),
            "help" | "h" => self.cmd_help(rest),
            "apropos" => self.cmd_apropos(rest),
            "complete" => self.cmd_complete(rest),
            "silent" if self.script.in_bp_commands => Ok(Flow::Go),
            "end" => err("This command cannot be used at the top level."),
            _ => match self.script.user.get(cmd).cloned() {
                Some(lines) => self.call_user(cmd, lines, rest),
                None => return None,
            },
        })
    }

    fn cmd_define(&mut self, arg: &str) -> Result<Flow> {
        let name = arg.trim();
        if name.is_empty() {
            return err("Argument required (name of command to define).");
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return err(format!("Invalid command name \"{name}\"."));
        }
        self.open_block(BlockKind::Define(name.to_string()))
    }

    fn cmd_document(&mut self, arg: &str) -> Result<Flow> {
        let name = arg.trim();
        if name.is_empty() {
            return err("Argument required (name of command to define).");
        }
        if !self.script.user.contains_key(name) {
            return err(format!("Undefined command: \"{name}\"."));
        }
        self.open_block(BlockKind::Document(name.to_string()))
    }

    /// `commands [N…]`: the last breakpoint made when none is named.
    fn cmd_commands(&mut self, arg: &str) -> Result<Flow> {
        let ids: Vec<u32> = if arg.trim().is_empty() {
            match self.session.breakpoints().iter().map(|b| b.id).max() {
                Some(id) => vec![id],
                None => return err("No breakpoints specified."),
            }
        } else {
            let mut v = Vec::new();
            for w in arg.split_whitespace() {
                match w.parse::<u32>() {
                    Ok(id) if self.session.breakpoints().iter().any(|b| b.id == id) => v.push(id),
                    Ok(id) => return err(format!("No breakpoint number {id}.")),
                    Err(_) => return err(format!("Invalid breakpoint number: {w}")),
                }
            }
            v
        };
        self.open_block(BlockKind::Commands(ids))
    }

    fn call_user(&mut self, name: &str, lines: Vec<String>, args: &str) -> Result<Flow> {
        if self.script.call_depth >= 1024 {
            return err("Max user call depth exceeded -- command aborted.");
        }
        let argv = split_args(args);
        let lines: Vec<String> = lines.iter().map(|l| substitute_args(l, &argv)).collect();
        tracing::debug!("user command {name}: {} lines", lines.len());
        self.script.call_depth += 1;
        let r = self.run_lines(&lines);
        self.script.call_depth -= 1;
        r
    }

    /// Run `make`, which may create a breakpoint; a new one's number becomes `$bpnum`.
    fn made_breakpoint(&mut self, make: impl FnOnce(&mut Self) -> Result<Flow>) -> Result<Flow> {
        let before = self.session.breakpoints().iter().map(|b| b.id).max();
        let r = make(self);
        let after = self.session.breakpoints().iter().map(|b| b.id).max();
        if let Some(id) = after
            && after != before
        {
            self.set_convenience_int("bpnum", i64::from(id));
        }
        r
    }

    /// gdb's `clear_exit_convenience_vars`: `$_exitsignal` and `$_exitcode` void.
    pub(crate) fn clear_exit_variables(&mut self) {
        let mut conv = self.data.convenience.borrow_mut();
        conv.clear("_exitsignal");
        conv.clear("_exitcode");
    }

    /// Convenience variable `$NAME` set to an `int`.
    pub(crate) fn set_convenience_int(&mut self, name: &str, v: i64) {
        let ty = Type::base("int", 4, Encoding::Signed);
        let bytes = (v as i32).to_le_bytes().to_vec();
        self.data.convenience.borrow_mut().insert(
            name.to_string(),
            Value::new(ty, bytes, cohort_dwarf::value::Lval::None),
        );
    }

    /// `watch EXPR if COND` (and `rwatch`, `awatch`): the watchpoint with a condition.
    fn cmd_watch_if(&mut self, cmd: &str, rest: &str) -> Result<Flow> {
        let (expr, cond) = match split_if(rest) {
            Some((e, c)) => (e, Some(c)),
            None => (rest, None),
        };
        let line = format!("{cmd} {expr}");
        // `dispatch` runs the built-in command: the text no longer has an `if`, and `watch`
        // without one does not come back here.
        let r = self.made_breakpoint(|d| d.dispatch_watch(&line));
        r?;
        if let Some(c) = cond
            && let Some(id) = self.session.breakpoints().iter().map(|b| b.id).max()
        {
            self.session.set_condition(id, Some(c.to_string()))?;
        }
        Ok(Flow::Go)
    }

    fn dispatch_watch(&mut self, line: &str) -> Result<Flow> {
        self.script.in_watch = true;
        let r = self.dispatch(line);
        self.script.in_watch = false;
        r
    }

    /// `faas [-q] [-c] [-s] COMMAND`: `frame apply all -s`.
    fn apply_all_silently(&mut self, command: &str) -> Result<Flow> {
        let n = self.frames(usize::MAX).len();
        if !self.session.is_running() || n == 0 {
            return err("No stack.");
        }
        let (flags, command) = apply_flags(command, false);
        if command.is_empty() {
            return err("Please specify a command to apply on all frames");
        }
        if flags.cont {
            return err("frame apply all: -c and -s are mutually exclusive");
        }
        let levels: Vec<usize> = (0..n).collect();
        self.apply_to_frames(&levels, command, flags.quiet, false, true)
    }

    /// `tfaas [-q] [-c] [-s] COMMAND`: `thread apply all -s -- frame apply all -s …`.
    fn cmd_tfaas(&mut self, command: &str) -> Result<Flow> {
        if command.trim().is_empty() {
            return err("Please specify a command to apply on all frames of all threads");
        }
        self.dispatch(&format!(
            "thread apply all -s -- frame apply all -s {}",
            command.trim()
        ))
    }

    /// For `watch -location EXPR` (`-l`): `* (TYPE *) ADDRESS`, the object EXPR is now, and
    /// the watchpoint's text (`-location EXPR`).
    pub(crate) fn location_watch_expr(&mut self, arg: &str) -> Result<Option<(String, String)>> {
        let Some(inner) = ["-location", "-l"].iter().find_map(|o| {
            arg.strip_prefix(o)
                .filter(|r| r.starts_with(char::is_whitespace))
        }) else {
            return Ok(None);
        };
        let v = self.evaluate(inner.trim())?;
        let Some(addr) = v.address() else {
            return err("Cannot take address of value not located in memory.");
        };
        let ty = cohort_dwarf::format::type_name(&v.ty);
        Ok(Some((
            format!("* ({ty} *) {addr:#x}"),
            format!("-location {}", inner.trim()),
        )))
    }

    /// `show user [NAME]`: the definitions of user commands.
    fn cmd_show_user(&mut self, arg: &str) -> Result<Flow> {
        let name = arg.trim();
        let mut names: Vec<String> = if name.is_empty() {
            self.script.user.keys().cloned().collect()
        } else if self.script.user.contains_key(name) {
            vec![name.to_string()]
        } else {
            return err(format!("Undefined command: \"{name}\".  Try \"help\"."));
        };
        names.sort();
        for n in names {
            out(format!("User command \"{n}\":"));
            if let Some(lines) = self.script.user.get(&n) {
                for l in indented(lines, 2) {
                    out(l);
                }
            }
            out("");
        }
        Ok(Flow::Go)
    }

    /// `set logging file|overwrite|redirect|debugredirect|enabled …` and the deprecated
    /// `set logging on|off`.
    fn cmd_set_logging(&mut self, arg: &str) -> Result<Flow> {
        let (what, value) = split_word(arg);
        let flag = |v: &str| match v {
            "" | "on" | "1" | "yes" | "enable" => Ok(true),
            "off" | "0" | "no" | "disable" => Ok(false),
            _ => err("\"on\" or \"off\" expected."),
        };
        match what {
            "file" => {
                if value.is_empty() {
                    return err("Argument required (filename to set it to.).");
                }
                self.script.log_file = Some(value.to_string());
            }
            "overwrite" => self.script.log_overwrite = flag(value)?,
            "redirect" => self.script.log_redirect = flag(value)?,
            "debugredirect" => self.script.log_debugredirect = flag(value)?,
            "enabled" => self.logging(flag(value)?)?,
            "on" | "off" => {
                let on = what == "on";
                out(format!(
                    "Warning: 'set logging {what}', an alias for the command 'set logging enabled', is deprecated.\nUse 'set logging enabled {what}'.\n"
                ));
                if on && !value.is_empty() {
                    self.script.log_file = Some(value.to_string());
                }
                self.logging(on)?;
            }
            "" => {
                return err("\"set logging\" must be followed by the name of a subcommand.");
            }
            w => {
                return err(format!(
                    "Undefined set logging command: \"{w}\".  Try \"help set logging\"."
                ));
            }
        }
        Ok(Flow::Go)
    }

    fn logging(&mut self, on: bool) -> Result<()> {
        if !on {
            crate::output::set_log(None);
            self.script.log_enabled = false;
            return Ok(());
        }
        let name = self
            .script
            .log_file
            .clone()
            .unwrap_or_else(|| "gdb.txt".into());
        let file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(!self.script.log_overwrite)
            .truncate(self.script.log_overwrite)
            .open(&name)
            .map_err(|e| EngineError::Other(format!("{name}: {e}.")))?;
        if self.from_tty {
            if self.script.log_redirect {
                out(format!("Redirecting output to {name}."));
            } else {
                out(format!("Copying output to {name}."));
            }
            if self.script.log_debugredirect {
                out(format!("Redirecting debug output to {name}."));
            } else {
                out(format!("Copying debug output to {name}."));
            }
        }
        crate::output::set_log(Some((file, self.script.log_redirect)));
        self.script.log_enabled = true;
        Ok(())
    }

    /// `show logging [SETTING]`.
    fn cmd_show_logging(&mut self, arg: &str) -> Result<Flow> {
        let s = &self.script;
        let onoff = |b: bool| if b { "on" } else { "off" };
        let file = s.log_file.clone().unwrap_or_else(|| "gdb.txt".into());
        let debugredirect = if s.log_debugredirect {
            "Debug output will go only to the log file."
        } else {
            "Debug output will go to both the screen and the log file."
        };
        let enabled = if s.log_enabled {
            "Logging is enabled."
        } else {
            "Logging is disabled."
        };
        let file_line = format!("The current logfile is \"{file}\".");
        let overwrite = if s.log_overwrite {
            "Logging overwrites the log file."
        } else {
            "Logging appends to the log file."
        };
        let redirect = if s.log_redirect {
            "Output will go only to the log file."
        } else {
            "Output will go to both the screen and the log file."
        };
        let rows = [
            (
                "debugredirect",
                Some(s.log_debugredirect),
                debugredirect.to_string(),
            ),
            ("enabled", Some(s.log_enabled), enabled.to_string()),
            ("file", None, file_line),
            ("overwrite", Some(s.log_overwrite), overwrite.to_string()),
            ("redirect", Some(s.log_redirect), redirect.to_string()),
        ];
        match arg.trim() {
            "" => {
                for (name, b, text) in rows {
                    match b {
                        Some(b) => out(format!("logging {name}:  {}: {text}", onoff(b))),
                        None => out(format!("logging {name}:  {text}")),
                    }
                }
            }
            w => match rows.iter().find(|r| r.0 == w) {
                Some((_, Some(b), text)) => out(format!("{}: {text}", onoff(*b))),
                Some((_, None, text)) => out(text),
                None => {
                    return err(format!(
                        "Undefined show logging command: \"{w}\".  Try \"help show logging\"."
                    ));
                }
            },
        }
        Ok(Flow::Go)
    }

    /// After `x`: `$_` is the last unit's address (an `intN_t *`), `$__` its contents.
    pub(crate) fn examined(&mut self, addr: u64, bytes: Vec<u8>) {
        let size = bytes.len() as u64;
        let name = match size {
            1 => "int8_t",
            2 => "int16_t",
            4 => "int32_t",
            _ => "int64_t",
        };
        let unit = Type::base(name, size, Encoding::Signed);
        let ptr = Type::pointer_to(unit.clone(), self.session.arch().ptr_size as u64);
        let mut conv = self.data.convenience.borrow_mut();
        conv.insert(
            "_".into(),
            Value::new(
                ptr,
                addr.to_le_bytes().to_vec(),
                cohort_dwarf::value::Lval::None,
            ),
        );
        conv.insert(
            "__".into(),
            Value::new(unit, bytes, cohort_dwarf::value::Lval::Memory(addr)),
        );
    }

    /// `with SETTING [VALUE] [-- COMMAND]`: the setting changed for one command.
    fn cmd_with(&mut self, arg: &str) -> Result<Flow> {
        let (setting, command) = match arg.split_once(" --") {
            Some((s, c)) => (s.trim(), c.trim()),
            None => (arg.trim(), ""),
        };
        if setting.is_empty() {
            return err("Missing arguments.");
        }
        let saved = self.save_settings();
        let r = match self.set_setting(setting) {
            Some(Ok(())) => self.run_command(command),
            Some(Err(e)) => Err(e),
            None => err(format!(
                "Undefined set command: \"{}\".  Try \"help set\".",
                setting.split_whitespace().next().unwrap_or("")
            )),
        };
        self.restore_print_options(Some(saved));
        r
    }

    /// `rbreak REGEX`: a breakpoint on every function whose name matches, each followed by
    /// its declaration (functions without debug information: `<function, no debug info>`).
    fn cmd_rbreak(&mut self, arg: &str) -> Result<Flow> {
        let pattern = arg.trim();
        let re = crate::symtab_info::Regex::new(pattern)
            .map_err(|e| EngineError::Other(format!("Invalid regexp: {e}")))?;
        let mut found: Vec<(String, String)> = Vec::new();
        let mut with_debug = HashSet::new();
        for (d, _) in self.debug_objects() {
            for g in d.functions_by_file(|n| re.is_match(n)) {
                for f in g.entries {
                    with_debug.insert(f.name.clone());
                    let decl = crate::symtab_info::function_declaration(&d, &f);
                    found.push((format!("{}:{}", g.file, f.name), decl));
                }
            }
        }
        let mut nodebug: Vec<(u64, String)> = Vec::new();
        for o in self.session.symbols().objects() {
            for s in o.file.symbols() {
                let name = s.print_name();
                if s.kind == cohort_engine::symbols::SymKind::Function
                    && !name.is_empty()
                    && !with_debug.contains(name)
                    && re.is_match(name)
                {
                    nodebug.push((s.addr.wrapping_add(o.bias), name.to_string()));
                }
            }
        }
        nodebug.sort();
        nodebug.dedup();
        for (spec, decl) in found {
            self.made_breakpoint(|d| d.cmd_break(&spec, false))?;
            out(decl);
        }
        for (_, name) in nodebug {
            self.made_breakpoint(|d| d.cmd_break(&format!("'{name}'"), false))?;
            out(format!("<function, no debug info> {name};"));
        }
        Ok(Flow::Go)
    }
}

impl Debugger {
    /// The names of the user-defined commands.
    pub(crate) fn user_commands(&self) -> Vec<String> {
        self.script.user.keys().cloned().collect()
    }

    /// `help USER-COMMAND`: its documentation (`User-defined.` without one). None for a
    /// command that is not user-defined.
    pub(crate) fn user_help(&self, name: &str) -> Option<String> {
        if !self.script.user.contains_key(name) {
            return None;
        }
        Some(
            self.script
                .docs
                .get(name)
                .cloned()
                .unwrap_or_else(|| "User-defined.".to_string()),
        )
    }

    /// Whether the stop at breakpoint `id` is reported (not when its commands begin with
    /// `silent`).
    pub(crate) fn breakpoint_silent(&self, id: u32) -> bool {
        self.script.silent.contains(&id)
    }

    /// After a command: the commands of the breakpoint the program stopped at, as gdb's
    /// `bpstat_do_actions` (again while they resume it into another such stop).
    pub(crate) fn run_breakpoint_commands(&mut self) -> Result<Flow> {
        if self.script.in_bp_commands {
            return Ok(Flow::Go);
        }
        let mut flow = Ok(Flow::Go);
        while let Some(id) = self.script.stop_bp.take() {
            let Some(lines) = self.script.bp_commands.get(&id).cloned() else {
                continue;
            };
            self.script.in_bp_commands = true;
            flow = self.run_lines(&lines);
            self.script.in_bp_commands = false;
            if !matches!(flow, Ok(Flow::Go)) {
                self.script.stop_bp = None;
                break;
            }
        }
        flow
    }

    /// The lines `info breakpoints` shows under breakpoint `id`: its commands, indented
    /// eight spaces and two more a nested level.
    pub(crate) fn breakpoint_command_lines(&self, id: u32) -> Vec<String> {
        if let Some(args) = self.script.dprintf.get(&id) {
            return vec![format!("        printf {args}")];
        }
        match self.script.bp_commands.get(&id) {
            Some(lines) => indented(lines, 8),
            None => Vec::new(),
        }
    }

    /// `save breakpoints FILE`: commands that make the breakpoints again (gdb's
    /// `print_recreate`).
    fn cmd_save_breakpoints(&mut self, arg: &str) -> Result<Flow> {
        let file = arg.trim();
        if file.is_empty() {
            return err("Argument required (file name in which to save)");
        }
        if self.session.breakpoints().is_empty() {
            out("Nothing to save.");
            return Ok(Flow::Go);
        }
        let text = self.recreate_breakpoints(false);
        std::fs::write(file, text).map_err(|e| {
            EngineError::Other(format!("Unable to open file '{file}' for saving ({e})"))
        })?;
        if self.from_tty {
            out(format!("Saved to file '{file}'."));
        }
        Ok(Flow::Go)
    }

    /// The commands that make the breakpoints again, as `save breakpoints` writes them. For
    /// a saved session (`for_session`, see [`Debugger::session_state`]) every line of a
    /// breakpoint after its first is indented (`disable $bpnum` too), and a watchpoint on
    /// locals has `scope FUNCTION` under it: the function whose locals it watches, where it
    /// can be set again (the restore says so where it cannot).
    pub(crate) fn recreate_breakpoints(&self, for_session: bool) -> String {
        use cohort_engine::session::{BpKind, BpSpec};
        let mut text = String::new();
        for b in self.session.breakpoints() {
            let spec = match &b.spec {
                BpSpec::Symbol(n) | BpSpec::Location(n) => n.clone(),
                BpSpec::SymbolExact(n) => format!("*{n}"),
                BpSpec::Address(a) => format!("*{a:#x}"),
            };
            match &b.kind {
                BpKind::Watch { kind, expr, .. } => {
                    let cmd = match self.watch_type(b.id, *kind) {
                        "read watchpoint" => "rwatch",
                        "acc watchpoint" => "awatch",
                        _ => "watch",
                    };
                    text.push_str(&format!("{cmd} {expr}\n"));
                    if for_session && let Some(f) = self.watch_function(b.id) {
                        text.push_str(&format!("  scope {f}\n"));
                    }
                }
                BpKind::Catch(c) => text.push_str(&format!("catch {}\n", catch_words(c))),
                BpKind::Software => match self.script.dprintf.get(&b.id) {
                    Some(args) => text.push_str(&format!("dprintf {spec},{args}\n")),
                    None => {
                        let cmd = match (b.temporary, self.script.hardware.contains(&b.id)) {
                            (false, false) => "break",
                            (true, false) => "tbreak",
                            (false, true) => "hbreak",
                            (true, true) => "thbreak",
                        };
                        text.push_str(&format!("{cmd} {spec}\n"));
                    }
                },
            }
            if let Some(c) = &b.condition {
                text.push_str(&format!("  condition $bpnum {c}\n"));
            }
            if b.ignore > 0 {
                text.push_str(&format!("  ignore $bpnum {}\n", b.ignore));
            }
            if let Some(lines) = self.script.bp_commands.get(&b.id) {
                text.push_str("  commands\n");
                for l in indented(lines, 4) {
                    text.push_str(&l);
                    text.push('\n');
                }
                text.push_str("  end\n");
            }
            if !b.enabled {
                text.push_str(if for_session {
                    "  disable $bpnum\n"
                } else {
                    "disable $bpnum\n"
                });
            }
        }
        text
    }

    /// What a multi-rank session keeps for its next session of the same program (`cohort
    /// launch`, the agent's `:session-save`): the commands that make this rank's breakpoints
    /// (see [`Debugger::recreate_breakpoints`]) and displays again, one item a line, the
    /// lines that complete an item indented under it.
    pub fn session_state(&self) -> String {
        let mut text = self.recreate_breakpoints(true);
        for d in self.data.displays.borrow().iter() {
            match d.spec.as_str() {
                "" => text.push_str(&format!("display {}\n", d.text)),
                f => text.push_str(&format!("display/{f} {}\n", d.text)),
            }
            let function = match &d.pending {
                Some(crate::data::DisplayScope::Function(f)) => Some(f),
                _ => d.function.as_ref(),
            };
            if let Some(f) = function {
                text.push_str(&format!("  scope {f}\n"));
            }
        }
        text
    }

    /// Runs an item of a saved session (see [`Debugger::session_state`]): its first line,
    /// which makes a breakpoint or a display, silently, then the lines that complete it, with
    /// `$bpnum` the new breakpoint's number (a `commands` list among them, to its `end`).
    /// `scope FUNCTION` under a display makes it a display of that function's locals at
    /// once (shown at the stops in it, as the display was); a display whose expression
    /// means nothing here is kept, parsed again at each stop (the first line said is then
    /// `pending: WHY`). `Err`: why the first line made nothing (the first line the command
    /// said, as `No line 99 in file "ring.c".`; for a watchpoint on locals, which function
    /// it needs); `Ok`: the lines that failed, each with why.
    pub fn restore_item(&mut self, lines: &[&str]) -> std::result::Result<Vec<String>, String> {
        let Some((head, rest)) = lines.split_first() else {
            return Ok(Vec::new());
        };
        // `scope FUNCTION`: the first line under a watchpoint or a display only (a command
        // list's lines are the user's).
        let (scope, rest) = match rest.split_first() {
            Some((l, more)) if l.trim().starts_with("scope ") => {
                (Some(l.trim()["scope ".len()..].trim().to_string()), more)
            }
            _ => (None, rest),
        };
        let display = head
            .strip_prefix("display")
            .filter(|a| a.is_empty() || a.starts_with(['/', ' ']))
            .map(|a| {
                let (spec, text) = crate::data::display_spec(a);
                (spec.to_string(), text.to_string())
            })
            .filter(|(_, text)| !text.is_empty());
        if let (Some((fmt, text)), Some(f)) = (&display, &scope) {
            self.add_display(
                fmt,
                text,
                Some(crate::data::DisplayScope::Function(f.clone())),
            );
            return Ok(Vec::new());
        }
        let last_bp = |d: &Self| d.session.breakpoints().iter().map(|b| b.id).max();
        let (bp_before, displays_before) = (last_bp(self), self.data.displays.borrow().len());
        let r = self.run_command(head);
        let said = crate::output::take();
        let bp = last_bp(self).filter(|id| Some(*id) != bp_before);
        if bp.is_none() && self.data.displays.borrow().len() == displays_before {
            let why = match r {
                Err(e) => e.to_string(),
                Ok(_) => format!("{}\n{}", said.err, said.out),
            };
            let why = why
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("nothing was made")
                .to_string();
            if let Some((fmt, text)) = display {
                self.add_display(&fmt, &text, Some(crate::data::DisplayScope::Unparsed));
                return Ok(vec![format!("pending: {why}")]);
            }
            return Err(match scope {
                Some(f) => {
                    format!("{why} (a watchpoint on locals of {f}: set it again when {f} runs)")
                }
                None => why,
            });
        }
        let mut failed = Vec::new();
        for l in rest {
            // (Not inside a command list: its lines are kept as written.)
            let l = match bp {
                Some(id) if !self.in_block() => l.replace("$bpnum", &id.to_string()),
                _ => l.to_string(),
            };
            let r = self.run_command(&l);
            let said = crate::output::take();
            let why = match r {
                Err(e) => e.to_string(),
                Ok(_) => said.err,
            };
            if let Some(why) = why.lines().map(str::trim).find(|l| !l.is_empty()) {
                failed.push(format!("{l}: {why}"));
            }
        }
        // A command list the file left open (no `end`) ends with the item.
        if let Some(b) = self.script.block.take()
            && let BlockKind::Commands(_) = b.kind
        {
            let _ = self.close_block(b);
        }
        Ok(failed)
    }

    /// `shell COMMAND` / `!COMMAND`: run by `/bin/sh -c`, its output shown.
    fn cmd_shell(&mut self, arg: &str) -> Result<Flow> {
        let cmd = if arg.trim().is_empty() {
            std::env::var("SHELL").unwrap_or_else(|_| "/bin/sh".into())
        } else {
            arg.to_string()
        };
        let o = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(&cmd)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| EngineError::Other(format!("Cannot execute /bin/sh: {e}")))?;
        crate::out!("{}", String::from_utf8_lossy(&o.stdout));
        if !o.stderr.is_empty() {
            crate::output::write_err(&String::from_utf8_lossy(&o.stderr));
        }
        // gdb's `exit_status_set_internal_vars`: both void (the code's created first), then
        // the exit code or the signal.
        {
            let mut conv = self.data.convenience.borrow_mut();
            conv.clear("_shell_exitcode");
            conv.clear("_shell_exitsignal");
        }
        match (
            o.status.code(),
            std::os::unix::process::ExitStatusExt::signal(&o.status),
        ) {
            (Some(code), _) => self.set_convenience_int("_shell_exitcode", i64::from(code)),
            (None, Some(sig)) => self.set_convenience_int("_shell_exitsignal", i64::from(sig)),
            (None, None) => {}
        }
        Ok(Flow::Go)
    }

    /// `frame apply [all | COUNT | -COUNT | level LEVEL…] [-q] [-c] [-s] COMMAND` (and `faas`:
    /// `frame apply all -s`).
    fn cmd_frame_apply(&mut self, arg: &str) -> Result<Flow> {
        let frames = self.frames(usize::MAX);
        if !self.session.is_running() || frames.is_empty() {
            return err("No stack.");
        }
        let n = frames.len();
        let (which, mut rest) = split_word(arg);
        let levels: Vec<usize> = match which {
            "all" => (0..n).collect(),
            "level" => {
                let mut v = Vec::new();
                loop {
                    let (w, r) = split_word(rest);
                    let range = match w.split_once('-') {
                        Some((a, b)) => a.parse::<usize>().ok().zip(b.parse::<usize>().ok()),
                        None => w.parse::<usize>().ok().map(|a| (a, a)),
                    };
                    let Some((a, b)) = range else { break };
                    v.extend((a..=b).filter(|l| *l < n));
                    rest = r;
                }
                if v.is_empty() {
                    return err("Missing or invalid LEVEL... argument");
                }
                v
            }
            w => match w.parse::<i64>() {
                Ok(k) if k > 0 => (0..n.min(k as usize)).collect(),
                Ok(k) if k < 0 => (n.saturating_sub(k.unsigned_abs() as usize)..n).collect(),
                _ if w.is_empty() => return err("Missing COUNT argument."),
                _ => return err("Invalid COUNT argument."),
            },
        };
        let (flags, rest) = apply_flags(rest, false);
        if rest.is_empty() {
            return err("Please specify a command to apply on the selected frames");
        }
        if flags.cont && flags.silent {
            let which = match which {
                "all" | "level" => format!("frame apply {which}"),
                _ => "frame apply".to_string(),
            };
            return err(format!("{which}: -c and -s are mutually exclusive"));
        }
        self.apply_to_frames(&levels, rest, flags.quiet, flags.cont, flags.silent)
    }

    fn apply_to_frames(
        &mut self,
        levels: &[usize],
        command: &str,
        quiet: bool,
        cont: bool,
        silent: bool,
    ) -> Result<Flow> {
        let saved = self.selected_frame();
        let mut result = Ok(Flow::Go);
        for &i in levels {
            self.select_frame(i);
            let ((), head) = crate::output::capture(|| self.print_selected_frame());
            let head = head.out.lines().next().unwrap_or("").to_string();
            let (r, got) = crate::output::capture(|| self.run_command(command));
            if silent && (r.is_err() || got.out.is_empty()) {
                continue;
            }
            if !quiet {
                out(&head);
            }
            crate::out!("{}", got.out);
            if !got.err.is_empty() {
                crate::output::write_err(&got.err);
            }
            if let Err(e) = r {
                if cont {
                    // gdb says it on standard output with `-c`.
                    out(e.to_string());
                } else {
                    result = Err(e);
                    break;
                }
            }
        }
        self.select_frame(saved);
        result
    }

    /// `dprintf LOCATION,"FORMAT",ARGS…`: a breakpoint that prints and goes on.
    fn cmd_dprintf(&mut self, arg: &str) -> Result<Flow> {
        let Some((loc, fmt)) = arg.split_once(',') else {
            return err("Format string required");
        };
        let fmt = fmt.trim();
        if loc.trim().is_empty() {
            return err("Format string required");
        }
        if !fmt.starts_with('"') {
            return err("Bad format string");
        }
        // The format is checked before the breakpoint is made.
        parse_format(fmt)?;
        let before: HashSet<u32> = self.session.breakpoints().iter().map(|b| b.id).collect();
        self.break_titled(loc.trim(), "Dprintf", false)?;
        let new = self
            .session
            .breakpoints()
            .iter()
            .map(|b| b.id)
            .find(|id| !before.contains(id));
        if let Some(id) = new {
            self.script.dprintf.insert(id, fmt.to_string());
        }
        Ok(Flow::Go)
    }

    /// `break LOCATION` said as `TITLE N at …` (`Dprintf 4 at 0x…: file f.c, line 11.`).
    fn break_titled(&mut self, loc: &str, title: &str, temporary: bool) -> Result<Flow> {
        let (r, got) = crate::output::capture(|| self.cmd_break(loc, temporary));
        let text = match got
            .out
            .strip_prefix("Breakpoint ")
            .or_else(|| got.out.strip_prefix("Temporary breakpoint "))
        {
            Some(rest) => format!("{title} {rest}"),
            None => got.out,
        };
        crate::out!("{text}");
        if !got.err.is_empty() {
            crate::output::write_err(&got.err);
        }
        r
    }

    /// `break if COND` / `tbreak if COND`: at the selected frame's pc.
    fn break_here_if(&mut self, cond: &str, temporary: bool) -> Result<Flow> {
        let before = self.session.breakpoints().iter().map(|b| b.id).max();
        self.made_breakpoint(|d| d.cmd_break("", temporary))?;
        let after = self.session.breakpoints().iter().map(|b| b.id).max();
        if let Some(id) = after
            && after != before
        {
            self.session.set_condition(id, Some(cond.to_string()))?;
        }
        Ok(Flow::Go)
    }

    pub(crate) fn note_stop(&mut self, why: StopReason) {
        self.script.stop_reason = Some(why);
    }

    /// A command that resumes the program: how it stops unless a breakpoint or a signal says
    /// otherwise.
    pub(crate) fn note_resume(&mut self, line: &str) {
        let (cmd, rest) = split_word(line);
        let cmd = cmd.split('/').next().unwrap_or(cmd);
        self.script.stop_reason = match cmd {
            "step" | "s" | "next" | "n" | "stepi" | "si" | "nexti" | "ni" => {
                Some(StopReason::Stepped)
            }
            "until" | "u" if rest.is_empty() => Some(StopReason::Stepped),
            "run" | "r" | "start" | "starti" | "continue" | "c" | "cont" | "fg" | "until" | "u"
            | "advance" | "finish" | "fin" => Some(StopReason::Deleted),
            _ => return,
        };
    }

    /// `info program`.
    fn cmd_info_program(&mut self) -> Result<Flow> {
        let (Some(tid), Some(pid)) = (self.session.current_thread(), self.session.pid()) else {
            out("The program being debugged is not being run.");
            return Ok(Flow::Go);
        };
        let pointer = self
            .session
            .threads()
            .into_iter()
            .find(|t| t.tid == tid)
            .map_or(0, |t| t.pointer);
        let pc = self.frame0_pc();
        out(format!(
            "\tUsing the running image of child {}.",
            crate::debugger::thread_target(pointer, tid, Some(pid))
        ));
        out(format!("Program stopped at {pc:#x}."));
        out(match &self.script.stop_reason {
            Some(StopReason::Breakpoint(id)) => format!("It stopped at breakpoint {id}."),
            Some(StopReason::Stepped) => "It stopped after being stepped.".into(),
            Some(StopReason::Signal(s)) => format!("It stopped at signal {s}."),
            _ => "It stopped at a breakpoint that has since been deleted.".into(),
        });
        Ok(Flow::Go)
    }

    /// Whether breakpoint `id` was made by `hbreak`.
    pub(crate) fn is_hardware_breakpoint(&self, id: u32) -> bool {
        self.script.hardware.contains(&id)
    }

    /// A hit of dprintf `id`: its text. Returns whether `id` is one.
    pub(crate) fn dprintf_hit(&mut self, id: u32) -> bool {
        let Some(args) = self.script.dprintf.get(&id).cloned() else {
            return false;
        };
        if let Err(e) = self.cmd_printf(&args) {
            crate::errln!("{e}");
        }
        true
    }

    /// `printf "FORMAT", ARGS…` as gdb's `printf_command`.
    pub(crate) fn cmd_printf(&mut self, arg: &str) -> Result<Flow> {
        let (pieces, args) = parse_format(arg.trim())?;
        let nconv = pieces.iter().filter(|p| p.conv.is_some()).count();
        if nconv != args.len() {
            return err("Wrong number of arguments for specified format-string");
        }
        let mut values = Vec::new();
        for a in &args {
            values.push(self.evaluate(a)?);
        }
        let mut text = Vec::<u8>::new();
        let mut vals = values.into_iter();
        for p in &pieces {
            text.extend_from_slice(&p.literal);
            if let Some(spec) = &p.conv
                && let Some(v) = vals.next()
            {
                let s = self.printf_one(spec, v)?;
                text.extend_from_slice(&s);
            }
        }
        crate::out!("{}", String::from_utf8_lossy(&text));
        Ok(Flow::Go)
    }

    fn printf_one(&mut self, spec: &Spec, v: Value) -> Result<Vec<u8>> {
        match spec.conv {
            'c' => {
                // C's printf writes the byte itself (one above 127 is no character alone).
                let byte = self.value_as_long(v)? as u8;
                let fill = vec![b' '; spec.width.saturating_sub(1)];
                Ok(if spec.minus {
                    [&[byte][..], &fill].concat()
                } else {
                    [&fill[..], &[byte]].concat()
                })
            }
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
                let n = self.value_as_long(v)?;
                Ok(format_int(spec, n).into_bytes())
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let f = self.value_as_double(v)?;
                Ok(format_float(spec, f).into_bytes())
            }
            'p' => {
                let a = self.value_as_long(v)? as u64;
                let body = if a == 0 {
                    "(nil)".to_string()
                } else {
                    format!("{a:#x}")
                };
                Ok(pad(spec, String::new(), body, false).into_bytes())
            }
            's' => {
                let bytes = self.printf_string(v, spec.prec)?;
                let body = String::from_utf8_lossy(&bytes).into_owned();
                Ok(pad(spec, String::new(), body, false).into_bytes())
            }
            _ => err("Bad format string"),
        }
    }

    /// gdb's `value_as_long` (a struct: `Value can't be converted to integer.`).
    pub(crate) fn value_as_long(&mut self, v: Value) -> Result<i128> {
        let st = v.ty.strip();
        if matches!(
            st.kind,
            TypeKind::Aggregate { .. } | TypeKind::Void | TypeKind::Function { .. }
        ) {
            return err("Value can't be converted to integer.");
        }
        if let Some(a) = v.address()
            && matches!(st.kind, TypeKind::Array { .. })
        {
            return Ok(i128::from(a));
        }
        let long = Type::base("long", 8, Encoding::Signed);
        let ctx = self.eval_ctx();
        let c = cohort_dwarf::expr::cast(v, &long, &ctx)
            .map_err(|e| EngineError::Other(e.to_string()))?;
        Ok(i128::from(c.as_i64()))
    }

    /// A `%f` argument: a float converted to `double`; an integer of a float's size is
    /// reinterpreted as that float, as gdb's `printf_floating` does.
    fn value_as_double(&mut self, v: Value) -> Result<f64> {
        let st = v.ty.strip();
        let double = Type::base("double", 8, Encoding::Float);
        let v = match st.kind {
            TypeKind::Base(Encoding::Float) => v,
            TypeKind::Base(_) | TypeKind::Enum { .. } if matches!(st.size, 4 | 8 | 16) => {
                let name = match st.size {
                    4 => "float",
                    8 => "double",
                    _ => "long double",
                };
                Value::new(
                    Type::base(name, st.size, Encoding::Float),
                    v.bytes.clone(),
                    cohort_dwarf::value::Lval::None,
                )
            }
            TypeKind::Aggregate { .. } => return err("Invalid cast."),
            _ => v,
        };
        let ctx = self.eval_ctx();
        let c = cohort_dwarf::expr::cast(v, &double, &ctx)
            .map_err(|e| EngineError::Other(e.to_string()))?;
        let mut b = [0u8; 8];
        let n = c.bytes.len().min(8);
        b[..n].copy_from_slice(&c.bytes[..n]);
        Ok(f64::from_le_bytes(b))
    }

    /// A `%s` argument: the characters at the address up to a NUL (an array not in memory:
    /// its own bytes).
    fn printf_string(&mut self, v: Value, prec: Option<usize>) -> Result<Vec<u8>> {
        let st = v.ty.strip();
        if matches!(st.kind, TypeKind::Array { .. }) && v.address().is_none() {
            let end = v
                .bytes
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(v.bytes.len());
            return Ok(v.bytes[..end].to_vec());
        }
        let mut addr = self.value_as_long(v)? as u64;
        let limit = prec.unwrap_or(usize::MAX);
        let mut s = Vec::new();
        while s.len() < limit {
            let mut b = [0u8; 1];
            self.session.read_memory(addr, &mut b)?;
            if b[0] == 0 {
                break;
            }
            s.push(b[0]);
            addr = addr.wrapping_add(1);
        }
        Ok(s)
    }
}

/// Command lines as gdb lists them: `indent` spaces, two more a nested block.
fn indented(lines: &[String], indent: usize) -> Vec<String> {
    let mut depth = 0usize;
    let mut v = Vec::new();
    for l in lines {
        if l == "end" || l == "else" {
            depth = depth.saturating_sub(1);
        }
        v.push(format!("{}{l}", " ".repeat(indent + 2 * depth)));
        if opens_block(l) || l == "else" {
            depth += 1;
        }
    }
    v
}

/// The first whitespace-separated word of `s` and what follows it.
fn split_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim_start()),
        None => (s, ""),
    }
}

/// `EXPR if COND` split at the ` if ` outside brackets and quotes.
fn split_if(text: &str) -> Option<(&str, &str)> {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    for i in 0..b.len() {
        match (quote, b[i]) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, c @ (b'"' | b'\'')) => quote = Some(c),
            (None, b'(' | b'[') => depth += 1,
            (None, b')' | b']') => depth -= 1,
            (None, c) if c.is_ascii_whitespace() && depth == 0 => {
                let rest = &text[i..].trim_start();
                if let Some(cond) = rest.strip_prefix("if")
                    && (cond.is_empty() || cond.starts_with(char::is_whitespace))
                {
                    return Some((text[..i].trim(), cond.trim()));
                }
            }
            _ => {}
        }
    }
    None
}

/// `$argc` and `$argN` replaced by the arguments of a user command.
fn substitute_args(line: &str, argv: &[String]) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("$arg") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 4..];
        if let Some(a) = after.strip_prefix('c')
            && !a.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            out.push_str(&argv.len().to_string());
            rest = a;
            continue;
        }
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        match digits.parse::<usize>().ok().and_then(|n| argv.get(n)) {
            Some(v) => {
                out.push_str(v);
                rest = &after[digits.len()..];
            }
            None => {
                out.push_str("$arg");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A user command's arguments: words, where quotes keep spaces inside one (gdb's
/// `user_args`; brackets do not).
fn split_args(args: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in args.trim().chars() {
        if escaped {
            cur.push(c);
            escaped = false;
            continue;
        }
        match quote {
            Some(q) => {
                cur.push(c);
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\\' => {
                    escaped = true;
                    cur.push(c);
                }
                '"' | '\'' => {
                    quote = Some(c);
                    cur.push(c);
                }
                c if c.is_whitespace() => {
                    if !cur.is_empty() {
                        v.push(std::mem::take(&mut cur));
                    }
                }
                c => cur.push(c),
            },
        }
    }
    if !cur.is_empty() {
        v.push(cur);
    }
    v
}

/// `echo TEXT`: C escapes (`\n`, `\t`, `\"`, `\101`…); a final `\` leaves no newline.
fn echo_text(text: &str) -> String {
    let mut out = Vec::<u8>::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let Some(&c) = b.get(i) else { break };
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'r' => out.push(b'\r'),
            b'v' => out.push(11),
            b'e' => out.push(27),
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                let mut k = 1;
                while k < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    k += 1;
                }
                out.push(v as u8);
            }
            c => out.push(c),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One conversion of a format: flags, width, precision, length and letter.
#[derive(Debug, Clone, Default)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    hash: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    /// `l`, `ll` or `z`: 64-bit integers.
    long: bool,
    conv: char,
}

/// Literal text followed by a conversion (none at the end).
struct Piece {
    literal: Vec<u8>,
    conv: Option<Spec>,
}

/// gdb's `parse_format_string` and the argument list after it.
fn parse_format(text: &str) -> Result<(Vec<Piece>, Vec<String>)> {
    let Some(body) = text.strip_prefix('"') else {
        return err("Bad format string, missing '\"'.");
    };
    let b = body.as_bytes();
    let mut pieces = Vec::new();
    let mut lit = Vec::new();
    let mut i = 0;
    loop {
        let Some(&c) = b.get(i) else {
            return err("Bad format string, non-terminated '\"'");
        };
        i += 1;
        match c {
            b'"' => break,
            b'\\' => {
                let Some(&e) = b.get(i) else {
                    return err("Bad format string, non-terminated '\"'");
                };
                i += 1;
                lit.push(match e {
                    b'\\' => b'\\',
                    b'a' => 7,
                    b'b' => 8,
                    b'e' => 27,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 11,
                    b'"' => b'"',
                    other => {
                        return err(format!(
                            "Unrecognized escape character \\{} in format string.",
                            other as char
                        ));
                    }
                });
            }
            b'%' if b.get(i) == Some(&b'%') => {
                lit.push(b'%');
                i += 1;
            }
            b'%' => {
                let mut s = Spec::default();
                while let Some(&f) = b.get(i) {
                    match f {
                        b'-' => s.minus = true,
                        b'+' => s.plus = true,
                        b' ' => s.space = true,
                        b'#' => s.hash = true,
                        b'0' => s.zero = true,
                        _ => break,
                    }
                    i += 1;
                }
                while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
                    s.width = s.width * 10 + usize::from(d - b'0');
                    i += 1;
                }
                if b.get(i) == Some(&b'.') {
                    i += 1;
                    let mut p = 0;
                    while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
                        p = p * 10 + usize::from(d - b'0');
                        i += 1;
                    }
                    s.prec = Some(p);
                }
                if b.get(i) == Some(&b'*') {
                    return err("`*' not supported for precision or width in printf");
                }
                match b.get(i) {
                    Some(b'l') => {
                        s.long = true;
                        i += 1;
                        if b.get(i) == Some(&b'l') {
                            i += 1;
                        }
                    }
                    Some(b'z') => {
                        s.long = true;
                        i += 1;
                    }
                    Some(b'L') => i += 1,
                    _ => {}
                }
                let Some(&conv) = b.get(i) else {
                    return err("Incomplete format specifier at end of format string");
                };
                i += 1;
                if !b"diuoxXcsfFeEgGp".contains(&conv) {
                    return err(format!(
                        "Unrecognized format specifier '{}' in printf",
                        conv as char
                    ));
                }
                s.conv = conv as char;
                pieces.push(Piece {
                    literal: std::mem::take(&mut lit),
                    conv: Some(s),
                });
            }
            c => lit.push(c),
        }
    }
    pieces.push(Piece {
        literal: lit,
        conv: None,
    });
    let rest = body[i..].trim_start();
    let args = if rest.is_empty() {
        Vec::new()
    } else if let Some(r) = rest.strip_prefix(',') {
        split_commas(r)
    } else {
        return err("Invalid argument syntax");
    };
    Ok((pieces, args))
}

/// Arguments separated by commas outside brackets and quotes.
fn split_commas(s: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => {
                    quote = Some(c);
                    cur.push(c);
                }
                '(' | '[' | '{' => {
                    depth += 1;
                    cur.push(c);
                }
                ')' | ']' | '}' => {
                    depth -= 1;
                    cur.push(c);
                }
                ',' if depth <= 0 => v.push(std::mem::take(&mut cur).trim().to_string()),
                c => cur.push(c),
            },
        }
    }
    v.push(cur.trim().to_string());
    v
}

/// Width padding: `sign` and `body` padded to the width, with zeros after the sign when
/// `zeros`.
fn pad(spec: &Spec, sign: String, body: String, zeros: bool) -> String {
    let len = sign.len() + body.len();
    if len >= spec.width {
        return sign + &body;
    }
    let fill = spec.width - len;
    if spec.minus {
        sign + &body + &" ".repeat(fill)
    } else if zeros {
        sign + &"0".repeat(fill) + &body
    } else {
        " ".repeat(fill) + &sign + &body
    }
}

/// An integer conversion as C's printf writes it (`int` unless `l`).
fn format_int(spec: &Spec, n: i128) -> String {
    let bits = if spec.long { 64 } else { 32 };
    let mask = (1u128 << bits) - 1;
    let u = (n as u128) & mask;
    let signed = if u >> (bits - 1) == 1 {
        (u | !mask) as i128
    } else {
        u as i128
    };
    let (sign, mut digits) = match spec.conv {
        'd' | 'i' => {
            let sign = if signed < 0 {
                "-"
            } else if spec.plus {
                "+"
            } else if spec.space {
                " "
            } else {
                ""
            };
            (sign.to_string(), signed.unsigned_abs().to_string())
        }
        'u' => (String::new(), u.to_string()),
        'o' => (String::new(), format!("{u:o}")),
        'x' => (String::new(), format!("{u:x}")),
        _ => (String::new(), format!("{u:X}")),
    };
    if let Some(p) = spec.prec {
        if p == 0 && u == 0 {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    let mut prefix = sign;
    if spec.hash {
        match spec.conv {
            'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            'x' if u != 0 => prefix.push_str("0x"),
            'X' if u != 0 => prefix.push_str("0X"),
            _ => {}
        }
    }
    pad(spec, prefix, digits, spec.zero && spec.prec.is_none())
}

/// `%e` of `v` (≥ 0, finite) with `p` digits after the point: mantissa and exponent.
fn exp_form(v: f64, p: usize) -> (String, i32) {
    let s = format!("{v:.p$e}");
    match s.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse().unwrap_or(0)),
        None => (s, 0),
    }
}

fn exp_text(m: &str, e: i32, upper: bool) -> String {
    let sign = if e < 0 { '-' } else { '+' };
    let letter = if upper { 'E' } else { 'e' };
    format!("{m}{letter}{sign}{:02}", e.unsigned_abs())
}

/// A float conversion as C's printf writes it.
fn format_float(spec: &Spec, v: f64) -> String {
    let upper = spec.conv.is_ascii_uppercase();
    let sign = if v.is_sign_negative() && !v.is_nan() {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
    .to_string();
    if !v.is_finite() {
        let body = if v.is_nan() { "nan" } else { "inf" };
        let body = if upper {
            body.to_uppercase()
        } else {
            body.to_string()
        };
        return pad(spec, sign, body, false);
    }
    let a = v.abs();
    let p = spec.prec.unwrap_or(6);
    let mut body = match spec.conv.to_ascii_lowercase() {
        'f' => format!("{a:.p$}"),
        'e' => {
            let (m, e) = exp_form(a, p);
            exp_text(&m, e, upper)
        }
        _ => {
            let p = if p == 0 { 1 } else { p };
            let (_, x) = exp_form(a, p - 1);
            let mut s = if x < -4 || x >= p as i32 {
                let (m, e) = exp_form(a, p - 1);
                let m = if spec.hash { m } else { trim_zeros(&m) };
                exp_text(&m, e, upper)
            } else {
                let digits = (p as i32 - 1 - x).max(0) as usize;
                let f = format!("{a:.digits$}");
                if spec.hash { f } else { trim_zeros(&f) }
            };
            if spec.hash && !s.contains('.') {
                s.push('.');
            }
            s
        }
    };
    if spec.hash && !body.contains('.') && !spec.conv.eq_ignore_ascii_case(&'g') {
        match body.find(['e', 'E']) {
            Some(i) => body.insert(i, '.'),
            None => body.push('.'),
        }
    }
    pad(spec, sign, body, spec.zero)
}

/// `1.500000` → `1.5`, `2.000` → `2`.
fn trim_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A location-less catchpoint as `catch` takes it (`fork`, `signal SIGUSR1 SIGUSR2`).
pub(crate) fn catch_words(c: &cohort_engine::session::Catch) -> String {
    use cohort_engine::session::Catch;
    match c {
        Catch::Fork => "fork".into(),
        Catch::Vfork => "vfork".into(),
        Catch::Signal(set) if set.is_empty() => "signal".into(),
        Catch::Exec => "exec".into(),
        Catch::Syscall(list) => {
            let mut s = String::from("syscall");
            let table = cohort_engine::arch::native().syscalls;
            for &n in list {
                match cohort_engine::arch::syscalls::by_number(table, n) {
                    Some(c) => s.push_str(&format!(" {}", c.name)),
                    None => s.push_str(&format!(" {n}")),
                }
            }
            s
        }
        Catch::Signal(set) => format!(
            "signal {}",
            set.iter()
                .map(|&n| cohort_engine::signals::describe(n).0)
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(f: &str) -> Spec {
        let (p, _) = parse_format(&format!("\"{f}\"")).unwrap();
        p[0].conv.clone().unwrap()
    }

    #[test]
    fn c_printf_conversions() {
        assert_eq!(format_int(&spec("%5d"), 42), "   42");
        assert_eq!(format_int(&spec("%-5d|"), 42), "42   ");
        assert_eq!(format_int(&spec("%05d"), -42), "-0042");
        assert_eq!(format_int(&spec("%#x"), 255), "0xff");
        assert_eq!(format_int(&spec("%#o"), 8), "010");
        assert_eq!(format_int(&spec("%lx"), -1), "ffffffffffffffff");
        assert_eq!(format_int(&spec("%u"), -1), "4294967295");
        assert_eq!(format_float(&spec("%f"), 3.25), "3.250000");
        assert_eq!(format_float(&spec("%e"), 31415.9), "3.141590e+04");
        assert_eq!(format_float(&spec("%g"), 0.0001), "0.0001");
        assert_eq!(format_float(&spec("%G"), 1e20), "1E+20");
        assert_eq!(format_float(&spec("%10.2e"), 12345.678), "  1.23e+04");
        assert_eq!(format_float(&spec("%g"), 123456789.0), "1.23457e+08");
        assert_eq!(format_float(&spec("%g"), 1e-5), "1e-05");
        assert_eq!(format_float(&spec("%.0f"), 2.5), "2");
        assert_eq!(format_float(&spec("%g"), 100000.0), "100000");
        assert_eq!(format_float(&spec("%g"), 1000000.0), "1e+06");
        assert_eq!(echo_text("a\\tb\\\"c\\\\d\\101\\n"), "a\tb\"c\\dA\n");
        assert_eq!(
            substitute_args("print $arg0 * $arg1 + $argc", &["3".into(), "x".into()]),
            "print 3 * x + 2"
        );
    }
}

/// The flags of `frame apply` and `thread apply` (`-q`, `-c`, `-s`; `-ascending` where
/// `ascending` is allowed), before the command (`--` ends them).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ApplyFlags {
    pub quiet: bool,
    pub cont: bool,
    pub silent: bool,
    pub ascending: bool,
}

/// Split `text` into its leading apply flags and the command after them.
pub(crate) fn apply_flags(text: &str, ascending: bool) -> (ApplyFlags, &str) {
    let mut flags = ApplyFlags::default();
    let mut rest = text.trim();
    loop {
        let (w, r) = split_word(rest);
        match w {
            "-q" => flags.quiet = true,
            "-c" => flags.cont = true,
            "-s" => flags.silent = true,
            "-ascending" if ascending => flags.ascending = true,
            "--" => return (flags, r),
            _ => return (flags, rest),
        }
        rest = r;
    }
}
