//! gdb-exact printing of values (`print`, `output`) and types (`whatis`, `ptype`).
//!
//! [`format_value`] writes what follows `$1 = `; [`type_name`] what follows `type = ` for
//! `whatis`, [`ptype`] for `ptype`. Each rule below was checked against gdb 13
//! (`gdb -nx -batch -ex 'print VAR' prog`, `LANG=C.UTF-8`); `dwarf/tests/format_gdb.rs`
//! compares with gdb's own output.
//!
//! Values (gdb's `c_value_print`, `generic_val_print_*`, `value_print_array_elements`,
//! `cp_print_value_fields`):
//! - Top-level pointers get a `(type) ` prefix (`(int *) 0x4020 <counter>`) except an unnamed
//!   pointer to a type named `char` (`const char *` too): `0x2008 "hello"`. Inside
//!   aggregates and arrays there is no prefix. A format other than `/s` drops the prefix.
//! - A pointer is `0x…` plus ` <sym+off>` when the target names the address; a pointer to a
//!   one-byte character type (not null) adds the string read from memory (at most
//!   `print_elements` characters, `...` when no NUL follows them, `<error: Cannot access
//!   memory at address 0x…>` where reading stops).
//! - Function: `{int (int)} 0x1129 <square>`; function pointer `(int (*)(int)) 0x1129 <square>`.
//! - C++ reference: `(int &) @0x4010: 5` at the top, `@0x4010` inside an aggregate.
//! - `char`/`signed char`/`unsigned char`: `65 'A'`; `_Bool`: `true`/`false` (else the number).
//! - Structs `{x = 1, y = 2}`, anonymous members `{a = 1, {b = 2, c = 3}}`, base classes
//!   `{<B> = {b = 0}, x = 0}`, no members `{<No data fields>}`.
//! - Arrays `{1, 2, 3}`; a run of more than `repeat_threshold` (10) equal elements is
//!   `0 <repeats 11 times>` (`p g_r10` with ten zeros prints them all); after
//!   `print_elements` (200) elements, a run counting as `repeat_threshold`, `...` ends the
//!   list: `{1, 2, …, 200...}`. Arrays of one-byte characters print as strings (see
//!   [`text`]). An array of unknown or zero length prints its address, like a pointer.
//! - Enums: the enumerator (`GREEN`); a "flag enum" (every value ≥ 0 with at most one bit
//!   set; duplicates allowed) decomposes: `(FA | FB)`, `(FA | unknown: 0x8)`, `(unknown:
//!   0x4)`, `0`; any other value prints as a number (`p g_e2` → `7`).
//! - Floats: see [`float`]; `_Complex`: `1 + 2i`, `1.5 + -2i`.
//!
//! Formats (`print_scalar_formatted`), applied to every scalar inside aggregates and arrays:
//! - `/x` hex without leading zeros, `/z` zero-padded to the type's size, `/o` octal with a
//!   `0` prefix (`0` alone for zero), `/t` binary without prefix, `/d` signed and `/u`
//!   unsigned decimal, all of the bytes at the type's own width (`p/x -42` → `0xffffffd6`,
//!   `p/d` of an `unsigned char` 255 → `-1`, a bitfield at its declared type's width:
//!   `int sval:4 = -3` → `0xfffffffd`).
//! - On floats these reinterpret the bits (gdb 13: `p/x 3.5` → `0x400c000000000000`,
//!   `p/x` of a 16-byte `long double` 1.0 → `0x3fff8000000000000000`); `/c` and `/a`
//!   convert the value (`p/c 3.7` → `3 '\003'`, `p/a 2.5` → `0x2`).
//! - `/c`: the value truncated to a `char` (unsigned for unsigned types): `p/c 300` →
//!   `44 ','`. `/a`: `0x… <sym+off>`. `/f` on an integer of a float's size reinterprets the
//!   bits as that float (`p/f 7` → `9.80908925e-45`), else prints it as an integer.
//!   `/s` is the plain format except that any one-byte integer is a character.
//! - Arrays of characters with a format other than `/s` print element by element
//!   (`p/x "abc"` → `{0x61, 0x62, 0x63, 0x0}`); `/x` on a `_Complex` is the whole value.

mod float;
mod num;
mod stl;
pub(crate) use stl::{bit_vector, smart_pointer, vector_parts};
pub use stl::{has_printer, top_level_printer_error};
pub mod text;
mod typeprint;

pub use float::FloatFormat;
pub use typeprint::{
    Language, declaration, ptype, ptype_in, raw_type_name, set_string_typedef, type_name,
    type_name_in,
};

use crate::context::Target;
use crate::types::{AggregateKind, Bound, Encoding, Member, TypeKind, TypeRef};
use crate::value::Value;
use std::cell::Cell;
use typeprint::view;

/// gdb's print settings that change how a value looks.
#[derive(Debug, Clone)]
pub struct FormatOptions {
    /// The `/FMT` letter: `x d u o t c f a s z` (anything else prints as without one).
    pub format: Option<char>,
    /// `set print repeats`: runs longer than this collapse to `<repeats N times>`.
    pub repeat_threshold: usize,
    /// `set print elements`: array elements and string characters printed at most.
    pub print_elements: usize,
    /// `set print null-stop`: a char array stops at its first NUL.
    pub stop_at_null: bool,
    /// How a 16-byte `long double` is stored (an architecture fact: x87 extended on x86-64,
    /// IEEE binary128 on AArch64).
    pub long_double: FloatFormat,
    /// Top-level pointers and references get their `(type)` prefix, as `print` shows them;
    /// `info locals`, `info args` and frame lines leave it out.
    pub type_prefix: bool,
    /// The syntax of type names inside values (`(struct point *)` vs `(point *)`).
    pub language: Language,
    /// `set print pretty`: one member a line, indented two spaces a level.
    pub pretty: bool,
    /// `set print array`: one array element a line, indented two spaces a level (gdb's
    /// `prettyformat_arrays`; also the children of a printer with the `array` hint).
    pub pretty_arrays: bool,
    /// gdb's `recurse` of the value printed: how deep it already is, for the indentation of
    /// `set print pretty` and `set print array` and for `set print max-depth` (2 for an
    /// argument in a frame line, 0 elsewhere).
    pub recurse: usize,
    /// `set print static-members`: off leaves a C++ class's static members out.
    pub static_members: bool,
    /// `set print demangle`: off shows C++ symbols (`<_ZTV4Base+16>`) by their linkage names.
    pub demangle: bool,
    /// `set print address`: pointers and functions show their address (off: `<sym>` only).
    pub addressprint: bool,
    /// `set print array-indexes`: each element as `[i] = value`.
    pub array_indexes: bool,
    /// `set print union`: off prints a union inside a structure as `{...}`.
    pub unionprint: bool,
    /// `set print symbol`: off leaves `<sym>` out of data pointers (code pointers keep it).
    pub symbolprint: bool,
    /// `set print max-depth`: aggregates and arrays nested deeper print as `{...}` (None:
    /// unlimited).
    pub max_depth: Option<usize>,
    /// `set output-radix`: 16 or 8 print integers, characters and booleans as `/x` or `/o`
    /// would (enums, floats, pointers and strings as usual).
    pub output_radix: u32,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            format: None,
            repeat_threshold: 10,
            print_elements: 200,
            stop_at_null: false,
            long_double: FloatFormat::X87Extended,
            type_prefix: true,
            language: Language::C,
            pretty: false,
            pretty_arrays: false,
            recurse: 0,
            static_members: true,
            demangle: true,
            addressprint: true,
            array_indexes: false,
            unionprint: true,
            symbolprint: true,
            max_depth: Some(20),
            output_radix: 10,
        }
    }
}

