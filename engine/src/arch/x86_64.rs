//! x86-64 (AMD64) architecture table.

use super::{
    AbiValue, ArchInfo, CallLayout, DisasmKind, FlagsDesc, Place, RegDesc, RegKind, SandboxRules,
    Scalar, WatchKind,
};

/// gdb's `i386_eflags` (its `64bit-core.xml`, bit 1 listed without a name).
const EFLAGS: FlagsDesc = FlagsDesc {
    type_name: "i386_eflags",
    bits: EFLAGS_BITS,
};

const EFLAGS_BITS: &[(u32, &str)] = &[
    (0, "CF"),
    (1, ""),
    (2, "PF"),
    (4, "AF"),
    (6, "ZF"),
    (7, "SF"),
    (8, "TF"),
    (9, "IF"),
    (10, "DF"),
    (11, "OF"),
    (14, "NT"),
    (16, "RF"),
    (17, "VM"),
    (18, "AC"),
    (19, "VIF"),
    (20, "VIP"),
    (21, "ID"),
];

/// gdb's `i386_mxcsr` (its `64bit-sse.xml`).
const MXCSR: FlagsDesc = FlagsDesc {
    type_name: "i386_mxcsr",
    bits: MXCSR_BITS,
};

const MXCSR_BITS: &[(u32, &str)] = &[
    (0, "IE"),
    (1, "DE"),
    (2, "ZE"),
    (3, "OE"),
    (4, "UE"),
    (5, "PE"),
    (6, "DAZ"),
    (7, "IM"),
    (8, "DM"),
    (9, "ZM"),
    (10, "OM"),
    (11, "UM"),
    (12, "PM"),
    (15, "FZ"),
];

