//! Evaluation of parsed expressions with gdb's C semantics.
//!
//! Values are kept lazy while they are being computed: a value in memory carries its address
//! and is read only when its bytes are needed, so `arr[5]`, `&big`, `p->next->kind` read only
//! what they use. Without side effects (`whatis`, `ptype`, `sizeof`) nothing is read or
//! written: memory reads as zeros.

use std::sync::{Arc, OnceLock};

use super::lexer::{FloatLit, IntLit};
use super::parser::{BaseType, BinOp, Declarator, Dollar, Expr, TypeName, UnOp};
use crate::context::EvalContext;
use crate::error::{DwarfError, Result};
use crate::extfloat::{
    FloatKind, FloatOp, Quad, arith, from_quad, quad_from_f64, quad_from_int, quad_to_int, to_quad,
};
use crate::types::{AggregateKind, Bound, Encoding, LazyType, Type, TypeKind, TypeRef};
use crate::value::{Lval, Value};
use rustc_apfloat::Float as _;

mod braces;
mod internal;
pub(crate) use internal::internal_function_name;
mod vector;

/// The types gdb gives literals and C keyword types (LP64).
pub(crate) struct Builtins {
    pub int: TypeRef,
    pub uint: TypeRef,
    pub long: TypeRef,
    pub ulong: TypeRef,
    pub llong: TypeRef,
    pub ullong: TypeRef,
    pub short: TypeRef,
    pub ushort: TypeRef,
    pub char: TypeRef,
    pub schar: TypeRef,
    pub uchar: TypeRef,
    pub float: TypeRef,
    pub double: TypeRef,
    pub ldouble: TypeRef,
    pub bool_: TypeRef,
    pub void: TypeRef,
    pub wchar: TypeRef,
}

pub(crate) fn builtins() -> &'static Builtins {
    static B: OnceLock<Builtins> = OnceLock::new();
    B.get_or_init(|| Builtins {
        int: Type::base("int", 4, Encoding::Signed),
        uint: Type::base("unsigned int", 4, Encoding::Unsigned),
        long: Type::base("long", 8, Encoding::Signed),
        ulong: Type::base("unsigned long", 8, Encoding::Unsigned),
        llong: Type::base("long long", 8, Encoding::Signed),
        ullong: Type::base("unsigned long long", 8, Encoding::Unsigned),
        short: Type::base("short", 2, Encoding::Signed),
        ushort: Type::base("unsigned short", 2, Encoding::Unsigned),
        char: Type::base("char", 1, Encoding::SignedChar),
        schar: Type::base("signed char", 1, Encoding::SignedChar),
        uchar: Type::base("unsigned char", 1, Encoding::UnsignedChar),
        float: Type::base("float", 4, Encoding::Float),
        double: Type::base("double", 8, Encoding::Float),
        ldouble: Type::base("long double", 16, Encoding::Float),
        bool_: Type::base("_Bool", 1, Encoding::Boolean),
        void: Type::void(),
        wchar: Type::base("wchar_t", 4, Encoding::Signed),
    })
}

fn builtin_named(name: &str) -> TypeRef {
    let b = builtins();
    match name {
        "int" => &b.int,
        "unsigned int" => &b.uint,
        "long" => &b.long,
        "unsigned long" => &b.ulong,
        "long long" => &b.llong,
        "unsigned long long" => &b.ullong,
        "short" => &b.short,
        "unsigned short" => &b.ushort,
        "char" => &b.char,
        "signed char" => &b.schar,
        "unsigned char" => &b.uchar,
        "float" => &b.float,
        "double" => &b.double,
        "long double" => &b.ldouble,
        "_Bool" => &b.bool_,
        _ => &b.void,
    }
    .clone()
}

/// gdb's default `max-value-size`: larger values are not read (`print big` is an error,
/// `big[5]` and `&big` are fine).
pub const MAX_VALUE_SIZE: u64 = 65536;

fn user(msg: impl Into<String>) -> DwarfError {
    DwarfError::user(msg)
}

/// A value under evaluation.
#[derive(Debug, Clone)]
pub(crate) struct V {
    pub ty: TypeRef,
    /// Empty while `lazy`.
    pub bytes: Vec<u8>,
    /// In memory at `lval`'s address and not read yet.
    pub lazy: bool,
    pub lval: Lval,
    pub optimized_out: bool,
    /// See [`Value::lost_bits`].
    pub lost_bits: Vec<std::ops::Range<u64>>,
    /// A class value a call returned: gdb keeps it on the stack (its C++ "stack
    /// temporaries"), so it can be `this` or bound to a reference; cohort copies it there
    /// when needed.
    pub temporary: bool,
    /// A type name in expression position (`sizeof(item_t)`, `whatis struct item`).
    pub is_type: bool,
}

impl V {
    fn new(ty: TypeRef, bytes: Vec<u8>) -> V {
        V {
            ty,
            bytes,
            lazy: false,
            lval: Lval::None,
            optimized_out: false,
            lost_bits: Vec::new(),
            temporary: false,
            is_type: false,
        }
    }

    fn lazy_at(ty: TypeRef, addr: u64) -> V {
        V {
            ty,
            bytes: Vec::new(),
            lazy: true,
            lval: Lval::Memory(addr),
            optimized_out: false,
            lost_bits: Vec::new(),
            temporary: false,
            is_type: false,
        }
    }

    fn of_type(ty: TypeRef) -> V {
        V {
            is_type: true,
            ..V::new(ty, Vec::new())
        }
    }

    pub fn from_value(v: Value) -> V {
        let size = v.ty.byte_size() as usize;
        let lazy = !v.optimized_out && v.bytes.len() < size && matches!(v.lval, Lval::Memory(_));
        V {
            ty: v.ty,
            bytes: if lazy { Vec::new() } else { v.bytes },
            lazy,
            lval: v.lval,
            optimized_out: v.optimized_out,
            lost_bits: v.lost_bits,
            temporary: false,
            is_type: false,
        }
    }

    fn address(&self) -> Option<u64> {
        match self.lval {
            Lval::Memory(a) => Some(a),
            _ => None,
        }
    }
}

/// What a type is, for arithmetic.
#[derive(Debug)]
enum Cls {
    Int { size: u64, signed: bool },
    Float(u64),
    Ptr(TypeRef),
    Array(TypeRef),
    Func,
    Agg,
    Void,
    Other,
}

fn classify(ty: &TypeRef) -> Cls {
    let s = ty.strip();
    match &s.kind {
        TypeKind::Base(Encoding::Float) => Cls::Float(s.size),
        TypeKind::Base(Encoding::ComplexFloat) => Cls::Other,
        TypeKind::Base(e) => Cls::Int {
            size: s.size,
            signed: matches!(e, Encoding::Signed | Encoding::SignedChar),
        },
        TypeKind::Enum {
            underlying, signed, ..
        } => {
            let size = if s.size > 0 {
                s.size
            } else {
                underlying.as_ref().map_or(4, |u| u.byte_size())
            };
            Cls::Int {
                size,
                signed: *signed,
            }
        }
        TypeKind::Pointer(t) | TypeKind::Reference(t) | TypeKind::RvalueReference(t) => {
            Cls::Ptr(t.get().clone())
        }
        TypeKind::Array { element, .. } => Cls::Array(element.clone()),
        TypeKind::Function { .. } => Cls::Func,
        TypeKind::Aggregate { .. } => Cls::Agg,
        TypeKind::Void => Cls::Void,
        _ => Cls::Other,
    }
}

fn le_int(bytes: &[u8], signed: bool) -> i128 {
    let n = bytes.len().min(16);
    if n == 0 {
        return 0;
    }
    let mut b = [0u8; 16];
    b[..n].copy_from_slice(&bytes[..n]);
    let v = u128::from_le_bytes(b);
    if signed && n < 16 {
        let shift = 128 - 8 * n as u32;
        ((v << shift) as i128) >> shift
    } else {
        v as i128
    }
}

fn int_bytes(v: i128, size: u64) -> Vec<u8> {
    let n = (size as usize).min(16);
    let mut out = v.to_le_bytes()[..n].to_vec();
    out.resize(size as usize, if v < 0 { 0xff } else { 0 });
    out
}

/// Wrap `v` to `size` bytes and read it back with the given signedness.
fn wrap(v: i128, size: u64, signed: bool) -> i128 {
    if size >= 16 {
        return v;
    }
    let bits = 8 * size as u32;
    let m = (v as u128) & ((1u128 << bits) - 1);
    if signed && bits > 0 && m >> (bits - 1) == 1 {
        (m | !((1u128 << bits) - 1)) as i128
    } else {
        m as i128
    }
}

/// The arithmetic format of a float type (`_Float128` and x87 `long double` are both 16
/// bytes: the name tells).
fn float_kind(ty: &TypeRef) -> FloatKind {
    let s = ty.strip();
    FloatKind::of(s.size, s.name.as_deref())
}

/// The value of a float of type `ty`, exactly.
fn float_from(bytes: &[u8], ty: &TypeRef) -> Quad {
    to_quad(bytes, float_kind(ty))
}

/// `v` rounded to float type `ty`, as its bytes.
fn float_bytes(v: Quad, ty: &TypeRef) -> Vec<u8> {
    from_quad(v, float_kind(ty), ty.byte_size() as usize)
}

/// A short C spelling of a type for error messages (`int`, `struct item`, `char *`).
pub(crate) fn type_name(ty: &TypeRef) -> String {
    if let Some(n) = &ty.name {
        return match &ty.kind {
            TypeKind::Aggregate { kind, .. } => format!("{} {n}", kind.keyword()),
            TypeKind::Enum { .. } => format!("enum {n}"),
            _ => n.clone(),
        };
    }
    match &ty.kind {
        TypeKind::Pointer(t) => {
            let inner = type_name(t.get());
            if inner.ends_with('*') {
                format!("{inner}*")
            } else {
                format!("{inner} *")
            }
        }
        TypeKind::Const(t) => format!("const {}", type_name(t.get())),
        TypeKind::Volatile(t) => format!("volatile {}", type_name(t.get())),
        TypeKind::Array { element, bound } => match bound {
            Bound::Count(n) => format!("{} [{n}]", type_name(element)),
            _ => format!("{} []", type_name(element)),
        },
        TypeKind::Aggregate { kind, .. } => format!("{} {{...}}", kind.keyword()),
        TypeKind::Enum { .. } => "enum {...}".into(),
        _ => "?".into(),
    }
}

/// Where an assignment goes.
enum Place {
    Value(V),
    Convenience(String),
}

pub(crate) struct Ev<'a> {
    pub ctx: &'a dyn EvalContext,
    /// Side effects (reads of memory, writes, errors that need values) allowed.
    pub side: bool,
}

impl<'a> Ev<'a> {
    fn ptr_size(&self) -> u64 {
        self.ctx.ptr_size()
    }

    /// Read a lazy value's bytes (zeros without side effects).
    pub fn fetch(&self, v: &mut V) -> Result<()> {
        if v.lazy {
            let size = v.ty.byte_size();
            if size > MAX_VALUE_SIZE {
                if self.side {
                    return Err(user(format!(
                        "value requires {size} bytes, which is more than max-value-size"
                    )));
                }
                v.lazy = false;
                return Ok(());
            }
            let mut buf = vec![0u8; size as usize];
            if self.side
                && let Some(a) = v.address()
            {
                self.ctx.read_memory(a, &mut buf)?;
            }
            v.bytes = buf;
            v.lazy = false;
        }
        Ok(())
    }

