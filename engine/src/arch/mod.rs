//! Architecture tables.
//!
//! Every architecture-specific fact the engine needs lives in one [`ArchInfo`] table per
//! architecture (in the manner of Delve's `pkg/proc/*_arch.go`): the register set with DWARF
//! numbers, the breakpoint instruction and how the PC moves after it traps, the hardware
//! watchpoint encoding, pointer size, red zone, and the syscall / return registers.
//! The rest of the engine asks [`native()`] and never names an architecture.
//!
//! The pure parts (encodings, register maps) are plain data and functions so that they can be
//! unit tested on any host; only `crate::native` touches the kernel.

pub mod aarch64;
pub mod syscalls;
mod syscalls_aarch64;
mod syscalls_x86_64;
pub mod x86_64;

/// How a register is shown and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegKind {
    /// Signed integer register (gdb type `int64_t`/`long`): hex and signed decimal.
    Int,
    /// Unsigned integer register (gdb `uint64_t`): hex and unsigned decimal.
    Uint,
    /// Code pointer (gdb shows `0x… <sym+off>`).
    CodePtr,
    /// Data pointer (gdb shows the hex value twice).
    DataPtr,
    /// A flags register whose set bits are named (e.g. eflags `[ IF ZF ]`).
    Flags(&'static FlagsDesc),
    /// 80-bit x87 extended float.
    Float80,
    /// 128-bit vector register.
    Vector128,
}

/// A flags register's type as gdb's target description has it: the type's name (`ptype
/// $eflags` says `flag i386_eflags {`) and its one-bit fields, in the description's order
/// (an empty name is a bit the description lists without a name: `bool @1;`).
#[derive(Debug, PartialEq, Eq)]
pub struct FlagsDesc {
    pub type_name: &'static str,
    pub bits: &'static [(u32, &'static str)],
}

/// One register of an architecture's table.
#[derive(Debug, Clone, Copy)]
pub struct RegDesc {
    pub name: &'static str,
    /// DWARF register number, where the psABI assigns one.
    pub dwarf: Option<u16>,
    /// Size in bytes.
    pub size: usize,
    pub kind: RegKind,
    /// Shown by a plain `info registers` (gdb's "general" group).
    pub general: bool,
}

impl RegDesc {
    /// A table row (`const`, for the per-architecture tables).
    pub const fn new(
        name: &'static str,
        dwarf: Option<u16>,
        size: usize,
        kind: RegKind,
        general: bool,
    ) -> Self {
        RegDesc {
            name,
            dwarf,
            size,
            kind,
            general,
        }
    }
}

/// Access a hardware watchpoint traps on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WatchKind {
    /// Instruction fetch (hardware breakpoint).
    Execute,
    /// Data write.
    Write,
    /// Data read or write.
    ReadWrite,
}

/// Which disassembler mode capstone should use for this architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DisasmKind {
    X86_64,
    Aarch64,
}

