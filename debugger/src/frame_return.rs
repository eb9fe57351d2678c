//! `return` (pop the selected frame, with an optional value) and `find` (search memory), as
//! gdb's `return_command` and `find_command` do them.

use cohort_dwarf::retval::{ReturnLocation, return_location};
use cohort_dwarf::types::{Encoding, Type, TypeKind};
use cohort_dwarf::value::{Lval, Value};
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, Flow, out};

/// gdb's `SEARCH_CHUNK_SIZE`: memory is searched this many bytes at a time.
const SEARCH_CHUNK: u64 = 16000;

fn other(m: impl Into<String>) -> EngineError {
    EngineError::Other(m.into())
}

/// The text up to the first comma outside brackets and quotes (gdb's
/// `parse_to_comma_and_eval`), and the rest starting at that comma (or empty).
pub(crate) fn split_at_comma(s: &str) -> (&str, &str) {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth <= 0 => return (&s[..i], &s[i..]),
            _ => {}
        }
    }
    (s, "")
}

/// Whether the expression is a cast at its top (gdb's `UNOP_CAST`/`UNOP_CAST_TYPE` first
/// opcode): `(TYPE) EXPR`, the parenthesised part not being the whole expression.
fn is_cast(text: &str) -> bool {
    let t = text.trim();
    if !t.starts_with('(') {
        return false;
    }
    let mut depth = 0;
    for (i, c) in t.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return !t[i + 1..].trim().is_empty();
                }
            }
            _ => {}
        }
    }
    false
}

impl Debugger {
    /// `return [EXPR]`: pop the selected frame and those inner to it, the function returning
    /// EXPR (converted to its return type) to its caller.
    pub(crate) fn cmd_return(&mut self, arg: &str) -> Result<Flow> {
        if !self.session.is_running() {
            return Err(other("No selected frame."));
        }
        let frames = self.frames(usize::MAX);
        let sel = self.selected_frame();
        let frame = frames.get(sel).cloned().ok_or(EngineError::NotRunning)?;
        if let Some(f0) = frames.first()
            && let Some((s, k)) = self.frame_scopes(f0)
            && s.frames.get(k).is_some_and(|fs| fs.inlined)
        {
            return Err(other("Can not force return from an inlined function."));
        }
        let function = self.function_die_at(frame.lookup_pc());
        let name = self
            .frame_function_name(&frame)
            .0
            .filter(|_| function.is_some());
        let mut query_prefix = "";
        let mut value: Option<Value> = None;
        let text = arg.trim();
        if !text.is_empty() {
            let v = self.evaluate(text)?;
            let ty = match &function {
                Some((_, f)) => f.ret.clone().unwrap_or_else(Type::void),
                None if is_cast(text) => v.ty.clone(),
                None => {
                    return Err(other(
                        "Return value type not available for selected stack frame.\n\
                         Please use an explicit cast of the value to return.",
                    ));
                }
            };
            let v = {
                let ctx = self.eval_ctx();
                cohort_dwarf::expr::cast(v, &ty, &ctx)
                    .map_err(|e| EngineError::Other(e.to_string()))?
            };
            if !matches!(ty.strip().kind, TypeKind::Void) {
                match return_location(self.session.arch().name, &ty) {
                    ReturnLocation::Registers(_) => value = Some(v),
                    _ => {
                        query_prefix = "The location at which to store the function's return \
                                        value is unknown.\nIf you continue, the return value \
                                        that you specified will be ignored.\n";
                    }
                }
            }
        }
        if self.from_tty {
            let q = match &name {
                Some(n) => format!("{query_prefix}Make {n} return now? "),
                None => format!("{query_prefix}Make selected stack frame return now? "),
            };
            if !self.query(&q, None) {
                return Err(other("Not confirmed"));
            }
        }
        // The caller, past frames of tail calls (already executed before this frame); past
        // main too, where `backtrace` stops.
        let caller = match frames
            .iter()
            .skip(sel + 1)
            .find(|f| f.kind != cohort_unwind::FrameKind::TailCall)
        {
            Some(c) => c.clone(),
            None if frames.len() > sel + 1 => {
                return Err(other("Can not pop the stack frame."));
            }
            None => {
                let up = self.session.memory().and_then(|mem| {
                    self.src
                        .unwinder
                        .caller(self.session.symbols(), mem, &frame)
                        .ok()
                        .flatten()
                });
                up.ok_or_else(|| other("Only one stack frame."))?
            }
        };
        let tid = self
            .session
            .current_thread()
            .ok_or(EngineError::NotRunning)?;
        let mut regs = self.session.registers(false)?;
        for i in 0..regs.span() {
            if let Some(v) = caller.regs.get(i) {
                regs.set(i, v);
            }
        }
        self.session.process_mut()?.set_registers(tid, &regs)?;
        self.invalidate_frames();
        if let Some(v) = value
            && let ReturnLocation::Registers(parts) =
                return_location(self.session.arch().name, &v.ty)
        {
            let mut writes = Vec::new();
            let mut at = 0usize;
            for (reg, len) in parts {
                let end = (at + len).min(v.bytes.len());
                if at < end {
                    writes.push((reg, 0u64, v.bytes[at..end].to_vec()));
                }
                at += len;
            }
            self.apply_register_writes(writes)?;
        }
        // Back at the dummy frame of a function called from an expression: gdb pops it too
        // (the registers of before the call come back).
        if caller.kind == cohort_unwind::FrameKind::Dummy {
            self.session.pop_call_dummy(tid)?;
        }
        self.invalidate_frames();
        self.select_frame(0);
        if self.from_tty {
            return self.cmd_frame("");
        }
        Ok(Flow::Go)
    }

