//! Stack commands (`backtrace`, `frame`, `up`, `down`, `info frame`).

use cohort_dwarf::format::FormatOptions;
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

impl Debugger {
    fn require_stack(&self) -> Result<()> {
        if !self.session.is_running() {
            return Err(EngineError::Other("No stack.".into()));
        }
        Ok(())
    }

    /// `backtrace [full] [N|-N]`.
    pub(crate) fn cmd_backtrace(&mut self, arg: &str) -> Result<Flow> {
        self.require_stack()?;
        let mut full = false;
        let mut count: Option<i64> = None;
        for w in arg.split_whitespace() {
            match w {
                "full" | "-full" => full = true,
                n => {
                    count = Some(n.parse().map_err(|_| {
                        EngineError::Other(format!("No symbol \"{n}\" in current context."))
                    })?)
                }
            }
        }
        let frames = self.frames(usize::MAX);
        let total = frames.len();
        let (from, to) = match count {
            Some(n) if n >= 0 => (0, (n as usize).min(total)),
            Some(n) => (total.saturating_sub(n.unsigned_abs() as usize), total),
            None => (0, total),
        };
        for i in from..to {
            out(self.describe_frame(&frames, i, true));
            if full {
                self.print_frame_locals(&frames, i);
            }
        }
        // gdb says "(More stack frames follow...)" only to a terminal (from_tty).
        Ok(Flow::Go)
    }

    fn print_frame_locals(&self, frames: &std::rc::Rc<Vec<cohort_unwind::Frame>>, i: usize) {
        let Some(frame) = frames.get(i) else { return };
        let Some((d, _, scope)) = self.scope_of(frame) else {
            out("No symbol table info available.");
            return;
        };
        let Some(fs) = scope.innermost() else { return };
        let locals = fs.locals();
        if locals.is_empty() {
            out("No locals.");
            return;
        }
        // gdb's `print_variable_and_value` at `recurse` 4 (its indentation).
        let opts = FormatOptions {
            type_prefix: false,
            recurse: 4,
            ..FormatOptions::default()
        };
        for v in locals {
            let s = self.listed_value(&d, v, frames, i, &opts);
            out(format!("        {} = {s}", v.name));
        }
    }

    /// Print the selected frame the way `frame`/`up`/`down` do: its line and its source.
    pub(crate) fn print_selected_frame(&self) {
        let frames = self.frames(usize::MAX);
        let i = self.selected_frame();
        out(self.describe_frame(&frames, i, true));
        if let Some(f) = frames.get(i)
            && let Some(l) = self.frame_src_line(f)
            && l.line != 0
        {
            self.print_source_line(&l.file, &l.name, l.line, f.lookup_pc());
        }
    }

    /// `frame [N | level N | function NAME | address ADDR]`.
    pub(crate) fn cmd_frame(&mut self, arg: &str) -> Result<Flow> {
        let a = arg.trim();
        if !a.is_empty() && !self.session.is_running() {
            // gdb looks for frame N in the registers.
            return Err(EngineError::Other("No registers.".into()));
        }
        self.require_stack()?;
        if let Some(n) = self.frame_spec(a)? {
            self.select_frame(n);
        }
        self.print_selected_frame();
        Ok(Flow::Go)
    }

    /// `select-frame SPEC`: as `frame SPEC`, silently.
    pub(crate) fn cmd_select_frame(&mut self, arg: &str) -> Result<Flow> {
        let a = arg.trim();
        if !a.is_empty() && !self.session.is_running() {
            return Err(EngineError::Other("No registers.".into()));
        }
        self.require_stack()?;
        if let Some(n) = self.frame_spec(a)? {
            self.select_frame(n);
        }
        Ok(Flow::Go)
    }

