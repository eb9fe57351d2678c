//! Cubins built by NVRTC 12.9 (`-G` and `-lineinfo`, sm_90) from `tests/cuda/bitreverse.cu`,
//! read by `cohort_cuda::cubin`. The expected values were taken once from the same cubins with
//! `readelf`, `cuobjdump -elf` and `nvdisasm -g` (CUDA 13 tools from PyPI) — addresses shifted
//! by the layout described in `cubin.rs` — and are asserted exactly.

mod common;

use std::sync::OnceLock;

use cohort_cuda::cubin::{AddressClass, Cubin, Location, VarKind};
use cohort_cuda::frame::Cfa;
use cohort_cuda::regmap::{RegClass, RegisterMap, SassReg, ptx_register_name};

fn debug_cubin() -> &'static Cubin {
    static C: OnceLock<Cubin> = OnceLock::new();
    C.get_or_init(|| Cubin::parse(&common::cubin("bitreverse.cu", &["-G"])).expect("parse"))
}

fn lineinfo_cubin() -> &'static Cubin {
    static C: OnceLock<Cubin> = OnceLock::new();
    C.get_or_init(|| Cubin::parse(&common::cubin("bitreverse.cu", &["-lineinfo"])).expect("parse"))
}

fn reg(class: RegClass, num: u32) -> SassReg {
    SassReg { class, num }
}

#[test]
fn sections_and_kernels() {
    let c = debug_cubin();
    assert_eq!(c.sm(), 90);
    assert!(!c.was_relocated());
    let names: Vec<&str> = c.sections().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "",
            ".shstrtab",
            ".strtab",
            ".symtab",
            ".debug_frame",
            ".debug_line",
            ".nv_debug_line_sass",
            ".nv_debug_ptx_txt",
            ".nv_debug_info_reg_sass",
            ".nv_debug_info_reg_type",
            ".debug_abbrev",
            ".debug_loc",
            ".debug_info",
            ".debug_macinfo",
            ".nv.info",
            ".nv.info.bitreverse",
            ".nv.info.scale",
            ".nv.callgraph",
            ".rela.text.bitreverse",
            ".rela.debug_line",
            ".rela.nv_debug_line_sass",
            ".rela.debug_loc",
            ".rela.debug_info",
            ".rela.debug_frame",
            ".text.bitreverse",
            ".text.scale",
            ".nv.shared.bitreverse",
            ".nv.constant0.bitreverse",
            ".nv.constant0.scale",
        ]
    );
    let text = c.section(".text.bitreverse").unwrap();
    assert_eq!((text.addr, text.size), (0, 0x980));
    // Laid out after bitreverse at its 128-byte alignment.
    let text = c.section(".text.scale").unwrap();
    assert_eq!((text.addr, text.size), (0x980, 0xd80));
    // 1 KiB reserved by the driver, then `sdata` at 0x400.
    assert_eq!(c.section(".nv.shared.bitreverse").unwrap().size, 0x500);
    let f: Vec<(&str, u64, u64, bool)> = c
        .functions()
        .iter()
        .map(|f| (f.name.as_str(), f.addr, f.size, f.entry))
        .collect();
    assert_eq!(
        f,
        [
            ("bitreverse", 0, 0x980, true),
            ("scale", 0x980, 0xd80, true)
        ]
    );
    assert_eq!(c.function_at(0x97f).unwrap().name, "bitreverse");
    assert_eq!(c.function_at(0x980).unwrap().name, "scale");
    assert!(c.function_at(0x1700).is_none());
}

#[test]
fn dwarf_unit() {
    let c = debug_cubin();
    let units = c.units().unwrap();
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].name, "bitreverse.cu");
    assert_eq!(units[0].comp_dir, env!("CARGO_MANIFEST_DIR"));
    assert_eq!(units[0].producer, "lgenfe: EDG 6.6");
    assert_eq!(units[0].language, gimli::DW_LANG_C_plus_plus.0);
    assert_eq!(units[0].version, 2);
}

