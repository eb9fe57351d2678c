//! The gdb-compatible command interpreter. It lives on the tracer thread, owns the
//! `Session`, and prints what gdb prints.

use std::collections::HashMap;
use std::path::PathBuf;

use cohort_engine::arch::WatchKind;
use cohort_engine::disasm;
use cohort_engine::process::Notice;
use cohort_engine::session::{BpKind, BpSpec, Event, Message, Session};
use cohort_engine::signals::{SignalTable, describe};
use cohort_engine::{EngineError, Result};

use cohort_dwarf::format::FormatOptions;
use cohort_dwarf::types::{Encoding, Type};
use cohort_dwarf::value::{Lval, Value};

use crate::format::{XFormat, per_line, register_line, unit};
use crate::stepping::StepKind;

/// The front end's side of a watchpoint.
struct Watch {
    /// `Hardware watchpoint`, `Hardware read watchpoint`, …
    title: &'static str,
    /// The value last seen.
    value: Value,
    /// For an expression on locals: the frame's CFA and where its caller resumes.
    scope: Option<(u64, u64)>,
    /// The function of those locals (for a saved session: where it can be set again).
    function: Option<String>,
}

/// Whether the whole session should end after a command.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Go,
    Quit,
}

/// A breakpoint address's file name, full path and line (`None`: no line).
pub(crate) type BpPlace = Option<(String, Option<String>, u32)>;

pub struct Debugger {
    pub session: Session,
    /// gdb's `-batch`: questions are answered with their default, and said so.
    pub batch: bool,
    /// Whether the command being run was typed by the user (gdb's `from_tty`): true for
    /// `-ex` commands and typed lines outside batch mode, false in batch mode and for the
    /// lines of a `-x` script. Some messages are printed only then (`Starting program: …`,
    /// `Continuing.`, `Attaching to …`, `Detaching from …`).
    pub from_tty: bool,
    /// The lines come from the user of a parallel session's front end (`cohort launch`
    /// without `-batch`) although the rank's debugger runs in batch mode: gdb's from_tty for
    /// what a typed command shows at once (a new display).
    pub typed: bool,
    /// The exit status `quit N` asked for.
    pub quit_code: Option<i32>,
    /// `set breakpoint pending`: Some(true) on, Some(false) off, None auto.
    pub(crate) pending_mode: Option<bool>,
    /// The last `x` format and unit size, and the address after the last `x`.
    pub(crate) x_fmt: (char, usize),
    pub(crate) x_next: Option<u64>,
    /// gdb's `last_format`: the last format letter of `x`, `print` or `call` (`None` before
    /// any); `x` and a `print/r` without a letter use it.
    pub(crate) last_format: Option<char>,
    /// The displays were shown during the command (`finish` shows them before the value
    /// returned, as gdb's stop printing does), not again after it.
    pub(crate) displays_done: bool,
    /// What each watchpoint watches: its title, the value it last saw (gdb reports only
    /// changes for `watch`) and the frame its expression belongs to.
    watches: HashMap<u32, Watch>,
    /// The file, full path and line of each breakpoint's address, for the typed list
    /// (`breakpoint_facts`, asked after each command by the window): resolving a location
    /// again searches every object's line tables (3 ms a rank).
    pub(crate) bp_places: std::cell::RefCell<HashMap<(u32, u64), BpPlace>>,
    /// A software watchpoint's stop was reported in full while running to somewhere: the
    /// `Event::Step` standing for it is not reported again.
    soft_reported: bool,
    /// Breakpoints hit inside functions called from an expression, counted once the
    /// command ends (the evaluation holds the debugger shared).
    pub(crate) call_hits: std::cell::RefCell<Vec<u32>>,
    /// A function called by the command stopped inside (breakpoint, signal) and the stop was
    /// shown: the displays follow it, as at any stop.
    pub(crate) call_stopped: std::cell::Cell<bool>,
    /// Highest gdb thread number seen: once above 1, stops name their thread.
    pub(crate) many_threads: bool,
    /// Thread last reported to the user.
    pub(crate) last_tid: std::cell::Cell<Option<i32>>,
    /// `set language LANG` (None: `auto`, the selected frame's unit decides).
    pub(crate) language_set: Option<cohort_dwarf::format::Language>,
    /// `set print elements N` and `set print repeats N` (`usize::MAX`: unlimited).
    pub(crate) print_elements: usize,
    pub(crate) print_repeats: usize,
    /// `set max-value-size N` (None: unlimited): gdb refuses to print a Fortran array
    /// larger than that (see `cohort_fortran::eval::check_value_size`).
    pub(crate) max_value_size: Option<u64>,
    /// Where a step tells which MPI call it runs through (agentd's ranks only).
    pub(crate) activity: Option<std::sync::Arc<std::sync::Mutex<Option<String>>>>,
    /// How the program ended, once it has (`exited normally`, `exited with code 3`, …).
    ended: Option<String>,
    /// The wait status of the program's end (for launchers that want it back).
    pub exit_status: Option<i32>,
    /// Source-level state: debug info, frames, selected frame, source text.
    pub(crate) src: crate::source::SourceState,
    /// Value history, convenience variables, displays, parsed conditions.
    pub(crate) data: crate::data::DataState,
    /// The CUDA layer (see [`crate::cuda`]).
    pub(crate) cuda: crate::cuda::CudaSide,
    /// gdb settings stored for `show` (see [`crate::settings`]).
    pub(crate) settings: crate::settings::Settings,
    /// User-defined commands, breakpoint commands, a block being read (see [`crate::script`]).
    pub(crate) script: crate::script::ScriptState,
}

pub(crate) fn out(s: impl AsRef<str>) {
    let mut line = String::with_capacity(s.as_ref().len() + 1);
    line.push_str(s.as_ref());
    line.push('\n');
    crate::output::write_out(&line);
}

/// A repeat count argument (`step 3`); empty means 1.
pub(crate) fn parse_count(arg: &str) -> Result<u64> {
    let a = arg.trim();
    if a.is_empty() {
        return Ok(1);
    }
    parse_number(a)
        .ok_or_else(|| EngineError::Other(format!("No symbol \"{a}\" in current context.")))
}

/// gdb's `parse_pid_to_attach`: the whole argument is a number as `strtoul` reads it
/// (`0x10`, `010`, `-5`), taken as an `int`.
pub(crate) fn parse_pid(arg: &str) -> Result<i32> {
    let a = arg.trim();
    if a.is_empty() {
        return Err(EngineError::Other(
            "Argument required (process-id to attach).".into(),
        ));
    }
    let (neg, digits) = match a.as_bytes()[0] {
        b'-' => (true, &a[1..]),
        b'+' => (false, &a[1..]),
        _ => (false, a),
    };
    let starts_digit = digits.as_bytes().first().is_some_and(u8::is_ascii_digit);
    match parse_number(digits) {
        Some(n) if starts_digit => {
            let n = if neg { n.wrapping_neg() } else { n };
            Ok(n as i32)
        }
        _ => Err(EngineError::Other(format!("Illegal process-id: {a}."))),
    }
}

/// Why an attach to `pid` was refused, as gdb adds it to the error (its
/// `linux_ptrace_attach_fail_reason`): another tracer, or a process already dead.
fn attach_fail_reason(pid: i32) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
    };
    let mut why = String::new();
    if let Some(tracer) = field("TracerPid:").filter(|t| *t != "0") {
        why.push_str(&format!(
            "process {pid} is already traced by process {tracer}"
        ));
    }
    if field("State:").is_some_and(|s| s.starts_with('Z')) {
        why.push_str(&format!(
            "process {pid} is a zombie - the process has already terminated"
        ));
    }
    (!why.is_empty()).then_some(why)
}

/// The text of a command script, or why it cannot be read in gdb's words (`cmds: No such
/// file or directory`, `dir: Is a directory`; without the full stop, which only an error has).
pub fn read_script(path: &std::path::Path) -> std::result::Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| {
        let errno = nix::errno::Errno::from_raw(e.raw_os_error().unwrap_or(libc::ENOENT));
        format!("{}: {}", path.display(), errno.desc())
    })
}

pub(crate) fn parse_number(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if s.len() > 1 && s.starts_with('0') && s.chars().all(|c| c.is_ascii_digit()) {
        u64::from_str_radix(&s[1..], 8).ok()
    } else {
        s.parse().ok()
    }
}

impl Debugger {
    pub fn new(batch: bool) -> Self {
        let mut session = Session::new();
        session.resolver = Some(crate::locations::session_resolver());
        // Stop where the CUDA driver initialises, for the handshake (see `crate::cuda`).
        session.load_hooks = vec![cohort_cuda::host::INIT_HOOK.to_string()];
        // Thread and signal notices print as they happen, in order with the program's output.
        session.notice_hook = Some(Box::new(|| {
            Box::new(|n: &Notice| {
                if let Some(line) = notice_line(n) {
                    out(line);
                }
            })
        }));
        Debugger {
            session,
            batch,
            from_tty: !batch,
            typed: false,
            quit_code: None,
            pending_mode: None,
            language_set: None,
            print_elements: 200,
            print_repeats: 10,
            max_value_size: Some(65536),
            x_fmt: ('x', 4),
            x_next: None,
            last_format: None,
            displays_done: false,
            watches: HashMap::new(),
            bp_places: Default::default(),
            soft_reported: false,
            call_hits: std::cell::RefCell::new(Vec::new()),
            call_stopped: std::cell::Cell::new(false),
            many_threads: false,
            last_tid: std::cell::Cell::new(None),
            ended: None,
            exit_status: None,
            activity: None,
            src: Default::default(),
            data: Default::default(),
            cuda: Default::default(),
            settings: Default::default(),
            script: Default::default(),
        }
    }

    /// Run one command line. Errors are printed to stderr; the session goes on.
    pub fn execute(&mut self, line: &str) -> Flow {
        match self.run_command(line) {
            Ok(f) => f,
            Err(e) => {
                crate::errln!("{e}");
                Flow::Go
            }
        }
    }

