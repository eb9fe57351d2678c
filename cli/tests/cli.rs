//! `cohort` end to end where gdb's output is not deterministic enough to diff (thread
//! scheduling) or where the scenario needs a running process: hand-written expectations.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use cohort_fixtures::{program, program_nodebug};

fn cohort() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args(["-nx", "-batch"]);
    c
}

#[test]
fn eight_threads_hit_one_breakpoint_repeatedly() {
    let prog = program_nodebug("threads");
    let dir = std::env::temp_dir().join(format!("cohort-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cmds = dir.join("cmds");
    let mut script = String::from("break work\nrun\n");
    for _ in 0..200 {
        script.push_str("continue\n");
    }
    std::fs::write(&cmds, script).unwrap();
    let o = cohort().arg("-x").arg(&cmds).arg(&prog).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let hits = out
        .lines()
        .filter(|l| l.contains("hit Breakpoint 1, 0x") && l.ends_with(" in work ()"))
        .count();
    assert_eq!(hits, 200, "{out}");
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("[New Thread 0x"))
            .count(),
        8
    );
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("[Thread 0x") && l.ends_with(" exited]"))
            .count(),
        8
    );
    assert!(out.contains("sum=200\n"), "{out}");
    assert!(out.trim_end().ends_with("exited normally]"), "{out}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn attach_break_detach_then_program_finishes() {
    let prog = std::fs::canonicalize(program("sleeper")).unwrap();
    let mut child = Command::new(&prog).stdout(Stdio::piped()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let pid = child.id().to_string();
    let o = cohort()
        .args([
            "-ex",
            "break step",
            "-ex",
            "continue",
            "-ex",
            "info breakpoints",
            "-ex",
            "detach",
            "-p",
            &pid,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    // In batch mode gdb does not say `Attaching to program: …` nor `Detaching from program: …`
    // (only to the user at a terminal; cli/tests/batch_status.rs compares both with gdb).
    assert!(
        !text.contains("Attaching to") && !text.contains("Detaching from"),
        "{text}"
    );
    // `step` has a second location in libc's DWARF (misc/regexp.c), as gdb finds too.
    assert!(text.contains("\nBreakpoint 1.1, step (i="), "{text}");
    assert!(
        text.contains(
            ") at /work/main/tests/fixtures/sleeper.c:11\n".trim_start_matches("/work/main")
        ) || text.contains("tests/fixtures/sleeper.c:11\n"),
        "{text}"
    );
    // Where it was when attached: inside the C library's sleep, shown from libc's DWARF.
    assert!(
        lines[0].contains("clock_nanosleep (") && lines[0].contains(" at ../sysdeps/"),
        "{text}"
    );
    assert!(text.contains("\tbreakpoint already hit 1 time\n"), "{text}");
    assert!(
        text.ends_with(&format!("[Inferior 1 (process {pid}) detached]\n")),
        "{text}"
    );
    assert!(o.status.success());
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(rest, "acc=4950 usr1=0\n");
}

#[test]
fn attach_refusals_are_clear() {
    let o = cohort().args(["-p", "999999999"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        "ptrace: No such process."
    );
    let o = cohort()
        .args(["-ex", "info threads", "/nonexistent/prog"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.lines().next(),
        Some("/nonexistent/prog: No such file or directory.")
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "No threads.\n");
    let o = cohort()
        .args([
            "-ex",
            "run",
            "-ex",
            "continue",
            "-ex",
            "stepi",
            "-ex",
            "info registers",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("The program is not being run."), "{err}");
    assert!(err.contains("The program has no registers now."), "{err}");
}

#[test]
fn run_goes_through_the_shell_like_gdb() {
    let prog = program_nodebug("loop");
    let dir = std::env::temp_dir().join(format!("cohort-redir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("out.txt");
    let o = cohort()
        .args(["-ex", &format!("run 7 > {}", file.display())])
        .arg(&prog)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("exited normally]\n"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "total=21\n");
    // `--args` keeps each argument whole, spaces and shell characters included.
    let o = cohort()
        .args(["-ex", "set startup-with-shell off", "-ex", "run"])
        .arg("--args")
        .arg(&prog)
        .arg("3")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).lines().next(),
        Some("total=3")
    );
    let o = cohort()
        .args(["-ex", "run", "--args"])
        .arg(&prog)
        .arg("2 $HOME;")
        .output()
        .unwrap();
    // atoi("2 $HOME;") is 2: the argument arrived unexpanded and in one piece.
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).lines().next(),
        Some("total=1")
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Blocks typed at the prompt (standard input, not batch): gdb prompts `>` inside `define`
/// and `while`, an empty line there is part of the block (not a repeat of the last command),
/// and the user command runs with its arguments. Compared with gdb, `(gdb)` read as
/// `(cohort)`.
#[test]
fn blocks_typed_at_the_prompt_as_gdb() {
    let prog = program_nodebug("loop");
    let input = "define twice\necho twice $arg0\\n\n\nprint $arg0 * 2\nend\ntwice 21\nset $i = 0\nwhile $i < 2\nprint $i\nset $i = $i + 1\nend\nprint 7\n\n";
    let run = |tool: &str| {
        let mut child = Command::new(tool)
            .args(["-nx", "-q"])
            .arg(&prog)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        String::from_utf8_lossy(&o.stdout)
            .replace("(gdb) ", "(cohort) ")
            .lines()
            .filter(|l| !l.starts_with("Reading symbols") && !l.starts_with("(No debugging"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let ours = run(env!("CARGO_BIN_EXE_cohort"));
    assert_eq!(
        ours,
        "(cohort) >>>>(cohort) twice 21\n$1 = 42\n(cohort) (cohort)  > > >$2 = 0\n$3 = 1\n(cohort) $4 = 7\n(cohort) $5 = 7\n(cohort) "
    );
    assert_eq!(ours, run("gdb"));
}

/// `help` is cohort's own text (gdb's is GPL'd, cohort is not): a command's description, the
/// classes without an argument, gdb's words for an unknown command.
#[test]
fn help_describes_commands() {
    let out = cohort()
        .args(["-ex", "help tbreak", "-ex", "help tb", "-ex", "help nosuch"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Set a temporary breakpoint: as \"break\", deleted when the program first stops there.\n\
         Set a temporary breakpoint: as \"break\", deleted when the program first stops there.\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Undefined command: \"nosuch\".  Try \"help\".\n"
    );
    let out = cohort().args(["-ex", "help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Cohort's commands are gdb's."), "{text}");
}

/// `apropos REGEXP` searches cohort's help text (names and descriptions, any case): each
/// command found with its aliases and the first line of its description, sorted; `-v` gives
/// the whole description.
#[test]
fn apropos_searches_help() {
    let out = cohort()
        .args([
            "-ex",
            "apropos WATCHPOINT",
            "-ex",
            "apropos -v ^tb",
            "-ex",
            "apropos",
            "-ex",
            "apropos zzzz",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "awatch -- Set an access watchpoint: the program stops when EXPRESSION is read or written.\n\
         rwatch -- Set a read watchpoint: the program stops when EXPRESSION is read.\n\
         watch -- Set a watchpoint: watch [-l|-location] EXPRESSION [if CONDITION].\n\
         tbreak, tb -- Set a temporary breakpoint: as \"break\", deleted when the program first stops there.\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "REGEXP string is empty\n"
    );
}

/// Functions called from the debugger (issue 17) where gdb is not the oracle: a thread
/// stopped inside a system call is not used for a call (the kernel would restart the call
/// with the function's registers); a breakpoint inside a called function leaves the thread
/// there (gdb's dummy frame), a call made there completes, `continue` runs the first call to
/// its end and puts the thread back silently; and a detach while a call is left inside its
/// function puts the thread back first (gdb would let it return to its dummy breakpoint,
/// gone). The program runs on to its end with the values the completed calls made.
#[test]
fn calls_refused_in_a_system_call_and_left_at_a_breakpoint() {
    let prog = std::fs::canonicalize(program("sleeper")).unwrap();
    let mut child = Command::new(&prog).stdout(Stdio::piped()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let pid = child.id().to_string();
    let cmds = [
        "print step(1)",
        "break step",
        "continue",
        "print acc",
        "print $pc",
        "print step(5)",
        "print acc",
        "info breakpoints",
        "delete",
        "print step(5)",
        "print acc",
        "bt 3",
        "continue",
        "print acc",
        "print $pc",
        "break step",
        "print step(7)",
        "detach",
    ];
    let mut args: Vec<&str> = Vec::new();
    for c in &cmds {
        args.extend(["-ex", c]);
    }
    args.extend(["-p", &pid]);
    let o = cohort().args(&args).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    // (After the attach line's source line, which names libc's file.)
    assert!(
        err.lines().any(|l| l
            == "The thread is stopped inside a system call; calling a function now would \
                make the kernel restart that call with the function's registers."),
        "{err}"
    );
    assert!(
        err.contains(
            "The program being debugged stopped while in a function called from GDB.\n\
             Evaluation of the expression containing the function\n\
             (step) will be abandoned.\n\
             When the function is done executing, GDB will silently stop.\n"
        ),
        "{err}"
    );
    let value = |n: usize| {
        let head = format!("${n} = ");
        text.lines()
            .find_map(|l| l.strip_prefix(head.as_str()))
            .unwrap_or_else(|| panic!("no ${n}: {text}"))
            .to_string()
    };
    let num = |n: usize| -> i64 { value(n).parse().unwrap() };
    // acc before the call, stopped at the breakpoint inside it (unchanged), after a call
    // made there (which ran), after the first call ran to its end.
    assert_eq!(num(3), num(1), "the stopped call changed acc: {text}");
    assert_eq!(value(4), "void");
    assert_eq!(num(5), num(1) + 5, "{text}");
    assert_eq!(num(6), num(1) + 10, "{text}");
    assert_eq!(value(7), value(2), "the pc was not put back: {text}");
    let hit = text
        .lines()
        .position(|l| l.starts_with("Breakpoint 1.1, step (i=5) at "))
        .unwrap_or_else(|| panic!("no stop at the breakpoint inside the call: {text}"));
    assert!(
        text.lines()
            .nth(hit + 1)
            .is_some_and(|l| l.starts_with("11\t")),
        "{text}"
    );
    // The breakpoint inside the call counts as a hit, as in gdb.
    assert!(
        text.contains("\tbreakpoint already hit 2 times\n"),
        "{text}"
    );
    assert!(
        text.contains("\n#1  <function called from gdb>\n#2  "),
        "{text}"
    );
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{rest}");
    // step(i) adds 0..99 once each; two calls of step(5) ran, step(7) was put back.
    assert_eq!(rest, "acc=4960 usr1=0\n");
}

/// `--help` on cohort lists the subcommands; on each subcommand it prints that subcommand's
/// usage on standard output and exits 0 (issue 18).
#[test]
fn help_on_every_subcommand() {
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_cohort"))
            .args(args)
            .output()
            .expect("cohort");
        assert!(o.status.success(), "{args:?}: {o:?}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let top = run(&["--help"]);
    for sub in ["launch", "attach", "offline", "demo", "cuda"] {
        assert!(
            top.contains(&format!("  cohort {sub} ")),
            "cohort --help lists {sub}:\n{top}"
        );
        for flag in ["--help", "-h"] {
            let u = run(&[sub, flag]);
            assert!(
                u.to_lowercase()
                    .starts_with(&format!("usage: cohort {sub} ")),
                "cohort {sub} {flag}: {u}"
            );
        }
    }
}