const fn gp(name: &'static str, dwarf: u16) -> RegDesc {
    reg(name, Some(dwarf), 8, RegKind::Int, true)
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

const fn st(name: &'static str, dwarf: u16) -> RegDesc {
    reg(name, Some(dwarf), 10, RegKind::Float80, false)
}

const fn xmm(name: &'static str, dwarf: u16) -> RegDesc {
    reg(name, Some(dwarf), 16, RegKind::Vector128, false)
}

const fn k(name: &'static str, dwarf: u16) -> RegDesc {
    reg(name, Some(dwarf), 8, RegKind::Uint, true)
}

/// Register table in gdb's order. Indices are used by `crate::native` (keep in sync).
pub const REGS: &[RegDesc] = &[
    gp("rax", 0),
    gp("rbx", 3),
    gp("rcx", 2),
    gp("rdx", 1),
    gp("rsi", 4),
    gp("rdi", 5),
    reg("rbp", Some(6), 8, RegKind::DataPtr, true),
    reg("rsp", Some(7), 8, RegKind::DataPtr, true),
    gp("r8", 8),
    gp("r9", 9),
    gp("r10", 10),
    gp("r11", 11),
    gp("r12", 12),
    gp("r13", 13),
    gp("r14", 14),
    gp("r15", 15),
    reg("rip", Some(16), 8, RegKind::CodePtr, true),
    reg("eflags", Some(49), 4, RegKind::Flags(&EFLAGS), true),
    reg("cs", Some(51), 4, RegKind::Int, true),
    reg("ss", Some(52), 4, RegKind::Int, true),
    reg("ds", Some(53), 4, RegKind::Int, true),
    reg("es", Some(50), 4, RegKind::Int, true),
    reg("fs", Some(54), 4, RegKind::Int, true),
    reg("gs", Some(55), 4, RegKind::Int, true),
    reg("fs_base", Some(58), 8, RegKind::Int, false),
    reg("gs_base", Some(59), 8, RegKind::Int, false),
    st("st0", 33),
    st("st1", 34),
    st("st2", 35),
    st("st3", 36),
    st("st4", 37),
    st("st5", 38),
    st("st6", 39),
    st("st7", 40),
    reg("fctrl", Some(65), 4, RegKind::Int, false),
    reg("fstat", Some(66), 4, RegKind::Int, false),
    reg("ftag", None, 4, RegKind::Int, false),
    reg("fiseg", None, 4, RegKind::Int, false),
    reg("fioff", None, 4, RegKind::Int, false),
    reg("foseg", None, 4, RegKind::Int, false),
    reg("fooff", None, 4, RegKind::Int, false),
    reg("fop", None, 4, RegKind::Int, false),
    xmm("xmm0", 17),
    xmm("xmm1", 18),
    xmm("xmm2", 19),
    xmm("xmm3", 20),
    xmm("xmm4", 21),
    xmm("xmm5", 22),
    xmm("xmm6", 23),
    xmm("xmm7", 24),
    xmm("xmm8", 25),
    xmm("xmm9", 26),
    xmm("xmm10", 27),
    xmm("xmm11", 28),
    xmm("xmm12", 29),
    xmm("xmm13", 30),
    xmm("xmm14", 31),
    xmm("xmm15", 32),
    reg("mxcsr", Some(64), 4, RegKind::Flags(&MXCSR), false),
    k("k0", 118),
    k("k1", 119),
    k("k2", 120),
    k("k3", 121),
    k("k4", 122),
    k("k5", 123),
    k("k6", 124),
    k("k7", 125),
];

/// Index constants into [`REGS`].
pub mod idx {
    pub const RAX: usize = 0;
    pub const RBX: usize = 1;
    pub const RCX: usize = 2;
    pub const RDX: usize = 3;
    pub const RSI: usize = 4;
    pub const RDI: usize = 5;
    pub const RBP: usize = 6;
    pub const RSP: usize = 7;
    pub const R8: usize = 8;
    pub const R9: usize = 9;
    pub const R10: usize = 10;
    pub const RIP: usize = 16;
    pub const EFLAGS: usize = 17;
    pub const CS: usize = 18;
    pub const FS_BASE: usize = 24;
    pub const GS_BASE: usize = 25;
    pub const ST0: usize = 26;
    pub const FCTRL: usize = 34;
    pub const XMM0: usize = 42;
    pub const MXCSR: usize = 58;
    pub const K0: usize = 59;
}

/// `int3`.
pub const BREAKPOINT: &[u8] = &[0xcc];

const SUB_REGISTERS: &[(&str, &str, usize)] = &[
    ("eax", "rax", 4),
    ("ebx", "rbx", 4),
    ("ecx", "rcx", 4),
    ("edx", "rdx", 4),
    ("esi", "rsi", 4),
    ("edi", "rdi", 4),
    ("ebp", "rbp", 4),
    ("esp", "rsp", 4),
    ("r8d", "r8", 4),
    ("r8w", "r8", 2),
    ("r8l", "r8", 1),
    ("r9d", "r9", 4),
    ("r9w", "r9", 2),
    ("r9l", "r9", 1),
    ("r10d", "r10", 4),
    ("r10w", "r10", 2),
    ("r10l", "r10", 1),
    ("r11d", "r11", 4),
    ("r11w", "r11", 2),
    ("r11l", "r11", 1),
    ("r12d", "r12", 4),
    ("r12w", "r12", 2),
    ("r12l", "r12", 1),
    ("r13d", "r13", 4),
    ("r13w", "r13", 2),
    ("r13l", "r13", 1),
    ("r14d", "r14", 4),
    ("r14w", "r14", 2),
    ("r14l", "r14", 1),
    ("r15d", "r15", 4),
    ("r15w", "r15", 2),
    ("r15l", "r15", 1),
    ("ax", "rax", 2),
    ("bx", "rbx", 2),
    ("cx", "rcx", 2),
    ("dx", "rdx", 2),
    ("si", "rsi", 2),
    ("di", "rdi", 2),
    ("bp", "rbp", 2),
    ("sp", "rsp", 2),
    ("al", "rax", 1),
    ("bl", "rbx", 1),
    ("cl", "rcx", 1),
    ("dl", "rdx", 1),
    ("sil", "rsi", 1),
    ("dil", "rdi", 1),
    ("bpl", "rbp", 1),
    ("spl", "rsp", 1),
];

pub static ARCH: ArchInfo = ArchInfo {
    name: "x86-64",
    ptr_size: 8,
    breakpoint_insn: BREAKPOINT,
    pc_after_breakpoint: 1,
    red_zone: 128,
    max_insn_len: 15,
    regs: REGS,
    pc: idx::RIP,
    sp: idx::RSP,
    fp: idx::RBP,
    return_value: idx::RAX,
    // orig_rax is not in the user-visible table; the syscall number is read from rax at entry.
    syscall_number: idx::RAX,
    syscall_return: idx::RAX,
    args: &[idx::RDI, idx::RSI, idx::RDX, idx::RCX, idx::R8, idx::R9],
    thread_pointer: Some(idx::FS_BASE),
    watch_slots: 4,
    watch_lengths: &[1, 2, 4, 8],
    disasm: DisasmKind::X86_64,
    hw_breakpoint_resumes: true,
    sub_registers: SUB_REGISTERS,
    wide_vectors: &[
        ("ymm0", "xmm0"),
        ("ymm1", "xmm1"),
        ("ymm2", "xmm2"),
        ("ymm3", "xmm3"),
        ("ymm4", "xmm4"),
        ("ymm5", "xmm5"),
        ("ymm6", "xmm6"),
        ("ymm7", "xmm7"),
        ("ymm8", "xmm8"),
        ("ymm9", "xmm9"),
        ("ymm10", "xmm10"),
        ("ymm11", "xmm11"),
        ("ymm12", "xmm12"),
        ("ymm13", "xmm13"),
        ("ymm14", "xmm14"),
        ("ymm15", "xmm15"),
    ],
    skip_prologue,
    sandbox: Some(&SANDBOX),
    call: Some(&CALL),
    syscalls: super::syscalls_x86_64::SYSCALLS,
};

/// The System V AMD64 calling convention (psABI §3.2.3).
pub static CALL: super::CallConv = super::CallConv {
    layout: call_layout,
    indirect_in: idx::RDI,
    stack_align: 16,
    stack_slot: 8,
    link_register: None,
    reserved: 16,
    dummy_frame_offset: 8,
    return_on_stack: true,
};

/// Class of one eightbyte (psABI §3.2.3).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    Integer,
    Sse,
    X87,
}

