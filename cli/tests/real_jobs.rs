//! Real programs doing ordinary things (blocking I/O, threads): the debugger must answer
//! promptly and never change what the program does (issue 15). Each test drives `cohort` at its
//! prompt, as a person types, and checks the program's own results afterwards.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cohort_fixtures::{Interactive, program};

mod common;

/// How long the debugger may take to answer one command.
const ANSWER: Duration = Duration::from_secs(1);

fn session() -> Interactive {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args(["-nx", "-q"]);
    Interactive::start(c, "(cohort) ", Duration::from_secs(10))
}

/// Send `line`; the answer (standard output and error) must come within [`ANSWER`].
fn ask(s: &mut Interactive, line: &str, what: &str) -> String {
    match s.command(line, ANSWER) {
        Ok(a) => {
            assert!(
                !a.contains("PTRACE") && !a.contains("Sandbox"),
                "{what}: `{line}`: {a}"
            );
            a
        }
        Err(a) => panic!("{what}: `{line}` gave no answer within {ANSWER:?}: {a}"),
    }
}

/// Attach, `bt`, detach; the backtrace must reach `main`.
fn attach_bt_detach(s: &mut Interactive, pid: u32, what: &str) {
    let a = ask(s, &format!("attach {pid}"), what);
    assert!(a.contains(&format!("process {pid}")), "{what}: {a}");
    let bt = ask(s, "bt", what);
    assert!(bt.contains(" main ("), "{what}: {bt}");
    let d = ask(s, "detach", what);
    assert!(
        d.contains(&format!("[Inferior 1 (process {pid}) detached]")),
        "{what}: {d}"
    );
}

struct Reap(Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cohort-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A program blocked in `read` on a FIFO, attached to 200 times while a writer trickles
/// bytes in: every byte is read exactly once (the blocked `read` is never run again by the
/// debugger) and every command is answered at once.
#[test]
fn attach_to_a_blocked_read_200_times_loses_no_byte() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut reader = Reap(
        Command::new(program("fifo_reader"))
            .arg(&fifo)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let mut out = BufReader::new(reader.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line, "ready\n");
    let pid = reader.0.id();
    let mut s = session();
    let (mut bytes, mut sum) = (0u64, 0u64);
    for cycle in 0..200u64 {
        // Sometimes bytes are waiting when the debugger attaches, sometimes the read waits.
        if cycle % 3 != 0 {
            let chunk: Vec<u8> = (0..37).map(|j| ((cycle * 7 + j) % 251) as u8).collect();
            bytes += chunk.len() as u64;
            sum += chunk.iter().map(|&b| b as u64).sum::<u64>();
            writer.write_all(&chunk).unwrap();
        }
        attach_bt_detach(&mut s, pid, &format!("cycle {cycle}"));
    }
    drop(writer);
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, format!("read {bytes} bytes, sum {sum}\n"));
    assert!(reader.0.wait().unwrap().success());
    let _ = std::fs::remove_dir_all(dir);
}

/// A program blocked in `write` on a full pipe, attached to 200 times while the test reads a
/// little between attaches: every line arrives exactly once, in order.
#[test]
fn attach_to_a_blocked_write_200_times_writes_each_line_once() {
    let lines = 100_000;
    let mut writer = Reap(
        Command::new(program("pipe_writer"))
            .arg(lines.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(writer.0.stdout.take().unwrap());
    let pid = writer.0.id();
    let mut s = session();
    let mut next = 0;
    let mut line = String::new();
    let mut expect_line = |out: &mut BufReader<_>, next: &mut usize| {
        line.clear();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, format!("line {next}\n"));
        *next += 1;
    };
    // The pipe is full before the first attach: the program waits in write.
    std::thread::sleep(Duration::from_millis(100));
    for cycle in 0..200 {
        attach_bt_detach(&mut s, pid, &format!("cycle {cycle}"));
        for _ in 0..300 {
            expect_line(&mut out, &mut next);
        }
    }
    while next < lines {
        expect_line(&mut out, &mut next);
    }
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "");
    assert!(writer.0.wait().unwrap().success());
}

