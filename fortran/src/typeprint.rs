//! Types in gdb 13's Fortran syntax (`f_language::print_type`).
//!
//! - scalars by their DWARF name: `integer(kind=4)` (gfortran), `integer` (flang).
//! - arrays: the element then the dimensions, `lower:upper` unless the lower bound is 1:
//!   `integer(kind=4) (-2:3,0:4)`, `real(kind=8) (12)`; an allocatable array adds
//!   `, allocatable` (a pointer array nothing), and `:` for each dimension while it has no
//!   shape.
//! - strings: `character*10`.
//! - derived types: `Type vec` for `whatis`; `ptype` lists the components
//!   (`    real(kind=4) :: w(2)`) and ends `End Type vec`.
//! - pointers: `PTR TO -> ( integer(kind=4) )`.

use cohort_dwarf::format::{Language, type_name_in};
use cohort_dwarf::types::{ArraySpec, BoundSpec, Shape, ShapeStatus, TypeKind, TypeRef};

/// `whatis`: the type's Fortran name.
pub fn whatis(ty: &TypeRef) -> String {
    let (base, dims) = split(ty, false);
    format!("{base}{dims}")
}

/// `ptype`: derived types expanded (one level).
pub fn ptype(ty: &TypeRef) -> String {
    let (base, dims) = split(ty, true);
    format!("{base}{dims}")
}

/// A declaration as gdb's `info module variables` prints one (`f_print_type` with a name):
/// `real(kind=8) geometry::origin(3)`.
pub fn declaration(ty: &TypeRef, name: &str) -> String {
    let (base, dims) = split(ty, false);
    match dims.rfind(" (") {
        Some(i) => format!("{base}{} {name}{}", &dims[..i], &dims[i + 1..]),
        None => format!("{base}{dims} {name}"),
    }
}

/// The element part and the dimension suffix (with its leading `, allocatable` or space).
fn split(ty: &TypeRef, expand: bool) -> (String, String) {
    let st = ty.strip();
    match &st.kind {
        TypeKind::Shaped(shape) => {
            let (b, _) = split(&shape.element, expand);
            (
                b,
                format!("{} {}", attr_of(shape.spec.as_ref()), shape_dims(shape)),
            )
        }
        TypeKind::DynArray(spec) => {
            let (b, _) = split(&spec.element, expand);
            let dims = match spec.constant_shape() {
                Some(s) => shape_dims(&s),
                None => spec_dims(spec),
            };
            (b, format!("{} {}", attr_of(Some(ty)), dims))
        }
        TypeKind::DynString { length, .. } => match length {
            BoundSpec::Const(n) => (format!("character*{n}"), String::new()),
            _ => ("character*(*)".into(), String::new()),
        },
        // A C unit's array: `int (0:2,0:1)`.
        TypeKind::Array { .. } if let Some(shape) = crate::eval::c_array_shape(ty) => {
            let (b, _) = split(&shape.element, expand);
            (b, format!(" {}", shape_dims(&shape)))
        }
        TypeKind::Array { element, .. }
            if element
                .strip()
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with("character"))
                || element.byte_size() == 1 =>
        {
            let n = st.byte_size() / element.byte_size().max(1);
            (format!("character*{n}"), String::new())
        }
        TypeKind::Aggregate { members, .. } => {
            let name = st.name.clone().unwrap_or_default();
            if !expand {
                return (format!("Type {name}"), String::new());
            }
            let mut s = format!("Type {name}\n");
            for m in members {
                let (b, d) = split(m.ty.get(), false);
                let mname = m.name.as_deref().unwrap_or("");
                // Component dimensions follow the name: `real(kind=4) :: w(2)`.
                let d = d
                    .strip_prefix(' ')
                    .map(str::to_string)
                    .unwrap_or_else(|| d.clone());
                let (attr, dims) = match d.find(" (") {
                    Some(i) => (d[..i].to_string(), d[i + 1..].to_string()),
                    None if d.starts_with('(') => (String::new(), d.clone()),
                    None => (d.clone(), String::new()),
                };
                s.push_str(&format!("    {b}{attr} :: {mname}{dims}\n"));
            }
            s.push_str(&format!("End Type {name}"));
            (s, String::new())
        }
        TypeKind::Pointer(t) => (format!("PTR TO -> ( {} )", whatis(t.get())), String::new()),
        _ => match &st.name {
            Some(n) => (n.clone(), String::new()),
            None => (type_name_in(ty, Language::Cplus), String::new()),
        },
    }
}

/// `, allocatable` for an array whose DWARF says so (gdb 13 writes nothing for pointers).
fn attr_of(spec: Option<&TypeRef>) -> &'static str {
    let Some(t) = spec else { return "" };
    match &t.strip().kind {
        TypeKind::DynArray(s) if s.allocated.is_some() => ", allocatable",
        _ => "",
    }
}

fn shape_dims(shape: &Shape) -> String {
    if shape.status != ShapeStatus::Ok {
        let colons: Vec<&str> = shape.dims.iter().map(|_| ":").collect();
        return format!("({})", colons.join(","));
    }
    let parts: Vec<String> = shape
        .dims
        .iter()
        .map(|d| {
            if d.is_assumed_size() {
                if d.lower == 1 {
                    "*".to_string()
                } else {
                    format!("{}:*", d.lower)
                }
            } else if d.lower == 1 {
                format!("{}", d.upper())
            } else {
                format!("{}:{}", d.lower, d.upper())
            }
        })
        .collect();
    format!("({})", parts.join(","))
}

fn spec_dims(spec: &ArraySpec) -> String {
    let colons: Vec<&str> = spec.dims.iter().map(|_| ":").collect();
    format!("({})", colons.join(","))
}
