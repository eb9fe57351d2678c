//! The type model shared by DWARF reading, value printing and the expression evaluator.
//!
//! Types are immutable and shared (`Arc`). Recursive types (a struct holding a pointer to
//! itself) are built without cycles: the target of a pointer, a reference or a function's
//! parameters may be a [`LazyType`] that resolves its DIE on first use.

use std::fmt;
use std::sync::{Arc, OnceLock};

/// A shared, immutable type.
pub type TypeRef = Arc<Type>;

/// Where a type came from in the DWARF of one binary: the offset of its DIE in `.debug_info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DieRef(pub gimli::DebugInfoOffset<usize>);

/// Builds the type of a DIE on demand (implemented by the DWARF loader).
pub trait TypeSource: Send + Sync {
    /// The type described by the DIE at `die`; an unreadable DIE gives a type whose
    /// [`TypeKind::Error`] says why, never a panic.
    fn type_at(&self, die: DieRef) -> TypeRef;
}

/// A type that is either known or resolved from its DIE the first time it is asked for.
pub struct LazyType {
    cell: OnceLock<TypeRef>,
    pending: Option<(Arc<dyn TypeSource>, DieRef)>,
}

impl LazyType {
    pub fn ready(t: TypeRef) -> Self {
        let cell = OnceLock::new();
        let _ = cell.set(t);
        LazyType {
            cell,
            pending: None,
        }
    }

    pub fn deferred(src: Arc<dyn TypeSource>, die: DieRef) -> Self {
        LazyType {
            cell: OnceLock::new(),
            pending: Some((src, die)),
        }
    }

    pub fn get(&self) -> &TypeRef {
        self.cell.get_or_init(|| match &self.pending {
            Some((src, die)) => src.type_at(*die),
            None => Type::error("unresolved type"),
        })
    }
}

impl fmt::Debug for LazyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.cell.get(), &self.pending) {
            (Some(t), _) => write!(f, "{:?}", t.name),
            (None, Some((_, d))) => write!(f, "<lazy {:#x}>", d.0.0),
            (None, None) => write!(f, "<lazy>"),
        }
    }
}

/// How the bits of a base type are read (DWARF `DW_AT_encoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Signed,
    Unsigned,
    SignedChar,
    UnsignedChar,
    /// C `_Bool` / C++ `bool` / Fortran `logical`.
    Boolean,
    Float,
    /// `_Complex float/double/long double` (size is both halves).
    ComplexFloat,
    /// UTF character types (`char16_t`, `char32_t`, Fortran `character(kind=4)`).
    Utf,
    /// gdb's flags types (`TYPE_CODE_FLAGS`, the registers `$eflags`, `$mxcsr`): an unsigned
    /// integer whose named one-bit fields print as `[ IF ZF ]`. The bits and names come from
    /// the architecture's table; `ptype` lists them (`bool IF @9;`), an empty name is a bit
    /// gdb names with nothing (`bool @1;`).
    Flags(&'static [(u32, &'static str)]),
}

/// `struct`, `union` or `class`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregateKind {
    Struct,
    Union,
    Class,
}

impl AggregateKind {
    pub fn keyword(self) -> &'static str {
        match self {
            AggregateKind::Struct => "struct",
            AggregateKind::Union => "union",
            AggregateKind::Class => "class",
        }
    }
}

/// One data member of a struct, union or class.
#[derive(Debug)]
pub struct Member {
    /// `None` for an anonymous struct/union member.
    pub name: Option<String>,
    pub ty: LazyType,
    /// Offset of the member (of its containing storage unit for a bitfield) in bytes.
    pub offset: u64,
    /// For a bitfield: its width and its offset in bits from the start of the aggregate
    /// (little-endian numbering, as `DW_AT_data_bit_offset`).
    pub bitfield: Option<Bitfield>,
    /// C++ static data member (not stored in the object).
    pub is_static: bool,
    /// Inherited base class subobject (C++).
    pub is_base: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bitfield {
    pub bit_offset: u64,
    pub bit_size: u64,
}

/// The length of one array dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// Known at compile time: number of elements.
    Count(u64),
    /// Variable-length array: the count (upper bound + 1 for C) is computed at run time from a
    /// DWARF expression or a variable; the loader resolves it when it makes a value.
    Dynamic(DynamicBound),
    /// `int a[]`: size unknown.
    Unknown,
    /// A variable-length bound whose value is not available at this pc (its variable is
    /// optimized out): gdb's undefined high bound. Printed `[]` like [`Bound::Unknown`];
    /// `sizeof` is `<optimized out>`.
    Undefined,
}

