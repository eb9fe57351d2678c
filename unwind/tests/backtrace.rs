//! Backtraces of real programs compared with gdb's `bt` at the same stop.
//!
//! Fixtures `tests/fixtures/unwind_*.c` are built without debug information at `-O0` and at
//! `-O2 -fomit-frame-pointer`; gdb (with `set backtrace past-main on`, so that it shows the
//! frames down to `_start` or `clone3`) is the oracle for every frame's pc and function.

use std::path::{Path, PathBuf};
use std::process::Command;

use cohort_engine::session::{BpSpec, Event, Session};
use cohort_unwind::{Frame, FrameKind, Unwinder};

/// `tests/fixtures/NAME.c` built with `cc -g0 FLAGS` into `target/fixtures/NAME-TAG`.
fn build(name: &str, tag: &str, flags: &[&str]) -> PathBuf {
    let src = cohort_fixtures::source_dir().join(format!("{name}.c"));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(format!("{name}-{tag}"));
    let fresh = match (std::fs::metadata(&src), std::fs::metadata(&out)) {
        (Ok(s), Ok(o)) => o.modified().ok() >= s.modified().ok(),
        _ => false,
    };
    if !fresh {
        let tmp = out.with_extension(cohort_fixtures::tmp_extension());
        let st = Command::new("cc")
            .arg("-g0")
            .args(flags)
            .arg("-o")
            .arg(&tmp)
            .arg(&src)
            .arg("-lpthread")
            .status()
            .unwrap();
        assert!(st.success(), "cc {name}");
        std::fs::rename(&tmp, &out).unwrap();
    }
    out
}

const O0: (&str, &[&str]) = ("O0", &["-O0"]);
const O2: (&str, &[&str]) = ("O2", &["-O2", "-fomit-frame-pointer"]);

/// One frame as gdb's `bt` lists it: pc, function (`None` for `<signal handler called>`),
/// and whether gdb named it from DWARF (`… at file:line`, libc with libc6-dbg installed).
#[derive(Debug, Clone)]
struct Line {
    /// `None` where gdb prints no address (frame 0 at the start of a source line).
    pc: Option<u64>,
    name: Option<String>,
    dwarf: bool,
}

/// Run gdb to the first stop at `bp` (continuing `conts` more times first: past a signal)
/// and return `bt`'s physical frames and the values the extra commands print (`$N = …`).
fn gdb_bt(prog: &Path, bp: &str, conts: usize, extra: &[&str]) -> (Vec<Line>, Vec<String>) {
    let mut c = Command::new("gdb");
    c.args(["-nx", "-batch", "-ex", "set backtrace past-main on"]);
    c.args(["-ex", &format!("break {bp}"), "-ex", "run"]);
    for _ in 0..conts {
        c.args(["-ex", "continue"]);
    }
    c.args(["-ex", "bt"]);
    for x in extra {
        c.args(["-ex", x]);
    }
    c.arg("--args").arg(prog);
    c.env_remove("LINES").env_remove("COLUMNS");
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut values = Vec::new();
    for line in text.lines() {
        if let Some(v) = line.strip_prefix('$') {
            values.push(v.split_once(" = ").map(|x| x.1).unwrap_or("").to_string());
        }
    }
    let frames = parse_bt(&text);
    assert!(!frames.is_empty(), "gdb gave no backtrace:\n{text}");
    (frames, values)
}

/// The physical frames of the `#N …` lines of `text`.
fn parse_bt(text: &str) -> Vec<Line> {
    let mut frames: Vec<Line> = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix('#') else {
            continue;
        };
        let rest = rest
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
        let dwarf = rest.contains(") at ");
        if rest.starts_with("<signal handler called>") {
            frames.push(Line {
                pc: Some(0), // a trampoline's pc is not printed
                name: None,
                dwarf,
            });
            continue;
        }
        if let Some(hex) = rest.strip_prefix("0x") {
            let (addr, tail) = hex.split_once(" in ").unwrap();
            let name = tail.split([' ', '(']).next().unwrap().to_string();
            frames.push(Line {
                pc: Some(u64::from_str_radix(addr, 16).unwrap()),
                name: Some(name),
                dwarf,
            });
        } else {
            let name = rest.split([' ', '(']).next().unwrap().to_string();
            match frames.last_mut() {
                // An inlined frame at the pc of the frame before it: the code belongs to
                // the outermost function of the chain.
                Some(last) => last.name = Some(name),
                // Frame 0 at the start of a line: gdb shows no address.
                None => frames.push(Line {
                    pc: None,
                    name: Some(name),
                    dwarf,
                }),
            }
        }
    }
    frames
}

