//! Disassembly with capstone, written the way gdb 13 writes `x/i`.
//!
//! x86-64 comes out in gdb's (libopcodes') AT&T form: the mnemonic padded to six columns plus
//! one space, operands separated by bare commas, every number in hex, a zero displacement
//! shown whenever the encoding has one (`nopw 0x0(%rax,%rax,1)`), an explicit index scale,
//! size suffixes only where no register operand gives the size (`movl $0x0,-0x4(%rbp)` but
//! `mov %eax,-0x4(%rbp)`), unused prefixes as words (`cs nopw`, `data16`, `repz ret`,
//! `notrack jmp`, `bnd jmp`), direct branch targets as absolute addresses followed by
//! `<sym+off>`, and RIP-relative operands commented with `# 0xADDR <sym>`.
//!
//! Capstone decodes; the text is rebuilt from its operands plus the raw ModRM/SIB/prefix
//! bytes. Checked two ways: `disasm_matches_gdb` compares with gdb's own `x/Ni` on gcc
//! -O0 and -O2 (CET, stack protector) programs, line for line, with no difference; the
//! ignored `disasm_objdump_corpus` compares whole libraries with objdump 2.40 (gdb 13's
//! libopcodes): libc, libm, libstdc++, ld.so, gdb itself (1.5M instructions) and libLLVM
//! (12M) come out identical except 2 instructions decoded from data. Known differences:
//! - Bytes that are data, not code (tables inside `.text`, as in OpenSSL's assembly):
//!   capstone and libopcodes disagree on undocumented or invalid encodings (`(bad)` on one
//!   side), on stray or repeated REX/segment prefixes (libopcodes prints a lone `rex.WXB`
//!   as its own instruction), on 16-bit forms of stack operations (`lretw`, `iretw`,
//!   `leavew`, `jmpw`), `fwait` before non-control x87 instructions, and `movsxd` without
//!   REX.W. After an undecodable byte we step one byte, as libopcodes does for most.
//! - Branch hints on `jcc` are shown as `,pt` / `,pn`; addr32 RIP-relative comments are not
//!   sign-extended as libopcodes does.
//!
//! AArch64 uses capstone's own text (mnemonic, a tab, operands), with direct branch targets
//! written as gdb does (`bl\t0x400450 <puts@plt>`).

use std::cell::RefCell;

use capstone::arch::x86::X86OperandType;
use capstone::prelude::*;

use crate::arch::{ArchInfo, DisasmKind};
use crate::error::{EngineError, Result};

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insn {
    pub addr: u64,
    pub len: usize,
    pub bytes: Vec<u8>,
    /// gdb's text for the instruction (what follows `<sym+off>:\t` in `x/i`).
    pub text: String,
    /// Target of a direct branch or call.
    pub target: Option<u64>,
}

struct Engines {
    /// AT&T syntax with operand details.
    att: Capstone,
    /// Intel syntax, for mnemonics without size suffixes.
    intel: Capstone,
    arm: Capstone,
}

fn cs_err(e: capstone::Error) -> EngineError {
    EngineError::Disasm(e.to_string())
}

impl Engines {
    fn new() -> Result<Engines> {
        let att = Capstone::new()
            .x86()
            .mode(arch::x86::ArchMode::Mode64)
            .syntax(arch::x86::ArchSyntax::Att)
            .detail(true)
            .build()
            .map_err(cs_err)?;
        let intel = Capstone::new()
            .x86()
            .mode(arch::x86::ArchMode::Mode64)
            .syntax(arch::x86::ArchSyntax::Intel)
            .build()
            .map_err(cs_err)?;
        let arm = Capstone::new()
            .arm64()
            .mode(arch::arm64::ArchMode::Arm)
            .detail(true)
            .build()
            .map_err(cs_err)?;
        Ok(Engines { att, intel, arm })
    }
}

thread_local! {
    static ENGINES: RefCell<Option<Engines>> = const { RefCell::new(None) };
}

fn with_engines<T>(f: impl FnOnce(&Engines) -> Result<T>) -> Result<T> {
    ENGINES.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Engines::new()?);
        }
        match slot.as_ref() {
            Some(e) => f(e),
            None => Err(EngineError::Disasm("no disassembler".into())),
        }
    })
}

/// Decode up to `count` instructions of `code`, which is at `addr`. `symbolize` names an
/// address (`main+34`) for branch targets and RIP-relative operands. Stops early when the
/// bytes run out (an instruction cut off at the end of `code` is not returned).
pub fn disassemble(
    arch: &ArchInfo,
    code: &[u8],
    addr: u64,
    count: usize,
    symbolize: &dyn Fn(u64) -> Option<String>,
) -> Result<Vec<Insn>> {
    with_engines(|e| {
        let mut out = Vec::new();
        let mut off = 0usize;
        while out.len() < count && off < code.len() {
            let at = addr.wrapping_add(off as u64);
            let rest = &code[off..];
            let insn = match arch.disasm {
                DisasmKind::X86_64 => decode_x86(e, rest, at, symbolize),
                DisasmKind::Aarch64 => decode_arm(e, rest, at, symbolize),
            };
            match insn {
                Some(i) => {
                    off += i.len;
                    out.push(i);
                }
                None => {
                    // Possibly an instruction cut off by the end of the buffer.
                    if rest.len() < arch.max_insn_len && !out.is_empty() {
                        break;
                    }
                    let len = if arch.disasm == DisasmKind::Aarch64 {
                        4.min(rest.len())
                    } else {
                        1
                    };
                    out.push(Insn {
                        addr: at,
                        len,
                        bytes: rest[..len].to_vec(),
                        text: "(bad)".into(),
                        target: None,
                    });
                    off += len;
                }
            }
        }
        Ok(out)
    })
}

