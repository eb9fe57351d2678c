//! Values as trees (not text), for the agent tree's typed values (`cohort_wire::TypedValue`,
//! `:value EXPR` and `:locals`): scalars with their type's name, gdb's text and their number;
//! structs and Fortran derived types with their members; arrays with their dimensions,
//! element type and elements (numbers read straight from the bytes).

use cohort_dwarf::context::Target;
use cohort_dwarf::format::{FormatOptions, Language, type_name_in};
use cohort_dwarf::types::{Bound, Encoding, TypeKind, TypeRef};
use cohort_dwarf::value::{Lval, Value};
use cohort_engine::{EngineError, Result};

use crate::debugger::Debugger;

/// The most numbers of one array read (the first ones) for the array viewer (`:array`):
/// 8 MiB of doubles, within a frame of the tree (16 MiB).
pub const MAX_NUMBERS: usize = 1 << 20;
/// The most numbers of one array read in a tree of values (`:value`, `:locals`), whose
/// answers come from every rank.
pub const TREE_NUMBERS: usize = 1 << 10;
/// The most elements of an array of structs (or pointers…) made into trees.
pub const MAX_VALUES: usize = 100;
/// How deep members of members are followed.
const MAX_DEPTH: usize = 8;

/// A value as a tree (see `cohort_wire::TypedValue`, which the agent makes of it).
#[derive(Debug, Clone, PartialEq)]
pub enum ValueFacts {
    Scalar {
        ty: String,
        text: String,
        num: Option<f64>,
    },
    Struct {
        ty: String,
        fields: Vec<(String, ValueFacts)>,
    },
    /// Dimensions in source order as (lower bound, count); elements in memory order (C: the
    /// last subscript fastest; `column_major`: the first), the first numbers (at most [`MAX_NUMBERS`])
    /// or the first [`MAX_VALUES`] trees.
    Array {
        ty: String,
        element: String,
        dims: Vec<(i64, u64)>,
        column_major: bool,
        numbers: Option<Vec<f64>>,
        values: Vec<ValueFacts>,
    },
}

/// The number of a scalar of base type `enc` from its bytes (`None` where it is none or
/// the bytes are not all there).
fn base_number(enc: Encoding, bytes: &[u8], size: usize) -> Option<f64> {
    let b = bytes.get(..size)?;
    let mut w = [0u8; 8];
    let n = size.min(8);
    w[..n].copy_from_slice(&b[..n]);
    let u = u64::from_le_bytes(w);
    match enc {
        Encoding::Float if size == 4 => {
            Some(f64::from(f32::from_le_bytes([w[0], w[1], w[2], w[3]])))
        }
        Encoding::Float if size == 8 => Some(f64::from_le_bytes(w)),
        Encoding::Signed | Encoding::SignedChar if (1..=8).contains(&size) => {
            let shift = 64 - 8 * n as u32;
            Some((((u << shift) as i64) >> shift) as f64)
        }
        Encoding::Unsigned | Encoding::UnsignedChar | Encoding::Boolean | Encoding::Utf
            if (1..=8).contains(&size) =>
        {
            Some(u as f64)
        }
        _ => None,
    }
}

