//! ELF images as NVIDIA's driver hands them to a debugger (`getElfImageByHandle`, relocated),
//! recorded on an H200 (driver 580.159.04, API 13.0.163) from `nvcc -g -G -arch=sm_90` builds
//! of tests/cuda/bitreverse.cu and tests/cuda/fault.cu (scripts/gpu-check.sh with
//! `COHORT_CUDA_SAVE_IMAGES`). The expected addresses are cuda-gdb's on the same run
//! (tests/cuda/hardware/*.cuda-gdb.txt): the PC of every thread at the breakpoint on line 15,
//! the warp stepped to line 16, the fault's error PC (line 12) and the stop after it (line 13).

use std::path::Path;

use cohort_cuda::cubin::Cubin;

fn image(name: &str) -> Cubin {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/cuda/hardware")
        .join(name);
    let data = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    Cubin::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_drivers_relocated_bitreverse() {
    let c = image("bitreverse.relocated.cubin");
    assert_eq!(c.sm(), 90);
    let kernels: Vec<(&str, u64, u64)> = c
        .functions()
        .iter()
        .filter(|f| f.entry)
        .map(|f| (f.name.as_str(), f.addr, f.size))
        .collect();
    assert_eq!(
        kernels,
        [
            ("bitreverse", 0x7ffddb7a1500, 2432),
            ("scale", 0x7ffddb7a2700, 3456)
        ]
    );
    // cuda-gdb: every thread stopped by `break bitreverse.cu:15` was at 0x7ffddb7a1a00.
    assert_eq!(c.resolve("bitreverse.cu:15"), [0x7ffddb7a1a00]);
    assert_eq!(c.find_line(0x7ffddb7a1a00), Some(("bitreverse.cu", 15)));
    // After `next`, cuda-gdb's threads table has the warp at 0x7ffddb7a1b20, line 16.
    assert_eq!(c.find_line(0x7ffddb7a1b20), Some(("bitreverse.cu", 16)));
    // The `stepi` from the breakpoint went to 0x7ffddb7a1a10, still line 15.
    assert_eq!(c.find_line(0x7ffddb7a1a10), Some(("bitreverse.cu", 15)));
}

#[test]
fn the_drivers_relocated_fault() {
    let c = image("fault.relocated.cubin");
    let f = c.function("fault").expect("the kernel");
    assert!(f.entry);
    // cuda-gdb: "The exception was triggered at PC 0x7ffddb7a1ad0  fault  (fault.cu:12)",
    // then the stop at 0x00007ffddb7a1af0 ... at tests/cuda/fault.cu:13.
    assert_eq!(c.find_line(0x7ffddb7a1ad0), Some(("fault.cu", 12)));
    assert_eq!(c.find_line(0x7ffddb7a1af0), Some(("fault.cu", 13)));
    assert_eq!(
        c.function_at(0x7ffddb7a1ad0).map(|f| f.name.as_str()),
        Some("fault")
    );
    // Its pointers point into the generic space, which cuda-gdb prints: `print p` gave
    // `(int * @generic) 0x7ffdd3e00000`.
    let vars = c.variables("fault").expect("the kernel's variables");
    let types: Vec<(&str, &str)> = vars
        .iter()
        .map(|v| (v.name.as_str(), v.type_name.as_str()))
        .collect();
    assert_eq!(
        types,
        [
            ("out", "int * @generic"),
            ("idx", "int"),
            ("p", "int * @generic")
        ]
    );
}
