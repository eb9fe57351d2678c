use cohort_wire::{COMPRESS_MIN, MAX_EXPANDED, Payload, WireError};

use crate::prng::Rng;

#[test]
fn round_trip() {
    let small = b"hello\n".to_vec();
    assert_eq!(Payload::new(small.clone()), Payload::Raw(small.clone()));
    assert_eq!(Payload::new(small.clone()).into_bytes().unwrap(), small);

    let text: Vec<u8> = (0..100_000u32)
        .flat_map(|i| format!("line {i}: x = {}\n", i % 7).into_bytes())
        .collect();
    let p = Payload::new(text.clone());
    match &p {
        Payload::Zstd { data, len } => {
            assert!(data.len() < text.len() / 4);
            assert_eq!(*len as usize, text.len());
        }
        Payload::Raw(_) => panic!("text was not compressed"),
    }
    assert_eq!(p.len(), text.len());
    assert_eq!(p.into_bytes().unwrap(), text);

    // Incompressible data stays raw.
    let noise = Rng::new(5).bytes(COMPRESS_MIN * 4);
    assert_eq!(Payload::new(noise.clone()), Payload::Raw(noise.clone()));
    // Just below the threshold: raw even when compressible.
    let zeros = vec![0u8; COMPRESS_MIN - 1];
    assert_eq!(Payload::new(zeros.clone()), Payload::Raw(zeros));
}

#[test]
fn bomb_and_lies_refused() {
    // 64 MiB of zeros compresses to a few KiB; claimed as 10 bytes.
    let big = vec![0u8; 64 << 20];
    let data = zstd::bulk::compress(&big, 3).unwrap();
    drop(big);
    assert!(data.len() < 64 << 10);
    let bomb = Payload::Zstd {
        data: data.clone(),
        len: 10,
    };
    assert!(matches!(bomb.into_bytes(), Err(WireError::Payload(_))));
    // Claimed over the bound.
    let honest = Payload::Zstd {
        data,
        len: MAX_EXPANDED as u32 + 1,
    };
    assert!(matches!(honest.into_bytes(), Err(WireError::Payload(_))));
    // Expands to less than claimed.
    let short = Payload::Zstd {
        data: zstd::bulk::compress(b"abc", 3).unwrap(),
        len: 4,
    };
    assert!(matches!(short.into_bytes(), Err(WireError::Payload(_))));
    // Not zstd at all.
    let junk = Payload::Zstd {
        data: Rng::new(6).bytes(1000),
        len: 100,
    };
    assert!(matches!(junk.into_bytes(), Err(WireError::Payload(_))));
}
