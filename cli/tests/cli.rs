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

/// `apropos` finds user-defined commands by name and documentation (`User-defined.` without
/// one), as gdb does.
#[test]
fn apropos_finds_user_commands() {
    let dir = std::env::temp_dir().join(format!("cohort-apropos-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("user.gdb");
    std::fs::write(
        &script,
        "define foo\necho hi\\n\nend\ndocument foo\nSay hi to the frobnicator.\nSecond line.\nend\n\
         define bar\nend\napropos frobni\napropos ^bar$\napropos -v ^foo\n",
    )
    .unwrap();
    let run = |exe: &str| {
        let o = std::process::Command::new(exe)
            .args(["-nx", "-batch", "-x"])
            .arg(&script)
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let ours = run(env!("CARGO_BIN_EXE_cohort"));
    assert_eq!(
        ours.0,
        "foo -- Say hi to the frobnicator.\nbar -- User-defined.\n\nfoo\nSay hi to the frobnicator.\nSecond line.\n"
    );
    assert_eq!(ours, run("gdb"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `help` gives Cohort's own texts (gdb's are GPL'd; Cohort is MIT OR Apache-2.0): a gdb
/// command Cohort implements with its aliases first, as gdb shows them; a prefix command with
/// the list of its subcommands Cohort implements; a class with its commands; a setting; one of
/// Cohort's own commands; a gdb command Cohort lacks said to be one.
#[test]
fn help_texts_are_cohorts() {
    let help = |args: &[&str]| {
        let mut c = cohort();
        for a in args {
            c.args(["-ex", &format!("help {a}")]);
        }
        let o = c.output().unwrap();
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    assert_eq!(
        help(&["tbreak"]).0,
        "Set a temporary breakpoint: deleted when it first stops the program.\n\
         Usage: tbreak [LOCATION] [thread N] [if CONDITION]\n\
         As \"break\".\n"
    );
    let (b, _) = help(&["b"]);
    assert!(
        b.starts_with("break, brea, bre, br, b\nSet a breakpoint.\nUsage: break "),
        "{b}"
    );
    let (info, _) = help(&["info"]);
    assert!(
        info.starts_with("info, inf, i\nShow facts about the program"),
        "{info}"
    );
    assert!(
        info.contains("\n\nList of info subcommands:\n\ninfo address -- Say where a variable"),
        "{info}"
    );
    assert!(
        info.contains("\ninfo breakpoints, info b -- List the breakpoints"),
        "{info}"
    );
    // Not the info subcommands Cohort lacks.
    assert!(!info.contains("info checkpoints"), "{info}");
    assert!(info.ends_with("for its whole text.\n"), "{info}");
    let (running, _) = help(&["running"]);
    assert!(
        running.starts_with(
            "Starting, stepping, resuming and stopping the program.\n\nList of commands:\n\n"
        ),
        "{running}"
    );
    assert!(
        running.contains("\nrun, r -- Start the program.\n"),
        "{running}"
    );
    assert!(!running.contains("jump"), "{running}");
    assert_eq!(
        help(&[
            "set print pretty",
            "show print pretty",
            "show p pre",
            "show cwd"
        ])
        .0,
        "Choose whether structures print one member a line, indented.\n\
         Usage: set print pretty [on|off]\n\
         Show the value of \"print pretty\"; \"help set print pretty\" says what it does.\n\
         Usage: show print pretty\n\
         Show the value of \"print pretty\"; \"help set print pretty\" says what it does.\n\
         Usage: show print pretty\n\
         \"show cwd\" is a gdb command Cohort does not implement.\n"
    );
    assert_eq!(
        help(&["pstack", "checkpoint", "info checkpoints", "tui", "nosuch"]),
        (
            "Merge the stacks of the ranks into one call tree (cohort launch, cohort attach): stacks [SET].\n\
             \"checkpoint\" is a gdb command Cohort does not implement.\n\
             \"info checkpoints\" is a gdb command Cohort does not implement.\n\
             \"tui\" is a gdb command Cohort does not implement.\n"
                .to_string(),
            "Undefined command: \"nosuch\".  Try \"help\".\n".to_string()
        )
    );
    // help all: every command Cohort implements, by gdb's classes, then Cohort's own.
    let (all, _) = help(&["all"]);
    assert!(
        all.starts_with("\nCommand class: aliases\n\n\nCommand class: breakpoints\n\nawatch -- "),
        "{all}"
    );
    assert!(
        all.contains("\nset print pretty -- Choose whether structures print"),
        "{all}"
    );
    assert!(
        all.contains("\nCohort's own commands\n\ndiagnose -- "),
        "{all}"
    );
    assert!(!all.contains("break-range"), "{all}");
    let (overview, _) = help(&[""]);
    assert!(
        overview.starts_with("Cohort's commands are gdb's."),
        "{overview}"
    );
}

/// `help WORDS` finds the command gdb finds: each pair's help is the same as the help of the
/// full name, in gdb and in Cohort (gdb is the oracle for the resolution, not for the texts),
/// and Cohort implements that command.
#[test]
fn help_resolves_as_gdb() {
    let pairs = [
        ("b", "break"),
        ("br", "break"),
        ("tb", "tbreak"),
        ("i r", "info registers"),
        ("info f", "info frame"),
        ("i b", "info breakpoints"),
        ("i lo", "info locals"),
        ("info sh", "info sharedlibrary"),
        ("inf fun", "info functions"),
        ("info module func", "info module functions"),
        ("bt", "backtrace"),
        ("where", "backtrace"),
        ("p", "print"),
        ("inspect", "print"),
        ("disas", "disassemble"),
        ("u", "until"),
        ("c", "continue"),
        ("fg", "continue"),
        ("fin", "finish"),
        ("n", "next"),
        ("s", "step"),
        ("ni", "nexti"),
        ("si", "stepi"),
        ("core", "core-file"),
        ("gcore", "generate-core-file"),
        ("thr ap a", "thread apply all"),
        ("f ap", "frame apply"),
        ("cond", "condition"),
        ("del", "delete"),
        ("d d", "delete display"),
        ("dis", "disable"),
        ("en", "enable"),
        ("undisp", "undisplay"),
        ("x foo", "x"),
        ("catch sys", "catch syscall"),
        ("tcatch th", "tcatch throw"),
        ("save b", "save breakpoints"),
        ("q", "quit"),
        ("set p pre", "set print pretty"),
        ("show p pre", "show print pretty"),
        ("sho listsi", "show listsize"),
        ("show listsi", "show listsize"),
        ("set unwindon", "set unwindonsignal"),
        ("show unwindon", "show unwindonsignal"),
        ("set unwind-on-t", "set unwind-on-terminating-exception"),
        ("show unwind-on-t", "show unwind-on-terminating-exception"),
        ("h", "help"),
    ];
    let run = |exe: &str| {
        let mut c = Command::new(exe);
        c.args(["-nx", "-batch"]);
        for (short, full) in &pairs {
            c.args([
                "-ex",
                &format!("echo @@ {short}\\n"),
                "-ex",
                &format!("help {short}"),
            ]);
            c.args([
                "-ex",
                &format!("echo @@ {full}\\n"),
                "-ex",
                &format!("help {full}"),
            ]);
        }
        let o = c.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{exe}");
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        text.split("@@ ")
            .skip(1)
            .map(|e| {
                e.split_once('\n')
                    .map_or(String::new(), |(_, body)| body.to_string())
            })
            .collect::<Vec<_>>()
    };
    let ours = run(env!("CARGO_BIN_EXE_cohort"));
    let gdb = run("gdb");
    for (i, (short, full)) in pairs.iter().enumerate() {
        assert_eq!(
            gdb[2 * i],
            gdb[2 * i + 1],
            "gdb: help {short} is not help {full}"
        );
        assert_eq!(
            ours[2 * i],
            ours[2 * i + 1],
            "help {short} is not help {full}"
        );
        assert!(
            !ours[2 * i].contains("does not implement"),
            "help {full}: {}",
            ours[2 * i]
        );
    }
}

/// `show version` is cohort's banner, not gdb's.
#[test]
fn show_version_is_cohorts() {
    let out = cohort()
        .args(["-ex", "show version", "-ex", "show vers"])
        .output()
        .unwrap();
    let banner = format!(
        "Cohort {}\nA parallel debugger compatible with gdb's command language.\n",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), banner.repeat(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// `apropos REGEXP` searches Cohort's texts (in gdb's order, by name): Cohort's own commands,
/// the gdb commands and settings Cohort implements, a command listed again where an alias
/// matches too (as gdb does); not the gdb commands Cohort lacks.
#[test]
fn apropos_searches_help() {
    let out = cohort()
        .args([
            "-ex",
            "apropos pstack",
            "-ex",
            "apropos -v ^mq$",
            "-ex",
            "apropos checkpoint",
            "-ex",
            "apropos ^tb",
            "-ex",
            "apropos read watchpoint",
            "-ex",
            "apropos ^listsize$",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        "stacks, pstack -- Merge the stacks of the ranks into one call tree (cohort launch, cohort attach): stacks [SET].\n\
         \n\
         mq, message-queues\n\
         Show the MPI message queues of the ranks (cohort launch, cohort attach): mq [SET].\n\
         The set's running ranks are stopped; each rank's MPI library reads its own queues through its\n\
         debugger interface (Open MPI's libompi_dbg_msgq.so, named by MPIR_dll_name), and each\n\
         communicator with pending operations is shown with its pending sends and receives: peer,\n\
         tag, length in bytes and buffer address.\n\
         tbreak -- Set a temporary breakpoint: deleted when it first stops the program.\n\
         rwatch -- Set a read watchpoint: the program stops when an expression's memory is read.\n\
         set listsize -- Set how many lines \"list\" shows.\n\
         show listsize -- Show the value of \"listsize\"; \"help set listsize\" says what it does.\n"
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
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
