//! MPI message queues (issue 20) through the MPI library's own debugger interface: the
//! "MQS" interface of TotalView's message-queue DLL (`mpi_interface.h`, Etnus), which Open
//! MPI ships as `libompi_dbg_msgq.so` and names in the rank's `MPIR_dll_name`. The agent
//! loads that library and gives it the debugger's side of the interface: the rank's memory
//! and symbols, and the types and field offsets of Open MPI's structures from DWARF (the
//! rank's `libmpi`/`libopen-pal` where they have it, else the same types compiled from the
//! installed Open MPI's headers: cohort_launch::msgq_types). The library then walks the
//! communicators and their pending sends and receives.
//!
//! Each rank answers `:mq` with its queues in words ([`report`]); the tree merges ranks whose
//! answers differ only in buffer addresses.
//!
//! The library keeps its state through the image and process objects the debugger hands it
//! (`mqs_put_image_info`, `mqs_put_process_info`); here those are [`Image`] and [`Proc`],
//! alive for one answer. One rank at a time uses the library (a lock), as a debugger would.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cohort_debugger::Debugger;
use cohort_dwarf::loader::DebugFile;
use cohort_dwarf::types::{TypeKind, TypeRef};

/// Why a rank's queues cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum MsgqError {
    #[error("the rank has no process")]
    NoProcess,
    #[error(
        "the rank's MPI library names no message-queue library (no MPIR_dll_name; Open MPI has one, MPICH as packaged here does not)"
    )]
    NoDllName,
    #[error("cannot read MPIR_dll_name from the rank's memory")]
    DllNameUnreadable,
    #[error("cannot load the message-queue library {0}: {1}")]
    Load(String, String),
    #[error("{0} lacks {1}")]
    Missing(String, &'static str),
    #[error("{0} speaks version {1} of the message-queue interface, cohort version 2")]
    Version(String, c_int),
    #[error("no types for Open MPI's queues: {0}")]
    Types(String),
    #[error("the message-queue library cannot read this rank: {0}")]
    Library(String),
}

// The interface's own types (mpi_interface.h, with FOR_MPI2 off, on an LP64 host).
type Taddr = u64; // mqs_taddr_t: unsigned long
type Tword = i64; // mqs_tword_t: long

const MQS_OK: c_int = 0;
const MQS_NO_INFORMATION: c_int = 1;
const MQS_END_OF_LIST: c_int = 2;
const MQS_INTERFACE_COMPATIBILITY: c_int = 2;

/// `mqs_op_class`.
const QUEUES: [(c_int, &str); 3] = [
    (0, "Pending sends"),
    (1, "Pending receives"),
    (2, "Unexpected messages"),
];

#[repr(C)]
struct TargetTypeSizes {
    short_size: c_int,
    int_size: c_int,
    long_size: c_int,
    long_long_size: c_int,
    pointer_size: c_int,
    bool_size: c_int,
    size_t_size: c_int,
}

#[repr(C)]
struct MqsCommunicator {
    unique_id: Taddr,
    local_rank: Tword,
    size: Tword,
    name: [c_char; 64],
}

#[repr(C)]
struct PendingOperation {
    status: c_int,
    desired_local_rank: Tword,
    desired_global_rank: Tword,
    tag_wild: c_int,
    desired_tag: Tword,
    desired_length: Tword,
    system_buffer: c_int,
    buffer: Taddr,
    actual_local_rank: Tword,
    actual_global_rank: Tword,
    actual_tag: Tword,
    actual_length: Tword,
    extra_text: [[c_char; 64]; 5],
}

#[repr(C)]
struct BasicCallbacks {
    malloc: extern "C" fn(usize) -> *mut c_void,
    free: extern "C" fn(*mut c_void),
    dprints: extern "C" fn(*const c_char),
    errorstring: extern "C" fn(c_int) -> *const c_char,
    put_image_info: extern "C" fn(*mut Image, *mut c_void),
    get_image_info: extern "C" fn(*mut Image) -> *mut c_void,
    put_process_info: extern "C" fn(*mut Proc, *mut c_void),
    get_process_info: extern "C" fn(*mut Proc) -> *mut c_void,
}

