//! AArch64 (ARMv8-A, Linux) architecture table and the pure encodings the native layer needs:
//! `BRK`, the hardware watchpoint / breakpoint control registers (DBGWCR / DBGBCR as the
//! `NT_ARM_HW_WATCH` / `NT_ARM_HW_BREAK` regsets take them) and the byte layout of
//! `struct user_hwdebug_state`.
//!
//! Register order and display types follow gdb's `org.gnu.gdb.aarch64.core` and
//! `org.gnu.gdb.aarch64.fpu` features (x0..x30, sp, pc, cpsr, v0..v31, fpsr, fpcr); DWARF
//! numbers follow "DWARF for the Arm 64-bit Architecture" (AADWARF64).

use super::{
    AbiValue, ArchInfo, CallLayout, DisasmKind, FlagsDesc, Place, RegDesc, RegKind, Scalar,
    WatchKind,
};
use crate::error::Result;
use crate::memory::MemoryRead;

/// Single-bit fields of gdb's `cpsr_flags` type. gdb also shows the multi-bit fields
/// `EL` (bits 2-3) and `BTYPE` (bits 10-11) as `EL=0 BTYPE=0`; [`RegKind::Flags`] names single
/// bits only, so those two are not in this list.
/// gdb's `cpsr_flags`.
const CPSR: FlagsDesc = FlagsDesc {
    type_name: "cpsr_flags",
    bits: CPSR_BITS,
};

const CPSR_BITS: &[(u32, &str)] = &[
    (0, "SP"),
    (4, "nRW"),
    (6, "F"),
    (7, "I"),
    (8, "A"),
    (9, "D"),
    (12, "SSBS"),
    (20, "IL"),
    (21, "SS"),
    (22, "PAN"),
    (23, "UAO"),
    (24, "DIT"),
    (25, "TCO"),
    (28, "V"),
    (29, "C"),
    (30, "Z"),
    (31, "N"),
];

/// Single-bit fields of gdb's `fpsr_flags` type (cumulative exception and condition bits).
/// gdb's `fpsr_flags`.
const FPSR: FlagsDesc = FlagsDesc {
    type_name: "fpsr_flags",
    bits: FPSR_BITS,
};

const FPSR_BITS: &[(u32, &str)] = &[
    (0, "IOC"),
    (1, "DZC"),
    (2, "OFC"),
    (3, "UFC"),
    (4, "IXC"),
    (7, "IDC"),
    (27, "QC"),
    (28, "V"),
    (29, "C"),
    (30, "Z"),
    (31, "N"),
];

/// Single-bit fields of gdb's `fpcr_flags` type. The multi-bit fields `Len` (16-18),
/// `Stride` (20-21) and `RMode` (22-23) cannot be expressed in [`RegKind::Flags`].
/// gdb's `fpcr_flags`.
const FPCR: FlagsDesc = FlagsDesc {
    type_name: "fpcr_flags",
    bits: FPCR_BITS,
};

const FPCR_BITS: &[(u32, &str)] = &[
    (0, "FIZ"),
    (1, "AH"),
    (2, "NEP"),
    (8, "IOE"),
    (9, "DZE"),
    (10, "OFE"),
    (11, "UFE"),
    (12, "IXE"),
    (13, "EBF"),
    (15, "IDE"),
    (19, "FZ16"),
    (24, "FZ"),
    (25, "DN"),
    (26, "AHP"),
];

/// An x register: gdb type `int` (signed 64-bit), DWARF number = register number.
const fn x(name: &'static str, dwarf: u16) -> RegDesc {
    reg(name, Some(dwarf), 8, RegKind::Int, true)
}

/// A 128-bit SIMD/FP register; AADWARF64 numbers them 64 + n.
const fn v(name: &'static str, n: u16) -> RegDesc {
    reg(name, Some(64 + n), 16, RegKind::Vector128, false)
}

const fn reg(
    name: &'static str,
    dwarf: Option<u16>,
    size: usize,
    kind: RegKind,
    general: bool,
) -> RegDesc {
    RegDesc::new(name, dwarf, size, kind, general)
}

/// Register table in gdb's order. Indices are used by `crate::native` (keep in sync with
/// [`idx`]). x0..x30, sp, pc and cpsr are `struct user_pt_regs` (`NT_PRSTATUS`; cpsr is its
/// `pstate`), v0..v31, fpsr and fpcr are `struct user_fpsimd_state` (`NT_PRFPREG`).
///
/// Not in the table: `tpidr` (the thread pointer, `NT_ARM_TLS`), the SVE/SME/pointer
/// authentication registers, and gdb's pseudo registers (w0..w30, q/d/s/h/b views) and
/// aliases (`fp`, `lr`).
pub const REGS: &[RegDesc] = &[
    x("x0", 0),
    x("x1", 1),
    x("x2", 2),
    x("x3", 3),
    x("x4", 4),
    x("x5", 5),
    x("x6", 6),
    x("x7", 7),
    x("x8", 8),
    x("x9", 9),
    x("x10", 10),
    x("x11", 11),
    x("x12", 12),
    x("x13", 13),
    x("x14", 14),
    x("x15", 15),
    x("x16", 16),
    x("x17", 17),
    x("x18", 18),
    x("x19", 19),
    x("x20", 20),
    x("x21", 21),
    x("x22", 22),
    x("x23", 23),
    x("x24", 24),
    x("x25", 25),
    x("x26", 26),
    x("x27", 27),
    x("x28", 28),
    x("x29", 29),
    x("x30", 30),
    reg("sp", Some(31), 8, RegKind::DataPtr, true),
    // AADWARF64 revisions from 2021 on reserve 32 for PC, but compilers never use it (the CIE
    // return-address column is 30, x30) and gdb does not map it; keep it unnumbered.
    reg("pc", None, 8, RegKind::CodePtr, true),
    reg("cpsr", None, 4, RegKind::Flags(&CPSR), true),
    v("v0", 0),
    v("v1", 1),
    v("v2", 2),
    v("v3", 3),
    v("v4", 4),
    v("v5", 5),
    v("v6", 6),
    v("v7", 7),
    v("v8", 8),
    v("v9", 9),
    v("v10", 10),
    v("v11", 11),
    v("v12", 12),
    v("v13", 13),
    v("v14", 14),
    v("v15", 15),
    v("v16", 16),
    v("v17", 17),
    v("v18", 18),
    v("v19", 19),
    v("v20", 20),
    v("v21", 21),
    v("v22", 22),
    v("v23", 23),
    v("v24", 24),
    v("v25", 25),
    v("v26", 26),
    v("v27", 27),
    v("v28", 28),
    v("v29", 29),
    v("v30", 30),
    v("v31", 31),
    reg("fpsr", None, 4, RegKind::Flags(&FPSR), true),
    reg("fpcr", None, 4, RegKind::Flags(&FPCR), true),
];

