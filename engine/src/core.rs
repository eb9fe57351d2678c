//! ELF core files: reading one as a read-only target (threads, registers, memory, auxiliary
//! vector, mapped files), and writing one of a stopped process (gdb's `gcore`).
//!
//! The layout is Linux's for x86-64 (`elf_prstatus`, `elf_prpsinfo`, `NT_FILE`); the register
//! blocks are converted by the native layer.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{EngineError, Result};
use crate::native::{self, RawGp};
use crate::regs::Registers;

const PT_LOAD: u32 = 1;
const PT_NOTE: u32 = 4;
const ET_CORE: u16 = 4;
const EM_X86_64: u16 = 62;
const NT_PRSTATUS: u32 = 1;
const NT_FPREGSET: u32 = 2;
const NT_PRPSINFO: u32 = 3;
const NT_AUXV: u32 = 6;
const NT_SIGINFO: u32 = 0x5349_4749;
const NT_FILE: u32 = 0x4649_4c45;
const NT_X86_XSTATE: u32 = 0x202;
/// `offsetof(struct elf_prstatus, pr_reg)` and its size on x86-64.
const PRSTATUS_REG: usize = 112;
const PRSTATUS_SIZE: usize = 336;
/// `offsetof(struct elf_prpsinfo, pr_fname)`, `pr_psargs`, and its size on x86-64.
const PRPSINFO_FNAME: usize = 40;
const PRPSINFO_PSARGS: usize = 56;
const PRPSINFO_SIZE: usize = 136;

/// One thread of a core file.
#[derive(Debug, Clone)]
pub struct CoreThread {
    pub tid: i32,
    /// The signal it was stopped or killed by (`pr_cursig`).
    pub signo: i32,
    gp: RawGp,
    fp: Option<Vec<u8>>,
    xstate: Option<Vec<u8>>,
    pub siginfo: Option<Vec<u8>>,
}

impl CoreThread {
    /// General-purpose registers.
    pub fn registers(&self) -> Registers {
        native::raw_to_registers(&self.gp)
    }

    /// Every register the core holds for the thread.
    pub fn all_registers(&self) -> Registers {
        let mut r = native::registers_from_core(&self.gp, self.fp.as_deref());
        if let Some(x) = &self.xstate {
            native::opmask_from_xstate(x, &mut r);
        }
        r
    }

    pub fn pc(&self) -> u64 {
        native::raw_pc(&self.gp)
    }
}

#[derive(Debug, Clone, Copy)]
struct Segment {
    vaddr: u64,
    memsz: u64,
    offset: u64,
    filesz: u64,
}

/// A file mapped in the process (`NT_FILE`): its pages not in the core come from it.
#[derive(Debug, Clone)]
struct Mapped {
    start: u64,
    end: u64,
    offset: u64,
    path: String,
}

