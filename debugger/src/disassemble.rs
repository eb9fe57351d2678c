//! `disassemble [/r] [/s] [FUNCTION|ADDRESS]`, as gdb 13 prints it.

use std::path::PathBuf;

use cohort_engine::disasm;
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

/// gdb pads `/r` bytes to this width (x86-64: seven bytes per line, less one).
const RAW_WIDTH: usize = 19;

/// One source block of `/s`: the line-table rows with the same line, in address order.
struct Block {
    start: u64,
    end: u64,
    file: PathBuf,
    name: String,
    line: u32,
}

impl Debugger {
    pub(crate) fn cmd_disassemble(&mut self, arg: &str) -> Result<Flow> {
        let mut raw = false;
        let mut source = false;
        let mut rest = arg.trim();
        while let Some(r) = rest.strip_prefix('/') {
            let end = r.find(char::is_whitespace).unwrap_or(r.len());
            for c in r[..end].chars() {
                match c {
                    'r' | 'b' => raw = true,
                    's' | 'm' => source = true,
                    _ => {
                        return Err(EngineError::Other("Invalid disassembly modifier.".into()));
                    }
                }
            }
            rest = r[end..].trim();
        }
        // `START,END` or `START,+LENGTH`: a range (`FUNC,` is the function).
        if let Some((a, b)) = split_range(rest) {
            if a.trim().is_empty() {
                return Err(EngineError::Other(format!(
                    "A syntax error in expression, near `{}'.",
                    rest.trim_start()
                )));
            }
            if !b.trim().is_empty() {
                return self.disassemble_range(a.trim(), b.trim(), raw, source);
            }
            rest = a.trim();
        }
        let pc = if rest.is_empty() {
            if !self.session.is_running() {
                return Err(EngineError::Other("No frame selected.".into()));
            }
            let frames = self.frames(usize::MAX);
            frames
                .get(self.selected_frame())
                .map(|f| f.pc())
                .ok_or_else(|| EngineError::Other("No frame selected.".into()))?
        } else {
            self.address_of_expr(rest)?
        };
        let Some((name, low, high)) = self.function_bounds(pc) else {
            return Err(EngineError::Other(
                "No function contains specified address.".into(),
            ));
        };
        let mark = if self.session.is_running() {
            self.frames(usize::MAX)
                .get(self.selected_frame())
                .map(|f| f.pc())
        } else {
            None
        };
        let mut code = vec![0u8; (high - low) as usize];
        self.session.read_memory(low, &mut code)?;
        let sym = |a: u64| self.address_symbol(a);
        let insns = disasm::disassemble(self.session.arch(), &code, low, usize::MAX, &sym)?;
        out(format!("Dump of assembler code for function {name}:"));
        let insns: Vec<&disasm::Insn> = insns.iter().collect();
        let line = |i: &disasm::Insn| insn_line(i, mark, raw, &format!(" <+{}>", i.addr - low));
        if source {
            self.dump_with_source(low, high, &insns, &line);
        } else {
            for i in &insns {
                out(line(i));
            }
        }
        out("End of assembler dump.");
        Ok(Flow::Go)
    }

    /// `disassemble START,END` (or `START,+LENGTH`): the instructions that begin in the range,
    /// each named `<FUNCTION+OFFSET>` as gdb names them there.
    fn disassemble_range(&mut self, a: &str, b: &str, raw: bool, source: bool) -> Result<Flow> {
        let start = self.address_of_expr(a)?;
        let end = match b.strip_prefix('+') {
            Some(len) => start.wrapping_add(self.address_of_expr(len)?),
            None => self.address_of_expr(b)?,
        };
        let mark = if self.session.is_running() {
            self.frames(usize::MAX)
                .get(self.selected_frame())
                .map(|f| f.pc())
        } else {
            None
        };
        out(format!(
            "Dump of assembler code from {start:#x} to {end:#x}:"
        ));
        if end > start {
            // The last instruction may end past `end`: read an instruction's length more.
            let len = (end - start).saturating_add(15).min(1 << 20);
            let mut code = vec![0u8; len as usize];
            if self.session.read_memory(start, &mut code).is_err() {
                // What gdb prints before it finds the memory unreadable.
                out(format!("   0x{start:016x}:\t"));
                return Err(EngineError::Memory(start));
            }
            let sym = |x: u64| self.address_symbol(x);
            let insns = disasm::disassemble(self.session.arch(), &code, start, usize::MAX, &sym)?;
            let insns: Vec<&disasm::Insn> = insns.iter().filter(|i| i.addr < end).collect();
            let line = |i: &disasm::Insn| {
                let label = match self.address_symbol(i.addr) {
                    Some(n) if n.contains('+') => format!(" <{n}>"),
                    Some(n) => format!(" <{n}+0>"),
                    None => String::new(),
                };
                insn_line(i, mark, raw, &label)
            };
            if source {
                self.dump_with_source(start, end, &insns, &line);
            } else {
                for i in &insns {
                    out(line(i));
                }
            }
        }
        out("End of assembler dump.");
        Ok(Flow::Go)
    }