/// Index constants into [`REGS`].
pub mod idx {
    pub const X0: usize = 0;
    pub const X1: usize = 1;
    pub const X2: usize = 2;
    pub const X3: usize = 3;
    pub const X4: usize = 4;
    pub const X5: usize = 5;
    pub const X6: usize = 6;
    pub const X7: usize = 7;
    pub const X8: usize = 8;
    pub const X29: usize = 29;
    pub const X30: usize = 30;
    pub const SP: usize = 31;
    pub const PC: usize = 32;
    pub const CPSR: usize = 33;
    pub const V0: usize = 34;
    pub const FPSR: usize = 66;
    pub const FPCR: usize = 67;
}

/// `BRK #0`, little-endian (gdb's `aarch64_default_breakpoint`).
pub const BREAKPOINT: &[u8] = &[0x00, 0x00, 0x20, 0xd4];

const SUB_REGISTERS: &[(&str, &str, usize)] = &[
    ("w0", "x0", 4),
    ("w1", "x1", 4),
    ("w2", "x2", 4),
    ("w3", "x3", 4),
    ("w4", "x4", 4),
    ("w5", "x5", 4),
    ("w6", "x6", 4),
    ("w7", "x7", 4),
    ("w8", "x8", 4),
    ("w9", "x9", 4),
    ("w10", "x10", 4),
    ("w11", "x11", 4),
    ("w12", "x12", 4),
    ("w13", "x13", 4),
    ("w14", "x14", 4),
    ("w15", "x15", 4),
    ("w16", "x16", 4),
    ("w17", "x17", 4),
    ("w18", "x18", 4),
    ("w19", "x19", 4),
    ("w20", "x20", 4),
    ("w21", "x21", 4),
    ("w22", "x22", 4),
    ("w23", "x23", 4),
    ("w24", "x24", 4),
    ("w25", "x25", 4),
    ("w26", "x26", 4),
    ("w27", "x27", 4),
    ("w28", "x28", 4),
    ("w29", "x29", 4),
    ("w30", "x30", 4),
];

pub static ARCH: ArchInfo = ArchInfo {
    name: "aarch64",
    ptr_size: 8,
    breakpoint_insn: BREAKPOINT,
    // The kernel reports a BRK trap with the PC at the BRK itself.
    pc_after_breakpoint: 0,
    // AAPCS64 on Linux has no red zone.
    red_zone: 0,
    max_insn_len: 4,
    regs: REGS,
    pc: idx::PC,
    sp: idx::SP,
    fp: idx::X29,
    return_value: idx::X0,
    // There is no orig_x0 in user_pt_regs: at a syscall stop the number is in x8 (changed
    // through the NT_ARM_SYSTEM_CALL regset), and x0 is overwritten by the return value at
    // exit. The kernel also clobbers x7 while reporting a syscall stop (0 = entry, 1 = exit).
    syscall_number: idx::X8,
    syscall_return: idx::X0,
    args: &[
        idx::X0,
        idx::X1,
        idx::X2,
        idx::X3,
        idx::X4,
        idx::X5,
        idx::X6,
        idx::X7,
    ],
    // The thread pointer is TPIDR_EL0, read through the NT_ARM_TLS regset, which this table
    // does not cover.
    thread_pointer: None,
    // Typical (Cortex-A cores implement 4 watchpoints and 6 breakpoints); the real count is
    // the low byte of `dbg_info` read from NT_ARM_HW_WATCH at run time, see [`DbgInfo`].
    watch_slots: 4,
    // One DBGWVR/DBGWCR pair covers any contiguous bytes inside one aligned doubleword; the
    // engine asks for naturally aligned 1, 2, 4 or 8 bytes, as on x86-64.
    watch_lengths: &[1, 2, 4, 8],
    disasm: DisasmKind::Aarch64,
    hw_breakpoint_resumes: false,
    sub_registers: SUB_REGISTERS,
    wide_vectors: &[],
    skip_prologue,
    sandbox: None,
    call: Some(&CALL),
    syscalls: super::syscalls_aarch64::SYSCALLS,
};

/// The AAPCS64 procedure call standard (§6.8), for C: integers and small composites in
/// x0–x7, floating point and homogeneous floating-point aggregates in v0–v7, composites over
/// 16 bytes by reference to a copy, a return in memory through x8.
pub static CALL: super::CallConv = super::CallConv {
    layout: call_layout,
    indirect_in: idx::X8,
    stack_align: 16,
    stack_slot: 8,
    link_register: Some(idx::X30),
    reserved: 0,
    dummy_frame_offset: 0,
    return_on_stack: false,
};

/// The members of a homogeneous floating-point aggregate (1 to 4 floats of one size): their
/// size; `None` otherwise.
fn hfa(v: &AbiValue) -> Option<u64> {
    let first = v.pieces.first()?;
    let n = v.pieces.len();
    let all = v
        .pieces
        .iter()
        .all(|p| p.2 != Scalar::Int && p.1 == first.1);
    (all && (1..=4).contains(&n) && first.1 * n as u64 == v.bytes.len() as u64).then_some(first.1)
}

