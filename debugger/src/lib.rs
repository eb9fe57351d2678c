//! Cohort's gdb-compatible command interpreter for one process: `cohort PROGRAM` runs one on
//! its tracer thread, and agentd runs one per rank on the rank's tracer thread (with the output
//! captured, see [`output`]). It prints exactly what gdb 13 prints.

pub mod output;

mod complete;
mod core_cmds;
mod cuda;
mod data;
pub mod debugger;
mod disassemble;
mod examine;
pub mod facts;
mod format;
mod fortran_info;
mod frame_return;
mod help;
mod infcall;
pub mod launched;
mod listing;
mod locations;
pub mod mpi_place;
mod registers;
mod scope_info;
mod script;
mod settings;
mod source;
mod stack;
mod stepping;
mod symtab_info;
pub mod typed;

pub use debugger::{Debugger, Flow, read_script};
