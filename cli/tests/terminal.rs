//! The interactive terminal (issue 18): `cohort` in a real pseudo-terminal (a tmux pane),
//! typed at with tmux's send-keys: Tab completes through `complete`, the arrow keys walk the
//! history, Ctrl-R searches it, and `set history save on` keeps it in `~/.cohort_history`
//! for the next session. Skipped where tmux is missing (scripts/test.sh installs it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> String {
    let o = Command::new("tmux")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("tmux {args:?}: {e}"));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A tmux session of its own running cohort with HOME at `home`.
struct Pane {
    name: String,
}

impl Pane {
    fn start(name: &str, home: &Path, dir: &Path, prog: &str) -> Pane {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", name])
            .output();
        let cmd = format!(
            "cd {} && HOME={} {} -q {prog}",
            dir.display(),
            home.display(),
            env!("CARGO_BIN_EXE_cohort")
        );
        tmux(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "150",
            "-y",
            "40",
            &cmd,
        ]);
        let p = Pane {
            name: name.to_string(),
        };
        p.wait_for("(cohort)");
        p
    }

    fn keys(&self, keys: &[&str]) {
        let mut a = vec!["send-keys", "-t", &self.name];
        a.extend_from_slice(keys);
        tmux(&a);
    }

    fn screen(&self) -> String {
        tmux(&["capture-pane", "-p", "-t", &self.name])
    }

    /// Wait until the screen has `text`; the screen.
    fn wait_for(&self, text: &str) -> String {
        let t0 = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "no {text:?} on the screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Wait until the session has ended.
    fn wait_gone(&self) {
        let t0 = Instant::now();
        while Command::new("tmux")
            .args(["has-session", "-t", &self.name])
            .output()
            .is_ok_and(|o| o.status.success())
        {
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "cohort did not quit"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .output();
    }
}

fn program(dir: &Path) {
    std::fs::create_dir_all(dir).expect("dir");
    std::fs::write(
        dir.join("term.c"),
        "int counter = 42;\nint main(void) { return counter - 42; }\n",
    )
    .expect("source");
    let st = Command::new("gcc")
        .args(["-g", "-O0", "term.c", "-o", "term"])
        .current_dir(dir)
        .status()
        .expect("gcc");
    assert!(st.success());
}

#[test]
fn line_editing_completion_and_saved_history() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("no tmux: skipped");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("terminal");
    let _ = std::fs::remove_dir_all(&dir);
    program(&dir);
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("home");

    let p = Pane::start("cohort-term-1", &home, &dir, "./term");
    p.keys(&["set history save on", "Enter"]);
    // Tab completes a global and a subcommand.
    p.keys(&["print coun", "Tab"]);
    p.wait_for("(cohort) print counter");
    p.keys(&["Enter"]);
    p.wait_for("$1 = 42");
    p.keys(&["info sha", "Tab"]);
    p.wait_for("(cohort) info sharedlibrary");
    p.keys(&["Enter"]);
    p.wait_for("No shared libraries loaded at this time.");
    // Up twice is `print counter` again; Left edits it in place.
    p.keys(&["Up", "Up"]);
    p.wait_for("(cohort) print counter");
    p.keys(&["Left", "Left", "Left", "Left", "Left", "Left", "Left"]);
    p.keys(&["2*", "Enter"]);
    p.wait_for("$2 = 84");
    p.keys(&["C-d"]);
    p.wait_gone();
    drop(p);
    let saved = std::fs::read_to_string(home.join(".cohort_history")).expect("history saved");
    assert!(
        saved.lines().any(|l| l == "print 2*counter"),
        "history: {saved}"
    );
    // gdb's format: one command a line, no `#V2` header (gdb would read it as a command).
    assert_eq!(
        saved.lines().next(),
        Some("set history save on"),
        "history: {saved}"
    );

    // The next session has it: Ctrl-R finds the line.
    let p = Pane::start("cohort-term-2", &home, &dir, "./term");
    p.keys(&["C-r", "2\\*c"]);
    p.wait_for("print 2*counter");
    p.keys(&["Enter"]);
    p.wait_for("$1 = 84");
    p.keys(&["quit", "Enter"]);
    p.wait_gone();
}

/// Piped input is read as before: no prompt editing, no history file.
#[test]
fn pipes_unchanged() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("terminal-pipe");
    let _ = std::fs::remove_dir_all(&dir);
    program(&dir);
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf 'set history save on\\nprint counter\\n' | HOME={} {} -q ./term",
            home.display(),
            env!("CARGO_BIN_EXE_cohort")
        ))
        .current_dir(&dir)
        .output()
        .expect("cohort");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "(cohort) (cohort) $1 = 42\n(cohort) "
    );
    assert!(!home.join(".cohort_history").exists());
}

/// `cohort launch` at a terminal: the same line editor (command names complete; the history
/// walks back).
#[test]
fn launch_line_editing() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("no tmux: skipped");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("terminal-launch");
    let _ = std::fs::remove_dir_all(&dir);
    program(&dir);
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let name = "cohort-term-launch";
    let _ = Command::new("tmux")
        .args(["kill-session", "-t", name])
        .output();
    let cmd = format!(
        "cd {} && HOME={} {} launch -n 2 -- ./term",
        dir.display(),
        home.display(),
        env!("CARGO_BIN_EXE_cohort")
    );
    tmux(&[
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        "150",
        "-y",
        "40",
        &cmd,
    ]);
    let p = Pane {
        name: name.to_string(),
    };
    p.wait_for("(cohort)");
    p.keys(&["pri", "Tab"]);
    p.wait_for("(cohort) print");
    p.keys(&[" counter", "Enter"]);
    p.wait_for("[0-1] $1 = 42");
    p.keys(&["Up", "Enter"]);
    p.wait_for("[0-1] $2 = 42");
    p.keys(&["C-d"]);
    p.wait_gone();
}
