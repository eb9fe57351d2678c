//! Control flow of straight-line code, for stepping with breakpoints instead of one trap per
//! instruction: where the next instruction that can leave the fall-through path is.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use capstone::InsnGroupType;
use capstone::prelude::*;

use crate::arch::{ArchInfo, DisasmKind};

/// What an instruction does to the flow of control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Plain,
    /// A call: control comes back after it (`len` bytes on).
    Call,
    /// A direct jump to `target`; `conditional` when it may also fall through.
    Jump { target: u64, conditional: bool },
    /// Anything else that may not fall through: indirect jumps, returns, traps, system calls,
    /// and bytes that do not decode.
    Branch,
}

thread_local! {
    static CS: RefCell<Option<(DisasmKind, Capstone)>> = const { RefCell::new(None) };
}

fn engine(kind: DisasmKind) -> Option<Capstone> {
    let cs = match kind {
        DisasmKind::X86_64 => Capstone::new()
            .x86()
            .mode(arch::x86::ArchMode::Mode64)
            .detail(true)
            .build(),
        DisasmKind::Aarch64 => Capstone::new()
            .arm64()
            .mode(arch::arm64::ArchMode::Arm)
            .detail(true)
            .build(),
    };
    cs.ok()
}

/// What [`next_control_flow`] found, by (disassembler, address), then code: every rank of a
/// program steps through the same lines, so one decoding serves them all.
type FlowMemo = HashMap<(DisasmKind, u64), Vec<(Box<[u8]>, Option<(u64, usize, Flow)>)>>;

static MEMO: LazyLock<RwLock<FlowMemo>> = LazyLock::new(|| RwLock::new(HashMap::new()));

/// Code longer than this is decoded without the memo.
const MEMO_MAX_CODE: usize = 512;
/// Addresses the memo holds before it starts again.
const MEMO_MAX_ENTRIES: usize = 8192;

/// The first instruction of `code` (at `addr`) that is not [`Flow::Plain`]: its address,
/// length and kind. `None` when every decoded instruction falls through.
pub fn next_control_flow(arch: &ArchInfo, code: &[u8], addr: u64) -> Option<(u64, usize, Flow)> {
    if code.len() > MEMO_MAX_CODE {
        return decode_control_flow(arch, code, addr);
    }
    let key = (arch.disasm, addr);
    if let Some(seen) = MEMO.read().unwrap_or_else(|e| e.into_inner()).get(&key)
        && let Some((_, r)) = seen.iter().find(|(c, _)| **c == *code)
    {
        return *r;
    }
    let r = decode_control_flow(arch, code, addr);
    let mut m = MEMO.write().unwrap_or_else(|e| e.into_inner());
    if m.len() >= MEMO_MAX_ENTRIES {
        m.clear();
    }
    let seen = m.entry(key).or_default();
    // Code at one address differs between programs (or after a write): keep a few.
    if seen.len() >= 8 {
        seen.clear();
    }
    seen.push((Box::from(code), r));
    r
}

fn decode_control_flow(arch: &ArchInfo, code: &[u8], addr: u64) -> Option<(u64, usize, Flow)> {
    CS.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(k, _)| *k != arch.disasm) {
            *slot = Some((arch.disasm, engine(arch.disasm)?));
        }
        let (_, cs) = slot.as_ref()?;
        let mut off = 0usize;
        while off < code.len() {
            let at = addr.wrapping_add(off as u64);
            let Ok(insns) = cs.disasm_count(&code[off..], at, 1) else {
                return Some((at, 1, Flow::Branch));
            };
            let Some(i) = insns.iter().next() else {
                // Undecodable or cut off at the end of the buffer.
                if code.len() - off < arch.max_insn_len {
                    return None;
                }
                return Some((at, 1, Flow::Branch));
            };
            let len = i.bytes().len();
            let kind = match cs.insn_detail(i) {
                Ok(d) => match classify(d.groups()) {
                    Flow::Branch if arch.disasm == DisasmKind::X86_64 => {
                        direct_jump_x86(&d, i.mnemonic().unwrap_or(""))
                    }
                    k => k,
                },
                Err(_) => Flow::Branch,
            };
            if kind != Flow::Plain {
                return Some((at, len, kind));
            }
            off += len;
        }
        None
    })
}

