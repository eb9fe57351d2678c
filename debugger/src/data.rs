//! Data commands at the source level: `print`, `set var`, `ptype`, `whatis`, `display`,
//! `info locals`, `info args`, the value history, and the evaluation context the C
//! expression evaluator runs against (the selected frame of the current thread).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use cohort_dwarf::context::{EvalContext, HistoryRef, Target};
use cohort_dwarf::error::DwarfError;
use cohort_dwarf::format::{FormatOptions, Language, ptype_in, type_name_in};
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::retval::{ReturnLocation, return_location};
use cohort_dwarf::scopes::{self, Function};
use cohort_dwarf::types::{Type, TypeKind, TypeRef};
use cohort_dwarf::value::{Lval, Value};
use cohort_dwarf::{dietypes, expr};
use cohort_engine::{EngineError, Result};
use cohort_unwind::Frame;

use crate::debugger::{Debugger, Flow, out};

/// A Fortran breakpoint condition as parsed once: the expression, or why it does not parse.
type FortranCondition = std::result::Result<cohort_fortran::parse::Expr, String>;

/// Where a display is shown, as gdb's `display`'s block: a display of a function's locals
/// only at the stops in that function (gdb's `contained_in`), silently elsewhere; a display
/// restored from a saved session that could not be parsed there, at the stops where it can
/// be (it is parsed again at each, as gdb's `do_one_display` does an expression it lost).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisplayScope {
    Function(String),
    Unparsed,
}

/// Value history and convenience variables.
#[derive(Default)]
pub struct DataState {
    /// `$1`, `$2`, …; `None` for a number that other ranks of a job took (a rank under
    /// `cohort launch` skips the numbers of values printed on other ranks, see
    /// [`Debugger::skip_history_to`]).
    pub history: RefCell<Vec<Option<Value>>>,
    pub convenience: RefCell<ConvVars>,
    /// `display` expressions, numbered from 1.
    pub displays: RefCell<Vec<Display>>,
    /// The static locals each display's expression named where it was made, by display
    /// number: gdb parses a display once, so they stay its symbols everywhere.
    pub display_statics: RefCell<HashMap<u32, Vec<BoundStatic>>>,
    /// The static locals of the display being shown, found before any other symbol.
    pub bound_statics: RefCell<Vec<BoundStatic>>,
    pub next_display: std::cell::Cell<u32>,
    /// Where `show values +` goes on from (the history index after the last one shown).
    pub values_shown: std::cell::Cell<usize>,
    /// Parsed breakpoint conditions, by breakpoint number.
    pub conditions: RefCell<HashMap<u32, (String, Option<expr::Expr>)>>,
    /// Parsed Fortran breakpoint conditions (or the parse error), by breakpoint number.
    pub fortran_conditions: RefCell<HashMap<u32, (String, FortranCondition)>>,
}

/// The arguments of `display`: the `/FMT` letters (without the slash) and the expression.
pub(crate) fn display_spec(arg: &str) -> (&str, &str) {
    let a = arg.trim_start();
    match a.strip_prefix('/') {
        Some(rest) => {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            (&rest[..end], rest[end..].trim())
        }
        None => ("", a.trim()),
    }
}

/// A static local a display's expression named: its name, object and variable.
pub type BoundStatic = (String, Arc<DebugFile>, scopes::Variable);

/// One `display` expression, as gdb's `struct display` keeps it.
#[derive(Clone, Debug)]
pub struct Display {
    pub number: u32,
    /// The `/FMT` letters as written (for a saved session).
    pub spec: String,
    /// gdb's `format_data`: the count, the format letter and the size letter; a display
    /// with a size letter (`/i` and `/s` have `b`) examines memory as `x` does.
    pub count: u32,
    pub format: Option<char>,
    pub size: Option<char>,
    pub text: String,
    pub enabled: bool,
    /// The innermost block of the expression's frame-bound symbols (gdb's
    /// `innermost_block_tracker`): the debug file (its address) and the DIE of the function
    /// or lexical block. The display is shown only where the selected frame's block is within
    /// it (gdb's `contained_in`); `None`: everywhere.
    pub block: Option<DisplayBlock>,
    /// The expression names a member of `*this` bare (C++): gdb 13 ties it to no block, and
    /// where the frame has no `this` it says so in place of the value.
    pub implicit_this: bool,
    /// The function whose locals the expression names (for a saved session's `scope`).
    pub function: Option<String>,
    /// A display restored from a saved session, not bound to a block yet: it is bound (its
    /// block found) at the first stop where it can be, as if made there.
    pub pending: Option<DisplayScope>,
}

/// A display's block: the debug file (its address) and the DIE of a function or lexical
/// block.
pub type DisplayBlock = (usize, cohort_dwarf::types::DieRef);

impl Display {
    /// `display/FMT` letters decoded as gdb's `display_command` does (`decode_format` with
    /// no defaults; a size without a format is `x`; `i` and `s` have size `b`).
    fn decode(letters: &str) -> (u32, Option<char>, Option<char>) {
        let digits: String = letters.chars().take_while(|c| c.is_ascii_digit()).collect();
        let count = digits.parse().unwrap_or(1);
        let (mut format, mut size) = (None, None);
        for c in letters[digits.len()..].chars() {
            match c {
                'b' | 'h' | 'w' | 'g' => size = Some(c),
                'r' => {}
                c => format = Some(c),
            }
        }
        if size.is_some() && format.is_none() {
            format = Some('x');
        }
        if matches!(format, Some('i' | 's')) {
            size = Some('b');
        }
        (count, format, size)
    }

    /// The format as `info display` shows it, with its trailing space (`/1bi `, `/x `).
    pub fn info_format(&self) -> String {
        match (self.size, self.format) {
            (Some(s), Some(f)) => format!("/{}{s}{f} ", self.count),
            (None, Some(f)) => format!("/{f} "),
            _ => String::new(),
        }
    }
}

/// Convenience variables as gdb keeps them: a value per name, and the order in which the
/// names were first used (`show convenience` lists the newest first, above gdb's own).
#[derive(Default)]
pub struct ConvVars {
    values: HashMap<String, Value>,
    /// Names other than gdb's own ([`BUILTIN_CONVENIENCE`]), oldest first.
    order: Vec<String>,
}

impl ConvVars {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    pub fn insert(&mut self, name: String, v: Value) -> Option<Value> {
        self.touch(&name);
        self.values.insert(name, v)
    }

    /// `$name` made void (created if new).
    pub fn clear(&mut self, name: &str) {
        self.touch(name);
        self.values.remove(name);
    }

    /// `$name` used: gdb creates the variable (void) the first time it sees it.
    pub fn touch(&mut self, name: &str) {
        if !self.values.contains_key(name)
            && !self.order.iter().any(|n| n == name)
            && !BUILTIN_CONVENIENCE.iter().any(|(n, _)| *n == name)
        {
            self.order.push(name.to_string());
        }
    }

    /// The names that are not gdb's own, newest first, with their values (`None`: void).
    pub fn newest_first(&self) -> impl Iterator<Item = (&str, Option<&Value>)> {
        self.order
            .iter()
            .rev()
            .map(|n| (n.as_str(), self.values.get(n)))
    }
}

/// What one of gdb's own convenience variables is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// A convenience function (`<internal function _streq>`).
    Function,
    /// A value gdb computes on each use (`$_thread`, `$_gdb_major`, …).
    Computed,
    /// Void until something sets it.
    Plain,
}

/// gdb 13's own convenience variables and functions, as `show convenience` lists them
/// (newest first: the order in which gdb and its Python library create them at start-up).
pub const BUILTIN_CONVENIENCE: &[(&str, Builtin)] = &[
    ("_any_caller_matches", Builtin::Function),
    ("_any_caller_is", Builtin::Function),
    ("_caller_matches", Builtin::Function),
    ("_caller_is", Builtin::Function),
    ("_as_string", Builtin::Function),
    ("_regex", Builtin::Function),
    ("_streq", Builtin::Function),
    ("_strlen", Builtin::Function),
    ("_memeq", Builtin::Function),
    ("_gdb_minor", Builtin::Computed),
    ("_gdb_major", Builtin::Computed),
    ("_inferior", Builtin::Computed),
    ("_gdb_maint_setting", Builtin::Function),
    ("_gdb_maint_setting_str", Builtin::Function),
    ("_gdb_setting", Builtin::Function),
    ("_gdb_setting_str", Builtin::Function),
    ("_cimag", Builtin::Function),
    ("_creal", Builtin::Function),
    ("_isvoid", Builtin::Function),
    ("_sdata", Builtin::Plain),
    ("_inferior_thread_count", Builtin::Computed),
    ("_gthread", Builtin::Computed),
    ("_thread", Builtin::Computed),
    ("_probe_arg11", Builtin::Computed),
    ("_probe_arg10", Builtin::Computed),
    ("_probe_arg9", Builtin::Computed),
    ("_probe_arg8", Builtin::Computed),
    ("_probe_arg7", Builtin::Computed),
    ("_probe_arg6", Builtin::Computed),
    ("_probe_arg5", Builtin::Computed),
    ("_probe_arg4", Builtin::Computed),
    ("_probe_arg3", Builtin::Computed),
    ("_probe_arg2", Builtin::Computed),
    ("_probe_arg1", Builtin::Computed),
    ("_probe_arg0", Builtin::Computed),
    ("_probe_argc", Builtin::Computed),
    ("_siginfo", Builtin::Computed),
    ("_exception", Builtin::Computed),
];

fn derr(e: DwarfError) -> EngineError {
    EngineError::Other(e.to_string())
}

/// Split `/FMT rest` into the format letter and the expression.
pub(crate) fn split_format(arg: &str) -> (Option<char>, &str) {
    let a = arg.trim_start();
    if let Some(rest) = a.strip_prefix('/') {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let letters = &rest[..end];
        let fmt = letters.chars().rev().find(|c| c.is_ascii_alphabetic());
        (fmt, rest[end..].trim_start())
    } else {
        (None, a)
    }
}

/// `print`'s `/FMT` checked as gdb's `validate_format` does: no size letter, no count, not
/// `i`. `cmd` names the command in the messages.
pub(crate) fn print_format<'a>(arg: &'a str, cmd: &str) -> Result<(Option<char>, &'a str)> {
    let (fmt, text) = split_format(arg);
    let a = arg.trim_start();
    if let Some(rest) = a.strip_prefix('/') {
        let letters = &rest[..rest.find(char::is_whitespace).unwrap_or(rest.len())];
        let digits: String = letters
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        let tail = &letters[digits.len()..];
        if tail.chars().any(|c| matches!(c, 'b' | 'h' | 'w' | 'g')) {
            return Err(EngineError::Other(format!(
                "Size letters are meaningless in \"{cmd}\" command."
            )));
        }
        if !digits.is_empty() && digits.parse::<i64>().ok() != Some(1) {
            return Err(EngineError::Other(format!(
                "Item count other than 1 is meaningless in \"{cmd}\" command."
            )));
        }
        if fmt == Some('i') {
            return Err(EngineError::Other(format!(
                "Format letter \"i\" is meaningless in \"{cmd}\" command."
            )));
        }
    }
    Ok((fmt, text))
}

/// Whether `var` lives in thread-local storage (its location ends with
/// `DW_OP_form_tls_address` or `DW_OP_GNU_push_tls_address`).
fn is_thread_local(var: &scopes::Variable) -> bool {
    match var.location.as_ref().and_then(|l| l.exprloc_value()) {
        Some(e) => matches!(
            e.0.slice().last(),
            Some(&b) if b == gimli::DW_OP_form_tls_address.0 || b == gimli::DW_OP_GNU_push_tls_address.0
        ),
        None => false,
    }
}