/// Starts the fixture `name` with piped standard input and output, and waits for its
/// `ready` line.
fn start_ready(name: &str) -> (Reap, BufReader<std::process::ChildStdout>) {
    let mut p = Reap(
        Command::new(program(name))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(p.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line, "ready\n");
    (p, out)
}

/// Starts `mt_detach` (four workers calling `work`, one thread in a condition wait, the main
/// thread in `read`) and waits for it to be ready.
fn start_mt_detach() -> (Reap, BufReader<std::process::ChildStdout>) {
    start_ready("mt_detach")
}

/// Ends `mt_detach` (end of its input) and checks what it computed.
fn finish_mt_detach(mut p: Reap, mut out: BufReader<std::process::ChildStdout>) {
    drop(p.0.stdin.take());
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let st = p.0.wait().unwrap();
    assert_eq!(
        (rest.as_str(), st.code()),
        ("checksums ok\n", Some(0)),
        "{st}"
    );
}

/// Attach, break where four threads keep passing, continue, detach: 200 times. Other threads
/// that hit the breakpoint meanwhile must not be left with a trap to die of.
#[test]
fn break_continue_detach_200_times_in_a_threaded_program() {
    let (p, out) = start_mt_detach();
    let pid = p.0.id();
    let mut s = session();
    for cycle in 0..200 {
        let what = format!("cycle {cycle}");
        let a = ask(&mut s, &format!("attach {pid}"), &what);
        assert!(a.contains(&format!("process {pid}")), "{what}: {a}");
        let b = ask(&mut s, "break work", &what);
        assert!(b.starts_with("Breakpoint "), "{what}: {b}");
        let c = ask(&mut s, "continue", &what);
        assert!(c.contains(" hit Breakpoint "), "{what}: {c}");
        assert!(c.contains(", work (i="), "{what}: {c}");
        ask(&mut s, "delete", &what);
        let d = ask(&mut s, "detach", &what);
        assert!(d.contains("detached]"), "{what}: {d}");
    }
    finish_mt_detach(p, out);
}

/// Starts `blocked` (threads waiting in read, write, accept, nanosleep, a futex, poll and
/// epoll_wait; the main thread in read) and waits for it to be ready.
fn start_blocked() -> (Reap, BufReader<std::process::ChildStdout>) {
    let (p, out) = start_ready("blocked");
    // Until every thread sleeps in its call (the writer once the pipe is full).
    let task = format!("/proc/{}/task", p.0.id());
    let asleep = || {
        let states: Vec<String> = std::fs::read_dir(&task)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
                    .collect()
            })
            .unwrap_or_default();
        // The state follows the command's closing parenthesis.
        states.len() == 8
            && states.iter().all(|st| {
                st.rsplit_once(") ")
                    .is_some_and(|(_, r)| r.starts_with('S'))
            })
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !asleep() {
        assert!(
            std::time::Instant::now() < deadline,
            "blocked never settled"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    (p, out)
}

/// `info threads`, then `thread N` and `bt` for every thread of a program whose threads all
/// wait in system calls: 50 times attached, every answer within a second, and no call of the
/// program run twice nor interrupted.
#[test]
fn every_thread_of_an_attached_program_answers() {
    let (mut p, mut out) = start_blocked();
    let pid = p.0.id();
    let mut s = session();
    // Where each thread waits: the fixture's function in its backtrace.
    let waits = [
        " main (",
        " reader (",
        " writer (",
        " acceptor (",
        " sleeper (",
        " waiter (",
        " poller (",
        " epoller (",
    ];
    for cycle in 0..50 {
        let what = format!("cycle {cycle}");
        ask(&mut s, &format!("attach {pid}"), &what);
        let table = ask(&mut s, "info threads", &what);
        let rows = table.lines().filter(|l| l.contains(" Thread 0x")).count();
        assert_eq!(rows, waits.len(), "{what}: {table}");
        for (n, w) in waits.iter().enumerate() {
            let t = ask(&mut s, &format!("thread {}", n + 1), &what);
            assert!(
                t.starts_with(&format!("[Switching to thread {} (Thread 0x", n + 1)),
                "{what}: {t}"
            );
            let bt = ask(&mut s, "bt", &what);
            assert!(bt.contains(w), "{what}: thread {}: {bt}", n + 1);
        }
        ask(&mut s, "detach", &what);
    }
    drop(p.0.stdin.take());
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "all calls completed once, 0 interrupted\n");
    assert!(p.0.wait().unwrap().success());
}

/// The pids of the processes running `program` whose environment has `COHORT_RANK=rank`.
fn rank_pids(program: &std::path::Path, ranks: &[u32]) -> Vec<i32> {
    let mut pids = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()) {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if std::fs::read_link(e.path().join("exe")).ok().as_deref() != Some(program) {
            continue;
        }
        let env = std::fs::read(e.path().join("environ")).unwrap_or_default();
        let rank = env
            .split(|&b| b == 0)
            .find_map(|v| v.strip_prefix(b"COHORT_RANK="))
            .and_then(|v| std::str::from_utf8(v).ok()?.parse::<u32>().ok());
        if rank.is_some_and(|r| ranks.contains(&r)) {
            pids.push(pid);
        }
    }
    pids
}

