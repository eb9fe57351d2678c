//! x86-64 Linux: registers through PTRACE_GETREGS / GETFPREGS / GETREGSET(NT_X86_XSTATE) and
//! debug registers DR0-DR7 through PTRACE_POKEUSER.

use nix::sys::ptrace;
use nix::unistd::Pid;

use crate::arch::WatchKind;
use crate::arch::x86_64::{ARCH, dr6_hits, dr7, idx};
use crate::error::{EngineError, Result};
use crate::regs::Registers;

/// `offsetof(struct user, u_debugreg)` on x86-64.
const DEBUGREG_OFFSET: usize = 848;
const NT_X86_XSTATE: i32 = 0x202;
/// Offset of the saved XCR0 in the XSAVE area's software-reserved bytes.
const XSTATE_XCR0: usize = 464;
/// Standard (non-compacted) offset of the AVX-512 opmask state component.
const XSTATE_OPMASK: usize = 1088;

fn gp_order(r: &libc::user_regs_struct) -> [(usize, u64); 24] {
    [
        (idx::RAX, r.rax),
        (idx::RBX, r.rbx),
        (idx::RCX, r.rcx),
        (idx::RDX, r.rdx),
        (idx::RSI, r.rsi),
        (idx::RDI, r.rdi),
        (idx::RBP, r.rbp),
        (idx::RSP, r.rsp),
        (idx::R8, r.r8),
        (idx::R9, r.r9),
        (idx::R10, r.r10),
        (11, r.r11),
        (12, r.r12),
        (13, r.r13),
        (14, r.r14),
        (15, r.r15),
        (idx::RIP, r.rip),
        (idx::EFLAGS, r.eflags),
        (idx::CS, r.cs),
        (19, r.ss),
        (20, r.ds),
        (21, r.es),
        (22, r.fs),
        (23, r.gs),
    ]
}

fn ptrace_err(op: &'static str, tid: Pid) -> impl Fn(nix::Error) -> EngineError {
    move |err| EngineError::Ptrace {
        op,
        tid: tid.as_raw(),
        err,
    }
}

/// The kernel's general-register block as one `PTRACE_GETREGS` returns it. The engine keeps
/// the last one read while a thread is stopped, so that reading the pc, the registers and
/// moving the pc back after a trap cost one `GETREGS` and one `POKEUSER` in all.
pub type RawGp = libc::user_regs_struct;

/// One `PTRACE_GETREGS`.
pub fn read_raw(tid: Pid) -> Result<RawGp> {
    ptrace::getregs(tid).map_err(ptrace_err("PTRACE_GETREGS", tid))
}

/// The program counter in a raw register block.
pub fn raw_pc(r: &RawGp) -> u64 {
    r.rip
}

/// The registers of a raw block, laid out by the architecture table.
pub fn raw_to_registers(r: &RawGp) -> Registers {
    // The general-purpose block and the segment bases come first in the table: 26 values
    // (832 bytes, which malloc serves from its per-thread cache; the whole table, 2 KiB, is a
    // "large" request that makes glibc consolidate its free lists at every stop).
    let mut regs = Registers::with_room(&ARCH, idx::GS_BASE + 1);
    for (i, v) in gp_order(r) {
        regs.set(i, v as u128);
    }
    regs.set(idx::FS_BASE, r.fs_base as u128);
    regs.set(idx::GS_BASE, r.gs_base as u128);
    regs
}

/// `offsetof(struct user_regs_struct, rip)`: the pc's place in the user area.
const RIP_OFFSET: usize = std::mem::offset_of!(libc::user_regs_struct, rip);

/// Set the pc in `r` (the thread's current block) and in the thread; one `PTRACE_POKEUSER`
/// of the pc alone, which costs the kernel half of what writing the whole block back does
/// (moving the pc back after every breakpoint trap of a step is on the hot path of stepping
/// many ranks).
pub fn write_raw_pc(tid: Pid, r: &mut RawGp, pc: u64) -> Result<()> {
    ptrace::write_user(tid, RIP_OFFSET as ptrace::AddressType, pc as libc::c_long)
        .map_err(ptrace_err("PTRACE_POKEUSER", tid))?;
    r.rip = pc;
    Ok(())
}

/// General-purpose registers (and the segment bases).
pub fn read_gp(tid: Pid) -> Result<Registers> {
    Ok(raw_to_registers(&read_raw(tid)?))
}