/// gdb's `linux_get_siginfo_type` for an LP64 target.
fn siginfo_type() -> TypeRef {
    use cohort_dwarf::types::{AggregateKind, Encoding, LazyType, Member};
    let int = Type::base("int", 4, Encoding::Signed);
    let uint = Type::base("unsigned int", 4, Encoding::Unsigned);
    let short = Type::base("short", 2, Encoding::Signed);
    let long = Type::base("long", 8, Encoding::Signed);
    let ptr = Type::pointer_to(Type::void(), 8);
    let typedef = |n: &str, t: &TypeRef| {
        Type::new(
            Some(n.into()),
            t.byte_size(),
            TypeKind::Typedef(LazyType::ready(t.clone())),
        )
    };
    let (pid, uid, clock) = (
        typedef("__pid_t", &int),
        typedef("__uid_t", &uint),
        typedef("__clock_t", &long),
    );
    let agg = |name: Option<&str>, kind, size, fields: Vec<(&str, TypeRef, u64)>| {
        let members = fields
            .into_iter()
            .map(|(n, t, offset)| Member {
                name: Some(n.into()),
                ty: LazyType::ready(t),
                offset,
                bitfield: None,
                is_static: false,
                is_base: false,
            })
            .collect();
        Type::new(
            name.map(Into::into),
            size,
            TypeKind::Aggregate {
                kind,
                members,
                declaration: false,
            },
        )
    };
    use AggregateKind::{Struct, Union};
    let sigval = agg(
        Some("sigval"),
        Union,
        8,
        vec![("sival_int", int.clone()), ("sival_ptr", ptr.clone())]
            .into_iter()
            .map(|(n, t)| (n, t, 0))
            .collect(),
    );
    let sigval = typedef("sigval_t", &sigval);
    let fields = vec![
        ("_pad", Type::array_of(int.clone(), 28), 0),
        (
            "_kill",
            agg(
                None,
                Struct,
                8,
                vec![("si_pid", pid.clone(), 0), ("si_uid", uid.clone(), 4)],
            ),
            0,
        ),
        (
            "_timer",
            agg(
                None,
                Struct,
                16,
                vec![
                    ("si_tid", int.clone(), 0),
                    ("si_overrun", int.clone(), 4),
                    ("si_sigval", sigval.clone(), 8),
                ],
            ),
            0,
        ),
        (
            "_rt",
            agg(
                None,
                Struct,
                16,
                vec![
                    ("si_pid", pid.clone(), 0),
                    ("si_uid", uid.clone(), 4),
                    ("si_sigval", sigval.clone(), 8),
                ],
            ),
            0,
        ),
        (
            "_sigchld",
            agg(
                None,
                Struct,
                32,
                vec![
                    ("si_pid", pid.clone(), 0),
                    ("si_uid", uid.clone(), 4),
                    ("si_status", int.clone(), 8),
                    ("si_utime", clock.clone(), 16),
                    ("si_stime", clock.clone(), 24),
                ],
            ),
            0,
        ),
        (
            "_sigfault",
            agg(
                None,
                Struct,
                32,
                vec![
                    ("si_addr", ptr.clone(), 0),
                    ("_addr_lsb", short, 8),
                    (
                        "_addr_bnd",
                        agg(
                            None,
                            Struct,
                            16,
                            vec![("_lower", ptr.clone(), 0), ("_upper", ptr.clone(), 8)],
                        ),
                        16,
                    ),
                ],
            ),
            0,
        ),
        (
            "_sigpoll",
            agg(
                None,
                Struct,
                16,
                vec![("si_band", long, 0), ("si_fd", int.clone(), 8)],
            ),
            0,
        ),
        (
            "_sigsys",
            agg(
                None,
                Struct,
                16,
                vec![
                    ("_call_addr", ptr, 0),
                    ("_syscall", int.clone(), 8),
                    ("_arch", uint, 12),
                ],
            ),
            0,
        ),
    ];
    let sifields = agg(None, Union, 112, fields);
    agg(
        Some("siginfo"),
        Struct,
        128,
        vec![
            ("si_signo", int.clone(), 0),
            ("si_errno", int.clone(), 4),
            ("si_code", int, 8),
            ("_sifields", sifields, 16),
        ],
    )
}

/// Whether command `line` lets the program run: after it stops, gdb shows the displays
/// (`stepi`/`nexti` show them in their own stop report).
pub(crate) fn resumes(line: &str) -> bool {
    let cmd = line
        .trim()
        .split(|c: char| c.is_whitespace() || c == '/')
        .next()
        .unwrap_or("");
    matches!(
        cmd,
        "run"
            | "r"
            | "start"
            | "starti"
            | "continue"
            | "c"
            | "cont"
            | "fg"
            | "step"
            | "s"
            | "next"
            | "n"
            | "until"
            | "u"
            | "advance"
            | "finish"
            | "fin"
    )
}

impl Debugger {
    /// gdb's `set language auto`: the language of the selected frame's unit, else of `main`'s.
    fn language_override(&self) -> Option<Language> {
        self.language_set
    }

    pub(crate) fn language(&self) -> Language {
        let frames = self.frames(usize::MAX);
        let unit = match frames.get(self.selected_frame()) {
            Some(f) => self.debug_for(f.lookup_pc()).and_then(|(d, bias)| {
                let u = d.unit_for_pc(f.lookup_pc().wrapping_sub(bias))?;
                Some((d, u))
            }),
            // `main` by the ELF symbol table first: looking it up in the DWARF builds the
            // whole name index (seconds on a large C++ program, before any command needs it).
            None => {
                let objects = self.debug_objects();
                objects
                    .iter()
                    .find_map(|(d, _)| Some((d.clone(), d.main_unit()?)))
                    .or_else(|| {
                        objects.into_iter().find_map(|(d, _)| {
                            let f = scopes::function_by_name(&d, "main").ok()??;
                            Some((d, f.unit))
                        })
                    })
            }
        };
        if let Some(l) = self.language_override() {
            return l;
        }
        match unit {
            Some((d, u)) => scopes::unit_language(&d, u),
            None => Language::C,
        }
    }

