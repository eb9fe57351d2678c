//! Framing, the shared secret and the handshake.

use std::fmt;
use std::io::{Read as _, Write as _};
use std::path::Path;
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce, Tag};
use futures_util::{SinkExt, StreamExt};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use tokio::io::{AsyncRead, AsyncWrite, ReadHalf, WriteHalf};
use tokio_util::codec::{Decoder, Encoder, Framed, FramedRead, FramedWrite};

use crate::{MAX_FRAME, MIN_VERSION, PROTOCOL_VERSION, WireError};

/// Time limit of each handshake step.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// Frame limit while the peer is not yet authenticated.
const HANDSHAKE_MAX_FRAME: usize = 1024;
/// First bytes of every hello.
const MAGIC: [u8; 8] = *b"COHORT\x00W";
const SECRET_LEN: usize = 32;

// ---------------------------------------------------------------------------------------------
// Framing

/// Frames: a 4-byte big-endian length, then that many bytes (the format of tokio-util's
/// `LengthDelimitedCodec` with its defaults). Unlike that codec, this one tells an announced
/// oversized length (`FrameTooLarge`) and a connection closed in mid-frame (`Truncated`,
/// header included) apart from a clean end.
#[derive(Clone)]
struct FrameCodec {
    max: usize,
    /// Seals frames sent (once the handshake is done).
    seal: Option<Sealer>,
    /// Opens frames received (once the handshake is done).
    open: Option<Sealer>,
}

impl fmt::Debug for FrameCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameCodec")
            .field("max", &self.max)
            .field("sealed", &self.seal.is_some())
            .finish()
    }
}

impl FrameCodec {
    fn plain(max: usize) -> Self {
        FrameCodec {
            max,
            seal: None,
            open: None,
        }
    }
}

/// Bytes an AEAD tag adds to every sealed frame.
const TAG_LEN: usize = 16;

/// One direction's AEAD state: ChaCha20-Poly1305 under a key of that direction, the nonce
/// being the frame's sequence number (0, 1, 2, …). A frame that was forged, replayed,
/// reordered or dropped does not open under the sequence number the receiver expects.
#[derive(Clone)]
struct Sealer {
    aead: ChaCha20Poly1305,
    seq: u64,
}

impl Sealer {
    fn new(key: &[u8; 32]) -> Self {
        Sealer {
            aead: ChaCha20Poly1305::new(Key::from_slice(key)),
            seq: 0,
        }
    }

    fn nonce(&self) -> Nonce {
        let mut n = [0u8; 12];
        n[4..].copy_from_slice(&self.seq.to_be_bytes());
        Nonce::clone_from_slice(&n)
    }

    fn next(&mut self) -> Result<(), WireError> {
        self.seq = self
            .seq
            .checked_add(1)
            .ok_or_else(|| WireError::Integrity("frame sequence exhausted".into()))?;
        Ok(())
    }

    /// Seals `buf` in place; returns its tag.
    fn seal(&mut self, buf: &mut [u8]) -> Result<[u8; TAG_LEN], WireError> {
        let tag = self
            .aead
            .encrypt_in_place_detached(&self.nonce(), b"", buf)
            .map_err(|_| WireError::Encode("cannot seal the frame".into()))?;
        self.next()?;
        let mut t = [0u8; TAG_LEN];
        t.copy_from_slice(&tag);
        Ok(t)
    }

    /// Opens a sealed frame (its message, then its tag) in place; returns the message.
    fn open(&mut self, mut frame: BytesMut) -> Result<BytesMut, WireError> {
        let fail = |seq: u64| {
            WireError::Integrity(format!(
                "frame {seq} failed authentication (forged, replayed, reordered, or a frame was lost)"
            ))
        };
        let Some(at) = frame.len().checked_sub(TAG_LEN) else {
            return Err(fail(self.seq));
        };
        let tag = frame.split_off(at);
        self.aead
            .decrypt_in_place_detached(&self.nonce(), b"", &mut frame, Tag::from_slice(&tag))
            .map_err(|_| fail(self.seq))?;
        self.next()?;
        Ok(frame)
    }
}

/// The length in the frame header at the start of `src`, once it has all 4 bytes.
fn announced_len(src: &[u8]) -> Option<usize> {
    let head: [u8; 4] = src.get(..4)?.try_into().ok()?;
    Some(u32::from_be_bytes(head) as usize)
}

