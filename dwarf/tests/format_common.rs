//! Shared by the format tests: hand-built types, a `Target` over an ELF file's sections (what
//! gdb reads for a program that is not running), and a gdb runner.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use cohort_dwarf::context::Target;
use cohort_dwarf::types::{
    AggregateKind, Bitfield, Bound, Encoding, LazyType, Member, Type, TypeKind, TypeRef,
};
use cohort_dwarf::value::{Lval, Value};
use cohort_dwarf::{DwarfError, Result};
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};

// ---- types ----

pub fn int() -> TypeRef {
    Type::base("int", 4, Encoding::Signed)
}
pub fn uint() -> TypeRef {
    Type::base("unsigned int", 4, Encoding::Unsigned)
}
pub fn char_t() -> TypeRef {
    Type::base("char", 1, Encoding::SignedChar)
}
pub fn uchar() -> TypeRef {
    Type::base("unsigned char", 1, Encoding::UnsignedChar)
}
pub fn schar() -> TypeRef {
    Type::base("signed char", 1, Encoding::SignedChar)
}
pub fn short() -> TypeRef {
    Type::base("short", 2, Encoding::Signed)
}
pub fn ushort() -> TypeRef {
    Type::base("unsigned short", 2, Encoding::Unsigned)
}
pub fn long() -> TypeRef {
    Type::base("long", 8, Encoding::Signed)
}
pub fn ulong() -> TypeRef {
    Type::base("unsigned long", 8, Encoding::Unsigned)
}
pub fn ulonglong() -> TypeRef {
    Type::base("unsigned long long", 8, Encoding::Unsigned)
}
pub fn bool_t() -> TypeRef {
    Type::base("_Bool", 1, Encoding::Boolean)
}
pub fn float() -> TypeRef {
    Type::base("float", 4, Encoding::Float)
}
pub fn double() -> TypeRef {
    Type::base("double", 8, Encoding::Float)
}
pub fn long_double() -> TypeRef {
    Type::base("long double", 16, Encoding::Float)
}
pub fn void() -> TypeRef {
    Type::void()
}
pub fn ptr(t: TypeRef) -> TypeRef {
    Type::pointer_to(t, 8)
}
pub fn arr(t: TypeRef, n: u64) -> TypeRef {
    Type::array_of(t, n)
}
pub fn arr_unknown(t: TypeRef) -> TypeRef {
    Type::new(
        None,
        0,
        TypeKind::Array {
            element: t,
            bound: Bound::Unknown,
        },
    )
}
pub fn cnst(t: TypeRef) -> TypeRef {
    Type::new(None, 0, TypeKind::Const(LazyType::ready(t)))
}
pub fn vol(t: TypeRef) -> TypeRef {
    Type::new(None, 0, TypeKind::Volatile(LazyType::ready(t)))
}
pub fn restrict(t: TypeRef) -> TypeRef {
    Type::new(None, 0, TypeKind::Restrict(LazyType::ready(t)))
}
pub fn typedef(name: &str, t: TypeRef) -> TypeRef {
    Type::new(Some(name.into()), 0, TypeKind::Typedef(LazyType::ready(t)))
}
pub fn reference(t: TypeRef) -> TypeRef {
    Type::new(None, 8, TypeKind::Reference(LazyType::ready(t)))
}
pub fn func(ret: Option<TypeRef>, params: Vec<TypeRef>, varargs: bool) -> TypeRef {
    Type::new(
        None,
        0,
        TypeKind::Function {
            ret: ret.map(LazyType::ready),
            params: params.into_iter().map(LazyType::ready).collect(),
            varargs,
            prototyped: true,
        },
    )
}
pub fn mem(name: &str, ty: TypeRef, offset: u64) -> Member {
    Member {
        name: Some(name.into()),
        ty: LazyType::ready(ty),
        offset,
        bitfield: None,
        is_static: false,
        is_base: false,
    }
}
pub fn anon_mem(ty: TypeRef, offset: u64) -> Member {
    Member {
        name: None,
        ..mem("", ty, offset)
    }
}
pub fn bitf(name: &str, ty: TypeRef, bit_offset: u64, bit_size: u64) -> Member {
    Member {
        bitfield: Some(Bitfield {
            bit_offset,
            bit_size,
        }),
        ..mem(name, ty, bit_offset / 8)
    }
}
pub fn aggregate(
    kind: AggregateKind,
    name: Option<&str>,
    size: u64,
    members: Vec<Member>,
) -> TypeRef {
    Type::new(
        name.map(Into::into),
        size,
        TypeKind::Aggregate {
            kind,
            members,
            declaration: false,
        },
    )
}
pub fn strukt(name: Option<&str>, size: u64, members: Vec<Member>) -> TypeRef {
    aggregate(AggregateKind::Struct, name, size, members)
}
pub fn union(name: Option<&str>, size: u64, members: Vec<Member>) -> TypeRef {
    aggregate(AggregateKind::Union, name, size, members)
}
pub fn enm(name: &str, values: &[(&str, i64)]) -> TypeRef {
    let signed = values.iter().any(|(_, v)| *v < 0);
    Type::new(
        Some(name.into()),
        4,
        TypeKind::Enum {
            underlying: Some(if signed { int() } else { uint() }),
            enumerators: values.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            signed,
            declaration: false,
        },
    )
}

// ---- a program's file as a target ----

