//! Typed errors of the DWARF layer. Messages are worded as gdb words them where gdb has a
//! wording, because the CLI prints them as they are.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum DwarfError {
    #[error("{}: No such file or directory.", .0.display())]
    NoSuchFile(PathBuf),
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("\"{}\": not in executable format: file format not recognized", .0.display())]
    NotElf(PathBuf),
    /// Malformed DWARF in one place (a unit, a DIE, an expression); reported where it is met.
    #[error("{0}")]
    Malformed(String),
    #[error("DWARF error: {0}")]
    Gimli(#[from] gimli::Error),
    #[error("Cannot access memory at address {0:#x}")]
    Memory(u64),
    /// A value that the compiler did not keep at this pc.
    #[error("value has been optimized out")]
    OptimizedOut,
    /// gdb's `NO_ENTRY_VALUE_ERROR`: the value a parameter had on entry to its function is
    /// not known for sure (no caller, no call site, a call site for another function, a
    /// function that can tail-call itself…); the message says why in gdb's words. A variable
    /// whose location needs it is `<optimized out>`; `print x@entry` shows the message.
    #[error("{0}")]
    NoEntryValue(String),
    /// An expression or command error, already in gdb's words
    /// (e.g. `No symbol "foo" in current context.`).
    #[error("{0}")]
    User(String),
}

impl DwarfError {
    pub fn user(msg: impl Into<String>) -> Self {
        DwarfError::User(msg.into())
    }
}

impl From<cohort_engine::EngineError> for DwarfError {
    fn from(e: cohort_engine::EngineError) -> Self {
        match e {
            cohort_engine::EngineError::Memory(a) => DwarfError::Memory(a),
            other => DwarfError::User(other.to_string()),
        }
    }
}

pub type Result<T, E = DwarfError> = std::result::Result<T, E>;
