//! CUDA's register encodings in a cubin's debug information, which no DWARF library knows:
//!
//! - a `DW_OP_regx` operand is a PTX virtual register *name* packed into an integer, most
//!   significant byte first (`0x25726431` is `%rd1`);
//! - `.nv_debug_info_reg_sass` maps each function's PTX registers to SASS registers over PC
//!   ranges; a 64-bit PTX register lives in two 32-bit SASS registers ("parts");
//! - SASS registers in that map and in `.debug_frame` are `(class << 24) | number`, the class
//!   being `CUDBGRegClass` of `cudadebugger.h`;
//! - `.nv_debug_info_reg_type` gives each function a byte per map entry.
//!
//! The layouts were read off cubins built by NVRTC 12.9 (see docs/CUDA.md).

use std::collections::BTreeMap;

use crate::error::{CudaError, Result};

/// `CUDBGRegClass`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegClass {
    Invalid,
    Cc,
    Pred,
    Addr,
    Half,
    Full,
    MemLocal,
    LmemRegOffset,
    UniformPred,
    UniformHalf,
    UniformFull,
    Other(u8),
}

impl RegClass {
    pub fn from_raw(v: u8) -> RegClass {
        match v {
            0 => RegClass::Invalid,
            1 => RegClass::Cc,
            2 => RegClass::Pred,
            3 => RegClass::Addr,
            4 => RegClass::Half,
            5 => RegClass::Full,
            6 => RegClass::MemLocal,
            7 => RegClass::LmemRegOffset,
            9 => RegClass::UniformPred,
            10 => RegClass::UniformHalf,
            11 => RegClass::UniformFull,
            o => RegClass::Other(o),
        }
    }
}

/// A SASS register: class and number, from the packed `(class << 24) | number` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SassReg {
    pub class: RegClass,
    pub num: u32,
}

impl SassReg {
    pub fn decode(packed: u64) -> SassReg {
        SassReg {
            class: RegClass::from_raw(((packed >> 24) & 0xff) as u8),
            num: (packed & 0x00ff_ffff) as u32,
        }
    }
}

impl std::fmt::Display for SassReg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.class {
            RegClass::Full | RegClass::Half => {
                if self.num == 255 {
                    write!(f, "RZ")
                } else {
                    write!(f, "R{}", self.num)
                }
            }
            RegClass::UniformFull | RegClass::UniformHalf => {
                if self.num == 63 {
                    write!(f, "URZ")
                } else {
                    write!(f, "UR{}", self.num)
                }
            }
            RegClass::Pred => write!(f, "P{}", self.num),
            RegClass::UniformPred => write!(f, "UP{}", self.num),
            c => write!(f, "{c:?}{}", self.num),
        }
    }
}

/// The PTX register name packed in a `DW_OP_regx` operand, if it is one (`%` first).
pub fn ptx_register_name(regx: u64) -> Option<String> {
    let bytes: Vec<u8> = regx
        .to_be_bytes()
        .into_iter()
        .skip_while(|b| *b == 0)
        .collect();
    if bytes.first() != Some(&b'%') || !bytes.iter().all(|b| b.is_ascii_graphic()) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// Where one part of a PTX register is over `[start, end)` (offsets in the function).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SassLocation {
    /// 0: bits 0-31, 1: bits 32-63.
    pub part: u32,
    pub reg: SassReg,
    pub start: u32,
    pub end: u32,
}

/// `.nv_debug_info_reg_sass`: per function, PTX register name → SASS locations.
#[derive(Debug, Clone, Default)]
pub struct RegisterMap {
    functions: BTreeMap<String, Vec<(String, SassLocation)>>,
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Cursor<'a> {
    fn err(&self, m: &str) -> CudaError {
        CudaError::Cubin(format!("{} at offset {:#x}: {m}", self.what, self.pos))
    }
    fn cstr(&mut self) -> Result<String> {
        let rest = &self.data[self.pos..];
        let n = rest
            .iter()
            .position(|b| *b == 0)
            .ok_or_else(|| self.err("unterminated name"))?;
        let s = String::from_utf8_lossy(&rest[..n]).into_owned();
        self.pos += n + 1;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32> {
        let b = self
            .data
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.err("truncated"))?;
        self.pos += 4;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let b = self
            .data
            .get(self.pos..self.pos + n)
            .ok_or_else(|| self.err("truncated"))?;
        self.pos += n;
        Ok(b)
    }
    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
}

impl RegisterMap {
    /// Parse the section: per function its name, an entry count, then entries of
    /// `u32 part, name, u32 (class << 24 | reg), u32 start, u32 end`.
    pub fn parse(data: &[u8]) -> Result<RegisterMap> {
        let mut c = Cursor {
            data,
            pos: 0,
            what: ".nv_debug_info_reg_sass",
        };
        let mut functions = BTreeMap::new();
        while !c.done() {
            let func = c.cstr()?;
            let count = c.u32()?;
            let mut entries = Vec::with_capacity(count.min(4096) as usize);
            for _ in 0..count {
                let part = c.u32()?;
                let name = c.cstr()?;
                let packed = c.u32()?;
                let start = c.u32()?;
                let end = c.u32()?;
                entries.push((
                    name,
                    SassLocation {
                        part,
                        reg: SassReg::decode(packed as u64),
                        start,
                        end,
                    },
                ));
            }
            functions.insert(func, entries);
        }
        Ok(RegisterMap { functions })
    }

    pub fn functions(&self) -> impl Iterator<Item = &str> {
        self.functions.keys().map(String::as_str)
    }

    /// All entries of `function`, in section order.
    pub fn entries(&self, function: &str) -> &[(String, SassLocation)] {
        self.functions.get(function).map_or(&[], Vec::as_slice)
    }

    /// Where PTX register `ptx` of `function` is at function offset `offset`: one location
    /// per part, lowest part first; empty where it is not live.
    pub fn lookup(&self, function: &str, ptx: &str, offset: u64) -> Vec<SassLocation> {
        let mut v: Vec<SassLocation> = self
            .entries(function)
            .iter()
            .filter(|(n, l)| n == ptx && (l.start as u64) <= offset && offset < l.end as u64)
            .map(|(_, l)| *l)
            .collect();
        v.sort_by_key(|l| l.part);
        v.dedup_by_key(|l| l.part);
        v
    }
}

/// `.nv_debug_info_reg_type`: per function, one type byte per register map entry.
pub fn parse_reg_types(data: &[u8]) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut c = Cursor {
        data,
        pos: 0,
        what: ".nv_debug_info_reg_type",
    };
    let mut out = BTreeMap::new();
    while !c.done() {
        let func = c.cstr()?;
        let n = c.u32()? as usize;
        out.insert(func, c.bytes(n)?.to_vec());
    }
    Ok(out)
}