#[repr(C)]
struct ImageCallbacks {
    get_type_sizes: extern "C" fn(*mut Proc, *mut TargetTypeSizes),
    find_function: extern "C" fn(*mut Image, *const c_char, c_int, *mut Taddr) -> c_int,
    find_symbol: extern "C" fn(*mut Image, *const c_char, *mut Taddr) -> c_int,
    find_type: extern "C" fn(*mut Image, *const c_char, c_int) -> *mut c_void,
    field_offset: extern "C" fn(*mut c_void, *const c_char) -> c_int,
    sizeof: extern "C" fn(*mut c_void) -> c_int,
}

#[repr(C)]
struct ProcessCallbacks {
    get_global_rank: extern "C" fn(*mut Proc) -> c_int,
    get_image: extern "C" fn(*mut Proc) -> *mut Image,
    fetch_data: extern "C" fn(*mut Proc, Taddr, c_int, *mut c_void) -> c_int,
    target_to_host: extern "C" fn(*mut Proc, *const c_void, *mut c_void, c_int),
}

static BASIC: BasicCallbacks = BasicCallbacks {
    malloc: cb_malloc,
    free: cb_free,
    dprints: cb_dprints,
    errorstring: cb_errorstring,
    put_image_info: cb_put_image_info,
    get_image_info: cb_get_image_info,
    put_process_info: cb_put_process_info,
    get_process_info: cb_get_process_info,
};

static IMAGE: ImageCallbacks = ImageCallbacks {
    get_type_sizes: cb_get_type_sizes,
    find_function: cb_find_function,
    find_symbol: cb_find_symbol,
    find_type: cb_find_type,
    field_offset: cb_field_offset,
    sizeof: cb_sizeof,
};

static PROCESS: ProcessCallbacks = ProcessCallbacks {
    get_global_rank: cb_get_global_rank,
    get_image: cb_get_image,
    fetch_data: cb_fetch_data,
    target_to_host: cb_target_to_host,
};

/// The debugger's image: the rank's symbols, the DWARF that has Open MPI's types, the types
/// handed out (their addresses are the library's `mqs_type *`), and the library's info.
struct Image {
    dbg: *const Debugger,
    types: Vec<Arc<DebugFile>>,
    /// Boxed: the boxes' addresses are the library's type handles, which must not move.
    #[allow(clippy::vec_box)]
    handles: Vec<Box<TypeRef>>,
    info: *mut c_void,
}

/// The debugger's process: one rank.
struct Proc {
    image: *mut Image,
    dbg: *const Debugger,
    rank: c_int,
    info: *mut c_void,
}

