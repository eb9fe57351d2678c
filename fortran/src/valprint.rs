//! Values as gdb 13 prints them in Fortran (`f_language::value_print_inner`,
//! `f77_print_array`, `generic_val_print_bool` with Fortran's decorations).
//!
//! Rules, each checked against gdb 13 on gfortran 12 and flang-22 binaries:
//! - `logical(k)`: `.TRUE.` for 1, `.FALSE.` for 0, any other value as a number.
//! - `complex(k)`: `(1,-2)` (no space), each half as gdb prints a real.
//! - `character(len=N)` and character arrays: `'hi        '`.
//! - derived types: `( n = 3, w = (0.5, 0.25) )`.
//! - arrays: column major, one parenthesised group per dimension, groups of the outer
//!   dimensions separated by a space: `((1, 2) (3, 4) (5, 6))`; runs of more than
//!   `repeat_threshold` equal elements as `0 <repeats 11 times>`; after `print_elements`
//!   elements `...`. Unallocated: `<not allocated>`, unassociated: `<not associated>`.
//! - integers, reals, pointers: as the C printer (the same digits).

use cohort_dwarf::context::Target;
use cohort_dwarf::format::{FloatFormat, FormatOptions, float_text, format_value as c_format};
use cohort_dwarf::types::{BoundSpec, Encoding, Shape, ShapeStatus, TypeKind, TypeRef};
use cohort_dwarf::value::{Lval, Value};

/// Resolves an array whose shape is a property of its object (an allocatable or pointer
/// component) for the object at an address: the resolved type and its data address (see
/// `cohort_dwarf::context::EvalContext::resolve_object`).
pub type Resolver<'a> = &'a dyn Fn(&TypeRef, u64) -> cohort_dwarf::Result<(TypeRef, u64)>;

/// What follows `$N = ` for `v` in a Fortran frame (components whose shape needs their
/// object print as `<error: …>`: see [`format_value_with`]).
pub fn format_value(v: &Value, target: &dyn Target, opts: &FormatOptions) -> String {
    let none = |_: &TypeRef, _: u64| {
        Err(cohort_dwarf::DwarfError::user(
            "array bounds not known here",
        ))
    };
    format_value_with(v, target, opts, &none)
}

/// [`format_value`], resolving allocatable and pointer components through `resolve`.
pub fn format_value_with(
    v: &Value,
    target: &dyn Target,
    opts: &FormatOptions,
    resolve: Resolver<'_>,
) -> String {
    if v.optimized_out {
        return "<optimized out>".into();
    }
    let p = Printer {
        target,
        opts,
        resolve,
        elements: std::cell::Cell::new(0),
    };
    let mut out = String::new();
    // An address (`print &x`): gdb's Fortran pointer type before it, as C's `(int *)`.
    if opts.type_prefix
        && let TypeKind::Pointer(t) = &v.ty.strip().kind
        && !matches!(t.get().strip().kind, TypeKind::Function { .. })
    {
        out.push_str(&format!("({}) ", crate::typeprint::whatis(&v.ty)));
    }
    p.value(&mut out, &v.ty, &v.bytes, v.address());
    out
}

struct Printer<'a> {
    target: &'a dyn Target,
    opts: &'a FormatOptions,
    resolve: Resolver<'a>,
    /// Elements printed so far (for `print elements`).
    elements: std::cell::Cell<usize>,
}

/// Whether `ty` is a one-byte (or `kind=4`) character type: arrays of it are strings.
fn is_char(ty: &TypeRef) -> bool {
    let st = ty.strip();
    matches!(
        st.kind,
        TypeKind::Base(Encoding::SignedChar | Encoding::UnsignedChar)
    ) || st
        .name
        .as_deref()
        .is_some_and(|n| n.starts_with("character"))
}