impl FormatOptions {
    /// The defaults with a `/FMT` letter.
    pub fn with_format(format: char) -> Self {
        FormatOptions {
            format: Some(format),
            ..FormatOptions::default()
        }
    }
}

/// gdb's default `max-value-size`: the most bytes read for a value printing fetches itself.
const MAX_VALUE_SIZE: u64 = 65536;

/// A float of format `fmt` (its bytes, little-endian) as gdb prints it (`%g` with the
/// format's DECIMAL_DIG digits), for printers of many elements.
pub fn float_text(bytes: &[u8], fmt: FloatFormat) -> String {
    float::format_float(bytes, fmt)
}

/// A type's name in a printed value (`(T *) 0x…`, `(T &) @0x…`): gdb's `type_print` there has
/// no type printers, so a C++ class is named in full (`std::vector<double,
/// std::allocator<double> >`), unlike `whatis`.
fn value_type_name(ty: &TypeRef, lang: Language) -> String {
    if lang == Language::Cplus {
        typeprint::raw_type_name(ty)
    } else {
        type_name_in(ty, lang)
    }
}

/// What follows `$N = ` when gdb prints `v`.
/// Where a value's printing stopped on an error that, in gdb, ends the whole command: a
/// pretty printer's child whose value cannot be read (`std::vector` elements in unreadable
/// memory). What follows the marker is the error; text after its end marker is not gdb's.
/// [`split_abort`] takes it apart.
pub const ABORT: char = '\u{1}';
const ABORT_END: char = '\u{2}';

/// `text` with an abort ([`ABORT`]) taken apart: the text printed before it and the error.
pub fn split_abort(text: &str) -> Option<(&str, &str)> {
    let (before, rest) = text.split_once(ABORT)?;
    let msg = rest.split_once(ABORT_END).map_or(rest, |(m, _)| m);
    Some((before, msg))
}

/// `text` as a place that cannot stop a command shows it: an abort becomes `<error: …>`
/// and what was printed after it is dropped.
pub fn without_abort(text: String) -> String {
    match split_abort(&text) {
        Some((before, msg)) => format!("{before}<error: {msg}>"),
        None => text,
    }
}

/// Mark an abort in `out` (see [`ABORT`]).
pub(crate) fn push_abort(out: &mut String, msg: &str) {
    out.push(ABORT);
    out.push_str(msg);
    out.push(ABORT_END);
}

pub fn format_value(v: &Value, target: &dyn Target, opts: &FormatOptions) -> String {
    if v.optimized_out {
        return "<optimized out>".into();
    }
    let p = Printer {
        target,
        opts,
        vbases: Default::default(),
        in_base: Default::default(),
        in_static: Default::default(),
        static_structs: Default::default(),
        static_arrays: Default::default(),
        depth: std::cell::Cell::new(opts.recurse),
        lost: &v.lost_bits,
        root: (v.bytes.as_ptr() as usize, v.bytes.len()),
    };
    let mut out = String::new();
    let plain = matches!(opts.format, None | Some('s'));
    let st = v.ty.strip();
    let addr = v.address();
    match &st.kind {
        TypeKind::Pointer(_) if plain => {
            // (A pointer to member prints its own type where gdb shows one.)
            if opts.type_prefix && !is_char_string_pointer(&v.ty) && st.member_of.is_none() {
                out.push('(');
                out.push_str(&value_type_name(&v.ty, opts.language));
                out.push_str(") ");
            }
            p.value(&mut out, &v.ty, &v.bytes, addr);
        }
        // A reference to a class with a printer shows as the object (libstdc++'s printers
        // look through references).
        TypeKind::Reference(t) | TypeKind::RvalueReference(t)
            if plain && stl::has_printer(t.get()) =>
        {
            let ty = t.get().clone();
            let size = ty.byte_size().min(MAX_VALUE_SIZE);
            let mut buf = vec![0u8; size as usize];
            let printed = match p.pointer_value(&v.bytes) {
                Some(a) => {
                    target.read_memory(a, &mut buf).is_ok()
                        && stl::print(&p, &mut out, &ty, &buf, false)
                }
                None => false,
            };
            if !printed {
                out.push_str("<unavailable>");
            }
        }
        TypeKind::Reference(t) | TypeKind::RvalueReference(t) => {
            if opts.type_prefix {
                out.push('(');
                out.push_str(&value_type_name(&v.ty, opts.language));
                out.push_str(") ");
            }
            match p.pointer_value(&v.bytes) {
                Some(a) => {
                    out.push_str(&format!("@{a:#x}: "));
                    let ty = t.get().clone();
                    // gdb's RTTI look-ups of a referenced class object: `print` coerces the
                    // reference once, its printer once more (`info locals`: only the printer).
                    if a != 0
                        && matches!(
                            ty.strip().kind,
                            TypeKind::Aggregate {
                                kind: AggregateKind::Struct | AggregateKind::Class,
                                ..
                            }
                        )
                    {
                        for _ in 0..(1 + usize::from(opts.type_prefix)) {
                            target.full_object(a);
                        }
                    }
                    let size = ty.byte_size();
                    if size > MAX_VALUE_SIZE {
                        out.push_str(&format!(
                            "<error: value requires {size} bytes, which is more than max-value-size>"
                        ));
                        return out;
                    }
                    let mut buf = vec![0u8; size as usize];
                    match target.read_memory(a, &mut buf) {
                        Ok(()) => p.value(&mut out, &ty, &buf, Some(a)),
                        Err(e) => out.push_str(&format!("<error: {e}>")),
                    }
                }
                None => out.push_str("<unavailable>"),
            }
        }
        _ => p.value(&mut out, &v.ty, &v.bytes, addr),
    }
    out
}