fn call_layout(args: &[AbiValue], ret: Option<&AbiValue>) -> CallLayout {
    const GP: usize = 8;
    const FP: usize = 8;
    let ret_place = match ret {
        None => Place::Nothing,
        Some(r) => {
            let size = r.bytes.len() as u64;
            match hfa(r) {
                Some(m) if !r.memory => Place::Regs(
                    (0..size / m)
                        .map(|k| (idx::V0 + k as usize, k * m, m))
                        .collect(),
                ),
                _ if r.memory || size > 16 => Place::Indirect,
                _ => Place::Regs(
                    (0..size.div_ceil(8))
                        .map(|k| (idx::X0 + k as usize, 8 * k, (size - 8 * k).min(8)))
                        .collect(),
                ),
            }
        }
    };
    let (mut ngrn, mut nsrn) = (0usize, 0usize);
    let mut places = Vec::with_capacity(args.len());
    for a in args {
        let size = a.bytes.len() as u64;
        let place = if let Some(m) = hfa(a).filter(|_| !a.memory) {
            let n = (size / m) as usize;
            if nsrn + n <= FP {
                let regs = (0..n)
                    .map(|k| (idx::V0 + nsrn + k, k as u64 * m, m))
                    .collect();
                nsrn += n;
                Place::Regs(regs)
            } else {
                nsrn = FP;
                Place::Stack
            }
        } else if a.memory || size > 16 {
            // A pointer to a copy, passed as an integer argument.
            let inner = if ngrn < GP {
                ngrn += 1;
                Place::Regs(vec![(idx::X0 + ngrn - 1, 0, 8)])
            } else {
                Place::Stack
            };
            Place::ByReference(Box::new(inner))
        } else {
            let n = size.div_ceil(8) as usize;
            // A 16-byte aligned value starts at an even register.
            if a.align == 16 {
                ngrn += ngrn % 2;
            }
            if ngrn + n <= GP {
                let regs = (0..n)
                    .map(|k| {
                        (
                            idx::X0 + ngrn + k,
                            8 * k as u64,
                            (size - 8 * k as u64).min(8),
                        )
                    })
                    .collect();
                ngrn += n;
                Place::Regs(regs)
            } else {
                ngrn = GP;
                Place::Stack
            }
        };
        places.push(place);
    }
    CallLayout {
        args: places,
        ret: ret_place,
        extra: Vec::new(),
    }
}

/// Unwinding facts (AAPCS64 §6.1.1; Linux `struct rt_sigframe` = siginfo (128 bytes) then
/// ucontext, whose uc_mcontext is at 176 and starts with fault_address).
pub static UNWIND: super::UnwindInfo = super::UnwindInfo {
    return_address_column: 30,
    preserved: &[
        19,
        20,
        21,
        22,
        23,
        24,
        25,
        26,
        27,
        28,
        idx::X29,
        idx::SP,
        idx::FPCR,
    ],
    fp_cfa_offset: 16,
    fp_ra_offset: 8,
    fp_saved_fp_offset: 0,
    entry_cfa_offset: 0,
    entry_ra_register: Some(idx::X30),
    signal_frame: super::SignalFrameLayout {
        // __kernel_rt_sigreturn (vDSO): mov x8, #139; svc #0
        trampoline: &[0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4],
        context_offset: 128 + 176 + 8,
        regs: &[
            (0, 0, 8),
            (1, 8, 8),
            (2, 16, 8),
            (3, 24, 8),
            (4, 32, 8),
            (5, 40, 8),
            (6, 48, 8),
            (7, 56, 8),
            (8, 64, 8),
            (9, 72, 8),
            (10, 80, 8),
            (11, 88, 8),
            (12, 96, 8),
            (13, 104, 8),
            (14, 112, 8),
            (15, 120, 8),
            (16, 128, 8),
            (17, 136, 8),
            (18, 144, 8),
            (19, 152, 8),
            (20, 160, 8),
            (21, 168, 8),
            (22, 176, 8),
            (23, 184, 8),
            (24, 192, 8),
            (25, 200, 8),
            (26, 208, 8),
            (27, 216, 8),
            (28, 224, 8),
            (29, 232, 8),
            (30, 240, 8),
            (idx::SP, 248, 8),
            (idx::PC, 256, 8),
            (idx::CPSR, 264, 4),
        ],
    },
};

// ---------------------------------------------------------------------------------------------
// Instruction decoding
// ---------------------------------------------------------------------------------------------

/// `PACIASP` (`HINT #25`).
pub const PACIASP: u32 = 0xd503_233f;
/// `PACIBSP` (`HINT #27`).
pub const PACIBSP: u32 = 0xd503_237f;
/// `BTI c` (`HINT #34`).
pub const BTI_C: u32 = 0xd503_245f;
/// `BTI jc` (`HINT #38`).
pub const BTI_JC: u32 = 0xd503_24df;

/// Register number 31 as a base register: `sp`.
const SP_REG: u32 = 31;

/// The `n`-th 32-bit little-endian instruction word of `code`, if all four bytes are there.
fn word(code: &[u8], n: usize) -> Option<u32> {
    let at = n.checked_mul(4)?;
    let bytes: [u8; 4] = code.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(bytes))
}

/// Operands of a 64-bit `STP Xt, Xt2, [Xn|SP, #imm]!` (store pair, pre-index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StpPreIndex {
    pub rt: u32,
    pub rt2: u32,
    pub rn: u32,
    /// Byte offset (imm7 scaled by 8), -512..=504.
    pub offset: i64,
}

/// Decodes `STP Xt, Xt2, [Xn|SP, #imm]!`: opc=10, V=0, pre-index (011), L=0.
pub fn decode_stp_pre_index(insn: u32) -> Option<StpPreIndex> {
    if insn & 0xffc0_0000 != 0xa980_0000 {
        return None;
    }
    let imm7 = (insn >> 15) & 0x7f;
    // Sign-extend the 7-bit field.
    let imm = ((imm7 << 25) as i32) >> 25;
    Some(StpPreIndex {
        rt: insn & 0x1f,
        rt2: (insn >> 10) & 0x1f,
        rn: (insn >> 5) & 0x1f,
        offset: i64::from(imm) * 8,
    })
}

/// Destination register of `MOV Xd, SP` (the alias of `ADD Xd, SP, #0`), if `insn` is one.
pub fn decode_mov_from_sp(insn: u32) -> Option<u32> {
    // ADD (immediate), 64-bit, sh=0, imm12=0, Rn=SP.
    (insn & 0xffff_ffe0 == 0x9100_03e0).then_some(insn & 0x1f)
}