impl Printer<'_> {
    /// `size` bytes at `off` of the object: from `bytes` when they hold them, else read at
    /// `addr + off`.
    fn fetch(&self, bytes: &[u8], addr: Option<u64>, off: i64, size: usize) -> Option<Vec<u8>> {
        if off >= 0
            && let Some(b) = bytes.get(off as usize..off as usize + size)
        {
            return Some(b.to_vec());
        }
        let a = addr?.wrapping_add(off as u64);
        let mut buf = vec![0u8; size];
        self.target.read_memory(a, &mut buf).ok()?;
        Some(buf)
    }

    fn value(&self, out: &mut String, ty: &TypeRef, bytes: &[u8], addr: Option<u64>) {
        let st = ty.strip();
        let plain = self.opts.format.is_none();
        // Elements of big arrays: reals and integers straight from the bytes (the same text
        // as the C printer's, without a `Value` per element).
        if plain
            && let TypeKind::Base(enc) = st.kind
            && let Some(b) = bytes.get(..st.size as usize)
        {
            match (enc, b.len()) {
                (Encoding::Float, 8) => {
                    return out.push_str(&float_text(b, FloatFormat::Double));
                }
                (Encoding::Float, 4) => {
                    return out.push_str(&float_text(b, FloatFormat::Single));
                }
                (Encoding::Signed, 2 | 4 | 8) => {
                    let mut n = [0u8; 8];
                    n[..b.len()].copy_from_slice(b);
                    let shift = 64 - 8 * b.len() as u32;
                    let v = (i64::from_le_bytes(n) << shift) >> shift;
                    return out.push_str(&v.to_string());
                }
                _ => {}
            }
        }
        match &st.kind {
            TypeKind::Base(Encoding::Boolean) if plain => {
                let Some(b) = self.fetch(bytes, addr, 0, st.size as usize) else {
                    out.push_str("<unavailable>");
                    return;
                };
                let mut n = [0u8; 8];
                let k = b.len().min(8);
                n[..k].copy_from_slice(&b[..k]);
                match u64::from_le_bytes(n) {
                    0 => out.push_str(".FALSE."),
                    1 => out.push_str(".TRUE."),
                    v => out.push_str(&v.to_string()),
                }
            }
            TypeKind::Base(Encoding::ComplexFloat) if plain => {
                let size = st.size as usize;
                let Some(b) = self.fetch(bytes, addr, 0, size) else {
                    out.push_str("<unavailable>");
                    return;
                };
                // `complex(kind=16)` is two `real(kind=16)` (binary128).
                let kind10 = st.name.as_deref().is_some_and(|n| n.contains("kind=10"));
                let half_name = match size {
                    32 if kind10 => "real(kind=10)",
                    32 => "real(kind=16)",
                    _ => "real",
                };
                let half =
                    cohort_dwarf::types::Type::base(half_name, (size / 2) as u64, Encoding::Float);
                out.push('(');
                self.scalar(out, &half, b[..size / 2].to_vec());
                out.push(',');
                self.scalar(out, &half, b[size / 2..].to_vec());
                out.push(')');
            }
            TypeKind::Shaped(shape) => self.shaped(out, shape, bytes, addr),
            TypeKind::DynArray(spec) => match (spec.constant_shape(), addr) {
                (Some(shape), _) => self.shaped(out, &shape, bytes, addr),
                (None, Some(a)) => match (self.resolve)(ty, a) {
                    Ok((t, data)) => match &t.strip().kind {
                        TypeKind::Shaped(shape) => self.shaped(out, shape, &[], Some(data)),
                        _ => out.push_str("<error: array bounds not known here>"),
                    },
                    Err(e) => out.push_str(&format!("<error: {e}>")),
                },
                (None, None) => out.push_str("<error: array bounds not known here>"),
            },
            TypeKind::DynString {
                element, length, ..
            } => match length {
                BoundSpec::Const(n) => {
                    let size = element.byte_size() as usize * (*n).max(0) as usize;
                    match self.fetch(bytes, addr, 0, size) {
                        Some(b) => self.string(out, &b, element.byte_size() as usize),
                        None => out.push_str("<unavailable>"),
                    }
                }
                _ => match addr.map(|a| (self.resolve)(ty, a)) {
                    // A run-time length (flang's deferred-length component): resolved for
                    // this object like an allocatable component.
                    Some(Ok((t, data))) => match &t.strip().kind {
                        TypeKind::Array { element, .. } => {
                            let size = t.byte_size() as usize;
                            match self.fetch(&[], Some(data), 0, size) {
                                Some(b) => {
                                    self.string(out, &b, element.byte_size().max(1) as usize)
                                }
                                None => out.push_str("<unavailable>"),
                            }
                        }
                        _ => out.push_str("<error: string length not known here>"),
                    },
                    Some(Err(e)) => out.push_str(&format!("<error: {e}>")),
                    None => out.push_str("<error: string length not known here>"),
                },
            },
            // A C unit's array: a Fortran array from 0.
            TypeKind::Array { .. } if let Some(shape) = crate::eval::c_array_shape(ty) => {
                self.shaped(out, &shape, bytes, addr)
            }
            TypeKind::Array { element, .. } if is_char(element) && plain => {
                let size = st.byte_size() as usize;
                match self.fetch(bytes, addr, 0, size) {
                    Some(b) => self.string(out, &b, element.byte_size().max(1) as usize),
                    None => out.push_str("<unavailable>"),
                }
            }
            TypeKind::Aggregate { members, .. } => {
                out.push_str("( ");
                let mut first = true;
                for m in members.iter().filter(|m| !m.is_static) {
                    if !first {
                        out.push_str(", ");
                    }
                    first = false;
                    out.push_str(m.name.as_deref().unwrap_or("?"));
                    out.push_str(" = ");
                    let mty = m.ty.get();
                    let off = m.offset as usize;
                    let sub = bytes.get(off..).unwrap_or(&[]);
                    if let Some(s) = self.deferred_component(members, m, bytes, addr) {
                        out.push_str(&s);
                        continue;
                    }
                    self.value(out, mty, sub, addr.map(|a| a + m.offset));
                }
                out.push_str(" )");
            }
            _ => {
                let size = st.byte_size() as usize;
                match self.fetch(bytes, addr, 0, size) {
                    Some(b) => {
                        let mut v =
                            Value::new(c_type(ty), b, addr.map_or(Lval::None, Lval::Memory));
                        v.optimized_out = false;
                        let o = FormatOptions {
                            type_prefix: false,
                            ..self.opts.clone()
                        };
                        // A procedure (or procedure pointer) shows its source name, as gdb
                        // names code addresses by their function: `<calc::twice>`.
                        let code = match &st.kind {
                            TypeKind::Function { .. } => true,
                            TypeKind::Pointer(t) => {
                                matches!(t.get().strip().kind, TypeKind::Function { .. })
                            }
                            _ => false,
                        };
                        if code {
                            let named = SourceNames(self.target);
                            out.push_str(&c_format(&v, &named, &o));
                        } else {
                            out.push_str(&c_format(&v, self.target, &o));
                        }
                    }
                    None => out.push_str("<unavailable>"),
                }
            }
        }
    }

    fn scalar(&self, out: &mut String, ty: &TypeRef, bytes: Vec<u8>) {
        let v = Value::new(c_type(ty), bytes, Lval::None);
        let o = FormatOptions {
            type_prefix: false,
            ..self.opts.clone()
        };
        out.push_str(&c_format(&v, self.target, &o));
    }

    /// gfortran's deferred-length character component `NAME` (a pointer to a string of length
    /// 0, the length in the component `_NAME_length`) as its text; `None` for other members.
    fn deferred_component(
        &self,
        members: &[cohort_dwarf::types::Member],
        m: &cohort_dwarf::types::Member,
        bytes: &[u8],
        addr: Option<u64>,
    ) -> Option<String> {
        let mty = m.ty.get().strip();
        let TypeKind::Pointer(t) = &mty.kind else {
            return None;
        };
        let TypeKind::DynString { element, .. } = &t.get().strip().kind else {
            return None;
        };
        let name = m.name.as_deref()?;
        let len_member = members
            .iter()
            .find(|l| l.name.as_deref() == Some(&format!("_{name}_length")))?;
        let word = |off: u64, size: usize| -> Option<u64> {
            let b = self.fetch(bytes, addr, off as i64, size)?;
            let mut a = [0u8; 8];
            a[..size.min(8)].copy_from_slice(&b[..size.min(8)]);
            Some(u64::from_le_bytes(a))
        };
        let data = word(m.offset, 8)?;
        let len = word(len_member.offset, len_member.ty.get().byte_size() as usize)?;
        if data == 0 {
            return Some("<not allocated>".into());
        }
        let w = element.byte_size().max(1);
        let size = (len.min(1 << 20) * w) as usize;
        let mut out = String::new();
        match self.fetch(&[], Some(data), 0, size) {
            Some(b) => self.string(&mut out, &b, w as usize),
            None => out.push_str("<unavailable>"),
        }
        Some(out)
    }

    /// `'text'` with gdb's repeats for long runs.
    fn string(&self, out: &mut String, b: &[u8], width: usize) {
        // gdb's Fortran `printstr`: `character(kind=4)` strings are prefixed with their kind.
        if width == 4 {
            out.push_str("4_");
        }
        let chars: Vec<u32> = b
            .chunks(width.max(1))
            .map(|c| {
                let mut n = [0u8; 4];
                let k = c.len().min(4);
                n[..k].copy_from_slice(&c[..k]);
                u32::from_le_bytes(n)
            })
            .collect();
        let limit = self.opts.print_elements;
        let mut i = 0;
        let mut in_quote = false;
        let mut any = false;
        while i < chars.len() && i < limit {
            let c = chars[i];
            let mut run = 1;
            while i + run < chars.len() && chars[i + run] == c {
                run += 1;
            }
            if run > self.opts.repeat_threshold {
                if in_quote {
                    out.push_str("', ");
                    in_quote = false;
                } else if any {
                    out.push_str(", ");
                }
                out.push('\'');
                push_char(out, c);
                out.push_str(&format!("' <repeats {run} times>"));
                i += run;
            } else {
                if !in_quote {
                    if any {
                        out.push_str(", ");
                    }
                    out.push('\'');
                    in_quote = true;
                }
                push_char(out, c);
                i += 1;
            }
            any = true;
        }
        if in_quote {
            out.push('\'');
        }
        if !any {
            out.push_str("''");
        }
        if i < chars.len() {
            out.push_str("...");
        }
    }

    fn shaped(&self, out: &mut String, shape: &Shape, bytes: &[u8], addr: Option<u64>) {
        match shape.status {
            ShapeStatus::NotAllocated => return out.push_str("<not allocated>"),
            ShapeStatus::NotAssociated => return out.push_str("<not associated>"),
            ShapeStatus::Ok => {}
        }
        if shape.dims.is_empty() {
            return out.push_str("()");
        }
        if shape.dims.iter().any(|d| d.is_assumed_size()) {
            return out
                .push_str("<error: assumed-size array: its last dimension has no upper bound>");
        }
        if is_char(&shape.element) && shape.dims.len() == 1 && self.opts.format.is_none() {
            let n = shape.len() as usize * shape.element.byte_size() as usize;
            if shape.is_contiguous()
                && let Some(b) = self.fetch(bytes, addr, 0, n)
            {
                return self.string(out, &b, shape.element.byte_size() as usize);
            }
        }
        self.elements.set(0);
        // Read the whole array in one go (one `process_vm_readv`), not element by element.
        let (lo, hi) = shape_span(shape);
        let covered = lo >= 0 && bytes.len() as i64 >= hi;
        if !covered
            && let Some(a) = addr
            && hi > lo
            && (hi - lo) as u64 <= ONE_READ_LIMIT
        {
            let mut buf = vec![0u8; (hi - lo) as usize];
            let start = a.wrapping_add(lo as u64);
            if self.target.read_memory(start, &mut buf).is_ok() {
                self.dim(
                    out,
                    shape,
                    shape.dims.len() - 1,
                    -lo,
                    &buf,
                    Some(start),
                    true,
                );
                return;
            }
        }
        self.dim(out, shape, shape.dims.len() - 1, 0, bytes, addr, true);
    }

    /// Dimension `d` (0-based, source order: dimension 0 is the innermost) starting at byte
    /// offset `base`, as gdb 13's Fortran array walker and `fortran_array_printer_impl` print
    /// it, quirks included:
    /// - every element counts towards `print elements`, repeated or not; once that many are
    ///   out, `...` replaces the rest of each dimension still open;
    /// - a run of equal elements is the first element, then `<repeats N times>` when more than
    ///   `repeat_threshold` follow it, else the copies one by one; a run is also cut where the
    ///   element limit is reached (`(7, 7, 7, 7, ...)`, `(7, <repeats 12 times>, ...)`);
    /// - equal sub-arrays likewise (`(…) <repeats N times>`), counted as the number of
    ///   elements of the next inner dimension each (not of the whole sub-array), and only
    ///   while the run would still fit under the element limit.
    ///
    /// `last` says whether this sub-array is the last of its parent (no separating space).
    #[allow(clippy::too_many_arguments)]
    fn dim(
        &self,
        out: &mut String,
        shape: &Shape,
        d: usize,
        base: i64,
        bytes: &[u8],
        addr: Option<u64>,
        last: bool,
    ) {
        let dim = shape.dims[d];
        let limit = self.opts.print_elements;
        let threshold = self.opts.repeat_threshold as u64;
        let repeats_on = self.opts.repeat_threshold != usize::MAX;
        out.push('(');
        let mut prev: Option<i64> = None;
        let mut nrep = 0u64;
        for i in 0..dim.count {
            if self.elements.get() >= limit {
                out.push_str("...");
                break;
            }
            let off = base + i as i64 * dim.stride;
            let last_i = i + 1 == dim.count;
            if d == 0 {
                let repeated =
                    repeats_on && prev.is_some_and(|p| self.same(shape, 0, p, off, bytes, addr));
                if repeated {
                    nrep += 1;
                }
                if !repeated || last_i || self.elements.get() + 1 == limit {
                    let n = std::mem::take(&mut nrep);
                    if n != 0 {
                        if n >= threshold {
                            out.push_str(&format!("<repeats {} times>", n + 1));
                        } else if let Some(p) = prev {
                            for k in (1..=n).rev() {
                                self.element(out, shape, p, bytes, addr);
                                if k > 1 {
                                    out.push_str(", ");
                                }
                            }
                        }
                        if !repeated {
                            out.push_str(", ");
                        }
                    }
                    if !repeated {
                        self.element(out, shape, off, bytes, addr);
                    }
                    if !last_i {
                        out.push_str(", ");
                    }
                }
                self.elements.set(self.elements.get() + 1);
            } else {
                let inner = shape.dims[d - 1].count;
                let repeated = repeats_on
                    && prev.is_some_and(|p| {
                        (self.elements.get() as u64).saturating_add((nrep + 1) * inner)
                            <= limit as u64
                            && self.same(shape, d, p, off, bytes, addr)
                    });
                if repeated {
                    nrep += 1;
                }
                if !repeated || last_i {
                    let n = std::mem::take(&mut nrep);
                    if n >= threshold {
                        out.push_str(&format!("<repeats {} times>", n + 1));
                        if !repeated {
                            out.push(' ');
                        }
                        let counted = (n * inner) as usize;
                        self.elements
                            .set(self.elements.get().saturating_add(counted));
                    } else if let Some(p) = prev {
                        for k in (1..=n).rev() {
                            self.dim(out, shape, d - 1, p, bytes, addr, repeated && k == 1);
                        }
                    }
                    if !repeated {
                        if self.elements.get() < limit {
                            self.dim(out, shape, d - 1, off, bytes, addr, last_i);
                        } else if last_i {
                            out.push_str("...");
                        }
                    }
                }
            }
            prev = Some(off);
        }
        out.push(')');
        if !last && d + 1 < shape.dims.len() {
            out.push(' ');
        }
    }

    /// The element at byte offset `off` of the innermost dimension.
    fn element(&self, out: &mut String, shape: &Shape, off: i64, bytes: &[u8], addr: Option<u64>) {
        let sub = usize::try_from(off)
            .ok()
            .and_then(|o| bytes.get(o..))
            .unwrap_or(&[]);
        self.value(
            out,
            &shape.element,
            sub,
            addr.map(|a| a.wrapping_add(off as u64)),
        );
    }

    /// Whether element or sub-array `a` of dimension `d` has the same bytes as `b` (for
    /// finding repeats); false when either cannot be read.
    fn same(
        &self,
        shape: &Shape,
        d: usize,
        a: i64,
        b: i64,
        bytes: &[u8],
        addr: Option<u64>,
    ) -> bool {
        if d == 0 {
            let esize = shape.element.byte_size() as usize;
            let slice = |off: i64| {
                usize::try_from(off)
                    .ok()
                    .and_then(|o| bytes.get(o..o.checked_add(esize)?))
            };
            return match (slice(a), slice(b)) {
                (Some(x), Some(y)) => x == y,
                _ => match (
                    self.fetch(bytes, addr, a, esize),
                    self.fetch(bytes, addr, b, esize),
                ) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                },
            };
        }
        let dim = shape.dims[d - 1];
        (0..dim.count).all(|j| {
            let o = j as i64 * dim.stride;
            self.same(shape, d - 1, a + o, b + o, bytes, addr)
        })
    }
}