/// gdb's summary of a value in a frame line (`print frame-arguments scalars`) when a
/// standard-library printer shows it (`std::vector of length 7, capacity 7 = {...}`,
/// `"hello"`), through a reference too; `None` for any other value.
pub fn summary(v: &Value, target: &dyn Target, opts: &FormatOptions) -> Option<String> {
    let p = Printer {
        target,
        opts,
        vbases: Default::default(),
        in_base: Default::default(),
        in_static: Default::default(),
        static_structs: Default::default(),
        static_arrays: Default::default(),
        depth: std::cell::Cell::new(opts.recurse),
        lost: &v.lost_bits,
        root: (v.bytes.as_ptr() as usize, v.bytes.len()),
    };
    let st = v.ty.strip();
    let (ty, bytes) = match &st.kind {
        TypeKind::Reference(t) | TypeKind::RvalueReference(t) => {
            let ty = t.get().clone();
            let a = p.pointer_value(&v.bytes)?;
            let mut buf = vec![0u8; ty.byte_size().min(MAX_VALUE_SIZE) as usize];
            target.read_memory(a, &mut buf).ok()?;
            (ty, buf)
        }
        _ => (st.clone(), v.bytes.clone()),
    };
    if v.optimized_out || !stl::has_printer(&ty) {
        return None;
    }
    let mut out = String::new();
    stl::print(&p, &mut out, &ty, &bytes, true).then_some(out)
}

/// gdb drops the `(type)` prefix only for an unnamed pointer whose target is named `char`.
fn is_char_string_pointer(ty: &TypeRef) -> bool {
    let tv = view(ty);
    match &tv.t.kind {
        TypeKind::Pointer(l) => view(l.get()).name() == Some("char"),
        _ => false,
    }
}

struct Printer<'a> {
    target: &'a dyn Target,
    opts: &'a FormatOptions,
    /// The virtual base classes already printed in the object being printed (gdb's
    /// `dont_print_vb`): each is printed once, at its first occurrence.
    vbases: std::cell::RefCell<Vec<String>>,
    /// Printing a base class subobject (the object's virtual bases seen so far stay).
    in_base: std::cell::Cell<bool>,
    /// The next aggregate printed is a static member's (gdb's `dont_print_statmem`).
    in_static: std::cell::Cell<bool>,
    /// The addresses of the static structure members printed (see [`Printer::static_seen`]).
    static_structs: std::cell::RefCell<Vec<u64>>,
    /// The element types of the static array members printed.
    static_arrays: std::cell::RefCell<Vec<String>>,
    /// How deep in aggregates and arrays the value being printed is (gdb's `recurse`), for
    /// `set print pretty`'s indentation.
    depth: std::cell::Cell<usize>,
    /// The bits of the value being printed that the compiler did not keep
    /// ([`Value::lost_bits`]), and where its bytes start: the parts printed are slices of
    /// those bytes, found in it by their address.
    lost: &'a [std::ops::Range<u64>],
    root: (usize, usize),
}

/// What a base-like scalar is, for formatting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scalar {
    Int { signed: bool },
    Bool,
    Float(FloatFormat),
    Complex(FloatFormat),
    Pointer,
}

impl<'a> Printer<'a> {
    /// The storage format of a float type: by size, a 16-byte type being the target's
    /// `long double` unless its name says binary128 (`_Float128`, `__float128`).
    fn float_format(&self, size: u64, name: Option<&str>) -> Option<FloatFormat> {
        match size {
            16 if name.is_some_and(|n| n.contains("128")) => Some(FloatFormat::Quad),
            2 if name.is_some_and(|n| n.contains("bf16") || n.contains("bfloat16")) => {
                Some(FloatFormat::BFloat16)
            }
            2 => Some(FloatFormat::Half),
            4 => Some(FloatFormat::Single),
            8 => Some(FloatFormat::Double),
            10 | 12 => Some(FloatFormat::X87Extended),
            16 => Some(self.opts.long_double),
            _ => None,
        }
    }

    /// Whether `bytes`, a part of the value being printed, holds bits the compiler did not
    /// keep (bytes read from elsewhere never do).
    fn lost(&self, bytes: &[u8]) -> bool {
        if self.lost.is_empty() {
            return false;
        }
        match (bytes.as_ptr() as usize).checked_sub(self.root.0) {
            Some(start) if start < self.root.1 => {
                crate::value::bits_lost(self.lost, start as u64, bytes.len() as u64)
            }
            _ => false,
        }
    }

    fn pointer_value(&self, bytes: &[u8]) -> Option<u64> {
        let n = usize::try_from(self.target.ptr_size()).unwrap_or(8).min(8);
        let b = bytes.get(..n)?;
        Some(num::to_i128(b, false) as u64)
    }

    /// `0x… <sym+off>`, as `/a` shows it (the symbol's full name).
    fn address(&self, out: &mut String, addr: u64) {
        out.push_str(&format!("{addr:#x}"));
        if let Some(sym) = self.target.symbol_for(addr) {
            out.push_str(&format!(" <{sym}>"));
        }
    }

    /// `0x… <sym+off>`, as a pointer's value shows it: the name as gdb prints it (`cnt`
    /// for GCC's `cnt.1`).
    fn pointer_address(&self, out: &mut String, addr: u64) {
        if self.opts.addressprint {
            out.push_str(&format!("{addr:#x}"));
        }
        if let Some(sym) = self.target.symbol_for(addr) {
            let sym = cohort_engine::symbols::symbolized_print_name(&sym);
            let sym = match self.opts.demangle {
                true => demangle_special(&sym).unwrap_or_else(|| sym.into_owned()),
                false => sym.into_owned(),
            };
            if self.opts.addressprint {
                out.push(' ');
            }
            out.push_str(&format!("<{sym}>"));
        }
    }