// ------------------------------------------------------------------------------- AArch64

fn decode_arm(
    e: &Engines,
    code: &[u8],
    at: u64,
    symbolize: &dyn Fn(u64) -> Option<String>,
) -> Option<Insn> {
    let insns = e.arm.disasm_count(code, at, 1).ok()?;
    let i = insns.iter().next()?;
    let mn = i.mnemonic().unwrap_or("");
    let ops = i.op_str().unwrap_or("").to_string();
    let mut target = None;
    let mut ops_text = ops.clone();
    let is_branch =
        matches!(mn, "b" | "bl" | "cbz" | "cbnz" | "tbz" | "tbnz") || mn.starts_with("b.");
    if is_branch
        && let Some(pos) = ops.rfind('#')
        && let Some(t) = parse_num(&ops[pos + 1..])
    {
        let t = t as u64;
        target = Some(t);
        ops_text = format!("{}{t:#x}", &ops[..pos]);
        if let Some(s) = symbolize(t) {
            ops_text.push_str(&format!(" <{s}>"));
        }
    }
    let text = if ops_text.is_empty() {
        mn.to_string()
    } else {
        format!("{mn}\t{ops_text}")
    };
    Some(Insn {
        addr: at,
        len: i.bytes().len(),
        bytes: i.bytes().to_vec(),
        text,
        target,
    })
}

// -------------------------------------------------------------------------------- x86-64

/// Legacy prefix bytes.
fn is_legacy_prefix(b: u8) -> bool {
    matches!(
        b,
        0xf0 | 0xf2 | 0xf3 | 0x2e | 0x36 | 0x3e | 0x26 | 0x64 | 0x65 | 0x66 | 0x67
    )
}

/// Prefix words capstone puts in front of a mnemonic.
const PREFIX_WORDS: &[&str] = &[
    "lock", "rep", "repe", "repz", "repne", "repnz", "notrack", "bnd", "data16", "xacquire",
    "xrelease",
];

fn strip_prefix_words(m: &str) -> &str {
    let mut m = m.trim();
    while let Some((w, rest)) = m.split_once(' ') {
        if PREFIX_WORDS.contains(&w) {
            m = rest.trim_start();
        } else {
            break;
        }
    }
    m
}

/// Intel-syntax text of the instruction at the start of `code` (prefix words stripped), or
/// `None` if it does not decode or decodes to a different length than `len`.
fn intel_text(e: &Engines, code: &[u8], at: u64) -> Option<(String, String, usize)> {
    let insns = e.intel.disasm_count(code, at, 1).ok()?;
    let i = insns.iter().next()?;
    Some((
        strip_prefix_words(i.mnemonic().unwrap_or("")).to_string(),
        i.op_str().unwrap_or("").to_string(),
        i.bytes().len(),
    ))
}

/// Whether removing the prefix bytes at `positions` changes what the instruction does.
fn prefix_used(
    e: &Engines,
    bytes: &[u8],
    at: u64,
    positions: &[usize],
    orig: &(String, String),
) -> bool {
    let stripped: Vec<u8> = bytes
        .iter()
        .enumerate()
        .filter(|(i, _)| !positions.contains(i))
        .map(|(_, b)| *b)
        .collect();
    // Decoded so that it ends where the original does: relative targets stay the same.
    let at = at.wrapping_add((bytes.len() - stripped.len()) as u64);
    match intel_text(e, &stripped, at) {
        Some((m, o, len)) => {
            len != stripped.len()
                || m != orig.0
                || o.replace("cs:", "") != orig.1.replace("cs:", "")
        }
        None => true,
    }
}

/// Parse a number as capstone prints it: `0x1f`, `-0x10`, `8`, `-4`.
fn parse_num(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None => s.parse::<u64>().ok()?,
    };
    let v = v as i64;
    Some(if neg { v.wrapping_neg() } else { v })
}

fn signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("{v:#x}")
    }
}

