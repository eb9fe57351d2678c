//! Shared helpers of the `what_*` tests: build fixtures with any flags, run gdb as the oracle,
//! stop a real process at an address and give a `FrameContext` over its frame 0 (and, through
//! `.eh_frame`, its caller), and print values the way gdb prints them with
//! `set output-radix 16` (integers, pointers, enums, structs and arrays of those).
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use cohort_dwarf::context::Target;
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::location::{FrameContext, variable_value_parts};
use cohort_dwarf::scopes::Variable;
use cohort_dwarf::types::{AggregateKind, Bound, Encoding, TypeKind, TypeRef};
use cohort_dwarf::value::Value;
use cohort_engine::process::{LaunchOptions, Process, StopKind};
use gimli::UnwindSection;
use object::{Object, ObjectSection};

pub const PIE_BASE: u64 = 0x5555_5555_4000;

static LOCK: Mutex<()> = Mutex::new(());

/// `tests/fixtures` of this checkout.
pub fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// Compile `tests/fixtures/{sources}` with `flags` into `target/fixtures/{out}`.
pub fn build(out: &str, sources: &[&str], flags: &[&str]) -> PathBuf {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = source_dir();
    let outdir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fixtures");
    std::fs::create_dir_all(&outdir).unwrap();
    let exe = outdir.join(out);
    let tmp = exe.with_extension(
        format!(
            "tmp{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        )
        .replace(['(', ')'], ""),
    );
    let st = Command::new("cc")
        .args(flags)
        .arg("-o")
        .arg(&tmp)
        .args(sources.iter().map(|s| dir.join(s)))
        .status()
        .unwrap();
    assert!(st.success(), "compiling {out} failed");
    std::fs::rename(&tmp, &exe).unwrap();
    exe.canonicalize().unwrap()
}

/// gdb's output for `cmds` (batch mode, fixture launched without arguments).
pub fn gdb(prog: &Path, cmds: &[&str]) -> String {
    let mut c = Command::new("gdb");
    c.args(["-nx", "-batch"]);
    for x in cmds {
        c.arg("-ex").arg(x);
    }
    let out = c.arg(prog).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The link-time address gdb places `break SPEC` at.
pub fn gdb_break_address(prog: &Path, spec: &str) -> u64 {
    let out = gdb(prog, &[&format!("break {spec}")]);
    let line = out
        .lines()
        .find(|l| l.starts_with("Breakpoint 1 at 0x"))
        .unwrap_or_else(|| panic!("no breakpoint address in {out}"));
    let hex = line["Breakpoint 1 at 0x".len()..]
        .split(|c: char| !c.is_ascii_hexdigit())
        .next()
        .unwrap();
    u64::from_str_radix(hex, 16).unwrap()
}

/// Launch `prog` and run it to the link-time address `addr` (its `hit`-th time, from 1).
pub fn run_to(prog: &Path, addr: u64, hit: usize) -> (Process, i32) {
    let opts = LaunchOptions {
        program: prog.to_path_buf(),
        disable_aslr: true,
        ..Default::default()
    };
    let mut p = Process::launch(&opts).unwrap();
    p.add_breakpoint(PIE_BASE + addr).unwrap();
    let mut tid = p.pid();
    for _ in 0..hit {
        let s = p.cont().unwrap();
        assert_eq!(s.kind, StopKind::Breakpoint(PIE_BASE + addr));
        tid = s.tid;
    }
    (p, tid)
}

/// A frame over a stopped real process.
pub struct TestFrame<'a> {
    pub proc: &'a Process,
    pub regs: HashMap<u16, Vec<u8>>,
    pub pc: u64,
    pub cfa: Option<u64>,
    pub tls_block: Option<u64>,
    pub caller: Option<Box<TestFrame<'a>>>,
}

impl Target for TestFrame<'_> {
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> cohort_dwarf::Result<()> {
        self.proc.read_memory(addr, buf)?;
        Ok(())
    }
    fn symbol_for(&self, _addr: u64) -> Option<String> {
        None
    }
}

impl FrameContext for TestFrame<'_> {
    fn pc(&self) -> u64 {
        self.pc
    }
    fn bias(&self) -> u64 {
        PIE_BASE
    }
    fn reg(&self, n: u16) -> Option<u64> {
        let b = self.regs.get(&n)?;
        let mut a = [0u8; 8];
        let k = b.len().min(8);
        a[..k].copy_from_slice(&b[..k]);
        Some(u64::from_le_bytes(a))
    }
    fn reg_bytes(&self, n: u16) -> Option<Vec<u8>> {
        self.regs.get(&n).cloned()
    }
    fn cfa(&self) -> Option<u64> {
        self.cfa
    }
    fn tls_address(&self, offset: u64) -> cohort_dwarf::Result<u64> {
        self.tls_block
            .map(|b| b + offset)
            .ok_or_else(|| cohort_dwarf::DwarfError::user("no TLS block"))
    }
    fn caller(&self) -> Option<&dyn FrameContext> {
        self.caller.as_deref().map(|c| c as &dyn FrameContext)
    }
}

