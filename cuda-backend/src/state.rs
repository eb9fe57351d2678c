//! The GPU side of a debugging session: modules (cubins from ELF-image events), kernels,
//! breakpoints in device code, the state of the devices at the last stop, the CUDA focus
//! (logical: kernel/block/thread; physical: device/SM/warp/lane), `info cuda ...` tables in
//! cuda-gdb's layout, and variables of the focused thread read by DWARF address class.

use std::collections::BTreeMap;

use crate::client::{Cudbg, Device, Warp};
use crate::cubin::{AddressClass, Cubin, Location, VarKind, Variable};
use crate::cudbg::{CuDim3, Event};
use crate::error::{CudaError, Result};
use crate::regmap::RegClass;

/// A loaded cubin.
pub struct Module {
    pub dev: u32,
    pub handle: u64,
    pub cubin: Cubin,
}

/// A launched grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// cuda-gdb's kernel number (0, 1, ... in launch order).
    pub id: u32,
    pub dev: u32,
    pub grid_id: u64,
    pub name: String,
    pub entry: u64,
    pub grid_dim: CuDim3,
    pub block_dim: CuDim3,
    /// `name(arg=value, ...)`, once read.
    pub invocation: Option<String>,
}

/// A breakpoint in device code (numbered by the front end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceBreakpoint {
    pub id: u32,
    pub spec: String,
    /// (device, address) where it is set.
    pub locations: Vec<(u32, u64)>,
}

/// The focused GPU thread, physically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Focus {
    pub dev: u32,
    pub sm: u32,
    pub wp: u32,
    pub ln: u32,
}

/// What the events of one wake-up amounted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    ModuleLoaded {
        handle: u64,
        kernels: Vec<String>,
    },
    BreakpointResolved {
        id: u32,
        addr: u64,
    },
    KernelLaunched {
        id: u32,
        name: String,
    },
    KernelFinished {
        id: u32,
    },
    /// The devices stopped; `text` is the report (focus switch and location).
    Stopped {
        text: String,
    },
    InternalError(u32),
}

pub struct CudaState {
    pub api: Cudbg,
    modules: Vec<Module>,
    kernels: Vec<Kernel>,
    next_kernel: u32,
    breakpoints: Vec<DeviceBreakpoint>,
    devices: Vec<Device>,
    warps: Vec<Warp>,
    focus: Option<Focus>,
    /// Breakpoints a module resolved since [`CudaState::take_resolved`]: id and address.
    resolved: Vec<(u32, u64)>,
    /// How a device exception names the host thread that receives it (`Thread 1 "prog"`).
    host_label: String,
    /// The devices are stopped by an exception (the program cannot go on: cuda-gdb ends it).
    faulted: bool,
}

/// gdb's table layout: each field padded to its column's width (right- or left-aligned) and
/// followed by a space.
struct Table {
    widths: Vec<usize>,
    left: Vec<bool>,
}

impl Table {
    fn new(headers: &[&str], rows: &[Vec<String>], left_last: bool) -> Table {
        let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
        for r in rows {
            for (i, c) in r.iter().enumerate() {
                widths[i] = widths[i].max(c.len());
            }
        }
        let mut left = vec![false; headers.len()];
        if left_last && let Some(l) = left.last_mut() {
            *l = true;
        }
        Table { widths, left }
    }
    fn line(&self, cells: &[String]) -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if self.left[i] {
                s.push_str(&format!("{c:<w$} ", w = self.widths[i]));
            } else {
                s.push_str(&format!("{c:>w$} ", w = self.widths[i]));
            }
        }
        s.push('\n');
        s
    }
}

fn hex16(v: u64) -> String {
    format!("0x{v:016x}")
}

/// An SM mask as cuda-gdb prints it: hex, two digits per 8 SMs (a byte), the last SM first
/// (132 SMs: 34 digits, as on an H200).
fn sm_mask(mask: &[bool]) -> String {
    let digits = 2 * mask.len().div_ceil(8).max(1);
    let mut s = String::new();
    for d in (0..digits).rev() {
        let mut v = 0;
        for b in 0..4 {
            if mask.get(d * 4 + b).copied().unwrap_or(false) {
                v |= 1 << b;
            }
        }
        s.push(char::from_digit(v, 16).unwrap_or('0'));
    }
    format!("0x{s}")
}

impl CudaState {
    pub fn new(api: Cudbg) -> CudaState {
        CudaState {
            api,
            modules: Vec::new(),
            kernels: Vec::new(),
            next_kernel: 0,
            breakpoints: Vec::new(),
            devices: Vec::new(),
            warps: Vec::new(),
            focus: None,
            resolved: Vec::new(),
            host_label: "Program".into(),
            faulted: false,
        }
    }

    /// The host thread a device exception is reported to, as gdb names it in `… received
    /// signal`: `Thread 1 "prog"`, or `Program` in a program with one thread.
    pub fn set_host_label(&mut self, label: String) {
        self.host_label = label;
    }

    /// Whether the last device stop was an exception.
    pub fn faulted(&self) -> bool {
        self.faulted
    }

    /// The breakpoints the driver's modules resolved since the last call (id, address), for
    /// a front end that also has them on the host.
    pub fn take_resolved(&mut self) -> Vec<(u32, u64)> {
        std::mem::take(&mut self.resolved)
    }

    /// The line of device address `addr` (file as the cubin names it, line).
    pub fn line_of(&self, addr: u64) -> Option<(String, u32)> {
        self.modules
            .iter()
            .find_map(|m| m.cubin.find_line(addr).map(|(f, l)| (f.to_string(), l)))
    }