    /// The frame a gdb frame specification names (`N`, `level N`, `function NAME`,
    /// `address STACK-ADDRESS`, the address being the frame's CFA as `info frame` shows it);
    /// `None` for none (the selected frame).
    pub(crate) fn frame_spec(&mut self, spec: &str) -> Result<Option<usize>> {
        let spec = spec.trim();
        if spec.is_empty() {
            return Ok(None);
        }
        let (word, rest) = spec
            .split_once(char::is_whitespace)
            .map_or((spec, ""), |(w, r)| (w, r.trim()));
        let required = || EngineError::Other("Argument required (expression to compute).".into());
        match word {
            "function" => {
                if rest.is_empty() {
                    return Err(EngineError::Other("Missing function name argument".into()));
                }
                let frames = self.frames(usize::MAX);
                let found = frames
                    .iter()
                    .position(|f| self.frame_function_name(f).0.as_deref() == Some(rest));
                match found {
                    Some(n) => Ok(Some(n)),
                    None if self.session.symbols().lookup(rest).is_none() => Err(
                        EngineError::Other(format!("Function \"{rest}\" not defined.")),
                    ),
                    None => Err(EngineError::Other(format!(
                        "No frame for function \"{rest}\"."
                    ))),
                }
            }
            "address" => {
                if rest.is_empty() {
                    return Err(required());
                }
                let addr = self.evaluate_long(rest)? as u64;
                let frames = self.frames(usize::MAX);
                match frames.iter().position(|f| f.cfa == Some(addr)) {
                    Some(n) => Ok(Some(n)),
                    // gdb names the address as typed.
                    None => Err(EngineError::Other(format!("No frame at address {rest}."))),
                }
            }
            "level" if rest.is_empty() => Err(required()),
            "level" => self.frame_level(rest).map(Some),
            _ => self.frame_level(spec).map(Some),
        }
    }

    /// Frame `text` (a level) of the stack: gdb's "No frame at level N." past its end.
    fn frame_level(&mut self, text: &str) -> Result<usize> {
        let n: usize = text
            .parse()
            .map_err(|_| EngineError::Other(format!("No symbol \"{text}\" in current context.")))?;
        if n >= self.frames(usize::MAX).len() {
            return Err(EngineError::Other(format!("No frame at level {text}.")));
        }
        Ok(n)
    }

    /// `up [N]` (`dir` 1) and `down [N]` (`dir` -1).
    pub(crate) fn cmd_up(&mut self, arg: &str, dir: i64) -> Result<Flow> {
        self.require_stack()?;
        let explicit = !arg.trim().is_empty();
        let n: i64 = if !explicit {
            1
        } else {
            arg.trim().parse().map_err(|_| {
                EngineError::Other(format!("No symbol \"{}\" in current context.", arg.trim()))
            })?
        };
        let frames = self.frames(usize::MAX);
        let cur = self.selected_frame() as i64;
        let want = cur + dir * n;
        let last = frames.len().saturating_sub(1) as i64;
        // gdb: a bare `up`/`down` that cannot move all the way is an error; with a count it
        // goes as far as it can.
        if !explicit && want < 0 {
            return Err(EngineError::Other(
                "Bottom (innermost) frame selected; you cannot go down.".into(),
            ));
        }
        if !explicit && want > last {
            return Err(EngineError::Other(
                "Initial frame selected; you cannot go up.".into(),
            ));
        }
        self.select_frame(want.clamp(0, last) as usize);
        self.print_selected_frame();
        Ok(Flow::Go)
    }
}