    /// Run one command line and return its error instead of printing it: a script stops
    /// at its first failing command, and gdb's `-batch` exit status is that of the last one.
    pub fn run_command(&mut self, line: &str) -> Result<Flow> {
        if let Some(r) = self.block_line(line) {
            return r;
        }
        self.note_resume(line.trim());
        // libstdc++'s type printer for `std::string` needs the typedef; a name's
        // canonicalization the class defined too (clang's debug information declares it).
        // Only objects with C++ units are asked (a type look-up indexes the whole object: done
        // for libc's debug information before the first command, it delayed that command by
        // seconds, and a launched job's `continue` missed its --settle time).
        // Not at all outside C++ (reading every unit's language costs an MPI job's agents
        // memory: tree_flow bounds it).
        // Only where the program has libstdc++ loaded (looking at every object's debug
        // information loads libc's: a C job's agent grew by 15 MiB at its first command).
        let (mut typedef, mut defined) = (false, false);
        let libstdcxx = self.session.symbols().objects().any(|o| {
            o.file
                .path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("libstdc++"))
        });
        // (Before `run` only the program's own file is loaded: it is asked, so that the
        // stop reports of `run` itself name `std::string`.)
        let objects = if libstdcxx || !self.session.is_running() {
            self.debug_objects()
        } else {
            Vec::new()
        };
        for (d, _) in objects {
            if !has_cplus_units(&d) {
                continue;
            }
            for n in ["std::__cxx11::string", "std::string"] {
                if let Some(t) = cohort_dwarf::dietypes::lookup_type(&d, n) {
                    typedef = true;
                    defined |= matches!(
                        t.strip().kind,
                        cohort_dwarf::types::TypeKind::Aggregate {
                            declaration: false,
                            ..
                        }
                    );
                }
            }
        }
        cohort_dwarf::format::set_string_typedef(typedef, defined);
        // `complete TEXT` keeps a blank at the end of TEXT: it asks for the next word.
        let line = match line.trim_start() {
            l if l.starts_with("complete ") => l,
            l => l.trim_end(),
        };
        let r = self.dispatch(line);
        // Threads made, ended or stopped during function calls of the command.
        self.session.settle_call();
        for id in self.call_hits.take() {
            // A temporary breakpoint that stopped inside a called function goes, as at any
            // stop (not while its ignore count lasts).
            if self.session.count_hit(id)
                && self
                    .session
                    .breakpoints()
                    .iter()
                    .any(|b| b.id == id && b.temporary)
            {
                let _ = self.session.delete_breakpoint(id);
            }
        }
        let call_stopped = self.call_stopped.take();
        let displays_done = std::mem::take(&mut self.displays_done);
        // A command that failed before the program ran (`finish` in the outermost frame)
        // made no stop to show the displays at.
        let stopped = call_stopped || (crate::data::resumes(line) && r.is_ok());
        if stopped && self.session.is_running() && !displays_done {
            self.do_displays();
        }
        if matches!(r, Ok(Flow::Go)) && self.script.stop_bp.is_some() {
            return self.run_breakpoint_commands();
        }
        r
    }

    /// gdb's `query`: a yes-or-no question whose answer is `default` when nobody can answer
    /// it (batch mode, or input not from a terminal): the question is then printed with the
    /// answer taken. `default` None is a plain question (`(y or n)`, answered yes).
    pub(crate) fn query(&self, question: &str, default: Option<bool>) -> bool {
        use std::io::IsTerminal;
        let choices = match default {
            None => "(y or n)",
            Some(true) => "([y] or n)",
            Some(false) => "(y or [n])",
        };
        let auto = default.unwrap_or(true);
        if !self.settings.on("confirm") {
            return auto;
        }
        if self.batch || !std::io::stdin().is_terminal() {
            let a = if auto { 'Y' } else { 'N' };
            out(format!(
                "{question}{choices} [answered {a}; input not from terminal]"
            ));
            return auto;
        }
        loop {
            crate::out!("{question}{choices} ");
            let mut ans = String::new();
            match std::io::stdin().read_line(&mut ans) {
                Ok(0) | Err(_) => {
                    out("EOF [answered Y; input not from terminal]");
                    return true;
                }
                Ok(_) => {}
            }
            match ans.trim().chars().next().map(|c| c.to_ascii_lowercase()) {
                None if default.is_some() => return auto,
                Some('y') => return true,
                Some('n') => return false,
                _ => out("Please answer y or n."),
            }
        }
    }

    /// One line for `info ranks`: the state and place of the program, the same for every rank
    /// in the same state at the same line (`stopped in compute at heat.c:27`).
    pub fn state_summary(&self) -> String {
        if self.session.pid().is_none() {
            return self
                .ended
                .clone()
                .unwrap_or_else(|| "not started".to_string());
        }
        if let Some(s) = self.cuda_summary(|| self.host_summary()) {
            return s;
        }
        self.host_summary()
    }

    fn host_summary(&self) -> String {
        let Ok(regs) = self.session.registers(false) else {
            return "stopped".to_string();
        };
        let pc = regs.pc();
        // Inside a library: the program's line that called it, and the MPI call if any.
        if let Some(s) = self.user_terms() {
            return s;
        }
        // A Fortran main program by its source name, as frame lines show it (not `MAIN__`);
        // else the function as frame 0 names it: a module procedure as `heat_fields::sweep`
        // (not its linkage name), an inlined function by its own name.
        let func = self.main_program_name_at(pc).or_else(|| {
            self.frames(1)
                .first()
                .and_then(|f| self.frame_function(f).0)
                .or_else(|| self.session.function_at(pc).0)
        });
        let line = self.frame0_src_line();
        match (func, line) {
            (Some(f), Some(l)) => format!("stopped in {f} at {}:{}", l.name, l.line),
            (Some(f), None) => format!("stopped in {f}"),
            (None, _) => format!("stopped at 0x{pc:x}"),
        }
    }

    /// If the program died while stopped (killed from outside), report its end as gdb does
    /// when it notices ("Program terminated with signal SIGKILL, Killed."); from then on
    /// commands say the program is not being run. Returns whether it had.
    pub fn notice_gone(&mut self) -> bool {
        match self.session.poll_gone() {
            Ok(Some(ev)) => {
                self.flush_messages();
                let _ = self.report(ev);
                true
            }
            Ok(None) => false,
            Err(e) => {
                tracing::debug!("checking whether the program is still there: {e}");
                false
            }
        }
    }

    /// `output EXPR` for `compare` (agentd): when frame 0 is selected and is not the
    /// program's own (a rank stopped inside MPI, libc or the OpenMP runtime), in the program's
    /// innermost frame, as DDT shows a rank; the selection is left as it was.
    pub fn output_in_program_frame(&mut self, expr: &str) {
        let back = self.selected_frame();
        let user = if back == 0 && self.session.is_running() {
            let frames = self.frames(64);
            match frames.first() {
                Some(f0) if !self.in_user_object(f0) => self.user_frame(&frames).0,
                _ => None,
            }
        } else {
            None
        };
        if let Some(i) = user {
            self.select_frame(i);
        }
        self.execute(&format!("output {expr}"));
        if user.is_some() {
            self.select_frame(back);
        }
    }

    /// Let steps name the MPI call they run through in `slot` (see agentd).
    pub fn set_activity_slot(&mut self, slot: std::sync::Arc<std::sync::Mutex<Option<String>>>) {
        self.activity = Some(slot);
    }

    /// The process being debugged, if any.
    pub fn pid(&self) -> Option<i32> {
        self.session.pid()
    }

    /// What happens at the end of a batch run or on `quit`: launched programs are killed,
    /// attached ones detached (as gdb; said as `detach` says it, for the command that quit).
    pub fn finish(&mut self) {
        if let Some(p) = self.session.process() {
            if p.launched() {
                let _ = self.session.kill();
            } else {
                let pid = p.pid();
                if self.from_tty {
                    out(format!(
                        "Detaching from program: {}, process {pid}",
                        p.exe().display()
                    ));
                }
                out(format!("[Inferior 1 (process {pid}) detached]"));
                let _ = self.session.detach();
            }
        }
    }

    pub(crate) fn dispatch(&mut self, line: &str) -> Result<Flow> {
        if line.is_empty() || line.starts_with('#') {
            return Ok(Flow::Go);
        }
        let (cmd, rest) = match line.find(|c: char| c.is_whitespace() || c == '/') {
            Some(i) => (&line[..i], line[i..].trim_start()),
            None => (line, ""),
        };
        let err = |m: String| Err(EngineError::Other(m));
        if let Some(flow) = self.cuda_dispatch(cmd, rest)? {
            return Ok(flow);
        }
        if let Some(r) = self.script_dispatch(cmd, rest) {
            return r;
        }
        match cmd {
            "break" | "b" | "br" | "brea" => self.cmd_break(rest, false),
            "tbreak" | "tb" => self.cmd_break(rest, true),
            "catch" => self.cmd_catch(rest, false),
            "tcatch" => self.cmd_catch(rest, true),
            "delete" | "d" if word_is(rest, "display") => self.cmd_undisplay(&rest[7..]),
            "delete" | "d" => self.cmd_delete(rest),
            "disable" | "dis" | "disa" if word_is(rest, "display") => {
                self.cmd_enable_display(&rest[7..], false)
            }
            "enable" | "en" if word_is(rest, "display") => {
                self.cmd_enable_display(&rest[7..], true)
            }
            "disable" | "dis" | "disa" => self.cmd_enable(rest, false),
            "enable" | "en" => self.cmd_enable(rest, true),
            "watch" => self.cmd_watch(rest, WatchKind::Write, "Hardware watchpoint"),
            "rwatch" => self.cmd_watch(rest, WatchKind::ReadWrite, "Hardware read watchpoint"),
            "awatch" => self.cmd_watch(
                rest,
                WatchKind::ReadWrite,
                "Hardware access (read/write) watchpoint",
            ),
            "run" | "r" => self.cmd_run(rest, false),
            "starti" => self.cmd_run(rest, true),
            "continue" | "c" | "cont" | "fg" => self.cmd_continue(),
            "stepi" | "si" => self.cmd_stepi(rest),
            "nexti" | "ni" => self.cmd_nexti(rest),
            "step" | "s" => self.cmd_step(rest, StepKind::Into),
            "next" | "n" => self.cmd_step(rest, StepKind::Over),
            "until" | "u" if rest.is_empty() => self.cmd_step(rest, StepKind::Until),
            "until" | "u" => self.cmd_advance(rest, true),
            "advance" => self.cmd_advance(rest, false),
            "finish" | "fin" => self.cmd_finish(),
            "return" | "ret" | "retu" | "retur" => self.cmd_return(rest),
            "find" => self.cmd_find(rest),
            "start" => {
                if self.session.symbols().is_empty() {
                    return err("No symbol table loaded.  Use the \"file\" command.".into());
                }
                let main = self.main_name();
                self.cmd_break(&main, true)?;
                self.cmd_run(rest, false)
            }
            "condition" => self.cmd_condition(rest),
            "ignore" => self.cmd_ignore(rest),
            "print" | "p" | "inspect" => self.cmd_print(rest),
            "call" => self.cmd_call(rest),
            "output" => self.cmd_output(rest),
            "show" => self.cmd_show(rest),
            "ptype" => self.cmd_ptype(rest, true),
            "whatis" => self.cmd_ptype(rest, false),
            "display" => self.cmd_display(rest),
            "undisplay" => self.cmd_undisplay(rest),
            "backtrace" | "bt" | "where" => self.cmd_backtrace(rest),
            "frame" | "f" => self.cmd_frame(rest),
            "up" => self.cmd_up(rest, 1),
            "down" => self.cmd_up(rest, -1),
            "list" | "l" => self.cmd_list(rest),
            "kill" | "k" => self.cmd_kill(),
            "detach" => self.cmd_detach(),
            "core-file" | "core" => self.cmd_core_file(rest),
            "gcore" | "generate-core-file" => self.cmd_gcore(rest),
            "attach" => self.cmd_attach(rest),
            "x" => self.cmd_x(rest),
            "disassemble" | "disas" => self.cmd_disassemble(rest),
            "info" | "i" | "inf" => self.cmd_info(rest),
            "thread" | "t" => self.cmd_thread(rest),
            "handle" => self.cmd_handle(rest),
            "file" => {
                self.session.load_program(&PathBuf::from(rest))?;
                Ok(Flow::Go)
            }
            "set" => self.cmd_set(rest),
            "source" => self.cmd_source(rest),
            "quit" | "q" | "exit" => self.cmd_quit(rest),
            _ => err(format!("Undefined command: \"{cmd}\".  Try \"help\".")),
        }
    }

    /// `source [-v] [-s] FILE`.
    fn cmd_source(&mut self, arg: &str) -> Result<Flow> {
        let mut verbose = false;
        let mut rest = arg.trim();
        // `-s` searches gdb's source path first; cohort has none beyond the name itself.
        while let Some(opt) = ["-v", "-s"]
            .into_iter()
            .find(|o| rest == *o || rest.starts_with(&format!("{o} ")))
        {
            verbose |= opt == "-v";
            rest = rest[opt.len()..].trim_start();
        }
        if rest.is_empty() {
            return Err(EngineError::Other(
                "source command requires file name of file to source.".into(),
            ));
        }
        self.source_file(rest, verbose)
    }

    /// Run the commands of script `file` (`source FILE`, `-x FILE`): its lines are not typed
    /// by the user (gdb's from_tty), and the first error ends it, said with the file and line
    /// (`cmds:3: Error in sourced command file:`). A file that cannot be read is an error for
    /// the user at the terminal, else a warning (as gdb: `-batch -x missing` goes on).
    /// `verbose` (`source -v`) echoes each command as `+CMD`.
    pub fn source_file(&mut self, file: &str, verbose: bool) -> Result<Flow> {
        let text = match read_script(std::path::Path::new(file)) {
            Ok(t) => t,
            Err(why) if self.from_tty => return Err(EngineError::Other(format!("{why}."))),
            Err(why) => {
                crate::errln!("warning: {why}");
                return Ok(Flow::Go);
            }
        };
        let from_tty = std::mem::replace(&mut self.from_tty, false);
        let typed = std::mem::replace(&mut self.typed, false);
        let mut flow = Ok(Flow::Go);
        for (n, line) in text.lines().enumerate() {
            let cmd = line.trim_start();
            if verbose && !cmd.is_empty() && !cmd.starts_with('#') {
                out(format!("+{cmd}"));
            }
            match self.run_command(line) {
                Ok(Flow::Go) => {}
                Ok(Flow::Quit) => {
                    // The end of the session is the script's too (not said to the user).
                    return Ok(Flow::Quit);
                }
                Err(e) => {
                    flow = Err(EngineError::Other(format!(
                        "{file}:{}: Error in sourced command file:\n{e}",
                        n + 1
                    )));
                    break;
                }
            }
        }
        self.from_tty = from_tty;
        self.typed = typed;
        flow
    }

    /// `quit [EXPR]`: with a live program gdb asks first (answered yes without a terminal);
    /// EXPR is the exit status.
    fn cmd_quit(&mut self, arg: &str) -> Result<Flow> {
        let code = match arg.trim() {
            "" => None,
            e => Some(self.evaluate_long(e)? as i32),
        };
        if let Some(p) = self.session.process() {
            let fate = if p.launched() { "killed" } else { "detached" };
            let q = format!(
                "A debugging session is active.\n\n\tInferior 1 [process {}] will be {fate}.\n\nQuit anyway? ",
                p.pid()
            );
            if !self.query(&q, None) {
                return Err(EngineError::Other("Not confirmed.".into()));
            }
        }
        self.quit_code = code;
        Ok(Flow::Quit)
    }

    // ------------------------------------------------------------------ breakpoints

    pub(crate) fn cmd_break(&mut self, arg: &str, temporary: bool) -> Result<Flow> {
        if !temporary && let Some(flow) = self.cuda_break(arg)? {
            return Ok(flow);
        }
        let known: Vec<u32> = self.session.breakpoints().iter().map(|b| b.id).collect();
        let flow = self.cmd_break_host(arg, temporary)?;
        // A pending breakpoint may be in device code the driver loads later.
        let pending: Vec<u32> = self
            .session
            .breakpoints()
            .iter()
            .filter(|b| !known.contains(&b.id) && b.addrs.is_empty() && !b.temporary)
            .map(|b| b.id)
            .collect();
        for id in pending {
            self.cuda_pending(id, arg.trim());
        }
        // A FILE:LINE the host resolved at a later line (nvcc's host stub of a kernel has the
        // kernel's last line): device code may have the line itself.
        let placed: Vec<u32> = self
            .session
            .breakpoints()
            .iter()
            .filter(|b| !known.contains(&b.id) && !b.addrs.is_empty() && !b.temporary)
            .map(|b| b.id)
            .collect();
        for id in placed {
            self.cuda_host_fallback(id, arg.trim());
        }
        Ok(flow)
    }

    fn cmd_break_host(&mut self, arg: &str, temporary: bool) -> Result<Flow> {
        let arg = arg.trim();
        if let Some(flow) = self.break_source(arg, temporary)? {
            return Ok(flow);
        }
        let spec = if let Some(a) = arg.strip_prefix('*') {
            let a = a.trim();
            if self.session.symbols().lookup(a).is_some() {
                BpSpec::SymbolExact(a.to_string())
            } else {
                BpSpec::Address(self.eval_address(a)?)
            }
        } else if arg.is_empty() {
            match self.session.current_thread() {
                Some(_) => BpSpec::Address(self.session.registers(false)?.pc()),
                None => {
                    return Err(EngineError::Other(
                        "No default breakpoint location now selected.".into(),
                    ));
                }
            }
        } else {
            BpSpec::Symbol(arg.to_string())
        };
        let what = if temporary {
            "Temporary breakpoint"
        } else {
            "Breakpoint"
        };
        if let BpSpec::Symbol(name) = &spec
            && self.session.symbols().lookup(name).is_none()
        {
            let msg = if self.session.symbols().is_empty() {
                crate::locations::NO_SYMBOL_TABLE.to_string()
            } else {
                format!(
                    "Function \"{}\" not defined.",
                    crate::locations::unquoted(name)
                )
            };
            if !self.ask_pending(&msg)? {
                return Ok(Flow::Go);
            }
            let name = name.clone();
            let b = self.session.add_breakpoint(spec, temporary)?;
            out(format!("{what} {} ({name}) pending.", b.id));
            return Ok(Flow::Go);
        }
        let b = self.session.add_breakpoint(spec, temporary)?;
        out(format!(
            "{what} {} at {:#x}",
            b.id,
            b.addrs.first().copied().unwrap_or(0)
        ));
        Ok(Flow::Go)
    }

    /// gdb's question for a location that does not resolve: `Ok(true)` to make the
    /// breakpoint pending. In batch mode the answer is no (gdb says so).
    pub(crate) fn ask_pending(&mut self, msg: &str) -> Result<bool> {
        match self.pending_mode {
            Some(false) => Err(EngineError::Other(msg.to_string())),
            Some(true) => {
                crate::errln!("{msg}");
                Ok(true)
            }
            None => {
                crate::errln!("{msg}");
                Ok(self.query(
                    "Make breakpoint pending on future shared library load? ",
                    Some(false),
                ))
            }
        }
    }

    /// A breakpoint number as written: digits, or a convenience variable that holds an
    /// integer (`$bpnum`, as `save breakpoints` writes it).
    pub(crate) fn bp_number(&self, w: &str) -> Option<u32> {
        match w.strip_prefix('$') {
            Some(name)
                if !name.is_empty()
                    && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    && !name.bytes().all(|b| b.is_ascii_digit()) =>
            {
                let vars = self.data.convenience.borrow();
                let v = vars.get(name)?;
                if !v.ty.is_integer() {
                    return None;
                }
                u32::try_from(v.as_i64()).ok()
            }
            _ => w.parse().ok(),
        }
    }

    fn ids(&self, arg: &str) -> Result<Vec<u32>> {
        let mut v = Vec::new();
        for w in arg.split_whitespace() {
            if let Some((a, b)) = w.split_once('-') {
                let (a, b) = (a.parse::<u32>(), b.parse::<u32>());
                match (a, b) {
                    (Ok(a), Ok(b)) => v.extend(a..=b),
                    _ => return Err(EngineError::Other(format!("Bad breakpoint number '{w}'"))),
                }
            } else {
                let Some(n) = self.bp_number(w) else {
                    if w.starts_with('$') {
                        // gdb says this on standard output, then fails.
                        out("Convenience variable must have integer value.");
                    }
                    return Err(EngineError::Other(format!("Bad breakpoint number '{w}'")));
                };
                v.push(n);
            }
        }
        Ok(v)
    }

    /// gdb's `get_number_trailer`: the number, `$variable` or `-` number at `s[*pos..]`,
    /// `*pos` moved past it and the spaces after; 0 for a word that is no number or a
    /// number with junk after it (up to a space or `trailer`).
    fn get_number_trailer(&self, s: &[u8], pos: &mut usize, trailer: u8) -> i64 {
        let at = |i: usize| s.get(i).copied().unwrap_or(0);
        let mut p = *pos;
        let negative = at(p) == b'-';
        if negative {
            p += 1;
        }
        let mut n: i64;
        if at(p) == b'$' {
            let start = p + 1;
            p = start;
            while at(p).is_ascii_alphanumeric() || at(p) == b'_' {
                p += 1;
            }
            let name = String::from_utf8_lossy(&s[start..p]).into_owned();
            let vars = self.data.convenience.borrow();
            n = match vars.get(&name) {
                Some(v) if v.ty.is_integer() => i64::from(v.as_i64() as i32),
                _ => {
                    out("Convenience variable must have integer value.");
                    0
                }
            };
        } else {
            let p1 = p;
            while at(p).is_ascii_digit() {
                p += 1;
            }
            if p == p1 {
                while at(p) != 0 && !at(p).is_ascii_whitespace() {
                    p += 1;
                }
                n = 0;
            } else {
                n = std::str::from_utf8(&s[p1..p])
                    .ok()
                    .and_then(|d| d.parse::<i64>().ok())
                    .map_or(0, |v| i64::from(v as i32));
            }
        }
        if !(at(p).is_ascii_whitespace() || at(p) == 0 || at(p) == trailer) {
            while !(at(p).is_ascii_whitespace() || at(p) == 0 || at(p) == trailer) {
                p += 1;
            }
            n = 0;
        }
        while at(p).is_ascii_whitespace() {
            p += 1;
        }
        *pos = p;
        if negative { -n } else { n }
    }

    /// `delete N…`: gdb's `map_breakpoint_numbers` reading the list with its
    /// `number_or_range_parser`: a word that is no number ends the list silently, 0 (and a
    /// number with junk) warns, each breakpoint is deleted as its number is read.
    fn delete_numbers(&mut self, arg: &str) -> Result<()> {
        let s = arg.as_bytes();
        let at = |i: usize| s.get(i).copied().unwrap_or(0);
        let mut cur = 0;
        while at(cur).is_ascii_whitespace() {
            cur += 1;
        }
        loop {
            let c = at(cur);
            let next = at(cur + 1);
            let finished = c == 0
                || !(c.is_ascii_digit()
                    || c == b'$'
                    || (c == b'-' && (next.is_ascii_digit() || next == b'$')));
            if finished {
                return Ok(());
            }
            let (first, last) = if c != b'-' {
                let first = self.get_number_trailer(s, &mut cur, b'-');
                let range = at(cur) == b'-'
                    && !(cur > 0
                        && at(cur - 1).is_ascii_whitespace()
                        && (at(cur + 1).is_ascii_alphabetic()
                            || at(cur + 1) == b'-'
                            || at(cur + 1) == 0));
                if range {
                    let mut end = cur + 1;
                    while at(end).is_ascii_whitespace() {
                        end += 1;
                    }
                    let last = self.get_number_trailer(s, &mut end, 0);
                    if last < first {
                        return Err(EngineError::Other("inverted range".into()));
                    }
                    cur = end;
                    (first, last)
                } else {
                    (first, first)
                }
            } else if next.is_ascii_digit() {
                return Err(EngineError::Other("negative value".into()));
            } else {
                let n = self.get_number_trailer(s, &mut cur, 0);
                if n < 0 {
                    return Err(EngineError::Other("negative value".into()));
                }
                (n, n)
            };
            for num in first..=last {
                if num == 0 {
                    crate::errln!("warning: bad breakpoint number at or near '0'");
                    continue;
                }
                let Ok(id) = u32::try_from(num) else {
                    out(format!("No breakpoint number {num}."));
                    continue;
                };
                // gdb says this on stdout: an unknown number is skipped, not an error.
                if let Err(e) = self.session.delete_breakpoint(id) {
                    out(e.to_string());
                }
                self.forget_watch(id);
            }
        }
    }

    fn cmd_delete(&mut self, arg: &str) -> Result<Flow> {
        // `delete breakpoints` (or `br`, `brea`…) is `delete`.
        let arg = match arg.split_once(char::is_whitespace) {
            Some((w, rest)) if w.len() >= 2 && "breakpoints".starts_with(w) => rest,
            None if arg.len() >= 2 && "breakpoints".starts_with(arg) => "",
            _ => arg,
        };
        let arg = arg.trim();
        if arg.is_empty() {
            self.session.delete_all_breakpoints()?;
            let ids: Vec<u32> = self.watches.keys().copied().collect();
            for id in ids {
                self.forget_watch(id);
            }
            return Ok(Flow::Go);
        }
        self.delete_numbers(arg)?;
        Ok(Flow::Go)
    }

    fn cmd_enable(&mut self, arg: &str, on: bool) -> Result<Flow> {
        let arg = arg.strip_prefix("breakpoints").unwrap_or(arg).trim();
        if on && let Some(flow) = self.enable_disposition(arg)? {
            return Ok(flow);
        }
        let ids: Vec<u32> = if arg.is_empty() {
            self.session.breakpoints().iter().map(|b| b.id).collect()
        } else {
            self.ids(arg)?
        };
        for id in ids {
            // gdb's plain `enable` keeps the disposition `dis` with an enable count of 0 (the
            // next stop disables it again).
            let keeps_dis = on
                && self
                    .session
                    .breakpoints()
                    .iter()
                    .any(|b| b.id == id && b.disable_after.is_some());
            let done = if keeps_dis {
                self.session.enable_with_disposition(id, Some(0))
            } else {
                self.session.set_enabled(id, on)
            };
            match done {
                Ok(()) => {}
                // gdb says this on stdout and goes on, as for `delete`.
                Err(e @ EngineError::NoBreakpoint(_)) => out(e.to_string()),
                Err(e) => crate::errln!("{e}"),
            }
        }
        Ok(Flow::Go)
    }

    /// `enable once N…`, `enable delete N…`, `enable count COUNT N…`: `None` for another
    /// form of `enable`.
    fn enable_disposition(&mut self, arg: &str) -> Result<Option<Flow>> {
        let (word, rest) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
        let rest = rest.trim();
        let (disable_after, list) = match word {
            "once" => (Some(1), rest),
            "delete" => (None, rest),
            "count" => {
                if rest.is_empty() {
                    return Err(EngineError::Other("Argument required (hit count).".into()));
                }
                let (count, list) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                // gdb reads a count that is not a number as 0.
                let count = self
                    .bp_number(count)
                    .map(i64::from)
                    .or_else(|| count.parse().ok())
                    .unwrap_or(0);
                (Some(count), list.trim())
            }
            _ => return Ok(None),
        };
        if list.is_empty() {
            return Err(EngineError::Other(
                "Argument required (one or more breakpoint numbers).".into(),
            ));
        }
        for id in self.ids(list)? {
            match self.session.enable_with_disposition(id, disable_after) {
                Ok(()) => {}
                Err(e @ EngineError::NoBreakpoint(_)) => out(e.to_string()),
                Err(e) => crate::errln!("{e}"),
            }
        }
        Ok(Some(Flow::Go))
    }

    fn cmd_watch(&mut self, arg: &str, kind: WatchKind, title: &'static str) -> Result<Flow> {
        let expr = arg.trim();
        if expr.is_empty() {
            return Err(EngineError::Other(
                "Argument required (expression to compute).".into(),
            ));
        }
        // `watch -location EXPR`: the object EXPR names now, wherever the program goes.
        let location = self.location_watch_expr(expr)?;
        let (value, addr, len, scope) = match &location {
            Some((object, _)) => self.watch_location(object)?,
            None => self.watch_location(expr)?,
        };
        let function = match (&scope, &location) {
            (None, _) => None,
            (Some(_), Some((object, _))) => self.local_function(object),
            (Some(_), None) => self.local_function(expr),
        };
        let expr = location.as_ref().map_or(expr, |(_, shown)| shown.as_str());
        // gdb's software watchpoints: with `set can-use-hw-watchpoints 0`, and for a value
        // not in memory (a register).
        let software = len == 0 || self.settings.count("can-use-hw-watchpoints") == Some(0);
        if software && kind != WatchKind::Write {
            return Err(EngineError::Other(
                "Can't set read/access watchpoint when hardware watchpoints are disabled.".into(),
            ));
        }
        let title = if software { "Watchpoint" } else { title };
        if let Some((_, resume)) = scope {
            self.session.set_scope_breakpoint(resume)?;
        }
        let added = if software {
            self.session.add_software_watchpoint(addr, len, expr)
        } else {
            self.session.add_watchpoint(addr, len, kind, expr)
        };
        let b = match added {
            Ok(b) => b,
            Err(e) => {
                if let Some((_, resume)) = scope {
                    self.session.clear_scope_breakpoint(resume)?;
                }
                return Err(e);
            }
        };
        self.watches.insert(
            b.id,
            Watch {
                title,
                value,
                scope,
                function,
            },
        );
        out(format!("{title} {}: {expr}", b.id));
        Ok(Flow::Go)
    }

    /// The user wrote `ranges` of memory (`set var x = 1`): a watchpoint on those bytes takes
    /// the value written as its old value (gdb's `invalidate_bp_value_on_memory_change`).
    pub(crate) fn memory_written(&mut self, ranges: &[(u64, u64)]) {
        if ranges.is_empty() {
            return;
        }
        let watched: Vec<(u32, u64, usize)> = self
            .session
            .breakpoints()
            .iter()
            .filter_map(|b| match b.kind {
                BpKind::Watch { addr, len, .. } => Some((b.id, addr, len)),
                _ => None,
            })
            .filter(|&(_, addr, len)| {
                ranges
                    .iter()
                    .any(|&(a, n)| a < addr + len as u64 && addr < a + n)
            })
            .collect();
        for (id, addr, len) in watched {
            let mut bytes = vec![0u8; len];
            if self.session.read_memory(addr, &mut bytes).is_ok()
                && let Some(w) = self.watches.get_mut(&id)
            {
                w.value.bytes = bytes;
            }
        }
    }

    /// Drop the front end's state of watchpoint `id` (and its scope breakpoint).
    fn forget_watch(&mut self, id: u32) {
        if let Some(w) = self.watches.remove(&id)
            && let Some((_, resume)) = w.scope
        {
            let _ = self.session.clear_scope_breakpoint(resume);
        }
    }

    /// What `watch EXPR` watches: the value of the C expression (an lvalue in memory), its
    /// address and size, and for an expression on locals of the selected frame, that frame's
    /// CFA and the address its caller resumes at (where the watch goes out of scope).
    /// Programs without debug information: `NAME` (an ELF data symbol) and `*(TYPE *) ADDR`.
    #[allow(clippy::type_complexity)]
    fn watch_location(&self, expr: &str) -> Result<(Value, u64, usize, Option<(u64, u64)>)> {
        let evaluated = {
            let ctx = self.eval_ctx();
            cohort_dwarf::expr::parse_in(expr, &ctx)
                .and_then(|e| Ok((cohort_dwarf::expr::evaluate(&e, &ctx)?, e)))
        };
        let (v, e) = match evaluated {
            Ok(x) => x,
            Err(err) => {
                return self
                    .watch_location_nodebug(expr)
                    .map(|(v, a, l)| (v, a, l, None))
                    .map_err(|_| EngineError::Other(err.to_string()));
            }
        };
        let addr = match v.lval {
            Lval::Memory(addr) => addr,
            // A register: watched in software, with no frame.
            Lval::Register(_) | Lval::RegisterPart { .. } => return Ok((v, 0, 0, None)),
            _ => {
                return Err(EngineError::Other(format!(
                    "Cannot watch constant value `{expr}'."
                )));
            }
        };
        let len = v.ty.byte_size() as usize;
        // A watch on the selected frame's locals lasts as long as that frame.
        let frames = self.frames(usize::MAX);
        let sel = self.selected_frame();
        let mut names = Vec::new();
        crate::locations::expr_names(&e, &mut names);
        let local = frames
            .get(sel)
            .and_then(|f| self.scope_of(f))
            .is_some_and(|(_, _, s)| {
                names
                    .iter()
                    .any(|n| s.frames.iter().any(|f| f.lookup(n).is_some()))
            });
        let scope = if local {
            match (
                frames.get(sel).and_then(|f| f.cfa),
                frames.get(sel + 1).map(|f| f.pc()),
            ) {
                (Some(cfa), Some(resume)) => Some((cfa, resume)),
                _ => None,
            }
        } else {
            None
        };
        Ok((v, addr, len, scope))
    }

    fn watch_location_nodebug(&self, expr: &str) -> Result<(Value, u64, usize)> {
        let (addr, len) = if let Some(rest) = expr.strip_prefix('*') {
            let rest = rest.trim();
            if let Some(inner) = rest.strip_prefix('(')
                && let Some((ty, addr)) = inner.split_once(')')
            {
                let ty = ty.trim().trim_end_matches('*').trim();
                let len = match ty {
                    "char" | "unsigned char" | "signed char" => 1,
                    "short" | "unsigned short" => 2,
                    "int" | "unsigned int" | "unsigned" | "float" => 4,
                    "long" | "unsigned long" | "long long" | "double" => 8,
                    _ => {
                        return Err(EngineError::Other(format!(
                            "No symbol \"{ty}\" in current context."
                        )));
                    }
                };
                (self.eval_address(addr.trim())?, len)
            } else {
                (self.eval_address(rest)?, 4)
            }
        } else {
            let sym = self.session.symbols().data_symbol(expr).ok_or_else(|| {
                EngineError::Other(format!("No symbol \"{expr}\" in current context."))
            })?;
            match sym.1 {
                1 | 2 | 4 | 8 => (sym.0, sym.1 as usize),
                _ => (sym.0, 4),
            }
        };
        let name = match len {
            1 => "char",
            2 => "short",
            8 => "long",
            _ => "int",
        };
        let ty = Type::base(name, len as u64, Encoding::Signed);
        let mut bytes = vec![0u8; len];
        self.session.read_memory(addr, &mut bytes)?;
        Ok((Value::new(ty, bytes, Lval::Memory(addr)), addr, len))
    }

    // ------------------------------------------------------------------ running

    fn cmd_run(&mut self, args: &str, stop_at_entry: bool) -> Result<Flow> {
        // A core file being examined gives way to the process, without a question.
        self.session.close_core();
        // gdb asks the user at the terminal only; the old process goes when the new one starts.
        if self.from_tty
            && self.session.is_running()
            && !self.query(
                "The program being debugged has been started already.\nStart it from the beginning? ",
                None,
            )
        {
            return Err(EngineError::Other("Program not restarted.".into()));
        }
        if !args.is_empty() {
            self.session.args = args.split_whitespace().map(Into::into).collect();
            self.session.args_line = Some(args.to_string());
        }
        if self.from_tty
            && let Some(p) = &self.session.program
        {
            // gdb: "%s %s", so a program without arguments has a space after its name.
            let path = std::fs::canonicalize(p).unwrap_or(p.clone());
            out(format!(
                "Starting program: {} {}",
                path.display(),
                self.args_string()
            ));
        }
        self.many_threads = false;
        self.session.start_process()?;
        self.new_process();
        self.last_tid.set(self.session.current_thread());
        self.flush_messages();
        if stop_at_entry {
            out("\nProgram stopped.");
            let pc = self.session.registers(false)?.pc();
            out(self.frame_line(pc));
            return Ok(Flow::Go);
        }
        self.resume()
    }

    /// A process was started or attached: its libraries are new (gdb reads their symbols
    /// again: a missing source file of theirs is reported again).
    pub(crate) fn new_process(&self) {
        self.src.process_gen.set(self.src.process_gen.get() + 1);
    }

    /// The program's arguments as gdb shows them (`show args`, `Starting program:`): as
    /// typed to `run`/`set args`, else the command line's, separated by spaces.
    pub(crate) fn args_string(&self) -> String {
        match &self.session.args_line {
            Some(l) => l.clone(),
            None => {
                let a: Vec<String> = self
                    .session
                    .args
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect();
                a.join(" ")
            }
        }
    }

    /// `attach PID` (and `-p PID`): as gdb, a program being debugged is killed first
    /// (gdb asks), then PID is read as `strtoul` reads it.
    pub fn cmd_attach(&mut self, arg: &str) -> Result<Flow> {
        if self.session.is_running() {
            if !self.query("A program is being debugged already.  Kill it? ", None) {
                return Err(EngineError::Other("Not killed.".into()));
            }
            self.session.kill()?;
        }
        let pid = parse_pid(arg)?;
        self.attach(pid)
    }

    pub fn attach(&mut self, pid: i32) -> Result<Flow> {
        if i64::from(pid) == i64::from(std::process::id()) {
            return Err(EngineError::Other("I refuse to debug myself!".into()));
        }
        if self.from_tty {
            match &self.session.program {
                Some(p) => {
                    let path = std::fs::canonicalize(p).unwrap_or(p.clone());
                    out(format!(
                        "Attaching to program: {}, process {pid}",
                        path.display()
                    ))
                }
                None => out(format!("Attaching to process {pid}")),
            }
        }
        self.session
            .attach(pid)
            .map_err(|e| match attach_fail_reason(pid) {
                Some(why) => EngineError::Other(format!("warning: {why}\n{e}")),
                None => e,
            })?;
        self.new_process();
        self.last_tid.set(self.session.current_thread());
        self.flush_messages();
        let threads = self.session.threads();
        self.many_threads = threads.len() > 1;
        self.print_stop_frame();
        Ok(Flow::Go)
    }

    fn cmd_continue(&mut self) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::NotRunning);
        }
        if self.from_tty {
            out("Continuing.");
        }
        self.resume()
    }

    fn resume(&mut self) -> Result<Flow> {
        if self.has_software_watch() {
            return self.resume_stepping();
        }
        loop {
            let ev = self.session.cont();
            self.flush_messages();
            let ev = ev?;
            if self.report(ev)? {
                return Ok(Flow::Go);
            }
        }
    }

    /// Whether an enabled software watchpoint is set.
    fn has_software_watch(&self) -> bool {
        self.session
            .breakpoints()
            .iter()
            .any(|b| b.enabled && matches!(b.kind, BpKind::Watch { software: true, .. }))
    }

    /// `continue` with software watchpoints: one instruction at a time (the current thread),
    /// each watched expression compared after each, as gdb does.
    fn resume_stepping(&mut self) -> Result<Flow> {
        loop {
            let ev = self.session.step_instruction();
            self.flush_messages();
            match ev? {
                Event::Step { tid, pc } => {
                    if self.software_watch_after_step(tid, pc)? {
                        return Ok(Flow::Go);
                    }
                }
                other => {
                    if self.report(other)? {
                        return Ok(Flow::Go);
                    }
                }
            }
        }
    }

    /// After one instruction with software watchpoints: a watched frame's caller resumed
    /// (its watchpoints end) or a watched value changed. Returns whether that was reported
    /// (the stop's frame included).
    pub(crate) fn software_watch_after_step(&mut self, tid: i32, pc: u64) -> Result<bool> {
        if !self.has_software_watch() {
            return Ok(false);
        }
        self.invalidate_frames();
        self.select_frame(0);
        // Back in the caller of a watched frame: its watchpoints end there.
        if self.is_scope_breakpoint(pc) && self.watch_scope_ended(pc)? {
            return Ok(true);
        }
        if let Some(id) = self.check_software_watches(tid)? {
            self.note_stop(crate::script::StopReason::Breakpoint(id));
            self.print_stop_frame();
            return Ok(true);
        }
        Ok(false)
    }

    /// Run all threads until an event, as `Session::cont`; with software watchpoints, the
    /// current thread one instruction at a time, an arrival at one of `addrs` being the
    /// event (`StepBreakpoint`), and a watchpoint's stop reported here.
    pub(crate) fn cont_watched(&mut self, addrs: &[u64]) -> Result<Event> {
        if !self.has_software_watch() {
            return self.session.cont();
        }
        loop {
            match self.session.step_instruction()? {
                Event::Step { tid, pc } => {
                    if addrs.contains(&pc) {
                        return Ok(Event::StepBreakpoint { tid, pc });
                    }
                    if self.software_watch_after_step(tid, pc)? {
                        self.soft_reported = true;
                        return Ok(Event::Step { tid, pc });
                    }
                }
                other => return Ok(other),
            }
        }
    }

    /// The current value of a software watchpoint's expression (None: it cannot be
    /// evaluated here).
    fn software_watch_value(&self, expr: &str, addr: u64, len: usize) -> Option<Value> {
        let ctx = self.eval_ctx();
        let mut v = cohort_dwarf::expr::parse_in(expr, &ctx)
            .and_then(|e| cohort_dwarf::expr::evaluate(&e, &ctx))
            .ok()?;
        if len > 0 {
            // The object first watched, wherever the expression points now.
            let mut bytes = vec![0u8; len];
            self.session.read_memory(addr, &mut bytes).ok()?;
            v.bytes = bytes;
        }
        Some(v)
    }

    /// Compare each software watchpoint's value with the last one seen: a change is reported
    /// as gdb reports a hit (`Watchpoint 2: g`, old and new values). Returns the number of
    /// the watchpoint that stops the program.
    fn check_software_watches(&mut self, tid: i32) -> Result<Option<u32>> {
        let soft: Vec<(u32, String, u64, usize, bool)> = self
            .session
            .breakpoints()
            .iter()
            .filter_map(|b| match &b.kind {
                BpKind::Watch {
                    software: true,
                    expr,
                    addr,
                    len,
                    ..
                } => Some((b.id, expr.clone(), *addr, *len, b.enabled)),
                _ => None,
            })
            .collect();
        let mut stop = None;
        for (id, expr, addr, len, enabled) in soft {
            if !enabled {
                continue;
            }
            let Some(new) = self.software_watch_value(&expr, addr, len) else {
                continue;
            };
            let Some(w) = self.watches.get_mut(&id) else {
                continue;
            };
            if w.value.bytes == new.bytes {
                continue;
            }
            let old = std::mem::replace(&mut w.value, new.clone());
            let title = w.title;
            if !self.condition_holds(id) || !self.session.count_hit(id) {
                continue;
            }
            let head = self.stop_head(
                tid,
                &format!("hit {title} {id}: {expr}"),
                &format!("{title} {id}: {expr}"),
            );
            out(format!(
                "{head}\n\nOld value = {}\nNew value = {}",
                self.format(&old, &FormatOptions::default()),
                self.format(&new, &FormatOptions::default())
            ));
            stop.get_or_insert(id);
        }
        Ok(stop)
    }

    pub(crate) fn cmd_stepi(&mut self, arg: &str) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::NotRunning);
        }
        let n = parse_count(arg)?;
        let mut before = (None, None);
        let mut i = 0;
        while i < n {
            // Only the last step's frame decides how the stop is shown.
            if i + 1 == n {
                before = self.step_frame_id();
            }
            let ev = self.session.step_instruction();
            self.flush_messages();
            match ev? {
                Event::Step { .. } => {
                    self.invalidate_frames();
                    i += 1;
                }
                other => {
                    // A signal the report absorbs is the CUDA driver's wake-up (or the
                    // program's own wake-up signal): the instruction is stepped again.
                    let signal = matches!(other, Event::Signal { .. });
                    // A breakpoint, signal or exit ends the stepping early.
                    if !self.report(other)? {
                        if signal {
                            continue;
                        }
                        return self.resume();
                    }
                    return Ok(Flow::Go);
                }
            }
        }
        self.print_stepi_stop(before);
        Ok(Flow::Go)
    }

    fn cmd_kill(&mut self) -> Result<Flow> {
        if self.session.core().is_some() {
            return self.kill_core();
        }
        let pid = self.session.pid().ok_or(EngineError::NotRunning)?;
        if !self.query("Kill the program being debugged? ", None) {
            return Err(EngineError::Other("Not confirmed.".into()));
        }
        self.session.kill()?;
        out(format!("[Inferior 1 (process {pid}) killed]"));
        Ok(Flow::Go)
    }

    fn cmd_detach(&mut self) -> Result<Flow> {
        if self.session.close_core() {
            self.core_closed();
            return Ok(Flow::Go);
        }
        let exe = self
            .session
            .process()
            .map(|p| p.exe().display().to_string())
            .ok_or(EngineError::NotRunning)?;
        let pid = self.session.pid().ok_or(EngineError::NotRunning)?;
        // gdb names the program only to the user at the terminal (from_tty).
        if self.from_tty {
            out(format!("Detaching from program: {exe}, process {pid}"));
        }
        // Said before letting go, so it comes before anything the program prints next.
        out(format!("[Inferior 1 (process {pid}) detached]"));
        self.session.detach()?;
        Ok(Flow::Go)
    }

    /// Print gdb's report of an event. Returns false when the event was absorbed and the
    /// program should keep running (a watchpoint whose value did not change).
    pub(crate) fn report(&mut self, ev: Event) -> Result<bool> {
        if let Some(stopped) = self.cuda_event(&ev)? {
            return Ok(stopped);
        }
        match ev {
            Event::Exited { pid, code } => {
                self.clear_exit_variables();
                self.set_convenience_int("_exitcode", i64::from(code));
                self.exit_status = Some((code & 0xff) << 8);
                self.ended = Some(if code == 0 {
                    "exited normally".to_string()
                } else {
                    format!("exited with code {code}")
                });
                if code == 0 {
                    out(format!("[Inferior 1 (process {pid}) exited normally]"));
                } else {
                    // gdb: "0%o" (exit code 166 is "0246").
                    out(format!(
                        "[Inferior 1 (process {pid}) exited with code 0{code:o}]"
                    ));
                }
            }
            Event::Killed { signo, .. } => {
                let (name, desc) = describe(signo);
                self.clear_exit_variables();
                self.set_convenience_int("_exitsignal", i64::from(signo));
                self.ended = Some(format!("terminated with signal {name}"));
                self.exit_status = Some(signo & 0x7f);
                out(format!(
                    "\nProgram terminated with signal {name}, {desc}.\nThe program no longer exists."
                ));
            }
            Event::Breakpoint { tid, pc, .. } => {
                let Some((id, temporary)) = self.breakpoint_stops(pc) else {
                    return Ok(false);
                };
                let what = if temporary {
                    "Temporary breakpoint"
                } else {
                    "Breakpoint"
                };
                let num = self.breakpoint_label(id, pc);
                if self.dprintf_hit(id) {
                    return Ok(false);
                }
                if !temporary {
                    // gdb 13's `$_hit_bpnum` and `$_hit_locno` (not for a temporary
                    // breakpoint, deleted by the stop).
                    let locno = num
                        .split_once('.')
                        .map_or(1, |(_, l)| l.parse().unwrap_or(1));
                    self.set_convenience_int("_hit_bpnum", i64::from(id));
                    self.set_convenience_int("_hit_locno", locno);
                }
                if let Some(kind) = self.script.catchpoints.get(&id).copied() {
                    // `Catchpoint 1 (exception thrown), 0x… in __cxa_throw () from …`.
                    self.script.stop_bp = Some(id);
                    self.note_stop(crate::script::StopReason::Breakpoint(id));
                    let what = format!(
                        "{} {id} (exception {})",
                        if temporary {
                            "Temporary catchpoint"
                        } else {
                            "Catchpoint"
                        },
                        catch_event(kind)
                    );
                    let head = self.stop_head(tid, &format!("hit {what}"), &what);
                    self.invalidate_frames();
                    out(format!("{head}, {}", self.frame0_line()));
                    self.print_source_line_at(self.frame0_pc());
                    if temporary {
                        self.session.delete_breakpoint(id)?;
                    }
                    return Ok(true);
                }
                self.script.stop_bp = Some(id);
                self.note_stop(if temporary {
                    crate::script::StopReason::Deleted
                } else {
                    crate::script::StopReason::Breakpoint(id)
                });
                let head =
                    self.stop_head(tid, &format!("hit {what} {num}"), &format!("{what} {num}"));
                self.invalidate_frames();
                if !self.breakpoint_silent(id) {
                    out(format!("{head}, {}", self.frame0_line()));
                    self.print_source_line_at(self.frame0_pc());
                }
                if temporary {
                    self.session.delete_breakpoint(id)?;
                }
            }
            Event::Watchpoint { tid, id, .. } => {
                if !self.report_watchpoints(tid, id)? {
                    return Ok(false);
                }
                self.note_stop(crate::script::StopReason::Breakpoint(id));
                self.print_stop_frame();
            }
            Event::Forked {
                tid,
                id,
                child,
                vfork,
                ..
            } => {
                self.script.forked.insert(id, child);
                self.session.count_hit(id);
                self.script.stop_bp = Some(id);
                self.note_stop(crate::script::StopReason::Breakpoint(id));
                let temporary = self
                    .session
                    .breakpoints()
                    .iter()
                    .any(|b| b.id == id && b.temporary);
                let what = format!(
                    "{} {id} ({}forked process {child})",
                    if temporary {
                        "Temporary catchpoint"
                    } else {
                        "Catchpoint"
                    },
                    if vfork { "v" } else { "" }
                );
                let head = self.stop_head(tid, &format!("hit {what}"), &what);
                self.invalidate_frames();
                out(format!("{head}, {}", self.frame0_line()));
                self.print_source_line_at(self.frame0_pc());
                if self
                    .session
                    .breakpoints()
                    .iter()
                    .any(|b| b.id == id && b.temporary)
                {
                    self.session.delete_breakpoint(id)?;
                }
            }
            Event::Exec { tid, id, path, .. } => {
                self.script.execd.insert(id, path.display().to_string());
                self.session.count_hit(id);
                return self.report_catchpoint(tid, &[id], &format!("exec'd {}", path.display()));
            }
            Event::Syscall {
                tid,
                ids,
                nr,
                entry,
                ..
            } => {
                let mut stops = false;
                for &id in &ids {
                    stops |= self.session.count_hit(id);
                }
                if !stops {
                    return Ok(false);
                }
                let name =
                    cohort_engine::arch::syscalls::by_number(self.session.arch().syscalls, nr)
                        .map_or_else(|| nr.to_string(), |s| s.name.to_string());
                let what = format!(
                    "{} syscall {name}",
                    if entry { "call to" } else { "returned from" }
                );
                return self.report_catchpoint(tid, &ids, &what);
            }
            Event::Signal { tid, signo, .. }
                if !self.session.signal_catchpoints(signo).is_empty() =>
            {
                let ids = self.session.signal_catchpoints(signo);
                for &id in &ids {
                    self.session.count_hit(id);
                }
                let id = ids[0];
                let (name, _) = describe(signo);
                self.note_stop(crate::script::StopReason::Breakpoint(id));
                let what = format!("Catchpoint {id} (signal {name})");
                let head = self.stop_head(tid, &format!("hit {what}"), &what);
                self.invalidate_frames();
                out(format!("{head}, {}", self.frame0_line()));
                self.print_source_line_at(self.frame0_pc());
                for id in ids {
                    if self
                        .session
                        .breakpoints()
                        .iter()
                        .any(|b| b.id == id && b.temporary)
                    {
                        self.session.delete_breakpoint(id)?;
                    }
                }
            }
            Event::Signal { tid, signo, pc } => {
                let (name, desc) = describe(signo);
                self.note_stop(crate::script::StopReason::Signal(format!("{name}, {desc}")));
                let head = self.stop_head(tid, &format!("received signal {name}, {desc}."), "");
                let head = if head.ends_with('\n') || head.is_empty() {
                    format!("\nProgram received signal {name}, {desc}.")
                } else {
                    head
                };
                // gdb says which signal before it switches threads.
                let head = match head.split_once('\n') {
                    Some((switch, rest)) if switch.starts_with("[Switching") => {
                        format!("{rest}\n{switch}")
                    }
                    _ => head,
                };
                let _ = pc;
                self.invalidate_frames();
                out(format!("{head}\n{}", self.frame0_line()));
                self.print_source_line_at(self.frame0_pc());
            }
            Event::StepBreakpoint { pc, .. } if self.is_scope_breakpoint(pc) => {
                return self.watch_scope_ended(pc);
            }
            // A function called from an expression and left where it stopped returned to its
            // dummy frame: gdb puts the thread back as it was before the call and stops
            // without a word.
            Event::CallReturned { tid, .. } => {
                // In another thread than the one reported last (a call another thread's
                // stop interrupted), gdb names the switch.
                if self.last_tid.get().is_some_and(|t| t != tid)
                    && let Some(t) = self.session.threads().into_iter().find(|t| t.tid == tid)
                {
                    out(format!(
                        "[Switching to {}]",
                        thread_target(t.pointer, t.tid, self.session.pid())
                    ));
                }
                self.last_tid.set(Some(tid));
                self.session.pop_call_dummy(tid)?;
                self.invalidate_frames();
                self.select_frame(0);
            }
            Event::Step { .. } if std::mem::take(&mut self.soft_reported) => {}
            Event::Step { .. } | Event::StepBreakpoint { .. } => self.print_stop_frame(),
        }
        Ok(true)
    }

    fn is_scope_breakpoint(&self, pc: u64) -> bool {
        self.watches
            .values()
            .any(|w| w.scope.is_some_and(|(_, r)| r == pc))
    }

    /// The caller of a watched frame resumed at `pc`: the watchpoints of frames that have
    /// returned are deleted, as gdb says. Returns whether the program stops.
    fn watch_scope_ended(&mut self, pc: u64) -> Result<bool> {
        self.invalidate_frames();
        let sp = self.session.registers(false)?.sp();
        let mut gone: Vec<u32> = self
            .watches
            .iter()
            .filter(|(_, w)| w.scope.is_some_and(|(cfa, r)| r == pc && sp >= cfa))
            .map(|(id, _)| *id)
            .collect();
        if gone.is_empty() {
            return Ok(false);
        }
        gone.sort_unstable();
        for id in gone {
            out(format!(
                "\nWatchpoint {id} deleted because the program has left the block in\nwhich its expression is valid."
            ));
            self.session.delete_breakpoint(id)?;
            self.forget_watch(id);
        }
        self.print_stop_frame();
        Ok(true)
    }

    /// Report the watchpoints a hit of watchpoint `id` triggers: every enabled watchpoint
    /// on the same bytes, in number order. `watch` reports a changed value, `rwatch` an
    /// unchanged one (a change is a write), `awatch` either. Returns false when none reports.
    fn report_watchpoints(&mut self, tid: i32, id: u32) -> Result<bool> {
        let bps = self.session.breakpoints().to_vec();
        let Some((hit_addr, hit_len)) =
            bps.iter().find(|b| b.id == id).and_then(|b| match b.kind {
                BpKind::Watch { addr, len, .. } => Some((addr, len as u64)),
                _ => None,
            })
        else {
            return Ok(false);
        };
        let mut reported = false;
        for b in &bps {
            let BpKind::Watch {
                addr,
                len,
                kind,
                expr,
                ..
            } = &b.kind
            else {
                continue;
            };
            if !b.enabled || *addr >= hit_addr + hit_len || hit_addr >= *addr + *len as u64 {
                continue;
            }
            let Some(w) = self.watches.get(&b.id) else {
                continue;
            };
            let title = w.title;
            let mut new = w.value.clone();
            new.bytes = vec![0u8; *len];
            self.session.read_memory(*addr, &mut new.bytes)?;
            let old = self
                .watches
                .get_mut(&b.id)
                .map(|w| std::mem::replace(&mut w.value, new.clone()));
            let Some(old) = old else { continue };
            let changed = old.bytes != new.bytes;
            let text = match (kind, changed) {
                (WatchKind::Write, false) => continue,
                (WatchKind::ReadWrite, true) if title.contains("read watchpoint") => continue,
                (_, true) => format!(
                    "Old value = {}\nNew value = {}",
                    self.format(&old, &FormatOptions::default()),
                    self.format(&new, &FormatOptions::default())
                ),
                (_, false) => format!("Value = {}", self.format(&new, &FormatOptions::default())),
            };
            // `watch EXPR if COND`: the value is taken, the stop only when COND holds.
            if !self.condition_holds(b.id) || !self.session.count_hit(b.id) {
                continue;
            }
            let head = self.stop_head(
                tid,
                &format!("hit {title} {}: {expr}", b.id),
                &format!("{title} {}: {expr}", b.id),
            );
            out(format!("{head}\n\n{text}"));
            reported = true;
        }
        Ok(reported)
    }

    /// Which breakpoint at `pc` stops the program, counting hits as gdb does: a breakpoint
    /// counts a hit when its condition holds; while its ignore count lasts it does not stop.
    /// `None`: the program goes on.
    fn breakpoint_stops(&mut self, pc: u64) -> Option<(u32, bool)> {
        let mut stop = None;
        for id in self.session.breakpoints_at(pc) {
            if !self.condition_holds(id) {
                continue;
            }
            if self.session.count_hit(id) && stop.is_none() {
                let temporary = self
                    .session
                    .breakpoints()
                    .iter()
                    .any(|b| b.id == id && b.temporary);
                stop = Some((id, temporary));
            }
        }
        stop
    }

    fn condition_holds(&mut self, id: u32) -> bool {
        self.condition_holds_now(id)
    }

    /// A breakpoint's number in a stop report: a breakpoint with several locations names
    /// the one hit at `pc` (`1.2`).
    pub(crate) fn breakpoint_label(&self, id: u32, pc: u64) -> String {
        if let Some(b) = self.session.breakpoints().iter().find(|b| b.id == id)
            && b.addrs.len() > 1
        {
            let mut addrs = b.addrs.clone();
            addrs.sort_unstable();
            if let Some(i) = addrs.iter().position(|a| *a == pc) {
                return format!("{id}.{}", i + 1);
            }
        }
        id.to_string()
    }

    /// The first line of a stop report: `\nBreakpoint 1` or, in a threaded program,
    /// `[Switching to …]\n\nThread 2 "name" hit Breakpoint 1`.
    /// Report a stop at catchpoints `ids` (the first named): `Catchpoint 1 (WHAT), FRAME`;
    /// temporary ones are deleted.
    fn report_catchpoint(&mut self, tid: i32, ids: &[u32], what: &str) -> Result<bool> {
        let Some(&id) = ids.first() else {
            return Ok(false);
        };
        let temporary = |s: &Self, id: u32| {
            s.session
                .breakpoints()
                .iter()
                .any(|b| b.id == id && b.temporary)
        };
        self.script.stop_bp = Some(id);
        self.note_stop(crate::script::StopReason::Breakpoint(id));
        let what = format!(
            "{} {id} ({what})",
            if temporary(self, id) {
                "Temporary catchpoint"
            } else {
                "Catchpoint"
            }
        );
        let head = self.stop_head(tid, &format!("hit {what}"), &what);
        self.invalidate_frames();
        out(format!("{head}, {}", self.frame0_line()));
        self.print_source_line_at(self.frame0_pc());
        for &id in ids {
            if temporary(self, id) {
                self.session.delete_breakpoint(id)?;
            }
        }
        Ok(true)
    }

    fn stop_head(&mut self, tid: i32, threaded: &str, plain: &str) -> String {
        // gdb names the thread once the program has ever had a second one.
        if self
            .session
            .process()
            .is_some_and(|p| p.highest_thread_num() > 1)
        {
            self.many_threads = true;
        }
        let mut s = String::new();
        if self.last_tid.get().is_some_and(|t| t != tid)
            && let Some(t) = self.session.threads().into_iter().find(|t| t.tid == tid)
        {
            s.push_str(&format!(
                "[Switching to {}]\n",
                thread_target(t.pointer, t.tid, self.session.pid())
            ));
        }
        self.last_tid.set(Some(tid));
        if self.many_threads {
            let (num, name) = self
                .session
                .process()
                .map(|p| (p.thread_num(tid).unwrap_or(1), p.thread_name(tid)))
                .unwrap_or((1, String::new()));
            s.push_str(&format!("\nThread {num} \"{name}\" {threaded}"));
        } else if plain.is_empty() {
            return String::new();
        } else {
            s.push_str(&format!("\n{plain}"));
        }
        s
    }

    /// `0x… <sym+off>` (or just `0x…`), as gdb writes an address.
    pub(crate) fn address_with_symbol(&self, addr: u64) -> String {
        match self.address_symbol(addr) {
            Some(s) => format!("{addr:#x} <{s}>"),
            None => format!("{addr:#x}"),
        }
    }

    /// gdb's frame line without debug info: `0x… in func ()` (`from LIB` outside the program).
    fn frame_line(&self, pc: u64) -> String {
        let (name, lib) = self.session.function_at(pc);
        let mut s = format!("0x{pc:016x} in {} ()", name.as_deref().unwrap_or("??"));
        if !self.settings.on("print address") {
            s = format!("{} ()", name.as_deref().unwrap_or("??"));
        }
        if let Some(l) = lib {
            s.push_str(&format!(" from {l}"));
        }
        s
    }

    pub(crate) fn flush_messages(&mut self) {
        let pid = self.session.pid();
        for m in self.session.take_messages() {
            match m {
                Message::Thread(Notice::NewThread { tid, num, pointer }) => {
                    if num > 1 {
                        self.many_threads = true;
                    }
                    out(format!("[New {}]", thread_target(pointer, tid, pid)));
                }
                Message::Thread(Notice::ThreadExited { tid, pointer, .. }) => {
                    out(format!("[{} exited]", thread_target(pointer, tid, pid)));
                }
                Message::Thread(Notice::SignalPrinted {
                    tid,
                    signo,
                    name: tname,
                    ..
                }) => {
                    let (name, desc) = describe(signo);
                    if self.many_threads {
                        let n = self
                            .session
                            .process()
                            .and_then(|p| p.thread_num(tid))
                            .unwrap_or(1);
                        out(format!(
                            "\nThread {n} \"{tname}\" received signal {name}, {desc}."
                        ));
                    } else {
                        out(format!("\nProgram received signal {name}, {desc}."));
                    }
                }
                Message::Thread(n @ Notice::Exec { .. }) => {
                    if let Some(t) = notice_line(&n) {
                        out(t);
                    }
                }
                Message::Thread(n @ Notice::ForkDetached { .. }) => {
                    if let Some(t) = notice_line(&n) {
                        out(t);
                    }
                }
                Message::LibraryUnloaded {
                    path,
                    breakpoints_disabled: true,
                } => {
                    crate::errln!(
                        "warning: Temporarily disabling breakpoints for unloaded shared \
                         library \"{path}\""
                    );
                }
                Message::BreakpointResetFailed { id, spec } => {
                    let text = match &spec {
                        BpSpec::Symbol(t) | BpSpec::Location(t) | BpSpec::SymbolExact(t) => {
                            t.clone()
                        }
                        BpSpec::Address(a) => format!("*{a:#x}"),
                    };
                    let why = match crate::locations::resolve(self.session.symbols(), &text) {
                        Err(e) => e,
                        Ok(_) => format!("Function \"{text}\" not defined."),
                    };
                    crate::errln!("Error in re-setting breakpoint {id}: {why}");
                }
                Message::LibraryLoaded(_)
                | Message::LibraryUnloaded { .. }
                | Message::BreakpointResolved { .. } => {}
            }
        }
    }

    // ------------------------------------------------------------------ data

    /// Address expressions: numbers, `$reg`, `$pc`/`$sp`/`$fp`, symbols, `&symbol`, joined
    /// with `+` and `-`.
    pub(crate) fn eval_address(&self, expr: &str) -> Result<u64> {
        let expr = expr.trim();
        let mut total: i128 = 0;
        let mut sign = 1i128;
        let mut term = String::new();
        let mut terms = Vec::new();
        for c in expr.chars() {
            if (c == '+' || c == '-') && !term.trim().is_empty() {
                terms.push((sign, term.trim().to_string()));
                term.clear();
                sign = if c == '+' { 1 } else { -1 };
            } else if (c == '+' || c == '-') && term.trim().is_empty() {
                sign = if c == '+' { sign } else { -sign };
            } else {
                term.push(c);
            }
        }
        if !term.trim().is_empty() {
            terms.push((sign, term.trim().to_string()));
        }
        if terms.is_empty() {
            return Err(EngineError::Other(
                "Argument required (starting display address).".into(),
            ));
        }
        for (s, t) in terms {
            total += s * self.eval_term(&t)? as i128;
        }
        Ok(total as u64)
    }

    fn eval_term(&self, t: &str) -> Result<u64> {
        let t = t.trim().trim_start_matches('&').trim();
        if let Some(n) = parse_number(t) {
            return Ok(n);
        }
        if let Some(r) = t.strip_prefix('$') {
            let arch = self.session.arch();
            let name = match r {
                "pc" => arch.regs[arch.pc].name,
                "sp" => arch.regs[arch.sp].name,
                "fp" => arch.regs[arch.fp].name,
                other => other,
            };
            let regs = self
                .session
                .registers(true)
                .map_err(|_| EngineError::Other("No registers.".into()))?;
            return regs
                .by_name(name)
                .map(|v| v as u64)
                .ok_or_else(|| EngineError::Other(format!("Invalid register `{name}'")));
        }
        self.session
            .symbols()
            .lookup(t)
            .or_else(|| self.session.symbols().data_symbol(t).map(|s| s.0))
            .ok_or_else(|| EngineError::Other(format!("No symbol \"{t}\" in current context.")))
    }

    /// `x[/FMT] [ADDR]`: the format letter defaults to gdb's `last_format` (which `print`
    /// and `call` also set), and sets it when the examination succeeds.
    pub(crate) fn cmd_x(&mut self, arg: &str) -> Result<Flow> {
        if let Some(f) = self.last_format {
            self.x_fmt.0 = f;
        }
        let r = self.x_inner(arg);
        if r.is_ok() {
            self.last_format = Some(self.x_fmt.0);
        }
        r
    }

    /// `x` with `x_fmt` as the default format and size.
    pub(crate) fn x_inner(&mut self, arg: &str) -> Result<Flow> {
        let (fmt, rest) = match arg.strip_prefix('/') {
            Some(r) => {
                let end = r.find(char::is_whitespace).unwrap_or(r.len());
                (&r[..end], r[end..].trim())
            }
            None => ("", arg.trim()),
        };
        let digits: String = fmt.chars().take_while(|c| c.is_ascii_digit()).collect();
        let count: usize = if digits.is_empty() {
            1
        } else {
            digits.parse().unwrap_or(1)
        };
        let (mut letter, mut size) = self.x_fmt;
        for c in fmt[digits.len()..].chars() {
            match c {
                'b' => size = 1,
                'h' => size = 2,
                'w' => size = 4,
                'g' => size = 8,
                'x' | 'd' | 'u' | 'o' | 't' | 'c' | 'i' | 'a' | 's' | 'f' => letter = c,
                _ => return Err(EngineError::Other(format!("Invalid number \"{fmt}\"."))),
            }
        }
        let addr = if rest.is_empty() {
            self.x_next.ok_or_else(|| {
                EngineError::Other("Argument required (starting display address).".into())
            })?
        } else {
            self.address_of_expr(rest)?
        };
        if letter == 'i' {
            self.x_fmt.0 = 'i';
            return self.x_insns(addr, count);
        }
        if letter == 's' {
            self.x_fmt.0 = 's';
            self.x_next = Some(self.x_strings(addr, count)?);
            return Ok(Flow::Go);
        }
        if letter == 'f' && size != 4 && size != 8 {
            size = 8;
        }
        if letter == 'c' {
            size = 1;
        }
        if letter == 'a' {
            size = 8;
        }
        self.x_fmt = (letter, size);
        let fmt = if letter == 'a' {
            XFormat::Hex
        } else {
            XFormat::from_letter(letter).unwrap_or(XFormat::Hex)
        };
        let per = per_line(size, fmt);
        let mut at = addr;
        let mut left = count;
        while left > 0 {
            let n = left.min(per);
            let mut buf = vec![0u8; n * size];
            let label = format!("{}:", self.address_with_symbol(at));
            if self.session.read_memory(at, &mut buf).is_err() {
                // gdb prints the units it could read, each after a tab, then the error on the
                // same line.
                let mut line = label;
                for k in 0..n as u64 {
                    let u = at + k * size as u64;
                    line.push('\t');
                    let mut one = vec![0u8; size];
                    if self.session.read_memory(u, &mut one).is_err() {
                        crate::out!("{line}");
                        return Err(EngineError::Memory(u));
                    }
                    line.push_str(&unit(&one, fmt));
                }
                // Readable after all (the mapping changed): show the line.
                out(line);
                at += (n * size) as u64;
                left -= n;
                continue;
            }
            let units: Vec<String> = buf
                .chunks(size)
                .map(|c| {
                    if letter == 'f' {
                        self.x_float(c)
                    } else if letter == 'a' {
                        let v = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
                        self.address_with_symbol(v)
                    } else {
                        unit(c, fmt)
                    }
                })
                .collect();
            out(format!("{label}\t{}", units.join("\t")));
            at += (n * size) as u64;
            left -= n;
            if left == 0
                && let Some(last) = buf.len().checked_sub(size).map(|i| buf[i..].to_vec())
            {
                self.examined(at - size as u64, last);
            }
        }
        self.x_next = Some(at);
        Ok(Flow::Go)
    }

    fn x_insns(&mut self, addr: u64, count: usize) -> Result<Flow> {
        let arch = self.session.arch();
        let mut code = vec![0u8; count * arch.max_insn_len];
        // Read as much as is mapped.
        let mut n = code.len();
        while n > 0 && self.session.read_memory(addr, &mut code[..n]).is_err() {
            n = n.saturating_sub(16.max(n / 2));
        }
        if n == 0 {
            let label = format!("{}:", self.address_with_symbol(addr));
            crate::out!("   {label}\t");
            return Err(EngineError::Memory(addr));
        }
        code.truncate(n);
        // gdb marks the selected frame's pc.
        let pc = self
            .frames(usize::MAX)
            .get(self.selected_frame())
            .map(|f| f.pc())
            .or_else(|| self.session.registers(false).ok().map(|r| r.pc()));
        let sym = |a: u64| self.address_symbol(a);
        let insns = disasm::disassemble(arch, &code, addr, count, &sym)?;
        let mut next = addr;
        let mut last = None;
        for i in insns {
            let mark = if Some(i.addr) == pc { "=> " } else { "   " };
            let label = format!("{}:", self.address_with_symbol(i.addr));
            out(format!("{mark}{label}\t{}", i.text));
            next = i.addr + i.len as u64;
            last = Some(i.addr);
        }
        self.x_next = Some(next);
        if let Some(at) = last {
            // gdb: `$_` the last instruction's address as an `int8_t *`; `$__` void (the
            // instruction was never read as a value).
            self.examined(at, vec![0]);
            self.data.convenience.borrow_mut().clear("__");
        }
        Ok(Flow::Go)
    }

    /// gdb's `set_next_address`: where `x` without an address goes on, and `$_` that
    /// address as a `void *` (after `info line`).
    pub(crate) fn set_next_address(&mut self, addr: u64) {
        self.x_next = Some(addr);
        let ptr = Type::pointer_to(Type::void(), self.session.arch().ptr_size as u64);
        self.data.convenience.borrow_mut().insert(
            "_".into(),
            Value::new(ptr, addr.to_le_bytes().to_vec(), Lval::None),
        );
    }

    // ------------------------------------------------------------------ info

    fn cmd_info(&mut self, arg: &str) -> Result<Flow> {
        let (what, rest) = match arg.find(char::is_whitespace) {
            Some(i) => (&arg[..i], arg[i..].trim()),
            None => (arg, ""),
        };
        match what {
            "breakpoints" | "b" | "break" => self.info_breakpoints(false),
            "watchpoints" | "wat" | "watch" => self.info_breakpoints(true),
            "registers" | "reg" | "r" => self.info_registers(rest, false),
            "all-registers" => self.info_registers(rest, true),
            "threads" | "thread" => self.info_threads(),
            "sharedlibrary" | "shared" | "dll" => self.info_shared(rest),
            "signals" | "handle" => self.info_signals(rest),
            "locals" | "lo" => self.cmd_info_vars(false, rest),
            "frame" | "f" => self.cmd_info_frame(rest),
            "source" => self.cmd_info_source(),
            "symbol" => self.cmd_info_symbol(rest),
            "address" | "addr" => match self.info_address_local(rest.trim()) {
                Some(l) => {
                    out(l);
                    Ok(Flow::Go)
                }
                None => self.cmd_info_address(rest),
            },
            "scope" => self.cmd_info_scope(rest),
            "vtbl" => self.cmd_info_vtbl(rest),
            "line" => self.cmd_info_line(rest),
            "functions" | "fu" => {
                self.cmd_info_symbols(crate::symtab_info::SymbolClass::Functions, rest)
            }
            "variables" | "va" => {
                self.cmd_info_symbols(crate::symtab_info::SymbolClass::Variables, rest)
            }
            "types" | "ty" => self.cmd_info_symbols(crate::symtab_info::SymbolClass::Types, rest),
            "args" | "ar" => self.cmd_info_vars(true, rest),
            "common" => self.cmd_info_common(rest),
            "modules" => self.cmd_info_modules(rest),
            "module" => self.cmd_info_module(rest),
            "display" => self.cmd_info_display(),
            "inferiors" => {
                let pid = self
                    .session
                    .pid()
                    .map(|p| format!("process {p}"))
                    .unwrap_or_else(|| "<null>".into());
                let exe = self
                    .session
                    .program
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                out("  Num  Description       Connection           Executable        ");
                out(format!(
                    "* 1    {pid:<17} {:<20} {exe} ",
                    if self.session.is_running() {
                        "1 (native)"
                    } else {
                        ""
                    }
                ));
                Ok(Flow::Go)
            }
            _ => Err(EngineError::Other(format!(
                "Undefined info command: \"{arg}\".  Try \"help info\"."
            ))),
        }
    }

    /// The Type column of a watchpoint in `info breakpoints`.
    /// The function whose locals watchpoint `id` watches (None: globals, or not a watchpoint).
    pub(crate) fn watch_function(&self, id: u32) -> Option<&str> {
        self.watches.get(&id)?.function.as_deref()
    }

    pub(crate) fn watch_type(&self, id: u32, kind: WatchKind) -> &'static str {
        match (kind, self.watches.get(&id)) {
            (_, Some(w)) if w.title == "Watchpoint" => "watchpoint",
            (WatchKind::Write, _) => "hw watchpoint",
            (_, Some(w)) if w.title.contains("read watchpoint") => "read watchpoint",
            _ => "acc watchpoint",
        }
    }

    /// `info breakpoints` (`watch_only`: `info watchpoints`).
    fn info_breakpoints(&mut self, watch_only: bool) -> Result<Flow> {
        let bps: Vec<_> = self
            .session
            .breakpoints()
            .iter()
            .filter(|b| !watch_only || matches!(b.kind, BpKind::Watch { .. }))
            .cloned()
            .collect();
        if bps.is_empty() {
            if watch_only {
                out("No watchpoints.");
            } else {
                out("No breakpoints or watchpoints.");
            }
            return Ok(Flow::Go);
        }
        // gdb sizes the address column for 64-bit addresses only when some breakpoint has one
        // (a hardware watchpoint has one it does not print).
        let wide = bps.iter().any(|b| match b.kind {
            BpKind::Software => {
                !b.addrs.is_empty()
                    || self.cuda_breakpoint_at(b.id).is_some()
                    || self.script.catchpoints.contains_key(&b.id)
            }
            // A software watchpoint on registers only (`watch $pc`) watches no memory.
            BpKind::Watch { software, len, .. } => !software || len > 0,
            BpKind::Catch(_) => false,
        });
        let aw = if wide { 18 } else { 10 };
        let types: Vec<&str> = bps
            .iter()
            .map(|b| match &b.kind {
                BpKind::Software if self.script.dprintf.contains_key(&b.id) => "dprintf",
                BpKind::Software if self.script.catchpoints.contains_key(&b.id) => "catchpoint",
                BpKind::Software if self.is_hardware_breakpoint(b.id) => "hw breakpoint",
                BpKind::Software => "breakpoint",
                BpKind::Watch { kind, .. } => self.watch_type(b.id, *kind),
                BpKind::Catch(_) => "catchpoint",
            })
            .collect();
        let tw = types.iter().map(|t| t.len()).max().unwrap_or(14).max(14);
        out(format!(
            "Num     Type{:<pad$} Disp Enb {:<aw$} What",
            "",
            "Address",
            pad = tw - 4
        ));
        for (b, ty) in bps.iter().zip(types) {
            let disp = if b.temporary {
                "del "
            } else if b.disable_after.is_some() {
                "dis "
            } else {
                "keep"
            };
            let enb = if b.enabled { "y" } else { "n" };
            let mut locations = Vec::new();
            let catch = self.script.catchpoints.get(&b.id).copied();
            match &b.kind {
                BpKind::Software if let Some(kind) = catch => {
                    out(format!(
                        "{:<7} {ty:<tw$} {disp} {enb}   {:<aw$} exception {kind}",
                        b.id, ""
                    ));
                }
                BpKind::Software => {
                    let mut addrs = b.addrs.clone();
                    addrs.sort_unstable();
                    let device = self.cuda_breakpoint_at(b.id);
                    let (addr, what) = match (addrs.as_slice(), &b.spec) {
                        ([], _) if let Some((a, what)) = device => (format!("0x{a:016x}"), what),
                        ([], BpSpec::Symbol(n) | BpSpec::Location(n)) => {
                            (format!("{:<aw$}", "<PENDING>"), n.clone())
                        }
                        ([a], spec) => (format!("0x{a:016x}"), self.breakpoint_what(spec, *a)),
                        ([], _) => (String::new(), String::new()),
                        (many, _) => {
                            for (i, a) in many.iter().enumerate() {
                                locations.push(format!(
                                    "{:<w$}{enb}   0x{a:016x} {}",
                                    format!("{}.{}", b.id, i + 1),
                                    self.breakpoint_what(&b.spec, *a),
                                    w = tw + 14
                                ));
                            }
                            (format!("{:<aw$}", "<MULTIPLE>"), String::new())
                        }
                    };
                    out(format!(
                        "{:<7} {ty:<tw$} {disp} {enb}   {addr} {what}",
                        b.id
                    ));
                }
                BpKind::Watch { expr, .. } => {
                    out(format!(
                        "{:<7} {ty:<tw$} {disp} {enb}   {:<aw$} {expr}",
                        b.id, ""
                    ));
                }
                BpKind::Catch(c) => {
                    use cohort_engine::session::Catch;
                    let what = match c {
                        Catch::Fork | Catch::Vfork => {
                            let w = crate::script::catch_words(c);
                            match self.script.forked.get(&b.id) {
                                Some(child) => format!("{w}, process {child} "),
                                None => w,
                            }
                        }
                        Catch::Signal(set) if set.is_empty() => {
                            "signal \"<standard signals>\" ".to_string()
                        }
                        Catch::Exec => match self.script.execd.get(&b.id) {
                            Some(path) => format!("exec, program \"{path}\" "),
                            None => "exec".to_string(),
                        },
                        Catch::Syscall(list) if list.is_empty() => {
                            "syscall \"<any syscall>\" ".to_string()
                        }
                        Catch::Syscall(list) => format!(
                            "syscall{} \"{}\" ",
                            if list.len() > 1 { "s" } else { "" },
                            list.iter()
                                .map(|&n| syscall_name(self.session.arch(), n))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        Catch::Signal(set) => format!(
                            "signal{} \"{}\" ",
                            if set.len() > 1 { "s" } else { "" },
                            set.iter()
                                .map(|&n| describe(n).0)
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                    };
                    out(format!(
                        "{:<7} {ty:<tw$} {disp} {enb}   {:<aw$} {what}",
                        b.id, ""
                    ));
                }
            }
            if let Some(c) = &b.condition {
                out(format!("\tstop only if {c}"));
            }
            if b.hits > 0 {
                let times = if b.hits == 1 { "time" } else { "times" };
                let what = if catch.is_some() || matches!(b.kind, BpKind::Catch(_)) {
                    "catchpoint"
                } else {
                    "breakpoint"
                };
                out(format!("\t{what} already hit {} {times}", b.hits));
            }
            if b.ignore > 0 {
                out(format!("\tignore next {} hits", b.ignore));
            }
            // An enable count of 1 is `enable once`, which Disp and Enb say already.
            if let Some(n) = b.disable_after.filter(|&n| n > 1) {
                let which = if b.ignore > 0 { "additional" } else { "next" };
                out(format!("\tdisable after {which} {n} hits"));
            }
            for l in self.breakpoint_command_lines(b.id) {
                out(l);
            }
            for l in locations {
                out(l);
            }
        }
        Ok(Flow::Go)
    }

    fn info_registers(&mut self, names: &str, all: bool) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::Other(
                "The program has no registers now.".into(),
            ));
        }
        let mut regs = self.session.registers(true)?;
        // In an outer frame: the registers as unwound there (the others as in frame 0).
        let sel = self.selected_frame();
        if sel > 0
            && let Some(f) = self.frames(sel + 1).get(sel)
        {
            for i in 0..f.regs.span() {
                if let Some(v) = f.regs.get(i) {
                    regs.set(i, v);
                }
            }
        }
        let arch = regs.arch;
        if names.is_empty() {
            // A code pointer is a value: gdb names it demangled (`<geom::total(…)+12>`).
            let sym = |a: u64| self.value_symbol(a);
            for (i, r) in arch.regs.iter().enumerate() {
                if (all || r.general)
                    && let Some(v) = regs.get(i)
                {
                    out(register_line(r, v, &sym));
                }
            }
            return Ok(Flow::Go);
        }
        for n in names.split_whitespace() {
            let n = n.trim_start_matches('$');
            let n = match n {
                "pc" => arch.regs[arch.pc].name,
                "sp" => arch.regs[arch.sp].name,
                "fp" => arch.regs[arch.fp].name,
                o => o,
            };
            match arch.reg_index(n).and_then(|i| regs.get(i).map(|v| (i, v))) {
                Some((i, v)) => {
                    let sym = |a: u64| self.value_symbol(a);
                    out(register_line(&arch.regs[i], v, &sym))
                }
                // A wider vector (`ymm0`): its value in hex, as gdb shows vector registers.
                None if arch.wide_vectors.iter().any(|(w, _)| *w == n) => {
                    let v = self.evaluate(&format!("${n}"))?;
                    if matches!(v.ty.strip().kind, cohort_dwarf::types::TypeKind::Void) {
                        return Err(EngineError::NoRegister(n.to_string()));
                    }
                    let text =
                        self.format(&v, &cohort_dwarf::format::FormatOptions::with_format('x'));
                    out(format!("{n:<15}{text}"));
                }
                None => return Err(EngineError::NoRegister(n.to_string())),
            }
        }
        Ok(Flow::Go)
    }

    fn info_threads(&mut self) -> Result<Flow> {
        let threads = self.session.threads();
        if threads.is_empty() {
            out("No threads.");
            return Ok(Flow::Go);
        }
        let pid = self.session.pid();
        let cur = self.session.current_thread();
        let sel = self.selected_frame();
        let mut rows = Vec::new();
        for t in &threads {
            let target = thread_label(t, pid);
            let mark = if Some(t.tid) == cur { "*" } else { " " };
            // The Frame column is the thread's frame 0 as gdb describes it.
            self.session.select_thread(t.num)?;
            self.invalidate_frames();
            let frames = self.frames(2);
            rows.push((
                format!("{mark} {:<4}", t.num),
                target,
                self.describe_frame(&frames, 0, false),
            ));
        }
        self.restore_thread(cur, sel);
        let w = rows.iter().map(|r| r.1.len()).max().unwrap_or(9).max(9);
        out(format!("  {:<4} {:<w$} Frame ", "Id", "Target Id"));
        for (a, b, c) in rows {
            out(format!("{a} {b:<w$} {c}"));
        }
        Ok(Flow::Go)
    }

    /// Make `tid` the current thread again, with frame `frame` selected.
    fn restore_thread(&mut self, tid: Option<i32>, frame: usize) {
        let num = tid.and_then(|t| self.session.thread_num(t));
        if let Some(n) = num {
            let _ = self.session.select_thread(n);
        }
        self.invalidate_frames();
        self.select_frame(frame);
    }

    /// `thread apply all|LIST COMMAND`: run COMMAND in each thread (`all`: newest first),
    /// each under a `Thread N (…):` title; the current thread and frame stay as they were.
    fn cmd_thread_apply(&mut self, arg: &str) -> Result<Flow> {
        let (which, cmd) = match arg.split_once(char::is_whitespace) {
            Some((w, c)) => (w, c.trim()),
            None => (arg, ""),
        };
        let threads = self.session.threads();
        let mut nums: Vec<usize> = Vec::new();
        let mut rest = cmd.to_string();
        if which == "all" {
            nums = threads.iter().map(|t| t.num).collect();
            nums.sort_unstable_by(|a, b| b.cmp(a));
            let (flags, _) = crate::script::apply_flags(&rest, true);
            if flags.ascending {
                nums.reverse();
            }
        } else {
            // A list of numbers and ranges, then the command.
            let mut words = arg.split_whitespace().peekable();
            let mut used = 0;
            while let Some(w) = words.peek() {
                let range = match w.split_once('-') {
                    Some((a, b)) => a.parse::<usize>().ok().zip(b.parse::<usize>().ok()),
                    None => w.parse::<usize>().ok().map(|n| (n, n)),
                };
                let Some((a, b)) = range else { break };
                nums.extend(a..=b);
                used += 1;
                words.next();
            }
            if used == 0 {
                return Err(EngineError::Other(format!("Invalid thread ID: {arg}")));
            }
            rest = arg
                .split_whitespace()
                .skip(used)
                .collect::<Vec<_>>()
                .join(" ");
        }
        let (flags, command) = crate::script::apply_flags(&rest, which == "all");
        if command.is_empty() {
            return Err(EngineError::Other(if which == "all" {
                "Please specify a command at the end of 'thread apply all'".into()
            } else {
                "Please specify a command following the thread ID list".into()
            }));
        }
        if flags.cont && flags.silent {
            let which = if which == "all" { " all" } else { "" };
            return Err(EngineError::Other(format!(
                "thread apply{which}: -c and -s are mutually exclusive"
            )));
        }
        let command = command.to_string();
        let cur = self.session.current_thread();
        let sel = self.selected_frame();
        let pid = self.session.pid();
        for n in nums {
            let Some(t) = threads.iter().find(|t| t.num == n) else {
                crate::errln!("warning: Unknown thread {n}");
                continue;
            };
            self.session.select_thread(n)?;
            self.invalidate_frames();
            let head = format!("\nThread {n} ({}):", thread_label(t, pid));
            // As gdb's `thr_try_catch_cmd`: the command's output comes after the title, which
            // `-q` leaves out; `-s` leaves out a thread whose command failed or said nothing;
            // `-c` says an error and goes on; otherwise an error ends the loop and is the
            // command's.
            let (r, got) = crate::output::capture(|| self.run_command(&command));
            let said = !got.out.is_empty() || !got.err.is_empty();
            let show = match &r {
                Err(_) => !flags.silent,
                Ok(_) => !flags.silent || said,
            };
            if show && !flags.quiet {
                out(&head);
            }
            if show || r.is_ok() {
                crate::out!("{}", got.out);
                if !got.err.is_empty() {
                    crate::output::write_err(&got.err);
                }
            }
            match r {
                Ok(Flow::Quit) => return Ok(Flow::Quit),
                Ok(Flow::Go) => {}
                Err(_) if flags.silent => {}
                Err(e) if flags.cont => out(e.to_string()),
                Err(e) => {
                    self.restore_thread(cur, sel);
                    return Err(e);
                }
            }
        }
        self.restore_thread(cur, sel);
        Ok(Flow::Go)
    }

    /// `info sharedlibrary [REGEX]`.
    fn info_shared(&mut self, regex: &str) -> Result<Flow> {
        let re = match regex.trim() {
            "" => None,
            r => Some(
                crate::symtab_info::Regex::new(r)
                    .map_err(|e| EngineError::Other(format!("Invalid regexp: {e}")))?,
            ),
        };
        let libs: Vec<_> = self
            .session
            .libraries()
            .iter()
            .filter(|l| re.as_ref().is_none_or(|r| r.is_match(&l.path)))
            .cloned()
            .collect();
        if libs.is_empty() {
            if !regex.trim().is_empty() {
                out("No shared libraries matched.");
                return Ok(Flow::Go);
            }
            out("No shared libraries loaded at this time.");
            return Ok(Flow::Go);
        }
        out("From                To                  Syms Read   Shared Object Library");
        let mut missing = false;
        for l in libs {
            let (a, b) = l.text.unwrap_or((0, 0));
            let read = if l.has_debug_info {
                "Yes        "
            } else {
                missing = true;
                "Yes (*)    "
            };
            out(format!("0x{a:016x}  0x{b:016x}  {read} {}", l.path));
        }
        if missing {
            out("(*): Shared library is missing debugging information.");
        }
        Ok(Flow::Go)
    }

    fn info_signals(&mut self, arg: &str) -> Result<Flow> {
        let t = &self.session.signals;
        if arg.is_empty() {
            out(SignalTable::HEADER);
            out("");
            let n = t.rows().count();
            for i in 0..n {
                out(t.format_row(i));
            }
            out("\nUse the \"handle\" command to change these tables.");
        } else {
            out(SignalTable::HEADER);
            // gdb: a signal's name, else an expression for its number.
            let rows = match t.select(arg) {
                Ok(rows) => rows,
                Err(e) => {
                    self.evaluate_long(arg)?;
                    return Err(EngineError::Other(e));
                }
            };
            let t = &self.session.signals;
            for i in rows {
                out(t.format_row(i));
            }
        }
        Ok(Flow::Go)
    }

    fn cmd_thread(&mut self, arg: &str) -> Result<Flow> {
        let arg = arg.trim();
        if let Some(rest) = arg.strip_prefix("apply") {
            return self.cmd_thread_apply(rest.trim());
        }
        let pid = self.session.pid();
        if arg.is_empty() {
            let cur = self
                .session
                .current_thread()
                .ok_or_else(|| EngineError::Other("No thread selected.".into()))?;
            let t = self.session.threads().into_iter().find(|t| t.tid == cur);
            if let Some(t) = t {
                out(format!(
                    "[Current thread is {} ({})]",
                    t.num,
                    thread_target(t.pointer, t.tid, pid)
                ));
            }
            return Ok(Flow::Go);
        }
        let num: usize = arg
            .parse()
            .map_err(|_| EngineError::Other(format!("Invalid thread ID: {arg}")))?;
        let tid = self
            .session
            .select_thread(num)
            .map_err(|_| EngineError::Other(format!("Unknown thread {num}.")))?;
        self.last_tid.set(Some(tid));
        let t = self.session.threads().into_iter().find(|t| t.tid == tid);
        let pointer = t.map(|t| t.pointer).unwrap_or(0);
        let pc = self.session.registers(false)?.pc();
        out(format!(
            "[Switching to thread {num} ({})]",
            thread_target(pointer, tid, pid)
        ));
        let _ = pc;
        self.invalidate_frames();
        let frames = self.frames(usize::MAX);
        out(self.describe_frame(&frames, 0, true));
        self.print_source_line_at(self.frame0_pc());
        Ok(Flow::Go)
    }

    fn cmd_handle(&mut self, arg: &str) -> Result<Flow> {
        let words: Vec<&str> = arg.split_whitespace().collect();
        if words.is_empty() {
            return Err(EngineError::Other(
                "Argument required (signal to handle).".into(),
            ));
        }
        let mut t = self.session.signals.clone();
        let mut rows = Vec::new();
        let mut actions = Vec::new();
        for w in &words {
            let lw = w.to_ascii_lowercase();
            if [
                "stop", "nostop", "print", "noprint", "pass", "nopass", "ignore", "noignore",
            ]
            .contains(&lw.as_str())
            {
                actions.push(lw);
            } else {
                rows.extend(t.select(w).map_err(EngineError::Other)?);
            }
        }
        for a in &actions {
            t.apply(&rows, a).map_err(EngineError::Other)?;
        }
        if self.from_tty {
            out(SignalTable::HEADER);
            for &i in &rows {
                out(t.format_row(i));
            }
        }
        self.session.set_signals(t);
        Ok(Flow::Go)
    }

    fn cmd_set(&mut self, arg: &str) -> Result<Flow> {
        let resolved = crate::settings::gdb_resolve("set", arg).map_err(EngineError::Other)?;
        let arg = resolved.as_str();
        if let Some(r) = self.set_setting(arg) {
            r?;
            return Ok(Flow::Go);
        }
        let words: Vec<&str> = arg.split_whitespace().collect();
        match words.as_slice() {
            ["args", rest @ ..] => {
                self.session.args = rest.iter().map(Into::into).collect();
                let line = arg.trim_start().strip_prefix("args").unwrap_or("").trim();
                self.session.args_line = Some(line.to_string());
            }
            ["startup-with-shell", v @ ..] => {
                self.session.startup_with_shell = crate::settings::bool_value(&v.join(" "))?
            }
            ["disable-randomization", v @ ..] => {
                self.session.disable_randomization = crate::settings::bool_value(&v.join(" "))?
            }
            ["language", l] => {
                use cohort_dwarf::format::Language;
                self.language_set = match *l {
                    "auto" | "local" => None,
                    "c" => Some(Language::C),
                    "c++" => Some(Language::Cplus),
                    "fortran" => Some(Language::Fortran),
                    other => {
                        return Err(EngineError::Other(format!("Undefined item: \"{other}\".")));
                    }
                }
            }
            ["breakpoint", "pending", v] => {
                self.pending_mode = match *v {
                    "on" => Some(true),
                    "off" => Some(false),
                    _ => None,
                }
            }
            ["print", "elements" | "repeats", v] => {
                // gdb: `unlimited` or 0 means no limit.
                let n = match *v {
                    "unlimited" | "0" => usize::MAX,
                    v => match parse_number(v) {
                        Some(n) => n as usize,
                        None => {
                            return Err(EngineError::Other(format!(
                                "No symbol \"{v}\" in current context."
                            )));
                        }
                    },
                };
                if words[1] == "elements" {
                    self.print_elements = n;
                } else {
                    self.print_repeats = n;
                }
            }
            ["max-value-size", v] => {
                self.max_value_size = match *v {
                    "unlimited" => None,
                    v => match parse_number(v) {
                        Some(n) if n >= 16 => Some(n),
                        Some(_) => {
                            self.max_value_size = Some(16);
                            return Err(EngineError::Other(
                                "max-value-size set too low, increasing to 16 bytes".into(),
                            ));
                        }
                        None => {
                            return Err(EngineError::Other(format!(
                                "No symbol \"{v}\" in current context."
                            )));
                        }
                    },
                }
            }
            ["confirm", ..]
            | ["pagination", ..]
            | ["height", ..]
            | ["width", ..]
            | ["print", ..] => {}
            // gdb takes the rest of the line, `~` expanded; none: the debugger's own.
            ["cwd", ..] => {
                let d = arg.trim_start().strip_prefix("cwd").unwrap_or("").trim();
                self.session.cwd = match d {
                    "" => None,
                    "~" => std::env::var_os("HOME").map(PathBuf::from),
                    _ => match (d.strip_prefix("~/"), std::env::var_os("HOME")) {
                        (Some(rest), Some(h)) => Some(PathBuf::from(h).join(rest)),
                        _ => Some(PathBuf::from(d)),
                    },
                };
            }
            ["var" | "variable", ..] => {
                let e = arg.trim_start();
                let e = e.split_once(char::is_whitespace).map(|x| x.1).unwrap_or("");
                return self.cmd_set_var(e);
            }
            [] => {
                return Err(EngineError::Other(
                    "Argument required (expression to compute).".into(),
                ));
            }
            _ if arg.contains('=') => return self.cmd_set_var(arg),
            _ => {
                return Err(EngineError::Other(format!(
                    "Undefined set command: \"{arg}\".  Try \"help set\"."
                )));
            }
        }
        Ok(Flow::Go)
    }
}

