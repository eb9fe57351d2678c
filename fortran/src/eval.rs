//! Evaluation of Fortran expressions ([`crate::parse`]) against a frame
//! ([`EvalContext`]): names (case-insensitive, `mod::name`), components (also over arrays of
//! derived type: `swarm%id` is the array of the `id`s), elements and sections with any lower
//! bounds, scalar arithmetic and logic, assignment, and the intrinsics of [`INTRINSICS`].
//!
//! Arrays are values whose type is [`TypeKind::Shaped`] and whose `lval` is the address of
//! their first element (or, for computed arrays such as `lbound(a)`, whose bytes hold the
//! elements): a section or a component over an array is a new shape over the same memory.

use cohort_dwarf::context::EvalContext;
use cohort_dwarf::error::{DwarfError, Result};
use cohort_dwarf::extfloat::{f64_to_f80, f64_to_f128, f80_to_f64, f128_to_f64};
use cohort_dwarf::types::{Dim, Encoding, Shape, ShapeStatus, Type, TypeKind, TypeRef};
use cohort_dwarf::value::{Lval, Value};

use crate::parse::{Arg, BinOp, Expr, FBase, FType, UnOp, parse};
use rustc_apfloat::ieee::{Double, Quad, Single, X87DoubleExtended};
use rustc_apfloat::{Float, FloatConvert};

/// Parse and evaluate `text` in `ctx` (with side effects: `a(2) = 5` writes). A scalar
/// pointer is its target (Fortran pointers are not values of their own): `print ptr` is the
/// target's value.
pub fn evaluate(text: &str, ctx: &dyn EvalContext) -> Result<Value> {
    evaluate_parsed(&parse(text)?, ctx)
}

/// [`evaluate`] of an expression parsed once (a breakpoint condition, evaluated at every
/// crossing).
pub fn evaluate_parsed(e: &Expr, ctx: &dyn EvalContext) -> Result<Value> {
    let ev = Ev { ctx, typing: false };
    let v = ev.eval(e)?;
    // An address taken is a value of its own, not a Fortran pointer shown as its target.
    if matches!(e, Expr::Unary(UnOp::Addr, _)) {
        return Ok(v);
    }
    printed(&ev, v)
}

/// The value `print NAME` gives for a variable whose value, as its DWARF location and type
/// make it, is `v`: a gfortran deferred-length character array read through its descriptor,
/// a polymorphic (`class(t)`) object as its dynamic type with its components, a pointer as
/// its target (a disassociated one `<not associated>`). `print` reaches it through
/// [`evaluate`]; `info locals`, `info args` and `bt full` call it for each variable they list.
pub fn variable_value(v: Value, ctx: &dyn EvalContext) -> Result<Value> {
    let ev = Ev { ctx, typing: false };
    let v = ev.named(v)?;
    printed(&ev, v)
}

/// The value of an evaluated expression as `print` shows it (see [`evaluate`]).
fn printed(ev: &Ev<'_>, v: Value) -> Result<Value> {
    // A polymorphic object without data: `<not allocated>` or `<not associated>`, as arrays.
    if let Some(status) = crate::descriptor::class_null_status(&v, ev.ctx) {
        return Ok(Value::new(
            shaped_type(Shape {
                element: v.ty.clone(),
                dims: Vec::new(),
                status,
                spec: None,
            }),
            Vec::new(),
            Lval::None,
        ));
    }
    // A disassociated scalar pointer prints as a disassociated array does.
    if let TypeKind::Pointer(t) = &v.ty.strip().kind
        && !matches!(
            t.get().strip().kind,
            TypeKind::Function { .. } | TypeKind::Void
        )
        && ev.complete(v.clone())?.as_u64() == 0
    {
        return Ok(Value::new(
            shaped_type(Shape {
                element: t.get().clone(),
                dims: Vec::new(),
                status: ShapeStatus::NotAssociated,
                spec: None,
            }),
            Vec::new(),
            Lval::None,
        ));
    }
    ev.target(v)
}

/// Parse and evaluate `text` as `whatis`/`ptype` see it: a pointer stays a pointer
/// (`PTR TO -> ( integer(kind=4) )`).
pub fn evaluate_type(text: &str, ctx: &dyn EvalContext) -> Result<Value> {
    let e = parse(text)?;
    if let Expr::Type(t) = e {
        return Ok(Value::new(ftype(t)?, Vec::new(), Lval::None));
    }
    let mut v = Ev { ctx, typing: true }.eval(&e)?;
    v.ty = resolved_members(&v, ctx);
    Ok(v)
}

/// The type of a derived-type value with its allocatable and pointer array components
/// resolved for this object, as gdb's `ptype EXPR` shows them (`v(3)`, not `v(:)`).
fn resolved_members(v: &Value, ctx: &dyn EvalContext) -> TypeRef {
    let st = v.ty.strip();
    let (
        TypeKind::Aggregate {
            kind,
            members,
            declaration,
        },
        Lval::Memory(a),
    ) = (&st.kind, &v.lval)
    else {
        return v.ty.clone();
    };
    let dynamic = |t: &TypeRef| matches!(&t.strip().kind, TypeKind::DynArray(s) if s.constant_shape().is_none());
    if !members.iter().any(|m| dynamic(m.ty.get())) {
        return v.ty.clone();
    }
    let members = members
        .iter()
        .map(|m| {
            let mut ty = m.ty.get().clone();
            if dynamic(&ty)
                && let Ok((t, _)) = ctx.resolve_object(&ty, a.wrapping_add(m.offset))
            {
                ty = t;
            }
            cohort_dwarf::types::Member {
                name: m.name.clone(),
                ty: cohort_dwarf::types::LazyType::ready(ty),
                offset: m.offset,
                bitfield: m.bitfield,
                is_static: m.is_static,
                is_base: m.is_base,
            }
        })
        .collect();
    Type::new(
        st.name.clone(),
        st.size,
        TypeKind::Aggregate {
            kind: *kind,
            members,
            declaration: *declaration,
        },
    )
}

/// For `print`/`output`: a whole assumed-size array has no last upper bound, so it cannot
/// be printed; `text` (the expression) names it in the message.
pub fn check_printable(text: &str, v: &Value) -> Result<()> {
    if let TypeKind::Shaped(s) = &v.ty.strip().kind
        && s.status == ShapeStatus::Ok
        && s.dims.iter().any(|d| d.is_assumed_size())
    {
        return Err(user(format!(
            "Cannot print the whole of assumed-size array \"{}\": its last dimension has no \
             upper bound; print a section.",
            text.trim()
        )));
    }
    Ok(())
}

/// gdb's `max-value-size` (`limit` bytes; `None`: unlimited) for an array about to be
/// printed whole. gdb sizes an array value, sections included, as its outermost dimension's
/// count times that dimension's byte stride (`a(1:1000:10, :)` of a 1000x1000 `real(8)`
/// needs 8000000 bytes, as the whole array) and refuses a larger one.
pub fn check_value_size(v: &Value, limit: Option<u64>) -> Result<()> {
    let (Some(limit), TypeKind::Shaped(s)) = (limit, &v.ty.strip().kind) else {
        return Ok(());
    };
    let Some(last) = s.dims.last() else {
        return Ok(());
    };
    if s.status != ShapeStatus::Ok || last.is_assumed_size() {
        return Ok(());
    }
    let size = last.count.saturating_mul(last.stride.unsigned_abs());
    if size > limit {
        return Err(user(format!(
            "value requires {size} bytes, which is more than max-value-size"
        )));
    }
    Ok(())
}

/// Evaluate a parsed expression.
pub fn evaluate_expr(e: &Expr, ctx: &dyn EvalContext) -> Result<Value> {
    Ev { ctx, typing: false }.eval(e)
}

/// Whether a condition's value holds (a nonzero logical, integer or real).
pub fn is_truthy(v: &Value) -> Result<bool> {
    match num(v)? {
        Num::Int(i) => Ok(i != 0),
        Num::Real(f) => Ok(f != 0.0),
        Num::Complex(r, i) => Ok(r != 0.0 || i != 0.0),
    }
}

/// An intrinsic: its name and how it is evaluated from its unevaluated arguments.
pub type Intrinsic = fn(&Ev<'_>, &[Arg]) -> Result<Value>;

/// The intrinsics known to expressions. To add one, write a function of type [`Intrinsic`]
/// and list it here (names in lower case; calls match case-insensitively, and take
/// precedence over variables of the same name, as in gdb's Fortran parser).
pub const INTRINSICS: &[(&str, Intrinsic)] = &[
    ("size", intr_size),
    ("lbound", intr_lbound),
    ("ubound", intr_ubound),
    ("shape", intr_shape),
    ("rank", intr_rank),
    ("allocated", intr_allocated),
    ("associated", intr_associated),
    ("abs", intr_abs),
    ("mod", intr_mod),
    ("modulo", intr_modulo),
    ("floor", intr_floor),
    ("ceiling", intr_ceiling),
    ("kind", intr_kind),
    ("cmplx", intr_cmplx),
    ("loc", intr_loc),
    ("len", intr_len),
    ("aimag", intr_aimag),
    ("imag", intr_aimag),
    ("real", intr_real),
];

/// The evaluator: a context and the rules.
pub struct Ev<'a> {
    pub ctx: &'a dyn EvalContext,
    /// Only the type is wanted (`ptype`, `whatis`): a symbol of unknown type is no error.
    pub typing: bool,
}

/// A scalar as arithmetic sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    Int(i128),
    Real(f64),
    Complex(f64, f64),
}

fn user(msg: impl Into<String>) -> DwarfError {
    DwarfError::user(msg)
}