    /// `find [/SIZE-CHAR] [/MAX-COUNT] START, +LENGTH|END, EXPR1 [, EXPR2 …]`.
    pub(crate) fn cmd_find(&mut self, arg: &str) -> Result<Flow> {
        let mut s = arg.trim_start();
        if s.is_empty() {
            return Err(other("Missing search parameters."));
        }
        let mut size: Option<usize> = None;
        let mut max_count = u64::MAX;
        if let Some(r) = s.strip_prefix('/') {
            let end = r.find([' ', '\t']).unwrap_or(r.len());
            let mut opts = &r[..end];
            while !opts.is_empty() {
                let digits = opts.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    // gdb's atoi: wraps as an int, then widened.
                    max_count = opts[..digits].parse::<i64>().unwrap_or(i64::from(i32::MAX)) as i32
                        as i64 as u64;
                    opts = &opts[digits..];
                    continue;
                }
                size = Some(match opts.as_bytes()[0] {
                    b'b' => 1,
                    b'h' => 2,
                    b'w' => 4,
                    b'g' => 8,
                    _ => return Err(other("Invalid size granularity.")),
                });
                opts = &opts[1..];
            }
            s = r[end..].trim_start();
        }
        let (start_text, r) = split_at_comma(s);
        let start = self.evaluate_address(start_text)?;
        let mut s = r.strip_prefix(',').unwrap_or(r).trim_start();
        let mut len: u64;
        let mut empty = false;
        if let Some(r) = s.strip_prefix('+') {
            let (t, r) = split_at_comma(r);
            let v = self.evaluate_to_comma(t)?;
            let l = self.value_as_long(v)? as i64;
            s = r;
            len = 0;
            if l == 0 {
                out("Empty search range.");
                empty = true;
            } else if l < 0 {
                return Err(other("Invalid length."));
            } else if start.checked_add(l as u64 - 1).is_none() {
                return Err(other("Search space too large."));
            } else {
                len = l as u64;
            }
        } else {
            let (t, r) = split_at_comma(s);
            let end = self.evaluate_address(t)?;
            s = r;
            if start > end {
                return Err(other("Invalid search space, end precedes start."));
            }
            len = (end - start).wrapping_add(1);
            if len == 0 {
                return Err(other(
                    "Overflow in address range computation, choose smaller range.",
                ));
            }
        }
        let mut pattern = Vec::new();
        if !empty {
            s = s.strip_prefix(',').unwrap_or(s);
            loop {
                s = s.trim_start();
                if s.is_empty() {
                    break;
                }
                let (t, r) = split_at_comma(s);
                let v = self.evaluate(t)?;
                match size {
                    Some(n) => {
                        let x = self.value_as_long(v)? as i64;
                        pattern.extend_from_slice(&x.to_le_bytes()[..n]);
                    }
                    None => pattern.extend_from_slice(&v.bytes),
                }
                s = r.strip_prefix(',').unwrap_or(r);
            }
            if pattern.is_empty() {
                return Err(other("Missing search pattern."));
            }
        }
        let mut found = 0u64;
        let mut last = 0u64;
        let mut at = start;
        while !empty && len >= pattern.len() as u64 && found < max_count {
            let Some(hit) = self.search_memory(at, len, &pattern) else {
                break;
            };
            out(self.address_with_symbol(hit));
            found += 1;
            last = hit;
            let step = hit - at + 1;
            len = len.saturating_sub(step);
            at += step;
        }
        let int = Type::base("int", 4, Encoding::Signed);
        let mut conv = self.data.convenience.borrow_mut();
        conv.insert(
            "numfound".into(),
            Value::new(int, (found as i32).to_le_bytes().to_vec(), Lval::None),
        );
        if found > 0 {
            let ptr = Type::pointer_to(Type::void(), self.session.arch().ptr_size as u64);
            conv.insert(
                "_".into(),
                Value::new(ptr, last.to_le_bytes().to_vec(), Lval::None),
            );
        }
        drop(conv);
        match found {
            0 => out("Pattern not found."),
            1 => out("1 pattern found."),
            n => out(format!("{n} patterns found.")),
        }
        Ok(Flow::Go)
    }

    /// gdb's `parse_to_comma_and_eval`: an empty expression is an error, not the last value.
    fn evaluate_to_comma(&mut self, text: &str) -> Result<Value> {
        if text.trim().is_empty() {
            return Err(other("Argument required (expression to compute)."));
        }
        self.evaluate(text)
    }

    /// gdb's `value_as_address` of an expression: a pointer's or integer's value, an
    /// array's or function's address.
    fn evaluate_address(&mut self, text: &str) -> Result<u64> {
        let v = self.evaluate_to_comma(text)?;
        let t = v.ty.strip();
        match &t.kind {
            TypeKind::Function { .. } => v
                .address()
                .ok_or_else(|| other("Attempt to take address of value not located in memory.")),
            _ => Ok(self.value_as_long(v)? as u64),
        }
    }

    /// gdb's `simple_search_memory`: the first address in `[start, start + len)` where
    /// `pattern` is, reading the memory a chunk at a time (a warning and None when some of
    /// it cannot be read).
    fn search_memory(&self, start: u64, len: u64, pattern: &[u8]) -> Option<u64> {
        let plen = pattern.len() as u64;
        let buf_size = (SEARCH_CHUNK + plen - 1).min(len);
        let mut buf = vec![0u8; buf_size as usize];
        if self.session.read_memory(start, &mut buf).is_err() {
            crate::errln!(
                "warning: Unable to access {buf_size} bytes of target memory at {start:#x}, halting search."
            );
            return None;
        }
        let mut start = start;
        let mut len = len;
        loop {
            let n = buf_size.min(len) as usize;
            if let Some(i) = buf[..n].windows(pattern.len()).position(|w| w == pattern) {
                return Some(start + i as u64);
            }
            len = len.saturating_sub(SEARCH_CHUNK);
            if len < plen {
                return None;
            }
            let keep = (buf_size - SEARCH_CHUNK) as usize;
            let read_at = start + SEARCH_CHUNK + keep as u64;
            buf.copy_within(SEARCH_CHUNK as usize..SEARCH_CHUNK as usize + keep, 0);
            let want = (len - keep as u64).min(SEARCH_CHUNK) as usize;
            if self
                .session
                .read_memory(read_at, &mut buf[keep..keep + want])
                .is_err()
            {
                crate::errln!(
                    "warning: Unable to access {want} bytes of target memory at {read_at:#x}, halting search."
                );
                return None;
            }
            start += SEARCH_CHUNK;
        }
    }
}
