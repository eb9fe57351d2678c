//! Registers as expression values: `$pc` (`void (*)()`), `$sp`/`$fp` (`void *`), `$rax`
//! (`long`), `$eax` (`int`), at the selected frame, typed the way gdb types them.

use cohort_dwarf::types::{AggregateKind, Encoding, LazyType, Member, Type, TypeKind, TypeRef};
use cohort_dwarf::value::{Lval, Value};
use cohort_engine::arch::RegKind;
use cohort_unwind::Frame;

/// Register `idx` as frame `sel` of `frames` sees it: a register the frame's unwind rules leave
/// unspecified keeps the value it has in the frame it called (gdb's same-value default).
fn reg_in(frames: &[Frame], sel: usize, idx: usize) -> Option<u128> {
    frames
        .get(..=sel)?
        .iter()
        .rev()
        .find_map(|f| f.regs.get(idx))
}

/// Whether DWARF register `dwarf` of frame `sel` is the innermost frame's live register (no
/// frame between saved it), so that assigning it writes the thread's register.
pub fn lives_in_innermost(frames: &[Frame], sel: usize, dwarf: u16) -> bool {
    let Some(f0) = frames.first() else {
        return false;
    };
    let Some(idx) = f0.regs.arch.reg_by_dwarf(dwarf) else {
        return false;
    };
    // The unwinder gives a register no frame saved the value of its callee (gdb's
    // same-value rule): such a register is still the thread's.
    let live = f0.regs.get(idx);
    frames.get(1..=sel).is_some_and(|fs| {
        fs.iter()
            .all(|f| f.regs.get(idx).is_none() || f.regs.get(idx) == live)
    })
}

/// The value of register `name` (without `$`) in frame `sel` of `frames`; `Ok(None)` when it
/// is not a register.
pub fn register_value(
    frames: &[Frame],
    sel: usize,
    name: &str,
    thread: &dyn Fn() -> Option<cohort_engine::regs::Registers>,
    high_half: &dyn Fn(usize) -> Option<u128>,
) -> cohort_dwarf::Result<Option<Value>> {
    let Some(frame) = frames.get(sel) else {
        // No frame: without a program gdb has no registers to read.
        let arch = cohort_engine::arch::native();
        let known = matches!(name, "pc" | "sp" | "fp")
            || arch.reg_index(name).is_some()
            || arch.wide_vectors.iter().any(|(n, _)| *n == name)
            || sub_register(arch, name).is_some();
        if known {
            return Err(cohort_dwarf::error::DwarfError::user("No registers."));
        }
        return Ok(None);
    };
    let arch = frame.regs.arch;
    let ptr = arch.ptr_size as u64;
    let (idx, ty) = match name {
        "pc" => (arch.pc, code_pointer(ptr)),
        "sp" => (arch.sp, Type::pointer_to(Type::void(), ptr)),
        "fp" => (arch.fp, Type::pointer_to(Type::void(), ptr)),
        _ => {
            if let Some(i) = arch.reg_index(name) {
                let d = &arch.regs[i];
                let ty = match d.kind {
                    RegKind::CodePtr => code_pointer(ptr),
                    RegKind::DataPtr => Type::pointer_to(Type::void(), ptr),
                    RegKind::Int | RegKind::Flags(_) => Type::base("long", 8, Encoding::Signed),
                    RegKind::Uint => Type::base("unsigned long", 8, Encoding::Unsigned),
                    RegKind::Float80 => Type::base("builtin_type_i387_ext", 16, Encoding::Float),
                    RegKind::Vector128 => vec128(),
                };
                let ty = if let RegKind::Flags(f) = d.kind {
                    // gdb's flags type of the target description (`i386_eflags`).
                    Type::base(f.type_name, d.size as u64, Encoding::Flags(f.bits))
                } else if d.size == 4 && matches!(d.kind, RegKind::Int) {
                    Type::base("int", 4, Encoding::Signed)
                } else {
                    ty
                };
                (i, ty)
            } else if let Some((n, low)) = arch
                .wide_vectors
                .iter()
                .enumerate()
                .find_map(|(n, (w, low))| (*w == name).then_some((n, low)))
            {
                // A register gdb shows only where the thread has the extended state (AVX).
                let (Some(i), Some(high)) = (arch.reg_index(low), high_half(n)) else {
                    return Ok(None);
                };
                let t = vec256();
                let Some(lo) = reg_in(frames, sel, i).or_else(|| thread().and_then(|r| r.get(i)))
                else {
                    return Ok(Some(Value::optimized_out(t)));
                };
                let mut bytes = lo.to_le_bytes().to_vec();
                bytes.extend_from_slice(&high.to_le_bytes());
                return Ok(Some(Value::new(t, bytes, Lval::None)));
            } else if let Some((i, size)) = sub_register(arch, name) {
                let t = match size {
                    4 => Type::base("int", 4, Encoding::Signed),
                    2 => Type::base("short", 2, Encoding::Signed),
                    _ => Type::base("int8_t", 1, Encoding::Signed),
                };
                let Some(v) = reg_in(frames, sel, i) else {
                    return Ok(Some(Value::optimized_out(t)));
                };
                let bytes = v.to_le_bytes()[..size].to_vec();
                return Ok(Some(Value::new(t, bytes, Lval::None)));
            } else {
                return Ok(None);
            }
        }
    };
    let size = ty.byte_size() as usize;
    let dwarf = arch.regs.get(idx).and_then(|r| r.dwarf);
    // A register the unwinder does not track (x87, SSE, control registers) has, as gdb's
    // same-value rule gives it, the thread's value in every frame.
    let Some(v) = reg_in(frames, sel, idx).or_else(|| thread().and_then(|r| r.get(idx))) else {
        return Ok(Some(Value::optimized_out(ty)));
    };
    let bytes = v.to_le_bytes()[..size.min(16)].to_vec();
    let lval = match dwarf {
        Some(n) => Lval::Register(n),
        None => Lval::None,
    };
    Ok(Some(Value::new(ty, bytes, lval)))
}