impl Decoder for FrameCodec {
    type Item = BytesMut;
    type Error = WireError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, WireError> {
        let Some(len) = announced_len(src) else {
            return Ok(None);
        };
        if len > self.max {
            return Err(WireError::FrameTooLarge { len });
        }
        if src.len() < 4 + len {
            src.reserve(4 + len - src.len());
            return Ok(None);
        }
        src.advance(4);
        let frame = src.split_to(len);
        match &mut self.open {
            None => Ok(Some(frame)),
            Some(o) => Ok(Some(o.open(frame)?)),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, WireError> {
        match self.decode(src)? {
            Some(f) => Ok(Some(f)),
            None if src.is_empty() => Ok(None),
            None => {
                let want = announced_len(src).map_or(4, |l| 4 + l);
                Err(WireError::Truncated {
                    have: src.len(),
                    want,
                })
            }
        }
    }
}

impl Encoder<Bytes> for FrameCodec {
    type Error = WireError;

    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), WireError> {
        let extra = if self.seal.is_some() { TAG_LEN } else { 0 };
        let total = item.len() + extra;
        let len = u32::try_from(total)
            .ok()
            .filter(|&l| l as usize <= self.max)
            .ok_or(WireError::FrameTooLarge { len: total })?;
        dst.reserve(4 + total);
        dst.put_u32(len);
        let start = dst.len();
        dst.extend_from_slice(&item);
        if let Some(s) = &mut self.seal {
            let tag = s.seal(&mut dst[start..])?;
            dst.extend_from_slice(&tag);
        }
        Ok(())
    }
}

fn encode<M: Serialize>(m: &M) -> Result<Bytes, WireError> {
    let v = postcard::to_stdvec(m).map_err(|e| WireError::Encode(e.to_string()))?;
    if v.len() > MAX_FRAME {
        return Err(WireError::FrameTooLarge { len: v.len() });
    }
    Ok(Bytes::from(v))
}

/// Decodes one message; the whole frame must be that message (no trailing bytes).
pub fn decode<M: DeserializeOwned>(frame: &[u8]) -> Result<M, WireError> {
    let (m, rest) =
        postcard::take_from_bytes::<M>(frame).map_err(|e| WireError::Decode(e.to_string()))?;
    if !rest.is_empty() {
        return Err(WireError::Decode(format!(
            "{} bytes after the message",
            rest.len()
        )));
    }
    Ok(m)
}

fn next_message<M: DeserializeOwned>(
    item: Option<Result<BytesMut, WireError>>,
    dead: &mut bool,
) -> Result<Option<M>, WireError> {
    match item {
        None => {
            *dead = true;
            Ok(None)
        }
        Some(Err(e)) => {
            *dead = true;
            Err(e)
        }
        Some(Ok(frame)) => decode::<M>(&frame).map(Some).inspect_err(|_| *dead = true),
    }
}

/// A framed connection carrying postcard-encoded messages. Any error ends the connection: after
/// one, `recv` answers [`WireError::Closed`].
pub struct Conn<S> {
    framed: Framed<S, FrameCodec>,
    version: u16,
    dead: bool,
}

impl<S> fmt::Debug for Conn<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conn")
            .field("version", &self.version)
            .field("dead", &self.dead)
            .finish_non_exhaustive()
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Conn<S> {
    /// Frames a stream as it is, with no handshake (not authenticated): for tests and for
    /// channels that are already trusted. Speaks [`PROTOCOL_VERSION`].
    pub fn new(s: S) -> Self {
        Conn::with_limit(s, MAX_FRAME, PROTOCOL_VERSION)
    }

    fn with_limit(s: S, max: usize, version: u16) -> Self {
        Conn {
            framed: Framed::new(s, FrameCodec::plain(max)),
            version,
            dead: false,
        }
    }

    /// The protocol version in use.
    pub fn version(&self) -> u16 {
        self.version
    }

    /// The underlying stream (e.g. for its peer address).
    pub fn get_ref(&self) -> &S {
        self.framed.get_ref()
    }

    /// The underlying stream; bytes already read but not yet decoded are lost.
    pub fn into_inner(self) -> S {
        self.framed.into_inner()
    }

    /// Sends one message (and flushes it).
    pub async fn send<M: Serialize>(&mut self, m: &M) -> Result<(), WireError> {
        let b = encode(m)?;
        self.framed.send(b).await
    }

    /// Sends one frame of bytes as they are (e.g. a message encoded once and sent to many).
    pub async fn send_frame(&mut self, frame: &[u8]) -> Result<(), WireError> {
        self.framed.send(Bytes::copy_from_slice(frame)).await
    }

    /// Receives one message; `Ok(None)` when the peer closed the connection cleanly between
    /// two frames. Bytes that are not a valid message give [`WireError::Decode`].
    pub async fn recv<M: DeserializeOwned>(&mut self) -> Result<Option<M>, WireError> {
        if self.dead {
            return Err(WireError::Closed);
        }
        let item = self.framed.next().await;
        next_message(item, &mut self.dead)
    }

    /// Splits into a reading and a writing half, so that one task can read while another
    /// writes. Bytes already received stay with the reader.
    pub fn split(self) -> (ConnReader<S>, ConnWriter<S>) {
        let parts = self.framed.into_parts();
        let (r, w) = tokio::io::split(parts.io);
        let mut reader = FramedRead::new(r, parts.codec.clone());
        reader.read_buffer_mut().extend_from_slice(&parts.read_buf);
        let mut writer = FramedWrite::new(w, parts.codec);
        writer
            .write_buffer_mut()
            .extend_from_slice(&parts.write_buf);
        (
            ConnReader {
                framed: reader,
                dead: self.dead,
            },
            ConnWriter { framed: writer },
        )
    }
}

/// The reading half of a [`Conn`].
pub struct ConnReader<S> {
    framed: FramedRead<ReadHalf<S>, FrameCodec>,
    dead: bool,
}

impl<S: AsyncRead + AsyncWrite> ConnReader<S> {
    /// As [`Conn::recv`].
    pub async fn recv<M: DeserializeOwned>(&mut self) -> Result<Option<M>, WireError> {
        if self.dead {
            return Err(WireError::Closed);
        }
        let item = self.framed.next().await;
        next_message(item, &mut self.dead)
    }
}

/// The writing half of a [`Conn`].
pub struct ConnWriter<S> {
    framed: FramedWrite<WriteHalf<S>, FrameCodec>,
}

impl<S: AsyncRead + AsyncWrite> ConnWriter<S> {
    /// As [`Conn::send`].
    pub async fn send<M: Serialize>(&mut self, m: &M) -> Result<(), WireError> {
        let b = encode(m)?;
        self.framed.send(b).await
    }