    fn bytes<'v>(&self, v: &'v mut V) -> Result<&'v [u8]> {
        if v.optimized_out {
            return Err(DwarfError::OptimizedOut);
        }
        self.fetch(v)?;
        Ok(&v.bytes)
    }

    fn int_of(&self, v: &mut V) -> Result<i128> {
        let signed = match classify(&v.ty) {
            Cls::Int { signed, .. } => signed,
            _ => false,
        };
        let size = v.ty.byte_size() as usize;
        let b = self.bytes(v)?;
        Ok(le_int(&b[..size.min(b.len())], signed))
    }

    fn float_of(&self, v: &mut V) -> Result<Quad> {
        match classify(&v.ty) {
            Cls::Float(_) => {
                let ty = v.ty.clone();
                let b = self.bytes(v)?;
                Ok(float_from(b, &ty))
            }
            Cls::Int { signed: false, .. } => Ok(quad_from_int(self.int_of(v)?, true)),
            _ => Ok(quad_from_int(self.int_of(v)?, false)),
        }
    }

    fn int_value(&self, ty: &TypeRef, v: i128) -> V {
        V::new(ty.clone(), int_bytes(v, ty.byte_size()))
    }

    fn int(&self, v: i128) -> V {
        self.int_value(&builtins().int, v)
    }

    /// The value of a comparison or a logical operator: a C++ `bool`, a C `int`.
    fn truth_value(&self, b: bool) -> V {
        if self.ctx.language() == crate::format::Language::Cplus {
            static BOOL: OnceLock<TypeRef> = OnceLock::new();
            let ty = BOOL.get_or_init(|| Type::base("bool", 1, Encoding::Boolean));
            return self.int_value(ty, b as i128);
        }
        self.int(b as i128)
    }

    fn pointer(&self, target: TypeRef, addr: u64) -> V {
        let ty = Type::pointer_to(target, self.ptr_size());
        self.int_value(&ty, addr as i128)
    }

    pub fn eval(&self, e: &Expr) -> Result<V> {
        match e {
            Expr::Int(v, k) => {
                let b = builtins();
                let ty = match k {
                    IntLit::Int => &b.int,
                    IntLit::UInt => &b.uint,
                    IntLit::Long => &b.long,
                    IntLit::ULong => &b.ulong,
                    IntLit::LongLong => &b.llong,
                    IntLit::ULongLong => &b.ullong,
                };
                Ok(self.int_value(ty, *v as i128))
            }
            Expr::Float(v, k) => {
                let b = builtins();
                let (ty, q) = match k {
                    FloatLit::Float => (&b.float, quad_from_f64(*v)),
                    FloatLit::Double => (&b.double, quad_from_f64(*v)),
                    FloatLit::LongDouble(bits) => {
                        (&b.ldouble, to_quad(&bits.to_le_bytes(), FloatKind::X87))
                    }
                };
                Ok(V::new(ty.clone(), float_bytes(q, ty)))
            }
            Expr::Char(c, wide) => {
                let b = builtins();
                let ty = if *wide { &b.wchar } else { &b.char };
                Ok(self.int_value(ty, *c as i128))
            }
            Expr::Str(s) => {
                let mut bytes = s.clone();
                bytes.push(0);
                let ty = Type::array_of(builtins().char.clone(), bytes.len() as u64);
                Ok(V::new(ty, bytes))
            }
            Expr::Name(n) => self.name(n),
            Expr::Scoped(scope, n) => self.scoped(scope, n),
            Expr::Dollar(d) => self.dollar(d),
            Expr::Type(t) => {
                let ty = self.resolve(t)?;
                if self.side {
                    return Err(user("Attempt to use a type name as an expression"));
                }
                Ok(V::of_type(ty))
            }
            Expr::Unary(op, x) => self.unary(*op, x),
            Expr::Binary(op, l, r) => {
                let a = self.eval(l)?;
                let b = self.eval(r)?;
                self.binop(*op, a, b)
            }
            Expr::Logical(and, l, r) => {
                let a = self.eval(l)?;
                let ta = self.truth(a, if *and { "&&" } else { "||" })?;
                if *and != ta {
                    return Ok(self.truth_value(ta));
                }
                let b = self.eval(r)?;
                let tb = self.truth(b, if *and { "&&" } else { "||" })?;
                Ok(self.truth_value(tb))
            }
            Expr::Ternary(c, t, f) => {
                let cv = self.eval(c)?;
                if self.truth(cv, "?")? {
                    self.eval(t)
                } else {
                    self.eval(f)
                }
            }
            Expr::Assign(op, l, r) => self.assign(*op, l, r),
            Expr::Comma(l, r) => {
                self.eval(l)?;
                self.eval(r)
            }
            Expr::Index(a, i) => {
                let a = self.coerce_ref(self.eval(a)?)?;
                let i = self.coerce_ref(self.eval(i)?)?;
                self.index(a, i)
            }
            Expr::Member(x, name, arrow) => {
                let v = self.coerce_ref(self.eval(x)?)?;
                self.member(v, name, *arrow)
            }
            Expr::Call(f, args) => self.call(f, args),
            Expr::Cast(t, x) => {
                let ty = self.resolve(t)?;
                let v = match &**x {
                    Expr::Call(f, args) => self.call_as(f, args, Some(&ty))?,
                    Expr::Array(items) => self.array_literal(items, Some(&ty))?,
                    _ => self.eval(x)?,
                };
                let v = if is_reference(&ty) {
                    v
                } else {
                    self.coerce_ref(v)?
                };
                self.cast(v, &ty)
            }
            Expr::At(l, r) => self.at(l, r),
            Expr::EntryValue(n) => self.ctx.entry_value(n).map(V::from_value),
            Expr::SizeOf(x) => {
                let ev = Ev {
                    ctx: self.ctx,
                    side: false,
                };
                let xv = ev.eval(x)?;
                // gdb's `evaluate_subexp_for_sizeof_base`: the size of a reference is the
                // size of what it refers to.
                let ty = match &xv.ty.strip().kind {
                    TypeKind::Reference(t) | TypeKind::RvalueReference(t) => t.get().clone(),
                    _ => xv.ty.clone(),
                };
                // gdb's `var_value_operation::evaluate_for_sizeof`: a variable whose array
                // type has no upper bound here (a variable-length array whose bound is
                // optimized out) has no size.
                if matches!(**x, Expr::Name(_))
                    && !xv.is_type
                    && matches!(
                        &ty.strip().kind,
                        TypeKind::Array {
                            bound: Bound::Undefined | Bound::Unknown,
                            ..
                        }
                    )
                {
                    let mut v = V::new(builtins().int.clone(), Vec::new());
                    v.optimized_out = true;
                    return Ok(v);
                }
                let size = match classify(&ty) {
                    Cls::Func | Cls::Void => 1,
                    _ => ty.byte_size(),
                };
                Ok(self.int(size as i128))
            }
            Expr::MemVal(t, x) => self.memval(t, x),
            Expr::Array(items) => self.array_literal(items, None),
            Expr::AlignOf(x) => {
                let ty = self.type_of(x)?;
                Ok(self.int(align_of(&ty, self.ptr_size()) as i128))
            }
        }
    }

    /// The type of `e`, evaluated without side effects.
    fn type_of(&self, e: &Expr) -> Result<TypeRef> {
        let ev = Ev {
            ctx: self.ctx,
            side: false,
        };
        Ok(ev.eval(e)?.ty)
    }

    fn name(&self, n: &str) -> Result<V> {
        if let Some(v) = self.ctx.lookup_variable(n)? {
            return Ok(V::from_value(v));
        }
        if let Some(t) = self.ctx.lookup_type(n) {
            if self.side {
                return Err(user("Attempt to use a type name as an expression"));
            }
            return Ok(V::of_type(t));
        }
        Err(user(format!("No symbol \"{n}\" in current context.")))
    }

    fn scoped(&self, scope: &str, n: &str) -> Result<V> {
        if let Some(v) = self.ctx.lookup_scoped(scope, n)? {
            return Ok(V::from_value(v));
        }
        // C++: `ns::var`, `Class::static_member`, `ns::Enum::A`, or a type (`ns::Class`).
        if !scope.contains('.') {
            let full = format!("{scope}::{n}");
            if let Some(v) = self.ctx.lookup_variable(&full)? {
                return Ok(V::from_value(v));
            }
            if let Some(t) = self.ctx.lookup_type(&full) {
                if self.side {
                    return Err(user("Attempt to use a type name as an expression"));
                }
                return Ok(V::of_type(t));
            }
        }
        // A static member only declared, with its value (`static const int version = 2;`).
        if !scope.contains('.')
            && let Some(t) = self.ctx.lookup_type(scope)
            && let Some(v) = static_const_member(&t, n)
        {
            return Ok(V::from_value(v));
        }
        if scope.contains('.') || self.ctx.lookup_variable(scope)?.is_some() {
            Err(user(format!("No symbol \"{n}\" in specified context.")))
        } else if self.ctx.is_namespace(scope) {
            Err(user(format!("No symbol \"{n}\" in namespace \"{scope}\".")))
        } else {
            Err(user(format!("No symbol \"{scope}\" in current context.")))
        }
    }

    fn dollar(&self, d: &Dollar) -> Result<V> {
        match d {
            Dollar::History(h) => Ok(V::from_value(self.ctx.history(*h)?)),
            Dollar::Var(n) => {
                if let Some(v) = self.ctx.register(n)? {
                    return Ok(V::from_value(v));
                }
                self.ctx.touch_convenience(n);
                Ok(match self.ctx.convenience(n)? {
                    Some(v) => V::from_value(v),
                    None if internal::INTERNAL_FUNCTIONS.contains(&n.as_str()) => {
                        V::new(internal::internal_function_type(), n.as_bytes().to_vec())
                    }
                    None => V::new(builtins().void.clone(), Vec::new()),
                })
            }
        }
    }

    /// gdb's `value_addr` of a class operand before it looks for its operator (`this`):
    /// a value not in the program's memory (one in registers) has none.
    fn operand_address(&self, v: &V) -> Result<()> {
        if !matches!(v.lval, Lval::Memory(_)) && !v.temporary {
            return Err(user(
                "Attempt to take address of value not located in memory.",
            ));
        }
        Ok(())
    }

    /// gdb's words for a unary operator on a class value that defines none: C++ looks for
    /// a function `operatorOP` (cohort calls none), C for a member of that name.
    fn no_unary_operator(&self, v: &V, op: &str) -> DwarfError {
        if self.ctx.language() == crate::format::Language::Cplus {
            // gdb takes the operand's address first (`this` of a member operator).
            if !matches!(v.lval, Lval::Memory(_)) && !v.temporary {
                return user("Attempt to take address of value not located in memory.");
            }
            user(format!("No symbol \"operator{op}\" in current context."))
        } else {
            user(format!("Structure has no component named operator{op}."))
        }
    }

    pub fn resolve(&self, t: &TypeName) -> Result<TypeRef> {
        resolve_type(t, self.ctx)
    }

    /// A truth value for `&&`, `||`, `?:`, `!` and conditions.
    fn truth(&self, v: V, op: &str) -> Result<bool> {
        let mut v = self.coerce_ref(v)?;
        match classify(&v.ty) {
            Cls::Agg => Err(self.no_unary_operator(&v, op)),
            Cls::Float(_) => Ok(!self.float_of(&mut v)?.is_zero()),
            _ => Ok(self.bytes(&mut v)?.iter().any(|&b| b != 0)),
        }
    }

    /// Arrays (in memory) and functions become pointers, as C operands do.
    fn decay(&self, v: V) -> Result<V> {
        match classify(&v.ty) {
            Cls::Array(elem) => match v.lval {
                Lval::Memory(a) => Ok(self.pointer(elem, a)),
                Lval::None if !v.optimized_out && !vector::is_vector(&v.ty) => {
                    let a = self.coerce_to_target(v)?;
                    Ok(self.pointer(elem, a))
                }
                _ => Err(user(
                    "Attempt to take address of value not located in memory.",
                )),
            },
            Cls::Func => match v.lval {
                Lval::Memory(a) => Ok(self.pointer(v.ty.clone(), a)),
                _ => Ok(v),
            },
            _ => Ok(v),
        }
    }

    /// An array value kept nowhere in the program (a string literal, `{1, 2}`) as the same
    /// array in the program's memory (gdb's `value_coerce_to_target`); other values as they are.
    pub(super) fn coerce_array_to_target(&self, v: V) -> Result<V> {
        if matches!(v.lval, Lval::None)
            && !v.is_type
            && !v.optimized_out
            && matches!(classify(&v.ty), Cls::Array(_))
            && !vector::is_vector(&v.ty)
        {
            let ty = v.ty.clone();
            let a = self.coerce_to_target(v)?;
            return Ok(V::lazy_at(ty, a));
        }
        Ok(v)
    }

    fn unary(&self, op: UnOp, x: &Expr) -> Result<V> {
        match op {
            UnOp::Addr => {
                let v = self.coerce_array_to_target(self.eval(x)?)?;
                // `&r` takes the reference's target without gdb's RTTI look-up.
                let v = match &v.ty.strip().kind {
                    TypeKind::Reference(t) | TypeKind::RvalueReference(t) if !v.is_type => {
                        let target = t.get().clone();
                        let mut r = v;
                        let a = self.int_of(&mut r)? as u64;
                        V::lazy_at(target, a)
                    }
                    _ => v,
                };
                if v.is_type {
                    return Err(user(
                        "Attempt to take address of value not located in memory.",
                    ));
                }
                match v.lval {
                    Lval::Memory(a) => Ok(self.pointer(v.ty.clone(), a)),
                    Lval::Bitfield { addr, .. } => Ok(self.pointer(v.ty.clone(), addr)),
                    _ => Err(user(
                        "Attempt to take address of value not located in memory.",
                    )),
                }
            }
            UnOp::Deref => {
                let v = self.coerce_ref(self.eval(x)?)?;
                self.deref(v)
            }
            UnOp::Neg | UnOp::Plus | UnOp::Compl => {
                let mut v = self.coerce_ref(self.eval(x)?)?;
                let (name, sym) = match op {
                    UnOp::Neg => ("negate", "-"),
                    UnOp::Plus => ("positive", "+"),
                    _ => ("complement", "~"),
                };
                if vector::is_vector(&v.ty) {
                    return self.vector_unary(op, v);
                }
                match classify(&v.ty) {
                    Cls::Int { size, signed } => {
                        // gdb does not promote a flags type as wide as `int` (`-$mxcsr`
                        // is an `i386_mxcsr`).
                        let (ty, s) = if is_flags(&v.ty) {
                            (v.ty.clone(), size)
                        } else {
                            promote_one(size, signed)
                        };
                        let i = wrap(self.int_of(&mut v)?, size, signed);
                        let r = match op {
                            UnOp::Neg => i.wrapping_neg(),
                            UnOp::Plus => i,
                            _ => !i,
                        };
                        Ok(self.int_value(&ty, wrap(r, s, true)))
                    }
                    Cls::Float(_) if op != UnOp::Compl => {
                        let f = self.float_of(&mut v)?;
                        // gdb negates as `0 - x`: `-0.0` is 0 and a NaN keeps its sign.
                        let r = if op == UnOp::Neg {
                            arith(FloatOp::Sub, Quad::ZERO, f, float_kind(&v.ty))
                        } else {
                            f
                        };
                        Ok(V::new(v.ty.clone(), float_bytes(r, &v.ty)))
                    }
                    Cls::Agg => Err(self.no_unary_operator(&v, sym)),
                    _ if op == UnOp::Compl => Err(user(
                        "Argument to complement operation not an integer, boolean.",
                    )),
                    _ => Err(user(format!("Argument to {name} operation not a number."))),
                }
            }
            UnOp::Not => {
                let v = self.eval(x)?;
                let t = self.truth(v, "!")?;
                Ok(self.truth_value(!t))
            }
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let place = self.place(x)?;
                let mut old = self.place_value(&place)?;
                if !old.optimized_out {
                    self.fetch(&mut old)?;
                }
                let bin = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let new = self.binop(bin, old.clone(), self.int(1))?;
                let stored = self.store(place, new)?;
                if matches!(op, UnOp::PostInc | UnOp::PostDec) {
                    old.lval = Lval::None;
                    Ok(old)
                } else {
                    Ok(stored)
                }
            }
        }
    }

    /// libstdc++'s xmethods for `std::unique_ptr` and `std::shared_ptr`: the stored
    /// pointer (for `*p` and `p->x`); `None` for any other value.
    fn smart_pointee(&self, v: &mut V) -> Result<Option<V>> {
        let Some((off, pty)) = crate::format::smart_pointer(&v.ty) else {
            return Ok(None);
        };
        xmethod_this(v)?;
        let mut ptr = self.component(v, off as i64, pty)?;
        self.fetch(&mut ptr)?;
        Ok(Some(ptr))
    }

    fn deref(&self, mut v: V) -> Result<V> {
        if matches!(classify(&v.ty), Cls::Agg)
            && let Some(p) = self.smart_pointee(&mut v)?
        {
            return self.deref(p);
        }
        match classify(&v.ty) {
            Cls::Ptr(target) => {
                if matches!(target.strip().kind, TypeKind::Void) {
                    return Err(user("Attempt to take contents of a non-pointer value."));
                }
                // `whatis *p` needs only the type: an optimized-out pointer will do.
                let a = if !self.side && v.optimized_out {
                    0
                } else {
                    self.int_of(&mut v)? as u64
                };
                let target = if has_dynamic_bound(&target) {
                    self.ctx.resolve_dynamic(&target).unwrap_or(target)
                } else {
                    target
                };
                self.full_object(&target, a);
                Ok(V::lazy_at(target, a))
            }
            Cls::Array(elem) => match v.lval {
                Lval::Memory(a) if v.lazy => Ok(V::lazy_at(elem, a)),
                // gdb's `coerce_array`: an array kept nowhere goes to the program's memory
                // first (`*"abc"`).
                Lval::None if !v.optimized_out && !v.is_type && !vector::is_vector(&v.ty) => {
                    let a = self.coerce_to_target(v)?;
                    Ok(V::lazy_at(elem, a))
                }
                _ => self.index(v, self.int(0)),
            },
            Cls::Func => Ok(v),
            Cls::Int { .. } => {
                let a = self.int_of(&mut v)? as u64;
                Ok(V::lazy_at(builtins().int.clone(), a))
            }
            // A class's own `operator*` (an iterator's), called as gdb's `value_x_unop` does.
            Cls::Agg if self.ctx.language() == crate::format::Language::Cplus => {
                self.operand_address(&v)?;
                let mut callees = self.method_candidates(&v, "operator*")?;
                callees.retain(|c| !c.inlined);
                if callees.is_empty() {
                    // Declared, but with no code in the program (never used there).
                    let declared =
                        v.ty.strip()
                            .cxx
                            .as_deref()
                            .is_some_and(|c| c.methods.iter().any(|m| m.name == "operator*"));
                    if declared {
                        return Err(user("Could not find operator*."));
                    }
                    return Err(self.no_unary_operator(&v, "*"));
                }
                self.call_values(callees, Vec::new(), None)
            }
            Cls::Agg => Err(self.no_unary_operator(&v, "*")),
            _ => Err(user("Attempt to take contents of a non-pointer value.")),
        }
    }

    /// A part of `v` of type `ty` at `offset` bytes: lazy when `v` is, a slice otherwise.
    fn component(&self, v: &V, offset: i64, ty: TypeRef) -> Result<V> {
        let size = ty.byte_size();
        let lval = match &v.lval {
            Lval::Memory(a) => Lval::Memory(a.wrapping_add(offset as u64)),
            l if offset >= 0 => l.part(offset as u64, size),
            _ => Lval::None,
        };
        if v.optimized_out {
            let mut o = V::new(ty, Vec::new());
            o.optimized_out = true;
            o.lval = lval;
            return Ok(o);
        }
        let end = offset.checked_add(size as i64);
        let inside = offset >= 0 && end.is_some_and(|e| e as usize <= v.bytes.len());
        if !v.lazy && inside {
            let lost = crate::value::bits_lost_in(&v.lost_bits, offset as u64, size);
            // A part wholly in bits the compiler did not keep is optimized out.
            if lost.iter().map(|r| r.end - r.start).sum::<u64>() >= size * 8 && size > 0 {
                let mut o = V::new(ty, Vec::new());
                o.optimized_out = true;
                return Ok(o);
            }
            let bytes = v.bytes[offset as usize..offset as usize + size as usize].to_vec();
            let mut out = V::new(ty, bytes);
            out.lval = lval;
            out.lost_bits = lost;
            out.temporary = v.temporary;
            return Ok(out);
        }
        match lval {
            Lval::Memory(a) => Ok(V::lazy_at(ty, a)),
            _ if !self.side => Ok(V::new(ty, vec![0; size as usize])),
            _ => Err(user("no such vector element")),
        }
    }

    /// libstdc++'s `std::vector` as its xmethods see it: the element type and the first
    /// and past-the-end addresses; `None` for any other value.
    fn std_vector(&self, v: &mut V) -> Result<Option<(TypeRef, u64, u64)>> {
        if !self.std_vector_type(&v.ty) {
            return Ok(None);
        }
        xmethod_this(v)?;
        let ty = v.ty.strip();
        let bytes = self.bytes(v)?;
        Ok(crate::format::vector_parts(&ty, bytes, self.ptr_size())
            .map(|(elem, [start, finish, _])| (elem, start, finish)))
    }

    /// Whether `ty` is a libstdc++ `std::vector` (its xmethods apply).
    fn std_vector_type(&self, ty: &TypeRef) -> bool {
        crate::format::has_printer(ty)
            && ty
                .strip()
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with("std::vector<"))
    }

    /// A `std::vector` xmethod (`v.size()`, `v.empty()`, `v.front()`, `v.back()`,
    /// `v.at(i)`); `None` when `obj` is not a vector or `method` is not one of them.
    fn vector_method(&self, obj: V, method: &str, args: &[Expr]) -> Result<Option<V>> {
        let mut obj = self.coerce_ref(obj)?;
        let Some((elem, start, finish)) = self.std_vector(&mut obj)? else {
            return Ok(None);
        };
        let esize = elem.byte_size().max(1);
        let len = finish.wrapping_sub(start) / esize;
        Ok(match (method, args) {
            ("size", []) => Some(self.int_value(&builtins().ulong, len as i128)),
            ("empty", []) => Some(self.truth_value(len == 0)),
            ("front", []) => Some(V::lazy_at(elem, start)),
            ("back", []) => Some(V::lazy_at(elem, finish.wrapping_sub(esize))),
            ("at", [i]) => {
                let mut iv = self.coerce_ref(self.eval(i)?)?;
                let n = self.int_of(&mut iv)?;
                if self.side && (n < 0 || n as u64 >= len) {
                    // gdb's words: the libstdc++ xmethod's exception.
                    return Err(user(format!(
                        "Python Exception <class 'IndexError'>: Vector index \"{n}\" should not be >= {len}.\nError while executing Python code."
                    )));
                }
                Some(V::lazy_at(
                    elem,
                    start.wrapping_add((n as u64).wrapping_mul(esize)),
                ))
            }
            _ => None,
        })
    }

    fn index(&self, a: V, i: V) -> Result<V> {
        // libstdc++'s xmethod for `std::vector::operator[]`.
        let mut a = a;
        if matches!(classify(&a.ty), Cls::Agg)
            && let Some((elem, start, _)) = self.std_vector(&mut a)?
        {
            let mut i = i;
            let n = self.int_of(&mut i)? as i64;
            let esize = elem.byte_size() as i64;
            return Ok(V::lazy_at(
                elem,
                start.wrapping_add(n.wrapping_mul(esize) as u64),
            ));
        }
        // libstdc++'s xmethods for `std::vector<bool>` (a bit as a `bool`) and `std::array`.
        if matches!(classify(&a.ty), Cls::Agg) {
            let ty = a.ty.strip();
            let name = ty.name.as_deref().unwrap_or("");
            if name.starts_with("std::vector<bool,") && crate::format::has_printer(&ty) {
                xmethod_this(&a)?;
                let bytes = self.bytes(&mut a)?;
                if let Some(bv) = crate::format::bit_vector(&ty, bytes, self.ptr_size()) {
                    let mut i = i;
                    let n = self.int_of(&mut i)? as u64;
                    let (addr, size, shift) = bv.locate(n);
                    let mut b = [0u8; 8];
                    self.ctx.read_memory(addr, &mut b[..size as usize])?;
                    return Ok(self.truth_value(u64::from_le_bytes(b) >> shift & 1 == 1));
                }
            }
            if name.starts_with("std::array<")
                && let TypeKind::Aggregate { members, .. } = &ty.kind
                && let Some(m) = members
                    .iter()
                    .find(|m| !m.is_static && m.name.as_deref() == Some("_M_elems"))
                && let TypeKind::Array { element, .. } = &m.ty.get().strip().kind
            {
                xmethod_this(&a)?;
                let mut i = i;
                let n = self.int_of(&mut i)? as i64;
                let esize = element.byte_size() as i64;
                let off = (m.offset as i64).wrapping_add(n.wrapping_mul(esize));
                return self.component(&a, off, element.clone());
            }
        }
        // A C++ class: its user-defined operator[] (a call).
        if matches!(classify(&a.ty), Cls::Agg)
            && self.ctx.language() == crate::format::Language::Cplus
        {
            return self.user_operator("[]", a, i);
        }
        if !matches!(classify(&a.ty), Cls::Array(_) | Cls::Ptr(_)) {
            return Err(user(format!(
                "cannot subscript something of type `{}'",
                type_name(&a.ty)
            )));
        }
        let mut i = i;
        let idx = match classify(&i.ty) {
            Cls::Int { .. } => self.int_of(&mut i)? as i64,
            _ => {
                return Err(user(
                    "Argument to arithmetic operation not a number or boolean.",
                ));
            }
        };
        match classify(&a.ty) {
            Cls::Array(elem) => {
                let esize = elem.byte_size() as i64;
                self.component(&a, idx.wrapping_mul(esize), elem)
            }
            Cls::Ptr(target) => {
                let mut a = a;
                let base = self.int_of(&mut a)? as u64;
                let esize = pointer_math_size(&target)? as i64;
                Ok(V::lazy_at(
                    target,
                    base.wrapping_add(idx.wrapping_mul(esize) as u64),
                ))
            }
            _ => Err(user(format!(
                "cannot subscript something of type `{}'",
                type_name(&a.ty)
            ))),
        }
    }

    fn member(&self, v: V, name: &str, arrow: bool) -> Result<V> {
        let mut v = v;
        if arrow
            && matches!(classify(&v.ty), Cls::Agg)
            && let Some(p) = self.smart_pointee(&mut v)?
        {
            v = p;
        }
        // gdb's `STRUCTOP_PTR` on a class with an `operator->` of its own (an iterator's):
        // its result, as long as that is such a class again; one declared without code is
        // `Could not find operator->.`; a class without one has its own member taken.
        let mut hops = 0;
        while arrow
            && hops < 8
            && matches!(classify(&v.ty), Cls::Agg)
            && self.ctx.language() == crate::format::Language::Cplus
        {
            self.operand_address(&v)?;
            let callees = self.method_candidates(&v, "operator->")?;
            if callees.is_empty() {
                break;
            }
            let callees: Vec<Callee> = callees.into_iter().filter(|c| !c.inlined).collect();
            if callees.is_empty() {
                return Err(user("Could not find operator->."));
            }
            v = self.coerce_ref(self.call_values(callees, Vec::new(), None)?)?;
            hops += 1;
        }
        let v = match classify(&v.ty) {
            Cls::Ptr(target) if matches!(target.strip().kind, TypeKind::Aggregate { .. }) => {
                // `set print object on`: the member of the object's dynamic class.
                let mut p = v;
                let a = self.int_of(&mut p)? as u64;
                match self.ctx.dynamic_object(a) {
                    Some((dy, full)) if a != 0 => V::lazy_at(dy, full),
                    _ => self.deref(p)?,
                }
            }
            Cls::Agg => v,
            _ => {
                return Err(user(if arrow {
                    "Attempt to extract a component of a value that is not a structure pointer."
                } else {
                    "Attempt to extract a component of a value that is not a structure."
                }));
            }
        };
        let ty = v.ty.strip();
        let obj = v.address();
        // `d.Base::x`: the member `x` of base class `Base` (a shadowed member).
        let (ty, start, name) = match crate::index::unqualified(name) {
            Some(m) => {
                let qual = &name[..name.len() - m.len() - 2];
                let named = |t: &TypeRef| type_is_named(t, qual);
                match self.find_base(&ty, &named, 0, obj) {
                    Some((off, bty)) => (bty, off, m),
                    None => {
                        return Err(user(format!("There is no field named {}", m)));
                    }
                }
            }
            None => (ty, 0, name),
        };
        match self.find_member(&ty, name, start, obj) {
            Some((offset, mty, bitfield)) => match bitfield {
                None => self.component(&v, offset, mty),
                Some(bf) => self.bitfield(&v, bf.bit_offset, bf.bit_size, mty),
            },
            // A member function as a value (`ptype obj.method`): its type with `this`
            // first, at its code.
            None if let Some(m) = ty
                .cxx
                .as_ref()
                .and_then(|c| c.methods.iter().find(|m| m.name == name)) =>
            {
                self.method_value(&ty, m)
            }
            // A static data member through an object (`obj.count`): the variable of its
            // class (`T::count`), or its declared value (`static const int n = 16;`).
            None if let Some(class) = static_member_class(&ty, name) => {
                if let Some(v) = self.ctx.lookup_variable(&format!("{class}::{name}"))? {
                    return Ok(V::from_value(v));
                }
                match self
                    .ctx
                    .lookup_type(&class)
                    .and_then(|t| static_const_member(&t, name))
                {
                    Some(v) => Ok(V::from_value(v)),
                    None => Err(user(format!(
                        "field {name} is nonexistent or has been optimized out"
                    ))),
                }
            }
            // gdb's words for a class with member functions.
            None if ty.cxx.as_ref().is_some_and(|c| !c.methods.is_empty()) => {
                Err(user(format!("There is no member or method named {name}.")))
            }
            None => Err(user(format!("There is no member named {name}."))),
        }
    }

    /// The address of the virtual base (location expression `expr`) of the object at `obj`,
    /// read through its vtable; without side effects, the object itself.
    fn virtual_base(&self, expr: &[u8], obj: u64) -> Option<u64> {
        if !self.side {
            return Some(obj);
        }
        let n = self.ptr_size() as usize;
        crate::types::virtual_base_address(expr, obj, &mut |a| {
            let mut b = [0u8; 8];
            self.ctx.read_memory(a, &mut b[..n.min(8)]).ok()?;
            Some(u64::from_le_bytes(b))
        })
    }

    /// Offset of base class `m` (member `index` of `ty`) of the object at `base` bytes from
    /// the value's start (whose address is `obj`): its data member location, or for a
    /// virtual base where the vtable says.
    fn base_member_offset(
        &self,
        ty: &TypeRef,
        index: usize,
        m: &crate::types::Member,
        base: i64,
        obj: Option<u64>,
    ) -> Option<i64> {
        match ty.cxx.as_deref().and_then(|c| c.virtual_base(index)) {
            Some(expr) => {
                let at = obj?.wrapping_add(base as u64);
                let b = self.virtual_base(expr, at)?;
                Some(base.wrapping_add(b.wrapping_sub(at) as i64))
            }
            None => Some(base + m.offset as i64),
        }
    }

    /// gdb's `search_struct_field`: a member by name, the class's own members (and those of
    /// its anonymous structs and unions) before those of its base classes. Its byte offset
    /// from the start of the value, its type and its bitfield (bit offset from the start of
    /// the value).
    fn find_member(
        &self,
        ty: &TypeRef,
        name: &str,
        base: i64,
        obj: Option<u64>,
    ) -> Option<(i64, TypeRef, Option<crate::types::Bitfield>)> {
        let TypeKind::Aggregate { members, .. } = &ty.kind else {
            return None;
        };
        for m in members {
            if m.is_static || m.is_base {
                continue;
            }
            match &m.name {
                Some(n) if n == name => {
                    let bf = m.bitfield.map(|b| crate::types::Bitfield {
                        bit_offset: (b.bit_offset as i64 + 8 * base) as u64,
                        bit_size: b.bit_size,
                    });
                    return Some((base + m.offset as i64, m.ty.get().clone(), bf));
                }
                None => {
                    let inner = m.ty.get().strip();
                    if let Some(found) = self.find_member(&inner, name, base + m.offset as i64, obj)
                    {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        for (i, m) in members.iter().enumerate() {
            if !m.is_base {
                continue;
            }
            let Some(off) = self.base_member_offset(ty, i, m, base, obj) else {
                continue;
            };
            let inner = m.ty.get().strip();
            if let Some(found) = self.find_member(&inner, name, off, obj) {
                return Some(found);
            }
        }
        None
    }

    /// The first base class of `ty` (depth first, in declaration order; `ty` itself first)
    /// that `want` accepts: its offset from the start of the value and its type.
    fn find_base(
        &self,
        ty: &TypeRef,
        want: &dyn Fn(&TypeRef) -> bool,
        base: i64,
        obj: Option<u64>,
    ) -> Option<(i64, TypeRef)> {
        if want(ty) {
            return Some((base, ty.clone()));
        }
        let TypeKind::Aggregate { members, .. } = &ty.kind else {
            return None;
        };
        for (i, m) in members.iter().enumerate() {
            if !m.is_base {
                continue;
            }
            let Some(off) = self.base_member_offset(ty, i, m, base, obj) else {
                continue;
            };
            let inner = m.ty.get().strip();
            if let Some(found) = self.find_base(&inner, want, off, obj) {
                return Some(found);
            }
        }
        None
    }

    /// The offset of class `to` inside class `from` (an upcast, positive) or of `from`
    /// inside `to` (a downcast, negative; not through a virtual base), for C++ casts
    /// between classes related by inheritance. `obj`: the address of the `from` object.
    fn class_cast_offset(&self, from: &TypeRef, to: &TypeRef, obj: Option<u64>) -> Option<i64> {
        let (from, to) = (from.strip(), to.strip());
        if !matches!(from.kind, TypeKind::Aggregate { .. })
            || !matches!(to.kind, TypeKind::Aggregate { .. })
            || same_type(&from, &to)
        {
            return None;
        }
        if let Some((off, _)) = self.find_base(&from, &|t| same_type(t, &to), 0, obj) {
            return Some(off);
        }
        self.find_base(&to, &|t| same_type(t, &from), 0, None)
            .map(|(off, _)| -off)
    }

    /// A bitfield of `bit_size` bits at `bit_offset` bits from the start of `v`.
    fn bitfield(&self, v: &V, bit_offset: u64, bit_size: u64, ty: TypeRef) -> Result<V> {
        let first = bit_offset / 8;
        let shift = bit_offset % 8;
        let nbytes = (shift + bit_size).div_ceil(8) as usize;
        let lval = match v.lval {
            Lval::Memory(a) => Lval::Bitfield {
                addr: a + first,
                bit_offset: shift,
                bit_size,
            },
            _ => Lval::None,
        };
        let lost = v
            .lost_bits
            .iter()
            .any(|r| r.start < bit_offset + bit_size && bit_offset < r.end);
        if v.optimized_out || lost {
            let mut o = V::new(ty, Vec::new());
            o.optimized_out = true;
            return Ok(o);
        }
        let mut raw = vec![0u8; nbytes];
        if v.lazy {
            if self.side
                && let Lval::Memory(a) = v.lval
            {
                self.ctx.read_memory(a + first, &mut raw)?;
            }
        } else if let Some(src) = v.bytes.get(first as usize..first as usize + nbytes) {
            raw.copy_from_slice(src);
        }
        let signed = matches!(classify(&ty), Cls::Int { signed: true, .. });
        let x = (le_int(&raw, false) as u128 >> shift) as i128;
        let val = bits_extend(x, bit_size, signed);
        let mut out = self.int_value(&ty, val);
        out.lval = lval;
        Ok(out)
    }

    fn at(&self, l: &Expr, r: &Expr) -> Result<V> {
        let left = self.coerce_ref(self.eval(l)?)?;
        let mut rv = self.coerce_ref(self.eval(r)?)?;
        let n = match classify(&rv.ty) {
            Cls::Int { .. } => self.int_of(&mut rv)?,
            _ => {
                return Err(user(
                    "Argument to arithmetic operation not a number or boolean.",
                ));
            }
        };
        if self.side {
            if n <= 0 {
                return Err(user(format!("Invalid number {n} of repetitions.")));
            }
            if left.address().is_none() {
                return Err(user("Only values in memory can be extended with '@'."));
            }
        }
        let ty = Type::array_of(left.ty.clone(), n.max(0) as u64);
        Ok(V::lazy_at(ty, left.address().unwrap_or(0)))
    }

    fn call(&self, f: &Expr, args: &[Expr]) -> Result<V> {
        self.call_as(f, args, None)
    }

    /// A function call; `cast` is the type a cast around the call gives (gdb's way of
    /// calling a function whose return type is unknown: `(int) strlen("x")`).
    fn call_as(&self, f: &Expr, args: &[Expr], cast: Option<&TypeRef>) -> Result<V> {
        if let Expr::Dollar(Dollar::Var(n)) = f
            && let Some(v) = self.internal_call(n, args)?
        {
            return Ok(v);
        }
        let mut callees = Vec::new();
        if let Expr::Member(x, m, arrow) = f {
            let mut obj = self.coerce_ref(self.eval(x)?)?;
            if *arrow {
                match classify(&obj.ty) {
                    Cls::Agg => {
                        if let Some(p) = self.smart_pointee(&mut obj)? {
                            obj = self.deref(p)?;
                        }
                    }
                    Cls::Ptr(_) => obj = self.deref(obj)?,
                    _ => {}
                }
            }
            // gdb takes the object's address for a method call (`evaluate_for_address`,
            // `address_of_variable`): a variable of class type kept nowhere in memory
            // stops it with these words.
            if let (Expr::Name(n), false, true) = (&**x, *arrow, self.side)
                && matches!(classify(&obj.ty), Cls::Agg)
            {
                match &obj.lval {
                    Lval::Memory(_) | Lval::Bitfield { .. } => {}
                    Lval::Register(r) if !obj.optimized_out => {
                        let reg = self.ctx.register_name(*r).unwrap_or_else(|| r.to_string());
                        return Err(user(format!(
                            "Address requested for identifier \"{n}\" which is in register ${reg}"
                        )));
                    }
                    _ => {
                        return Err(user(format!(
                            "Can't take address of \"{n}\" which isn't an lvalue."
                        )));
                    }
                }
            }
            if let Some(v) = self.vector_method(obj.clone(), m, args)? {
                return Ok(v);
            }
            // libstdc++'s xmethod `get()` of `std::unique_ptr` and `std::shared_ptr` (no
            // call: the stored pointer, even where `get` was inlined everywhere).
            if m == "get" && args.is_empty() {
                let mut o = self.coerce_ref(obj.clone())?;
                if matches!(classify(&o.ty), Cls::Agg)
                    && let Some(p) = self.smart_pointee(&mut o)?
                {
                    return Ok(p);
                }
            }
            callees = self.method_candidates(&obj, m)?;
            // gdb's `find_overload_match`: a C++ class with neither a data member (a function
            // pointer, say) nor a method of that name (an incomplete class has neither).
            let st = obj.ty.strip();
            if callees.is_empty()
                && !m.contains("::")
                && self.ctx.language() == crate::format::Language::Cplus
                && let TypeKind::Aggregate { members, .. } = &st.kind
                && !members
                    .iter()
                    .any(|f| f.is_static && f.name.as_deref() == Some(m.as_str()))
                && self.find_member(&st, m, 0, None).is_none()
            {
                let mut t = obj.ty.clone();
                while t.name.is_none()
                    && let TypeKind::Const(n) | TypeKind::Volatile(n) = &t.kind
                {
                    let n = n.get().clone();
                    t = n;
                }
                return Err(user(match &t.name {
                    Some(tn) => format!("Couldn't find method {tn}::{m}"),
                    None => format!("Couldn't find method {m}"),
                }));
            }
        }
        // `(item_t)(x)` parsed without knowing `item_t`: a cast after all.
        if let (Expr::Name(n), [arg]) = (f, args)
            && self.ctx.lookup_variable(n)?.is_none()
            && let Some(ty) = self.ctx.lookup_type(n)
        {
            let v = self.eval(arg)?;
            return self.cast(v, &ty);
        }
        // Overloads of a named function.
        let named = match f {
            Expr::Name(n) => Some(n.clone()),
            Expr::Scoped(sc, n) if !sc.contains('.') => Some(format!("{sc}::{n}")),
            _ => None,
        };
        if callees.is_empty()
            && let Some(n) = &named
            && self
                .ctx
                .lookup_variable(n)
                .ok()
                .flatten()
                .is_none_or(|v| matches!(v.ty.strip().kind, TypeKind::Function { .. }))
        {
            let fns = self.ctx.lookup_functions(n)?;
            if fns.len() > 1 {
                callees = fns
                    .into_iter()
                    .map(|v| Callee {
                        f: V::from_value(v),
                        this: None,
                        name: n.clone(),
                        inlined: false,
                    })
                    .collect();
            }
        }
        // `Class::method(...)`: a static member function (or one declared without code).
        if callees.is_empty()
            && let Expr::Scoped(sc, n) = f
            && !sc.contains('.')
            && let Some(t) = self.ctx.lookup_type(sc)
        {
            self.methods_into(&t, None, 0, n, &mut callees, 0)?;
            if callees.iter().all(|c| c.inlined) && !callees.is_empty() && self.side {
                return Err(user("Cannot evaluate function -- may be inlined"));
            }
            if callees.iter().any(|c| c.this.is_some()) {
                callees.clear();
            }
        }
        if callees.is_empty() {
            let fv = self.eval(f)?;
            let name = function_name(f, &fv, self.ctx);
            callees.push(Callee {
                f: fv,
                this: None,
                name,
                inlined: false,
            });
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.eval(a)?);
        }
        self.call_values(callees, values, cast)
    }

    /// Call the best of `callees` (overload resolution) with `values`.
    fn call_values(
        &self,
        callees: Vec<Callee>,
        values: Vec<V>,
        cast: Option<&TypeRef>,
    ) -> Result<V> {
        let callee = if callees.len() == 1 {
            callees.into_iter().next()
        } else {
            let mut ranked: Vec<(u32, Callee)> = callees
                .into_iter()
                .filter_map(|c| Some((self.rank(&c.f.ty, &values)?, c)))
                .collect();
            ranked.sort_by_key(|r| r.0);
            ranked.into_iter().next().map(|r| r.1)
        };
        let Some(Callee {
            f: fv,
            this,
            name,
            inlined,
        }) = callee
        else {
            return Err(user("Cannot resolve function to any overloaded instance"));
        };
        // An integer is an address to call (gdb's `find_function_addr`), of a function whose
        // return type is not known. gdb 13 names it `at 0x0x1` (its format's `0x` before
        // `hex_string`'s): cohort writes the address once.
        if let (Cls::Int { .. }, None, true) = (classify(&fv.ty), cast, self.side) {
            let mut fv = fv;
            let addr = self.int_of(&mut fv)? as u64;
            let name = match self.ctx.symbol_for(addr) {
                Some(s) => s.split('+').next().unwrap_or(&s).to_string(),
                None => format!("at {addr:#x}"),
            };
            return Err(user(format!(
                "'{name}' has unknown return type; cast the call to its declared return type"
            )));
        }
        let fty = match classify(&fv.ty) {
            Cls::Func => fv.ty.strip(),
            Cls::Ptr(t) if matches!(t.strip().kind, TypeKind::Function { .. }) => t.strip(),
            _ => {
                return Err(user(
                    "Expression of type other than \"Function returning ...\" used as function",
                ));
            }
        };
        let TypeKind::Function {
            ret,
            params,
            varargs,
            prototyped,
        } = &fty.kind
        else {
            return Err(user("Invalid data type for function to be called."));
        };
        let mut ret = match ret {
            Some(r) => r.get().clone(),
            None => builtins().void.clone(),
        };
        if ret.name.as_deref() == Some("<unknown return type>") {
            match cast {
                Some(t) => ret = t.clone(),
                None => {
                    return Err(user(format!(
                        "'{name}' has unknown return type; cast the call to its declared \
                         return type"
                    )));
                }
            }
        }
        // A method without code of its own has no value to call, even for `whatis`
        // (gdb's `value_fn_field` finds no symbol).
        if inlined && (this.is_some() || self.side) {
            return Err(user("Cannot evaluate function -- may be inlined"));
        }
        if !self.side {
            let size = ret.byte_size() as usize;
            return Ok(V::new(ret, vec![0; size]));
        }
        // The value a call returns has its type's typedefs resolved (gdb's `check_typedef`
        // in `call_function_by_hand`): `(int &) @0x…: 4` for an iterator's `reference`.
        let ret = ret.strip_typedefs();
        // gdb reads each argument first: a reference it cannot follow stops the call.
        if values
            .iter()
            .any(|v| v.optimized_out && is_reference(&v.ty))
        {
            return Err(DwarfError::OptimizedOut);
        }
        let address = match classify(&fv.ty) {
            Cls::Ptr(_) => {
                let mut p = fv.clone();
                self.int_of(&mut p)? as u64
            }
            _ => fv
                .address()
                .ok_or_else(|| user("Invalid data type for function to be called."))?,
        };
        let params: Vec<TypeRef> = params.iter().map(|p| p.get().clone()).collect();
        if values.len() < params.len() {
            return Err(user("Too few arguments in function call."));
        }
        let mut call_args = Vec::with_capacity(values.len() + 1);
        if let Some(mut t) = this {
            let ty = t.ty.clone();
            let bytes = self.bytes(&mut t)?.to_vec();
            call_args.push((ty, bytes));
        }
        let mut clones = Vec::new();
        for (i, v) in values.into_iter().enumerate() {
            call_args.push(match params.get(i) {
                Some(p) if *prototyped || !*varargs => {
                    let a = self.argument(v, p)?;
                    if matches!(classify(p), Cls::Agg) && crate::context::pass_by_reference(p) {
                        let mut w = [0u8; 8];
                        let n = a.1.len().min(8);
                        w[..n].copy_from_slice(&a.1[..n]);
                        clones.push((p.clone(), u64::from_le_bytes(w)));
                    }
                    a
                }
                _ => self.promoted(v)?,
            });
        }
        let call = crate::context::FunctionCall {
            name,
            address,
            args: call_args,
            ret: ret.clone(),
        };
        let bytes = self.ctx.call_function(&call)?;
        self.destroy_clones(&clones)?;
        let mut out = V::new(ret, bytes);
        out.temporary = true;
        Ok(out)
    }

    /// How well `values` fit the parameters of function type `fty` (lower is better);
    /// `None` when they cannot be passed to it.
    fn rank(&self, fty: &TypeRef, values: &[V]) -> Option<u32> {
        let st = match classify(fty) {
            Cls::Ptr(t) => t.strip(),
            _ => fty.strip(),
        };
        let TypeKind::Function {
            params, varargs, ..
        } = &st.kind
        else {
            return None;
        };
        if values.len() < params.len() || (values.len() > params.len() && !varargs) {
            return None;
        }
        let mut score = 0;
        for (p, v) in params.iter().zip(values) {
            let p = p.get();
            // gdb's reference binding ranks: an rvalue reference takes no lvalue; a const
            // lvalue reference takes an rvalue at a small cost (`m["x"]` chooses
            // `operator[](key_type&&)`).
            let lvalue = matches!(v.lval, Lval::Memory(_)) && !v.temporary;
            match &p.strip().kind {
                TypeKind::RvalueReference(_) if lvalue => return None,
                TypeKind::Reference(_) if !lvalue => score += 1,
                _ => {}
            }
            let p = match &p.strip().kind {
                TypeKind::Reference(t) | TypeKind::RvalueReference(t) => t.get().clone(),
                _ => p.clone(),
            };
            let a = match &v.ty.strip().kind {
                TypeKind::Reference(t) | TypeKind::RvalueReference(t) => t.get().clone(),
                _ => v.ty.clone(),
            };
            score += if same_type(&p, &a) {
                0
            } else {
                match (classify(&p), classify(&a)) {
                    (Cls::Int { .. }, Cls::Int { .. }) | (Cls::Float(_), Cls::Float(_)) => 1,
                    (Cls::Int { .. } | Cls::Float(_), Cls::Int { .. } | Cls::Float(_)) => 2,
                    (Cls::Ptr(_), Cls::Ptr(_) | Cls::Array(_)) => 2,
                    // gdb's pointer-to-integer conversion rank (`m["x"]` of a map keyed
                    // by `int`).
                    (Cls::Int { .. }, Cls::Ptr(_) | Cls::Array(_)) => 10,
                    // (gdb: a null pointer constant; other numbers fail the call.)
                    (Cls::Ptr(_), Cls::Int { .. }) => 10,
                    (Cls::Agg, Cls::Agg) if self.class_cast_offset(&a, &p, None).is_some() => 3,
                    // gdb ranks a number or a string for a class parameter as a conversion
                    // (the call then fails to convert it: `Invalid cast.`).
                    (Cls::Agg, Cls::Int { .. } | Cls::Float(_) | Cls::Array(_) | Cls::Ptr(_)) => 10,
                    _ => return None,
                }
            };
        }
        Some(score)
    }

    /// The member functions called `name` of the class of `obj` and of its base classes
    /// (the first class that has any hides its bases'), each with `this` for it.
    fn method_candidates(&self, obj: &V, name: &str) -> Result<Vec<Callee>> {
        let mut out = Vec::new();
        let mut addr = obj.address();
        // An object the program does not hold (a value a call returned) is copied to its
        // memory, for `this`.
        // (Only once a method of that name is known to exist.)
        self.methods_into(&obj.ty, addr, 0, name, &mut out, 0)?;
        if addr.is_none() && self.side && out.iter().any(|c| c.this.is_some()) {
            addr = Some(self.address_for_call(obj.clone())?);
            out.clear();
            self.methods_into(&obj.ty, addr, 0, name, &mut out, 0)?;
        }
        Ok(out)
    }

    fn methods_into(
        &self,
        ty: &TypeRef,
        obj: Option<u64>,
        offset: u64,
        name: &str,
        out: &mut Vec<Callee>,
        depth: usize,
    ) -> Result<()> {
        let st = ty.strip();
        if depth > 16 {
            return Ok(());
        }
        let TypeKind::Aggregate { members, .. } = &st.kind else {
            return Ok(());
        };
        if let Some(cxx) = &st.cxx {
            for m in cxx.methods.iter().filter(|m| m.name == name) {
                let this = if m.is_static {
                    None
                } else {
                    let pty = Type::pointer_to(st.clone(), self.ptr_size());
                    let a = match obj {
                        Some(a) => a.wrapping_add(offset),
                        None => 0,
                    };
                    Some(self.int_value(&pty, a as i128))
                };
                let fty = Type::new(
                    None,
                    1,
                    TypeKind::Function {
                        ret: m.ret.as_ref().map(|t| LazyType::ready(t.get().clone())),
                        params: m
                            .params
                            .iter()
                            .map(|t| LazyType::ready(t.get().clone()))
                            .collect(),
                        varargs: m.varargs,
                        prototyped: true,
                    },
                );
                let mut address = m
                    .linkage_name
                    .as_deref()
                    .and_then(|l| self.ctx.code_symbol(l));
                // A virtual function: the object's own, through its vtable.
                if m.is_virtual
                    && self.side
                    && let (Some(slot), Some(a)) = (m.vtable_slot, obj)
                {
                    let w = self.ptr_size();
                    let mut word = vec![0u8; w as usize];
                    self.ctx.read_memory(a.wrapping_add(offset), &mut word)?;
                    let vtable = le_int(&word, false) as u64;
                    self.ctx
                        .read_memory(vtable.wrapping_add(slot * w), &mut word)?;
                    address = Some(le_int(&word, false) as u64);
                }
                let mut f = V::new(fty, Vec::new());
                if let Some(a) = address {
                    f.lval = Lval::Memory(a);
                }
                out.push(Callee {
                    f,
                    this,
                    name: name.to_string(),
                    inlined: address.is_none(),
                });
            }
            if !out.is_empty() {
                return Ok(());
            }
        }
        for (i, m) in members.iter().enumerate() {
            if !m.is_base {
                continue;
            }
            // A virtual base is found through the vtable; cohort does not call into one.
            if st.cxx.as_ref().is_some_and(|c| c.virtual_base(i).is_some()) {
                continue;
            }
            self.methods_into(m.ty.get(), obj, offset + m.offset, name, out, depth + 1)?;
            if !out.is_empty() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// A C++ operator on class values (`a + b`, `a == b`), as gdb's `find_overload_match`
    /// resolves it: the class's members `operatorOP` (those without code too) and the
    /// functions `operatorOP` of the global namespace, of the selected function's namespaces
    /// and of the operands' classes' namespaces (argument-dependent look-up), the best fit
    /// of all. None at all: `No symbol "operatorOP" in current context.`; none that fits:
    /// `Cannot resolve function operatorOP to any overloaded instance`; a member without
    /// code: `Could not find operatorOP.`.
    fn user_operator(&self, op: &str, a: V, b: V) -> Result<V> {
        let fname = format!("operator{op}");
        let mut methods = Vec::new();
        if matches!(classify(&a.ty), Cls::Agg) {
            self.operand_address(&a)?;
            methods = self.method_candidates(&a, &fname)?;
        }
        let scopes = self.lookup_scopes(&[&a, &b]);
        let functions: Vec<Callee> = self
            .ctx
            .lookup_functions_in(&fname, &scopes)?
            .into_iter()
            .map(|v| Callee {
                f: V::from_value(v),
                this: None,
                name: fname.clone(),
                inlined: false,
            })
            .collect();
        if methods.is_empty() && functions.is_empty() {
            return Err(user(format!("No symbol \"{fname}\" in current context.")));
        }
        let one = [b.clone()];
        let pair = [a.clone(), b.clone()];
        let best = |cs: Vec<Callee>, vals: &[V]| {
            cs.into_iter()
                .filter_map(|c| Some((self.rank(&c.f.ty, vals)?, c)))
                .min_by_key(|r| r.0)
        };
        let method = best(methods, &one);
        let function = best(functions, &pair);
        match (method, function) {
            (Some((m, c)), f) if f.as_ref().is_none_or(|(f, _)| m <= *f) => {
                if c.inlined {
                    return Err(user(format!("Could not find {fname}.")));
                }
                self.call_values(vec![c], vec![b], None)
            }
            (_, Some((_, c))) => self.call_values(vec![c], vec![a, b], None),
            _ => Err(user(format!(
                "Cannot resolve function {fname} to any overloaded instance"
            ))),
        }
    }

    /// The namespaces gdb looks a C++ operator function up in: the global one, the selected
    /// function's and those enclosing it, and each operand class's (and its public bases').
    fn lookup_scopes(&self, operands: &[&V]) -> Vec<String> {
        let mut out = vec![String::new()];
        if let Ok(Some(Some(f))) = self.ctx.frame_name(0) {
            let parts = crate::demangle::split_scope(&f);
            for n in 1..parts.len() {
                out.push(parts[..n].join("::"));
            }
        }
        fn adl(ty: &TypeRef, out: &mut Vec<String>, depth: usize) {
            let mut t = ty.strip();
            while let TypeKind::Pointer(p) | TypeKind::Reference(p) | TypeKind::RvalueReference(p) =
                &t.kind
            {
                t = p.get().strip();
            }
            if let TypeKind::Array { element, .. } = &t.kind {
                t = element.strip();
            }
            if let Some(name) = t.name.as_deref() {
                let parts = crate::demangle::split_scope(name);
                if parts.len() > 1 {
                    out.push(parts[..parts.len() - 1].join("::"));
                }
            }
            if depth < 8
                && let TypeKind::Aggregate { members, .. } = &t.kind
            {
                for (i, m) in members.iter().enumerate() {
                    let public = t.cxx.as_ref().is_none_or(|c| {
                        c.base_access
                            .iter()
                            .find(|(j, _)| *j == i)
                            .is_none_or(|(_, a)| *a == crate::types::Access::Public)
                    });
                    if m.is_base && public {
                        adl(m.ty.get(), out, depth + 1);
                    }
                }
            }
        }
        for v in operands {
            adl(&v.ty, &mut out, 0);
        }
        out.sort();
        out.dedup();
        out
    }

    /// The address of `v` for a call (`this`, a reference parameter): a value not in memory
    /// is copied to the program's memory first.
    fn address_for_call(&self, mut v: V) -> Result<u64> {
        if let Some(a) = v.address() {
            return Ok(a);
        }
        // gdb's `value_addr`: only its stack temporaries (and strings and arrays, which it
        // pushes) are not in memory and still have an address.
        if v.optimized_out {
            return Err(DwarfError::OptimizedOut);
        }
        if !v.temporary && !matches!(classify(&v.ty), Cls::Array(_)) {
            return Err(user(
                "Attempt to take address of value not located in memory.",
            ));
        }
        let bytes = self.bytes(&mut v)?.to_vec();
        self.ctx.push_for_call(&bytes)
    }

    /// An argument converted to the parameter type `p` (gdb's `value_arg_coerce`).
    fn argument(&self, v: V, p: &TypeRef) -> Result<(TypeRef, Vec<u8>)> {
        if is_reference(p) {
            let v = self.coerce_ref(v)?;
            // gdb casts the argument to the referenced type first: a class from anything
            // but itself or a class derived from it is `Invalid cast.`; a number of
            // another type becomes a value without an address.
            let target = match &p.strip().kind {
                TypeKind::Reference(t) | TypeKind::RvalueReference(t) => Some(t.get().clone()),
                _ => None,
            };
            let v = match target {
                Some(t) if matches!(classify(&t), Cls::Agg) => {
                    if !matches!(classify(&v.ty), Cls::Agg)
                        || !(same_type(&t, &v.ty)
                            || self.class_cast_offset(&v.ty, &t, None).is_some())
                    {
                        return Err(user("Invalid cast."));
                    }
                    v
                }
                Some(t)
                    if matches!(classify(&t), Cls::Int { .. } | Cls::Float(_))
                        && matches!(
                            classify(&v.ty),
                            Cls::Int { .. } | Cls::Float(_) | Cls::Ptr(_) | Cls::Array(_)
                        )
                        && !same_type(&t, &v.ty) =>
                {
                    return Err(user(
                        "Attempt to take address of value not located in memory.",
                    ));
                }
                _ => v,
            };
            let a = self.address_for_call(v)?;
            return Ok((
                p.clone(),
                a.to_le_bytes()[..p.byte_size().min(8) as usize].to_vec(),
            ));
        }
        let v = self.coerce_ref(v)?;
        if matches!(classify(p), Cls::Agg) && crate::context::pass_by_reference(p) {
            return self.clone_for_call(v, p);
        }
        let v = self.decay_for_call(v)?;
        let mut c = if matches!(classify(p), Cls::Agg) && matches!(classify(&v.ty), Cls::Agg) {
            v
        } else {
            self.cast(v, p)?
        };
        let bytes = self.bytes(&mut c)?.to_vec();
        Ok((p.clone(), bytes))
    }

    /// A class argument passed by invisible reference (Itanium C++ ABI): a copy on the
    /// stack made by the class's copy constructor (a bitwise copy when it has none of its
    /// own), passed as a pointer to it, as gdb's `call_function_by_hand` does.
    fn clone_for_call(&self, mut v: V, p: &TypeRef) -> Result<(TypeRef, Vec<u8>)> {
        let st = p.strip();
        let bytes = self.bytes(&mut v)?.to_vec();
        let clone = self.ctx.push_for_call(&bytes)?;
        let short = crate::context::class_short_name(st.name.as_deref().unwrap_or(""));
        let cctor = st.cxx.as_deref().and_then(|c| {
            c.methods.iter().find(|m| {
                !m.artificial
                    && m.name == short
                    && crate::context::copy_or_move_ctor(m, short)
                    && matches!(m.params[0].get().strip().kind, TypeKind::Reference(_))
            })
        });
        let pty = Type::pointer_to(st.clone(), self.ptr_size());
        if let Some(m) = cctor {
            let address = m
                .linkage_name
                .as_deref()
                .and_then(|l| self.structor_symbol(l))
                .or_else(|| self.copy_ctor_by_name(&st, short))
                .ok_or_else(|| {
                    user(format!(
                        "expression cannot be evaluated because a copy constructor for the \
                         type '{}' could not be found (maybe inlined?)",
                        st.name.as_deref().unwrap_or("")
                    ))
                })?;
            let from = self.address_for_call(v)?;
            let w = self.ptr_size() as usize;
            let call = crate::context::FunctionCall {
                name: format!("{0}::{0}", short),
                address,
                args: vec![
                    (pty.clone(), clone.to_le_bytes()[..w].to_vec()),
                    (m.params[0].get().clone(), from.to_le_bytes()[..w].to_vec()),
                ],
                ret: builtins().void.clone(),
            };
            self.ctx.call_function(&call)?;
        }
        let w = self.ptr_size() as usize;
        Ok((pty, clone.to_le_bytes()[..w].to_vec()))
    }

    /// Member function `m` of class `class` as gdb's value of it: `{int (const Outer *
    /// const, int)} 0x… <Outer::get(int) const>`; one without code of its own cannot be
    /// had.
    fn method_value(&self, class: &TypeRef, m: &crate::types::Method) -> Result<V> {
        let address = m
            .linkage_name
            .as_deref()
            .and_then(|l| self.structor_symbol(l))
            .ok_or_else(|| user(format!("Cannot take address of method {}.", m.name)))?;
        let mut params = Vec::with_capacity(m.params.len() + 1);
        if !m.is_static {
            let obj = if m.is_const {
                qualified(class.clone(), true)
            } else {
                class.clone()
            };
            let this = qualified(Type::pointer_to(obj, self.ptr_size()), true);
            params.push(LazyType::ready(this));
        }
        params.extend(m.params.iter().map(|t| LazyType::ready(t.get().clone())));
        let fty = Type::new(
            None,
            1,
            TypeKind::Function {
                ret: m.ret.as_ref().map(|t| LazyType::ready(t.get().clone())),
                params,
                varargs: m.varargs,
                prototyped: true,
            },
        );
        Ok(V::lazy_at(fty, address))
    }

    /// The code of a constructor or destructor: the declaration names GCC's unified
    /// `C4`/`D4` variant, which has no symbol; the complete-object one (`C1`/`D1`) is the
    /// one to call.
    fn structor_symbol(&self, linkage: &str) -> Option<u64> {
        self.ctx.code_symbol(linkage).or_else(|| {
            ["C4E", "D4E"].iter().find_map(|u| {
                let i = linkage.find(u)?;
                let kind = &u[..1];
                ["1", "2"].iter().find_map(|n| {
                    let l = format!("{}{kind}{n}E{}", &linkage[..i], &linkage[i + 3..]);
                    self.ctx.code_symbol(&l)
                })
            })
        })
    }

    /// The copy constructor of class `class` found by its name (`Big::Big`), for a
    /// declaration without a linkage name (clang's): the definition whose one parameter
    /// after `this` is a reference.
    fn copy_ctor_by_name(&self, class: &TypeRef, short: &str) -> Option<u64> {
        let name = format!("{}::{short}", class.name.as_deref()?.split('<').next()?);
        self.ctx
            .lookup_functions(&name)
            .ok()?
            .into_iter()
            .find(|f| match &f.ty.strip().kind {
                TypeKind::Function { params, .. } => {
                    let ps: Vec<TypeRef> = params.iter().map(|p| p.get().clone()).collect();
                    // A copy (not a move) constructor: `const Big &`.
                    let refs = |t: &TypeRef| matches!(t.strip().kind, TypeKind::Reference(_));
                    matches!(ps.as_slice(), [_, r] if refs(r))
                        || matches!(ps.as_slice(), [r] if refs(r))
                }
                _ => false,
            })
            .and_then(|f| f.address())
    }

    /// After a call: the destructor of each class argument copied for it (gdb destroys its
    /// clones), when the class declares one.
    fn destroy_clones(&self, clones: &[(TypeRef, u64)]) -> Result<()> {
        for (ty, at) in clones {
            let st = ty.strip();
            let short = crate::context::class_short_name(st.name.as_deref().unwrap_or(""));
            let dtor = st.cxx.as_deref().and_then(|c| {
                c.methods
                    .iter()
                    .find(|m| !m.artificial && m.name.strip_prefix('~') == Some(short))
            });
            let Some(address) = dtor
                .and_then(|m| m.linkage_name.as_deref())
                .and_then(|l| self.structor_symbol(l))
            else {
                continue;
            };
            let w = self.ptr_size() as usize;
            let pty = Type::pointer_to(st.clone(), self.ptr_size());
            let call = crate::context::FunctionCall {
                name: format!("{short}::~{short}"),
                address,
                args: vec![(pty, at.to_le_bytes()[..w].to_vec())],
                ret: builtins().void.clone(),
            };
            self.ctx.call_function(&call)?;
        }
        Ok(())
    }

    /// An argument without a parameter type (a variadic or unprototyped function): C's
    /// default promotions.
    fn promoted(&self, v: V) -> Result<(TypeRef, Vec<u8>)> {
        let v = self.coerce_ref(v)?;
        let mut v = self.decay_for_call(v)?;
        let b = builtins();
        let to = match classify(&v.ty) {
            Cls::Float(4) => Some(b.double.clone()),
            Cls::Int { size, .. } if size < 4 => Some(b.int.clone()),
            _ => None,
        };
        if let Some(t) = to {
            v = self.cast(v, &t)?;
        }
        let ty = v.ty.clone();
        let bytes = self.bytes(&mut v)?.to_vec();
        Ok((ty, bytes))
    }

    /// Arrays become pointers to their first element (copied to the program's memory when
    /// they are not there, as a string literal); functions become pointers to them.
    fn decay_for_call(&self, mut v: V) -> Result<V> {
        if let Cls::Array(elem) = classify(&v.ty)
            && v.address().is_none()
        {
            let bytes = self.bytes(&mut v)?.to_vec();
            let a = self.ctx.push_for_call(&bytes)?;
            return Ok(self.pointer(elem, a));
        }
        self.decay(v)
    }

    /// gdb's `coerce_ref`: a C++ reference stands for the object it refers to.
    fn coerce_ref(&self, mut v: V) -> Result<V> {
        if v.is_type {
            return Ok(v);
        }
        match &v.ty.strip().kind {
            TypeKind::Reference(t) | TypeKind::RvalueReference(t) => {
                let target = t.get().clone();
                let a = self.int_of(&mut v)? as u64;
                self.full_object(&target, a);
                Ok(V::lazy_at(target, a))
            }
            _ => Ok(v),
        }
    }

    /// gdb's `value_full_object` as `value_ind` and `coerce_ref` run it on a class object
    /// they reach (evaluated for its value, not only its type): its RTTI look-up, with its
    /// warning for a dynamic class without debug information.
    fn full_object(&self, target: &TypeRef, addr: u64) {
        if self.side
            && addr != 0
            && self.ctx.language() == crate::format::Language::Cplus
            && matches!(
                target.strip().kind,
                TypeKind::Aggregate {
                    kind: AggregateKind::Struct | AggregateKind::Class,
                    ..
                }
            )
        {
            self.ctx.full_object(addr);
        }
    }

    pub fn binop(&self, op: BinOp, a: V, b: V) -> Result<V> {
        let (a, b) = (self.coerce_ref(a)?, self.coerce_ref(b)?);
        let (ca, cb) = (classify(&a.ty), classify(&b.ty));
        if (matches!(ca, Cls::Agg) || matches!(cb, Cls::Agg))
            && self.ctx.language() == crate::format::Language::Cplus
        {
            return self.user_operator(op.symbol(), a, b);
        }
        // gdb's `value_x_binop` looks for the operator in the left operand's structure.
        if matches!(cb, Cls::Agg) && !matches!(ca, Cls::Agg) {
            return Err(user("Can't do that binary op on that type"));
        }
        if matches!(ca, Cls::Agg) || matches!(cb, Cls::Agg) {
            return Err(user(format!(
                "Structure has no component named operator{}.",
                op.symbol()
            )));
        }
        if vector::is_vector(&a.ty) || vector::is_vector(&b.ty) {
            return self.vector_binop(op, a, b);
        }
        // A convenience function compared (gdb's `value_equal`/`value_less`).
        let internal = internal::internal_function_type();
        if Arc::ptr_eq(&a.ty, &internal) || Arc::ptr_eq(&b.ty, &internal) {
            match op {
                BinOp::Eq | BinOp::Ne => {
                    return Err(user("Invalid type combination in equality test."));
                }
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    return Err(user("Invalid type combination in ordering comparison."));
                }
                _ => {}
            }
        }
        let not_number = || user("Argument to arithmetic operation not a number or boolean.");
        let is_cmp = matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        );
        let pointerish = |c: &Cls| matches!(c, Cls::Ptr(_) | Cls::Array(_) | Cls::Func);
        if pointerish(&ca) || pointerish(&cb) {
            let mut a = self.decay(a)?;
            let mut b = self.decay(b)?;
            let (ca, cb) = (classify(&a.ty), classify(&b.ty));
            match (&ca, &cb) {
                (Cls::Ptr(_), Cls::Ptr(_)) if is_cmp => {
                    let x = self.int_of(&mut a)? as u64;
                    let y = self.int_of(&mut b)? as u64;
                    return Ok(self.truth_value(compare(op, x.cmp(&y))));
                }
                (Cls::Ptr(_), Cls::Int { .. }) | (Cls::Int { .. }, Cls::Ptr(_)) if is_cmp => {
                    let x = self.int_of(&mut a)? as u64;
                    let y = self.int_of(&mut b)? as u64;
                    return Ok(self.truth_value(compare(op, x.cmp(&y))));
                }
                (Cls::Ptr(t), Cls::Int { .. }) if matches!(op, BinOp::Add | BinOp::Sub) => {
                    let p = self.int_of(&mut a)? as u64;
                    let i = self.int_of(&mut b)? as i64;
                    let step = pointer_math_size(t)? as i64;
                    let d = i.wrapping_mul(step) as u64;
                    let r = if op == BinOp::Add {
                        p.wrapping_add(d)
                    } else {
                        p.wrapping_sub(d)
                    };
                    return Ok(self.int_value(&a.ty, r as i128));
                }
                (Cls::Int { .. }, Cls::Ptr(t)) if op == BinOp::Add => {
                    let i = self.int_of(&mut a)? as i64;
                    let p = self.int_of(&mut b)? as u64;
                    let step = pointer_math_size(t)? as i64;
                    let r = p.wrapping_add(i.wrapping_mul(step) as u64);
                    return Ok(self.int_value(&b.ty, r as i128));
                }
                (Cls::Ptr(t1), Cls::Ptr(t2)) if op == BinOp::Sub => {
                    let (s1, s2) = (pointee_size(t1), pointee_size(t2));
                    if s1 != s2 {
                        return Err(user(
                            "First argument of `-' is a pointer and second argument is neither\nan integer nor a pointer of the same type.",
                        ));
                    }
                    let x = self.int_of(&mut a)? as i64;
                    let y = self.int_of(&mut b)? as i64;
                    let d = x.wrapping_sub(y) / s1.max(1) as i64;
                    return Ok(self.int_value(&builtins().long, d as i128));
                }
                _ => return Err(not_number()),
            }
        }
        let (mut a, mut b) = (a, b);
        match (&ca, &cb) {
            (Cls::Float(_), Cls::Float(_) | Cls::Int { .. }) | (Cls::Int { .. }, Cls::Float(_)) => {
                if matches!(
                    op,
                    BinOp::Rem
                        | BinOp::Shl
                        | BinOp::Shr
                        | BinOp::BitAnd
                        | BinOp::BitOr
                        | BinOp::BitXor
                ) {
                    return Err(user("Integer-only operation on floating point number."));
                }
                let ty = match (&ca, &cb) {
                    (Cls::Float(x), Cls::Float(y)) => {
                        if y > x {
                            b.ty.clone()
                        } else {
                            a.ty.clone()
                        }
                    }
                    (Cls::Float(_), _) => a.ty.clone(),
                    _ => b.ty.clone(),
                };
                let x = self.float_of(&mut a)?;
                let y = self.float_of(&mut b)?;
                if is_cmp {
                    let r = match x.partial_cmp(&y) {
                        Some(o) => compare(op, o),
                        None => op == BinOp::Ne,
                    };
                    return Ok(self.truth_value(r));
                }
                let fop = match op {
                    BinOp::Add => FloatOp::Add,
                    BinOp::Sub => FloatOp::Sub,
                    BinOp::Mul => FloatOp::Mul,
                    _ => FloatOp::Div,
                };
                let r = arith(fop, x, y, float_kind(&ty));
                Ok(V::new(ty.strip(), float_bytes(r, &ty)))
            }
            (
                Cls::Int {
                    size: s1,
                    signed: g1,
                },
                Cls::Int {
                    size: s2,
                    signed: g2,
                },
            ) => {
                let (l1, u1) = if *s1 < 4 { (4, false) } else { (*s1, !g1) };
                let (l2, u2) = if *s2 < 4 { (4, false) } else { (*s2, !g2) };
                let unsigned = if l1 > l2 {
                    u1
                } else if l2 > l1 {
                    u2
                } else {
                    u1 || u2
                };
                // A shift is done in the left operand's promoted type, the count read in
                // its own (gdb's `check_valid_shift_count`: a warning, then 0).
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    let x = wrap(self.int_of(&mut a)?, l1, !u1);
                    let n = wrap(self.int_of(&mut b)?, l2, !u2);
                    let bits = 8 * l1 as i128;
                    let r = if n < 0 || n >= bits {
                        self.shift_warning(op, n < 0);
                        0
                    } else if op == BinOp::Shl {
                        x << n
                    } else {
                        x >> n
                    };
                    return Ok(self.int_value(&result_int_type(l1, u1), wrap(r, l1, !u1)));
                }
                let len = l1.max(l2);
                let x = wrap(self.int_of(&mut a)?, len, !unsigned);
                let y = wrap(self.int_of(&mut b)?, len, !unsigned);
                if is_cmp {
                    return Ok(self.truth_value(compare(op, x.cmp(&y))));
                }
                let ty = result_int_type(len, unsigned);
                let r = match op {
                    BinOp::Add => x.wrapping_add(y),
                    BinOp::Sub => x.wrapping_sub(y),
                    BinOp::Mul => x.wrapping_mul(y),
                    BinOp::Div | BinOp::Rem => {
                        if y == 0 {
                            if self.side {
                                return Err(user("Division by zero"));
                            }
                            0
                        } else if op == BinOp::Div {
                            x.wrapping_div(y)
                        } else {
                            x.wrapping_rem(y)
                        }
                    }
                    BinOp::BitAnd => x & y,
                    BinOp::BitOr => x | y,
                    BinOp::BitXor => x ^ y,
                    _ => 0,
                };
                Ok(self.int_value(&ty, wrap(r, len, !unsigned)))
            }
            _ => Err(not_number()),
        }
    }

    /// C conversion of `v` to `to` (casts and assignments).
    pub fn cast(&self, v: V, to: &TypeRef) -> Result<V> {
        let ts = to.strip();
        let from = classify(&v.ty);
        // C++: a pointer to a class converted to a pointer to a base (or derived) class
        // points to that subobject (gdb's `value_cast_pointers`), a class object to its base.
        if let (TypeKind::Pointer(t), Cls::Ptr(f)) = (&ts.kind, &from)
            && matches!(f.strip().kind, TypeKind::Aggregate { .. })
        {
            let mut v = v;
            let a = self.int_of(&mut v)? as u64;
            let obj = (a != 0 && self.side).then_some(a);
            if let Some(off) = self.class_cast_offset(f, t.get(), obj) {
                let moved = if a == 0 {
                    0
                } else {
                    a.wrapping_add(off as u64)
                };
                return Ok(self.int_value(to, moved as i128));
            }
            return self.cast_plain(v, to);
        }
        if let (TypeKind::Aggregate { .. }, Cls::Agg) = (&ts.kind, &from)
            && let Some(off) = self.class_cast_offset(&v.ty, to, v.address())
            && off >= 0
        {
            let mut out = self.component(&v, off, ts.clone())?;
            out.ty = to.clone();
            return Ok(out);
        }
        self.cast_plain(v, to)
    }

    fn cast_plain(&self, v: V, to: &TypeRef) -> Result<V> {
        let ts = to.strip();
        let from = classify(&v.ty);
        let reinterpret = |v: &V| -> Result<V> {
            match v.address() {
                Some(a) => Ok(V::lazy_at(to.clone(), a)),
                None => Err(user("Invalid cast.")),
            }
        };
        if !matches!(ts.kind, TypeKind::Void) && (vector::is_vector(&v.ty) || vector::is_vector(to))
        {
            return self.vector_cast(v, to);
        }
        // gdb's `value_cast` takes a flags value (a register) only as the bits of a type of
        // its size.
        if is_flags(&v.ty) && !matches!(ts.kind, TypeKind::Void) {
            if to.byte_size() != v.ty.byte_size() {
                return Err(user("Invalid cast."));
            }
            let mut v = v;
            let bytes = self.bytes(&mut v)?.to_vec();
            return Ok(V::new(to.clone(), bytes));
        }
        match (&ts.kind, &from) {
            (TypeKind::Void, _) => Ok(V::new(to.clone(), Vec::new())),
            (_, Cls::Array(_)) if !matches!(ts.kind, TypeKind::Array { .. }) => {
                if matches!(ts.kind, TypeKind::Aggregate { .. }) {
                    return reinterpret(&v);
                }
                let d = self.decay(v)?;
                self.cast(d, to)
            }
            (_, Cls::Func) if matches!(ts.kind, TypeKind::Pointer(_) | TypeKind::Base(_)) => {
                let d = self.decay(v)?;
                self.cast(d, to)
            }
            (TypeKind::Base(Encoding::Float), Cls::Int { .. })
            | (TypeKind::Base(Encoding::Float), Cls::Float(_)) => {
                let mut v = v;
                let f = self.float_of(&mut v)?;
                Ok(V::new(to.clone(), float_bytes(f, to)))
            }
            (TypeKind::Base(Encoding::Boolean), Cls::Int { .. } | Cls::Ptr(_) | Cls::Float(_)) => {
                let t = self.truth(v, "")?;
                Ok(self.int_value(to, t as i128))
            }
            (TypeKind::Base(Encoding::Float), Cls::Ptr(_)) if ts.size == v.ty.byte_size() => {
                let mut v = v;
                let bytes = self.bytes(&mut v)?.to_vec();
                Ok(V::new(to.clone(), bytes))
            }
            (
                TypeKind::Base(_) | TypeKind::Enum { .. } | TypeKind::Pointer(_),
                Cls::Int { .. } | Cls::Ptr(_),
            ) => {
                let mut v = v;
                let i = self.int_of(&mut v)?;
                Ok(self.int_value(to, i))
            }
            (TypeKind::Base(_) | TypeKind::Enum { .. }, Cls::Float(_)) => {
                let mut v = v;
                let f = self.float_of(&mut v)?;
                Ok(self.int_value(to, quad_to_int(f)))
            }
            (TypeKind::Pointer(_), Cls::Float(_)) if ts.size == v.ty.byte_size() => {
                let mut v = v;
                let f = self.float_of(&mut v)?;
                Ok(self.int_value(to, quad_to_int(f) as i64 as i128))
            }
            (TypeKind::Aggregate { .. } | TypeKind::Array { .. }, _) => {
                if same_type(&v.ty, to) {
                    let mut v = v;
                    v.ty = to.clone();
                    return Ok(v);
                }
                // gdb's `value_cast`: a value of the same length is taken bit for bit.
                if v.ty.byte_size() == ts.size && ts.size > 0 && !matches!(from, Cls::Void) {
                    let mut v = v;
                    let bytes = self.bytes(&mut v)?.to_vec();
                    return Ok(V::new(to.clone(), bytes));
                }
                reinterpret(&v)
            }
            _ => {
                if v.ty.byte_size() == ts.size && !matches!(from, Cls::Void) {
                    let mut v = v;
                    let bytes = self.bytes(&mut v)?.to_vec();
                    return Ok(V::new(to.clone(), bytes));
                }
                reinterpret(&v)
            }
        }
    }

    fn place(&self, e: &Expr) -> Result<Place> {
        if let Expr::Dollar(Dollar::Var(n)) = e
            && self.ctx.register(n)?.is_none()
        {
            return Ok(Place::Convenience(n.clone()));
        }
        Ok(Place::Value(self.eval(e)?))
    }

    fn place_value(&self, p: &Place) -> Result<V> {
        match p {
            Place::Value(v) => Ok(v.clone()),
            Place::Convenience(n) => Ok(match self.ctx.convenience(n)? {
                Some(v) => V::from_value(v),
                None => V::new(builtins().void.clone(), Vec::new()),
            }),
        }
    }

    /// Store `new` into `place`, converting to the place's type; returns the stored value.
    fn store(&self, place: Place, new: V) -> Result<V> {
        match place {
            Place::Convenience(n) => {
                if internal::INTERNAL_FUNCTIONS.contains(&n.as_str())
                    && self.ctx.convenience(&n)?.is_none()
                {
                    return Err(user(format!("Cannot overwrite convenience function {n}")));
                }
                let mut new = new;
                if !new.optimized_out {
                    self.fetch(&mut new)?;
                }
                new.lval = Lval::None;
                if self.side {
                    self.ctx.set_convenience(&n, to_value(new.clone()));
                }
                Ok(new)
            }
            Place::Value(target) => {
                if self.side && matches!(target.lval, Lval::None) {
                    return Err(user("Left operand of assignment is not an lvalue."));
                }
                if matches!(classify(&target.ty), Cls::Array(_)) && !same_type(&target.ty, &new.ty)
                {
                    return Err(user("Invalid cast."));
                }
                let new = if matches!(classify(&new.ty), Cls::Array(_))
                    && !matches!(classify(&target.ty), Cls::Array(_))
                {
                    self.decay(new)?
                } else {
                    new
                };
                let mut conv = self.cast(new, &target.ty)?;
                let bytes = self.bytes(&mut conv)?.to_vec();
                let mut bytes = bytes;
                if let Lval::Bitfield { bit_size, .. } = target.lval {
                    let signed = matches!(classify(&target.ty), Cls::Int { signed: true, .. });
                    let field = self.int_of(&mut conv).unwrap_or(0);
                    self.bitfield_fit(field, bit_size);
                    let v = bits_extend(le_int(&bytes, false), bit_size, signed);
                    bytes = int_bytes(v, target.ty.byte_size());
                }
                if self.side {
                    self.ctx.write(&target.lval, &bytes)?;
                }
                Ok(V {
                    ty: target.ty,
                    bytes,
                    lazy: false,
                    lval: target.lval,
                    optimized_out: false,
                    lost_bits: Vec::new(),
                    temporary: false,
                    is_type: false,
                })
            }
        }
    }

    fn assign(&self, op: Option<BinOp>, l: &Expr, r: &Expr) -> Result<V> {
        let place = self.place(l)?;
        let rv = self.eval(r)?;
        let new = match op {
            None => rv,
            Some(op) => {
                let cur = self.place_value(&place)?;
                self.binop(op, cur, rv)?
            }
        };
        self.store(place, new)
    }
}

impl Ev<'_> {
    /// gdb's `modify_field`: a value stored in a bitfield of `bits` bits, its bits that do
    /// not fit cut off, with gdb's warning (a negative value that fits is not warned about).
    fn bitfield_fit(&self, v: i128, bits: u64) -> i128 {
        if bits == 0 || bits >= 64 {
            return v;
        }
        let mask: u64 = u64::MAX >> (64 - bits);
        let mut f = v as i64 as u64;
        if (!f & !(mask >> 1)) == 0 {
            f &= mask;
        }
        if f & !mask != 0 {
            self.ctx
                .warning(&format!("Value does not fit in {bits} bits."));
            f &= mask;
        }
        f as i128
    }
}