/// gdb's builtin Fortran type for `t` (`integer*8`); its error for a kind it lacks.
pub fn ftype(t: FType) -> Result<TypeRef> {
    let (name, kinds, enc): (&str, &[i64], Encoding) = match t.base {
        FBase::Integer => ("integer", &[1, 2, 4, 8], Encoding::Signed),
        FBase::Real => ("real", &[4, 8, 16], Encoding::Float),
        FBase::Logical => ("logical", &[1, 2, 4, 8], Encoding::Boolean),
        FBase::Complex => ("complex", &[4, 8, 16], Encoding::ComplexFloat),
        FBase::Character => ("character", &[1], Encoding::UnsignedChar),
    };
    let default = if t.base == FBase::Character { 1 } else { 4 };
    let kind = t.kind.unwrap_or(default);
    if !kinds.contains(&kind) {
        let base = if t.base == FBase::Character {
            name.to_string()
        } else {
            format!("{name}*{default}")
        };
        return Err(user(format!("unsupported kind {kind} for type {base}")));
    }
    Ok(match t.base {
        FBase::Character => builtin("character", 1, enc),
        FBase::Complex => builtin(&format!("complex*{kind}"), 2 * kind as u64, enc),
        _ => builtin(&format!("{name}*{kind}"), kind as u64, enc),
    })
}

/// The integer type gdb reads an address as (`*5`).
fn v_int_type() -> TypeRef {
    builtin("integer*4", 4, Encoding::Signed)
}

/// `(type) v`: a number converted to an integer (truncated toward zero, wrapped to the
/// kind), a real, a complex or a logical type.
fn cast(v: &Value, ty: &TypeRef) -> Result<Value> {
    let n = num(v)?;
    let st = ty.strip();
    let size = st.byte_size();
    Ok(match &st.kind {
        TypeKind::Base(Encoding::Float) => real_of(as_f64(n), ty),
        TypeKind::Base(Encoding::ComplexFloat) => {
            let (r, i) = match n {
                Num::Complex(r, i) => (r, i),
                n => (as_f64(n), 0.0),
            };
            complex_of(r, i, ty)
        }
        TypeKind::Base(Encoding::Boolean) => {
            let b = (truth(n) as u64).to_le_bytes()[..size as usize].to_vec();
            Value::new(ty.clone(), b, Lval::None)
        }
        _ => {
            let i = match n {
                Num::Int(i) => i,
                Num::Real(f) | Num::Complex(f, _) => f.trunc() as i128,
            };
            Value::new(
                ty.clone(),
                i.to_le_bytes()[..size as usize].to_vec(),
                Lval::None,
            )
        }
    })
}

/// `integer(kind=N)` for N bytes.
pub fn integer_type(size: u64) -> TypeRef {
    Type::base(&format!("integer(kind={size})"), size, Encoding::Signed)
}

/// `logical(kind=4)`.
pub fn logical_type() -> TypeRef {
    Type::base("logical(kind=4)", 4, Encoding::Boolean)
}

/// gdb's Fortran builtin types, as its intrinsics type their results (`whatis size(a)` →
/// `integer*4`, `whatis allocated(a)` → `logical*4`, `whatis kind(x)` → `int`).
fn builtin(name: &str, size: u64, enc: Encoding) -> TypeRef {
    Type::base(name, size, enc)
}

fn builtin_int(v: i128, name: &str, size: u64) -> Value {
    let b = v.to_le_bytes()[..size as usize].to_vec();
    Value::new(builtin(name, size, Encoding::Signed), b, Lval::None)
}

fn builtin_bool(b: bool) -> Value {
    Value::new(
        builtin("logical*4", 4, Encoding::Boolean),
        (b as u32).to_le_bytes().to_vec(),
        Lval::None,
    )
}

fn real_type(size: u64) -> TypeRef {
    Type::base(&format!("real(kind={size})"), size, Encoding::Float)
}

fn int_value(v: i128, size: u64) -> Value {
    let b = v.to_le_bytes()[..size as usize].to_vec();
    Value::new(integer_type(size), b, Lval::None)
}

fn bool_value(b: bool) -> Value {
    Value::new(
        logical_type(),
        (b as u32).to_le_bytes().to_vec(),
        Lval::None,
    )
}

/// A computed one-dimensional array of `integer*4` (`lbound(a)`, `shape(a)`).
fn int_array(vals: &[i64]) -> Value {
    let elem = builtin("integer*4", 4, Encoding::Signed);
    let bytes: Vec<u8> = vals
        .iter()
        .flat_map(|v| (*v as i32).to_le_bytes())
        .collect();
    let ty = Type::new(
        None,
        bytes.len() as u64,
        TypeKind::Shaped(Box::new(Shape {
            element: elem,
            dims: vec![Dim {
                lower: 1,
                count: vals.len() as u64,
                stride: 4,
            }],
            status: ShapeStatus::Ok,
            spec: None,
        })),
    );
    Value::new(ty, bytes, Lval::None)
}

/// The shape of an array value (a resolved one, or a constant-bound array component, or an
/// array of a C unit: see [`c_array_shape`]).
pub fn shape_of(ty: &TypeRef) -> Option<Shape> {
    let st = ty.strip();
    match &st.kind {
        TypeKind::Shaped(s) => Some(Shape {
            element: s.element.clone(),
            dims: s.dims.clone(),
            status: s.status,
            spec: s.spec.clone(),
        }),
        TypeKind::DynArray(spec) => spec.constant_shape(),
        TypeKind::Array { .. } => c_array_shape(ty),
        _ => None,
    }
}

/// An array of a language whose arrays start at 0 (a C unit's `int m[2][3]`) as gdb sees it
/// from Fortran: a Fortran array over the same memory, C's last dimension first, each
/// dimension from 0 (`int (0:2,0:1)`). Not for arrays of characters (C strings stay strings)
/// nor for arrays whose length is not a constant.
pub fn c_array_shape(ty: &TypeRef) -> Option<Shape> {
    let mut counts = Vec::new();
    let mut t = ty.strip();
    while let TypeKind::Array { element, bound } = &t.kind {
        let cohort_dwarf::types::Bound::Count(n) = bound else {
            return None;
        };
        counts.push(*n);
        t = element.strip();
    }
    if counts.is_empty()
        || matches!(
            t.kind,
            TypeKind::Base(Encoding::SignedChar | Encoding::UnsignedChar)
        )
    {
        return None;
    }
    let mut stride = t.byte_size() as i64;
    let mut dims = Vec::new();
    for &count in counts.iter().rev() {
        dims.push(Dim {
            lower: 0,
            count,
            stride,
        });
        stride = stride.saturating_mul(count as i64);
    }
    Some(Shape {
        element: t,
        dims,
        status: ShapeStatus::Ok,
        spec: None,
    })
}

fn shaped_type(shape: Shape) -> TypeRef {
    Type::new(None, 0, TypeKind::Shaped(Box::new(shape)))
}

/// The scalar in `v`.
fn num(v: &Value) -> Result<Num> {
    if v.optimized_out {
        return Err(user("value has been optimized out"));
    }
    let st = v.ty.strip();
    let size = st.byte_size() as usize;
    let b = v
        .bytes
        .get(..size)
        .ok_or_else(|| user("value is not available"))?;
    match &st.kind {
        TypeKind::Base(Encoding::Float) => match size {
            4 => Ok(Num::Real(
                f32::from_le_bytes(b.try_into().map_err(|_| user("bad real"))?) as f64,
            )),
            8 => Ok(Num::Real(f64::from_le_bytes(
                b.try_into().map_err(|_| user("bad real"))?,
            ))),
            16 if is_binary128(&st) => Ok(Num::Real(f128_to_f64(b))),
            10 | 12 | 16 => Ok(Num::Real(f80_to_f64(b))),
            _ => Err(user(format!(
                "real of {size} bytes not supported in expressions"
            ))),
        },
        TypeKind::Base(Encoding::ComplexFloat) => {
            let h = size / 2;
            let part = part_type(&st);
            let re = num(&Value::new(part.clone(), b[..h].to_vec(), Lval::None))?;
            let im = num(&Value::new(part, b[h..].to_vec(), Lval::None))?;
            match (re, im) {
                (Num::Real(r), Num::Real(i)) => Ok(Num::Complex(r, i)),
                _ => Err(user("bad complex")),
            }
        }
        TypeKind::Base(Encoding::Boolean | Encoding::Unsigned | Encoding::UnsignedChar)
        | TypeKind::Pointer(_) => {
            let mut a = [0u8; 16];
            a[..size.min(16)].copy_from_slice(&b[..size.min(16)]);
            Ok(Num::Int(u128::from_le_bytes(a) as i128))
        }
        TypeKind::Base(_) | TypeKind::Enum { .. } => {
            let mut a = [0u8; 16];
            a[..size.min(16)].copy_from_slice(&b[..size.min(16)]);
            let shift = 128 - 8 * size.min(16) as u32;
            Ok(Num::Int(
                ((u128::from_le_bytes(a) as i128) << shift) >> shift,
            ))
        }
        _ => Err(user(
            "Argument to arithmetic operation not a number or boolean.",
        )),
    }
}

