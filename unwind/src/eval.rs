//! Applying a CFI row: the CFA rule and the register rules, with DWARF expressions evaluated
//! against the frame's registers and the process's memory.

use cohort_engine::memory::MemoryRead;
use cohort_engine::regs::Registers;
use gimli::{EndianSlice, Evaluation, EvaluationResult, Location, RunTimeEndian, Value};

use crate::{CfaRule, RegRule, UnwindError, UnwindRow};

/// Value of DWARF register `n` in `regs`.
fn dwarf_reg(regs: &Registers, n: u16) -> Result<u64, UnwindError> {
    regs.arch
        .reg_by_dwarf(n)
        .and_then(|i| regs.get(i))
        .map(|v| v as u64)
        .ok_or_else(|| UnwindError::Expression(format!("register {n} is not available")))
}

/// Read `size` (at most 16) little-endian bytes at `addr`.
fn read_value(mem: &dyn MemoryRead, addr: u64, size: usize) -> Result<u128, UnwindError> {
    let mut b = [0u8; 16];
    let buf = b
        .get_mut(..size.clamp(1, 16))
        .ok_or(UnwindError::Memory(addr))?;
    mem.read(addr, buf).map_err(|_| UnwindError::Memory(addr))?;
    Ok(u128::from_le_bytes(b))
}

/// Evaluate a CFI expression; `initial` is pushed first (the CFA, for register rules).
pub(crate) fn expression(
    bytes: &[u8],
    initial: Option<u64>,
    address_size: u8,
    regs: &Registers,
    mem: &dyn MemoryRead,
) -> Result<u64, UnwindError> {
    let encoding = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 4,
        address_size,
    };
    let bad = |e: gimli::Error| UnwindError::Expression(e.to_string());
    let mut ev = Evaluation::new(EndianSlice::new(bytes, RunTimeEndian::Little), encoding);
    if let Some(v) = initial {
        ev.set_initial_value(v);
    }
    let mut state = ev.evaluate().map_err(bad)?;
    loop {
        state = match state {
            EvaluationResult::Complete => break,
            EvaluationResult::RequiresMemory { address, size, .. } => {
                let v = read_value(mem, address, usize::from(size))? as u64;
                ev.resume_with_memory(Value::Generic(v)).map_err(bad)?
            }
            EvaluationResult::RequiresRegister { register, .. } => {
                let v = dwarf_reg(regs, register.0)?;
                ev.resume_with_register(Value::Generic(v)).map_err(bad)?
            }
            other => {
                return Err(UnwindError::Expression(format!(
                    "unsupported operation ({other:?})"
                )));
            }
        };
    }
    let pieces = ev.result();
    match pieces.first().map(|p| &p.location) {
        Some(Location::Address { address }) => Ok(*address),
        Some(Location::Value { value }) => value
            .to_u64(u64::MAX)
            .map_err(|e| UnwindError::Expression(e.to_string())),
        _ => Err(UnwindError::Expression(
            "expression gives no address".into(),
        )),
    }
}

/// The CFA of the frame with registers `regs` by `row`.
pub(crate) fn cfa(
    row: &UnwindRow,
    regs: &Registers,
    mem: &dyn MemoryRead,
) -> Result<u64, UnwindError> {
    match &row.cfa {
        CfaRule::RegisterOffset { register, offset } => {
            Ok(dwarf_reg(regs, *register)?.wrapping_add(*offset as u64))
        }
        CfaRule::Expression(e) => expression(e, None, row.address_size, regs, mem),
    }
}

/// The caller's value of a register of `size` bytes by `rule`; `None` when undefined.
pub(crate) fn register(
    rule: &RegRule,
    cfa: u64,
    size: usize,
    row: &UnwindRow,
    regs: &Registers,
    mem: &dyn MemoryRead,
) -> Result<Option<u128>, UnwindError> {
    Ok(match rule {
        RegRule::Undefined | RegRule::Architectural => None,
        // Resolved by the caller (the register's own value in this frame).
        RegRule::SameValue => None,
        RegRule::Offset(o) => Some(read_value(mem, cfa.wrapping_add(*o as u64), size)?),
        RegRule::ValOffset(o) => Some(u128::from(cfa.wrapping_add(*o as u64))),
        RegRule::Register(r) => Some(u128::from(dwarf_reg(regs, *r)?)),
        RegRule::Expression(e) => {
            let addr = expression(e, Some(cfa), row.address_size, regs, mem)?;
            Some(read_value(mem, addr, size)?)
        }
        RegRule::ValExpression(e) => Some(u128::from(expression(
            e,
            Some(cfa),
            row.address_size,
            regs,
            mem,
        )?)),
        RegRule::Constant(c) => Some(u128::from(*c)),
    })
}