/// Start `prog` under a session, stop at the first hit of `bp` (delivering the signals
/// that stop it on the way), and unwind.
fn cohort_bt(prog: &Path, bp: &str) -> (Session, Vec<Frame>) {
    let mut s = Session::new();
    s.load_program(prog).unwrap();
    s.add_breakpoint(BpSpec::Symbol(bp.into()), false).unwrap();
    s.start_process().unwrap();
    loop {
        match s.cont().unwrap() {
            Event::Breakpoint { .. } => break,
            Event::Signal { .. } => continue,
            e => panic!("unexpected {e:?}"),
        }
    }
    let regs = s.registers(true).unwrap();
    let unwinder = Unwinder::new();
    let (frames, err) = unwinder.backtrace(s.symbols(), s.process().unwrap(), regs, 200);
    assert!(err.is_none(), "unwind error {err:?}");
    // Unwinding again is answered from the row cache and gives the same frames.
    let regs = s.registers(true).unwrap();
    let before = unwinder.stats();
    let (again, _) = unwinder.backtrace(s.symbols(), s.process().unwrap(), regs, 200);
    let after = unwinder.stats();
    assert_eq!(
        after.computed, before.computed,
        "second unwind computed rows"
    );
    assert!(after.hits > before.hits);
    assert_eq!(
        again.iter().map(|f| (f.pc(), f.cfa)).collect::<Vec<_>>(),
        frames.iter().map(|f| (f.pc(), f.cfa)).collect::<Vec<_>>()
    );
    (s, frames)
}

fn show(lines: &[(u64, Option<String>)]) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, (pc, n))| match n {
            Some(n) => format!("#{i:<2} {pc:#018x} in {n} ()\n"),
            None => format!("#{i:<2} <signal handler called>\n"),
        })
        .collect()
}

/// Compare cohort's frames with gdb's lines (see [`same_bt`] for how functions are named).
fn assert_same(s: &Session, frames: &[Frame], want: &[Line], what: &str) {
    let syms = s.symbols();
    let none = Line {
        pc: Some(0),
        name: None,
        dwarf: false,
    };
    let got: Vec<(u64, Option<String>)> = frames
        .iter()
        .zip(want.iter().chain(std::iter::repeat(&none)))
        .map(|(f, w)| match f.kind {
            FrameKind::SignalHandler | FrameKind::Dummy => (0, None),
            FrameKind::Normal | FrameKind::TailCall => {
                let parts = syms.symbolize_parts(f.lookup_pc());
                let mut n = parts
                    .map(|(_, sym, _)| sym.name.to_string())
                    .unwrap_or_else(|| "??".into());
                if w.dwarf
                    && let (Some(wn), Some((o, sym, _))) = (&w.name, parts)
                    && (base_name(&n) == wn
                        || syms.lookup_symbol(wn).is_some_and(|(o2, s2)| {
                            s2.addr.wrapping_add(o2.bias) == sym.addr.wrapping_add(o.bias)
                        }))
                {
                    n = wn.clone();
                }
                (f.pc(), Some(n))
            }
        })
        .collect();
    let want: Vec<(u64, Option<String>)> = want
        .iter()
        .zip(frames.iter().map(|f| f.pc()).chain(std::iter::repeat(0)))
        .map(|(l, ours)| (l.pc.unwrap_or(ours), l.name.clone()))
        .collect();
    assert_eq!(
        show(&got),
        show(&want),
        "{what}: cohort's backtrace (left) differs from gdb's"
    );
}