/// Length of the standard AArch64 frame setup at `code`, or 0 if it does not start with one:
///
/// ```text
///     [bti c | bti jc]          optional landing pad
///     [paciasp | pacibsp]       optional return-address signing
///     stp x29, x30, [sp, #-N]!
///     mov x29, sp
/// ```
///
/// Anything else (a frame set up with `sub sp` first, a leaf without a frame) leaves the
/// breakpoint at the entry, like gdb without line info.
pub fn skip_prologue(code: &[u8]) -> usize {
    let mut n = 0;
    if matches!(word(code, n), Some(BTI_C | BTI_JC)) {
        n += 1;
    }
    if matches!(word(code, n), Some(PACIASP | PACIBSP)) {
        n += 1;
    }
    let Some(stp) = word(code, n).and_then(decode_stp_pre_index) else {
        return 0;
    };
    if stp.rt != 29 || stp.rt2 != 30 || stp.rn != SP_REG || stp.offset >= 0 {
        return 0;
    }
    if word(code, n + 1).and_then(decode_mov_from_sp) != Some(29) {
        return 0;
    }
    (n + 2) * 4
}

/// `BRK #imm16`.
pub const fn encode_brk(imm: u16) -> u32 {
    0xd420_0000 | ((imm as u32) << 5)
}

/// The immediate of a `BRK` instruction, or `None` if `insn` is not one.
pub const fn decode_brk(insn: u32) -> Option<u16> {
    if insn & 0xffe0_001f == 0xd420_0000 {
        Some(((insn >> 5) & 0xffff) as u16)
    } else {
        None
    }
}

/// Immediate used by GCC's `__builtin_trap` (`brk #0x3e8`): a program's own trap, not a
/// debugger breakpoint. Any `BRK` raises SIGTRAP/TRAP_BRKPT, so the engine must tell its own
/// breakpoints from these by address (and by immediate).
pub const GCC_TRAP_IMM: u16 = 0x3e8;

/// The immediate of the `BRK` at `addr` in `mem`, `Ok(None)` if the instruction there is
/// something else or `addr` is not 4-byte aligned (no instruction can start there).
pub fn brk_at<M: MemoryRead + ?Sized>(mem: &M, addr: u64) -> Result<Option<u16>> {
    if addr & 3 != 0 {
        return Ok(None);
    }
    Ok(decode_brk(mem.read_u32(addr)?))
}

// ---------------------------------------------------------------------------------------------
// Hardware watchpoints and breakpoints (NT_ARM_HW_WATCH / NT_ARM_HW_BREAK)
// ---------------------------------------------------------------------------------------------

/// DBGxCR.E: the slot is enabled.
pub const CTRL_ENABLE: u32 = 1;
/// DBGxCR.PAC / PMC (bits 1-2) = 0b10: match at EL0 only (the only value Linux accepts from
/// user space, `AARCH64_BREAKPOINT_EL0`).
pub const CTRL_EL0: u32 = 0b10 << 1;

/// DBGWCR.LSC (bits 3-4): which accesses a watchpoint matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Lsc {
    Load = 0b01,
    Store = 0b10,
    LoadStore = 0b11,
}

/// Raw DBGWCR value for an enabled EL0 watchpoint: E | PAC | LSC | BAS.
pub const fn dbgwcr(lsc: Lsc, bas: u8) -> u32 {
    CTRL_ENABLE | CTRL_EL0 | ((lsc as u32) << 3) | ((bas as u32) << 5)
}

/// DBGWVR address (the enclosing 8-byte aligned doubleword) and DBGWCR value for a watch of
/// `len` bytes at `addr` with access type `lsc`. BAS selects bytes `offset..offset + len` of
/// the doubleword. `None` if `len` is 0 or the range crosses into the next doubleword.
pub fn watch_control_lsc(lsc: Lsc, addr: u64, len: usize) -> Option<(u64, u32)> {
    let offset = (addr % 8) as usize;
    if len == 0 || offset + len > 8 {
        return None;
    }
    // len <= 8, so the mask fits in 8 bits before and after the shift.
    let bas = (((1u16 << len) - 1) << offset) as u8;
    Some((addr - offset as u64, dbgwcr(lsc, bas)))
}

/// [`watch_control_lsc`] for the engine's [`WatchKind`]: `Write` is a store watch,
/// `ReadWrite` a load/store watch. `Execute` gives `None`: instruction addresses go into a
/// breakpoint slot (NT_ARM_HW_BREAK) with [`breakpoint_control`].
pub fn watch_control(kind: WatchKind, addr: u64, len: usize) -> Option<(u64, u32)> {
    let lsc = match kind {
        WatchKind::Write => Lsc::Store,
        WatchKind::ReadWrite => Lsc::LoadStore,
        WatchKind::Execute => return None,
    };
    watch_control_lsc(lsc, addr, len)
}

/// DBGBCR value for an enabled EL0 hardware breakpoint on an A64 instruction: E=1, PMC=0b10,
/// BAS=0b1111, BT=0 (unlinked address match). The address (DBGBVR) must be 4-byte aligned.
pub const fn breakpoint_control() -> u32 {
    CTRL_ENABLE | CTRL_EL0 | (0b1111 << 5)
}

/// Fields of a DBGWCR / DBGBCR value as the kernel reads them (`decode_ctrl_reg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CtrlFields {
    pub enabled: bool,
    /// PAC / PMC, bits 1-2.
    pub privilege: u32,
    /// LSC, bits 3-4 (0 for a breakpoint).
    pub lsc: u32,
    /// BAS, bits 5-12.
    pub bas: u8,
}

/// Splits a control register value into its fields.
pub const fn decode_control(ctrl: u32) -> CtrlFields {
    CtrlFields {
        enabled: ctrl & 1 != 0,
        privilege: (ctrl >> 1) & 0b11,
        lsc: (ctrl >> 3) & 0b11,
        bas: ((ctrl >> 5) & 0xff) as u8,
    }
}