    /// Flushes and shuts the writing direction down (the peer's reader sees a clean end).
    pub async fn close(&mut self) -> Result<(), WireError> {
        self.framed.close().await
    }
}

// ---------------------------------------------------------------------------------------------
// The shared secret

/// The 32-byte secret that every agent of a session and its front end share.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret([u8; SECRET_LEN]);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

fn random<const N: usize>() -> Result<[u8; N], WireError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| WireError::Secret(format!("no OS randomness: {e}")))?;
    Ok(b)
}

impl Secret {
    /// A fresh secret from the OS's randomness.
    ///
    /// # Panics
    /// When the OS has no randomness to give (see [`Secret::try_generate`]).
    pub fn generate() -> Self {
        match Secret::try_generate() {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// A fresh secret from the OS's randomness, or an error when there is none.
    pub fn try_generate() -> Result<Self, WireError> {
        Ok(Secret(random()?))
    }

    /// A secret from its 32 bytes.
    pub fn from_bytes(b: [u8; SECRET_LEN]) -> Self {
        Secret(b)
    }

    /// Writes the secret (as hex and a newline) to a new file only its owner can read;
    /// fails when the file exists.
    pub fn write_new_file(&self, path: &Path) -> Result<(), WireError> {
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| WireError::Secret(format!("cannot create {}: {e}", path.display())))?;
        f.write_all(format!("{}\n", self.to_hex()).as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| WireError::Secret(format!("cannot write {}: {e}", path.display())))
    }

    /// Reads a secret written by [`Secret::write_new_file`]. Refuses a file that is not a
    /// regular file, that its group or others can read or write, or whose content is not
    /// 64 hex digits.
    pub fn from_file(path: &Path) -> Result<Self, WireError> {
        use std::os::unix::fs::PermissionsExt;
        let f = std::fs::File::open(path)
            .map_err(|e| WireError::Secret(format!("cannot open {}: {e}", path.display())))?;
        let meta = f
            .metadata()
            .map_err(|e| WireError::Secret(format!("cannot stat {}: {e}", path.display())))?;
        if !meta.is_file() {
            return Err(WireError::Secret(format!(
                "{} is not a regular file",
                path.display()
            )));
        }
        let mode = meta.permissions().mode();
        if mode & 0o077 != 0 {
            return Err(WireError::Secret(format!(
                "{} is accessible to group or others (mode {:o}); it must be 0600",
                path.display(),
                mode & 0o777
            )));
        }
        let mut text = String::new();
        f.take(256)
            .read_to_string(&mut text)
            .map_err(|e| WireError::Secret(format!("cannot read {}: {e}", path.display())))?;
        Secret::from_hex(&text).map_err(|e| WireError::Secret(format!("{}: {e}", path.display())))
    }

    /// The secret as 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A secret from 64 hex digits (surrounding whitespace ignored).
    pub fn from_hex(s: &str) -> Result<Self, WireError> {
        let s = s.trim();
        if s.len() != SECRET_LEN * 2 {
            return Err(WireError::Secret(format!(
                "expected {} hex digits, got {} characters",
                SECRET_LEN * 2,
                s.chars().count()
            )));
        }
        let mut b = [0u8; SECRET_LEN];
        for (i, out) in b.iter_mut().enumerate() {
            let digits = s
                .get(2 * i..2 * i + 2)
                .ok_or_else(|| WireError::Secret("not hex".into()))?;
            *out = u8::from_str_radix(digits, 16)
                .map_err(|_| WireError::Secret(format!("'{digits}' is not hex")))?;
        }
        Ok(Secret(b))
    }
}

// ---------------------------------------------------------------------------------------------
// Handshake

#[derive(Serialize, Deserialize, Debug, Clone)]
struct Hello {
    magic: [u8; 8],
    min: u16,
    max: u16,
    nonce: [u8; 32],
}

#[derive(Serialize, Deserialize, Debug, Clone)]
struct Proof {
    mac: [u8; 32],
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Child,
    Parent,
}

impl Role {
    fn label(self) -> &'static [u8] {
        match self {
            Role::Child => b"cohort-wire v1 child proof",
            Role::Parent => b"cohort-wire v1 parent proof",
        }
    }
    fn peer(self) -> Role {
        match self {
            Role::Child => Role::Parent,
            Role::Parent => Role::Child,
        }
    }
}