#[test]
fn line_table_debug() {
    let c = debug_cubin();
    let rows: Vec<(u64, u32, bool)> = c
        .line_rows()
        .iter()
        .map(|r| (r.addr, r.line, r.end_sequence))
        .collect();
    assert_eq!(
        rows,
        [
            (0x0, 9, false),
            (0xa0, 11, false),
            (0x160, 12, false),
            (0x1a0, 13, false),
            (0x4c0, 14, false),
            (0x510, 15, false),
            (0x630, 16, false),
            (0x690, 17, false),
            (0x6f0, 18, false),
            (0x750, 19, false),
            (0x850, 20, false),
            (0x980, 20, true),
            (0x980, 22, false),
            (0xc40, 25, false),
            (0xcd0, 26, false),
            (0xd90, 27, false),
            (0x10e0, 26, false),
            (0x1140, 28, false),
            (0x1170, 29, false),
            (0x1270, 30, false),
            (0x13d0, 29, false),
            (0x1450, 31, false),
            (0x1490, 32, false),
            (0x15a0, 33, false),
            (0x1700, 33, true),
        ]
    );
    assert!(c.line_rows().iter().all(|r| r.file == "bitreverse.cu"));
    assert_eq!(
        c.line_rows()[0].path,
        format!("{}/bitreverse.cu", env!("CARGO_MANIFEST_DIR"))
    );
    // Address → line.
    assert_eq!(c.find_line(0x0), Some(("bitreverse.cu", 9)));
    assert_eq!(c.find_line(0x1a0), Some(("bitreverse.cu", 13)));
    assert_eq!(c.find_line(0x4bf), Some(("bitreverse.cu", 13)));
    assert_eq!(c.find_line(0x4c0), Some(("bitreverse.cu", 14)));
    assert_eq!(c.find_line(0x97f), Some(("bitreverse.cu", 20)));
    assert_eq!(c.find_line(0x980), Some(("bitreverse.cu", 22)));
    assert_eq!(c.find_line(0x1100), Some(("bitreverse.cu", 26)));
    assert_eq!(c.find_line(0x1700), None);
    assert_eq!(c.describe(0x510).as_deref(), Some("bitreverse.cu:15"));
    // Line → addresses.
    assert_eq!(c.line_addresses("bitreverse.cu", 13), [0x1a0]);
    assert_eq!(c.line_addresses("bitreverse.cu", 15), [0x510]);
    // Two rows for line 26 (the loop's test): the lowest in the function.
    assert_eq!(c.line_addresses("bitreverse.cu", 26), [0xcd0]);
    // A line without code: the next line with code, as gdb does.
    assert_eq!(c.line_addresses("bitreverse.cu", 10), [0xa0]);
    assert_eq!(c.line_addresses("bitreverse.cu", 21), [0x980]);
    assert!(c.line_addresses("bitreverse.cu", 34).is_empty());
    assert!(c.line_addresses("other.cu", 13).is_empty());
    // break KERNEL: after the prologue (the first row with another line).
    assert_eq!(c.breakpoint_address("bitreverse"), Some(0xa0));
    assert_eq!(c.breakpoint_address("scale"), Some(0xc40));
    assert_eq!(c.breakpoint_address("nosuch"), None);
    assert_eq!(c.resolve("bitreverse"), [0xa0]);
    assert_eq!(c.resolve("bitreverse.cu:15"), [0x510]);
    assert_eq!(c.resolve("*0x520"), [0x520]);
    assert!(c.resolve("nosuch").is_empty());
}