/// The classes of a value's eightbytes, or `None` when it goes in memory.
fn classify(v: &AbiValue) -> Option<Vec<Class>> {
    let size = v.bytes.len() as u64;
    if v.memory || size == 0 || size > 16 {
        return None;
    }
    let mut classes: Vec<Option<Class>> = vec![None; size.div_ceil(8) as usize];
    for &(off, len, kind) in &v.pieces {
        if len == 0 || off + len > size {
            return None;
        }
        if kind == Scalar::X87 {
            // Only a lone `long double` (its 16 bytes) is returned in st0.
            if off != 0 || v.pieces.len() != 1 {
                return None;
            }
            return Some(vec![Class::X87]);
        }
        // An unaligned scalar puts the whole value in memory.
        if off % len.min(8) != 0 || (off / 8) != (off + len - 1) / 8 {
            return None;
        }
        let c = &mut classes[(off / 8) as usize];
        *c = match (kind, *c) {
            (Scalar::Int, _) | (_, Some(Class::Integer)) => Some(Class::Integer),
            _ => Some(Class::Sse),
        };
    }
    // Padding-only eightbytes (a struct with an empty tail) count as SSE, as gcc does.
    Some(
        classes
            .into_iter()
            .map(|c| c.unwrap_or(Class::Sse))
            .collect(),
    )
}

const INT_ARGS: [usize; 6] = [idx::RDI, idx::RSI, idx::RDX, idx::RCX, idx::R8, idx::R9];

