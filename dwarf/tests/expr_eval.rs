//! C expressions against a mock context laid out like this program (expectations copied from
//! gdb 13: `gdb -nx -batch -ex 'break f' -ex run -ex 'print EXPR' -ex 'whatis EXPR'`):
//!
//! ```c
//! struct item { int kind; char name[8]; struct item *next; unsigned flag:3; int sb:5; double d; };
//! union u { int i; float f; };
//! enum color { RED, GREEN = 5, BLUE };
//! typedef struct item item_t;
//! int arr[5] = {10, 20, 30, 40, 50};
//! int mat[2][3] = {{1,2,3},{4,5,6}};
//! char c = 'x'; unsigned char uc = 200; short sh = -3; unsigned int ui = 7; long lg = -9;
//! unsigned long ul = 11; double dbl = 2.5; float flt = 1.25f; enum color col = GREEN;
//! struct item it = {3, "abc", 0, 5, -2, 1.5};
//! struct item *p = &it; item_t *q; int *np = 0; char *str = "hello";
//! int f(int x) { static int cnt = 4; cnt++; return x + cnt; }
//! int main(void) { q = &it; it.next = &it; return f(1); }
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

use cohort_dwarf::context::{EvalContext, HistoryRef, Target};
use cohort_dwarf::expr::{self, Expr};
use cohort_dwarf::types::{
    AggregateKind, Bitfield, Bound, DieRef, Encoding, LazyType, Member, Type, TypeKind, TypeRef,
    TypeSource,
};
use cohort_dwarf::value::{Lval, Value};
use cohort_dwarf::{DwarfError, Result};

const ARR: u64 = 0x555555558020;
const MAT: u64 = 0x555555558040;
const IT: u64 = 0x555555558080;
const GLOBALS: u64 = 0x5555555580c0;
const STR: u64 = 0x555555556004;
const F: u64 = 0x555555555129;
const BIG: u64 = 0x7ffff0000000;
const BIG_N: u64 = 100_000;

struct WeakSrc(Weak<Type>);

impl TypeSource for WeakSrc {
    fn type_at(&self, _die: DieRef) -> TypeRef {
        self.0.upgrade().unwrap_or_else(|| Type::error("gone"))
    }
}

struct Mock {
    mem: RefCell<Vec<(u64, Vec<u8>)>>,
    vars: HashMap<String, (TypeRef, u64)>,
    enumerators: HashMap<String, (TypeRef, i64)>,
    types: HashMap<String, TypeRef>,
    regs: RefCell<HashMap<String, (TypeRef, u16, u64)>>,
    history: Vec<Value>,
    conv: RefCell<HashMap<String, Value>>,
    reads: RefCell<Vec<(u64, usize)>>,
    int: TypeRef,
}

fn int_t() -> TypeRef {
    Type::base("int", 4, Encoding::Signed)
}

impl Mock {
    fn region_mut<R>(&self, addr: u64, len: usize, f: impl FnOnce(&mut [u8]) -> R) -> Result<R> {
        let mut mem = self.mem.borrow_mut();
        for (base, bytes) in mem.iter_mut() {
            if addr >= *base && addr + len as u64 <= *base + bytes.len() as u64 {
                let off = (addr - *base) as usize;
                return Ok(f(&mut bytes[off..off + len]));
            }
        }
        Err(DwarfError::Memory(addr))
    }