/// Keep the low `bits` bits of `v`, sign-extended when `signed`.
fn bits_extend(v: i128, bits: u64, signed: bool) -> i128 {
    if bits == 0 || bits >= 128 {
        return v;
    }
    let m = (v as u128) & ((1u128 << bits) - 1);
    if signed && m >> (bits - 1) == 1 {
        (m | !((1u128 << bits) - 1)) as i128
    } else {
        m as i128
    }
}

fn compare(op: BinOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Lt => o == Less,
        BinOp::Le => o != Greater,
        BinOp::Gt => o == Greater,
        BinOp::Ge => o != Less,
        BinOp::Eq => o == Equal,
        _ => o != Equal,
    }
}

/// gdb's `find_size_for_pointer_math`: the step of `p + i` and `p[i]`; an error for a target
/// of unknown size (an incomplete struct, a VLA type not resolved).
fn pointer_math_size(t: &TypeRef) -> Result<u64> {
    match classify(t) {
        Cls::Void | Cls::Func => Ok(1),
        _ if t.byte_size() > 0 => Ok(t.byte_size()),
        _ => Err(user(match &t.strip().name {
            Some(n) => format!(
                "Cannot perform pointer math on incomplete type \"{n}\", try casting to a known type, or void *."
            ),
            None => "Cannot perform pointer math on incomplete types, try casting to a known type, or void *.".to_string(),
        })),
    }
}

