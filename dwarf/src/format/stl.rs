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
    ("std::map<", map),
    ("std::set<", set),
    ("std::__cxx11::list<", list),
    ("std::pair<", pair),
    ("std::unordered_map<", unordered),
    ("std::unordered_set<", unordered),
    ("std::optional<", optional),
    ("std::deque<", deque),
    ("std::tuple<", tuple),
    ("std::unique_ptr<", unique_ptr),
    ("std::shared_ptr<", shared_ptr),
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
    // The elements shown, in one read when that is not too big (a vector of a million
    // doubles costs the 200 shown).
    let mut all = vec![0u8; (n * esize).min(super::MAX_VALUE_SIZE * 16) as usize];
    let batch = all.len() as u64 == n * esize && p.target.read_memory(start, &mut all).is_ok();
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        let a = start.wrapping_add(i * esize);
        if batch {
            let b = &all[(i * esize) as usize..((i + 1) * esize) as usize];
            p.value(out, &elem, b, Some(a));
            continue;
        }
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

/// The alignment of a type, as the C ABI lays it out.
fn align_of(ty: &TypeRef) -> u64 {
    let st = ty.strip();
    match &st.kind {
        TypeKind::Array { element, .. } => align_of(element),
        TypeKind::Aggregate { members, .. } => members
            .iter()
            .filter(|m| !m.is_static)
            .map(|m| align_of(m.ty.get()))
            .max()
            .unwrap_or(1),
        _ => st.size.clamp(1, 16),
    }
}

/// The class template's type argument `i` (`_Key`, `_Tp`).
fn template_arg(ty: &TypeRef, i: usize) -> Option<TypeRef> {
    ty.cxx
        .as_deref()?
        .template_args
        .get(i)
        .map(|(_, t)| t.get().clone())
}

/// A pointer-sized word of the program's memory.
fn read_word(p: &Printer, addr: u64) -> Option<u64> {
    let n = usize::try_from(p.target.ptr_size()).unwrap_or(8).min(8);
    let mut b = [0u8; 8];
    p.target.read_memory(addr, &mut b[..n]).ok()?;
    Some(u64::from_le_bytes(b))
}

/// Read and print the value of type `ty` at `addr`.
fn value_at(p: &Printer, out: &mut String, ty: &TypeRef, addr: u64) {
    let mut buf = vec![0u8; ty.byte_size().min(super::MAX_VALUE_SIZE) as usize];
    match p.target.read_memory(addr, &mut buf) {
        Ok(()) => p.value(out, ty, &buf, Some(addr)),
        Err(e) => out.push_str(&format!("<error: {e}>")),
    }
}

/// The first `max` nodes, in order, of a libstdc++ red-black tree (`_M_t` of a map or a
/// set) and its element count. A node's value follows its 32-byte `_Rb_tree_node_base`
/// (colour, parent, left, right).
fn rb_tree(p: &Printer, ty: &TypeRef, bytes: &[u8], max: u64) -> Option<(u64, Vec<u64>)> {
    let ptr = p.target.ptr_size();
    let (h_off, _) = path(ty, &["_M_t", "_M_impl", "_M_header"])?;
    let (c_off, c_ty) = path(ty, &["_M_t", "_M_impl", "_M_node_count"])?;
    let count = word(bytes, c_off, c_ty.byte_size())?;
    let mut node = word(bytes, h_off + 2 * ptr, ptr)?;
    let mut out = Vec::new();
    for i in 0..count.min(max) {
        out.push(node);
        if i + 1 == count.min(max) {
            break;
        }
        // The in-order successor.
        let right = read_word(p, node + 3 * ptr)?;
        if right != 0 {
            node = right;
            loop {
                let left = read_word(p, node + 2 * ptr)?;
                if left == 0 {
                    break;
                }
                node = left;
            }
        } else {
            let mut parent = read_word(p, node + ptr)?;
            while read_word(p, parent + 3 * ptr)? == node {
                node = parent;
                parent = read_word(p, node + ptr)?;
            }
            node = parent;
        }
    }
    Some((count, out))
}

/// The children of a printer, `{[k] = v, ...}` (gdb's `print_children`): `entries` shown,
/// `...` when `print elements` children were printed.
fn children(p: &Printer, out: &mut String, shown: u64, children_per_entry: u64, total: u64) {
    if total * children_per_entry >= p.opts.print_elements as u64 && shown > 0 {
        out.push_str("...");
    }
    out.push('}');
}