    pub(crate) fn eval_ctx(&self) -> EvalCtx<'_> {
        // The selected frame and its caller (for entry values): a breakpoint condition should
        // not unwind the whole stack at every crossing.
        let frames = self.frames(self.selected_frame() + 2);
        EvalCtx {
            dbg: self,
            frames,
            sel: self.selected_frame(),
            reg_writes: RefCell::new(Vec::new()),
            mem_writes: RefCell::new(Vec::new()),
            call_low: std::cell::Cell::new(None),
        }
    }

    /// Frame `idx` of `frames` as the expression evaluator sees it (the frame listings of
    /// `bt full` evaluate in each frame, not only the selected one).
    pub(crate) fn frame_eval_ctx(&self, frames: Rc<Vec<Frame>>, idx: usize) -> EvalCtx<'_> {
        EvalCtx {
            dbg: self,
            frames,
            sel: idx,
            reg_writes: RefCell::new(Vec::new()),
            mem_writes: RefCell::new(Vec::new()),
            call_low: std::cell::Cell::new(None),
        }
    }

    /// Every loaded object's debug information read (once per agent): a type only declared
    /// where it is used is completed from the object that defines it (gdb's `check_typedef`
    /// over every objfile), which looks among the files read so far. (The expression parser's
    /// type look-ups used to read them all as a side effect.)
    pub(crate) fn read_all_debug_objects(&self) {
        let _ = self.debug_objects();
    }

    /// Evaluate `text` in the selected frame (with side effects).
    pub(crate) fn evaluate(&mut self, text: &str) -> Result<Value> {
        self.read_all_debug_objects();
        let fortran = self.language() == Language::Fortran;
        let (v, writes, mem) = {
            let ctx = self.eval_ctx();
            let v = if fortran {
                cohort_fortran::evaluate(text, &ctx)
            } else {
                expr::parse_in(text, &ctx).and_then(|e| expr::evaluate(&e, &ctx))
            };
            (v, ctx.reg_writes.into_inner(), ctx.mem_writes.into_inner())
        };
        // Watchpoints see a write even when the expression failed after it.
        self.memory_written(&mem);
        // A function called by the expression may have ended the program: say so first.
        if self
            .session
            .process()
            .is_some_and(|p| p.call_ended_pending())
        {
            self.notice_gone();
        }
        let v = v.map_err(derr)?;
        self.apply_register_writes(writes)?;
        Ok(v)
    }

    /// Evaluate `text` as gdb's `value_as_long`: the value converted to `long`
    /// (`quit 3.7` exits with 3).
    pub(crate) fn evaluate_long(&mut self, text: &str) -> Result<i64> {
        let v = self.evaluate(text)?;
        let long =
            cohort_dwarf::types::Type::base("long", 8, cohort_dwarf::types::Encoding::Signed);
        let ctx = self.eval_ctx();
        Ok(expr::cast(v, &long, &ctx).map_err(derr)?.as_i64())
    }

    pub(crate) fn apply_register_writes(&mut self, writes: Vec<(u16, u64, Vec<u8>)>) -> Result<()> {
        if writes.is_empty() {
            return Ok(());
        }
        let tid = self
            .session
            .current_thread()
            .ok_or(EngineError::NotRunning)?;
        let mut regs = self.session.registers(false)?;
        let mut ymm_high: Vec<(usize, u128)> = Vec::new();
        for (n, offset, bytes) in writes {
            let i = regs
                .arch
                .reg_by_dwarf(n)
                .ok_or_else(|| EngineError::NoRegister(n.to_string()))?;
            // The bytes written replace those bytes of the register only (a float in an xmm
            // register keeps the other lanes, an int in rax its upper half), as gdb's partial
            // register write; past 16 bytes, an xmm number is the whole ymm register (see
            // `source::ymm_number`).
            let ymm = crate::source::ymm_number(regs.arch, n);
            let mut whole = [0u8; 32];
            let low = regs.get(i).or_else(|| self.thread_register(i)).unwrap_or(0);
            whole[..16].copy_from_slice(&low.to_le_bytes());
            let wide = offset as usize + bytes.len() > 16;
            if wide && let Some(k) = ymm {
                let high = ymm_high
                    .iter()
                    .find(|(j, _)| *j == k)
                    .map(|(_, v)| *v)
                    .or_else(|| self.thread_ymm_high(k))
                    .unwrap_or(0);
                whole[16..].copy_from_slice(&high.to_le_bytes());
            }
            let at = (offset as usize).min(32);
            let k = bytes.len().min(32 - at);
            whole[at..at + k].copy_from_slice(&bytes[..k]);
            let mut lo = [0u8; 16];
            lo.copy_from_slice(&whole[..16]);
            regs.set(i, u128::from_le_bytes(lo));
            if wide && let Some(k) = ymm {
                let mut hi = [0u8; 16];
                hi.copy_from_slice(&whole[16..]);
                ymm_high.retain(|(j, _)| *j != k);
                ymm_high.push((k, u128::from_le_bytes(hi)));
            }
        }
        self.session.process_mut()?.set_registers(tid, &regs)?;
        self.session.process_mut()?.set_ymm_high(tid, &ymm_high)?;
        self.invalidate_frames();
        Ok(())
    }

    pub(crate) fn record_history(&self, v: Value) -> usize {
        let mut h = self.data.history.borrow_mut();
        h.push(Some(v));
        h.len()
    }

    /// How many value-history numbers are taken (the last `$N`).
    pub fn history_len(&self) -> usize {
        self.data.history.borrow().len()
    }

    /// Makes the next value recorded `$(n + 1)` at least: the numbers up to `n` that this
    /// history does not have were taken by other ranks of the job. Under `cohort launch` the
    /// front end numbers values across the job, so that a value printed on every rank has the
    /// same `$N` everywhere even after commands for some ranks only.
    pub fn skip_history_to(&self, n: usize) {
        let mut h = self.data.history.borrow_mut();
        if h.len() < n {
            h.resize(n, None);
        }
    }

    /// `print[/FMT] [EXPR]`.
    pub(crate) fn cmd_print(&mut self, arg: &str) -> Result<Flow> {
        self.print_like(arg, true)
    }

    /// `call EXPR`: as `print`, but a void result prints nothing.
    pub(crate) fn cmd_call(&mut self, arg: &str) -> Result<Flow> {
        self.print_like(arg, false)
    }

    fn print_like(&mut self, arg: &str, voidprint: bool) -> Result<Flow> {
        let (saved, arg) = self.print_options(arg)?;
        let r = self.print_value(arg, voidprint);
        self.restore_print_options(saved);
        r
    }

    fn print_value(&mut self, arg: &str, voidprint: bool) -> Result<Flow> {
        let (fmt, text) = print_format(arg, "print")?;
        let fmt = self.reuse_format(arg, fmt)?;
        let v = if text.trim().is_empty() {
            self.history_entry(0).map_err(derr)?
        } else {
            let v = self.evaluate(text)?;
            if self.language() == Language::Fortran {
                cohort_fortran::eval::check_printable(text, &v).map_err(derr)?;
                cohort_fortran::eval::check_value_size(&v, self.max_value_size).map_err(derr)?;
            }
            v
        };
        if !voidprint && matches!(v.ty.strip().kind, TypeKind::Void) {
            return Ok(Flow::Go);
        }
        let opts = match fmt {
            Some(f) => FormatOptions::with_format(f),
            None => FormatOptions::default(),
        };
        let (v, prefix) = self.printed_value(v, fmt);
        let printer_error = match fmt {
            None => cohort_dwarf::format::top_level_printer_error(&v.ty),
            Some(_) => None,
        };
        let s = match printer_error {
            Some(e) => {
                crate::errln!("Python Exception <class 'gdb.error'>: {e}");
                String::new()
            }
            None => self.format_keep_abort(&v, &opts),
        };
        // gdb records every printed value, void ones too.
        let n = self.record_history(v);
        // A printing error ends the command after what was printed, as in gdb.
        if let Some((before, msg)) = cohort_dwarf::format::split_abort(&s) {
            crate::out!("${n} = {}{before}", prefix.unwrap_or_default());
            return Err(EngineError::Other(msg.to_string()));
        }
        out(format!("${n} = {}{s}", prefix.unwrap_or_default()));
        Ok(Flow::Go)
    }

    /// gdb's `print_command_parse_format`: a `/` without a format letter (`/r`) takes the
    /// last format (`last_format`, which `x` also sets); a letter becomes the last format.
    fn reuse_format(&mut self, arg: &str, fmt: Option<char>) -> Result<Option<char>> {
        let Some(rest) = arg.trim_start().strip_prefix('/') else {
            return Ok(fmt);
        };
        let letters = &rest[..rest.find(char::is_whitespace).unwrap_or(rest.len())];
        let explicit = letters
            .chars()
            .rev()
            .find(|c| c.is_ascii_alphabetic() && *c != 'r');
        match explicit.or(self.last_format) {
            Some('i') => Err(EngineError::Other(
                "Format letter \"i\" is meaningless in \"print\" command.".into(),
            )),
            Some(c) => {
                self.last_format = Some(c);
                Ok(Some(c))
            }
            None => Ok(fmt),
        }
    }

    /// `output[/FMT] EXPR`: the value alone, no history entry, no newline.
    pub(crate) fn cmd_output(&mut self, arg: &str) -> Result<Flow> {
        let (fmt, text) = print_format(arg, "output")?;
        if text.trim().is_empty() {
            return Err(EngineError::Other(
                "Argument required (expression to compute).".into(),
            ));
        }
        let v = self.evaluate(text)?;
        if self.language() == Language::Fortran {
            cohort_fortran::eval::check_printable(text, &v).map_err(derr)?;
            cohort_fortran::eval::check_value_size(&v, self.max_value_size).map_err(derr)?;
        }
        let opts = match fmt {
            Some(f) => FormatOptions::with_format(f),
            None => FormatOptions::default(),
        };
        // gdb's `print_formatted`, as for `print`: the dynamic class of an object under
        // `set print object on`, with its RTTI look-ups (`(Circle) ` before it).
        let (v, prefix) = self.printed_value(v, fmt);
        let s = self.format(&v, &opts);
        crate::out!("{}{s}", prefix.unwrap_or_default());
        Ok(Flow::Go)
    }

    /// The value `print` and `output` show for `v` with format `fmt`: gdb's
    /// `print_formatted` prints with `value_print` (which follows `set print object`)
    /// without a format, with `/s`, and for classes, arrays and references; a scalar with a
    /// format is printed as it is.
    fn printed_value(&self, v: Value, fmt: Option<char>) -> (Value, Option<String>) {
        let whole = matches!(
            v.ty.strip().kind,
            TypeKind::Aggregate { .. }
                | TypeKind::Array { .. }
                | TypeKind::Reference(_)
                | TypeKind::RvalueReference(_)
                | TypeKind::Void
        );
        match fmt {
            None | Some('s') => self.dynamic_value(v, true),
            Some(_) if whole => self.dynamic_value(v, true),
            Some(_) => (v, None),
        }
    }

    /// gdb's `access_value_history`: `num` > 0 is `$num`, `num` <= 0 counts back from the
    /// last entry (`$` is 0, `$$N` is -N).
    fn history_entry(&self, num: i64) -> cohort_dwarf::Result<Value> {
        let h = self.data.history.borrow();
        let len = h.len() as i64;
        let abs = if num <= 0 { num + len } else { num };
        if abs <= 0 {
            return Err(DwarfError::user(if num == 0 {
                "The history is empty.".to_string()
            } else {
                format!("History does not go back to $${}.", -num)
            }));
        }
        match h.get((abs - 1) as usize) {
            Some(Some(v)) => Ok(v.clone()),
            Some(None) => Err(DwarfError::user(format!(
                "History value ${abs} was recorded on other ranks only."
            ))),
            None => Err(DwarfError::user(format!(
                "History has not yet reached ${abs}."
            ))),
        }
    }

    /// `show values [N|+]`: ten history entries (the last ten; those around `$N`; the ten
    /// after the last shown).
    pub(crate) fn cmd_show_values(&mut self, arg: &str) -> Result<Flow> {
        let len = self.data.history.borrow().len();
        let arg = arg.trim();
        let start = if arg == "+" {
            self.data.values_shown.get()
        } else if arg.is_empty() {
            len.saturating_sub(10)
        } else {
            let n = self.evaluate(arg)?;
            let n = n.as_i64();
            (n - 5).max(0) as usize
        };
        let end = (start + 10).min(len);
        for i in start..end {
            let v = self.data.history.borrow().get(i).cloned().flatten();
            if let Some(v) = v {
                let s = self.format(&v, &FormatOptions::default());
                out(format!("${} = {s}", i + 1));
            }
        }
        self.data.values_shown.set(end.max(start));
        Ok(Flow::Go)
    }

    /// `$_siginfo`: the signal information of the current thread, typed as gdb types it on
    /// Linux (LP64).
    fn siginfo(&self) -> Option<Value> {
        let tid = self.session.current_thread()?;
        let bytes = match self.session.process() {
            Some(p) => p.siginfo_bytes(tid).ok()?,
            None => self.session.core_siginfo(tid)?.to_vec(),
        };
        Some(Value::new(siginfo_type(), bytes, Lval::None))
    }

    /// The value of one of gdb's own convenience variables that gdb computes on each use
    /// (`Ok(None)`: void), or the error gdb gives for it; `pc` is the selected frame's.
    /// Values a user set are looked up before this.
    pub(crate) fn builtin_convenience(
        &self,
        name: &str,
        pc: Option<u64>,
    ) -> std::result::Result<Option<Value>, String> {
        let int = |n: i64| {
            let ty = Type::base("int", 4, cohort_dwarf::types::Encoding::Signed);
            Ok(Some(Value::new(
                ty,
                (n as i32).to_le_bytes().to_vec(),
                Lval::None,
            )))
        };
        let no_frame = || "No frame selected".to_string();
        match name {
            "_siginfo" => Ok(self.siginfo()),
            // The current thread's number (0 without one).
            "_thread" | "_gthread" => int(self
                .session
                .current_thread()
                .and_then(|t| self.session.thread_num(t))
                .unwrap_or(0) as i64),
            "_inferior_thread_count" => {
                int(self.session.process().map_or(0, |p| p.thread_count()) as i64)
            }
            "_gdb_major" => int(13),
            "_gdb_minor" => int(1),
            "_inferior" => int(1),
            // cohort knows no SystemTap probes, and the machine's libstdc++ has none for
            // exceptions: gdb's errors.
            "_exception" => Err(match pc {
                Some(_) => "did not find exception probe (does libstdcxx have SDT probes?)".into(),
                None => no_frame(),
            }),
            n if n == "_probe_argc"
                || n.strip_prefix("_probe_arg")
                    .and_then(|d| d.parse::<u8>().ok())
                    .is_some_and(|d| d <= 11) =>
            {
                Err(match pc {
                    Some(pc) => format!("No probe at PC 0x{pc:016x}"),
                    None => no_frame(),
                })
            }
            _ => Ok(None),
        }
    }

    /// `show convenience`: every convenience variable and function, newest first, as gdb
    /// lists them (its own last, in the order it creates them).
    pub(crate) fn cmd_show_convenience(&mut self) -> Result<Flow> {
        let pc = self
            .frames(self.selected_frame() + 1)
            .get(self.selected_frame())
            .map(Frame::pc);
        let show = |s: &Self, name: &str, v: std::result::Result<Option<Value>, String>| match v {
            Ok(Some(v)) => out(format!(
                "${name} = {}",
                s.format(&v, &FormatOptions::default())
            )),
            Ok(None) => out(format!("${name} = void")),
            Err(e) => out(format!("${name} = <error: {e}>")),
        };
        let users: Vec<(String, Option<Value>)> = self
            .data
            .convenience
            .borrow()
            .newest_first()
            .map(|(n, v)| (n.to_string(), v.cloned()))
            .collect();
        for (name, v) in users {
            show(self, &name, Ok(v));
        }
        for (name, kind) in BUILTIN_CONVENIENCE {
            let set = self.data.convenience.borrow().get(name).cloned();
            match (set, kind) {
                (Some(v), _) => show(self, name, Ok(Some(v))),
                (None, Builtin::Function) => out(format!("${name} = <internal function {name}>")),
                (None, _) => show(self, name, self.builtin_convenience(name, pc)),
            }
        }
        Ok(Flow::Go)
    }

    /// `show WHAT`: only what cohort knows.
    pub(crate) fn cmd_show(&mut self, arg: &str) -> Result<Flow> {
        let resolved = crate::settings::gdb_resolve("show", arg).map_err(EngineError::Other)?;
        let arg = resolved.as_str();
        if let Some(r) = self.show_setting(arg) {
            r?;
            return Ok(Flow::Go);
        }
        let (what, rest) = match arg.trim().find(char::is_whitespace) {
            Some(i) => (&arg.trim()[..i], arg.trim()[i..].trim()),
            None => (arg.trim(), ""),
        };
        match what {
            "values" => self.cmd_show_values(rest),
            "convenience" | "conv" => self.cmd_show_convenience(),
            "language" => {
                match self.language_set {
                    Some(l) => out(format!("The current source language is \"{}\".", l.name())),
                    None => out(format!(
                        "The current source language is \"auto; currently {}\".",
                        self.language().name()
                    )),
                }
                Ok(Flow::Go)
            }
            "args" => {
                let args = self.args_string();
                out(format!(
                    "Argument list to give program being debugged when it is started is \"{args}\"."
                ));
                Ok(Flow::Go)
            }
            "cwd" => {
                match &self.session.cwd {
                    Some(d) => out(format!(
                        "Current working directory that will be used when starting the inferior is \"{}\".",
                        d.display()
                    )),
                    None => {
                        out("You have not set the inferior's current working directory.");
                        out(
                            "The inferior will inherit GDB's cwd if native debugging, or the remote",
                        );
                        out("server's cwd if remote debugging.");
                    }
                }
                Ok(Flow::Go)
            }
            "startup-with-shell" => {
                let v = on_off(self.session.startup_with_shell);
                out(format!("Use of shell to start subprocesses is {v}."));
                Ok(Flow::Go)
            }
            "disable-randomization" => {
                let v = on_off(self.session.disable_randomization);
                out(format!(
                    "Disabling randomization of debuggee's virtual address space is {v}."
                ));
                Ok(Flow::Go)
            }
            "breakpoint" if rest == "pending" => {
                let v = match self.pending_mode {
                    Some(true) => "on",
                    Some(false) => "off",
                    None => "auto",
                };
                out(format!(
                    "Debugger's behavior regarding pending breakpoints is {v}."
                ));
                Ok(Flow::Go)
            }
            "max-value-size" => {
                out(match self.max_value_size {
                    Some(n) => format!("Maximum value size is {n} bytes."),
                    None => "Maximum value size is unlimited.".into(),
                });
                Ok(Flow::Go)
            }
            _ => Err(EngineError::Other(format!(
                "Undefined show command: \"{what}\".  Try \"help show\"."
            ))),
        }
    }

    /// `set var EXPR` / `set variable EXPR` / `set EXPR`.
    pub(crate) fn cmd_set_var(&mut self, text: &str) -> Result<Flow> {
        self.evaluate(text)?;
        Ok(Flow::Go)
    }

    /// `ptype[/o] EXPR|TYPE` and `whatis EXPR|TYPE`.
    /// The most-derived class of the polymorphic object at `addr` (`set print object on`),
    /// from its vtable pointer's symbol (`vtable for Circle+16`), and the address of the
    /// whole object (the vtable's offset to top); `None` for an object without a vtable.
    fn dynamic_class(&self, addr: u64) -> Option<(TypeRef, u64)> {
        let ptr = self.session.arch().ptr_size;
        let word = |a: u64| -> Option<u64> {
            let mut b = [0u8; 8];
            self.session.read_memory(a, &mut b[..ptr.min(8)]).ok()?;
            Some(u64::from_le_bytes(b))
        };
        let vptr = word(addr)?;
        let class = cohort_dwarf::demangle::vtable_class(&self.session.symbolize(vptr)?)?;
        let top = word(vptr.wrapping_sub(2 * ptr as u64))? as i64;
        let ty = ["", "struct ", "class "].iter().find_map(|k| {
            self.debug_objects()
                .iter()
                .find_map(|(d, _)| dietypes::lookup_type(d, &format!("{k}{class}")))
        })?;
        Some((ty, addr.wrapping_add(top as u64)))
    }

    /// gdb's RTTI look-up for the polymorphic object at `addr` (see
    /// `cohort_dwarf::context::Target::full_object`): its warning when the class its vtable
    /// names has no type in the debug information.
    pub(crate) fn full_object(&self, addr: u64) {
        let ptr = self.session.arch().ptr_size;
        let mut b = [0u8; 8];
        if self
            .session
            .read_memory(addr, &mut b[..ptr.min(8)])
            .is_err()
        {
            return;
        }
        let Some(sym) = self.session.symbolize(u64::from_le_bytes(b)) else {
            return;
        };
        let name = sym.rsplit_once('+').map_or(sym.as_str(), |(n, _)| n);
        let Some(class) = cohort_dwarf::demangle::vtable_class(name) else {
            return;
        };
        let found = ["", "struct ", "class "].iter().any(|k| {
            self.debug_objects()
                .iter()
                .any(|(d, _)| dietypes::lookup_type(d, &format!("{k}{class}")).is_some())
        });
        if !found {
            crate::errln!("warning: RTTI symbol not found for class '{class}'");
        }
    }

    /// `v` as `set print object on` shows it: a pointer or reference to a polymorphic class
    /// retyped to the object's dynamic class and moved to the whole object; a polymorphic
    /// object as its dynamic class, with the `(Circle) ` gdb puts before it. `printing`: for
    /// `print` (not `whatis`/`ptype`), whose reference costs gdb one more RTTI look-up.
    fn dynamic_value(&self, v: Value, printing: bool) -> (Value, Option<String>) {
        if !self.settings.on("print object")
            || self.language() != Language::Cplus
            || v.optimized_out
        {
            return (v, None);
        }
        let ptr = self.session.arch().ptr_size;
        let st = v.ty.strip();
        let is_class = |t: &TypeRef| matches!(t.strip().kind, TypeKind::Aggregate { .. });
        match &st.kind {
            TypeKind::Pointer(t) | TypeKind::Reference(t) | TypeKind::RvalueReference(t)
                if is_class(t.get()) =>
            {
                let a = v.as_u64();
                if a == 0 {
                    return (v, None);
                }
                // gdb's RTTI look-ups here (`value_rtti_indirect_type`: `value_ind`, then the
                // type; a printed reference once more), each with its warning.
                let lookups = match st.kind {
                    TypeKind::Pointer(_) => 2,
                    _ => 2 + usize::from(printing),
                };
                for _ in 0..lookups {
                    self.full_object(a);
                }
                let Some((dy, full)) = self.dynamic_class(a) else {
                    return (v, None);
                };
                let ty = match &st.kind {
                    TypeKind::Pointer(_) => Type::new(
                        None,
                        ptr as u64,
                        TypeKind::Pointer(cohort_dwarf::types::LazyType::ready(dy)),
                    ),
                    TypeKind::Reference(_) => Type::new(
                        None,
                        ptr as u64,
                        TypeKind::Reference(cohort_dwarf::types::LazyType::ready(dy)),
                    ),
                    _ => Type::new(
                        None,
                        ptr as u64,
                        TypeKind::RvalueReference(cohort_dwarf::types::LazyType::ready(dy)),
                    ),
                };
                let bytes = full.to_le_bytes()[..ptr.min(8)].to_vec();
                (Value::new(ty, bytes, Lval::None), None)
            }
            TypeKind::Aggregate { .. } => {
                let Some(a) = v.address() else {
                    return (v, None);
                };
                self.full_object(a);
                let Some((dy, full)) = self.dynamic_class(a) else {
                    return (v, None);
                };
                let name = type_name_in(&dy, Language::Cplus);
                let mut bytes = vec![0u8; dy.byte_size() as usize];
                if self.session.read_memory(full, &mut bytes).is_err() {
                    return (v, None);
                }
                (
                    Value::new(dy, bytes, Lval::Memory(full)),
                    Some(format!("({name}) ")),
                )
            }
            _ => (v, None),
        }
    }

    /// `info vtbl EXPR`: the virtual function table of each dynamic subobject of the object
    /// (through a pointer or reference), as gdb's `gnuv3_print_vtable`: subobjects by address,
    /// each with the slots up to the highest one its classes declare.
    pub(crate) fn cmd_info_vtbl(&mut self, arg: &str) -> Result<Flow> {
        const NONE: &str = "This object does not have a virtual function table";
        let v = self.evaluate(arg)?;
        let st = v.ty.strip();
        let (ty, addr) = match &st.kind {
            TypeKind::Pointer(t) | TypeKind::Reference(t) | TypeKind::RvalueReference(t) => {
                (t.get().strip(), Some(v.as_u64()))
            }
            _ => (st.clone(), v.address()),
        };
        let (Some(addr), true) = (addr, is_dynamic_class(&ty)) else {
            out(NONE);
            return Ok(Flow::Go);
        };
        // gdb follows a pointer or reference with `value_ind`/`coerce_ref`: its RTTI look-up.
        if !matches!(st.kind, TypeKind::Aggregate { .. }) && addr != 0 {
            self.full_object(addr);
        }
        // `set print object on`: gdb's `value_full_object` on the object too.
        if self.settings.on("print object") && addr != 0 {
            self.full_object(addr);
        }
        let mut subs: Vec<(u64, TypeRef, i64)> = Vec::new();
        vtable_subobjects(&ty, addr, &mut subs);
        subs.sort_by_key(|s| s.0);
        let ptr = self.session.arch().ptr_size;
        let word = |a: u64| -> Result<u64> {
            let mut b = [0u8; 8];
            self.session.read_memory(a, &mut b[..ptr.min(8)])?;
            Ok(u64::from_le_bytes(b))
        };
        let mut count = 0;
        for (a, t, max) in &subs {
            if *max < 0 {
                continue;
            }
            if count > 0 {
                out("");
            }
            count += 1;
            let vt = word(*a)?;
            out(format!(
                "vtable for '{}' @ {vt:#x} (subobject @ {a:#x}):",
                type_name_in(t, Language::Cplus)
            ));
            for i in 0..=*max as u64 {
                let f = word(vt.wrapping_add(i * ptr as u64))?;
                match self.value_symbol(f) {
                    Some(sym) => out(format!("[{i}]: {f:#x} <{sym}>")),
                    None => out(format!("[{i}]: {f:#x}")),
                }
            }
        }
        if count == 0 {
            out(NONE);
        }
        Ok(Flow::Go)
    }

    pub(crate) fn cmd_ptype(&mut self, arg: &str, expand: bool) -> Result<Flow> {
        self.read_all_debug_objects();
        let (_, text) = split_format(arg);
        let text = text.trim();
        if text.is_empty() {
            return Err(EngineError::Other("The history is empty.".into()));
        }
        if self.language() == Language::Fortran {
            let ctx = self.eval_ctx();
            let ty = match cohort_fortran::evaluate_type(text, &ctx) {
                Ok(v) => v.ty,
                // A derived type by its name (`ptype inner_t`).
                Err(e) => fortran_type_named(&ctx, text).ok_or_else(|| derr(e))?,
            };
            let s = if expand {
                cohort_fortran::ptype(&ty)
            } else {
                cohort_fortran::whatis(&ty)
            };
            out(format!("type = {s}"));
            return Ok(Flow::Go);
        }
        let ctx = self.eval_ctx();
        let mut real = None;
        let ty = if let Some(t) = expr::parse_type(text, &ctx) {
            if expand {
                t
            } else {
                // whatis of a typedef name shows one level down.
                match &t.kind {
                    TypeKind::Typedef(inner) if t.name.as_deref() == Some(text) => {
                        inner.get().clone()
                    }
                    _ => t,
                }
            }
        } else {
            let e = expr::parse_in(text, &ctx).map_err(derr)?;
            let ty = expr::evaluate_type(&e, &ctx).map_err(derr)?;
            // `set print object on`: a pointer or reference to a polymorphic class names
            // the object's dynamic type first (`/* real type = Circle * */`).
            if self.settings.on("print object")
                && self.language() == Language::Cplus
                && matches!(
                    ty.strip().kind,
                    TypeKind::Pointer(_) | TypeKind::Reference(_) | TypeKind::RvalueReference(_)
                )
                && let Ok(v) = expr::evaluate(&e, &ctx)
            {
                let (dv, _) = self.dynamic_value(v, false);
                if !Arc::ptr_eq(&dv.ty, &ty) && !Arc::ptr_eq(&dv.ty, &ty.strip()) {
                    real = Some(type_name_in(&dv.ty, Language::Cplus));
                }
            }
            ty
        };
        let lang = self.language();
        let s = if lang == Language::Fortran {
            if expand {
                cohort_fortran::ptype(&ty)
            } else {
                cohort_fortran::whatis(&ty)
            }
        } else if expand {
            ptype_in(&ty, lang)
        } else {
            type_name_in(&ty, lang)
        };
        match real {
            Some(r) => out(format!("type = /* real type = {r} */\n{s}")),
            None => out(format!("type = {s}")),
        }
        Ok(Flow::Go)
    }

    /// `info locals` / `info args` for the selected frame.
    /// `info args|locals [REGEX]`.
    pub(crate) fn cmd_info_vars(&mut self, args: bool, filter: &str) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::Other("No frame selected.".into()));
        }
        let frames = self.frames(usize::MAX);
        let idx = self.selected_frame();
        let Some(frame) = frames.get(idx) else {
            return Err(EngineError::Other("No frame selected.".into()));
        };
        // gdb says so on stdout, as a message rather than an error.
        let Some((d, _, scope)) = self.scope_of(frame) else {
            out("No symbol table info available.");
            return Ok(Flow::Go);
        };
        let Some(fs) = scope.innermost() else {
            out("No symbol table info available.");
            return Ok(Flow::Go);
        };
        let mut vars: Vec<_> = if args {
            fs.params.iter().collect()
        } else {
            fs.locals()
        };
        let filter = filter.trim();
        if !filter.is_empty() {
            let re = crate::symtab_info::Regex::new(filter)
                .map_err(|e| EngineError::Other(format!("Invalid regexp: {e}")))?;
            vars.retain(|v| re.is_match(&v.name));
            if vars.is_empty() {
                out(if args {
                    "No matching arguments."
                } else {
                    "No matching locals."
                });
                return Ok(Flow::Go);
            }
        }
        if vars.is_empty() {
            out(if args { "No arguments." } else { "No locals." });
            return Ok(Flow::Go);
        }
        let opts = FormatOptions {
            type_prefix: false,
            ..FormatOptions::default()
        };
        for v in vars {
            let s = self.listed_value(&d, v, &frames, idx, &opts);
            out(format!("{} = {s}", v.name));
        }
        Ok(Flow::Go)
    }

    /// The DWARF function of the frame whose lookup pc is `pc` (for `finish`): gdb's
    /// `find_pc_function`, the real function (not a call inlined at `pc`, whose frame may be
    /// hidden there).
    pub(crate) fn function_die_at(&self, pc: u64) -> Option<(Arc<DebugFile>, Function)> {
        let (d, bias) = self.debug_for(pc)?;
        let f = scopes::function_at(&d, pc.wrapping_sub(bias)).ok()??;
        Some((d, f))
    }

    /// `Value returned is $N = …` after `finish` (nothing for a void function).
    pub(crate) fn print_return_value(&mut self, f: &(Arc<DebugFile>, Function)) -> Result<()> {
        let v = self.return_value(f)?;
        self.print_returned(v);
        Ok(())
    }

    /// `Value returned is $N = …` for a value [`Self::return_value`] read.
    pub(crate) fn print_returned(&mut self, v: Option<Value>) {
        let Some(v) = v else { return };
        let s = self.format(&v, &FormatOptions::default());
        let n = self.record_history(v);
        out(format!("Value returned is ${n} = {s}"));
    }

    /// The value function `f` just returned (the thread is right after its return); `None`
    /// for a `void` function or where the convention does not say.
    pub(crate) fn return_value(&self, f: &(Arc<DebugFile>, Function)) -> Result<Option<Value>> {
        let Some(ty) = f.1.ret.clone() else {
            return Ok(None);
        };
        let regs = self.session.registers(true)?;
        let size = ty.byte_size() as usize;
        let bytes = match return_location(self.session.arch().name, &ty) {
            ReturnLocation::Registers(parts) => {
                let mut b = Vec::with_capacity(size);
                for (n, len) in parts {
                    let v = regs
                        .arch
                        .reg_by_dwarf(n)
                        .and_then(|i| regs.get(i))
                        .unwrap_or(0);
                    b.extend_from_slice(&v.to_le_bytes()[..len.min(16)]);
                }
                b.resize(size, 0);
                b
            }
            ReturnLocation::Memory { address_reg } => {
                let a = regs
                    .arch
                    .reg_by_dwarf(address_reg)
                    .and_then(|i| regs.get(i))
                    .unwrap_or(0) as u64;
                let mut b = vec![0u8; size];
                self.session.read_memory(a, &mut b)?;
                b
            }
            ReturnLocation::Unknown => return Ok(None),
        };
        Ok(Some(Value::new(ty, bytes, Lval::None)))
    }

    /// Whether breakpoint `id`'s condition holds now (no condition: true). An error in the
    /// condition stops, as in gdb, after saying so.
    pub(crate) fn condition_holds_now(&self, id: u32) -> bool {
        let cond = self
            .session
            .breakpoints()
            .iter()
            .find(|b| b.id == id)
            .and_then(|b| b.condition.clone());
        let Some(text) = cond else { return true };
        self.invalidate_frames();
        if self.language() == Language::Fortran {
            // Parsed once per breakpoint and condition text, like C conditions.
            let cached = {
                let cache = self.data.fortran_conditions.borrow();
                cache
                    .get(&id)
                    .filter(|(t, _)| *t == text)
                    .map(|(_, e)| e.clone())
            };
            let parsed = cached.unwrap_or_else(|| {
                let e = cohort_fortran::parse::parse(&text).map_err(|e| e.to_string());
                self.data
                    .fortran_conditions
                    .borrow_mut()
                    .insert(id, (text.clone(), e.clone()));
                e
            });
            let ctx = self.eval_ctx();
            let holds = parsed.and_then(|e| {
                cohort_fortran::evaluate_parsed(&e, &ctx)
                    .and_then(|v| cohort_fortran::is_truthy(&v))
                    .map_err(|e| e.to_string())
            });
            return match holds {
                Ok(b) => b,
                Err(err) => {
                    crate::errln!("Error in testing condition for breakpoint {id}:\n{err}");
                    true
                }
            };
        }
        let parsed = {
            let cache = self.data.conditions.borrow();
            cache
                .get(&id)
                .filter(|(t, _)| *t == text)
                .map(|(_, e)| e.clone())
        };
        let e = match parsed {
            Some(Some(e)) => e,
            Some(None) => return true,
            None => {
                let ctx = self.eval_ctx();
                let e = expr::parse_in(&text, &ctx).ok();
                self.data
                    .conditions
                    .borrow_mut()
                    .insert(id, (text.clone(), e.clone()));
                match e {
                    Some(e) => e,
                    None => return true,
                }
            }
        };
        let ctx = self.eval_ctx();
        match expr::evaluate(&e, &ctx).and_then(|v| expr::is_truthy(&v)) {
            Ok(b) => b,
            Err(err) => {
                crate::errln!("Error in testing condition for breakpoint {id}:\n{err}");
                true
            }
        }
    }

    /// `display[/FMT] EXPR` (shows it now and after every stop); bare `display` shows all.
    pub(crate) fn cmd_display(&mut self, arg: &str) -> Result<Flow> {
        if arg.trim().is_empty() {
            self.do_displays();
            return Ok(Flow::Go);
        }
        let (spec, text) = display_spec(arg);
        if text.is_empty() {
            return Err(EngineError::Other(
                "Argument required (expression to compute).".into(),
            ));
        }
        // gdb parses the expression first, in the selected frame's scope: a syntax error or
        // an unknown name (`No symbol "x" in current context.`) makes no display.
        let sel = self.selected_frame();
        let at = self.frames(sel + 1).get(sel).map(|f| f.lookup_pc());
        self.check_condition(text, at)?;
        let d = self.add_display(spec, text, None);
        // gdb shows a new display at once when the user typed the command (from_tty).
        if self.session.is_running() && (self.from_tty || self.typed) {
            self.show_display(&d);
        }
        Ok(Flow::Go)
    }

    /// A new display of `text` with format letters `spec`: bound to the selected frame's
    /// block now, or (`pending`, a restored display) at the first stop where it can be.
    pub(crate) fn add_display(
        &mut self,
        spec: &str,
        text: &str,
        pending: Option<DisplayScope>,
    ) -> Display {
        let (count, format, size) = Display::decode(spec);
        let n = self.data.next_display.get() + 1;
        self.data.next_display.set(n);
        let (block, statics, implicit_this, function) = match pending {
            Some(DisplayScope::Function(ref f)) => (None, Vec::new(), false, Some(f.clone())),
            Some(DisplayScope::Unparsed) => (None, Vec::new(), false, None),
            None => {
                let (b, s, t) = self.display_block(text);
                (b, s, t, self.local_function(text))
            }
        };
        self.data.display_statics.borrow_mut().insert(n, statics);
        let d = Display {
            number: n,
            spec: spec.to_string(),
            count,
            format,
            size,
            text: text.to_string(),
            enabled: true,
            block,
            implicit_this,
            function,
            pending,
        };
        self.data.displays.borrow_mut().push(d.clone());
        d
    }

    /// A restored display's binding at this stop: `None` where it cannot be shown yet (not
    /// in its function, or its expression means nothing here); else the display bound to the
    /// selected frame's block from now on, as if made here.
    fn bind_pending(&mut self, d: &Display) -> Option<Display> {
        let Some(p) = &d.pending else {
            return Some(d.clone());
        };
        if !self.session.is_running() {
            return None;
        }
        if let DisplayScope::Function(f) = p
            && !self.selected_in_function(f)
        {
            return None;
        }
        let sel = self.selected_frame();
        let at = self.frames(sel + 1).get(sel).map(|f| f.lookup_pc());
        if self.check_condition(&d.text, at).is_err() {
            return None;
        }
        let (block, statics, implicit_this) = self.display_block(&d.text);
        let mut bound = d.clone();
        bound.block = block;
        bound.implicit_this = implicit_this;
        bound.function = self.local_function(&d.text);
        bound.pending = None;
        self.data
            .display_statics
            .borrow_mut()
            .insert(d.number, statics);
        for x in self.data.displays.borrow_mut().iter_mut() {
            if x.number == d.number {
                *x = bound.clone();
            }
        }
        Some(bound)
    }

    /// The function whose locals (or parameters) the expression `text` names in the
    /// selected frame (gdb's innermost block of an expression, by its function): None for
    /// an expression of globals, registers and convenience variables, or with no program.
    pub(crate) fn local_function(&self, text: &str) -> Option<String> {
        if !self.session.is_running() || self.language() == Language::Fortran {
            return None;
        }
        let e = {
            let ctx = self.eval_ctx();
            expr::parse_in(text, &ctx).ok()?
        };
        let mut names = Vec::new();
        crate::locations::expr_names(&e, &mut names);
        let sel = self.selected_frame();
        let frames = self.frames(sel + 1);
        let (_, _, s) = self.scope_of(frames.get(sel)?)?;
        s.frames
            .iter()
            .find(|f| names.iter().any(|n| f.lookup(n).is_some()))
            .map(|f| f.function.name.clone())
    }

    /// Whether the selected frame is in function `name` (or in a call inlined into it).
    pub(crate) fn selected_in_function(&self, name: &str) -> bool {
        if !self.session.is_running() {
            return false;
        }
        let sel = self.selected_frame();
        let frames = self.frames(sel + 1);
        frames
            .get(sel)
            .and_then(|f| self.scope_of(f))
            .is_some_and(|(_, _, s)| s.frames.iter().any(|f| f.function.name == name))
    }

    /// The innermost block of the selected frame that defines a frame-bound name of `text`
    /// (a parameter or an automatic local; static locals need no frame), as gdb's
    /// `innermost_block_tracker` records it; `None` when the expression has none.
    /// Also the static locals it names (which gdb binds once, at parse time).
    /// And whether it names a member of `*this` bare.
    fn display_block(&mut self, text: &str) -> (Option<DisplayBlock>, Vec<BoundStatic>, bool) {
        let sel = self.selected_frame();
        let frames = self.frames(sel + 1);
        let Some((d, _, scope)) = frames.get(sel).and_then(|f| self.scope_of(f)) else {
            return (None, Vec::new(), false);
        };
        let mut names: Vec<String> = Vec::new();
        if self.language() == Language::Fortran {
            // Fortran expressions: their identifiers (not components after `%`).
            let mut prev = ' ';
            let mut word = String::new();
            for c in text.chars().chain(std::iter::once(' ')) {
                if c.is_ascii_alphanumeric() || c == '_' {
                    word.push(c);
                    continue;
                }
                if !word.is_empty() {
                    if prev != '%' && prev != '$' && !word.starts_with(|c: char| c.is_ascii_digit())
                    {
                        names.push(word.to_ascii_lowercase());
                    }
                    word.clear();
                }
                prev = c;
            }
        } else {
            let ctx = self.eval_ctx();
            let Ok(e) = cohort_dwarf::expr::parse_in(text, &ctx) else {
                return (None, Vec::new(), false);
            };
            let mut v = Vec::new();
            crate::locations::expr_names(&e, &mut v);
            names = v.into_iter().map(str::to_string).collect();
        }
        let bound = |v: &cohort_dwarf::scopes::Variable| {
            matches!(
                v.kind,
                cohort_dwarf::scopes::VarKind::Param | cohort_dwarf::scopes::VarKind::Local
            )
        };
        // The innermost of the blocks found: (inline depth, blocks from the innermost).
        let mut best: Option<((usize, usize), cohort_dwarf::types::DieRef)> = None;
        let mut statics = Vec::new();
        let mut implicit_this = false;
        let has_this = scope
            .innermost()
            .is_some_and(|fs| fs.lookup("this").is_some());
        for name in &names {
            let local = scope.frames.iter().any(|fs| fs.lookup(name).is_some());
            if !local
                && has_this
                && name != "this"
                && self.language() == Language::Cplus
                && self.evaluate(&format!("this->{name}")).is_ok()
            {
                implicit_this = true;
            }
            for (depth, fs) in scope.frames.iter().enumerate() {
                let in_block = fs.blocks.iter().enumerate().rev().find_map(|(i, b)| {
                    b.variables
                        .iter()
                        .find(|v| &v.name == name)
                        .map(|v| (fs.blocks.len() - i, b.die, v))
                });
                let found = in_block.or_else(|| {
                    fs.lookup(name)
                        .map(|v| (fs.blocks.len() + 1, fs.function.die, v))
                });
                if let Some((k, die, v)) = found {
                    if v.kind == cohort_dwarf::scopes::VarKind::StaticLocal {
                        statics.push((name.clone(), d.clone(), v.clone()));
                    }
                    if bound(v) {
                        let key = (depth, k);
                        if best.as_ref().is_none_or(|(b, _)| key < *b) {
                            best = Some((key, die));
                        }
                    }
                    break;
                }
            }
        }
        let block = best.map(|(_, die)| (Arc::as_ptr(&d) as usize, die));
        (block, statics, implicit_this)
    }

    /// Whether display block `block` contains the selected frame's block (gdb's
    /// `contained_in`: the blocks around the pc up to the real function, through inlined
    /// calls); never without a process.
    fn display_in_scope(&self, block: &Option<DisplayBlock>) -> bool {
        let Some((file, die)) = block else {
            return true;
        };
        if !self.session.is_running() {
            return false;
        }
        let sel = self.selected_frame();
        let frames = self.frames(sel + 1);
        let Some((d, _, scope)) = frames.get(sel).and_then(|f| self.scope_of(f)) else {
            return false;
        };
        Arc::as_ptr(&d) as usize == *file
            && scope
                .frames
                .iter()
                .any(|fs| fs.function.die == *die || fs.blocks.iter().any(|b| b.die == *die))
    }

    /// Whether the selected frame's function has a `this`.
    fn frame_has_this(&self) -> bool {
        let sel = self.selected_frame();
        let frames = self.frames(sel + 1);
        frames
            .get(sel)
            .and_then(|f| self.scope_of(f))
            .is_some_and(|(_, _, s)| s.innermost().is_some_and(|fs| fs.lookup("this").is_some()))
    }

    /// The displays numbered in `arg` (gdb's `map_display_numbers`: numbers, ranges `N-M`
    /// and convenience variables; a bad one is warned about, an unknown one said on
    /// stdout), each given to `f`.
    fn map_display_numbers(&mut self, arg: &str, mut f: impl FnMut(&mut Self, u32)) -> Result<()> {
        let mut rest = arg.trim();
        while let Some(c) = rest.chars().next() {
            let starts_number = c.is_ascii_digit()
                || c == '$'
                || (c == '-' && rest[1..].starts_with(|c: char| c.is_ascii_digit() || c == '$'));
            if !starts_number {
                break;
            }
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let (tok, after) = (&rest[..end], rest[end..].trim_start());
            rest = after;
            let nums: Vec<i64> = if tok.starts_with('-') {
                return Err(EngineError::Other("negative value".into()));
            } else if let Some((a, b)) = tok.split_once('-').filter(|(a, _)| !a.is_empty()) {
                let a = self.display_number(a);
                let b = self.display_number(b);
                if b < a {
                    return Err(EngineError::Other("inverted range".into()));
                }
                if a == 0 { vec![0] } else { (a..=b).collect() }
            } else {
                vec![self.display_number(tok)]
            };
            for n in nums {
                if n <= 0 {
                    crate::errln!("warning: bad display number at or near '{tok}'");
                } else if self
                    .data
                    .displays
                    .borrow()
                    .iter()
                    .any(|d| i64::from(d.number) == n)
                {
                    f(self, n as u32);
                } else {
                    out(format!("No display number {n}."));
                }
            }
        }
        Ok(())
    }

    /// One number of a display list, as gdb's `get_number_trailer`: digits or a convenience
    /// variable holding an integer (else it says so); 0 for anything else.
    fn display_number(&self, w: &str) -> i64 {
        if let Some(name) = w.strip_prefix('$') {
            let vars = self.data.convenience.borrow();
            return match vars.get(name).filter(|v| v.ty.is_integer()) {
                Some(v) => v.as_i64(),
                None => {
                    out("Convenience variable must have integer value.");
                    0
                }
            };
        }
        if w.bytes().all(|b| b.is_ascii_digit()) {
            w.parse().unwrap_or(0)
        } else {
            0
        }
    }

    pub(crate) fn cmd_undisplay(&mut self, arg: &str) -> Result<Flow> {
        if arg.trim().is_empty() {
            if self.query("Delete all auto-display expressions? ", None) {
                self.data.displays.borrow_mut().clear();
                self.data.display_statics.borrow_mut().clear();
            }
            return Ok(Flow::Go);
        }
        self.map_display_numbers(arg, |d, n| {
            d.data.displays.borrow_mut().retain(|x| x.number != n);
            d.data.display_statics.borrow_mut().remove(&n);
        })?;
        Ok(Flow::Go)
    }

    /// `enable display [N…]` / `disable display [N…]` (all without numbers).
    pub(crate) fn cmd_enable_display(&mut self, arg: &str, on: bool) -> Result<Flow> {
        if arg.trim().is_empty() {
            for d in self.data.displays.borrow_mut().iter_mut() {
                d.enabled = on;
            }
            return Ok(Flow::Go);
        }
        self.map_display_numbers(arg, |d, n| {
            for x in d.data.displays.borrow_mut().iter_mut() {
                if x.number == n {
                    x.enabled = on;
                }
            }
        })?;
        Ok(Flow::Go)
    }

    /// `info display`.
    pub(crate) fn cmd_info_display(&mut self) -> Result<Flow> {
        let list = self.data.displays.borrow().clone();
        if list.is_empty() {
            out("There are no auto-display expressions now.");
            return Ok(Flow::Go);
        }
        out("Auto-display expressions now in effect:\nNum Enb Expression");
        for d in list {
            let out_of_scope = match &d.pending {
                Some(DisplayScope::Function(f)) => !self.selected_in_function(f),
                Some(DisplayScope::Unparsed) => false,
                None => d.block.is_some() && !self.display_in_scope(&d.block),
            };
            let gone = if out_of_scope {
                " (cannot be evaluated in the current context)"
            } else {
                ""
            };
            out(format!(
                "{}:   {}  {}{}{gone}",
                d.number,
                if d.enabled { 'y' } else { 'n' },
                d.info_format(),
                d.text
            ));
        }
        Ok(Flow::Go)
    }

    pub(crate) fn do_displays(&mut self) {
        let list = self.data.displays.borrow().clone();
        for d in list {
            self.show_display(&d);
        }
    }

    /// gdb's `do_one_display`: nothing for a disabled display or one out of its block; an
    /// error in place of the value.
    fn show_display(&mut self, d: &Display) {
        if !d.enabled {
            return;
        }
        let Some(d) = self.bind_pending(d) else {
            return;
        };
        let d = &d;
        if !self.display_in_scope(&d.block) {
            return;
        }
        let (n, text) = (d.number, d.text.as_str());
        if let (Some(size), Some(f)) = (d.size, d.format) {
            // Memory formats display like `x`.
            let count = if d.count == 1 {
                String::new()
            } else {
                d.count.to_string()
            };
            let size_letter = if matches!(f, 'i' | 's') {
                String::new()
            } else {
                size.to_string()
            };
            let head = format!("{n}: x/{count}{f}{size_letter} {text}");
            if d.count != 1 || f == 'i' {
                out(head);
            } else {
                crate::out!("{head}  ");
            }
            let saved = (self.x_fmt, self.x_next);
            let size_spec = if matches!(f, 'i' | 's') {
                String::new()
            } else {
                size.to_string()
            };
            let r = self.x_inner(&format!("/{}{f}{size_spec} {text}", d.count));
            (self.x_fmt, self.x_next) = saved;
            if let Err(e) = r {
                out(format!("<error: {e}>"));
            }
            return;
        }
        let shown = match d.format {
            Some(f) => format!("{n}: /{f} {text} = "),
            None => format!("{n}: {text} = "),
        };
        let statics = self
            .data
            .display_statics
            .borrow()
            .get(&n)
            .cloned()
            .unwrap_or_default();
        if d.implicit_this && !self.frame_has_this() {
            out(format!(
                "{shown}<error: current stack frame does not contain a variable named `this'>"
            ));
            return;
        }
        *self.data.bound_statics.borrow_mut() = statics;
        let r = self.evaluate(text);
        self.data.bound_statics.borrow_mut().clear();
        match r {
            Ok(v) => {
                let opts = match d.format {
                    Some(f) => FormatOptions::with_format(f),
                    None => FormatOptions::default(),
                };
                let s = self.format(&v, &opts);
                out(format!("{shown}{s}"));
            }
            Err(e) => out(format!("{shown}<error: {e}>")),
        }
    }
}