/// A core file opened for reading.
#[derive(Debug)]
pub struct Core {
    pub path: PathBuf,
    file: File,
    /// The process's id (`pr_pid` of its first thread).
    pub pid: i32,
    /// The command line the process was started with, as the kernel keeps it (80 bytes).
    pub psargs: String,
    /// The program's name (16 bytes).
    pub fname: String,
    /// In the core's order: the first is the one that got the signal.
    pub threads: Vec<CoreThread>,
    segments: Vec<Segment>,
    pub auxv: Vec<(u64, u64)>,
    mapped: Vec<Mapped>,
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

impl Core {
    /// Open `path`; gdb's words when it is not a core file.
    pub fn open(path: &Path) -> Result<Core> {
        let file = File::open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => EngineError::NoSuchFile(path.to_path_buf()),
            _ => EngineError::Io {
                path: path.to_path_buf(),
                source: e,
            },
        })?;
        let not_core = || {
            EngineError::Other(format!(
                "\"{}\" is not a core dump: file format not recognized",
                absolute(path).display()
            ))
        };
        let mut eh = [0u8; 64];
        file.read_exact_at(&mut eh, 0).map_err(|_| not_core())?;
        if &eh[..4] != b"\x7fELF" || eh[4] != 2 || eh[5] != 1 {
            return Err(not_core());
        }
        if u16_at(&eh, 16) != Some(ET_CORE) {
            return Err(not_core());
        }
        if u16_at(&eh, 18) != Some(EM_X86_64) {
            return Err(EngineError::Other(format!(
                "\"{}\": core files of this architecture are not supported",
                path.display()
            )));
        }
        let bad = |msg: &str| EngineError::BadElf {
            path: path.to_path_buf(),
            msg: msg.to_string(),
        };
        let phoff = u64_at(&eh, 32).ok_or_else(|| bad("no program headers"))?;
        let phentsize = u16_at(&eh, 54).unwrap_or(0) as usize;
        let phnum = u16_at(&eh, 56).unwrap_or(0) as usize;
        if phentsize < 56 || phnum == 0 {
            return Err(bad("no program headers"));
        }
        let mut ph = vec![0u8; phentsize * phnum];
        file.read_exact_at(&mut ph, phoff)
            .map_err(|_| bad("truncated program headers"))?;
        let mut core = Core {
            path: path.to_path_buf(),
            file,
            pid: 0,
            psargs: String::new(),
            fname: String::new(),
            threads: Vec::new(),
            segments: Vec::new(),
            auxv: Vec::new(),
            mapped: Vec::new(),
        };
        let mut notes = Vec::new();
        for h in ph.chunks_exact(phentsize) {
            let p_type = u32_at(h, 0).unwrap_or(0);
            let offset = u64_at(h, 8).unwrap_or(0);
            let vaddr = u64_at(h, 16).unwrap_or(0);
            let filesz = u64_at(h, 32).unwrap_or(0);
            let memsz = u64_at(h, 40).unwrap_or(0);
            match p_type {
                PT_LOAD => core.segments.push(Segment {
                    vaddr,
                    memsz,
                    offset,
                    filesz,
                }),
                PT_NOTE if filesz <= 64 << 20 => {
                    let mut b = vec![0u8; filesz as usize];
                    core.file
                        .read_exact_at(&mut b, offset)
                        .map_err(|_| bad("truncated notes"))?;
                    notes.push(b);
                }
                _ => {}
            }
        }
        for n in &notes {
            core.read_notes(n);
        }
        if core.threads.is_empty() {
            return Err(bad("no thread in the core file"));
        }
        if core.pid == 0 {
            core.pid = core.threads[0].tid;
        }
        Ok(core)
    }

    fn read_notes(&mut self, b: &[u8]) {
        let mut at = 0;
        let align = |n: usize| (n + 3) & !3;
        while at + 12 <= b.len() {
            let (Some(namesz), Some(descsz), Some(ty)) =
                (u32_at(b, at), u32_at(b, at + 4), u32_at(b, at + 8))
            else {
                return;
            };
            let name_at = at + 12;
            let desc_at = name_at + align(namesz as usize);
            let end = desc_at + descsz as usize;
            let Some(desc) = b.get(desc_at..end) else {
                return;
            };
            let name = cstr(&b[name_at..(name_at + namesz as usize).min(b.len())]);
            if name == "CORE" {
                self.note(ty, desc);
            } else if name == "LINUX"
                && ty == NT_X86_XSTATE
                && let Some(t) = self.threads.last_mut()
            {
                t.xstate = Some(desc.to_vec());
            }
            at = desc_at + align(descsz as usize);
        }
    }

    fn note(&mut self, ty: u32, d: &[u8]) {
        match ty {
            NT_PRSTATUS if d.len() >= PRSTATUS_REG + native::RAW_GP_SIZE => {
                let Some(gp) = native::raw_from_bytes(&d[PRSTATUS_REG..]) else {
                    return;
                };
                self.threads.push(CoreThread {
                    tid: u32_at(d, 32).unwrap_or(0) as i32,
                    signo: u16_at(d, 12).unwrap_or(0) as i16 as i32,
                    gp,
                    fp: None,
                    xstate: None,
                    siginfo: None,
                });
            }
            // The notes after a thread's NT_PRSTATUS are that thread's.
            NT_FPREGSET => {
                if let Some(t) = self.threads.last_mut() {
                    t.fp = Some(d.to_vec());
                }
            }
            NT_SIGINFO => {
                if let Some(t) = self.threads.last_mut() {
                    t.siginfo = Some(d.to_vec());
                }
            }
            NT_PRPSINFO if d.len() >= PRPSINFO_SIZE => {
                self.pid = u32_at(d, 24).unwrap_or(0) as i32;
                self.fname = cstr(&d[PRPSINFO_FNAME..PRPSINFO_PSARGS]);
                self.psargs = cstr(&d[PRPSINFO_PSARGS..PRPSINFO_SIZE]);
            }
            NT_AUXV => self.auxv = crate::solib::parse_auxv(d, 8),
            NT_FILE => self.mapped = parse_nt_file(d).unwrap_or_default(),
            _ => {}
        }
    }

    /// Read from the core's own copy of memory and, for pages it does not hold, from the
    /// files mapped there; `fallback` reads what neither holds (the loaded objects' files).
    pub fn read(
        &self,
        addr: u64,
        buf: &mut [u8],
        fallback: &dyn Fn(u64, &mut [u8]) -> bool,
    ) -> Result<()> {
        let mut done = 0;
        while done < buf.len() {
            let a = addr.wrapping_add(done as u64);
            let rest = &mut buf[done..];
            let seg = self
                .segments
                .iter()
                .find(|s| a >= s.vaddr && a - s.vaddr < s.memsz);
            let n = match seg {
                Some(s) if a - s.vaddr < s.filesz => {
                    let n = rest.len().min((s.filesz - (a - s.vaddr)) as usize);
                    self.file
                        .read_exact_at(&mut rest[..n], s.offset + (a - s.vaddr))
                        .map_err(|_| EngineError::Memory(a))?;
                    n
                }
                Some(s) => {
                    let n = rest.len().min((s.memsz - (a - s.vaddr)) as usize);
                    if !self.read_mapped(a, &mut rest[..n]) && !fallback(a, &mut rest[..n]) {
                        return Err(EngineError::Memory(a));
                    }
                    n
                }
                None => {
                    // Up to the next segment, from the files.
                    let next = self
                        .segments
                        .iter()
                        .filter(|s| s.vaddr > a)
                        .map(|s| s.vaddr - a)
                        .min()
                        .unwrap_or(u64::MAX);
                    let n = rest.len().min(next.min(usize::MAX as u64) as usize);
                    if !fallback(a, &mut rest[..n]) {
                        return Err(EngineError::Memory(a));
                    }
                    n
                }
            };
            done += n;
        }
        Ok(())
    }

    fn read_mapped(&self, addr: u64, buf: &mut [u8]) -> bool {
        let end = addr.saturating_add(buf.len() as u64);
        let Some(m) = self.mapped.iter().find(|m| addr >= m.start && end <= m.end) else {
            return false;
        };
        let Ok(f) = File::open(&m.path) else {
            return false;
        };
        f.read_exact_at(buf, m.offset + (addr - m.start)).is_ok()
    }

    /// The file mapped at `addr`, if the core names one.
    pub fn file_at(&self, addr: u64) -> Option<&str> {
        self.mapped
            .iter()
            .find(|m| addr >= m.start && addr < m.end)
            .map(|m| m.path.as_str())
    }

    /// The thread numbered `num` (gdb's numbers: the core's order from 1).
    pub fn thread(&self, num: usize) -> Option<&CoreThread> {
        num.checked_sub(1).and_then(|i| self.threads.get(i))
    }

    pub fn thread_by_tid(&self, tid: i32) -> Option<(usize, &CoreThread)> {
        self.threads
            .iter()
            .enumerate()
            .find(|(_, t)| t.tid == tid)
            .map(|(i, t)| (i + 1, t))
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn parse_nt_file(d: &[u8]) -> Option<Vec<Mapped>> {
    let count = u64_at(d, 0)? as usize;
    let page = u64_at(d, 8)?;
    let mut names = d.get(16 + count.checked_mul(24)?..)?.split(|&c| c == 0);
    let mut out = Vec::with_capacity(count.min(4096));
    for i in 0..count {
        let at = 16 + i * 24;
        let path = String::from_utf8_lossy(names.next()?).into_owned();
        out.push(Mapped {
            start: u64_at(d, at)?,
            end: u64_at(d, at + 8)?,
            offset: u64_at(d, at + 16)?.checked_mul(page)?,
            path,
        });
    }
    Some(out)
}

// ---------------------------------------------------------------- writing

/// What a core file is written from: a stopped process.
pub struct CoreSource<'a> {
    pub pid: i32,
    /// The process's threads, the one that stopped it first: (tid, its stop signal, its
    /// `siginfo_t` if it has one). The first one's signal is the process's.
    pub threads: Vec<(i32, i32, Option<Vec<u8>>)>,
    pub mem: &'a dyn crate::memory::MemoryRead,
}

