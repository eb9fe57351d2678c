//! Floating-point values as gdb prints them: `%g` with the format's DECIMAL_DIG significant
//! digits (`ceil(1 + p·log10 2)`: 9 for float, 17 for double, 21 for x87 `long double`, 36
//! for binary128), `inf`, `-inf`, `nan(0x…)` with the raw mantissa, and `<invalid float
//! value>` for x87 pseudo-numbers (gdb's `floatformat_printf_format`, `floatformat_mantissa`).
//!
//! Conversion is exact (big-integer decimal expansion, round half to even as glibc's printf),
//! so any format can be printed on any host.

use super::num::Big;

/// A floating-point storage format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatFormat {
    /// IEEE binary16 (`_Float16`).
    Half,
    /// bfloat16 (`__bf16`, the upper half of a binary32).
    BFloat16,
    /// IEEE binary32.
    Single,
    /// IEEE binary64.
    Double,
    /// Intel x87 80-bit extended, stored in 10, 12 or 16 bytes (explicit integer bit).
    X87Extended,
    /// IEEE binary128 (`__float128`, `long double` on AArch64).
    Quad,
}

impl FloatFormat {
    /// Bits of exponent and of stored mantissa.
    fn layout(self) -> (u32, u32) {
        match self {
            FloatFormat::Half => (5, 10),
            FloatFormat::BFloat16 => (8, 7),
            FloatFormat::Single => (8, 23),
            FloatFormat::Double => (11, 52),
            FloatFormat::X87Extended => (15, 64),
            FloatFormat::Quad => (15, 112),
        }
    }

    /// Precision in bits, the implicit bit included.
    fn precision(self) -> u32 {
        match self {
            FloatFormat::X87Extended => 64,
            f => f.layout().1 + 1,
        }
    }

    /// gdb's DECIMAL_DIG: `ceil(1 + p * log10(2))`.
    pub fn digits(self) -> usize {
        let d = 1.0 + self.precision() as f64 * std::f64::consts::LOG10_2;
        d.ceil() as usize
    }

    /// Bytes the format occupies (before padding).
    pub fn bytes(self) -> usize {
        match self {
            FloatFormat::Half | FloatFormat::BFloat16 => 2,
            FloatFormat::Single => 4,
            FloatFormat::Double => 8,
            FloatFormat::X87Extended => 10,
            FloatFormat::Quad => 16,
        }
    }
}

/// What a float's bits mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// `(-1)^neg * mant * 2^exp`.
    Finite {
        neg: bool,
        mant: u128,
        exp: i32,
    },
    Inf {
        neg: bool,
    },
    /// The mantissa as gdb prints it in `nan(0x…)`.
    Nan {
        neg: bool,
        mantissa: String,
    },
    Invalid,
}

fn bits_le(bytes: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    let n = bytes.len().min(16);
    b[..n].copy_from_slice(&bytes[..n]);
    u128::from_le_bytes(b)
}

/// gdb's `floatformat_mantissa`: the top `man_len % 32` bits (or 32) with `%lx`, then each
/// further 32 bits with `%08lx`.
fn mantissa_text(mant: u128, man_len: u32) -> String {
    let first = if man_len.is_multiple_of(32) {
        32
    } else {
        man_len % 32
    };
    let mut left = man_len - first;
    let mut s = format!("{:x}", (mant >> left) & ((1u128 << first) - 1));
    while left > 0 {
        left -= 32;
        s.push_str(&format!("{:08x}", (mant >> left) & 0xffff_ffff));
    }
    s
}

pub(crate) fn decode(bytes: &[u8], fmt: FloatFormat) -> Decoded {
    let bits = bits_le(bytes);
    let (ebits, mbits) = fmt.layout();
    let mmask = (1u128 << mbits) - 1;
    let mant = bits & mmask;
    let emax = (1u32 << ebits) - 1;
    let e = ((bits >> mbits) as u32) & emax;
    let neg = (bits >> (mbits + ebits)) & 1 == 1;
    let bias = (1i32 << (ebits - 1)) - 1;
    if fmt == FloatFormat::X87Extended {
        let intbit = mant >> 63 & 1 == 1;
        if (e == 0) == intbit {
            return Decoded::Invalid;
        }
        if e == emax {
            return if mant & ((1u128 << 63) - 1) == 0 {
                Decoded::Inf { neg }
            } else {
                Decoded::Nan {
                    neg,
                    mantissa: mantissa_text(mant, mbits),
                }
            };
        }
        let exp = if e == 0 { 1 - bias } else { e as i32 - bias } - 63;
        return Decoded::Finite { neg, mant, exp };
    }
    if e == emax {
        return if mant == 0 {
            Decoded::Inf { neg }
        } else {
            Decoded::Nan {
                neg,
                mantissa: mantissa_text(mant, mbits),
            }
        };
    }
    if e == 0 {
        return Decoded::Finite {
            neg,
            mant,
            exp: 1 - bias - mbits as i32,
        };
    }
    Decoded::Finite {
        neg,
        mant: mant | (1u128 << mbits),
        exp: e as i32 - bias - mbits as i32,
    }
}