    fn new() -> Mock {
        let int = int_t();
        let uint = Type::base("unsigned int", 4, Encoding::Unsigned);
        let char_t = Type::base("char", 1, Encoding::SignedChar);
        let double = Type::base("double", 8, Encoding::Float);
        // A struct pointing to itself, as the loader builds it: the pointer's target resolves
        // lazily.
        let item = Arc::new_cyclic(|weak: &Weak<Type>| {
            let src: Arc<dyn TypeSource> = Arc::new(WeakSrc(weak.clone()));
            let ptr_item = Type::new(
                None,
                8,
                TypeKind::Pointer(LazyType::deferred(src, DieRef(gimli::DebugInfoOffset(0)))),
            );
            let m = |name: &str, ty: TypeRef, offset: u64, bf: Option<(u64, u64)>| Member {
                name: Some(name.into()),
                ty: LazyType::ready(ty),
                offset,
                bitfield: bf.map(|(o, s)| Bitfield {
                    bit_offset: o,
                    bit_size: s,
                }),
                is_static: false,
                is_base: false,
            };
            Type {
                name: Some("item".into()),
                size: 40,
                kind: TypeKind::Aggregate {
                    kind: AggregateKind::Struct,
                    members: vec![
                        m("kind", int.clone(), 0, None),
                        m("name", Type::array_of(char_t.clone(), 8), 4, None),
                        m("next", ptr_item, 16, None),
                        m("flag", uint.clone(), 24, Some((192, 3))),
                        m("sb", int.clone(), 24, Some((195, 5))),
                        m("d", double.clone(), 32, None),
                    ],
                    declaration: false,
                },
                cxx: None,
                vector: false,
                nottext: false,
                member_of: None,
            }
        });
        let item_t = Type::new(
            Some("item_t".into()),
            0,
            TypeKind::Typedef(LazyType::ready(item.clone())),
        );
        let color = Type::new(
            Some("color".into()),
            4,
            TypeKind::Enum {
                underlying: Some(uint.clone()),
                enumerators: vec![("RED".into(), 0), ("GREEN".into(), 5), ("BLUE".into(), 6)],
                signed: false,
                declaration: false,
            },
        );
        let ptr = |t: &TypeRef| Type::pointer_to(t.clone(), 8);
        let mut vars = HashMap::new();
        let mut mem: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut arr = Vec::new();
        for v in [10i32, 20, 30, 40, 50] {
            arr.extend(v.to_le_bytes());
        }
        mem.push((ARR - 16, vec![0; 16]));
        mem.push((ARR, arr));
        vars.insert("arr".into(), (Type::array_of(int.clone(), 5), ARR));
        let mut mat = Vec::new();
        for v in 1i32..=6 {
            mat.extend(v.to_le_bytes());
        }
        mem.push((MAT, mat));
        vars.insert(
            "mat".into(),
            (Type::array_of(Type::array_of(int.clone(), 3), 2), MAT),
        );
        // struct item it = {3, "abc", &it, 5, -2, 1.5}
        let mut it = vec![0u8; 40];
        it[0..4].copy_from_slice(&3i32.to_le_bytes());
        it[4..7].copy_from_slice(b"abc");
        it[16..24].copy_from_slice(&IT.to_le_bytes());
        let bits: u8 = 5 | ((-2i8 as u8 & 0x1f) << 3);
        it[24] = bits;
        it[32..40].copy_from_slice(&1.5f64.to_le_bytes());
        mem.push((IT, it));
        vars.insert("it".into(), (item.clone(), IT));
        // Scalars, one after another from GLOBALS.
        let mut g = Vec::new();
        let mut put = |name: &str, ty: TypeRef, bytes: Vec<u8>| {
            while g.len() % 8 != 0 {
                g.push(0);
            }
            vars.insert(name.to_string(), (ty, GLOBALS + g.len() as u64));
            g.extend(bytes);
        };
        put("c", char_t.clone(), vec![b'x']);
        put(
            "uc",
            Type::base("unsigned char", 1, Encoding::UnsignedChar),
            vec![200],
        );
        put(
            "sh",
            Type::base("short", 2, Encoding::Signed),
            (-3i16).to_le_bytes().to_vec(),
        );
        put("ui", uint.clone(), 7u32.to_le_bytes().to_vec());
        put(
            "lg",
            Type::base("long", 8, Encoding::Signed),
            (-9i64).to_le_bytes().to_vec(),
        );
        put(
            "ul",
            Type::base("unsigned long", 8, Encoding::Unsigned),
            11u64.to_le_bytes().to_vec(),
        );
        put("dbl", double.clone(), 2.5f64.to_le_bytes().to_vec());
        put(
            "flt",
            Type::base("float", 4, Encoding::Float),
            1.25f32.to_le_bytes().to_vec(),
        );
        put("col", color.clone(), 5u32.to_le_bytes().to_vec());
        put("p", ptr(&item), IT.to_le_bytes().to_vec());
        put("q", ptr(&item_t), IT.to_le_bytes().to_vec());
        put("np", ptr(&int), vec![0; 8]);
        put("str", ptr(&char_t), STR.to_le_bytes().to_vec());
        put("x", int.clone(), 1i32.to_le_bytes().to_vec());
        put("f::cnt", int.clone(), 5i32.to_le_bytes().to_vec());
        mem.push((GLOBALS, g));
        mem.push((STR, b"hello\0".to_vec()));
        let mut big = Vec::with_capacity(4 * BIG_N as usize);
        for i in 0..BIG_N as i32 {
            big.extend(i.to_le_bytes());
        }
        mem.push((BIG, big));
        vars.insert("big".into(), (Type::array_of(int.clone(), BIG_N), BIG));
        let func = Type::new(
            None,
            0,
            TypeKind::Function {
                ret: Some(LazyType::ready(int.clone())),
                params: vec![LazyType::ready(int.clone())],
                varargs: false,
                prototyped: true,
            },
        );
        vars.insert("f".into(), (func, F));
        let mut enumerators = HashMap::new();
        for (n, v) in [("RED", 0), ("GREEN", 5), ("BLUE", 6)] {
            enumerators.insert(n.to_string(), (color.clone(), v));
        }
        let mut types = HashMap::new();
        types.insert("struct item".into(), item.clone());
        types.insert("item_t".into(), item_t);
        types.insert("enum color".into(), color);
        types.insert("int".into(), int.clone());
        let void = Type::void();
        let code = Type::new(
            None,
            0,
            TypeKind::Function {
                ret: Some(LazyType::ready(void.clone())),
                params: vec![],
                varargs: false,
                prototyped: false,
            },
        );
        let mut regs = HashMap::new();
        regs.insert("pc".into(), (ptr(&code), 16, 0x555555555130));
        regs.insert("sp".into(), (ptr(&void), 7, 0x7fffffffe6e0));
        regs.insert(
            "rax".into(),
            (Type::base("int64_t", 8, Encoding::Signed), 0, 42),
        );
        let history = vec![
            Value::new(int.clone(), 100i32.to_le_bytes().to_vec(), Lval::None),
            Value::new(int.clone(), 200i32.to_le_bytes().to_vec(), Lval::None),
        ];
        Mock {
            mem: RefCell::new(mem),
            vars,
            enumerators,
            types,
            regs: RefCell::new(regs),
            history,
            conv: RefCell::new(HashMap::new()),
            reads: RefCell::new(Vec::new()),
            int,
        }
    }
}

impl Target for Mock {
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        self.reads.borrow_mut().push((addr, buf.len()));
        self.region_mut(addr, buf.len(), |b| buf.copy_from_slice(b))
    }

    fn symbol_for(&self, _addr: u64) -> Option<String> {
        None
    }
}

