//! Errors of the CUDA back end.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum CudaError {
    #[error("cubin: {0}")]
    Cubin(String),
    #[error("cubin ELF: {0}")]
    Object(#[from] object::Error),
    #[error("cubin DWARF: {0}")]
    Dwarf(#[from] gimli::Error),
    #[error("NVRTC: {0}")]
    Nvrtc(String),
    #[error("cannot load {path}: {reason}")]
    Library { path: String, reason: String },
    #[error(
        "the CUDA debugger API of the driver is {driver} and serves none of the versions Cohort was built for ({built})"
    )]
    Version { driver: String, built: String },
    #[error("{call} failed: {name} ({code:#x})")]
    Api {
        call: &'static str,
        code: u32,
        name: &'static str,
    },
    #[error("the driver's API table lacks {0}")]
    MissingEntry(&'static str),
    #[error("handshake: {0}")]
    Handshake(String),
    #[error("engine: {0}")]
    Engine(#[from] cohort_engine::error::EngineError),
    #[error("{0}")]
    Focus(String),
    #[error(
        "the driver's debugger API of this process already debugs another program (one program per debugger process)"
    )]
    Busy,
}

pub type Result<T> = std::result::Result<T, CudaError>;
