//! Typed errors of the engine.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{}: No such file or directory.", .0.display())]
    NoSuchFile(PathBuf),
    /// A file the system refused, in gdb's words (`/tmp: Is a directory.`).
    #[error("{}: {}.", .path.display(), .errno.desc())]
    Refused {
        path: PathBuf,
        errno: nix::errno::Errno,
    },
    #[error("\"{}\": not in executable format: file format not recognized", .0.display())]
    NotExecutable(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("ptrace: No such process.")]
    NoSuchProcess(i32),
    #[error("ptrace: Operation not permitted.")]
    NotPermitted(i32),
    #[error("The program is not being run.")]
    NotRunning,
    #[error("Cannot access memory at address {0:#x}")]
    Memory(u64),
    #[error("Couldn't get registers: {0}.")]
    Registers(nix::Error),
    #[error("{op} failed for thread {tid}: {err}")]
    Ptrace {
        op: &'static str,
        tid: i32,
        err: nix::Error,
    },
    #[error("Hardware watchpoints used exceeds limit ({0} available).")]
    NoWatchSlot(usize),
    #[error(
        "Watchpoint of {len} bytes at {addr:#x} is not supported by the hardware (needs an aligned 1, 2, 4 or 8 byte location)."
    )]
    WatchUnsupported { addr: u64, len: usize },
    #[error("No breakpoint number {0}.")]
    NoBreakpoint(u32),
    #[error("Unknown thread {0}.")]
    NoThread(usize),
    #[error("Invalid register `{0}'")]
    NoRegister(String),
    #[error("malformed ELF file {}: {msg}", .path.display())]
    BadElf { path: PathBuf, msg: String },
    #[error("disassembler: {0}")]
    Disasm(String),
    #[error("the sandbox stopped: {0}")]
    Sandbox(&'static str),
    #[error("the sandbox could not restore thread {0} exactly")]
    SandboxRestore(i32),
    #[error("{0}")]
    Call(&'static str),
    #[error(
        "The thread is stopped inside a system call; calling a function now would make the kernel restart that call with the function's registers."
    )]
    CallInSyscall,
    #[error("{0}")]
    Other(String),
}

impl EngineError {
    /// Why `path` cannot be the program, as gdb says it: a name with a `/` is looked at
    /// itself (`Is a directory`, `Not a directory`, `Invalid argument` for a device or a
    /// FIFO); anything else was not found.
    pub fn not_a_program(path: &std::path::Path) -> EngineError {
        use std::os::unix::ffi::OsStrExt;
        if path.as_os_str().as_bytes().contains(&b'/') {
            let errno = match std::fs::metadata(path) {
                Ok(m) if m.is_dir() => Some(nix::errno::Errno::EISDIR),
                Ok(m) if !m.is_file() => Some(nix::errno::Errno::EINVAL),
                Ok(_) => None,
                Err(e) => e
                    .raw_os_error()
                    .filter(|&n| n != libc::ENOENT)
                    .map(nix::errno::Errno::from_raw),
            };
            if let Some(errno) = errno {
                return EngineError::Refused {
                    path: path.to_path_buf(),
                    errno,
                };
            }
        }
        EngineError::NoSuchFile(path.to_path_buf())
    }
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;