impl Ev<'_> {
    fn eval(&self, e: &Expr) -> Result<Value> {
        match e {
            Expr::Int(v) => Ok(if i32::try_from(*v).is_ok() {
                int_value(*v, 4)
            } else {
                int_value(*v, 8)
            }),
            Expr::Real { value, double } => Ok(if *double {
                Value::new(real_type(8), value.to_le_bytes().to_vec(), Lval::None)
            } else {
                Value::new(
                    real_type(4),
                    (*value as f32).to_le_bytes().to_vec(),
                    Lval::None,
                )
            }),
            Expr::Logical(b) => Ok(bool_value(*b)),
            Expr::Complex(re, im) => {
                let (r, i) = (num(&self.eval(re)?)?, num(&self.eval(im)?)?);
                let f = |n: Num| match n {
                    Num::Int(i) => i as f64,
                    Num::Real(f) => f,
                    Num::Complex(r, _) => r,
                };
                let mut b = (f(r) as f32).to_le_bytes().to_vec();
                b.extend((f(i) as f32).to_le_bytes());
                Ok(Value::new(
                    Type::base("complex(kind=4)", 8, Encoding::ComplexFloat),
                    b,
                    Lval::None,
                ))
            }
            Expr::Str(s) => {
                let elem = Type::base("character(kind=1)", 1, Encoding::UnsignedChar);
                let ty = Type::array_of(elem, s.len() as u64);
                Ok(Value::new(ty, s.as_bytes().to_vec(), Lval::None))
            }
            Expr::Name(n) => self.name(n),
            Expr::Component(base, name) => {
                let b = self.eval(base)?;
                self.component(b, name)
            }
            Expr::Call(f, args) => {
                if let Expr::Name(n) = &**f {
                    let lower = n.to_ascii_lowercase();
                    if let Some((_, intr)) = INTRINSICS.iter().find(|(k, _)| *k == lower) {
                        return intr(self, args);
                    }
                }
                let base = self.eval(f)?;
                self.subscript(base, args)
            }
            Expr::Type(_) => Err(user("Attempt to use a type name as an expression")),
            Expr::Cast(t, x) => {
                let ty = ftype(*t)?;
                // A cast gives data of unknown type its type (`(integer*4) q`).
                let v = if matches!(&**x, Expr::Name(_)) {
                    Ev {
                        ctx: self.ctx,
                        typing: true,
                    }
                    .operand(x)?
                } else {
                    self.operand(x)?
                };
                // Data of unknown type, or an array in memory made a scalar, is read as the
                // type at its address (gdb: `(real*8) qtab` is its first element).
                if let Lval::Memory(a) = &v.lval
                    && (matches!(v.ty.strip().kind, TypeKind::Error(_))
                        || shape_of(&v.ty).is_some() && shape_of(&ty).is_none())
                {
                    let a = v.address().unwrap_or(*a);
                    // A logical is the truth of the integer there.
                    if let TypeKind::Base(Encoding::Boolean) = ty.strip().kind {
                        let it = Type::base("integer", ty.byte_size(), Encoding::Signed);
                        let iv = self.complete(Value::new(it, Vec::new(), Lval::Memory(a)))?;
                        return cast(&iv, &ty);
                    }
                    return self.complete(Value::new(ty, Vec::new(), Lval::Memory(a)));
                }
                cast(&v, &ty)
            }
            Expr::SizeOf(x) => {
                let size = match &**x {
                    Expr::Type(t) => ftype(*t)?.byte_size(),
                    _ => {
                        let v = self.operand(x)?;
                        match shape_of(&v.ty) {
                            Some(s) => s.element.byte_size() * s.len(),
                            None => v.ty.byte_size(),
                        }
                    }
                };
                Ok(builtin_int(size as i128, "int", 4))
            }
            Expr::Unary(UnOp::Addr, x) => {
                // The address of data of unknown type is known (`&q`).
                let v = Ev {
                    ctx: self.ctx,
                    typing: true,
                }
                .eval(x)?;
                let Some(a) = v.address() else {
                    return Err(user(
                        "Attempt to take address of value not located in memory.",
                    ));
                };
                Ok(Value::new(
                    Type::pointer_to(v.ty.clone(), 8),
                    a.to_le_bytes().to_vec(),
                    Lval::None,
                ))
            }
            Expr::Unary(UnOp::Deref, x) => {
                // A Fortran pointer is already its target: `*p` is the target, as gdb has it.
                let v = self.eval(x)?;
                if v.ty.is_pointer() {
                    return self.target(v);
                }
                if shape_of(&v.ty).is_some() || !v.ty.is_integer() {
                    return Err(user("Attempt to take contents of a non-pointer value."));
                }
                // An integer is an address (of an `integer`, as gdb reads it).
                let a = self.complete(v)?.as_u64();
                self.complete(Value::new(v_int_type(), Vec::new(), Lval::Memory(a)))
            }
            Expr::Unary(op, x) => {
                let v = self.operand(x)?;
                let n = num(&v)?;
                if *op == UnOp::Neg
                    && let Some(r) = soft_unary(Soft1::Neg, &v, &v.ty.clone())
                {
                    return r;
                }
                Ok(match (op, n) {
                    (UnOp::Plus, _) => v,
                    (UnOp::Neg, Num::Int(i)) => int_value(-i, v.ty.byte_size().max(4)),
                    (UnOp::Neg, Num::Real(f)) => real_of(-f, &v.ty),
                    (UnOp::Neg, Num::Complex(r, i)) => complex_of(-r, -i, &v.ty),
                    (UnOp::Not, n) => bool_value(!truth(n)),
                    (UnOp::Deref | UnOp::Addr, _) => return Err(user("unexpected operator")),
                })
            }
            Expr::Binary(op, l, r) => {
                let (lv, rv) = (self.operand(l)?, self.operand(r)?);
                binary(*op, &lv, &rv)
            }
            Expr::Assign(l, r) => {
                let lv = self.eval(l)?;
                let lv = self.target(lv)?;
                let rv = self.operand(r)?;
                self.assign(lv, rv)
            }
        }
    }

    /// An operand of arithmetic or of an intrinsic: evaluated, a pointer replaced by its
    /// target.
    pub fn operand(&self, e: &Expr) -> Result<Value> {
        let v = self.eval(e)?;
        self.target(v)
    }

    /// `v` itself, or the target of a Fortran pointer to data (a null pointer is an error:
    /// `Attempt to take contents of a non-associated pointer.`).
    pub fn target(&self, v: Value) -> Result<Value> {
        // A polymorphic object: its dynamic type's value.
        if let Some((name, data)) = crate::descriptor::class_dynamic(&v, self.ctx)
            && let Some(t) = self
                .ctx
                .lookup_type(&format!("struct {name}"))
                .or_else(|| self.ctx.lookup_type(&name))
        {
            if data == 0 {
                return Err(user("Attempt to take contents of a non-allocated object."));
            }
            return self.complete(Value::new(t, Vec::new(), Lval::Memory(data)));
        }
        let st = v.ty.strip();
        let TypeKind::Pointer(t) = &st.kind else {
            return Ok(v);
        };
        let t = t.get().clone();
        if matches!(t.strip().kind, TypeKind::Function { .. } | TypeKind::Void) {
            return Ok(v);
        }
        let v = self.complete(v)?;
        let addr = v.as_u64();
        if addr == 0 {
            return Err(user(
                "Attempt to take contents of a non-associated pointer.",
            ));
        }
        if matches!(
            t.strip().kind,
            TypeKind::DynArray(_) | TypeKind::DynString { .. }
        ) {
            let (rt, data) = self.ctx.resolve_object(&t, addr)?;
            return self.complete(Value::new(rt, Vec::new(), Lval::Memory(data)));
        }
        self.complete(Value::new(t, Vec::new(), Lval::Memory(addr)))
    }

    /// A variable by name: as spelled, then in lower case (Fortran compilers lower-case
    /// names), then in upper case (flang's program names or a C unit's `QTAB`); the ELF
    /// symbol table after debug information in every case, as gdb's minimal symbols.
    fn name(&self, n: &str) -> Result<Value> {
        let mut tried: Vec<String> = Vec::new();
        for cand in [
            n.to_string(),
            n.to_ascii_lowercase(),
            n.to_ascii_uppercase(),
        ] {
            if !tried.contains(&cand) {
                tried.push(cand);
            }
        }
        for cand in &tried {
            if let Some(v) = self.ctx.lookup_variable_part(cand, false)? {
                return self.named(v);
            }
        }
        // Any other case (a C unit's `Mixed`), as gdb matches Fortran names.
        if let Some(spelled) = self.ctx.spelled_nocase(n)
            && let Some(v) = self.ctx.lookup_variable_part(&spelled, false)?
        {
            return self.named(v);
        }
        for cand in &tried {
            if let Some(v) = self.ctx.lookup_variable_part(cand, true)? {
                return self.named(v);
            }
        }
        // `procedure::variable`: a local of a procedure, in the innermost frame running it
        // (gdb's FUNCTION::VARIABLE; `mod::name` was looked up above).
        if let Some((scope, var)) = n.rsplit_once("::") {
            for (sc, v) in [
                (scope.to_string(), var.to_string()),
                (scope.to_ascii_lowercase(), var.to_ascii_lowercase()),
                (scope.to_ascii_uppercase(), var.to_ascii_lowercase()),
            ] {
                if let Some(v) = self.ctx.lookup_scoped(&sc, &v)? {
                    return self.named(v);
                }
            }
        }
        Err(user(format!("No symbol \"{n}\" in current context.")))
    }

    /// A variable's value as its name evaluates: a gfortran deferred-length character array
    /// through its descriptor, anything else read.
    fn named(&self, v: Value) -> Result<Value> {
        // Data known only to the ELF symbol table, not cast to a type: gdb's error.
        if let TypeKind::Error(msg) = &v.ty.strip().kind
            && !self.typing
            && matches!(v.lval, Lval::Memory(_))
        {
            return Err(user(msg.clone()));
        }
        if let Some(a) = crate::descriptor::gfortran_char_array(&v, self.ctx)? {
            return Ok(a);
        }
        self.complete(v)
    }

    /// Read a lazily made scalar or aggregate (an array stays lazy: printing reads it).
    fn complete(&self, mut v: Value) -> Result<Value> {
        if v.optimized_out || shape_of(&v.ty).is_some() {
            return Ok(v);
        }
        let size = v.ty.byte_size();
        if (v.bytes.len() as u64) < size
            && let Lval::Memory(a) = v.lval
        {
            if size > 65536 {
                return Err(user(format!(
                    "value requires {size} bytes, which is more than max-value-size"
                )));
            }
            let mut buf = vec![0u8; size as usize];
            self.ctx.read_memory(a, &mut buf)?;
            v.bytes = buf;
        }
        Ok(v)
    }

    /// `base%name`, also over an array of derived type.
    fn component(&self, base: Value, name: &str) -> Result<Value> {
        let base = self.target(base)?;
        if let Some(shape) = shape_of(&base.ty) {
            let (mty, off) = member(&shape.element, name)?;
            let Lval::Memory(a) = base.lval else {
                return Err(user("component of a computed array"));
            };
            return Ok(Value::new(
                shaped_type(Shape {
                    element: mty,
                    dims: shape.dims,
                    status: shape.status,
                    spec: None,
                }),
                Vec::new(),
                Lval::Memory(a.wrapping_add(off)),
            ));
        }
        let (mty, off) = member(&base.ty, name)?;
        let addr = base.address().map(|a| a.wrapping_add(off));
        // gfortran's deferred-length character component: a pointer to a string of length
        // 0, its length in the hidden component `_NAME_length`.
        if let TypeKind::Pointer(t) = &mty.strip().kind
            && matches!(t.get().strip().kind, TypeKind::DynString { .. })
            && let Ok((lty, loff)) = member(&base.ty, &format!("_{name}_length"))
            && let Some(a) = base.address()
        {
            let p = self.complete(Value::new(
                mty.clone(),
                Vec::new(),
                Lval::Memory(addr.unwrap_or(a)),
            ))?;
            let len = self.complete(Value::new(
                lty,
                Vec::new(),
                Lval::Memory(a.wrapping_add(loff)),
            ))?;
            let data = p.as_u64();
            if data == 0 {
                return Err(user("Attempt to take contents of a non-allocated string."));
            }
            let element = match &t.get().strip().kind {
                TypeKind::DynString { element, .. } => element.clone(),
                _ => Type::base("character(kind=1)", 1, Encoding::UnsignedChar),
            };
            let n = (len.as_i64().max(0) as u64).min(1 << 20);
            return self.complete(Value::new(
                Type::array_of(element, n),
                Vec::new(),
                Lval::Memory(data),
            ));
        }
        // An allocatable or pointer component: its shape from its descriptor.
        if matches!(
            mty.strip().kind,
            TypeKind::DynArray(_) | TypeKind::DynString { .. }
        ) && let Some(a) = addr
        {
            let (t, data) = self.ctx.resolve_object(&mty, a)?;
            return self.complete(Value::new(t, Vec::new(), Lval::Memory(data)));
        }
        let size = mty.byte_size() as usize;
        let bytes = base
            .bytes
            .get(off as usize..off as usize + size)
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        let v = Value::new(mty, bytes, addr.map_or(Lval::None, Lval::Memory));
        self.complete(v)
    }

    /// `a(i, j)`, `a(1:5:2, :)`.
    fn subscript(&self, base: Value, args: &[Arg]) -> Result<Value> {
        let base = self.target(base)?;
        let Some(shape) = shape_of(&base.ty) else {
            return self.substring(base, args);
        };
        // An element of an optimized-out array is optimized out (as gdb prints it).
        if base.optimized_out {
            if args.iter().all(|a| matches!(a, Arg::Value(_))) {
                return Ok(Value::optimized_out(shape.element.clone()));
            }
            return Ok(base);
        }
        // `swarm%pos(2)`: an array of array components; the subscripts select within each
        // component, the outer dimensions stay (the element's dimensions come first).
        if let Some(inner) = shape_of(&shape.element)
            && let Lval::Memory(a) = base.lval
            && shape.status == ShapeStatus::Ok
        {
            let one = Value::new(shaped_type(inner), Vec::new(), Lval::Memory(a));
            let part = self.subscript(one, args)?;
            let Lval::Memory(pa) = part.lval else {
                return Err(user("component of a computed array"));
            };
            let (element, mut dims) = match shape_of(&part.ty) {
                Some(s) => (s.element, s.dims),
                None => (part.ty.clone(), Vec::new()),
            };
            dims.extend(shape.dims.iter().copied());
            return Ok(Value::new(
                shaped_type(Shape {
                    element,
                    dims,
                    status: ShapeStatus::Ok,
                    spec: None,
                }),
                Vec::new(),
                Lval::Memory(pa),
            ));
        }
        match shape.status {
            ShapeStatus::NotAllocated => {
                return Err(user("Cannot access an unallocated array"));
            }
            ShapeStatus::NotAssociated => {
                return Err(user("Cannot access an unassociated array"));
            }
            ShapeStatus::Ok => {}
        }
        if args.len() != shape.dims.len() {
            return Err(user("Wrong number of subscripts"));
        }
        let mut off = 0i64;
        let mut dims = Vec::new();
        for (a, d) in args.iter().zip(&shape.dims) {
            match a {
                Arg::Value(e) => {
                    let i = self.int(e)?;
                    if i < d.lower || i > d.upper() {
                        return Err(user("no such vector element"));
                    }
                    off += (i - d.lower) * d.stride;
                }
                Arg::Range(lo, hi, step) => {
                    let lo = match lo {
                        Some(e) => self.int(e)?,
                        None => d.lower,
                    };
                    let hi = match hi {
                        Some(e) => self.int(e)?,
                        None if d.is_assumed_size() => {
                            return Err(user(
                                "An assumed-size array's last dimension has no upper bound: \
                                 give one",
                            ));
                        }
                        None => d.upper(),
                    };
                    let step = match step {
                        Some(e) => self.int(e)?,
                        None => 1,
                    };
                    if step == 0 {
                        return Err(user("Stride must not be 0"));
                    }
                    let count = if (step > 0 && hi < lo) || (step < 0 && hi > lo) {
                        0
                    } else {
                        ((hi - lo) / step + 1) as u64
                    };
                    if count > 0 {
                        let last = lo + (count as i64 - 1) * step;
                        if lo < d.lower || lo > d.upper() || last < d.lower || last > d.upper() {
                            return Err(user("array subscript out of bounds"));
                        }
                        off += (lo - d.lower) * d.stride;
                    }
                    dims.push(Dim {
                        lower: 1,
                        count,
                        stride: d.stride * step,
                    });
                }
            }
        }
        let esize = shape.element.byte_size() as usize;
        if dims.is_empty() {
            // One element.
            let v = match base.lval {
                Lval::Memory(a) => Value::new(
                    shape.element.clone(),
                    Vec::new(),
                    Lval::Memory(a.wrapping_add(off as u64)),
                ),
                _ => Value::new(
                    shape.element.clone(),
                    base.bytes
                        .get(off as usize..off as usize + esize)
                        .map(<[u8]>::to_vec)
                        .ok_or_else(|| user("no such vector element"))?,
                    Lval::None,
                ),
            };
            return self.complete(v);
        }
        let Lval::Memory(a) = base.lval else {
            return Err(user("section of a computed array"));
        };
        Ok(Value::new(
            shaped_type(Shape {
                element: shape.element.clone(),
                dims,
                status: ShapeStatus::Ok,
                spec: None,
            }),
            Vec::new(),
            Lval::Memory(a.wrapping_add(off as u64)),
        ))
    }

    /// `s(2:4)` of a character scalar.
    fn substring(&self, base: Value, args: &[Arg]) -> Result<Value> {
        let st = base.ty.strip();
        let (TypeKind::Array { element, .. }, [Arg::Range(lo, hi, None)]) = (&st.kind, args) else {
            return Err(user("Cannot perform substring on this type"));
        };
        let w = element.byte_size().max(1) as i64;
        let len = st.byte_size() as i64 / w;
        let lo = match lo {
            Some(e) => self.int(e)?,
            None => 1,
        };
        let hi = match hi {
            Some(e) => self.int(e)?,
            None => len,
        };
        if lo < 1 || hi > len {
            return Err(user("substring out of bounds"));
        }
        let n = (hi - lo + 1).max(0);
        let bytes = base
            .bytes
            .get(((lo - 1) * w) as usize..((lo - 1 + n) * w) as usize)
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        let lval = match base.lval {
            Lval::Memory(a) => Lval::Memory(a.wrapping_add(((lo - 1) * w) as u64)),
            _ => Lval::None,
        };
        Ok(Value::new(
            Type::array_of(element.clone(), n as u64),
            bytes,
            lval,
        ))
    }

    fn int(&self, e: &Expr) -> Result<i64> {
        match num(&self.eval(e)?)? {
            Num::Int(i) => Ok(i as i64),
            _ => Err(user("array subscript must be of integer type")),
        }
    }

    /// The array argument of an inquiry intrinsic.
    fn array_arg(&self, name: &str, args: &[Arg]) -> Result<(Shape, Option<i64>)> {
        let (a, dim) = match args {
            [Arg::Value(a)] => (a, None),
            [Arg::Value(a), Arg::Value(d)] | [Arg::Value(a), Arg::Value(d), Arg::Value(_)]
                if name != "shape" =>
            {
                (a, Some(self.int(d)?))
            }
            _ => {
                return Err(user(format!(
                    "Wrong number of arguments to {}",
                    name.to_uppercase()
                )));
            }
        };
        let v = self.eval(a)?;
        let shape = shape_of(&v.ty).ok_or_else(|| {
            user(format!(
                "{} can only be applied to arrays",
                name.to_uppercase()
            ))
        })?;
        if let Some(d) = dim
            && (d < 1 || d as usize > shape.dims.len())
        {
            return Err(user(format!(
                "{} dimension {d} out of range",
                name.to_uppercase()
            )));
        }
        Ok((shape, dim))
    }

    fn assign(&self, lv: Value, rv: Value) -> Result<Value> {
        if matches!(lv.lval, Lval::None) {
            return Err(user("Left operand of assignment is not an lvalue."));
        }
        let st = lv.ty.strip();
        if let (
            TypeKind::Array { element, .. },
            TypeKind::Array {
                element: relement, ..
            },
        ) = (&st.kind, &rv.ty.strip().kind)
            && element.byte_size() == relement.byte_size()
        {
            // A character value: copied, blank-padded or cut to the left side's length.
            let size = st.byte_size() as usize;
            let w = element.byte_size().max(1) as usize;
            let mut bytes = rv.bytes.clone();
            bytes.truncate(size);
            while bytes.len() < size {
                let mut blank = vec![0u8; w];
                blank[0] = b' ';
                bytes.extend(blank);
            }
            bytes.truncate(size);
            self.ctx.write(&lv.lval, &bytes)?;
            return Ok(Value::new(lv.ty.clone(), bytes, lv.lval));
        }
        let n = num(&rv)?;
        let size = st.byte_size();
        let bytes = match &st.kind {
            _ if ext_of(&lv.ty).is_some() => {
                soft_unary(Soft1::Convert, &rv, &lv.ty)
                    .unwrap_or_else(|| Err(user("Invalid cast.")))?
                    .bytes
            }
            TypeKind::Base(Encoding::Float) => real_of(as_f64(n), &lv.ty).bytes,
            TypeKind::Base(Encoding::ComplexFloat) => {
                let (r, i) = match n {
                    Num::Complex(r, i) => (r, i),
                    n => (as_f64(n), 0.0),
                };
                complex_of(r, i, &lv.ty).bytes
            }
            TypeKind::Base(Encoding::Boolean) => {
                (truth(n) as u128).to_le_bytes()[..size as usize].to_vec()
            }
            TypeKind::Base(_) => {
                let i = match n {
                    Num::Int(i) => i,
                    Num::Real(f) => f as i128,
                    Num::Complex(r, _) => r as i128,
                };
                i.to_le_bytes()[..size as usize].to_vec()
            }
            _ => return Err(user("Invalid cast.")),
        };
        self.ctx.write(&lv.lval, &bytes)?;
        Ok(Value::new(lv.ty.clone(), bytes, lv.lval))
    }
}

fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Real(f) => f,
        Num::Complex(r, _) => r,
    }
}

fn truth(n: Num) -> bool {
    match n {
        Num::Int(i) => i != 0,
        Num::Real(f) => f != 0.0,
        Num::Complex(r, i) => r != 0.0 || i != 0.0,
    }
}

fn real_value(f: f64, size: u64) -> Value {
    if size == 4 {
        Value::new(real_type(4), (f as f32).to_le_bytes().to_vec(), Lval::None)
    } else {
        Value::new(real_type(8), f.to_le_bytes().to_vec(), Lval::None)
    }
}

/// Whether a 16-byte real is IEEE binary128 (`real(kind=16)`), not x87 extended
/// (`real(kind=10)`, stored in 16 bytes).
fn is_binary128(st: &Type) -> bool {
    st.size == 16
        && st
            .name
            .as_deref()
            .is_some_and(|n| n.contains("kind=16") || n.contains("Float128") || n.ends_with("*16"))
}

/// The type of each part of a complex type (`complex(kind=10)` → `real(kind=10)`).
fn part_type(st: &Type) -> TypeRef {
    let h = st.size / 2;
    let kind10 = st.name.as_deref().is_some_and(|n| n.contains("kind=10"));
    match h {
        16 if kind10 => Type::base("real(kind=10)", 16, Encoding::Float),
        16 => Type::base("real(kind=16)", 16, Encoding::Float),
        _ => real_type(h),
    }
}