#[test]
fn line_table_lineinfo() {
    let c = lineinfo_cubin();
    // -lineinfo: line programs without .debug_info.
    assert!(c.section(".debug_info").is_none());
    assert!(c.units().unwrap().is_empty());
    let f: Vec<(&str, u64, u64)> = c
        .functions()
        .iter()
        .map(|f| (f.name.as_str(), f.addr, f.size))
        .collect();
    // NVRTC put scale first this time.
    assert_eq!(f, [("scale", 0, 0x300), ("bitreverse", 0x300, 0x280)]);
    let rows: Vec<(u64, u32)> = c
        .line_rows()
        .iter()
        .filter(|r| !r.end_sequence)
        .map(|r| (r.addr, r.line))
        .collect();
    assert_eq!(
        rows,
        [
            (0x0, 22),
            (0x10, 25),
            (0x20, 27),
            (0x30, 25),
            (0x50, 27),
            (0x60, 30),
            (0x70, 25),
            (0x80, 27),
            (0x180, 30),
            (0x1c0, 31),
            (0x1d0, 32),
            (0x200, 33),
            (0x300, 9),
            (0x310, 11),
            (0x320, 13),
            (0x340, 12),
            (0x350, 13),
            (0x3f0, 14),
            (0x400, 15),
            (0x410, 16),
            (0x450, 17),
            (0x490, 18),
            (0x4d0, 19),
            (0x4e0, 20),
        ]
    );
    assert_eq!(c.breakpoint_address("bitreverse"), Some(0x310));
    assert_eq!(c.breakpoint_address("scale"), Some(0x10));
    assert_eq!(c.line_addresses("bitreverse.cu", 13), [0x320]);
    assert_eq!(c.line_addresses("bitreverse.cu", 25), [0x10]);
    assert_eq!(c.find_line(0x345), Some(("bitreverse.cu", 12)));
    assert_eq!(c.find_line(0x57f), Some(("bitreverse.cu", 20)));
    assert!(c.variables("bitreverse").unwrap().is_empty());
    assert_eq!(c.register_map().functions().count(), 0);
}

#[test]
fn variables_and_address_classes() {
    let c = debug_cubin();
    let vars = c.variables("bitreverse").unwrap();
    let got: Vec<(&str, VarKind, &str, Option<AddressClass>, &Location)> = vars
        .iter()
        .map(|v| {
            (
                v.name.as_str(),
                v.kind,
                v.type_name.as_str(),
                v.address_class,
                &v.location,
            )
        })
        .collect();
    let reg = |n: &str| Location::PtxRegister(n.into());
    let v_list = Location::List(vec![
        (0x630, 0x690, reg("%r7")),
        (0x690, 0x6f0, reg("%r12")),
        (0x6f0, 0x750, reg("%r17")),
        (0x750, 0x980, reg("%r22")),
    ]);
    assert_eq!(
        got,
        [
            (
                "data",
                VarKind::Parameter,
                "unsigned int * @generic",
                Some(AddressClass::Register),
                &reg("%rd1")
            ),
            (
                "idata",
                VarKind::Local,
                "unsigned int * @generic",
                Some(AddressClass::Register),
                &reg("%rd4")
            ),
            (
                "idx",
                VarKind::Local,
                "int",
                Some(AddressClass::Register),
                &reg("%r4")
            ),
            ("v", VarKind::Local, "unsigned int", None, &v_list),
        ]
    );
    assert_eq!(vars[2].decl_line, Some(12));
    assert_eq!(vars[2].byte_size, Some(4));
    assert_eq!(vars[2].block, Some((0xa0, 0x890)));
    // A local array in local memory, at an offset from the frame base (the CFA).
    let scale = c.variables("scale").unwrap();
    let window = scale.iter().find(|v| v.name == "window").unwrap();
    assert_eq!(window.address_class, Some(AddressClass::Local));
    assert_eq!(window.location, Location::FrameOffset(-16));
    assert_eq!(window.type_name, "float [4]");
    assert_eq!(window.byte_size, Some(16));
    let names: Vec<&str> = scale.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        ["out", "in", "factor", "n", "window", "i", "sum", "k", "k"]
    );
    assert_eq!(scale[1].type_name, "const float * @generic");
    assert_eq!(scale[2].location, Location::PtxRegister("%f6".into()));
    // The file-scope __shared__ array.
    let g = c.globals().unwrap();
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].name, "sdata");
    assert_eq!(g[0].kind, VarKind::Global);
    assert_eq!(g[0].address_class, Some(AddressClass::Shared));
    assert_eq!(g[0].location, Location::Address(0x400));
    assert_eq!(g[0].type_name, "unsigned int [64]");
    assert_eq!(g[0].byte_size, Some(256));
    assert_eq!(AddressClass::from_dwarf(5), AddressClass::Global);
    assert_eq!(AddressClass::from_dwarf(7), AddressClass::Param);
    assert_eq!(AddressClass::from_dwarf(12).name(), "generic");
}