/// The most bytes an array print reads in one block (beyond it, element by element).
const ONE_READ_LIMIT: u64 = 64 << 20;

/// The byte range `[lo, hi)` the elements of `shape` cover, relative to its first element.
fn shape_span(shape: &Shape) -> (i64, i64) {
    let esize = shape.element.byte_size() as i64;
    let (mut lo, mut hi) = (0i64, esize);
    for d in &shape.dims {
        if d.count == 0 {
            return (0, 0);
        }
        let last = (d.count as i64 - 1).saturating_mul(d.stride);
        if last < 0 {
            lo = lo.saturating_add(last);
        } else {
            hi = hi.saturating_add(last);
        }
    }
    (lo, hi)
}

/// The type the C printer should see for a Fortran scalar: gdb (`i386_floatformat_for_type`)
/// reads `real(kind=16)` as IEEE binary128, not as the x87 `long double` of the same size.
fn c_type(ty: &TypeRef) -> TypeRef {
    let st = ty.strip();
    match (&st.kind, st.size, st.name.as_deref()) {
        (TypeKind::Base(Encoding::Float), 16, Some(n)) if n.contains("kind=16") => {
            cohort_dwarf::types::Type::base("_Float128", 16, Encoding::Float)
        }
        _ => ty.clone(),
    }
}

