//! Integers of any width as gdb prints them (`print_hex_chars`, `print_octal_chars`,
//! `print_binary_chars`, `print_decimal_chars`): the bytes are little-endian target order and
//! may be wider than 64 bits (`__int128`, a 16-byte `long double` seen through `/x`).

/// A non-negative integer in base 10^9 limbs, least significant first.
#[derive(Debug, Clone, Default)]
pub(crate) struct Big {
    limbs: Vec<u32>,
}

const BASE: u64 = 1_000_000_000;

impl Big {
    pub(crate) fn from_u128(mut v: u128) -> Big {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % BASE as u128) as u32);
            v /= BASE as u128;
        }
        Big { limbs }
    }

    /// The unsigned little-endian integer in `bytes`.
    pub(crate) fn from_le_bytes(bytes: &[u8]) -> Big {
        let mut b = Big::default();
        for &byte in bytes.iter().rev() {
            b.mul_add(256, byte as u32);
        }
        b
    }

    /// `self = self * m + a` (`m` below 2^32).
    pub(crate) fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = a as u64;
        for l in self.limbs.iter_mut() {
            let v = *l as u64 * m as u64 + carry;
            *l = (v % BASE) as u32;
            carry = v / BASE;
        }
        while carry > 0 {
            self.limbs.push((carry % BASE) as u32);
            carry /= BASE;
        }
    }

    /// `self *= 2^n`.
    pub(crate) fn shl(&mut self, mut n: u32) {
        while n > 0 {
            let k = n.min(29);
            self.mul_add(1 << k, 0);
            n -= k;
        }
    }

    /// `self *= 5^n`.
    pub(crate) fn mul_pow5(&mut self, mut n: u32) {
        while n > 0 {
            let k = n.min(13);
            self.mul_add(5u32.pow(k), 0);
            n -= k;
        }
    }

    /// Decimal digits, without leading zeros ("0" for zero).
    pub(crate) fn to_decimal(&self) -> String {
        let mut top = self.limbs.len();
        while top > 0 && self.limbs[top - 1] == 0 {
            top -= 1;
        }
        if top == 0 {
            return "0".into();
        }
        let mut s = format!("{}", self.limbs[top - 1]);
        for l in self.limbs[..top - 1].iter().rev() {
            s.push_str(&format!("{l:09}"));
        }
        s
    }
}

/// Bytes with trailing (most significant) zero bytes removed.
fn significant(bytes: &[u8]) -> &[u8] {
    let mut n = bytes.len();
    while n > 0 && bytes[n - 1] == 0 {
        n -= 1;
    }
    &bytes[..n]
}

/// `/x`: `0x` and hex digits without leading zeros (`0x0` for zero); `/z` (`pad`): every byte.
pub(crate) fn hex(bytes: &[u8], pad: bool) -> String {
    let b = if pad { bytes } else { significant(bytes) };
    if b.is_empty() {
        return if pad { "0x".into() } else { "0x0".into() };
    }
    let mut s = String::from("0x");
    for (i, byte) in b.iter().rev().enumerate() {
        if i == 0 && !pad {
            s.push_str(&format!("{byte:x}"));
        } else {
            s.push_str(&format!("{byte:02x}"));
        }
    }
    s
}

/// `/t`: binary digits without leading zeros and without prefix (`0` for zero).
pub(crate) fn binary(bytes: &[u8]) -> String {
    let b = significant(bytes);
    if b.is_empty() {
        return "0".into();
    }
    let mut s = String::new();
    for (i, byte) in b.iter().rev().enumerate() {
        if i == 0 {
            s.push_str(&format!("{byte:b}"));
        } else {
            s.push_str(&format!("{byte:08b}"));
        }
    }
    s
}

/// `/o`: `0` and octal digits (`0` alone for zero).
pub(crate) fn octal(bytes: &[u8]) -> String {
    let nbits = bytes.len() * 8;
    let bit = |i: usize| -> u8 { bytes.get(i / 8).map_or(0, |b| (b >> (i % 8)) & 1) };
    let mut digits = Vec::new();
    let mut i = 0;
    while i < nbits {
        digits.push(bit(i) | (bit(i + 1) << 1) | (bit(i + 2) << 2));
        i += 3;
    }
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.iter().all(|&d| d == 0) {
        return "0".into();
    }
    let mut s = String::from("0");
    for d in digits.iter().rev() {
        s.push(char::from(b'0' + d));
    }
    s
}

/// `/d` (`signed`) or `/u`: decimal of the bytes at their own width.
pub(crate) fn decimal(bytes: &[u8], signed: bool) -> String {
    let negative = signed && bytes.last().is_some_and(|b| b & 0x80 != 0);
    if !negative {
        return Big::from_le_bytes(bytes).to_decimal();
    }
    // Two's complement magnitude.
    let mut mag = bytes.to_vec();
    let mut carry = true;
    for b in mag.iter_mut() {
        *b = !*b;
        if carry {
            let (v, c) = b.overflowing_add(1);
            *b = v;
            carry = c;
        }
    }
    format!("-{}", Big::from_le_bytes(&mag).to_decimal())
}

/// The little-endian bytes as an integer of their width, sign- or zero-extended to 128 bits
/// (the low 16 bytes only when wider).
pub(crate) fn to_i128(bytes: &[u8], signed: bool) -> i128 {
    let n = bytes.len().min(16);
    let mut b = [0u8; 16];
    b[..n].copy_from_slice(&bytes[..n]);
    let v = u128::from_le_bytes(b);
    if n == 0 || n == 16 {
        return v as i128;
    }
    let shift = 128 - 8 * n as u32;
    if signed {
        ((v << shift) as i128) >> shift
    } else {
        v as i128
    }
}