/// `f` as a value of the real type `ty` (its size and format).
fn real_of(f: f64, ty: &TypeRef) -> Value {
    let st = ty.strip();
    let bytes = match st.size {
        4 => (f as f32).to_le_bytes().to_vec(),
        8 => f.to_le_bytes().to_vec(),
        16 if is_binary128(&st) => f64_to_f128(f).to_vec(),
        n @ (10 | 12 | 16) => {
            let mut b = f64_to_f80(f).to_vec();
            b.resize(n as usize, 0);
            b
        }
        _ => return real_value(f, 8),
    };
    Value::new(ty.clone(), bytes, Lval::None)
}

/// `(r, i)` as a value of the complex type `ty`.
fn complex_of(r: f64, i: f64, ty: &TypeRef) -> Value {
    let st = ty.strip();
    let part = part_type(&st);
    let mut bytes = real_of(r, &part).bytes;
    bytes.extend(real_of(i, &part).bytes);
    Value::new(ty.clone(), bytes, Lval::None)
}

/// A component of a derived type by name (case-insensitive): its type and offset.
fn member(ty: &TypeRef, name: &str) -> Result<(TypeRef, u64)> {
    let st = ty.strip();
    let TypeKind::Aggregate { members, .. } = &st.kind else {
        return Err(user(
            "Attempt to extract a component of a value that is not a structure.",
        ));
    };
    for m in members {
        if m.name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
        {
            return Ok((m.ty.get().clone(), m.offset));
        }
    }
    // A component of a parent type (gfortran and flang nest the parent as a component
    // named after the parent type, first in the extension).
    for m in members {
        let mt = m.ty.get();
        if m.offset == 0
            && matches!(mt.strip().kind, TypeKind::Aggregate { .. })
            && (m.is_base || mt.strip().name.as_deref() == m.name.as_deref())
            && let Ok((t, off)) = member(mt, name)
        {
            return Ok((t, off));
        }
    }
    Err(user(format!("There is no member named {name}.")))
}

/// Whether ordering `o` satisfies the comparison `op`.
fn cmp_op(op: BinOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Eq => o == Equal,
        BinOp::Ne => o != Equal,
        BinOp::Lt => o == Less,
        BinOp::Le => o != Greater,
        BinOp::Gt => o == Greater,
        _ => o != Less,
    }
}

// ---------------------------------------------------------------------------------------------
// real(kind=10) (x87 extended) and real(kind=16) (binary128) in software: rustc_apfloat,
// correctly rounded in the format of the result, as gdb 13 computes them.
// ---------------------------------------------------------------------------------------------

/// A real format wider than `f64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ext {
    X87,
    Quad,
}

/// The extended format of a real type, or of a complex type's parts; `None` for others.
fn ext_of(ty: &TypeRef) -> Option<Ext> {
    let st = ty.strip();
    match &st.kind {
        TypeKind::Base(Encoding::Float) => match st.size {
            16 if is_binary128(&st) => Some(Ext::Quad),
            10 | 12 | 16 => Some(Ext::X87),
            _ => None,
        },
        TypeKind::Base(Encoding::ComplexFloat) if st.size >= 20 => ext_of(&part_type(&st)),
        _ => None,
    }
}

/// A real of type `st` (bytes `b`, its size) as binary128 (exact: every real format here
/// fits in binary128).
fn quad_of(st: &Type, b: &[u8]) -> Option<Quad> {
    let mut loses = false;
    Some(match b.len() {
        4 => {
            Single::from_bits(u32::from_le_bytes(b.try_into().ok()?) as u128)
                .convert(&mut loses)
                .value
        }
        8 => {
            Double::from_bits(u64::from_le_bytes(b.try_into().ok()?) as u128)
                .convert(&mut loses)
                .value
        }
        16 if is_binary128(st) => Quad::from_bits(u128::from_le_bytes(b.try_into().ok()?)),
        10 | 12 | 16 => {
            let mut a = [0u8; 16];
            a[..10].copy_from_slice(&b[..10]);
            X87DoubleExtended::from_bits(u128::from_le_bytes(a))
                .convert(&mut loses)
                .value
        }
        _ => return None,
    })
}

/// A scalar (integer, logical, real or complex of any kind) as `(re, im)` in `F`, rounded
/// once where `F` is narrower.
fn soft_parts<F: Float>(v: &Value) -> Result<(F, F)>
where
    Quad: FloatConvert<F>,
{
    let n = num(v)?;
    let st = v.ty.strip();
    let b = v
        .bytes
        .get(..st.size as usize)
        .ok_or_else(|| user("value is not available"))?;
    let real = |ty: &Type, b: &[u8]| -> Result<F> {
        let q = quad_of(ty, b).ok_or_else(|| user("bad real"))?;
        Ok(q.convert(&mut false).value)
    };
    match (&st.kind, n) {
        (TypeKind::Base(Encoding::Float), _) => Ok((real(&st, b)?, F::ZERO)),
        (TypeKind::Base(Encoding::ComplexFloat), _) => {
            let h = b.len() / 2;
            let part = part_type(&st).strip();
            Ok((real(&part, &b[..h])?, real(&part, &b[h..])?))
        }
        (_, Num::Int(i)) => Ok((F::from_i128(i).value, F::ZERO)),
        _ => Err(user("bad number")),
    }
}