/// A run-time array bound as DWARF gives it: the raw expression bytes (or the variable DIE
/// holding it) plus the unit's encoding, evaluated against a frame when a value is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DynamicBound {
    /// `DW_AT_upper_bound`/`DW_AT_count` as an exprloc; `is_count` tells which.
    Expr {
        expr: Vec<u8>,
        encoding: EncodingInfo,
        is_count: bool,
    },
    /// `DW_AT_upper_bound`/`DW_AT_count` referring to a variable DIE.
    Variable { die: DieRef, is_count: bool },
}

/// Enough of a unit's `gimli::Encoding` to evaluate an expression later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodingInfo {
    pub address_size: u8,
    pub version: u16,
    pub dwarf64: bool,
}

impl EncodingInfo {
    pub fn gimli(self) -> gimli::Encoding {
        gimli::Encoding {
            address_size: self.address_size,
            format: if self.dwarf64 {
                gimli::Format::Dwarf64
            } else {
                gimli::Format::Dwarf32
            },
            version: self.version,
        }
    }
}

/// What a type is.
#[derive(Debug)]
pub enum TypeKind {
    Void,
    Base(Encoding),
    Pointer(LazyType),
    /// C++ `T&`.
    Reference(LazyType),
    /// C++ `T&&`.
    RvalueReference(LazyType),
    Const(LazyType),
    Volatile(LazyType),
    /// `restrict`-qualified pointer (printed as gdb does: `int * restrict`).
    Restrict(LazyType),
    /// A `typedef NAME TARGET` (the name is [`Type::name`]).
    Typedef(LazyType),
    Aggregate {
        kind: AggregateKind,
        members: Vec<Member>,
        /// An incomplete declaration (`struct foo;`) with no members known here.
        declaration: bool,
    },
    Enum {
        /// The underlying integer type, when DWARF gives it.
        underlying: Option<TypeRef>,
        enumerators: Vec<(String, i64)>,
        /// `DW_AT_encoding`/signedness of the values.
        signed: bool,
        declaration: bool,
    },
    /// One dimension; a C `int a[2][3]` is an array of 2 arrays of 3 ints.
    Array {
        element: TypeRef,
        bound: Bound,
    },
    Function {
        ret: Option<LazyType>,
        params: Vec<LazyType>,
        varargs: bool,
        /// Has a prototype (`int f(void)` vs K&R `int f()`).
        prototyped: bool,
    },
    /// An array whose shape or data address are properties of the object, as DWARF describes
    /// Fortran arrays (`DW_AT_data_location`, `DW_AT_allocated`/`DW_AT_associated`, bounds and
    /// strides as expressions of the object's address) or arrays with lower bounds that are
    /// not the language default. Dimensions are in source order; `column_major` tells how
    /// they are laid out. [`crate::location::resolve_type`] turns it into
    /// [`TypeKind::Shaped`] for one object.
    DynArray(Box<ArraySpec>),
    /// An array of one object with its shape known: what printing and indexing see. The
    /// value's `lval` is the address of element `(lower, lower, …)`.
    Shaped(Box<Shape>),
    /// A character string whose length is known only at run time (DWARF
    /// `DW_TAG_string_type` with `DW_AT_string_length`); resolved into an array of
    /// characters.
    DynString {
        element: TypeRef,
        /// The length in characters (a constant or a variable DIE), or an expression giving
        /// the address where the length in bytes is stored (flang: in the descriptor).
        length: BoundSpec,
        /// `DW_AT_data_location`: where the characters are (flang's deferred-length
        /// strings); `None`: at the object.
        data_location: Option<BoundSpec>,
    },
    /// A type that could not be read; the string says why (printed as `<error: …>`).
    Error(String),
}

/// A DWARF array property: a constant, an expression (evaluated with the object's address
/// pushed, for `DW_OP_push_object_address`), or a variable holding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoundSpec {
    Const(i64),
    Expr {
        expr: Vec<u8>,
        encoding: EncodingInfo,
    },
    Variable(DieRef),
}

