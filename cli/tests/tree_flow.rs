//! The tree on a shared network and under a slow terminal (issue 16): the session secret is
//! in no file, a slow reader of the front end's output blocks the ranks (not the agents'
//! memory), output without newlines is shown as it comes, and a hung agent holds nobody up.

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Session, cohort, job, show, status_field, unique_marker};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

fn kib(pid: i32, field: &str) -> u64 {
    status_field(pid, field)
        .and_then(|v| v.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

fn ppid(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

/// The agents a front end started (not the processes they fork to start ranks).
fn agents(marker: &str, front: i32) -> Vec<i32> {
    job(marker)
        .into_iter()
        .filter(|p| p.cmdline.contains("cohort-agentd") && ppid(p.pid) == front)
        .map(|p| p.pid)
        .collect()
}

fn wait_gone(marker: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    while !job(marker).is_empty() {
        assert!(
            Instant::now() < until,
            "left running:\n{}",
            show(&job(marker))
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_session_secret_is_in_no_file_and_no_command_line() {
    let prog = cohort_fixtures::program("ranks");
    let xdg = std::env::temp_dir().join(format!("cohort-xdg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&xdg);
    let dir = xdg.join("cohort");
    std::fs::create_dir_all(&dir).unwrap();
    // What sessions of earlier versions left when they were killed.
    std::fs::write(dir.join("session-2147483646.key"), "00\n").unwrap();
    let marker = unique_marker();
    let args: Vec<String> = ["launch", "-n", "2", "-nx", "--"]
        .iter()
        .map(|s| s.to_string())
        .chain([prog.display().to_string()])
        .collect();
    let xdg_s = xdg.display().to_string();
    let mut s = Session::start(
        &args,
        prog.parent().unwrap(),
        &[("XDG_RUNTIME_DIR", &xdg_s), ("COHORT_TEST_MARKER", &marker)],
    );
    s.wait_for(|l| l.contains("Temporary breakpoint 1, main"));
    let ags = agents(&marker, s.child.id() as i32);
    assert_eq!(ags.len(), 1, "{}", show(&job(&marker)));
    for a in &ags {
        let p = common::proc_info(*a).unwrap();
        assert!(p.cmdline.contains("--secret-stdin"), "{}", p.cmdline);
        assert!(!p.cmdline.contains("--secret-file"), "{}", p.cmdline);
        let env = std::fs::read(format!("/proc/{a}/environ")).unwrap();
        assert!(
            !String::from_utf8_lossy(&env).contains("COHORT_SECRET"),
            "the secret is in the agent's environment"
        );
    }
    let files = |d: &Path| -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        files(&dir),
        Vec::<String>::new(),
        "no key file, and the stale one is gone"
    );
    // Killed, the front end leaves nothing behind either.
    kill(s.pid(), Signal::SIGKILL).unwrap();
    let _ = s.child.wait();
    wait_gone(&marker);
    assert_eq!(files(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&xdg);
}

/// `cohort` with its stdout read by a thread that can be paused (a slow terminal). It keeps
/// every byte read with the time it came.
struct Slow {
    child: Child,
    paused: Arc<AtomicBool>,
    got: Arc<Mutex<Got>>,
}

/// The bytes read, and when each read's first byte came (its offset, the time).
type Got = (Vec<u8>, Vec<(usize, Instant)>);

impl Slow {
    fn start(args: &[&str], prog: &Path, prog_args: &[&str], marker: &str) -> Slow {
        let mut child = Command::new(cohort())
            .args(args)
            .arg(prog)
            .args(prog_args)
            .env("COHORT_TEST_MARKER", marker)
            .env("XDG_STATE_HOME", common::state_home())
            .current_dir(prog.parent().unwrap())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let paused = Arc::new(AtomicBool::new(false));
        let got = Arc::new(Mutex::new((Vec::new(), Vec::new())));
        let (p, g) = (paused.clone(), got.clone());
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            loop {
                if p.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                }
                match out.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        let mut g = g.lock().unwrap();
                        let at = g.0.len();
                        g.0.extend_from_slice(&buf[..n]);
                        g.1.push((at, Instant::now()));
                    }
                }
            }
        });
        Slow { child, paused, got }
    }

    fn send(&mut self, line: &str) {
        let w = self.child.stdin.as_mut().unwrap();
        writeln!(w, "{line}").unwrap();
        w.flush().unwrap();
    }

    /// Waits until the output holds `text`; returns where it starts.
    fn wait_for(&self, text: &str, limit: Duration) -> usize {
        let until = Instant::now() + limit;
        let mut from = 0;
        loop {
            {
                let g = self.got.lock().unwrap();
                if let Some(i) = find(&g.0[from..], text.as_bytes()) {
                    return from + i;
                }
                from = g.0.len().saturating_sub(text.len());
            }
            assert!(
                Instant::now() < until,
                "never came: {text:?}; last output: {:?}",
                String::from_utf8_lossy(&self.tail())
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn tail(&self) -> Vec<u8> {
        let g = self.got.lock().unwrap();
        g.0[g.0.len().saturating_sub(2000)..].to_vec()
    }

    /// When the byte at `i` was read.
    fn time_of(&self, i: usize) -> Instant {
        let g = self.got.lock().unwrap();
        g.1.iter()
            .take_while(|(at, _)| *at <= i)
            .last()
            .map(|(_, t)| *t)
            .unwrap()
    }
}

impl Drop for Slow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A terminal that does not read: the ranks block in `write`, the agent holds at most its
/// bound, and once the terminal reads again every line arrives, once and whole.
#[test]
fn a_slow_terminal_blocks_the_ranks_and_bounds_the_agents_memory() {
    let prog = cohort_fixtures::program("flood");
    let marker = unique_marker();
    let mib = 40u64;
    let mut s = Slow::start(
        &["launch", "-n", "2", "-nx", "--"],
        &prog,
        &[&mib.to_string()],
        &marker,
    );
    s.wait_for("Temporary breakpoint 1, main", Duration::from_secs(60));
    std::thread::sleep(Duration::from_millis(300));
    let ags = agents(&marker, s.child.id() as i32);
    assert_eq!(ags.len(), 1, "{}", show(&job(&marker)));
    let agent = ags[0];
    let front = s.child.id() as i32;
    let (agent0, front0) = (kib(agent, "VmRSS:"), kib(front, "VmRSS:"));
    s.paused.store(true, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(100));
    s.send("continue");
    let (mut agent_max, mut front_max) = (0, 0);
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        agent_max = agent_max.max(kib(agent, "VmRSS:"));
        front_max = front_max.max(kib(front, "VmRSS:"));
        std::thread::sleep(Duration::from_millis(20));
    }
    // Both ranks wait in write(2) on their pipes.
    let ranks: Vec<i32> = job(&marker)
        .into_iter()
        .filter(|p| p.exe.ends_with("flood"))
        .map(|p| p.pid)
        .collect();
    assert_eq!(ranks.len(), 2, "{}", show(&job(&marker)));
    for r in &ranks {
        let wchan = std::fs::read_to_string(format!("/proc/{r}/wchan")).unwrap_or_default();
        // `pipe_write`, or `anon_pipe_write` on newer kernels.
        assert!(wchan.ends_with("pipe_write"), "rank pid {r} in {wchan}");
    }
    // 8 MiB for the subtree (none here), 256 KiB per rank, and room for the reads in flight.
    let agent_growth = agent_max.saturating_sub(agent0);
    assert!(
        agent_growth < 8 * 1024,
        "the agent grew by {agent_growth} KiB (from {agent0} KiB)"
    );
    let front_growth = front_max.saturating_sub(front0);
    assert!(
        front_growth < 16 * 1024,
        "the front end grew by {front_growth} KiB (from {front0} KiB)"
    );
    s.paused.store(false, Ordering::Relaxed);
    let until = Instant::now() + Duration::from_secs(120);
    while find(&s.tail(), b"exited normally").is_none()
        || job(&marker).iter().any(|p| p.exe.ends_with("flood"))
    {
        assert!(
            Instant::now() < until,
            "{:?}",
            String::from_utf8_lossy(&s.tail())
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let g = s.got.lock().unwrap();
    let text = String::from_utf8_lossy(&g.0);
    // Every byte of each rank, once and in order: the program's stream of hex digits (its
    // lines of 99), rebuilt from the lines shown with the rank's prefix. (A line whose halves
    // reach the front end more than 100 ms apart is shown in two pieces.) The prompt, with no
    // terminal to echo the command, may begin a line.
    let mut want = String::new();
    let mut x: u64 = 88172645463325252;
    for _ in 0..mib * 1048576 / 100 {
        for _ in 0..99 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            want.push(char::from(b"0123456789abcdef"[(x & 15) as usize]));
        }
    }
    for r in 0..2 {
        let prefix = format!("[{r}] ");
        let got: String = text
            .lines()
            .filter_map(|l| l.trim_start_matches("(cohort) ").strip_prefix(&prefix))
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .collect();
        assert!(
            got == want,
            "rank {r}: {} digits of {}",
            got.len(),
            want.len()
        );
        let whole = text
            .lines()
            .filter_map(|l| l.trim_start_matches("(cohort) ").strip_prefix(&prefix))
            .filter(|d| d.len() == 99 && d.bytes().all(|b| b.is_ascii_hexdigit()))
            .count() as u64;
        assert!(
            whole * 100 > mib * 1048576 / 100 * 95,
            "rank {r}: {whole} whole lines"
        );
    }
}

/// Output without a newline is shown as it comes, continued on the same line.
#[test]
fn output_without_newlines_is_shown_as_it_comes() {
    let prog = cohort_fixtures::program("trickle");
    let marker = unique_marker();
    let mut s = Slow::start(
        &["launch", "-n", "1", "--settle", "10000", "-nx", "--"],
        &prog,
        &[],
        &marker,
    );
    s.wait_for("Temporary breakpoint 1, main", Duration::from_secs(60));
    let sent = Instant::now();
    s.send("continue");
    let abc = s.wait_for("[0] abc", Duration::from_secs(10));
    let shown = s.time_of(abc).duration_since(sent);
    assert!(
        shown < Duration::from_millis(1500),
        "`abc` shown after {shown:?}, not before the program's next write (2 s)"
    );
    let all = s.wait_for("[0] abcdefghi\n", Duration::from_secs(20));
    let def = s.time_of(all + 7);
    assert!(def.duration_since(sent) < Duration::from_millis(3500));
    s.wait_for("exited normally", Duration::from_secs(20));
}

/// A rank's exit is shown after every byte it wrote: the agent reads its pipes to their end
/// before it answers (the program's last writes may still be in the pipe when its exit is
/// seen). Sixteen ranks race their exits against their output.
#[test]
fn an_exit_is_shown_after_all_the_output_of_the_rank() {
    let prog = cohort_fixtures::program("flood");
    let marker = unique_marker();
    let mut s = Slow::start(
        &["launch", "-n", "16", "--settle", "60000", "-nx", "--"],
        &prog,
        &["2", "1"],
        &marker,
    );
    s.wait_for("Temporary breakpoint 1, main", Duration::from_secs(60));
    s.send("continue");
    let exited = s.wait_for(
        "[0-15] [Inferior 1 exited normally]",
        Duration::from_secs(120),
    );
    let g = s.got.lock().unwrap();
    let before = &g.0[..exited];
    let ends = before.windows(2).filter(|w| w == b"!\n").count();
    assert_eq!(
        ends,
        16,
        "the exit came before the end of the output of {} ranks: {:?}",
        16 - ends,
        String::from_utf8_lossy(&g.0[g.0.len().saturating_sub(300)..])
    );
}

/// 300 MiB without a newline: shown as it comes, every byte, while the front end's memory
/// stays bounded.
#[test]
fn a_rank_writing_300_mib_without_a_newline_costs_the_front_end_no_memory() {
    let prog = cohort_fixtures::program("flood");
    let marker = unique_marker();
    let mut s = Slow::start(
        &["launch", "-n", "1", "--settle", "600000", "-nx", "--"],
        &prog,
        &["300", "1"],
        &marker,
    );
    s.wait_for("Temporary breakpoint 1, main", Duration::from_secs(60));
    let front = s.child.id() as i32;
    let front0 = kib(front, "VmRSS:");
    s.send("continue");
    let mut front_max = 0;
    // 300 MiB through the tree: about 10 s on an idle 2-core machine, several times that
    // beside other tests.
    let until = Instant::now() + Duration::from_secs(400);
    loop {
        front_max = front_max.max(kib(front, "VmRSS:"));
        if find(&s.tail(), b"exited normally").is_some() {
            break;
        }
        assert!(
            Instant::now() < until,
            "{:?}",
            String::from_utf8_lossy(&s.tail())
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let growth = front_max.saturating_sub(front0);
    assert!(growth < 16 * 1024, "the front end grew by {growth} KiB");
    let g = s.got.lock().unwrap();
    // The program's bytes: not those of the debugger's own lines ("Temporary breakpoint",
    // "exited normally").
    let ys: usize = g
        .0
        .split(|b| *b == b'\n')
        .filter(|l| find(l, b"Temporary breakpoint").is_none() && find(l, b"[Inferior").is_none())
        .map(|l| l.iter().filter(|b| **b == b'y').count())
        .sum();
    assert_eq!(ys, 300 << 20);
    assert!(find(&g.0, b"!\n").is_some());
}

/// A stopped agent: the others answer within the command's timeout, and its ranks are
/// reported lost within 5 s of its last answer to a ping.
#[test]
fn a_hung_agent_holds_nobody_up_and_is_lost_within_5_seconds() {
    let (mut s, marker) = four_ranks_under_two_agents("ranks", &[]);
    s.wait_for(|l| l.contains("Temporary breakpoint 1, main"));
    s.send("print 1");
    s.wait_for(|l| l.ends_with("[0-3] $1 = 1"));
    let agent1 = agent_pid(&marker, 1);
    kill(Pid::from_raw(agent1), Signal::SIGSTOP).unwrap();
    let stopped = Instant::now();
    s.send("print 2");
    // The answer (stdout) and the timeout (stderr) come in either order.
    let (mut value, mut timed_out) = (false, false);
    while !(value && timed_out) {
        let l = s.wait_for(|l| {
            l.ends_with("[0-1] $2 = 2") || l == "[2-3] no answer in time (the command timed out)"
        });
        value |= l.ends_with("$2 = 2");
        timed_out |= l.starts_with("[2-3] no answer");
    }
    let answered = stopped.elapsed();
    assert!(
        answered < Duration::from_millis(4000),
        "answered after {answered:?} (timeout 3 s)"
    );
    s.wait_for(|l| l == "[2-3] lost: agent 1 (no answer to pings for 5 seconds)");
    let lost = stopped.elapsed();
    assert!(lost < Duration::from_secs(6), "lost after {lost:?}");
    // The others go on.
    s.send("print 3");
    s.wait_for(|l| l.ends_with("[0-1] $3 = 3"));
    kill(Pid::from_raw(agent1), Signal::SIGCONT).unwrap();
    s.send("quit");
    wait_gone(&marker);
}

/// An agent held up while its ranks compute is slow, not lost (found at 10,000 spinning ranks on
/// 2 CPUs, where agents went unscheduled for up to 20 s and were declared lost after 5): while
/// its ranks run, its parent allows it a minute of silence. Here agent 1 is stopped for 8 s
/// while its ranks run; after it goes on, every rank is interrupted and answers.
#[test]
fn an_agent_held_up_while_its_ranks_run_is_not_lost() {
    let (mut s, marker) = four_ranks_under_two_agents("forever", &["--settle", "500"]);
    s.wait_for(|l| l.contains("Temporary breakpoint 1, main"));
    s.send("continue");
    s.wait_for(|l| l.ends_with("[0-3] running (`continue` has not finished)"));
    let agent1 = agent_pid(&marker, 1);
    kill(Pid::from_raw(agent1), Signal::SIGSTOP).unwrap();
    std::thread::sleep(Duration::from_secs(8));
    kill(Pid::from_raw(agent1), Signal::SIGCONT).unwrap();
    s.send("interrupt");
    // Every rank stops (agent 1's two maybe in an event of their own, it has just gone on).
    let mut stopped = std::collections::BTreeSet::new();
    while stopped.len() < 4 {
        let l = s.wait_for(|l| l.contains("Program received signal SIGINT") || l.contains("lost"));
        assert!(!l.contains("lost"), "{l}");
        let set = l
            .rsplit_once('[')
            .and_then(|(_, r)| r.split_once(']'))
            .map_or("", |(set, _)| set);
        for part in set.split(',') {
            let (lo, hi) = part.split_once('-').unwrap_or((part, part));
            stopped.extend(lo.parse::<u32>().unwrap()..=hi.parse::<u32>().unwrap());
        }
    }
    s.send("print 5");
    let l = s.wait_for(|l| l.ends_with("$1 = 5") || l.contains("lost"));
    assert!(l.ends_with("[0-3] $1 = 5"), "{l}");
    s.send("quit");
    wait_gone(&marker);
}

/// An interactive `cohort launch -n 4 --agents 2 --timeout 3000 EXTRA -nx` of the fixture
/// `name`, its processes marked (see `job`): the session and the marker.
fn four_ranks_under_two_agents(name: &str, extra: &[&str]) -> (Session, String) {
    let args: Vec<&str> = ["--timeout", "3000"].iter().chain(extra).copied().collect();
    four_ranks_with(name, &args)
}

/// The pid of agent `index` of the session marked `marker`.
fn agent_pid(marker: &str, index: u32) -> i32 {
    job(marker)
        .into_iter()
        .find(|p| {
            p.cmdline
                .contains(&format!("cohort-agentd --index {index}"))
        })
        .expect("the agent")
        .pid
}

/// An interactive `cohort launch -n 4 --agents 2 ARGS -nx` of the fixture `name`, marked.
fn four_ranks_with(name: &str, args: &[&str]) -> (Session, String) {
    let prog = cohort_fixtures::program(name);
    let marker = unique_marker();
    let args: Vec<String> = ["launch", "-n", "4", "--agents", "2"]
        .iter()
        .chain(args)
        .chain(&["-nx", "--"])
        .map(|s| s.to_string())
        .chain([prog.display().to_string()])
        .collect();
    let s = Session::start(
        &args,
        prog.parent().unwrap(),
        &[("COHORT_TEST_MARKER", &marker)],
    );
    (s, marker)
}

/// A command that lets nothing run and outlasts the timeout (`shell sleep`, as a slow `break
/// FILE:LINE` did at 10,000 ranks) leaves its ranks stopped where they were: `info ranks`
/// says they are busy with it, not running; a `continue` given meanwhile runs once they are
/// idle (it was taken for the end of the busy command, and the ranks never went on).
#[test]
fn ranks_busy_with_a_timed_out_command_are_not_running() {
    let (mut s, marker) = four_ranks_with("ranks", &["--timeout", "300", "--settle", "5000"]);
    s.wait_for(|l| l.contains("Temporary breakpoint 1, main"));
    s.send("shell sleep 2");
    s.wait_for(|l| l.ends_with("[0-3] no answer in time (the command timed out)"));
    s.send("info ranks");
    let l = s.wait_for(|l| l.contains("[0-3] "));
    assert_eq!(unprompted(&l), "[0-3] busy (`shell` has not finished)");
    // Waits for the end of `shell`, then runs: every rank goes on to its end.
    s.send("continue");
    let mut ended = 0;
    while ended < 4 {
        let l = s.wait_for(|l| l.contains("exited") || l.contains("has not finished"));
        assert!(l.contains("exited"), "{l}");
        ended += l.split_once(']').map_or(1, |(set, _)| {
            cohort_wire::RankSet::parse(&set[1..], 4).map_or(1, |r| r.len())
        });
    }
    s.send("info ranks");
    let l = s.wait_for(|l| l.contains('['));
    assert!(!l.contains("running") && !l.contains("busy"), "{l}");
    s.send("quit");
    wait_gone(&marker);
}

/// An agent that does not answer a `break` in time (stopped here): its ranks are reported
/// without an answer, not running, and once it goes on its ranks have the breakpoint.
#[test]
fn ranks_of_a_held_up_agent_after_a_timed_out_break_are_not_running() {
    let (mut s, marker) = four_ranks_with("ranks", &["--timeout", "300"]);
    s.wait_for(|l| l.contains("Temporary breakpoint 1, main"));
    let agent1 = agent_pid(&marker, 1);
    kill(Pid::from_raw(agent1), Signal::SIGSTOP).unwrap();
    s.send("break ranks.c:24");
    s.wait_for(|l| l.contains("no answer in time"));
    s.send("info ranks");
    let l = s.wait_for(|l| l.contains("no answer in time") || l.contains("running"));
    assert!(!l.contains("running"), "{l}");
    kill(Pid::from_raw(agent1), Signal::SIGCONT).unwrap();
    // Agent 1 answers the `break` late (busy with it meanwhile, not running), then all four
    // are where they were.
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        s.send("info ranks");
        let l = s.wait_for(|l| l.contains("[0-3] ") || l.contains("[2-3] "));
        assert!(!l.contains("running"), "{l}");
        if l.contains("[0-3] ") {
            assert!(l.ends_with("ranks.c:18"), "{l}");
            assert!(
                unprompted(&l).starts_with("[0-3] stopped in main at "),
                "{l}"
            );
            break;
        }
        assert!(Instant::now() < until, "{l}");
        std::thread::sleep(Duration::from_millis(200));
    }
    s.send("continue");
    let l = s.wait_for(|l| l.contains("Breakpoint 2, main"));
    assert!(unprompted(&l).starts_with("[0-3] "), "{l}");
    s.send("quit");
    wait_gone(&marker);
}

/// A line without the prompts printed before it.
fn unprompted(l: &str) -> &str {
    let mut l = l;
    while let Some(r) = l.strip_prefix("(cohort) ") {
        l = r;
    }
    l
}
