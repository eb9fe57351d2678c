//! Array descriptors the DWARF leaves opaque, read with the producing compiler's layout.
//!
//! gfortran 12 describes a deferred-length character array (`character(len=:), allocatable
//! :: names(:)`) as an anonymous structure declaration: no members, no size. The object is
//! gfortran's array descriptor (`gfc_array_descriptor`, GCC 8 and later; docs/FORTRAN.md):
//!
//! | offset | field |
//! |---|---|
//! | 0 | `base_addr` (data pointer; null: not allocated) |
//! | 8 | `offset` (in elements: element `(i, j…)` is `base_addr[(offset + Σ i·stride) · span]`) |
//! | 16 | `dtype.elem_len` (bytes of one element: the string length for `character(kind=1)`) |
//! | 24 | `dtype.version` (4 bytes), 28 `dtype.rank` (1), 29 `dtype.type` (1; 6 = character), 30 `dtype.attribute` (2) |
//! | 32 | `span` (bytes between elements of stride 1) |
//! | 40 + 24·d | `dim[d]`: `stride` (elements), `lbound`, `ubound` (8 bytes each) |
//!
//! (flang-22's descriptor is ISO_Fortran_binding's `CFI_cdesc_t`; its DWARF describes it
//! except for the element length, read in `cohort_dwarf::location::resolve_object`.)

use cohort_dwarf::context::{EvalContext, Target};
use cohort_dwarf::error::Result;
use cohort_dwarf::types::{Dim, Encoding, Shape, ShapeStatus, Type, TypeKind};
use cohort_dwarf::value::{Lval, Value};

/// `dtype.type` of a character array.
const BT_CHARACTER: u8 = 6;
/// The largest rank Fortran allows.
const MAX_RANK: u8 = 15;
/// Size of the fixed part of the descriptor and of one `dim` triple.
const HEADER: usize = 40;
const DIM: usize = 24;

fn word(b: &[u8], off: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[off..off + 8]);
    i64::from_le_bytes(a)
}

/// `v` is an opaque gfortran descriptor of a character array: the array it describes (a
/// [`TypeKind::Shaped`] value of `character*LEN` elements); `None` when `v` is not one.
pub fn gfortran_char_array(v: &Value, ctx: &dyn EvalContext) -> Result<Option<Value>> {
    let st = v.ty.strip();
    let opaque = matches!(
        &st.kind,
        TypeKind::Aggregate {
            members,
            declaration: true,
            ..
        } if members.is_empty()
    ) && st.name.is_none();
    let Lval::Memory(at) = v.lval else {
        return Ok(None);
    };
    if !opaque {
        return Ok(None);
    }
    let mut head = [0u8; HEADER];
    ctx.read_memory(at, &mut head)?;
    let (base, offset, elem_len, span) = (
        word(&head, 0) as u64,
        word(&head, 8),
        word(&head, 16),
        word(&head, 32),
    );
    let (rank, bt) = (head[28], head[29]);
    if bt != BT_CHARACTER || rank == 0 || rank > MAX_RANK || !(0..=1 << 20).contains(&elem_len) {
        return Ok(None);
    }
    let mut dims_raw = vec![0u8; DIM * rank as usize];
    ctx.read_memory(at + HEADER as u64, &mut dims_raw)?;
    let span = if span > 0 { span } else { elem_len };
    let mut dims = Vec::with_capacity(rank as usize);
    let mut first = offset;
    for d in 0..rank as usize {
        let (stride, lower, upper) = (
            word(&dims_raw, d * DIM),
            word(&dims_raw, d * DIM + 8),
            word(&dims_raw, d * DIM + 16),
        );
        first += lower * stride;
        dims.push(Dim {
            lower,
            count: (upper - lower + 1).max(0) as u64,
            stride: stride * span,
        });
    }
    let status = if base == 0 {
        ShapeStatus::NotAllocated
    } else {
        ShapeStatus::Ok
    };
    let ch = Type::base("character(kind=1)", 1, Encoding::UnsignedChar);
    let element = Type::array_of(ch, elem_len as u64);
    let ty = Type::new(
        None,
        0,
        TypeKind::Shaped(Box::new(Shape {
            element,
            dims,
            status,
            spec: None,
        })),
    );
    let data = base.wrapping_add((first * span) as u64);
    Ok(Some(Value::new(ty, Vec::new(), Lval::Memory(data))))
}