/// Every register: general purpose, x87, SSE, and AVX-512 masks where the CPU has them.
pub fn read_all(tid: Pid) -> Result<Registers> {
    let mut regs = read_gp(tid)?;
    let mut fp: libc::user_fpregs_struct = unsafe_zeroed_fp();
    if fpregs(tid, libc::PTRACE_GETFPREGS, &mut fp).is_ok() {
        add_fp(&mut regs, &fp);
    }
    read_opmask(tid, &mut regs);
    Ok(regs)
}

/// The x87 and SSE registers of an FXSAVE block, into `regs`.
fn add_fp(regs: &mut Registers, fp: &libc::user_fpregs_struct) {
    {
        for i in 0..8 {
            let w = &fp.st_space[i * 4..i * 4 + 4];
            let raw = (w[0] as u128) | (w[1] as u128) << 32 | ((w[2] & 0xffff) as u128) << 64;
            regs.set(idx::ST0 + i, raw);
        }
        for i in 0..16 {
            let w = &fp.xmm_space[i * 4..i * 4 + 4];
            let v =
                (w[0] as u128) | (w[1] as u128) << 32 | (w[2] as u128) << 64 | (w[3] as u128) << 96;
            regs.set(idx::XMM0 + i, v);
        }
        regs.set(idx::FCTRL, fp.cwd as u128);
        regs.set(idx::FCTRL + 1, fp.swd as u128);
        regs.set(idx::FCTRL + 2, full_tag_word(fp.ftw as u8, regs) as u128);
        regs.set(idx::FCTRL + 3, ((fp.rip >> 32) & 0xffff) as u128); // fiseg
        regs.set(idx::FCTRL + 4, (fp.rip & 0xffff_ffff) as u128); // fioff
        regs.set(idx::FCTRL + 5, ((fp.rdp >> 32) & 0xffff) as u128); // foseg
        regs.set(idx::FCTRL + 6, (fp.rdp & 0xffff_ffff) as u128); // fooff
        regs.set(idx::FCTRL + 7, (fp.fop & 0x7ff) as u128);
        regs.set(idx::MXCSR, fp.mxcsr as u128);
    }
}

/// Write the x87 and SSE registers `regs` holds (`st0`–`st7`, `xmm0`–`xmm15`, `mxcsr`) over
/// the thread's own; the others are left as they are. False when `regs` holds none of them
/// (nothing is written).
pub fn write_fp(tid: Pid, regs: &Registers) -> Result<bool> {
    let any = (idx::ST0..idx::ST0 + 8)
        .chain(idx::XMM0..idx::XMM0 + 16)
        .chain([idx::MXCSR])
        .any(|i| regs.get(i).is_some());
    if !any {
        return Ok(false);
    }
    let mut fp: libc::user_fpregs_struct = unsafe_zeroed_fp();
    fpregs(tid, libc::PTRACE_GETFPREGS, &mut fp)?;
    for i in 0..8 {
        if let Some(v) = regs.get(idx::ST0 + i) {
            let w = &mut fp.st_space[i * 4..i * 4 + 4];
            w[0] = v as u32;
            w[1] = (v >> 32) as u32;
            w[2] = (w[2] & !0xffff) | ((v >> 64) as u32 & 0xffff);
        }
    }
    for i in 0..16 {
        if let Some(v) = regs.get(idx::XMM0 + i) {
            let w = &mut fp.xmm_space[i * 4..i * 4 + 4];
            for (k, word) in w.iter_mut().enumerate() {
                *word = (v >> (32 * k)) as u32;
            }
        }
    }
    if let Some(v) = regs.get(idx::MXCSR) {
        fp.mxcsr = v as u32;
    }
    fpregs(tid, libc::PTRACE_SETFPREGS, &mut fp)?;
    Ok(true)
}

/// `PTRACE_GETFPREGS` (into `fp`) or `PTRACE_SETFPREGS` (from `fp`).
fn fpregs(tid: Pid, req: libc::c_uint, fp: &mut libc::user_fpregs_struct) -> Result<()> {
    let op = match req {
        libc::PTRACE_SETFPREGS => "PTRACE_SETFPREGS",
        _ => "PTRACE_GETFPREGS",
    };
    // SAFETY: the request reads or writes one user_fpregs_struct at `fp`, which we own.
    let rc = unsafe {
        libc::ptrace(
            req,
            tid.as_raw(),
            std::ptr::null_mut::<libc::c_void>(),
            fp as *mut libc::user_fpregs_struct,
        )
    };
    if rc != 0 {
        return Err(ptrace_err(op, tid)(nix::errno::Errno::last()));
    }
    Ok(())
}

