//! The C++ standard library printed natively, as gdb's libstdc++ pretty printers show it
//! (no Python): one table of printers, by the type's qualified name.
//!
//! Each printer gets the object's bytes and address and writes what the Python printer's
//! `to_string` and children make (`std::vector of length 7, capacity 7 = {0.5, 1.5, …}`,
//! `"hello"`); `print/r` skips them. A type whose layout is not the one expected (another
//! library version, libc++) is printed raw.

use super::{Printer, text};
use crate::types::{TypeKind, TypeRef};

/// A printer: writes the value and returns `true`, or `false` when the layout is not
/// recognised (then the value is printed raw). `summary`: gdb's frame-argument summary, where
/// children show as `{...}`.
type PrintFn = fn(&Printer, &mut String, &TypeRef, &[u8], bool) -> bool;

/// The printers, by the start of the class's qualified name.
const PRINTERS: &[(&str, PrintFn)] = &[
    ("std::vector<", vector),
    ("std::__cxx11::basic_string<char,", string),
];

/// The printer for class type `ty` (typedefs and qualifiers stripped), if any.
fn printer_for(ty: &TypeRef) -> Option<PrintFn> {
    let st = ty.strip();
    if !matches!(st.kind, TypeKind::Aggregate { .. }) {
        return None;
    }
    let name = st.name.as_deref()?;
    // `std::vector<bool>` is a bit vector with a printer of its own (not here yet).
    if name.starts_with("std::vector<bool,") {
        return None;
    }
    PRINTERS
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, f)| *f)
}

/// Whether values of type `ty` are printed by a printer here.
pub fn has_printer(ty: &TypeRef) -> bool {
    printer_for(ty).is_some()
}

/// Print the object of class type `ty` (bytes `bytes`) with its printer; `false` when there
/// is none or the layout is not recognised.
pub(super) fn print(
    p: &Printer,
    out: &mut String,
    ty: &TypeRef,
    bytes: &[u8],
    summary: bool,
) -> bool {
    if p.opts.format == Some('r') {
        return false;
    }
    match printer_for(ty) {
        Some(f) => {
            let mut s = String::new();
            if f(p, &mut s, &ty.strip(), bytes, summary) {
                out.push_str(&s);
                true
            } else {
                false
            }
        }
        None => false,
    }
}

/// A data member found by name through the class and its (non-virtual) base classes: its
/// offset in the object and its type.
fn field(ty: &TypeRef, name: &str) -> Option<(u64, TypeRef)> {
    let st = ty.strip();
    let TypeKind::Aggregate { members, .. } = &st.kind else {
        return None;
    };
    for m in members.iter().filter(|m| !m.is_static && !m.is_base) {
        if m.name.as_deref() == Some(name) {
            return Some((m.offset, m.ty.get().clone()));
        }
    }
    for m in members.iter().filter(|m| m.is_base) {
        if let Some((off, t)) = field(m.ty.get(), name) {
            return Some((m.offset + off, t));
        }
    }
    None
}

/// A member along a path of names (`_M_impl`, `_M_start`): offset and type.
fn path(ty: &TypeRef, names: &[&str]) -> Option<(u64, TypeRef)> {
    let mut off = 0;
    let mut t = ty.clone();
    for n in names {
        let (o, nt) = field(&t, n)?;
        off += o;
        t = nt;
    }
    Some((off, t))
}

/// An unsigned word of `size` bytes at `off` in `bytes`.
fn word(bytes: &[u8], off: u64, size: u64) -> Option<u64> {
    let start = usize::try_from(off).ok()?;
    let b = bytes.get(start..start + usize::try_from(size).ok()?.min(8))?;
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    Some(u64::from_le_bytes(w))
}

/// The element type and the first, past-the-end and end-of-storage pointers of a
/// `std::vector` (libstdc++'s `_M_impl`).
pub(crate) fn vector_parts(ty: &TypeRef, bytes: &[u8], ptr: u64) -> Option<(TypeRef, [u64; 3])> {
    let (s_off, s_ty) = path(ty, &["_M_impl", "_M_start"])?;
    let (f_off, _) = path(ty, &["_M_impl", "_M_finish"])?;
    let (e_off, _) = path(ty, &["_M_impl", "_M_end_of_storage"])?;
    let elem = match &s_ty.strip().kind {
        TypeKind::Pointer(t) => t.get().clone(),
        _ => return None,
    };
    Some((
        elem,
        [
            word(bytes, s_off, ptr)?,
            word(bytes, f_off, ptr)?,
            word(bytes, e_off, ptr)?,
        ],
    ))
}

/// libstdc++'s `StdVectorPrinter`.
fn vector(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let ptr = p.target.ptr_size();
    let Some((elem, [start, finish, eos])) = vector_parts(ty, bytes, ptr) else {
        return false;
    };
    let esize = elem.byte_size();
    if esize == 0 || finish < start || eos < start {
        return false;
    }
    let len = (finish - start) / esize;
    let cap = (eos - start) / esize;
    out.push_str(&format!("std::vector of length {len}, capacity {cap}"));
    if len == 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    out.push_str(" = {");
    // gdb's `print_children`: at most `print elements` children; "..." when the limit is
    // reached (even with nothing after it), no `<repeats>`.
    let limit = p.opts.print_elements as u64;
    let n = len.min(limit);
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        let a = start.wrapping_add(i * esize);
        let mut buf = vec![0u8; esize as usize];
        match p.target.read_memory(a, &mut buf) {
            Ok(()) => p.value(out, &elem, &buf, Some(a)),
            Err(e) => out.push_str(&format!("<error: {e}>")),
        }
    }
    if len >= limit {
        out.push_str("...");
    }
    out.push('}');
    true
}

/// libstdc++'s `StdStringPrinter` (the C++11 ABI's `std::string`): the characters, as a
/// string of known length.
fn string(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], _summary: bool) -> bool {
    let ptr = p.target.ptr_size();
    let (Some((d_off, _)), Some((l_off, l_ty))) = (
        path(ty, &["_M_dataplus", "_M_p"]),
        path(ty, &["_M_string_length"]),
    ) else {
        return false;
    };
    let (Some(data), Some(len)) = (
        word(bytes, d_off, ptr),
        word(bytes, l_off, l_ty.byte_size()),
    ) else {
        return false;
    };
    let limit = p.opts.print_elements as u64;
    let n = len.min(limit);
    let mut buf = vec![0u8; n as usize];
    if let Err(e) = p.target.read_memory(data, &mut buf) {
        out.push_str(&format!("<error: {e}>"));
        return true;
    }
    out.push_str(&text::print_string(
        &buf,
        len > limit,
        p.opts.repeat_threshold,
        p.opts.print_elements,
    ));
    true
}
