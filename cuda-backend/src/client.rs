//! The client of the driver's debugger API: loading `cudbgGetAPI` from a library, the version
//! check, the handshake with the debuggee, the event pump, and typed calls for device state,
//! memory by address class, breakpoints, stepping and resuming.
//!
//! The handshake is the one NVIDIA's debuggers perform: the debuggee is stopped at the
//! driver's initialisation point (`cuInit`), the debugger writes `cudbgIpcFlag`,
//! `cudbgApiClientPid`, `cudbgApiClientRevision`, `cudbgSessionId` and the capability flags
//! into it (through the engine's memory writes), writes the same pid, revision and session
//! into its own copy of the library, gets the table with `cudbgGetAPI`, and calls
//! `initialize`. The driver then announces events through a callback, which only wakes the
//! engine's loop: it sends [`WAKE_SIGNAL`] to the debuggee, so the engine's wait returns; the
//! engine loop then pumps `getNextEvent` and answers sync events with
//! `acknowledgeSyncEvents`.

use std::ffi::{c_char, c_void};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use crate::cudbg::{self, ApiTable, CuDim3, Event, RawEvent};
use crate::error::{CudaError, Result};

/// The signal the notification callback sends to the debuggee to end the engine's wait:
/// SIGURG, whose default action is to be ignored, so a wake-up that reaches the program does
/// no harm. A SIGURG that
/// comes while no event is pending is the program's own and is passed on. The engine must stop
/// on it ([`prepare_signals`]); the stop is the CUDA layer's to report, not the front end's.
pub const WAKE_SIGNAL: i32 = libc::SIGURG;

/// Set the engine's handling of [`WAKE_SIGNAL`]: stop and pass (gdb's
/// `handle SIGURG stop pass`). To be applied before the program starts, or given to
/// the running process with `Session::set_signals`.
pub fn prepare_signals(table: &mut cohort_engine::signals::SignalTable) -> Result<()> {
    let which = table.select("SIGURG").map_err(CudaError::Handshake)?;
    for action in ["stop", "pass"] {
        table.apply(&which, action).map_err(CudaError::Handshake)?;
    }
    Ok(())
}

static WAKE_PID: AtomicI32 = AtomicI32::new(0);
/// Whether a [`Cudbg`] of this process is alive: the driver's API has one callback and one
/// session per debugger process, so one debuggee at a time (see docs/CUDA.md).
static IN_USE: AtomicBool = AtomicBool::new(false);
static PENDING: AtomicBool = AtomicBool::new(false);

/// The notification callback: it records that events wait and wakes the engine loop. It
/// calls nothing of the API (the driver forbids calls from its callback).
unsafe extern "C" fn on_new_event(_data: *mut c_void) {
    PENDING.store(true, Ordering::SeqCst);
    let pid = WAKE_PID.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill(2) with a valid signal number; async-signal-safe, no memory involved.
        unsafe {
            libc::kill(pid, WAKE_SIGNAL);
        }
    }
}

/// Whether the driver announced events since the last [`take_pending`].
pub fn take_pending() -> bool {
    PENDING.swap(false, Ordering::SeqCst)
}

/// An API version (`major.minor.revision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub revision: u32,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.revision)
    }
}

/// The version this crate was built for.
pub const BUILT: Version = Version {
    major: cudbg::API_MAJOR,
    minor: cudbg::API_MINOR,
    revision: cudbg::API_REVISION,
};