/// Settings of a handshake. The defaults are what [`handshake_child`] and
/// [`handshake_parent`] use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandshakeOpts {
    /// Time limit of each step.
    pub timeout: Duration,
    /// The lowest protocol version offered.
    pub min_version: u16,
    /// The highest protocol version offered.
    pub max_version: u16,
}

impl Default for HandshakeOpts {
    fn default() -> Self {
        HandshakeOpts {
            timeout: HANDSHAKE_TIMEOUT,
            min_version: MIN_VERSION,
            max_version: PROTOCOL_VERSION,
        }
    }
}

type HmacSha256 = Hmac<Sha256>;

/// The MAC that `role` sends: over its label, both hellos (child's first) in a fixed-width
/// encoding, and the version chosen.
fn proof_mac(
    secret: &Secret,
    role: Role,
    child: &Hello,
    parent: &Hello,
    version: u16,
) -> Result<HmacSha256, WireError> {
    // HMAC takes keys of any length: this does not fail.
    let mut m = <HmacSha256 as Mac>::new_from_slice(&secret.0)
        .map_err(|e| WireError::Auth(format!("hmac: {e}")))?;
    m.update(role.label());
    for h in [child, parent] {
        m.update(&h.magic);
        m.update(&h.min.to_be_bytes());
        m.update(&h.max.to_be_bytes());
        m.update(&h.nonce);
    }
    m.update(&version.to_be_bytes());
    Ok(m)
}

/// The keys of the two directions of a connection, (ours to send, ours to receive):
/// HKDF-SHA256 with the secret as input key, both hellos (so both nonces) as salt, and the
/// direction and protocol version as info. Fresh nonces make the keys of every connection
/// different, so frames of one connection mean nothing on another.
fn frame_keys(
    secret: &Secret,
    role: Role,
    child: &Hello,
    parent: &Hello,
    version: u16,
) -> Result<([u8; 32], [u8; 32]), WireError> {
    let mut salt = Vec::with_capacity(2 * 44);
    for h in [child, parent] {
        salt.extend_from_slice(&h.magic);
        salt.extend_from_slice(&h.min.to_be_bytes());
        salt.extend_from_slice(&h.max.to_be_bytes());
        salt.extend_from_slice(&h.nonce);
    }
    let hk = Hkdf::<Sha256>::new(Some(&salt), &secret.0);
    let key = |dir: &[u8]| -> Result<[u8; 32], WireError> {
        let mut info = dir.to_vec();
        info.extend_from_slice(&version.to_be_bytes());
        let mut k = [0u8; 32];
        hk.expand(&info, &mut k)
            .map_err(|e| WireError::Auth(format!("key derivation: {e}")))?;
        Ok(k)
    };
    let up = key(b"cohort-wire frames child to parent v")?;
    let down = key(b"cohort-wire frames parent to child v")?;
    Ok(match role {
        Role::Child => (up, down),
        Role::Parent => (down, up),
    })
}