    /// `value` one level deeper (a member or an element).
    fn nested(&self, out: &mut String, ty: &TypeRef, bytes: &[u8], addr: Option<u64>) {
        self.depth.set(self.depth.get() + 1);
        self.value(out, ty, bytes, addr);
        self.depth.set(self.depth.get() - 1);
    }

    fn format(&self) -> Option<char> {
        match self.opts.format {
            Some(c @ ('x' | 'd' | 'u' | 'o' | 't' | 'c' | 'f' | 'a' | 'z')) => Some(c),
            _ => None,
        }
    }

    /// Prints a value of type `ty` whose bytes are `bytes`, at `addr` when in memory.
    fn value(&self, out: &mut String, ty: &TypeRef, bytes: &[u8], addr: Option<u64>) {
        let st = ty.strip();
        let size = usize::try_from(ty.byte_size()).unwrap_or(usize::MAX);
        let needs_bytes = !matches!(
            st.kind,
            TypeKind::Function { .. }
                | TypeKind::Void
                | TypeKind::Error(_)
                | TypeKind::DynArray(_)
                | TypeKind::Shaped(_)
                | TypeKind::DynString { .. }
                | TypeKind::Array { .. }
                | TypeKind::Aggregate { .. }
        );
        if needs_bytes && bytes.len() < size {
            out.push_str("<unavailable>");
            return;
        }
        let bytes = if needs_bytes { &bytes[..size] } else { bytes };
        if needs_bytes && self.lost(bytes) {
            out.push_str("<optimized out>");
            return;
        }
        // gdb's `val_print_check_max_depth`: strings are not elided.
        if let Some(max) = self.opts.max_depth
            && self.depth.get() >= max
            && match &st.kind {
                TypeKind::Aggregate { .. } => true,
                TypeKind::Array { element, .. } => !self.textual(element),
                _ => false,
            }
        {
            out.push_str("{...}");
            return;
        }
        match &st.kind {
            TypeKind::Void => out.push_str("void"),
            TypeKind::Error(msg) => match crate::expr::internal_function_name(&st, bytes) {
                Some(f) => out.push_str(&format!("<internal function {f}>")),
                None => out.push_str(&format!("<error: {msg}>")),
            },
            // Fortran arrays and strings are printed by `cohort-fortran`.
            TypeKind::DynArray(_) | TypeKind::Shaped(_) | TypeKind::DynString { .. } => {
                out.push_str("<error: a Fortran array outside a Fortran frame>")
            }
            TypeKind::Base(enc) => self.base(out, *enc, &st, bytes),
            TypeKind::Enum {
                enumerators,
                signed,
                ..
            } => match self.format() {
                Some(f) => self.scalar(out, f, Scalar::Int { signed: *signed }, bytes),
                None => enum_text(out, enumerators, num::to_i128(bytes, *signed)),
            },
            TypeKind::Pointer(target) if st.member_of.is_some() && self.format().is_none() => {
                self.member_pointer(out, ty, target.get(), bytes);
            }
            TypeKind::Pointer(target) => match self.format() {
                Some(f) => self.scalar(out, f, Scalar::Pointer, bytes),
                None => {
                    let a = self.pointer_value(bytes).unwrap_or(0);
                    let target = target.get().clone();
                    self.pointer(out, &target, a);
                }
            },
            TypeKind::Reference(_) | TypeKind::RvalueReference(_) => {
                let a = self.pointer_value(bytes).unwrap_or(0);
                out.push_str(&format!("@{a:#x}"));
            }
            TypeKind::Function { .. } => match self.format() {
                // gdb formats the function's first byte (its type's length is 1).
                Some(f) => {
                    let mut b = [0u8; 1];
                    let r = match (bytes.first(), addr) {
                        (Some(v), _) => {
                            b[0] = *v;
                            Ok(())
                        }
                        (None, Some(a)) => self.target.read_memory(a, &mut b),
                        (None, None) => Err(crate::DwarfError::user("value is not available")),
                    };
                    match r {
                        Ok(()) => self.scalar(out, f, Scalar::Int { signed: false }, &b),
                        Err(e) => out.push_str(&format!("<error: {e}>")),
                    }
                }
                None => {
                    out.push('{');
                    out.push_str(&value_type_name(ty, self.opts.language));
                    out.push_str("} ");
                    match addr {
                        Some(a) => self.pointer_address(out, a),
                        None => out.push_str("<unavailable>"),
                    }
                }
            },
            TypeKind::Aggregate { .. } if stl::print(self, out, &st, bytes, false) => {}
            TypeKind::Aggregate {
                kind,
                members,
                declaration,
            } => self.aggregate(out, &st, *kind, members, *declaration, bytes, addr),
            TypeKind::Array { element, bound } => self.array(out, element, bound, bytes, addr),
            // strip() removed these.
            TypeKind::Typedef(_)
            | TypeKind::Const(_)
            | TypeKind::Volatile(_)
            | TypeKind::Restrict(_) => out.push_str("<unavailable>"),
        }
    }