fn pointee_size(t: &TypeRef) -> u64 {
    match classify(t) {
        Cls::Void | Cls::Func => 1,
        _ => t.byte_size().max(1),
    }
}

/// The type of a unary-promoted integer of `size` bytes.
/// A gdb flags type (`$eflags`).
fn is_flags(ty: &TypeRef) -> bool {
    matches!(ty.strip().kind, TypeKind::Base(Encoding::Flags(_)))
}

fn promote_one(size: u64, signed: bool) -> (TypeRef, u64) {
    if size < 4 {
        (builtins().int.clone(), 4)
    } else {
        (result_int_type(size, !signed), size)
    }
}

fn result_int_type(len: u64, unsigned: bool) -> TypeRef {
    let b = builtins();
    match (len <= 4, len <= 8, unsigned) {
        (true, _, false) => b.int.clone(),
        (true, _, true) => b.uint.clone(),
        (_, true, false) => b.long.clone(),
        (_, true, true) => b.ulong.clone(),
        (_, _, false) => b.llong.clone(),
        (_, _, true) => b.ullong.clone(),
    }
}

fn same_type(a: &TypeRef, b: &TypeRef) -> bool {
    let (a, b) = (a.strip(), b.strip());
    if Arc::ptr_eq(&a, &b) {
        return true;
    }
    match (&a.kind, &b.kind) {
        (TypeKind::Aggregate { kind: k1, .. }, TypeKind::Aggregate { kind: k2, .. }) => {
            k1 == k2 && a.name.is_some() && a.name == b.name && a.size == b.size
        }
        (TypeKind::Array { element: e1, .. }, TypeKind::Array { element: e2, .. }) => {
            a.byte_size() == b.byte_size() && same_type(e1, e2)
        }
        (TypeKind::Base(x), TypeKind::Base(y)) => x == y && a.size == b.size,
        _ => false,
    }
}