fn eh_frame_row(exe: &[u8], pc: u64) -> Option<gimli::UnwindTableRow<usize>> {
    let obj = object::File::parse(exe).ok()?;
    let sec = obj.section_by_name(".eh_frame")?;
    let eh = gimli::EhFrame::new(sec.data().ok()?, gimli::LittleEndian);
    let mut bases = gimli::BaseAddresses::default().set_eh_frame(sec.address());
    if let Some(t) = obj.section_by_name(".text") {
        bases = bases.set_text(t.address());
    }
    let mut ctx = gimli::UnwindContext::new();
    eh.unwind_info_for_address(&bases, &mut ctx, pc, gimli::EhFrame::cie_from_offset)
        .ok()
        .cloned()
}

/// Start of the executable's static TLS block for the thread whose thread pointer is `tp`
/// (this machine's ABI puts it just below the thread pointer).
fn tls_block(exe: &[u8], tp: u64) -> Option<u64> {
    use object::read::elf::{ElfFile64, ProgramHeader};
    let elf = ElfFile64::<object::LittleEndian>::parse(exe).ok()?;
    let e = object::LittleEndian;
    let ph = elf
        .elf_program_headers()
        .iter()
        .find(|p| p.p_type(e) == object::elf::PT_TLS)?;
    let align = ph.p_align(e).max(1);
    let size = ph.p_memsz(e).div_ceil(align) * align;
    Some(tp - size)
}

/// Frame 0 of `tid`, and its caller unwound through `.eh_frame`.
pub fn frame0<'a>(p: &'a Process, tid: i32, prog: &Path) -> TestFrame<'a> {
    let exe = std::fs::read(prog).unwrap();
    let regs = p.all_registers(tid).unwrap();
    let mut map = HashMap::new();
    for (i, d) in regs.arch.regs.iter().enumerate() {
        if let (Some(n), Some(v)) = (d.dwarf, regs.get(i)) {
            map.insert(n, v.to_le_bytes()[..d.size.min(16)].to_vec());
        }
    }
    let tp = regs.by_name("fs_base").map(|v| v as u64);
    let pc = regs.pc();
    let tls = tp.and_then(|tp| tls_block(&exe, tp));
    let mut f = TestFrame {
        proc: p,
        regs: map,
        pc,
        cfa: None,
        tls_block: tls,
        caller: None,
    };
    unwind(&mut f, &exe, 0);
    f
}

fn unwind(f: &mut TestFrame<'_>, exe: &[u8], depth: usize) {
    let Some(row) = eh_frame_row(exe, f.pc - PIE_BASE) else {
        return;
    };
    let cfa = match row.cfa() {
        gimli::CfaRule::RegisterAndOffset { register, offset } => f
            .reg(register.0)
            .map(|v| (v as i64).wrapping_add(*offset) as u64),
        _ => None,
    };
    f.cfa = cfa;
    let Some(cfa) = cfa else { return };
    if depth > 0 {
        return;
    }
    // One step up: callee-saved registers (3 rbx, 6 rbp, 12-15) survive unless saved.
    let mut regs = HashMap::new();
    for n in [3u16, 6, 12, 13, 14, 15] {
        if let Some(v) = f.regs.get(&n) {
            regs.insert(n, v.clone());
        }
    }
    for &(reg, ref rule) in row.registers() {
        if let gimli::RegisterRule::Offset(o) = rule {
            let mut b = [0u8; 8];
            if f.proc.read_memory((cfa as i64 + o) as u64, &mut b).is_ok() {
                regs.insert(reg.0, b.to_vec());
            }
        }
    }
    regs.insert(7, cfa.to_le_bytes().to_vec());
    let Some(ret) = regs.get(&16).cloned() else {
        return;
    };
    let mut a = [0u8; 8];
    a.copy_from_slice(&ret[..8]);
    let ret = u64::from_le_bytes(a);
    let mut caller = TestFrame {
        proc: f.proc,
        regs,
        pc: ret - 1,
        cfa: None,
        tls_block: f.tls_block,
        caller: None,
    };
    unwind(&mut caller, exe, depth + 1);
    f.caller = Some(Box::new(caller));
}

/// `name = value` as gdb's `info locals` prints it under `set output-radix 16`, or `None`
/// where the value holds something this small printer does not do (floats, strings).
pub fn gdb_line(file: &Arc<DebugFile>, v: &Variable, frame: &dyn FrameContext) -> Option<String> {
    match variable_value_parts(file, v, frame) {
        Ok(val) => {
            fmt_partial(&val.value, &val.optimized_out_bits).map(|s| format!("{} = {s}", v.name))
        }
        Err(e) => Some(format!("{} = <error: {e}>", v.name)),
    }
}

pub fn fmt_value(v: &Value) -> Option<String> {
    fmt_partial(v, &[])
}