#[test]
fn ptx_registers_in_dw_op_regx() {
    assert_eq!(ptx_register_name(628253745).as_deref(), Some("%rd1"));
    assert_eq!(ptx_register_name(0x2572_6434).as_deref(), Some("%rd4"));
    assert_eq!(ptx_register_name(2454068).as_deref(), Some("%r4"));
    assert_eq!(ptx_register_name(2450998).as_deref(), Some("%f6"));
    // An ordinary DWARF register number is not a name.
    assert_eq!(ptx_register_name(5), None);
    assert_eq!(ptx_register_name(0x2572_0001), None);
}

#[test]
fn sass_register_map() {
    let c = debug_cubin();
    let m = c.register_map();
    assert_eq!(m.functions().collect::<Vec<_>>(), ["bitreverse", "scale"]);
    assert_eq!(m.entries("bitreverse").len(), 63);
    assert_eq!(m.entries("scale").len(), 85);
    let types = c.register_types();
    assert_eq!(types["bitreverse"].len(), 63);
    assert_eq!(types["scale"].len(), 85);
    let full = |n| reg(RegClass::Full, n);
    // idx (%r4) lives in R3 from 0x180 (after S2R R3, SR_TID.X) to 0x880.
    let l = m.lookup("bitreverse", "%r4", 0x510);
    assert_eq!(l.len(), 1);
    assert_eq!(
        (l[0].part, l[0].reg, l[0].start, l[0].end),
        (0, full(3), 0x180, 0x880)
    );
    // data (%rd1), 64-bit: bits 0-31 in R0 from 0x60, bits 32-63 in R2 from 0x70.
    let l = m.lookup("bitreverse", "%rd1", 0x100);
    let parts: Vec<(u32, SassReg)> = l.iter().map(|l| (l.part, l.reg)).collect();
    assert_eq!(parts, [(0, full(0)), (1, full(2))]);
    assert_eq!(m.lookup("bitreverse", "%rd1", 0x65).len(), 1);
    assert!(m.lookup("bitreverse", "%rd1", 0x880).is_empty());
    // idata (%rd4) in R4:R5.
    let parts: Vec<SassReg> = m
        .lookup("bitreverse", "%rd4", 0x510)
        .iter()
        .map(|l| l.reg)
        .collect();
    assert_eq!(parts, [full(4), full(5)]);
    assert_eq!(full(3).to_string(), "R3");
    assert_eq!(SassReg::decode(0x0500_00ff).to_string(), "RZ");
    assert_eq!(SassReg::decode(0x0b00_0004).to_string(), "UR4");
    assert_eq!(SassReg::decode(0x0900_0000).to_string(), "UP0");
    assert_eq!(SassReg::decode(0x0200_0003).to_string(), "P3");
    // Bad input: an error, not a panic.
    assert!(RegisterMap::parse(b"f\0\x05\0\0\0\0\0").is_err());
    assert!(RegisterMap::parse(b"unterminated").is_err());
}

