//! C expressions as gdb's C language reads and evaluates them: `print`, `set var`, `display`,
//! `x`, `ptype`/`whatis`, breakpoint conditions and watchpoints.
//!
//! Parse once with [`parse`] (or [`parse_in`], which asks the context which names are types,
//! as gdb's parser does), then evaluate as often as needed with [`evaluate`]: no reparsing,
//! and values in memory are read only as far as the expression uses them.
//!
//! Conventions with the [`EvalContext`]:
//! - a [`Value`] whose `lval` is [`Lval::Memory`] and whose `bytes` are shorter than its type
//!   is *lazy*: the evaluator reads what it needs (an element, a member) from memory itself. A
//!   context may return big arrays that way.
//! - `lookup_variable` resolves enumerators too (as values of their enum type).
//! - `register` gives registers their gdb types (`$pc`: `void (*)()`, `$sp`: `void *`…) and
//!   `Lval::Register` so that they can be assigned.

mod eval;
mod lexer;
mod parser;

pub use lexer::{FloatLit, IntLit};
pub use parser::{BaseType, BinOp, Declarator, Dollar, Expr, TypeName, UnOp};

use crate::context::EvalContext;
use crate::error::Result;
use crate::types::TypeRef;
use crate::value::Value;
pub use eval::MAX_VALUE_SIZE;
pub(crate) use eval::internal_function_name;
use eval::{Ev, V};

/// Parse `text` without a symbol table: a parenthesized bare name is a cast only where what
/// follows can only be an operand (`(item_t)x`); `(x) - 1` is a subtraction. Errors are
/// worded as gdb words them (`A syntax error in expression, near `…'.`).
pub fn parse(text: &str) -> Result<Expr> {
    parser::parse_expr(text, None)
}

/// Parse `text`, asking `ctx` whether a name is a type (`(item_t) -1` is then a cast).
pub fn parse_in(text: &str, ctx: &dyn EvalContext) -> Result<Expr> {
    let oracle = |n: &str| !ctx.is_local_variable(n) && ctx.lookup_type(n).is_some();
    parser::parse_expr(text, Some(&oracle))
}

/// Evaluate `e` with side effects (assignments, `++`) and memory reads. The value's bytes are
/// complete (read from memory where needed).
pub fn evaluate(e: &Expr, ctx: &dyn EvalContext) -> Result<Value> {
    let ev = Ev { ctx, side: true };
    let mut v = ev.eval(e)?;
    // A symbol without debug information, not cast to a type: gdb's error.
    if let crate::types::TypeKind::Error(msg) = &v.ty.strip().kind
        && !v.is_type
        && matches!(v.lval, crate::value::Lval::Memory(_))
    {
        return Err(crate::error::DwarfError::user(msg.clone()));
    }
    if !v.optimized_out {
        ev.fetch(&mut v)?;
    }
    Ok(eval::to_value(v))
}

/// Evaluate `e` with side effects but without reading the final value when it lives in memory:
/// the result may be lazy (empty `bytes`, `Lval::Memory`), for `x`, `watch` and `&`-less uses
/// of big objects.
pub fn evaluate_lazy(e: &Expr, ctx: &dyn EvalContext) -> Result<Value> {
    let ev = Ev { ctx, side: true };
    let v = ev.eval(e)?;
    Ok(eval::to_value(v))
}

/// The address `e` designates for `x` (gdb's `value_as_address`): a pointer's or an
/// integer's value, an object's address; an array kept nowhere in the program (`"abc"`,
/// `{1, 2}`) is first copied to memory the program allocates, as gdb does.
pub fn evaluate_address(e: &Expr, ctx: &dyn EvalContext) -> Result<u64> {
    let ev = Ev { ctx, side: true };
    let v = ev.eval(e)?;
    let v = ev.coerce_array_to_target(v)?;
    eval::as_address(&eval::to_value(v))
}

/// The type of `e` for `whatis`/`ptype EXPR`: no side effects, no memory read (memory reads as
/// zeros, so `whatis *p` works with `p` null). A type name is accepted (`whatis struct item`).
pub fn evaluate_type(e: &Expr, ctx: &dyn EvalContext) -> Result<TypeRef> {
    let ev = Ev { ctx, side: false };
    Ok(ev.eval(e)?.ty)
}

/// Whether `e` is a type name rather than a value (`whatis item_t` prints the type itself,
/// `ptype` expands it either way).
pub fn is_type_expr(e: &Expr, ctx: &dyn EvalContext) -> bool {
    let ev = Ev { ctx, side: false };
    ev.eval(e).is_ok_and(|v| v.is_type)
}

/// A type as C spells it (`struct item *`, `unsigned long`, `int [3]`, `void (*)()`), for
/// `ptype TYPE`, `whatis TYPE` and casts; `None` when `text` is not a known type.
pub fn parse_type(text: &str, ctx: &dyn EvalContext) -> Option<TypeRef> {
    let oracle = |n: &str| ctx.lookup_type(n).is_some();
    let t = parser::parse_type_name(text, Some(&oracle))?;
    eval::resolve_type(&t, ctx).ok()
}

/// Truth of a condition's value (`if i == 99999`): nonzero integer, pointer or float.
pub fn is_truthy(v: &Value) -> Result<bool> {
    eval::truthy(v)
}

/// The address a value designates, as `x ADDR-EXPR` and `watch -location` take it: a pointer's
/// or an integer's value; an array's or a function's own address.
pub fn as_address(v: &Value) -> Result<u64> {
    eval::as_address(v)
}

/// Convert `v` to `ty` as a C cast does (for the CLI's `set var`-like uses outside an
/// expression).
pub fn cast(v: Value, ty: &TypeRef, ctx: &dyn EvalContext) -> Result<Value> {
    let ev = Ev { ctx, side: true };
    let mut out = ev.cast(V::from_value(v), ty)?;
    if !out.optimized_out {
        ev.fetch(&mut out)?;
    }
    Ok(eval::to_value(out))
}