fn unsafe_zeroed_fp() -> libc::user_fpregs_struct {
    // SAFETY: user_fpregs_struct is plain old data; all-zero is a valid value.
    unsafe { std::mem::zeroed() }
}

/// FXSAVE keeps an abridged tag byte; gdb shows the full x87 tag word.
fn full_tag_word(abridged: u8, regs: &Registers) -> u16 {
    let fstat = regs.u64(idx::FCTRL + 1) as u16;
    let top = ((fstat >> 11) & 7) as usize;
    let mut tag = 0u16;
    for phys in 0..8 {
        let t = if abridged & (1 << phys) == 0 {
            3
        } else {
            let st = (phys + 8 - top) % 8;
            let raw = regs.get(idx::ST0 + st).unwrap_or(0);
            let exp = ((raw >> 64) & 0x7fff) as u16;
            let mant = raw as u64;
            if exp == 0x7fff {
                2
            } else if exp == 0 {
                if mant == 0 { 1 } else { 2 }
            } else if mant >> 63 == 0 {
                2
            } else {
                0
            }
        };
        tag |= t << (2 * phys);
    }
    tag
}

/// `PTRACE_GETREGSET` or `PTRACE_SETREGSET` (`request`, named `op` in errors) of the XSAVE
/// area (`NT_X86_XSTATE`) through `buf`; how many bytes the kernel filled or read.
fn xstate_regset(
    tid: Pid,
    request: libc::c_uint,
    op: &'static str,
    buf: &mut [u8],
) -> Result<usize> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: the kernel reads or fills at most iov_len bytes of `buf`, which outlives the call.
    let rc = unsafe {
        libc::ptrace(
            request,
            tid.as_raw(),
            NT_X86_XSTATE as usize,
            &mut iov as *mut _,
        )
    };
    if rc != 0 {
        return Err(ptrace_err(op, tid)(nix::Error::last()));
    }
    Ok(iov.iov_len)
}

/// Offset of the XSAVE header's `xstate_bv` (which components hold live state).
const XSTATE_BV: usize = 512;
/// Offset of the AVX component (the upper halves of `ymm0`–`ymm15`, 16 bytes each).
const XSTATE_YMM_HI: usize = 576;

/// The upper 128 bits of `ymm0`–`ymm15` (`None` without AVX): a value of a 32-byte vector
/// type kept in a register (`DW_OP_reg17` is `ymm0` where AVX exists) reads them.
pub fn read_ymm_high(tid: Pid) -> Result<Option<[u128; 16]>> {
    let mut buf = vec![0u8; 16384];
    let n = xstate_regset(tid, libc::PTRACE_GETREGSET, "PTRACE_GETREGSET", &mut buf)?;
    let word = |at: usize| {
        buf.get(at..at + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(u64::from_le_bytes)
            .unwrap_or(0)
    };
    if n < XSTATE_YMM_HI + 256 || word(XSTATE_XCR0) & (1 << 2) == 0 {
        return Ok(None);
    }
    let mut out = [0u128; 16];
    // A component not in `xstate_bv` is in its initial state (zeros).
    if word(XSTATE_BV) & (1 << 2) != 0 {
        for (i, v) in out.iter_mut().enumerate() {
            let at = XSTATE_YMM_HI + i * 16;
            if let Some(b) = buf
                .get(at..at + 16)
                .and_then(|b| <[u8; 16]>::try_from(b).ok())
            {
                *v = u128::from_le_bytes(b);
            }
        }
    }
    Ok(Some(out))
}

/// Write the upper 128 bits of the `ymm` registers given as `(register number, bits)`.
pub fn write_ymm_high(tid: Pid, values: &[(usize, u128)]) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    let mut buf = vec![0u8; 16384];
    let n = xstate_regset(tid, libc::PTRACE_GETREGSET, "PTRACE_GETREGSET", &mut buf)?;
    buf.truncate(n);
    if n < XSTATE_YMM_HI + 256 {
        return Err(EngineError::Other("no AVX state in this thread".into()));
    }
    let live = buf
        .get(XSTATE_BV..XSTATE_BV + 8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes)
        .unwrap_or(0);
    if live & (1 << 2) == 0 {
        // Initial state: the other upper halves are zeros, as the buffer may not say.
        buf[XSTATE_YMM_HI..XSTATE_YMM_HI + 256].fill(0);
    }
    buf[XSTATE_BV..XSTATE_BV + 8].copy_from_slice(&(live | (1 << 2)).to_le_bytes());
    for &(i, v) in values {
        let at = XSTATE_YMM_HI + i.min(15) * 16;
        buf[at..at + 16].copy_from_slice(&v.to_le_bytes());
    }
    xstate_regset(tid, libc::PTRACE_SETREGSET, "PTRACE_SETREGSET", &mut buf)?;
    Ok(())
}