/// `CFI_VERSION` of ISO_Fortran_binding.h (a date), in every flang descriptor at offset 16:
/// 20180515 in the standard's header, 20240719 in flang-22's.
const CFI_VERSIONS: std::ops::RangeInclusive<u32> = 20180515..=20991231;
/// `CFI_type_struct`: the descriptor's `type` (offset 21) for a derived type.
const CFI_TYPE_STRUCT: u8 = 42;

/// The dynamic type of a polymorphic (`class(t)`) object, by its name as the compiler's
/// runtime symbols spell it, and the address of its data:
///
/// - gfortran passes `class(t)` as a structure `( _data, _vptr )`: `_vptr` points to the
///   dynamic type's vtable, a symbol `__MOD_NAME_MOD___vtab_MOD_NAME_Type` (the type's name
///   capitalised; `__vtab_MAIN___Type` for a type of the main program);
/// - flang-22 types it as a pointer to `t` whose storage is a scalar descriptor
///   (`CFI_cdesc_t`, 24 bytes: `base_addr` at 0, `version` at 16, `rank` at 20) followed by
///   its addendum, whose first word points to the dynamic type's type-info object,
///   `_QMmodEXdtXname` (flang-22; `_QMmodE.dt.name` in older flang).
///
/// `None` when `v` is not such an object (or its dynamic type cannot be named).
pub fn class_dynamic(v: &Value, target: &dyn Target) -> Option<(String, u64)> {
    let st = v.ty.strip();
    match &st.kind {
        TypeKind::Aggregate { members, .. } => {
            let field = |name: &str| members.iter().find(|m| m.name.as_deref() == Some(name));
            let (data, vptr) = (field("_data")?, field("_vptr")?);
            let base = v.address()?;
            let read = |off: u64| -> Option<u64> {
                let mut b = [0u8; 8];
                target.read_memory(base.wrapping_add(off), &mut b).ok()?;
                Some(u64::from_le_bytes(b))
            };
            let (d, vt) = (read(data.offset)?, read(vptr.offset)?);
            let sym = target.symbol_for(vt)?;
            let rest = sym.split_once("_vtab_")?.1;
            // The type's name starts at the first capitalised segment.
            let at = rest
                .char_indices()
                .find(|&(i, c)| c.is_ascii_uppercase() && (i == 0 || rest[..i].ends_with('_')))?
                .0;
            Some((rest[at..].to_ascii_lowercase(), d))
        }
        TypeKind::Pointer(t) if matches!(t.get().strip().kind, TypeKind::Aggregate { .. }) => {
            let Lval::Memory(desc) = v.lval else {
                return None;
            };
            let mut b = [0u8; 32];
            target.read_memory(desc, &mut b).ok()?;
            let version = u32::from_le_bytes([b[16], b[17], b[18], b[19]]);
            if !CFI_VERSIONS.contains(&version) || b[20] != 0 || b[21] != CFI_TYPE_STRUCT {
                return None;
            }
            let sym = target.symbol_for(word(&b, 24) as u64)?;
            let name = sym.split_once(".dt.").or_else(|| sym.split_once("XdtX"))?.1;
            if name.contains('+') {
                return None;
            }
            Some((name.to_string(), word(&b, 0) as u64))
        }
        _ => None,
    }
}

/// `CFI_attribute_allocatable` in a flang descriptor's attribute byte.
const CFI_ATTRIBUTE_ALLOCATABLE: u8 = 2;

/// For a polymorphic object (see [`class_dynamic`]) whose data pointer is null: whether it is
/// an unallocated allocatable (`<not allocated>`) or a disassociated pointer
/// (`<not associated>`). gfortran names the container type of an allocatable `..._a`
/// (`__class_m_Shape_a`); flang's descriptor says it in its attribute byte. `None` for
/// anything else, or an object with data.
pub fn class_null_status(v: &Value, target: &dyn Target) -> Option<ShapeStatus> {
    let (_, data) = class_dynamic(v, target)?;
    if data != 0 {
        return None;
    }
    let st = v.ty.strip();
    let allocatable = match &st.kind {
        TypeKind::Aggregate { .. } => st.name.as_deref().is_some_and(|n| n.ends_with("_a")),
        _ => {
            let Lval::Memory(desc) = v.lval else {
                return None;
            };
            let mut b = [0u8; 1];
            target.read_memory(desc.wrapping_add(22), &mut b).ok()?;
            b[0] == CFI_ATTRIBUTE_ALLOCATABLE
        }
    };
    Some(if allocatable {
        ShapeStatus::NotAllocated
    } else {
        ShapeStatus::NotAssociated
    })
}