/// Everything the engine knows about one architecture.
#[derive(Debug)]
pub struct ArchInfo {
    pub name: &'static str,
    /// Size of a pointer in bytes.
    pub ptr_size: usize,
    /// Software breakpoint instruction bytes, as written to memory.
    pub breakpoint_insn: &'static [u8],
    /// How many bytes past the breakpoint address the PC is when the trap is reported
    /// (x86-64: 1, after `int3`; aarch64: 0, `brk` reports its own address).
    pub pc_after_breakpoint: u64,
    /// Bytes below the stack pointer that leaf code may use without moving it.
    pub red_zone: u64,
    /// Largest instruction, in bytes.
    pub max_insn_len: usize,
    /// The register table, in display order.
    pub regs: &'static [RegDesc],
    /// Indices into `regs`.
    pub pc: usize,
    pub sp: usize,
    pub fp: usize,
    pub return_value: usize,
    pub syscall_number: usize,
    pub syscall_return: usize,
    pub args: &'static [usize],
    /// Register holding the thread pointer (pthread self on glibc), if any.
    pub thread_pointer: Option<usize>,
    /// Number of hardware watchpoint slots.
    pub watch_slots: usize,
    /// Watch lengths the hardware supports (bytes); the address must be aligned to it.
    pub watch_lengths: &'static [usize],
    pub disasm: DisasmKind,
    /// Whether a thread stopped by a hardware instruction breakpoint can simply be resumed
    /// (x86: the kernel sets EFLAGS.RF so the instruction does not trap again), which makes
    /// such breakpoints cheaper than a trap instruction to step over.
    pub hw_breakpoint_resumes: bool,
    /// Narrower views of registers, as gdb names them: (name, full register, bytes), e.g.
    /// `eax` is the low 4 bytes of `rax`.
    pub sub_registers: &'static [(&'static str, &'static str, usize)],
    /// Wider vector registers gdb makes of a table register and the extended state's upper
    /// half (x86-64 with AVX: `ymm0` is `xmm0` and the upper 128 bits of `ymm0`), by number:
    /// (name, the register of the low half).
    pub wide_vectors: &'static [(&'static str, &'static str)],
    /// Length in bytes of the standard frame-setup sequence at `code`, if it starts with one
    /// (used to place a breakpoint after the prologue of a function without line info).
    pub skip_prologue: fn(code: &[u8]) -> usize,
    /// What the sandbox (`Process::sandbox_run`) must know about instructions whose memory
    /// effects the disassembler's operands do not show; `None`: no sandbox on this
    /// architecture.
    pub sandbox: Option<&'static SandboxRules>,
    /// The C calling convention, for functions called from the debugger; `None`: such calls
    /// are refused on this architecture.
    pub call: Option<&'static CallConv>,
    /// The Linux system calls, by number, with gdb's names and groups (`catch syscall`).
    pub syscalls: &'static [syscalls::Syscall],
}

/// Instruction facts for running a few instructions of a thread in a sandbox and rolling
/// them back: the sandbox runs only instructions whose stores it can see and undo.
/// Mnemonics are matched by prefix, in the disassembler's (Intel / ARM) spelling.
#[derive(Debug)]
pub struct SandboxRules {
    /// Instructions whose memory operand is only an address, never accessed (`lea`, `nop`).
    pub no_access: &'static [&'static str],
    /// Instructions that store below the stack pointer without a memory operand, with the
    /// number of bytes they store there (`push`).
    pub push: &'static [(&'static str, u64)],
    /// Instructions with stores the operands do not describe (repeated string operations,
    /// state saves, scatters): the sandbox never runs them.
    pub refuse: &'static [&'static str],
}

impl ArchInfo {
    /// Index of the register called `name` (case-sensitive, as gdb).
    pub fn reg_index(&self, name: &str) -> Option<usize> {
        self.regs.iter().position(|r| r.name == name)
    }

    /// Index of the register with DWARF number `n`.
    pub fn reg_by_dwarf(&self, n: u16) -> Option<usize> {
        self.regs.iter().position(|r| r.dwarf == Some(n))
    }

    /// Whether a watch of `len` bytes at `addr` can be placed in one slot.
    pub fn watch_fits(&self, addr: u64, len: usize) -> bool {
        self.watch_lengths.contains(&len) && addr.is_multiple_of(len as u64)
    }
}

/// The table of the architecture this engine was built for.
pub fn native() -> &'static ArchInfo {
    #[cfg(target_arch = "x86_64")]
    {
        &x86_64::ARCH
    }
    #[cfg(target_arch = "aarch64")]
    {
        &aarch64::ARCH
    }
}

/// How a signal handler's return trampoline looks and where the interrupted registers lie.
#[derive(Debug)]
pub struct SignalFrameLayout {
    /// The code at the trampoline's entry (`rt_sigreturn` system call), as bytes in memory.
    pub trampoline: &'static [u8],
    /// Offset from the trampoline frame's stack pointer to the saved register block
    /// (`uc_mcontext` of the `ucontext_t` the kernel pushed).
    pub context_offset: u64,
    /// `(register index, offset in the register block, size in bytes)` of each saved register.
    pub regs: &'static [(usize, u64, usize)],
}