    fn base(&self, out: &mut String, enc: Encoding, ty: &TypeRef, bytes: &[u8]) {
        let (size, name) = (ty.size, ty.name.as_deref());
        let kind = match enc {
            Encoding::Signed | Encoding::SignedChar => Scalar::Int { signed: true },
            Encoding::Unsigned | Encoding::UnsignedChar | Encoding::Utf | Encoding::Flags(_) => {
                Scalar::Int { signed: false }
            }
            Encoding::Boolean => Scalar::Bool,
            Encoding::Float => match self.float_format(size, name) {
                Some(f) => Scalar::Float(f),
                None => Scalar::Int { signed: false },
            },
            Encoding::ComplexFloat => match self.float_format(size / 2, name) {
                Some(f) => Scalar::Complex(f),
                None => Scalar::Int { signed: false },
            },
        };
        if let Some(f) = self.format() {
            self.scalar(out, f, kind, bytes);
            return;
        }
        if let Encoding::Flags(bits) = enc {
            // gdb's `val_print_type_code_flags`: the names of the set bits.
            let v = num::to_i128(bytes, false) as u128;
            out.push('[');
            for (bit, name) in bits {
                if !name.is_empty() && v >> bit & 1 == 1 {
                    out.push(' ');
                    out.push_str(name);
                }
            }
            out.push_str(" ]");
            return;
        }
        if self.opts.format.is_none() && matches!(kind, Scalar::Int { .. } | Scalar::Bool) {
            let f = match self.opts.output_radix {
                16 => Some('x'),
                8 => Some('o'),
                _ => None,
            };
            if let Some(f) = f {
                self.scalar(out, f, kind, bytes);
                return;
            }
        }
        match kind {
            Scalar::Bool => match num::to_i128(bytes, false) {
                0 => out.push_str("false"),
                1 => out.push_str("true"),
                v => out.push_str(&v.to_string()),
            },
            Scalar::Float(f) => out.push_str(&float::format_float(bytes, f)),
            Scalar::Complex(f) => {
                let half = bytes.len() / 2;
                out.push_str(&float::format_float(&bytes[..half], f));
                out.push_str(" + ");
                out.push_str(&float::format_float(&bytes[half..], f));
                out.push('i');
            }
            Scalar::Int { signed } => {
                out.push_str(&num::decimal(bytes, signed));
                let textual = matches!(enc, Encoding::SignedChar | Encoding::UnsignedChar)
                    || (self.opts.format == Some('s')
                        && matches!(enc, Encoding::Signed | Encoding::Unsigned));
                if textual && bytes.len() == 1 && !ty.nottext {
                    out.push(' ');
                    out.push_str(&text::char_literal(bytes[0]));
                }
            }
            Scalar::Pointer => out.push_str(&num::hex(bytes, false)),
        }
    }

    /// gdb's `print_scalar_formatted`.
    fn scalar(&self, out: &mut String, f: char, kind: Scalar, bytes: &[u8]) {
        let signed = matches!(kind, Scalar::Int { signed: true } | Scalar::Float(_));
        match f {
            'x' => out.push_str(&num::hex(bytes, false)),
            'z' => out.push_str(&num::hex(bytes, true)),
            'o' => out.push_str(&num::octal(bytes)),
            't' => out.push_str(&num::binary(bytes)),
            'd' => out.push_str(&num::decimal(bytes, true)),
            'u' => out.push_str(&num::decimal(bytes, false)),
            'c' => {
                let v = self.as_long(kind, bytes);
                let b = v as u8;
                let unsigned = matches!(kind, Scalar::Int { signed: false } | Scalar::Pointer);
                if unsigned {
                    out.push_str(&b.to_string());
                } else {
                    out.push_str(&(b as i8).to_string());
                }
                out.push(' ');
                out.push_str(&text::char_literal(b));
            }
            'a' => {
                let v = self.as_long(kind, bytes) as u64;
                self.address(out, v);
            }
            'f' => {
                let ff = match kind {
                    Scalar::Float(ff) => Some(ff),
                    _ => match bytes.len() {
                        4 => Some(FloatFormat::Single),
                        8 => Some(FloatFormat::Double),
                        16 => Some(self.opts.long_double),
                        _ => None,
                    },
                };
                match ff {
                    Some(ff) => out.push_str(&float::format_float(bytes, ff)),
                    None => {
                        let unsigned = matches!(
                            kind,
                            Scalar::Int { signed: false } | Scalar::Pointer | Scalar::Bool
                        );
                        out.push_str(&num::decimal(bytes, !unsigned))
                    }
                }
            }
            _ => out.push_str(&num::decimal(bytes, signed)),
        }
    }

    /// gdb's `unpack_long`: floats converted, integers extended by their signedness.
    fn as_long(&self, kind: Scalar, bytes: &[u8]) -> i64 {
        match kind {
            Scalar::Float(f) => float::to_i64(bytes, f),
            Scalar::Complex(f) => float::to_i64(&bytes[..bytes.len() / 2], f),
            Scalar::Int { signed } => num::to_i128(bytes, signed) as i64,
            Scalar::Bool | Scalar::Pointer => num::to_i128(bytes, false) as i64,
        }
    }

    /// A pointer's value without a type prefix.
    /// A C++ pointer to member, as gdb's `gnuv3_print_method_ptr` and
    /// `cp_print_class_member` print it: `(void (C::*)(C * const)) 0x… <C::f()>, this
    /// adjustment 8`, `&C::x`, `NULL`.
    fn member_pointer(&self, out: &mut String, ty: &TypeRef, target: &TypeRef, bytes: &[u8]) {
        let word = usize::try_from(self.target.ptr_size()).unwrap_or(8).min(8);
        let class = ty.strip().member_of.as_ref().map(|c| c.get().strip());
        if matches!(target.strip().kind, TypeKind::Function { .. }) {
            let ptr = bytes
                .get(..word)
                .map_or(0, |b| num::to_i128(b, false) as u64);
            let adjustment = bytes
                .get(word..2 * word)
                .map_or(0, |b| num::to_i128(b, true) as i64);
            // x86-64 and aarch64 keep the virtual bit in the pointer.
            let virtual_bit = ptr & 1;
            let ptr = ptr ^ virtual_bit;
            if ptr == 0 && virtual_bit == 0 {
                out.push_str("NULL");
                return;
            }
            let slot = ptr / self.target.ptr_size().max(1);
            if virtual_bit != 0 {
                match class.as_ref().and_then(|c| virtual_method_at(c, slot)) {
                    Some(name) => {
                        out.push_str("&virtual ");
                        out.push_str(&name);
                        return;
                    }
                    None => out.push_str(&format!("&virtual table offset {slot}")),
                }
            } else {
                out.push('(');
                out.push_str(&value_type_name(ty, self.opts.language));
                out.push_str(") ");
                self.pointer_address(out, ptr);
            }
            if adjustment != 0 {
                out.push_str(&format!(", this adjustment {adjustment}"));
            }
            return;
        }
        let offset = bytes
            .get(..word)
            .map_or(0, |b| num::to_i128(b, true) as i64);
        if offset == -1 {
            out.push_str("NULL");
            return;
        }
        if let Some(c) = class
            && let TypeKind::Aggregate { members, .. } = &c.kind
            && let Some(m) = members
                .iter()
                .find(|m| !m.is_static && !m.is_base && m.offset as i64 == offset)
        {
            out.push_str(&format!(
                "&{}::{}",
                c.name.as_deref().unwrap_or(""),
                m.name.as_deref().unwrap_or("")
            ));
            return;
        }
        out.push_str(&offset.to_string());
    }

