//! The process engine on real programs, below the symbol layer.

use cohort_engine::process::{LaunchOptions, Process, StopKind};
use cohort_fixtures::{nm_address, program};

/// PIE programs are loaded at this base when randomisation is off (x86-64 Linux).
const PIE_BASE: u64 = 0x5555_5555_4000;

fn launch(name: &str, args: &[&str]) -> (Process, std::path::PathBuf) {
    let prog = program(name);
    let opts = LaunchOptions {
        program: prog.clone(),
        args: args.iter().map(|a| a.into()).collect(),
        disable_aslr: true,
        ..Default::default()
    };
    (Process::launch(&opts).expect("launch"), prog)
}

#[test]
fn breakpoint_in_loop_counts_exactly() {
    let (mut p, prog) = launch("loop", &["50"]);
    let tick = PIE_BASE + nm_address(&prog, "tick");
    p.add_breakpoint(tick).unwrap();
    let mut hits = 0;
    loop {
        let s = p.cont().unwrap();
        match s.kind {
            StopKind::Breakpoint(a) => {
                assert_eq!(a, tick);
                assert_eq!(p.pc(s.tid).unwrap(), tick);
                // The trap byte is hidden from reads.
                let mut b = [0u8; 1];
                p.read_memory(tick, &mut b).unwrap();
                assert_ne!(b[0], 0xcc);
                hits += 1;
            }
            StopKind::Exited(code) => {
                assert_eq!(code, 0);
                break;
            }
            k => panic!("unexpected stop {k:?}"),
        }
    }
    assert_eq!(hits, 50);
}