/// The line gdb prints for a notice while the program runs.
fn notice_line(n: &Notice) -> Option<String> {
    Some(match n {
        Notice::NewThread { tid, pointer, .. } => {
            format!("[New {}]", thread_target(*pointer, *tid, None))
        }
        Notice::ThreadExited { tid, pointer, .. } => {
            format!("[{} exited]", thread_target(*pointer, *tid, None))
        }
        Notice::SignalPrinted {
            signo,
            num,
            name: tname,
            threaded,
            ..
        } => {
            let (name, desc) = describe(*signo);
            if *threaded {
                format!("\nThread {num} \"{tname}\" received signal {name}, {desc}.")
            } else {
                format!("\nProgram received signal {name}, {desc}.")
            }
        }
        Notice::Exec { pid, path } => {
            format!("process {pid} is executing new program: {}", path.display())
        }
        Notice::ForkDetached { pid, vfork } => format!(
            "[Detaching after {} from child process {pid}]",
            if *vfork { "vfork" } else { "fork" }
        ),
    })
}

/// gdb's target id of a thread: `Thread 0x7ffff7d87740 (LWP 1649)`, or `process N` before the
/// thread library has set the thread pointer.
/// A thread as `info threads` and `thread apply` name it: its target id and its name (a core
/// file's threads have none, and gdb shows none).
fn thread_label(t: &cohort_engine::process::ThreadInfo, pid: Option<i32>) -> String {
    match t.name.as_str() {
        "" => thread_target(t.pointer, t.tid, pid),
        name => format!("{} \"{name}\"", thread_target(t.pointer, t.tid, pid)),
    }
}

