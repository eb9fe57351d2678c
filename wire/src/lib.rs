//! The protocol of Cohort's agent tree.
//!
//! Node agents (`agentd`) form a tree over TCP whose root is the front end (`cohort`).
//! Commands go down addressed to rank sets; replies and events are merged on the way up, so
//! the root sees `[0-4095] stopped at heat.f90:27`, not 4096 messages.
//!
//! # Frames
//! Every message is one frame: a 4-byte big-endian length `n`, then `n` bytes of
//! [postcard](https://docs.rs/postcard)-encoded message, sealed once the handshake is done ([`Down`] from parent to child, [`Up`]
//! from child to parent). `n` is at most [`MAX_FRAME`] (16 MiB) once the peer is
//! authenticated and 1 KiB before. A frame announcing more, a connection that ends inside a
//! frame, or a frame that is not exactly one valid message is an error for that connection
//! ([`WireError::FrameTooLarge`], [`WireError::Truncated`], [`WireError::Decode`]) and ends
//! it; the other connections are not affected. Program output over 4 KiB travels
//! zstd-compressed ([`Payload`]), with its expanded size bounded.
//!
//! # Handshake
//! Right after the TCP connection is made, each side, at the same time:
//! 1. sends `Hello { magic "COHORT\0W", min, max, nonce }`: the range of protocol versions it
//!    speaks and 32 fresh random bytes from the OS;
//! 2. reads the peer's hello; the version is the highest one both ranges hold; with none in
//!    common both sides fail with [`WireError::Version`];
//! 3. sends `Proof { HMAC-SHA256(secret, label ‖ child hello ‖ parent hello ‖ version) }`, the
//!    label naming its role ("child" or "parent", so a proof cannot be reflected back), the
//!    hellos (both nonces) making it fresh;
//! 4. reads the peer's proof and checks it in constant time ([`WireError::Auth`] when wrong).
//!
//! Only then is the connection handed out, so nothing that an unauthenticated peer sends is
//! read as a command. Each step has its own time limit ([`HANDSHAKE_TIMEOUT`], 5 s), so a
//! silent peer cannot hold a slot. The secret is 32 random bytes ([`Secret`]) that the front
//! end hands to its agents (standard input, environment, or a file of mode 0600).
//!
//! # Sealed frames
//! Once the proofs are checked, each side derives two keys with HKDF-SHA256: input key the
//! secret, salt both hellos (child's first, as in the proofs), info
//! `"cohort-wire frames child to parent v" ‖ version` for the child's frames and
//! `"… parent to child v" ‖ version` for the parent's. Every later frame is
//! ChaCha20-Poly1305(key of its direction, nonce = 4 zero bytes ‖ its 64-bit big-endian
//! sequence number in that direction, starting at 0) of the postcard message, so a frame is 16
//! bytes longer than its message. Sequence numbers are counted, never sent: a frame forged,
//! replayed, reordered or following a dropped one does not open and ends the connection
//! ([`WireError::Integrity`]). Fresh nonces in the hellos make every connection's keys new.
//!
//! # Reduction
//! - [`RankSet`]s are kept as sorted, disjoint, non-adjacent ranges.
//! - [`Merged`] holds one [`Group`] per distinct `(stdout, stderr)` text with the set of ranks
//!   that produced it, groups ordered by their lowest rank; [`Merged::render`] prefixes each
//!   line with `[ranks] `. It also carries the highest value-history number the ranks reached
//!   (a maximum), with which the front end numbers `$N` across the job.
//! - [`StackTree`] merges backtraces into a prefix tree, outermost frame at the root; a node's
//!   children are ordered by the lowest rank below them.
//! - Texts that differ only in addresses (pcs and pointers under address randomisation) are
//!   the same text ([`Text`]): each address keeps its lowest and highest value and prints as
//!   `<0xLOW..0xHIGH>` where the ranks differ.
//!
//! Both are kept in canonical order, so merging is associative and commutative: an agent can
//! merge its children's replies in whatever order they arrive.
//!
//! - [`States`] holds each rank's typed state ([`RankState`]: not started, running, waiting
//!   in an MPI call, stopped with its reason and place, exited, killed, lost), one group per
//!   distinct state, ordered by lowest rank; replies and events carry the states of the ranks
//!   they answer for (protocol version 5).
//! - [`Values`] holds the typed values ([`TypedValue`]: scalars with their type and number,
//!   structs and derived types with named members, arrays with their dimensions and element
//!   type) that `:value EXPR` and `:locals` answer, one class per distinct value with its
//!   ranks, ordered by lowest rank, with the [`Reduction`] of the numbers (least and greatest
//!   with the ranks holding them, the ranks holding NaN, +Inf, -Inf): a reply's `values`
//!   (protocol version 6). Text commands answer as before.
//!
//! # Tree layout
//! [`tree`] places agent `i` of `n`: the first `root_fanout` agents are the front end's
//! children, the others fill the levels below breadth first, `fanout` children per agent.

mod breakpoint;
mod conn;
mod error;
mod merge;
mod msg;
mod payload;
mod rankset;
mod state;
pub mod tree;
mod value;

pub use breakpoint::Breakpoint;
pub use conn::{
    Conn, ConnReader, ConnWriter, HANDSHAKE_TIMEOUT, HandshakeOpts, Secret, decode,
    handshake_child, handshake_child_with_opts, handshake_child_with_timeout, handshake_parent,
    handshake_parent_with_opts, handshake_parent_with_timeout,
};
pub use error::WireError;
pub use merge::{Group, Hex, MIN_ADDRESS, Merged, StackTree, Text, render_lines};
pub use msg::{Down, Stream, Up};
pub use payload::{COMPRESS_MIN, MAX_EXPANDED, Payload};
pub use rankset::RankSet;
pub use state::{Place, RankState, States, StopReason};
pub use tree::{children, depth, parent};
pub use value::{Dim, Elements, Extreme, Num, PathStep, Reduction, Stats, TypedValue, Values};

/// The highest protocol version this build speaks.
pub const PROTOCOL_VERSION: u16 = 7;
/// The lowest protocol version this build speaks.
pub const MIN_VERSION: u16 = 7;
/// Hard maximum frame size, in bytes.
pub const MAX_FRAME: usize = 16 << 20;
