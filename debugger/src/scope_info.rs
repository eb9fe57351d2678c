//! `info scope LOCATION` and `info address` of locals: where each variable lives, in gdb's
//! words (`a variable in $rbx`, `static storage at address 0x4024`, or a listing of the DWARF
//! expression: `a complex DWARF expression:` and `     0: DW_OP_fbreg -60`).

use std::sync::Arc;

use cohort_dwarf::R;
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::scopes::{self, VarKind, Variable};
use cohort_engine::arch::ArchInfo;
use cohort_engine::{EngineError, Result};
use gimli::{AttributeValue, Reader, constants as dw};

use crate::debugger::{Debugger, Flow, out};

fn other(m: impl Into<String>) -> EngineError {
    EngineError::Other(m.into())
}

/// gdb's `locexpr_regname`: a DWARF register by its name in the architecture's table.
fn reg_name(arch: &ArchInfo, n: u64) -> String {
    u16::try_from(n)
        .ok()
        .and_then(|n| arch.reg_by_dwarf(n))
        .map(|i| arch.regs[i].name.to_string())
        .unwrap_or_else(|| n.to_string())
}

/// The bytes of an expression attribute (None: a location list or another form).
fn expr_bytes(v: &AttributeValue<R>) -> Option<Vec<u8>> {
    v.exprloc_value()
        .map(|e| e.0.to_slice().map(|s| s.to_vec()).unwrap_or_default())
}

/// A little reader over an expression's bytes.
struct Bytes<'a> {
    b: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn done(&self) -> bool {
        self.at >= self.b.len()
    }
    fn u8(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }
    fn fixed(&mut self, n: usize) -> Option<u64> {
        let s = self.b.get(self.at..self.at + n)?;
        self.at += n;
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(s);
        Some(u64::from_le_bytes(w))
    }
    fn uleb(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            if shift < 64 {
                v |= u64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
    }
    fn sleb(&mut self) -> Option<i64> {
        let mut v = 0i64;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            if shift < 64 {
                v |= i64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                if shift < 64 && b & 0x40 != 0 {
                    v |= -1i64 << shift;
                }
                return Some(v);
            }
        }
    }
}