fn read_opmask(tid: Pid, regs: &mut Registers) {
    let mut buf = vec![0u8; 4096];
    match xstate_regset(tid, libc::PTRACE_GETREGSET, "PTRACE_GETREGSET", &mut buf) {
        Ok(n) if n >= XSTATE_OPMASK + 64 => {}
        _ => return,
    }
    opmask_from_xstate(&buf, regs);
}

/// The AVX-512 mask registers of an XSAVE area (where the CPU has them), into `regs`.
pub fn opmask_from_xstate(buf: &[u8], regs: &mut Registers) {
    let Some(xcr0) = buf
        .get(XSTATE_XCR0..XSTATE_XCR0 + 8)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes)
    else {
        return;
    };
    if xcr0 & (1 << 5) == 0 {
        return;
    }
    for i in 0..8 {
        let at = XSTATE_OPMASK + i * 8;
        if let Some(b) = buf
            .get(at..at + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
        {
            regs.set(idx::K0 + i, u64::from_le_bytes(b) as u128);
        }
    }
}

/// Write back the general-purpose registers over `base`, the thread's current block (read
/// here when not given); returns the block written.
pub fn write_gp(tid: Pid, base: Option<RawGp>, regs: &Registers) -> Result<RawGp> {
    let mut r = match base {
        Some(r) => r,
        None => read_raw(tid)?,
    };
    let get = |i: usize, old: u64| regs.get(i).map(|v| v as u64).unwrap_or(old);
    r.rax = get(idx::RAX, r.rax);
    r.rbx = get(idx::RBX, r.rbx);
    r.rcx = get(idx::RCX, r.rcx);
    r.rdx = get(idx::RDX, r.rdx);
    r.rsi = get(idx::RSI, r.rsi);
    r.rdi = get(idx::RDI, r.rdi);
    r.rbp = get(idx::RBP, r.rbp);
    r.rsp = get(idx::RSP, r.rsp);
    r.r8 = get(idx::R8, r.r8);
    r.r9 = get(idx::R9, r.r9);
    r.r10 = get(idx::R10, r.r10);
    r.r11 = get(11, r.r11);
    r.r12 = get(12, r.r12);
    r.r13 = get(13, r.r13);
    r.r14 = get(14, r.r14);
    r.r15 = get(15, r.r15);
    r.rip = get(idx::RIP, r.rip);
    r.eflags = get(idx::EFLAGS, r.eflags);
    ptrace::setregs(tid, r).map_err(ptrace_err("PTRACE_SETREGS", tid))?;
    Ok(r)
}

fn dr_offset(n: usize) -> ptrace::AddressType {
    (DEBUGREG_OFFSET + n * 8) as ptrace::AddressType
}

/// One occupied hardware watch slot: address, access kind, length.
pub type WatchSlot = Option<(u64, WatchKind, usize)>;

/// Program the debug registers of `tid` with `slots`.
pub fn set_watch_slots(tid: Pid, slots: &[WatchSlot]) -> Result<()> {
    let err = ptrace_err("PTRACE_POKEUSER", tid);
    // Disable first so that changing an address never meets a stale enable bit, and forget
    // old status bits so a later trap is not taken for a hit.
    ptrace::write_user(tid, dr_offset(7), 0).map_err(&err)?;
    ptrace::write_user(tid, dr_offset(6), 0).map_err(&err)?;
    for (i, s) in slots.iter().enumerate().take(4) {
        let addr = s.map(|(a, _, _)| a).unwrap_or(0);
        ptrace::write_user(tid, dr_offset(i), addr as libc::c_long).map_err(&err)?;
    }
    let ctl: Vec<Option<(WatchKind, usize)>> =
        slots.iter().map(|s| s.map(|(_, k, l)| (k, l))).collect();
    ptrace::write_user(tid, dr_offset(7), dr7(&ctl) as libc::c_long).map_err(&err)
}