    pub fn modules(&self) -> &[Module] {
        &self.modules
    }
    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }
    pub fn warps(&self) -> &[Warp] {
        &self.warps
    }
    pub fn focus(&self) -> Option<Focus> {
        self.focus
    }
    pub fn breakpoints(&self) -> &[DeviceBreakpoint] {
        &self.breakpoints
    }

    /// `break SPEC` in device code: set where the loaded modules resolve it, pending
    /// otherwise (resolved when a module loads). Returns the addresses set.
    pub fn add_breakpoint(&mut self, id: u32, spec: &str) -> Result<Vec<u64>> {
        let mut bp = DeviceBreakpoint {
            id,
            spec: spec.to_string(),
            locations: Vec::new(),
        };
        for m in &self.modules {
            for a in m.cubin.resolve(spec) {
                self.api.set_breakpoint(m.dev, a)?;
                bp.locations.push((m.dev, a));
            }
        }
        let addrs = bp.locations.iter().map(|l| l.1).collect();
        self.breakpoints.push(bp);
        Ok(addrs)
    }

    pub fn delete_breakpoint(&mut self, id: u32) -> Result<()> {
        let Some(i) = self.breakpoints.iter().position(|b| b.id == id) else {
            return Err(CudaError::Focus(format!("No breakpoint number {id}.")));
        };
        let bp = self.breakpoints.remove(i);
        for (dev, a) in bp.locations {
            self.api.unset_breakpoint(dev, a)?;
        }
        Ok(())
    }

    fn module_of(&self, dev: u32, pc: u64) -> Option<&Module> {
        self.modules
            .iter()
            .find(|m| m.dev == dev && m.cubin.function_at(pc).is_some())
    }

    /// Pump and handle every waiting event, acknowledging sync events.
    pub fn handle_events(&mut self) -> Result<Vec<Note>> {
        let mut notes = Vec::new();
        loop {
            let events = self.api.next_events()?;
            if events.is_empty() {
                break;
            }
            let sync = events.iter().any(|(sync, _)| *sync);
            for (_, ev) in events {
                match ev {
                    Event::ElfImageLoaded {
                        dev, handle, size, ..
                    } => {
                        let image = self.api.elf_image(dev, handle, size)?;
                        let cubin = Cubin::parse(&image)?;
                        let kernels = cubin
                            .functions()
                            .iter()
                            .filter(|f| f.entry)
                            .map(|f| f.name.clone())
                            .collect();
                        for bp in &mut self.breakpoints {
                            for a in cubin.resolve(&bp.spec) {
                                if !bp.locations.contains(&(dev, a)) {
                                    self.api.set_breakpoint(dev, a)?;
                                    bp.locations.push((dev, a));
                                    notes.push(Note::BreakpointResolved { id: bp.id, addr: a });
                                    self.resolved.push((bp.id, a));
                                }
                            }
                        }
                        self.modules.push(Module { dev, handle, cubin });
                        notes.push(Note::ModuleLoaded { handle, kernels });
                    }
                    Event::KernelReady {
                        dev,
                        grid_id,
                        function_entry,
                        grid_dim,
                        block_dim,
                        ..
                    } => {
                        let name = self
                            .module_of(dev, function_entry)
                            .and_then(|m| m.cubin.function_at(function_entry))
                            .map_or_else(|| format!("{function_entry:#x}"), |f| f.name.clone());
                        let id = self.next_kernel;
                        self.next_kernel += 1;
                        self.kernels.push(Kernel {
                            id,
                            dev,
                            grid_id,
                            name: name.clone(),
                            entry: function_entry,
                            grid_dim,
                            block_dim,
                            invocation: None,
                        });
                        notes.push(Note::KernelLaunched { id, name });
                    }
                    Event::KernelFinished { dev, grid_id, .. } => {
                        if let Some(i) = self
                            .kernels
                            .iter()
                            .position(|k| k.dev == dev && k.grid_id == grid_id)
                        {
                            let k = self.kernels.remove(i);
                            notes.push(Note::KernelFinished { id: k.id });
                        }
                        self.warps
                            .retain(|w| !(w.dev == dev && w.grid_id == grid_id));
                    }
                    Event::AllDevicesSuspended { .. } => {
                        let text = self.stopped()?;
                        notes.push(Note::Stopped { text });
                    }
                    Event::InternalError(e) => notes.push(Note::InternalError(e)),
                    Event::Other(_) => {}
                }
            }
            if sync {
                self.api.acknowledge_sync_events()?;
            }
        }
        Ok(notes)
    }

    /// Read every device's valid warps.
    pub fn refresh(&mut self) -> Result<()> {
        if self.devices.is_empty() {
            for d in 0..self.api.num_devices()? {
                self.devices.push(self.api.device(d)?);
            }
        }
        let mut warps = Vec::new();
        for d in &self.devices {
            for sm in 0..d.num_sms {
                let valid = self.api.warps_mask(d.dev, sm, false)?;
                if valid == 0 {
                    continue;
                }
                let broken = self.api.warps_mask(d.dev, sm, true)?;
                for wp in 0..d.warps_per_sm.min(64) {
                    if valid & (1 << wp) != 0 {
                        warps.push(self.api.warp(d.dev, sm, wp, broken & (1 << wp) != 0)?);
                    }
                }
            }
        }
        self.warps = warps;
        Ok(())
    }

    /// `name(arg=value, ...)` for kernels that have none yet, the arguments read in the first
    /// valid lane of each.
    fn fill_invocations(&mut self) {
        let saved = self.focus;
        for i in 0..self.kernels.len() {
            if self.kernels[i].invocation.is_some() {
                continue;
            }
            let k = self.kernels[i].clone();
            let Some(w) = self
                .warps
                .iter()
                .find(|w| w.dev == k.dev && w.grid_id == k.grid_id)
            else {
                continue;
            };
            let Some(l) = w.lanes.first() else { continue };
            self.focus = Some(Focus {
                dev: w.dev,
                sm: w.sm,
                wp: w.wp,
                ln: l.ln,
            });
            self.kernels[i].invocation =
                Some(format!("{}({})", k.name, self.args_of(&k).join(", ")));
        }
        self.focus = saved;
    }

    fn lane_valid(&self, f: Focus) -> bool {
        self.warps.iter().any(|w| {
            w.dev == f.dev && w.sm == f.sm && w.wp == f.wp && w.lanes.iter().any(|l| l.ln == f.ln)
        })
    }

    fn warp_of(&self, f: Focus) -> Option<&Warp> {
        self.warps
            .iter()
            .find(|w| w.dev == f.dev && w.sm == f.sm && w.wp == f.wp)
    }

    fn kernel_of(&self, w: &Warp) -> Option<&Kernel> {
        self.kernels
            .iter()
            .find(|k| k.dev == w.dev && k.grid_id == w.grid_id)
    }

    /// After a stop: keep the focus if its thread still lives, else move it to the first
    /// broken lane (or any valid one), as cuda-gdb does. Returns the report.
    fn stopped(&mut self) -> Result<String> {
        self.refresh()?;
        let mut out = String::new();
        // A device exception: reported with the faulting thread, which gets the focus.
        let fault = self.warps.iter().find_map(|w| {
            w.lanes.iter().find(|l| l.exception != 0).map(|l| {
                let f = Focus {
                    dev: w.dev,
                    sm: w.sm,
                    wp: w.wp,
                    ln: l.ln,
                };
                (f, l.exception, l.pc)
            })
        });
        if let Some((f, code, pc)) = fault {
            self.fill_invocations();
            self.focus = Some(f);
            self.faulted = true;
            // Where the faulting instruction is (the warp's pc is past it), as cuda-gdb says.
            let epc = self
                .api
                .error_pc(f.dev, f.sm, f.wp)
                .ok()
                .flatten()
                .unwrap_or(pc);
            let (file, line) = self.source_of(f.dev, epc);
            let func = self
                .module_of(f.dev, epc)
                .and_then(|m| m.cubin.function_at(epc))
                .map_or_else(|| "??".to_string(), |x| x.name.clone());
            let name = crate::cudbg::exception_name(code);
            out.push_str(&format!(
                "\nCUDA Exception: {name}\nThe exception was triggered at PC {epc:#x}  {func}  ({file}:{line})\n\n\
                 {} received signal CUDA_EXCEPTION_{code}, {name}.\n[Switching focus to {}]\n",
                self.host_label,
                self.describe_focus()?
            ));
            out.push_str(&self.frame_line(f, pc)?);
            out.push_str(&self.source_line(f.dev, pc));
            return Ok(out);
        }
        let keep = self.focus.is_some_and(|f| self.lane_valid(f));
        if !keep {
            let pick = self
                .warps
                .iter()
                .find(|w| w.broken)
                .or(self.warps.first())
                .and_then(|w| {
                    w.lanes.first().map(|l| Focus {
                        dev: w.dev,
                        sm: w.sm,
                        wp: w.wp,
                        ln: l.ln,
                    })
                });
            self.focus = pick;
            if pick.is_some() {
                out.push_str(&format!(
                    "[Switching focus to {}]\n",
                    self.describe_focus()?
                ));
            }
        }
        self.fill_invocations();
        if let Some(f) = self.focus {
            let pc = self.focus_pc()?;
            let bps: Vec<u32> = self
                .breakpoints
                .iter()
                .filter(|b| b.locations.contains(&(f.dev, pc)))
                .map(|b| b.id)
                .collect();
            let w = self.warp_of(f).cloned();
            let k = w.as_ref().and_then(|w| self.kernel_of(w)).cloned();
            if let (Some(id), Some(k)) = (bps.first(), k) {
                let (file, line) = self.source_of(f.dev, pc);
                out.push('\n');
                out.push_str(&format!(
                    "CUDA thread hit Breakpoint {id}, {}<<<{},{}>>> ({}) at {file}:{line}\n",
                    k.name,
                    k.grid_dim,
                    k.block_dim,
                    self.args_of(&k).join(", ")
                ));
                out.push_str(&self.source_line(f.dev, pc));
            }
        }
        Ok(out)
    }

    fn source_of(&self, dev: u32, pc: u64) -> (String, u32) {
        self.module_of(dev, pc)
            .and_then(|m| m.cubin.find_line(pc))
            .map_or_else(|| ("??".into(), 0), |(f, l)| (f.to_string(), l))
    }

    /// `LINE\tTEXT` of the source at `pc`, as gdb prints a frame's line.
    fn source_line(&self, dev: u32, pc: u64) -> String {
        let Some(m) = self.module_of(dev, pc) else {
            return String::new();
        };
        let line = m.cubin.find_line(pc).map(|(_, l)| l);
        let Some(row) = m
            .cubin
            .line_rows()
            .iter()
            .rev()
            .find(|r| !r.end_sequence && r.addr <= pc && Some(r.line) == line)
        else {
            return String::new();
        };
        match std::fs::read_to_string(&row.path) {
            Ok(text) => {
                let l = (row.line as usize)
                    .checked_sub(1)
                    .and_then(|i| text.lines().nth(i))
                    .unwrap_or("");
                format!("{}\t{l}\n", row.line)
            }
            Err(e) => format!("{}\t{}: {e}.\n", row.line, row.path),
        }
    }

    fn focus_pc(&self) -> Result<u64> {
        let f = self.focus.ok_or_else(no_focus)?;
        self.warp_of(f)
            .and_then(|w| w.lanes.iter().find(|l| l.ln == f.ln))
            .map(|l| l.pc)
            .ok_or_else(no_focus)
    }

    /// `kernel K, grid G, block (x,y,z), thread (x,y,z), device D, sm S, warp W, lane L`.
    pub fn describe_focus(&self) -> Result<String> {
        let f = self.focus.ok_or_else(no_focus)?;
        let w = self.warp_of(f).ok_or_else(no_focus)?;
        let l = w.lanes.iter().find(|l| l.ln == f.ln).ok_or_else(no_focus)?;
        let k = self
            .kernel_of(w)
            .map_or_else(|| "?".to_string(), |k| k.id.to_string());
        Ok(format!(
            "CUDA kernel {k}, grid {}, block {}, thread {}, device {}, sm {}, warp {}, lane {}",
            w.grid_id, w.block, l.thread, f.dev, f.sm, f.wp, f.ln
        ))
    }

    /// `cuda kernel K block (x,y,z) thread (x,y,z)` (any part may be left out: it keeps the
    /// focus's value, or the first when the kernel changes).
    pub fn focus_logical(
        &mut self,
        kernel: Option<u32>,
        block: Option<CuDim3>,
        thread: Option<CuDim3>,
    ) -> Result<String> {
        let cur = self.focus.and_then(|f| {
            let w = self.warp_of(f)?;
            let l = w.lanes.iter().find(|l| l.ln == f.ln)?;
            Some((self.kernel_of(w)?.id, w.block, l.thread))
        });
        let same_kernel = kernel.is_none() || kernel == cur.map(|c| c.0);
        let want_kernel = kernel.or(cur.map(|c| c.0));
        let want_block = block.or(if same_kernel { cur.map(|c| c.1) } else { None });
        let want_thread = thread.or(if same_kernel && block.is_none() {
            cur.map(|c| c.2)
        } else {
            None
        });
        let mut found = None;
        for w in &self.warps {
            let Some(k) = self.kernel_of(w) else { continue };
            if want_kernel.is_some_and(|id| id != k.id) || want_block.is_some_and(|b| b != w.block)
            {
                continue;
            }
            if let Some(l) = w
                .lanes
                .iter()
                .find(|l| want_thread.is_none_or(|t| t == l.thread))
            {
                found = Some(Focus {
                    dev: w.dev,
                    sm: w.sm,
                    wp: w.wp,
                    ln: l.ln,
                });
                break;
            }
        }
        self.switch(found)
    }

    /// `cuda device D sm S warp W lane L` (parts left out keep the focus's value).
    pub fn focus_physical(
        &mut self,
        dev: Option<u32>,
        sm: Option<u32>,
        wp: Option<u32>,
        ln: Option<u32>,
    ) -> Result<String> {
        let cur = self.focus;
        let f = Focus {
            dev: dev.or(cur.map(|c| c.dev)).unwrap_or(0),
            sm: sm.or(cur.map(|c| c.sm)).unwrap_or(0),
            wp: wp.or(cur.map(|c| c.wp)).unwrap_or(0),
            ln: ln.or(cur.map(|c| c.ln)).unwrap_or(0),
        };
        let found = self.lane_valid(f).then_some(f);
        self.switch(found)
    }

    fn switch(&mut self, to: Option<Focus>) -> Result<String> {
        let Some(f) = to else {
            return Err(CudaError::Focus(
                "Request cannot be satisfied. CUDA focus unchanged.".into(),
            ));
        };
        self.focus = Some(f);
        let pc = self.focus_pc()?;
        Ok(format!(
            "[Switching focus to {}]\n{}",
            self.describe_focus()?,
            self.source_line(f.dev, pc)
        ))
    }

    /// One line of GPU state that is the same on every rank in the same state, for the agent
    /// tree's merging (`[0-180] 2 devices sm_90, ...`): the devices, then each kernel with its
    /// launch configuration and where its valid threads are (file:line, or `running`).
    pub fn summary(&self) -> String {
        let mut types: Vec<&str> = self.devices.iter().map(|d| d.sm_type.as_str()).collect();
        types.sort_unstable();
        types.dedup();
        let n = self.devices.len();
        // The devices are read at the first device stop.
        let mut s = if n == 0 {
            "CUDA initialised".to_string()
        } else {
            format!(
                "{n} device{} {}",
                if n == 1 { "" } else { "s" },
                types.join("/")
            )
        };
        for k in &self.kernels {
            let mut places: Vec<String> = self
                .warps
                .iter()
                .filter(|w| w.dev == k.dev && w.grid_id == k.grid_id)
                .flat_map(|w| w.lanes.iter().map(move |l| (w.dev, l.pc)))
                .map(|(d, pc)| {
                    let (f, l) = self.source_of(d, pc);
                    format!("{f}:{l}")
                })
                .collect();
            places.sort();
            places.dedup();
            let at = if places.is_empty() {
                "running".to_string()
            } else {
                format!("at {}", places.join(" "))
            };
            s.push_str(&format!(
                ", kernel {} {}<<<{},{}>>> {at}",
                k.id, k.name, k.grid_dim, k.block_dim
            ));
        }
        s
    }

    // ------------------------------------------------------------ tables

    /// `info cuda devices`.
    pub fn info_devices(&self) -> String {
        if self.devices.is_empty() {
            return "No CUDA devices.\n".into();
        }
        let headers = [
            " ",
            "Dev",
            "PCI Bus/Dev ID",
            "Name",
            "Description",
            "SM Type",
            "SMs",
            "Warps/SM",
            "Lanes/Warp",
            "Max Regs/Lane",
            "Active SMs Mask",
        ];
        let rows: Vec<Vec<String>> = self
            .devices
            .iter()
            .map(|d| {
                let active: Vec<bool> = (0..d.num_sms)
                    .map(|sm| self.warps.iter().any(|w| w.dev == d.dev && w.sm == sm))
                    .collect();
                vec![
                    if self.focus.is_some_and(|f| f.dev == d.dev) {
                        "*".into()
                    } else {
                        " ".into()
                    },
                    d.dev.to_string(),
                    format!("{:02x}:{:02x}.0", d.pci_bus, d.pci_dev),
                    d.name.clone(),
                    d.description.clone(),
                    d.sm_type.clone(),
                    d.num_sms.to_string(),
                    d.warps_per_sm.to_string(),
                    d.lanes_per_warp.to_string(),
                    d.regs_per_lane.to_string(),
                    sm_mask(&active),
                ]
            })
            .collect();
        let t = Table::new(&headers, &rows, false);
        let mut s = t.line(&headers.map(String::from));
        for r in &rows {
            s.push_str(&t.line(r));
        }
        s
    }

    /// `info cuda kernels`.
    pub fn info_kernels(&self) -> String {
        if self.kernels.is_empty() {
            return "No CUDA kernels.\n".into();
        }
        let headers = [
            " ",
            "Kernel",
            "Parent",
            "Dev",
            "Grid",
            "Status",
            "SMs Mask",
            "GridDim",
            "BlockDim",
            "Invocation",
        ];
        let focus_kernel = self
            .focus
            .and_then(|f| self.warp_of(f))
            .and_then(|w| self.kernel_of(w))
            .map(|k| k.id);
        let rows: Vec<Vec<String>> = self
            .kernels
            .iter()
            .map(|k| {
                let sms = self
                    .devices
                    .iter()
                    .find(|d| d.dev == k.dev)
                    .map_or(0, |d| d.num_sms);
                let active: Vec<bool> = (0..sms)
                    .map(|sm| {
                        self.warps
                            .iter()
                            .any(|w| w.dev == k.dev && w.grid_id == k.grid_id && w.sm == sm)
                    })
                    .collect();
                vec![
                    if focus_kernel == Some(k.id) { "*" } else { " " }.into(),
                    k.id.to_string(),
                    "-".into(),
                    k.dev.to_string(),
                    k.grid_id.to_string(),
                    "Active".into(),
                    sm_mask(&active),
                    k.grid_dim.to_string(),
                    k.block_dim.to_string(),
                    k.invocation
                        .clone()
                        .unwrap_or_else(|| format!("{}()", k.name)),
                ]
            })
            .collect();
        let t = Table::new(&headers, &rows, true);
        let mut s = t.line(&headers.map(String::from));
        for r in &rows {
            s.push_str(&t.line(r));
        }
        s
    }

    /// Valid threads in logical order: (kernel, block, thread, pc, focus?).
    fn threads(&self) -> Vec<(u32, CuDim3, CuDim3, u64, bool)> {
        let mut v = Vec::new();
        for w in &self.warps {
            let Some(k) = self.kernel_of(w) else { continue };
            for l in &w.lanes {
                let cur = self.focus
                    == Some(Focus {
                        dev: w.dev,
                        sm: w.sm,
                        wp: w.wp,
                        ln: l.ln,
                    });
                v.push((k.id, w.block, l.thread, l.pc, cur));
            }
        }
        let key = |d: CuDim3| (d.z, d.y, d.x);
        v.sort_by_key(|t| (t.0, key(t.1), key(t.2)));
        v
    }

    /// `info cuda blocks`: the focus's kernel, contiguous blocks coalesced.
    pub fn info_blocks(&self) -> String {
        let threads = self.threads();
        let kernel = self
            .focus
            .and_then(|f| self.warp_of(f))
            .and_then(|w| self.kernel_of(w))
            .map(|k| k.id);
        let mut blocks: BTreeMap<(u32, u32, u32), (CuDim3, bool)> = BTreeMap::new();
        for t in threads.iter().filter(|t| Some(t.0) == kernel) {
            let e = blocks.entry((t.1.z, t.1.y, t.1.x)).or_insert((t.1, false));
            e.1 |= t.4;
        }
        if blocks.is_empty() {
            return "No CUDA blocks.\n".into();
        }
        let grid = self
            .kernels
            .iter()
            .find(|k| Some(k.id) == kernel)
            .map_or(CuDim3::new(1, 1, 1), |k| k.grid_dim);
        // Ranges of consecutive blocks (x fastest).
        let mut ranges: Vec<(CuDim3, CuDim3, u32, bool)> = Vec::new();
        for (b, cur) in blocks.values() {
            if let Some(r) = ranges.last_mut()
                && next_dim(r.1, grid) == Some(*b)
            {
                r.1 = *b;
                r.2 += 1;
                r.3 |= cur;
                continue;
            }
            ranges.push((*b, *b, 1, *cur));
        }
        let headers = [" ", "BlockIdx", "To BlockIdx", "Count", "State"];
        let rows: Vec<Vec<String>> = ranges
            .iter()
            .map(|r| {
                vec![
                    if r.3 { "*" } else { " " }.into(),
                    r.0.to_string(),
                    r.1.to_string(),
                    r.2.to_string(),
                    "running".into(),
                ]
            })
            .collect();
        let t = Table::new(&headers, &rows, false);
        let mut s = t.line(&headers.map(String::from));
        s.push_str(&format!("Kernel {}\n", kernel.unwrap_or(0)));
        for r in &rows {
            s.push_str(&t.line(r));
        }
        s
    }

    /// `info cuda threads`: the focus's kernel, runs of consecutive threads at one PC
    /// coalesced.
    pub fn info_threads(&self) -> String {
        let kernel = self
            .focus
            .and_then(|f| self.warp_of(f))
            .and_then(|w| self.kernel_of(w))
            .cloned();
        let Some(kernel) = kernel else {
            return "No CUDA threads.\n".into();
        };
        let threads: Vec<_> = self
            .threads()
            .into_iter()
            .filter(|t| t.0 == kernel.id)
            .collect();
        let mut ranges: Vec<(CuDim3, CuDim3, CuDim3, CuDim3, u32, u64, bool)> = Vec::new();
        for t in &threads {
            if let Some(r) = ranges.last_mut()
                && r.5 == t.3
                && next_thread(r.2, r.3, kernel.grid_dim, kernel.block_dim) == Some((t.1, t.2))
            {
                r.2 = t.1;
                r.3 = t.2;
                r.4 += 1;
                r.6 |= t.4;
                continue;
            }
            ranges.push((t.1, t.2, t.1, t.2, 1, t.3, t.4));
        }
        let headers = [
            " ",
            "BlockIdx",
            "ThreadIdx",
            "To BlockIdx",
            "ThreadIdx",
            "Count",
            "PC",
            "Filename",
            "Line",
        ];
        let rows: Vec<Vec<String>> = ranges
            .iter()
            .map(|r| {
                let (file, line) = self.source_of(kernel.dev, r.5);
                vec![
                    if r.6 { "*" } else { " " }.into(),
                    r.0.to_string(),
                    r.1.to_string(),
                    r.2.to_string(),
                    r.3.to_string(),
                    r.4.to_string(),
                    hex16(r.5),
                    file,
                    line.to_string(),
                ]
            })
            .collect();
        let mut t = Table::new(&headers, &rows, false);
        t.widths[8] = t.widths[8].max(5);
        let mut s = t.line(&headers.map(String::from));
        s.push_str(&format!("Kernel {}\n", kernel.id));
        for r in &rows {
            s.push_str(&t.line(r));
        }
        s
    }

    // ------------------------------------------------------------ variables

    fn focus_function(&self) -> Result<(&Module, String, u64, u64)> {
        let f = self.focus.ok_or_else(no_focus)?;
        let pc = self.focus_pc()?;
        let m = self
            .module_of(f.dev, pc)
            .ok_or_else(|| CudaError::Focus(format!("no module holds {pc:#x}")))?;
        let func = m
            .cubin
            .function_at(pc)
            .ok_or_else(|| CudaError::Focus(format!("no function at {pc:#x}")))?;
        Ok((m, func.name.clone(), func.addr, pc))
    }

    fn lookup_variable(&self, name: &str) -> Result<Variable> {
        let (m, func, _, pc) = self.focus_function()?;
        let vars = m.cubin.variables(&func)?;
        // Innermost first: the last declaration whose block holds the pc.
        if let Some(v) = vars
            .iter()
            .rev()
            .find(|v| v.name == name && v.block.is_none_or(|(lo, hi)| lo <= pc && pc < hi))
        {
            return Ok(v.clone());
        }
        m.cubin
            .globals()?
            .into_iter()
            .find(|v| v.name == name)
            .ok_or_else(|| CudaError::Focus(format!("No symbol \"{name}\" in current context.")))
    }

    /// The bytes of a variable of the focused thread.
    fn variable_bytes(&self, v: &Variable) -> Result<Vec<u8>> {
        let f = self.focus.ok_or_else(no_focus)?;
        let (m, func, faddr, pc) = self.focus_function()?;
        let size = v.byte_size.unwrap_or(4) as usize;
        let mut loc = v.location.clone();
        if let Location::List(entries) = &loc {
            loc = entries
                .iter()
                .find(|(lo, hi, _)| *lo <= pc && pc < *hi)
                .map(|e| e.2.clone())
                .unwrap_or(Location::None);
        }
        let at = (f.dev, f.sm, f.wp, f.ln);
        match loc {
            Location::PtxRegister(reg) => {
                let parts = m.cubin.register_map().lookup(&func, &reg, pc - faddr);
                if parts.is_empty() {
                    return Err(CudaError::Focus("<optimized out>".into()));
                }
                let mut bytes = Vec::new();
                for p in parts {
                    if p.reg.class != RegClass::Full {
                        return Err(CudaError::Focus(format!(
                            "register {} of class {:?} not readable",
                            p.reg, p.reg.class
                        )));
                    }
                    let val = self.api.read_register(f.dev, f.sm, f.wp, f.ln, p.reg.num)?;
                    bytes.extend_from_slice(&val.to_le_bytes());
                }
                bytes.resize(size, 0);
                Ok(bytes)
            }
            Location::Address(a) => {
                let class = v.address_class.unwrap_or(AddressClass::Global);
                self.api.read_memory(class, at, a, size)
            }
            Location::FrameOffset(o) => {
                let (reg, off) = m
                    .cubin
                    .debug_frame()
                    .cfa_at(pc)
                    .ok_or_else(|| CudaError::Focus(format!("no CFA at {pc:#x}")))?;
                let base = self.api.read_register(f.dev, f.sm, f.wp, f.ln, reg.num)? as u64;
                let addr = (base as i64 + off + o) as u64;
                let class = v.address_class.unwrap_or(AddressClass::Local);
                self.api.read_memory(class, at, addr, size)
            }
            Location::None => Err(CudaError::Focus("<optimized out>".into())),
            Location::List(_) => Err(CudaError::Focus("<optimized out>".into())),
            Location::Unsupported(op) => {
                Err(CudaError::Focus(format!("unsupported location: {op}")))
            }
        }
    }

    /// Print a variable of the focused thread (`NAME` or `NAME[INDEX]`, INDEX a number or a
    /// variable), as gdb prints its value.
    pub fn print(&self, expr: &str) -> Result<String> {
        self.print_as(expr, None)
    }

    /// `print/FMT EXPR`: as [`CudaState::print`], each scalar in gdb's output format `x`,
    /// `z`, `d`, `u`, `o` or `t` (a floating-point value converted to an integer first, as gdb
    /// does).
    pub fn print_as(&self, expr: &str, fmt: Option<char>) -> Result<String> {
        if let Some(f) = fmt
            && !"xzduot".contains(f)
        {
            return Err(CudaError::Focus(if "acfsi".contains(f) {
                format!("Format letter \"{f}\" is not supported for GPU values.")
            } else {
                format!("Undefined output format \"{f}\".")
            }));
        }
        let (t, b) = self.value_of(expr)?;
        Ok(match fmt {
            None => format_value(&t, &b),
            Some(f) => match element_type(&t) {
                Some(elem) => {
                    let es = (type_size(&elem) as usize).max(1);
                    let items: Vec<String> =
                        b.chunks(es).map(|c| format_integer(&elem, c, f)).collect();
                    format!("{{{}}}", items.join(", "))
                }
                None => format_integer(&t, &b, f),
            },
        })
    }

    /// The type and bytes of `NAME` or `NAME[INDEX]` in the focused thread.
    fn value_of(&self, expr: &str) -> Result<(String, Vec<u8>)> {
        let expr = expr.trim();
        if let Some((name, rest)) = expr.split_once('[') {
            let idx_text = rest
                .strip_suffix(']')
                .ok_or_else(|| {
                    CudaError::Focus(format!("A syntax error in expression, near `{rest}'."))
                })?
                .trim();
            let index: u64 = match idx_text.parse() {
                Ok(n) => n,
                Err(_) => {
                    let iv = self.lookup_variable(idx_text)?;
                    let b = self.variable_bytes(&iv)?;
                    le_u64(&b) as u64
                }
            };
            let v = self.lookup_variable(name.trim())?;
            let elem = element_type(&v.type_name)
                .ok_or_else(|| CudaError::Focus("cannot subscript something of type".into()))?;
            let esize = type_size(&elem);
            let (count, _) = array_len(&v.type_name);
            if index >= count {
                return Err(CudaError::Focus(format!("no such vector element {index}")));
            }
            let mut elem_var = v.clone();
            elem_var.byte_size = Some(esize);
            elem_var.type_name = elem.clone();
            elem_var.location = match v.location {
                Location::Address(a) => Location::Address(a + index * esize),
                Location::FrameOffset(o) => Location::FrameOffset(o + (index * esize) as i64),
                other => other,
            };
            let b = self.variable_bytes(&elem_var)?;
            return Ok((elem, b));
        }
        let v = self.lookup_variable(expr)?;
        let b = self.variable_bytes(&v)?;
        Ok((v.type_name, b))
    }

    /// `info locals` of the focused thread: the locals of the blocks holding its pc, innermost
    /// block first and in declaration order within one, `NAME = VALUE` each; a value that
    /// cannot be read says why in its place.
    pub fn info_locals(&self) -> Result<String> {
        self.info_variables(VarKind::Local, "No locals.\n")
    }

    /// `info args` of the focused thread's function.
    pub fn info_args(&self) -> Result<String> {
        self.info_variables(VarKind::Parameter, "No arguments.\n")
    }

    fn info_variables(&self, kind: VarKind, none: &str) -> Result<String> {
        let (m, func, _, pc) = self.focus_function()?;
        let vars = m.cubin.variables(&func)?;
        let mut visible: Vec<&Variable> = vars
            .iter()
            .filter(|v| v.kind == kind && v.block.is_none_or(|(lo, hi)| lo <= pc && pc < hi))
            .collect();
        // A nested block is smaller than the one around it; the sort keeps DWARF order.
        visible.sort_by_key(|v| v.block.map_or(u64::MAX, |(lo, hi)| hi - lo));
        if visible.is_empty() {
            return Ok(none.to_string());
        }
        let mut out = String::new();
        for v in visible {
            let value = match self.variable_bytes(v) {
                // gdb shows pointers bare here (no `(TYPE *)` as `print` does).
                Ok(b) if is_pointer(&v.type_name) => format!("0x{:x}", le_u64(&b)),
                Ok(b) => format_value(&v.type_name, &b),
                Err(CudaError::Focus(m)) if m.starts_with('<') => m,
                Err(e) => format!("<error: {e}>"),
            };
            out.push_str(&format!("{} = {value}\n", v.name));
        }
        Ok(out)
    }

    fn args_of(&self, k: &Kernel) -> Vec<String> {
        let Some(m) = self
            .modules
            .iter()
            .find(|m| m.dev == k.dev && m.cubin.function_at(k.entry).is_some())
        else {
            return Vec::new();
        };
        let Ok(vars) = m.cubin.variables(&k.name) else {
            return Vec::new();
        };
        vars.iter()
            .filter(|v| v.kind == VarKind::Parameter)
            .map(|v| match self.variable_bytes(v) {
                // Frame lines show pointers bare, as gdb does.
                Ok(b) if is_pointer(&v.type_name) => format!("{}=0x{:x}", v.name, le_u64(&b)),
                Ok(b) => format!("{}={}", v.name, format_scalar(&v.type_name, &b)),
                Err(e) => format!("{}=<error: {e}>", v.name),
            })
            .collect()
    }

    /// `backtrace` of the focused thread: its PC, then the return addresses of its device
    /// call stack; the kernel's frame with its launch configuration and arguments.
    /// gdb's line for a stopped frame: `0x… in ` when the pc is inside a line, the function
    /// (a kernel with its launch and arguments), `at FILE:LINE`.
    fn frame_line(&self, f: Focus, pc: u64) -> Result<String> {
        let w = self.warp_of(f).ok_or_else(no_focus)?;
        let func = self
            .module_of(f.dev, pc)
            .and_then(|m| m.cubin.function_at(pc))
            .map_or_else(|| "??".to_string(), |x| x.name.clone());
        let name = match self.kernel_of(w) {
            Some(k) if k.name == func => format!(
                "{func}<<<{},{}>>> ({})",
                k.grid_dim,
                k.block_dim,
                self.args_of(k).join(", ")
            ),
            _ => format!("{func} ()"),
        };
        let (file, line) = self.source_of(f.dev, pc);
        let at = if self.at_line_start(f.dev, pc) {
            String::new()
        } else {
            format!("{} in ", hex16(pc))
        };
        Ok(format!("{at}{name} at {file}:{line}\n"))
    }

    pub fn backtrace(&self) -> Result<String> {
        let f = self.focus.ok_or_else(no_focus)?;
        let mut pcs = vec![self.focus_pc()?];
        pcs.extend(self.api.return_addresses(f.dev, f.sm, f.wp, f.ln)?);
        let w = self.warp_of(f).ok_or_else(no_focus)?;
        let k = self.kernel_of(w);
        let mut out = String::new();
        for (i, pc) in pcs.iter().enumerate() {
            let func = self
                .module_of(f.dev, *pc)
                .and_then(|m| m.cubin.function_at(*pc))
                .map_or_else(|| "??".to_string(), |x| x.name.clone());
            let (file, line) = self.source_of(f.dev, *pc);
            let name = match k {
                Some(k) if k.name == func => format!(
                    "{func}<<<{},{}>>> ({})",
                    k.grid_dim,
                    k.block_dim,
                    self.args_of(k).join(", ")
                ),
                _ => format!("{func} ()"),
            };
            if i == 0 {
                out.push_str(&format!("#{i}  {name} at {file}:{line}\n"));
            } else {
                out.push_str(&format!(
                    "#{i}  {} in {name} at {file}:{line}\n",
                    hex16(*pc)
                ));
            }
        }
        Ok(out)
    }

    /// Step the focused warp one instruction and re-read the state.
    pub fn step_warp(&mut self) -> Result<String> {
        let f = self.focus.ok_or_else(no_focus)?;
        self.api.single_step_warp(f.dev, f.sm, f.wp, f.ln)?;
        self.refresh()?;
        if !self.lane_valid(f) {
            self.focus = None;
            return self.stopped();
        }
        let pc = self.focus_pc()?;
        // gdb's `stepi`: the address before the line when the pc is inside it.
        if self.at_line_start(f.dev, pc) {
            Ok(self.source_line(f.dev, pc))
        } else {
            Ok(format!("{}\t{}", hex16(pc), self.source_line(f.dev, pc)))
        }
    }

    /// Whether `pc` begins a row of its module's line table.
    fn at_line_start(&self, dev: u32, pc: u64) -> bool {
        self.module_of(dev, pc).is_some_and(|m| {
            m.cubin
                .line_rows()
                .iter()
                .any(|r| !r.end_sequence && r.addr == pc)
        })
    }

    /// `next`/`step` in device code: step the focused warp until the focused thread is on
    /// another source line (or its warp has exited), as cuda-gdb steps a warp by line.
    pub fn step_line(&mut self) -> Result<String> {
        let f = self.focus.ok_or_else(no_focus)?;
        let start_pc = self.focus_pc()?;
        let start = self.source_of(f.dev, start_pc);
        for _ in 0..100_000 {
            self.api.single_step_warp(f.dev, f.sm, f.wp, f.ln)?;
            self.refresh()?;
            if !self.lane_valid(f) {
                self.focus = None;
                return self.stopped();
            }
            let pc = self.focus_pc()?;
            let now = self.source_of(f.dev, pc);
            if now != start && now.1 != 0 {
                return Ok(self.source_line(f.dev, pc));
            }
        }
        Err(CudaError::Focus(
            "the warp did not leave the line in 100000 steps".into(),
        ))
    }

    /// Resume every device.
    pub fn resume(&mut self) -> Result<()> {
        self.faulted = false;
        for d in 0..self.devices.len().max(1) as u32 {
            self.api.resume_device(d)?;
        }
        Ok(())
    }
}

