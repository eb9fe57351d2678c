//! What the tests of launched jobs share: `cohort` sessions on pipes, and the processes of a
//! job found by a marker in their environment.
#![allow(dead_code)]

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::unistd::Pid;

pub fn cohort() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cohort"))
}

pub fn unique_marker() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "cohort-end-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A state folder of its own (`XDG_STATE_HOME`) for a session: an interactive session saves
/// its breakpoints, displays and groups for the next session of its program
/// (session/src/saved.rs), and the tests' sessions neither see each other's nor write to the
/// user's home.
pub fn state_home() -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("state-homes")
        .join(format!(
            "{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A process of /proc: its state letter, command line and executable.
pub struct Proc {
    pub pid: i32,
    pub state: char,
    pub cmdline: String,
    pub exe: PathBuf,
}

pub fn proc_info(pid: i32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let state = stat
        .get(stat.rfind(')')? + 1..)?
        .trim_start()
        .chars()
        .next()?;
    let cmdline = String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).ok()?)
        .replace('\0', " ");
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
    Some(Proc {
        pid,
        state,
        cmdline,
        exe,
    })
}

/// Every live process (not a zombie) with `marker` in its command line or environment.
pub fn job(marker: &str) -> Vec<Proc> {
    let me = std::process::id() as i32;
    let m = marker.as_bytes();
    let has = |b: &[u8]| b.windows(m.len()).any(|w| w == m);
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            has(&env) || has(&cmd)
        })
        .filter_map(proc_info)
        .filter(|p| p.state != 'Z' && p.state != 'X')
        .collect()
}

pub fn show(ps: &[Proc]) -> String {
    ps.iter()
        .map(|p| format!("  {} {} {}\n", p.pid, p.state, p.cmdline))
        .collect()
}

pub fn status_field(pid: i32, field: &str) -> Option<String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .map(|v| v.trim().to_string())
}

/// A `cohort launch` or `cohort attach` session on pipes.
pub struct Session {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Everything read so far (for messages).
    pub seen: Vec<String>,
}

impl Session {
    pub fn start(args: &[String], dir: &Path, env: &[(&str, &str)]) -> Session {
        let mut child = Command::new(cohort())
            .args(args)
            .env("XDG_STATE_HOME", state_home())
            .envs(env.iter().copied())
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel();
        for r in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for l in std::io::BufReader::new(r).lines() {
                    let Ok(l) = l else { break };
                    if tx.send(l).is_err() {
                        break;
                    }
                }
            });
        }
        Session {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    pub fn pid(&self) -> Pid {
        Pid::from_raw(self.child.id() as i32)
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    /// Wait for a line of output (stdout or stderr) that `want` accepts.
    pub fn wait_for(&mut self, want: impl Fn(&str) -> bool) -> String {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if want(&l) {
                        return l;
                    }
                }
                Err(_) => panic!("the line never came; output:\n{}", self.seen.join("\n")),
            }
        }
    }

    pub fn exited(&mut self) -> bool {
        self.child.try_wait().unwrap().is_some()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