/// `(re, im)` as a value of the real (`im` dropped) or complex type `ty`.
fn soft_value<F: Float>(re: F, im: F, ty: &TypeRef) -> Value {
    let st = ty.strip();
    let bytes = |f: F, n: u64| {
        let mut b = f.to_bits().to_le_bytes().to_vec();
        b.truncate(n as usize);
        b
    };
    let out = match &st.kind {
        TypeKind::Base(Encoding::ComplexFloat) => {
            let h = st.size / 2;
            let mut b = bytes(re, h);
            b.extend(bytes(im, h));
            b
        }
        _ => bytes(re, st.size),
    };
    Value::new(ty.clone(), out, Lval::None)
}

/// A one-operand operation in software.
#[derive(Clone, Copy)]
enum Soft1 {
    /// `v` converted to `ty`.
    Convert,
    Neg,
    Abs,
}

fn soft1<F: Float>(op: Soft1, v: &Value, ty: &TypeRef) -> Result<Value>
where
    Quad: FloatConvert<F>,
{
    let (a, b) = soft_parts::<F>(v)?;
    let (a, b) = match op {
        Soft1::Convert => (a, b),
        Soft1::Neg => (-a, -b),
        Soft1::Abs => (a.abs(), b.abs()),
    };
    Ok(soft_value(a, b, ty))
}

/// `op` on `v` giving type `ty`, in software where `ty` is an extended real or complex;
/// `None` for other types.
fn soft_unary(op: Soft1, v: &Value, ty: &TypeRef) -> Option<Result<Value>> {
    Some(match ext_of(ty)? {
        Ext::X87 => soft1::<X87DoubleExtended>(op, v, ty),
        Ext::Quad => soft1::<Quad>(op, v, ty),
    })
}

fn soft2<F: Float>(op: BinOp, lv: &Value, rv: &Value, ty: &TypeRef) -> Result<Value>
where
    Quad: FloatConvert<F>,
{
    let ((a, b), (c, d)) = (soft_parts::<F>(lv)?, soft_parts::<F>(rv)?);
    let complex = matches!(ty.strip().kind, TypeKind::Base(Encoding::ComplexFloat));
    let eq = |x: F, y: F| x.partial_cmp(&y) == Some(std::cmp::Ordering::Equal);
    let (re, im) = match op {
        BinOp::Add => ((a + c).value, (b + d).value),
        BinOp::Sub => ((a - c).value, (b - d).value),
        // gdb 13's complex_binop: each step rounded in the parts' format.
        BinOp::Mul if complex => (
            ((a * c).value - (b * d).value).value,
            ((a * d).value + (b * c).value).value,
        ),
        BinOp::Mul => ((a * c).value, F::ZERO),
        BinOp::Div if complex => {
            let q = ((c * c).value + (d * d).value).value;
            (
                (((a * c).value + (b * d).value).value / q).value,
                (((b * c).value - (a * d).value).value / q).value,
            )
        }
        BinOp::Div => ((a / c).value, F::ZERO),
        BinOp::Eq if complex => return Ok(bool_value(eq(a, c) && eq(b, d))),
        BinOp::Ne if complex => return Ok(bool_value(!(eq(a, c) && eq(b, d)))),
        _ if complex => return Err(user("complex values cannot be ordered")),
        _ => {
            let o = a.partial_cmp(&c).unwrap_or(std::cmp::Ordering::Less);
            return Ok(bool_value(cmp_op(op, o)));
        }
    };
    Ok(soft_value(re, im, ty))
}

/// `lv op rv` with result type `ty` (for a comparison: the operands' common type), in
/// software where `ty` is an extended real or complex; `None` for other types.
fn soft_binary(op: BinOp, lv: &Value, rv: &Value, ty: &TypeRef) -> Option<Result<Value>> {
    Some(match ext_of(ty)? {
        Ext::X87 => soft2::<X87DoubleExtended>(op, lv, rv, ty),
        Ext::Quad => soft2::<Quad>(op, lv, rv, ty),
    })
}

