//! Source-level execution control: `step`, `next`, `until`, `advance`, `finish`, `start`,
//! `nexti`, following gdb 13's rules (infrun.c): step through the address range of the
//! current line; a call is stepped over by running to its return address in the same frame
//! (frame identity is the CFA, so recursion is right); `step` enters a function only when it
//! has line information, stopping after its prologue; returning into the middle of a line
//! finishes that line.

use cohort_engine::flow::{self, next_control_flow};
use std::sync::Arc;

use cohort_engine::session::Event;
use cohort_engine::symbols::ObjectFile;
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

/// Which stepping command is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// `step`: enters functions that have line information.
    Into,
    /// `next`: steps over calls.
    Over,
    /// `until` without argument: `next` that does not go backwards in loops.
    Until,
}

/// For MPI calls whose peer is one of the first arguments: which one (0-based) and how to
/// name it.
fn mpi_peer_argument(name: &str) -> Option<(usize, &'static str)> {
    let name = name.strip_prefix('P').unwrap_or(name);
    match name {
        "MPI_Recv" | "MPI_Irecv" | "MPI_Probe" | "MPI_Iprobe" | "MPI_Mprobe" => Some((3, "from")),
        "MPI_Send"
        | "MPI_Ssend"
        | "MPI_Bsend"
        | "MPI_Rsend"
        | "MPI_Isend"
        | "MPI_Issend"
        | "MPI_Sendrecv"
        | "MPI_Sendrecv_replace" => Some((3, "to")),
        "MPI_Bcast" => Some((3, "root")),
        "MPI_Reduce" => Some((5, "root")),
        _ => None,
    }
}

/// What running the straight-line part of a line did.
enum Straight {
    /// Stopped at this pc (by our breakpoint).
    Moved(u64),
    /// Something else happened and was reported.
    Reported,
    /// The next instruction must be single-stepped.
    SingleStep,
}

/// Where a step starts from (gdb's `set_step_frame`).
struct StepFrom {
    /// The step frame (its CFA and function): a stop in an inlined call made from it goes on.
    id: (Option<u64>, Option<cohort_dwarf::types::DieRef>),
    /// The line being stepped (`None`: none, any statement stops).
    line: Option<crate::source::SrcLine>,
    /// The code range being stepped (may be empty).
    range: (u64, u64),
    /// The machine frame's CFA.
    cfa: Option<u64>,
    /// The machine function the step started in (gdb's `step_start_function`).
    function: Option<u64>,
}

/// How one step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Stopped at the start of a line: report it (with the frame header when the function
    /// changed).
    Done { new_function: bool },
    /// Something else happened and was already reported (breakpoint, signal, exit).
    Reported,
}