/// The byte range `(start, len)` a watchpoint slot covers, from its DBGWVR address and DBGWCR
/// value. `None` if the slot is disabled or BAS is empty or not contiguous.
pub fn watch_range(aligned_addr: u64, ctrl: u32) -> Option<(u64, usize)> {
    let f = decode_control(ctrl);
    if !f.enabled || f.bas == 0 {
        return None;
    }
    let bas = u32::from(f.bas);
    let first = bas.trailing_zeros();
    let len = (bas >> first).trailing_ones();
    if (bas >> first) >> len != 0 {
        return None;
    }
    Some((aligned_addr + u64::from(first), len as usize))
}

/// Whether a watchpoint trap with fault address `trap_addr` (`si_addr`) belongs to the slot
/// `(aligned_addr, ctrl)`. The CPU reports the lowest address of the access, which for a wide
/// or unaligned access (`stp`, `dc zva`) can lie below the watched bytes, so any address from
/// the doubleword start up to the end of the watched range counts (as gdb does).
pub fn watch_hit(aligned_addr: u64, ctrl: u32, trap_addr: u64) -> bool {
    match watch_range(aligned_addr, ctrl) {
        Some((start, len)) => trap_addr >= aligned_addr && trap_addr < start + len as u64,
        None => false,
    }
}

/// `dbg_info` of `struct user_hwdebug_state`, as `PTRACE_GETREGSET` fills it in
/// (`ptrace_hbp_get_resource_info`): bits 0-7 the number of slots, bits 8-15 the debug
/// architecture version (ID_AA64DFR0_EL1.DebugVer, e.g. 6 for ARMv8.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbgInfo {
    pub slots: usize,
    pub debug_arch: u8,
}

impl DbgInfo {
    pub const fn from_raw(info: u32) -> Self {
        DbgInfo {
            slots: (info & 0xff) as usize,
            debug_arch: ((info >> 8) & 0xff) as u8,
        }
    }
}

/// Byte offsets of one `dbg_regs[i]` entry of `struct user_hwdebug_state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HwDebugSlot {
    /// `__u64 addr` (DBGxVR).
    pub addr: usize,
    /// `__u32 ctrl` (DBGxCR).
    pub ctrl: usize,
    /// `__u32 pad`.
    pub pad: usize,
}

/// Layout of `struct user_hwdebug_state` (arch/arm64/include/uapi/asm/ptrace.h):
///
/// ```text
///   0  __u32 dbg_info;  4  __u32 pad;
///   8 + 16*i: __u64 addr;  16 + 16*i: __u32 ctrl;  20 + 16*i: __u32 pad;   (i < 16)
/// ```
pub mod hwdebug {
    /// Offset of `dbg_info`.
    pub const DBG_INFO: usize = 0;
    /// Offset of `dbg_regs[0]`.
    pub const DBG_REGS: usize = 8;
    /// Size of one `dbg_regs` entry.
    pub const SLOT_SIZE: usize = 16;
    /// `ARM_MAX_BRP` / `ARM_MAX_WRP`.
    pub const MAX_SLOTS: usize = 16;
    /// `sizeof(struct user_hwdebug_state)`.
    pub const SIZE: usize = DBG_REGS + SLOT_SIZE * MAX_SLOTS;
}

/// Offsets of `dbg_regs[slot]`, `None` past the 16 entries of the struct.
pub fn hwdebug_slot(slot: usize) -> Option<HwDebugSlot> {
    if slot >= hwdebug::MAX_SLOTS {
        return None;
    }
    let addr = hwdebug::DBG_REGS + slot * hwdebug::SLOT_SIZE;
    Some(HwDebugSlot {
        addr,
        ctrl: addr + 8,
        pad: addr + 12,
    })
}

/// The `iov_len` that writes `slots` entries: the kernel sets one slot per entry supplied and
/// rejects entries past the hardware's count, so write exactly `DbgInfo::slots` of them.
pub const fn hwdebug_len(slots: usize) -> usize {
    hwdebug::DBG_REGS + slots * hwdebug::SLOT_SIZE
}

fn read_u32_at(buf: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(buf.get(at..at + 4)?.try_into().ok()?))
}

fn read_u64_at(buf: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(buf.get(at..at + 8)?.try_into().ok()?))
}

/// The `PTRACE_SETREGSET` buffer for `(addr, ctrl)` per slot (a disabled slot is `(0, 0)`);
/// `dbg_info` is ignored by the kernel on write and left 0. `None` for more than 16 slots.
pub fn encode_hwdebug(slots: &[(u64, u32)]) -> Option<Vec<u8>> {
    if slots.len() > hwdebug::MAX_SLOTS {
        return None;
    }
    let mut buf = vec![0u8; hwdebug_len(slots.len())];
    for (i, &(addr, ctrl)) in slots.iter().enumerate() {
        let off = hwdebug_slot(i)?;
        buf[off.addr..off.addr + 8].copy_from_slice(&addr.to_le_bytes());
        buf[off.ctrl..off.ctrl + 4].copy_from_slice(&ctrl.to_le_bytes());
    }
    Some(buf)
}