fn call_layout(args: &[AbiValue], ret: Option<&AbiValue>) -> CallLayout {
    let mut next_int = 0usize;
    let mut next_sse = 0usize;
    let ret_place = match ret {
        None => Place::Nothing,
        Some(r) => match classify(r) {
            None => {
                next_int = 1; // the buffer's address goes in rdi
                Place::Indirect
            }
            Some(cs) if cs == [Class::X87] => Place::Regs(vec![(idx::ST0, 0, 10)]),
            Some(cs) => {
                let (mut i, mut x) = (0, 0);
                let size = r.bytes.len() as u64;
                let regs = cs
                    .iter()
                    .enumerate()
                    .map(|(k, c)| {
                        let off = 8 * k as u64;
                        let reg = match c {
                            Class::Integer => {
                                i += 1;
                                [idx::RAX, idx::RDX][i - 1]
                            }
                            _ => {
                                x += 1;
                                idx::XMM0 + x - 1
                            }
                        };
                        (reg, off, (size - off).min(8))
                    })
                    .collect();
                Place::Regs(regs)
            }
        },
    };
    let mut places = Vec::with_capacity(args.len());
    for a in args {
        let size = a.bytes.len() as u64;
        let place = match classify(a) {
            Some(cs) if !cs.contains(&Class::X87) => {
                let ints = cs.iter().filter(|c| **c == Class::Integer).count();
                let sses = cs.len() - ints;
                if next_int + ints <= INT_ARGS.len() && next_sse + sses <= 8 {
                    let regs = cs
                        .iter()
                        .enumerate()
                        .map(|(k, c)| {
                            let off = 8 * k as u64;
                            let reg = if *c == Class::Integer {
                                next_int += 1;
                                INT_ARGS[next_int - 1]
                            } else {
                                next_sse += 1;
                                idx::XMM0 + next_sse - 1
                            };
                            (reg, off, (size - off).min(8))
                        })
                        .collect();
                    Place::Regs(regs)
                } else {
                    Place::Stack
                }
            }
            _ => Place::Stack,
        };
        places.push(place);
    }
    CallLayout {
        args: places,
        ret: ret_place,
        // `al`: an upper bound of the vector registers used, for a variadic callee.
        extra: vec![(idx::RAX, next_sse as u64)],
    }
}

/// Unwinding facts (SysV psABI §3.2.1 and 3.6; Linux `struct rt_sigframe`).
pub static UNWIND: super::UnwindInfo = super::UnwindInfo {
    return_address_column: 16,
    preserved: &[
        idx::RBX,
        idx::RBP,
        12, // r12
        13, // r13
        14, // r14
        15, // r15
        idx::CS,
        19, // ss
        20, // ds
        21, // es
        22, // fs
        23, // gs
        idx::FS_BASE,
        idx::GS_BASE,
        idx::FCTRL,
        idx::MXCSR,
    ],
    fp_cfa_offset: 16,
    fp_ra_offset: 8,
    fp_saved_fp_offset: 0,
    entry_cfa_offset: 8,
    entry_ra_register: None,
    signal_frame: super::SignalFrameLayout {
        // __restore_rt: mov $0xf,%rax; syscall
        trampoline: &[0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05],
        // The handler's `ret` popped `pretcode`: sp is at the ucontext_t, whose uc_mcontext
        // follows uc_flags, uc_link and uc_stack (8 + 8 + 24 bytes).
        context_offset: 40,
        // struct sigcontext: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags, cs.
        regs: &[
            (idx::R8, 0, 8),
            (idx::R9, 8, 8),
            (idx::R10, 16, 8),
            (11, 24, 8),
            (12, 32, 8),
            (13, 40, 8),
            (14, 48, 8),
            (15, 56, 8),
            (idx::RDI, 64, 8),
            (idx::RSI, 72, 8),
            (idx::RBP, 80, 8),
            (idx::RBX, 88, 8),
            (idx::RDX, 96, 8),
            (idx::RAX, 104, 8),
            (idx::RCX, 112, 8),
            (idx::RSP, 120, 8),
            (idx::RIP, 128, 8),
            (idx::EFLAGS, 136, 8),
            (idx::CS, 144, 2),
        ],
    },
};

/// gdb's amd64 prologue analysis for code without line info: `[endbr64] push %rbp;
/// mov %rsp,%rbp` is skipped; anything else leaves the breakpoint at the entry.
pub fn skip_prologue(code: &[u8]) -> usize {
    let mut at = 0;
    if code.starts_with(&[0xf3, 0x0f, 0x1e, 0xfa]) {
        at = 4;
    }
    if code.get(at) != Some(&0x55) {
        return 0;
    }
    let mov = &code[(at + 1).min(code.len())..];
    if mov.starts_with(&[0x48, 0x89, 0xe5]) || mov.starts_with(&[0x48, 0x8b, 0xec]) {
        at + 4
    } else {
        0
    }
}

