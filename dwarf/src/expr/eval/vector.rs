//! GCC vector types (`__attribute__ ((vector_size (16)))`) as gdb computes with them
//! (valarith.c): arithmetic element by element, a scalar operand widened to the vector
//! (`value_vector_widen`), `==`/`!=` comparing the bytes, ordering refused, unary `-`/`~`
//! element by element.

use super::{Cls, Ev, V, builtins, classify, user};
use crate::error::Result;
use crate::expr::parser::{BinOp, UnOp};
use crate::types::{Bound, Encoding, TypeKind, TypeRef};

/// The element type and count of a vector type; `None` for any other type.
pub(super) fn vector_parts(ty: &TypeRef) -> Option<(TypeRef, u64)> {
    let s = ty.strip();
    match &s.kind {
        TypeKind::Array {
            element,
            bound: Bound::Count(n),
        } if s.vector => Some((element.clone(), *n)),
        _ => None,
    }
}

pub(super) fn is_vector(ty: &TypeRef) -> bool {
    vector_parts(ty).is_some()
}

/// gdb's `is_integral_type` or a float: what may be widened to a vector.
fn is_scalar_number(c: &Cls) -> bool {
    matches!(c, Cls::Int { .. } | Cls::Float(_))
}

fn unsigned(t: &TypeRef) -> bool {
    matches!(
        t.strip().kind,
        TypeKind::Base(Encoding::Unsigned | Encoding::UnsignedChar | Encoding::Boolean)
    )
}

