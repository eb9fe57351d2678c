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

/// What one instruction would do, as far as the sandbox (`Process::sandbox_run`) needs to
/// know before it runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStep {
    /// The instruction may run: it is `len` bytes long, falls through or jumps directly, and
    /// stores only to `stores` (address, bytes), computed from `regs`.
    Run {
        len: usize,
        flow: Flow,
        stores: Vec<(u64, u64)>,
    },
    /// The sandbox must not run it (why, for the log).
    Refuse(&'static str),
}

/// Decode the instruction at the start of `code` (at `addr`) and say whether the sandbox may
/// run it with registers `regs`, and where it stores.
pub fn sandbox_step(
    arch: &ArchInfo,
    code: &[u8],
    addr: u64,
    regs: &crate::regs::Registers,
) -> SandboxStep {
    let Some(rules) = arch.sandbox else {
        return SandboxStep::Refuse("no sandbox on this architecture");
    };
    CS.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(k, _)| *k != arch.disasm) {
            match engine(arch.disasm) {
                Some(cs) => *slot = Some((arch.disasm, cs)),
                None => return SandboxStep::Refuse("no disassembler"),
            }
        }
        let Some((_, cs)) = slot.as_ref() else {
            return SandboxStep::Refuse("no disassembler");
        };
        let Ok(insns) = cs.disasm_count(code, addr, 1) else {
            return SandboxStep::Refuse("undecodable instruction");
        };
        let Some(i) = insns.iter().next() else {
            return SandboxStep::Refuse("undecodable instruction");
        };
        let len = i.bytes().len();
        let mnemonic = i.mnemonic().unwrap_or("");
        let starts = |p: &&str| mnemonic.starts_with(*p);
        if rules.refuse.iter().any(starts) {
            return SandboxStep::Refuse("instruction with effects the sandbox cannot undo");
        }
        let Ok(d) = cs.insn_detail(i) else {
            return SandboxStep::Refuse("no instruction detail");
        };
        let flow = match classify(d.groups()) {
            Flow::Branch if arch.disasm == DisasmKind::X86_64 => direct_jump_x86(&d, mnemonic),
            k => k,
        };
        match flow {
            Flow::Plain | Flow::Jump { .. } => {}
            Flow::Call | Flow::Branch => return SandboxStep::Refuse("call or indirect branch"),
        }
        let mut stores = Vec::new();
        if let Some((_, n)) = rules.push.iter().find(|(p, _)| mnemonic.starts_with(*p)) {
            stores.push((regs.sp().wrapping_sub(*n), *n));
        }
        if !rules.no_access.iter().any(starts) {
            let next = addr.wrapping_add(len as u64);
            match arch.disasm {
                DisasmKind::X86_64 => {
                    if let Err(why) = x86_stores(cs, &d, regs, next, &mut stores) {
                        return SandboxStep::Refuse(why);
                    }
                }
                DisasmKind::Aarch64 => {
                    return SandboxStep::Refuse("no sandbox on this architecture");
                }
            }
        }
        SandboxStep::Run { len, flow, stores }
    })
}

