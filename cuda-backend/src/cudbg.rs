//! NVIDIA's CUDA debugger API (`cudadebugger.h`) as this crate uses it: the version it was
//! built for, the `CUDBGAPI_st` function table (only the entries used are typed; the others
//! are opaque slots that keep the layout), events, result codes, the debuggee's handshake
//! variables. Written from the header of API 12.9 revision 156 (`cudadebugger.h` as shipped
//! with CUDA 12.9 and published in NVIDIA/cuda-gdb); see docs/CUDA.md. Every slot index is
//! checked at compile time.

use std::ffi::c_char;
use std::ffi::c_void;

/// The API version this crate was built for (`CUDBG_API_VERSION_*`).
pub const API_MAJOR: u32 = 12;
pub const API_MINOR: u32 = 9;
pub const API_REVISION: u32 = 156;

/// The API versions whose table Cohort knows, oldest first. In 13.0 (revision 163) every slot
/// Cohort uses is where 12.9 has it, with the same signature: slot 73 is renamed
/// `setNotifyNewEventCallback41` and keeps 12.9's callback and callback data, and the new
/// `setNotifyNewEventCallback` (a second argument, another callback data) is slot 147, which
/// Cohort does not use. `CUDBGEvent` is the same in both. (From the two headers; see
/// docs/CUDA.md.)
pub const KNOWN_VERSIONS: [(u32, u32, u32); 2] = [(12, 9, 156), (13, 0, 163)];

/// Entries in `CUDBGAPI_st` at revision 156 (the last is `readCPUCallStack`).
pub const TABLE_SLOTS: usize = 146;

/// Variables the debugger writes in the debuggee's `libcuda` before the driver initialises.
pub const SYM_IPC_FLAG: &str = "cudbgIpcFlag";
pub const SYM_APICLIENT_PID: &str = "cudbgApiClientPid";
pub const SYM_APICLIENT_REVISION: &str = "cudbgApiClientRevision";
pub const SYM_SESSION_ID: &str = "cudbgSessionId";
pub const SYM_DEBUGGER_CAPABILITIES: &str = "cudbgDebuggerCapabilities";
pub const SYM_ENABLE_INTEGRATED_MEMCHECK: &str = "cudbgEnableIntegratedMemcheck";
pub const SYM_ENABLE_PREEMPTION_DEBUGGING: &str = "cudbgEnablePreemptionDebugging";
pub const SYM_ENABLE_LAUNCH_BLOCKING: &str = "cudbgEnableLaunchBlocking";
/// Where the debuggee is stopped for the handshake: the driver's `cuInit`.
pub const SYM_INIT_POINT: &str = "cuInit";

/// `CUDBGCapabilityFlags`.
pub const CAP_LAZY_FUNCTION_LOADING: u32 = 1 << 0;
pub const CAP_SUSPEND_EVENTS: u32 = 1 << 1;
pub const CAP_REPORT_EXCEPTIONS_IN_EXITED_WARPS: u32 = 1 << 2;
pub const CAP_NO_CONTEXT_PUSH_POP_EVENTS: u32 = 1 << 3;

/// `CUDBGEventKind`.
pub const EVENT_INVALID: u32 = 0x0;
pub const EVENT_ELF_IMAGE_LOADED: u32 = 0x1;
pub const EVENT_KERNEL_READY: u32 = 0x2;
pub const EVENT_KERNEL_FINISHED: u32 = 0x3;
pub const EVENT_INTERNAL_ERROR: u32 = 0x4;
pub const EVENT_CTX_PUSH: u32 = 0x5;
pub const EVENT_CTX_POP: u32 = 0x6;
pub const EVENT_CTX_CREATE: u32 = 0x7;
pub const EVENT_CTX_DESTROY: u32 = 0x8;
pub const EVENT_TIMEOUT: u32 = 0x9;
pub const EVENT_ATTACH_COMPLETE: u32 = 0xa;
pub const EVENT_DETACH_COMPLETE: u32 = 0xb;
pub const EVENT_ELF_IMAGE_UNLOADED: u32 = 0xc;
pub const EVENT_FUNCTIONS_LOADED: u32 = 0xd;
pub const EVENT_ALL_DEVICES_SUSPENDED: u32 = 0xe;

