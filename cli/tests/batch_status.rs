//! What scripts rely on (issue 15, points 13 and 14): gdb's `-batch` exit status (1 when the
//! last command failed, `quit N`, program exit codes not counted), errors in gdb's words
//! (`Is a directory`, scripts stopping at their first error), what gdb says only to the user
//! at the terminal (`Attaching to`, `Detaching from`, `Starting program:`), and attaching to a
//! process of the debugger's own parent chain, to itself or to a PID namespace's init, which
//! must answer, not hang. Each case runs under gdb 13 and under `cohort`; the exit status,
//! stdout and stderr must be the same. Every run has a time limit.
//!
//! `BATCH_DIFF_CANDIDATE=PATH cargo test -p cohort --test batch_status` runs the cases against
//! another binary (gdb itself: the cases are deterministic under the oracle).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cohort_fixtures::{line_diff, normalize_gdb_output, program, run_with_limit};

/// A debugger that runs longer than this is killed, and the case fails.
const LIMIT: Duration = Duration::from_secs(30);

fn candidate() -> String {
    std::env::var("BATCH_DIFF_CANDIDATE").unwrap_or_else(|_| env!("CARGO_BIN_EXE_cohort").into())
}

/// How a run's output is compared.
#[derive(Clone, Copy, PartialEq)]
enum Norm {
    /// Process numbers only ([`normalize_gdb_output`]).
    Plain,
    /// Also addresses: the processes of the two runs differ (a shell's stack).
    Addresses,
    /// Without `-batch`: gdb's `Reading symbols from …` lines go (cohort reads symbols
    /// lazily and says nothing), and both prompts read `(prompt) `.
    Prompt,
    /// After `detach`: the program's line (`total=45`) comes after `[Inferior 1 (process N)
    /// detached]`. gdb says that line once it has let go, so the program, running on, may
    /// print first, even in the middle of gdb's line (seen in CI); cohort says it before
    /// letting go.
    Detached,
}