/// The memory operands an x86 instruction writes (or may write: an operand whose access the
/// disassembler does not give counts as written), as (address, bytes).
fn x86_stores(
    cs: &Capstone,
    d: &capstone::InsnDetail,
    regs: &crate::regs::Registers,
    next_pc: u64,
    out: &mut Vec<(u64, u64)>,
) -> Result<(), &'static str> {
    use capstone::arch::x86::X86OperandType;
    let Some(x86) = d
        .arch_detail()
        .x86()
        .map(|x| x.operands().collect::<Vec<_>>())
    else {
        return Err("no operand detail");
    };
    let value = |r: capstone::RegId| -> Result<u64, &'static str> {
        if r.0 == 0 {
            return Ok(0);
        }
        let name = cs.reg_name(r).ok_or("unknown register")?;
        if name == "rip" {
            return Ok(next_pc);
        }
        let i = regs
            .arch
            .reg_index(&name)
            .ok_or("address register not 64-bit")?;
        let desc = regs.arch.regs.get(i).ok_or("unknown register")?;
        if desc.size != 8
            || !matches!(
                desc.kind,
                crate::arch::RegKind::Int
                    | crate::arch::RegKind::Uint
                    | crate::arch::RegKind::DataPtr
                    | crate::arch::RegKind::CodePtr
            )
        {
            return Err("address register not 64-bit");
        }
        regs.get(i)
            .map(|v| v as u64)
            .ok_or("register not available")
    };
    for op in x86 {
        let X86OperandType::Mem(m) = op.op_type else {
            continue;
        };
        if op.access.is_some_and(|a| !a.is_writable()) {
            continue;
        }
        if m.segment().0 != 0 {
            return Err("segment-relative store");
        }
        let ea = value(m.base())?
            .wrapping_add(value(m.index())?.wrapping_mul(m.scale() as u64))
            .wrapping_add(m.disp() as u64);
        if op.size == 0 {
            return Err("store of unknown size");
        }
        out.push((ea, u64::from(op.size)));
    }
    Ok(())
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

    #[test]
    fn x86_sandbox_stores_and_refusals() {
        use crate::arch::x86_64::idx;
        let arch = &crate::arch::x86_64::ARCH;
        let mut regs = crate::regs::Registers::new(arch);
        for i in 0..arch.regs.len() {
            regs.set(i, 0);
        }
        regs.set(idx::RBP, 0x7000);
        regs.set(idx::RSP, 0x6fe0);
        regs.set(idx::RAX, 0x100);
        regs.set(idx::RDX, 3);
        let step = |code: &[u8]| sandbox_step(arch, code, 0x1000, &regs);
        // mov %rdi,-0x18(%rbp): an 8-byte store at rbp-0x18.
        assert_eq!(
            step(&[0x48, 0x89, 0x7d, 0xe8]),
            SandboxStep::Run {
                len: 4,
                flow: Flow::Plain,
                stores: vec![(0x7000 - 0x18, 8)]
            }
        );
        // movl $-1,(%rax,%rdx,4): base + index * scale.
        assert_eq!(
            step(&[0xc7, 0x04, 0x90, 0xff, 0xff, 0xff, 0xff]),
            SandboxStep::Run {
                len: 7,
                flow: Flow::Plain,
                stores: vec![(0x10c, 4)]
            }
        );
        // mov -0x18(%rbp),%rax (a load) and lea (%rcx,%rax,1),%rdx: no store.
        for code in [&[0x48, 0x8b, 0x45, 0xe8][..], &[0x48, 0x8d, 0x14, 0x01]] {
            assert!(matches!(step(code), SandboxStep::Run { stores, .. } if stores.is_empty()));
        }
        // push %rbp: 8 bytes below the stack pointer.
        assert!(
            matches!(step(&[0x55]), SandboxStep::Run { stores, .. } if stores == vec![(0x6fd8, 8)])
        );
        // mov %rax,0x10(%rip): rip-relative, from the next instruction.
        assert!(matches!(
            step(&[0x48, 0x89, 0x05, 0x10, 0, 0, 0]),
            SandboxStep::Run { stores, .. } if stores == vec![(0x1007 + 0x10, 8)]
        ));
        // call, ret, syscall, rep stos, a %fs store, jmp *%rax: refused.
        for code in [
            &[0xe8, 0, 0, 0, 0][..],
            &[0xc3],
            &[0x0f, 0x05],
            &[0xf3, 0x48, 0xab],
            &[0x64, 0x48, 0x89, 0x04, 0x25, 0, 0, 0, 0],
            &[0xff, 0xe0],
        ] {
            assert!(matches!(step(code), SandboxStep::Refuse(_)), "{code:x?}");
        }
        // A conditional jump runs.
        assert!(matches!(
            step(&[0x74, 0x02]),
            SandboxStep::Run {
                flow: Flow::Jump {
                    target: 0x1004,
                    conditional: true
                },
                ..
            }
        ));
    }
}