/// `CUDBGEventQueueType`.
pub const QUEUE_SYNC: u32 = 0;
pub const QUEUE_ASYNC: u32 = 1;
/// `CUDBGElfImageType`.
pub const ELF_IMAGE_RELOCATED: u32 = 1;
/// `CUDBGResult` values the client tests for.
pub const SUCCESS: u32 = 0;
pub const ERROR_NO_EVENT_AVAILABLE: u32 = 0x16;
pub const ERROR_INCOMPATIBLE_API: u32 = 0x13;

/// `CUDBGResult` names, by value.
const RESULT_NAMES: [&str; 0x2f] = [
    "CUDBG_SUCCESS",
    "CUDBG_ERROR_UNKNOWN",
    "CUDBG_ERROR_BUFFER_TOO_SMALL",
    "CUDBG_ERROR_UNKNOWN_FUNCTION",
    "CUDBG_ERROR_INVALID_ARGS",
    "CUDBG_ERROR_UNINITIALIZED",
    "CUDBG_ERROR_INVALID_COORDINATES",
    "CUDBG_ERROR_INVALID_MEMORY_SEGMENT",
    "CUDBG_ERROR_INVALID_MEMORY_ACCESS",
    "CUDBG_ERROR_MEMORY_MAPPING_FAILED",
    "CUDBG_ERROR_INTERNAL",
    "CUDBG_ERROR_INVALID_DEVICE",
    "CUDBG_ERROR_INVALID_SM",
    "CUDBG_ERROR_INVALID_WARP",
    "CUDBG_ERROR_INVALID_LANE",
    "CUDBG_ERROR_SUSPENDED_DEVICE",
    "CUDBG_ERROR_RUNNING_DEVICE",
    "CUDBG_ERROR_RESERVED_0",
    "CUDBG_ERROR_INVALID_ADDRESS",
    "CUDBG_ERROR_INCOMPATIBLE_API",
    "CUDBG_ERROR_INITIALIZATION_FAILURE",
    "CUDBG_ERROR_INVALID_GRID",
    "CUDBG_ERROR_NO_EVENT_AVAILABLE",
    "CUDBG_ERROR_SOME_DEVICES_WATCHDOGGED",
    "CUDBG_ERROR_ALL_DEVICES_WATCHDOGGED",
    "CUDBG_ERROR_INVALID_ATTRIBUTE",
    "CUDBG_ERROR_ZERO_CALL_DEPTH",
    "CUDBG_ERROR_INVALID_CALL_LEVEL",
    "CUDBG_ERROR_COMMUNICATION_FAILURE",
    "CUDBG_ERROR_INVALID_CONTEXT",
    "CUDBG_ERROR_ADDRESS_NOT_IN_DEVICE_MEM",
    "CUDBG_ERROR_MEMORY_UNMAPPING_FAILED",
    "CUDBG_ERROR_INCOMPATIBLE_DISPLAY_DRIVER",
    "CUDBG_ERROR_INVALID_MODULE",
    "CUDBG_ERROR_LANE_NOT_IN_SYSCALL",
    "CUDBG_ERROR_MEMCHECK_NOT_ENABLED",
    "CUDBG_ERROR_INVALID_ENVVAR_ARGS",
    "CUDBG_ERROR_OS_RESOURCES",
    "CUDBG_ERROR_FORK_FAILED",
    "CUDBG_ERROR_NO_DEVICE_AVAILABLE",
    "CUDBG_ERROR_ATTACH_NOT_POSSIBLE",
    "CUDBG_ERROR_WARP_RESUME_NOT_POSSIBLE",
    "CUDBG_ERROR_INVALID_WARP_MASK",
    "CUDBG_ERROR_AMBIGUOUS_MEMORY_ADDRESS",
    "CUDBG_ERROR_RECURSIVE_API_CALL",
    "CUDBG_ERROR_MISSING_DATA",
    "CUDBG_ERROR_NOT_SUPPORTED",
];