impl Debugger {
    /// `info frame [SPEC]`: the common fields gdb shows for the selected frame, or the one
    /// SPEC names (see [`Debugger::frame_spec`]; it stays unselected).
    pub(crate) fn cmd_info_frame(&mut self, spec: &str) -> Result<Flow> {
        if !spec.trim().is_empty() && !self.session.is_running() {
            return Err(EngineError::Other("No registers.".into()));
        }
        self.require_stack()?;
        let named = self.frame_spec(spec)?;
        let frames = self.frames(usize::MAX);
        let i = named.unwrap_or_else(|| self.selected_frame());
        let Some(frame) = frames.get(i) else {
            return Err(EngineError::Other("No stack.".into()));
        };
        let cfa = frame.cfa.unwrap_or(0);
        if named.is_some() {
            out(format!("Stack frame at {cfa:#x}:"));
        } else {
            out(format!("Stack level {i}, frame at {cfa:#x}:"));
        }
        let arch = frame.regs.arch;
        let pc_name = arch.regs.get(arch.pc).map(|r| r.name).unwrap_or("pc");
        if frame.kind == cohort_unwind::FrameKind::Dummy {
            // gdb's dummy frame: no function, no arguments; its caller's registers are the
            // ones saved at the call.
            let mut l1 = format!(" {pc_name} = {:#x}", frame.pc());
            if let Some(c) = frames.get(i + 1) {
                l1.push_str(&format!("; saved {pc_name} = {:#x}", c.pc()));
            }
            out(l1);
            let mut rel = Vec::new();
            if let Some(c) = frames.get(i + 1) {
                rel.push(format!("called by frame at {:#x}", c.cfa.unwrap_or(0)));
            }
            if let Some(c) = i.checked_sub(1).and_then(|k| frames.get(k)) {
                rel.push(format!("caller of frame at {:#x}", c.cfa.unwrap_or(0)));
            }
            if !rel.is_empty() {
                out(format!(" {}", rel.join(", ")));
            }
            out(" Arglist at unknown address.");
            let sp = frames.get(i + 1).map_or(0, |c| c.sp());
            out(format!(
                " Locals at unknown address, Previous frame's sp is {sp:#x}"
            ));
            return Ok(Flow::Go);
        }
        let lookup = frame.lookup_pc();
        let (fname, _) = self.frame_function_name(frame);
        let mut l1 = format!(" {pc_name} = {:#x}", frame.pc());
        if let Some(n) = &fname {
            l1.push_str(&format!(" in {n}"));
        }
        if let Some(l) = self.frame_src_line(frame)
            && l.line != 0
        {
            l1.push_str(&format!(" ({}:{})", l.name, l.line));
        }
        // gdb's `frame_unwind_caller_pc`: past this frame if it is an inlined call or a tail
        // call (and the ones it stands in), the pc of the next frame out (past main too).
        let artificial = |f: &cohort_unwind::Frame| {
            f.kind == cohort_unwind::FrameKind::TailCall || self.is_inlined_frame(f)
        };
        let mut j = i;
        while j + 1 < frames.len() && artificial(&frames[j]) {
            j += 1;
        }
        let caller_pc = match frames.get(j + 1) {
            Some(c) => Some(c.pc()),
            None => self.machine_caller_pc(&frames[j]),
        };
        if let Some(pc) = caller_pc {
            l1.push_str(&format!("; saved {pc_name} = {pc:#x}"));
        }
        out(l1);
        let inlined = self.is_inlined_frame(frame);
        let tail = frame.kind == cohort_unwind::FrameKind::TailCall;
        let mut rel = Vec::new();
        if tail {
            rel.push("tail call frame".to_string());
        } else if inlined {
            rel.push(format!("inlined into frame {}", i + 1));
        } else if let Some(c) = frames.get(i + 1) {
            rel.push(format!("called by frame at {:#x}", c.cfa.unwrap_or(0)));
        }
        if i > 0
            && let Some(c) = frames.get(i - 1)
        {
            rel.push(format!("caller of frame at {:#x}", c.cfa.unwrap_or(0)));
        }
        if !rel.is_empty() {
            out(format!(" {}", rel.join(", ")));
        }
        if self.line_at(lookup).is_some() {
            // The language of the frame's unit (not `set language`), as gdb's symtab gives it.
            let lang = self
                .debug_for(lookup)
                .and_then(|(d, bias)| {
                    let u = d.unit_for_pc(lookup.wrapping_sub(bias))?;
                    Some(cohort_dwarf::scopes::unit_language(&d, u))
                })
                .unwrap_or(cohort_dwarf::format::Language::C);
            out(format!(" source language {}.", lang.name()));
        }
        if inlined || tail {
            let sp_name = arch.regs.get(arch.sp).map(|r| r.name).unwrap_or("sp");
            out(" Arglist at unknown address.");
            out(format!(
                " Locals at unknown address, Previous frame's sp in {sp_name}"
            ));
            return Ok(Flow::Go);
        }
        let base = self
            .amd64_frame_base(frame)
            .unwrap_or_else(|| cfa.wrapping_sub(2 * arch.ptr_size as u64));
        let args = self.frame_args(&frames, i);
        if args.is_empty() {
            out(format!(" Arglist at {base:#x}, args: "));
        } else {
            out(format!(" Arglist at {base:#x}, args: {args}"));
        }
        out(format!(
            " Locals at {base:#x}, Previous frame's sp is {cfa:#x}"
        ));
        // Saved registers: where the CFI says each one was stored, in register-table order.
        if let Ok(Some((row, _))) = self.src.unwinder.row_for(self.session.symbols(), lookup) {
            let mut saved = Vec::new();
            for r in arch.regs {
                let Some(n) = r.dwarf else { continue };
                // The pc of a tail caller is computed, not saved anywhere (gdb lists none).
                if n == row.return_address
                    && frames
                        .get(i + 1)
                        .is_some_and(|c| c.kind == cohort_unwind::FrameKind::TailCall)
                {
                    continue;
                }
                let rule = if n == row.return_address {
                    row.rule(n).cloned().or(Some(cohort_unwind::RegRule::Offset(
                        -(arch.ptr_size as i64),
                    )))
                } else {
                    row.rule(n).cloned()
                };
                if let Some(cohort_unwind::RegRule::Offset(off)) = rule {
                    saved.push(format!("{} at {:#x}", r.name, cfa.wrapping_add(off as u64)));
                }
            }
            if !saved.is_empty() {
                out(" Saved registers:");
                out(format!("  {}", saved.join(", ")));
            }
        }
        Ok(Flow::Go)
    }