fn no_focus() -> CudaError {
    CudaError::Focus("Focus not set on any active CUDA kernel.".into())
}

fn next_dim(d: CuDim3, limit: CuDim3) -> Option<CuDim3> {
    let mut n = d;
    n.x += 1;
    if n.x >= limit.x {
        n.x = 0;
        n.y += 1;
        if n.y >= limit.y {
            n.y = 0;
            n.z += 1;
            if n.z >= limit.z {
                return None;
            }
        }
    }
    Some(n)
}

fn next_thread(b: CuDim3, t: CuDim3, grid: CuDim3, block: CuDim3) -> Option<(CuDim3, CuDim3)> {
    match next_dim(t, block) {
        Some(nt) => Some((b, nt)),
        None => next_dim(b, grid).map(|nb| (nb, CuDim3::new(0, 0, 0))),
    }
}

fn array_len(t: &str) -> (u64, String) {
    if let Some(i) = t.find(" [") {
        let dims = &t[i + 1..];
        let n = dims
            .trim_start_matches('[')
            .split(']')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        return (n, t[..i].to_string());
    }
    (0, t.to_string())
}

fn element_type(t: &str) -> Option<String> {
    t.find(" [").map(|i| t[..i].to_string())
}

/// A pointer type's name: `int *`, or with NVIDIA's address space, `int * @generic`.
fn is_pointer(t: &str) -> bool {
    t.ends_with('*') || t.contains(" * @")
}

