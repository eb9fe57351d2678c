//! Reading and writing a tracee's memory.
//!
//! Reads go through `process_vm_readv` and fall back to `/proc/PID/mem` (which also reaches
//! pages the process itself may not read). Writes go through `/proc/PID/mem`, which the kernel
//! lets a tracer use on read-only text, with `PTRACE_POKEDATA` as the fallback.

use std::fs::File;
use std::io::IoSliceMut;
use std::os::unix::fs::FileExt;

use nix::sys::ptrace;
use nix::sys::uio::{RemoteIoVec, process_vm_readv};
use nix::unistd::Pid;

use crate::error::{EngineError, Result};

/// Anything a tracee's memory can be read through (also implemented by test doubles).
pub trait MemoryRead {
    /// Fill `buf` from `addr`; an error if any byte cannot be read.
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()>;

    fn read_u64(&self, addr: u64) -> Result<u64> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn read_u32(&self, addr: u64) -> Result<u32> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Whether the code at `[addr, addr + len)` is still what the program's file holds, as far
    /// as this reader knows (no debugger write has touched it): then code may be read from the
    /// file instead (see `SymbolTable::read_code`). Readers that cannot tell say no.
    fn code_unchanged(&self, _addr: u64, _len: usize) -> bool {
        false
    }

    /// A NUL-terminated string of at most `max` bytes.
    fn read_cstr(&self, addr: u64, max: usize) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut chunk = [0u8; 64];
        while out.len() < max {
            let a = addr + out.len() as u64;
            // Stay within one page per read so a string that ends before an unmapped page reads.
            let page_left = 4096 - (a % 4096) as usize;
            let n = chunk.len().min(page_left).min(max - out.len());
            self.read(a, &mut chunk[..n])?;
            if let Some(z) = chunk[..n].iter().position(|&c| c == 0) {
                out.extend_from_slice(&chunk[..z]);
                return Ok(out);
            }
            out.extend_from_slice(&chunk[..n]);
        }
        Ok(out)
    }
}

/// Raw access to one process's memory (no breakpoint masking: see `Process::read_memory`).
pub struct ProcMem {
    pid: Pid,
    mem: Option<File>,
}

impl ProcMem {
    pub fn new(pid: Pid) -> Self {
        let mem = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(format!("/proc/{pid}/mem"))
            .ok();
        ProcMem { pid, mem }
    }

    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let len = buf.len();
        let remote = [RemoteIoVec {
            base: addr as usize,
            len,
        }];
        let mut local = [IoSliceMut::new(buf)];
        if let Ok(n) = process_vm_readv(self.pid, &mut local, &remote)
            && n == len
        {
            return Ok(());
        }
        match &self.mem {
            Some(f) => f
                .read_exact_at(buf, addr)
                .map_err(|_| EngineError::Memory(addr)),
            None => Err(EngineError::Memory(addr)),
        }
    }

    pub fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        if let Some(f) = &self.mem
            && f.write_all_at(data, addr).is_ok()
        {
            return Ok(());
        }
        self.poke(addr, data)
    }

    /// Word-by-word write through ptrace (the tracee must be stopped).
    fn poke(&self, addr: u64, data: &[u8]) -> Result<()> {
        const W: u64 = std::mem::size_of::<libc::c_long>() as u64;
        let start = addr & !(W - 1);
        let end = (addr + data.len() as u64).div_ceil(W) * W;
        let mut a = start;
        while a < end {
            let word = ptrace::read(self.pid, a as ptrace::AddressType)
                .map_err(|_| EngineError::Memory(a))?;
            let mut bytes = word.to_ne_bytes();
            for (i, b) in bytes.iter_mut().enumerate() {
                let at = a + i as u64;
                if at >= addr && at < addr + data.len() as u64 {
                    *b = data[(at - addr) as usize];
                }
            }
            ptrace::write(
                self.pid,
                a as ptrace::AddressType,
                libc::c_long::from_ne_bytes(bytes),
            )
            .map_err(|_| EngineError::Memory(a))?;
            a += W;
        }
        Ok(())
    }
}

impl MemoryRead for ProcMem {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        ProcMem::read(self, addr, buf)
    }
}