/// One dimension of a [`TypeKind::DynArray`] as DWARF gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimSpec {
    /// `None`: the language's default lower bound.
    pub lower: Option<BoundSpec>,
    pub upper: Option<BoundSpec>,
    pub count: Option<BoundSpec>,
    /// `DW_AT_byte_stride` (or `DW_AT_bit_stride` / 8).
    pub byte_stride: Option<BoundSpec>,
}

/// A [`TypeKind::DynArray`]: element, dimensions and the object's properties.
#[derive(Debug)]
pub struct ArraySpec {
    pub element: TypeRef,
    pub dims: Vec<DimSpec>,
    pub default_lower: i64,
    pub column_major: bool,
    pub data_location: Option<BoundSpec>,
    pub allocated: Option<BoundSpec>,
    pub associated: Option<BoundSpec>,
    /// An assumed-rank array (`x(..)`): `DW_AT_rank`, and its one `DW_TAG_generic_subrange`
    /// whose expressions are evaluated with the dimension's number (0-based) on the stack.
    pub rank: Option<BoundSpec>,
    pub generic: Option<DimSpec>,
}

impl ArraySpec {
    /// The shape when every property is a constant (a Fortran array with explicit constant
    /// bounds, also as a component of a derived type): no object needed.
    pub fn constant_shape(&self) -> Option<Shape> {
        if self.data_location.is_some()
            || self.allocated.is_some()
            || self.associated.is_some()
            || self.rank.is_some()
        {
            return None;
        }
        let c = |s: &Option<BoundSpec>| match s {
            Some(BoundSpec::Const(n)) => Some(Some(*n)),
            None => Some(None),
            _ => None,
        };
        let mut dims = vec![
            Dim {
                lower: 0,
                count: 0,
                stride: 0
            };
            self.dims.len()
        ];
        let mut stride = self.element.byte_size() as i64;
        let order: Vec<usize> = if self.column_major {
            (0..self.dims.len()).collect()
        } else {
            (0..self.dims.len()).rev().collect()
        };
        for i in order {
            let d = &self.dims[i];
            let lower = c(&d.lower)?.unwrap_or(self.default_lower);
            let count = match (c(&d.count)?, c(&d.upper)?) {
                (Some(n), _) => n,
                (None, Some(u)) => u - lower + 1,
                (None, None) => return None,
            }
            .max(0) as u64;
            let s = c(&d.byte_stride)?.unwrap_or(stride);
            dims[i] = Dim {
                lower,
                count,
                stride: s,
            };
            stride = s.saturating_mul(count as i64);
        }
        Some(Shape {
            element: self.element.clone(),
            dims,
            status: ShapeStatus::Ok,
            spec: None,
        })
    }
}

/// Whether a [`Shape`] designates elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeStatus {
    Ok,
    NotAllocated,
    NotAssociated,
}

/// One dimension of a resolved array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim {
    pub lower: i64,
    pub count: u64,
    /// Distance in bytes between consecutive elements of this dimension (may be negative).
    pub stride: i64,
}

impl Dim {
    /// `count` of the last dimension of an assumed-size array (`y(*)`): no upper bound.
    pub const ASSUMED_SIZE: u64 = u64::MAX;

    /// Whether this is the open last dimension of an assumed-size array.
    pub fn is_assumed_size(&self) -> bool {
        self.count == Self::ASSUMED_SIZE
    }

    /// The upper bound (`i64::MAX` for an assumed-size dimension).
    pub fn upper(&self) -> i64 {
        if self.is_assumed_size() {
            return i64::MAX;
        }
        self.lower
            .saturating_add(self.count as i64)
            .saturating_sub(1)
    }
}

/// A resolved array (see [`TypeKind::Shaped`]). Dimensions in source order.
#[derive(Debug)]
pub struct Shape {
    pub element: TypeRef,
    pub dims: Vec<Dim>,
    pub status: ShapeStatus,
    /// What the array was before resolution (for `ptype` of allocatable/pointer arrays).
    pub spec: Option<TypeRef>,
}

