//! `.debug_frame` of a cubin. Its register numbers are `(class << 24) | number` (see
//! [`crate::regmap::SassReg`]), far above the 16-bit registers gimli's CFI parser accepts, so
//! the CIEs and FDEs are decoded here (DWARF 2-4 call frame instructions, 32- and 64-bit
//! DWARF; noted in docs/HANDWRITTEN.md).

use crate::error::{CudaError, Result};
use crate::regmap::SassReg;

/// One call frame instruction, registers decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cfa {
    AdvanceLoc(u64),
    SetLoc(u64),
    DefCfa(SassReg, i64),
    DefCfaRegister(SassReg),
    DefCfaOffset(i64),
    DefCfaExpression(Vec<u8>),
    Offset(SassReg, i64),
    ValOffset(SassReg, i64),
    Restore(SassReg),
    Undefined(SassReg),
    SameValue(SassReg),
    Register(SassReg, SassReg),
    Expression(SassReg, Vec<u8>),
    ValExpression(SassReg, Vec<u8>),
    RememberState,
    RestoreState,
    Nop,
}

#[derive(Debug, Clone)]
pub struct Cie {
    pub offset: u64,
    pub version: u8,
    pub code_align: u64,
    pub data_align: i64,
    pub return_address: SassReg,
    pub instructions: Vec<Cfa>,
}

#[derive(Debug, Clone)]
pub struct Fde {
    pub cie: u64,
    /// Relocated start address and length.
    pub start: u64,
    pub len: u64,
    pub instructions: Vec<Cfa>,
}

#[derive(Debug, Clone, Default)]
pub struct DebugFrame {
    pub cies: Vec<Cie>,
    pub fdes: Vec<Fde>,
}

struct R<'a> {
    d: &'a [u8],
    p: usize,
}

impl R<'_> {
    fn err(&self) -> CudaError {
        CudaError::Cubin(format!(".debug_frame truncated at {:#x}", self.p))
    }
    fn u8(&mut self) -> Result<u8> {
        let b = *self.d.get(self.p).ok_or_else(|| self.err())?;
        self.p += 1;
        Ok(b)
    }
    fn fixed(&mut self, n: usize) -> Result<u64> {
        let end = self.p.checked_add(n).ok_or_else(|| self.err())?;
        let b = self.d.get(self.p..end).ok_or_else(|| self.err())?;
        self.p += n;
        let mut v = 0u64;
        for (i, x) in b.iter().enumerate() {
            v |= (*x as u64) << (8 * i);
        }
        Ok(v)
    }
    fn uleb(&mut self) -> Result<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            if shift < 64 {
                v |= ((b & 0x7f) as u64) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
    }
    fn sleb(&mut self) -> Result<i64> {
        let mut v = 0i64;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            if shift < 64 {
                v |= ((b & 0x7f) as i64) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                if shift < 64 && b & 0x40 != 0 {
                    v |= -1i64 << shift;
                }
                return Ok(v);
            }
        }
    }
    fn block(&mut self) -> Result<Vec<u8>> {
        let n = usize::try_from(self.uleb()?).map_err(|_| self.err())?;
        let end = self.p.checked_add(n).ok_or_else(|| self.err())?;
        let b = self.d.get(self.p..end).ok_or_else(|| self.err())?;
        self.p += n;
        Ok(b.to_vec())
    }
    fn reg(&mut self) -> Result<SassReg> {
        Ok(SassReg::decode(self.uleb()?))
    }
}

fn instructions(d: &[u8], code_align: u64, data_align: i64) -> Result<Vec<Cfa>> {
    let mut r = R { d, p: 0 };
    let mut out = Vec::new();
    while r.p < d.len() {
        let op = r.u8()?;
        let low = (op & 0x3f) as u64;
        let i = match op >> 6 {
            1 => Cfa::AdvanceLoc(low * code_align),
            2 => Cfa::Offset(SassReg::decode(low), r.uleb()? as i64 * data_align),
            3 => Cfa::Restore(SassReg::decode(low)),
            _ => match op {
                0x00 => Cfa::Nop,
                0x01 => Cfa::SetLoc(r.fixed(8)?),
                0x02 => Cfa::AdvanceLoc(r.fixed(1)? * code_align),
                0x03 => Cfa::AdvanceLoc(r.fixed(2)? * code_align),
                0x04 => Cfa::AdvanceLoc(r.fixed(4)? * code_align),
                0x05 => Cfa::Offset(r.reg()?, r.uleb()? as i64 * data_align),
                0x06 => Cfa::Restore(r.reg()?),
                0x07 => Cfa::Undefined(r.reg()?),
                0x08 => Cfa::SameValue(r.reg()?),
                0x09 => Cfa::Register(r.reg()?, r.reg()?),
                0x0a => Cfa::RememberState,
                0x0b => Cfa::RestoreState,
                0x0c => Cfa::DefCfa(r.reg()?, r.uleb()? as i64),
                0x0d => Cfa::DefCfaRegister(r.reg()?),
                0x0e => Cfa::DefCfaOffset(r.uleb()? as i64),
                0x0f => Cfa::DefCfaExpression(r.block()?),
                0x10 => Cfa::Expression(r.reg()?, r.block()?),
                0x11 => Cfa::Offset(r.reg()?, r.sleb()? * data_align),
                0x12 => Cfa::DefCfa(r.reg()?, r.sleb()? * data_align),
                0x13 => Cfa::DefCfaOffset(r.sleb()? * data_align),
                0x14 => Cfa::ValOffset(r.reg()?, r.uleb()? as i64 * data_align),
                0x15 => Cfa::ValOffset(r.reg()?, r.sleb()? * data_align),
                0x16 => Cfa::ValExpression(r.reg()?, r.block()?),
                o => {
                    return Err(CudaError::Cubin(format!(
                        ".debug_frame: call frame instruction {o:#x} not supported"
                    )));
                }
            },
        };
        out.push(i);
    }
    Ok(out)
}