/// DR7 bits for one slot: local enable, R/W and LEN fields (Intel SDM vol. 3, 18.2.4).
pub fn dr7_slot_bits(slot: usize, kind: WatchKind, len: usize) -> u64 {
    let rw: u64 = match kind {
        WatchKind::Execute => 0b00,
        WatchKind::Write => 0b01,
        WatchKind::ReadWrite => 0b11,
    };
    let len_bits: u64 = match (kind, len) {
        (WatchKind::Execute, _) => 0b00,
        (_, 1) => 0b00,
        (_, 2) => 0b01,
        (_, 8) => 0b10,
        _ => 0b11,
    };
    let enable = 1u64 << (slot * 2);
    enable | (rw << (16 + slot * 4)) | (len_bits << (18 + slot * 4))
}

/// DR7 value for a set of occupied slots.
pub fn dr7(slots: &[Option<(WatchKind, usize)>]) -> u64 {
    slots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|(k, l)| dr7_slot_bits(i, k, l)))
        .fold(0, |a, b| a | b)
}

/// Slots whose condition was met according to DR6 (bits B0..B3).
pub fn dr6_hits(dr6: u64) -> impl Iterator<Item = usize> {
    (0..4).filter(move |i| dr6 & (1 << i) != 0)
}

/// DR6 bit BS: the trap came from single-stepping.
pub const DR6_SINGLE_STEP: u64 = 1 << 14;

