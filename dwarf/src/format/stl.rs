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
    ("std::vector<bool,", vector_bool),
    ("std::vector<", vector),
    ("std::__cxx11::basic_string<char,", string),
    ("std::map<", map),
    ("std::multimap<", map),
    ("std::set<", set),
    ("std::multiset<", set),
    ("std::__cxx11::list<", list),
    ("std::pair<", pair),
    ("std::unordered_map<", unordered),
    ("std::unordered_set<", unordered),
    ("std::unordered_multimap<", unordered),
    ("std::unordered_multiset<", unordered),
    ("std::optional<", optional),
    ("std::deque<", deque),
    ("std::tuple<", tuple),
    ("std::unique_ptr<", unique_ptr),
    ("std::shared_ptr<", shared_ptr),
    ("std::weak_ptr<", shared_ptr),
    ("std::variant<", variant),
    ("std::atomic<", atomic),
    ("__gnu_cxx::__normal_iterator<", normal_iterator),
    ("std::_Rb_tree_iterator<", node_iterator),
    ("std::_Rb_tree_const_iterator<", node_iterator),
    ("std::_List_iterator<", node_iterator),
    ("std::_List_const_iterator<", node_iterator),
    ("std::_Deque_iterator<", deque_iterator),
];

/// The printer for class type `ty` (typedefs and qualifiers stripped), if any.
fn printer_for(ty: &TypeRef) -> Option<PrintFn> {
    let st = ty.strip();
    if !matches!(st.kind, TypeKind::Aggregate { .. }) {
        return None;
    }
    let name = st.name.as_deref()?;
    PRINTERS
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, f)| *f)
}

/// gdb's libstdc++ printer of a class the program's debug information has only as a
/// declaration (clang's `std::string`, an `extern template`): at the top of `print`, gdb runs
/// the printer, whose `to_string` fails on the missing member. gdb then writes this error
/// (on stderr, after `Python Exception <class 'gdb.error'>: `) and prints no value. Elsewhere
/// (`info locals`, an element) gdb shows `<incomplete type>` before trying printers.
pub fn top_level_printer_error(ty: &TypeRef) -> Option<&'static str> {
    let st = ty.strip();
    let TypeKind::Aggregate {
        members,
        declaration: true,
        ..
    } = &st.kind
    else {
        return None;
    };
    let name = st.name.as_deref()?;
    (members.is_empty() && name.starts_with("std::__cxx11::basic_string<char,"))
        .then_some("There is no member named _M_dataplus.")
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
        // A libstdc++ object the compiler kept only in part: printed raw (its members that
        // were not kept as `<optimized out>`), but for a smart pointer's lone pointer.
        Some(f)
            if data_lost(p, ty, bytes)
                && !matches!(
                    ty.strip().name.as_deref(),
                    Some(n) if n.starts_with("std::shared_ptr<")
                        || n.starts_with("std::weak_ptr<")
                        || n.starts_with("std::unique_ptr<")
                ) =>
        {
            let _ = f;
            false
        }
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