/// The target of a direct call at the start of `code` (at `addr`); `None` for indirect calls
/// and anything else. Used to name what a step runs through (e.g. `MPI_Recv`).
pub fn direct_call_target(arch: &ArchInfo, code: &[u8], addr: u64) -> Option<u64> {
    CS.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(k, _)| *k != arch.disasm) {
            *slot = Some((arch.disasm, engine(arch.disasm)?));
        }
        let (_, cs) = slot.as_ref()?;
        let insns = cs.disasm_count(code, addr, 1).ok()?;
        let i = insns.iter().next()?;
        let d = cs.insn_detail(i).ok()?;
        match arch.disasm {
            DisasmKind::X86_64 => {
                use capstone::arch::x86::X86OperandType;
                let ops: Vec<_> = d.arch_detail().x86()?.operands().collect();
                match ops.as_slice() {
                    [op] => match op.op_type {
                        X86OperandType::Imm(t) => Some(t as u64),
                        _ => None,
                    },
                    _ => None,
                }
            }
            DisasmKind::Aarch64 => {
                use capstone::arch::arm64::Arm64OperandType;
                let ops: Vec<_> = d.arch_detail().arm64()?.operands().collect();
                match ops.as_slice() {
                    [op] => match op.op_type {
                        Arm64OperandType::Imm(t) => Some(t as u64),
                        _ => None,
                    },
                    _ => None,
                }
            }
        }
    })
}

/// An x86 `jmp`/`jcc` with an immediate target (capstone gives it as an absolute address).
fn direct_jump_x86(d: &capstone::InsnDetail, mnemonic: &str) -> Flow {
    use capstone::arch::x86::X86OperandType;
    // Only the plain jumps: `loop*`/`jrcxz` and friends are left to single-stepping.
    if !mnemonic.starts_with('j') {
        return Flow::Branch;
    }
    let Some(x86) = d
        .arch_detail()
        .x86()
        .map(|x| x.operands().collect::<Vec<_>>())
    else {
        return Flow::Branch;
    };
    match x86.as_slice() {
        [op] => match op.op_type {
            X86OperandType::Imm(t) => Flow::Jump {
                target: t as u64,
                conditional: mnemonic != "jmp",
            },
            _ => Flow::Branch,
        },
        _ => Flow::Branch,
    }
}

fn classify(groups: &[capstone::InsnGroupId]) -> Flow {
    let has = |g: u32| groups.iter().any(|x| u32::from(x.0) == g);
    if has(InsnGroupType::CS_GRP_CALL) {
        Flow::Call
    } else if has(InsnGroupType::CS_GRP_JUMP)
        || has(InsnGroupType::CS_GRP_RET)
        || has(InsnGroupType::CS_GRP_INT)
        || has(InsnGroupType::CS_GRP_IRET)
        || has(InsnGroupType::CS_GRP_BRANCH_RELATIVE)
        || has(InsnGroupType::CS_GRP_PRIVILEGE)
    {
        Flow::Branch
    } else {
        Flow::Plain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_straight_line_then_call_then_jump() {
        let arch = &crate::arch::x86_64::ARCH;
        // mov -0x4(%rbp),%eax ; mov %eax,%edi ; call +0 ; jmp -2 ; syscall
        let code = [
            0x8b, 0x45, 0xfc, 0x89, 0xc7, 0xe8, 0, 0, 0, 0, 0xeb, 0xfe, 0x0f, 0x05,
        ];
        assert_eq!(
            next_control_flow(arch, &code, 0x1000),
            Some((0x1005, 5, Flow::Call))
        );
        assert_eq!(
            next_control_flow(arch, &code[10..], 0x100a),
            Some((
                0x100a,
                2,
                Flow::Jump {
                    target: 0x100a,
                    conditional: false
                }
            ))
        );
        // jl -0x10 ; ret ; jmp *%rax
        let jumps = [0x7c, 0xf0, 0xc3, 0xff, 0xe0];
        assert_eq!(
            next_control_flow(arch, &jumps, 0x2000),
            Some((
                0x2000,
                2,
                Flow::Jump {
                    target: 0x1ff2,
                    conditional: true
                }
            ))
        );
        assert_eq!(
            next_control_flow(arch, &jumps[2..], 0x2002),
            Some((0x2002, 1, Flow::Branch))
        );
        assert_eq!(
            next_control_flow(arch, &jumps[3..], 0x2003),
            Some((0x2003, 2, Flow::Branch))
        );
        assert_eq!(
            next_control_flow(arch, &code[12..], 0x100c),
            Some((0x100c, 2, Flow::Branch))
        );
        assert_eq!(next_control_flow(arch, &code[..5], 0x1000), None);
    }

    #[test]
    fn memo_tells_different_code_at_one_address_apart() {
        let arch = &crate::arch::x86_64::ARCH;
        // The same address, as different programs (or the same after a write) have it:
        // `nop ; ret`, then `nop ; nop ; call +0`, then the first again.
        let a = [0x90, 0xc3];
        let b = [0x90, 0x90, 0xe8, 0, 0, 0, 0];
        for _ in 0..2 {
            assert_eq!(
                next_control_flow(arch, &a, 0x7000),
                Some((0x7001, 1, Flow::Branch))
            );
            assert_eq!(
                next_control_flow(arch, &b, 0x7000),
                Some((0x7002, 5, Flow::Call))
            );
            assert_eq!(next_control_flow(arch, &a[..1], 0x7000), None);
        }
    }
}
