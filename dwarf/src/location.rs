//! DWARF location expressions: where a variable lives at a frame, and its value.
//!
//! [`variable_value`] is the entry point: it picks the expression for the frame's pc (a single
//! expression, a DWARF 4 `.debug_loc` or DWARF 5 `.debug_loclists` list, or
//! `DW_AT_const_value`), evaluates it with `gimli::Evaluation` against a [`FrameContext`], and
//! makes a [`Value`] of the variable's type (VLA bounds resolved) that lives in memory, in a
//! register, or nowhere (computed, composite or constant).
//!
//! DWARF addresses are link-time; the frame supplies the load bias.

use std::sync::Arc;

use gimli::{AttributeValue, EvaluationResult, Location, Piece, RunTimeEndian, constants as dw};

use crate::R;
use crate::context::Target;
use crate::dietypes::{self, read_die};
use crate::error::{DwarfError, Result};
use crate::loader::DebugFile;
use crate::scopes::{self, Variable};
use crate::types::{
    Bound, BoundSpec, Dim, DimSpec, DynamicBound, Shape, ShapeStatus, Type, TypeKind, TypeRef,
};
use crate::value::{Lval, LvalPiece, PieceAt, Value};

/// What location evaluation needs from one frame of a live (or dumped) program.
pub trait FrameContext: Target {
    /// Runtime pc used for lookup (already pc-1 for caller frames).
    fn pc(&self) -> u64;
    /// Load bias of the object the frame's code belongs to.
    fn bias(&self) -> u64;
    /// A register of this frame by DWARF number (low 64 bits); `None`: not recoverable here.
    fn reg(&self, dwarf_regno: u16) -> Option<u64>;
    /// A register's full contents in target byte order (vector and x87 registers are wider
    /// than 64 bits); the default gives the 8 bytes of [`FrameContext::reg`].
    fn reg_bytes(&self, dwarf_regno: u16) -> Option<Vec<u8>> {
        self.reg(dwarf_regno).map(|v| v.to_le_bytes().to_vec())
    }
    /// A register's contents at `size` bytes where that is wider than [`FrameContext::reg_bytes`]
    /// gives: x86-64's `DW_OP_reg17`…`32` are the whole `ymm` registers where AVX exists (a
    /// 32-byte vector variable). By default [`FrameContext::reg_bytes`].
    fn reg_bytes_wide(&self, dwarf_regno: u16, _size: usize) -> Option<Vec<u8>> {
        self.reg_bytes(dwarf_regno)
    }
    /// Canonical frame address of this frame.
    fn cfa(&self) -> Option<u64>;
    /// Address of `offset` in this object's thread-local storage block, for this thread.
    /// Errors are worded for the user (gdb's "Cannot access thread-local variables in this
    /// context", or why the block does not exist yet).
    fn tls_address(&self, offset: u64) -> Result<u64>;
    /// The calling frame (for `DW_OP_entry_value` through call-site parameters): the next
    /// frame out that is not an inlined call (a tail-call frame is one).
    fn caller(&self) -> Option<&dyn FrameContext>;
    /// gdb's `get_frame_pc`: the return address in a caller (where [`FrameContext::pc`] is
    /// one less), the pc itself where execution stopped.
    fn frame_pc(&self) -> u64 {
        self.pc()
    }
    /// The DWARF of the object this frame's code belongs to; `None`: the one evaluating.
    fn debug_file(&self) -> Option<Arc<DebugFile>> {
        None
    }
    /// The run-time address of the function symbol `name` in any loaded object (a call
    /// site's target declared in one object and defined in another).
    fn function_address(&self, _name: &str) -> Option<u64> {
        None
    }
}

/// The value of `var` in `frame`. A variable with no location at the frame's pc is
/// [`Value::optimized_out`]; an error is about this variable only.
pub fn variable_value(
    file: &Arc<DebugFile>,
    var: &Variable,
    frame: &dyn FrameContext,
) -> Result<Value> {
    Ok(variable_value_parts(file, var, frame)?.value)
}

/// A value some of whose bits the compiler did not keep (a struct split into pieces, some of
/// them empty): gdb prints the members inside those bits as `<optimized out>`.
#[derive(Debug, Clone)]
pub struct PartialValue {
    pub value: Value,
    /// Bit ranges (from the start of the object) that are optimized out; empty when the value
    /// is whole (or wholly optimized out, which `value.optimized_out` says).
    pub optimized_out_bits: Vec<std::ops::Range<u64>>,
}

/// Like [`variable_value`], also saying which bits of a composite are optimized out.
pub fn variable_value_parts(
    file: &Arc<DebugFile>,
    var: &Variable,
    frame: &dyn FrameContext,
) -> Result<PartialValue> {
    let whole = |value| PartialValue {
        value,
        optimized_out_bits: Vec::new(),
    };
    if matches!(
        var.ty.strip().kind,
        TypeKind::DynArray(_) | TypeKind::DynString { .. }
    ) {
        return object_value(file, var, frame).map(whole);
    }
    let ty = resolve_type(file, &var.ty, var, frame)?;
    let size = ty.byte_size();
    let Some(loc) = &var.location else {
        if let Some(cv) = &var.const_value {
            return Ok(whole(Value::new(
                ty,
                const_bytes(file, var.unit, cv, size)?,
                Lval::None,
            )));
        }
        return Ok(whole(Value::optimized_out(ty)));
    };
    let Some(expr) = expression_at(file, var.unit, loc, frame)? else {
        return Ok(whole(Value::optimized_out(ty)));
    };
    let ev = Evaluator::for_variable(file, var, frame);
    // A register or entry value that cannot be recovered in this frame: gdb says
    // `<optimized out>` for the variable.
    let r = ev
        .run(expr.0, None)
        .and_then(|pieces| ev.value_from_pieces(ty.clone(), size, &pieces));
    match r {
        Err(DwarfError::OptimizedOut | DwarfError::NoEntryValue(_)) => {
            Ok(whole(Value::optimized_out(ty)))
        }
        other => other,
    }
}

