//! The session's core target (gdb's `core-file`): a core file's threads, registers and memory
//! in place of a process, read-only. Memory the core does not hold comes from the files it
//! maps and the loaded objects, as gdb reads it.

use std::path::Path;

use super::{Session, lib_info};
use crate::core::Core;
use crate::error::{EngineError, Result};
use crate::memory::MemoryRead;
use crate::process::ThreadInfo;
use crate::regs::Registers;
use crate::solib;
use crate::symbols::{LoadedObject, ObjectFile, SymbolTable};

/// The threads of a core, numbered in the core's order.
pub(super) fn threads(c: &Core) -> Vec<ThreadInfo> {
    let tp = crate::arch::native().thread_pointer;
    c.threads
        .iter()
        .enumerate()
        .map(|(i, t)| ThreadInfo {
            tid: t.tid,
            num: i + 1,
            pointer: tp.and_then(|r| t.registers().get(r)).unwrap_or(0) as u64,
            name: String::new(),
        })
        .collect()
}

impl Session {
    /// The core file being examined, if any.
    pub fn core(&self) -> Option<&Core> {
        self.core.as_ref()
    }

    /// Examine the core file `path` (there must be no process): its first thread is current,
    /// the program and its libraries are placed where the core says they were.
    pub fn open_core(&mut self, path: &Path) -> Result<()> {
        if self.process.is_some() {
            return Err(EngineError::Other(
                "A program is being debugged already.".into(),
            ));
        }
        let core = Core::open(path)?;
        let at = |k: u64| solib::auxv_get(&core.auxv, k);
        let entry = at(solib::AT_ENTRY);
        if self.exe.is_none()
            && let Some(p) = entry.and_then(|e| core.file_at(e))
            && let Ok(e) = ObjectFile::load_cached(Path::new(p))
        {
            self.program = Some(p.into());
            self.exe = Some(e);
        }
        let base = at(solib::AT_BASE).filter(|&b| b != 0);
        self.current.set(core.threads.first().map(|t| t.tid));
        self.core = Some(core);
        self.symbols = SymbolTable::default();
        self.libs.clear();
        self.r_debug = None;
        let Some(exe) = self.exe.clone() else {
            return Ok(());
        };
        let bias = entry.map(|e| solib::load_bias(&exe, e)).unwrap_or(0);
        let exe_obj = LoadedObject {
            file: exe.clone(),
            bias,
        };
        self.symbols.push(exe_obj.clone());
        let mut interp = None;
        if let (Some(name), Some(base)) = (exe.interp(), base)
            && let Ok(ld) = ObjectFile::load_cached(Path::new(&name))
        {
            let obj = LoadedObject {
                file: ld.clone(),
                bias: base,
            };
            self.symbols.push(obj.clone());
            self.libs.push(lib_info(&name, &ld, base));
            interp = Some(obj);
        }
        self.r_debug = solib::find_r_debug(self, &exe_obj, interp.as_ref(), 8);
        self.refresh_libraries()?;
        // The dynamic linker in the link map's order (last), as gdb lists a core's libraries.
        if interp.is_some() && self.libs.len() > 1 {
            let ld = self.libs.remove(0);
            self.libs.push(ld);
        }
        // Loading a core says nothing about each library.
        self.messages
            .retain(|m| !matches!(m, super::Message::LibraryLoaded(_)));
        self.re_resolve()
    }

    /// Stop examining the core file (gdb's `core-file` without an argument).
    pub fn close_core(&mut self) -> bool {
        if self.core.take().is_none() {
            return false;
        }
        self.after_exit();
        true
    }

    /// What the program's memory is read through now: the process, or the core target.
    pub fn memory(&self) -> Option<&dyn MemoryRead> {
        match (&self.process, &self.core) {
            (Some(p), _) => Some(p),
            (None, Some(_)) => Some(self),
            _ => None,
        }
    }

    /// gdb's thread number of `tid`.
    pub fn thread_num(&self, tid: i32) -> Option<usize> {
        match (&self.process, &self.core) {
            (Some(p), _) => p.thread_num(tid),
            (None, Some(c)) => c.thread_by_tid(tid).map(|(n, _)| n),
            _ => None,
        }
    }

    /// The `siginfo_t` the core holds for thread `tid`.
    pub fn core_siginfo(&self, tid: i32) -> Option<&[u8]> {
        self.core.as_ref()?.thread_by_tid(tid)?.1.siginfo.as_deref()
    }

    pub(super) fn read_core_memory(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        let Some(c) = &self.core else {
            return Err(EngineError::NotRunning);
        };
        c.read(addr, buf, &|a, b| self.symbols.read_file_bytes(a, b))
    }

    pub(super) fn core_registers(&self, all: bool) -> Option<Result<Registers>> {
        let c = self.core.as_ref()?;
        let t = self.current.get().and_then(|tid| c.thread_by_tid(tid))?.1;
        Some(Ok(if all {
            t.all_registers()
        } else {
            t.registers()
        }))
    }
}

impl MemoryRead for Session {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        self.read_memory(addr, buf)
    }
}