fn c_str(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the library passes NUL-terminated strings (names, messages) that live for the
    // call.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

extern "C" fn cb_malloc(n: usize) -> *mut c_void {
    // SAFETY: plain malloc; the library frees through cb_free.
    unsafe { libc::malloc(n.max(1)) }
}

extern "C" fn cb_free(p: *mut c_void) {
    // SAFETY: `p` came from cb_malloc (or is null).
    unsafe { libc::free(p) }
}

extern "C" fn cb_dprints(s: *const c_char) {
    if let Some(s) = c_str(s) {
        tracing::debug!("message-queue library: {s}");
    }
}

extern "C" fn cb_errorstring(_code: c_int) -> *const c_char {
    c"cohort could not answer the message-queue library".as_ptr()
}

extern "C" fn cb_put_image_info(i: *mut Image, info: *mut c_void) {
    // SAFETY: `i` is the live Image handed to the library by `queues`.
    unsafe { (*i).info = info }
}

extern "C" fn cb_get_image_info(i: *mut Image) -> *mut c_void {
    // SAFETY: as in cb_put_image_info.
    unsafe { (*i).info }
}

extern "C" fn cb_put_process_info(p: *mut Proc, info: *mut c_void) {
    // SAFETY: `p` is the live Proc handed to the library by `queues`.
    unsafe { (*p).info = info }
}

extern "C" fn cb_get_process_info(p: *mut Proc) -> *mut c_void {
    // SAFETY: as in cb_put_process_info.
    unsafe { (*p).info }
}

extern "C" fn cb_get_type_sizes(_p: *mut Proc, out: *mut TargetTypeSizes) {
    // An LP64 rank (the only ones cohort debugs: x86-64 and AArch64 Linux).
    let sizes = TargetTypeSizes {
        short_size: 2,
        int_size: 4,
        long_size: 8,
        long_long_size: 8,
        pointer_size: 8,
        bool_size: 1,
        size_t_size: 8,
    };
    // SAFETY: `out` points at the library's mqs_target_type_sizes.
    unsafe { out.write(sizes) }
}

/// The runtime address of `name` in the rank (any object), through `out` when not null.
fn find_address(i: *mut Image, name: *const c_char, out: *mut Taddr) -> c_int {
    let Some(name) = c_str(name) else {
        return MQS_NO_INFORMATION;
    };
    // SAFETY: `i` is the live Image; its debugger outlives the library's use of it.
    let dbg = unsafe { &*(*i).dbg };
    match dbg.session.symbols().lookup(&name) {
        Some(addr) => {
            if !out.is_null() {
                // SAFETY: a non-null `out` is the library's mqs_taddr_t.
                unsafe { out.write(addr) }
            }
            MQS_OK
        }
        None => MQS_NO_INFORMATION,
    }
}

extern "C" fn cb_find_function(
    i: *mut Image,
    name: *const c_char,
    _lang: c_int,
    out: *mut Taddr,
) -> c_int {
    find_address(i, name, out)
}

extern "C" fn cb_find_symbol(i: *mut Image, name: *const c_char, out: *mut Taddr) -> c_int {
    find_address(i, name, out)
}

extern "C" fn cb_find_type(i: *mut Image, name: *const c_char, _lang: c_int) -> *mut c_void {
    let Some(name) = c_str(name) else {
        return std::ptr::null_mut();
    };
    // SAFETY: `i` is the live Image, used by one call at a time.
    let image = unsafe { &mut *i };
    let Some(t) = image
        .types
        .iter()
        .find_map(|f| cohort_dwarf::dietypes::lookup_type(f, &name))
        .filter(|t| t.byte_size() > 0)
    else {
        return std::ptr::null_mut();
    };
    let h = Box::new(t);
    let p = &*h as *const TypeRef as *mut c_void;
    image.handles.push(h);
    p
}

/// The offset of the member `name` of an aggregate, looking into anonymous members.
fn member_offset(t: &TypeRef, name: &str) -> Option<u64> {
    let TypeKind::Aggregate { members, .. } = &t.strip().kind else {
        return None;
    };
    members.iter().find_map(|m| match &m.name {
        Some(n) if n == name => Some(m.offset),
        None => member_offset(m.ty.get(), name).map(|o| m.offset + o),
        _ => None,
    })
}

extern "C" fn cb_field_offset(t: *mut c_void, name: *const c_char) -> c_int {
    let Some(name) = c_str(name) else {
        return -1;
    };
    if t.is_null() {
        return -1;
    }
    // SAFETY: `t` is a handle cb_find_type made, alive while its Image is.
    let t = unsafe { &*(t as *const TypeRef) };
    member_offset(t, &name)
        .and_then(|o| c_int::try_from(o).ok())
        .unwrap_or(-1)
}

extern "C" fn cb_sizeof(t: *mut c_void) -> c_int {
    if t.is_null() {
        return 0;
    }
    // SAFETY: as in cb_field_offset.
    let t = unsafe { &*(t as *const TypeRef) };
    c_int::try_from(t.byte_size()).unwrap_or(0)
}

extern "C" fn cb_get_global_rank(p: *mut Proc) -> c_int {
    // SAFETY: `p` is the live Proc.
    unsafe { (*p).rank }
}

extern "C" fn cb_get_image(p: *mut Proc) -> *mut Image {
    // SAFETY: `p` is the live Proc.
    unsafe { (*p).image }
}

extern "C" fn cb_fetch_data(p: *mut Proc, addr: Taddr, len: c_int, buf: *mut c_void) -> c_int {
    let Ok(len) = usize::try_from(len) else {
        return MQS_NO_INFORMATION;
    };
    if buf.is_null() {
        return MQS_NO_INFORMATION;
    }
    // SAFETY: `p` is the live Proc; `buf` holds `len` bytes of the library's.
    let (dbg, out) = unsafe {
        (
            &*(*p).dbg,
            std::slice::from_raw_parts_mut(buf.cast::<u8>(), len),
        )
    };
    match dbg.session.read_memory(addr, out) {
        Ok(()) => MQS_OK,
        Err(_) => MQS_NO_INFORMATION,
    }
}

extern "C" fn cb_target_to_host(_p: *mut Proc, from: *const c_void, to: *mut c_void, len: c_int) {
    // The rank runs on this host: the same byte order.
    if let Ok(len) = usize::try_from(len) {
        // SAFETY: both buffers hold `len` bytes (the library's own).
        unsafe { std::ptr::copy_nonoverlapping(from.cast::<u8>(), to.cast::<u8>(), len) }
    }
}

// The entry points' types (mpi_interface.h).
type SetupImageFn = unsafe extern "C" fn(*mut Image, *const ImageCallbacks) -> c_int;
type ImageCheckFn = unsafe extern "C" fn(*mut Image, *mut *mut c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut c_void);
type SetupProcessFn = unsafe extern "C" fn(*mut Proc, *const ProcessCallbacks) -> c_int;
type ProcessCheckFn = unsafe extern "C" fn(*mut Proc, *mut *mut c_char) -> c_int;
type ProcessFn = unsafe extern "C" fn(*mut Proc) -> c_int;
type CommunicatorFn = unsafe extern "C" fn(*mut Proc, *mut MqsCommunicator) -> c_int;
type SetupOperationsFn = unsafe extern "C" fn(*mut Proc, c_int) -> c_int;
type OperationFn = unsafe extern "C" fn(*mut Proc, *mut PendingOperation) -> c_int;

/// The library's entry points.
struct Dll {
    path: String,
    setup_image: SetupImageFn,
    image_has_queues: ImageCheckFn,
    destroy_image_info: DestroyFn,
    setup_process: SetupProcessFn,
    process_has_queues: ProcessCheckFn,
    destroy_process_info: DestroyFn,
    update_communicator_list: ProcessFn,
    setup_communicator_iterator: ProcessFn,
    get_communicator: CommunicatorFn,
    next_communicator: ProcessFn,
    setup_operation_iterator: SetupOperationsFn,
    next_operation: OperationFn,
    dll_error_string: Option<unsafe extern "C" fn(c_int) -> *const c_char>,
}

/// The libraries loaded so far, by path (never unloaded); their lock serialises their use.
static LIBS: Mutex<Vec<Arc<Dll>>> = Mutex::new(Vec::new());

fn load(path: &str) -> Result<Arc<Dll>, MsgqError> {
    let mut libs = LIBS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(d) = libs.iter().find(|d| d.path == path) {
        return Ok(d.clone());
    }
    let cpath =
        CString::new(path).map_err(|_| MsgqError::Load(path.into(), "a NUL in the name".into()))?;
    // SAFETY: dlopen of the MPI library's own debugger plugin (it runs no code of the rank's;
    // its constructors are the C runtime's).
    let h = unsafe { libc::dlopen(cpath.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if h.is_null() {
        // SAFETY: dlerror's message is valid until the next dl call, made under the lock.
        let why = c_str(unsafe { libc::dlerror() }).unwrap_or_default();
        return Err(MsgqError::Load(path.into(), why));
    }
    let sym = |name: &'static str| -> Result<*mut c_void, MsgqError> {
        let c = CString::new(name).map_err(|_| MsgqError::Missing(path.into(), name))?;
        // SAFETY: looking a name up in the handle just opened.
        let p = unsafe { libc::dlsym(h, c.as_ptr()) };
        if p.is_null() {
            Err(MsgqError::Missing(path.into(), name))
        } else {
            Ok(p)
        }
    };
    macro_rules! entry {
        ($name:literal, $t:ty) => {
            // SAFETY: the MQS interface declares this entry point with this signature.
            unsafe { std::mem::transmute::<*mut c_void, $t>(sym($name)?) }
        };
    }
    let setup_basic = entry!(
        "mqs_setup_basic_callbacks",
        unsafe extern "C" fn(*const BasicCallbacks)
    );
    let version = entry!("mqs_version_compatibility", unsafe extern "C" fn() -> c_int);
    // SAFETY: an entry point of the interface, no arguments.
    let v = unsafe { version() };
    if v != MQS_INTERFACE_COMPATIBILITY {
        return Err(MsgqError::Version(path.into(), v));
    }
    let dll_error_string = sym("mqs_dll_error_string").ok().map(|p| {
        // SAFETY: as in entry!.
        unsafe {
            std::mem::transmute::<*mut c_void, unsafe extern "C" fn(c_int) -> *const c_char>(p)
        }
    });
    let d = Arc::new(Dll {
        path: path.into(),
        setup_image: entry!(
            "mqs_setup_image",
            unsafe extern "C" fn(*mut Image, *const ImageCallbacks) -> c_int
        ),
        image_has_queues: entry!(
            "mqs_image_has_queues",
            unsafe extern "C" fn(*mut Image, *mut *mut c_char) -> c_int
        ),
        destroy_image_info: entry!("mqs_destroy_image_info", DestroyFn),
        setup_process: entry!(
            "mqs_setup_process",
            unsafe extern "C" fn(*mut Proc, *const ProcessCallbacks) -> c_int
        ),
        process_has_queues: entry!(
            "mqs_process_has_queues",
            unsafe extern "C" fn(*mut Proc, *mut *mut c_char) -> c_int
        ),
        destroy_process_info: entry!(
            "mqs_destroy_process_info",
            unsafe extern "C" fn(*mut c_void)
        ),
        update_communicator_list: entry!(
            "mqs_update_communicator_list",
            unsafe extern "C" fn(*mut Proc) -> c_int
        ),
        setup_communicator_iterator: entry!(
            "mqs_setup_communicator_iterator",
            unsafe extern "C" fn(*mut Proc) -> c_int
        ),
        get_communicator: entry!(
            "mqs_get_communicator",
            unsafe extern "C" fn(*mut Proc, *mut MqsCommunicator) -> c_int
        ),
        next_communicator: entry!(
            "mqs_next_communicator",
            unsafe extern "C" fn(*mut Proc) -> c_int
        ),
        setup_operation_iterator: entry!(
            "mqs_setup_operation_iterator",
            unsafe extern "C" fn(*mut Proc, c_int) -> c_int
        ),
        next_operation: entry!(
            "mqs_next_operation",
            unsafe extern "C" fn(*mut Proc, *mut PendingOperation) -> c_int
        ),
        dll_error_string,
    });
    // SAFETY: the table is static, as the interface requires.
    unsafe { setup_basic(&BASIC) };
    libs.push(d.clone());
    Ok(d)
}

/// The library's words for a code, or its message.
fn library_error(dll: &Dll, code: c_int, msg: *mut c_char) -> MsgqError {
    let text = c_str(msg)
        .filter(|m| !m.is_empty())
        .map(|m| m.replace("%s", "the rank's MPI library"))
        .or_else(|| {
            // SAFETY: the library's own error-string entry point.
            dll.dll_error_string
                .and_then(|f| c_str(unsafe { f(code) }))
                .filter(|m| !m.is_empty())
        })
        .unwrap_or_else(|| format!("error {code}"));
    MsgqError::Library(text)
}

/// One operation of a queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// 0 pending, 1 matched, 2 complete (`mqs_status`).
    pub status: i32,
    /// The peer in the communicator (-1: any source) and in MPI_COMM_WORLD.
    pub peer: i64,
    pub world_peer: i64,
    /// `None`: any tag.
    pub tag: Option<i64>,
    /// Bytes.
    pub length: i64,
    pub buffer: u64,
    /// The library's extra lines (Open MPI: the request, the datatype).
    pub extra: Vec<String>,
}

/// One communicator of a rank, with its queues (`None`: the library does not show that one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommQueues {
    pub name: String,
    pub size: i64,
    pub local_rank: i64,
    pub queues: [Option<Vec<Operation>>; 3],
}