/// The selected frame as the expression evaluator sees it.
pub struct EvalCtx<'a> {
    dbg: &'a Debugger,
    frames: std::rc::Rc<Vec<Frame>>,
    sel: usize,
    /// Register assignments, applied after evaluation (they need the process mutably).
    /// Register writes an evaluation made: (DWARF register, byte offset, bytes).
    reg_writes: RefCell<Vec<(u16, u64, Vec<u8>)>>,
    /// Memory an evaluation wrote: (address, length), for the watchpoints' old values.
    mem_writes: RefCell<Vec<(u64, u64)>>,
    /// The lowest address below the stack pointer that data for a function call of this
    /// evaluation occupies (see `crate::infcall`).
    call_low: std::cell::Cell<Option<u64>>,
}

impl EvalCtx<'_> {
    /// A type as C spells it, through the frame's object first.
    fn lookup_type_c(&self, name: &str) -> Option<TypeRef> {
        let here = self.frame_debug();
        if let Some((d, _)) = &here
            && let Some(t) = dietypes::lookup_type(d, name)
        {
            return Some(t);
        }
        for (d, _) in self.dbg.debug_objects() {
            if let Some(t) = dietypes::lookup_type(&d, name) {
                return Some(t);
            }
        }
        None
    }

    /// A type by name from the selected frame's object, else any object; C++ classes,
    /// structs, unions and enums also without their keyword.
    fn lookup_type_here(&self, name: &str) -> Option<TypeRef> {
        let found = self.lookup_type_c(name);
        if found.is_some()
            || self.dbg.language() != Language::Cplus
            || (name.contains(' ') && !name.contains('<'))
        {
            return found;
        }
        // C++ names classes, structs, unions and enums without their keyword.
        ["struct", "class", "union", "enum"]
            .iter()
            .find_map(|k| self.lookup_type_c(&format!("{k} {name}")))
    }

    fn frame_debug(&self) -> Option<(Arc<DebugFile>, u64)> {
        let f = self.frames.get(self.sel)?;
        self.dbg.debug_for(f.lookup_pc())
    }

    /// In a Fortran frame: the names its `use` statements (and its module) make visible.
    fn fortran_visibility(&self) -> Option<cohort_dwarf::fortran_names::Visibility> {
        let frame = self.frames.get(self.sel)?;
        let (d, _, scope) = self.dbg.scope_of(frame)?;
        let f = scope.innermost()?;
        if scopes::unit_language(&d, f.function.unit) != Language::Fortran {
            return None;
        }
        Some(cohort_dwarf::fortran_names::visibility(&d, f.function.die))
    }

    /// Fortran host association: `name` of a procedure enclosing the selected frame's (an
    /// internal procedure's host, the origin of an outlined OpenMP region), read in the
    /// innermost frame of that procedure.
    fn lookup_fortran_host(&self, name: &str) -> cohort_dwarf::Result<Option<Value>> {
        let Some(frame) = self.frames.get(self.sel) else {
            return Ok(None);
        };
        let Some((d, _, scope)) = self.dbg.scope_of(frame) else {
            return Ok(None);
        };
        let Some(fs) = scope.innermost() else {
            return Ok(None);
        };
        let Some((host, var)) =
            cohort_dwarf::fortran_names::host_variable(&d, fs.function.die, name)
        else {
            return Ok(None);
        };
        let all = self.dbg.frames(usize::MAX);
        for i in self.sel + 1..all.len() {
            if let Some((fd, _, s)) = self.dbg.scope_of(&all[i])
                && Arc::ptr_eq(&fd, &d)
                && s.innermost().is_some_and(|f| f.function.die == host)
                && let Some(ctx) = self.dbg.frame_ctx(&all, i)
            {
                return cohort_dwarf::location::variable_value(&d, &var, &ctx).map(Some);
            }
        }
        let block = dietypes::read_die(&d, host)
            .ok()
            .and_then(|h| h.name(&d))
            .unwrap_or_default();
        Err(DwarfError::user(format!(
            "No frame is currently executing in block {block}."
        )))
    }

    /// A Fortran module variable by plain name, as `vis` makes it visible (`mod::name`).
    fn lookup_fortran_used(
        &self,
        vis: &cohort_dwarf::fortran_names::Visibility,
        name: &str,
    ) -> cohort_dwarf::Result<Option<Value>> {
        for q in vis.candidates(name) {
            for (d, bias) in self.dbg.debug_objects() {
                if let Some(var) = scopes::lookup_global(&d, &q, None)? {
                    let ctx = crate::source::StaticCtx::new(self.dbg, bias);
                    return cohort_dwarf::location::variable_value(&d, &var, &ctx).map(Some);
                }
            }
        }
        Ok(None)
    }

    fn value_of(&self, d: &Arc<DebugFile>, var: &scopes::Variable) -> cohort_dwarf::Result<Value> {
        match self.dbg.frame_ctx(&self.frames, self.sel) {
            Some(ctx) => cohort_dwarf::location::variable_value(d, var, &ctx),
            None => {
                // No process: globals from the file, at link-time addresses.
                let ctx = crate::source::StaticCtx::new(self.dbg, 0);
                cohort_dwarf::location::variable_value(d, var, &ctx)
            }
        }
    }
}