pub(crate) fn thread_target(pointer: u64, tid: i32, pid: Option<i32>) -> String {
    if pointer == 0 {
        if Some(tid) == pid {
            format!("process {tid}")
        } else {
            format!("LWP {tid}")
        }
    } else {
        format!("Thread {pointer:#x} (LWP {tid})")
    }
}

/// System call `n`'s name in `arch`'s table, or its number.
fn syscall_name(arch: &cohort_engine::arch::ArchInfo, n: i64) -> String {
    cohort_engine::arch::syscalls::by_number(arch.syscalls, n)
        .map_or_else(|| n.to_string(), |s| s.name.to_string())
}

/// The system calls of `catch syscall ARGS` (names, numbers, `group:NAME` or `g:NAME`), by
/// number in the order given; gdb's errors for names, groups and numbers it does not know.
fn parse_syscalls(arch: &cohort_engine::arch::ArchInfo, args: &str) -> Result<Vec<i64>> {
    use cohort_engine::arch::syscalls;
    let mut out = Vec::new();
    for w in args.split_whitespace() {
        let number = match w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
            Some(hex) => i64::from_str_radix(hex, 16).ok(),
            None => w.parse::<i64>().ok(),
        };
        if let Some(n) = number {
            if n < 0 {
                return Err(EngineError::Other(format!("Unknown syscall number '{n}'.")));
            }
            out.push(n);
        } else if let Some(g) = w.strip_prefix("group:").or_else(|| w.strip_prefix("g:")) {
            let calls = syscalls::by_group(arch.syscalls, g)
                .ok_or_else(|| EngineError::Other(format!("Unknown syscall group '{g}'.")))?;
            out.extend(calls.iter().map(|s| i64::from(s.number)));
        } else {
            let s = syscalls::by_name(arch.syscalls, w)
                .ok_or_else(|| EngineError::Other(format!("Unknown syscall name '{w}'.")))?;
            out.push(i64::from(s.number));
        }
    }
    Ok(out)
}