/// No queue is walked past this many operations (memory that changes under the walk).
const MAX_OPS: usize = 100_000;

/// The message-queue library the rank names (`MPIR_dll_name`, read from its memory).
fn dll_name(d: &Debugger) -> Result<String, MsgqError> {
    let (addr, size) = d
        .session
        .symbols()
        .data_symbol("MPIR_dll_name")
        .ok_or(MsgqError::NoDllName)?;
    let mut buf = vec![0u8; usize::try_from(size).unwrap_or(0).clamp(1, 4096)];
    d.session
        .read_memory(addr, &mut buf)
        .map_err(|_| MsgqError::DllNameUnreadable)?;
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).into_owned();
    if name.is_empty() {
        return Err(MsgqError::NoDllName);
    }
    Ok(name)
}

/// Where Open MPI's types come from for this rank: the DWARF of its `libmpi` and
/// `libopen-pal` when they have it, else the types compiled from the installed headers (when
/// that Open MPI is the rank's, and its structures have the sizes of the rank's globals).
fn type_sources(d: &Debugger) -> Result<Vec<Arc<DebugFile>>, MsgqError> {
    let syms = d.session.symbols();
    let (lib, arr) = syms
        .lookup_symbol("ompi_mpi_communicators")
        .ok_or_else(|| MsgqError::Types("the rank has no ompi_mpi_communicators".into()))?;
    let libmpi = lib.file.path.clone();
    let arr_size = arr.size;
    let list_size = syms
        .lookup_symbol("mca_pml_base_send_requests")
        .map_or(0, |(_, s)| s.size);
    let own: Vec<Arc<DebugFile>> = syms
        .objects()
        .map(|o| o.file.path.clone())
        .filter(|p| {
            *p == libmpi
                || p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("libopen-pal"))
        })
        .filter_map(|p| DebugFile::load(&p).ok())
        .filter(|f| f.has_debug_info())
        .collect();
    let has = |files: &[Arc<DebugFile>], name: &str| {
        files
            .iter()
            .find_map(|f| cohort_dwarf::dietypes::lookup_type(f, name))
            .map(|t| t.byte_size())
    };
    if has(&own, "ompi_communicator_t").is_some() && has(&own, "opal_list_t").is_some() {
        return Ok(own);
    }
    let shim = shim_types(&libmpi)?;
    let shim = vec![shim];
    // The compiled types must be the rank's: the sizes of two of its globals.
    for (ty, sym, size) in [
        ("opal_pointer_array_t", "ompi_mpi_communicators", arr_size),
        ("opal_free_list_t", "mca_pml_base_send_requests", list_size),
    ] {
        let got = has(&shim, ty).unwrap_or(0);
        if got != size {
            return Err(MsgqError::Types(format!(
                "{ty} from the installed headers has {got} bytes, the rank's {sym} {size}"
            )));
        }
    }
    Ok(shim)
}

