//! x87 80-bit extended (`long double` on x86-64, gfortran's `real(kind=10)`) and IEEE binary128
//! (`real(kind=16)`, `__float128`) to and from `f64`, for expression arithmetic in C and
//! Fortran: stable Rust has neither type. The conversions are `rustc_apfloat`'s (exact, or
//! rounded to nearest even; subnormals and huge exponents included). Printing reads all the
//! bits instead (`format::float`).

pub use rustc_apfloat::ieee::Quad;
use rustc_apfloat::ieee::{Double, Single, X87DoubleExtended};
use rustc_apfloat::{Float, FloatConvert, Round};

/// x87 extended (10 bytes, little-endian; more bytes are padding) to the nearest `f64`; 0.0
/// for fewer than 10 bytes.
pub fn f80_to_f64(b: &[u8]) -> f64 {
    let Some(b) = b.get(..10) else {
        return 0.0;
    };
    let mut a = [0u8; 16];
    a[..10].copy_from_slice(b);
    to_f64(X87DoubleExtended::from_bits(u128::from_le_bytes(a)))
}

/// `f64` to x87 extended, 10 bytes (exact: every double is one).
pub fn f64_to_f80(v: f64) -> [u8; 10] {
    let d = Double::from_bits(u128::from(v.to_bits()));
    let x: X87DoubleExtended = d.convert(&mut false).value;
    let mut out = [0u8; 10];
    out.copy_from_slice(&x.to_bits().to_le_bytes()[..10]);
    out
}

/// IEEE binary128 (16 bytes, little-endian) to the nearest `f64`; 0.0 for fewer bytes.
pub fn f128_to_f64(b: &[u8]) -> f64 {
    let Some(Ok(a)) = b.get(..16).map(<[u8; 16]>::try_from) else {
        return 0.0;
    };
    to_f64(Quad::from_bits(u128::from_le_bytes(a)))
}

/// The nearest `f64` (ties to even).
fn to_f64<F: FloatConvert<Double>>(x: F) -> f64 {
    let d: Double = x.convert(&mut false).value;
    f64::from_bits(d.to_bits() as u64)
}

/// `f64` to IEEE binary128 (exact).
pub fn f64_to_f128(v: f64) -> [u8; 16] {
    let d = Double::from_bits(u128::from(v.to_bits()));
    let q: Quad = d.convert(&mut false).value;
    q.to_bits().to_le_bytes()
}

/// A floating-point format of expression arithmetic (C `float`, `double`, x87 `long double`,
/// `_Float128`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatKind {
    Single,
    Double,
    X87,
    Quad,
}

impl FloatKind {
    /// The format of a float type of `size` bytes named `name`: 16 bytes named `…128…` is
    /// binary128 (`_Float128`, `__float128`), other 10, 12 or 16 bytes x87 extended.
    pub fn of(size: u64, name: Option<&str>) -> FloatKind {
        match size {
            0..=4 => FloatKind::Single,
            5..=8 => FloatKind::Double,
            16 if name.is_some_and(|n| n.contains("128")) => FloatKind::Quad,
            _ => FloatKind::X87,
        }
    }
}

/// The four operations of [`arith`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// A float of format `k` (little-endian bytes; padding ignored) as binary128, exactly (every
/// format here is one); 0 for too few bytes.
pub fn to_quad(b: &[u8], k: FloatKind) -> Quad {
    let n = match k {
        FloatKind::Single => 4,
        FloatKind::Double => 8,
        FloatKind::X87 => 10,
        FloatKind::Quad => 16,
    };
    let Some(b) = b.get(..n) else {
        return Quad::ZERO;
    };
    let mut a = [0u8; 16];
    a[..n].copy_from_slice(b);
    let bits = u128::from_le_bytes(a);
    let exact = &mut false;
    match k {
        FloatKind::Single => Single::from_bits(bits).convert(exact).value,
        FloatKind::Double => Double::from_bits(bits).convert(exact).value,
        FloatKind::X87 => X87DoubleExtended::from_bits(bits).convert(exact).value,
        FloatKind::Quad => Quad::from_bits(bits),
    }
}

/// `q` rounded (to nearest, ties to even) to format `k`, as `size` little-endian bytes
/// (zero padding past the format's own bytes).
pub fn from_quad(q: Quad, k: FloatKind, size: usize) -> Vec<u8> {
    let loses = &mut false;
    let bits: u128 = match k {
        FloatKind::Single => FloatConvert::<Single>::convert(q, loses).value.to_bits(),
        FloatKind::Double => FloatConvert::<Double>::convert(q, loses).value.to_bits(),
        FloatKind::X87 => FloatConvert::<X87DoubleExtended>::convert(q, loses)
            .value
            .to_bits(),
        FloatKind::Quad => q.to_bits(),
    };
    let mut out = bits.to_le_bytes().to_vec();
    out.resize(size, 0);
    out
}