fn push_char(out: &mut String, c: u32) {
    match char::from_u32(c) {
        Some('\'') => out.push_str("\\'"),
        Some('\\') => out.push_str("\\\\"),
        Some(ch) if (' '..='~').contains(&ch) => out.push(ch),
        Some('\n') => out.push_str("\\n"),
        Some('\t') => out.push_str("\\t"),
        _ => out.push_str(&format!("\\{c:03o}")),
    }
}

/// A target whose code symbols are Fortran source names: gfortran's `__calc_MOD_twice` and
/// flang's `_QMcalcPtwice` are `calc::twice` (an offset `+4` is kept).
struct SourceNames<'a>(&'a dyn Target);

impl Target for SourceNames<'_> {
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> cohort_dwarf::error::Result<()> {
        self.0.read_memory(addr, buf)
    }

    fn ptr_size(&self) -> u64 {
        self.0.ptr_size()
    }

    fn symbol_for(&self, addr: u64) -> Option<String> {
        self.0.symbol_for(addr).map(|s| source_name(&s))
    }
}

/// A procedure's linkage name as its source name: `__mod_MOD_name` (gfortran) and
/// `_QMmodPname` (flang) → `mod::name`; other names as they are.
pub fn source_name(sym: &str) -> String {
    let (name, off) = match sym.find('+') {
        Some(i) => sym.split_at(i),
        None => (sym, ""),
    };
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if let Some((m, p)) = name
        .strip_prefix("__")
        .and_then(|r| r.split_once("_MOD_"))
        .filter(|(m, p)| plain(m) && plain(p))
    {
        return format!("{m}::{p}{off}");
    }
    if let Some((m, p)) = name
        .strip_prefix("_QM")
        .and_then(|r| r.split_once('P'))
        .filter(|(m, p)| {
            plain(m) && plain(p) && !m.chars().chain(p.chars()).any(|c| c.is_ascii_uppercase())
        })
    {
        return format!("{m}::{p}{off}");
    }
    sym.to_string()
}

#[cfg(test)]
mod source_name_tests {
    use super::source_name;

    #[test]
    fn linkage_names_become_source_names() {
        assert_eq!(source_name("__calc_MOD_twice"), "calc::twice");
        assert_eq!(source_name("__calc_MOD_twice+4"), "calc::twice+4");
        assert_eq!(source_name("_QMcalcPtwice"), "calc::twice");
        assert_eq!(source_name("main"), "main");
        assert_eq!(source_name("_QQmain"), "_QQmain");
        assert_eq!(source_name("ext_sub_"), "ext_sub_");
    }
}