    /// `disassemble /s`: the instructions of `low..high` under the source lines they come
    /// from, in address order, with the lines before each not yet shown (gdb's
    /// `do_mixed_source_and_assembly`).
    fn dump_with_source(
        &self,
        low: u64,
        high: u64,
        insns: &[&disasm::Insn],
        line: &dyn Fn(&disasm::Insn) -> String,
    ) {
        let blocks = self.source_blocks(low, high);
        let mut last_file: Option<PathBuf> = None;
        let mut printed_max = 0u32;
        for (bi, b) in blocks.iter().enumerate() {
            if bi > 0 {
                out("");
            }
            if last_file.as_ref() != Some(&b.file) {
                out(format!("{}:", b.name));
                last_file = Some(b.file.clone());
                printed_max = 0;
            }
            // Lines before this one not yet shown and without code of their own here.
            let mut first = b.line;
            if printed_max != 0 && b.line > printed_max + 1 {
                let mut l = b.line - 1;
                while l > printed_max && !blocks.iter().any(|o| o.file == b.file && o.line == l) {
                    l -= 1;
                }
                first = l + 1;
            }
            let text = self.source_text(&b.file);
            for l in first..=b.line {
                match text.as_ref().and_then(|t| t.get(l as usize - 1)) {
                    Some(t) => out(format!("{l}\t{t}")),
                    None => out(format!("{l}\tin {}", b.file.display())),
                }
            }
            printed_max = printed_max.max(b.line);
            for i in insns.iter().filter(|i| i.addr >= b.start && i.addr < b.end) {
                out(line(i));
            }
        }
    }

    /// Name and code range of the function containing `pc` (debug information first, then
    /// the ELF symbol).
    fn function_bounds(&self, pc: u64) -> Option<(String, u64, u64)> {
        if let Some((d, bias)) = self.debug_for(pc)
            && let Some(f) = d.function_containing(pc.wrapping_sub(bias))
            && let (Some(lo), Some(hi)) = (f.low_pc(), f.high_pc())
        {
            // gdb names a C++ function by its physname (`main()`, `geom::total(…)`).
            // (`set print demangle off`: its linkage name.)
            let name = match cohort_dwarf::scopes::unit_language(&d, f.unit) {
                cohort_dwarf::format::Language::Cplus
                    if !self.settings.on("print demangle") && f.linkage_name.is_some() =>
                {
                    f.linkage_name.unwrap_or_default().to_string()
                }
                cohort_dwarf::format::Language::Cplus => {
                    crate::source::physname_of(&d, &f).unwrap_or_else(|| f.name.clone())
                }
                _ => f.name.clone(),
            };
            return Some((name, lo.wrapping_add(bias), hi.wrapping_add(bias)));
        }
        let (obj, sym, _) = self.session.symbols().symbolize_parts(pc)?;
        if sym.size == 0 {
            return None;
        }
        let lo = sym.addr.wrapping_add(obj.bias);
        Some((sym.print_name().to_string(), lo, lo + sym.size))
    }

    /// The line-table blocks of `[low, high)`: consecutive rows of one line merged.
    fn source_blocks(&self, low: u64, high: u64) -> Vec<Block> {
        let mut out: Vec<Block> = Vec::new();
        let mut pc = low;
        while pc < high {
            let Some(l) = self.line_at(pc) else { break };
            let end = l.end.min(high).max(pc + 1);
            match out.last_mut() {
                Some(b) if b.line == l.line && *b.file == *l.file && b.end == l.start.max(pc) => {
                    b.end = end
                }
                _ => out.push(Block {
                    start: pc,
                    end,
                    file: l.file.to_path_buf(),
                    name: l.name.to_string(),
                    line: l.line,
                }),
            }
            pc = end;
        }
        out
    }
}

/// `START,END`: the two sides of the first comma outside parentheses, brackets and quotes.
fn split_range(text: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => return Some((&text[..i], &text[i + 1..])),
            _ => {}
        }
    }
    None
}

/// One instruction as `disassemble` lists it: the `=> ` mark at the selected pc, the address
/// with its `label` (` <+4>`, ` <main+4>`), the raw bytes for `/r`, the text.
fn insn_line(i: &disasm::Insn, mark: Option<u64>, raw: bool, label: &str) -> String {
    let m = if Some(i.addr) == mark { "=> " } else { "   " };
    let mut s = format!("{m}0x{:016x}{label}:\t", i.addr);
    if raw {
        let b: Vec<String> = i.bytes.iter().map(|b| format!("{b:02x}")).collect();
        s.push_str(&format!("{:<RAW_WIDTH$}\t", b.join(" ")));
    }
    s.push_str(&i.text);
    s
}