/// Architecture facts a stack unwinder needs (psABI and kernel signal-frame layout).
#[derive(Debug)]
pub struct UnwindInfo {
    /// DWARF column of the return address when a CIE does not say (x86-64: 16, rip;
    /// aarch64: 30, x30).
    pub return_address_column: u16,
    /// Registers a callee preserves (the caller sees the callee's value when CFI gives no
    /// rule): callee-saved integer registers and per-thread control/segment state.
    pub preserved: &'static [usize],
    /// Frame-pointer chain: CFA = fp + `fp_cfa_offset`; the return address is at
    /// fp + `fp_ra_offset` and the caller's fp at fp + `fp_saved_fp_offset`.
    pub fp_cfa_offset: u64,
    pub fp_ra_offset: u64,
    pub fp_saved_fp_offset: u64,
    /// At a function's first instruction: CFA = sp + `entry_cfa_offset`; the return address
    /// is in `entry_ra_register` if set, else at CFA - pointer size.
    pub entry_cfa_offset: u64,
    pub entry_ra_register: Option<usize>,
    /// Linux signal frames.
    pub signal_frame: SignalFrameLayout,
}

impl ArchInfo {
    /// The unwinder's facts for this architecture.
    pub fn unwind(&self) -> &'static UnwindInfo {
        match self.disasm {
            DisasmKind::X86_64 => &x86_64::UNWIND,
            DisasmKind::Aarch64 => &aarch64::UNWIND,
        }
    }
}

/// What one scalar piece of a value is, as a calling convention classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// Integers, pointers, enums, `bool`, `char`.
    Int,
    /// `float` or `double` (and the halves of `_Complex`).
    Float,
    /// x87 80-bit `long double` (its 16 bytes).
    X87,
}

/// A value passed to or returned from a function called in the program, as the calling
/// convention sees it: its bytes and the scalars they are made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbiValue {
    pub bytes: Vec<u8>,
    pub align: u64,
    /// The scalars of the value: (offset, size, kind), in offset order.
    pub pieces: Vec<(u64, u64, Scalar)>,
    /// Always passed in memory: a C++ class that is not trivially copyable, a value the
    /// pieces cannot describe (an unaligned member).
    pub memory: bool,
}

/// Where a calling convention puts one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// In registers: (register index, offset in the value, bytes).
    Regs(Vec<(usize, u64, u64)>),
    /// In the argument area on the stack.
    Stack,
    /// Returned through memory the caller provides (its address in a register).
    Indirect,
    /// Nothing (a `void` return).
    Nothing,
    /// Copied to memory by the caller; the copy's address is passed as a pointer argument
    /// would be, where the inner place says (AAPCS64's composites over 16 bytes).
    ByReference(Box<Place>),
}

/// Where every argument and the return value of one call go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallLayout {
    pub args: Vec<Place>,
    pub ret: Place,
    /// Registers set for the call's own sake: (register index, value) — x86-64's `al`, the
    /// number of vector registers a variadic callee may read.
    pub extra: Vec<(usize, u64)>,
}

/// A calling convention, as a table of facts and one classification function.
#[derive(Debug)]
pub struct CallConv {
    /// Lay out a call: the arguments, and the return value (`None`: `void`).
    pub layout: fn(args: &[AbiValue], ret: Option<&AbiValue>) -> CallLayout,
    /// Register that holds the address of the caller's buffer for an [`Place::Indirect`]
    /// return; it is also where the callee returns that address (x86-64: `rdi` in, `rax`
    /// out; aarch64: `x8`).
    pub indirect_in: usize,
    /// The stack pointer's alignment at the call.
    pub stack_align: u64,
    /// Slot size of a stack argument.
    pub stack_slot: u64,
    /// Register that receives the return address (aarch64's `x30`); `None`: the call
    /// pushes it on the stack (x86-64).
    pub link_register: Option<usize>,
    /// Bytes left free below the red zone before the call's frame, as gdb leaves them
    /// (x86-64: 16, the room of its on-stack return breakpoint, `i386_push_dummy_code`), so
    /// that the called function's frames are where gdb has them.
    pub reserved: u64,
    /// gdb's frame address of a call's dummy frame, from the stack pointer after the
    /// function returned: x86-64 8 (`amd64_push_dummy_call` answers 16 above the return
    /// address), aarch64 0.
    pub dummy_frame_offset: u64,
    /// The call returns to a trap on the stack, in the last byte above the [`Self::reserved`]
    /// room (gdb's `ON_STACK` dummy, `i386_push_dummy_code`: x86-64), rather than to the
    /// address the caller gives (gdb's `AT_ENTRY_POINT`: aarch64). On a stack that is not
    /// executable the return faults there (SIGSEGV at that pc) instead of trapping.
    pub return_on_stack: bool,
}