fn note(out: &mut Vec<u8>, name: &str, ty: u32, desc: &[u8]) {
    let pad = |v: &mut Vec<u8>| v.resize((v.len() + 3) & !3, 0);
    out.extend((name.len() as u32 + 1).to_le_bytes());
    out.extend((desc.len() as u32).to_le_bytes());
    out.extend(ty.to_le_bytes());
    out.extend(name.as_bytes());
    out.push(0);
    pad(out);
    out.extend(desc);
    pad(out);
}

/// A readable mapping of `/proc/PID/maps`: start, end, permissions, file offset, path.
type MapLine = (u64, u64, String, u64, String);

fn maps(pid: i32) -> Result<Vec<MapLine>> {
    let path = PathBuf::from(format!("/proc/{pid}/maps"));
    let text = std::fs::read_to_string(&path).map_err(|e| EngineError::Io { path, source: e })?;
    let mut out = Vec::new();
    for l in text.lines() {
        let mut w = l.split_whitespace();
        let (Some(range), Some(perms), Some(off)) = (w.next(), w.next(), w.next()) else {
            continue;
        };
        let name = w.nth(2).unwrap_or("").to_string();
        let Some((a, b)) = range.split_once('-') else {
            continue;
        };
        let (Ok(a), Ok(b), Ok(off)) = (
            u64::from_str_radix(a, 16),
            u64::from_str_radix(b, 16),
            u64::from_str_radix(off, 16),
        ) else {
            continue;
        };
        out.push((a, b, perms.to_string(), off, name));
    }
    Ok(out)
}