/// Ranks killed from outside while stopped are reported as killed, and commands to them say
/// in gdb's words that there is no program (no `ptrace` or memory errors).
#[test]
fn ranks_killed_while_stopped_are_reported_killed() {
    let prog = std::fs::canonicalize(program("ranks")).unwrap();
    let src = cohort_fixtures::source_dir().join("ranks.c");
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args(["launch", "-n", "4", "--"])
        .arg(&prog)
        .env("XDG_STATE_HOME", common::state_home());
    let mut s = Interactive::start(c, "(cohort) ", Duration::from_secs(20));
    let limit = Duration::from_secs(10);
    let say = |s: &mut Interactive, line: &str| match s.command(line, limit) {
        Ok(a) => a,
        Err(a) => panic!("`{line}` gave no answer: {a}"),
    };
    say(&mut s, "break compute");
    let c = say(&mut s, "continue");
    assert!(c.contains("[0-3] 10\t    int v = rank * 10 + step;"), "{c}");
    let pids = rank_pids(&prog, &[0, 1]);
    assert_eq!(pids.len(), 2, "{pids:?}");
    for &p in &pids {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), nix::sys::signal::SIGKILL).unwrap();
    }
    // Until both are dead (zombies of their tracer).
    let deadline = std::time::Instant::now() + limit;
    while pids.iter().any(|p| {
        std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|st| {
            st.rsplit_once(") ")
                .is_some_and(|(_, r)| !r.starts_with('Z'))
        })
    }) {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        say(&mut s, "info ranks"),
        format!(
            "[0-1] terminated with signal SIGKILL\n[2-3] stopped in compute at {}:10\n",
            src.display()
        )
    );
    let bt = say(&mut s, "bt");
    assert!(bt.contains("[0-1] No stack.\n"), "{bt}");
    assert_eq!(
        say(&mut s, "[0-1] next"),
        "[0-1] The program is not being run.\n"
    );
    let p = say(&mut s, "print v");
    assert!(
        p.contains("[0-1] No symbol \"v\" in current context.\n"),
        "{p}"
    );
    assert!(!p.contains("Cannot access memory"), "{p}");
    say(&mut s, "kill");
    assert!(s.finish(limit).is_some());
}

/// Whether every process of `pids` waits in `read` (system call 0 on x86-64).
fn all_in_read(pids: &[i32]) -> bool {
    pids.iter().all(|p| {
        std::fs::read_to_string(format!("/proc/{p}/syscall"))
            .is_ok_and(|s| s.split_whitespace().next() == Some("0"))
    })
}

/// A `cohort launch` session at its prompt, keeping all it said (answers and the events
/// between them).
struct Front {
    s: Interactive,
    seen: String,
}

impl Front {
    const LIMIT: Duration = Duration::from_secs(10);

    fn say(&mut self, line: &str) -> String {
        let a = self
            .s
            .command(line, Self::LIMIT)
            .unwrap_or_else(|a| panic!("`{line}` gave no answer: {a}"));
        self.seen.push_str(&a);
        a
    }

