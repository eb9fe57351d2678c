//! Test support: builds the CUDBG test double (`tests/cuda/cudbg_double.c`), its debuggee
//! (`tests/cuda/cudbg_debuggee.c`) and the `-G` cubin of `tests/cuda/bitreverse.cu` into
//! `target/cuda-fixtures/TAG/`, for this crate's tests and the command line's. The double is
//! a stand-in for NVIDIA's driver side only; everything of Cohort runs for real against it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{CudaError, Result};

/// The repository's `tests/cuda/`.
pub fn cuda_sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cuda")
}

pub struct DoubleFixture {
    /// The double, `libcudbgdouble.so`: the debuggee's "libcuda" and the API library.
    pub library: PathBuf,
    /// The host program; its argument is the library's path.
    pub debuggee: PathBuf,
    /// The kernel's cubin, which the double hands out as the module's ELF image.
    pub cubin: PathBuf,
}

impl DoubleFixture {
    /// The debuggee's arguments.
    pub fn args(&self) -> Vec<OsString> {
        vec![self.library.clone().into_os_string()]
    }
    /// The environment the debuggee needs (the cubin's path).
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        vec![(
            "COHORT_CUDBG_DOUBLE_CUBIN".into(),
            self.cubin.clone().into_os_string(),
        )]
    }
}

fn cc(args: &[&str]) -> Result<()> {
    let st = Command::new("cc")
        .args(args)
        .status()
        .map_err(|e| CudaError::Handshake(format!("running cc: {e}")))?;
    if st.success() {
        Ok(())
    } else {
        Err(CudaError::Handshake(format!("cc {args:?} failed")))
    }
}

fn s(p: &Path) -> Result<&str> {
    p.to_str()
        .ok_or_else(|| CudaError::Handshake(format!("non-UTF-8 path {}", p.display())))
}

/// Build everything under `target/cuda-fixtures/TAG` (one folder per caller, so that tests
/// running at once do not write the same files).
pub fn build_double(tag: &str) -> Result<DoubleFixture> {
    build(tag, false)
}

/// [`build_double`] with a host stub of the kernel in the debuggee, as nvcc makes one: host
/// code at line 20 of bitreverse.cu (the kernel's last line), called by the launch.
pub fn build_double_with_stub(tag: &str) -> Result<DoubleFixture> {
    build(tag, true)
}

fn build(tag: &str, stub: bool) -> Result<DoubleFixture> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/cuda-fixtures")
        .join(tag);
    std::fs::create_dir_all(&dir).map_err(|e| CudaError::Handshake(e.to_string()))?;
    let src = cuda_sources();
    let library = dir.join("libcudbgdouble.so");
    cc(&[
        "-g",
        "-Wall",
        "-shared",
        "-fPIC",
        "-o",
        s(&library)?,
        s(&src.join("cudbg_double.c"))?,
        "-lpthread",
    ])?;
    let debuggee = dir.join("cudbg_debuggee");
    let debuggee_c = src.join("cudbg_debuggee.c");
    let mut args = vec!["-g", "-O0", "-o", s(&debuggee)?, s(&debuggee_c)?, "-ldl"];
    if stub {
        // The kernel's host stub, exported for the double's launch (nvcc's runtime calls it).
        args.extend([
            "-DHOST_STUB",
            "-Wl,--export-dynamic-symbol=__device_stub__bitreverse",
        ]);
    }
    cc(&args)?;
    // Named by its absolute path, so that stops show the source line.
    let cu = std::fs::canonicalize(src.join("bitreverse.cu"))
        .map_err(|e| CudaError::Handshake(e.to_string()))?;
    let text = std::fs::read_to_string(&cu).map_err(|e| CudaError::Handshake(e.to_string()))?;
    let bytes = crate::nvrtc::Nvrtc::load()?.compile_cubin(
        &text,
        s(&cu)?,
        &["--gpu-architecture=sm_90", "-G"],
    )?;
    let cubin = dir.join("bitreverse.cubin");
    std::fs::write(&cubin, bytes).map_err(|e| CudaError::Handshake(e.to_string()))?;
    Ok(DoubleFixture {
        library,
        debuggee,
        cubin,
    })
}
