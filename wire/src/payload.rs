//! Large payloads (program output) travel compressed.

use std::io::Read;

use serde::{Deserialize, Serialize};

use crate::{MAX_FRAME, WireError};

/// Payloads at least this long are compressed (when that makes them smaller).
pub const COMPRESS_MIN: usize = 4 << 10;
/// The most a compressed payload may expand to.
pub const MAX_EXPANDED: usize = MAX_FRAME * 4;
/// zstd level used for payloads.
const LEVEL: i32 = 3;
/// Largest zstd window accepted from a peer (log2 bytes): bounds the decoder's memory.
const WINDOW_LOG_MAX: u32 = 24;

/// Bytes, either as they are or zstd-compressed with their expanded length.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Payload {
    Raw(Vec<u8>),
    Zstd { data: Vec<u8>, len: u32 },
}

impl Payload {
    /// Wraps `data`, compressing it when it is at least [`COMPRESS_MIN`] bytes and compression
    /// makes it smaller.
    pub fn new(data: Vec<u8>) -> Self {
        if data.len() < COMPRESS_MIN || data.len() > MAX_EXPANDED {
            return Payload::Raw(data);
        }
        match (
            zstd::bulk::compress(&data, LEVEL),
            u32::try_from(data.len()),
        ) {
            (Ok(z), Ok(len)) if z.len() < data.len() => Payload::Zstd { data: z, len },
            _ => Payload::Raw(data),
        }
    }

    /// The length of the bytes once expanded (as claimed, for a compressed payload).
    pub fn len(&self) -> usize {
        match self {
            Payload::Raw(d) => d.len(),
            Payload::Zstd { len, .. } => *len as usize,
        }
    }

    /// The bytes it takes as it is (compressed or not).
    pub fn stored_len(&self) -> usize {
        match self {
            Payload::Raw(d) => d.len(),
            Payload::Zstd { data, .. } => data.len(),
        }
    }

    /// Whether the payload is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes. A compressed payload must expand to exactly its claimed length, which may
    /// not exceed [`MAX_EXPANDED`]; decompression stops as soon as it would go past it, so a
    /// "zstd bomb" costs no more than the claimed length.
    pub fn into_bytes(self) -> Result<Vec<u8>, WireError> {
        let (data, len) = match self {
            Payload::Raw(d) => return Ok(d),
            Payload::Zstd { data, len } => (data, len as usize),
        };
        if len > MAX_EXPANDED {
            return Err(WireError::Payload(format!(
                "claimed length {len} over the limit of {MAX_EXPANDED}"
            )));
        }
        let mut dec = zstd::stream::read::Decoder::with_buffer(&data[..])
            .map_err(|e| WireError::Payload(e.to_string()))?;
        dec.window_log_max(WINDOW_LOG_MAX)
            .map_err(|e| WireError::Payload(e.to_string()))?;
        let mut out = Vec::with_capacity(len.min(1 << 20));
        dec.take(len as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| WireError::Payload(format!("corrupt zstd data: {e}")))?;
        if out.len() != len {
            return Err(WireError::Payload(if out.len() > len {
                format!("expands beyond its claimed length {len}")
            } else {
                format!("expands to {} bytes, not the claimed {len}", out.len())
            }));
        }
        Ok(out)
    }
}