    /// Repeat `line` until the session has said `want` (in an answer or an event, now or
    /// before).
    fn until(&mut self, line: &str, want: &str) {
        let deadline = std::time::Instant::now() + Self::LIMIT;
        loop {
            if self.seen.contains(want) {
                return;
            }
            self.say(line);
            assert!(
                std::time::Instant::now() < deadline,
                "never `{want}`: {}",
                self.seen
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Ranks waiting in `read` on their standard input stop on `interrupt`, and `input` reaches
/// them when they go on.
#[test]
fn ranks_waiting_for_input_stop_on_interrupt_and_get_their_input() {
    let prog = std::fs::canonicalize(program("stdin_ranks")).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args(["launch", "-n", "2", "--"])
        .arg(&prog)
        .env("XDG_STATE_HOME", common::state_home());
    let mut f = Front {
        s: Interactive::start(c, "(cohort) ", Duration::from_secs(20)),
        seen: String::new(),
    };
    f.say("continue");
    let pids = rank_pids(&prog, &[0, 1]);
    assert_eq!(pids.len(), 2);
    let deadline = std::time::Instant::now() + Front::LIMIT;
    while !all_in_read(&pids) {
        assert!(std::time::Instant::now() < deadline, "the ranks never read");
        std::thread::sleep(Duration::from_millis(5));
    }
    f.say("interrupt");
    // In the program's terms: the library call it made and its line (issue 20), not the
    // innermost frame (`read` in glibc).
    let src = std::fs::canonicalize(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/stdin_ranks.c"),
    )
    .unwrap();
    f.until(
        "info ranks",
        &format!("[0-1] stopped in fgets called from {}:13\n", src.display()),
    );
    f.say("[1] input hello");
    f.say("continue");
    f.until("focus", "[1] rank 1 got 'hello'\n");
    f.say("[0] input end");
    f.say("[1] input end");
    f.until("info ranks", "[0-1] exited normally\n");
    assert!(f.seen.contains("[0] rank 0 got 'end'\n"), "{}", f.seen);
    assert!(!f.seen.contains("rank 0 got 'hello'"), "{}", f.seen);
    assert!(f.s.finish(Front::LIMIT).is_some_and(|st| st.success()));
}

/// Open MPI ranks (every one has threads: Open MPI's progress threads) answer `info threads`,
/// `thread N` and `bt`, and step over an MPI call together; when the session ends, nothing of
/// the job is left.
#[test]
fn open_mpi_ranks_with_threads_answer_and_nothing_is_left() {
    let prog = cohort_fixtures::mpi_program_in_own_dir("ring", "mpicc.openmpi");
    let marker = common::unique_marker();
    // The ring's ranks wait for this file (the job's marker) after MPI_Init: it is there.
    let go = std::env::temp_dir().join(&marker);
    std::fs::write(&go, "").unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohort"));
    c.args([
        "launch",
        "-n",
        "4",
        "--launcher",
        "openmpi",
        "--settle",
        "60000",
    ])
    .arg("-batch");
    for x in [
        "info threads",
        "thread 2",
        "bt",
        "thread 1",
        "break ring.c:21",
        "continue",
        "next",
        "bt",
        "info ranks",
    ] {
        c.args(["-ex", x]);
    }
    c.arg("--")
        .arg(&prog)
        .arg(&go)
        .current_dir(prog.parent().unwrap())
        .env("OMPI_MCA_btl", "self,vader")
        .env("COHORT_TEST_MARKER", &marker);
    let mut child = Reap(
        c.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = String::new();
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let st = child.0.wait().unwrap();
    // Every rank lists its threads: the main one (selected) and Open MPI's.
    for r in 0..4 {
        assert!(out.contains(&format!("[{r}] * 1    Thread 0x")), "{out}");
        assert!(out.contains(&format!("[{r}]   2    Thread 0x")), "{out}");
    }
    for r in 0..4 {
        assert!(
            out.contains(&format!("[{r}] [Switching to thread 2 (Thread 0x")),
            "{out}"
        );
    }
    assert!(out.contains(" in clone3 () at "), "{out}");
    assert!(
        out.contains("[0-3] 23\t    printf(\"rank %d of %d got %d\\n\", rank, size, from);\n"),
        "{out}"
    );
    assert!(out.contains("[0-3] #0  main (argc=2, argv="), "{out}");
    assert!(out.contains(") at ring.c:23\n"), "{out}");
    assert!(
        out.contains("[0-3] stopped in main at ring.c:23\n"),
        "{out}"
    );
    assert!(st.success(), "{st}: {out}");
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    loop {
        let left = common::job(&marker);
        if left.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "left running:\n{}",
            common::show(&left)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = std::fs::remove_file(go);
}