/// [`cudbg::KNOWN_VERSIONS`] for messages: `12.9.156, 13.0.163`.
fn known_versions() -> String {
    cudbg::KNOWN_VERSIONS
        .iter()
        .map(|(a, b, c)| format!("{a}.{b}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The debuggee as the handshake needs it: symbols and memory writes. The engine's
/// [`cohort_engine::session::Session`] implements it.
pub trait Debuggee {
    fn pid(&self) -> Option<i32>;
    /// Run-time address of a data symbol of the program or its libraries.
    fn symbol(&self, name: &str) -> Option<u64>;
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<()>;
}

impl Debuggee for cohort_engine::session::Session {
    fn pid(&self) -> Option<i32> {
        cohort_engine::session::Session::pid(self)
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        self.symbols().lookup(name)
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        Ok(self.write_memory(addr, data)?)
    }
}

/// The loaded library and its API table.
pub struct CudaApi {
    lib: libloading::Library,
    path: PathBuf,
    table: *const ApiTable,
    version: Version,
    /// What `cudbgGetAPIVersion` said.
    driver: Version,
}

// SAFETY: the table is immutable driver data; the API is callable from any thread (cuda-gdb
// calls it from its main thread while the driver's own threads run).
unsafe impl Send for CudaApi {}

/// The library the driver's debugger API is reached through by default.
pub const DEFAULT_LIBRARY: &str = "libcuda.so.1";

fn check(call: &'static str, code: u32) -> Result<()> {
    tracing::trace!(call, result = cudbg::result_name(code), "CUDBG");
    if code == cudbg::SUCCESS {
        Ok(())
    } else {
        Err(CudaError::Api {
            call,
            code,
            name: cudbg::result_name(code),
        })
    }
}

macro_rules! entry {
    ($self:ident, $f:ident) => {
        $self
            .api
            .table()?
            .$f
            .ok_or(CudaError::MissingEntry(stringify!($f)))?
    };
}

impl CudaApi {
    /// Load `path` (default [`DEFAULT_LIBRARY`]) and check its API version against
    /// [`BUILT`]: the major versions must match; the older of the two is used.
    pub fn load(path: Option<&Path>) -> Result<CudaApi> {
        let path = path.map_or_else(|| PathBuf::from(DEFAULT_LIBRARY), Path::to_path_buf);
        // The driver's threads outlive any handle on it: RTLD_NODELETE keeps it mapped.
        let flags = libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_NODELETE;
        // SAFETY: loading the driver library runs its initialisers, which need nothing from us.
        let lib: libloading::Library =
            unsafe { libloading::os::unix::Library::open(Some(&path), flags) }
                .map_err(|e| CudaError::Library {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                })?
                .into();
        let mut api = CudaApi {
            lib,
            path,
            table: std::ptr::null(),
            version: BUILT,
            driver: BUILT,
        };
        let driver = api.driver_version()?;
        tracing::debug!(library = %api.path.display(), %driver, built = %BUILT, "CUDA debugger API");
        if driver.major < BUILT.major {
            return Err(CudaError::Version {
                driver: driver.to_string(),
                built: known_versions(),
            });
        }
        api.driver = driver;
        api.version = api.candidates()[0];
        Ok(api)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn table(&self) -> Result<&ApiTable> {
        if self.table.is_null() {
            return Err(CudaError::Handshake("the API table was not fetched".into()));
        }
        // SAFETY: non-null, returned by cudbgGetAPI; driver data valid while `lib` is loaded.
        Ok(unsafe { &*self.table })
    }

    /// The version in use: the lesser of the driver's and [`BUILT`].
    pub fn version(&self) -> Version {
        self.version
    }

    /// `cudbgGetAPIVersion`.
    pub fn driver_version(&self) -> Result<Version> {
        type F = unsafe extern "C" fn(*mut u32, *mut u32, *mut u32) -> u32;
        // SAFETY: the signature of cudbgGetAPIVersion in cudadebugger.h.
        let f = unsafe { self.lib.get::<F>(b"cudbgGetAPIVersion") }.map_err(|e| {
            CudaError::Library {
                path: self.path.display().to_string(),
                reason: e.to_string(),
            }
        })?;
        let (mut a, mut b, mut c) = (0u32, 0u32, 0u32);
        // SAFETY: three valid out-pointers.
        check("cudbgGetAPIVersion", unsafe { f(&mut a, &mut b, &mut c) })?;
        Ok(Version {
            major: a,
            minor: b,
            revision: c,
        })
    }

    /// Write `value` into this process's copy of the library's variable `name` (the
    /// debugger-side half of the handshake).
    fn write_own(&self, name: &str, value: u32) -> Result<()> {
        // SAFETY: the symbol is a `uint32_t` variable of the library (cudadebugger.h).
        let p = unsafe { self.lib.get::<*mut u32>(name.as_bytes()) }.map_err(|e| {
            CudaError::Handshake(format!("{name} not found in {}: {e}", self.path.display()))
        })?;
        // SAFETY: `p` points at the library's 4-byte variable, mapped while `lib` is loaded;
        // nothing else writes it before `initialize`.
        unsafe { (*p).write_volatile(value) };
        Ok(())
    }

    /// The versions to ask `cudbgGetAPI` for, best first: the latest known layout of the
    /// driver's major version (no later than the driver's own version), then the other known
    /// layouts, latest first (a driver may serve older clients; `cudbgGetAPI` decides, before
    /// anything is written into the debuggee).
    fn candidates(&self) -> Vec<Version> {
        let known: Vec<Version> = cudbg::KNOWN_VERSIONS
            .iter()
            .rev()
            .map(|&(major, minor, revision)| Version {
                major,
                minor,
                revision,
            })
            .collect();
        let d = self.driver;
        let mut out: Vec<Version> = known
            .iter()
            .filter(|v| v.major == d.major)
            .map(|v| (*v).min(d))
            .take(1)
            .collect();
        for v in known {
            if v < d && !out.contains(&v) {
                out.push(v);
            }
        }
        if out.is_empty() {
            out.push(BUILT);
        }
        out
    }

    /// `cudbgGetAPI` for the first of [`Self::candidates`] the driver serves.
    fn get_api(&mut self) -> Result<()> {
        let mut last = Ok(());
        for v in self.candidates() {
            self.version = v;
            self.write_own(cudbg::SYM_APICLIENT_REVISION, v.revision)?;
            last = self.get_api_version();
            match &last {
                Err(CudaError::Api { code, .. }) if *code == cudbg::ERROR_INCOMPATIBLE_API => {
                    tracing::debug!(version = %v, "the driver does not serve this API version")
                }
                _ => return last,
            }
        }
        if self.driver.major != BUILT.major {
            return Err(CudaError::Version {
                driver: self.driver.to_string(),
                built: known_versions(),
            });
        }
        last
    }

    /// `cudbgGetAPI` for [`Self::version`].
    fn get_api_version(&mut self) -> Result<()> {
        type F = unsafe extern "C" fn(u32, u32, u32, *mut *const ApiTable) -> u32;
        // SAFETY: the signature of cudbgGetAPI in cudadebugger.h.
        let f = unsafe { self.lib.get::<F>(b"cudbgGetAPI") }.map_err(|e| CudaError::Library {
            path: self.path.display().to_string(),
            reason: e.to_string(),
        })?;
        let v = self.version;
        let mut t: *const ApiTable = std::ptr::null();
        // SAFETY: a valid out-pointer.
        check("cudbgGetAPI", unsafe {
            f(v.major, v.minor, v.revision, &mut t)
        })?;
        if t.is_null() {
            return Err(CudaError::Handshake("cudbgGetAPI returned no table".into()));
        }
        self.table = t;
        Ok(())
    }
}

/// With `COHORT_CUDA_SAVE_IMAGES=DIR`, each ELF image the driver hands over is also written to
/// `DIR/image-DEV-HANDLE.cubin`, to look at with `readelf`, `cuobjdump` or `nvdisasm`.
fn save_image(dev: u32, handle: u64, image: &[u8]) {
    let Some(dir) = std::env::var_os("COHORT_CUDA_SAVE_IMAGES") else {
        return;
    };
    let path = Path::new(&dir).join(format!("image-{dev}-{handle:x}.cubin"));
    if let Err(e) = std::fs::write(&path, image) {
        tracing::warn!("cannot save {}: {e}", path.display());
    }
}

/// One lane's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lane {
    pub ln: u32,
    pub thread: CuDim3,
    pub pc: u64,
    pub active: bool,
    pub exception: u32,
}

/// One valid warp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warp {
    pub dev: u32,
    pub sm: u32,
    pub wp: u32,
    pub grid_id: u64,
    pub block: CuDim3,
    pub broken: bool,
    pub lanes: Vec<Lane>,
}

/// A device's fixed properties (the "GPU Devices" table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    pub dev: u32,
    pub name: String,
    pub description: String,
    pub sm_type: String,
    pub num_sms: u32,
    pub warps_per_sm: u32,
    pub lanes_per_warp: u32,
    pub regs_per_lane: u32,
    pub pci_bus: u32,
    pub pci_dev: u32,
}

/// An initialised API: the calls the debugger makes.
pub struct Cudbg {
    api: CudaApi,
    session: u32,
    /// Holds this process's API ([`IN_USE`]) until dropped.
    claimed: bool,
}

impl Drop for Cudbg {
    fn drop(&mut self) {
        if self.claimed {
            WAKE_PID.store(0, Ordering::SeqCst);
            IN_USE.store(false, Ordering::SeqCst);
        }
    }
}

impl Cudbg {
    /// The handshake, with the debuggee stopped at [`cudbg::SYM_INIT_POINT`]: write the
    /// debugger variables into it, into this process's copy of the library, get the API,
    /// `initialize`, check the capabilities, install the notification callback.
    pub fn handshake(debuggee: &mut dyn Debuggee, library: Option<&Path>) -> Result<Cudbg> {
        if IN_USE.swap(true, Ordering::SeqCst) {
            return Err(CudaError::Busy);
        }
        let c = Self::handshake_unclaimed(debuggee, library);
        if c.is_err() {
            IN_USE.store(false, Ordering::SeqCst);
        }
        c
    }

    fn handshake_unclaimed(debuggee: &mut dyn Debuggee, library: Option<&Path>) -> Result<Cudbg> {
        let mut api = CudaApi::load(library)?;
        let target = debuggee
            .pid()
            .ok_or_else(|| CudaError::Handshake("no debuggee process".into()))?;
        let me = std::process::id();
        // A new session id for every handshake of this process.
        static SESSIONS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let session = SESSIONS.fetch_add(1, Ordering::SeqCst);
        let caps = cudbg::CAP_SUSPEND_EVENTS | cudbg::CAP_NO_CONTEXT_PUSH_POP_EVENTS;
        // The debugger's half first: a driver that refuses this client is found before
        // anything is written into the program.
        api.write_own(cudbg::SYM_APICLIENT_PID, me)?;
        api.write_own(cudbg::SYM_SESSION_ID, session)?;
        api.get_api()?;
        let revision = api.version.revision;
        for (name, value, required) in [
            (cudbg::SYM_APICLIENT_PID, me, true),
            (cudbg::SYM_APICLIENT_REVISION, revision, true),
            (cudbg::SYM_SESSION_ID, session, true),
            (cudbg::SYM_DEBUGGER_CAPABILITIES, caps, false),
            (cudbg::SYM_ENABLE_PREEMPTION_DEBUGGING, 0, false),
            (cudbg::SYM_ENABLE_INTEGRATED_MEMCHECK, 0, false),
            (cudbg::SYM_IPC_FLAG, 1, true),
        ] {
            match debuggee.symbol(name) {
                Some(addr) => debuggee.write(addr, &value.to_le_bytes())?,
                None if required => {
                    return Err(CudaError::Handshake(format!(
                        "the program has no {name}: is the CUDA driver loaded?"
                    )));
                }
                None => {}
            }
        }
        let mut c = Cudbg {
            api,
            session,
            claimed: false,
        };
        // SAFETY: table entries are the driver's functions with cudadebugger.h's signatures.
        check("initialize", unsafe { entry!(c, initialize)() })?;
        let mut supported = 0u32;
        // SAFETY: a valid out-pointer.
        check("getSupportedDebuggerCapabilities", unsafe {
            entry!(c, get_supported_debugger_capabilities)(&mut supported)
        })?;
        if supported & cudbg::CAP_SUSPEND_EVENTS == 0 {
            return Err(CudaError::Handshake(
                "the driver's debugger API does not send suspend events".into(),
            ));
        }
        WAKE_PID.store(target, Ordering::SeqCst);
        // SAFETY: `on_new_event` has the callback's signature and lives for the program.
        check("setNotifyNewEventCallback", unsafe {
            entry!(c, set_notify_new_event_callback)(Some(on_new_event))
        })?;
        c.claimed = true;
        Ok(c)
    }

    pub fn version(&self) -> Version {
        self.api.version
    }

    /// The session id written into the debuggee (`cudbgSessionId`).
    pub fn session_id(&self) -> u32 {
        self.session
    }

    /// Every waiting event: the sync queue, then the async queue; with each, whether it came
    /// from the sync queue (the driver holds the program until those are acknowledged,
    /// whatever their kind: a context's creation too).
    pub fn next_events(&self) -> Result<Vec<(bool, Event)>> {
        let f = entry!(self, get_next_event);
        let mut out = Vec::new();
        for q in [cudbg::QUEUE_SYNC, cudbg::QUEUE_ASYNC] {
            loop {
                let mut raw = RawEvent::default();
                // SAFETY: `raw` is a CUDBGEvent-sized buffer.
                let r = unsafe { f(q, &mut raw) };
                if r == cudbg::ERROR_NO_EVENT_AVAILABLE {
                    break;
                }
                check("getNextEvent", r)?;
                let e = Event::decode(&raw);
                tracing::debug!(queue = q, event = ?e, "CUDA event");
                out.push((q == cudbg::QUEUE_SYNC, e));
            }
        }
        Ok(out)
    }

    pub fn acknowledge_sync_events(&self) -> Result<()> {
        // SAFETY: no arguments.
        check("acknowledgeSyncEvents", unsafe {
            entry!(self, acknowledge_sync_events)()
        })
    }

    /// The ELF image of an `ElfImageLoaded` event (relocated).
    pub fn elf_image(&self, dev: u32, handle: u64, size: u64) -> Result<Vec<u8>> {
        if size > 1 << 30 {
            return Err(CudaError::Cubin(format!("ELF image of {size} bytes")));
        }
        let mut buf = vec![0u8; size as usize];
        // SAFETY: `buf` has `size` bytes.
        check("getElfImageByHandle", unsafe {
            entry!(self, get_elf_image_by_handle)(
                dev,
                handle,
                cudbg::ELF_IMAGE_RELOCATED,
                buf.as_mut_ptr().cast(),
                size,
            )
        })?;
        save_image(dev, handle, &buf);
        Ok(buf)
    }

    pub fn set_breakpoint(&self, dev: u32, addr: u64) -> Result<()> {
        // SAFETY: plain values.
        check("setBreakpoint", unsafe {
            entry!(self, set_breakpoint)(dev, addr)
        })
    }

    pub fn unset_breakpoint(&self, dev: u32, addr: u64) -> Result<()> {
        // SAFETY: plain values.
        check("unsetBreakpoint", unsafe {
            entry!(self, unset_breakpoint)(dev, addr)
        })
    }

    pub fn suspend_device(&self, dev: u32) -> Result<()> {
        // SAFETY: plain values.
        check("suspendDevice", unsafe {
            entry!(self, suspend_device)(dev)
        })
    }

    pub fn resume_device(&self, dev: u32) -> Result<()> {
        // SAFETY: plain values.
        check("resumeDevice", unsafe { entry!(self, resume_device)(dev) })
    }

    /// Step warp `wp` one instruction; the warps that moved.
    pub fn single_step_warp(&self, dev: u32, sm: u32, wp: u32, lane: u32) -> Result<u64> {
        let mut mask = 0u64;
        // SAFETY: a valid out-pointer.
        check("singleStepWarp", unsafe {
            entry!(self, single_step_warp)(dev, sm, wp, lane, 1, 0, &mut mask)
        })?;
        Ok(mask)
    }

    fn string(
        &self,
        call: &'static str,
        f: unsafe extern "C" fn(u32, *mut c_char, u32) -> u32,
        dev: u32,
    ) -> Result<String> {
        let mut buf = [0u8; 256];
        // SAFETY: `buf` has the size passed.
        check(call, unsafe {
            f(dev, buf.as_mut_ptr().cast(), buf.len() as u32)
        })?;
        let n = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(&buf[..n]).into_owned())
    }

    fn count(
        &self,
        call: &'static str,
        f: unsafe extern "C" fn(u32, *mut u32) -> u32,
        dev: u32,
    ) -> Result<u32> {
        let mut n = 0u32;
        // SAFETY: a valid out-pointer.
        check(call, unsafe { f(dev, &mut n) })?;
        Ok(n)
    }

    pub fn num_devices(&self) -> Result<u32> {
        let mut n = 0u32;
        // SAFETY: a valid out-pointer.
        check("getNumDevices", unsafe {
            entry!(self, get_num_devices)(&mut n)
        })?;
        Ok(n)
    }

    pub fn device(&self, dev: u32) -> Result<Device> {
        let (mut bus, mut id) = (0u32, 0u32);
        // SAFETY: valid out-pointers.
        check("getDevicePCIBusInfo", unsafe {
            entry!(self, get_device_pci_bus_info)(dev, &mut bus, &mut id)
        })?;
        Ok(Device {
            dev,
            name: self.string("getDeviceName", entry!(self, get_device_name), dev)?,
            description: self.string("getDeviceType", entry!(self, get_device_type), dev)?,
            sm_type: self.string("getSmType", entry!(self, get_sm_type), dev)?,
            num_sms: self.count("getNumSMs", entry!(self, get_num_sms), dev)?,
            warps_per_sm: self.count("getNumWarps", entry!(self, get_num_warps), dev)?,
            lanes_per_warp: self.count("getNumLanes", entry!(self, get_num_lanes), dev)?,
            regs_per_lane: self.count("getNumRegisters", entry!(self, get_num_registers), dev)?,
            pci_bus: bus,
            pci_dev: id,
        })
    }

    /// Valid (or, with `broken`, broken) warps of an SM.
    pub fn warps_mask(&self, dev: u32, sm: u32, broken: bool) -> Result<u64> {
        let mut m = 0u64;
        // SAFETY: a valid out-pointer.
        let r = unsafe {
            if broken {
                entry!(self, read_broken_warps)(dev, sm, &mut m)
            } else {
                entry!(self, read_valid_warps)(dev, sm, &mut m)
            }
        };
        check(
            if broken {
                "readBrokenWarps"
            } else {
                "readValidWarps"
            },
            r,
        )?;
        Ok(m)
    }

    /// The state of one valid warp and its valid lanes.
    pub fn warp(&self, dev: u32, sm: u32, wp: u32, broken: bool) -> Result<Warp> {
        let mut grid = 0u64;
        let mut block = CuDim3::default();
        let (mut valid, mut active) = (0u32, 0u32);
        // SAFETY: valid out-pointers (here and below).
        unsafe {
            check(
                "readGridId",
                entry!(self, read_grid_id)(dev, sm, wp, &mut grid),
            )?;
            check(
                "readBlockIdx",
                entry!(self, read_block_idx)(dev, sm, wp, &mut block),
            )?;
            check(
                "readValidLanes",
                entry!(self, read_valid_lanes)(dev, sm, wp, &mut valid),
            )?;
            check(
                "readActiveLanes",
                entry!(self, read_active_lanes)(dev, sm, wp, &mut active),
            )?;
        }
        let mut lanes = Vec::new();
        for ln in 0..32u32 {
            if valid & (1 << ln) == 0 {
                continue;
            }
            let mut t = CuDim3::default();
            let mut pc = 0u64;
            let mut ex = 0u32;
            // SAFETY: valid out-pointers.
            unsafe {
                check(
                    "readThreadIdx",
                    entry!(self, read_thread_idx)(dev, sm, wp, ln, &mut t),
                )?;
                check(
                    "readVirtualPC",
                    entry!(self, read_virtual_pc)(dev, sm, wp, ln, &mut pc),
                )?;
                check(
                    "readLaneException",
                    entry!(self, read_lane_exception)(dev, sm, wp, ln, &mut ex),
                )?;
            }
            lanes.push(Lane {
                ln,
                thread: t,
                pc,
                active: active & (1 << ln) != 0,
                exception: ex,
            });
        }
        Ok(Warp {
            dev,
            sm,
            wp,
            grid_id: grid,
            block,
            broken,
            lanes,
        })
    }

    /// The PC of the instruction that raised the warp's exception (`readErrorPC`), when the
    /// driver knows it.
    pub fn error_pc(&self, dev: u32, sm: u32, wp: u32) -> Result<Option<u64>> {
        let (mut pc, mut valid) = (0u64, false);
        // SAFETY: valid out-pointers.
        check("readErrorPC", unsafe {
            entry!(self, read_error_pc)(dev, sm, wp, &mut pc, &mut valid)
        })?;
        Ok(valid.then_some(pc))
    }

    /// Return addresses of the lane's device call stack, innermost caller first.
    pub fn return_addresses(&self, dev: u32, sm: u32, wp: u32, ln: u32) -> Result<Vec<u64>> {
        let mut depth = 0u32;
        // SAFETY: valid out-pointers (here and below).
        check("readCallDepth", unsafe {
            entry!(self, read_call_depth)(dev, sm, wp, ln, &mut depth)
        })?;
        let mut v = Vec::new();
        for level in 0..depth.min(256) {
            let mut ra = 0u64;
            // SAFETY: a valid out-pointer.
            check("readVirtualReturnAddress", unsafe {
                entry!(self, read_virtual_return_address)(dev, sm, wp, ln, level, &mut ra)
            })?;
            v.push(ra);
        }
        Ok(v)
    }

    pub fn grid_dim(&self, dev: u32, sm: u32, wp: u32) -> Result<CuDim3> {
        let mut d = CuDim3::default();
        // SAFETY: a valid out-pointer.
        check("getGridDim", unsafe {
            entry!(self, get_grid_dim)(dev, sm, wp, &mut d)
        })?;
        Ok(d)
    }

    pub fn block_dim(&self, dev: u32, sm: u32, wp: u32) -> Result<CuDim3> {
        let mut d = CuDim3::default();
        // SAFETY: a valid out-pointer.
        check("getBlockDim", unsafe {
            entry!(self, get_block_dim)(dev, sm, wp, &mut d)
        })?;
        Ok(d)
    }

    pub fn read_register(&self, dev: u32, sm: u32, wp: u32, ln: u32, reg: u32) -> Result<u32> {
        let mut v = 0u32;
        // SAFETY: a valid out-pointer.
        check("readRegister", unsafe {
            entry!(self, read_register)(dev, sm, wp, ln, reg, &mut v)
        })?;
        Ok(v)
    }

    /// Read memory of `class` for the thread at (dev, sm, wp, ln).
    pub fn read_memory(
        &self,
        class: crate::cubin::AddressClass,
        at: (u32, u32, u32, u32),
        addr: u64,
        len: usize,
    ) -> Result<Vec<u8>> {
        use crate::cubin::AddressClass as A;
        let (dev, sm, wp, ln) = at;
        let mut buf = vec![0u8; len];
        let p = buf.as_mut_ptr().cast::<c_void>();
        let n = u32::try_from(len).map_err(|_| CudaError::Focus("read too large".into()))?;
        // SAFETY: `buf` has `len` bytes.
        let r = unsafe {
            match class {
                A::Shared => entry!(self, read_shared_memory)(dev, sm, wp, addr, p, n),
                A::Local => entry!(self, read_local_memory)(dev, sm, wp, ln, addr, p, n),
                A::Param => entry!(self, read_param_memory)(dev, sm, wp, addr, p, n),
                A::Global | A::Generic => entry!(self, read_global_memory)(addr, p, n),
                other => {
                    return Err(CudaError::Focus(format!(
                        "reading {} memory is not supported",
                        other.name()
                    )));
                }
            }
        };
        check("read memory", r)?;
        Ok(buf)
    }

    pub fn finalize(&self) -> Result<()> {
        WAKE_PID.store(0, Ordering::SeqCst);
        // SAFETY: no arguments.
        check("finalize", unsafe { entry!(self, finalize)() })
    }
}