crate::session_target!(EvalCtx);

impl<'a> EvalCtx<'a> {
    /// The selected frame's debug information, a variable standing for its function (the
    /// anchor DWARF properties of a type are evaluated against) and its register context:
    /// array bounds and descriptors' expressions are relative to that function.
    fn property_frame(
        &self,
        ty: &TypeRef,
    ) -> Option<(Arc<DebugFile>, scopes::Variable, crate::source::Ctx<'_>)> {
        let frame = self.frames.get(self.sel)?;
        let (d, _, scope) = self.dbg.scope_of(frame)?;
        let ctx = self.dbg.frame_ctx(&self.frames, self.sel)?;
        let f = scope.function()?;
        let anchor = scopes::Variable {
            name: String::new(),
            ty: ty.clone(),
            die: f.die,
            unit: f.unit,
            kind: scopes::VarKind::Local,
            location: None,
            const_value: None,
            frame_base: f.frame_base,
            decl_line: None,
            artificial: false,
        };
        Some((d, anchor, ctx))
    }
}

/// Which part of a name lookup to do (`EvalContext::lookup_variable_part`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parts {
    All,
    Debug,
    Minimal,
}

impl EvalCtx<'_> {
    /// `lookup_variable`, or a part of it (`EvalContext::lookup_variable_part`).
    fn lookup_variable_in(&self, name: &str, parts: Parts) -> cohort_dwarf::Result<Option<Value>> {
        if parts == Parts::Minimal {
            if let Some(v) = self.minimal_symbol_value(name) {
                return Ok(Some(v));
            }
            return self.no_symbol_table();
        }
        // `::x`: the top level only.
        if let Some(top) = name.strip_prefix("::") {
            if let Some(v) = self.lookup_outside(top, &None)? {
                return Ok(Some(v));
            }
            if parts == Parts::All {
                return Ok(self.minimal_symbol_value(top));
            }
            return Ok(None);
        }
        // The static locals a display was made with (gdb parsed it there, once).
        let bound = self
            .dbg
            .data
            .bound_statics
            .borrow()
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, d, v)| (d.clone(), v.clone()));
        if let Some((d, var)) = bound {
            // At its fixed address, as a global (from the file without a process).
            let bias = self
                .dbg
                .debug_objects()
                .iter()
                .find(|(o, _)| Arc::ptr_eq(o, &d))
                .map_or(0, |(_, b)| *b);
            let ctx = crate::source::StaticCtx::new(self.dbg, bias);
            return cohort_dwarf::location::variable_value(&d, &var, &ctx).map(Some);
        }
        // Locals of the selected frame first.
        if let Some(frame) = self.frames.get(self.sel)
            && let Some((d, _, scope)) = self.dbg.scope_of(frame)
            && let Some(fs) = scope.innermost()
            && let Some(var) = fs.lookup(name)
        {
            return self.value_of(&d, var).map(Some);
        }
        // C++: in a member function, a member of `*this` by its bare name (gdb looks through
        // `this` after the block's symbols, before file statics and globals).
        if name != "this"
            && !name.contains("::")
            && let Some(frame) = self.frames.get(self.sel)
            && let Some((_, _, scope)) = self.dbg.scope_of(frame)
            && let Some(this) = scope.innermost().and_then(|fs| fs.lookup("this"))
            && let Ok(e) = cohort_dwarf::expr::parse(&format!("this->{name}"))
        {
            match cohort_dwarf::expr::evaluate_lazy(&e, self) {
                Ok(v) => return Ok(Some(v)),
                // A member of the class whose `this` cannot be read (optimized out): gdb's
                // error, not another symbol of that name.
                Err(err)
                    if this
                        .ty
                        .strip_typedefs()
                        .pointee()
                        .is_some_and(|c| class_has_member(&c, name, 0)) =>
                {
                    return Err(err);
                }
                Err(_) => {}
            }
        }
        // Fortran: module variables by plain name where a `use` makes them visible; other
        // modules' variables only as `mod::name`.
        let fortran = if name.contains("::") {
            None
        } else {
            self.fortran_visibility()
        };
        if fortran.is_some()
            && let Some(v) = self.lookup_fortran_host(name)?
        {
            return Ok(Some(v));
        }
        if let Some(vis) = &fortran
            && let Some(v) = self.lookup_fortran_used(vis, name)?
        {
            return Ok(Some(v));
        }
        // C++: the function's classes and namespaces before the top level, the namespaces
        // `using namespace` imports after it (gdb's `cp_lookup_symbol_nonlocal`).
        let cxx = if fortran.is_none() {
            self.cxx_lookup()
        } else {
            None
        };
        for p in cxx.iter().flat_map(|c| c.scopes.iter()) {
            if let Some(v) = self.lookup_outside(&format!("{p}::{name}"), &None)? {
                return Ok(Some(v));
            }
        }
        if let Some(v) = self.lookup_outside(name, &fortran)? {
            return Ok(Some(v));
        }
        for p in cxx.iter().flat_map(|c| c.imports.iter()) {
            if let Some(v) = self.lookup_outside(&format!("{p}::{name}"), &None)? {
                return Ok(Some(v));
            }
        }
        if parts == Parts::All
            && let Some(v) = self.minimal_symbol_value(name)
        {
            return Ok(Some(v));
        }
        if parts == Parts::All {
            return self.no_symbol_table();
        }
        Ok(None)
    }

    /// C++: where the selected frame looks bare names up besides the top level; `None`
    /// outside a C++ function.
    fn cxx_lookup(&self) -> Option<cohort_dwarf::cxx_lookup::CxxLookup> {
        let frame = self.frames.get(self.sel)?;
        let (d, _, scope) = self.dbg.scope_of(frame)?;
        let fs = scope.innermost()?;
        if scopes::unit_language(&d, fs.function.unit) != Language::Cplus {
            return None;
        }
        let innermost = fs.blocks.last().map_or(fs.function.die, |b| b.die);
        let line = self.dbg.frame_src_line(frame).map(|l| u64::from(l.line));
        Some(cohort_dwarf::cxx_lookup::cxx_lookup(
            &d,
            &fs.function,
            innermost,
            line,
        ))
    }

    /// A global, file static, enumerator or function called `name`, in every object with
    /// debug information (the selected frame's object and unit first).
    fn lookup_outside(
        &self,
        name: &str,
        fortran: &Option<cohort_dwarf::fortran_names::Visibility>,
    ) -> cohort_dwarf::Result<Option<Value>> {
        // Then globals and statics: the frame's object first (its unit's statics first).
        let here = self.frame_debug();
        let mut objs = self.dbg.debug_objects();
        if let Some((d, _)) = &here {
            objs.sort_by_key(|(o, _)| !Arc::ptr_eq(o, d));
        }
        let unit = here.as_ref().and_then(|(d, _)| {
            let f = self.frames.get(self.sel)?;
            let bias = self.dbg.debug_for(f.lookup_pc())?.1;
            d.unit_for_pc(f.lookup_pc().wrapping_sub(bias))
        });
        for (d, bias) in &objs {
            let prefer = if here.as_ref().is_some_and(|(h, _)| Arc::ptr_eq(h, d)) {
                unit
            } else {
                None
            };
            if let Some(var) = scopes::lookup_global(d, name, prefer)?
                && !(fortran.is_some()
                    && dietypes::types(d)
                        .index()
                        .module_members
                        .contains_key(&var.die))
            {
                if !self.dbg.session.is_running() && is_thread_local(&var) {
                    return Err(DwarfError::user(format!(
                        "Cannot read `{name}' without registers"
                    )));
                }
                let ctx = crate::source::StaticCtx::new(self.dbg, *bias);
                return cohort_dwarf::location::variable_value(d, &var, &ctx).map(Some);
            }
            // As gdb, the selected frame's object is searched whole before the others: its
            // functions come before another library's variable of the same name (a Fortran
            // function `half` against libm's `half`).
            if prefer.is_some() {
                if let Some(v) = lookup_enumerator(d, name) {
                    return Ok(Some(v));
                }
                if let Ok(Some(f)) = scopes::function_by_name(d, name) {
                    return Ok(Some(function_value(d, &f, *bias)));
                }
            }
        }
        // Enumerators and functions.
        for (d, bias) in &objs {
            if let Some(v) = lookup_enumerator(d, name) {
                return Ok(Some(v));
            }
            if let Ok(Some(f)) = scopes::function_by_name(d, name) {
                return Ok(Some(function_value(d, &f, *bias)));
            }
        }
        // A C++ function by its qualified name (`geom::twice`): the last overload, as gdb.
        if name.contains("::")
            && let Some(v) = qualified_functions(self.dbg, name).pop()
        {
            return Ok(Some(v));
        }
        Ok(None)
    }

    /// Nothing found: gdb's parser says so differently when there are no full or partial
    /// symbols anywhere.
    fn no_symbol_table(&self) -> cohort_dwarf::Result<Option<Value>> {
        if !self
            .dbg
            .debug_objects()
            .iter()
            .any(|(d, _)| d.has_debug_info())
        {
            return Err(DwarfError::user(
                "No symbol table is loaded.  Use the \"file\" command.",
            ));
        }
        Ok(None)
    }

    /// A symbol known only to the ELF symbol table: gdb's minimal symbols, a function of
    /// unknown return type, or data of unknown type (usable through a cast).
    fn minimal_symbol_value(&self, name: &str) -> Option<Value> {
        {
            let (o, sym) = self.dbg.session.symbols().lookup_symbol(name)?;
            let addr = sym.addr.wrapping_add(o.bias);
            let ty = if sym.kind == cohort_engine::symbols::SymKind::Function {
                let ret = Type::new(Some("<unknown return type>".into()), 0, TypeKind::Void);
                // gdb's `nodebug_text_gnu_ifunc_symbol` for an indirect function.
                let name = if sym.is_ifunc() {
                    "<text gnu-indirect-function variable, no debug info>"
                } else {
                    "<text variable, no debug info>"
                };
                Type::new(
                    Some(name.into()),
                    1,
                    TypeKind::Function {
                        ret: Some(cohort_dwarf::types::LazyType::ready(ret)),
                        params: Vec::new(),
                        varargs: false,
                        prototyped: false,
                    },
                )
            } else {
                Type::new(
                    Some("<data variable, no debug info>".into()),
                    0,
                    TypeKind::Error(format!(
                        "'{name}' has unknown type; cast it to its declared type"
                    )),
                )
            };
            Some(Value::new(ty, Vec::new(), Lval::Memory(addr)))
        }
    }
}