/// gdb's `x@entry` (`read_variable_at_entry`): the value parameter `var` had on entry to its
/// function (which starts at link-time `entry_pc`), from the caller's call-site parameter for
/// the register the parameter is in at the entry. Optimized out when nothing says where the
/// parameter is at the entry; [`DwarfError::NoEntryValue`] (gdb's message) when the caller or
/// its call site is not known for sure, or the parameter is not in a single register there.
pub fn entry_value_of(
    file: &Arc<DebugFile>,
    var: &Variable,
    entry_pc: u64,
    frame: &dyn FrameContext,
) -> Result<Value> {
    let Some(loc) = &var.location else {
        return Err(DwarfError::user(format!(
            "Symbol \"{}\" does not have any specific entry value",
            var.name
        )));
    };
    let ty = resolve_type(file, &var.ty, var, frame)?;
    let expr = match loc.exprloc_value() {
        Some(e) => e,
        // An empty range at the entry is gdb's entry record (see `expression_at`).
        None => match find_in_list(file, var.unit, loc, entry_pc, &|| true) {
            Ok(Some(e)) => e,
            Ok(None) | Err(DwarfError::Malformed(_)) => return Ok(Value::optimized_out(ty)),
            Err(e) => return Err(e),
        },
    };
    let ev = Evaluator::for_variable(file, var, frame);
    // gdb's `value_of_dwarf_block_entry`: a register (`DW_OP_fbreg` slots are not
    // supported here).
    let reg = match entry_register(expr.0, ev.encoding()?) {
        Some((reg, false)) => reg,
        _ => {
            return Err(DwarfError::NoEntryValue(
                "DWARF-2 expression error: DW_OP_entry_value is supported only for single \
                 DW_OP_reg* or for DW_OP_fbreg(*)"
                    .into(),
            ));
        }
    };
    let size = ty.byte_size() as usize;
    if size == 0 || size > 8 {
        // A call-site value is one DWARF stack value: wider objects are not known this way.
        return Ok(Value::optimized_out(ty));
    }
    let v = ev.entry_parameter_value(reg, false)?;
    let mut b = gimli_value_bytes(v);
    b.resize(size, 0);
    Ok(Value::new(ty, b, Lval::None))
}

/// The register a `DW_OP_entry_value` block names, as gdb reads it: `DW_OP_regN`,
/// `DW_OP_regx` or `DW_OP_regval_type` (the register's value), or `DW_OP_bregN 0;
/// DW_OP_deref[_size]` (the value it points to: `true`).
fn entry_register<RR: gimli::Reader<Offset = usize>>(
    expr: RR,
    enc: gimli::Encoding,
) -> Option<(u16, bool)> {
    let mut ops = gimli::Expression(expr).operations(enc);
    let first = ops.next().ok()??;
    let second = ops.next().ok()?;
    let third = ops.next().ok()?;
    match (first, second, third) {
        (gimli::Operation::Register { register }, None, None) => Some((register.0, false)),
        (
            gimli::Operation::RegisterOffset {
                register,
                offset: 0,
                base_type,
            },
            None,
            None,
        ) if base_type.0 != 0 => Some((register.0, false)),
        (
            gimli::Operation::RegisterOffset {
                register,
                offset: 0,
                base_type,
            },
            Some(gimli::Operation::Deref { space: false, .. }),
            None,
        ) if base_type.0 == 0 => Some((register.0, true)),
        _ => None,
    }
}

/// The name gdb gives the function at run-time `addr` in entry-value messages (its minimal
/// symbol), `???` when none.
fn symbol_name(frame: &dyn FrameContext, addr: u64) -> String {
    match frame.symbol_for(addr) {
        Some(s) => match s.rsplit_once('+') {
            Some((name, off)) if off.bytes().all(|b| b.is_ascii_digit()) => name.to_string(),
            _ => s,
        },
        None => "???".to_string(),
    }
}

fn no_entry(msg: String) -> DwarfError {
    DwarfError::NoEntryValue(msg)
}

/// The address of a global or static variable (link-time address + bias), without reading it.
pub fn variable_address(
    file: &Arc<DebugFile>,
    var: &Variable,
    frame: &dyn FrameContext,
) -> Result<Option<u64>> {
    let Some(loc) = &var.location else {
        return Ok(None);
    };
    let Some(expr) = expression_at(file, var.unit, loc, frame)? else {
        return Ok(None);
    };
    let ev = Evaluator::for_variable(file, var, frame);
    let pieces = ev.run(expr.0, None)?;
    Ok(match pieces.as_slice() {
        [
            Piece {
                location: Location::Address { address },
                size_in_bits: None,
                ..
            },
        ] => Some(*address),
        _ => None,
    })
}

/// The expression of a location attribute that applies at the frame's pc: `Ok(None)` when a
/// location list has no entry for it.
pub fn expression_at(
    file: &Arc<DebugFile>,
    ui: usize,
    loc: &AttributeValue<R>,
    frame: &dyn FrameContext,
) -> Result<Option<gimli::Expression<R>>> {
    if let Some(e) = loc.exprloc_value() {
        return Ok(Some(e));
    }
    let pc = frame.pc().wrapping_sub(frame.bias());
    // gdb: an empty range at the function's entry (GCC's record of the parameters' entry
    // locations, told apart by location views) applies at the entry itself.
    find_in_list(file, ui, loc, pc, &|| is_function_entry(file, pc))
}

/// The expression of location list `loc` (of unit `ui`) whose range holds the link-time `pc`;
/// an empty range at `pc` too when `empty_here` says so (gimli's iterator leaves empty
/// ranges out).
fn find_in_list(
    file: &Arc<DebugFile>,
    ui: usize,
    loc: &AttributeValue<R>,
    pc: u64,
    empty_here: &dyn Fn() -> bool,
) -> Result<Option<gimli::Expression<R>>> {
    let unit = file.unit(ui)?;
    let Some(mut list) = file.dwarf.attr_locations(unit, *loc)? else {
        return Err(DwarfError::Malformed(format!(
            "unsupported location attribute {loc:?}"
        )));
    };
    let mut base = unit.low_pc;
    while let Some(raw) = list.next_raw()? {
        use gimli::RawLocListEntry as E;
        let empty = match &raw {
            E::BaseAddress { addr } => {
                base = *addr;
                None
            }
            E::BaseAddressx { addr } => {
                base = file.dwarf.address(unit, *addr)?;
                None
            }
            E::OffsetPair { begin, end, data } | E::AddressOrOffsetPair { begin, end, data }
                if begin == end =>
            {
                Some((base.wrapping_add(*begin), *data))
            }
            E::StartEnd { begin, end, data } if begin == end => Some((*begin, *data)),
            E::StartLength {
                begin,
                length: 0,
                data,
            } => Some((*begin, *data)),
            E::StartxLength {
                begin,
                length: 0,
                data,
            } => Some((file.dwarf.address(unit, *begin)?, *data)),
            _ => None,
        };
        if let Some((at, data)) = empty {
            if at == pc && empty_here() {
                return Ok(Some(data));
            }
            continue;
        }
        if let Some(entry) = list.convert_raw(raw)?
            && entry.range.begin <= pc
            && pc < entry.range.end
        {
            return Ok(Some(entry.data));
        }
    }
    Ok(None)
}