/// The value printed as gdb prints a float of this format.
pub(crate) fn format_float(bytes: &[u8], fmt: FloatFormat) -> String {
    match decode(bytes, fmt) {
        Decoded::Invalid => "<invalid float value>".into(),
        Decoded::Inf { neg } => format!("{}inf", if neg { "-" } else { "" }),
        Decoded::Nan { neg, mantissa } => {
            format!("{}nan(0x{mantissa})", if neg { "-" } else { "" })
        }
        Decoded::Finite { neg, mant, exp } => {
            if let Some(s) = fast_g(bytes, fmt) {
                return s;
            }
            let s = format_g(mant, exp, fmt.digits());
            if neg { format!("-{s}") } else { s }
        }
    }
}

/// `%.{digits}g` of a finite `float` or `double` through Rust's exact formatting (`{:.Ne}`
/// rounds the exact binary value half to even, as glibc's printf and [`format_g`] do, and is
/// much faster than the big-integer expansion: it matters for arrays of 10⁶ reals). `None`
/// for the other formats.
fn fast_g(bytes: &[u8], fmt: FloatFormat) -> Option<String> {
    let x = match fmt {
        FloatFormat::Double => f64::from_le_bytes(bytes.get(..8)?.try_into().ok()?),
        FloatFormat::Single => f32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as f64,
        _ => return None,
    };
    if !x.is_finite() {
        return None;
    }
    let prec = fmt.digits();
    let sci = format!("{:.*e}", prec - 1, x.abs());
    let (m, e) = sci.split_once('e')?;
    let x10: i64 = e.parse().ok()?;
    let kept: Vec<u8> = m.bytes().filter(u8::is_ascii_digit).collect();
    let trim = |d: &[u8]| -> usize { d.len() - d.iter().rev().take_while(|&&c| c == b'0').count() };
    let mut out = String::with_capacity(prec + 8);
    if x.is_sign_negative() {
        out.push('-');
    }
    let text = |d: &[u8]| String::from_utf8_lossy(d).into_owned();
    if x == 0.0 {
        out.push('0');
    } else if x10 < -4 || x10 >= prec as i64 {
        let n = trim(&kept).max(1);
        out.push_str(&text(&kept[..1]));
        if n > 1 {
            out.push('.');
            out.push_str(&text(&kept[1..n]));
        }
        out.push('e');
        out.push(if x10 < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", x10.abs()));
    } else if x10 >= 0 {
        let n = (x10 as usize + 1).min(kept.len());
        out.push_str(&text(&kept[..n]));
        let f = &kept[n..];
        let k = trim(f);
        if k > 0 {
            out.push('.');
            out.push_str(&text(&f[..k]));
        }
    } else {
        out.push_str("0.");
        for _ in 0..(-x10 - 1) {
            out.push('0');
        }
        out.push_str(&text(&kept[..trim(&kept)]));
    }
    Some(out)
}

/// The value converted to an integer as gdb's `unpack_long` does: truncated toward zero,
/// saturated at the `LONGEST` range, NaN giving the maximum.
pub(crate) fn to_i64(bytes: &[u8], fmt: FloatFormat) -> i64 {
    match decode(bytes, fmt) {
        Decoded::Invalid | Decoded::Nan { .. } => i64::MAX,
        Decoded::Inf { neg } => {
            if neg {
                i64::MIN
            } else {
                i64::MAX
            }
        }
        Decoded::Finite { neg, mant, exp } => {
            let mag: u128 = if exp >= 0 {
                if mant != 0 && (exp >= 128 || mant.leading_zeros() < exp as u32) {
                    u128::MAX
                } else {
                    mant << exp
                }
            } else if exp <= -128 {
                0
            } else {
                mant >> (-exp)
            };
            if neg {
                if mag > 1u128 << 63 {
                    i64::MIN
                } else {
                    (mag as i128).wrapping_neg() as i64
                }
            } else if mag > i64::MAX as u128 {
                i64::MAX
            } else {
                mag as i64
            }
        }
    }
}

/// C's `%.{prec}g` of `mant * 2^exp` (non-negative), exact.
pub(crate) fn format_g(mant: u128, exp: i32, prec: usize) -> String {
    let prec = prec.max(1);
    if mant == 0 {
        return "0".into();
    }
    // Exact decimal expansion: digits × 10^-frac.
    let mut big = Big::from_u128(mant);
    let frac: i64 = if exp >= 0 {
        big.shl(exp as u32);
        0
    } else {
        big.mul_pow5((-exp) as u32);
        -(exp as i64)
    };
    let digits: Vec<u8> = big.to_decimal().bytes().map(|b| b - b'0').collect();
    // Decimal exponent of the first digit.
    let mut x = digits.len() as i64 - 1 - frac;
    // Round to `prec` significant digits, half to even.
    let mut kept: Vec<u8> = digits.iter().take(prec).copied().collect();
    while kept.len() < prec {
        kept.push(0);
    }
    if digits.len() > prec {
        let first = digits[prec];
        let rest_nonzero = digits[prec + 1..].iter().any(|&d| d != 0);
        let last_odd = kept.last().is_some_and(|d| d % 2 == 1);
        if first > 5 || (first == 5 && (rest_nonzero || last_odd)) {
            let mut i = kept.len();
            loop {
                if i == 0 {
                    kept.insert(0, 1);
                    kept.pop();
                    x += 1;
                    break;
                }
                i -= 1;
                if kept[i] == 9 {
                    kept[i] = 0;
                } else {
                    kept[i] += 1;
                    break;
                }
            }
        }
    }
    let text = |d: &[u8]| -> String { d.iter().map(|&v| char::from(b'0' + v)).collect() };
    if x < -4 || x >= prec as i64 {
        let mut m = kept.clone();
        while m.len() > 1 && m.last() == Some(&0) {
            m.pop();
        }
        let mut s = text(&m[..1]);
        if m.len() > 1 {
            s.push('.');
            s.push_str(&text(&m[1..]));
        }
        s.push('e');
        s.push(if x < 0 { '-' } else { '+' });
        s.push_str(&format!("{:02}", x.abs()));
        s
    } else {
        // Fixed notation with prec - 1 - x decimals, trailing zeros removed.
        let (int_part, frac_part): (String, Vec<u8>) = if x >= 0 {
            let n = x as usize + 1;
            (
                text(&kept[..n.min(kept.len())]),
                kept[n.min(kept.len())..].to_vec(),
            )
        } else {
            let mut f = vec![0u8; (-x - 1) as usize];
            f.extend_from_slice(&kept);
            ("0".into(), f)
        };
        let mut f = frac_part;
        while f.last() == Some(&0) {
            f.pop();
        }
        if f.is_empty() {
            int_part
        } else {
            format!("{int_part}.{}", text(&f))
        }
    }
}

#[cfg(test)]
mod fast_tests {
    use super::*;

    /// The fast path gives the exact expansion's digits, ties included.
    #[test]
    fn fast_g_same_as_exact() {
        let mut vals = vec![
            4938271560493825.0 / 4.0, // 1234567890123456.25: a tie at 17 digits
            0.0,
            -0.0,
            1.0,
            0.1,
            -2.5,
            1e16,
            1e17,
            12345678901234567.0,
            0.0001,
            0.00001,
            5e-324,
            1.7976931348623157e308,
            999999.0,
            1000.5,
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            vals.push(f64::from_bits(seed));
            vals.push((seed % 100_000_000) as f64 / 64.0 + 1e15);
        }
        for x in vals.into_iter().filter(|x: &f64| x.is_finite()) {
            let Decoded::Finite { neg, mant, exp } = decode(&x.to_le_bytes(), FloatFormat::Double)
            else {
                panic!("{x} not finite");
            };
            let slow = format!("{}{}", if neg { "-" } else { "" }, format_g(mant, exp, 17));
            assert_eq!(
                fast_g(&x.to_le_bytes(), FloatFormat::Double),
                Some(slow),
                "{x:e}"
            );
            let f = x as f32;
            if f.is_finite() {
                let b = f.to_le_bytes();
                let Decoded::Finite { neg, mant, exp } = decode(&b, FloatFormat::Single) else {
                    panic!("{f} not finite");
                };
                let slow = format!("{}{}", if neg { "-" } else { "" }, format_g(mant, exp, 9));
                assert_eq!(fast_g(&b, FloatFormat::Single), Some(slow), "{f:e}");
            }
        }
    }
}
