//! Print what cohort-cuda reads from a cubin: `cargo run --example cubin_dump -- FILE.cubin`,
//! or `-- --nvrtc FILE.cu [NVRTC OPTIONS...]` to compile a CUDA source first.
use cohort_cuda::cubin::Cubin;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bytes = if args.first().map(String::as_str) == Some("--nvrtc") {
        let path = args.get(1).ok_or("--nvrtc FILE.cu")?;
        let src = std::fs::read_to_string(path)?;
        let name = std::path::Path::new(path)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("kernel.cu");
        let opts: Vec<&str> = args[2..].iter().map(String::as_str).collect();
        cohort_cuda::nvrtc::Nvrtc::load()?.compile_cubin(&src, name, &opts)?
    } else {
        std::fs::read(args.first().ok_or("FILE.cubin")?)?
    };
    let c = Cubin::parse(&bytes)?;
    println!("sm_{} relocated={}", c.sm(), c.was_relocated());
    for s in c.sections() {
        println!(
            "section {:2} {:32} type={:#x} addr={:#x} size={:#x}",
            s.index, s.name, s.sh_type, s.addr, s.size
        );
    }
    for f in c.functions() {
        println!(
            "function {} {:#x} {:#x} entry={}",
            f.name, f.addr, f.size, f.entry
        );
    }
    for u in c.units()? {
        println!("unit {u:?}");
    }
    for r in c.line_rows() {
        println!(
            "row {:#x} {} {} end={}",
            r.addr, r.file, r.line, r.end_sequence
        );
    }
    for f in c.functions() {
        println!("break {} -> {:x?}", f.name, c.breakpoint_address(&f.name));
        for v in c.variables(&f.name)? {
            println!("  var {v:?}");
        }
        for (n, l) in c.register_map().entries(&f.name) {
            println!(
                "  reg {n} part {} {} [{:#x},{:#x})",
                l.part, l.reg, l.start, l.end
            );
        }
    }
    for v in c.globals()? {
        println!("global {v:?}");
    }
    for cie in &c.debug_frame().cies {
        println!(
            "cie v{} ca={} da={} ra={:?} {} instructions, first {:?}",
            cie.version,
            cie.code_align,
            cie.data_align,
            cie.return_address,
            cie.instructions.len(),
            cie.instructions.iter().take(3).collect::<Vec<_>>()
        );
    }
    for fde in &c.debug_frame().fdes {
        println!("fde {:#x}+{:#x} {:?}", fde.start, fde.len, fde.instructions);
    }
    Ok(())
}