/// Whether the link-time `pc` is the entry of the (real) function containing it.
fn is_function_entry(file: &Arc<DebugFile>, pc: u64) -> bool {
    matches!(scopes::function_at(file, pc), Ok(Some(f)) if f.block_entry_pc() == pc)
}

/// Bytes of a `DW_AT_const_value` for an object of `size` bytes.
pub(crate) fn const_bytes(
    file: &DebugFile,
    ui: usize,
    v: &AttributeValue<R>,
    size: u64,
) -> Result<Vec<u8>> {
    let size = size as usize;
    let mut out = match v {
        AttributeValue::Block(b) => b.slice().to_vec(),
        AttributeValue::Sdata(i) => i.to_le_bytes().to_vec(),
        AttributeValue::Udata(u) => u.to_le_bytes().to_vec(),
        AttributeValue::Data1(b) => vec![*b],
        AttributeValue::Data2(b) => b.to_le_bytes().to_vec(),
        AttributeValue::Data4(b) => b.to_le_bytes().to_vec(),
        AttributeValue::Data8(b) => b.to_le_bytes().to_vec(),
        other => {
            let unit = file.unit(ui)?;
            match file.dwarf.attr_string(unit, *other) {
                Ok(s) => {
                    let mut v = s.slice().to_vec();
                    v.push(0);
                    v
                }
                Err(_) => {
                    return Err(DwarfError::Malformed(format!(
                        "unsupported DW_AT_const_value {other:?}"
                    )));
                }
            }
        }
    };
    // Sign-extend small signed forms to the object's size.
    let fill = match v {
        AttributeValue::Sdata(i) if *i < 0 => 0xff,
        _ => 0,
    };
    out.resize(size.max(out.len().min(size)), fill);
    out.truncate(size);
    Ok(out)
}

fn gimli_value_bytes(v: gimli::Value) -> Vec<u8> {
    match v {
        gimli::Value::Generic(u) => u.to_le_bytes().to_vec(),
        gimli::Value::I8(x) => x.to_le_bytes().to_vec(),
        gimli::Value::U8(x) => x.to_le_bytes().to_vec(),
        gimli::Value::I16(x) => x.to_le_bytes().to_vec(),
        gimli::Value::U16(x) => x.to_le_bytes().to_vec(),
        gimli::Value::I32(x) => x.to_le_bytes().to_vec(),
        gimli::Value::U32(x) => x.to_le_bytes().to_vec(),
        gimli::Value::I64(x) => x.to_le_bytes().to_vec(),
        gimli::Value::U64(x) => x.to_le_bytes().to_vec(),
        gimli::Value::F32(x) => x.to_le_bytes().to_vec(),
        gimli::Value::F64(x) => x.to_le_bytes().to_vec(),
    }
}

fn gimli_value_u64(v: gimli::Value) -> u64 {
    let b = gimli_value_bytes(v);
    let mut a = [0u8; 8];
    let n = b.len().min(8);
    a[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(a)
}

/// [`Evaluator::verify_no_self_tail_call`]'s answers by (file, function entry, bias): gdb's
/// message when the function can tail-call itself.
static SELF_TAIL_CALLS: std::sync::LazyLock<std::sync::Mutex<SelfTailCalls>> =
    std::sync::LazyLock::new(Default::default);

type SelfTailCalls = std::collections::HashMap<(usize, u64, u64), Option<String>>;

/// What a location evaluation needs, for one variable.
struct Evaluator<'a> {
    file: &'a Arc<DebugFile>,
    unit: usize,
    frame: &'a dyn FrameContext,
    frame_base: Option<&'a AttributeValue<R>>,
    /// Nesting of frame-base / entry-value evaluations (guards against loops in bad DWARF).
    depth: u32,
    /// What `DW_OP_push_object_address` pushes (the object whose array property is asked).
    object_address: Option<u64>,
}

const MAX_EVAL_DEPTH: u32 = 8;

impl<'a> Evaluator<'a> {
    /// An evaluator for the location of `var` in `frame`.
    fn for_variable(
        file: &'a Arc<DebugFile>,
        var: &'a Variable,
        frame: &'a dyn FrameContext,
    ) -> Self {
        Evaluator {
            file,
            unit: var.unit,
            frame,
            frame_base: var.frame_base.as_ref(),
            depth: 0,
            object_address: None,
        }
    }

    fn encoding(&self) -> Result<gimli::Encoding> {
        Ok(self.file.unit(self.unit)?.encoding())
    }

    /// Evaluate `bytes` (an expression of this unit) to its pieces. `push` is an initial stack
    /// value (e.g. the object address).
    fn run<RR: gimli::Reader<Offset = usize>>(
        &self,
        bytes: RR,
        push: Option<u64>,
    ) -> Result<Vec<Piece<RR>>> {
        if self.depth > MAX_EVAL_DEPTH {
            return Err(DwarfError::Malformed(
                "DWARF expression nests too deep".into(),
            ));
        }
        let enc = self.encoding()?;
        let mut eval = gimli::Evaluation::new(bytes, enc);
        if let Some(v) = push {
            eval.set_initial_value(v);
        }
        if let Some(o) = self.object_address {
            eval.set_object_address(o);
        }
        let frame = self.frame;
        let unit = self.file.unit(self.unit)?;
        let mut state = eval.evaluate()?;
        loop {
            state = match state {
                EvaluationResult::Complete => break,
                EvaluationResult::RequiresMemory {
                    address,
                    size,
                    base_type,
                    ..
                } => {
                    let mut buf = vec![0u8; size as usize];
                    frame.read_memory(address, &mut buf)?;
                    eval.resume_with_memory(self.typed_value(&buf, base_type)?)?
                }
                EvaluationResult::RequiresRegister {
                    register,
                    base_type,
                } => {
                    let bytes = frame
                        .reg_bytes(register.0)
                        .ok_or(DwarfError::OptimizedOut)?;
                    eval.resume_with_register(self.typed_value(&bytes, base_type)?)?
                }
                EvaluationResult::RequiresFrameBase => {
                    let fb = self.frame_base_value()?;
                    eval.resume_with_frame_base(fb)?
                }
                EvaluationResult::RequiresTls(off) => {
                    let a = frame.tls_address(off)?;
                    eval.resume_with_tls(a)?
                }
                EvaluationResult::RequiresCallFrameCfa => {
                    let cfa = frame.cfa().ok_or(DwarfError::OptimizedOut)?;
                    eval.resume_with_call_frame_cfa(cfa)?
                }
                EvaluationResult::RequiresRelocatedAddress(a) => {
                    eval.resume_with_relocated_address(a.wrapping_add(frame.bias()))?
                }
                EvaluationResult::RequiresIndexedAddress { index, relocate } => {
                    let a = self.file.dwarf.address(unit, index)?;
                    let a = if relocate {
                        a.wrapping_add(frame.bias())
                    } else {
                        a
                    };
                    eval.resume_with_indexed_address(a)?
                }
                EvaluationResult::RequiresBaseType(off) => {
                    let vt = self.base_type(off)?;
                    eval.resume_with_base_type(vt)?
                }
                EvaluationResult::RequiresEntryValue(expr) => {
                    let v = self.entry_value(expr.0)?;
                    eval.resume_with_entry_value(v)?
                }
                EvaluationResult::RequiresAtLocation(_) => {
                    return Err(DwarfError::Malformed("DW_OP_call* is not supported".into()));
                }
                EvaluationResult::RequiresParameterRef(_) => {
                    return Err(DwarfError::OptimizedOut);
                }
            };
        }
        Ok(eval.result())
    }