/// Write a core file of the stopped process `src` to `path` (gdb's `gcore`): every mapping
/// it can read, each thread's registers, its auxiliary vector and mapped files.
pub fn write_core(src: &CoreSource, path: &Path) -> Result<()> {
    let pid = src.pid;
    let io = |e: std::io::Error| EngineError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let maps = maps(pid)?;
    // Notes.
    let mut notes = Vec::new();
    let mut ps = vec![0u8; PRPSINFO_SIZE];
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let mut f = after.split_whitespace();
    let state = f.next().and_then(|s| s.bytes().next()).unwrap_or(b'R');
    let ppid: i32 = f.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let pgrp: i32 = f.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let sid: i32 = f.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    ps[1] = state;
    ps[24..28].copy_from_slice(&pid.to_le_bytes());
    ps[28..32].copy_from_slice(&ppid.to_le_bytes());
    ps[32..36].copy_from_slice(&pgrp.to_le_bytes());
    ps[36..40].copy_from_slice(&sid.to_le_bytes());
    let comm = std::fs::read(format!("/proc/{pid}/comm")).unwrap_or_default();
    let comm = comm.strip_suffix(b"\n").unwrap_or(&comm);
    let n = comm.len().min(15);
    ps[PRPSINFO_FNAME..PRPSINFO_FNAME + n].copy_from_slice(&comm[..n]);
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let mut args: Vec<u8> = cmdline
        .strip_suffix(b"\0")
        .unwrap_or(&cmdline)
        .iter()
        .map(|&c| if c == 0 { b' ' } else { c })
        .collect();
    args.truncate(79);
    ps[PRPSINFO_PSARGS..PRPSINFO_PSARGS + args.len()].copy_from_slice(&args);
    note(&mut notes, "CORE", NT_PRPSINFO, &ps);
    // Every thread's `pr_cursig` is the signal of the one that stopped the process, as the
    // kernel and gdb write it (gdb reads the process's signal from the last thread's).
    let signo = src.threads.first().map_or(0, |t| t.1);
    for (tid, _, siginfo) in &src.threads {
        let tid = *tid;
        let t = nix::unistd::Pid::from_raw(tid);
        let gp = native::read_raw(t)?;
        let mut st = vec![0u8; PRSTATUS_SIZE];
        st[0..4].copy_from_slice(&signo.to_le_bytes());
        st[12..14].copy_from_slice(&(signo as i16).to_le_bytes());
        st[32..36].copy_from_slice(&tid.to_le_bytes());
        st[36..40].copy_from_slice(&ppid.to_le_bytes());
        st[40..44].copy_from_slice(&pgrp.to_le_bytes());
        st[44..48].copy_from_slice(&sid.to_le_bytes());
        st[PRSTATUS_REG..PRSTATUS_REG + native::RAW_GP_SIZE]
            .copy_from_slice(&native::raw_to_bytes(&gp));
        st[PRSTATUS_REG + native::RAW_GP_SIZE..PRSTATUS_REG + native::RAW_GP_SIZE + 4]
            .copy_from_slice(&1i32.to_le_bytes());
        note(&mut notes, "CORE", NT_PRSTATUS, &st);
        note(&mut notes, "CORE", NT_FPREGSET, &native::read_fp_bytes(t)?);
        if let Ok(x) = native::read_xstate_bytes(t) {
            note(&mut notes, "LINUX", NT_X86_XSTATE, &x);
        }
        if let Some(si) = siginfo {
            note(&mut notes, "CORE", NT_SIGINFO, si);
        }
    }
    if let Ok(a) = std::fs::read(format!("/proc/{pid}/auxv")) {
        note(&mut notes, "CORE", NT_AUXV, &a);
    }
    let files: Vec<&MapLine> = maps.iter().filter(|m| m.4.starts_with('/')).collect();
    let mut nf = Vec::new();
    nf.extend((files.len() as u64).to_le_bytes());
    nf.extend(4096u64.to_le_bytes());
    for m in &files {
        nf.extend(m.0.to_le_bytes());
        nf.extend(m.1.to_le_bytes());
        nf.extend((m.3 / 4096).to_le_bytes());
    }
    for m in &files {
        nf.extend(m.4.as_bytes());
        nf.push(0);
    }
    note(&mut notes, "CORE", NT_FILE, &nf);

    // Memory: readable mappings, except the kernel's ([vvar], [vsyscall]).
    let mut loads: Vec<(u64, u64, u32, Vec<u8>)> = Vec::new();
    for (a, b, perms, _, name) in &maps {
        if name == "[vvar]" || name == "[vsyscall]" || name == "[vvar_vclock]" {
            continue;
        }
        let p = perms.as_bytes();
        let flags = u32::from(p.first() == Some(&b'r')) << 2
            | u32::from(p.get(1) == Some(&b'w')) << 1
            | u32::from(p.get(2) == Some(&b'x'));
        let mut data = Vec::new();
        if flags & 4 != 0 {
            data = vec![0u8; (b - a) as usize];
            // Page by page: a page that cannot be read is left as zeros.
            for (i, page) in data.chunks_mut(4096).enumerate() {
                let _ = src.mem.read(a + i as u64 * 4096, page);
            }
        }
        loads.push((*a, *b, flags, data));
    }

    let phnum = 1 + loads.len();
    let mut out = Vec::new();
    // ELF header.
    out.extend(b"\x7fELF\x02\x01\x01");
    out.resize(16, 0);
    out.extend(ET_CORE.to_le_bytes());
    out.extend(EM_X86_64.to_le_bytes());
    out.extend(1u32.to_le_bytes());
    out.extend(0u64.to_le_bytes()); // entry
    out.extend(64u64.to_le_bytes()); // phoff
    out.extend(0u64.to_le_bytes()); // shoff
    out.extend(0u32.to_le_bytes()); // flags
    out.extend(64u16.to_le_bytes());
    out.extend(56u16.to_le_bytes());
    out.extend((phnum as u16).to_le_bytes());
    out.extend(64u16.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    let notes_at = 64 + 56 * phnum as u64;
    let mut data_at = (notes_at + notes.len() as u64 + 4095) & !4095;
    let ph = |out: &mut Vec<u8>, ty: u32, flags: u32, off: u64, va: u64, fsz: u64, msz: u64| {
        out.extend(ty.to_le_bytes());
        out.extend(flags.to_le_bytes());
        out.extend(off.to_le_bytes());
        out.extend(va.to_le_bytes());
        out.extend(0u64.to_le_bytes());
        out.extend(fsz.to_le_bytes());
        out.extend(msz.to_le_bytes());
        out.extend(if ty == PT_LOAD { 4096u64 } else { 1 }.to_le_bytes());
    };
    ph(&mut out, PT_NOTE, 4, notes_at, 0, notes.len() as u64, 0);
    for (a, b, flags, data) in &loads {
        ph(
            &mut out,
            PT_LOAD,
            *flags,
            data_at,
            *a,
            data.len() as u64,
            b - a,
        );
        data_at += data.len() as u64;
    }
    out.extend(&notes);
    out.resize(((out.len() as u64 + 4095) & !4095) as usize, 0);
    let mut file = File::create(path).map_err(io)?;
    use std::io::Write;
    file.write_all(&out).map_err(io)?;
    for (_, _, _, data) in &loads {
        file.write_all(data).map_err(io)?;
    }
    Ok(())
}
