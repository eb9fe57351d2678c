//! x87 80-bit extended (`long double` on x86-64, gfortran's `real(kind=10)`) and IEEE binary128
//! (`real(kind=16)`, `__float128`) to and from `f64`, for expression arithmetic in C and
//! Fortran: stable Rust has neither type. The conversions are `rustc_apfloat`'s (exact, or
//! rounded to nearest even; subnormals and huge exponents included). Printing reads all the
//! bits instead (`format::float`).

use rustc_apfloat::ieee::{Double, Quad, X87DoubleExtended};
use rustc_apfloat::{Float, FloatConvert};

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