    /// Bytes read for the evaluator, as a value of the DWARF base type at `base_type` (the
    /// generic address-sized type when 0).
    fn typed_value(
        &self,
        bytes: &[u8],
        base_type: gimli::UnitOffset<usize>,
    ) -> Result<gimli::Value> {
        if base_type.0 == 0 {
            let mut a = [0u8; 8];
            let n = bytes.len().min(8);
            a[..n].copy_from_slice(&bytes[..n]);
            return Ok(gimli::Value::Generic(u64::from_le_bytes(a)));
        }
        let vt = self.base_type(base_type)?;
        Ok(gimli::Value::parse(
            vt,
            gimli::EndianSlice::new(bytes, RunTimeEndian::Little),
        )?)
    }

    fn base_type(&self, off: gimli::UnitOffset<usize>) -> Result<gimli::ValueType> {
        let d = dietypes::read_die_at(self.file, self.unit, off)?;
        let enc = d.udata(dw::DW_AT_encoding).unwrap_or(0);
        let size = d.udata(dw::DW_AT_byte_size).unwrap_or(0);
        gimli::ValueType::from_encoding(gimli::DwAte(enc as u8), size)
            .ok_or_else(|| DwarfError::Malformed(format!("unsupported base type at {off:?}")))
    }

    /// The frame base: `DW_AT_frame_base` of the function, evaluated in this frame.
    fn frame_base_value(&self) -> Result<u64> {
        let attr = self
            .frame_base
            .ok_or_else(|| DwarfError::Malformed("function has no frame base".into()))?;
        let expr = expression_at(self.file, self.unit, attr, self.frame)?
            .ok_or(DwarfError::OptimizedOut)?;
        let sub = Evaluator {
            frame_base: None,
            depth: self.depth + 1,
            ..*self
        };
        let pieces = sub.run(expr.0, None)?;
        match pieces.first().map(|p| &p.location) {
            Some(Location::Address { address }) => Ok(*address),
            Some(Location::Register { register }) => {
                self.frame.reg(register.0).ok_or(DwarfError::OptimizedOut)
            }
            Some(Location::Value { value }) => Ok(gimli_value_u64(*value)),
            _ => Err(DwarfError::Malformed("unusable frame base".into())),
        }
    }

    /// `DW_OP_entry_value(BLOCK)` inside a location expression: the value the register the
    /// block names had on entry to this frame's function (or, for `DW_OP_bregN 0; DW_OP_deref`,
    /// the value it pointed to), from the caller's call-site parameter.
    fn entry_value<RR: gimli::Reader<Offset = usize>>(&self, expr: RR) -> Result<gimli::Value> {
        let Some((reg, deref)) = entry_register(expr, self.encoding()?) else {
            return Err(DwarfError::user(
                "DWARF-2 expression error: DW_OP_entry_value is supported only for single \
                 DW_OP_reg* or for DW_OP_breg*(0)+DW_OP_deref*",
            ));
        };
        self.entry_parameter_value(reg, deref)
    }

