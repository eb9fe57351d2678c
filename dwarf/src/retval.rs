//! Where a function's return value is found right after it returns: the calling convention of
//! each architecture (x86-64 System V; AArch64 AAPCS64), keyed by the architecture table's
//! name so that callers never name an architecture.

use crate::types::{AggregateKind, Encoding, TypeKind, TypeRef};

/// Where (part of) a return value is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReturnLocation {
    /// Consecutive pieces taken from registers (DWARF numbers), `(regno, byte count)` each.
    Registers(Vec<(u16, usize)>),
    /// In memory at the address held in this register after the return.
    Memory { address_reg: u16 },
    /// Cannot say (gdb: "Value returned has type: … Cannot determine contents").
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Integer,
    Sse,
    X87,
    Memory,
    Empty,
}

fn merge(a: Class, b: Class) -> Class {
    use Class::*;
    match (a, b) {
        (x, y) if x == y => x,
        (Empty, x) | (x, Empty) => x,
        (Memory, _) | (_, Memory) => Memory,
        (Integer, _) | (_, Integer) => Integer,
        (X87, _) | (_, X87) => Memory,
        _ => Sse,
    }
}

/// Classify the eightbytes of `ty` placed at byte `offset` (System V AMD64 ABI §3.2.3).
fn classify(ty: &TypeRef, offset: u64, classes: &mut [Class]) -> bool {
    let t = ty.strip();
    let size = t.byte_size();
    match &t.kind {
        TypeKind::Base(Encoding::Float) if size == 16 => {
            if let Some(c) = classes.get_mut((offset / 8) as usize) {
                *c = merge(*c, Class::X87);
            }
            true
        }
        TypeKind::Base(Encoding::Float) => {
            if let Some(c) = classes.get_mut((offset / 8) as usize) {
                *c = merge(*c, Class::Sse);
            }
            true
        }
        TypeKind::Base(Encoding::ComplexFloat) => {
            let half = size / 2;
            if half > 8 {
                return false;
            }
            for k in 0..2 {
                if let Some(c) = classes.get_mut(((offset + k * half) / 8) as usize) {
                    *c = merge(*c, Class::Sse);
                }
            }
            true
        }
        TypeKind::Base(_)
        | TypeKind::Pointer(_)
        | TypeKind::Reference(_)
        | TypeKind::RvalueReference(_)
        | TypeKind::Enum { .. } => {
            if !offset.is_multiple_of(size.max(1)) {
                return false;
            }
            let first = (offset / 8) as usize;
            let last = ((offset + size.max(1) - 1) / 8) as usize;
            for i in first..=last {
                if let Some(c) = classes.get_mut(i) {
                    *c = merge(*c, Class::Integer);
                }
            }
            true
        }
        TypeKind::Array { element, .. } => {
            let es = element.byte_size();
            if es == 0 {
                return true;
            }
            let n = size / es;
            (0..n).all(|i| classify(element, offset + i * es, classes))
        }
        TypeKind::Aggregate { members, kind, .. } => {
            members.iter().filter(|m| !m.is_static).all(|m| {
                let mt = m.ty.get();
                if m.bitfield.is_some() {
                    let i = ((offset + m.offset) / 8) as usize;
                    if let Some(c) = classes.get_mut(i) {
                        *c = merge(*c, Class::Integer);
                    }
                    return true;
                }
                let at = offset
                    + if *kind == AggregateKind::Union {
                        0
                    } else {
                        m.offset
                    };
                classify(mt, at, classes)
            })
        }
        _ => false,
    }
}

/// Where a value of type `ty` returned by a function is, for the architecture named `arch`.
pub fn return_location(arch: &str, ty: &TypeRef) -> ReturnLocation {
    match arch {
        "x86_64" | "x86-64" | "i386:x86-64" => sysv_x86_64(ty),
        _ => ReturnLocation::Unknown,
    }
}

fn sysv_x86_64(ty: &TypeRef) -> ReturnLocation {
    // DWARF numbers: rax 0, rdx 1, xmm0 17, xmm1 18, st0 33.
    const RAX: u16 = 0;
    const RDX: u16 = 1;
    const XMM0: u16 = 17;
    const XMM1: u16 = 18;
    const ST0: u16 = 33;
    let t = ty.strip();
    let size = t.byte_size() as usize;
    if size == 0 {
        return ReturnLocation::Unknown;
    }
    if size > 16 {
        return ReturnLocation::Memory { address_reg: RAX };
    }
    let mut classes = [Class::Empty; 2];
    if !classify(ty, 0, &mut classes) {
        return ReturnLocation::Memory { address_reg: RAX };
    }
    if classes.contains(&Class::Memory) {
        return ReturnLocation::Memory { address_reg: RAX };
    }
    if classes[0] == Class::X87 {
        return ReturnLocation::Registers(vec![(ST0, size.min(10))]);
    }
    let mut ints = [RAX, RDX].into_iter();
    let mut sses = [XMM0, XMM1].into_iter();
    let mut out = Vec::new();
    let words = size.div_ceil(8);
    for (i, c) in classes.iter().enumerate().take(words) {
        let bytes = (size - i * 8).min(8);
        let reg = match c {
            Class::Sse => sses.next(),
            _ => ints.next(),
        };
        match reg {
            Some(r) => out.push((r, bytes)),
            None => return ReturnLocation::Unknown,
        }
    }
    ReturnLocation::Registers(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{LazyType, Member, Type};

    fn member(name: &str, ty: TypeRef, offset: u64) -> Member {
        Member {
            name: Some(name.into()),
            ty: LazyType::ready(ty),
            offset,
            bitfield: None,
            is_static: false,
            is_base: false,
        }
    }

    #[test]
    fn sysv_classes() {
        let int = Type::base("int", 4, Encoding::Signed);
        let dbl = Type::base("double", 8, Encoding::Float);
        let ld = Type::base("long double", 16, Encoding::Float);
        assert_eq!(
            return_location("x86_64", &int),
            ReturnLocation::Registers(vec![(0, 4)])
        );
        assert_eq!(
            return_location("x86_64", &dbl),
            ReturnLocation::Registers(vec![(17, 8)])
        );
        assert_eq!(
            return_location("x86_64", &ld),
            ReturnLocation::Registers(vec![(33, 10)])
        );
        let mixed = Type::new(
            Some("s".into()),
            16,
            TypeKind::Aggregate {
                kind: AggregateKind::Struct,
                members: vec![member("d", dbl.clone(), 0), member("i", int.clone(), 8)],
                declaration: false,
            },
        );
        assert_eq!(
            return_location("x86_64", &mixed),
            ReturnLocation::Registers(vec![(17, 8), (0, 8)])
        );
        let big = Type::array_of(int, 6);
        assert_eq!(
            return_location("x86_64", &big),
            ReturnLocation::Memory { address_reg: 0 }
        );
    }
}