impl Ev<'_> {
    /// A binary operator with a vector operand (the caller checked one is): gdb's
    /// `value_binop` for arithmetic, `value_equal`/`value_less` for comparisons.
    pub(super) fn vector_binop(&self, op: BinOp, a: V, b: V) -> Result<V> {
        let (mut a, mut b) = (a, b);
        match op {
            BinOp::Eq | BinOp::Ne => {
                // Two vectors of one length: their bytes are compared (a C array would be
                // a pointer here).
                let both =
                    is_vector(&a.ty) && is_vector(&b.ty) && a.ty.byte_size() == b.ty.byte_size();
                if !both {
                    return Err(user("Invalid type combination in equality test."));
                }
                let x = self.bytes(&mut a)?.to_vec();
                let y = self.bytes(&mut b)?;
                let eq = x.as_slice() == y;
                return Ok(self.truth_value(eq == (op == BinOp::Eq)));
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                return Err(user("Invalid type combination in ordering comparison."));
            }
            _ => {}
        }
        let (va, vb) = (is_vector(&a.ty), is_vector(&b.ty));
        if !va || !vb {
            let (scalar, vty) = if va {
                (&mut b, a.ty.clone())
            } else {
                (&mut a, b.ty.clone())
            };
            if !is_scalar_number(&classify(&scalar.ty)) {
                return Err(user("Argument to operation not a number or boolean."));
            }
            let s = std::mem::replace(scalar, V::new(builtins().void.clone(), Vec::new()));
            *scalar = self.widen(s, &vty)?;
        }
        let (Some((e1, n1)), Some((e2, n2))) = (vector_parts(&a.ty), vector_parts(&b.ty)) else {
            return Err(user("Vector operations are only supported among vectors"));
        };
        let float = |t: &TypeRef| matches!(classify(t), Cls::Float(_));
        if float(&e1) != float(&e2)
            || e1.byte_size() != e2.byte_size()
            || unsigned(&e1) != unsigned(&e2)
            || n1 != n2
        {
            return Err(user(
                "Cannot perform operation on vectors with different types",
            ));
        }
        let vty = a.ty.strip();
        let esize = e1.byte_size() as usize;
        let x = self.bytes(&mut a)?.to_vec();
        let y = self.bytes(&mut b)?.to_vec();
        let mut out = Vec::with_capacity(x.len());
        for i in 0..n1 as usize {
            let ea = V::new(e1.clone(), slice(&x, i, esize));
            let mut eb = V::new(e2.clone(), slice(&y, i, esize));
            // gdb shifts an element in its own width (no promotion to `int`).
            if matches!(op, BinOp::Shl | BinOp::Shr)
                && let Cls::Int { signed, .. } = classify(&e2)
            {
                let n = super::wrap(self.int_of(&mut eb)?, esize as u64, signed);
                if n < 0 || n >= 8 * esize as i128 {
                    self.shift_warning(op, n < 0);
                    out.extend_from_slice(&vec![0; esize]);
                    continue;
                }
            }
            let r = self.binop(op, ea, eb)?;
            let mut r = self.cast(r, &e1)?;
            out.extend_from_slice(&fit(self.bytes(&mut r)?, esize));
        }
        Ok(V::new(vty, out))
    }

    /// gdb's `check_valid_shift_count` warnings (the result is then 0).
    pub(super) fn shift_warning(&self, op: BinOp, negative: bool) {
        let dir = if op == BinOp::Shr { "right" } else { "left" };
        let what = if negative {
            "is negative"
        } else {
            ">= width of type"
        };
        self.ctx.warning(&format!("{dir} shift count {what}"));
    }

    /// gdb's `value_vector_widen`: the scalar converted to the element type, in every
    /// element; an error when the conversion loses bits.
    fn widen(&self, s: V, vty: &TypeRef) -> Result<V> {
        let Some((elem, n)) = vector_parts(vty) else {
            return Err(user("Could not determine the vector bounds"));
        };
        let mut el = self.cast(s.clone(), &elem)?;
        if elem.byte_size() < s.ty.byte_size() {
            let same = self.binop(BinOp::Eq, el.clone(), s)?;
            if !self.truth(same, "==")? {
                return Err(user("conversion of scalar to vector involves truncation"));
            }
        }
        let esize = elem.byte_size() as usize;
        let one = fit(self.bytes(&mut el)?, esize);
        Ok(V::new(vty.strip(), one.repeat(n as usize)))
    }

    /// Unary `-`, `+` and `~` on a vector: element by element (gdb's `value_neg`,
    /// `value_pos`, `value_complement`).
    pub(super) fn vector_unary(&self, op: UnOp, v: V) -> Result<V> {
        let mut v = v;
        let Some((elem, n)) = vector_parts(&v.ty) else {
            return Ok(v);
        };
        let vty = v.ty.strip();
        let bytes = self.bytes(&mut v)?.to_vec();
        if op == UnOp::Plus {
            return Ok(V::new(vty, bytes));
        }
        let esize = elem.byte_size() as usize;
        let mut out = Vec::with_capacity(bytes.len());
        for i in 0..n as usize {
            let e = V::new(elem.clone(), slice(&bytes, i, esize));
            let r = match (op, classify(&elem)) {
                (UnOp::Compl, Cls::Int { .. }) => {
                    self.binop(BinOp::BitXor, e, self.int_value(&elem, -1))?
                }
                (UnOp::Compl, _) => {
                    return Err(user(
                        "Argument to complement operation not an integer, boolean.",
                    ));
                }
                _ => {
                    let zero = self.cast(self.int(0), &elem)?;
                    self.binop(BinOp::Sub, zero, e)?
                }
            };
            let mut r = self.cast(r, &elem)?;
            out.extend_from_slice(&fit(self.bytes(&mut r)?, esize));
        }
        Ok(V::new(vty, out))
    }

    /// gdb's `value_cast` where the source or the target (not `void`) is a vector: only
    /// the same length (taken bit for bit) or an object in memory (read as the new type).
    pub(super) fn vector_cast(&self, v: V, to: &TypeRef) -> Result<V> {
        let (from_vec, to_vec) = (is_vector(&v.ty), is_vector(to));
        let ts = to.strip();
        // A C array (not a vector) becomes a pointer first.
        let v = if !from_vec && matches!(classify(&v.ty), Cls::Array(_) | Cls::Func) {
            self.decay(v)?
        } else {
            v
        };
        let scalar = is_scalar_number(&classify(&v.ty));
        if from_vec && to_vec && ts.size != v.ty.byte_size() {
            return Err(user(
                "Cannot convert between vector values of different sizes",
            ));
        }
        if to_vec && scalar && ts.size != v.ty.byte_size() {
            return Err(user("can only cast scalar to vector of same size"));
        }
        let mut v = v;
        if ts.size == v.ty.byte_size() {
            let bytes = self.bytes(&mut v)?.to_vec();
            return Ok(V::new(to.clone(), bytes));
        }
        match v.address() {
            Some(a) => Ok(V::lazy_at(to.clone(), a)),
            None => Err(user("Invalid cast.")),
        }
    }
}

fn slice(b: &[u8], i: usize, size: usize) -> Vec<u8> {
    b.get(i * size..(i + 1) * size)
        .map_or_else(|| vec![0; size], <[u8]>::to_vec)
}

/// `bytes` cut or zero-extended to `size`.
fn fit(bytes: &[u8], size: usize) -> Vec<u8> {
    let mut v = bytes.get(..size.min(bytes.len())).unwrap_or(&[]).to_vec();
    v.resize(size, 0);
    v
}