    /// gdb's `dwarf_expr_reg_to_entry_parameter` and its evaluation: the caller's call-site
    /// parameter for DWARF register `reg` (its `DW_AT_call_data_value` when `deref`),
    /// evaluated in the caller's frame. The caller must be known for sure: its call site at
    /// the return address must call this frame's function (not another one that tail-called
    /// it), and the function must not be able to reach itself through tail calls.
    fn entry_parameter_value(&self, reg: u16, deref: bool) -> Result<gimli::Value> {
        let frame = self.frame;
        let bias = frame.bias();
        let func = scopes::function_at(self.file, frame.pc().wrapping_sub(bias))?
            .ok_or_else(|| no_entry("DW_OP_entry_value resolving: no function".into()))?;
        let func_addr = func.block_entry_pc().wrapping_add(bias);
        let Some(caller) = frame.caller() else {
            return Err(no_entry(format!(
                "DW_OP_entry_value resolving requires caller of {func_addr:#x} ({})",
                symbol_name(frame, func_addr)
            )));
        };
        let caller_file = caller.debug_file().unwrap_or_else(|| self.file.clone());
        let caller_pc = caller.frame_pc();
        let cbias = caller.bias();
        let Some(site) = scopes::call_site(&caller_file, caller_pc.wrapping_sub(cbias))? else {
            return Err(no_entry(format!(
                "DW_OP_entry_value resolving cannot find DW_TAG_call_site {caller_pc:#x} in {}",
                symbol_name(frame, caller_pc)
            )));
        };
        let site_fn = || symbol_name(frame, caller_pc.wrapping_sub(1));
        // DWARF expressions of the call site, evaluated in the caller's frame.
        let in_caller = || Evaluator {
            file: &caller_file,
            unit: site.unit,
            frame: caller,
            frame_base: site.frame_base.as_ref(),
            depth: self.depth + 1,
            object_address: None,
        };
        let target = match &site.target {
            scopes::CallTarget::Address(a) => a.wrapping_add(cbias),
            scopes::CallTarget::Name(n) => {
                match scopes::call_target_address(&caller_file, &site.target) {
                    Some(a) => a.wrapping_add(cbias),
                    None => caller.function_address(n).ok_or_else(|| {
                        no_entry(format!(
                            "Cannot find function \"{n}\" for a call site target at \
                             {caller_pc:#x} in {}",
                            site_fn()
                        ))
                    })?,
                }
            }
            scopes::CallTarget::Expr(e) => gimli_value_u64(in_caller().expression_value(*e)?),
            scopes::CallTarget::Unspecified => {
                return Err(no_entry(format!(
                    "DW_AT_call_target is not specified at DW_TAG_call_site {caller_pc:#x} in {}",
                    site_fn()
                )));
            }
        };
        if target != func_addr {
            // gdb 13 words it so (its count of the target's addresses is off by one).
            return Err(no_entry(format!(
                "DW_OP_entry_value resolving expects callee {} at {target:#x} (but note there \
                 are multiple addresses not listed)but the called frame is for {} at \
                 {func_addr:#x}",
                symbol_name(frame, target),
                symbol_name(frame, func_addr)
            )));
        }
        self.verify_no_self_tail_call(&func, func_addr)?;
        let enc = self.encoding()?;
        let param = site
            .params
            .iter()
            .find(|p| matches!(entry_register(p.location.0, enc), Some((r, false)) if r == reg));
        let Some(param) = param else {
            return Err(no_entry(format!(
                "Cannot find matching parameter at DW_TAG_call_site {caller_pc:#x} at {}",
                symbol_name(frame, caller_pc)
            )));
        };
        let expr = if deref {
            param
                .data_value
                .ok_or_else(|| no_entry("Cannot resolve DW_AT_call_data_value".into()))?
        } else {
            param.value.ok_or_else(|| {
                no_entry(format!(
                    "Cannot find matching parameter at DW_TAG_call_site {caller_pc:#x} at {}",
                    symbol_name(frame, caller_pc)
                ))
            })?
        };
        in_caller().expression_value(expr)
    }

    /// The value a DWARF expression (not a location: `DW_AT_call_value`, `DW_AT_call_target`)
    /// leaves on the stack, typed as it is there (a `DW_OP_regval_type` of a vector register
    /// is a `double`, not an address).
    fn expression_value(&self, expr: gimli::Expression<R>) -> Result<gimli::Value> {
        let enc = self.encoding()?;
        let mut ops = expr.operations(enc);
        let mut located = false;
        while let Some(op) = ops.next()? {
            located |= matches!(
                op,
                gimli::Operation::StackValue
                    | gimli::Operation::Piece { .. }
                    | gimli::Operation::Register { .. }
                    | gimli::Operation::ImplicitValue { .. }
                    | gimli::Operation::ImplicitPointer { .. }
            );
        }
        let mut bytes = gimli::Reader::to_slice(&expr.0)?.to_vec();
        if !located {
            bytes.push(dw::DW_OP_stack_value.0);
        }
        let pieces = self.run(gimli::EndianSlice::new(&bytes, self.file.endian), None)?;
        match pieces.first().map(|p| &p.location) {
            Some(Location::Value { value }) => Ok(*value),
            Some(Location::Bytes { value }) => {
                let b = gimli::Reader::to_slice(value)?;
                let mut a = [0u8; 8];
                let n = b.len().min(8);
                a[..n].copy_from_slice(&b[..n]);
                Ok(gimli::Value::Generic(u64::from_le_bytes(a)))
            }
            _ => self.scalar(&pieces).map(gimli::Value::Generic),
        }
    }

    /// gdb's `func_verify_no_selftailcall`: entry values are not trusted in a function that
    /// can reach itself through tail calls (the caller's call site may be for an earlier
    /// activation). Tail calls are followed through the functions this file defines.
    fn verify_no_self_tail_call(&self, func: &scopes::Function, func_addr: u64) -> Result<()> {
        // Frame lines ask for every parameter at every stop: the answer is kept per function.
        let key = (
            Arc::as_ptr(self.file) as usize,
            func.block_entry_pc(),
            self.frame.bias(),
        );
        let cached = SELF_TAIL_CALLS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        let answer = match cached {
            Some(a) => a,
            None => {
                let a = match self.search_self_tail_call(func, func_addr) {
                    Ok(()) => None,
                    Err(DwarfError::NoEntryValue(m)) => Some(m),
                    Err(e) => return Err(e),
                };
                let mut cache = SELF_TAIL_CALLS.lock().unwrap_or_else(|e| e.into_inner());
                if cache.len() >= 4096 {
                    cache.clear();
                }
                cache.insert(key, a.clone());
                a
            }
        };
        match answer {
            Some(m) => Err(DwarfError::NoEntryValue(m)),
            None => Ok(()),
        }
    }

    fn search_self_tail_call(&self, func: &scopes::Function, func_addr: u64) -> Result<()> {
        let bias = self.frame.bias();
        let start = func.block_entry_pc();
        let mut todo = vec![start];
        let mut seen = std::collections::HashSet::new();
        while let Some(addr) = todo.pop() {
            for site in scopes::call_sites(self.file, addr)?.iter() {
                if !site.tail_call {
                    continue;
                }
                let at = site.return_pc.wrapping_add(bias);
                let target = match &site.target {
                    scopes::CallTarget::Expr(_) => {
                        return Err(no_entry(
                            "DW_AT_call_target DWARF block resolving requires known frame \
                             which is currently not an unwound frame"
                                .into(),
                        ));
                    }
                    scopes::CallTarget::Unspecified => {
                        return Err(no_entry(format!(
                            "DW_AT_call_target is not specified at DW_TAG_call_site {at:#x} in {}",
                            symbol_name(self.frame, at.wrapping_sub(1))
                        )));
                    }
                    t => match scopes::call_target_address(self.file, t) {
                        Some(a) => a,
                        // Defined in another object: not followed.
                        None => continue,
                    },
                };
                if target == start {
                    return Err(no_entry(format!(
                        "DW_OP_entry_value resolving has found function \"{}\" at \
                         {func_addr:#x} can call itself via tail calls",
                        symbol_name(self.frame, func_addr)
                    )));
                }
                if seen.insert(target) {
                    todo.push(target);
                }
            }
        }
        Ok(())
    }