pub struct ElfTarget {
    data: &'static [u8],
    /// (address, size, name) of data and function symbols, sorted by address.
    symbols: Vec<(u64, u64, String)>,
    /// (address, bytes or None for .bss) of allocated sections.
    sections: Vec<(u64, u64, Option<&'static [u8]>)>,
}

impl ElfTarget {
    pub fn open(path: &Path) -> ElfTarget {
        let data: &'static [u8] = Box::leak(std::fs::read(path).unwrap().into_boxed_slice());
        let file = object::File::parse(data).unwrap();
        let mut symbols: Vec<(u64, u64, String)> = file
            .symbols()
            .filter(|s| matches!(s.kind(), SymbolKind::Data | SymbolKind::Text) && s.address() != 0)
            .map(|s| (s.address(), s.size(), s.name().unwrap().to_string()))
            .collect();
        symbols.sort();
        let sections = file
            .sections()
            .filter(|s| s.address() != 0)
            .map(|s| {
                let bytes = match s.kind() {
                    SectionKind::UninitializedData | SectionKind::UninitializedTls => None,
                    _ => Some(s.data().unwrap()),
                };
                (s.address(), s.size(), bytes)
            })
            .collect();
        ElfTarget {
            data,
            symbols,
            sections,
        }
    }

    pub fn symbol(&self, name: &str) -> (u64, u64) {
        let (a, s, _) = self
            .symbols
            .iter()
            .find(|(_, _, n)| n == name)
            .unwrap_or_else(|| panic!("no symbol {name}"));
        (*a, *s)
    }

    /// The value of global `name` with type `ty`, read from the file.
    pub fn value(&self, name: &str, ty: TypeRef) -> Value {
        let (addr, _) = self.symbol(name);
        let mut bytes = vec![0u8; ty.byte_size() as usize];
        self.read_memory(addr, &mut bytes).unwrap();
        Value::new(ty, bytes, Lval::Memory(addr))
    }

    /// A function's value (its bytes are not needed to print it).
    pub fn function(&self, name: &str, ty: TypeRef) -> Value {
        let (addr, _) = self.symbol(name);
        Value::new(ty, Vec::new(), Lval::Memory(addr))
    }
}

impl Target for ElfTarget {
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        for (i, b) in buf.iter_mut().enumerate() {
            let a = addr + i as u64;
            let sec = self
                .sections
                .iter()
                .find(|(s, n, _)| a >= *s && a < s + n)
                .ok_or(DwarfError::Memory(a))?;
            *b = match sec.2 {
                Some(d) => d[(a - sec.0) as usize],
                None => 0,
            };
        }
        Ok(())
    }

    fn symbol_for(&self, addr: u64) -> Option<String> {
        let (a, s, n) = self.symbols.iter().rev().find(|(a, _, _)| *a <= addr)?;
        if addr >= a + (*s).max(1) {
            return None;
        }
        Some(if addr == *a {
            n.clone()
        } else {
            format!("{n}+{}", addr - a)
        })
    }
}

// ---- gdb ----

/// `dwarf/tests/SRC` compiled with `compiler -g -O0` under the test's scratch folder.
pub fn build(src: &str, compiler: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(src);
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{src}-{}", std::process::id()));
    let st = Command::new(compiler)
        .args(["-g", "-O0", "-o"])
        .arg(&out)
        .arg(&path)
        .status()
        .unwrap();
    assert!(st.success(), "compiling {src}");
    out
}

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Which program this test binary prints from (`format_gdb.c` unless set first).
pub fn use_program(src: &str, compiler: &str) {
    PROGRAM.get_or_init(|| build(src, compiler));
}

pub fn program() -> &'static PathBuf {
    PROGRAM.get_or_init(|| build("format_gdb.c", "cc"))
}

pub fn target() -> &'static ElfTarget {
    static T: OnceLock<ElfTarget> = OnceLock::new();
    T.get_or_init(|| ElfTarget::open(program()))
}

/// Runs each command in one gdb session and returns what each printed, with gdb's
/// `$N = ` / `type = ` taken off.
pub fn gdb(cmds: &[String]) -> Vec<String> {
    let mut c = Command::new("gdb");
    c.args(["-nx", "-batch"]).env("LANG", "C.UTF-8");
    for (i, cmd) in cmds.iter().enumerate() {
        c.arg("-ex").arg(format!("echo <<<{i}>>>\\n"));
        c.arg("-ex").arg(cmd);
    }
    c.arg("-ex").arg(format!("echo <<<{}>>>\\n", cmds.len()));
    c.arg(program());
    let out = c.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let mut res = Vec::new();
    for i in 0..cmds.len() {
        let start = text.find(&format!("<<<{i}>>>\n")).unwrap() + format!("<<<{i}>>>\n").len();
        let end = text.find(&format!("<<<{}>>>\n", i + 1)).unwrap();
        let mut s = text[start..end].trim_end_matches('\n').to_string();
        if let Some(eq) = s.find(" = ")
            && (s.starts_with('$') || s.starts_with("type"))
        {
            s = s[eq + 3..].to_string();
        }
        res.push(s);
    }
    res
}

/// Collected (gdb command, our text) pairs, checked against gdb in one run.
#[derive(Default)]
pub struct Cases {
    pub cases: Vec<(String, String)>,
}

impl Cases {
    pub fn add(&mut self, cmd: &str, ours: String) {
        self.cases.push((cmd.to_string(), ours));
    }

    pub fn check(self) {
        let cmds: Vec<String> = self.cases.iter().map(|(c, _)| c.clone()).collect();
        let expected = gdb(&cmds);
        let mut bad = Vec::new();
        for ((cmd, ours), want) in self.cases.iter().zip(expected) {
            if *ours != want {
                bad.push(format!("{cmd}\n   gdb: {want}\n  ours: {ours}"));
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }
}

pub fn arc<T>(t: T) -> Arc<T> {
    Arc::new(t)
}