/// gdb's `disassemble_dwarf_expression`: one line per operation, `  %*lx: NAME OPERANDS`.
fn disassemble(
    arch: &ArchInfo,
    b: &[u8],
    start: usize,
    addr_size: usize,
    indent: usize,
    s: &mut String,
) {
    let mut r = Bytes { b, at: start };
    while !r.done() {
        let at = r.at;
        let Some(op) = r.u8() else { break };
        let name = dw::DwOp(op)
            .static_string()
            .map(str::to_string)
            .unwrap_or_else(|| format!("0x{op:x}"));
        s.push_str(&format!("  {at:>w$x}: {name}", w = indent + 4));
        let ops = (|| -> Option<String> {
            Some(match dw::DwOp(op) {
                dw::DW_OP_addr => format!(" 0x{:x}", r.fixed(addr_size)?),
                dw::DW_OP_const1u => format!(" {}", r.fixed(1)?),
                dw::DW_OP_const1s => format!(" {}", r.fixed(1)? as u8 as i8),
                dw::DW_OP_const2u => format!(" {}", r.fixed(2)?),
                dw::DW_OP_const2s => format!(" {}", r.fixed(2)? as u16 as i16),
                dw::DW_OP_const4u => format!(" {}", r.fixed(4)?),
                dw::DW_OP_const4s => format!(" {}", r.fixed(4)? as u32 as i32),
                dw::DW_OP_const8u => format!(" {}", r.fixed(8)?),
                dw::DW_OP_const8s => format!(" {}", r.fixed(8)? as i64),
                dw::DW_OP_constu | dw::DW_OP_plus_uconst => format!(" {}", r.uleb()?),
                dw::DW_OP_consts | dw::DW_OP_fbreg => format!(" {}", r.sleb()?),
                dw::DW_OP_regx => {
                    let n = r.uleb()?;
                    format!(" {n} [${}]", reg_name(arch, n))
                }
                dw::DW_OP_bregx => {
                    let n = r.uleb()?;
                    let o = r.sleb()?;
                    format!(" register {n} [${}] offset {o}", reg_name(arch, n))
                }
                dw::DW_OP_deref_size | dw::DW_OP_xderef_size | dw::DW_OP_pick => {
                    format!(" {}", r.u8()?)
                }
                dw::DW_OP_skip | dw::DW_OP_bra => {
                    let o = r.fixed(2)? as u16 as i16;
                    format!(" to {}", r.at as i64 + i64::from(o))
                }
                dw::DW_OP_piece => format!(" {} (bytes)", r.uleb()?),
                dw::DW_OP_bit_piece => {
                    let size = r.uleb()?;
                    let off = r.uleb()?;
                    format!(" size {size} offset {off} (bits)")
                }
                dw::DW_OP_implicit_value => {
                    let n = r.uleb()?;
                    r.at += n as usize;
                    format!(" {n}")
                }
                dw::DW_OP_entry_value | dw::DW_OP_GNU_entry_value => {
                    let n = r.uleb()? as usize;
                    let inner = r.b.get(..r.at + n)?;
                    let from = r.at;
                    r.at += n;
                    let mut sub = String::from("\n");
                    disassemble(arch, inner, from, addr_size, indent + 2, &mut sub);
                    // gdb goes on without the operation's newline.
                    sub.pop();
                    sub
                }
                o if (dw::DW_OP_reg0.0..=dw::DW_OP_reg31.0).contains(&o.0) => {
                    format!(" [${}]", reg_name(arch, u64::from(o.0 - dw::DW_OP_reg0.0)))
                }
                o if (dw::DW_OP_breg0.0..=dw::DW_OP_breg31.0).contains(&o.0) => {
                    let off = r.sleb()?;
                    format!(
                        " {off} [${}]",
                        reg_name(arch, u64::from(o.0 - dw::DW_OP_breg0.0))
                    )
                }
                _ => String::new(),
            })
        })();
        match ops {
            Some(o) => s.push_str(&o),
            None => {
                s.push('\n');
                return;
            }
        }
        s.push('\n');
    }
}

/// gdb's `locexpr_describe_location_1` of one expression: a simple description where one
/// fits, else the listing.
fn describe_expr(arch: &ArchInfo, b: &[u8], addr_size: usize, frame_base: Option<&[u8]>) -> String {
    let mut r = Bytes { b, at: 0 };
    let op = b.first().copied().unwrap_or(0);
    let reg = |n: u64| reg_name(arch, n);
    let simple = (|| -> Option<String> {
        let d = if (dw::DW_OP_reg0.0..=dw::DW_OP_reg31.0).contains(&op) {
            r.u8()?;
            format!("a variable in ${}", reg(u64::from(op - dw::DW_OP_reg0.0)))
        } else if op == dw::DW_OP_regx.0 {
            r.u8()?;
            format!("a variable in ${}", reg(r.uleb()?))
        } else if op == dw::DW_OP_fbreg.0 {
            r.u8()?;
            let off = r.sleb()?;
            let fb = frame_base?;
            let mut f = Bytes { b: fb, at: 0 };
            let fop = f.u8()?;
            let (n, base) = if (dw::DW_OP_breg0.0..=dw::DW_OP_breg31.0).contains(&fop) {
                let o = f.sleb()?;
                if !f.done() {
                    return None;
                }
                (u64::from(fop - dw::DW_OP_breg0.0), o)
            } else if (dw::DW_OP_reg0.0..=dw::DW_OP_reg31.0).contains(&fop) {
                (u64::from(fop - dw::DW_OP_reg0.0), 0)
            } else {
                return None;
            };
            format!(
                "a variable at frame base reg ${} offset {base}+{off}",
                reg(n)
            )
        } else if (dw::DW_OP_breg0.0..=dw::DW_OP_breg31.0).contains(&op) {
            r.u8()?;
            let off = r.sleb()?;
            format!(
                "a variable at offset {off} from base reg ${}",
                reg(u64::from(op - dw::DW_OP_breg0.0))
            )
        } else if (dw::DW_OP_lit0.0..=dw::DW_OP_lit31.0).contains(&op)
            && b.get(1) == Some(&dw::DW_OP_stack_value.0)
        {
            r.at = 2;
            format!("the constant {}", op - dw::DW_OP_lit0.0)
        } else {
            return None;
        };
        // Only when the operation is the whole expression (or a piece of it).
        if r.done() { Some(d) } else { None }
    })();
    match simple {
        Some(s) => s,
        None => {
            let mut s = String::from("a complex DWARF expression:\n");
            disassemble(arch, b, 0, addr_size, 0, &mut s);
            s
        }
    }
}