async fn step<T>(
    what: &'static str,
    limit: Duration,
    f: impl Future<Output = Result<T, WireError>>,
) -> Result<T, WireError> {
    tokio::time::timeout(limit, f)
        .await
        .map_err(|_| WireError::Timeout(what))?
}

async fn handshake<S: AsyncRead + AsyncWrite + Unpin>(
    s: S,
    secret: &Secret,
    role: Role,
    opts: HandshakeOpts,
) -> Result<(Conn<S>, u16), WireError> {
    let mut conn = Conn::with_limit(s, HANDSHAKE_MAX_FRAME, 0);
    let ours = Hello {
        magic: MAGIC,
        min: opts.min_version,
        max: opts.max_version,
        nonce: random()?,
    };
    step("sending hello", opts.timeout, conn.send(&ours)).await?;
    let theirs: Hello = step("waiting for the peer's hello", opts.timeout, conn.recv())
        .await?
        .ok_or(WireError::Closed)?;
    if theirs.magic != MAGIC {
        return Err(WireError::Auth("the peer is not a Cohort agent".into()));
    }
    let lo = ours.min.max(theirs.min);
    let hi = ours.max.min(theirs.max);
    if lo > hi || theirs.min > theirs.max {
        return Err(WireError::Version {
            ours: ours.max,
            theirs: theirs.max,
        });
    }
    let version = hi;
    let (child, parent) = match role {
        Role::Child => (&ours, &theirs),
        Role::Parent => (&theirs, &ours),
    };
    let mine = proof_mac(secret, role, child, parent, version)?
        .finalize()
        .into_bytes();
    let mut mac = [0u8; 32];
    mac.copy_from_slice(&mine);
    step("sending proof", opts.timeout, conn.send(&Proof { mac })).await?;
    let proof: Proof = step("waiting for the peer's proof", opts.timeout, conn.recv())
        .await?
        .ok_or(WireError::Closed)?;
    // Constant-time comparison.
    proof_mac(secret, role.peer(), child, parent, version)?
        .verify_slice(&proof.mac)
        .map_err(|_| WireError::Auth("the peer does not know the session secret".into()))?;
    let (send, recv) = frame_keys(secret, role, child, parent, version)?;
    let codec = conn.framed.codec_mut();
    codec.max = MAX_FRAME + TAG_LEN;
    codec.seal = Some(Sealer::new(&send));
    codec.open = Some(Sealer::new(&recv));
    conn.version = version;
    Ok((conn, version))
}

/// The child's side of the handshake (the child connected to its parent). Returns the
/// authenticated connection and the protocol version agreed on.
pub async fn handshake_child<S: AsyncRead + AsyncWrite + Unpin>(
    s: S,
    secret: &Secret,
) -> Result<(Conn<S>, u16), WireError> {
    handshake(s, secret, Role::Child, HandshakeOpts::default()).await
}

/// The parent's side of the handshake (the parent accepted a child).
pub async fn handshake_parent<S: AsyncRead + AsyncWrite + Unpin>(
    s: S,
    secret: &Secret,
) -> Result<(Conn<S>, u16), WireError> {
    handshake(s, secret, Role::Parent, HandshakeOpts::default()).await
}

/// [`handshake_child`] with another time limit per step.
pub async fn handshake_child_with_timeout<S: AsyncRead + AsyncWrite + Unpin>(
    s: S,
    secret: &Secret,
    timeout: Duration,
) -> Result<(Conn<S>, u16), WireError> {
    let opts = HandshakeOpts {
        timeout,
        ..HandshakeOpts::default()
    };
    handshake(s, secret, Role::Child, opts).await
}

/// [`handshake_parent`] with another time limit per step.
pub async fn handshake_parent_with_timeout<S: AsyncRead + AsyncWrite + Unpin>(
    s: S,
    secret: &Secret,
    timeout: Duration,
) -> Result<(Conn<S>, u16), WireError> {
    let opts = HandshakeOpts {
        timeout,
        ..HandshakeOpts::default()
    };
    handshake(s, secret, Role::Parent, opts).await
}

/// [`handshake_child`] with all settings given.
pub async fn handshake_child_with_opts<S: AsyncRead + AsyncWrite + Unpin>(
    s: S,
    secret: &Secret,
    opts: HandshakeOpts,
) -> Result<(Conn<S>, u16), WireError> {
    handshake(s, secret, Role::Child, opts).await
}

/// [`handshake_parent`] with all settings given.
pub async fn handshake_parent_with_opts<S: AsyncRead + AsyncWrite + Unpin>(
    s: S,
    secret: &Secret,
    opts: HandshakeOpts,
) -> Result<(Conn<S>, u16), WireError> {
    handshake(s, secret, Role::Parent, opts).await
}