impl EvalContext for EvalCtx<'_> {
    fn gdb_setting(&self, name: &str) -> Option<(cohort_dwarf::context::SettingKind, String)> {
        self.dbg.setting_value(name)
    }

    fn has_execution(&self) -> bool {
        self.dbg.session.process().is_some()
    }

    fn warning(&self, msg: &str) {
        crate::errln!("warning: {msg}");
    }

    fn call_function(
        &self,
        call: &cohort_dwarf::context::FunctionCall,
    ) -> cohort_dwarf::Result<Vec<u8>> {
        crate::infcall::call(self.dbg, &self.call_low, call)
    }

    fn push_for_call(&self, bytes: &[u8]) -> cohort_dwarf::Result<u64> {
        crate::infcall::push(self.dbg, &self.call_low, bytes)
    }

    fn code_symbol(&self, linkage: &str) -> Option<u64> {
        let (o, s) = self.dbg.session.symbols().lookup_symbol(linkage)?;
        (s.kind == cohort_engine::symbols::SymKind::Function).then(|| s.addr.wrapping_add(o.bias))
    }

    fn lookup_functions(&self, name: &str) -> cohort_dwarf::Result<Vec<Value>> {
        let mut out = if name.contains("::") {
            qualified_functions(self.dbg, name)
        } else {
            // A bare name (`operator==`): functions at the top level and in namespaces (as
            // argument-dependent lookup finds `std::operator==`), not class members.
            free_functions(self.dbg, name)
        };
        if out.is_empty()
            && let Some(v) = self.lookup_variable(name)?
            && matches!(v.ty.strip().kind, TypeKind::Function { .. })
        {
            out.push(v);
        }
        Ok(out)
    }

    fn lookup_functions_in(
        &self,
        name: &str,
        scopes: &[String],
    ) -> cohort_dwarf::Result<Vec<Value>> {
        // The namespace a function is declared in: its qualified name before the operator
        // (or last) name.
        Ok(functions_where(self.dbg, name, |_, full| {
            let scope = match full.find(name) {
                Some(i) => full[..i].trim_end_matches("::"),
                None => "",
            };
            scopes.iter().any(|s| s == scope)
        }))
    }

    fn language(&self) -> Language {
        if let Some(l) = self.dbg.language_override() {
            return l;
        }
        // The selected frame's unit (the frames are at hand), else gdb's rule for no frame.
        match self.frames.get(self.sel) {
            Some(f) => self
                .dbg
                .debug_for(f.lookup_pc())
                .and_then(|(d, bias)| {
                    let u = d.unit_for_pc(f.lookup_pc().wrapping_sub(bias))?;
                    Some(scopes::unit_language(&d, u))
                })
                .unwrap_or(Language::C),
            None => self.dbg.language(),
        }
    }

    fn resolve_dynamic(&self, ty: &TypeRef) -> cohort_dwarf::Result<TypeRef> {
        match self.property_frame(ty) {
            Some((d, anchor, ctx)) => cohort_dwarf::location::resolve_type(&d, ty, &anchor, &ctx),
            None => Ok(ty.clone()),
        }
    }

    fn resolve_object(&self, ty: &TypeRef, object: u64) -> cohort_dwarf::Result<(TypeRef, u64)> {
        match self.property_frame(ty) {
            Some((d, anchor, ctx)) => {
                cohort_dwarf::location::resolve_object(&d, ty, &anchor, &ctx, object)
            }
            None => Ok((ty.clone(), object)),
        }
    }

    fn write(&self, lval: &Lval, bytes: &[u8]) -> cohort_dwarf::Result<()> {
        match lval {
            Lval::Memory(a) => {
                let p = self
                    .dbg
                    .session
                    .process()
                    .ok_or_else(|| DwarfError::user("The program is not being run."))?;
                self.mem_writes.borrow_mut().push((*a, bytes.len() as u64));
                p.write_memory_shared(*a, bytes).map_err(Into::into)
            }
            Lval::Bitfield {
                addr,
                bit_offset,
                bit_size,
            } => {
                let p = self
                    .dbg
                    .session
                    .process()
                    .ok_or_else(|| DwarfError::user("The program is not being run."))?;
                let first = addr + bit_offset / 8;
                let shift = bit_offset % 8;
                let nbytes = (shift + bit_size).div_ceil(8) as usize;
                let mut buf = vec![0u8; nbytes.min(16)];
                self.read_memory(first, &mut buf)?;
                let mut word = [0u8; 16];
                word[..buf.len()].copy_from_slice(&buf);
                let mut w = u128::from_le_bytes(word);
                let mut vb = [0u8; 16];
                let k = bytes.len().min(16);
                vb[..k].copy_from_slice(&bytes[..k]);
                let v = u128::from_le_bytes(vb);
                let mask = if *bit_size >= 128 {
                    u128::MAX
                } else {
                    (1u128 << bit_size) - 1
                };
                w = (w & !(mask << shift)) | ((v & mask) << shift);
                let nb = w.to_le_bytes();
                self.mem_writes.borrow_mut().push((first, buf.len() as u64));
                p.write_memory_shared(first, &nb[..buf.len()])
                    .map_err(Into::into)
            }
            Lval::Register(n) | Lval::RegisterPart { reg: n, .. } => {
                if self.sel != 0
                    && !crate::registers::lives_in_innermost(&self.frames, self.sel, *n)
                {
                    return Err(DwarfError::user(
                        "Attempt to assign to an unmodifiable value.",
                    ));
                }
                let offset = match lval {
                    Lval::RegisterPart { offset, .. } => *offset,
                    _ => 0,
                };
                self.reg_writes
                    .borrow_mut()
                    .push((*n, offset, bytes.to_vec()));
                Ok(())
            }
            Lval::Pieces(pieces) => {
                // gdb writes a split value piece by piece.
                for p in pieces {
                    let (a, b) = (p.start as usize, (p.start + p.len) as usize);
                    let Some(part) = bytes.get(a..b.min(bytes.len())) else {
                        continue;
                    };
                    let at = match p.at {
                        cohort_dwarf::value::PieceAt::Register(reg) => Lval::Register(reg),
                        cohort_dwarf::value::PieceAt::Memory(addr) => Lval::Memory(addr),
                    };
                    self.write(&at, part)?;
                }
                Ok(())
            }
            Lval::None => Err(DwarfError::user(
                "Left operand of assignment is not an lvalue.",
            )),
        }
    }

    fn lookup_variable(&self, name: &str) -> cohort_dwarf::Result<Option<Value>> {
        self.lookup_variable_in(name, Parts::All)
    }

    fn frame_name(&self, up: usize) -> cohort_dwarf::Result<Option<Option<String>>> {
        if self.frames.is_empty() || !self.dbg.session.is_running() {
            return Err(DwarfError::user("No frame is currently selected."));
        }
        Ok(self
            .frames
            .get(self.sel + up)
            .map(|f| self.dbg.frame_function_name(f).0))
    }

    fn value_text(&self, v: &Value) -> Option<String> {
        // Python's `str(value)` is gdb's `common_val_print`: no `(type *)` prefix.
        let opts = FormatOptions {
            type_prefix: false,
            ..FormatOptions::default()
        };
        Some(self.dbg.format(v, &opts))
    }

    fn spelled_nocase(&self, name: &str) -> Option<String> {
        self.dbg
            .debug_objects()
            .iter()
            .find_map(|(d, _)| d.variable_spelled_nocase(name))
    }

    fn lookup_variable_part(
        &self,
        name: &str,
        minimal: bool,
    ) -> cohort_dwarf::Result<Option<Value>> {
        let parts = if minimal {
            Parts::Minimal
        } else {
            Parts::Debug
        };
        self.lookup_variable_in(name, parts)
    }

    fn entry_value(&self, name: &str) -> cohort_dwarf::Result<Value> {
        let not_param = || {
            DwarfError::user(format!(
                "@entry can be used only for function parameters, not for \"{name}\""
            ))
        };
        let frame = self.frames.get(self.sel).ok_or_else(not_param)?;
        let (d, _, scope) = self.dbg.scope_of(frame).ok_or_else(not_param)?;
        let fs = scope.innermost().ok_or_else(not_param)?;
        // The name as the selected frame's scope sees it must be one of its parameters.
        let var = fs
            .lookup(name)
            .filter(|v| fs.params.iter().any(|p| std::ptr::eq(*v, p)))
            .ok_or_else(not_param)?;
        let ctx = self
            .dbg
            .frame_ctx(&self.frames, self.sel)
            .ok_or_else(not_param)?;
        // gdb looks the entry location up at the machine function's entry.
        let entry_pc = scope
            .function()
            .map(|f| f.block_entry_pc())
            .unwrap_or(fs.function.low_pc);
        cohort_dwarf::location::entry_value_of(&d, var, entry_pc, &ctx)
    }

    fn lookup_scoped(&self, scope: &str, name: &str) -> cohort_dwarf::Result<Option<Value>> {
        // `file.c::function` (from `'file.c'::function::name`): the function's block.
        let scope = scope.rsplit_once("::").map_or(scope, |(_, f)| f);
        for (d, bias) in self.dbg.debug_objects() {
            let found = if scope.contains('.') {
                scopes::lookup_in_file(&d, scope, name)?
            } else {
                scopes::lookup_in_function(&d, scope, name)?
            };
            if let Some(var) = found {
                if var.kind == scopes::VarKind::Param || var.kind == scopes::VarKind::Local {
                    // A local of another function: in the innermost frame of that function
                    // from the selected one outwards (gdb's `block_innermost_frame`).
                    let all = self.dbg.frames(usize::MAX);
                    if all.is_empty() {
                        return Err(DwarfError::user("No frame selected."));
                    }
                    for (i, f) in all.iter().enumerate().skip(self.sel) {
                        if let Some((fd, _, s)) = self.dbg.scope_of(f)
                            && Arc::ptr_eq(&fd, &d)
                            && s.innermost().is_some_and(|fs| fs.function.name == scope)
                            && let Some(ctx) = self.dbg.frame_ctx(&all, i)
                        {
                            return cohort_dwarf::location::variable_value(&d, &var, &ctx)
                                .map(Some);
                        }
                    }
                    return Err(DwarfError::user(format!(
                        "No frame is currently executing in block {scope}."
                    )));
                }
                let ctx = crate::source::StaticCtx::new(self.dbg, bias);
                return cohort_dwarf::location::variable_value(&d, &var, &ctx).map(Some);
            }
        }
        // `'file.c'::function`: a function defined in that file.
        if scope.contains('.') {
            for (d, bias) in self.dbg.debug_objects() {
                for m in d.breakpoint_locations_for_name(name) {
                    if !cohort_dwarf::lines::file_matches(&m.name, &m.file, scope) {
                        continue;
                    }
                    if let Some(f) = scopes::scope_at(&d, m.address)?
                        .as_ref()
                        .and_then(|s| s.function())
                        .filter(|f| f.name == name)
                    {
                        return Ok(Some(function_value(&d, f, bias)));
                    }
                }
            }
        }
        Ok(None)
    }

    fn dynamic_object(&self, addr: u64) -> Option<(TypeRef, u64)> {
        if !self.dbg.settings.on("print object") {
            return None;
        }
        // `value_rtti_indirect_type`'s look-ups (`value_ind`, then the type).
        self.dbg.full_object(addr);
        self.dbg.full_object(addr);
        self.dbg.dynamic_class(addr)
    }

    fn is_namespace(&self, name: &str) -> bool {
        self.dbg
            .debug_objects()
            .iter()
            .any(|(d, _)| dietypes::is_namespace(d, name))
    }

    fn is_local_variable(&self, name: &str) -> bool {
        self.frames.get(self.sel).is_some_and(|frame| {
            self.dbg.scope_of(frame).is_some_and(|(_, _, scope)| {
                scope
                    .innermost()
                    .is_some_and(|fs| fs.lookup(name).is_some())
            })
        })
    }

    fn lookup_type(&self, name: &str) -> Option<TypeRef> {
        // C++: the function's classes and namespaces, the top level, then the namespaces
        // `using namespace` imports (as variables).
        if let Some(top) = name.strip_prefix("::") {
            return self.lookup_type_here(top);
        }
        let cxx = if self.dbg.language() == Language::Cplus {
            self.cxx_lookup()
        } else {
            None
        };
        let Some(cxx) = cxx else {
            return self.lookup_type_here(name);
        };
        cxx.scopes
            .iter()
            .find_map(|p| self.lookup_type_here(&format!("{p}::{name}")))
            .or_else(|| self.lookup_type_here(name))
            .or_else(|| {
                cxx.imports
                    .iter()
                    .find_map(|p| self.lookup_type_here(&format!("{p}::{name}")))
            })
    }

    fn register(&self, name: &str) -> cohort_dwarf::Result<Option<Value>> {
        let thread = || self.dbg.session.registers(true).ok();
        let high = |n| self.dbg.thread_ymm_high(n);
        crate::registers::register_value(&self.frames, self.sel, name, &thread, &high)
    }

    fn register_name(&self, dwarf: u16) -> Option<String> {
        let arch = self.frames.get(self.sel)?.regs.arch;
        arch.reg_by_dwarf(dwarf)
            .map(|i| arch.regs[i].name.to_string())
    }

    fn history(&self, which: HistoryRef) -> cohort_dwarf::Result<Value> {
        self.dbg.history_entry(match which {
            HistoryRef::Absolute(n) => n as i64,
            HistoryRef::Relative(back) => -(back as i64),
        })
    }

    fn convenience(&self, name: &str) -> cohort_dwarf::Result<Option<Value>> {
        if let Some(v) = self.dbg.data.convenience.borrow().get(name) {
            return Ok(Some(v.clone()));
        }
        let pc = self.frames.get(self.sel).map(Frame::pc);
        self.dbg
            .builtin_convenience(name, pc)
            .map_err(DwarfError::user)
    }

    fn touch_convenience(&self, name: &str) {
        self.dbg.data.convenience.borrow_mut().touch(name);
    }

    fn set_convenience(&self, name: &str, value: Value) {
        self.dbg
            .data
            .convenience
            .borrow_mut()
            .insert(name.to_string(), value);
    }
}