    /// The value an expression's pieces leave (an address, a value, a register's contents).
    fn scalar<RR: gimli::Reader<Offset = usize>>(&self, pieces: &[Piece<RR>]) -> Result<u64> {
        match pieces.first().map(|p| &p.location) {
            Some(Location::Address { address }) => Ok(*address),
            Some(Location::Value { value }) => Ok(gimli_value_u64(*value)),
            Some(Location::Register { register }) => {
                self.frame.reg(register.0).ok_or(DwarfError::OptimizedOut)
            }
            _ => Err(DwarfError::OptimizedOut),
        }
    }

    /// A value of type `ty` (`size` bytes) from the pieces of a location.
    fn value_from_pieces<RR: gimli::Reader<Offset = usize>>(
        &self,
        ty: TypeRef,
        size: u64,
        pieces: &[Piece<RR>],
    ) -> Result<PartialValue> {
        let whole = |value| PartialValue {
            value,
            optimized_out_bits: Vec::new(),
        };
        let frame = self.frame;
        let size_us = size as usize;
        if let [p] = pieces
            && p.size_in_bits.is_none()
        {
            return Ok(whole(match &p.location {
                Location::Empty => Value::optimized_out(ty),
                Location::Address { address } => {
                    let mut buf = vec![0u8; size_us];
                    frame.read_memory(*address, &mut buf)?;
                    Value::new(ty, buf, Lval::Memory(*address))
                }
                Location::Register { register } => {
                    match frame.reg_bytes_wide(register.0, size_us) {
                        Some(mut b) => {
                            b.resize(size_us, 0);
                            Value::new(ty, b, Lval::Register(register.0))
                        }
                        None => Value::optimized_out(ty),
                    }
                }
                Location::Value { value } => {
                    let mut b = gimli_value_bytes(*value);
                    b.resize(size_us, 0);
                    Value::new(ty, b, Lval::None)
                }
                Location::Bytes { value } => {
                    let mut b = value.to_slice()?.to_vec();
                    b.resize(size_us, 0);
                    Value::new(ty, b, Lval::None)
                }
                Location::ImplicitPointer { .. } => {
                    return Err(DwarfError::user("<synthetic pointer>"));
                }
            }));
        }
        // A composite: assemble the bits piece by piece.
        let mut buf = vec![0u8; size_us];
        let mut bit = 0u64;
        let mut any = false;
        let mut missing: Vec<std::ops::Range<u64>> = Vec::new();
        // Where each piece lives, for assignments (gdb writes a split value piece by piece);
        // only whole bytes in registers or memory.
        let mut places: Option<Vec<LvalPiece>> = Some(Vec::new());
        for p in pieces {
            let bits = p.size_in_bits.unwrap_or(size * 8 - bit.min(size * 8));
            let at = match (&p.location, p.bit_offset.unwrap_or(0)) {
                (Location::Register { register }, 0) => Some(PieceAt::Register(register.0)),
                (Location::Address { address }, 0) => Some(PieceAt::Memory(*address)),
                _ => None,
            };
            match (at, &mut places) {
                (Some(at), Some(list)) if bit.is_multiple_of(8) && bits.is_multiple_of(8) => list
                    .push(LvalPiece {
                        start: bit / 8,
                        len: bits / 8,
                        at,
                    }),
                _ => places = None,
            }
            let src: Option<Vec<u8>> = match &p.location {
                Location::Empty => None,
                Location::Address { address } => {
                    let n = (p.bit_offset.unwrap_or(0) + bits).div_ceil(8) as usize;
                    let mut b = vec![0u8; n];
                    frame.read_memory(*address, &mut b)?;
                    Some(b)
                }
                Location::Register { register } => frame.reg_bytes(register.0),
                Location::Value { value } => Some(gimli_value_bytes(*value)),
                Location::Bytes { value } => Some(value.to_slice()?.to_vec()),
                Location::ImplicitPointer { .. } => None,
            };
            if let Some(src) = src {
                any = true;
                copy_bits(&src, p.bit_offset.unwrap_or(0), &mut buf, bit, bits);
            } else {
                missing.push(bit..bit + bits);
            }
            bit += bits;
        }
        if bit < size * 8 {
            missing.push(bit..size * 8);
        }
        if !any {
            return Ok(whole(Value::optimized_out(ty)));
        }
        let lval = match places {
            Some(list) if missing.is_empty() => Lval::Pieces(list),
            _ => Lval::None,
        };
        let mut value = Value::new(ty, buf, lval);
        value.lost_bits = missing.clone();
        Ok(PartialValue {
            value,
            optimized_out_bits: missing,
        })
    }
}

/// Copy `n` bits from `src` starting at bit `from` to `dst` at bit `to` (little-endian bit
/// numbering); bits beyond either buffer are dropped.
fn copy_bits(src: &[u8], from: u64, dst: &mut [u8], to: u64, n: u64) {
    for i in 0..n {
        let s = from + i;
        let d = to + i;
        let Some(sb) = src.get((s / 8) as usize) else {
            return;
        };
        let bitv = (sb >> (s % 8)) & 1;
        let Some(db) = dst.get_mut((d / 8) as usize) else {
            return;
        };
        if bitv != 0 {
            *db |= 1 << (d % 8);
        } else {
            *db &= !(1 << (d % 8));
        }
    }
}

/// `ty` with variable-length array bounds computed in `frame` (other types as they are).
pub fn resolve_type(
    file: &Arc<DebugFile>,
    ty: &TypeRef,
    var: &Variable,
    frame: &dyn FrameContext,
) -> Result<TypeRef> {
    let TypeKind::Array { element, bound } = &ty.kind else {
        return Ok(ty.clone());
    };
    let resolved = resolve_type(file, element, var, frame)?;
    let bound = match bound {
        // gdb's `resolve_dynamic_range`: a bound that cannot be computed here is undefined.
        Bound::Dynamic(d) => match dynamic_count(file, d, var, frame) {
            Ok(n) => Bound::Count(n),
            Err(DwarfError::OptimizedOut | DwarfError::NoEntryValue(_)) => Bound::Undefined,
            Err(e) => return Err(e),
        },
        b => {
            if Arc::ptr_eq(&resolved, element) {
                return Ok(ty.clone());
            }
            b.clone()
        }
    };
    let element = resolved;
    Ok(match bound {
        Bound::Count(n) => Type::array_of(element, n),
        bound => Type::new(None, 0, TypeKind::Array { element, bound }),
    })
}