/// A number as gdb prints it (`nan(0x8000000000000)`, `-inf`, `1.5`), for the types whose
/// bytes are not read here (`long double`).
fn text_number(text: &str) -> Option<f64> {
    let t = text.trim();
    let bare = t.trim_start_matches('-');
    if bare.starts_with("nan") {
        return Some(f64::NAN);
    }
    if bare == "inf" {
        return Some(if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    t.parse::<f64>().ok()
}

/// Whether `ty` is a character type (an array of them is a string, printed as one).
fn is_char(ty: &TypeRef) -> bool {
    matches!(
        ty.strip().kind,
        TypeKind::Base(Encoding::SignedChar | Encoding::UnsignedChar | Encoding::Utf)
    )
}

/// The base encoding of a numeric element type, if it is one.
fn numeric(ty: &TypeRef) -> Option<(Encoding, usize)> {
    let st = ty.strip();
    match st.kind {
        TypeKind::Base(
            e @ (Encoding::Float
            | Encoding::Signed
            | Encoding::SignedChar
            | Encoding::Unsigned
            | Encoding::UnsignedChar
            | Encoding::Boolean),
        ) => {
            let size = usize::try_from(st.size).ok()?;
            base_number(e, &vec![0; size], size).map(|_| (e, size))
        }
        _ => None,
    }
}

fn error_leaf(e: impl std::fmt::Display) -> ValueFacts {
    ValueFacts::Scalar {
        ty: String::new(),
        text: format!("<error: {e}>"),
        num: None,
    }
}

impl Debugger {
    /// `EXPR`'s value in the selected frame as a tree, the first `max_numbers` numbers of
    /// each array.
    pub fn typed_value(&mut self, expr: &str, max_numbers: usize) -> Result<ValueFacts> {
        if expr.trim().is_empty() {
            return Err(EngineError::Other(
                "Argument required (expression to compute).".into(),
            ));
        }
        let v = self.evaluate(expr)?;
        Ok(self.typed_of(expr.trim(), v, 0, max_numbers))
    }

    /// [`Debugger::typed_value`] in frame `i` (0 the innermost, as `frame N` counts); the
    /// selected frame stays.
    pub fn typed_value_in(
        &mut self,
        i: usize,
        expr: &str,
        max_numbers: usize,
    ) -> Result<ValueFacts> {
        let frames = self.frames(i.saturating_add(1));
        if frames.len() <= i {
            return Err(if frames.is_empty() {
                EngineError::NotRunning
            } else {
                EngineError::Other(format!("No frame at level {i}."))
            });
        }
        let selected = self.selected_frame();
        self.select_frame(i);
        let v = self.typed_value(expr, max_numbers);
        self.select_frame(selected);
        v
    }

    /// The selected frame's locals (as `info locals` lists them) as the members of one tree
    /// (type `locals`).
    pub fn typed_locals(&mut self) -> Result<ValueFacts> {
        self.typed_locals_of(self.selected_frame())
    }

    /// The locals of frame `i` (0 the innermost, as `frame N` counts), as
    /// [`Debugger::typed_locals`] gives the selected frame's; the selected frame stays.
    pub fn typed_locals_of(&mut self, i: usize) -> Result<ValueFacts> {
        let selected = self.selected_frame();
        self.select_frame(i);
        let v = self.typed_locals_here();
        self.select_frame(selected);
        v
    }

    fn typed_locals_here(&mut self) -> Result<ValueFacts> {
        let frames = self.frames(usize::MAX);
        let i = self.selected_frame();
        let frame = match frames.get(i) {
            Some(f) => f,
            None if frames.is_empty() => return Err(EngineError::NotRunning),
            None => return Err(EngineError::Other(format!("No frame at level {i}."))),
        };
        let names: Vec<String> = match self.scope_of(frame) {
            Some((_, _, scope)) => match scope.innermost() {
                Some(fs) => fs.locals().iter().map(|v| v.name.clone()).collect(),
                None => Vec::new(),
            },
            None => {
                return Err(EngineError::Other("No symbol table info available.".into()));
            }
        };
        let mut fields = Vec::new();
        for n in names {
            // A name shadowed by an inner block's is listed once, as `print` sees it.
            if fields.iter().any(|(f, _)| *f == n) {
                continue;
            }
            let v = match self.evaluate(&n) {
                Ok(v) => self.typed_of(&n, v, 1, TREE_NUMBERS),
                Err(e) => error_leaf(e),
            };
            fields.push((n, v));
        }
        Ok(ValueFacts::Struct {
            ty: "locals".into(),
            fields,
        })
    }

    fn type_text(&self, ty: &TypeRef) -> String {
        match self.language() {
            Language::Fortran => cohort_fortran::whatis(ty),
            l => type_name_in(ty, l),
        }
    }

    fn sub(&mut self, expr: &str, depth: usize, max: usize) -> ValueFacts {
        match self.evaluate(expr) {
            Ok(v) => self.typed_of(expr, v, depth, max),
            Err(e) => error_leaf(e),
        }
    }

    fn typed_of(&mut self, expr: &str, v: Value, depth: usize, max: usize) -> ValueFacts {
        let fortran = self.language() == Language::Fortran;
        let ty = self.type_text(&v.ty);
        let st = v.ty.strip();
        let scalar = |d: &Debugger, v: &Value| {
            d.format(
                v,
                &FormatOptions {
                    type_prefix: false,
                    ..FormatOptions::default()
                },
            )
        };
        if v.optimized_out || depth > MAX_DEPTH {
            let text = scalar(self, &v);
            return ValueFacts::Scalar {
                ty,
                text,
                num: None,
            };
        }
        match &st.kind {
            TypeKind::Aggregate { members, .. } if !cohort_dwarf::format::has_printer(&st) => {
                let names: Vec<String> = members
                    .iter()
                    .filter(|m| !m.is_static && !m.is_base)
                    .filter_map(|m| m.name.clone())
                    .collect();
                let fields = names
                    .into_iter()
                    .map(|n| {
                        let e = if fortran {
                            format!("{expr}%{n}")
                        } else {
                            format!("({expr}).{n}")
                        };
                        let f = self.sub(&e, depth + 1, max);
                        (n, f)
                    })
                    .collect();
                ValueFacts::Struct { ty, fields }
            }
            TypeKind::Array { element, .. } if !st.vector && !is_char(element) => {
                self.c_array(expr, &v, ty, depth, max)
            }
            TypeKind::Shaped(_) | TypeKind::DynArray(_) => {
                self.shaped_array(expr, &v, ty, depth, max)
            }
            _ => {
                let text = scalar(self, &v);
                let num = match &st.kind {
                    TypeKind::Base(e) => match numeric(&v.ty) {
                        Some((_, size)) if !v.lost(0, size as u64) => {
                            base_number(*e, &v.bytes, size)
                        }
                        _ if *e == Encoding::Float => text_number(&text),
                        _ => None,
                    },
                    _ => None,
                };
                ValueFacts::Scalar { ty, text, num }
            }
        }
    }

    /// A C array (of arrays): its bytes are the value's, or read from where it lives.
    fn c_array(
        &mut self,
        expr: &str,
        v: &Value,
        ty: String,
        depth: usize,
        max: usize,
    ) -> ValueFacts {
        let mut dims = Vec::new();
        let mut t = v.ty.strip();
        loop {
            let next = match &t.kind {
                TypeKind::Array {
                    element,
                    bound: Bound::Count(n),
                } if !t.vector => {
                    dims.push((0i64, *n));
                    element.strip()
                }
                _ => break,
            };
            t = next;
        }
        let element = self.type_text(&t);
        let total = dims.iter().fold(1u64, |a, d| a.saturating_mul(d.1));
        let mut out = ValueFacts::Array {
            ty,
            element,
            dims: dims.clone(),
            column_major: false,
            numbers: None,
            values: Vec::new(),
        };
        let ValueFacts::Array {
            numbers, values, ..
        } = &mut out
        else {
            return out;
        };
        if let Some((enc, size)) = numeric(&t) {
            let n = usize::try_from(total).unwrap_or(usize::MAX).min(max);
            let mut bytes = v.bytes.clone();
            if bytes.len() < n * size
                && let Lval::Memory(a) = v.lval
            {
                bytes = vec![0; n * size];
                if self.target().read_memory(a, &mut bytes).is_err() {
                    bytes.clear();
                }
            }
            *numbers = Some(
                bytes
                    .chunks_exact(size)
                    .take(n)
                    .filter_map(|c| base_number(enc, c, size))
                    .collect(),
            );
        } else {
            let n = usize::try_from(total).unwrap_or(usize::MAX).min(MAX_VALUES);
            for flat in 0..n {
                let mut rest = flat as u64;
                let mut subs = vec![0u64; dims.len()];
                for (k, d) in dims.iter().enumerate().rev() {
                    subs[k] = rest % d.1.max(1);
                    rest /= d.1.max(1);
                }
                let e = subs.iter().fold(format!("({expr})"), |mut s, i| {
                    s.push_str(&format!("[{i}]"));
                    s
                });
                values.push(self.sub(&e, depth + 1, max));
            }
        }
        out
    }

    /// A Fortran array (or one with other lower bounds): its elements by subscript, the
    /// first subscript fastest.
    fn shaped_array(
        &mut self,
        expr: &str,
        v: &Value,
        ty: String,
        depth: usize,
        max: usize,
    ) -> ValueFacts {
        use cohort_dwarf::context::EvalContext;
        let st = v.ty.strip();
        let (shape_ty, base) = match (&st.kind, v.address()) {
            (TypeKind::Shaped(_), Some(a)) => (st.clone(), a),
            (TypeKind::DynArray(_), Some(a)) => match self.eval_ctx().resolve_object(&v.ty, a) {
                Ok((t, a)) => (t.strip(), a),
                Err(e) => return error_leaf(e),
            },
            _ => {
                return ValueFacts::Scalar {
                    text: self.format(v, &FormatOptions::default()),
                    ty,
                    num: None,
                };
            }
        };
        let TypeKind::Shaped(shape) = &shape_ty.kind else {
            return error_leaf("not an array");
        };
        let element = self.type_text(&shape.element);
        let dims: Vec<(i64, u64)> = shape.dims.iter().map(|d| (d.lower, d.count)).collect();
        let total = dims.iter().fold(1u64, |a, d| a.saturating_mul(d.1));
        let column_major = self.language() == Language::Fortran;
        let index_of = |flat: u64| -> Vec<i64> {
            let mut rest = flat;
            let mut idx = vec![0i64; dims.len()];
            let order: Vec<usize> = if column_major {
                (0..dims.len()).collect()
            } else {
                (0..dims.len()).rev().collect()
            };
            for k in order {
                let c = dims[k].1.max(1);
                idx[k] = dims[k].0 + (rest % c) as i64;
                rest /= c;
            }
            idx
        };
        let mut numbers = None;
        let mut values = Vec::new();
        if let Some((enc, size)) = numeric(&shape.element) {
            let n = usize::try_from(total).unwrap_or(usize::MAX).min(max);
            let mut nums = Vec::with_capacity(n);
            let target = self.target();
            let contiguous = shape.is_contiguous() && column_major;
            if contiguous {
                let mut bytes = vec![0u8; n * size];
                if target.read_memory(base, &mut bytes).is_ok() {
                    nums.extend(
                        bytes
                            .chunks_exact(size)
                            .filter_map(|c| base_number(enc, c, size)),
                    );
                }
            } else {
                let mut b = vec![0u8; size];
                for flat in 0..n as u64 {
                    let Some(off) = shape.offset_of(&index_of(flat)) else {
                        break;
                    };
                    if target
                        .read_memory(base.wrapping_add_signed(off), &mut b)
                        .is_err()
                    {
                        break;
                    }
                    nums.extend(base_number(enc, &b, size));
                }
            }
            numbers = Some(nums);
        } else {
            let n = usize::try_from(total).unwrap_or(usize::MAX).min(MAX_VALUES);
            for flat in 0..n as u64 {
                let subs: Vec<String> = index_of(flat).iter().map(i64::to_string).collect();
                let e = if column_major {
                    format!("{expr}({})", subs.join(","))
                } else {
                    format!("({expr})[{}]", subs.join("]["))
                };
                values.push(self.sub(&e, depth + 1, max));
            }
        }
        ValueFacts::Array {
            ty,
            element,
            dims,
            column_major,
            numbers,
            values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_from_bytes() {
        assert_eq!(
            base_number(Encoding::Signed, &(-3i32).to_le_bytes(), 4),
            Some(-3.0)
        );
        assert_eq!(
            base_number(Encoding::Float, &1.5f32.to_le_bytes(), 4),
            Some(1.5)
        );
        assert!(base_number(Encoding::Float, &f64::NAN.to_le_bytes(), 8).is_some_and(f64::is_nan));
        assert_eq!(base_number(Encoding::Float, &[0; 16], 16), None);
        assert_eq!(base_number(Encoding::Signed, &[1], 4), None);
        assert_eq!(text_number("-inf"), Some(f64::NEG_INFINITY));
    }
}