/// A function as a value: `{int (int)} 0x… <square>`.
/// Every function with code called `name` (qualified, as C++ scopes name it: `ns::C::f`),
/// in every object with debug information: the overloads of a C++ name.
fn qualified_functions(dbg: &Debugger, name: &str) -> Vec<Value> {
    functions_where(dbg, name, |_, _| true)
}

/// [`qualified_functions`] of a bare name that are not members of a class.
fn free_functions(dbg: &Debugger, name: &str) -> Vec<Value> {
    functions_where(dbg, name, |d, full| {
        let parts = cohort_dwarf::demangle::split_scope(full);
        parts.len() < 2 || dietypes::is_namespace(d, &parts[..parts.len() - 1].join("::"))
    })
}

fn functions_where(
    dbg: &Debugger,
    name: &str,
    keep: impl Fn(&Arc<DebugFile>, &str) -> bool,
) -> Vec<Value> {
    let mut out = Vec::new();
    for (d, bias) in dbg.debug_objects() {
        for f in d.functions_named(name) {
            if f.inlined_copy || !keep(&d, &f.name) {
                continue;
            }
            let (Some(pc), Ok(unit)) = (f.entry_pc(), d.unit(f.unit)) else {
                continue;
            };
            let Some(off) = f.offset.to_debug_info_offset(&unit.header) else {
                continue;
            };
            let ty = dietypes::type_of(&d, cohort_dwarf::types::DieRef(off));
            out.push(Value::new(
                ty,
                Vec::new(),
                Lval::Memory(pc.wrapping_add(bias)),
            ));
        }
    }
    out
}