/// The compiled types by the rank's `libmpi`, or why there are none: found once per agent
/// (the ranks of an agent ask together, and finding runs `mpicc`).
type Shim = Result<Arc<DebugFile>, String>;
static SHIMS: Mutex<Vec<(PathBuf, Shim)>> = Mutex::new(Vec::new());

fn shim_types(libmpi: &Path) -> Result<Arc<DebugFile>, MsgqError> {
    let mut shims = SHIMS.lock().unwrap_or_else(|e| e.into_inner());
    let found = match shims.iter().find(|(p, _)| p == libmpi) {
        Some((_, s)) => s.clone(),
        None => {
            let s = find_shim_types(libmpi).map_err(|e| match e {
                MsgqError::Types(t) => t,
                e => e.to_string(),
            });
            shims.push((libmpi.to_path_buf(), s.clone()));
            s
        }
    };
    found.map_err(MsgqError::Types)
}

/// The DWARF of the types compiled with the Open MPI that links the rank's `libmpi`.
fn find_shim_types(libmpi: &Path) -> Result<Arc<DebugFile>, MsgqError> {
    let no_dwarf = || {
        format!(
            "{} has no DWARF (no debug symbols installed)",
            libmpi.display()
        )
    };
    let (cc, dirs) = cohort_launch::msgq_types::open_mpi_compiler()
        .map_err(|e| MsgqError::Types(format!("{}, and {e}", no_dwarf())))?;
    // The rank's libmpi is the one that compiler links (`DIR/libmpi.so`, a link to it).
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let rank_lib = canon(libmpi);
    if rank_lib.is_none() || !dirs.iter().any(|d| canon(&d.join("libmpi.so")) == rank_lib) {
        return Err(MsgqError::Types(format!(
            "{}, and {} belongs to another Open MPI (its libraries are in {})",
            no_dwarf(),
            cc.display(),
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        )));
    }
    let lib: PathBuf = cohort_launch::msgq_types::types_library(&cc)
        .map_err(|e| MsgqError::Types(format!("{}, and {e}", no_dwarf())))?;
    DebugFile::load(&lib).map_err(|e| MsgqError::Types(format!("{}: {e}", lib.display())))
}