/// Whether class type `t` is called `name` (as written, or its last component).
fn type_is_named(t: &TypeRef, name: &str) -> bool {
    t.name
        .as_deref()
        .is_some_and(|n| n == name || crate::index::unqualified(n) == Some(name))
}

fn align_of(ty: &TypeRef, ptr: u64) -> u64 {
    let s = ty.strip();
    match &s.kind {
        TypeKind::Pointer(_) | TypeKind::Reference(_) | TypeKind::RvalueReference(_) => ptr,
        TypeKind::Array { element, .. } => align_of(element, ptr),
        TypeKind::Aggregate { members, .. } => members
            .iter()
            .filter(|m| !m.is_static)
            .map(|m| align_of(m.ty.get(), ptr))
            .max()
            .unwrap_or(1),
        TypeKind::Void | TypeKind::Function { .. } => 1,
        _ => s.size.clamp(1, 16),
    }
}

/// Build the type a [`TypeName`] names.
/// Whether `t` is an array with a bound known only at run time (a C VLA).
fn has_dynamic_bound(t: &TypeRef) -> bool {
    match &t.kind {
        TypeKind::Array { element, bound } => {
            matches!(bound, Bound::Dynamic(_)) || has_dynamic_bound(element)
        }
        _ => false,
    }
}