pub fn result_name(code: u32) -> &'static str {
    RESULT_NAMES
        .get(code as usize)
        .copied()
        .unwrap_or("*UNDEFINED*")
}

/// `CUDBGException_t` as cuda-gdb names it.
pub fn exception_name(code: u32) -> &'static str {
    match code {
        0 => "none",
        1 => "Lane Illegal Address",
        2 => "Lane User Stack Overflow",
        3 => "Device Hardware Stack Overflow",
        4 => "Warp Illegal Instruction",
        5 => "Warp Out-of-range Address",
        6 => "Warp Misaligned Address",
        7 => "Warp Invalid Address Space",
        8 => "Warp Invalid PC",
        9 => "Warp Hardware Stack Overflow",
        10 => "Device Illegal Address",
        11 => "Lane Misaligned Address",
        12 => "Warp Assert",
        13 => "Lane Syscall Error",
        14 => "Warp Illegal Address",
        15 => "Lane Nonmigratable Atomsys",
        16 => "Lane Invalid Atomsys",
        17 => "Cluster Out-of-range Address",
        18 => "Cluster Block Not Present",
        19 => "Warp Stack Canary",
        20 => "Warp TMEM Access Check",
        21 => "Warp TMEM Leak",
        22 => "Warp Call Requires Newer Driver",
        _ => "Unknown Exception",
    }
}

/// `CuDim3`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CuDim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl CuDim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> CuDim3 {
        CuDim3 { x, y, z }
    }
}

impl std::fmt::Display for CuDim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}

/// `CUDBGEvent` (packed): its kind and the bytes of its union, decoded by [`RawEvent::field`].
#[repr(C, packed)]
#[derive(Clone, Copy)]
pub struct RawEvent {
    pub kind: u32,
    pub cases: [u8; 88],
}

impl Default for RawEvent {
    fn default() -> Self {
        RawEvent {
            kind: EVENT_INVALID,
            cases: [0; 88],
        }
    }
}

impl RawEvent {
    pub fn u32_at(&self, off: usize) -> u32 {
        let c = self.cases;
        u32::from_le_bytes([c[off], c[off + 1], c[off + 2], c[off + 3]])
    }
    pub fn u64_at(&self, off: usize) -> u64 {
        let c = self.cases;
        let mut b = [0u8; 8];
        b.copy_from_slice(&c[off..off + 8]);
        u64::from_le_bytes(b)
    }
    pub fn dim3_at(&self, off: usize) -> CuDim3 {
        CuDim3::new(self.u32_at(off), self.u32_at(off + 4), self.u32_at(off + 8))
    }
}

/// A decoded event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    ElfImageLoaded {
        dev: u32,
        context: u64,
        module: u64,
        size: u64,
        handle: u64,
    },
    KernelReady {
        dev: u32,
        tid: u32,
        grid_id: u64,
        module: u64,
        function_entry: u64,
        grid_dim: CuDim3,
        block_dim: CuDim3,
    },
    KernelFinished {
        dev: u32,
        tid: u32,
        grid_id: u64,
    },
    AllDevicesSuspended {
        broken: u64,
        faulted: u64,
    },
    InternalError(u32),
    Other(u32),
}