impl EvalContext for Mock {
    fn write(&self, lval: &Lval, bytes: &[u8]) -> Result<()> {
        match *lval {
            Lval::Memory(a) => self.region_mut(a, bytes.len(), |b| b.copy_from_slice(bytes)),
            Lval::Bitfield {
                addr,
                bit_offset,
                bit_size,
            } => {
                let n = (bit_offset + bit_size).div_ceil(8) as usize;
                let mut v = 0u64;
                for (i, b) in bytes.iter().take(8).enumerate() {
                    v |= (*b as u64) << (8 * i);
                }
                self.region_mut(addr, n, |b| {
                    let mut cur = 0u64;
                    for (i, x) in b.iter().enumerate() {
                        cur |= (*x as u64) << (8 * i);
                    }
                    let mask = ((1u64 << bit_size) - 1) << bit_offset;
                    cur = (cur & !mask) | ((v << bit_offset) & mask);
                    for (i, x) in b.iter_mut().enumerate() {
                        *x = (cur >> (8 * i)) as u8;
                    }
                })
            }
            Lval::Register(n) => {
                let mut regs = self.regs.borrow_mut();
                for (_, (_, num, val)) in regs.iter_mut() {
                    if *num == n {
                        let mut b = [0u8; 8];
                        b[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
                        *val = u64::from_le_bytes(b);
                    }
                }
                Ok(())
            }
            Lval::None | Lval::RegisterPart { .. } | Lval::Pieces(_) => {
                Err(DwarfError::user("not an lvalue"))
            }
        }
    }

    fn lookup_variable(&self, name: &str) -> Result<Option<Value>> {
        // `::x` is the top level: this mock has only that.
        let name = name.strip_prefix("::").unwrap_or(name);
        if let Some((ty, v)) = self.enumerators.get(name) {
            return Ok(Some(Value::new(
                ty.clone(),
                (*v as i32).to_le_bytes().to_vec(),
                Lval::None,
            )));
        }
        let Some((ty, addr)) = self.vars.get(name) else {
            return Ok(None);
        };
        let size = ty.byte_size() as usize;
        // Big arrays come back lazy; functions have no bytes.
        if size > 4096 || matches!(ty.kind, TypeKind::Function { .. }) {
            return Ok(Some(Value::new(
                ty.clone(),
                Vec::new(),
                Lval::Memory(*addr),
            )));
        }
        let mut buf = vec![0; size];
        self.read_memory(*addr, &mut buf)?;
        Ok(Some(Value::new(ty.clone(), buf, Lval::Memory(*addr))))
    }

    fn lookup_scoped(&self, scope: &str, name: &str) -> Result<Option<Value>> {
        if scope == "p.c" {
            return self.lookup_variable(name);
        }
        self.lookup_variable(&format!("{scope}::{name}"))
    }

    fn lookup_type(&self, name: &str) -> Option<TypeRef> {
        self.types.get(name).cloned()
    }

    fn register(&self, name: &str) -> Result<Option<Value>> {
        let regs = self.regs.borrow();
        Ok(regs.get(name).map(|(ty, num, v)| {
            let size = ty.byte_size() as usize;
            Value::new(
                ty.clone(),
                v.to_le_bytes()[..size].to_vec(),
                Lval::Register(*num),
            )
        }))
    }

    fn history(&self, which: HistoryRef) -> Result<Value> {
        let n = self.history.len();
        let idx = match which {
            HistoryRef::Absolute(i) => i.checked_sub(1),
            HistoryRef::Relative(k) => n.checked_sub(1 + k),
        };
        idx.and_then(|i| self.history.get(i).cloned())
            .ok_or_else(|| DwarfError::user("History has not yet reached $1."))
    }

    fn convenience(&self, name: &str) -> cohort_dwarf::Result<Option<Value>> {
        Ok(self.conv.borrow().get(name).cloned())
    }

    fn set_convenience(&self, name: &str, value: Value) {
        self.conv.borrow_mut().insert(name.to_string(), value);
    }
}

/// The type as `whatis` prints it.
fn tname(t: &TypeRef) -> String {
    let (pre, suf) = decl(t, "");
    format!("{pre}{suf}").trim_end().to_string()
}

fn base_name(t: &TypeRef) -> String {
    let n = t.name.clone().unwrap_or_default();
    match &t.kind {
        TypeKind::Aggregate { kind, .. } => format!("{} {n}", kind.keyword()),
        TypeKind::Enum { .. } => format!("enum {n}"),
        _ => n,
    }
}

/// `(prefix, suffix)` around a declarator `inner`.
fn decl(t: &TypeRef, inner: &str) -> (String, String) {
    if t.name.is_some() {
        let sep = if inner.is_empty() { "" } else { " " };
        return (format!("{}{sep}{inner}", base_name(t)), String::new());
    }
    match &t.kind {
        TypeKind::Pointer(p) => {
            let target = p.get();
            let is_complex = target.name.is_none()
                && matches!(
                    target.kind,
                    TypeKind::Array { .. } | TypeKind::Function { .. }
                );
            if is_complex {
                decl(target, &format!("(*{inner})"))
            } else {
                let (pre, suf) = decl(target, "");
                let sep = if pre.ends_with('*') { "" } else { " " };
                (format!("{pre}{sep}*{inner}"), suf)
            }
        }
        TypeKind::Array { element, bound } => {
            let n = match bound {
                Bound::Count(n) => n.to_string(),
                _ => String::new(),
            };
            let (pre, suf) = decl(element, "");
            if inner.is_empty() {
                (format!("{pre} "), format!("[{n}]{suf}"))
            } else {
                (format!("{pre} {inner}"), format!("[{n}]{suf}"))
            }
        }
        TypeKind::Function { ret, params, .. } => {
            let r = ret
                .as_ref()
                .map(|r| tname(r.get()))
                .unwrap_or("void".into());
            let ps: Vec<String> = params.iter().map(|p| tname(p.get())).collect();
            (
                format!("{r} {inner}"),
                format!(
                    "({})",
                    if ps.is_empty() {
                        String::new()
                    } else {
                        ps.join(", ")
                    }
                ),
            )
        }
        TypeKind::Const(i) => {
            let (pre, suf) = decl(i.get(), inner);
            (format!("const {pre}"), suf)
        }
        _ => (format!("? {inner}"), String::new()),
    }
}

/// The value, shown simply: integers in decimal, floats with `{}`, pointers in hex, arrays
/// as `{a, b}`.
fn show(v: &Value) -> String {
    let t = v.ty.strip();
    match &t.kind {
        TypeKind::Base(Encoding::Float) => match t.size {
            4 => format!("{}", f32::from_le_bytes(v.bytes[..4].try_into().unwrap())),
            _ => format!("{}", f64::from_le_bytes(v.bytes[..8].try_into().unwrap())),
        },
        TypeKind::Base(Encoding::Unsigned | Encoding::UnsignedChar | Encoding::Boolean)
        | TypeKind::Enum { signed: false, .. } => format!("{}", v.as_u64()),
        TypeKind::Base(_) | TypeKind::Enum { .. } => format!("{}", v.as_i64()),
        TypeKind::Pointer(_) => format!("{:#x}", v.as_u64()),
        TypeKind::Array { element, bound } => {
            let n = match bound {
                Bound::Count(n) => *n as usize,
                _ => 0,
            };
            let es = element.byte_size() as usize;
            let parts: Vec<String> = (0..n)
                .map(|i| {
                    show(&Value::new(
                        element.clone(),
                        v.bytes[i * es..(i + 1) * es].to_vec(),
                        Lval::None,
                    ))
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        TypeKind::Void => "void".into(),
        TypeKind::Function { .. } => format!("{{fn}} {:#x}", v.address().unwrap_or(0)),
        TypeKind::Aggregate { .. } => format!("{{struct of {} bytes}}", v.bytes.len()),
        _ => "?".into(),
    }
}

fn eval(m: &Mock, text: &str) -> std::result::Result<Value, String> {
    let e = expr::parse(text).map_err(|e| e.to_string())?;
    expr::evaluate(&e, m).map_err(|e| e.to_string())
}

/// `print EXPR` and `whatis EXPR` both.
#[track_caller]
fn check(m: &Mock, text: &str, ty: &str, val: &str) {
    let v = eval(m, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(
        (tname(&v.ty).as_str(), show(&v).as_str()),
        (ty, val),
        "{text}"
    );
    let e = expr::parse(text).unwrap();
    let t = expr::evaluate_type(&e, m).unwrap_or_else(|e| panic!("whatis {text}: {e}"));
    assert_eq!(tname(&t), ty, "whatis {text}");
}

#[track_caller]
fn err(m: &Mock, text: &str, msg: &str) {
    match eval(m, text) {
        Ok(v) => panic!("{text}: expected error {msg:?}, got {}", show(&v)),
        Err(e) => assert_eq!(e, msg, "{text}"),
    }
}

#[test]
fn literals() {
    let m = Mock::new();
    for (e, t, v) in [
        ("2147483647", "int", "2147483647"),
        ("2147483648", "long", "2147483648"),
        ("4294967295", "long", "4294967295"),
        ("4294967296", "long", "4294967296"),
        ("0xffffffff", "unsigned int", "4294967295"),
        ("0x80000000", "unsigned int", "2147483648"),
        (
            "0xffffffffffffffff",
            "unsigned long",
            "18446744073709551615",
        ),
        ("0x7fffffffffffffff", "long", "9223372036854775807"),
        (
            "9223372036854775808",
            "unsigned long",
            "9223372036854775808",
        ),
        ("1u", "unsigned int", "1"),
        ("1l", "long", "1"),
        ("1ul", "unsigned long", "1"),
        ("1lu", "unsigned long", "1"),
        ("1ll", "long long", "1"),
        ("1ull", "unsigned long long", "1"),
        ("0x100000000u", "unsigned long", "4294967296"),
        ("010", "int", "8"),
        ("0b101", "int", "5"),
        ("1.5", "double", "1.5"),
        ("1.5f", "float", "1.5"),
        ("1e3", "double", "1000"),
        ("3e", "double", "3"),
        ("'A'", "char", "65"),
        ("'\\n'", "char", "10"),
        ("'\\0'", "char", "0"),
        ("'\\x41'", "char", "65"),
        ("'\\101'", "char", "65"),
        ("'\\e'", "char", "27"),
        ("'\\''", "char", "39"),
        ("\"hi\"", "char [3]", "{104, 105, 0}"),
        ("\"a\" \"b\"", "char [3]", "{97, 98, 0}"),
        ("-2147483648", "long", "-2147483648"),
    ] {
        check(&m, e, t, v);
    }
    err(&m, "18446744073709551616", "Numeric constant too large.");
    err(&m, "08", "Invalid number \"08\".");
    err(&m, "0x", "Invalid number \"0x\".");
    err(&m, "1x", "Invalid number \"1x\".");
    err(&m, "12abc", "Invalid number \"12abc\".");
    err(&m, "0b2", "Invalid number \"0b2\".");
    err(&m, "'a", "Unmatched single quote.");
    err(&m, "\"abc", "Unterminated string in expression.");
}

#[test]
fn arithmetic_and_conversions() {
    let m = Mock::new();
    for (e, t, v) in [
        ("1+2", "int", "3"),
        ("10/3", "int", "3"),
        ("-7/2", "int", "-3"),
        ("-7%3", "int", "-1"),
        ("5 / -2", "int", "-2"),
        ("-5 % 3", "int", "-2"),
        ("1.0/0", "double", "inf"),
        ("'A'+'B'", "int", "131"),
        ("c+c", "int", "240"),
        ("uc+1", "int", "201"),
        ("ui+1", "unsigned int", "8"),
        ("ui-8", "unsigned int", "4294967295"),
        ("lg+ui", "long", "-2"),
        ("ul+lg", "unsigned long", "2"),
        ("1+dbl", "double", "3.5"),
        ("flt+1", "float", "2.25"),
        ("flt+flt", "float", "2.5"),
        ("1.0 / 3.0f", "double", "0.3333333333333333"),
        ("10 / 4.0", "double", "2.5"),
        ("sh*sh", "int", "9"),
        ("100000*100000", "int", "1410065408"),
        ("2147483647+1", "int", "-2147483648"),
        ("-2147483648/-1", "long", "2147483648"),
        ("-(-2147483648)", "long", "2147483648"),
        ("1 + (unsigned char)255", "int", "256"),
        ("~c", "int", "-121"),
        ("-uc", "int", "-200"),
        ("-ui", "unsigned int", "4294967289"),
        ("+c", "int", "120"),
        ("-dbl", "double", "-2.5"),
        ("- - 2", "int", "2"),
        ("col+1", "unsigned int", "6"),
        ("GREEN + 1", "unsigned int", "6"),
        ("1<<3", "int", "8"),
        ("-1>>1", "int", "-1"),
        ("1u<<31", "unsigned int", "2147483648"),
        ("1<<40", "int", "0"),
        ("5 & 3", "int", "1"),
        ("5|3", "int", "7"),
        ("5^3", "int", "6"),
        ("1?2:3", "int", "2"),
        ("0?2:dbl", "double", "2.5"),
        ("1 ? 2 : 3 ? 4 : 5", "int", "2"),
        ("1,2", "int", "2"),
        ("(1+2)*3", "int", "9"),
        ("1+2*3", "int", "7"),
        ("10-3-2", "int", "5"),
    ] {
        check(&m, e, t, v);
    }
    err(&m, "1/0", "Division by zero");
    err(&m, "1%0", "Division by zero");
    err(
        &m,
        "dbl%2",
        "Integer-only operation on floating point number.",
    );
    err(
        &m,
        "dbl & 1",
        "Integer-only operation on floating point number.",
    );
    err(
        &m,
        "~dbl",
        "Argument to complement operation not an integer, boolean.",
    );
    err(
        &m,
        "p+p",
        "Argument to arithmetic operation not a number or boolean.",
    );
    err(
        &m,
        "p*2",
        "Argument to arithmetic operation not a number or boolean.",
    );
    err(
        &m,
        "p+dbl",
        "Argument to arithmetic operation not a number or boolean.",
    );
    err(
        &m,
        "arr+arr",
        "Argument to arithmetic operation not a number or boolean.",
    );
    err(&m, "-p", "Argument to negate operation not a number.");
    err(&m, "+p", "Argument to positive operation not a number.");
    err(&m, "it+1", "Structure has no component named operator+.");
    err(&m, "it==it", "Structure has no component named operator==.");
    err(&m, "!it", "Structure has no component named operator!.");
    // whatis does not divide.
    let e = expr::parse("1/0").unwrap();
    assert_eq!(tname(&expr::evaluate_type(&e, &m).unwrap()), "int");
}

#[test]
fn comparisons_and_logic() {
    let m = Mock::new();
    for (e, v) in [
        ("1==1", "1"),
        ("dbl<3", "1"),
        ("!5", "0"),
        ("!!7", "1"),
        ("!dbl", "0"),
        ("1&&2", "1"),
        ("1 || 0 && 0", "1"),
        ("0 && *np", "0"),
        ("1 || *np", "1"),
        ("-1 < 0u", "0"),
        ("-1 < 0ul", "0"),
        ("(char)-1 < 0", "1"),
        ("uc < -1", "0"),
        ("1.5 == 1.5f", "1"),
        ("3 > 2 > 1", "0"),
        ("flt == 1.25", "1"),
        ("col == GREEN", "1"),
        ("col == 5", "1"),
        ("c == 'x'", "1"),
        ("c == 120", "1"),
        ("&arr[1]<&arr[2]", "1"),
        ("p==q", "1"),
        ("p==0", "0"),
        ("!p", "0"),
        ("np == p", "0"),
        ("str == 0", "0"),
        ("p->name == 0", "0"),
        ("p->kind == 3 && x > 0", "1"),
    ] {
        check(&m, e, "int", v);
    }
}

#[test]
fn pointers_arrays_members() {
    let m = Mock::new();
    let hex = |a: u64| format!("{a:#x}");
    for (e, t, v) in [
        ("arr", "int [5]", "{10, 20, 30, 40, 50}".to_string()),
        ("arr[1]", "int", "20".into()),
        ("arr[-1]", "int", "0".into()),
        ("&arr[1]", "int *", hex(ARR + 4)),
        ("*arr", "int", "10".into()),
        ("arr+1", "int *", hex(ARR + 4)),
        ("*(arr+1)", "int", "20".into()),
        ("&arr", "int (*)[5]", hex(ARR)),
        ("*&arr", "int [5]", "{10, 20, 30, 40, 50}".into()),
        ("&arr+1", "int (*)[5]", hex(ARR + 20)),
        ("mat[1]", "int [3]", "{4, 5, 6}".into()),
        ("mat[1][2]", "int", "6".into()),
        ("mat+1", "int (*)[3]", hex(MAT + 12)),
        ("*mat", "int [3]", "{1, 2, 3}".into()),
        ("*mat[1]", "int", "4".into()),
        ("mat[1] + 1", "int *", hex(MAT + 16)),
        ("&mat[1]", "int (*)[3]", hex(MAT + 12)),
        ("p", "struct item *", hex(IT)),
        ("p+1", "struct item *", hex(IT + 40)),
        ("p->kind", "int", "3".into()),
        (
            "(*p).name",
            "char [8]",
            "{97, 98, 99, 0, 0, 0, 0, 0}".into(),
        ),
        ("p->name[1]", "char", "98".into()),
        ("it.flag", "unsigned int", "5".into()),
        ("it.sb", "int", "-2".into()),
        ("&it.kind", "int *", hex(IT)),
        ("&it.name", "char (*)[8]", hex(IT + 4)),
        ("&it.flag", "unsigned int *", hex(IT + 24)),
        ("p->next->next->kind", "int", "3".into()),
        ("&*p", "struct item *", hex(IT)),
        ("it->kind", "int", "3".into()),
        ("p.kind", "int", "3".into()),
        ("p . kind", "int", "3".into()),
        ("q->kind", "int", "3".into()),
        ("arr[1]@2", "int [2]", "{20, 30}".into()),
        ("*arr@2", "int [2]", "{10, 20}".into()),
        ("it.name[0]@3", "char [3]", "{97, 98, 99}".into()),
        ("str", "char *", hex(STR)),
        ("*str", "char", "104".into()),
        ("str[1]", "char", "101".into()),
        ("str+1", "char *", hex(STR + 1)),
        ("&arr[3]-&arr[0]", "long", "3".into()),
        ("&arr[3]-arr", "long", "3".into()),
        ("p-q", "long", "0".into()),
        ("&arr[1] + 1", "int *", hex(ARR + 8)),
        ("&arr[4] - 2", "int *", hex(ARR + 8)),
        ("(long)&arr[1] - (long)arr", "long", "4".into()),
        ("p->name + 1", "char *", hex(IT + 5)),
        ("&p->name[2]", "char *", hex(IT + 6)),
        ("*(p->name + 1)", "char", "98".into()),
        ("\"ab\"[1]", "char", "98".into()),
        ("1 ? p : 0", "struct item *", hex(IT)),
        ("0 ? 1 : p", "struct item *", hex(IT)),
        ("np", "int *", "0x0".into()),
        ("&it.sb", "int *", hex(IT + 24)),
        ("it.flag * 2", "unsigned int", "10".into()),
        ("it.sb + 0", "int", "-2".into()),
        ("sizeof(it.flag)", "int", "4".into()),
        ("str[0] - 97", "int", "7".into()),
        ("arr[1] + arr[2]", "int", "50".into()),
    ] {
        check(&m, e, t, &v);
    }
    err(&m, "*np", "Cannot access memory at address 0x0");
    err(&m, "np[1]", "Cannot access memory at address 0x4");
    err(&m, "*1", "Cannot access memory at address 0x1");
    err(&m, "*c", "Cannot access memory at address 0x78");
    err(
        &m,
        "*dbl",
        "Attempt to take contents of a non-pointer value.",
    );
    err(&m, "*it", "Structure has no component named operator*.");
    err(
        &m,
        "*$sp",
        "Attempt to take contents of a non-pointer value.",
    );
    err(
        &m,
        "&1",
        "Attempt to take address of value not located in memory.",
    );
    err(
        &m,
        "&(1+2)",
        "Attempt to take address of value not located in memory.",
    );
    err(&m, "it.zz", "There is no member named zz.");
    err(&m, "p->zz", "There is no member named zz.");
    err(
        &m,
        "arr.x",
        "Attempt to extract a component of a value that is not a structure.",
    );
    err(
        &m,
        "c->x",
        "Attempt to extract a component of a value that is not a structure pointer.",
    );
    err(&m, "1[arr]", "cannot subscript something of type `int'");
    err(&m, "\"ab\"[5]", "no such vector element");
    err(&m, "1@2", "Only values in memory can be extended with '@'.");
    err(&m, "arr[0]@0", "Invalid number 0 of repetitions.");
    err(&m, "arr[0]@-1", "Invalid number -1 of repetitions.");
    // whatis needs no memory: a null pointer's target has a type.
    for (e, t) in [
        ("*np", "int"),
        ("np[1]", "int"),
        ("1@2", "int [2]"),
        ("*1", "int"),
    ] {
        let x = expr::parse(e).unwrap();
        assert_eq!(tname(&expr::evaluate_type(&x, &m).unwrap()), t, "{e}");
    }
    // `*"ab"` puts the literal in the program's memory first, as gdb's value_coerce_to_target
    // (x/s "abc", display/s "abc"); a context with no program function to allocate with says
    // so in gdb's words (with a program: case string_literals).
    assert_eq!(
        eval(&m, "*\"ab\"").map(|v| show(&v)),
        Err(
            "evaluation of this expression requires the program to have a function \"malloc\"."
                .to_string()
        )
    );
}

#[test]
fn casts_and_sizes() {
    let m = Mock::new();
    for (e, t, v) in [
        ("(char)321", "char", "65"),
        ("(unsigned char)-1", "unsigned char", "255"),
        ("(short)70000", "short", "4464"),
        ("(long)-1", "long", "-1"),
        ("(unsigned long)-1", "unsigned long", "18446744073709551615"),
        ("(unsigned)5", "unsigned int", "5"),
        ("(signed char)200", "signed char", "-56"),
        ("(long long)1", "long long", "1"),
        ("(long unsigned int)2", "unsigned long", "2"),
        ("(_Bool)5", "_Bool", "1"),
        ("(int)2.9", "int", "2"),
        ("(int)-2.9", "int", "-2"),
        ("(double)3", "double", "3"),
        ("(float)1/3", "float", "0.33333334"),
        ("(char*)p", "char *", "0x555555558080"),
        ("(long)p", "long", "93824992247936"),
        ("(struct item *)p", "struct item *", "0x555555558080"),
        ("(item_t *)p", "item_t *", "0x555555558080"),
        ("(item_t*)0", "item_t *", "0x0"),
        ("(item_t *)0 + 1", "item_t *", "0x28"),
        ("(int)it", "int", "3"),
        ("(enum color)6", "enum color", "6"),
        ("(char)c + (char)1", "int", "121"),
        ("((struct item *)p)->kind", "int", "3"),
        ("(unsigned long)arr", "unsigned long", "93824992247840"),
        ("sizeof(int)", "int", "4"),
        ("sizeof arr", "int", "20"),
        ("sizeof(arr)/sizeof(arr[0])", "int", "5"),
        ("sizeof(\"hi\")", "int", "3"),
        ("sizeof(col)", "int", "4"),
        ("sizeof col", "int", "4"),
        ("sizeof(struct item)", "int", "40"),
        ("sizeof(item_t)", "int", "40"),
        ("sizeof(int[3])", "int", "12"),
        ("sizeof(int*)", "int", "8"),
        ("sizeof(p->name)", "int", "8"),
        ("sizeof p->kind", "int", "4"),
        ("sizeof(char)", "int", "1"),
        ("sizeof(long double)", "int", "16"),
        ("sizeof(void)", "int", "1"),
        ("sizeof f", "int", "1"),
        ("sizeof(*np)", "int", "4"),
        ("sizeof big", "int", "400000"),
        ("_Alignof(int)", "int", "4"),
        ("_Alignof(struct item)", "int", "8"),
    ] {
        check(&m, e, t, v);
    }
    err(&m, "(struct item)1", "Invalid cast.");
    err(&m, "(struct nosuch *)0", "No struct type named nosuch.");
    err(&m, "(nosuch)1", "No symbol \"nosuch\" in current context.");
    err(
        &m,
        "(nosuch *)1",
        "No symbol \"nosuch\" in current context.",
    );
    err(&m, "sizeof(struct nosuch)", "No struct type named nosuch.");
    err(
        &m,
        "sizeof(nosuch)",
        "No symbol \"nosuch\" in current context.",
    );
    err(&m, "(color)5", "No symbol \"color\" in current context.");
    err(&m, "int", "Attempt to use a type name as an expression");
    err(
        &m,
        "struct item",
        "Attempt to use a type name as an expression",
    );
    err(&m, "item_t", "Attempt to use a type name as an expression");
    for (e, t) in [
        ("int", "int"),
        ("unsigned", "unsigned int"),
        ("struct item", "struct item"),
        ("item_t", "item_t"),
        ("struct item *", "struct item *"),
    ] {
        let x = expr::parse(e).unwrap();
        assert_eq!(
            tname(&expr::evaluate_type(&x, &m).unwrap()),
            t,
            "whatis {e}"
        );
        assert!(expr::is_type_expr(&x, &m), "{e}");
    }
}

#[test]
fn parse_type_names() {
    let m = Mock::new();
    for (text, want) in [
        ("int", "int"),
        ("unsigned long", "unsigned long"),
        ("long unsigned int", "unsigned long"),
        ("struct item *", "struct item *"),
        ("item_t", "item_t"),
        ("item_t **", "item_t **"),
        ("int [3]", "int [3]"),
        ("int (*)[3]", "int (*)[3]"),
        ("char", "char"),
        ("enum color", "enum color"),
        ("void (*)()", "void (*)()"),
        ("int (*)(int)", "int (*)(int)"),
        ("const char *", "const char *"),
    ] {
        let t = expr::parse_type(text, &m).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(tname(&t), want, "{text}");
    }
    assert_eq!(expr::parse_type("int [3]", &m).unwrap().byte_size(), 12);
    assert!(expr::parse_type("struct nosuch", &m).is_none());
    assert!(expr::parse_type("arr", &m).is_none());
    assert!(expr::parse_type("int x", &m).is_none());
}

#[test]
fn assignment_writes_through_the_context() {
    let m = Mock::new();
    check(&m, "ui = 5", "unsigned int", "5");
    check(&m, "ui", "unsigned int", "5");
    check(&m, "ui = -1", "unsigned int", "4294967295");
    check(&m, "c = 66", "char", "66");
    check(&m, "c", "char", "66");
    check(&m, "dbl = 1", "double", "1");
    check(&m, "flt = 2", "float", "2");
    check(&m, "flt += 0.5", "float", "2.5");
    check(&m, "lg += 2", "long", "-7");
    check(&m, "lg++", "long", "-7");
    check(&m, "++lg", "long", "-5");
    check(&m, "lg--", "long", "-5");
    check(&m, "lg", "long", "-6");
    check(&m, "it.flag = 9", "unsigned int", "1");
    check(&m, "it.flag", "unsigned int", "1");
    check(&m, "it.sb = -1", "int", "-1");
    check(&m, "it.sb", "int", "-1");
    check(&m, "it.flag", "unsigned int", "1");
    check(&m, "it.kind", "int", "3");
    check(&m, "arr[2] *= 3", "int", "90");
    check(&m, "arr[2]", "int", "90");
    check(&m, "p->kind = 7", "int", "7");
    check(&m, "it.kind", "int", "7");
    check(&m, "lg = ui = 3", "long", "3");
    check(&m, "arr[1] = arr[2] = 4", "int", "4");
    check(&m, "arr", "int [5]", "{10, 4, 4, 40, 50}");
    check(&m, "p += 1", "struct item *", "0x5555555580a8");
    check(&m, "p -= 1", "struct item *", "0x555555558080");
    check(&m, "p++", "struct item *", "0x555555558080");
    check(&m, "p", "struct item *", "0x5555555580a8");
    check(&m, "p--", "struct item *", "0x5555555580a8");
    check(&m, "p = 5", "struct item *", "0x5");
    check(&m, "lg = p", "long", "5");
    check(&m, "str = 0", "char *", "0x0");
    check(&m, "c += 300", "char", "110");
    check(&m, "$rax = 7", "int64_t", "7");
    check(&m, "$rax", "int64_t", "7");
    err(&m, "1 = 2", "Left operand of assignment is not an lvalue.");
    err(&m, "arr = 1", "Invalid cast.");
    err(&m, "*np = 1", "Cannot access memory at address 0x0");
    // whatis has no side effects.
    let e = expr::parse("x++").unwrap();
    assert_eq!(tname(&expr::evaluate_type(&e, &m).unwrap()), "int");
    check(&m, "x", "int", "1");
    let e = expr::parse("1 = 2").unwrap();
    assert_eq!(tname(&expr::evaluate_type(&e, &m).unwrap()), "int");
}

#[test]
fn dollar_names() {
    let m = Mock::new();
    check(&m, "$pc", "void (*)()", "0x555555555130");
    check(&m, "$pc+1", "void (*)()", "0x555555555131");
    check(&m, "$sp", "void *", "0x7fffffffe6e0");
    check(&m, "$sp + 8", "void *", "0x7fffffffe6e8");
    check(&m, "$rax", "int64_t", "42");
    check(&m, "$nosuchreg", "void", "void");
    check(&m, "$foo", "void", "void");
    check(&m, "$foo = 3", "int", "3");
    check(&m, "$foo + 1", "int", "4");
    check(&m, "$foo++", "int", "3");
    check(&m, "$foo", "int", "4");
    check(&m, "$foo *= 2", "int", "8");
    check(&m, "$", "int", "200");
    check(&m, "$$", "int", "100");
    check(&m, "$$0", "int", "200");
    check(&m, "$1", "int", "100");
    check(&m, "$2", "int", "200");
    check(&m, "$0", "int", "200");
    check(&m, "", "int", "200");
    err(&m, "$$5", "History has not yet reached $1.");
}

#[test]
fn names_and_scopes() {
    let m = Mock::new();
    check(&m, "RED", "enum color", "0");
    check(&m, "BLUE", "enum color", "6");
    check(&m, "col", "enum color", "5");
    check(&m, "f::cnt", "int", "5");
    check(&m, "'p.c'::arr", "int [5]", "{10, 20, 30, 40, 50}");
    check(&m, "'arr'[1]", "int", "20");
    check(&m, "::arr", "int [5]", "{10, 20, 30, 40, 50}");
    check(&m, "f", "int (int)", &format!("{{fn}} {F:#x}"));
    check(&m, "&f", "int (*)(int)", &format!("{F:#x}"));
    check(&m, "*f", "int (int)", &format!("{{fn}} {F:#x}"));
    check(&m, "f+1", "int (*)(int)", &format!("{:#x}", F + 1));
    err(&m, "foo", "No symbol \"foo\" in current context.");
    err(&m, "'nosuch'", "No symbol \"nosuch\" in current context.");
    err(
        &m,
        "'p.c'::nosuch",
        "No symbol \"nosuch\" in specified context.",
    );
    err(
        &m,
        "f::nosuch",
        "No symbol \"nosuch\" in specified context.",
    );
    err(&m, "nosuch::x", "No symbol \"nosuch\" in current context.");
    err(&m, "f(2)", "You can't do that without a process to debug.");
    err(
        &m,
        "arr(1)",
        "Expression of type other than \"Function returning ...\" used as function",
    );
    let e = expr::parse("f(2)").unwrap();
    assert_eq!(tname(&expr::evaluate_type(&e, &m).unwrap()), "int");
}

#[test]
fn syntax_errors() {
    let m = Mock::new();
    for (text, msg) in [
        ("arr[1", "A syntax error in expression, near `'."),
        ("1 +", "A syntax error in expression, near `'."),
        ("1 2", "A syntax error in expression, near `2'."),
        ("(1", "A syntax error in expression, near `'."),
        (")", "A syntax error in expression, near `)'."),
        ("p->", "A syntax error in expression, near `'."),
        ("p->5", "A syntax error in expression, near `5'."),
        ("1 ? 2", "A syntax error in expression, near `'."),
        ("1 ? 2 :", "A syntax error in expression, near `'."),
        ("sizeof", "A syntax error in expression, near `'."),
        ("sizeof(int", "A syntax error in expression, near `'."),
        ("(int", "A syntax error in expression, near `'."),
        ("(int)", "A syntax error in expression, near `'."),
        ("(struct)", "A syntax error in expression, near `)'."),
        ("1 +  2 3 4", "A syntax error in expression, near `3 4'."),
        ("1.2.3", "A syntax error in expression, near `.3'."),
        ("@", "A syntax error in expression, near `'."),
        ("@ 5", "A syntax error in expression, near `5'."),
        ("1 + @ 5", "A syntax error in expression, near `@ 5'."),
        ("(@)", "A syntax error in expression, near `)'."),
        ("1 @", "A syntax error in expression, near `'."),
        ("f::", "A syntax error in expression, near `'."),
        ("1 == = 2", "A syntax error in expression, near `= 2'."),
        ("!", "A syntax error in expression, near `'."),
        ("&&", "A syntax error in expression, near `&&'."),
        ("&&c", "A syntax error in expression, near `&&c'."),
        ("1)", "Junk after end of expression."),
        ("arr[1]]", "Junk after end of expression."),
        ("#", "Invalid character '#' in expression."),
        ("a # b", "Invalid character '#' in expression."),
        ("a ` b", "Invalid character '`' in expression."),
        ("a\\b", "Invalid character '\\' in expression."),
        ("'ab'", "Invalid character constant."),
        ("''", "Empty character constant."),
    ] {
        err(&m, text, msg);
    }
    // `1 +  * 2` is `1 + *2`.
    err(&m, "1 +  * 2", "Cannot access memory at address 0x2");
}

#[test]
fn ambiguous_parentheses() {
    let m = Mock::new();
    // Without a symbol table `(x) - 1` is a subtraction; `(item_t *)` and `(T) operand` casts.
    check(&m, "(x) - 1", "int", "0");
    check(&m, "(x)+1", "int", "2");
    check(&m, "(lg)", "long", "-9");
    check(&m, "(x)", "int", "1");
    // With the context, a typedef name in parentheses is a cast, as gdb parses it.
    let e = expr::parse_in("(item_t *) p", &m).unwrap();
    assert_eq!(tname(&expr::evaluate(&e, &m).unwrap().ty), "item_t *");
    let e = expr::parse_in("(item_t) it", &m).unwrap();
    assert_eq!(tname(&expr::evaluate(&e, &m).unwrap().ty), "item_t");
    let e = expr::parse("(item_t)(it)").unwrap();
    assert_eq!(tname(&expr::evaluate(&e, &m).unwrap().ty), "item_t");
    let e = expr::parse_in("sizeof(item_t)", &m).unwrap();
    assert_eq!(show(&expr::evaluate(&e, &m).unwrap()), "40");
}

#[test]
fn lazy_reads() {
    let m = Mock::new();
    let reads = |text: &str| {
        let e = expr::parse(text).unwrap();
        m.reads.borrow_mut().clear();
        let v = expr::evaluate(&e, &m).unwrap();
        (show(&v), m.reads.borrow().clone())
    };
    // One element of a big array: 4 bytes read, not 400000.
    assert_eq!(
        reads("big[99999]"),
        ("99999".into(), vec![(BIG + 4 * 99999, 4)])
    );
    // The address of an element reads nothing.
    assert_eq!(reads("&big[10]"), (format!("{:#x}", BIG + 40), vec![]));
    assert_eq!(reads("sizeof big"), ("400000".into(), vec![]));
    // `*p@2` reads exactly the two elements at the end.
    let (v, r) = reads("big[5]@2");
    assert_eq!(v, "{5, 6}");
    assert_eq!(r, vec![(BIG + 20, 8)]);
    // A member through a pointer reads the pointer (by lookup) and that member only.
    let (v, r) = reads("p->kind");
    assert_eq!(v, "3");
    assert_eq!(r.last(), Some(&(IT, 4)));
    // Nothing at all for whatis.
    m.reads.borrow_mut().clear();
    let e = expr::parse("big[3] + *np").unwrap();
    assert_eq!(tname(&expr::evaluate_type(&e, &m).unwrap()), "int");
    let e = expr::parse("big[1]").unwrap();
    let v = expr::evaluate_lazy(&e, &m).unwrap();
    assert_eq!((v.bytes.len(), v.lval), (0, Lval::Memory(BIG + 4)));
}

#[test]
fn conditions_parse_once() {
    let m = Mock::new();
    let e: Expr = expr::parse("big[x] == 1 && p->kind == 3").unwrap();
    for _ in 0..1000 {
        assert!(expr::is_truthy(&expr::evaluate(&e, &m).unwrap()).unwrap());
    }
    let f = expr::parse("dbl").unwrap();
    assert!(expr::is_truthy(&expr::evaluate(&f, &m).unwrap()).unwrap());
    let z = expr::parse("np").unwrap();
    assert!(!expr::is_truthy(&expr::evaluate(&z, &m).unwrap()).unwrap());
    let _ = &m.int;
}

#[test]
fn addresses_for_x_and_watch() {
    let m = Mock::new();
    let addr = |text: &str| {
        let e = expr::parse(text).unwrap();
        expr::as_address(&expr::evaluate_lazy(&e, &m).unwrap()).map_err(|e| e.to_string())
    };
    assert_eq!(addr("arr"), Ok(ARR));
    assert_eq!(addr("&arr[2]"), Ok(ARR + 8));
    assert_eq!(addr("p"), Ok(IT));
    assert_eq!(addr("0x1000"), Ok(0x1000));
    assert_eq!(addr("f"), Ok(F));
    assert_eq!(addr("big"), Ok(BIG));
    err(
        &m,
        "big",
        "value requires 400000 bytes, which is more than max-value-size",
    );
    err(
        &m,
        "big[1]@16385",
        "value requires 65540 bytes, which is more than max-value-size",
    );
    check(&m, "big[1]@3", "int [3]", "{1, 2, 3}");
    check(&m, "&big", "int (*)[100000]", &format!("{BIG:#x}"));
    assert_eq!(addr("$sp"), Ok(0x7fffffffe6e0));
    // `watch it.kind`: the lvalue's address and size without reading it.
    let e = expr::parse("p->next->kind").unwrap();
    let v = expr::evaluate_lazy(&e, &m).unwrap();
    assert_eq!((v.lval, v.ty.byte_size()), (Lval::Memory(IT), 4));
}