impl Shape {
    /// Number of elements.
    pub fn len(&self) -> u64 {
        self.dims
            .iter()
            .fold(1u64, |a, d| a.saturating_mul(d.count))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte offset of the element at `index` (one subscript per dimension, in source order)
    /// from the first element; `None` when a subscript is out of bounds.
    pub fn offset_of(&self, index: &[i64]) -> Option<i64> {
        if index.len() != self.dims.len() {
            return None;
        }
        let mut off = 0i64;
        for (i, d) in index.iter().zip(&self.dims) {
            if *i < d.lower || *i > d.upper() {
                return None;
            }
            off = off.checked_add((i - d.lower).checked_mul(d.stride)?)?;
        }
        Some(off)
    }

    /// Whether the elements are adjacent in memory, first dimension fastest.
    pub fn is_contiguous(&self) -> bool {
        let mut want = self.element.byte_size() as i64;
        for d in &self.dims {
            if d.count > 1 && d.stride != want {
                return false;
            }
            want = want.saturating_mul(d.count as i64);
        }
        true
    }
}

/// A type: its name (where it has one), its size in bytes and what it is.
#[derive(Debug)]
pub struct Type {
    /// The name as the source spells it, without the `struct`/`union`/`enum` keyword
    /// (`int`, `point`, `item`, `size_t`). `None` for anonymous and derived types.
    pub name: Option<String>,
    /// Size in bytes (0 for void, functions and incomplete types).
    pub size: u64,
    pub kind: TypeKind,
    /// What C++ adds to a struct, class or union (access, member functions); `None` for C.
    pub cxx: Option<Box<CxxInfo>>,
    /// GCC's vector types (`__attribute__ ((vector_size (16)))`, DWARF `DW_AT_GNU_vector`
    /// on the array type): an [`TypeKind::Array`] that C arithmetic takes element-wise and
    /// that never decays to a pointer.
    pub vector: bool,
    /// gdb's `TYPE_NOTTEXT`: the `char` element of a vector, printed as a number.
    pub nottext: bool,
    /// A C++ pointer to member (`DW_TAG_ptr_to_member_type`, a [`TypeKind::Pointer`] to the
    /// member's type): the class (`int C::*`, `void (C::*)(C * const)`).
    pub member_of: Option<LazyType>,
}

/// C++ access of a member or member function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Public,
    Protected,
    Private,
}

/// A member function declared in a C++ class (for `ptype`).
#[derive(Debug)]
pub struct Method {
    pub name: String,
    /// `None` for `void` and for constructors and destructors.
    pub ret: Option<LazyType>,
    /// Parameters after the implicit `this`.
    pub params: Vec<LazyType>,
    pub varargs: bool,
    /// `this` points to a const (volatile) object: `int f() const`.
    pub is_const: bool,
    pub is_volatile: bool,
    pub is_static: bool,
    pub is_virtual: bool,
    /// The method's slot in the class's vtable (`DW_AT_vtable_elem_location`).
    pub vtable_slot: Option<u64>,
    /// `DW_AT_linkage_name`: the symbol of its code (which may be in another object, as
    /// libstdc++'s `std::string` members are).
    pub linkage_name: Option<String>,
    /// Declared by the compiler (an implicit constructor…): not shown.
    pub artificial: bool,
    pub access: Access,
}

/// The C++ side of a struct, class or union type.
#[derive(Debug, Default)]
pub struct CxxInfo {
    /// Access of each entry of the aggregate's `members`, in the same order.
    pub member_access: Vec<Access>,
    /// Member functions in declaration order.
    pub methods: Vec<Method>,
    /// The virtual base classes: (index in the aggregate's `members`, the DWARF expression
    /// of `DW_AT_data_member_location`, which finds the base from the object's address
    /// through its vtable).
    pub virtual_bases: Vec<(usize, Vec<u8>)>,
    /// Access of each base class (`DW_TAG_inheritance`), by index in `members`.
    pub base_access: Vec<(usize, Access)>,
    /// A class template's type arguments (`DW_TAG_template_type_param`): name and type,
    /// for `ptype`'s `[with T = double]`.
    /// Resolved on first use: an argument may be the class being built (libstdc++'s
    /// `_Enable_copy_move<…, std::optional<int>>`).
    pub template_args: Vec<(String, LazyType)>,
    /// Static data members whose declaration gives their value (`DW_AT_const_value`: a
    /// `static const size_t _M_max_size = 16;`), by index in `members`: the value's bytes.
    pub static_consts: Vec<(usize, Vec<u8>)>,
    /// Typedefs declared in the class (`typedef R (*_Invoker_type)(…);`): name, the typedef
    /// type, access; `ptype` lists them and names members by them.
    pub typedefs: Vec<(String, LazyType, Access)>,
}