    fn pointer(&self, out: &mut String, target: &TypeRef, a: u64) {
        let start = out.len();
        let t = target.strip();
        if self.opts.symbolprint || matches!(t.kind, TypeKind::Function { .. }) {
            self.pointer_address(out, a);
        } else if self.opts.addressprint {
            out.push_str(&format!("{a:#x}"));
        }
        if matches!(t.kind, TypeKind::Function { .. }) || a == 0 {
            return;
        }
        if self.textual(target) {
            if out.len() > start {
                out.push(' ');
            }
            self.string_at(out, a);
        }
    }

    /// A one-byte character type (gdb's `c_textual_element_type`); `/s` makes any one-byte
    /// integer one.
    fn textual(&self, ty: &TypeRef) -> bool {
        if !matches!(self.opts.format, None | Some('s')) {
            return false;
        }
        let t = ty.strip();
        // A vector's `char` element is text only under `/s`.
        if t.nottext && self.opts.format != Some('s') {
            return false;
        }
        match &t.kind {
            TypeKind::Base(Encoding::SignedChar | Encoding::UnsignedChar) => t.size == 1,
            TypeKind::Base(Encoding::Signed | Encoding::Unsigned) => {
                t.size == 1 && self.opts.format == Some('s')
            }
            _ => false,
        }
    }

