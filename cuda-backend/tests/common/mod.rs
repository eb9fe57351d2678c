//! Cubin fixtures: the CUDA sources under `tests/cuda/` compiled at test time by NVRTC.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `tests/cuda/NAME`.
pub fn cuda_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/cuda")
        .join(name)
}

/// Compile `tests/cuda/NAME` with NVRTC for sm_90 with `flags` (`-G`, `-lineinfo`). The
/// program is named NAME, so its DWARF says NAME and the test's working directory (the
/// crate's folder) as the compilation directory.
pub fn cubin(name: &str, flags: &[&str]) -> Vec<u8> {
    let src = std::fs::read_to_string(cuda_source(name)).expect("read CUDA fixture");
    let nvrtc = cohort_cuda::nvrtc::Nvrtc::load().unwrap_or_else(|e| {
        panic!("{e}\nscripts/test.sh installs NVRTC: pip install nvidia-cuda-nvrtc-cu12")
    });
    let mut opts = vec!["--gpu-architecture=sm_90"];
    opts.extend_from_slice(flags);
    nvrtc
        .compile_cubin(&src, name, &opts)
        .unwrap_or_else(|e| panic!("{e}"))
}