fn dynamic_count(
    file: &Arc<DebugFile>,
    d: &DynamicBound,
    var: &Variable,
    frame: &dyn FrameContext,
) -> Result<u64> {
    let (v, is_count) = match d {
        DynamicBound::Variable { die, is_count } => {
            let bd = read_die(file, *die)?;
            // GCC's bound variables are artificial and nameless.
            let bv = scopes::make_bound_variable(file, &bd, var.frame_base)
                .ok_or_else(|| DwarfError::Malformed("bad VLA bound variable".into()))?;
            let val = variable_value(file, &bv, frame)?;
            if val.optimized_out {
                return Err(DwarfError::OptimizedOut);
            }
            (val.as_i64(), *is_count)
        }
        DynamicBound::Expr { expr, is_count, .. } => {
            let ev = Evaluator::for_variable(file, var, frame);
            let pieces = ev.run(gimli::EndianSlice::new(expr, file.endian), None)?;
            let v = match pieces.first().map(|p| &p.location) {
                Some(Location::Address { address }) => *address,
                Some(Location::Value { value }) => gimli_value_u64(*value),
                Some(Location::Register { register }) => {
                    frame.reg(register.0).ok_or(DwarfError::OptimizedOut)?
                }
                _ => return Err(DwarfError::OptimizedOut),
            };
            (v as i64, *is_count)
        }
    };
    let n = if is_count { v } else { v.saturating_add(1) };
    Ok(n.max(0) as u64)
}

// ---------------------------------------------------------------------------------------------
// Arrays whose shape is a property of the object (Fortran descriptors)
// ---------------------------------------------------------------------------------------------

/// The address of `var`'s object (its location must be in memory).
fn object_address(file: &Arc<DebugFile>, var: &Variable, frame: &dyn FrameContext) -> Result<u64> {
    let Some(loc) = &var.location else {
        return Err(DwarfError::OptimizedOut);
    };
    let Some(expr) = expression_at(file, var.unit, loc, frame)? else {
        return Err(DwarfError::OptimizedOut);
    };
    let ev = Evaluator::for_variable(file, var, frame);
    let pieces = ev.run(expr.0, None)?;
    match pieces.as_slice() {
        [
            Piece {
                location: Location::Address { address },
                ..
            },
        ] => Ok(*address),
        _ => Err(DwarfError::Malformed(
            "array descriptor not in memory".into(),
        )),
    }
}

/// A variable whose type is a [`TypeKind::DynArray`] or [`TypeKind::DynString`]: its shape
/// resolved from its object, the value lazy (no bytes) at the first element's address.
fn object_value(file: &Arc<DebugFile>, var: &Variable, frame: &dyn FrameContext) -> Result<Value> {
    let addr = match object_address(file, var, frame) {
        Ok(a) => a,
        Err(DwarfError::OptimizedOut) => return Ok(Value::optimized_out(var.ty.clone())),
        Err(e) => return Err(e),
    };
    let (ty, data) = resolve_object(file, &var.ty, var, frame, addr)?;
    let mut v = Value::new(ty, Vec::new(), Lval::Memory(data));
    // Strings are short: read them now.
    if let TypeKind::Array { .. } = &v.ty.kind {
        let size = v.ty.byte_size().min(65536);
        let mut buf = vec![0u8; size as usize];
        frame.read_memory(data, &mut buf)?;
        v.bytes = buf;
    }
    Ok(v)
}

