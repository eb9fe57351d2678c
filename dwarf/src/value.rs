//! Values: a type, the bytes of an object of that type, and where the object lives (so that it
//! can be assigned to and its address taken).

use crate::types::TypeRef;

/// Where a value lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lval {
    /// A computed value (literal, arithmetic result, `DW_OP_stack_value`, history entry).
    None,
    /// In the debuggee's memory.
    Memory(u64),
    /// Part of a memory object: a bitfield of `bit_size` bits starting `bit_offset` bits after
    /// `addr` (little-endian bit numbering).
    Bitfield {
        addr: u64,
        bit_offset: u64,
        bit_size: u64,
    },
    /// In a register of the selected frame, by DWARF register number.
    Register(u16),
    /// Part of a value kept in a register (a member or an element): `offset` bytes into it.
    RegisterPart { reg: u16, offset: u64 },
    /// A value the compiler split into pieces (`DW_OP_piece`), each in a register or in
    /// memory, in order.
    Pieces(Vec<LvalPiece>),
}

/// One piece of an [`Lval::Pieces`] value: `len` bytes of the object from byte `start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LvalPiece {
    pub start: u64,
    pub len: u64,
    /// The low bytes of this register, or memory at this address.
    pub at: PieceAt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceAt {
    Register(u16),
    Memory(u64),
}

impl Lval {
    /// Where `size` bytes at `offset` into this object live, when that is one place (a
    /// member of a value in memory, in a register or in one piece of a split value).
    pub fn part(&self, offset: u64, size: u64) -> Lval {
        match self {
            Lval::Memory(a) => Lval::Memory(a.wrapping_add(offset)),
            Lval::Register(reg) => Lval::RegisterPart { reg: *reg, offset },
            Lval::RegisterPart { reg, offset: o } => Lval::RegisterPart {
                reg: *reg,
                offset: o + offset,
            },
            Lval::Pieces(pieces) => pieces
                .iter()
                .find(|p| p.start <= offset && offset + size <= p.start + p.len)
                .map(|p| match p.at {
                    PieceAt::Register(reg) => Lval::RegisterPart {
                        reg,
                        offset: offset - p.start,
                    },
                    PieceAt::Memory(a) => Lval::Memory(a.wrapping_add(offset - p.start)),
                })
                .unwrap_or(Lval::None),
            Lval::None | Lval::Bitfield { .. } => Lval::None,
        }
    }
}

/// A value as printing and evaluation see it.
#[derive(Debug, Clone)]
pub struct Value {
    pub ty: TypeRef,
    /// The object's bytes in target order, `ty.byte_size()` long (a bitfield's value is
    /// already shifted down and sign- or zero-extended to the member type's size).
    pub bytes: Vec<u8>,
    pub lval: Lval,
    /// The compiler did not keep this value here (printed `<optimized out>`).
    pub optimized_out: bool,
    /// Bit ranges (from the object's start) the compiler did not keep in a value it kept
    /// in part (a struct in pieces, some of them empty): the members there print as
    /// `<optimized out>`, and are `<optimized out>` when taken alone.
    pub lost_bits: Vec<std::ops::Range<u64>>,
}

impl Value {
    pub fn new(ty: TypeRef, bytes: Vec<u8>, lval: Lval) -> Self {
        Value {
            ty,
            bytes,
            lval,
            optimized_out: false,
            lost_bits: Vec::new(),
        }
    }

    pub fn optimized_out(ty: TypeRef) -> Self {
        Value {
            ty,
            bytes: Vec::new(),
            lval: Lval::None,
            optimized_out: true,
            lost_bits: Vec::new(),
        }
    }

    /// Whether any of the `len` bytes from byte `start` of the object were not kept.
    pub fn lost(&self, start: u64, len: u64) -> bool {
        bits_lost(&self.lost_bits, start, len)
    }

    /// Address of the object, when it lives in memory.
    pub fn address(&self) -> Option<u64> {
        match self.lval {
            Lval::Memory(a) => Some(a),
            _ => None,
        }
    }

    /// The bytes as an unsigned little-endian integer (first 8 bytes at most).
    pub fn as_u64(&self) -> u64 {
        let mut b = [0u8; 8];
        let n = self.bytes.len().min(8);
        b[..n].copy_from_slice(&self.bytes[..n]);
        u64::from_le_bytes(b)
    }

    /// The bytes as a signed integer of their own width, sign-extended.
    pub fn as_i64(&self) -> i64 {
        let n = self.bytes.len().min(8);
        if n == 0 {
            return 0;
        }
        let v = self.as_u64();
        let shift = 64 - 8 * n as u32;
        ((v << shift) as i64) >> shift
    }
}

/// Whether any bit of the `len` bytes from byte `start` lies in one of the ranges `lost`.
pub fn bits_lost(lost: &[std::ops::Range<u64>], start: u64, len: u64) -> bool {
    let (lo, hi) = (start * 8, (start + len) * 8);
    lost.iter().any(|r| r.start < hi && lo < r.end)
}

/// The ranges of `lost` inside the `len` bytes from byte `start`, made relative to `start`.
pub fn bits_lost_in(
    lost: &[std::ops::Range<u64>],
    start: u64,
    len: u64,
) -> Vec<std::ops::Range<u64>> {
    let (lo, hi) = (start * 8, (start + len) * 8);
    lost.iter()
        .filter(|r| r.start < hi && lo < r.end)
        .map(|r| r.start.max(lo) - lo..r.end.min(hi) - lo)
        .collect()
}
