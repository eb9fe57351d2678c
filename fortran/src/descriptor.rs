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

use cohort_dwarf::context::EvalContext;
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