/// A `DW_OP_addr` expression's address (a static variable's, link-time).
fn static_address(b: &[u8], addr_size: usize) -> Option<u64> {
    if b.len() != 1 + addr_size || b[0] != dw::DW_OP_addr.0 {
        return None;
    }
    Bytes { b, at: 1 }.fixed(addr_size)
}

/// One entry of a location list: a base address (Some), or a range and its expression.
type ListEntry = (Option<u64>, u64, u64, Vec<u8>);

/// How a variable is described (gdb's symbol classes): `Static(address)` for a variable
/// at a fixed address (LOC_STATIC), `Const(value)`, `OptimizedOut`, or a computed location's
/// description.
enum Where {
    Static(u64),
    Const(i64),
    OptimizedOut,
    Computed(String),
}

impl Debugger {
    /// Where `var` (of `d`, loaded at `bias`) lives.
    fn variable_where(&self, d: &Arc<DebugFile>, bias: u64, var: &Variable) -> Where {
        let arch = self.session.arch();
        let addr_size = d
            .unit(var.unit)
            .map(|u| usize::from(u.encoding().address_size))
            .unwrap_or(8);
        if let Some(c) = &var.const_value {
            let v = match c {
                AttributeValue::Sdata(i) => *i,
                AttributeValue::Udata(u) => *u as i64,
                AttributeValue::Data1(b) => i64::from(*b),
                AttributeValue::Data2(b) => i64::from(*b),
                AttributeValue::Data4(b) => i64::from(*b),
                AttributeValue::Data8(b) => *b as i64,
                _ => 0,
            };
            return Where::Const(v);
        }
        let Some(loc) = &var.location else {
            return Where::OptimizedOut;
        };
        if let Some(b) = expr_bytes(loc) {
            if let Some(a) = static_address(&b, addr_size) {
                return Where::Static(a.wrapping_add(bias));
            }
            let fb = var.frame_base.as_ref().and_then(expr_bytes);
            return Where::Computed(describe_expr(arch, &b, addr_size, fb.as_deref()));
        }
        // A location list: each range and its location, as gdb's `loclist_describe_location`
        // (a base address entry said as such, empty ranges too).
        let mut s = String::from("multi-location:\n");
        let fb = var.frame_base.as_ref().and_then(expr_bytes);
        let entries = (|| -> Option<Vec<ListEntry>> {
            use gimli::RawLocListEntry as E;
            let unit = d.unit(var.unit).ok()?;
            let offset = match *loc {
                AttributeValue::LocationListsRef(o) => o,
                AttributeValue::SecOffset(o) => gimli::LocationListsOffset(o),
                AttributeValue::DebugLocListsIndex(i) => d.dwarf.locations_offset(unit, i).ok()?,
                _ => return None,
            };
            let mut list = d.dwarf.raw_locations(unit, offset).ok()?;
            let mut base = unit.low_pc;
            let mut v = Vec::new();
            let addr = |i| d.dwarf.address(unit, i).ok();
            while let Ok(Some(raw)) = list.next() {
                let (lo, hi, data) = match raw {
                    E::BaseAddress { addr } => {
                        base = addr;
                        v.push((Some(base), 0, 0, Vec::new()));
                        continue;
                    }
                    E::BaseAddressx { addr: i } => {
                        base = addr(i)?;
                        v.push((Some(base), 0, 0, Vec::new()));
                        continue;
                    }
                    E::AddressOrOffsetPair { begin, end, data }
                    | E::OffsetPair { begin, end, data } => {
                        (base.wrapping_add(begin), base.wrapping_add(end), data)
                    }
                    E::StartEnd { begin, end, data } => (begin, end, data),
                    E::StartLength {
                        begin,
                        length,
                        data,
                    } => (begin, begin.wrapping_add(length), data),
                    E::StartxEndx { begin, end, data } => (addr(begin)?, addr(end)?, data),
                    E::StartxLength {
                        begin,
                        length,
                        data,
                    } => {
                        let b = addr(begin)?;
                        (b, b.wrapping_add(length), data)
                    }
                    E::DefaultLocation { .. } => continue,
                };
                v.push((None, lo, hi, data.0.to_slice().ok()?.to_vec()));
            }
            Some(v)
        })()
        .unwrap_or_default();
        for (base, lo, hi, b) in entries {
            if let Some(base) = base {
                // gdb says the base address as the DWARF has it, not relocated.
                s.push_str(&format!("  Base address {base:#x}"));
                continue;
            }
            s.push_str(&format!(
                "  Range {:#x}-{:#x}: {}\n",
                lo.wrapping_add(bias),
                hi.wrapping_add(bias),
                describe_expr(arch, &b, addr_size, fb.as_deref())
            ));
        }
        Where::Computed(s)
    }