/// The rank's communicators and their queues, as its MPI library's message-queue library
/// reads them (the rank stopped).
pub fn queues(d: &Debugger, rank: u32) -> Result<Vec<CommQueues>, MsgqError> {
    if d.pid().is_none() {
        return Err(MsgqError::NoProcess);
    }
    let path = dll_name(d)?;
    let types = type_sources(d)?;
    let dll = load(&path)?;
    // One rank at a time: the library's state is per image and process, but it was written
    // for a debugger that calls it from one thread.
    let _one = LIBS.lock().unwrap_or_else(|e| e.into_inner());
    let image = Box::into_raw(Box::new(Image {
        dbg: d,
        types,
        handles: Vec::new(),
        info: std::ptr::null_mut(),
    }));
    let proc_ = Box::into_raw(Box::new(Proc {
        image,
        dbg: d,
        rank: c_int::try_from(rank).unwrap_or(c_int::MAX),
        info: std::ptr::null_mut(),
    }));
    let r = walk(&dll, image, proc_);
    // SAFETY: the objects made above; the library's infos are freed by the library, before
    // the objects they hang on.
    unsafe {
        if !(*proc_).info.is_null() {
            (dll.destroy_process_info)((*proc_).info);
        }
        if !(*image).info.is_null() {
            (dll.destroy_image_info)((*image).info);
        }
        drop(Box::from_raw(proc_));
        drop(Box::from_raw(image));
    }
    r
}