/// Whether a data member of the object of type `ty` (bytes `bytes`) holds bits the compiler
/// did not keep (padding does not count).
fn data_lost(p: &Printer, ty: &TypeRef, bytes: &[u8]) -> bool {
    let st = ty.strip();
    match &st.kind {
        TypeKind::Aggregate { members, .. } => members.iter().filter(|m| !m.is_static).any(|m| {
            let mty = m.ty.get();
            let start = m.offset as usize;
            let end = start.saturating_add(mty.byte_size() as usize);
            match (m.bitfield, bytes.get(start..end.min(bytes.len()))) {
                (None, Some(b)) => data_lost(p, mty, b),
                (_, b) => b.is_some_and(|b| p.lost(b)),
            }
        }),
        _ => p.lost(bytes),
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
    let mut kids = Kids::new(p, true);
    // gdb's `print_children`: at most `print elements` children; "..." when the limit is
    // reached (even with nothing after it), no `<repeats>`.
    let limit = p.opts.print_elements as u64;
    let n = len.min(limit);
    // The elements shown, in one read when that is not too big (a vector of a million
    // doubles costs the 200 shown).
    let mut all = vec![0u8; (n * esize).min(super::MAX_VALUE_SIZE * 16) as usize];
    let batch = all.len() as u64 == n * esize && p.target.read_memory(start, &mut all).is_ok();
    for i in 0..n {
        kids.next(out);
        let a = start.wrapping_add(i * esize);
        if batch {
            let b = &all[(i * esize) as usize..((i + 1) * esize) as usize];
            kids.value(out, &elem, b, Some(a));
            continue;
        }
        // An element gdb cannot read ends the whole command (the printer's children are lazy
        // values read as they are printed).
        let mut buf = vec![0u8; elem.byte_size().min(super::MAX_VALUE_SIZE) as usize];
        if let Err(e) = p.target.read_memory(a, &mut buf) {
            super::push_abort(out, &e.to_string());
            return true;
        }
        kids.value(out, &elem, &buf, Some(a));
    }
    kids.end(out, len >= limit);
    true
}

/// gdb's `print_children`: the children of a printer, after its `to_string`. With `set print
/// pretty`, one child a line, indented two spaces deeper than the value, except for a printer
/// with the `array` hint (vectors, deques: `set print array` decides those); a map's key and
/// value share a line.
struct Kids<'a, 'b> {
    p: &'a Printer<'b>,
    n: usize,
    lines: bool,
}

impl<'a, 'b> Kids<'a, 'b> {
    fn new(p: &'a Printer<'b>, array: bool) -> Self {
        Kids {
            p,
            n: 0,
            lines: if array {
                p.opts.pretty_arrays
            } else {
                p.opts.pretty
            },
        }
    }

    fn indent(&self, out: &mut String, extra: usize) {
        out.push('\n');
        out.push_str(&" ".repeat(extra + 2 * self.p.depth.get()));
    }

    /// Before the next child (or key of a map).
    fn next(&mut self, out: &mut String) {
        if self.n == 0 {
            out.push_str(" = {");
        } else {
            out.push_str(if self.lines { "," } else { ", " });
        }
        if self.lines {
            self.indent(out, 2);
        }
        self.n += 1;
    }

    /// A child's value, one level deeper.
    fn value(&self, out: &mut String, ty: &TypeRef, bytes: &[u8], addr: Option<u64>) {
        self.p.nested(out, ty, bytes, addr);
    }

    /// A child's value read from the program at `addr`.
    fn value_at(&self, out: &mut String, ty: &TypeRef, addr: u64) {
        let mut buf = vec![0u8; ty.byte_size().min(super::MAX_VALUE_SIZE) as usize];
        match self.p.target.read_memory(addr, &mut buf) {
            Ok(()) => self.value(out, ty, &buf, Some(addr)),
            Err(e) => out.push_str(&format!("<error: {e}>")),
        }
    }

    /// After the children: `...` when `print elements` stopped them.
    fn end(self, out: &mut String, more: bool) {
        if self.n == 0 {
            return;
        }
        if more {
            if self.lines {
                self.indent(out, 2);
            }
            out.push_str("...");
        }
        if self.lines {
            self.indent(out, 0);
        }
        out.push('}');
    }
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

/// Whether the class `ty` is only declared here (clang's `-fno-standalone-debug` leaves
/// `std::string` so): its size and layout are unknown.
fn incomplete(ty: &TypeRef) -> bool {
    matches!(
        ty.strip().kind,
        TypeKind::Aggregate {
            declaration: true,
            ..
        }
    )
}

/// The offset of a map element's value in its node's `std::pair<const K, V>` (template
/// argument 1 of the container's `member`, `_Rb_tree` or `_Hashtable`), from the pair's own
/// layout; else after the key, when the key's size is known.
fn pair_value_offset(ty: &TypeRef, member: &str, kty: &TypeRef, vty: &TypeRef) -> Option<u64> {
    let pair = path(ty, &[member]).and_then(|(_, t)| template_arg(&t.strip(), 1));
    if let Some((off, _)) = pair.as_ref().and_then(|p| field(p, "second")) {
        return Some(off);
    }
    (!incomplete(kty)).then(|| kty.byte_size().next_multiple_of(align_of(vty)))
}

/// A pointer-sized word of the program's memory.
fn read_word(p: &Printer, addr: u64) -> Option<u64> {
    let n = usize::try_from(p.target.ptr_size()).unwrap_or(8).min(8);
    let mut b = [0u8; 8];
    p.target.read_memory(addr, &mut b[..n]).ok()?;
    Some(u64::from_le_bytes(b))
}

/// The first `max` nodes, in order, of a libstdc++ red-black tree (`_M_t` of a map or a
/// set), its element count, and the address whose read failed when a node's successor could
/// not be found (the printer's iterator stops there, before that node, as the Python one
/// does). A node's value follows its 32-byte `_Rb_tree_node_base` (colour, parent, left,
/// right).
fn rb_tree(p: &Printer, ty: &TypeRef, bytes: &[u8], max: u64) -> Option<RbNodes> {
    let ptr = p.target.ptr_size();
    let (h_off, _) = path(ty, &["_M_t", "_M_impl", "_M_header"])?;
    let (c_off, c_ty) = path(ty, &["_M_t", "_M_impl", "_M_node_count"])?;
    let count = word(bytes, c_off, c_ty.byte_size())?;
    let mut node = word(bytes, h_off + 2 * ptr, ptr)?;
    let mut nodes = Vec::new();
    let read = |a: u64| read_word(p, a).ok_or(a);
    for i in 0..count.min(max) {
        if i + 1 == count {
            nodes.push(node);
            break;
        }
        // The in-order successor (the iterator finds it before it yields this node).
        let next = (|| -> Result<u64, u64> {
            let mut n = node;
            let right = read(n + 3 * ptr)?;
            if right != 0 {
                n = right;
                loop {
                    let left = read(n + 2 * ptr)?;
                    if left == 0 {
                        return Ok(n);
                    }
                    n = left;
                }
            }
            let mut parent = read(n + ptr)?;
            while read(parent + 3 * ptr)? == n {
                n = parent;
                parent = read(n + ptr)?;
            }
            Ok(parent)
        })();
        match next {
            Ok(n) => {
                nodes.push(node);
                node = n;
            }
            Err(a) => {
                return Some(RbNodes {
                    count,
                    nodes,
                    failed: Some(a),
                });
            }
        }
    }
    Some(RbNodes {
        count,
        nodes,
        failed: None,
    })
}

struct RbNodes {
    count: u64,
    nodes: Vec<u64>,
    /// The address the tree's walk could not read.
    failed: Option<u64>,
}

/// A printer's children cut short by memory the iterator could not read, as gdb shows the
/// Python printer's `gdb.MemoryError`: `<error reading variable: …>` where the next child
/// would have been (right after the summary when there is none).
fn children_error(out: &mut String, addr: u64) {
    out.push_str(&format!(
        "<error reading variable: Cannot access memory at address {addr:#x}>"
    ));
}

/// libstdc++'s `StdMapPrinter`: `std::map with 2 elements = {[1] = 2.5, [3] = 4.5}`.
fn map(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let (Some(kty), Some(vty)) = (template_arg(ty, 0), template_arg(ty, 1)) else {
        return false;
    };
    let ptr = p.target.ptr_size();
    // Two children (key and value) per element.
    let max = (p.opts.print_elements as u64).div_ceil(2);
    let Some(RbNodes {
        count,
        nodes,
        failed,
    }) = rb_tree(p, ty, bytes, max)
    else {
        return false;
    };
    let Some(voff) = pair_value_offset(ty, "_M_t", &kty, &vty) else {
        return false;
    };
    out.push_str(&format!(
        "{} with {}",
        template_name(ty),
        num_elements(count)
    ));
    if count == 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    if nodes.is_empty()
        && let Some(a) = failed
    {
        children_error(out, a);
        return true;
    }
    let mut kids = Kids::new(p, false);
    for n in &nodes {
        kids.next(out);
        let at = n + 4 * ptr;
        out.push('[');
        kids.value_at(out, &kty, at);
        out.push_str("] = ");
        kids.value_at(out, &vty, at + voff);
    }
    if let Some(a) = failed {
        children_error(out, a);
    }
    kids.end(
        out,
        failed.is_none() && count * 2 >= p.opts.print_elements as u64,
    );
    true
}

/// libstdc++'s `StdSetPrinter`: `std::set with 3 elements = {[0] = 3, [1] = 6, [2] = 9}`.
fn set(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let Some(kty) = template_arg(ty, 0) else {
        return false;
    };
    let ptr = p.target.ptr_size();
    let Some(RbNodes {
        count,
        nodes,
        failed,
    }) = rb_tree(p, ty, bytes, p.opts.print_elements as u64)
    else {
        return false;
    };
    out.push_str(&format!(
        "{} with {}",
        template_name(ty),
        num_elements(count)
    ));
    if count == 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    if nodes.is_empty()
        && let Some(a) = failed
    {
        children_error(out, a);
        return true;
    }
    let mut kids = Kids::new(p, false);
    for (i, n) in nodes.iter().enumerate() {
        kids.next(out);
        out.push_str(&format!("[{i}] = "));
        kids.value_at(out, &kty, n + 4 * ptr);
    }
    if let Some(a) = failed {
        children_error(out, a);
    }
    kids.end(
        out,
        failed.is_none() && count >= p.opts.print_elements as u64,
    );
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
    let mut kids = Kids::new(p, false);
    let voff = (2 * ptr).next_multiple_of(align_of(&ety));
    let shown = count.min(p.opts.print_elements as u64);
    for i in 0..shown {
        kids.next(out);
        out.push_str(&format!("[{i}] = "));
        kids.value_at(out, &ety, node + voff);
        match read_word(p, node) {
            Some(next) => node = next,
            None => break,
        }
    }
    kids.end(out, count >= p.opts.print_elements as u64);
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

/// libstdc++'s `Tr1UnorderedMapPrinter` and `Tr1UnorderedSetPrinter` (for the multi
/// variants too; gdb 13's printers have none for their iterators): the elements in the
/// hash table's list order (`_M_before_begin._M_nxt`); a node's value follows its next
/// pointer.
fn unordered(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let name = ty.name.as_deref().unwrap_or("");
    let is_map =
        name.starts_with("std::unordered_map<") || name.starts_with("std::unordered_multimap<");
    let Some(kty) = template_arg(ty, 0) else {
        return false;
    };
    let vty = if is_map { template_arg(ty, 1) } else { None };
    let voff = match &vty {
        Some(v) => pair_value_offset(ty, "_M_h", &kty, v),
        None if is_map => None,
        None => Some(0),
    };
    let Some(voff) = voff else {
        return false;
    };
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
    let mut kids = Kids::new(p, false);
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
        kids.next(out);
        let at = node + at0;
        match &vty {
            Some(v) => {
                out.push('[');
                kids.value_at(out, &kty, at);
                out.push_str("] = ");
                kids.value_at(out, v, at + voff);
            }
            None => {
                out.push_str(&format!("[{i}] = "));
                kids.value_at(out, &kty, at);
            }
        }
        match read_word(p, node) {
            Some(next) => node = next,
            None => break,
        }
    }
    kids.end(out, count * per >= p.opts.print_elements as u64);
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
    let mut kids = Kids::new(p, false);
    kids.next(out);
    out.push_str("[contained value] = ");
    kids.value(out, &v_ty, vb, None);
    kids.end(out, false);
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
    let mut kids = Kids::new(p, true);
    let (mut cur, mut end, mut node) = (s_cur, s_last, s_node);
    let limit = p.opts.print_elements as u64;
    let mut i = 0u64;
    while cur != f_cur && i < limit {
        kids.next(out);
        kids.value_at(out, &ety, cur);
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
    kids.end(out, i == limit);
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
    let mut kids = Kids::new(p, false);
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
        kids.next(out);
        out.push_str(&format!("[{n}] = "));
        let (voff, vty) = match field(&impl_ty, "_M_head_impl") {
            Some((o, vt)) => (off + impl_off + o, vt),
            None => (off + impl_off, impl_ty),
        };
        let start = voff as usize;
        match bytes.get(start..start + vty.byte_size() as usize) {
            Some(b) => kids.value(out, &vty, b, None),
            None => return false,
        }
    }
    kids.end(out, false);
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
    let mut kids = Kids::new(p, false);
    kids.next(out);
    out.push_str("get() = ");
    kids.value(out, pty, b, None);
    kids.end(out, false);
    true
}

/// libstdc++'s `UniquePointerPrinter`: `std::unique_ptr<Pt> = {get() = 0x…}`.
fn unique_ptr(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let (Some((off, pty)), Some(targ)) = (smart_pointer(ty), template_arg(ty, 0)) else {
        return false;
    };
    out.push_str("std::unique_ptr<");
    out.push_str(&super::typeprint::raw_type_name(&targ));
    out.push('>');
    // A printer with children shows `{...}` for them in a frame line.
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    pointer_child(p, out, &pty, bytes, off)
}

/// libstdc++'s `SharedPointerPrinter`: `std::shared_ptr<int> (use count 1, weak count 0) =
/// {get() = 0x…}`, `(empty)` without a control block; the same for `std::weak_ptr`.
fn shared_ptr(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let ptr = p.target.ptr_size();
    let (Some((off, pty)), Some(targ), Some((pi_off, _))) = (
        field(ty, "_M_ptr"),
        template_arg(ty, 0),
        path(ty, &["_M_refcount", "_M_pi"]),
    ) else {
        return false;
    };
    let Some(pi) = word(bytes, pi_off, ptr) else {
        return false;
    };
    // A control block pointer not kept: no counts to show.
    if bytes
        .get(pi_off as usize..(pi_off + ptr) as usize)
        .is_none_or(|b| p.lost(b))
    {
        return false;
    }
    let state = if pi == 0 {
        "empty".to_string()
    } else {
        // The printer reads both counts through the pointer to the (polymorphic) control
        // block: each time gdb looks for its dynamic class.
        p.target.full_object(pi);
        p.target.full_object(pi);
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
    out.push_str(template_name(ty));
    out.push('<');
    out.push_str(&super::typeprint::raw_type_name(&targ));
    out.push_str(&format!("> ({state})"));
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    pointer_child(p, out, &pty, bytes, off)
}

/// A `std::pair` as gdb shows it: its two members, without the empty `__pair_base`.
fn pair(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let TypeKind::Aggregate { kind, members, .. } = &ty.kind else {
        return false;
    };
    if summary {
        out.push_str("{...}");
        return true;
    }
    let members: Vec<_> = members
        .iter()
        .filter(|m| !m.is_base)
        .map(|m| crate::types::Member {
            name: m.name.clone(),
            ty: crate::types::LazyType::ready(m.ty.get().clone()),
            offset: m.offset,
            bitfield: m.bitfield,
            is_static: m.is_static,
            is_base: false,
        })
        .collect();
    if members.len() != 2 {
        return false;
    }
    // The same class less its base, unnamed (no printer), printed as any class (`set print
    // pretty` included).
    let shown = crate::types::Type::new(
        None,
        ty.size,
        TypeKind::Aggregate {
            kind: *kind,
            members,
            declaration: false,
        },
    );
    p.value(out, &shown, bytes, None);
    true
}

/// The class template's name (`std::multimap` of `std::multimap<int, int, …>`).
fn template_name(ty: &TypeRef) -> &str {
    let name = ty.name.as_deref().unwrap_or("");
    name.split('<').next().unwrap_or(name)
}

/// A type's name as libstdc++'s type printers show it (`std::string`, `std::vector<int>`).
fn recognized_name(ty: &TypeRef) -> String {
    super::typeprint::recognize(&ty.strip()).unwrap_or_else(|| super::typeprint::raw_type_name(ty))
}

/// libstdc++'s `StdVectorPrinter` for `std::vector<bool>`: `std::vector<bool> of length 10,
/// capacity 64 = {true, false, …}`, the bits in words of `unsigned long`.
fn vector_bool(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let Some(parts) = vector_bool_parts(p, ty, bytes) else {
        return false;
    };
    let len = parts.len();
    let cap = parts.eos.wrapping_sub(parts.start) / parts.word * 8 * parts.word;
    out.push_str(&format!(
        "std::vector<bool> of length {len}, capacity {cap}"
    ));
    if len == 0 {
        return true;
    }
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    let mut kids = Kids::new(p, true);
    let limit = p.opts.print_elements as u64;
    let n = len.min(limit);
    for i in 0..n {
        kids.next(out);
        match parts.bit(p, i) {
            Some(b) => out.push_str(if b { "true" } else { "false" }),
            None => out.push_str("<error: Cannot access memory>"),
        }
    }
    kids.end(out, len >= limit);
    true
}

/// The storage of a `std::vector<bool>`: words of `word` bytes from `start` (bit offset
/// `start_off`), the last bit before `finish`/`finish_off`, capacity up to `eos`.
pub(crate) struct BitVector {
    start: u64,
    start_off: u64,
    finish: u64,
    finish_off: u64,
    eos: u64,
    word: u64,
}

impl BitVector {
    pub fn len(&self) -> u64 {
        let bits = 8 * self.word;
        (self.finish.wrapping_sub(self.start) / self.word * bits + self.finish_off)
            .wrapping_sub(self.start_off)
    }

    /// Where bit `i` is: the address of its word and the word's size, and its place in it.
    pub fn locate(&self, i: u64) -> (u64, u64, u64) {
        let bits = 8 * self.word;
        let n = self.start_off.wrapping_add(i);
        (
            self.start.wrapping_add(n / bits * self.word),
            self.word.min(8),
            n % bits,
        )
    }

    /// Bit `i`, read from the program.
    fn bit(&self, p: &Printer, i: u64) -> Option<bool> {
        let (addr, size, shift) = self.locate(i);
        let mut b = [0u8; 8];
        p.target.read_memory(addr, &mut b[..size as usize]).ok()?;
        Some(u64::from_le_bytes(b) >> shift & 1 == 1)
    }
}

fn vector_bool_parts(p: &Printer, ty: &TypeRef, bytes: &[u8]) -> Option<BitVector> {
    bit_vector(ty, bytes, p.target.ptr_size())
}

/// libstdc++'s `_Bvector_impl`: `_M_start`/`_M_finish` are bit iterators (`_M_p`,
/// `_M_offset`), `_M_end_of_storage` a word pointer.
pub(crate) fn bit_vector(ty: &TypeRef, bytes: &[u8], ptr: u64) -> Option<BitVector> {
    if !ty.strip().name.as_deref()?.starts_with("std::vector<bool,") {
        return None;
    }
    let it = |which: &str| -> Option<(u64, u64, u64)> {
        let (p_off, p_ty) = path(ty, &["_M_impl", which, "_M_p"])?;
        let (o_off, o_ty) = path(ty, &["_M_impl", which, "_M_offset"])?;
        let word = p_ty.pointee()?.byte_size();
        Some((
            self::word(bytes, p_off, ptr)?,
            self::word(bytes, o_off, o_ty.byte_size())?,
            word,
        ))
    };
    let (start, start_off, word) = it("_M_start")?;
    let (finish, finish_off, _) = it("_M_finish")?;
    let (e_off, _) = path(ty, &["_M_impl", "_M_end_of_storage"])?;
    let eos = self::word(bytes, e_off, ptr)?;
    if word == 0 || finish < start || eos < start {
        return None;
    }
    Some(BitVector {
        start,
        start_off,
        finish,
        finish_off,
        eos,
        word,
    })
}

/// libstdc++'s `StdVariantPrinter`: `std::variant<int, double, std::string> [index 1] =
/// {2.5}`; a contained value with children of its own (a container) as `… [index 0]
/// containing std::vector of length 2, capacity 2 = {1, 2}`.
fn variant(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], summary: bool) -> bool {
    let (Some((u_off, u_ty)), Some((i_off, i_ty))) = (field(ty, "_M_u"), field(ty, "_M_index"))
    else {
        return false;
    };
    let Some(index) = word(bytes, i_off, i_ty.byte_size()) else {
        return false;
    };
    // `_Variadic_union`: `_M_first` (an `_Uninitialized<T>`) and `_M_rest`, one level per
    // alternative.
    let mut alternatives = Vec::new();
    let (mut off, mut un) = (u_off, u_ty);
    while let Some((f_off, f_ty)) = field(&un, "_M_first") {
        let Some(t) = template_arg(&f_ty, 0) else {
            return false;
        };
        let storage = field(&f_ty, "_M_storage").map(|(o, _)| o).unwrap_or(0);
        alternatives.push((off + f_off + storage, t));
        let Some((r_off, r_ty)) = field(&un, "_M_rest") else {
            break;
        };
        off += r_off;
        un = r_ty;
    }
    let names: Vec<String> = alternatives
        .iter()
        .map(|(_, t)| recognized_name(t))
        .collect();
    out.push_str(&format!("{}<{}>", template_name(ty), names.join(", ")));
    let Some((v_off, v_ty)) = alternatives.get(index as usize) else {
        out.push_str(" [no contained value]");
        return true;
    };
    let start = *v_off as usize;
    let Some(vb) = bytes.get(start..start + v_ty.byte_size() as usize) else {
        return false;
    };
    // The contained value's own printer, when it has children, makes the rest.
    let st = v_ty.strip();
    let own = printer_for(&st).filter(|f| {
        !std::ptr::fn_addr_eq(*f, string as PrintFn) && !std::ptr::fn_addr_eq(*f, pair as PrintFn)
    });
    if let Some(f) = own {
        let mut inner = String::new();
        if f(p, &mut inner, &st, vb, summary) {
            out.push_str(&format!(" [index {index}] containing {inner}"));
            return true;
        }
    }
    out.push_str(&format!(" [index {index}]"));
    if summary {
        out.push_str(" = {...}");
        return true;
    }
    let mut kids = Kids::new(p, true);
    kids.next(out);
    kids.value(out, v_ty, vb, None);
    kids.end(out, false);
    true
}

/// libstdc++'s `StdAtomicPrinter`: `std::atomic<int> = { 7 }`.
fn atomic(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], _summary: bool) -> bool {
    let value = field(ty, "_M_i")
        .or_else(|| field(ty, "_M_fp"))
        .or_else(|| path(ty, &["_M_b", "_M_p"]))
        .or_else(|| path(ty, &["_M_base", "_M_i"]));
    let Some((off, vty)) = value else {
        return false;
    };
    // The template argument as gdb names it (`Pt *`), else the stored value's type.
    let targ = template_arg(ty, 0).unwrap_or_else(|| vty.clone());
    let start = off as usize;
    let Some(vb) = bytes.get(start..start + vty.byte_size() as usize) else {
        return false;
    };
    out.push_str(&format!(
        "{}<{}> = {{ ",
        template_name(ty),
        super::typeprint::raw_type_name(&targ)
    ));
    p.value(out, &vty, vb, None);
    out.push_str(" }");
    true
}

/// libstdc++'s `StdStringPrinter` (the C++11 ABI's `std::string`): the characters, as a
/// string of known length.
fn string(p: &Printer, out: &mut String, ty: &TypeRef, bytes: &[u8], _summary: bool) -> bool {
    let ptr = p.target.ptr_size();
    // clang keeps `_Alloc_hider` only declared: the printer's `_M_dataplus['_M_p']` fails,
    // gdb says so on stderr and prints nothing for the string.
    if path(ty, &["_M_dataplus", "_M_p"]).is_none()
        && path(ty, &["_M_dataplus"]).is_some_and(|(_, t)| {
            matches!(
                t.strip().kind,
                TypeKind::Aggregate {
                    declaration: true,
                    ..
                }
            )
        })
    {
        p.target
            .print_error("Python Exception <class 'gdb.error'>: There is no member named _M_p.");
        return true;
    }
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

/// An iterator's element at `addr` of type `ety`, as libstdc++'s iterator printers show it
/// (`str(value)`, in full also in a frame line: the printers have no children).
fn iterator_element(p: &Printer, out: &mut String, ety: &TypeRef, addr: u64) -> bool {
    let mut buf = vec![0u8; ety.byte_size().min(super::MAX_VALUE_SIZE) as usize];
    match p.target.read_memory(addr, &mut buf) {
        Ok(()) => p.nested(out, ety, &buf, Some(addr)),
        Err(e) => out.push_str(&format!("<error: {e}>")),
    }
    true
}

/// libstdc++'s `StdVectorIteratorPrinter` (`__gnu_cxx::__normal_iterator`, a vector's or a
/// string's iterator): the element it points at.
fn normal_iterator(
    p: &Printer,
    out: &mut String,
    ty: &TypeRef,
    bytes: &[u8],
    _summary: bool,
) -> bool {
    pointer_iterator(p, out, ty, bytes, "_M_current", "std::vector")
}

/// An iterator holding a pointer to its element in member `member`, or `non-dereferenceable
/// iterator for CONTAINER` when it is null.
fn pointer_iterator(
    p: &Printer,
    out: &mut String,
    ty: &TypeRef,
    bytes: &[u8],
    member: &str,
    container: &str,
) -> bool {
    let Some((off, pty)) = field(ty, member) else {
        return false;
    };
    let Some(ety) = pty.strip().pointee() else {
        return false;
    };
    let Some(at) = word(bytes, off, p.target.ptr_size()) else {
        return false;
    };
    if at == 0 {
        out.push_str(&format!("non-dereferenceable iterator for {container}"));
        return true;
    }
    iterator_element(p, out, &ety, at)
}

/// libstdc++'s `StdRbtreeIteratorPrinter` and `StdListIteratorPrinter` (map, set and list
/// iterators): the value in the node it points at, after the node's links.
fn node_iterator(
    p: &Printer,
    out: &mut String,
    ty: &TypeRef,
    bytes: &[u8],
    _summary: bool,
) -> bool {
    // g++ gives `_List_iterator` no template parameters: its `operator*`'s reference then.
    let deref = || {
        let c = ty.cxx.as_deref()?;
        let m = c.methods.iter().find(|m| m.name == "operator*")?;
        let r = m.ret.as_ref()?.get().strip_typedefs();
        match &r.kind {
            TypeKind::Reference(t) => Some(t.get().clone()),
            _ => None,
        }
    };
    let Some(ety) = template_arg(ty, 0).or_else(deref) else {
        return false;
    };
    let Some((off, _)) = field(ty, "_M_node") else {
        return false;
    };
    let ptr = p.target.ptr_size();
    let Some(node) = word(bytes, off, ptr) else {
        return false;
    };
    let name = ty.name.as_deref().unwrap_or("");
    let tree = name.starts_with("std::_Rb_tree");
    if node == 0 {
        out.push_str(if tree {
            "non-dereferenceable iterator for associative container"
        } else {
            "non-dereferenceable iterator for std::list"
        });
        return true;
    }
    // `_Rb_tree_node_base`: colour, parent, left, right; `_List_node_base`: next, prev.
    let links = if tree { 4 * ptr } else { 2 * ptr };
    iterator_element(p, out, &ety, node + links.next_multiple_of(align_of(&ety)))
}

/// libstdc++'s `StdDequeIteratorPrinter`: the element `_M_cur` points at.
fn deque_iterator(
    p: &Printer,
    out: &mut String,
    ty: &TypeRef,
    bytes: &[u8],
    _summary: bool,
) -> bool {
    pointer_iterator(p, out, ty, bytes, "_M_cur", "std::deque")
}