    /// `info address NAME` of a variable visible in the selected frame: Some when one is.
    pub(crate) fn info_address_local(&self, name: &str) -> Option<String> {
        if !self.session.is_running() {
            return None;
        }
        let frames = self.frames(self.selected_frame() + 1);
        let frame = frames.get(self.selected_frame())?;
        let (d, bias) = self.debug_for(frame.lookup_pc())?;
        let (s, k) = self.frame_scopes(frame)?;
        let fs = s.frames.get(k)?;
        let var = fs.lookup(name)?;
        Some(match self.variable_where(&d, bias, var) {
            Where::Static(a) => format!("Symbol \"{name}\" is static storage at address {a:#x}."),
            Where::Const(_) => format!("Symbol \"{name}\" is constant."),
            Where::OptimizedOut => format!("Symbol \"{name}\" is optimized out."),
            Where::Computed(c) => format!("Symbol \"{name}\" is {c}."),
        })
    }

    /// `info scope LOCATION`: the variables of the block at LOCATION and of the blocks around
    /// it, up to the function's.
    pub(crate) fn cmd_info_scope(&mut self, arg: &str) -> Result<Flow> {
        let spec = arg.trim();
        if spec.is_empty() {
            return Err(other(
                "requires an argument (function, line or *addr) to define a scope",
            ));
        }
        let pc = match spec.strip_prefix('*') {
            Some(e) => self.address_of_expr(e.trim())?,
            None => *self
                .resolve_location(spec)?
                .first()
                .ok_or_else(|| other(format!("Function \"{spec}\" not defined.")))?,
        };
        let mut lines = Vec::new();
        if let Some((d, bias)) = self.debug_for(pc)
            && let Ok(Some(scope)) = scopes::scope_at(&d, pc.wrapping_sub(bias))
            && let Some(fs) = scope.innermost()
        {
            let vars = fs
                .blocks
                .iter()
                .rev()
                .flat_map(|b| b.variables.iter())
                .chain(fs.params.iter())
                .chain(fs.body_locals.iter().filter(|v| v.kind != VarKind::Param));
            for v in vars {
                let len = v.ty.byte_size();
                match self.variable_where(&d, bias, v) {
                    Where::OptimizedOut => {
                        lines.push(format!("Symbol {} is optimized out.", v.name));
                    }
                    Where::Static(a) => lines.push(format!(
                        "Symbol {} is in static storage at address {a:#x}, length {len}.",
                        v.name
                    )),
                    Where::Const(c) => lines.push(format!(
                        "Symbol {} is a constant with value {c} ({c:#x}), length {len}.",
                        v.name
                    )),
                    Where::Computed(c) => {
                        lines.push(format!("Symbol {} is {c}, length {len}.", v.name))
                    }
                }
            }
        }
        if lines.is_empty() {
            out(format!("Scope for {spec} contains no locals or arguments."));
        } else {
            out(format!("Scope for {spec}:"));
            for l in lines {
                out(l);
            }
        }
        Ok(Flow::Go)
    }
}