#[test]
fn debug_frame_register_classes() {
    let c = debug_cubin();
    let f = c.debug_frame();
    assert_eq!(f.cies.len(), 2);
    let cie = &f.cies[0];
    assert_eq!((cie.version, cie.code_align, cie.data_align), (3, 4, -4));
    assert_eq!(cie.return_address, SassReg::decode(0xffff_ffff));
    assert_eq!(
        cie.instructions[..3],
        [
            Cfa::DefCfa(reg(RegClass::Full, 1), 0),
            Cfa::SameValue(reg(RegClass::Full, 255)),
            Cfa::Undefined(reg(RegClass::UniformPred, 0)),
        ]
    );
    // The CIE names condition-code, predicate, full, uniform-predicate and uniform registers.
    let mut classes: Vec<RegClass> = cie
        .instructions
        .iter()
        .filter_map(|i| match i {
            Cfa::DefCfa(r, _) | Cfa::SameValue(r) | Cfa::Undefined(r) => Some(r.class),
            _ => None,
        })
        .collect();
    classes.sort();
    classes.dedup();
    assert_eq!(
        classes,
        [
            RegClass::Cc,
            RegClass::Pred,
            RegClass::Full,
            RegClass::UniformPred,
            RegClass::UniformFull
        ]
    );
    let ranges: Vec<(u64, u64)> = f.fdes.iter().map(|d| (d.start, d.len)).collect();
    assert_eq!(ranges, [(0, 0x980), (0x980, 0xd80)]);
    // The CFA is R1 (the stack pointer); scale has 16 bytes of frame after its first 0x20.
    assert_eq!(f.cfa_at(0x10), Some((reg(RegClass::Full, 1), 0)));
    assert_eq!(f.cfa_at(0x990), Some((reg(RegClass::Full, 1), 0)));
    assert_eq!(f.cfa_at(0x9a0), Some((reg(RegClass::Full, 1), 16)));
    assert_eq!(f.cfa_at(0x2000), None);
}

#[test]
fn bad_input_is_an_error() {
    assert!(Cubin::parse(b"not an ELF file").is_err());
    let host = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let e = Cubin::parse(&host)
        .err()
        .expect("a host ELF is not a cubin");
    assert_eq!(
        e.to_string(),
        "cubin: not a cubin: ELF machine 62 (EM_CUDA is 190)"
    );
    let good = common::cubin("bitreverse.cu", &["-G"]);
    // (0x6640: the section header table.)
    for cut in [64, 0x800, good.len() / 2, 0x6640 + 100] {
        assert!(Cubin::parse(&good[..cut]).is_err(), "truncated at {cut}");
    }
    let nvrtc = cohort_cuda::nvrtc::Nvrtc::load().unwrap();
    let e = nvrtc
        .compile_cubin(
            "__global__ void k() { undefined_name; }",
            "bad.cu",
            &["--gpu-architecture=sm_90"],
        )
        .expect_err("a compile error");
    assert!(
        e.to_string()
            .contains("identifier \"undefined_name\" is undefined"),
        "{e}"
    );
    assert!(
        cohort_cuda::nvrtc::Nvrtc::load_from(std::path::Path::new("/nonexistent/libnvrtc.so"))
            .is_err()
    );
}

/// Corrupted cubins (bytes overwritten at many places, deterministically) give errors or
/// partial answers, never a panic, through every reader of the crate.
#[test]
fn corrupted_cubins_never_panic() {
    let good = common::cubin("bitreverse.cu", &["-G"]);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut parsed = 0;
    for _ in 0..400 {
        let mut bad = good.clone();
        for _ in 0..8 {
            let at = (next() % bad.len() as u64) as usize;
            bad[at] = next() as u8;
        }
        if let Ok(c) = Cubin::parse(&bad) {
            parsed += 1;
            let _ = c.units();
            let _ = c.variables("bitreverse");
            let _ = c.variables("scale");
            let _ = c.globals();
            let _ = c.line_addresses("bitreverse.cu", 15);
            let _ = c.breakpoint_address("bitreverse");
            let _ = c.find_line(0x510);
            let _ = c.debug_frame().cfa_at(0x9a0);
            let _ = c.register_map().lookup("bitreverse", "%r4", 0x510);
        }
    }
    // Most corruptions hit bytes no reader checks: the loop did exercise the readers.
    assert!(parsed > 100, "only {parsed} of 400 corrupted cubins parsed");
}
