//! Cohort's process-control engine: ptrace, breakpoints, watchpoints, threads, signals,
//! memory, registers, ELF symbols and shared libraries — no GDB anywhere.

pub mod affinity;
pub mod arch;
pub mod core;
pub mod error;
pub mod mapped;
pub mod memory;
pub mod mux;

pub use error::{EngineError, Result};
pub mod disasm;
pub mod flow;
pub mod native;
pub mod process;
pub mod regs;
pub mod session;
pub mod signals;
pub mod sigwait;
pub mod solib;
pub mod symbols;
pub mod tracer;
