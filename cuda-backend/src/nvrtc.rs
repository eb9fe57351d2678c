//! NVRTC, NVIDIA's run-time CUDA C++ compiler (`libnvrtc.so.12`), loaded with `libloading`:
//! compiles a kernel source to a cubin for a real SM (`nvrtcGetCUBIN`). It needs no GPU; the
//! library comes from PyPI (`pip install nvidia-cuda-nvrtc-cu12`), so it is found through
//! `COHORT_NVRTC` (a path to the library), then the Python package, then the loader's path.
//!
//! Loaded at run time rather than linked: the crate builds and its other tests run where
//! NVRTC is absent, and the error then says how to get it.

use std::ffi::{CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{CudaError, Result};

type Program = *mut c_void;
type CreateFn = unsafe extern "C" fn(
    *mut Program,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileFn = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> c_int;
type GetFn = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut Program) -> c_int;

/// The NVRTC library, loaded once.
pub struct Nvrtc {
    lib: libloading::Library,
    path: PathBuf,
}

/// Where NVRTC is: `COHORT_NVRTC`, the `nvidia-cuda-nvrtc-cu12` Python package, or the bare
/// soname for the dynamic loader.
pub fn locate() -> PathBuf {
    if let Some(p) = std::env::var_os("COHORT_NVRTC") {
        return PathBuf::from(p);
    }
    let py = Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvrtc as m, os; print(os.path.join(list(m.__path__)[0], 'lib'))",
        ])
        .output();
    if let Ok(out) = py
        && out.status.success()
    {
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let p = Path::new(&dir).join("libnvrtc.so.12");
        if p.exists() {
            return p;
        }
    }
    PathBuf::from("libnvrtc.so.12")
}

impl Nvrtc {
    /// Load NVRTC from [`locate`].
    pub fn load() -> Result<Nvrtc> {
        Self::load_from(&locate())
    }

    pub fn load_from(path: &Path) -> Result<Nvrtc> {
        // SAFETY: loading NVRTC runs its initialisers, which have no preconditions.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| CudaError::Library {
            path: path.display().to_string(),
            reason: format!("{e} (pip install nvidia-cuda-nvrtc-cu12, or set COHORT_NVRTC)"),
        })?;
        Ok(Nvrtc {
            lib,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sym<T: Copy>(&self, name: &'static str) -> Result<T> {
        // SAFETY: the type parameter is the documented C signature of `name` (nvrtc.h).
        let s = unsafe { self.lib.get::<T>(name.as_bytes()) }
            .map_err(|e| CudaError::Nvrtc(format!("{name}: {e}")))?;
        Ok(*s)
    }

    /// Compile `source` (named `name` in its debug information) with `options` (e.g.
    /// `--gpu-architecture=sm_90`, `-G`, `-lineinfo`) and return the cubin.
    pub fn compile_cubin(&self, source: &str, name: &str, options: &[&str]) -> Result<Vec<u8>> {
        let create: CreateFn = self.sym("nvrtcCreateProgram")?;
        let compile: CompileFn = self.sym("nvrtcCompileProgram")?;
        let log_size: SizeFn = self.sym("nvrtcGetProgramLogSize")?;
        let get_log: GetFn = self.sym("nvrtcGetProgramLog")?;
        let cubin_size: SizeFn = self.sym("nvrtcGetCUBINSize")?;
        let get_cubin: GetFn = self.sym("nvrtcGetCUBIN")?;
        let destroy: DestroyFn = self.sym("nvrtcDestroyProgram")?;
        let src = CString::new(source).map_err(|_| CudaError::Nvrtc("NUL in source".into()))?;
        let cname = CString::new(name).map_err(|_| CudaError::Nvrtc("NUL in name".into()))?;
        let opts: Vec<CString> = options
            .iter()
            .map(|o| CString::new(*o).map_err(|_| CudaError::Nvrtc("NUL in option".into())))
            .collect::<Result<_>>()?;
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: valid NUL-terminated strings; no headers (count 0, null arrays).
        let rc = unsafe {
            create(
                &mut prog,
                src.as_ptr(),
                cname.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if rc != 0 {
            return Err(CudaError::Nvrtc(format!("nvrtcCreateProgram: error {rc}")));
        }
        // SAFETY: `prog` was created above; `ptrs` holds `opts.len()` valid strings.
        let rc = unsafe { compile(prog, ptrs.len() as c_int, ptrs.as_ptr()) };
        let result = if rc != 0 {
            let mut n = 0usize;
            // SAFETY: `prog` is valid, `n` receives the log size.
            unsafe { log_size(prog, &mut n) };
            let mut log = vec![0u8; n.max(1)];
            // SAFETY: `log` has room for the `n` bytes NVRTC writes.
            unsafe { get_log(prog, log.as_mut_ptr().cast()) };
            let text = String::from_utf8_lossy(&log);
            Err(CudaError::Nvrtc(format!(
                "compiling {name} failed: {}",
                text.trim_end_matches('\0').trim()
            )))
        } else {
            let mut n = 0usize;
            // SAFETY: `prog` compiled; `n` receives the cubin size.
            let rc = unsafe { cubin_size(prog, &mut n) };
            if rc != 0 || n == 0 {
                Err(CudaError::Nvrtc(format!(
                    "no cubin (error {rc}): was a real architecture (sm_XX) given?"
                )))
            } else {
                let mut buf = vec![0u8; n];
                // SAFETY: `buf` has the `n` bytes NVRTC writes.
                let rc = unsafe { get_cubin(prog, buf.as_mut_ptr().cast()) };
                if rc != 0 {
                    Err(CudaError::Nvrtc(format!("nvrtcGetCUBIN: error {rc}")))
                } else {
                    Ok(buf)
                }
            }
        };
        // SAFETY: `prog` is valid and not used after this.
        unsafe { destroy(&mut prog) };
        result
    }
}