/// The interface's calls, in a debugger's order.
fn walk(dll: &Dll, image: *mut Image, p: *mut Proc) -> Result<Vec<CommQueues>, MsgqError> {
    let mut msg: *mut c_char = std::ptr::null_mut();
    // SAFETY (this block's calls): the MQS entry points, given the live image and process
    // objects and the static callback tables, as the interface prescribes.
    unsafe {
        let rc = (dll.setup_image)(image, &IMAGE);
        if rc != MQS_OK {
            return Err(library_error(dll, rc, msg));
        }
        let rc = (dll.image_has_queues)(image, &mut msg);
        if rc != MQS_OK {
            return Err(library_error(dll, rc, msg));
        }
        let rc = (dll.setup_process)(p, &PROCESS);
        if rc != MQS_OK {
            return Err(library_error(dll, rc, std::ptr::null_mut()));
        }
        msg = std::ptr::null_mut();
        let rc = (dll.process_has_queues)(p, &mut msg);
        if rc != MQS_OK {
            return Err(library_error(dll, rc, msg));
        }
        let rc = (dll.update_communicator_list)(p);
        if rc != MQS_OK {
            return Err(library_error(dll, rc, std::ptr::null_mut()));
        }
        let mut out = Vec::new();
        let mut rc = (dll.setup_communicator_iterator)(p);
        while rc == MQS_OK && out.len() < MAX_OPS {
            let mut c: MqsCommunicator = std::mem::zeroed();
            if (dll.get_communicator)(p, &mut c) != MQS_OK {
                break;
            }
            let name = c.name.map(|b| b as u8);
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            let mut comm = CommQueues {
                name: String::from_utf8_lossy(&name[..end]).into_owned(),
                size: c.size,
                local_rank: c.local_rank,
                queues: [None, None, None],
            };
            for (i, (class, _)) in QUEUES.iter().enumerate() {
                if (dll.setup_operation_iterator)(p, *class) != MQS_OK {
                    continue;
                }
                let mut ops = Vec::new();
                while ops.len() < MAX_OPS {
                    let mut op: PendingOperation = std::mem::zeroed();
                    if (dll.next_operation)(p, &mut op) != MQS_OK {
                        break;
                    }
                    ops.push(operation(&op));
                }
                comm.queues[i] = Some(ops);
            }
            out.push(comm);
            rc = (dll.next_communicator)(p);
        }
        if rc != MQS_OK && rc != MQS_END_OF_LIST && out.is_empty() {
            return Err(library_error(dll, rc, std::ptr::null_mut()));
        }
        Ok(out)
    }
}

/// The library's operation. Open MPI's library says "complete" for a request whose
/// `req_complete` is not null, but since Open MPI 2 a rank that waits on a request keeps its
/// wait object there: a request whose data the library does not call transferred ("Data
/// transfer completed") is pending. Ranks and tags are C `int`s, which the library widens
/// without their sign (`MPI_ANY_SOURCE` came out 4294967295).
fn operation(op: &PendingOperation) -> Operation {
    let extra: Vec<String> = op
        .extra_text
        .iter()
        .map(|l| {
            let b = l.map(|c| c as u8);
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            String::from_utf8_lossy(&b[..end]).into_owned()
        })
        .filter(|s| !s.is_empty())
        .collect();
    let transferred = extra.iter().any(|e| e == "Data transfer completed");
    let status = if op.status == 2 && !transferred {
        0
    } else {
        op.status
    };
    let int = |v: Tword| i64::from(v as i32);
    let matched = status > 0;
    let (peer, world_peer, tag) = if matched {
        (
            op.actual_local_rank,
            op.actual_global_rank,
            Some(op.actual_tag),
        )
    } else {
        (
            op.desired_local_rank,
            op.desired_global_rank,
            (op.tag_wild == 0).then_some(op.desired_tag),
        )
    };
    Operation {
        status,
        peer: int(peer),
        world_peer: int(world_peer),
        tag: tag.map(int),
        length: op.desired_length,
        buffer: op.buffer,
        extra,
    }
}