impl CxxInfo {
    /// The value the declaration of static member `index` gives, if any.
    pub fn static_const(&self, index: usize) -> Option<&[u8]> {
        self.static_consts
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b.as_slice())
    }

    /// The location expression of member `index` when it is a virtual base class.
    pub fn virtual_base(&self, index: usize) -> Option<&[u8]> {
        self.virtual_bases
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, e)| e.as_slice())
    }
}

/// The address of a virtual base class of the object at `object`: its
/// `DW_AT_data_member_location` expression (`DW_OP_dup; DW_OP_deref; DW_OP_lit24;
/// DW_OP_minus; DW_OP_deref; DW_OP_plus`, the vbase offset read from the vtable) run with the
/// object's address pushed. `read` reads a pointer-sized word. `None` for an expression
/// outside the small set compilers use here, or memory that cannot be read.
pub fn virtual_base_address(
    expr: &[u8],
    object: u64,
    read: &mut dyn FnMut(u64) -> Option<u64>,
) -> Option<u64> {
    fn uleb(e: &[u8], pc: &mut usize) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = *e.get(*pc)?;
            *pc += 1;
            v |= u64::from(b & 0x7f).checked_shl(shift)?;
            shift += 7;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
    }
    fn sleb(e: &[u8], pc: &mut usize) -> Option<i64> {
        let mut v = 0i64;
        let mut shift = 0u32;
        loop {
            let b = *e.get(*pc)?;
            *pc += 1;
            v |= i64::from(b & 0x7f).checked_shl(shift)?;
            shift += 7;
            if b & 0x80 == 0 {
                if shift < 64 && b & 0x40 != 0 {
                    v |= -1i64 << shift;
                }
                return Some(v);
            }
        }
    }
    let mut stack = vec![object];
    let mut pc = 0;
    while pc < expr.len() {
        let op = expr[pc];
        pc += 1;
        match op {
            0x12 => stack.push(*stack.last()?), // DW_OP_dup
            0x06 => {
                let a = stack.pop()?;
                stack.push(read(a)?); // DW_OP_deref
            }
            0x08 => {
                stack.push(u64::from(*expr.get(pc)?)); // DW_OP_const1u
                pc += 1;
            }
            0x10 => stack.push(uleb(expr, &mut pc)?), // DW_OP_constu
            0x11 => stack.push(sleb(expr, &mut pc)? as u64), // DW_OP_consts
            0x30..=0x4f => stack.push(u64::from(op - 0x30)), // DW_OP_lit0..31
            0x1c => {
                let b = stack.pop()?;
                let a = stack.pop()?;
                stack.push(a.wrapping_sub(b)); // DW_OP_minus
            }
            0x22 => {
                let b = stack.pop()?;
                let a = stack.pop()?;
                stack.push(a.wrapping_add(b)); // DW_OP_plus
            }
            0x23 => {
                let n = uleb(expr, &mut pc)?;
                let a = stack.pop()?;
                stack.push(a.wrapping_add(n)); // DW_OP_plus_uconst
            }
            _ => return None,
        }
    }
    stack.pop()
}

impl Type {
    pub fn new(name: Option<String>, size: u64, kind: TypeKind) -> TypeRef {
        Arc::new(Type {
            name,
            size,
            kind,
            cxx: None,
            vector: false,
            nottext: false,
            member_of: None,
        })
    }

    /// A C++ pointer to a member of `class` whose type is `target`: two words for a member
    /// function (the function or vtable offset, and the `this` adjustment), one for data.
    pub fn member_pointer(target: LazyType, class: LazyType, size: u64) -> TypeRef {
        Arc::new(Type {
            name: None,
            size,
            kind: TypeKind::Pointer(target),
            cxx: None,
            vector: false,
            nottext: false,
            member_of: Some(class),
        })
    }

    /// A GCC vector of `count` elements (gdb's `make_vector_type`): a one-byte-or-wider
    /// integer element (not a typedef) becomes a copy marked not textual.
    pub fn vector_of(element: TypeRef, count: u64) -> TypeRef {
        let element = match &element.kind {
            TypeKind::Base(
                e @ (Encoding::Signed
                | Encoding::Unsigned
                | Encoding::SignedChar
                | Encoding::UnsignedChar),
            ) => Arc::new(Type {
                name: element.name.clone(),
                size: element.size,
                kind: TypeKind::Base(*e),
                cxx: None,
                vector: false,
                nottext: true,
                member_of: None,
            }),
            _ => element,
        };
        Arc::new(Type {
            name: None,
            size: element.byte_size().saturating_mul(count),
            kind: TypeKind::Array {
                element,
                bound: Bound::Count(count),
            },
            cxx: None,
            vector: true,
            nottext: false,
            member_of: None,
        })
    }