/// gdb's words for the event of a `catch throw|catch|rethrow` stop.
fn catch_event(kind: &str) -> &'static str {
    match kind {
        "catch" => "caught",
        "rethrow" => "rethrown",
        _ => "thrown",
    }
}

impl Debugger {
    /// `catch fork`, `catch vfork`, `catch signal [SIG...|all]`; `None` for other kinds.
    fn location_less_catch(
        &self,
        what: &str,
        rest: &str,
    ) -> Result<Option<cohort_engine::session::Catch>> {
        use cohort_engine::session::Catch;
        Ok(Some(match what {
            "fork" => Catch::Fork,
            "vfork" => Catch::Vfork,
            "exec" => Catch::Exec,
            "syscall" => Catch::Syscall(parse_syscalls(self.session.arch(), rest)?),
            "signal" => {
                let mut set = Vec::new();
                for w in rest.split_whitespace() {
                    if w == "all" {
                        set.extend(
                            self.session
                                .signals
                                .rows()
                                .filter_map(|(s, _)| s.linux)
                                .filter(|&n| n > 0),
                        );
                        continue;
                    }
                    let rows = self.session.signals.select(w).map_err(EngineError::Other)?;
                    for i in rows {
                        if let Some((s, _)) = self.session.signals.rows().nth(i)
                            && let Some(n) = s.linux
                        {
                            set.push(n);
                        }
                    }
                }
                Catch::Signal(set)
            }
            _ => return Ok(None),
        }))
    }