    /// Whether `frame` stands for an inlined call (gdb's `INLINE_FRAME`).
    fn is_inlined_frame(&self, frame: &cohort_unwind::Frame) -> bool {
        self.scope_of(frame)
            .and_then(|(_, _, s)| s.innermost().map(|f| f.inlined))
            .unwrap_or(false)
    }

    /// gdb's x86-64 frame base (`amd64_frame_cache`), which `info frame` shows as the
    /// "Arglist" and "Locals" address: `%rbp` once the function's `push %rbp; mov %rsp,%rbp`
    /// has run, else the stack pointer less 8 (plus 8 after the `push %rbp`), as for a
    /// function that keeps no frame pointer (optimised code). `None` on other machines.
    fn amd64_frame_base(&self, frame: &cohort_unwind::Frame) -> Option<u64> {
        let arch = frame.regs.arch;
        if arch.name != "x86-64" {
            return None;
        }
        let sp = frame.regs.get(arch.sp)? as u64;
        let mut offset: i64 = -8;
        let pc = frame.pc();
        if let Some(mut start) = self.function_start(frame.lookup_pc())
            && let Some(mem) = self.session.memory()
        {
            let mut code = [0u8; 8];
            if self
                .session
                .symbols()
                .read_code(mem, start, &mut code)
                .is_ok()
            {
                let mut at = 0;
                // `endbr64`
                if code[..4] == [0xf3, 0x0f, 0x1e, 0xfa] {
                    at = 4;
                    start += 4;
                }
                if pc > start && code[at] == 0x55 {
                    offset += 8;
                    let mov = &code[at + 1..at + 4];
                    if pc > start + 1 && (mov == [0x48, 0x89, 0xe5] || mov == [0x48, 0x8b, 0xec]) {
                        return frame.regs.get(arch.fp).map(|v| v as u64);
                    }
                }
            }
        }
        Some(sp.wrapping_add(offset as u64))
    }

    /// The pc of the machine caller of `frame` even past main (where `bt` stops).
    fn machine_caller_pc(&self, frame: &cohort_unwind::Frame) -> Option<u64> {
        let mem = self.session.memory()?;
        self.src
            .unwinder
            .caller(self.session.symbols(), mem, frame)
            .ok()
            .flatten()
            .map(|c| c.pc())
    }

    pub(crate) fn frame_function_name(
        &self,
        frame: &cohort_unwind::Frame,
    ) -> (Option<String>, Option<String>) {
        if let Some((d, _, s)) = self.scope_of(frame)
            && let Some(f) = s.innermost()
        {
            return (Some(self.function_print_name(&d, &f.function)), None);
        }
        self.session.function_at(frame.lookup_pc())
    }

    /// A function's name in a frame line: gdb's `print_name` without its parameters, or
    /// under `set print demangle off` a C++ function's linkage name (`_Z4stopPN2ns4BaseE`).
    pub(crate) fn function_print_name(
        &self,
        d: &std::sync::Arc<cohort_dwarf::loader::DebugFile>,
        f: &cohort_dwarf::scopes::Function,
    ) -> String {
        if !self.settings.on("print demangle")
            && let Some(l) = &f.linkage_name
            && cohort_dwarf::scopes::unit_language(d, f.unit)
                == cohort_dwarf::format::Language::Cplus
        {
            return l.clone();
        }
        cohort_dwarf::scopes::frame_function_name(d, f)
    }
}
