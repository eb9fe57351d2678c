//! The one error type of the crate.

/// Everything that can go wrong on the wire. An error on a connection concerns that connection
/// only: the caller drops it and goes on serving the others.
#[derive(thiserror::Error, Debug)]
pub enum WireError {
    /// The socket (or a file) failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// A frame longer than the limit was announced or was about to be sent (the limit is
    /// `MAX_FRAME`, or 1 KiB while the handshake is not done).
    #[error("frame of {len} bytes is over the size limit")]
    FrameTooLarge { len: usize },
    /// The peer closed the connection in the middle of a frame.
    #[error("connection closed in the middle of a frame ({have} of {want} bytes)")]
    Truncated { have: usize, want: usize },
    /// A frame whose bytes are not a valid message.
    #[error("undecodable message: {0}")]
    Decode(String),
    /// A message that could not be encoded.
    #[error("cannot encode message: {0}")]
    Encode(String),
    /// No protocol version in common (each side's highest version is given).
    #[error("no common protocol version: we speak up to {ours}, the peer up to {theirs}")]
    Version { ours: u16, theirs: u16 },
    /// The peer failed authentication, or is not a Cohort peer at all.
    #[error("authentication failed: {0}")]
    Auth(String),
    /// A handshake step took longer than its time limit.
    #[error("timed out {0}")]
    Timeout(&'static str),
    /// A rank set that cannot be parsed or is not well formed.
    #[error("bad rank set: {0}")]
    RankSet(String),
    /// A secret that cannot be made, read or written safely.
    #[error("secret: {0}")]
    Secret(String),
    /// A compressed payload that is corrupt or expands beyond its bound.
    #[error("bad payload: {0}")]
    Payload(String),
    /// A frame after the handshake failed its integrity check: forged, replayed, reordered,
    /// or one before it was lost. The connection cannot be trusted any more.
    #[error("integrity: {0}")]
    Integrity(String),
    /// The connection is closed (the peer hung up during the handshake, or an earlier error
    /// ended this connection).
    #[error("connection closed")]
    Closed,
}