    /// gdb's `val_print_string` for a `char *`.
    fn string_at(&self, out: &mut String, addr: u64) {
        let limit = self.opts.print_elements;
        let mut buf = Vec::new();
        let mut err_at = None;
        let mut found_nul = false;
        let mut cur = addr;
        'read: while buf.len() < limit {
            // Read up to the end of a 64-byte block so a read never crosses a page boundary.
            let n = ((64 - (cur % 64)) as usize).min(limit - buf.len());
            let mut chunk = vec![0u8; n];
            let got: Vec<u8> = if self.target.read_memory(cur, &mut chunk).is_ok() {
                chunk
            } else {
                let mut ok = Vec::new();
                for i in 0..n {
                    let mut b = [0u8; 1];
                    if self
                        .target
                        .read_memory(cur.wrapping_add(i as u64), &mut b)
                        .is_err()
                    {
                        break;
                    }
                    ok.push(b[0]);
                }
                ok
            };
            let complete = got.len() == n;
            for b in got {
                buf.push(b);
                cur = cur.wrapping_add(1);
                if b == 0 {
                    found_nul = true;
                    break 'read;
                }
            }
            if !complete {
                err_at = Some(cur);
                break;
            }
        }
        let mut force_ellipsis = false;
        if !found_nul && err_at.is_none() {
            let mut peek = [0u8; 1];
            if self.target.read_memory(cur, &mut peek).is_ok() && peek[0] != 0 {
                force_ellipsis = true;
            }
        }
        if err_at.is_none() || !buf.is_empty() {
            out.push_str(&text::print_string(
                &buf,
                force_ellipsis,
                self.opts.repeat_threshold,
                self.opts.print_elements,
            ));
        }
        if let Some(a) = err_at {
            out.push_str(&format!("<error: Cannot access memory at address {a:#x}>"));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn aggregate(
        &self,
        out: &mut String,
        st: &TypeRef,
        _kind: AggregateKind,
        members: &[Member],
        declaration: bool,
        bytes: &[u8],
        addr: Option<u64>,
    ) {
        // A base class only declared here (clang's, whose vtable is in another unit) shows
        // as a class without data, as in gdb.
        if declaration && members.is_empty() && !self.in_base.get() {
            out.push_str("<incomplete type>");
            return;
        }
        let top = !self.in_base.get();
        let saved = top.then(|| std::mem::take(&mut *self.vbases.borrow_mut()));
        // gdb's `dont_print_statmem`: the static structures a class's fields print are
        // forgotten after them, except those printed inside a static structure.
        let statics_mark =
            (!self.in_static.replace(false)).then(|| self.static_structs.borrow().len());
        out.push('{');
        let mut first = true;
        let indent = 2 * self.depth.get();
        // gdb's `cp_print_value` ends each base class with ", "; under `set print pretty`
        // the class's own members then follow a "members of Derived:" line.
        let after_base = Cell::new(false);
        let fields_seen = Cell::new(false);
        let class_name = st.name.clone().unwrap_or_default();
        let sep = |out: &mut String, first: &mut bool, base: bool| {
            if !*first {
                out.push(',');
                if self.opts.pretty && after_base.get() {
                    out.push(' ');
                }
            }
            if self.opts.pretty {
                if !base && !fields_seen.get() && after_base.get() {
                    out.push('\n');
                    out.push_str(&" ".repeat(indent + 2));
                    out.push_str(&format!("members of {class_name}:"));
                }
                out.push('\n');
                out.push_str(&" ".repeat(indent + 2));
            } else if !*first {
                out.push(' ');
            }
            if !base {
                fields_seen.set(true);
            }
            after_base.set(base);
            *first = false;
        };
        for (i, m) in members.iter().enumerate() {
            let mty = m.ty.get().clone();
            if m.is_static {
                // C++: `static count = 3`, the value of the global that defines it (one level
                // deeper, as gdb's `cp_print_static_field`).
                let (Some(class), Some(name), true, true) = (
                    st.name.as_deref(),
                    m.name.as_deref(),
                    self.opts.language == Language::Cplus,
                    self.opts.static_members,
                ) else {
                    continue;
                };
                sep(out, &mut first, false);
                out.push_str("static ");
                out.push_str(name);
                out.push_str(" = ");
                match self.target.static_member(&format!("{class}::{name}")) {
                    Some(v) if !v.optimized_out => {
                        if self.static_seen(&v) {
                            out.push_str("<same as static member of an already seen type>");
                            continue;
                        }
                        let was_base = self.in_base.replace(false);
                        self.in_static.set(true);
                        self.nested(out, &v.ty, &v.bytes, v.address());
                        self.in_static.set(false);
                        self.in_base.set(was_base);
                    }
                    // Only declared, with its value (`static const int n = 16;`).
                    _ => match st.cxx.as_deref().and_then(|c| c.static_const(i)) {
                        Some(bytes) => {
                            let was_base = self.in_base.replace(false);
                            self.nested(out, &mty, bytes, None);
                            self.in_base.set(was_base);
                        }
                        None => out.push_str("<optimized out>"),
                    },
                }
                continue;
            }
            let vbase = st.cxx.as_deref().and_then(|c| c.virtual_base(i));
            if let Some(expr) = vbase {
                let name = view(&mty).name().unwrap_or("").to_string();
                if self.vbases.borrow().contains(&name) {
                    continue;
                }
                self.vbases.borrow_mut().push(name);
                sep(out, &mut first, true);
                out.push('<');
                out.push_str(view(&mty.strip()).name().unwrap_or(""));
                out.push_str("> = ");
                self.virtual_base(out, expr, &mty, addr);
                continue;
            }
            sep(out, &mut first, m.is_base);
            let was_base = self.in_base.replace(m.is_base);
            if m.is_base {
                // By the class's name, through a typedef (clang names the base so).
                out.push('<');
                out.push_str(view(&mty.strip()).name().unwrap_or(""));
                out.push_str("> = ");
            } else if let Some(name) = &m.name {
                out.push_str(name);
                out.push_str(" = ");
            }
            let maddr = addr.map(|a| a.wrapping_add(m.offset));
            // The class's vtable pointer: gdb's `print_function_pointer_address`, whatever
            // the format (`print/x` too: `0x… <vtable for Circle+16>`).
            if self.format().is_some()
                && m.name.as_deref().is_some_and(|n| n.starts_with("_vptr"))
                && matches!(mty.strip().kind, TypeKind::Pointer(_))
                && let Some(b) = bytes.get(m.offset as usize..)
                && let Some(a) = self.pointer_value(b)
            {
                self.pointer_address(out, a);
                self.in_base.set(was_base);
                continue;
            }
            match m.bitfield {
                Some(bf) => {
                    let b = extract_bits(bytes, bf.bit_offset, bf.bit_size, &mty);
                    match b {
                        Some(b) => self.nested(out, &mty, &b, None),
                        None => out.push_str("<unavailable>"),
                    }
                }
                None if !self.opts.unionprint
                    && matches!(
                        mty.strip().kind,
                        TypeKind::Aggregate {
                            kind: AggregateKind::Union,
                            ..
                        }
                    ) =>
                {
                    out.push_str("{...}")
                }
                None => {
                    let size = usize::try_from(mty.byte_size()).unwrap_or(usize::MAX);
                    let start = usize::try_from(m.offset).unwrap_or(usize::MAX);
                    match bytes.get(start..start.saturating_add(size)) {
                        Some(b) => self.nested(out, &mty, b, maddr),
                        None => out.push_str("<unavailable>"),
                    }
                }
            }
            self.in_base.set(was_base);
        }
        // (Fields all static and not printed, with `set print static-members off`: `{}`.)
        if first && members.iter().all(|m| m.is_base) {
            out.push_str("<No data fields>");
        } else if first {
            // Nothing printed: only the braces (under `set print pretty`, on two lines).
            if self.opts.pretty {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
            }
        } else if !members.iter().any(|m| !m.is_base) {
            // Base classes and no data of its own: gdb's `cp_print_value_fields` says so after
            // the bases, on the same line.
            out.push_str(", <No data fields>");
        } else if self.opts.pretty {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
        }
        out.push('}');
        if let Some(saved) = saved {
            *self.vbases.borrow_mut() = saved;
        }
        if let Some(mark) = statics_mark {
            self.static_structs.borrow_mut().truncate(mark);
        }
    }

    /// gdb's `cp_print_static_field`: whether the static member `v` was already printed in
    /// this value (a structure at the same address, in the class being printed; an array
    /// of the same element type, anywhere before), else remembers it.
    fn static_seen(&self, v: &Value) -> bool {
        match &v.ty.strip().kind {
            TypeKind::Aggregate { .. } => {
                let Some(a) = v.address() else { return false };
                let mut seen = self.static_structs.borrow_mut();
                if seen.contains(&a) {
                    return true;
                }
                seen.push(a);
                false
            }
            TypeKind::Array { element, .. } => {
                let key = value_type_name(element, self.opts.language);
                let mut seen = self.static_arrays.borrow_mut();
                if seen.contains(&key) {
                    return true;
                }
                seen.push(key);
                false
            }
            _ => false,
        }
    }

    /// A virtual base class subobject of the object at `addr`, found through the object's
    /// vtable (its location expression `expr`).
    fn virtual_base(&self, out: &mut String, expr: &[u8], ty: &TypeRef, addr: Option<u64>) {
        let Some(obj) = addr else {
            out.push_str("<unavailable>");
            return;
        };
        let n = usize::try_from(self.target.ptr_size()).unwrap_or(8).min(8);
        let mut failed = None;
        let base = crate::types::virtual_base_address(expr, obj, &mut |a| {
            let mut b = [0u8; 8];
            match self.target.read_memory(a, &mut b[..n]) {
                Ok(()) => Some(u64::from_le_bytes(b)),
                Err(_) => {
                    failed = Some(a);
                    None
                }
            }
        });
        let Some(base) = base else {
            match failed {
                Some(a) => {
                    out.push_str(&format!("<error: Cannot access memory at address {a:#x}>"))
                }
                None => out.push_str("<error: virtual base class location not understood>"),
            }
            return;
        };
        let size = ty.byte_size();
        if size > MAX_VALUE_SIZE {
            out.push_str(&format!(
                "<error: value requires {size} bytes, which is more than max-value-size>"
            ));
            return;
        }
        let mut buf = vec![0u8; size as usize];
        match self.target.read_memory(base, &mut buf) {
            Ok(()) => {
                let was = self.in_base.replace(true);
                self.value(out, ty, &buf, Some(base));
                self.in_base.set(was);
            }
            Err(e) => out.push_str(&format!("<error: {e}>")),
        }
    }

    fn array(
        &self,
        out: &mut String,
        element: &TypeRef,
        bound: &Bound,
        bytes: &[u8],
        addr: Option<u64>,
    ) {
        let eltlen = usize::try_from(element.byte_size()).unwrap_or(0);
        let len = match bound {
            Bound::Count(n) => usize::try_from(*n).unwrap_or(usize::MAX),
            _ => 0,
        };
        if len == 0 || eltlen == 0 {
            // gdb prints an array of unknown length like a pointer to its first element.
            match addr {
                Some(a) => self.pointer(out, element, a),
                None => out.push_str("{}"),
            }
            return;
        }
        let total = len.saturating_mul(eltlen);
        let Some(bytes) = bytes.get(..total) else {
            out.push_str("<unavailable>");
            return;
        };
        if self.textual(element) && eltlen == 1 {
            let mut n = len;
            let mut force = false;
            if self.opts.stop_at_null {
                let max = self.opts.print_elements;
                let mut t = 0;
                while t < n && t < max && bytes[t] != 0 {
                    t += 1;
                }
                if t == max && t < n && bytes[t] != 0 {
                    force = true;
                }
                n = t;
            }
            out.push_str(&text::print_string(
                &bytes[..n],
                force,
                self.opts.repeat_threshold,
                self.opts.print_elements,
            ));
            return;
        }
        // gdb's `value_print_array_elements`: under `set print array`, each element on its
        // own line two spaces deeper than the array, the brace on a line of its own.
        let lines = self.opts.pretty_arrays;
        let indent = 2 * self.depth.get();
        let line = |out: &mut String, n: usize| {
            out.push('\n');
            out.push_str(&" ".repeat(n));
        };
        out.push('{');
        let mut printed = 0;
        let mut i = 0;
        while i < len && printed < self.opts.print_elements {
            if i != 0 {
                out.push(',');
                if !lines {
                    out.push(' ');
                }
            }
            if lines {
                line(out, indent + 2);
            }
            let elt = &bytes[i * eltlen..(i + 1) * eltlen];
            let mut reps = 1;
            while i + reps < len && &bytes[(i + reps) * eltlen..(i + reps + 1) * eltlen] == elt {
                reps += 1;
            }
            let eaddr = addr.map(|a| a.wrapping_add((i * eltlen) as u64));
            if self.opts.array_indexes {
                out.push_str(&format!("[{i}] = "));
            }
            self.nested(out, element, elt, eaddr);
            if reps > self.opts.repeat_threshold {
                out.push_str(&format!(" <repeats {reps} times>"));
                i += reps;
                printed += self.opts.repeat_threshold;
            } else {
                i += 1;
                printed += 1;
            }
        }
        if i < len {
            out.push_str("...");
        }
        if lines {
            line(out, indent);
        }
        out.push('}');
    }
}

/// The C++ special names of a class's tables, demangled as gdb shows them (`_ZTV7Diamond+24`
/// is `vtable for Diamond+24`, `_ZTT`: `VTT for`, `_ZTI`: `typeinfo for`, `_ZTS`: `typeinfo
/// name for`); `None` for anything else.
fn demangle_special(sym: &str) -> Option<String> {
    let (name, off) = match sym.rsplit_once('+') {
        Some((n, o)) => (n, Some(o)),
        None => (sym, None),
    };
    if !["_ZTV", "_ZTT", "_ZTI", "_ZTS"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        return None;
    }
    let d = crate::demangle::demangle(name)?;
    Some(match off {
        Some(o) => format!("{d}+{o}"),
        None => d,
    })
}

/// gdb's `generic_val_print_enum_1`.
fn enum_text(out: &mut String, enumerators: &[(String, i64)], val: i128) {
    // Enumerators are kept as `i64` (gdb's LONGEST): an unsigned 64-bit one matches by its
    // bits (`K = 0xf000000000000000`).
    if let Some((name, _)) = enumerators
        .iter()
        .find(|(_, v)| *v as i128 == val || *v as u64 as i128 == val)
    {
        out.push_str(name);
        return;
    }
    let flag_enum = enumerators
        .iter()
        .all(|(_, v)| *v >= 0 && v.count_ones() <= 1);
    if !flag_enum {
        out.push_str(&val.to_string());
        return;
    }
    let mut rest = val;
    let mut first = true;
    for (name, v) in enumerators {
        let v = *v as i128;
        if rest & v != 0 {
            out.push_str(if first { "(" } else { " | " });
            first = false;
            rest &= !v;
            out.push_str(name);
        }
    }
    if rest != 0 {
        out.push_str(if first { "(unknown: " } else { " | unknown: " });
        out.push_str(&format!("{:#x})", rest as i64));
    } else if first {
        out.push('0');
    } else {
        out.push(')');
    }
}

/// A bitfield's bits, sign- or zero-extended to its type's size.
fn extract_bits(bytes: &[u8], bit_offset: u64, bit_size: u64, ty: &TypeRef) -> Option<Vec<u8>> {
    if bit_size == 0 || bit_size > 128 {
        return None;
    }
    let mut v: u128 = 0;
    for i in 0..bit_size {
        let bit = bit_offset.checked_add(i)?;
        let byte = *bytes.get(usize::try_from(bit / 8).ok()?)?;
        if (byte >> (bit % 8)) & 1 == 1 {
            v |= 1u128 << i;
        }
    }
    if ty.is_signed() && bit_size < 128 && (v >> (bit_size - 1)) & 1 == 1 {
        v |= !0u128 << bit_size;
    }
    let size = usize::try_from(ty.byte_size())
        .unwrap_or(16)
        .max(bit_size.div_ceil(8) as usize)
        .min(16);
    Some(v.to_le_bytes()[..size].to_vec())
}

/// The virtual method of `class` (or of a base) in vtable slot `slot`, by its demangled
/// linkage name (`Item::vf(int)`), as gdb's `gnuv3_find_method_in`.
fn virtual_method_at(class: &TypeRef, slot: u64) -> Option<String> {
    let c = class.strip();
    if let Some(m) = c.cxx.as_deref().and_then(|x| {
        x.methods
            .iter()
            .find(|m| m.is_virtual && m.vtable_slot == Some(slot))
    }) {
        return m
            .linkage_name
            .as_deref()
            .and_then(crate::demangle::demangle_physname)
            .or_else(|| Some(format!("{}::{}", c.name.as_deref().unwrap_or(""), m.name)));
    }
    let TypeKind::Aggregate { members, .. } = &c.kind else {
        return None;
    };
    members
        .iter()
        .filter(|m| m.is_base)
        .find_map(|b| virtual_method_at(b.ty.get(), slot))
}