pub(crate) fn resolve_type(t: &TypeName, ctx: &dyn EvalContext) -> Result<TypeRef> {
    let mut ty = match &t.base {
        BaseType::Builtin(k) => builtin_named(k),
        BaseType::Struct(tag) => ctx
            .lookup_type(&format!("struct {tag}"))
            .ok_or_else(|| user(format!("No struct type named {tag}.")))?,
        BaseType::Union(tag) => ctx
            .lookup_type(&format!("union {tag}"))
            .ok_or_else(|| user(format!("No union type named {tag}.")))?,
        BaseType::Enum(tag) => ctx
            .lookup_type(&format!("enum {tag}"))
            .ok_or_else(|| user(format!("No enum type named {tag}.")))?,
        BaseType::Named(n) => ctx
            .lookup_type(n)
            .ok_or_else(|| user(format!("No symbol \"{n}\" in current context.")))?,
    };
    if t.base_const {
        ty = qualified(ty, true);
    }
    if t.base_volatile {
        ty = qualified(ty, false);
    }
    for d in &t.decl {
        ty = match d {
            Declarator::Pointer => Type::pointer_to(ty, ctx.ptr_size()),
            Declarator::Const => qualified(ty, true),
            Declarator::Volatile => qualified(ty, false),
            Declarator::Array(Some(n)) => Type::array_of(ty, *n),
            Declarator::Array(None) => Type::new(
                None,
                0,
                TypeKind::Array {
                    element: ty,
                    bound: Bound::Unknown,
                },
            ),
            Declarator::Function(params) => {
                let ps = match params {
                    Some(ps) => ps
                        .iter()
                        .map(|p| resolve_type(p, ctx).map(LazyType::ready))
                        .collect::<Result<Vec<_>>>()?,
                    None => Vec::new(),
                };
                Type::new(
                    None,
                    0,
                    TypeKind::Function {
                        ret: Some(LazyType::ready(ty)),
                        params: ps,
                        varargs: false,
                        prototyped: params.is_some(),
                    },
                )
            }
        };
    }
    Ok(ty)
}