fn binary(op: BinOp, lv: &Value, rv: &Value) -> Result<Value> {
    let (l, r) = (num(lv)?, num(rv)?);
    let isize = lv.ty.byte_size().max(rv.ty.byte_size()).clamp(4, 8);
    // The result's real (or complex) type: the wider operand's of that kind.
    // Of equal sizes, kind 16 (binary128) is wider than kind 10 (x87).
    let rank = |ty: &TypeRef| (ty.byte_size(), ext_of(ty) == Some(Ext::Quad));
    let wider = |pick: fn(Num) -> bool| -> Option<TypeRef> {
        match (pick(l), pick(r)) {
            (true, true) if rank(&rv.ty) > rank(&lv.ty) => Some(rv.ty.clone()),
            (true, _) => Some(lv.ty.clone()),
            (_, true) => Some(rv.ty.clone()),
            _ => None,
        }
    };
    let rty = wider(|n| matches!(n, Num::Real(_))).unwrap_or_else(|| real_type(4));
    let cmp = |o: std::cmp::Ordering| cmp_op(op, o);
    match op {
        BinOp::And => return Ok(bool_value(truth(l) && truth(r))),
        BinOp::Or => return Ok(bool_value(truth(l) || truth(r))),
        BinOp::Eqv => return Ok(bool_value(truth(l) == truth(r))),
        BinOp::Neqv => return Ok(bool_value(truth(l) != truth(r))),
        _ => {}
    }
    // real(kind=10) / real(kind=16) and their complex: in that format, in software (gdb 13
    // computes them in full precision too). `**` stays in f64.
    if op != BinOp::Pow && !matches!((l, r), (Num::Int(_), Num::Int(_))) {
        let ty = if matches!((l, r), (Num::Complex(..), _) | (_, Num::Complex(..))) {
            wider(|n| matches!(n, Num::Complex(..)))
        } else {
            Some(rty.clone())
        };
        if let Some(ty) = ty
            && let Some(v) = soft_binary(op, lv, rv, &ty)
        {
            return v;
        }
    }
    match (l, r) {
        (Num::Int(a), Num::Int(b)) => match op {
            BinOp::Add => Ok(int_value(a.wrapping_add(b), isize)),
            BinOp::Sub => Ok(int_value(a.wrapping_sub(b), isize)),
            BinOp::Mul => Ok(int_value(a.wrapping_mul(b), isize)),
            BinOp::Div => {
                if b == 0 {
                    Err(user("Division by zero"))
                } else {
                    Ok(int_value(a / b, isize))
                }
            }
            BinOp::Pow => {
                let v = if b < 0 {
                    match a {
                        1 => 1,
                        -1 => {
                            if b % 2 == 0 {
                                1
                            } else {
                                -1
                            }
                        }
                        _ => 0,
                    }
                } else {
                    a.wrapping_pow(u32::try_from(b).unwrap_or(u32::MAX))
                };
                Ok(int_value(v, isize))
            }
            _ => Ok(bool_value(cmp(a.cmp(&b)))),
        },
        (Num::Complex(..), _) | (_, Num::Complex(..)) => {
            let cty = wider(|n| matches!(n, Num::Complex(..)))
                .unwrap_or_else(|| Type::base("complex(kind=4)", 8, Encoding::ComplexFloat));
            let parts = |n: Num| match n {
                Num::Complex(r, i) => (r, i),
                n => (as_f64(n), 0.0),
            };
            let ((a, b), (c, d)) = (parts(l), parts(r));
            let (re, im) = match op {
                BinOp::Add => (a + c, b + d),
                BinOp::Sub => (a - c, b - d),
                BinOp::Mul => (a * c - b * d, a * d + b * c),
                BinOp::Div => {
                    let q = c * c + d * d;
                    ((a * c + b * d) / q, (b * c - a * d) / q)
                }
                BinOp::Pow => match r {
                    Num::Int(n) if (0..=1024).contains(&n) => {
                        let (mut x, mut y) = (1.0, 0.0);
                        for _ in 0..n {
                            (x, y) = (x * a - y * b, x * b + y * a);
                        }
                        (x, y)
                    }
                    _ => return Err(user("complex power with this exponent is not supported")),
                },
                BinOp::Eq => return Ok(bool_value(a == c && b == d)),
                BinOp::Ne => return Ok(bool_value(a != c || b != d)),
                _ => return Err(user("complex values cannot be ordered")),
            };
            Ok(complex_of(re, im, &cty))
        }
        (a, b) => {
            let (a, b) = (as_f64(a), as_f64(b));
            match op {
                BinOp::Add => Ok(real_of(a + b, &rty)),
                BinOp::Sub => Ok(real_of(a - b, &rty)),
                BinOp::Mul => Ok(real_of(a * b, &rty)),
                BinOp::Div => Ok(real_of(a / b, &rty)),
                BinOp::Pow => Ok(real_of(a.powf(b), &rty)),
                _ => Ok(bool_value(cmp(a
                    .partial_cmp(&b)
                    .unwrap_or(std::cmp::Ordering::Less)))),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Intrinsics
// ---------------------------------------------------------------------------------------------

/// The integer type of an intrinsic's result: `integer*4`, or of the KIND its argument `at`
/// gives (`size(a, 1, 8)` is `integer*8`), checked before the rest as gdb's parser does.
fn result_kind(ev: &Ev<'_>, args: &[Arg], at: usize) -> Result<TypeRef> {
    let kind = match args.get(at) {
        Some(Arg::Value(k)) => Some(ev.int(k)?),
        _ => None,
    };
    ftype(FType {
        base: FBase::Integer,
        kind,
    })
}

/// `v` as a value of the integer type `ty`.
fn int_of(v: i128, ty: &TypeRef) -> Value {
    let size = ty.byte_size() as usize;
    Value::new(ty.clone(), v.to_le_bytes()[..size].to_vec(), Lval::None)
}

fn intr_size(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let ty = result_kind(ev, args, 2)?;
    let (s, dim) = ev.array_arg("size", args)?;
    if s.status != ShapeStatus::Ok {
        return Err(user("SIZE can only be applied to allocated arrays"));
    }
    open_upper_bound("size", &s, dim)?;
    let n = match dim {
        Some(d) => s.dims[d as usize - 1].count,
        None => s.len(),
    };
    Ok(int_of(n as i128, &ty))
}

/// An error when the dimension `dim` asked of (all when `None`) is the open last dimension of
/// an assumed-size array: SIZE, UBOUND and SHAPE have no answer there.
fn open_upper_bound(name: &str, s: &Shape, dim: Option<i64>) -> Result<()> {
    let open = match dim {
        Some(d) => s.dims[d as usize - 1].is_assumed_size(),
        None => s.dims.iter().any(Dim::is_assumed_size),
    };
    if open {
        return Err(user(format!(
            "{} of an assumed-size array: its last dimension has no upper bound",
            name.to_uppercase()
        )));
    }
    Ok(())
}

fn bounds(ev: &Ev<'_>, name: &str, args: &[Arg], upper: bool) -> Result<Value> {
    let ty = result_kind(ev, args, 2)?;
    let (s, dim) = ev.array_arg(name, args)?;
    if s.status != ShapeStatus::Ok {
        return Err(user(format!(
            "{} can only be applied to allocated arrays",
            name.to_uppercase()
        )));
    }
    if upper {
        open_upper_bound(name, &s, dim)?;
    }
    let b = |d: &Dim| if upper { d.upper() } else { d.lower };
    match dim {
        Some(d) => Ok(int_of(b(&s.dims[d as usize - 1]) as i128, &ty)),
        None => Ok(int_array(&s.dims.iter().map(b).collect::<Vec<_>>())),
    }
}

fn intr_lbound(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    bounds(ev, "lbound", args, false)
}

fn intr_ubound(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    bounds(ev, "ubound", args, true)
}

fn intr_shape(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    // A scalar's shape is empty.
    if let [Arg::Value(a)] = args
        && shape_of(&ev.eval(a)?.ty).is_none()
    {
        return Ok(int_array(&[]));
    }
    let (s, _) = ev.array_arg("shape", args)?;
    open_upper_bound("shape", &s, None)?;
    Ok(int_array(
        &s.dims.iter().map(|d| d.count as i64).collect::<Vec<_>>(),
    ))
}

fn intr_rank(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let [Arg::Value(a)] = args else {
        return Err(user("Wrong number of arguments to RANK"));
    };
    let v = ev.eval(a)?;
    Ok(builtin_int(
        shape_of(&v.ty).map_or(0, |s| s.dims.len()) as i128,
        "integer*4",
        4,
    ))
}

fn status_of(ev: &Ev<'_>, name: &str, args: &[Arg]) -> Result<ShapeStatus> {
    let [Arg::Value(a)] = args else {
        return Err(user(format!(
            "Wrong number of arguments to {}",
            name.to_uppercase()
        )));
    };
    let v = ev.eval(a)?;
    shape_of(&v.ty).map(|s| s.status).ok_or_else(|| {
        user(format!(
            "{} can only be applied to arrays",
            name.to_uppercase()
        ))
    })
}

fn intr_allocated(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    Ok(builtin_bool(
        status_of(ev, "allocated", args)? != ShapeStatus::NotAllocated,
    ))
}

fn intr_associated(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    if let [Arg::Value(p), Arg::Value(t)] = args {
        return associated_with(ev, p, t);
    }
    // A scalar pointer: associated when not null.
    if let [Arg::Value(a)] = args {
        let v = ev.eval(a)?;
        if matches!(v.ty.strip().kind, TypeKind::Pointer(_)) {
            let v = ev.complete(v)?;
            return Ok(builtin_bool(v.as_u64() != 0));
        }
        // gdb asks for a pointer: a type with an association status (`DW_AT_associated`);
        // an allocatable or fixed array or a scalar is an error, not `.TRUE.`.
        let pointer = shape_of(&v.ty).and_then(|s| s.spec).is_some_and(
            |t| matches!(&t.strip().kind, TypeKind::DynArray(a) if a.associated.is_some()),
        );
        if !pointer {
            return Err(user("ASSOCIATED can only be applied to pointers"));
        }
    }
    Ok(builtin_bool(
        status_of(ev, "associated", args)? != ShapeStatus::NotAssociated,
    ))
}

/// `associated(pointer, target)`: whether the pointer points at the target (a pointer
/// target: at its target), element for element for arrays.
fn associated_with(ev: &Ev<'_>, p: &Expr, t: &Expr) -> Result<Value> {
    let pv = ev.eval(p)?;
    let tv = ev.eval(t)?;
    let not_pointer = || user("ASSOCIATED can only be applied to pointers");
    let elem = |v: &Value| match shape_of(&v.ty) {
        Some(s) => (s.element.strip(), Some(s)),
        None => match &v.ty.strip().kind {
            TypeKind::Pointer(t) => (t.get().strip(), None),
            _ => (v.ty.strip(), None),
        },
    };
    let (pe, ps) = elem(&pv);
    let (te, ts) = elem(&tv);
    match &ps {
        Some(s) if s.status == ShapeStatus::NotAllocated => return Err(not_pointer()),
        Some(_) => {}
        None if !pv.ty.is_pointer() => return Err(not_pointer()),
        None => {}
    }
    if pe.byte_size() != te.byte_size()
        || std::mem::discriminant(&pe.kind) != std::mem::discriminant(&te.kind)
        || ps.is_some() != ts.is_some()
    {
        return Err(user(
            "arguments to associated must be of same type and kind",
        ));
    }
    let yes = match (ps, ts) {
        (Some(a), Some(b)) => {
            a.status == ShapeStatus::Ok
                && b.status == ShapeStatus::Ok
                && a.dims.len() == b.dims.len()
                && a.dims
                    .iter()
                    .zip(&b.dims)
                    .all(|(x, y)| x.count == y.count && (x.stride == y.stride || x.count <= 1))
                && !a.is_empty()
                && pv.address().is_some()
                && pv.address() == tv.address()
        }
        _ => {
            let pa = ev.complete(pv)?.as_u64();
            let ta = if tv.ty.is_pointer() {
                ev.complete(tv)?.as_u64()
            } else {
                tv.address().unwrap_or(0)
            };
            pa != 0 && pa == ta
        }
    };
    Ok(builtin_bool(yes))
}

/// `floor(x[, kind])` and `ceiling(x[, kind])`: an integer of that kind (4 by default).
fn round_to_int(ev: &Ev<'_>, name: &str, args: &[Arg], up: bool) -> Result<Value> {
    let (x, k) = match args {
        [Arg::Value(x)] => (x, None),
        [Arg::Value(x), Arg::Value(k)] => (x, Some(ev.int(k)?)),
        _ => {
            return Err(user(format!(
                "Wrong number of arguments to {}",
                name.to_uppercase()
            )));
        }
    };
    let ty = ftype(FType {
        base: FBase::Integer,
        kind: k,
    })?;
    let v = ev.operand(x)?;
    let Num::Real(f) = num(&v)? else {
        return Err(user(format!(
            "argument to {} must be of type float",
            name.to_uppercase()
        )));
    };
    let r = if up { f.ceil() } else { f.floor() };
    Ok(int_of(r as i128, &ty))
}

fn intr_floor(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    round_to_int(ev, "floor", args, false)
}

fn intr_ceiling(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    round_to_int(ev, "ceiling", args, true)
}

/// `modulo(a, p)`: `a - floor(a / p) * p`, the sign of `p`; both of one type.
fn intr_modulo(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let [Arg::Value(a), Arg::Value(p)] = args else {
        return Err(user("Wrong number of arguments to MODULO"));
    };
    let (av, pv) = (ev.operand(a)?, ev.operand(p)?);
    let (an, pn) = (num(&av)?, num(&pv)?);
    let same = matches!(
        (an, pn),
        (Num::Int(_), Num::Int(_)) | (Num::Real(_), Num::Real(_))
    );
    if !same {
        return Err(user("non-matching types for parameters to MODULO ()"));
    }
    match (an, pn) {
        (Num::Int(_), Num::Int(0)) => Err(user("Division by zero")),
        (Num::Int(x), Num::Int(y)) => Ok(builtin_int(
            x.rem_euclid(y) + if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 },
            "int",
            av.ty.byte_size().clamp(4, 8),
        )),
        (x, y) => {
            let (x, y) = (as_f64(x), as_f64(y));
            let ty = if av.ty.byte_size() >= pv.ty.byte_size() {
                &av.ty
            } else {
                &pv.ty
            };
            Ok(real_of(x - (x / y).floor() * y, ty))
        }
    }
}

fn intr_abs(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let [Arg::Value(a)] = args else {
        return Err(user("Wrong number of arguments to ABS"));
    };
    let v = ev.operand(a)?;
    match num(&v)? {
        Num::Int(i) => Ok(builtin_int(i.abs(), "int", v.ty.byte_size().clamp(4, 8))),
        Num::Real(f) => {
            soft_unary(Soft1::Abs, &v, &v.ty.clone()).unwrap_or_else(|| Ok(real_of(f.abs(), &v.ty)))
        }
        // The modulus, of the parts' kind (gdb 13: "ABS of type complex… not supported").
        Num::Complex(r, i) => Ok(real_of(r.hypot(i), &part_type(&v.ty.strip()))),
    }
}

fn intr_mod(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let [Arg::Value(a), Arg::Value(p)] = args else {
        return Err(user("Wrong number of arguments to MOD"));
    };
    let (av, pv) = (ev.operand(a)?, ev.operand(p)?);
    match (num(&av)?, num(&pv)?) {
        (Num::Int(_), Num::Int(0)) => Err(user("Division by zero")),
        (Num::Int(x), Num::Int(y)) => Ok(builtin_int(
            x % y,
            "int",
            av.ty.byte_size().max(pv.ty.byte_size()).clamp(4, 8),
        )),
        (x, y) => Ok(real_value(
            as_f64(x) % as_f64(y),
            av.ty.byte_size().max(pv.ty.byte_size()),
        )),
    }
}

/// The single argument of an intrinsic, evaluated (a pointer's target).
fn one(ev: &Ev<'_>, name: &str, args: &[Arg]) -> Result<Value> {
    match args {
        [Arg::Value(a)] => ev.operand(a),
        _ => Err(user(format!(
            "Wrong number of arguments to {}",
            name.to_uppercase()
        ))),
    }
}

/// `kind(x)`: the kind parameter (bytes; for complex, of each part). gdb types it `int`.
fn intr_kind(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let v = one(ev, "kind", args)?;
    let st = match shape_of(&v.ty) {
        Some(s) => s.element.strip(),
        None => v.ty.strip(),
    };
    let k = match &st.kind {
        TypeKind::Base(Encoding::ComplexFloat) => st.size / 2,
        TypeKind::Base(_) => st.size,
        _ => {
            return Err(user(format!(
                "KIND of type {} not supported",
                crate::typeprint::whatis(&v.ty)
            )));
        }
    };
    Ok(builtin_int(k as i128, "int", 4))
}

/// `cmplx(re[, im])`: `complex*4`.
fn intr_cmplx(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    if let [Arg::Value(r), Arg::Value(i), Arg::Value(k)] = args {
        let ty = ftype(FType {
            base: FBase::Complex,
            kind: Some(ev.int(k)?),
        })?;
        let (re, im) = (num(&ev.operand(r)?)?, num(&ev.operand(i)?)?);
        return Ok(complex_of(as_f64(re), as_f64(im), &ty));
    }
    let (re, im) = match args {
        [Arg::Value(r)] => (num(&ev.operand(r)?)?, Num::Real(0.0)),
        [Arg::Value(r), Arg::Value(i)] => (num(&ev.operand(r)?)?, num(&ev.operand(i)?)?),
        _ => return Err(user("Wrong number of arguments to CMPLX")),
    };
    let mut b = (as_f64(re) as f32).to_le_bytes().to_vec();
    b.extend((as_f64(im) as f32).to_le_bytes());
    Ok(Value::new(
        builtin("complex*4", 8, Encoding::ComplexFloat),
        b,
        Lval::None,
    ))
}

/// `loc(x)`: the address of `x`, `integer*8`.
fn intr_loc(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let v = one(ev, "loc", args)?;
    match v.lval {
        Lval::Memory(a) => Ok(builtin_int(a as i128, "integer*8", 8)),
        _ => Err(user(
            "Attempt to take address of value not located in memory.",
        )),
    }
}

/// `len(s)`: the length of a character value (gdb 13 does not know `len`).
fn intr_len(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let v = one(ev, "len", args)?;
    // An array of strings: the length of its elements.
    let st = match shape_of(&v.ty) {
        Some(s) => s.element.strip(),
        None => v.ty.strip(),
    };
    match &st.kind {
        TypeKind::Array { element, .. } => {
            let w = element.byte_size().max(1);
            Ok(builtin_int((st.byte_size() / w) as i128, "integer*4", 4))
        }
        _ => Err(user("LEN can only be applied to character values")),
    }
}

/// `aimag(z)` / `imag(z)`: the imaginary part (gdb 13 does not know them).
fn intr_aimag(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let v = one(ev, "aimag", args)?;
    match num(&v)? {
        Num::Complex(_, i) => {
            let part = part_type(&v.ty.strip());
            let h = v.ty.byte_size() as usize / 2;
            match (ext_of(&part), v.bytes.get(h..2 * h)) {
                (Some(_), Some(b)) => Ok(Value::new(part, b.to_vec(), Lval::None)),
                _ => Ok(real_of(i, &part)),
            }
        }
        _ => Err(user("AIMAG can only be applied to complex values")),
    }
}

/// `real(x)`: the real part of a complex, or `x` converted to `real(kind=4)`.
/// `real(x, kind)`: with a kind, `real(kind=KIND)` (4, 8, 10 or 16).
fn intr_real(ev: &Ev<'_>, args: &[Arg]) -> Result<Value> {
    let (v, kind) = match args {
        [Arg::Value(a), Arg::Value(k)] => (ev.operand(a)?, Some(ev.int(k)?)),
        _ => (one(ev, "real", args)?, None),
    };
    let ty = match kind {
        None => None,
        Some(k @ (4 | 8)) => Some(real_type(k as u64)),
        Some(k @ (10 | 16)) => Some(Type::base(&format!("real(kind={k})"), 16, Encoding::Float)),
        Some(k) => return Err(user(format!("REAL of kind {k} is not supported"))),
    };
    let target = match (
        &ty,
        matches!(v.ty.strip().kind, TypeKind::Base(Encoding::ComplexFloat)),
    ) {
        (Some(t), _) => Some(t.clone()),
        (None, true) => Some(part_type(&v.ty.strip())),
        (None, false) => None,
    };
    if let Some(t) = target
        && let Some(r) = soft_unary(Soft1::Convert, &v, &t)
    {
        return r;
    }
    match (num(&v)?, ty) {
        (Num::Complex(r, _), None) => Ok(real_of(r, &part_type(&v.ty.strip()))),
        (Num::Complex(r, _), Some(t)) => Ok(real_of(r, &t)),
        (n, Some(t)) => Ok(real_of(as_f64(n), &t)),
        (n, None) => Ok(real_value(as_f64(n), 4)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_arithmetic_keeps_the_wider_kind() {
        let c8 = Type::base("complex(kind=8)", 16, Encoding::ComplexFloat);
        let z = complex_of(3.0, -4.0, &c8);
        let w = complex_of(
            1.0,
            2.0,
            &Type::base("complex(kind=4)", 8, Encoding::ComplexFloat),
        );
        let p = binary(BinOp::Mul, &z, &w).unwrap();
        assert_eq!(p.ty.byte_size(), 16);
        assert_eq!(num(&p).unwrap(), Num::Complex(11.0, 2.0));
        let q = binary(BinOp::Div, &p, &w).unwrap();
        assert_eq!(num(&q).unwrap(), Num::Complex(3.0, -4.0));
        assert!(binary(BinOp::Lt, &z, &w).is_err());
    }

    #[test]
    fn real10_and_real16_arithmetic() {
        let e = real_of(2.5, &Type::base("real(kind=10)", 16, Encoding::Float));
        let r = binary(BinOp::Mul, &e, &int_value(6, 4)).unwrap();
        assert_eq!(r.ty.name.as_deref(), Some("real(kind=10)"));
        assert_eq!(num(&r).unwrap(), Num::Real(15.0));
        let q = real_of(1.25, &Type::base("real(kind=16)", 16, Encoding::Float));
        let r = binary(BinOp::Add, &q, &int_value(1, 4)).unwrap();
        assert_eq!(r.bytes, f64_to_f128(2.25).to_vec());
    }

    #[test]
    fn real10_and_real16_arithmetic_is_in_full_precision() {
        let ten = Type::base("real(kind=10)", 16, Encoding::Float);
        let sixteen = Type::base("real(kind=16)", 16, Encoding::Float);
        // 1.25_16 / 3 in binary128 (gfortran: 0.416666666666666666666666666666666683).
        let q = real_of(1.25, &sixteen);
        let r = binary(BinOp::Div, &q, &int_value(3, 4)).unwrap();
        let bits = u128::from_le_bytes(r.bytes.clone().try_into().unwrap());
        assert_eq!(bits, 0x3ffd_aaaa_aaaa_aaaa_aaaa_aaaa_aaaa_aaab);
        // 1 + 2^-60 is exact in x87 (64 bits), lost in f64.
        let e = real_of(1.0, &ten);
        let tiny = real_value(2f64.powi(-60), 8);
        let r = binary(BinOp::Add, &e, &tiny).unwrap();
        assert_eq!(r.ty.name.as_deref(), Some("real(kind=10)"));
        assert_eq!(&r.bytes[..8], &(0x8000_0000_0000_0008u64).to_le_bytes());
        assert!(truth(num(&binary(BinOp::Gt, &r, &e).unwrap()).unwrap()));
        // real(10) with real(16) of the same size: the result is real(16).
        let r = binary(BinOp::Mul, &e, &q).unwrap();
        assert_eq!(r.ty.name.as_deref(), Some("real(kind=16)"));
        // Negation keeps every bit.
        let third = binary(BinOp::Div, &q, &int_value(3, 4)).unwrap();
        let neg = eval_neg(&third);
        assert_eq!(neg.bytes[15], third.bytes[15] ^ 0x80);
        assert_eq!(neg.bytes[..15], third.bytes[..15]);
    }

    fn eval_neg(v: &Value) -> Value {
        soft_unary(Soft1::Neg, v, &v.ty.clone()).unwrap().unwrap()
    }
}