fn function_value(d: &Arc<DebugFile>, f: &Function, bias: u64) -> Value {
    let ty = dietypes::type_of(d, f.die);
    Value::new(ty, Vec::new(), Lval::Memory(f.low_pc.wrapping_add(bias)))
}

/// An enumerator by name, as a value of its enum type (enums named directly or through a
/// typedef).
fn lookup_enumerator(d: &Arc<DebugFile>, name: &str) -> Option<Value> {
    use cohort_dwarf::types::DieRef;
    for t in d.all_types() {
        if t.tag != gimli::DW_TAG_enumeration_type && t.tag != gimli::DW_TAG_typedef {
            continue;
        }
        let unit = d.unit(t.unit).ok()?;
        let Some(off) = t.offset.to_debug_info_offset(&unit.header) else {
            continue;
        };
        let ty = dietypes::type_of(d, DieRef(off));
        let st = ty.strip();
        if let TypeKind::Enum { enumerators, .. } = &st.kind
            && let Some((_, v)) = enumerators.iter().find(|(n, _)| n == name)
        {
            let size = st.byte_size() as usize;
            let bytes = v.to_le_bytes()[..size.min(8)].to_vec();
            return Some(Value::new(st.clone(), bytes, Lval::None));
        }
    }
    None
}

/// A Fortran derived type by its name, in any case (`inner_t`, `Inner_T`).
fn fortran_type_named(ctx: &dyn EvalContext, name: &str) -> Option<TypeRef> {
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    [name.to_string(), name.to_ascii_lowercase()]
        .iter()
        .find_map(|n| {
            ctx.lookup_type(&format!("struct {n}"))
                .or_else(|| ctx.lookup_type(n))
        })
}

/// gdb's `gnuv3_dynamic_class`: a class with a vtable pointer (virtual functions or virtual
/// bases, its own or a base's).
fn is_dynamic_class(ty: &TypeRef) -> bool {
    let st = ty.strip();
    let TypeKind::Aggregate { members, .. } = &st.kind else {
        return false;
    };
    if let Some(c) = st.cxx.as_deref()
        && (!c.virtual_bases.is_empty() || c.methods.iter().any(|m| m.vtable_slot.is_some()))
    {
        return true;
    }
    members.iter().any(|m| {
        (!m.is_static && m.name.as_deref().is_some_and(|n| n.starts_with("_vptr")))
            || (m.is_base && is_dynamic_class(m.ty.get()))
    })
}

/// gdb's `compute_vtable_size`: each dynamic subobject of the object of class `ty` at `addr`
/// (the first class seen at an address names it) with the highest vtable slot of the
/// classes there (-1: none). Virtual bases are not followed.
fn vtable_subobjects(ty: &TypeRef, addr: u64, out: &mut Vec<(u64, TypeRef, i64)>) {
    let st = ty.strip();
    if !is_dynamic_class(&st) {
        return;
    }
    let i = match out.iter().position(|s| s.0 == addr) {
        Some(i) => i,
        None => {
            out.push((addr, st.clone(), -1));
            out.len() - 1
        }
    };
    if let Some(c) = st.cxx.as_deref() {
        for m in &c.methods {
            if let Some(slot) = m.vtable_slot {
                out[i].2 = out[i].2.max(slot as i64);
            }
        }
    }
    let TypeKind::Aggregate { members, .. } = &st.kind else {
        return;
    };
    let virtual_bases: Vec<usize> = st
        .cxx
        .as_deref()
        .map(|c| c.virtual_bases.iter().map(|v| v.0).collect())
        .unwrap_or_default();
    for (k, m) in members.iter().enumerate() {
        if m.is_base && !virtual_bases.contains(&k) {
            vtable_subobjects(m.ty.get(), addr.wrapping_add(m.offset), out);
        }
    }
}

/// Whether class `t` (or a base of it) has a non-static data member called `name` (one
/// that needs `this`).
fn class_has_member(t: &TypeRef, name: &str, depth: usize) -> bool {
    let t = t.strip_typedefs();
    let TypeKind::Aggregate { members, .. } = &t.kind else {
        return false;
    };
    members.iter().any(|m| {
        if m.is_base {
            depth < 16 && class_has_member(m.ty.get(), name, depth + 1)
        } else {
            !m.is_static && m.name.as_deref() == Some(name)
        }
    })
}

/// A boolean setting as `show` words it.
fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}