    /// A struct, class or union of a C++ unit, with its access and member functions.
    pub fn new_cxx(name: Option<String>, size: u64, kind: TypeKind, cxx: CxxInfo) -> TypeRef {
        Arc::new(Type {
            name,
            size,
            kind,
            cxx: Some(Box::new(cxx)),
            vector: false,
            nottext: false,
            member_of: None,
        })
    }

    pub fn error(msg: impl Into<String>) -> TypeRef {
        Type::new(None, 0, TypeKind::Error(msg.into()))
    }

    pub fn void() -> TypeRef {
        Type::new(Some("void".into()), 1, TypeKind::Void)
    }

    /// A base type such as `int` (4, Signed) or `double` (8, Float).
    pub fn base(name: &str, size: u64, enc: Encoding) -> TypeRef {
        Type::new(Some(name.into()), size, TypeKind::Base(enc))
    }

    /// A pointer to `target` (`ptr_size` bytes).
    pub fn pointer_to(target: TypeRef, ptr_size: u64) -> TypeRef {
        Type::new(None, ptr_size, TypeKind::Pointer(LazyType::ready(target)))
    }

    /// An array of `count` elements.
    pub fn array_of(element: TypeRef, count: u64) -> TypeRef {
        let size = element.size.saturating_mul(count);
        Type::new(
            None,
            size,
            TypeKind::Array {
                element,
                bound: Bound::Count(count),
            },
        )
    }

    /// This type with typedefs removed (qualifiers kept).
    pub fn strip_typedefs(self: &Arc<Self>) -> TypeRef {
        let mut t = self.clone();
        while let TypeKind::Typedef(inner) = &t.kind {
            let next = inner.get().clone();
            t = next;
        }
        t
    }

    /// This type with typedefs and `const`/`volatile`/`restrict` removed: what the bits are.
    pub fn strip(self: &Arc<Self>) -> TypeRef {
        let mut t = self.clone();
        loop {
            let next = match &t.kind {
                TypeKind::Typedef(i)
                | TypeKind::Const(i)
                | TypeKind::Volatile(i)
                | TypeKind::Restrict(i) => i.get().clone(),
                _ => return t,
            };
            t = next;
        }
    }

    /// Size in bytes of the underlying type (through typedefs and qualifiers, whose own
    /// `size` DWARF often leaves out).
    pub fn byte_size(self: &Arc<Self>) -> u64 {
        let s = self.strip();
        match &s.kind {
            TypeKind::Array { element, bound } if s.size == 0 => match bound {
                Bound::Count(n) => element.byte_size().saturating_mul(*n),
                _ => 0,
            },
            _ => s.size,
        }
    }

    pub fn is_integer(self: &Arc<Self>) -> bool {
        matches!(
            self.strip().kind,
            TypeKind::Base(
                Encoding::Signed
                    | Encoding::Unsigned
                    | Encoding::SignedChar
                    | Encoding::UnsignedChar
                    | Encoding::Boolean
                    | Encoding::Utf
            ) | TypeKind::Enum { .. }
        )
    }

    pub fn is_float(self: &Arc<Self>) -> bool {
        matches!(self.strip().kind, TypeKind::Base(Encoding::Float))
    }

    pub fn is_pointer(self: &Arc<Self>) -> bool {
        matches!(self.strip().kind, TypeKind::Pointer(_))
    }

    pub fn is_signed(self: &Arc<Self>) -> bool {
        match &self.strip().kind {
            TypeKind::Base(e) => matches!(e, Encoding::Signed | Encoding::SignedChar),
            TypeKind::Enum { signed, .. } => *signed,
            _ => false,
        }
    }

    /// Target of a pointer or reference (through typedefs and qualifiers).
    pub fn pointee(self: &Arc<Self>) -> Option<TypeRef> {
        match &self.strip().kind {
            TypeKind::Pointer(t) | TypeKind::Reference(t) | TypeKind::RvalueReference(t) => {
                Some(t.get().clone())
            }
            _ => None,
        }
    }
}