/// Whether `ty` is a C++ reference (`T&` or `T&&`), through typedefs and qualifiers.
fn is_reference(ty: &TypeRef) -> bool {
    matches!(
        ty.strip().kind,
        TypeKind::Reference(_) | TypeKind::RvalueReference(_)
    )
}

fn qualified(ty: TypeRef, is_const: bool) -> TypeRef {
    let size = ty.byte_size();
    let l = LazyType::ready(ty);
    Type::new(
        None,
        size,
        if is_const {
            TypeKind::Const(l)
        } else {
            TypeKind::Volatile(l)
        },
    )
}

/// libstdc++'s xmethods (Python) get their object by address: one not in memory (in
/// registers, optimized out) stops them with gdb's words.
fn xmethod_this(v: &V) -> Result<()> {
    match v.lval {
        Lval::Memory(_) => Ok(()),
        _ => Err(user(
            "Attempt to take address of value not located in memory.",
        )),
    }
}

pub(crate) fn to_value(v: V) -> Value {
    Value {
        ty: v.ty,
        bytes: v.bytes,
        lval: v.lval,
        optimized_out: v.optimized_out,
        lost_bits: v.lost_bits,
    }
}

/// Truth of a finished value (conditions).
pub(crate) fn truthy(v: &Value) -> Result<bool> {
    if v.optimized_out {
        return Err(DwarfError::OptimizedOut);
    }
    match classify(&v.ty) {
        Cls::Agg => Err(user("Structure has no component named operator!.")),
        Cls::Float(_) => Ok(!float_from(&v.bytes, &v.ty).is_zero()),
        _ => Ok(v.bytes.iter().any(|&b| b != 0)),
    }
}