/// `a OP b` computed in format `k` (each operand rounded to it first), as the target's
/// arithmetic in that type does it, returned exactly as binary128.
pub fn arith(op: FloatOp, a: Quad, b: Quad, k: FloatKind) -> Quad {
    fn go<F>(op: FloatOp, a: Quad, b: Quad) -> Quad
    where
        F: Float + FloatConvert<Quad>,
        Quad: FloatConvert<F>,
    {
        let x: F = a.convert(&mut false).value;
        let y: F = b.convert(&mut false).value;
        let r = match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
            FloatOp::Div => x / y,
        };
        r.value.convert(&mut false).value
    }
    match k {
        FloatKind::Single => go::<Single>(op, a, b),
        FloatKind::Double => go::<Double>(op, a, b),
        FloatKind::X87 => go::<X87DoubleExtended>(op, a, b),
        FloatKind::Quad => go::<Quad>(op, a, b),
    }
}

/// A decimal or hexadecimal float literal rounded to format `k`, as binary128.
pub fn parse(text: &str, k: FloatKind) -> Option<Quad> {
    fn go<F>(text: &str) -> Option<Quad>
    where
        F: Float + FloatConvert<Quad>,
    {
        let v: F = F::from_str_r(text, Round::NearestTiesToEven).ok()?.value;
        Some(v.convert(&mut false).value)
    }
    match k {
        FloatKind::Single => go::<Single>(text),
        FloatKind::Double => go::<Double>(text),
        FloatKind::X87 => go::<X87DoubleExtended>(text),
        FloatKind::Quad => go::<Quad>(text),
    }
}

/// An integer (`unsigned`: `v`'s bits as `u128`) as binary128 (exact up to 113 bits,
/// rounded beyond).
pub fn quad_from_int(v: i128, unsigned: bool) -> Quad {
    if unsigned {
        Quad::from_u128(v as u128).value
    } else {
        Quad::from_i128(v).value
    }
}

/// A float truncated toward zero to an integer: a negative one saturates at `i64::MIN`, a
/// positive one at `u64::MAX` (0 for a NaN).
pub fn quad_to_int(q: Quad) -> i128 {
    if q.is_nan() {
        0
    } else if q.is_negative() {
        q.to_i128(128).value.max(i128::from(i64::MIN))
    } else {
        q.to_u128(128).value.min(u128::from(u64::MAX)) as i128
    }
}

/// An `f64` as binary128 (exact).
pub fn quad_from_f64(v: f64) -> Quad {
    Double::from_bits(u128::from(v.to_bits()))
        .convert(&mut false)
        .value
}

/// The nearest `f64` of a binary128 value.
pub fn quad_to_f64(q: Quad) -> f64 {
    to_f64(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLES: [f64; 10] = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        6.25e300,
        1e-300,
        1e-310,
        f64::MAX,
        f64::MIN_POSITIVE / 8.0,
        f64::INFINITY,
    ];

    #[test]
    fn doubles_go_through_extended_and_binary128_unchanged() {
        for v in SAMPLES {
            assert_eq!(f80_to_f64(&f64_to_f80(v)).to_bits(), v.to_bits(), "{v}");
            assert_eq!(f128_to_f64(&f64_to_f128(v)).to_bits(), v.to_bits(), "{v}");
        }
        assert!(f80_to_f64(&f64_to_f80(f64::NAN)).is_nan());
        assert!(f128_to_f64(&f64_to_f128(f64::NAN)).is_nan());
        assert_eq!(f80_to_f64(&[1, 2, 3]), 0.0);
        assert_eq!(f128_to_f64(&[0; 10]), 0.0);
    }

    #[test]
    fn known_bits() {
        // 15.0 extended: exponent 0x4002, mantissa 0xf000… with its explicit integer bit.
        assert_eq!(f64_to_f80(15.0), [0, 0, 0, 0, 0, 0, 0, 0xf0, 0x02, 0x40]);
        // 1.25 binary128: exponent 0x3fff, fraction .01.
        assert_eq!(
            u128::from_le_bytes(f64_to_f128(1.25)),
            0x3fff_4000_0000_0000_0000_0000_0000_0000
        );
        // The smallest extended subnormal is far below the doubles: 0.
        let mut tiny = [0u8; 10];
        tiny[0] = 1;
        assert_eq!(f80_to_f64(&tiny), 0.0);
    }
}