/// x86-64 style 32/16/8-bit names of 64-bit registers come from the arch table's aliases.
fn sub_register(arch: &cohort_engine::arch::ArchInfo, name: &str) -> Option<(usize, usize)> {
    arch.sub_registers
        .iter()
        .find(|(n, _, _)| *n == name)
        .and_then(|(_, full, size)| arch.reg_index(full).map(|i| (i, *size)))
}

/// gdb's type of the SSE registers (`union vec128`, as its amd64 target description has it):
/// every lane width as a GCC vector, and the whole as `uint128_t`.
fn vec128() -> TypeRef {
    static T: std::sync::OnceLock<TypeRef> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let lanes = |tname: &str, ename: &str, esize: u64, enc: Encoding| {
            let count = 16 / esize;
            let v = Type::vector_of(Type::base(ename, esize, enc), count);
            Type::new(
                Some(tname.into()),
                16,
                TypeKind::Typedef(LazyType::ready(v)),
            )
        };
        let fields = [
            (
                "v8_bfloat16",
                lanes("v8bf16", "bfloat16", 2, Encoding::Float),
            ),
            ("v8_half", lanes("v8h", "half", 2, Encoding::Float)),
            ("v4_float", lanes("v4f", "float", 4, Encoding::Float)),
            ("v2_double", lanes("v2d", "double", 8, Encoding::Float)),
            ("v16_int8", lanes("v16i8", "int8_t", 1, Encoding::Signed)),
            ("v8_int16", lanes("v8i16", "int16_t", 2, Encoding::Signed)),
            ("v4_int32", lanes("v4i32", "int32_t", 4, Encoding::Signed)),
            ("v2_int64", lanes("v2i64", "int64_t", 8, Encoding::Signed)),
            ("uint128", Type::base("uint128_t", 16, Encoding::Unsigned)),
        ];
        let members = fields
            .into_iter()
            .map(|(name, ty)| Member {
                name: Some(name.into()),
                ty: LazyType::ready(ty),
                offset: 0,
                bitfield: None,
                is_static: false,
                is_base: false,
            })
            .collect();
        Type::new(
            Some("vec128".into()),
            16,
            TypeKind::Aggregate {
                kind: AggregateKind::Union,
                members,
                declaration: false,
            },
        )
    })
    .clone()
}

/// gdb's type of the AVX registers (`union builtin_type_vec256i`, its `i386_ymm_type`):
/// every lane width as an unnamed GCC vector.
fn vec256() -> TypeRef {
    static T: std::sync::OnceLock<TypeRef> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let lanes = |ename: &str, esize: u64, enc: Encoding| {
            Type::vector_of(Type::base(ename, esize, enc), 32 / esize)
        };
        let fields = [
            ("v16_bfloat16", lanes("bfloat16", 2, Encoding::Float)),
            ("v16_half", lanes("half", 2, Encoding::Float)),
            ("v8_float", lanes("float", 4, Encoding::Float)),
            ("v4_double", lanes("double", 8, Encoding::Float)),
            ("v32_int8", lanes("int8_t", 1, Encoding::Signed)),
            ("v16_int16", lanes("int16_t", 2, Encoding::Signed)),
            ("v8_int32", lanes("int32_t", 4, Encoding::Signed)),
            ("v4_int64", lanes("int64_t", 8, Encoding::Signed)),
            ("v2_int128", lanes("int128_t", 16, Encoding::Signed)),
        ];
        let members = fields
            .into_iter()
            .map(|(name, ty)| Member {
                name: Some(name.into()),
                ty: LazyType::ready(ty),
                offset: 0,
                bitfield: None,
                is_static: false,
                is_base: false,
            })
            .collect();
        Type::new(
            Some("builtin_type_vec256i".into()),
            32,
            TypeKind::Aggregate {
                kind: AggregateKind::Union,
                members,
                declaration: false,
            },
        )
    })
    .clone()
}

/// gdb's type of code-pointer registers: `void (*)()`.
fn code_pointer(ptr: u64) -> TypeRef {
    let f = Type::new(
        None,
        1,
        TypeKind::Function {
            ret: None,
            params: Vec::new(),
            varargs: false,
            prototyped: false,
        },
    );
    Type::pointer_to(f, ptr)
}