impl DebugFrame {
    /// Parse a relocated `.debug_frame` (addresses 8 bytes).
    pub fn parse(d: &[u8]) -> Result<DebugFrame> {
        let mut r = R { d, p: 0 };
        let mut frame = DebugFrame::default();
        while r.p < d.len() {
            let start = r.p as u64;
            let mut len = r.fixed(4)?;
            let dwarf64 = len == 0xffff_ffff;
            if dwarf64 {
                len = r.fixed(8)?;
            }
            if len == 0 {
                continue;
            }
            let body = r.p;
            let end = usize::try_from(len)
                .ok()
                .and_then(|l| body.checked_add(l))
                .filter(|e| *e <= d.len())
                .ok_or_else(|| {
                    CudaError::Cubin(format!(".debug_frame entry at {start:#x} overruns"))
                })?;
            let id = if dwarf64 { r.fixed(8)? } else { r.fixed(4)? };
            let is_cie = if dwarf64 {
                id == u64::MAX
            } else {
                id == 0xffff_ffff
            };
            if is_cie {
                let version = r.u8()?;
                let mut aug = Vec::new();
                loop {
                    let b = r.u8()?;
                    if b == 0 {
                        break;
                    }
                    aug.push(b);
                }
                if !aug.is_empty() {
                    return Err(CudaError::Cubin(format!(
                        ".debug_frame CIE at {start:#x}: augmentation {:?} not supported",
                        String::from_utf8_lossy(&aug)
                    )));
                }
                if version >= 4 {
                    r.u8()?; // address size
                    r.u8()?; // segment selector size
                }
                let code_align = r.uleb()?;
                let data_align = r.sleb()?;
                let ra = if version == 1 {
                    r.u8()? as u64
                } else {
                    r.uleb()?
                };
                let body = d.get(r.p..end).ok_or_else(|| r.err())?;
                let ins = instructions(body, code_align, data_align)?;
                frame.cies.push(Cie {
                    offset: start,
                    version,
                    code_align,
                    data_align,
                    return_address: SassReg::decode(ra),
                    instructions: ins,
                });
            } else {
                let s = r.fixed(8)?;
                let l = r.fixed(8)?;
                let (ca, da) = frame
                    .cies
                    .iter()
                    .find(|c| c.offset == id)
                    .map_or((1, 1), |c| (c.code_align, c.data_align));
                let body = d.get(r.p..end).ok_or_else(|| r.err())?;
                let ins = instructions(body, ca, da)?;
                frame.fdes.push(Fde {
                    cie: id,
                    start: s,
                    len: l,
                    instructions: ins,
                });
            }
            r.p = end;
        }
        Ok(frame)
    }

    /// The CFA rule (register, offset) at `pc`: the CIE's initial rule, then the FDE's
    /// instructions up to `pc`.
    pub fn cfa_at(&self, pc: u64) -> Option<(SassReg, i64)> {
        let fde = self
            .fdes
            .iter()
            .find(|f| f.start <= pc && pc < f.start.wrapping_add(f.len))?;
        let cie = self.cies.iter().find(|c| c.offset == fde.cie)?;
        let mut rule: Option<(SassReg, i64)> = None;
        let apply = |i: &Cfa, rule: &mut Option<(SassReg, i64)>| match i {
            Cfa::DefCfa(r, o) => *rule = Some((*r, *o)),
            Cfa::DefCfaRegister(r) => *rule = Some((*r, rule.map_or(0, |x| x.1))),
            Cfa::DefCfaOffset(o) => {
                if let Some(x) = rule.as_mut() {
                    x.1 = *o;
                }
            }
            _ => {}
        };
        for i in &cie.instructions {
            apply(i, &mut rule);
        }
        let mut loc = fde.start;
        for i in &fde.instructions {
            match i {
                Cfa::AdvanceLoc(n) => {
                    loc += n;
                    if loc > pc {
                        break;
                    }
                }
                Cfa::SetLoc(a) => {
                    loc = *a;
                    if loc > pc {
                        break;
                    }
                }
                other => apply(other, &mut rule),
            }
        }
        rule
    }
}