/// libstdc++'s `StdMapPrinter`: `std::map with 2 elements = {[1] = 2.5, [3] = 4.5}`.
fn map(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let (Some(kty), Some(vty)) = (template_arg(ty, 0), template_arg(ty, 1)) else {
        return false;
    };
    let ptr = p.target.ptr_size();
    // Two children (key and value) per element.
    let max = (p.opts.print_elements as u64).div_ceil(2);
    let Some((count, nodes)) = rb_tree(p, ty, bytes, max) else {
        return false;
    };
    out.push_str(&format!("std::map with {}", num_elements(count)));
    if count == 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    let voff = kty.byte_size().next_multiple_of(align_of(&vty));
    out.push_str(" = {");
    for (i, n) in nodes.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let at = n + 4 * ptr;
        out.push('[');
        value_at(p, out, &kty, at);
        out.push_str("] = ");
        value_at(p, out, &vty, at + voff);
    }
    children(p, out, nodes.len() as u64, 2, count);
    true
}

/// libstdc++'s `StdSetPrinter`: `std::set with 3 elements = {[0] = 3, [1] = 6, [2] = 9}`.
fn set(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let Some(kty) = template_arg(ty, 0) else {
        return false;
    };
    let ptr = p.target.ptr_size();
    let Some((count, nodes)) = rb_tree(p, ty, bytes, p.opts.print_elements as u64) else {
        return false;
    };
    out.push_str(&format!("std::set with {}", num_elements(count)));
    if count == 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    out.push_str(" = {");
    for (i, n) in nodes.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&format!("[{i}] = "));
        value_at(p, out, &kty, n + 4 * ptr);
    }
    children(p, out, nodes.len() as u64, 1, count);
    true
}

/// libstdc++'s `StdListPrinter`: `std::__cxx11::list = {[0] = 5, [1] = 6}`; a node's
/// value follows its `_List_node_base` (next, prev).
fn list(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let Some(ety) = template_arg(ty, 0) else {
        return false;
    };
    let ptr = p.target.ptr_size();
    let (Some((n_off, _)), Some((s_off, s_ty))) = (
        path(ty, &["_M_impl", "_M_node", "_M_next"]),
        path(ty, &["_M_impl", "_M_node", "_M_size"]),
    ) else {
        return false;
    };
    let (Some(mut node), Some(count)) = (
        word(bytes, n_off, ptr),
        word(bytes, s_off, s_ty.byte_size()),
    ) else {
        return false;
    };
    let name = ty.name.as_deref().unwrap_or("");
    out.push_str(name.split('<').next().unwrap_or(name));
    if count == 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    out.push_str(" = {");
    let voff = (2 * ptr).next_multiple_of(align_of(&ety));
    let shown = count.min(p.opts.print_elements as u64);
    for i in 0..shown {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&format!("[{i}] = "));
        value_at(p, out, &ety, node + voff);
        match read_word(p, node) {
            Some(next) => node = next,
            None => break,
        }
    }
    children(p, out, shown, 1, count);
    true
}

/// libstdc++'s `num_elements`: `1 element`, `3 elements`.
fn num_elements(n: u64) -> String {
    if n == 1 {
        "1 element".into()
    } else {
        format!("{n} elements")
    }
}