fn normalize(text: &str, norm: Norm) -> String {
    let mut s = normalize_gdb_output(text);
    if norm == Norm::Prompt {
        s = s
            .lines()
            .filter(|l| !l.starts_with("Reading symbols from "))
            .map(|l| {
                l.replace("(gdb) ", "(prompt) ")
                    .replace("(cohort) ", "(prompt) ")
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    if norm == Norm::Detached {
        // gdb may even write its line in two pieces around the program's (`[Inferior
        // total=45\n1 (process N) detached]`).
        let n = s.matches("total=45\n").count();
        let rest = s.replace("total=45\n", "");
        s = match rest.split_once(" detached]\n") {
            Some((head, tail)) => {
                format!("{head} detached]\n{}{tail}", "total=45\n".repeat(n))
            }
            None => s,
        };
    }
    if norm == Norm::Addresses {
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find("0x") {
            out.push_str(&rest[..i + 2]);
            rest = &rest[i + 2..];
            let n = rest.chars().take_while(char::is_ascii_hexdigit).count();
            if n > 0 {
                out.push('…');
            }
            rest = &rest[n..];
        }
        out.push_str(rest);
        s = out;
    }
    s
}

/// Run `argv` (the debugger's name replaced by `tool` where it says `TOOL`) in `dir`, in its
/// own process group (a timeout kills all it started); what it did, as one text.
fn run(tool: &str, argv: &[String], dir: &Path, norm: Norm) -> String {
    let argv: Vec<String> = argv.iter().map(|a| a.replace("TOOL", tool)).collect();
    let mut c = Command::new(&argv[0]);
    c.args(&argv[1..])
        .current_dir(dir)
        .env_remove("LINES")
        .env_remove("COLUMNS")
        .process_group(0);
    let r = run_with_limit(c, LIMIT);
    let status = match r.status {
        Some(st) => match st.code() {
            Some(c) => format!("exit {c}"),
            None => format!("ended by {st}"),
        },
        None => format!("killed after {}s: it did not answer", LIMIT.as_secs()),
    };
    format!(
        "{status}\n--- stdout\n{}\n--- stderr\n{}",
        normalize(&r.out, norm),
        normalize(&r.err, norm)
    )
}

/// The cases of one test: each is run under gdb and the candidate, differences collected.
struct Cases {
    dir: PathBuf,
    failures: Vec<String>,
}

impl Cases {
    fn new() -> Cases {
        let dir = program("loop")
            .parent()
            .expect("fixtures folder")
            .to_path_buf();
        // Every program the cases name, built before any case runs.
        program("exitcode");
        program("idle");
        Cases {
            dir,
            failures: Vec::new(),
        }
    }

    /// A command line naming `TOOL`, under gdb and under cohort.
    fn check_argv(&mut self, argv: Vec<String>, norm: Norm) {
        let g = run("gdb", &argv, &self.dir, norm);
        let c = run(&candidate(), &argv, &self.dir, norm);
        self.compare(&argv, g, c);
    }

    /// As [`Cases::check_argv`], each run with a process of its own to attach to (`PID` in
    /// `argv`): for cases that kill it.
    fn check_fresh(&mut self, argv: Vec<String>, norm: Norm) {
        let one = |tool: &str| {
            let idle = Idle::start();
            let pid = idle.pid();
            let argv: Vec<String> = argv.iter().map(|a| a.replace("PID", &pid)).collect();
            let ran = run(tool, &argv, &self.dir, norm);
            let fate = if idle.state().is_some() {
                "lives"
            } else {
                "is gone"
            };
            format!("{ran}\n--- the process {fate}")
        };
        let g = one("gdb");
        let c = one(&candidate());
        self.compare(&argv, g, c);
    }

    fn compare(&mut self, argv: &[String], g: String, c: String) {
        // A run that had to be killed fails the case even when gdb hangs as well.
        if c.starts_with("killed after") || g.starts_with("killed after") {
            self.failures.push(format!(
                "{argv:?}: a debugger did not answer:\n--- gdb:\n{g}\n--- {}:\n{c}",
                candidate()
            ));
        } else if g != c {
            self.failures.push(format!(
                "{argv:?} (- gdb, + {}):\n{}",
                candidate(),
                line_diff(&g, &c)
            ));
        }
    }

    fn check(&mut self, args: &[&str]) {
        let mut argv = vec!["TOOL".to_string(), "-nx".to_string()];
        argv.extend(args.iter().map(|s| s.to_string()));
        self.check_argv(argv, Norm::Plain);
    }

    fn batch(&mut self, args: &[&str]) {
        let mut a = vec!["-batch"];
        a.extend_from_slice(args);
        self.check(&a);
    }

    fn done(self) {
        assert!(
            self.failures.is_empty(),
            "{} case(s) differ from gdb:\n\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

/// A scratch folder for scripts and directories, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("cohort-batch-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch folder");
        Scratch(d)
    }

    fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).expect("write a script");
        p.display().to_string()
    }

    fn dir(&self, name: &str) -> String {
        let p = self.0.join(name);
        std::fs::create_dir_all(&p).expect("make a folder");
        p.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A process waiting in `pause()`, started with address randomisation off (two of them stop
/// at the same address), killed at the end.
struct Idle(Child);

impl Idle {
    fn start() -> Idle {
        let mut child = Command::new("setarch")
            .arg("-R")
            .arg(program("idle"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("start idle");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("idle says ready");
        assert_eq!(line, "ready\n");
        let idle = Idle(child);
        // Asleep in pause() (after "ready" it does nothing else).
        for _ in 0..500 {
            if idle.state() == Some('S') {
                return idle;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("idle never went to sleep");
    }

    fn pid(&self) -> String {
        self.0.id().to_string()
    }

    /// The state once it has gone back to sleep (a detached process runs a moment to resume
    /// its `pause()`): `S`, or what it is still after 5 s (`t`: left stopped), None if gone.
    fn asleep(&self) -> Option<char> {
        for _ in 0..500 {
            if self.state() != Some('R') {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.state()
    }

    /// The process's state letter (`S` asleep, `t` stopped by a debugger), None once gone.
    fn state(&self) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.0.id())).ok()?;
        let after = stat.rsplit_once(") ")?.1;
        after.chars().next().filter(|&c| c != 'Z' && c != 'X')
    }
}

impl Drop for Idle {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no arguments and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Errors of every kind, one `-ex` or several: the exit status is that of the last command.
#[test]
fn batch_exit_status_is_the_last_commands() {
    let mut c = Cases::new();
    // Which command failed: only the last counts.
    c.batch(&["-ex", "foo", "./loop"]);
    c.batch(&["-ex", "foo", "-ex", "print 1", "./loop"]);
    c.batch(&["-ex", "print 1", "-ex", "foo", "./loop"]);
    c.batch(&["-ex", "echo hi\\n", "./loop"]);
    c.batch(&["-ex", "", "./loop"]);
    c.batch(&["-ex", "foo", "-ex", " ", "./loop"]);
    c.batch(&["-ex", "print 1", "-ex", "# not a comment here", "./loop"]);
    c.batch(&["-ex", "print 1 # nor here", "./loop"]);
    // Errors without a program running.
    for cmd in [
        "frame 99",
        "frame",
        "up",
        "down",
        "print nosuch",
        "print 1 +",
        "print )",
        "print 1/0",
        "print $pc",
        "print $eax",
        "output nosuch",
        "call nosuch()",
        "x/x 0",
        "x/i $pc",
        "step",
        "next",
        "stepi",
        "next 0",
        "until",
        "advance 10",
        "continue",
        "finish",
        "info locals",
        "info args",
        "info frame",
        "info registers",
        "info registers rip",
        "bt",
        "kill",
        "detach",
        "thread 5",
        "list nosuch",
        "info line nosuch",
        "info address nosuch",
        "ptype nosuch",
        "whatis nosuch",
        "ptype struct nosuch",
        "set var nosuch=1",
        "display nosuch",
        "display 1 +",
        "watch nosuch",
        "condition 99 1",
        "ignore 99 1",
        "disassemble",
        "disassemble nosuch",
        "handle SIGFOO stop",
        "handle",
        "info signals SIGFOO",
        "info nosuch",
        "show nosuch",
        "set",
        "x/s nosuch",
        "attach",
        "attach foo",
        "attach 12abc",
        "attach 999999999",
        "attach 0",
        "attach -5",
    ] {
        c.batch(&["-ex", cmd, "./loop"]);
    }
    // Not errors, whatever they print.
    for cmd in [
        "break nosuch",
        "tbreak nosuch",
        "break 9999",
        "break loop.c:9999",
        "break nosuch.c:3",
        "delete 99",
        "disable 99",
        "enable 99",
        "undisplay 5",
        "display total",
        "display/i $pc",
        "info threads",
        "info symbol 0",
        "info breakpoints",
        "info sharedlibrary",
        "info signals SIGINT",
        "show args",
        "print $foo",
        "thread apply all bt",
        "thread apply all foo",
        "list",
        "disassemble tick",
    ] {
        c.batch(&["-ex", cmd, "./loop"]);
    }
    c.batch(&["-ex", "set args 1 2", "-ex", "show args", "./loop"]);
    c.batch(&["-ex", "show args", "--args", "./loop", "a", "b"]);
    // Without a program.
    for cmd in [
        "run",
        "start",
        "starti",
        "break main",
        "tbreak main",
        "break loop.c:3",
        "print nosuch",
        "print sizeof(int)",
        "info threads",
    ] {
        c.batch(&["-ex", cmd]);
    }
    c.batch(&["./nonexistent"]);
    c.batch(&["-ex", "print 1", "./nonexistent"]);
    c.batch(&["-ex", "run", "./nonexistent"]);
    c.batch(&["-ex", "start", "./nonexistent"]);
    c.done();
}

/// With a program running: errors at a stop, the outermost frame, the program gone.
#[test]
fn batch_exit_status_with_a_program() {
    let mut c = Cases::new();
    let stop = ["-ex", "break main", "-ex", "run"];
    for cmd in [
        "frame 99",
        "x/x 0",
        "print *(int *) 0",
        "print nosuch",
        "finish",
        "up",
        "down",
        "thread 2",
        "thread apply all foo",
        "thread apply all print nosuch",
        "info locals",
        "display nosuch",
        "quit nosuch",
        "attach 999999999",
        "kill",
        "detach",
    ] {
        let mut a = stop.to_vec();
        a.extend(["-ex", cmd, "./loop"]);
        if cmd == "detach" {
            let mut argv = vec!["TOOL".to_string(), "-nx".to_string(), "-batch".to_string()];
            argv.extend(a.iter().map(|s| s.to_string()));
            c.check_argv(argv, Norm::Detached);
        } else {
            c.batch(&a);
        }
    }
    let mut a = stop.to_vec();
    a.extend(["-ex", "up", "-ex", "print 1", "./loop"]);
    c.batch(&a);
    // After the program has exited, the commands that need it fail.
    for cmd in ["continue", "bt", "info registers", "next", "kill"] {
        let mut a = stop.to_vec();
        a.extend(["-ex", "continue", "-ex", cmd, "./loop"]);
        c.batch(&a);
    }
    c.batch(&[
        "-ex",
        "break tick",
        "-ex",
        "run",
        "-ex",
        "finish",
        "-ex",
        "finish",
        "./loop",
    ]);
    c.batch(&[
        "-ex",
        "break tick",
        "-ex",
        "run",
        "-ex",
        "finish",
        "-ex",
        "print 1",
        "./loop",
    ]);
    // The program's exit code does not count.
    c.batch(&["-ex", "run", "--args", "./exitcode", "3"]);
    c.batch(&["-ex", "run", "-ex", "foo", "--args", "./exitcode", "3"]);
    c.batch(&["-ex", "run", "-ex", "run", "./loop"]);
    c.done();
}

/// `quit [EXPR]`: the exit status, and gdb's question when a program is live.
#[test]
fn batch_quit_status() {
    let mut c = Cases::new();
    for q in [
        "quit", "quit 3", "q 2", "exit 2", "quit 256", "quit -1", "quit 1+2", "quit 3.7",
        "quit foo", "quit 1 2",
    ] {
        c.batch(&["-ex", q, "./loop"]);
    }
    c.batch(&[
        "-ex", "print 1", "-ex", "quit 5", "-ex", "print 2", "./loop",
    ]);
    c.batch(&["-ex", "foo", "-ex", "quit", "./loop"]);
    for q in ["quit", "quit 3", "quit argc"] {
        c.batch(&["-ex", "break main", "-ex", "run", "-ex", q, "./loop"]);
    }
    c.done();
}

/// `-x FILE`: a script stops at its first error (said with its file and line), a script that
/// cannot be read is a warning in batch mode, `quit N` in a script.
#[test]
fn batch_scripts_stop_at_their_first_error() {
    let s = Scratch::new("scripts");
    let err = s.file("err.gdb", "print 1\nfoo\nprint 2\n");
    let ok = s.file("ok.gdb", "print 1\nprint 2\n");
    let quit = s.file("quit.gdb", "print 1\nquit 7\nprint 2\n");
    let stop = s.file(
        "stop.gdb",
        "# comment\nbreak main\nrun\n\nframe 99\nprint 2\n",
    );
    let badquit = s.file("badquit.gdb", "print 1\n\nquit foo\nprint 2\n");
    let spaces = s.file("spaces.gdb", "  foo  \n");
    let missing = s.0.join("missing.gdb").display().to_string();
    let dir = s.dir("adir");
    let mut c = Cases::new();
    c.batch(&["-x", &err, "./loop"]);
    c.batch(&["-x", &err, "-ex", "print 3", "./loop"]);
    c.batch(&["-ex", "print 3", "-x", &err, "./loop"]);
    c.batch(&["-x", &ok, "./loop"]);
    c.batch(&["-x", &ok, "-ex", "foo", "-x", &ok, "./loop"]);
    c.batch(&["-x", &quit, "./loop"]);
    c.batch(&["-x", &stop, "./loop"]);
    c.batch(&["-x", &badquit, "./loop"]);
    c.batch(&["-x", &spaces, "./loop"]);
    c.batch(&["-x", &missing, "./loop"]);
    c.batch(&["-ex", "foo", "-x", &missing, "./loop"]);
    c.batch(&["-x", &dir, "./loop"]);
    // `source`: the same, nested, from -ex.
    let outer = s.file("outer.gdb", &format!("print 1\nsource {err}\nprint 9\n"));
    let verbose = s.file("verbose.gdb", "# c\nprint 1\n\n  print 2  \nfoo\n");
    c.batch(&["-x", &outer, "./loop"]);
    c.batch(&["-ex", &format!("source {err}"), "-ex", "print 5", "./loop"]);
    c.batch(&["-ex", &format!("source {err}"), "./loop"]);
    c.batch(&["-ex", &format!("source {missing}"), "./loop"]);
    c.batch(&["-ex", "source", "./loop"]);
    c.batch(&["-ex", &format!("source -v {verbose}"), "./loop"]);
    c.batch(&["-ex", &format!("source -s -v {ok}"), "./loop"]);
    c.batch(&["-ex", &format!("source {quit}"), "-ex", "print 3", "./loop"]);
    c.done();
}

/// A directory where a program should be, in gdb's words.
#[test]
fn a_directory_is_a_directory() {
    let s = Scratch::new("dirs");
    let dir = s.dir("prog");
    let mut c = Cases::new();
    c.batch(&[&dir]);
    c.batch(&[&format!("{dir}/")]);
    c.batch(&["-ex", "print 1", &dir]);
    c.batch(&["-ex", &format!("file {dir}")]);
    c.batch(&["-ex", &format!("file {dir}"), "-ex", "print 1"]);
    c.batch(&["-ex", "run", &dir]);
    c.batch(&["-ex", "start", &dir]);
    c.batch(&["-ex", "starti", &dir]);
    c.batch(&["-ex", "file ./loop/x"]);
    c.batch(&["-ex", "file /dev/null"]);
    c.batch(&["./loop.c"]);
    c.batch(&[
        "-ex",
        "file ./loop",
        "-ex",
        &format!("file {dir}"),
        "-ex",
        "info line tick",
    ]);
    // With a process to attach to, the program's error is said and the attach goes on.
    let idle = Idle::start();
    let pid = idle.pid();
    c.batch(&["-p", &pid, &dir]);
    c.batch(&[&dir, &pid]);
    c.batch(&["-ex", &format!("attach {pid}"), &dir]);
    assert_eq!(idle.asleep(), Some('S'), "detached and asleep again");
    c.done();
}

/// `attach`, `detach`, `kill`, `quit` on an attached process in batch mode: what gdb says
/// only to a terminal is not said, and the process lives on when detached.
#[test]
fn batch_attach_detach_kill() {
    let mut c = Cases::new();
    let idle = Idle::start();
    let pid = idle.pid();
    let attach = format!("attach {pid}");
    for args in [
        vec!["-p", &pid],
        vec!["-p", &pid, "-ex", "detach"],
        vec!["-p", &pid, "-ex", "detach", "-ex", "detach"],
        vec!["-ex", &attach, "-ex", "detach"],
        vec!["-ex", &attach, "-ex", "bt", "-ex", "info threads"],
        vec!["-p", &pid, "-ex", "quit"],
        vec!["-p", &pid, "-ex", "quit 4"],
        vec!["-p", &pid, "-ex", "foo"],
        vec!["./idle", &pid],
    ] {
        c.batch(&args);
        assert_eq!(
            idle.asleep(),
            Some('S'),
            "{args:?}: detached and asleep again"
        );
    }
    for args in [
        vec!["-p", "foo"],
        vec!["-p", "12abc"],
        vec!["-p", "999999999"],
        vec!["-p", "999999999", "-ex", "print 1"],
        vec!["-p", "0"],
        vec!["-p", "-5"],
    ] {
        c.batch(&args);
    }
    // A process another debugger holds: gdb says who.
    let held = Idle::start();
    let mut holder = Command::new("gdb")
        .args(["-nx", "-batch", "-p", &held.pid(), "-ex", "shell sleep 60"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gdb");
    let traced = || {
        std::fs::read_to_string(format!("/proc/{}/status", held.pid())).is_ok_and(|s| {
            s.lines()
                .any(|l| l.starts_with("TracerPid:") && l.trim_end() != "TracerPid:\t0")
        })
    };
    for _ in 0..1000 {
        if traced() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(traced(), "gdb never attached");
    c.batch(&["-p", &held.pid()]);
    c.batch(&["-ex", &format!("attach {}", held.pid()), "-ex", "print 1"]);
    let _ = holder.kill();
    let _ = holder.wait();
    // Killing: a process of its own for each debugger (same place: no randomisation).
    for args in [
        vec!["-p", "PID", "-ex", "kill"],
        vec!["-ex", "attach PID", "-ex", "kill", "-ex", "info threads"],
        vec!["-p", "PID", "-ex", "attach PID"],
        vec![
            "-ex",
            "break main",
            "-ex",
            "run",
            "-ex",
            "attach PID",
            "./idle",
        ],
    ] {
        let mut argv = vec!["TOOL".to_string(), "-nx".to_string(), "-batch".to_string()];
        argv.extend(args.iter().map(|s| s.to_string()));
        c.check_fresh(argv, Norm::Plain);
    }
    c.done();
}

/// A shell line running debugger command `cmd` once the shell waits for it (`$$` is that
/// shell in the subshell too): started at once, the debugger could find its parent still in
/// `vfork` rather than in `wait4`, as gdb could, only less often.
fn waits(cmd: &str) -> String {
    format!("(sleep 0.3; exec {cmd}); echo rc=$?")
}

/// `sh -c SCRIPT` (with `TOOL` in it) under `prefix` (e.g. `unshare …`), for gdb and cohort.
fn shell(c: &mut Cases, prefix: &[&str], script: &str) {
    let mut argv: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
    argv.extend(["sh".to_string(), "-c".to_string(), script.to_string()]);
    c.check_argv(argv, Norm::Addresses);
}

/// Attaching to a process of the debugger's own parent chain (the shell that waits for it,
/// itself) answers at once, in gdb's words: it must not hang.
#[test]
fn attach_to_the_parent_chain_answers() {
    let mut c = Cases::new();
    shell(&mut c, &[], &waits("TOOL -nx -batch -p $$"));
    shell(
        &mut c,
        &[],
        &waits("TOOL -nx -batch -p $$ -ex bt -ex detach"),
    );
    shell(
        &mut c,
        &[],
        &waits("TOOL -nx -batch -ex \"attach $$\" -ex 'info threads'"),
    );
    // The grandparent: the outer shell waits for the inner one, which waits for the debugger.
    shell(
        &mut c,
        &[],
        "sh -c '(sleep 0.3; exec TOOL -nx -batch -p $PPID -ex detach); echo rc=$?'; echo ok",
    );
    // The debugger itself (the shell execs it: same pid).
    shell(&mut c, &[], "exec TOOL -nx -batch -p $$");
    shell(
        &mut c,
        &[],
        "exec TOOL -nx -batch -ex 'print 1' -ex \"attach $$\"",
    );
    c.done();
}

/// A PID namespace's init (its signals are special: the SIGSTOP of an attach must still
/// stop it), as root and as a user in a user namespace.
#[test]
fn attach_to_a_pid_namespace_init_answers() {
    let mut c = Cases::new();
    let userns = Command::new("unshare")
        .args(["-Upf", "--map-root-user", "--mount-proc", "true"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        userns || !is_root(),
        "unshare cannot make a user and PID namespace here"
    );
    if is_root() {
        shell(
            &mut c,
            &["unshare", "-pf", "--mount-proc"],
            &waits("TOOL -nx -batch -p 1"),
        );
        shell(
            &mut c,
            &["unshare", "-pf", "--mount-proc"],
            &waits("TOOL -nx -batch -p 1 -ex 'info threads' -ex bt -ex detach"),
        );
    }
    if userns {
        shell(
            &mut c,
            &["unshare", "-Upf", "--map-root-user", "--mount-proc"],
            &waits("TOOL -nx -batch -p 1"),
        );
        shell(
            &mut c,
            &["unshare", "-Upf", "--map-root-user", "--mount-proc"],
            &waits("TOOL -nx -batch -ex 'attach 1' -ex detach -ex 'attach 1'"),
        );
    } else {
        eprintln!("no user namespaces here: the unprivileged PID namespace cases did not run");
    }
    c.done();
}

/// As a user who is not root (`setpriv`, so only when the tests run as root): the parent
/// shell of the same user is attached to; root's processes and the system's init refuse.
#[test]
fn attach_as_a_user_who_is_not_root() {
    if !is_root() {
        eprintln!("not root: attach_to_the_parent_chain_answers covers this user");
        return;
    }
    let mut c = Cases::new();
    let nobody = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
    ];
    shell(&mut c, &nobody, &waits("TOOL -nx -batch -p $$"));
    shell(&mut c, &nobody, "exec TOOL -nx -batch -p $$");
    shell(&mut c, &nobody, "TOOL -nx -batch -p 1; echo rc=$?");
    let idle = Idle::start();
    let script = format!("TOOL -nx -batch -p {}; echo rc=$?", idle.pid());
    shell(&mut c, &nobody, &script);
    assert_eq!(idle.asleep(), Some('S'));
    c.done();
}

/// Without `-batch`: `-ex` commands are the user's (gdb's from_tty), a `-x` script's lines
/// are not, and the end of input quits as `quit` does (gdb's question, then detaching).
#[test]
fn what_is_said_only_to_the_user() {
    let s = Scratch::new("tty");
    let mut c = Cases::new();
    let idle = Idle::start();
    let pid = idle.pid();
    let attach = format!("attach {pid}");
    let nb = |args: &[&str]| {
        let mut argv = vec!["TOOL".to_string(), "-nx".to_string(), "-q".to_string()];
        argv.extend(args.iter().map(|s| s.to_string()));
        argv
    };
    for args in [
        vec!["-p", pid.as_str()],
        vec!["-p", &pid, "-ex", "detach"],
        vec!["-ex", &attach, "-ex", "detach"],
        vec!["-p", &pid, "-ex", "quit"],
        vec!["-p", &pid, "-ex", "quit 3"],
    ] {
        c.check_argv(nb(&args), Norm::Prompt);
        assert_eq!(
            idle.asleep(),
            Some('S'),
            "{args:?}: detached and asleep again"
        );
    }
    let script = s.file(
        "attach.gdb",
        &format!("attach {pid}\ndetach\nattach {pid}\n"),
    );
    c.check_argv(nb(&["-x", &script]), Norm::Prompt);
    let script = s.file("quit.gdb", &format!("attach {pid}\nquit\n"));
    c.check_argv(nb(&["-x", &script]), Norm::Prompt);
    assert_eq!(idle.asleep(), Some('S'));
    c.check_fresh(nb(&["-ex", "attach PID", "-ex", "kill"]), Norm::Prompt);
    c.check_fresh(
        nb(&["-x", &s.file("kill.gdb", "attach PID\nkill\n")]),
        Norm::Prompt,
    );
    let session = [
        "break tick",
        "run",
        "continue",
        "finish",
        "condition 1 i > 3",
        "condition 1",
        "ignore 1 2",
        "handle SIGUSR1 nostop",
        "display total",
        "info display",
        "run",
        "kill",
        "break nosuch",
    ];
    let mut args = Vec::new();
    for cmd in session {
        args.extend(["-ex", cmd]);
    }
    args.push("./loop");
    c.check_argv(nb(&args), Norm::Prompt);
    let script = s.file("session.gdb", &(session.join("\n") + "\n"));
    c.check_argv(nb(&["-x", &script, "./loop"]), Norm::Prompt);
    c.check_argv(
        nb(&["-ex", "break tick", "-ex", "run", "--args", "./loop", "3"]),
        Norm::Prompt,
    );
    c.check_argv(nb(&["-ex", "foo", "./loop"]), Norm::Prompt);
    c.check_argv(nb(&["-ex", "quit 6", "./loop"]), Norm::Prompt);
    let missing = s.0.join("missing.gdb").display().to_string();
    c.check_argv(nb(&["-x", &missing]), Norm::Prompt);
    c.check_argv(nb(&["-ex", &format!("source {missing}")]), Norm::Prompt);
    c.done();
}

/// `cohort launch` of a directory (or of nothing) says so in gdb's words and fails at once,
/// before any agent or rank starts.
#[test]
fn launch_of_a_directory_says_so() {
    let s = Scratch::new("launch");
    let dir = s.dir("prog");
    for (prog, says) in [
        (dir.clone(), format!("{dir}: Is a directory.\n")),
        (
            format!("{dir}/nosuch"),
            format!("{dir}/nosuch: No such file or directory.\n"),
        ),
    ] {
        let mut c = Command::new(candidate());
        c.args(["launch", "-n", "2", "-batch", "-ex", "print 1", "--", &prog]);
        let r = run_with_limit(c, LIMIT);
        assert_eq!(r.status.and_then(|s| s.code()), Some(1), "{prog}: {r:?}");
        assert_eq!(r.out, "", "{prog}");
        assert_eq!(r.err, says, "{prog}");
    }
}

/// A source file that is gone is reported once (then `LINE\tin FILE`), in gdb's words: the
/// program's for the session, a library's for each process (gdb reads a library's symbols
/// again for every process it runs or attaches to).
#[test]
fn a_missing_source_is_reported_as_gdb_does() {
    let s = Scratch::new("gone");
    let src = s.file("gone.c", "int main(void) {\n    return 0;\n}\n");
    let st = Command::new("cc")
        .args(["-g", "-O0", "-o", "gone", "gone.c"])
        .current_dir(&s.0)
        .status()
        .expect("run cc");
    assert!(st.success());
    std::fs::remove_file(&src).expect("remove the source");
    let prog = s.0.join("gone").display().to_string();
    let mut c = Cases::new();
    c.batch(&[
        "-ex",
        "break main",
        "-ex",
        "run",
        "-ex",
        "run",
        "-ex",
        "frame",
        &prog,
    ]);
    let idle = Idle::start();
    let attach = format!("attach {}", idle.pid());
    c.batch(&[
        "-ex", &attach, "-ex", "frame", "-ex", "detach", "-ex", &attach,
    ]);
    c.done();
}

/// `cohort launch -batch` exits as gdb -batch does on one of its ranks: 1 when the last command
/// failed (on any rank), else 0.
#[test]
fn launch_batch_exit_status_is_gdbs() {
    let prog = cohort_fixtures::program("ranks");
    let dir = prog.parent().unwrap();
    for cmds in [
        &["print nosuch"][..],
        &["print 1", "print nosuch"],
        &["print nosuch", "print 1"],
        &["break compute", "continue", "print v"],
        &["break compute", "continue", "frame 9"],
        &["info locals", "next", "finish"],
    ] {
        let mut g = Command::new("gdb");
        g.args(["-nx", "-batch", "-ex", "start"]);
        let mut c = Command::new(candidate());
        c.args(["launch", "-n", "2", "-batch"]);
        for x in cmds {
            g.args(["-ex", x]);
            c.args(["-ex", x]);
        }
        g.arg(&prog).current_dir(dir);
        c.arg("--").arg(&prog).current_dir(dir);
        let (gr, cr) = (run_with_limit(g, LIMIT), run_with_limit(c, LIMIT));
        let code = |r: &cohort_fixtures::Ran| r.status.and_then(|s| s.code());
        assert_eq!(code(&cr), code(&gr), "{cmds:?}: gdb {gr:?}\ncohort {cr:?}");
    }
}