impl Event {
    /// Decode by the packed layouts of `CUDBGEvent` (offsets in its union).
    pub fn decode(raw: &RawEvent) -> Event {
        let kind = raw.kind;
        match kind {
            // elfImageLoaded: u32 dev, u64 context, u64 module, u64 size, u64 handle, u32 props
            EVENT_ELF_IMAGE_LOADED => Event::ElfImageLoaded {
                dev: raw.u32_at(0),
                context: raw.u64_at(4),
                module: raw.u64_at(12),
                size: raw.u64_at(20),
                handle: raw.u64_at(28),
            },
            // kernelReady: u32 dev, u32 tid, u64 gridId, u64 context, u64 module,
            // u64 function, u64 functionEntry, CuDim3 gridDim, CuDim3 blockDim, ...
            EVENT_KERNEL_READY => Event::KernelReady {
                dev: raw.u32_at(0),
                tid: raw.u32_at(4),
                grid_id: raw.u64_at(8),
                module: raw.u64_at(24),
                function_entry: raw.u64_at(40),
                grid_dim: raw.dim3_at(48),
                block_dim: raw.dim3_at(60),
            },
            // kernelFinished: u32 dev, u32 tid, u64 context, u64 module, u64 function,
            // u64 functionEntry, u64 gridId
            EVENT_KERNEL_FINISHED => Event::KernelFinished {
                dev: raw.u32_at(0),
                tid: raw.u32_at(4),
                grid_id: raw.u64_at(40),
            },
            EVENT_ALL_DEVICES_SUSPENDED => Event::AllDevicesSuspended {
                broken: raw.u64_at(0),
                faulted: raw.u64_at(8),
            },
            EVENT_INTERNAL_ERROR => Event::InternalError(raw.u32_at(0)),
            k => Event::Other(k),
        }
    }
}

type R = u32;
/// `CUDBGNotifyNewEventCallback`: called with `CUDBGEventCallbackData { tid, timeout }`.
pub type EventCallback = unsafe extern "C" fn(*mut c_void);

/// `CUDBGAPI_st` up to the last slot used. Unused slots are `usize` padding.
#[repr(C)]
pub struct ApiTable {
    pub initialize: Option<unsafe extern "C" fn() -> R>,
    pub finalize: Option<unsafe extern "C" fn() -> R>,
    pub suspend_device: Option<unsafe extern "C" fn(u32) -> R>,
    pub resume_device: Option<unsafe extern "C" fn(u32) -> R>,
    _s4: [usize; 5],
    pub read_thread_idx: Option<unsafe extern "C" fn(u32, u32, u32, u32, *mut CuDim3) -> R>,
    pub read_broken_warps: Option<unsafe extern "C" fn(u32, u32, *mut u64) -> R>,
    pub read_valid_warps: Option<unsafe extern "C" fn(u32, u32, *mut u64) -> R>,
    pub read_valid_lanes: Option<unsafe extern "C" fn(u32, u32, u32, *mut u32) -> R>,
    pub read_active_lanes: Option<unsafe extern "C" fn(u32, u32, u32, *mut u32) -> R>,
    _s14: [usize; 3],
    pub read_param_memory: Option<unsafe extern "C" fn(u32, u32, u32, u64, *mut c_void, u32) -> R>,
    pub read_shared_memory: Option<unsafe extern "C" fn(u32, u32, u32, u64, *mut c_void, u32) -> R>,
    pub read_local_memory:
        Option<unsafe extern "C" fn(u32, u32, u32, u32, u64, *mut c_void, u32) -> R>,
    pub read_register: Option<unsafe extern "C" fn(u32, u32, u32, u32, u32, *mut u32) -> R>,
    pub read_pc: Option<unsafe extern "C" fn(u32, u32, u32, u32, *mut u64) -> R>,
    pub read_virtual_pc: Option<unsafe extern "C" fn(u32, u32, u32, u32, *mut u64) -> R>,
    _s23: [usize; 7],
    pub get_block_dim: Option<unsafe extern "C" fn(u32, u32, u32, *mut CuDim3) -> R>,
    _s31: [usize; 2],
    pub get_device_type: Option<unsafe extern "C" fn(u32, *mut c_char, u32) -> R>,
    pub get_sm_type: Option<unsafe extern "C" fn(u32, *mut c_char, u32) -> R>,
    pub get_num_devices: Option<unsafe extern "C" fn(*mut u32) -> R>,
    pub get_num_sms: Option<unsafe extern "C" fn(u32, *mut u32) -> R>,
    pub get_num_warps: Option<unsafe extern "C" fn(u32, *mut u32) -> R>,
    pub get_num_lanes: Option<unsafe extern "C" fn(u32, *mut u32) -> R>,
    pub get_num_registers: Option<unsafe extern "C" fn(u32, *mut u32) -> R>,
    _s40: [usize; 10],
    pub read_lane_exception: Option<unsafe extern "C" fn(u32, u32, u32, u32, *mut u32) -> R>,
    _s51: [usize; 9],
    pub set_breakpoint: Option<unsafe extern "C" fn(u32, u64) -> R>,
    pub unset_breakpoint: Option<unsafe extern "C" fn(u32, u64) -> R>,
    _s62: [usize; 3],
    pub read_block_idx: Option<unsafe extern "C" fn(u32, u32, u32, *mut CuDim3) -> R>,
    pub get_grid_dim: Option<unsafe extern "C" fn(u32, u32, u32, *mut CuDim3) -> R>,
    pub read_call_depth: Option<unsafe extern "C" fn(u32, u32, u32, u32, *mut u32) -> R>,
    _s68: [usize; 1],
    pub read_virtual_return_address:
        Option<unsafe extern "C" fn(u32, u32, u32, u32, u32, *mut u64) -> R>,
    _s70: [usize; 3],
    pub set_notify_new_event_callback: Option<unsafe extern "C" fn(Option<EventCallback>) -> R>,
    _s74: [usize; 5],
    pub acknowledge_sync_events: Option<unsafe extern "C" fn() -> R>,
    _s80: [usize; 7],
    pub read_grid_id: Option<unsafe extern "C" fn(u32, u32, u32, *mut u64) -> R>,
    _s88: [usize; 2],
    pub get_device_pci_bus_info: Option<unsafe extern "C" fn(u32, *mut u32, *mut u32) -> R>,
    _s91: [usize; 2],
    pub read_error_pc: Option<unsafe extern "C" fn(u32, u32, u32, *mut u64, *mut bool) -> R>,
    pub get_next_event: Option<unsafe extern "C" fn(u32, *mut RawEvent) -> R>,
    pub get_elf_image_by_handle: Option<unsafe extern "C" fn(u32, u64, u32, *mut c_void, u64) -> R>,
    _s96: [usize; 5],
    pub read_global_memory: Option<unsafe extern "C" fn(u64, *mut c_void, u32) -> R>,
    _s102: [usize; 9],
    pub get_device_name: Option<unsafe extern "C" fn(u32, *mut c_char, u32) -> R>,
    _s112: [usize; 20],
    pub single_step_warp: Option<unsafe extern "C" fn(u32, u32, u32, u32, u32, u32, *mut u64) -> R>,
    _s133: [usize; 1],
    pub get_supported_debugger_capabilities: Option<unsafe extern "C" fn(*mut u32) -> R>,
}