impl Debugger {
    pub(crate) fn cmd_step(&mut self, arg: &str, kind: StepKind) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::NotRunning);
        }
        let n = crate::debugger::parse_count(arg)?;
        for i in 0..n {
            if kind == StepKind::Into && self.inline_skipped() > 0 {
                // gdb enters an inlined call that starts here without moving the pc.
                self.unskip_inline();
                out(self.frame0_line());
                self.print_source_line_at(self.frame0_pc());
                continue;
            }
            // `set step-mode on` in code without line information: gdb steps by
            // instructions there (`step` as `stepi`, `next` as `nexti`).
            if self.settings.on("step-mode") {
                let pc = self.session.registers(false)?.pc();
                if self.line_range(pc).is_none() {
                    let flow = match kind {
                        StepKind::Into => self.cmd_stepi("")?,
                        StepKind::Over | StepKind::Until => self.cmd_nexti("")?,
                    };
                    if flow != Flow::Go {
                        return Ok(flow);
                    }
                    if !self.session.is_running() {
                        break;
                    }
                    continue;
                }
            }
            match self.step_once(kind)? {
                Outcome::Done { new_function } => {
                    // `next N` shows only where the last step ended.
                    if i + 1 < n {
                        continue;
                    }
                    self.select_frame(0);
                    let pc = self.session.registers(false)?.pc();
                    if new_function {
                        self.print_frame_header(pc, false);
                    }
                    self.print_source_line_at(pc);
                }
                Outcome::Reported => break,
            }
            if !self.session.is_running() {
                break;
            }
        }
        Ok(Flow::Go)
    }

    /// One `step`/`next`/`until`.
    pub(crate) fn step_once(&mut self, kind: StepKind) -> Result<Outcome> {
        let regs = self.session.registers(false)?;
        let start_pc = regs.pc();
        let Some(mut range) = self.line_range(start_pc) else {
            // No line information here: gdb runs to the caller.
            return self.step_out_of_no_line_function(start_pc);
        };
        // gdb's frame and line of the step: hidden inlined calls at the pc count as the call
        // line of the frame that makes them (and the range ends where the call's code does).
        if self.inline_skipped() > 0
            && let Some(end) = self.hidden_inline_end(start_pc)
        {
            range.1 = range.1.min(end);
        }
        if kind == StepKind::Until
            && let Some(f) = self.function_start(start_pc)
        {
            // gdb's `until_next_command`: the range runs from the function's entry to the end
            // of the line, so jumping back (a loop) keeps going.
            range.0 = range.0.min(f);
        }
        let from = StepFrom {
            id: self.frame0_identity(),
            line: self.frame0_src_line(),
            range,
            cfa: self.cfa_of_frame0(),
            function: self.function_start(start_pc),
        };
        self.step_from(kind, from)
    }

    /// Step on from where `from` says, as gdb's `process_event_stop_test` decides stop by
    /// stop (the step frame and line are refreshed on the way, see `refresh_step`).
    fn step_from(&mut self, kind: StepKind, from: StepFrom) -> Result<Outcome> {
        let StepFrom {
            id: mut start_id,
            line: mut start_line,
            mut range,
            cfa: mut frame_cfa,
            function: start_fn,
        } = from;
        // Where a call stepped over returned to, when outside the line: looked at as if a
        // step had stopped there.
        let mut landed = None;
        loop {
            let before = self.session.registers(false)?.pc();
            let pc = match landed.take() {
                Some(pc) => pc,
                None => self.step_in_range(before, range, kind, frame_cfa)?,
            };
            let Some(pc) = pc else {
                return Ok(Outcome::Reported);
            };
            if pc >= range.0 && pc < range.1 {
                continue;
            }
            let cfa = self.cfa_of_frame0();
            // Stepped into a subroutine: the new frame's caller is the frame we were stepping.
            let entered = self.stepped_into_subroutine(frame_cfa, cfa);
            if entered {
                // A call through a library's PLT stub (and, with lazy binding, the dynamic
                // linker's resolver): `step` follows it to the function it reaches, as gdb's
                // solib trampoline handling does.
                let linker = self.linker_object();
                let pc = match kind == StepKind::Into && self.in_trampoline(pc, linker.as_ref()) {
                    true => match self.step_through_trampoline(pc, linker.as_ref())? {
                        Some(pc) => pc,
                        None => return Ok(Outcome::Reported),
                    },
                    false => pc,
                };
                let has_lines = self.line_at(pc).is_some_and(|l| l.line != 0);
                // `set step-mode on`: `step` stops at the first instruction of a function
                // without line information.
                if kind == StepKind::Into && !has_lines && self.settings.on("step-mode") {
                    return Ok(Outcome::Done { new_function: true });
                }
                if kind == StepKind::Into && has_lines {
                    // Stop after the prologue, as gdb does.
                    let target = self.post_prologue(pc).unwrap_or(pc);
                    if target != pc {
                        match self.run_to(target, None)? {
                            Some(_) => {}
                            None => return Ok(Outcome::Reported),
                        }
                    }
                    return Ok(Outcome::Done { new_function: true });
                }
                // Step over the call: run to the return address in the stepping frame.
                let Some(ret) = self.return_address_of_frame0() else {
                    return Ok(Outcome::Done {
                        new_function: false,
                    });
                };
                self.note_entered(pc);
                let r = self.run_to(ret, frame_cfa);
                self.clear_activity();
                match r? {
                    Some(_) => {}
                    None => return Ok(Outcome::Reported),
                }
                let pc = self.session.registers(false)?.pc();
                if pc < range.0 || pc >= range.1 {
                    // The call returned somewhere outside the line (into an inlined call made
                    // on it, say): as if a step had stopped there.
                    landed = Some(Some(pc));
                }
                continue;
            }
            if cfa == frame_cfa && !self.returned_from(frame_cfa, cfa) {
                let now_id = self.frame0_identity();
                if now_id == start_id && self.inline_skipped() > 0 {
                    // Stepped onto the start of an inlined call (gdb: "stepped into inlined
                    // function"): `next` goes through it when the call is on the line being
                    // stepped, else stops at the call; `step` enters it.
                    let call = self.frame0_src_line();
                    let same = match (&call, &start_line) {
                        (Some(c), Some(s)) => c.line == s.line && c.file == s.file,
                        _ => false,
                    };
                    if kind == StepKind::Into {
                        if same {
                            self.unskip_inline();
                        }
                        return Ok(Outcome::Done {
                            new_function: self.frame0_identity() != start_id,
                        });
                    }
                    if same {
                        continue;
                    }
                    return Ok(Outcome::Done {
                        new_function: false,
                    });
                }
                if now_id != start_id && self.frame0_inlined_from(&start_id) {
                    // Inside an inlined call made from the stepping frame.
                    if kind == StepKind::Into {
                        return Ok(Outcome::Done { new_function: true });
                    }
                    continue;
                }
            }
            if self.returned_from(frame_cfa, cfa) {
                // Back in the caller: finish the line we returned into.
                frame_cfa = cfa;
                let Some(r) = self.line_range(pc) else {
                    // Returned into code without lines (e.g. libc's start): keep going out.
                    return self.step_out_of_no_line_function(pc);
                };
                // gdb: the start of a statement stops; the start of a row that is not a
                // statement (optimised code) is stepped through, as the middle of a line is.
                let at_start = self.line_at(pc).is_some_and(|l| l.start == pc && l.is_stmt);
                if at_start {
                    return Ok(Outcome::Done {
                        new_function: self.shows_frame(pc, &start_id, start_fn),
                    });
                }
                range = r;
                self.refresh_step(pc, &mut start_id, &mut start_line);
                continue;
            }
            if let Some(o) = self.stop_if_line_start(pc, &start_line, &mut range)? {
                return Ok(match o {
                    Outcome::Done { .. } => Outcome::Done {
                        new_function: self.shows_frame(pc, &start_id, start_fn),
                    },
                    r => r,
                });
            }
            let now = self.frame0_identity();
            if now.0 == frame_cfa {
                self.refresh_step(pc, &mut start_id, &mut start_line);
            }
        }
    }

    /// gdb's `refresh_step_info` when a step goes on from `pc`, in the middle of a line or
    /// at a line-table entry that is not a statement: the frame and line being stepped become
    /// the current ones, so that (for example) out of an inlined call into the middle of its
    /// caller's line, the rest of that line — the inlined calls made on it included — is
    /// stepped over as part of it. An entry of another line that is not a statement leaves
    /// them as they were in the same frame, and in another frame takes the frame without a
    /// line (any statement of any line then stops the step).
    fn refresh_step(
        &self,
        pc: u64,
        step_id: &mut (Option<u64>, Option<cohort_dwarf::types::DieRef>),
        step_line: &mut Option<crate::source::SrcLine>,
    ) {
        let Some(l) = self.line_at(pc) else {
            return;
        };
        let now = self.frame0_identity();
        let other_line = !step_line
            .as_ref()
            .is_some_and(|s| s.line == l.line && s.file == l.file);
        if l.start == pc && other_line {
            if now != *step_id {
                *step_id = now;
                *step_line = None;
            }
            return;
        }
        *step_id = now;
        *step_line = Some(l);
    }

    /// Whether a step that ended at `pc` shows the frame line before the source line (gdb's
    /// `print_stop_event`: not when the frame is the one being stepped, refreshed on the way,
    /// and the machine function is the one the step started in).
    fn shows_frame(
        &self,
        pc: u64,
        step_id: &(Option<u64>, Option<cohort_dwarf::types::DieRef>),
        start_fn: Option<u64>,
    ) -> bool {
        self.frame0_identity() != *step_id || self.function_start(pc) != start_fn
    }

    /// Run on from `pc` inside the line `range` (the straight-line part at once, a jump or an
    /// instruction outside the line single-stepped): the pc it stopped at, or `None` when
    /// something else happened and was reported.
    fn step_in_range(
        &mut self,
        pc: u64,
        range: (u64, u64),
        kind: StepKind,
        frame_cfa: Option<u64>,
    ) -> Result<Option<u64>> {
        match self.run_straight_line(pc, range, kind, frame_cfa)? {
            Straight::Moved(pc) => Ok(Some(pc)),
            Straight::Reported => Ok(None),
            Straight::SingleStep => {
                let ev = self.session.step_instruction();
                self.flush_messages();
                match ev? {
                    Event::Step { tid, pc } if self.software_watch_after_step(tid, pc)? => Ok(None),
                    Event::Step { pc, .. } | Event::StepBreakpoint { pc, .. } => Ok(Some(pc)),
                    other => {
                        if self.report(other)? {
                            return Ok(None);
                        }
                        // Absorbed (e.g. a breakpoint whose condition is false).
                        Ok(Some(self.session.registers(false)?.pc()))
                    }
                }
            }
        }
    }

    /// Inside the line being stepped, run the instructions that cannot leave it with one
    /// breakpoint instead of a trap per instruction: up to the next jump (which is then
    /// single-stepped), to the end of the range, or — for `next` — over a call to its return
    /// address in this frame.
    fn run_straight_line(
        &mut self,
        pc: u64,
        range: (u64, u64),
        kind: StepKind,
        frame_cfa: Option<u64>,
    ) -> Result<Straight> {
        if pc < range.0 || pc >= range.1 {
            return Ok(Straight::SingleStep);
        }
        let len = (range.1 - pc).min(4096) as usize;
        // Most lines are short: their code is read onto the stack.
        let mut small = [0u8; 256];
        let mut big = Vec::new();
        let code: &mut [u8] = if len <= small.len() {
            &mut small[..len]
        } else {
            big.resize(len, 0);
            &mut big
        };
        if self.session.read_code(pc, code).is_err() {
            return Ok(Straight::SingleStep);
        }
        let arch = self.session.arch();
        // `next` runs through calls too: the breakpoint goes to the first jump after them (or
        // the end of the line), and only counts in this frame (a call may recurse into it).
        // A direct jump needs no trap of its own: breakpoints go where it can lead (its target
        // and, when conditional, the next instruction), unless the target is in the code about
        // to run.
        let mut at = pc;
        let mut through_call = false;
        let targets = loop {
            let off = (at - pc) as usize;
            match next_control_flow(arch, &code[off..], at) {
                None => break vec![range.1],
                Some((a, n, flow::Flow::Call)) if kind != StepKind::Into => {
                    if self.activity.is_some() {
                        let off = (a - pc) as usize;
                        // An MPI call whose peer is an argument: stop at the call first to read
                        // it (then run through from there).
                        if !self.note_call(code.get(off..).unwrap_or_default(), a, a == pc) {
                            break vec![a];
                        }
                    }
                    through_call = true;
                    at = a + n as u64;
                    if at >= range.1 {
                        break vec![at];
                    }
                }
                Some((
                    a,
                    n,
                    flow::Flow::Jump {
                        target,
                        conditional,
                    },
                )) if target < pc || target > a => {
                    let mut t = vec![target];
                    if conditional {
                        t.push(a + n as u64);
                    }
                    break t;
                }
                Some((a, _, _)) if a > pc => break vec![a],
                Some(_) => return Ok(Straight::SingleStep),
            }
        };
        let cfa = if through_call { frame_cfa } else { None };
        // gdb single-steps straight code: a system call there (the return of one whose entry
        // was caught) is no stop. Calls run through are gdb's step over them: caught.
        self.session.set_syscalls_quiet(!through_call);
        let r = self.run_to_any(&targets, cfa);
        self.session.set_syscalls_quiet(false);
        self.clear_activity();
        match r? {
            Some(pc) => Ok(Straight::Moved(pc)),
            None => Ok(Straight::Reported),
        }
    }

    /// With many ranks: name the MPI call a step is about to run through, so that a rank still
    /// inside it when the others have finished is reported as waiting there.
    /// Returns false when the step must first stop at the call (`at_call` false) to read the
    /// call's peer from its arguments.
    fn note_call(&self, code: &[u8], at: u64, at_call: bool) -> bool {
        let Some(slot) = &self.activity else {
            return true;
        };
        let Some(target) = flow::direct_call_target(self.session.arch(), code, at) else {
            return true;
        };
        let Some(name) = self.session.function_at(target).0 else {
            return true;
        };
        let name = name.trim_end_matches("@plt");
        if !(name.starts_with("MPI_") || name.starts_with("PMPI_") || name.starts_with("mpi_")) {
            return true;
        }
        let mut text = name.to_string();
        if let Some((arg, word)) = mpi_peer_argument(name) {
            let arch = self.session.arch();
            let reg = arch.args.get(arg).copied();
            if !at_call {
                if reg.is_some() {
                    return false;
                }
            } else if let (Some(r), Ok(regs)) = (reg, self.session.registers(false))
                && let Some(v) = regs.get(r)
            {
                // An `int`: the low 32 bits, signed; negative values are MPI's wildcards.
                let peer = v as u32 as i32;
                if peer >= 0 {
                    text = format!("{name} {word} {peer}");
                } else if word == "from" {
                    text = format!("{name} from any source");
                }
            }
        }
        if let Ok(mut s) = slot.lock() {
            *s = Some(text);
        }
        true
    }

    /// Like [`Self::note_call`], for a call already entered (stopped at its first instruction).
    fn note_entered(&self, pc: u64) {
        let Some(slot) = &self.activity else { return };
        let Some(name) = self.session.function_at(pc).0 else {
            return;
        };
        let name = name.trim_end_matches("@plt");
        if (name.starts_with("MPI_") || name.starts_with("PMPI_"))
            && let Ok(mut s) = slot.lock()
        {
            *s = Some(name.to_string());
        }
    }

    fn clear_activity(&self) {
        if let Some(slot) = &self.activity
            && let Ok(mut s) = slot.lock()
        {
            *s = None;
        }
    }

    /// The end of the innermost hidden inlined call's code range containing `pc`.
    fn hidden_inline_end(&self, pc: u64) -> Option<u64> {
        let frames = self.frames(1);
        let f = frames.first()?;
        let (_, bias, s) = self.machine_scope_rc(f)?;
        let callee = s.frames.get(f.inline_depth.checked_sub(1)?)?;
        let link = pc.wrapping_sub(bias);
        callee
            .function
            .ranges
            .iter()
            .find(|r| r.contains(&link))
            .map(|r| r.end.wrapping_add(bias))
    }

    /// At `pc`, outside the range being stepped, in the same frame: stop when this is the
    /// start of a statement of another line, else step on through the line we landed in (the
    /// caller then refreshes the step's frame and line: `refresh_step`).
    fn stop_if_line_start(
        &mut self,
        pc: u64,
        start_line: &Option<crate::source::SrcLine>,
        range: &mut (u64, u64),
    ) -> Result<Option<Outcome>> {
        // gdb stops at the start of a statement of a different line (or file); another entry
        // of the line it is stepping (e.g. a `for` loop's condition) is stepped through.
        let same_line = |l: &crate::source::SrcLine| {
            start_line
                .as_ref()
                .is_some_and(|s| s.line == l.line && s.file == l.file)
        };
        match self.line_at(pc) {
            Some(l) if l.line != 0 && l.start == pc && l.is_stmt && !same_line(&l) => {
                Ok(Some(Outcome::Done {
                    new_function: false,
                }))
            }
            Some(_) => {
                if let Some(r) = self.line_range(pc) {
                    *range = r;
                }
                Ok(None)
            }
            None => {
                // Left the code with line info without a call or return (a jump into a
                // function without lines): stop, as gdb does at a pc without a line.
                Ok(Some(Outcome::Done { new_function: true }))
            }
        }
    }

    /// The dynamic linker's object (named by the program's `PT_INTERP`, a link to it).
    fn linker_object(&self) -> Option<Arc<ObjectFile>> {
        let syms = self.session.symbols();
        let interp = std::fs::canonicalize(syms.main()?.file.interp()?).ok()?;
        syms.libraries()
            .iter()
            .find(|o| {
                o.file.path == interp
                    || std::fs::canonicalize(&o.file.path).ok() == Some(interp.clone())
            })
            .map(|o| o.file.clone())
    }

    /// Whether `pc` is in a PLT stub or in the dynamic linker `linker` (whose resolver a
    /// lazily bound PLT stub goes through on its first call).
    fn in_trampoline(&self, pc: u64, linker: Option<&Arc<ObjectFile>>) -> bool {
        let Some(obj) = self.session.symbols().object_containing(pc) else {
            return false;
        };
        linker.is_some_and(|l| Arc::ptr_eq(l, &obj.file))
            || obj
                .file
                .section_containing(pc.wrapping_sub(obj.bias))
                .is_some_and(|s| s.name.starts_with(".plt"))
    }

    /// Single-step out of a PLT stub and the dynamic linker's resolver to the function they
    /// lead to (its first instruction). `None` when something else was reported.
    fn step_through_trampoline(
        &mut self,
        mut pc: u64,
        linker: Option<&Arc<ObjectFile>>,
    ) -> Result<Option<u64>> {
        // The resolver runs a few thousand instructions on a first call; a stub alone, two.
        let mut budget = 200_000;
        while budget > 0 && self.in_trampoline(pc, linker) {
            budget -= 1;
            let ev = self.session.step_instruction();
            self.flush_messages();
            pc = match ev? {
                Event::Step { pc, .. } | Event::StepBreakpoint { pc, .. } => pc,
                other => {
                    if self.report(other)? {
                        return Ok(None);
                    }
                    self.session.registers(false)?.pc()
                }
            };
        }
        Ok(Some(pc))
    }

    /// `step`/`next` in a function without line info: gdb runs until it returns to code with
    /// lines ("Single stepping until exit from function …").
    fn step_out_of_no_line_function(&mut self, pc: u64) -> Result<Outcome> {
        let name = self
            .session
            .function_at(pc)
            .0
            .unwrap_or_else(|| "??".into());
        out(format!(
            "Single stepping until exit from function {name},\nwhich has no line number information."
        ));
        let frame_cfa = self.cfa_of_frame0();
        let Some(ret) = self.return_address_of_frame0() else {
            return Err(EngineError::Other(
                "Cannot find bounds of current function".into(),
            ));
        };
        match self.run_to(ret, frame_cfa.map(|c| c + 1))? {
            Some(_) => {}
            None => return Ok(Outcome::Reported),
        }
        let pc = self.session.registers(false)?.pc();
        match self.line_at(pc) {
            Some(l) if l.start == pc => Ok(Outcome::Done { new_function: true }),
            Some(_) => {
                // Mid-line in the caller: finish that line like gdb.
                self.step_once(StepKind::Over).map(|o| match o {
                    Outcome::Done { .. } => Outcome::Done { new_function: true },
                    r => r,
                })
            }
            None => Ok(Outcome::Done { new_function: true }),
        }
    }

    /// Run (all threads) until the current thread reaches `addr` with its frame 0 CFA above
    /// `outer_than` (when given: the frame we wait for is the one whose CFA is at least
    /// that). Returns `Some(pc)` when reached, `None` when something else was reported.
    pub(crate) fn run_to(&mut self, addr: u64, frame_cfa: Option<u64>) -> Result<Option<u64>> {
        self.run_to_any(&[addr], frame_cfa)
    }

    pub(crate) fn run_to_any(
        &mut self,
        addrs: &[u64],
        frame_cfa: Option<u64>,
    ) -> Result<Option<u64>> {
        // In a recursive call the same return address is reached by inner frames first: only
        // the frame we wait for counts.
        self.run_until(addrs, |d, _| {
            frame_cfa.is_none_or(|want| d.cfa_of_frame0().is_none_or(|c| c >= want))
        })
    }

    /// Run (all threads) until the current thread reaches one of `addrs` where `accept`
    /// (given the pc) agrees. Returns `Some(pc)` then, `None` when something else was
    /// reported.
    pub(crate) fn run_until(
        &mut self,
        addrs: &[u64],
        accept: impl Fn(&Self, u64) -> bool,
    ) -> Result<Option<u64>> {
        let tid = self
            .session
            .current_thread()
            .ok_or(EngineError::NotRunning)?;
        for &a in addrs {
            self.session.set_step_breakpoint(a)?;
        }
        let result = loop {
            let ev = self.cont_watched(addrs);
            self.flush_messages();
            let ev = match ev {
                Ok(e) => e,
                Err(e) => {
                    let _ = self.session.clear_step_breakpoints();
                    return Err(e);
                }
            };
            match ev {
                // The CUDA driver's initialisation point (a load hook), not the place run to.
                ev @ Event::StepBreakpoint { pc, .. }
                    if self.session.load_hook_at(pc).is_some() =>
                {
                    if self.report(ev)? {
                        break None;
                    }
                }
                // `finish` out of a function called from an expression: back in its dummy
                // frame (put back by the caller, after it read the value returned).
                Event::CallReturned { tid: t, pc } if t == tid && addrs.contains(&pc) => {
                    break Some(pc);
                }
                Event::StepBreakpoint { tid: t, pc } => {
                    if t != tid {
                        continue;
                    }
                    self.invalidate_frames();
                    if !accept(self, pc) {
                        continue;
                    }
                    break Some(pc);
                }
                other => {
                    let stop_pc = match &other {
                        Event::Breakpoint { pc, tid: t, .. } if *t == tid => Some(*pc),
                        _ => None,
                    };
                    // A user breakpoint at the very place we run to ends the run there, and is
                    // reported as a breakpoint.
                    if self.report(other)? {
                        let _ = stop_pc;
                        break None;
                    }
                }
            }
        };
        self.session.clear_step_breakpoints()?;
        Ok(result)
    }

    /// `finish`: run until the selected frame returns; print the caller's location and the
    /// value returned.
    pub(crate) fn cmd_finish(&mut self) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::NotRunning);
        }
        let frames = self.frames(usize::MAX);
        let sel = self.selected_frame();
        // A tail caller has no return address of its own: the function returns to the
        // machine caller.
        let Some(caller) = frames
            .iter()
            .skip(sel + 1)
            .find(|f| f.kind != cohort_unwind::FrameKind::TailCall)
        else {
            return Err(EngineError::Other(
                "\"finish\" not meaningful in the outermost frame.".into(),
            ));
        };
        let Some(frame) = frames.get(sel) else {
            return Err(EngineError::NotRunning);
        };
        if frame.kind == cohort_unwind::FrameKind::Dummy {
            // Out of a dummy frame: the called function returns to it, the thread is put
            // back, silently.
            if self.from_tty {
                out(format!(
                    "Run till exit from {}",
                    self.frame_description(frame, sel, true)
                ));
            }
            loop {
                let ev = self.cont_watched(&[]);
                self.flush_messages();
                if self.report(ev?)? {
                    return Ok(Flow::Go);
                }
            }
        }
        let to_dummy = caller.kind == cohort_unwind::FrameKind::Dummy;
        if let Some((s, k)) = self.frame_scopes(frame)
            && s.frames.get(k).is_some_and(|fs| fs.inlined)
            && let Some(up) = frames.get(sel + 1)
        {
            let from = StepFrom {
                id: self.frame_identity(up),
                line: None,
                range: (frame.pc(), frame.pc()),
                cfa: frame.cfa,
                function: None,
            };
            return self.finish_inline(from);
        }
        // gdb says this only to the user at the terminal (from_tty).
        if self.from_tty {
            out(format!(
                "Run till exit from {}",
                self.frame_description(frame, sel, true)
            ));
        }
        let ret_addr = caller.pc();
        let callee_cfa = frame.cfa;
        // gdb looks the function up at the frame's pc, for a tail-call frame the address after
        // its jump: past the function when the jump is its last instruction (no value shown).
        let function = match frame.kind {
            cohort_unwind::FrameKind::TailCall => self.function_die_at(frame.pc()),
            _ => self.function_die_at(frame.lookup_pc()),
        };
        // The caller's frame, above the finished one: in a recursion the same return address
        // is first reached by an inner call returning into the finished frame itself.
        match self.run_to(ret_addr, callee_cfa.map(|c| c + 1))? {
            Some(_) => {}
            None => return Ok(Flow::Go),
        }
        self.select_frame(0);
        if to_dummy {
            // Back in the dummy frame of a function called from an expression: the value it
            // returned, then the thread put back as it was before the call (gdb pops the
            // dummy frame before it shows the stop).
            let value = match &function {
                Some(f) => self.return_value(f)?,
                None => None,
            };
            let tid = self
                .session
                .current_thread()
                .ok_or(EngineError::NotRunning)?;
            self.session.pop_call_dummy(tid)?;
            self.invalidate_frames();
            self.print_stop_frame();
            self.print_returned(value);
            return Ok(Flow::Go);
        }
        let pc = self.session.registers(false)?.pc();
        self.print_frame_header(pc, true);
        self.print_source_line_at(pc);
        // gdb shows the displays before the value returned.
        self.do_displays();
        self.displays_done = true;
        if let Some(f) = function {
            self.print_return_value(&f)?;
        }
        Ok(Flow::Go)
    }

    /// `finish` out of an inlined call: gdb steps over calls with the call's caller as the
    /// step frame, no line and an empty range, and reports the stop with its frame.
    fn finish_inline(&mut self, from: StepFrom) -> Result<Flow> {
        if let Outcome::Done { .. } = self.step_from(StepKind::Over, from)? {
            self.select_frame(0);
            self.print_stop_frame();
        }
        Ok(Flow::Go)
    }

    /// `until LOCATION` / `advance LOCATION` (gdb's `until_break_command`): run until the
    /// location is reached or the current frame returns to its caller. `until` stops at the
    /// location only in the current frame; `advance` in any.
    pub(crate) fn cmd_advance(&mut self, arg: &str, is_until: bool) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::NotRunning);
        }
        if arg.trim().is_empty() {
            return Err(EngineError::Other("Argument required (a location).".into()));
        }
        let locs = self.resolve_location(arg.trim())?;
        let frames = self.frames(2);
        let cfa = frames.first().and_then(|f| f.cfa);
        let caller = frames.get(1).map(|c| (c.pc(), c.cfa));
        let mut addrs = locs.clone();
        if let Some((pc, _)) = caller {
            addrs.push(pc);
        }
        let accept = |d: &Self, pc: u64| {
            let now = d.cfa_of_frame0();
            (locs.contains(&pc) && (!is_until || now == cfa))
                || caller.is_some_and(|(cpc, ccfa)| cpc == pc && now == ccfa)
        };
        match self.run_until(&addrs, accept)? {
            Some(_) => {}
            None => return Ok(Flow::Go),
        }
        self.select_frame(0);
        let pc = self.session.registers(false)?.pc();
        self.print_frame_header(pc, false);
        self.print_source_line_at(pc);
        Ok(Flow::Go)
    }

    /// `nexti`: `stepi` that steps over calls.
    pub(crate) fn cmd_nexti(&mut self, arg: &str) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(EngineError::NotRunning);
        }
        let n = crate::debugger::parse_count(arg)?;
        let mut before = (None, None);
        for _ in 0..n {
            before = self.step_frame_id();
            let cfa = before.1;
            let ev = self.session.step_instruction();
            self.flush_messages();
            match ev? {
                Event::Step { .. } | Event::StepBreakpoint { .. } => {}
                other => {
                    if self.report(other)? {
                        return Ok(Flow::Go);
                    }
                }
            }
            self.invalidate_frames();
            let now = self.cfa_of_frame0();
            if self.stepped_into_subroutine(cfa, now)
                && let Some(ret) = self.return_address_of_frame0()
                && self.run_to(ret, cfa)?.is_none()
            {
                return Ok(Flow::Go);
            }
        }
        self.print_stepi_stop(before);
        Ok(Flow::Go)
    }

    /// gdb's frame id of frame 0 for stepping: (function start, CFA).
    pub(crate) fn step_frame_id(&self) -> (Option<u64>, Option<u64>) {
        self.invalidate_frames();
        (self.function_start(self.frame0_pc()), self.cfa_of_frame0())
    }

    /// The stop report after `stepi`/`nexti`: the source line alone (with the address
    /// mid-line) when the last instruction stepped stayed in the frame it started in (`before`,
    /// from [`Self::step_frame_id`]), else the frame line and the source line; then displays.
    pub(crate) fn print_stepi_stop(&mut self, before: (Option<u64>, Option<u64>)) {
        self.select_frame(0);
        let now = self.step_frame_id();
        let pc = self.frame0_pc();
        if now == before && self.line_at(pc).is_some_and(|l| l.line != 0) {
            self.print_stop_location(pc);
        } else {
            self.print_stop_frame();
        }
        self.do_displays();
    }

    /// Whether frame 0, with CFA `now`, is a subroutine called from the frame whose CFA was
    /// `before`.
    fn stepped_into_subroutine(&self, before: Option<u64>, now: Option<u64>) -> bool {
        match (before, now) {
            (Some(b), Some(n)) if n < b => {
                // The caller of the new frame must be the old frame.
                let frames = self.frames(2);
                crate::source::machine_caller(&frames, 0)
                    .and_then(|j| frames.get(j))
                    .and_then(|f| f.cfa)
                    == Some(b)
            }
            _ => false,
        }
    }

    fn returned_from(&self, before: Option<u64>, now: Option<u64>) -> bool {
        matches!((before, now), (Some(b), Some(n)) if n > b)
    }
}