/// The watch slot that caused `tid`'s last SIGTRAP, if any; clears the status register.
pub fn take_watch_hit(tid: Pid) -> Result<Option<usize>> {
    let dr6 =
        ptrace::read_user(tid, dr_offset(6)).map_err(ptrace_err("PTRACE_PEEKUSER", tid))? as u64;
    let hit = dr6_hits(dr6).next();
    if dr6 != 0 {
        ptrace::write_user(tid, dr_offset(6), 0).map_err(ptrace_err("PTRACE_POKEUSER", tid))?;
    }
    Ok(hit)
}

/// A thread's whole register state as the kernel keeps it (general registers, the XSAVE
/// area, the debug status register), saved to be put back exactly.
#[derive(Clone)]
pub struct SavedState {
    gp: libc::user_regs_struct,
    xstate: Vec<u8>,
    dr6: u64,
}

/// The general registers as (name, value) pairs, orig_rax and the segment bases included.
fn gp_fields(r: &libc::user_regs_struct) -> Vec<u64> {
    let mut v: Vec<u64> = gp_order(r).iter().map(|&(_, x)| x).collect();
    v.extend([r.orig_rax, r.fs_base, r.gs_base]);
    v
}

impl SavedState {
    /// Whether the thread stopped inside a system call (blocked in it, or on its way out of
    /// it): the kernel keeps the call's number in `orig_rax` there, and -1 at a stop in the
    /// program's own code. Resuming the thread may run the call again (a restart after an
    /// interruption rewinds the pc to the `syscall` instruction).
    pub fn in_system_call(&self) -> bool {
        (self.gp.orig_rax as i64) >= 0
    }

    /// Whether `other` holds the same register contents.
    pub fn same_as(&self, other: &SavedState) -> bool {
        gp_fields(&self.gp) == gp_fields(&other.gp)
            && self.xstate == other.xstate
            && self.dr6 == other.dr6
    }
}

/// Save every register of `tid` (see [`SavedState`]).
pub fn save_state(tid: Pid) -> Result<SavedState> {
    let gp = ptrace::getregs(tid).map_err(ptrace_err("PTRACE_GETREGS", tid))?;
    let mut buf = vec![0u8; 16384];
    let n = xstate_regset(tid, libc::PTRACE_GETREGSET, "PTRACE_GETREGSET", &mut buf)?;
    buf.truncate(n);
    let dr6 =
        ptrace::read_user(tid, dr_offset(6)).map_err(ptrace_err("PTRACE_PEEKUSER", tid))? as u64;
    Ok(SavedState {
        gp,
        xstate: buf,
        dr6,
    })
}

/// Put back registers saved by [`save_state`].
pub fn restore_state(tid: Pid, s: &SavedState) -> Result<()> {
    let mut buf = s.xstate.clone();
    xstate_regset(tid, libc::PTRACE_SETREGSET, "PTRACE_SETREGSET", &mut buf)?;
    ptrace::setregs(tid, s.gp).map_err(ptrace_err("PTRACE_SETREGS", tid))?;
    ptrace::write_user(tid, dr_offset(6), s.dr6 as libc::c_long)
        .map_err(ptrace_err("PTRACE_POKEUSER", tid))
}

// ---------------------------------------------------------------- core files

/// `sizeof(struct user_regs_struct)`: the register block of a core file's `NT_PRSTATUS`.
pub const RAW_GP_SIZE: usize = std::mem::size_of::<libc::user_regs_struct>();
/// `sizeof(struct user_fpregs_struct)`: a core file's `NT_FPREGSET` (the FXSAVE layout).
pub const RAW_FP_SIZE: usize = std::mem::size_of::<libc::user_fpregs_struct>();

/// The fields of `user_regs_struct` in their kernel order (as a core file stores them).
fn gp_fields_mut(r: &mut RawGp) -> [&mut u64; 27] {
    [
        &mut r.r15,
        &mut r.r14,
        &mut r.r13,
        &mut r.r12,
        &mut r.rbp,
        &mut r.rbx,
        &mut r.r11,
        &mut r.r10,
        &mut r.r9,
        &mut r.r8,
        &mut r.rax,
        &mut r.rcx,
        &mut r.rdx,
        &mut r.rsi,
        &mut r.rdi,
        &mut r.orig_rax,
        &mut r.rip,
        &mut r.cs,
        &mut r.eflags,
        &mut r.rsp,
        &mut r.ss,
        &mut r.fs_base,
        &mut r.gs_base,
        &mut r.ds,
        &mut r.es,
        &mut r.fs,
        &mut r.gs,
    ]
}