/// libstdc++'s `Tr1UnorderedMapPrinter` and `Tr1UnorderedSetPrinter`: the elements in the
/// hash table's list order (`_M_before_begin._M_nxt`); a node's value follows its next
/// pointer.
fn unordered(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let name = ty.name.as_deref().unwrap_or("");
    let is_map = name.starts_with("std::unordered_map<");
    let Some(kty) = template_arg(ty, 0) else {
        return false;
    };
    let vty = if is_map { template_arg(ty, 1) } else { None };
    if is_map && vty.is_none() {
        return false;
    }
    let ptr = p.target.ptr_size();
    let (Some((n_off, _)), Some((c_off, c_ty))) = (
        path(ty, &["_M_h", "_M_before_begin", "_M_nxt"]),
        path(ty, &["_M_h", "_M_element_count"]),
    ) else {
        return false;
    };
    let (Some(mut node), Some(count)) = (
        word(bytes, n_off, ptr),
        word(bytes, c_off, c_ty.byte_size()),
    ) else {
        return false;
    };
    out.push_str(name.split('<').next().unwrap_or(name));
    out.push_str(" with ");
    out.push_str(&num_elements(count));
    if count == 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    out.push_str(" = {");
    let per = if is_map { 2 } else { 1 };
    let max = (p.opts.print_elements as u64).div_ceil(per);
    let elem_align = match &vty {
        Some(v) => align_of(&kty).max(align_of(v)),
        None => align_of(&kty),
    };
    let at0 = ptr.next_multiple_of(elem_align);
    let shown = count.min(max);
    for i in 0..shown {
        if node == 0 {
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        let at = node + at0;
        match &vty {
            Some(v) => {
                out.push('[');
                value_at(p, out, &kty, at);
                out.push_str("] = ");
                value_at(
                    p,
                    out,
                    v,
                    at + kty.byte_size().next_multiple_of(align_of(v)),
                );
            }
            None => {
                out.push_str(&format!("[{i}] = "));
                value_at(p, out, &kty, at);
            }
        }
        match read_word(p, node) {
            Some(next) => node = next,
            None => break,
        }
    }
    children(p, out, shown, per, count);
    true
}

/// libstdc++'s `StdOptionalPrinter`: `std::optional<int> = {[contained value] = 5}`, or
/// `std::optional<int> [no contained value]`.
fn optional(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let (Some((v_off, v_ty)), Some((e_off, _))) = (
        path(ty, &["_M_payload", "_M_payload", "_M_value"]),
        path(ty, &["_M_payload", "_M_engaged"]),
    ) else {
        return false;
    };
    let Some(engaged) = word(bytes, e_off, 1) else {
        return false;
    };
    out.push_str(ty.name.as_deref().unwrap_or("std::optional"));
    if engaged == 0 {
        out.push_str(" [no contained value]");
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    let start = v_off as usize;
    let Some(vb) = bytes.get(start..start + v_ty.byte_size() as usize) else {
        return false;
    };
    out.push_str(" = {[contained value] = ");
    p.value(out, &v_ty, vb, None);
    out.push('}');
    true
}

/// libstdc++'s `StdDequePrinter`: `std::deque with 2 elements = {1, 2}`, the elements in
/// buffers of 512 bytes (one element when larger) reached through the map of nodes.
fn deque(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let Some(ety) = template_arg(ty, 0) else {
        return false;
    };
    let ptr = p.target.ptr_size();
    let esize = ety.byte_size();
    if esize == 0 {
        return false;
    }
    let buffer = if esize < 512 { 512 / esize } else { 1 };
    let it = |which: &str, f: &str| {
        path(ty, &["_M_impl", which, f]).and_then(|(o, _)| word(bytes, o, ptr))
    };
    let (Some(s_cur), Some(s_last), Some(s_node), Some(f_cur), Some(f_first), Some(f_node)) = (
        it("_M_start", "_M_cur"),
        it("_M_start", "_M_last"),
        it("_M_start", "_M_node"),
        it("_M_finish", "_M_cur"),
        it("_M_finish", "_M_first"),
        it("_M_finish", "_M_node"),
    ) else {
        return false;
    };
    let delta_n = (f_node.wrapping_sub(s_node) as i64) / ptr as i64 - 1;
    let delta_s = (s_last.wrapping_sub(s_cur) as i64) / esize as i64;
    let delta_e = (f_cur.wrapping_sub(f_first) as i64) / esize as i64;
    let size = buffer as i64 * delta_n + delta_s + delta_e;
    out.push_str(&format!("std::deque with {}", num_elements(size as u64)));
    if size <= 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    out.push_str(" = {");
    let (mut cur, mut end, mut node) = (s_cur, s_last, s_node);
    let limit = p.opts.print_elements as u64;
    let mut i = 0u64;
    while cur != f_cur && i < limit {
        if i > 0 {
            out.push_str(", ");
        }
        value_at(p, out, &ety, cur);
        i += 1;
        cur = cur.wrapping_add(esize);
        if cur == end {
            node = node.wrapping_add(ptr);
            match read_word(p, node) {
                Some(first) => {
                    cur = first;
                    end = first.wrapping_add(buffer * esize);
                }
                None => break,
            }
        }
    }
    if i == limit {
        out.push_str("...");
    }
    out.push('}');
    true
}

/// libstdc++'s `StdTuplePrinter`: `std::tuple containing = {[1] = 4, [2] = 99 'c'}`; each
/// `_Tuple_impl` has the rest of the tuple as its first base and its `_Head_base` last.
fn tuple(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let bases = |t: &TypeRef| -> Vec<(u64, TypeRef)> {
        match &t.strip().kind {
            TypeKind::Aggregate { members, .. } => members
                .iter()
                .filter(|m| !m.is_static)
                .map(|m| (m.offset, m.ty.get().clone()))
                .collect(),
            _ => Vec::new(),
        }
    };
    out.push_str("std::tuple containing");
    let top = bases(ty);
    let mut head = match top.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    };
    if head.is_none() {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    let mut n = 0;
    let mut first = true;
    while let Some((off, t)) = head.take() {
        let (impl_off, impl_ty) = match bases(&t).as_slice() {
            [one] => one.clone(),
            [rest, last] => {
                head = Some((off + rest.0, rest.1.clone()));
                last.clone()
            }
            _ => return false,
        };
        n += 1;
        out.push_str(if first { " = {" } else { ", " });
        first = false;
        out.push_str(&format!("[{n}] = "));
        let (voff, vty) = match field(&impl_ty, "_M_head_impl") {
            Some((o, vt)) => (off + impl_off + o, vt),
            None => (off + impl_off, impl_ty),
        };
        let start = voff as usize;
        match bytes.get(start..start + vty.byte_size() as usize) {
            Some(b) => p.value(out, &vty, b, None),
            None => return false,
        }
    }
    if !first {
        out.push('}');
    }
    true
}

/// The stored pointer of a `std::unique_ptr` or `std::shared_ptr`: its offset in the
/// object and its type; `None` for another class or layout.
pub(crate) fn smart_pointer(ty: &TypeRef) -> Option<(u64, TypeRef)> {
    let st = ty.strip();
    let name = st.name.as_deref()?;
    if name.starts_with("std::shared_ptr<") {
        return field(&st, "_M_ptr");
    }
    if !name.starts_with("std::unique_ptr<") {
        return None;
    }
    // `_M_t` (__uniq_ptr_data / __uniq_ptr_impl) holds a std::tuple `_M_t` of the pointer
    // and the deleter; the pointer is the tuple's `_Head_base<0>`.
    let (t_off, tup) = path(&st, &["_M_t", "_M_t"]).or_else(|| path(&st, &["_M_t"]))?;
    let TypeKind::Aggregate { members, .. } = &tup.strip().kind else {
        return None;
    };
    let imp = members.iter().find(|m| m.is_base)?;
    let TypeKind::Aggregate { members, .. } = &imp.ty.get().strip().kind else {
        return None;
    };
    let head = members.iter().filter(|m| m.is_base).nth(1)?;
    let (h_off, h_ty) = field(head.ty.get(), "_M_head_impl")?;
    Some((t_off + imp.offset + head.offset + h_off, h_ty))
}

/// `{get() = 0x…}`: a smart pointer's one child.
fn pointer_child(p: &Printer, out: &mut String, pty: &TypeRef, bytes: &[u8], off: u64) -> bool {
    let start = off as usize;
    let Some(b) = bytes.get(start..start + pty.byte_size() as usize) else {
        return false;
    };
    out.push_str(" = {get() = ");
    p.value(out, pty, b, None);
    out.push('}');
    true
}

/// libstdc++'s `UniquePointerPrinter`: `std::unique_ptr<Pt> = {get() = 0x…}`.
fn unique_ptr(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], _summary: bool) -> bool {
    let (Some((off, pty)), Some(targ)) = (smart_pointer(ty), template_arg(ty, 0)) else {
        return false;
    };
    out.push_str("std::unique_ptr<");
    out.push_str(&super::type_name_in(&targ, p.opts.language));
    out.push('>');
    pointer_child(p, out, &pty, bytes, off)
}

/// libstdc++'s `SharedPointerPrinter`: `std::shared_ptr<int> (use count 1, weak count 0) =
/// {get() = 0x…}`, `(empty)` without a control block.
fn shared_ptr(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], _summary: bool) -> bool {
    let ptr = p.target.ptr_size();
    let (Some((off, pty)), Some(targ), Some((pi_off, _))) = (
        smart_pointer(ty),
        template_arg(ty, 0),
        path(ty, &["_M_refcount", "_M_pi"]),
    ) else {
        return false;
    };
    let Some(pi) = word(bytes, pi_off, ptr) else {
        return false;
    };
    let state = if pi == 0 {
        "empty".to_string()
    } else {
        // `_Sp_counted_base`: its vtable pointer, then the use and weak counts (ints).
        let mut c = [0u8; 8];
        if p.target.read_memory(pi + ptr, &mut c).is_err() {
            return false;
        }
        let uses = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let weak = i32::from_le_bytes([c[4], c[5], c[6], c[7]]);
        if uses == 0 {
            format!("expired, weak count {weak}")
        } else {
            format!("use count {uses}, weak count {}", weak - 1)
        }
    };
    out.push_str("std::shared_ptr<");
    out.push_str(&super::type_name_in(&targ, p.opts.language));
    out.push_str(&format!("> ({state})"));
    pointer_child(p, out, &pty, bytes, off)
}

/// libstdc++'s `StdPairPrinter`: the two members, without the empty `__pair_base`.
fn pair(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let (Some((f_off, f_ty)), Some((s_off, s_ty))) = (field(ty, "first"), field(ty, "second"))
    else {
        return false;
    };
    if summary {
        out.push_str("{...}");
        return true;
    }
    let part = |off: u64, t: &TypeRef| -> Option<&[u8]> {
        let start = usize::try_from(off).ok()?;
        bytes.get(start..start + usize::try_from(t.byte_size()).ok()?)
    };
    let (Some(fb), Some(sb)) = (part(f_off, &f_ty), part(s_off, &s_ty)) else {
        return false;
    };
    out.push_str("{first = ");
    p.value(out, &f_ty, fb, None);
    out.push_str(", second = ");
    p.value(out, &s_ty, sb, None);
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