/// Resolve `ty` (a [`TypeKind::DynArray`] or [`TypeKind::DynString`], else returned as it
/// is) for the object at `object`, in the scope of `var` (whose frame base and unit the
/// DWARF expressions use): the resolved type and the address of its first element.
pub fn resolve_object(
    file: &Arc<DebugFile>,
    ty: &TypeRef,
    var: &Variable,
    frame: &dyn FrameContext,
    object: u64,
) -> Result<(TypeRef, u64)> {
    let st = ty.strip();
    match &st.kind {
        TypeKind::DynString {
            element,
            length,
            data_location,
        } => {
            let n = match length {
                // A location: the length in bytes is stored there (flang's descriptor).
                BoundSpec::Expr { .. } => {
                    let at = eval_spec(file, var, frame, length, object)? as u64;
                    let mut b = [0u8; 8];
                    frame.read_memory(at, &mut b)?;
                    (u64::from_le_bytes(b) / element.byte_size().max(1)) as i64
                }
                _ => eval_spec(file, var, frame, length, object)?,
            };
            let n = (n.max(0) as u64).min(1 << 20);
            let data = match data_location {
                Some(s) => eval_spec(file, var, frame, s, object)? as u64,
                None => object,
            };
            Ok((Type::array_of(element.clone(), n), data))
        }
        TypeKind::DynArray(spec) => {
            let status = |s: &Option<BoundSpec>| -> Result<bool> {
                Ok(match s {
                    Some(s) => eval_spec(file, var, frame, s, object)? != 0,
                    None => true,
                })
            };
            let shaped = |dims: Vec<Dim>, status: ShapeStatus| {
                Type::new(
                    None,
                    0,
                    TypeKind::Shaped(Box::new(Shape {
                        element: spec.element.clone(),
                        dims,
                        status,
                        spec: Some(ty.clone()),
                    })),
                )
            };
            let unresolved = |status| {
                let dims = spec
                    .dims
                    .iter()
                    .map(|_| Dim {
                        lower: 0,
                        count: 0,
                        stride: 0,
                    })
                    .collect();
                shaped(dims, status)
            };
            if !status(&spec.allocated)? {
                return Ok((unresolved(ShapeStatus::NotAllocated), object));
            }
            if !status(&spec.associated)? {
                return Ok((unresolved(ShapeStatus::NotAssociated), object));
            }
            let data = match &spec.data_location {
                Some(s) => eval_spec(file, var, frame, s, object)? as u64,
                None => object,
            };
            // The element itself may be dynamic (a string of run-time length).
            let element = match &spec.element.strip().kind {
                // flang-22 gives a deferred-length character element length 0; the length
                // is the descriptor's `elem_len` (ISO_Fortran_binding `CFI_cdesc_t`:
                // `base_addr` at 0, `elem_len` at 8; docs/FORTRAN.md).
                TypeKind::DynString {
                    element: ch,
                    length: BoundSpec::Const(0),
                    data_location: None,
                } if spec.data_location.is_some() => {
                    let mut b = [0u8; 8];
                    frame.read_memory(object.wrapping_add(8), &mut b)?;
                    let n = (u64::from_le_bytes(b) / ch.byte_size().max(1)).min(1 << 20);
                    Type::array_of(ch.clone(), n)
                }
                TypeKind::DynString { .. } => {
                    resolve_object(file, &spec.element, var, frame, data)?.0
                }
                _ => spec.element.clone(),
            };
            let esize = element.byte_size() as i64;
            // An assumed-rank array: its rank at run time, every dimension from the generic
            // subrange with the dimension's number pushed.
            let (spec_dims, generic): (Vec<&DimSpec>, bool) = match (&spec.rank, &spec.generic) {
                (Some(r), Some(g)) => {
                    let rank = eval_spec(file, var, frame, r, object)?.clamp(0, 15) as usize;
                    (vec![g; rank], true)
                }
                _ => (spec.dims.iter().collect(), false),
            };
            let mut dims = Vec::with_capacity(spec_dims.len());
            let mut next_stride = esize;
            let order: Vec<usize> = if spec.column_major {
                (0..spec_dims.len()).collect()
            } else {
                (0..spec_dims.len()).rev().collect()
            };
            let mut tmp = vec![
                Dim {
                    lower: 0,
                    count: 0,
                    stride: 0
                };
                spec_dims.len()
            ];
            let last = spec_dims.len().saturating_sub(1);
            for i in order {
                let d = spec_dims[i];
                let push = generic.then_some(i as u64);
                let ev = |s: &BoundSpec| eval_spec_with(file, var, frame, s, object, push);
                let lower = match &d.lower {
                    Some(s) => ev(s)?,
                    None => spec.default_lower,
                };
                let count = match (&d.count, &d.upper) {
                    (Some(c), _) => ev(c)?.max(0) as u64,
                    (None, Some(u)) => ev(u)?.saturating_sub(lower).saturating_add(1).max(0) as u64,
                    // `y(*)`: the last dimension of an assumed-size array has no upper bound.
                    (None, None) if i == last => Dim::ASSUMED_SIZE,
                    (None, None) => 0,
                };
                // gfortran's byte stride is the descriptor's `stride × span`; a `span` of 0
                // (left unset: by the caller of a procedure that does not read it at -O2, or
                // for a parameterised type's allocatable component) stands for the element's
                // size, as its `elem_len` does (gdb takes the stride for 0 and walks the
                // elements as if contiguous). A stride of 0 otherwise is no stride, as in gdb.
                let stride = match &d.byte_stride {
                    Some(s) => match ev(s)? {
                        0 => match gfortran_stride_field(s, file.endian) {
                            Some(off) => {
                                let mut b = [0u8; 8];
                                frame.read_memory(object.wrapping_add(off), &mut b)?;
                                match i64::from_le_bytes(b).saturating_mul(esize) {
                                    0 => next_stride,
                                    s => s,
                                }
                            }
                            None => next_stride,
                        },
                        s => s,
                    },
                    None => next_stride,
                };
                next_stride = stride.saturating_mul(count as i64);
                tmp[i] = Dim {
                    lower,
                    count,
                    stride,
                };
            }
            dims.extend(tmp);
            let t = Type::new(
                None,
                0,
                TypeKind::Shaped(Box::new(Shape {
                    element,
                    dims,
                    status: ShapeStatus::Ok,
                    spec: Some(ty.clone()),
                })),
            );
            Ok((t, data))
        }
        _ => Ok((ty.clone(), object)),
    }
}

/// gfortran's `DW_AT_byte_stride`, `stride × span` read from the descriptor
/// (`DW_OP_push_object_address; DW_OP_plus_uconst S; DW_OP_deref;
/// DW_OP_push_object_address; DW_OP_plus_uconst P; DW_OP_deref; DW_OP_mul`): the offset S of
/// the dimension's `stride` field (in elements).
fn gfortran_stride_field(spec: &BoundSpec, endian: RunTimeEndian) -> Option<u64> {
    let BoundSpec::Expr { expr, encoding } = spec else {
        return None;
    };
    let mut ops =
        gimli::Expression(gimli::EndianSlice::new(expr, endian)).operations(encoding.gimli());
    let mut list = Vec::new();
    while let Ok(Some(op)) = ops.next() {
        list.push(op);
        if list.len() > 7 {
            return None;
        }
    }
    use gimli::Operation as Op;
    match list.as_slice() {
        [
            Op::PushObjectAddress,
            Op::PlusConstant { value: stride },
            Op::Deref { .. },
            Op::PushObjectAddress,
            Op::PlusConstant { .. },
            Op::Deref { .. },
            Op::Mul,
        ] => Some(*stride),
        _ => None,
    }
}

/// The value of one array property for the object at `object`.
fn eval_spec(
    file: &Arc<DebugFile>,
    var: &Variable,
    frame: &dyn FrameContext,
    spec: &BoundSpec,
    object: u64,
) -> Result<i64> {
    eval_spec_with(file, var, frame, spec, object, None)
}

/// [`eval_spec`] with `push` on the stack first (the dimension of a generic subrange).
fn eval_spec_with(
    file: &Arc<DebugFile>,
    var: &Variable,
    frame: &dyn FrameContext,
    spec: &BoundSpec,
    object: u64,
    push: Option<u64>,
) -> Result<i64> {
    match spec {
        BoundSpec::Const(n) => Ok(*n),
        BoundSpec::Variable(die) => {
            let bd = read_die(file, *die)?;
            // gfortran's bound variables are artificial and nameless.
            let bv = scopes::make_bound_variable(file, &bd, var.frame_base)
                .ok_or_else(|| DwarfError::Malformed("bad array bound variable".into()))?;
            let val = variable_value(file, &bv, frame)?;
            if val.optimized_out {
                return Err(DwarfError::OptimizedOut);
            }
            Ok(val.as_i64())
        }
        BoundSpec::Expr { expr, .. } => {
            let mut ev = Evaluator::for_variable(file, var, frame);
            ev.object_address = Some(object);
            let pieces = ev.run(gimli::EndianSlice::new(expr, file.endian), push)?;
            let v = match pieces.first().map(|p| &p.location) {
                Some(Location::Address { address }) => *address,
                Some(Location::Value { value }) => gimli_value_u64(*value),
                Some(Location::Register { register }) => {
                    frame.reg(register.0).ok_or(DwarfError::OptimizedOut)?
                }
                _ => return Err(DwarfError::OptimizedOut),
            };
            Ok(v as i64)
        }
    }
}