/// Parses a `PTRACE_GETREGSET` buffer: `dbg_info` and the `(addr, ctrl)` of each slot that is
/// both implemented (per `dbg_info`) and wholly inside `buf`. `None` if `buf` is too short to
/// hold `dbg_info`.
pub fn decode_hwdebug(buf: &[u8]) -> Option<(DbgInfo, Vec<(u64, u32)>)> {
    let info = DbgInfo::from_raw(read_u32_at(buf, hwdebug::DBG_INFO)?);
    let slots = (0..info.slots.min(hwdebug::MAX_SLOTS))
        .map_while(|i| {
            let off = hwdebug_slot(i)?;
            Some((read_u64_at(buf, off.addr)?, read_u32_at(buf, off.ctrl)?))
        })
        .collect();
    Some((info, slots))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: u64) -> AbiValue {
        AbiValue {
            bytes: vec![0; n as usize],
            align: n,
            pieces: vec![(0, n, Scalar::Int)],
            memory: false,
        }
    }

    fn float(n: u64) -> AbiValue {
        AbiValue {
            bytes: vec![0; n as usize],
            align: n,
            pieces: vec![(0, n, Scalar::Float)],
            memory: false,
        }
    }

    fn record(pieces: &[(u64, u64, Scalar)], size: u64) -> AbiValue {
        AbiValue {
            bytes: vec![0; size as usize],
            align: pieces.iter().map(|p| p.1).max().unwrap_or(1),
            pieces: pieces.to_vec(),
            memory: false,
        }
    }

    #[test]
    fn call_layout_follows_aapcs64() {
        use super::{Place, Scalar};
        let l = call_layout(&[int(4), float(8), int(8)], Some(&float(8)));
        assert_eq!(l.args[0], Place::Regs(vec![(idx::X0, 0, 4)]));
        assert_eq!(l.args[1], Place::Regs(vec![(idx::V0, 0, 8)]));
        assert_eq!(l.args[2], Place::Regs(vec![(idx::X1, 0, 8)]));
        assert_eq!(l.ret, Place::Regs(vec![(idx::V0, 0, 8)]));
        // A homogeneous aggregate of three doubles: v0-v2, and returned there.
        let hfa3 = record(
            &[
                (0, 8, Scalar::Float),
                (8, 8, Scalar::Float),
                (16, 8, Scalar::Float),
            ],
            24,
        );
        let l = call_layout(&[hfa3.clone(), float(8)], Some(&hfa3));
        assert_eq!(
            l.args[0],
            Place::Regs(vec![
                (idx::V0, 0, 8),
                (idx::V0 + 1, 8, 8),
                (idx::V0 + 2, 16, 8)
            ])
        );
        assert_eq!(l.args[1], Place::Regs(vec![(idx::V0 + 3, 0, 8)]));
        assert_eq!(
            l.ret,
            Place::Regs(vec![
                (idx::V0, 0, 8),
                (idx::V0 + 1, 8, 8),
                (idx::V0 + 2, 16, 8)
            ])
        );
        // Over 16 bytes and not homogeneous: a pointer to a copy; returned through x8.
        let big = record(
            &[
                (0, 8, Scalar::Int),
                (8, 8, Scalar::Float),
                (16, 8, Scalar::Int),
            ],
            24,
        );
        let l = call_layout(&[big.clone(), int(8)], Some(&big));
        assert_eq!(
            l.args[0],
            Place::ByReference(Box::new(Place::Regs(vec![(idx::X0, 0, 8)])))
        );
        assert_eq!(l.args[1], Place::Regs(vec![(idx::X1, 0, 8)]));
        assert_eq!(l.ret, Place::Indirect);
        // A 16-byte composite in two registers; a ninth integer on the stack.
        let pair = record(&[(0, 8, Scalar::Int), (8, 8, Scalar::Int)], 16);
        let mut args = vec![pair];
        args.extend((0..7).map(|_| int(8)));
        let l = call_layout(&args, None);
        assert_eq!(
            l.args[0],
            Place::Regs(vec![(idx::X0, 0, 8), (idx::X1, 8, 8)])
        );
        assert_eq!(l.args[6], Place::Regs(vec![(idx::X7, 0, 8)]));
        assert_eq!(l.args[7], Place::Stack);
        assert_eq!(l.ret, Place::Nothing);
    }
    use crate::error::EngineError;

    #[test]
    fn table_follows_gdb_and_aadwarf64() {
        let a = &ARCH;
        assert_eq!(a.regs.len(), 68);
        for n in 0..=30u16 {
            let i = a.reg_by_dwarf(n).unwrap();
            assert_eq!(i, n as usize);
            assert_eq!(a.regs[i].name, format!("x{n}"));
        }
        assert_eq!(a.regs[a.reg_by_dwarf(31).unwrap()].name, "sp");
        assert_eq!(a.regs[a.reg_by_dwarf(64).unwrap()].name, "v0");
        assert_eq!(a.regs[a.reg_by_dwarf(95).unwrap()].name, "v31");
        assert_eq!(a.reg_by_dwarf(32), None);
        assert_eq!(a.regs[idx::PC].dwarf, None);
        assert_eq!(a.regs[idx::PC].name, "pc");
        assert_eq!(a.regs[idx::CPSR].name, "cpsr");
        assert_eq!(a.regs[idx::V0].name, "v0");
        assert_eq!(a.regs[idx::V0 + 31].name, "v31");
        assert_eq!(a.regs[idx::FPSR].name, "fpsr");
        assert_eq!(a.regs[idx::FPCR].name, "fpcr");
        assert_eq!(a.reg_index("x29"), Some(a.fp));
        assert_eq!(a.reg_index("x8"), Some(a.syscall_number));
        assert_eq!(a.reg_index("sp"), Some(a.sp));
        assert_eq!(a.args.len(), 8);
        assert_eq!(a.regs[a.args[7]].name, "x7");
        // Names and DWARF numbers are unique.
        for (i, r) in a.regs.iter().enumerate() {
            assert_eq!(a.reg_index(r.name), Some(i));
            if let Some(d) = r.dwarf {
                assert_eq!(a.reg_by_dwarf(d), Some(i));
            }
        }
        assert!(a.regs[idx::V0].size == 16 && !a.regs[idx::V0].general);
        assert_eq!(a.regs[idx::CPSR].size, 4);
        assert!(matches!(a.regs[idx::SP].kind, RegKind::DataPtr));
        assert!(matches!(a.regs[idx::PC].kind, RegKind::CodePtr));
    }

    #[test]
    fn cpsr_flags_match_gdb() {
        let RegKind::Flags(f) = ARCH.regs[idx::CPSR].kind else {
            panic!("cpsr is not a flags register");
        };
        let name = |bit| f.bits.iter().find(|(b, _)| *b == bit).map(|(_, n)| *n);
        assert_eq!(name(31), Some("N"));
        assert_eq!(name(30), Some("Z"));
        assert_eq!(name(29), Some("C"));
        assert_eq!(name(28), Some("V"));
        assert_eq!(name(21), Some("SS"));
        assert_eq!(name(2), None); // EL is a bitfield
    }

    #[test]
    fn breakpoint_is_brk_0() {
        assert_eq!(ARCH.breakpoint_insn, encode_brk(0).to_le_bytes());
        assert_eq!(ARCH.breakpoint_insn.len(), ARCH.max_insn_len);
        assert_eq!(ARCH.pc_after_breakpoint, 0);
    }

    #[test]
    fn brk_encoding() {
        // Encodings checked against llvm-mc -triple=aarch64.
        assert_eq!(encode_brk(0), 0xd420_0000);
        assert_eq!(encode_brk(1), 0xd420_0020);
        assert_eq!(encode_brk(GCC_TRAP_IMM), 0xd420_7d00);
        assert_eq!(encode_brk(0xffff), 0xd43f_ffe0);
        for imm in [0, 1, 0x3e8, 0x8000, 0xffff] {
            assert_eq!(decode_brk(encode_brk(imm)), Some(imm));
        }
        assert_eq!(decode_brk(0xd440_0000), None); // hlt #0
        assert_eq!(decode_brk(0xd420_0001), None); // BRK opc with LL != 0 (unallocated)
        assert_eq!(decode_brk(0xd400_0001), None); // svc #0
        assert_eq!(decode_brk(0xd503_201f), None); // nop
    }

    /// Memory double: `base` followed by `bytes`; anything else is unreadable.
    struct Mem {
        base: u64,
        bytes: Vec<u8>,
    }

    impl MemoryRead for Mem {
        fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
            let start = addr
                .checked_sub(self.base)
                .ok_or(EngineError::Memory(addr))? as usize;
            let src = self
                .bytes
                .get(start..start + buf.len())
                .ok_or(EngineError::Memory(addr))?;
            buf.copy_from_slice(src);
            Ok(())
        }
    }

    #[test]
    fn brk_at_address() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&0xd503_201fu32.to_le_bytes()); // nop
        bytes.extend_from_slice(BREAKPOINT);
        bytes.extend_from_slice(&encode_brk(GCC_TRAP_IMM).to_le_bytes());
        let mem = Mem {
            base: 0x40_0000,
            bytes,
        };
        assert_eq!(brk_at(&mem, 0x40_0000).unwrap(), None);
        assert_eq!(brk_at(&mem, 0x40_0004).unwrap(), Some(0));
        assert_eq!(brk_at(&mem, 0x40_0008).unwrap(), Some(GCC_TRAP_IMM));
        assert_eq!(brk_at(&mem, 0x40_0006).unwrap(), None); // misaligned
        assert!(brk_at(&mem, 0x40_000c).is_err()); // unreadable
    }

    fn code(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    const STP_16: u32 = 0xa9bf_7bfd; // stp x29, x30, [sp, #-16]!
    const STP_32: u32 = 0xa9be_7bfd; // stp x29, x30, [sp, #-32]!
    const MOV_FP_SP: u32 = 0x9100_03fd; // mov x29, sp

    #[test]
    fn instruction_decoders() {
        let stp = decode_stp_pre_index(STP_16).unwrap();
        assert_eq!((stp.rt, stp.rt2, stp.rn, stp.offset), (29, 30, 31, -16));
        assert_eq!(decode_stp_pre_index(0xa9bd_7bfd).unwrap().offset, -48);
        assert_eq!(decode_stp_pre_index(0xa9a0_7bfd).unwrap().offset, -512);
        assert_eq!(decode_stp_pre_index(0xa99f_fbfd).unwrap().offset, 504);
        let s = decode_stp_pre_index(0xa9be_53f3).unwrap(); // stp x19, x20, [sp, #-32]!
        assert_eq!((s.rt, s.rt2, s.offset), (19, 20, -32));
        assert_eq!(decode_stp_pre_index(0xa881_7bfd), None); // post-index
        assert_eq!(decode_stp_pre_index(0xa901_7bfd), None); // signed offset
        assert_eq!(decode_stp_pre_index(0x29bf_7bfd), None); // 32-bit stp w29, w30
        assert_eq!(decode_mov_from_sp(MOV_FP_SP), Some(29));
        assert_eq!(decode_mov_from_sp(0x9100_43fd), None); // add x29, sp, #16
        assert_eq!(decode_mov_from_sp(0xaa00_03fd), None); // mov x29, x0
    }

    #[test]
    fn prologue() {
        assert_eq!(skip_prologue(&code(&[STP_16, MOV_FP_SP, 0xd503_201f])), 8);
        assert_eq!(skip_prologue(&code(&[PACIASP, STP_32, MOV_FP_SP])), 12);
        assert_eq!(skip_prologue(&code(&[PACIBSP, STP_32, MOV_FP_SP])), 12);
        assert_eq!(skip_prologue(&code(&[BTI_C, STP_16, MOV_FP_SP])), 12);
        assert_eq!(
            skip_prologue(&code(&[BTI_C, PACIASP, STP_16, MOV_FP_SP])),
            16
        );
        // Not the standard sequence.
        assert_eq!(skip_prologue(&code(&[STP_16, 0xd503_201f])), 0);
        assert_eq!(skip_prologue(&code(&[MOV_FP_SP])), 0);
        assert_eq!(skip_prologue(&code(&[0xa9be_53f3, MOV_FP_SP])), 0); // x19, x20
        assert_eq!(skip_prologue(&code(&[0xa981_7bfd, MOV_FP_SP])), 0); // #16 (positive)
        assert_eq!(skip_prologue(&code(&[0xa881_7bfd, MOV_FP_SP])), 0); // post-index
        assert_eq!(skip_prologue(&code(&[STP_16, 0x9100_43fd])), 0); // add x29, sp, #16
        assert_eq!(
            skip_prologue(&code(&[PACIASP, BTI_C, STP_16, MOV_FP_SP])),
            0
        );
        // Truncated input.
        assert_eq!(skip_prologue(&code(&[STP_16])), 0);
        assert_eq!(skip_prologue(&code(&[STP_16, MOV_FP_SP])[..7]), 0);
        assert_eq!(skip_prologue(&[]), 0);
    }

    #[test]
    fn watch_control_encoding() {
        // 4-byte store watch at 0x1004: doubleword 0x1000, BAS = bytes 4..8.
        let (a, c) = watch_control(WatchKind::Write, 0x1004, 4).unwrap();
        assert_eq!(a, 0x1000);
        assert_eq!(decode_control(c).bas, 0b1111_0000);
        assert_eq!(c, 1 | (0b10 << 1) | (0b10 << 3) | (0b1111_0000 << 5));
        assert_eq!(c, 0x1e15);
        // 8-byte read/write watch at 0x2000: LSC=11, BAS=0xff.
        assert_eq!(
            watch_control(WatchKind::ReadWrite, 0x2000, 8),
            Some((0x2000, 0x1ffd))
        );
        // 1 byte at the last byte of a doubleword, 2 bytes at offset 6.
        assert_eq!(
            watch_control(WatchKind::Write, 0x1007, 1),
            Some((0x1000, 0x1015))
        );
        assert_eq!(
            watch_control(WatchKind::Write, 0x1006, 2),
            Some((0x1000, 0x1815))
        );
        // Unaligned but inside one doubleword is fine for the hardware.
        assert_eq!(
            watch_control(WatchKind::Write, 0x1001, 3).map(|(a, c)| (a, decode_control(c).bas)),
            Some((0x1000, 0b0000_1110))
        );
        // Load-only watch (gdb's rwatch).
        assert_eq!(
            watch_control_lsc(Lsc::Load, 0x3000, 4),
            Some((0x3000, 1 | (0b10 << 1) | (0b01 << 3) | (0x0f << 5)))
        );
        // Unsupported requests.
        assert_eq!(watch_control(WatchKind::Write, 0x1007, 2), None);
        assert_eq!(watch_control(WatchKind::Write, 0x1004, 8), None);
        assert_eq!(watch_control(WatchKind::Write, 0x1000, 0), None);
        assert_eq!(watch_control(WatchKind::Write, 0x1000, 9), None);
        assert_eq!(watch_control(WatchKind::Execute, 0x1000, 4), None);
        // The top of the address space does not overflow.
        assert_eq!(
            watch_control(WatchKind::Write, u64::MAX, 1).map(|(a, _)| a),
            Some(u64::MAX - 7)
        );
    }

    #[test]
    fn breakpoint_control_encoding() {
        assert_eq!(breakpoint_control(), 0x1e5);
        let f = decode_control(breakpoint_control());
        assert_eq!(
            f,
            CtrlFields {
                enabled: true,
                privilege: 0b10,
                lsc: 0,
                bas: 0b1111,
            }
        );
    }

    #[test]
    fn watch_ranges_and_hits() {
        let (a, c) = watch_control(WatchKind::Write, 0x1004, 4).unwrap();
        assert_eq!(watch_range(a, c), Some((0x1004, 4)));
        assert!(watch_hit(a, c, 0x1004));
        assert!(watch_hit(a, c, 0x1007));
        // An stp to 0x1000..0x1010 reports 0x1000.
        assert!(watch_hit(a, c, 0x1000));
        assert!(!watch_hit(a, c, 0x1008));
        assert!(!watch_hit(a, c, 0xff8));
        // Disabled, empty or non-contiguous BAS.
        assert_eq!(watch_range(a, c & !1), None);
        assert_eq!(watch_range(a, dbgwcr(Lsc::Store, 0)), None);
        assert_eq!(watch_range(a, dbgwcr(Lsc::Store, 0b0101)), None);
        assert!(!watch_hit(a, 0, 0x1004));
        assert_eq!(
            watch_range(0x2000, dbgwcr(Lsc::Store, 0xff)),
            Some((0x2000, 8))
        );
    }

    #[test]
    fn hwdebug_layout() {
        assert_eq!(hwdebug::SIZE, 264);
        assert_eq!(
            hwdebug_slot(0),
            Some(HwDebugSlot {
                addr: 8,
                ctrl: 16,
                pad: 20
            })
        );
        assert_eq!(hwdebug_slot(3).map(|s| (s.addr, s.ctrl)), Some((56, 64)));
        assert_eq!(hwdebug_slot(15).map(|s| s.pad + 4), Some(hwdebug::SIZE));
        assert_eq!(hwdebug_slot(16), None);
        assert_eq!(hwdebug_len(4), 72);
        assert_eq!(
            DbgInfo::from_raw(0x0604),
            DbgInfo {
                slots: 4,
                debug_arch: 6
            }
        );

        let buf = encode_hwdebug(&[(0x1000, 0x1e15), (0, 0)]).unwrap();
        assert_eq!(buf.len(), 40);
        assert_eq!(&buf[8..16], &0x1000u64.to_le_bytes());
        assert_eq!(&buf[16..20], &0x1e15u32.to_le_bytes());
        assert!(buf[20..].iter().all(|&b| b == 0));
        assert_eq!(encode_hwdebug(&[(0, 0); 17]), None);

        // A GETREGSET reply from a CPU with 2 watchpoints, debug arch 8 (ARMv8.2).
        let mut reply = encode_hwdebug(&[(0x1000, 0x1e15), (0x2000, 0x1ffd)]).unwrap();
        reply[0..4].copy_from_slice(&0x0802u32.to_le_bytes());
        let (info, slots) = decode_hwdebug(&reply).unwrap();
        assert_eq!(
            info,
            DbgInfo {
                slots: 2,
                debug_arch: 8
            }
        );
        assert_eq!(slots, vec![(0x1000, 0x1e15), (0x2000, 0x1ffd)]);
        // Truncated: only the complete slots come back.
        let (_, slots) = decode_hwdebug(&reply[..30]).unwrap();
        assert_eq!(slots, vec![(0x1000, 0x1e15)]);
        assert_eq!(decode_hwdebug(&reply[..3]), None);
    }

    #[test]
    fn watch_fits_lengths() {
        assert!(ARCH.watch_fits(0x1004, 4));
        assert!(!ARCH.watch_fits(0x1002, 4));
        assert!(!ARCH.watch_fits(0x1000, 3));
        // Everything watch_fits accepts, watch_control can encode.
        for len in ARCH.watch_lengths {
            for off in (0..8).step_by(*len) {
                assert!(watch_control(WatchKind::Write, 0x1000 + off as u64, *len).is_some());
            }
        }
    }
}
