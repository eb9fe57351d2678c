//! Saved sessions (issue 20): an interactive `cohort launch` session keeps its breakpoints,
//! displays and groups for the next session of the same program, which restores them before
//! its first prompt (one line says so) unless `--no-restore`. Real 4-rank jobs of
//! `tests/fixtures/ranks.c` under the local launcher, each test with its own state folder
//! (`XDG_STATE_HOME`).

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::Session;

/// `cohort launch -n 4 EXTRA -- ./ranks` in the program's folder, saving its session under
/// `state` (a folder, or whatever XDG_STATE_HOME is to be).
fn session(prog: &Path, state: &Path, extra: &[&str]) -> Session {
    let mut args: Vec<String> = ["launch", "-n", "4"].map(String::from).into();
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--".to_string(), "./ranks".to_string()]);
    let state = state.to_string_lossy().into_owned();
    Session::start(
        &args,
        prog.parent().unwrap(),
        &[("XDG_STATE_HOME", state.as_str())],
    )
}

/// `quit`, and wait until the session has ended (its state saved).
fn quit(mut s: Session) {
    s.send("echo END-OF-SESSION\\n");
    s.wait_for(|l| l.contains("END-OF-SESSION"));
    s.send("quit");
    let until = Instant::now() + Duration::from_secs(30);
    while !s.exited() {
        assert!(
            Instant::now() < until,
            "did not end:\n{}",
            s.seen.join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn fixture(tag: &str) -> PathBuf {
    cohort_fixtures::program_in_own_dir("ranks", tag)
}

fn state_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("saved-sessions")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The saved sessions under a state folder.
fn saved(state: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(state.join("cohort/sessions"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn breakpoints_displays_and_groups_come_back_in_the_next_session_of_the_program() {
    let prog = fixture("session");
    let state = state_dir("restore");

    // Session 1: breakpoints (one with a condition, one disabled, one of some ranks, a
    // temporary one), a display, a group.
    let mut s = session(&prog, &state, &[]);
    s.send("break compute if step == 1");
    s.wait_for(|l| l.contains("Breakpoint 2 at "));
    s.send("break ranks.c:26");
    s.wait_for(|l| l.contains("Breakpoint 3 at "));
    s.send("disable 3");
    s.send("[0-1] break ranks.c:27");
    s.wait_for(|l| l.contains("[0-1] Breakpoint 4 at "));
    s.send("tbreak ranks.c:26");
    s.wait_for(|l| l.contains("Temporary breakpoint 5 at "));
    s.send("display iterations");
    s.send("group evens 0,2");
    s.wait_for(|l| l.ends_with("evens: [0,2]"));
    let first = s.seen.join("\n");
    assert!(!first.contains("Restored"), "{first}");
    quit(s);
    let files = saved(&state);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let canonical = prog.canonicalize().unwrap();
    assert_eq!(
        text,
        format!(
            "# cohort session of {}\nbreak compute\n  condition $bpnum step == 1\nbreak ranks.c:26\n  disable $bpnum\n[0-1] break ranks.c:27\ntbreak ranks.c:26\ndisplay iterations\ngroup evens 0,2\n",
            canonical.display()
        )
    );

    // A breakpoint whose place is gone from the source is said in one line and skipped; one
    // whose condition names what is gone comes back without it.
    std::fs::write(
        &files[0],
        text.replace(
            "display iterations\n",
            "break ranks.c:999\n  condition $bpnum step == 2\nbreak ranks.c:28\n  condition $bpnum nosuch == 1\ndisplay iterations\n",
        ),
    )
    .unwrap();

    // Session 2: restored before the first prompt; the first continue stops at the restored
    // breakpoint, under its condition.
    let mut s = session(&prog, &state, &[]);
    s.wait_for(|l| {
        l.ends_with(
            "Restored 5 breakpoints, 1 display and 1 group from the last session (--no-restore to start clean).",
        )
    });
    s.send("info breakpoints");
    s.wait_for(|l| {
        l.contains("2       breakpoint     keep y") && l.ends_with("in compute at ranks.c:10")
    });
    s.wait_for(|l| l.ends_with("\tstop only if step == 1"));
    s.wait_for(|l| {
        l.contains("3       breakpoint     keep n") && l.ends_with("in main at ranks.c:26")
    });
    s.wait_for(|l| {
        l.starts_with("[0-1] 4       breakpoint     keep y") && l.ends_with("in main at ranks.c:27")
    });
    s.wait_for(|l| {
        l.contains("5       breakpoint     del  y") && l.ends_with("in main at ranks.c:26")
    });
    // (Said on the error stream: in any order with the line on the output.)
    let out = s.seen.join("\n");
    assert!(
        out.contains("\nNot restored: break ranks.c:999: No line 999 in file \"ranks.c\".\n"),
        "{out}"
    );
    assert!(
        out.contains("\nPartly restored: break ranks.c:28: condition 6 nosuch == 1: No symbol \"nosuch\" in current context.\n"),
        "{out}"
    );
    s.send("continue");
    s.wait_for(|l| l.contains("] Breakpoint 2, compute (") && l.contains("step=1)"));
    s.wait_for(|l| l.ends_with("] 1: iterations = 3"));
    s.send("print step");
    s.wait_for(|l| l.ends_with("[0-3] $1 = 1"));
    s.send("group list");
    s.wait_for(|l| l.ends_with("evens: [0,2]"));
    s.send("[evens] print rank");
    s.wait_for(|l| l.ends_with("[0] $2 = 0"));
    s.wait_for(|l| l.ends_with("[2] $2 = 2"));
    let out = s.seen.join("\n");
    assert_eq!(out.matches("Restored ").count(), 1, "{out}");
    quit(s);

    // Another program (the same source built elsewhere): nothing of the first.
    let other = fixture("session-other");
    let mut s = session(&other, &state, &[]);
    s.send("info breakpoints");
    s.wait_for(|l| l.contains("No breakpoints or watchpoints."));
    s.send("group list");
    s.wait_for(|l| l.contains("No groups."));
    s.send("break compute");
    s.wait_for(|l| l.contains("Breakpoint 2 at "));
    let out = s.seen.join("\n");
    assert!(!out.contains("Restored"), "{out}");
    quit(s);
    assert_eq!(saved(&state).len(), 2);

    // Session 3, --no-restore: a clean start (and its state, none, is what it saves).
    let mut s = session(&prog, &state, &["--no-restore"]);
    s.send("info breakpoints");
    s.wait_for(|l| l.contains("No breakpoints or watchpoints."));
    s.send("group list");
    s.wait_for(|l| l.contains("No groups."));
    s.send("info display");
    s.wait_for(|l| l.contains("There are no auto-display expressions now."));
    let out = s.seen.join("\n");
    assert!(!out.contains("Restored"), "{out}");
    quit(s);
    let mut s = session(&prog, &state, &[]);
    s.send("info breakpoints");
    s.wait_for(|l| l.contains("No breakpoints or watchpoints."));
    let out = s.seen.join("\n");
    assert!(!out.contains("Restored"), "{out}");
    quit(s);

    // The other program's session is its own.
    let mut s = session(&other, &state, &[]);
    s.wait_for(|l| {
        l.ends_with("Restored 1 breakpoint from the last session (--no-restore to start clean).")
    });
    quit(s);
}

/// Watchpoints (with their conditions), command lists (`silent` among them), temporary
/// breakpoints, `dprintf` and displays of a function's locals come back; a watchpoint on the
/// locals of a function that is not running where the ranks start is one line that says so;
/// a display saved without its scope (an older file) that means nothing there is kept for the
/// stops where it can be evaluated.
#[test]
fn watchpoints_command_lists_and_displays_of_locals_come_back() {
    let prog = fixture("session-watch");
    let state = state_dir("watch");

    // Session 1.
    let mut s = session(&prog, &state, &[]);
    s.send("watch iterations if iterations > 5");
    s.wait_for(|l| l.contains("Hardware watchpoint 2: iterations"));
    s.send("break compute");
    s.wait_for(|l| l.contains("Breakpoint 3 at "));
    s.send("commands");
    s.send("silent");
    s.send("print step");
    s.send("end");
    s.send("tbreak ranks.c:26");
    s.wait_for(|l| l.contains("Temporary breakpoint 4 at "));
    s.send(r#"dprintf ranks.c:24,"step %d\n", step"#);
    s.wait_for(|l| l.contains("Dprintf 5 at "));
    s.send("continue");
    s.wait_for(|l| l.ends_with("step 0"));
    s.wait_for(|l| l.ends_with("$1 = 0"));
    // In compute: a watchpoint and a display of its locals, a display of main's.
    s.send("watch v");
    s.wait_for(|l| l.contains("Hardware watchpoint 6: v"));
    s.send("awatch iterations");
    s.wait_for(|l| l.contains("Hardware access (read/write) watchpoint 7: iterations"));
    s.send("disable 7");
    s.send("display/x v");
    s.send("up");
    s.send("display total");
    s.send("down");
    // gdb's display of another function's locals: not shown, and `info display` says why.
    s.send("info display");
    s.wait_for(|l| l.ends_with("1:   y  /x v"));
    s.wait_for(|l| l.ends_with("2:   y  total (cannot be evaluated in the current context)"));
    let shown_before = s.seen.len();
    s.send("display");
    s.wait_for(|l| l.contains("1: /x v = "));
    s.send("echo DISPLAYED\\n");
    s.wait_for(|l| l.contains("DISPLAYED"));
    let first = s.seen.join("\n");
    // Typed in main's frame, `display total` shows at once (as gdb's from_tty); back in
    // compute, `display` leaves it out.
    assert!(first.contains("[0-3] 2: total = 0"), "{first}");
    let later = s.seen[shown_before..].join("\n");
    assert!(!later.contains("2: total"), "{later}");
    quit(s);
    let files = saved(&state);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let canonical = prog.canonicalize().unwrap();
    assert_eq!(
        text,
        format!(
            "# cohort session of {}\nwatch iterations\n  condition $bpnum iterations > 5\nbreak compute\n  commands\n    silent\n    print step\n  end\ntbreak ranks.c:26\ndprintf ranks.c:24,\"step %d\\n\", step\nwatch v\n  scope compute\nawatch iterations\n  disable $bpnum\ndisplay/x v\n  scope compute\ndisplay total\n  scope main\n",
            canonical.display()
        )
    );

    // Session 2: all but the watchpoint on compute's locals come back.
    let mut s = session(&prog, &state, &[]);
    s.wait_for(|l| {
        l == "Not restored: watch v: No symbol \"v\" in current context. (a watchpoint on locals of compute: set it again when compute runs)"
    });
    s.wait_for(|l| {
        l.ends_with(
            "Restored 3 breakpoints, 2 watchpoints and 2 displays from the last session (--no-restore to start clean).",
        )
    });
    s.send("info breakpoints");
    s.wait_for(|l| l.contains("2       hw watchpoint  keep y") && l.ends_with(" iterations"));
    s.wait_for(|l| l.ends_with("\tstop only if iterations > 5"));
    s.wait_for(|l| {
        l.contains("3       breakpoint     keep y") && l.ends_with("in compute at ranks.c:10")
    });
    s.wait_for(|l| l.ends_with("        silent"));
    s.wait_for(|l| l.ends_with("        print step"));
    s.wait_for(|l| {
        l.contains("4       breakpoint     del  y") && l.ends_with("in main at ranks.c:26")
    });
    s.wait_for(|l| {
        l.contains("5       dprintf        keep y") && l.ends_with("in main at ranks.c:24")
    });
    s.wait_for(|l| l.ends_with(r#"        printf "step %d\n", step"#));
    s.wait_for(|l| l.contains("6       acc watchpoint keep n") && l.ends_with(" iterations"));
    s.send("info display");
    s.wait_for(|l| l.ends_with("1:   y  /x v (cannot be evaluated in the current context)"));
    s.wait_for(|l| l.ends_with("2:   y  total"));
    s.send("continue");
    s.wait_for(|l| l.ends_with("step 0"));
    s.wait_for(|l| l.ends_with("$1 = 0"));
    s.send("next");
    s.wait_for(|l| l.ends_with("[1] 1: /x v = 0xa"));
    s.send("echo STEPPED\\n");
    s.wait_for(|l| l.contains("STEPPED"));
    let out = s.seen.join("\n");
    assert!(!out.contains("] Breakpoint 3, "), "{out}");
    assert!(!out.contains("2: total"), "{out}");
    assert!(
        !out.contains("No symbol \"v\" in current context.\n"),
        "{out}"
    );
    quit(s);

    // An older file: a display without its scope, and a line of no known kind; the session
    // starts all the same.
    let files = saved(&state);
    std::fs::write(
        &files[0],
        format!(
            "# cohort session of {}\nbreak compute\ndisplay v\nfrobnicate 1\n",
            canonical.display()
        ),
    )
    .unwrap();
    let mut s = session(&prog, &state, &[]);
    s.wait_for(|l| {
        l == "Kept display v for the stops where it can be evaluated: No symbol \"v\" in current context."
    });
    s.wait_for(|l| {
        l.ends_with(
            "Restored 1 breakpoint and 1 display from the last session (--no-restore to start clean).",
        )
    });
    s.send("continue");
    s.wait_for(|l| l.contains("] Breakpoint 2, compute ("));
    s.wait_for(|l| l.contains("] 1: v = "));
    // (Said on the error stream: in any order with the line on the output.)
    let out = s.seen.join("\n");
    assert!(
        out.contains("\nNot restored: frobnicate 1: Undefined command: \"frobnicate\"."),
        "{out}"
    );
    quit(s);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        text.ends_with("\nbreak compute\ndisplay v\n  scope compute\n"),
        "{text}"
    );
}

#[test]
fn a_state_folder_that_cannot_be_written_is_one_warning() {
    let prog = fixture("session-unwritable");
    let dir = state_dir("unwritable");
    std::fs::create_dir_all(&dir).unwrap();
    // A file where the state folder would be.
    let state = dir.join("a-file");
    std::fs::write(&state, "").unwrap();
    let mut s = session(&prog, &state, &[]);
    s.send("break compute");
    s.wait_for(|l| l.contains("Breakpoint 2 at "));
    s.send("echo END-OF-SESSION\\n");
    s.wait_for(|l| l.contains("END-OF-SESSION"));
    s.send("quit");
    s.wait_for(|l| {
        l.starts_with(&format!(
            "cohort: warning: the session's breakpoints, displays and groups are not saved in {}/cohort/sessions: ",
            state.display()
        ))
    });
    let until = Instant::now() + Duration::from_secs(30);
    while !s.exited() {
        assert!(Instant::now() < until);
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = s.seen.join("\n");
    assert_eq!(out.matches("warning").count(), 1, "{out}");
}

/// `-batch` neither restores nor saves: a script does what it says every time.
#[test]
fn batch_sessions_neither_restore_nor_save() {
    let prog = fixture("session-batch");
    let state = state_dir("batch");
    let o = std::process::Command::new(common::cohort())
        .args([
            "launch",
            "-n",
            "2",
            "-batch",
            "-ex",
            "break compute",
            "--",
            "./ranks",
        ])
        .env("XDG_STATE_HOME", &state)
        .current_dir(prog.parent().unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(saved(&state).is_empty());
}

/// Under an MPI launcher: 2 ranks of `tests/mpi/start.c`, launched through `cc`'s launcher;
/// the breakpoint saved by the first session stops the second one's first `continue` (number
/// `bp`: under `mpich`, 1 was `start`'s).
fn restored_under_a_launcher(launcher: &str, cc: &str, bp: u32, env: &[(&str, &str)]) {
    let prog = cohort_fixtures::mpi_program_in_own_dir("start", cc);
    let state = state_dir(&format!("launcher-{launcher}"));
    let state_s = state.to_string_lossy().into_owned();
    let mut env = env.to_vec();
    env.push(("XDG_STATE_HOME", &state_s));
    let args: Vec<String> = ["launch", "-n", "2", "--launcher", launcher, "--", "./start"]
        .map(String::from)
        .into();
    let line =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mpi/start.c"))
            .unwrap()
            .lines()
            .position(|l| l.contains("/* PRINT */"))
            .unwrap()
            + 1;
    let mut s = Session::start(&args, prog.parent().unwrap(), &env);
    s.send(&format!("break start.c:{line}"));
    s.wait_for(|l| l.contains(&format!("] Breakpoint {bp} at ")));
    s.send("group first 0");
    s.wait_for(|l| l.ends_with("first: [0]"));
    quit(s);
    let mut s = Session::start(&args, prog.parent().unwrap(), &env);
    s.wait_for(|l| {
        l.ends_with(
            "Restored 1 breakpoint and 1 group from the last session (--no-restore to start clean).",
        )
    });
    s.send("continue");
    s.wait_for(|l| l.contains(&format!("Breakpoint {bp}, main () at start.c:{line}")));
    s.send("[first] print rank");
    s.wait_for(|l| l.ends_with("[0] $1 = 0"));
    quit(s);
}

#[test]
fn restored_under_open_mpi() {
    restored_under_a_launcher(
        "openmpi",
        "mpicc.openmpi",
        1,
        &[("OMPI_MCA_btl", "self,vader")],
    );
}

#[test]
fn restored_under_mpich() {
    restored_under_a_launcher("mpich", "mpicc.mpich", 2, &[]);
}

/// Ranks still running at the end (here rank 0, blocked reading its input) are not asked: the
/// session ends at once, with what the stopped ranks have saved.
#[test]
fn running_ranks_do_not_hold_up_the_end() {
    let prog = cohort_fixtures::program_in_own_dir("stdin_ranks", "session");
    let state = state_dir("running");
    let state_s = state.to_string_lossy().into_owned();
    let args: Vec<String> = ["launch", "-n", "2", "--", "./stdin_ranks"]
        .map(String::from)
        .into();
    let mut s = Session::start(
        &args,
        prog.parent().unwrap(),
        &[("XDG_STATE_HOME", state_s.as_str())],
    );
    s.send("break stdin_ranks.c:14");
    s.wait_for(|l| l.contains("Breakpoint 2 at "));
    s.send("[0] continue");
    s.wait_for(|l| l.contains("[0] running (`continue` has not finished)"));
    // (`quit` only: a command to rank 0 would wait for its `continue`.)
    let t0 = Instant::now();
    s.send("quit");
    while !s.exited() {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "{}",
            s.seen.join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let files = saved(&state);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.ends_with("\nbreak stdin_ranks.c:14\n"), "{text}");
}