/// One operation in words: `to 1, tag 7: 400000 bytes, buffer 0x…`. (Open MPI 4's library
/// cuts the datatype's name to its first four characters, `MPI_`: it is left out.)
fn describe(class: usize, op: &Operation) -> String {
    let dir = if class == 0 { "to" } else { "from" };
    let peer = if op.peer < 0 {
        "any source".to_string()
    } else if op.world_peer >= 0 && op.world_peer != op.peer {
        format!("{dir} {} (world rank {})", op.peer, op.world_peer)
    } else {
        format!("{dir} {}", op.peer)
    };
    let tag = op
        .tag
        .map_or_else(|| "any tag".to_string(), |t| format!("tag {t}"));
    let status = match op.status {
        1 => ", matched",
        2 => ", complete",
        _ => "",
    };
    format!(
        "{peer}, {tag}: {} bytes, buffer {:#x}{status}",
        op.length, op.buffer
    )
}

/// The queues in words: the communicators with operations first, each queue under it; then
/// the communicators with none, in one line.
pub fn render(comms: &[CommQueues]) -> String {
    if comms.is_empty() {
        return "No communicators (MPI is not initialized, or was finalized).\n".to_string();
    }
    let mut out = String::new();
    let mut idle = Vec::new();
    let mut hidden = false;
    for c in comms {
        let any = c.queues.iter().flatten().any(|q| !q.is_empty());
        hidden |= c.queues.iter().any(Option::is_none);
        let name = if c.name.is_empty() {
            "(unnamed)"
        } else {
            &c.name
        };
        if !any {
            idle.push(name.to_string());
            continue;
        }
        out.push_str(&format!(
            "Communicator {name} (size {}, this rank {}):\n",
            c.size, c.local_rank
        ));
        for (i, q) in c.queues.iter().enumerate() {
            let Some(q) = q else { continue };
            if q.is_empty() {
                out.push_str(&format!("  {}: none\n", QUEUES[i].1));
                continue;
            }
            out.push_str(&format!("  {}:\n", QUEUES[i].1));
            for op in q {
                out.push_str(&format!("    {}\n", describe(i, op)));
            }
        }
    }
    if !idle.is_empty() {
        out.push_str(&format!("No pending messages in {}.\n", idle.join(", ")));
    }
    if hidden {
        out.push_str(
            "(The MPI library's message-queue interface does not show unexpected messages.)\n",
        );
    }
    out
}

/// The rank's answer to `:mq`: its queues in words, or why they cannot be shown.
pub fn report(d: &Debugger, rank: u32) -> Result<String, MsgqError> {
    queues(d, rank).map(|c| render(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(status: i32, peer: i64, tag: Option<i64>) -> Operation {
        Operation {
            status,
            peer,
            world_peer: peer,
            tag,
            length: 40,
            buffer: 0x7ffd_0000_1000,
            extra: vec![
                "Receive: 0x55d0c0000000".to_string(),
                "Data: 4 instances of MPI datatype".to_string(),
                "MPI_INT".to_string(),
            ],
        }
    }

    #[test]
    fn no_communicators_in_words() {
        assert_eq!(
            render(&[]),
            "No communicators (MPI is not initialized, or was finalized).\n"
        );
    }

    #[test]
    fn queues_in_words() {
        let c = vec![
            CommQueues {
                name: "MPI_COMM_WORLD".into(),
                size: 3,
                local_rank: 1,
                queues: [
                    Some(vec![]),
                    Some(vec![op(0, 0, Some(8)), op(0, -1, None)]),
                    None,
                ],
            },
            CommQueues {
                name: "MPI_COMM_SELF".into(),
                size: 1,
                local_rank: 0,
                queues: [Some(vec![]), Some(vec![]), None],
            },
        ];
        assert_eq!(
            render(&c),
            "Communicator MPI_COMM_WORLD (size 3, this rank 1):\n  Pending sends: none\n  Pending receives:\n    from 0, tag 8: 40 bytes, buffer 0x7ffd00001000\n    any source, any tag: 40 bytes, buffer 0x7ffd00001000\nNo pending messages in MPI_COMM_SELF.\n(The MPI library's message-queue interface does not show unexpected messages.)\n"
        );
    }
}
