//! The kernel side of the architecture table: register and debug-register access through
//! ptrace for the architecture this engine runs on.

#[cfg(target_arch = "x86_64")]
mod x86_64;
#[cfg(target_arch = "x86_64")]
pub use x86_64::*;

#[cfg(not(target_arch = "x86_64"))]
compile_error!("the native ptrace backend exists for x86-64 only; see docs/PORTING.md");