/// Split capstone's AT&T operand text at the top-level commas.
fn split_operands(ops: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in ops.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Whether a register decides the operation size (general-purpose and segment registers).
fn sizing_register(name: &str) -> bool {
    let n = name.trim_start_matches('%');
    !(n.starts_with("xmm")
        || n.starts_with("ymm")
        || n.starts_with("zmm")
        || n.starts_with("mm")
        || n.starts_with("st")
        || n.starts_with('k')
        || n.starts_with("cr")
        || n.starts_with("dr")
        || n.starts_with("bnd"))
}

/// Everything about one x86 instruction the operand formatter needs.
struct X86Ctx {
    next: u64,
    modrm: u8,
    sib: u8,
    /// Immediate operand sizes from capstone's details, in order.
    imm_sizes: Vec<u8>,
    string_op: bool,
    addr32: bool,
}

impl X86Ctx {
    /// Whether the ModR/M memory operand has a displacement in its encoding.
    fn disp_encoded(&self) -> bool {
        let md = self.modrm >> 6;
        let rm = self.modrm & 7;
        match (md, rm) {
            (1, _) | (2, _) => true,
            (0, 5) => true,
            (0, 4) => self.sib & 7 == 5,
            _ => false,
        }
    }

    /// Format a memory operand (`seg:disp(base,index,scale)`); also the RIP-relative target.
    fn memory(&self, t: &str) -> (String, Option<u64>) {
        let (seg, rest) = match t.split_once(':') {
            Some((s, r)) if s.starts_with('%') => (Some(s), r),
            _ => (None, t),
        };
        let (disp_s, inner) = match rest.find('(') {
            Some(p) => (&rest[..p], Some(rest[p + 1..].trim_end_matches(')'))),
            None => (rest, None),
        };
        let disp = if disp_s.trim().is_empty() {
            0
        } else {
            parse_num(disp_s).unwrap_or(0)
        };
        let mut parts: Vec<&str> = inner
            .map(|i| i.split(',').map(str::trim).collect())
            .unwrap_or_default();
        while parts.len() < 3 {
            parts.push("");
        }
        let (base, index, scale) = (parts[0], parts[1], parts[2]);
        let mut s = String::new();
        let seg = match seg {
            Some(sg) if sg == "%fs" || sg == "%gs" => Some(sg.to_string()),
            // String operands show their default segment (other overrides are ignored in
            // 64-bit mode).
            _ if self.string_op => {
                if base.ends_with("si") {
                    Some("%ds".to_string())
                } else if base.ends_with("di") {
                    Some("%es".to_string())
                } else {
                    None
                }
            }
            _ => None,
        };
        if let Some(sg) = seg {
            s.push_str(&sg);
            s.push(':');
        }
        let mut rip_target = None;
        if base.is_empty() && index.is_empty() {
            // Absolute address.
            let a = if self.addr32 {
                disp as u64 & 0xffff_ffff
            } else {
                disp as u64
            };
            s.push_str(&format!("{a:#x}"));
            return (s, None);
        }
        if disp != 0 || (!self.string_op && self.disp_encoded()) {
            s.push_str(&signed_hex(disp));
        }
        s.push('(');
        s.push_str(base);
        if !index.is_empty() {
            s.push(',');
            s.push_str(index);
            s.push(',');
            s.push_str(if scale.is_empty() { "1" } else { scale });
        }
        s.push(')');
        if base == "%rip" || base == "%eip" {
            let mut a = self.next.wrapping_add(disp as u64);
            if base == "%eip" {
                a &= 0xffff_ffff;
            }
            rip_target = Some(a);
        }
        (s, rip_target)
    }
}

fn decode_x86(
    e: &Engines,
    code: &[u8],
    at: u64,
    symbolize: &dyn Fn(u64) -> Option<String>,
) -> Option<Insn> {
    // `fwait` followed by a no-wait x87 control instruction is one instruction to
    // libopcodes: `9b dd 7c 24 02` is `fstcw 0x2(%rsp)`.
    if code.first() == Some(&0x9b)
        && let Some(inner) = code
            .get(1..)
            .and_then(|c| decode_x86_one(e, c, at + 1, symbolize))
        && ["fnstsw", "fnstcw", "fnsave", "fnstenv", "fninit", "fnclex"]
            .iter()
            .any(|m| inner.text.split_whitespace().next() == Some(m))
    {
        let (mn, rest) = match inner.text.split_once(' ') {
            Some((m, r)) => (m, r.trim_start()),
            None => (inner.text.as_str(), ""),
        };
        let mn = format!("f{}", &mn[2..]);
        let text = if rest.is_empty() {
            mn
        } else {
            format!("{mn:<6} {rest}")
        };
        let mut bytes = vec![0x9b];
        bytes.extend_from_slice(&inner.bytes);
        return Some(Insn {
            addr: at,
            len: inner.len + 1,
            bytes,
            text,
            target: None,
        });
    }
    decode_x86_one(e, code, at, symbolize)
}

fn decode_x86_one(
    e: &Engines,
    code: &[u8],
    at: u64,
    symbolize: &dyn Fn(u64) -> Option<String>,
) -> Option<Insn> {
    let insns = e.att.disasm_count(code, at, 1).ok()?;
    let insn = insns.iter().next()?;
    let bytes = insn.bytes().to_vec();
    let len = bytes.len();
    let next = at.wrapping_add(len as u64);
    let detail = e.att.insn_detail(insn).ok()?;
    let arch_detail = detail.arch_detail();
    let x = arch_detail.x86()?;
    let (mut intel_mn, intel_ops, _) = intel_text(e, &bytes, at)?;
    let mut att_mn = strip_prefix_words(insn.mnemonic().unwrap_or("")).to_string();
    let mut att_ops = insn.op_str().unwrap_or("").to_string();
    // The /6 encoding of shl is `sal` to capstone, `shl` to libopcodes.
    if let Some(rest) = intel_mn.strip_prefix("sal") {
        intel_mn = format!("shl{rest}");
        att_mn = format!("shl{}", att_mn.strip_prefix("sal").unwrap_or(""));
    }
    // libopcodes names the carry-less multiply by its immediate: `pclmulhqlqdq`.
    if matches!(intel_mn.as_str(), "pclmulqdq" | "vpclmulqdq")
        && let Some((imm, rest)) = att_ops.split_once(',')
    {
        let name = match parse_num(imm.trim().trim_start_matches('$')) {
            Some(0x00) => Some("lqlq"),
            Some(0x01) => Some("hqlq"),
            Some(0x10) => Some("lqhq"),
            Some(0x11) => Some("hqhq"),
            _ => None,
        };
        if let Some(n) = name {
            let v = if intel_mn.starts_with('v') { "v" } else { "" };
            intel_mn = format!("{v}pclmul{n}dq");
            att_mn = intel_mn.clone();
            att_ops = rest.trim().to_string();
        }
    }
    let opcode = x.opcode();

    // Legacy prefixes, in order.
    let npre = bytes.iter().take_while(|b| is_legacy_prefix(**b)).count();
    let prefixes = &bytes[..npre];

    // `66 90`: libopcodes shows the operand-size nop as the exchange it encodes.
    let after = &bytes[npre..];
    if after == [0x90] && prefixes.contains(&0x66) && !prefixes.contains(&0xf3) {
        let n66 = prefixes.iter().filter(|&&b| b == 0x66).count();
        let mut text = "data16 ".repeat(n66 - 1);
        text.push_str("xchg   %ax,%ax");
        return Some(Insn {
            addr: at,
            len,
            bytes,
            text,
            target: None,
        });
    }

    let string_op = opcode[1] == 0
        && matches!(opcode[0], 0x6c..=0x6f | 0xa4..=0xa7 | 0xaa..=0xaf)
        && !after.starts_with(&[0x0f]);
    let base_mn = intel_mn.as_str();
    let is_jcc = base_mn.starts_with('j') && base_mn != "jmp";
    let is_call_jmp = matches!(base_mn, "call" | "jmp" | "lcall" | "ljmp")
        || att_mn.starts_with("lcall")
        || att_mn.starts_with("ljmp");
    let is_branch = is_call_jmp
        || is_jcc
        || base_mn.starts_with("loop")
        || base_mn == "ret"
        || base_mn == "retf"
        || att_mn.starts_with("lret")
        || base_mn == "xbegin";
    let has_mem = x
        .operands()
        .any(|o| matches!(o.op_type, X86OperandType::Mem(_)));
    let ops = split_operands(&att_ops);
    let indirect = is_call_jmp && ops.first().is_some_and(|o| o.starts_with('*'));

    // Prefix words, as libopcodes prints the prefixes an instruction does not use.
    let orig = (intel_mn.clone(), intel_ops.clone());
    let mut words: Vec<&str> = Vec::new();
    let last_66 = prefixes.iter().rposition(|&b| b == 0x66);
    let pos_66: Vec<usize> = (0..npre).filter(|&i| prefixes[i] == 0x66).collect();
    let used_66 = !pos_66.is_empty() && prefix_used(e, &bytes, at, &pos_66, &orig);
    let mut hint = "";
    for (i, &p) in prefixes.iter().enumerate() {
        match p {
            0xf0 => words.push("lock"),
            0xf2 | 0xf3 => {
                let last = prefixes.iter().rposition(|&b| b == 0xf2 || b == 0xf3) == Some(i);
                if string_op && last {
                    let cmp_like = matches!(opcode[0], 0xa6 | 0xa7 | 0xae | 0xaf);
                    words.push(match (p, cmp_like) {
                        (0xf3, true) => "repz",
                        (0xf3, false) => "rep",
                        _ => "repnz",
                    });
                } else if last && prefix_used(e, &bytes, at, &[i], &orig) {
                    // A mandatory prefix (SSE, endbr64, pause, popcnt...).
                } else if p == 0xf2 && is_branch {
                    words.push("bnd");
                } else if p == 0xf3 {
                    words.push("repz");
                } else {
                    words.push("repnz");
                }
            }
            0x3e if indirect => words.push("notrack"),
            0x2e | 0x3e if is_jcc => hint = if p == 0x3e { ",pt" } else { ",pn" },
            0x2e | 0x36 | 0x3e | 0x26 if !string_op => words.push(match p {
                0x2e => "cs",
                0x36 => "ss",
                0x3e => "ds",
                _ => "es",
            }),
            0x64 | 0x65 if !has_mem => words.push(if p == 0x64 { "fs" } else { "gs" }),
            0x66 if !(used_66 && Some(i) == last_66) => words.push("data16"),
            0x67 if !has_mem && !string_op => words.push("addr32"),
            _ => {}
        }
    }

    // Operands.
    let imm_sizes: Vec<u8> = x
        .operands()
        .filter(|o| matches!(o.op_type, X86OperandType::Imm(_)))
        .map(|o| o.size)
        .collect();
    let ctx = X86Ctx {
        next,
        modrm: x.modrm(),
        sib: x.sib(),
        imm_sizes,
        string_op,
        addr32: prefixes.contains(&0x67),
    };
    let shift_by_one = opcode[1] == 0 && matches!(opcode[0], 0xd0 | 0xd1);
    let shift_by_cl = opcode[1] == 0 && matches!(opcode[0], 0xd2 | 0xd3);
    // The port operand of in/out/ins/outs is written `(%dx)` and does not size anything.
    let in_out = matches!(base_mn, "in" | "out") || (string_op && matches!(opcode[0], 0x6c..=0x6f));
    let mut out_ops: Vec<String> = Vec::new();
    let mut target = None;
    let mut rip_target = None;
    let mut imm_index = 0;
    let mut sizing_reg = false;
    for op in &ops {
        let (star, t) = match op.strip_prefix('*') {
            Some(r) => ("*", r.trim()),
            None => ("", op.as_str()),
        };
        // AVX-512 decorations (`{%k1}`, `{z}`, `{1to8}`) go back on after formatting.
        let (t, deco) = match t.find('{') {
            Some(p) => (t[..p].trim_end(), t[p..].replace(' ', "")),
            None => (t, String::new()),
        };
        let before = out_ops.len();
        if let Some(imm) = t.strip_prefix('$') {
            let size = if base_mn == "xabort" || (base_mn == "enter" && imm_index == 1) {
                1
            } else if base_mn == "enter" {
                2
            } else {
                ctx.imm_sizes.get(imm_index).copied().unwrap_or(8)
            };
            imm_index += 1;
            if shift_by_one {
                continue;
            }
            let v = parse_num(imm).unwrap_or(0) as u64;
            let v = match size {
                1 => v & 0xff,
                2 => v & 0xffff,
                4 => v & 0xffff_ffff,
                _ => v,
            };
            out_ops.push(format!("${v:#x}"));
        } else if t.starts_with('%')
            && !t.contains(':')
            && (!t.contains('(') || t.starts_with("%st("))
        {
            if !(shift_by_cl && t == "%cl") && sizing_register(t) && !(in_out && t == "%dx") {
                sizing_reg = true;
            }
            if in_out && t == "%dx" {
                out_ops.push("(%dx)".to_string());
            } else {
                out_ops.push(format!("{star}{t}"));
            }
        } else if is_branch && star.is_empty() && !t.contains('(') && !t.contains(':') {
            // Direct branch target.
            match parse_num(t) {
                Some(v) => {
                    let v = v as u64;
                    target = Some(v);
                    let mut s = format!("{v:#x}");
                    if let Some(name) = symbolize(v) {
                        s.push_str(&format!(" <{name}>"));
                    }
                    out_ops.push(s);
                }
                None => out_ops.push(t.to_string()),
            }
        } else {
            let (m, rt) = ctx.memory(t);
            if rt.is_some() {
                rip_target = rt;
            }
            out_ops.push(format!("{star}{m}"));
        }
        if out_ops.len() > before
            && let Some(last) = out_ops.last_mut()
        {
            last.push_str(&deco);
        }
    }

    // x87 register forms: libopcodes writes the implicit %st operand too.
    if let Some(&op0) = after.iter().find(|b| !(0x40..=0x4f).contains(*b))
        && (0xd8..=0xdf).contains(&op0)
        && x.modrm() >= 0xc0
        && (1..=2).contains(&out_ops.len())
    {
        let reg = (x.modrm() >> 3) & 7;
        let st_first = match op0 {
            0xd8 if !matches!(reg, 2 | 3) => Some(false),
            0xdc | 0xde if !matches!(reg, 2 | 3) => Some(true),
            0xda if reg <= 3 => Some(false),
            0xdb if reg <= 3 || reg == 5 || reg == 6 => Some(false),
            0xdf if reg == 5 || reg == 6 => Some(false),
            _ => None,
        };
        match (st_first, out_ops.len()) {
            (Some(true), 1) => out_ops.insert(0, "%st".to_string()),
            (Some(false), 1) => out_ops.push("%st".to_string()),
            (Some(true), _) if out_ops[0] == "%st(0)" => out_ops[0] = "%st".to_string(),
            (Some(false), _) if out_ops[1] == "%st(0)" => out_ops[1] = "%st".to_string(),
            _ => {}
        }
    }

    // Mnemonic: libopcodes' size suffix only where no register operand implies the size.
    let mut mn = mnemonic_x86(
        &att_mn,
        &intel_mn,
        string_op,
        has_mem || string_op,
        sizing_reg,
    );
    mn.push_str(hint);

    // An unused REX prefix is shown as `rex.W` and the like.
    let rex_word;
    if let Some(&rex) = after.first()
        && (0x40..=0x4f).contains(&rex)
        && after.len() > 1
        && !prefix_used(e, &bytes, at, &[npre], &orig)
    {
        let mut w = String::from("rex");
        if rex & 0xf != 0 {
            w.push('.');
            for (bit, c) in [(8, 'W'), (4, 'R'), (2, 'X'), (1, 'B')] {
                if rex & bit != 0 {
                    w.push(c);
                }
            }
        }
        rex_word = w;
        words.push(&rex_word);
    }

    // xlat names its implicit table operand.
    if opcode[1] == 0 && opcode[0] == 0xd7 && out_ops.is_empty() {
        mn = "xlat".to_string();
        out_ops.push(
            if ctx.addr32 {
                "%ds:(%ebx)"
            } else {
                "%ds:(%rbx)"
            }
            .to_string(),
        );
    }

    let mut text = String::new();
    for w in &words {
        text.push_str(w);
        text.push(' ');
    }
    text.push_str(&mn);
    if !out_ops.is_empty() {
        while text.len() < 6 {
            text.push(' ');
        }
        text.push(' ');
        text.push_str(&out_ops.join(","));
    }
    if let Some(a) = rip_target {
        text.push_str(&format!("        # {a:#x}"));
        if let Some(name) = symbolize(a) {
            text.push_str(&format!(" <{name}>"));
        }
    }
    Some(Insn {
        addr: at,
        len,
        bytes,
        text,
        target,
    })
}

/// libopcodes' mnemonic from capstone's AT&T and Intel ones.
fn mnemonic_x86(
    att: &str,
    intel: &str,
    string_op: bool,
    has_mem: bool,
    sizing_reg: bool,
) -> String {
    // Stack and control transfers never carry a suffix in 64-bit libopcodes output.
    match att {
        "pushfq" => return "pushf".into(),
        "popfq" => return "popf".into(),
        "iretl" => return "iret".into(),
        "fucompi" => return "fucomip".into(),
        "fcompi" => return "fcomip".into(),
        "wait" => return "fwait".into(),
        "lretl" => return "lret".into(),
        _ => {}
    }
    if att.starts_with("lcall") {
        return "lcall".into();
    }
    if att.starts_with("ljmp") {
        return "ljmp".into();
    }
    if string_op {
        // movsb/cmpsb keep the size (two memory operands); stos/lods/scas take it from the
        // register.
        let base = &att[..att.len().saturating_sub(1)];
        return if sizing_reg {
            base.to_string()
        } else {
            att.to_string()
        };
    }
    let suffixed = att.len() == intel.len() + 1
        && att.starts_with(intel)
        && matches!(att.as_bytes()[att.len() - 1], b'b' | b'w' | b'l' | b'q');
    if !suffixed {
        return att.to_string();
    }
    let stack_or_branch = matches!(
        intel,
        "push" | "pop" | "call" | "jmp" | "ret" | "enter" | "leave" | "movabs"
    );
    if !stack_or_branch && has_mem && !sizing_reg {
        att.to_string()
    } else {
        intel.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::ObjectFile;
    use crate::symbols::test_support::{TempDir, compile, gdb, have};

    fn x86() -> &'static ArchInfo {
        &crate::arch::x86_64::ARCH
    }

    fn texts(code: &[u8], addr: u64) -> Vec<String> {
        let none = |_| None;
        disassemble(x86(), code, addr, 100, &none)
            .unwrap()
            .into_iter()
            .map(|i| i.text)
            .collect()
    }

    #[test]
    fn disasm_x86_forms() {
        let cases: &[(&[u8], &str)] = &[
            (&[0xc7, 0x45, 0xfc, 0, 0, 0, 0], "movl   $0x0,-0x4(%rbp)"),
            (&[0x8b, 0x45, 0xf8], "mov    -0x8(%rbp),%eax"),
            (&[0xc3], "ret"),
            (&[0x55], "push   %rbp"),
            (&[0x48, 0x89, 0xe5], "mov    %rsp,%rbp"),
            (&[0x48, 0x83, 0xec, 0x70], "sub    $0x70,%rsp"),
            (&[0x48, 0x83, 0xe4, 0xf0], "and    $0xfffffffffffffff0,%rsp"),
            (&[0x6a, 0xff], "push   $0xffffffffffffffff"),
            (
                &[0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0],
                "cs nopw 0x0(%rax,%rax,1)",
            ),
            (
                &[0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0],
                "data16 cs nopw 0x0(%rax,%rax,1)",
            ),
            (&[0x66, 0x0f, 0x1f, 0x44, 0, 0], "nopw   0x0(%rax,%rax,1)"),
            (&[0x0f, 0x1f, 0x40, 0], "nopl   0x0(%rax)"),
            (&[0x0f, 0x1f, 0x00], "nopl   (%rax)"),
            (&[0x66, 0x90], "xchg   %ax,%ax"),
            (&[0x90], "nop"),
            (&[0xd1, 0xe9], "shr    %ecx"),
            (&[0xd3, 0x65, 0xfc], "shll   %cl,-0x4(%rbp)"),
            (&[0xf3, 0xc3], "repz ret"),
            (&[0xf3, 0x0f, 0x1e, 0xfa], "endbr64"),
            (&[0xf3, 0x48, 0xab], "rep stos %rax,%es:(%rdi)"),
            (&[0xf3, 0xa6], "repz cmpsb %es:(%rdi),%ds:(%rsi)"),
            (&[0x48, 0xa5], "movsq  %ds:(%rsi),%es:(%rdi)"),
            (&[0x3e, 0xff, 0xe0], "notrack jmp *%rax"),
            (&[0xff, 0xd1], "call   *%rcx"),
            (&[0xf0, 0x48, 0x0f, 0xb1, 0x17], "lock cmpxchg %rdx,(%rdi)"),
            (&[0xf2, 0x0f, 0x10, 0x45, 0xf8], "movsd  -0x8(%rbp),%xmm0"),
            (
                &[0xf2, 0x0f, 0x2a, 0x45, 0xec],
                "cvtsi2sdl -0x14(%rbp),%xmm0",
            ),
            (&[0x48, 0x63, 0xc8], "movslq %eax,%rcx"),
            (&[0x48, 0x98], "cltq"),
            (&[0x0f, 0xb6, 0x45, 0xff], "movzbl -0x1(%rbp),%eax"),
            (
                &[0x48, 0x8d, 0x14, 0x85, 0, 0, 0, 0],
                "lea    0x0(,%rax,4),%rdx",
            ),
            (&[0x8b, 0x04, 0x02], "mov    (%rdx,%rax,1),%eax"),
            (
                &[0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0],
                "mov    %fs:0x28,%rax",
            ),
            (
                &[0x48, 0x8d, 0x74, 0x26, 0x00],
                "lea    0x0(%rsi,%riz,1),%rsi",
            ),
            (&[0xec], "in     (%dx),%al"),
            (&[0xc9], "leave"),
            (&[0x0f, 0x0b], "ud2"),
            (
                &[0x48, 0x69, 0xc0, 0xab, 0xaa, 0xaa, 0x2a],
                "imul   $0x2aaaaaab,%rax,%rax",
            ),
            (&[0xb8, 0xff, 0xff, 0xff, 0xff], "mov    $0xffffffff,%eax"),
            (&[0x66, 0x48, 0x0f, 0x6e, 0xc0], "movq   %rax,%xmm0"),
            (&[0x0f, 0x94, 0xc0], "sete   %al"),
            (&[0x0f, 0x4c, 0xc1], "cmovl  %ecx,%eax"),
            (&[0xff, 0x5d, 0xc3], "lcall  *-0x3d(%rbp)"),
            (&[0x9c], "pushf"),
            (
                &[0x66, 0x0f, 0x3a, 0x44, 0xc1, 0x00],
                "pclmullqlqdq %xmm1,%xmm0",
            ),
            (&[0xd3, 0xf1], "shl    %cl,%ecx"),
            (&[0xc8, 0x10, 0x00, 0x00], "enter  $0x10,$0x0"),
            (
                &[0x66, 0x66, 0x48, 0xe8, 0, 0, 0, 0],
                "data16 data16 rex.W call 0x1008",
            ),
            (&[0x9b, 0xd9, 0x7c, 0x24, 0x02], "fstcw  0x2(%rsp)"),
            (&[0xde, 0xc1], "faddp  %st,%st(1)"),
            (&[0xd8, 0xc1], "fadd   %st(1),%st"),
            (&[0xdc, 0xca], "fmul   %st,%st(2)"),
            (&[0xd9, 0xc9], "fxch   %st(1)"),
            (&[0x6e], "outsb  %ds:(%rsi),(%dx)"),
            (&[0xd7], "xlat   %ds:(%rbx)"),
            (
                &[0x62, 0xa1, 0x05, 0x25, 0xfc, 0xc9],
                "vpaddb %ymm17,%ymm31,%ymm17{%k5}",
            ),
        ];
        for (code, want) in cases {
            assert_eq!(
                texts(code, 0x1000),
                vec![want.to_string()],
                "bytes {code:02x?}"
            );
        }
    }

    #[test]
    fn disasm_x86_targets() {
        let sym = |x: u64| (x == 0x1024).then(|| "main+34".to_string());
        let v = disassemble(x86(), &[0xeb, 0x22], 0x1000, 1, &sym).unwrap();
        assert_eq!(v[0].text, "jmp    0x1024 <main+34>");
        assert_eq!(v[0].target, Some(0x1024));
        let v = disassemble(x86(), &[0xe8, 0x1b, 0, 0, 0], 0x1000, 1, &sym).unwrap();
        assert_eq!(v[0].text, "call   0x1020");
        assert_eq!(v[0].target, Some(0x1020));
        let counter = |x: u64| (x == 0x4010).then(|| "counter".to_string());
        // mov 0x2ecb(%rip),%eax at 0x1000 (6 bytes): 0x1006 + 0x300a = 0x4010.
        let v = disassemble(x86(), &[0x8b, 0x05, 0x0a, 0x30, 0, 0], 0x1000, 1, &counter).unwrap();
        assert_eq!(
            v[0].text,
            "mov    0x300a(%rip),%eax        # 0x4010 <counter>"
        );
        assert_eq!(v[0].target, None);
        let v = disassemble(x86(), &[0xff, 0x25, 0x0a, 0x30, 0, 0], 0x1000, 1, &counter).unwrap();
        assert_eq!(v[0].text, "jmp    *0x300a(%rip)        # 0x4010 <counter>");
        // Undecodable bytes, and an instruction cut off by the end of the buffer.
        assert_eq!(texts(&[0x06, 0x90], 0x1000), vec!["(bad)", "nop"]);
        assert_eq!(texts(&[0x90, 0x48, 0x8b], 0x1000), vec!["nop"]);
    }

    #[test]
    fn disasm_aarch64() {
        let a = &crate::arch::aarch64::ARCH;
        let none = |_| None;
        let words: [u32; 4] = [0xd65f03c0, 0xa9bf7bfd, 0x910003fd, 0x94000004];
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let sym = |x: u64| (x == 0x401c).then(|| "puts@plt".to_string());
        let v = disassemble(a, &code, 0x4000, 10, &sym).unwrap();
        let t: Vec<&str> = v.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(
            t,
            vec![
                "ret",
                "stp\tx29, x30, [sp, #-0x10]!",
                "mov\tx29, sp",
                "bl\t0x401c <puts@plt>"
            ]
        );
        assert_eq!(v[3].target, Some(0x401c));
        let v = disassemble(a, &[0xff, 0xff, 0xff, 0xff], 0x4000, 1, &none).unwrap();
        assert_eq!(v[0].text, "(bad)");
        assert_eq!(v[0].len, 4);
    }

    const PROG: &str = r#"
#include <stdio.h>
#include <string.h>
int counter = 5;
static long total;
static char big[256];
typedef int (*op_fn)(int, int);
int add(int a, int b) { return a + b; }
int mul(int a, int b) { return a * b; }
int classify(int x) {
    switch (x) {
    case 0: return 10;
    case 1: return 20;
    case 2: return 30;
    case 3: return 40;
    case 4: return 50;
    default: return -1;
    }
}
double scale(double v, float f) { return v * f / 3.0; }
unsigned char bits(unsigned char c, short s, long long l) {
    l >>= 3; l <<= c & 7; s = (short)(s * -3);
    return (unsigned char)(c ^ (unsigned char)s ^ (unsigned char)l);
}
int main(int argc, char **argv) {
    op_fn ops[2] = { add, mul };
    unsigned u = 0xdeadbeef;
    char buf[64] = {0};
    for (int i = 0; i < 10; i++) {
        counter += ops[i & 1](i, argc);
        total += classify(i % 6);
        u ^= (u << 3) | (u >> 29);
    }
    printf("%d %ld %u %f\n", counter, total, u / 7, scale(2.5, 1.5f));
    snprintf(buf, sizeof buf, "%s", argv[0]);
    memset(big, argc, sizeof big);
    puts(buf);
    return counter % 3 + bits((unsigned char)argc, (short)argc, (long long)argc);
}
"#;

    /// gdb's `x/Ni` of the program's functions next to ours, line by line.
    #[test]
    fn disasm_matches_gdb() {
        if !have("cc") || !have("gdb") {
            return;
        }
        for (tag, flags) in [
            ("O0", &["-g", "-O0"][..]),
            (
                "O2cet",
                &["-O2", "-fcf-protection=full", "-fstack-protector-all"][..],
            ),
        ] {
            let dir = TempDir::new(&format!("disasm-{tag}"));
            let prog = compile(dir.path(), "prog", PROG, flags);
            let obj = ObjectFile::load(&prog).unwrap();
            let funcs = [
                ("main", 60),
                ("classify", 40),
                ("scale", 20),
                ("bits", 40),
                ("add", 10),
                ("printf@plt", 6),
                ("_start", 20),
                ("deregister_tm_clones", 20),
            ];
            let cmds: Vec<String> = funcs.iter().map(|(f, n)| format!("x/{n}i '{f}'")).collect();
            let cmd_refs: Vec<&str> = cmds.iter().map(String::as_str).collect();
            let out = gdb(&prog, &cmd_refs);
            // gdb prints `   0xADDR:\t` before finding it cannot read past the section's end;
            // the next command's output then continues that line.
            let want: Vec<&str> = out
                .lines()
                .map(|l| match l.find(":\t   0x") {
                    Some(p) if !l[..p].contains('\t') => &l[p + 2..],
                    _ => l,
                })
                .collect();
            let sym = |a: u64| {
                obj.symbolize(a).map(|(s, off)| {
                    if off == 0 {
                        s.name.to_string()
                    } else {
                        format!("{}+{off}", s.name)
                    }
                })
            };
            let mut got = Vec::new();
            for (f, n) in funcs {
                let Some(start) = obj.lookup(f).map(|s| s.addr) else {
                    continue;
                };
                // Section contents from `start`, across adjacent sections, as gdb reads.
                let mut code = Vec::new();
                while code.len() < n * 15 {
                    match obj.bytes_at(start + code.len() as u64, n * 15 - code.len()) {
                        Some(b) if !b.is_empty() => code.extend_from_slice(b),
                        _ => break,
                    }
                }
                for i in disassemble(x86(), &code, start, n, &sym).unwrap() {
                    let label = match sym(i.addr) {
                        Some(s) => format!("   {:#x} <{s}>:\t{}", i.addr, i.text),
                        None => format!("   {:#x}:\t{}", i.addr, i.text),
                    };
                    got.push(label);
                }
            }
            let mut diffs = Vec::new();
            for (g, w) in got.iter().zip(want.iter()) {
                if g != w {
                    diffs.push(format!("ours: {g}\ngdb:  {w}"));
                }
            }
            assert!(
                diffs.is_empty() && got.len() == want.len(),
                "{tag}: {} of {} lines differ ({} vs {} lines):\n{}",
                diffs.len(),
                want.len(),
                got.len(),
                want.len(),
                diffs.join("\n")
            );
        }
    }

    /// objdump's text with its symbol annotations dropped and bare hex addresses written
    /// as gdb writes them (`0x…`).
    fn normalize_objdump(t: &str) -> String {
        let (main, comment) = match t.split_once("        # ") {
            Some((m, c)) => (m, Some(c)),
            None => (t, None),
        };
        let strip_sym = |x: &str| -> String {
            match x.rfind(" <") {
                Some(p) if x.ends_with('>') => x[..p].to_string(),
                _ => x.to_string(),
            }
        };
        let mut main = strip_sym(main);
        if let Some((head, last)) = main.rsplit_once(' ')
            && !head.trim().is_empty()
            && !last.is_empty()
            && last.chars().all(|c| c.is_ascii_hexdigit())
        {
            main = format!("{head} 0x{last}");
        }
        match comment {
            Some(c) => format!("{main}        # 0x{}", strip_sym(c)),
            None => main,
        }
    }

    /// Whole-library comparison with objdump (same libopcodes as gdb 13); a development aid:
    /// `COHORT_CORPUS=/path/to/elf cargo test --release -- --ignored disasm_objdump_corpus`.
    #[test]
    #[ignore]
    fn disasm_objdump_corpus() {
        let path = std::env::var("COHORT_CORPUS")
            .unwrap_or_else(|_| "/lib/x86_64-linux-gnu/libc.so.6".to_string());
        let out = std::process::Command::new("objdump")
            .args(["-d", "--no-show-raw-insn", &path])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut want = std::collections::HashMap::new();
        for line in text.lines() {
            let Some((a, t)) = line.split_once(":\t") else {
                continue;
            };
            let Ok(a) = u64::from_str_radix(a.trim(), 16) else {
                continue;
            };
            want.insert(a, normalize_objdump(t));
        }
        let obj = ObjectFile::load(std::path::Path::new(&path)).unwrap();
        let none = |_| None;
        let (mut same, mut differ) = (0usize, 0usize);
        let mut by_mn: std::collections::BTreeMap<String, (usize, String)> = Default::default();
        for sec in obj.sections() {
            if !sec.is_exec() || !sec.has_contents() {
                continue;
            }
            let code = obj.bytes_at(sec.addr, sec.size as usize).unwrap();
            for i in disassemble(x86(), code, sec.addr, usize::MAX, &none).unwrap() {
                let Some(w) = want.get(&i.addr) else { continue };
                if *w == i.text {
                    same += 1;
                } else {
                    differ += 1;
                    let key = w.split_whitespace().next().unwrap_or("").to_string();
                    let e = by_mn.entry(key).or_insert((0, String::new()));
                    e.0 += 1;
                    if e.1.is_empty() {
                        e.1 = format!("{:02x?}\n    ours: {}\n    objd: {w}", i.bytes, i.text);
                    }
                }
            }
        }
        let mut v: Vec<_> = by_mn.into_iter().collect();
        v.sort_by_key(|b| std::cmp::Reverse(b.1.0));
        for (mn, (n, ex)) in v.iter().take(60) {
            eprintln!("{n:6} {mn}: {ex}");
        }
        eprintln!("same {same}, differ {differ}");
        assert!(differ * 1000 <= same, "more than 0.1% differ");
    }
}