/// Like [`fmt_value`], members lying wholly in `missing` bits printed `<optimized out>`.
pub fn fmt_partial(v: &Value, missing: &[std::ops::Range<u64>]) -> Option<String> {
    if v.optimized_out {
        return Some("<optimized out>".into());
    }
    fmt_bytes(&v.ty, &v.bytes, 0, missing)
}

fn gone(base_bit: u64, bits: u64, missing: &[std::ops::Range<u64>]) -> bool {
    bits > 0
        && missing
            .iter()
            .any(|r| r.start <= base_bit && base_bit + bits <= r.end)
}

fn uint(bytes: &[u8]) -> u128 {
    let mut a = [0u8; 16];
    let n = bytes.len().min(16);
    a[..n].copy_from_slice(&bytes[..n]);
    u128::from_le_bytes(a)
}

fn fmt_bytes(
    ty: &TypeRef,
    bytes: &[u8],
    base_bit: u64,
    missing: &[std::ops::Range<u64>],
) -> Option<String> {
    let t = ty.strip();
    let size = t.byte_size() as usize;
    if gone(base_bit, size as u64 * 8, missing) {
        return Some("<optimized out>".into());
    }
    match &t.kind {
        TypeKind::Base(Encoding::Float | Encoding::ComplexFloat) => {
            if size == 8 {
                let f = f64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
                let s = format!("{f}");
                (s.len() < 8).then_some(s)
            } else {
                None
            }
        }
        TypeKind::Base(_) | TypeKind::Pointer(_) => {
            Some(format!("{:#x}", uint(bytes.get(..size)?)))
        }
        TypeKind::Enum { enumerators, .. } => {
            let v = Value::new(
                ty.clone(),
                bytes.get(..size)?.to_vec(),
                cohort_dwarf::value::Lval::None,
            );
            let x = if t.is_signed() {
                v.as_i64()
            } else {
                v.as_u64() as i64
            };
            enumerators
                .iter()
                .find(|(_, e)| *e == x)
                .map(|(n, _)| n.clone())
        }
        TypeKind::Aggregate { members, .. } => {
            let mut parts = Vec::new();
            for m in members {
                if m.is_static {
                    continue;
                }
                let mty = m.ty.get();
                let s = if let Some(bf) = m.bitfield {
                    let raw = uint(bytes) >> bf.bit_offset;
                    let mask = if bf.bit_size >= 128 {
                        u128::MAX
                    } else {
                        (1u128 << bf.bit_size) - 1
                    };
                    let mut x = raw & mask;
                    let msize = mty.byte_size() as u32 * 8;
                    if mty.is_signed() && bf.bit_size > 0 && (x >> (bf.bit_size - 1)) & 1 == 1 {
                        x |= !mask;
                    }
                    if msize < 128 {
                        x &= (1u128 << msize) - 1;
                    }
                    format!("{x:#x}")
                } else {
                    let start = m.offset as usize;
                    let end = start + mty.byte_size() as usize;
                    fmt_bytes(
                        mty,
                        bytes.get(start..end)?,
                        base_bit + m.offset * 8,
                        missing,
                    )?
                };
                match &m.name {
                    Some(n) => parts.push(format!("{n} = {s}")),
                    None => parts.push(s),
                }
            }
            Some(format!("{{{}}}", parts.join(", ")))
        }
        TypeKind::Array { element, bound } => {
            let Bound::Count(n) = bound else { return None };
            if matches!(
                element.strip().kind,
                TypeKind::Base(Encoding::SignedChar | Encoding::UnsignedChar)
            ) {
                return None;
            }
            let es = element.byte_size() as usize;
            let mut items: Vec<String> = Vec::new();
            for i in 0..*n as usize {
                items.push(fmt_bytes(
                    element,
                    bytes.get(i * es..(i + 1) * es)?,
                    base_bit + (i * es * 8) as u64,
                    missing,
                )?);
            }
            // gdb folds runs of 10 or more equal elements.
            let mut out = Vec::new();
            let mut i = 0;
            while i < items.len() {
                let mut j = i;
                while j < items.len() && items[j] == items[i] {
                    j += 1;
                }
                if j - i >= 10 {
                    out.push(format!("{} <repeats {} times>", items[i], j - i));
                } else {
                    out.extend(items[i..j].iter().cloned());
                }
                i = j;
            }
            Some(format!("{{{}}}", out.join(", ")))
        }
        _ => None,
    }
}

/// Stack addresses differ between gdb's run and ours (environment): hide them.
pub fn hide_stack(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("0x7ff") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 2..];
        let n = tail.chars().take_while(|c| c.is_ascii_hexdigit()).count();
        if n == 12 {
            out.push_str("<stack>");
        } else {
            out.push_str(&rest[i..i + 2 + n]);
        }
        rest = &tail[n..];
    }
    out.push_str(rest);
    out
}

pub fn lval_default() -> cohort_dwarf::value::Lval {
    cohort_dwarf::value::Lval::None
}

pub fn aggregate_keyword(k: AggregateKind) -> &'static str {
    k.keyword()
}
