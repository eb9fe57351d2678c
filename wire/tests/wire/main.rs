//! Tests of the wire crate: one binary, one module per area.

mod conn;
mod fuzz;
mod merge;
mod payload;
mod prng;
mod rankset;
mod tree;
