//! Cohort's source-level layer: DWARF loading (lazy, shared per binary), names, line tables,
//! scopes and variables, DWARF location expressions, the type model, values, gdb-style value
//! printing and C expressions.
//!
//! Module map (who owns what):
//! - [`loader`]: one [`loader::DebugFile`] per binary, sections memory-mapped once, units parsed
//!   on first use.
//! - [`types`] / [`value`]: the type model and values every other module speaks.
//! - [`context`]: what evaluation and printing need from a live process (memory, registers,
//!   symbols), as traits so that the same code serves a process, a core or a test double.

pub mod canon;
pub mod context;
pub mod cxx_lookup;
pub mod cxxname;
pub mod demangle;
pub mod dietypes;
pub mod error;
pub mod expr;
pub mod extfloat;
pub mod format;
pub mod fortran_names;
pub mod index;
pub mod lines;
pub mod loader;
pub mod location;
pub mod retval;
pub mod scopes;
pub mod types;
pub mod value;

pub use error::{DwarfError, Result};

/// The gimli reader used everywhere: section bytes live for the whole run of the debugger
/// (each binary is mapped once and never unmapped, see `loader`).
pub type R = gimli::EndianSlice<'static, gimli::RunTimeEndian>;