/// `name.part.0`, `name.constprop.1`, `name.cold`, `name.isra.0` → `name`.
fn base_name(n: &str) -> &str {
    n.split_once('.').map(|x| x.0).unwrap_or(n)
}

/// The whole backtrace at the first stop at `bp` is gdb's: every pc, and every function as
/// gdb names it from the ELF symbols. Frames gdb names from DWARF (libc, whose debug file is
/// installed) are named by the minimal symbol here: the DWARF name must be that symbol,
/// without the compiler's clone suffix, or another symbol at the same address
/// (`__GI___qsort_r` for `qsort_r`).
fn same_bt(name: &str, opt: (&str, &[&str]), bp: &str, conts: usize) -> (Session, Vec<Frame>) {
    let prog = build(name, opt.0, opt.1);
    let (want, _) = gdb_bt(&prog, bp, conts, &[]);
    let (s, frames) = cohort_bt(&prog, bp);
    assert_same(&s, &frames, &want, &format!("{name} {}", opt.0));
    (s, frames)
}

#[test]
fn recursion() {
    for opt in [O0, O2] {
        let (mut s, frames) = same_bt("unwind_recurse", opt, "bottom", 0);
        assert!(frames.len() > 20);
        s.kill().unwrap();
    }
}

#[test]
fn signal_handler_interrupting_busy_code() {
    for opt in [O0, O2] {
        let (mut s, frames) = same_bt("unwind_signal", opt, "in_handler", 1);
        let sig = frames
            .iter()
            .position(|f| f.kind == FrameKind::SignalHandler)
            .unwrap();
        // The interrupted frame's pc is exact: it is looked up as is.
        let f = &frames[sig + 1];
        assert_eq!(f.lookup_pc(), f.pc());
        assert_eq!(s.symbols().function_name(f.pc()).as_deref(), Some("busy"));
        s.kill().unwrap();
    }
}

#[test]
fn callback_from_the_c_library() {
    for opt in [O0, O2] {
        let (mut s, _) = same_bt("unwind_qsort", opt, "compare", 0);
        s.kill().unwrap();
    }
}

#[test]
fn thread_stacks_end_at_clone3() {
    for opt in [O0, O2] {
        let (mut s, frames) = same_bt("unwind_threads", opt, "leaf", 0);
        let last = frames.last().unwrap();
        assert_eq!(
            s.symbols().function_name(last.lookup_pc()).as_deref(),
            Some("clone3")
        );
        s.kill().unwrap();
    }
}

/// Callee-saved registers of outer frames are gdb's (`frame N` then `p/x $reg`).
#[test]
fn callee_saved_registers_of_outer_frames() {
    const REGS: [&str; 8] = ["rbx", "rbp", "r12", "r13", "r14", "r15", "rsp", "rip"];
    if cohort_engine::arch::native().name != "x86-64" {
        return;
    }
    for opt in [O2, O0] {
        let prog = build("unwind_recurse", opt.0, opt.1);
        let (frames, _) = gdb_bt(&prog, "bottom", 0, &[]);
        // Frame 2 (a recursion level), main, and the C library frame calling main.
        let main = frames
            .iter()
            .position(|l| l.name.as_deref() == Some("main"))
            .unwrap();
        let levels = [2, main, main + 1];
        let mut cmds = Vec::new();
        for l in levels {
            cmds.push(format!("frame {l}"));
            cmds.extend(REGS.iter().map(|r| format!("p/x ${r}")));
        }
        let cmds: Vec<&str> = cmds.iter().map(|c| c.as_str()).collect();
        let (_, values) = gdb_bt(&prog, "bottom", 0, &cmds);
        assert_eq!(values.len(), levels.len() * REGS.len(), "{values:?}");
        let (mut s, ours) = cohort_bt(&prog, "bottom");
        let mut v = values.iter();
        for l in levels {
            for r in REGS {
                let want = v.next().unwrap();
                let got = ours[l]
                    .regs
                    .by_name(r)
                    .map(|x| format!("{x:#x}"))
                    .unwrap_or_else(|| "<not saved>".into());
                assert_eq!(&got, want, "{} frame {l} ${r}", opt.0);
            }
        }
        s.kill().unwrap();
    }
}
