//! CUDA kernels for Cohort, without cuda-gdb.
//!
//! - [`cubin`]: a cubin's sections, kernels, DWARF (gimli), line tables, variables and their
//!   address classes; [`regmap`] and [`frame`]: NVIDIA's register encodings.
//! - [`nvrtc`]: NVRTC, to build cubins for tests and tools.
//! - [`cudbg`]: the driver's debugger API (`cudadebugger.h`, API 12.9 revision 156): the
//!   function table, events, warp state; [`client`]: loading it, the handshake with the
//!   debuggee, the event pump, device state; [`focus`]: CUDA focus and `info cuda` tables.

pub mod cubin;
pub mod error;
pub mod frame;
pub mod nvrtc;
pub mod regmap;

pub use error::{CudaError, Result};
pub mod client;
pub mod commands;
pub mod cudbg;
pub mod detect;
pub mod host;
pub mod state;
pub mod testing;
