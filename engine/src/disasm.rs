//! Disassembly with capstone, written the way gdb 13 writes `x/i` (AT&T syntax, objdump
//! spacing, hex immediates, `<sym+off>` after direct branch targets and `# addr <sym>` after
//! RIP-relative operands).
//!
//! Known differences from gdb: capstone leaves out a zero displacement and a scale of 1
//! (`nopw (%rax,%rax)` where gdb writes `nopw 0x0(%rax,%rax,1)`), and some rare mnemonics
//! differ in suffix.

use capstone::prelude::*;

use crate::arch::{ArchInfo, DisasmKind};
use crate::error::{EngineError, Result};

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insn {
    pub addr: u64,
    pub len: usize,
    pub bytes: Vec<u8>,
    pub text: String,
    /// Direct branch or call target.
    pub target: Option<u64>,
}

fn engine(arch: &ArchInfo) -> Result<Capstone> {
    let cs = match arch.disasm {
        DisasmKind::X86_64 => Capstone::new()
            .x86()
            .mode(arch::x86::ArchMode::Mode64)
            .syntax(arch::x86::ArchSyntax::Att)
            .build(),
        DisasmKind::Aarch64 => Capstone::new()
            .arm64()
            .mode(arch::arm64::ArchMode::Arm)
            .build(),
    };
    cs.map_err(|e| EngineError::Disasm(e.to_string()))
}

/// Decode up to `count` instructions of `code`, which sits at `addr`.
pub fn disassemble(
    arch: &ArchInfo,
    code: &[u8],
    addr: u64,
    count: usize,
    symbolize: &dyn Fn(u64) -> Option<String>,
) -> Result<Vec<Insn>> {
    let cs = engine(arch)?;
    let mut out = Vec::new();
    let mut off = 0usize;
    while out.len() < count && off < code.len() {
        let at = addr + off as u64;
        let insns = cs
            .disasm_count(&code[off..], at, 1)
            .map_err(|e| EngineError::Disasm(e.to_string()))?;
        let Some(i) = insns.iter().next() else {
            out.push(Insn {
                addr: at,
                len: 1,
                bytes: vec![code[off]],
                text: "(bad)".into(),
                target: None,
            });
            off += 1;
            continue;
        };
        let len = i.bytes().len();
        let mnem = i.mnemonic().unwrap_or("");
        let ops = i.op_str().unwrap_or("");
        let (text, target) = match arch.disasm {
            DisasmKind::X86_64 => gdb_x86(mnem, ops, at + len as u64, symbolize),
            DisasmKind::Aarch64 => {
                let t = if ops.is_empty() {
                    mnem.to_string()
                } else {
                    format!("{mnem}\t{ops}")
                };
                (t, None)
            }
        };
        out.push(Insn {
            addr: at,
            len,
            bytes: i.bytes().to_vec(),
            text,
            target,
        });
        off += len;
    }
    Ok(out)
}

fn is_branch(m: &str) -> bool {
    m.starts_with('j') || m.starts_with("call") || m.starts_with("loop") || m == "jrcxz"
}

/// Rewrite capstone's AT&T text into objdump/gdb's.
fn gdb_x86(
    mnem: &str,
    ops: &str,
    next: u64,
    symbolize: &dyn Fn(u64) -> Option<String>,
) -> (String, Option<u64>) {
    let mnem = match mnem {
        "callq" => "call",
        "retq" => "ret",
        "jmpq" if !ops.starts_with('*') => "jmp",
        m => m,
    };
    let ops = hexify(&ops.replace(", ", ","));
    if ops.is_empty() {
        return (mnem.to_string(), None);
    }
    let mut text = format!("{mnem:<6} {ops}");
    let mut target = None;
    if is_branch(mnem)
        && !ops.starts_with('*')
        && let Some(t) = parse_hex(&ops)
    {
        target = Some(t);
        if let Some(s) = symbolize(t) {
            text.push_str(&format!(" <{s}>"));
        }
    }
    if let Some(p) = ops.find("(%rip)") {
        let start = ops[..p].rfind([',', ' ', '*']).map(|i| i + 1).unwrap_or(0);
        let disp = &ops[start..p];
        let (neg, d) = match disp.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, disp),
        };
        if let Some(v) = parse_hex(d).or(if d.is_empty() { Some(0) } else { None }) {
            let a = if neg {
                next.wrapping_sub(v)
            } else {
                next.wrapping_add(v)
            };
            text.push_str(&format!("        # {a:#x}"));
            if let Some(s) = symbolize(a) {
                text.push_str(&format!(" <{s}>"));
            }
        }
    }
    (text, target)
}

fn parse_hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim().strip_prefix("0x")?, 16).ok()
}

/// Decimal numbers become hex (`$8` → `$0x8`, `-4(%rbp)` → `-0x4(%rbp)`), except index scales.
fn hexify(ops: &str) -> String {
    let b = ops.as_bytes();
    let mut out = String::with_capacity(ops.len() + 8);
    let mut i = 0;
    let mut depth = 0;
    while i < b.len() {
        let c = b[i] as char;
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        let prev = if i > 0 { b[i - 1] as char } else { ' ' };
        if c.is_ascii_digit() && !(prev.is_ascii_alphanumeric() || prev == '%' || prev == '_') {
            let mut j = i;
            while j < b.len() && (b[j] as char).is_ascii_alphanumeric() {
                j += 1;
            }
            let tok = &ops[i..j];
            let scale = depth > 0 && prev == ',';
            if !scale && tok.chars().all(|c| c.is_ascii_digit()) {
                match tok.parse::<u64>() {
                    Ok(v) => out.push_str(&format!("{v:#x}")),
                    Err(_) => out.push_str(tok),
                }
            } else {
                out.push_str(tok);
            }
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_as_gdb_writes_them() {
        assert_eq!(hexify("$0,-4(%rbp)"), "$0x0,-0x4(%rbp)");
        assert_eq!(hexify("0x10(%rbp),%rax"), "0x10(%rbp),%rax");
        assert_eq!(hexify("(%rax,%rax,1)"), "(%rax,%rax,1)");
        assert_eq!(hexify("%r8d"), "%r8d");
    }

    #[test]
    fn x86_samples() {
        let a = crate::arch::native();
        let none = |_| None;
        // movl $0x0,-0x4(%rbp); mov -0x8(%rbp),%eax; ret
        let code = [0xc7, 0x45, 0xfc, 0, 0, 0, 0, 0x8b, 0x45, 0xf8, 0xc3];
        let v = disassemble(a, &code, 0x1000, 3, &none).unwrap();
        let t: Vec<&str> = v.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(
            t,
            vec!["movl   $0x0,-0x4(%rbp)", "mov    -0x8(%rbp),%eax", "ret"]
        );
        // jmp +0x5 with a symbol
        let sym = |x: u64| (x == 0x1007).then(|| "main+34".to_string());
        let v = disassemble(a, &[0xeb, 0x05], 0x1000, 1, &sym).unwrap();
        assert_eq!(v[0].text, "jmp    0x1007 <main+34>");
        assert_eq!(v[0].target, Some(0x1007));
        // mov 0x2ecb(%rip),%rax
        let v = disassemble(a, &[0x48, 0x8b, 0x05, 0xcb, 0x2e, 0, 0], 0x1000, 1, &none).unwrap();
        assert_eq!(v[0].text, "mov    0x2ecb(%rip),%rax        # 0x3ed2");
        // undecodable
        let v = disassemble(a, &[0x06], 0x1000, 1, &none).unwrap();
        assert_eq!(v[0].text, "(bad)");
    }
}