fn zeroed_gp() -> RawGp {
    // SAFETY: user_regs_struct is plain old data; all-zero is a valid value.
    unsafe { std::mem::zeroed() }
}

/// A register block from the bytes of a core file (`None` when too short).
pub fn raw_from_bytes(b: &[u8]) -> Option<RawGp> {
    let mut r = zeroed_gp();
    for (i, f) in gp_fields_mut(&mut r).into_iter().enumerate() {
        *f = u64::from_le_bytes(b.get(i * 8..i * 8 + 8)?.try_into().ok()?);
    }
    Some(r)
}

/// The bytes a core file stores for a register block.
pub fn raw_to_bytes(r: &RawGp) -> Vec<u8> {
    let mut r = *r;
    gp_fields_mut(&mut r)
        .into_iter()
        .flat_map(|f| f.to_le_bytes())
        .collect()
}

/// Every register from a core file's register block and FXSAVE block (if any).
pub fn registers_from_core(gp: &RawGp, fp: Option<&[u8]>) -> Registers {
    let mut regs = raw_to_registers(gp);
    if let Some(b) = fp.filter(|b| b.len() >= 416) {
        let mut f = unsafe_zeroed_fp();
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| u64::from(u32_at(o)) | u64::from(u32_at(o + 4)) << 32;
        f.cwd = u16_at(0);
        f.swd = u16_at(2);
        f.ftw = u16_at(4);
        f.fop = u16_at(6);
        f.rip = u64_at(8);
        f.rdp = u64_at(16);
        f.mxcsr = u32_at(24);
        f.mxcr_mask = u32_at(28);
        for (i, w) in f.st_space.iter_mut().enumerate() {
            *w = u32_at(32 + i * 4);
        }
        for (i, w) in f.xmm_space.iter_mut().enumerate() {
            *w = u32_at(160 + i * 4);
        }
        add_fp(&mut regs, &f);
    }
    regs
}

/// The FXSAVE block of a stopped thread as a core file stores it (`NT_FPREGSET`).
pub fn read_fp_bytes(tid: Pid) -> Result<Vec<u8>> {
    let mut f = unsafe_zeroed_fp();
    fpregs(tid, libc::PTRACE_GETFPREGS, &mut f)?;
    let mut b = Vec::with_capacity(RAW_FP_SIZE);
    b.extend(f.cwd.to_le_bytes());
    b.extend(f.swd.to_le_bytes());
    b.extend(f.ftw.to_le_bytes());
    b.extend(f.fop.to_le_bytes());
    b.extend(f.rip.to_le_bytes());
    b.extend(f.rdp.to_le_bytes());
    b.extend(f.mxcsr.to_le_bytes());
    b.extend(f.mxcr_mask.to_le_bytes());
    for w in f.st_space.iter().chain(f.xmm_space.iter()) {
        b.extend(w.to_le_bytes());
    }
    b.resize(RAW_FP_SIZE, 0);
    Ok(b)
}

/// The XSAVE area of a stopped thread as a core file stores it (`NT_X86_XSTATE`), cut to the
/// state components gdb 13 knows (up to PKRU), whose reader expects exactly that size.
pub fn read_xstate_bytes(tid: Pid) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; 16384];
    let n = xstate_regset(tid, libc::PTRACE_GETREGSET, "PTRACE_GETREGSET", &mut buf)?;
    buf.truncate(n);
    let xcr0 = buf
        .get(XSTATE_XCR0..XSTATE_XCR0 + 8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map_or(0, u64::from_le_bytes);
    // (component bit, end of its area in the standard layout)
    const ENDS: [(u32, usize); 8] = [
        (1, 512 + 64),
        (2, 832),
        (3, 1024),
        (4, 1088),
        (5, 1152),
        (6, 1664),
        (7, 2688),
        (9, 2696),
    ];
    let end = ENDS
        .iter()
        .filter(|(bit, _)| xcr0 & (1 << bit) != 0)
        .map(|&(_, e)| e)
        .max()
        .unwrap_or(n);
    buf.truncate(end.min(n));
    Ok(buf)
}
