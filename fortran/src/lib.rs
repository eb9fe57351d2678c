//! Fortran for Cohort, on top of `cohort-dwarf`'s language-neutral model.
//!
//! - [`valprint`]: values in gdb 13's Fortran format (`.TRUE.`, `(1,-2)`, `'text'`,
//!   `( a = 1, b = 2 )`, arrays in column-major order `((1, 2) (3, 4))`).
//! - [`typeprint`]: `whatis`/`ptype` in gdb's Fortran syntax (`integer(kind=4) (-2:3,0:4)`,
//!   `real(kind=8), allocatable (:)`, `Type vec … End Type vec`).
//!
//! Arrays: `cohort-dwarf` reads every array of a Fortran unit as a
//! [`cohort_dwarf::types::TypeKind::DynArray`] (dimensions in source order with their DWARF
//! properties) and resolves it for one object into a
//! [`cohort_dwarf::types::TypeKind::Shaped`] (lower bound, count and byte stride per
//! dimension, allocation status) when a variable's value is made; this crate only walks
//! shapes.

pub mod descriptor;
pub mod eval;
pub mod parse;
pub mod typeprint;
pub mod valprint;

pub use eval::{INTRINSICS, evaluate, evaluate_parsed, evaluate_type, is_truthy};
pub use typeprint::{declaration, ptype, whatis};
pub use valprint::{Resolver, format_value, format_value_with};