macro_rules! slot {
    ($field:ident, $idx:expr) => {
        const _: () = assert!(std::mem::offset_of!(ApiTable, $field) == $idx * 8);
    };
}
slot!(initialize, 0);
slot!(resume_device, 3);
slot!(read_thread_idx, 9);
slot!(read_active_lanes, 13);
slot!(read_param_memory, 17);
slot!(read_register, 20);
slot!(read_virtual_pc, 22);
slot!(get_block_dim, 30);
slot!(get_device_type, 33);
slot!(get_num_registers, 39);
slot!(read_lane_exception, 50);
slot!(set_breakpoint, 60);
slot!(unset_breakpoint, 61);
slot!(read_block_idx, 65);
slot!(get_grid_dim, 66);
slot!(read_call_depth, 67);
slot!(read_virtual_return_address, 69);
slot!(set_notify_new_event_callback, 73);
slot!(acknowledge_sync_events, 79);
slot!(read_grid_id, 87);
slot!(get_device_pci_bus_info, 90);
slot!(read_error_pc, 93);
slot!(get_next_event, 94);
slot!(get_elf_image_by_handle, 95);
slot!(read_global_memory, 101);
slot!(get_device_name, 111);
slot!(single_step_warp, 132);
slot!(get_supported_debugger_capabilities, 134);
const _: () = assert!(std::mem::size_of::<RawEvent>() == 92);
const _: () = assert!(std::mem::size_of::<ApiTable>() == 135 * 8);