/// x86-64 instructions the sandbox treats specially (see [`SandboxRules`]).
pub static SANDBOX: SandboxRules = SandboxRules {
    no_access: &["lea", "nop", "prefetch"],
    push: &[("pushfq", 8), ("pushf", 8), ("push", 8)],
    refuse: &[
        "rep",
        "enter",
        "xsave",
        "fxsave",
        "xrstor",
        "fxrstor",
        "maskmov",
        "vmaskmov",
        "vpmaskmov",
        "vpscatter",
        "vscatter",
        "syscall",
        "sysenter",
        "int",
        "lock",
        "cpuid",
        "rdtsc",
        "rdrand",
        "rdseed",
        "movdir",
        "enqcmd",
        "clflush",
        "clwb",
        "wrss",
        "call",
        "ret",
        "hlt",
        "ud",
    ],
};

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
    fn call_layout_follows_the_system_v_classification() {
        use super::{Place, Scalar};
        // int add(int, int)
        let l = call_layout(&[int(4), int(4)], Some(&int(4)));
        assert_eq!(l.args[0], Place::Regs(vec![(idx::RDI, 0, 4)]));
        assert_eq!(l.args[1], Place::Regs(vec![(idx::RSI, 0, 4)]));
        assert_eq!(l.ret, Place::Regs(vec![(idx::RAX, 0, 4)]));
        assert_eq!(l.extra, vec![(idx::RAX, 0)]);
        // struct { int i; float f; }: one INTEGER eightbyte; struct { double a; long b; }:
        // SSE then INTEGER; struct { double x, y; } in two vector registers.
        let mixed = record(&[(0, 4, Scalar::Int), (4, 4, Scalar::Float)], 8);
        let two = record(&[(0, 8, Scalar::Float), (8, 8, Scalar::Int)], 16);
        let dd = record(&[(0, 8, Scalar::Float), (8, 8, Scalar::Float)], 16);
        let l = call_layout(&[mixed.clone(), two.clone(), dd.clone()], Some(&two));
        assert_eq!(l.args[0], Place::Regs(vec![(idx::RDI, 0, 8)]));
        assert_eq!(
            l.args[1],
            Place::Regs(vec![(idx::XMM0, 0, 8), (idx::RSI, 8, 8)])
        );
        assert_eq!(
            l.args[2],
            Place::Regs(vec![(idx::XMM0 + 1, 0, 8), (idx::XMM0 + 2, 8, 8)])
        );
        assert_eq!(
            l.ret,
            Place::Regs(vec![(idx::XMM0, 0, 8), (idx::RAX, 8, 8)])
        );
        assert_eq!(l.extra, vec![(idx::RAX, 3)]);
        // Over 16 bytes: on the stack, and returned through a buffer whose address takes
        // rdi; a seventh integer goes on the stack.
        let big = record(
            &[
                (0, 8, Scalar::Int),
                (8, 8, Scalar::Int),
                (16, 8, Scalar::Int),
            ],
            24,
        );
        let args: Vec<AbiValue> = std::iter::once(big.clone())
            .chain((0..7).map(|_| int(8)))
            .collect();
        let l = call_layout(&args, Some(&big));
        assert_eq!(l.ret, Place::Indirect);
        assert_eq!(l.args[0], Place::Stack);
        assert_eq!(l.args[1], Place::Regs(vec![(idx::RSI, 0, 8)]));
        assert_eq!(l.args[5], Place::Regs(vec![(idx::R9, 0, 8)]));
        assert_eq!(l.args[6], Place::Stack);
        // long double: in memory as an argument, in st0 as a result.
        let ld = record(&[(0, 16, Scalar::X87)], 16);
        let l = call_layout(std::slice::from_ref(&ld), Some(&ld));
        assert_eq!(l.args[0], Place::Stack);
        assert_eq!(l.ret, Place::Regs(vec![(idx::ST0, 0, 10)]));
        // An unaligned member puts the whole value in memory.
        let packed = record(&[(0, 1, Scalar::Int), (1, 4, Scalar::Int)], 5);
        assert_eq!(call_layout(&[packed], None).args[0], Place::Stack);
        assert_eq!(
            call_layout(&[float(4)], None).args[0],
            Place::Regs(vec![(idx::XMM0, 0, 4)])
        );
    }

    #[test]
    fn dwarf_numbers_follow_psabi() {
        let a = &ARCH;
        assert_eq!(a.regs[a.reg_by_dwarf(1).unwrap()].name, "rdx");
        assert_eq!(a.regs[a.reg_by_dwarf(3).unwrap()].name, "rbx");
        assert_eq!(a.regs[a.reg_by_dwarf(7).unwrap()].name, "rsp");
        assert_eq!(a.regs[a.reg_by_dwarf(16).unwrap()].name, "rip");
        assert_eq!(a.regs[a.reg_by_dwarf(17).unwrap()].name, "xmm0");
        assert_eq!(a.regs[a.reg_by_dwarf(33).unwrap()].name, "st0");
        assert_eq!(a.regs[idx::K0].name, "k0");
        assert_eq!(a.regs[idx::MXCSR].name, "mxcsr");
        assert_eq!(a.regs[idx::FCTRL].name, "fctrl");
        assert_eq!(a.regs[idx::XMM0 + 15].name, "xmm15");
        assert_eq!(a.regs[idx::GS_BASE].name, "gs_base");
        assert_eq!(a.regs[idx::CS].name, "cs");
    }

    #[test]
    fn dr7_encoding() {
        // slot 0, write, 4 bytes: L0=1, RW0=01, LEN0=11
        assert_eq!(dr7_slot_bits(0, WatchKind::Write, 4), 0x000d_0001);
        // slot 1, read/write, 8 bytes: L1 (bit 2), RW1=11 at 20, LEN1=10 at 22
        assert_eq!(
            dr7_slot_bits(1, WatchKind::ReadWrite, 8),
            (1 << 2) | (0b11 << 20) | (0b10 << 22)
        );
        // slot 3, execute: only the enable bit
        assert_eq!(dr7_slot_bits(3, WatchKind::Execute, 1), 1 << 6);
        assert_eq!(
            dr7(&[None, Some((WatchKind::Write, 1)), None, None]),
            (1 << 2) | (0b01 << 20)
        );
        assert_eq!(dr6_hits(0b1010).collect::<Vec<_>>(), vec![1, 3]);
    }

    #[test]
    fn prologue() {
        assert_eq!(skip_prologue(&[0x55, 0x48, 0x89, 0xe5, 0x90]), 4);
        assert_eq!(
            skip_prologue(&[0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5]),
            8
        );
        assert_eq!(skip_prologue(&[0x55, 0x90]), 0);
        assert_eq!(skip_prologue(&[0x48, 0x83, 0xec, 0x08]), 0);
        assert_eq!(skip_prologue(&[]), 0);
    }
}