    /// `catch throw|catch|rethrow` (`tcatch`: deleted when hit): a catchpoint at libstdc++'s
    /// SystemTap probe for the event (`libstdcxx:throw`), resolved when the library loads.
    fn cmd_catch(&mut self, arg: &str, temporary: bool) -> Result<Flow> {
        let (what, _regex) = match arg.trim().split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (arg.trim(), ""),
        };
        if let Some(c) = self.location_less_catch(what, _regex)? {
            let b = self.session.add_catchpoint(c.clone(), temporary);
            let shown = match &c {
                cohort_engine::session::Catch::Signal(set) if set.is_empty() => {
                    "standard signals".to_string()
                }
                cohort_engine::session::Catch::Signal(set) if set.len() > 1 => {
                    crate::script::catch_words(&c).replacen("signal", "signals", 1)
                }
                cohort_engine::session::Catch::Syscall(list) if list.is_empty() => {
                    "any syscall".to_string()
                }
                cohort_engine::session::Catch::Syscall(list) => {
                    let mut s = String::from(if list.len() > 1 {
                        "syscalls"
                    } else {
                        "syscall"
                    });
                    for &n in list {
                        match cohort_engine::arch::syscalls::by_number(
                            self.session.arch().syscalls,
                            n,
                        ) {
                            Some(c) => s.push_str(&format!(" '{}' [{n}]", c.name)),
                            None => s.push_str(&format!(" {n}")),
                        }
                    }
                    s
                }
                _ => crate::script::catch_words(&c),
            };
            // gdb 13 says `Catchpoint` for `tcatch` of these too.
            out(format!("Catchpoint {} ({shown})", b.id));
            return Ok(Flow::Go);
        }
        let kind = match what {
            "throw" => "throw",
            "catch" => "catch",
            "rethrow" => "rethrow",
            "" => {
                return Err(EngineError::Other("List of catch subcommands:".into()));
            }
            other => {
                return Err(EngineError::Other(format!(
                    "Undefined catch command: \"{other}\".  Try \"help catch\"."
                )));
            }
        };
        let b = self.session.add_breakpoint(
            BpSpec::Location(format!("-probe-stap libstdcxx:{kind}")),
            temporary,
        )?;
        self.script.catchpoints.insert(b.id, kind);
        // gdb's words, with its two blanks after a temporary one.
        let head = if temporary {
            "Temporary catchpoint "
        } else {
            "Catchpoint"
        };
        out(format!("{head} {} ({kind})", b.id));
        Ok(Flow::Go)
    }
}

thread_local! {
    /// Whether each debug object (by address: they live for the whole run) has a C++ unit.
    static CPLUS_OBJECTS: std::cell::RefCell<std::collections::HashMap<usize, bool>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Whether object `d` has a C++ unit (read once per object).
fn has_cplus_units(d: &std::sync::Arc<cohort_dwarf::loader::DebugFile>) -> bool {
    let key = std::sync::Arc::as_ptr(d) as usize;
    if let Some(b) = CPLUS_OBJECTS.with(|c| c.borrow().get(&key).copied()) {
        return b;
    }
    let b = (0..d.units.len()).any(|ui| cohort_dwarf::dietypes::is_cplus_unit(d, ui));
    CPLUS_OBJECTS.with(|c| c.borrow_mut().insert(key, b));
    b
}

/// Whether `rest` starts with the word `w` (followed by nothing or a space).
fn word_is(rest: &str, w: &str) -> bool {
    rest.strip_prefix(w)
        .is_some_and(|r| r.is_empty() || r.starts_with(char::is_whitespace))
}