fn type_size(t: &str) -> u64 {
    if is_pointer(t) {
        return 8;
    }
    match t.trim_start_matches("const ") {
        "char" | "signed char" | "unsigned char" | "bool" => 1,
        "short" | "unsigned short" => 2,
        "long" | "unsigned long" | "long long" | "unsigned long long" | "double" => 8,
        _ => 4,
    }
}

fn le_u64(b: &[u8]) -> i64 {
    let mut a = [0u8; 8];
    let n = b.len().min(8);
    a[..n].copy_from_slice(&b[..n]);
    i64::from_le_bytes(a)
}

/// A value of type `t` (a scalar or an array of scalars) as gdb prints it.
fn format_value(t: &str, b: &[u8]) -> String {
    if let Some(elem) = element_type(t) {
        let es = (type_size(&elem) as usize).max(1);
        let items: Vec<String> = b.chunks(es).map(|c| format_scalar(&elem, c)).collect();
        return format!("{{{}}}", items.join(", "));
    }
    format_scalar(t, b)
}

/// A scalar of type `t` in gdb's integer output format `f` (`x`, `z`, `d`, `u`, `o`, `t`).
fn format_integer(t: &str, b: &[u8], f: char) -> String {
    let t = t.trim_start_matches("const ");
    let n = b.len().min(8);
    let bits = (n * 8) as u32;
    let raw = match t {
        "float" if b.len() >= 4 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64 as u64,
        "double" if b.len() >= 8 => f64::from_bits(le_u64(b) as u64) as i64 as u64,
        _ => le_u64(b) as u64,
    };
    let raw = if bits > 0 && bits < 64 {
        raw & ((1u64 << bits) - 1)
    } else {
        raw
    };
    match f {
        'x' => format!("0x{raw:x}"),
        'z' => format!("0x{raw:0w$x}", w = n * 2),
        'o' if raw == 0 => "0".into(),
        'o' => format!("0{raw:o}"),
        't' => format!("{raw:b}"),
        'u' => raw.to_string(),
        _ if bits > 0 && bits < 64 => (((raw << (64 - bits)) as i64) >> (64 - bits)).to_string(),
        _ => (raw as i64).to_string(),
    }
}

/// A scalar as gdb prints it.
fn format_scalar(t: &str, b: &[u8]) -> String {
    let t = t.trim_start_matches("const ");
    if is_pointer(t) {
        return format!("({t}) 0x{:x}", le_u64(b) as u64);
    }
    match t {
        "float" if b.len() >= 4 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string(),
        "double" if b.len() >= 8 => f64::from_bits(le_u64(b) as u64).to_string(),
        "int" | "short" | "long" | "long long" | "char" | "signed char" => {
            let v = le_u64(b);
            let bits = (b.len().min(8) * 8) as u32;
            let v = if bits < 64 {
                (v << (64 - bits)) >> (64 - bits)
            } else {
                v
            };
            v.to_string()
        }
        _ => (le_u64(b) as u64).to_string(),
    }
}