/// See [`super::as_address`].
pub(crate) fn as_address(v: &Value) -> Result<u64> {
    if v.optimized_out {
        return Err(DwarfError::OptimizedOut);
    }
    match classify(&v.ty) {
        Cls::Array(_) | Cls::Func | Cls::Agg => v
            .address()
            .ok_or_else(|| user("Attempt to take address of value not located in memory.")),
        Cls::Int { signed, .. } => Ok(le_int(&v.bytes, signed) as u64),
        Cls::Ptr(_) => Ok(le_int(&v.bytes, false) as u64),
        Cls::Float(_) => Ok(quad_to_int(float_from(&v.bytes, &v.ty)) as u64),
        _ => Err(user("Invalid cast.")),
    }
}

/// A function that a call may go to.
pub(crate) struct Callee {
    /// The function (of function or pointer-to-function type; its address in `lval`).
    f: V,
    /// For a member function: `this`, a pointer to the object.
    this: Option<V>,
    /// For messages.
    name: String,
    /// Declared but without code of its own (inlined everywhere).
    inlined: bool,
}

/// The name of a called function, for messages.
fn function_name(f: &Expr, fv: &V, ctx: &dyn EvalContext) -> String {
    match f {
        Expr::Name(n) => n.clone(),
        Expr::Scoped(s, n) => format!("{s}::{n}"),
        Expr::Member(_, m, _) => m.clone(),
        _ => fv
            .address()
            .and_then(|a| ctx.symbol_for(a))
            .unwrap_or_else(|| "at 0x?".into()),
    }
}

/// Static member `name` of class `class` when its declaration gives its value.
fn static_const_member(class: &TypeRef, name: &str) -> Option<Value> {
    let t = class.strip();
    let TypeKind::Aggregate { members, .. } = &t.kind else {
        return None;
    };
    let cxx = t.cxx.as_deref()?;
    let (i, m) = members
        .iter()
        .enumerate()
        .find(|(_, m)| m.is_static && m.name.as_deref() == Some(name))?;
    let bytes = cxx.static_const(i)?;
    Some(Value::new(m.ty.get().clone(), bytes.to_vec(), Lval::None))
}

/// The class (`ty`'s name, or a base class's) with a static data member `name`.
fn static_member_class(ty: &TypeRef, name: &str) -> Option<String> {
    let TypeKind::Aggregate { members, .. } = &ty.strip().kind else {
        return None;
    };
    if members
        .iter()
        .any(|m| m.is_static && m.name.as_deref() == Some(name))
    {
        return ty.strip().name.clone();
    }
    members
        .iter()
        .filter(|m| m.is_base)
        .find_map(|m| static_member_class(m.ty.get(), name))
}
