//! `cohort launch` with the local launcher: real ranks under real agents. Every rank's part of
//! the merged answer is checked against gdb 13 running that rank alone (same program, same
//! `COHORT_RANK`), merged here by the rule of ../shared/CLI.md: each distinct line once, prefixed
//! by the ranks that printed it, sets ordered by their lowest rank (line N of every rank merged
//! on its own when all ranks printed as many lines).

use std::path::{Path, PathBuf};
use std::process::Command;

fn cohort() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cohort"))
}

/// A state folder of its own (`XDG_STATE_HOME`) for an interactive session: it saves its
/// breakpoints, displays and groups for the next session of its program
/// (session/src/saved.rs), which another test's session must not find.
fn state_home() -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("state-homes")
        .join(format!(
            "parallel-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The fixture compiled in its own folder under a relative name (as gdb users build).
fn build(name: &str) -> PathBuf {
    cohort_fixtures::program_in_own_dir(name, "parallel")
}

fn rankset(ranks: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let mut j = i;
        while j + 1 < ranks.len() && ranks[j + 1] == ranks[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            ranks[i].to_string()
        } else {
            format!("{}-{}", ranks[i], ranks[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

fn prefix(set: &[u32], line: &str) -> String {
    if line.is_empty() {
        format!("[{}]\n", rankset(set))
    } else {
        format!("[{}] {line}\n", rankset(set))
    }
}

/// Merge per-rank texts by the CLI.md rule.
fn merge(texts: &[(u32, String)]) -> String {
    let texts: Vec<(u32, Vec<&str>)> = texts
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(r, t)| (*r, t.lines().collect()))
        .collect();
    let mut out = String::new();
    if texts.is_empty() {
        return out;
    }
    let n = texts[0].1.len();
    if texts.iter().all(|(_, l)| l.len() == n) {
        for i in 0..n {
            let mut groups: Vec<(Vec<u32>, &str)> = Vec::new();
            for (r, l) in &texts {
                match groups.iter_mut().find(|(_, t)| *t == l[i]) {
                    Some(g) => g.0.push(*r),
                    None => groups.push((vec![*r], l[i])),
                }
            }
            for (set, l) in groups {
                out.push_str(&prefix(&set, l));
            }
        }
    } else {
        let mut groups: Vec<(Vec<u32>, &Vec<&str>)> = Vec::new();
        for (r, l) in &texts {
            match groups.iter_mut().find(|(_, t)| *t == l) {
                Some(g) => g.0.push(*r),
                None => groups.push((vec![*r], l)),
            }
        }
        for (set, lines) in groups {
            for l in lines.iter() {
                out.push_str(&prefix(&set, l));
            }
        }
    }
    out
}

/// gdb 13 on one rank: the answer of each command (stdout), `start` first.
fn gdb_rank(prog: &Path, rank: u32, size: u32, cmds: &[&str]) -> Vec<String> {
    // A marker between commands splits gdb's output per command.
    let mut c = Command::new("gdb");
    c.args(["-nx", "-batch"]);
    if cmds.iter().any(|x| x.contains('(')) {
        // A function call: gdb 13 writes registers only with the SSE description on CPUs
        // whose XSAVE area it does not know (see tests/source/README.md).
        let tdesc = cohort_fixtures::source_case_dir().join("gdb-tdesc/amd64-sse.xml");
        c.args(["-ex", &format!("set tdesc filename {}", tdesc.display())]);
    }
    c.args(["-ex", "start"]);
    for x in cmds {
        c.args(["-ex", "echo @@@\\n", "-ex", x]);
    }
    c.arg(prog)
        .current_dir(prog.parent().unwrap())
        .env("COHORT_RANK", rank.to_string())
        .env("COHORT_SIZE", size.to_string());
    let o = c.output().unwrap();
    let text = cohort_fixtures::normalize_gdb_output(&String::from_utf8_lossy(&o.stdout));
    text.split("@@@\n")
        .map(|s| {
            s.lines()
                .filter(|l| !l.starts_with("rank "))
                .map(|l| {
                    format!(
                        "{}\n",
                        l.replace("[Inferior 1 (process N) ", "[Inferior 1 ")
                    )
                })
                .collect()
        })
        .collect()
}

fn cohort_launch(prog: &Path, n: u32, extra: &[&str], cmds: &[&str]) -> (String, String) {
    let mut c = Command::new(cohort());
    c.arg("launch")
        .args(["-n", &n.to_string()])
        .args(extra)
        .arg("-batch");
    for x in cmds {
        c.args(["-ex", x]);
    }
    c.arg("--").arg(prog.file_name().unwrap());
    c.current_dir(prog.parent().unwrap());
    let o = c.output().expect("run cohort launch");
    let out: String = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with("cohort: ") && !l.contains("] rank "))
        .map(|l| format!("{l}\n"))
        .collect();
    (out, String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Every rank runs `cmds`; cohort's merged answer equals gdb's per-rank answers merged.
fn check(n: u32, extra: &[&str], cmds: &[&str]) {
    check_with_errors(n, extra, cmds, "");
}

/// [`check`] where the merged error messages are `errors`.
fn check_with_errors(n: u32, extra: &[&str], cmds: &[&str], errors: &str) {
    let prog = build("ranks");
    let per_rank: Vec<Vec<String>> = (0..n).map(|r| gdb_rank(&prog, r, n, cmds)).collect();
    let mut expected = String::new();
    for i in 0..=cmds.len() {
        let texts: Vec<(u32, String)> = (0..n)
            .map(|r| (r, per_rank[r as usize].get(i).cloned().unwrap_or_default()))
            .collect();
        expected.push_str(&merge(&texts));
    }
    let (out, err) = cohort_launch(&prog, n, extra, cmds);
    assert_eq!(err, errors, "stderr of cohort launch");
    assert_eq!(out, expected);
}

#[test]
fn four_ranks_stop_step_and_print_like_gdb() {
    check(
        4,
        &[],
        &[
            "break compute",
            "continue",
            "print rank",
            "print rank % 2",
            "next",
            "next",
            "info locals",
            "finish",
            "print total",
            "continue",
            "bt",
        ],
    );
}

/// A function called from an expression that stops at a breakpoint inside (issue 17) stays
/// there on every rank, below gdb's dummy frame; `finish` returns its value and puts each
/// rank back where it was.
#[test]
fn ranks_stop_inside_a_called_function_and_finish_out_of_it() {
    check_with_errors(
        2,
        &[],
        &[
            "break 23",
            "continue",
            "break compute",
            "print compute(rank, 5)",
            "bt",
            "finish",
            "bt",
            "print total",
        ],
        "[0-1] The program being debugged stopped while in a function called from GDB.\n\
         [0-1] Evaluation of the expression containing the function\n\
         [0-1] (compute) will be abandoned.\n\
         [0-1] When the function is done executing, GDB will silently stop.\n",
    );
}

#[test]
fn many_agents_in_a_tree_give_the_same_answers() {
    // 12 ranks under 6 agents with 2 children at the root and 2 below: three levels.
    check(
        12,
        &["--agents", "6", "--fanout", "2,2"],
        &["break ranks.c:11", "continue", "print v", "continue"],
    );
}

#[test]
fn rank_sets_focus_and_info_ranks() {
    let prog = build("ranks");
    let (out, err) = cohort_launch(
        &prog,
        4,
        &[],
        &[
            "break compute",
            "[1-2] continue",
            "info ranks",
            "[0,3] print rank",
            "focus 2-3",
            "print iterations",
            "[9] print 1",
            "[1-] print 1",
            "bt",
        ],
    );
    // `start` (4 lines), `break` (1), the stops of ranks 1-2 (4), then:
    let tail: Vec<&str> = out.lines().skip(9).collect();
    assert_eq!(
        tail.join("\n"),
        "[0,3] stopped in main at ranks.c:18
[1-2] stopped in compute at ranks.c:10
[0,3] $1 = 0
Focus: ranks 2-3
[2-3] $2 = 3
[2] #0  compute (rank=2, step=0) at ranks.c:10
[2] #1  0x0000555555555212 in main () at ranks.c:24
[3] #0  main () at ranks.c:18",
        "{out}"
    );
    assert_eq!(
        err,
        "bad rank set: rank 9 out of range (job has 4 ranks)\nbad rank set: '' is not a rank\n"
    );
}

/// A line with its addresses (hex numbers of 0x10000 and more) taken out, and their values.
fn addresses_apart(line: &str) -> (String, Vec<(u64, usize)>) {
    let mut key = String::new();
    let mut vals = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("0x") {
        key.push_str(&rest[..i]);
        let hex = &rest[i + 2..];
        let n = hex
            .bytes()
            .take_while(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            .count();
        match u64::from_str_radix(&hex[..n], 16) {
            Ok(v) if v >= 0x10000 => {
                key.push_str("@ADDR@");
                vals.push((v, n));
            }
            _ => key.push_str(&rest[i..i + 2 + n]),
        }
        rest = &hex[n..];
    }
    key.push_str(rest);
    (key, vals)
}

/// Merge per-rank texts by the CLI.md rule, lines that differ only in addresses being one
/// line whose differing addresses are shown as `<0xLOW..0xHIGH>` (the README's rule); every
/// text has as many lines here.
fn merge_addresses(texts: &[(u32, String)]) -> String {
    let texts: Vec<(u32, Vec<&str>)> = texts
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(r, t)| (*r, t.lines().collect()))
        .collect();
    let mut out = String::new();
    let n = texts.first().map_or(0, |t| t.1.len());
    assert!(texts.iter().all(|(_, l)| l.len() == n), "{texts:?}");
    for i in 0..n {
        // (ranks, the line without its addresses, each rank's addresses)
        type Group = (Vec<u32>, String, Vec<Vec<(u64, usize)>>);
        let mut groups: Vec<Group> = Vec::new();
        for (r, l) in &texts {
            let (key, vals) = addresses_apart(l[i]);
            match groups.iter_mut().find(|g| g.1 == key) {
                Some(g) => {
                    g.0.push(*r);
                    g.2.push(vals);
                }
                None => groups.push((vec![*r], key, vec![vals])),
            }
        }
        for (set, key, vals) in groups {
            let mut line = key;
            for slot in 0..vals[0].len() {
                let lo = vals.iter().map(|v| v[slot]).min().unwrap();
                let hi = vals.iter().map(|v| v[slot]).max().unwrap();
                let hex = |(v, n): (u64, usize)| format!("0x{v:0n$x}");
                let shown = if lo == hi {
                    hex(lo)
                } else {
                    format!("<{}..{}>", hex(lo), hex(hi))
                };
                line = line.replacen("@ADDR@", &shown, 1);
            }
            out.push_str(&prefix(&set, &line));
        }
    }
    out
}

/// Ranks whose pointers and stack addresses differ (`tests/fixtures/addrs.c`): answers that
/// differ only in addresses are one answer, each address that differs shown as the range of
/// its values (in `info args`, values in gdb's natural format, every hex number is a pointer);
/// an integer that differs (odd ranks pass `n=8`) and a pointer printed with `/x` (a number,
/// not an address) keep answers apart. gdb on each rank gives the values; ranks
/// 0-1 and 2-3 are on two agents, whose answers merge in the tree.
#[test]
fn answers_that_differ_only_in_addresses_merge_with_their_ranges() {
    let prog = build("addrs");
    let n = 4;
    // The command, and whether its answer merges across addresses.
    let cmds = [
        ("break leaf", true),
        ("continue", true),
        ("bt", true),
        ("info frame", true),
        ("print c", true),
        ("print *c", true),
        ("print/x c", false),
        ("up 2", true),
        ("info frame", true),
        ("info args", true),
    ];
    let lines: Vec<&str> = cmds.iter().map(|c| c.0).collect();
    let per_rank: Vec<Vec<String>> = (0..n).map(|r| gdb_rank(&prog, r, n, &lines)).collect();
    let mut expected = String::new();
    for (i, with_addresses) in std::iter::once(true)
        .chain(cmds.iter().map(|c| c.1))
        .enumerate()
    {
        let texts: Vec<(u32, String)> = (0..n)
            .map(|r| (r, per_rank[r as usize].get(i).cloned().unwrap_or_default()))
            .collect();
        expected.push_str(&if with_addresses {
            merge_addresses(&texts)
        } else {
            merge(&texts)
        });
    }
    // Two agents, one below the other: answers merge on the way up the tree.
    let (out, err) = cohort_launch(&prog, n, &["--agents", "2", "--fanout", "1,1"], &lines);
    assert_eq!(err, "", "stderr of cohort launch");
    assert_eq!(out, expected);
    // What that is: one stop, one stack for the even and one for the odd ranks.
    assert!(
        out.contains(
            "\n[0-3] #1  0x00005555555551f6 in walk (c=<0x55555555a2b0..0x55555555d2b0>, n=0) \
             at addrs.c:25\n"
        ) && out.contains("\n[0,2] #0  leaf (c=<0x55555555a2b0..0x55555555c2b0>, name=")
            && out.contains("\n[1,3] #0  leaf (c=<0x55555555b2b0..0x55555555d2b0>, name=")
            && out.contains("\n[0] $3 = 0x55555555a2b0\n[1] $3 = 0x55555555b2b0\n")
            && out.ends_with("\n[0-3] c = <0x55555555a2b0..0x55555555d2b0>\n[0-3] n = 1\n"),
        "{out}"
    );
}

/// `$N` are numbered across the job: values printed on some ranks take numbers that the
/// others skip, so the next value printed on every rank has the same number everywhere (and
/// merges), and a rank asked for a value that only other ranks recorded says so.
#[test]
fn value_history_numbers_are_the_same_on_every_rank() {
    let prog = build("ranks");
    let (out, err) = cohort_launch(
        &prog,
        4,
        &["--agents", "2"],
        &[
            "break compute",
            "continue",
            "[0-1] print rank",
            "[2] print iterations",
            "print iterations",
            "print $",
            "print $1 + 1",
            "[3] print $$3",
            "print rank * 0",
            "[1] show values",
        ],
    );
    assert_eq!(
        err,
        "[2-3] History value $1 was recorded on other ranks only.\n\
         [3] History value $2 was recorded on other ranks only.\n",
        "{out}"
    );
    let from = out.find("[0] $1 = 0\n").unwrap_or_else(|| panic!("{out}"));
    assert_eq!(
        &out[from..],
        "[0] $1 = 0
[1] $1 = 1
[2] $2 = 3
[0-3] $3 = 3
[0-3] $4 = 3
[0] $5 = 1
[1] $5 = 2
[0-3] $6 = 0
[1] $1 = 1
[1] $3 = 3
[1] $4 = 3
[1] $5 = 2
[1] $6 = 0
",
        "{out}"
    );
}

/// Commands read from standard input: through a pipe (read when epoll says it is readable) and
/// from a file (which epoll cannot watch: tokio's reader), a last line without its newline
/// included, both give what the same commands given with `-ex` give, with a prompt before each
/// and `quit` at the end of the input.
#[test]
fn commands_come_from_a_pipe_or_a_file_on_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let prog = build("ranks");
    let cmds = [
        "break compute",
        "continue",
        "print rank",
        "next",
        "[1] print step",
    ];
    let (batch, err) = cohort_launch(&prog, 2, &[], &cmds);
    assert_eq!(err, "", "stderr of cohort launch -batch");
    let input = cmds.join("\n");
    let run = |stdin: Stdio, feed: bool| -> String {
        let mut c = Command::new(cohort());
        c.args(["launch", "-n", "2", "--", "ranks"])
            .env("XDG_STATE_HOME", state_home())
            .current_dir(prog.parent().unwrap())
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("run cohort launch");
        if feed {
            let mut w = child.stdin.take().unwrap();
            w.write_all(input.as_bytes()).unwrap();
        }
        let o = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "",
            "stderr of cohort launch"
        );
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with("cohort: ") && !l.contains("] rank "))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let piped = run(Stdio::piped(), true);
    let file = prog.with_file_name(format!("commands.{}", cohort_fixtures::tmp_extension()));
    std::fs::write(&file, &input).unwrap();
    let from_file = run(Stdio::from(std::fs::File::open(&file).unwrap()), false);
    let _ = std::fs::remove_file(&file);
    assert_eq!(piped, from_file);
    assert_eq!(
        piped.matches("(cohort) ").count(),
        cmds.len() + 1,
        "{piped}"
    );
    assert!(piped.ends_with("(cohort) quit\n"), "{piped}");
    assert_eq!(
        piped.replace("(cohort) ", "").strip_suffix("quit\n"),
        Some(batch.as_str())
    );
}

/// Ranks that fork: `next` over fork() and vfork() lets each child go without the debugger's
/// breakpoints, as gdb does for one process (`tests/source/fork_next.c`, whose case checks the
/// single-process debugger against gdb): a child calling a function with a breakpoint on it
/// still exits with its own code, and the rank's breakpoints still work after the vfork. The
/// children's first stops reach the agent's tracer threads, which have no rank for them: no
/// warning is printed for those.
#[test]
fn fork_children_of_ranks_run_without_breakpoints() {
    let prog = cohort_fixtures::source_case("fork_next").program;
    let (out, err) = cohort_launch(
        &prog,
        2,
        &[],
        &[
            "break 28",
            "break child_work",
            "next",
            "next",
            "next",
            "print a",
            "next",
            "continue",
            "print b",
            "continue",
        ],
    );
    assert_eq!(err, "", "stderr of cohort launch");
    // The ranks' own output comes in either order.
    let printed: Vec<&str> = out.lines().filter(|l| l.ends_with("] 768 1024")).collect();
    assert!(
        printed.len() == 2
            && printed.contains(&"[0] 768 1024")
            && printed.contains(&"[1] 768 1024"),
        "{out}"
    );
    // Child pids differ from run to run.
    let out: String = out
        .lines()
        .filter(|l| !l.ends_with("] 768 1024"))
        .map(|l| match l.split_once("child process ") {
            Some((a, b)) => format!(
                "{a}child process N{}\n",
                b.trim_start_matches(char::is_numeric)
            ),
            None => format!("{l}\n"),
        })
        .collect();
    assert_eq!(
        out,
        "[0-1] Temporary breakpoint 1 at 0x11bd: file fork_next.c, line 20.
[0-1]
[0-1] Temporary breakpoint 1, main () at fork_next.c:20
[0-1] 20\t    pid_t p = fork();
[0-1] Breakpoint 2 at 0x555555555215: file fork_next.c, line 28.
[0-1] Breakpoint 3 at 0x555555555180: file fork_next.c, line 10.
[0] [Detaching after fork from child process N]
[1] [Detaching after fork from child process N]
[0-1] 21\t    if (p == 0)
[0-1] 23\t    int a = status_of(p);
[0-1] 24\t    pid_t q = vfork();
[0-1] $1 = 768
[0] [Detaching after vfork from child process N]
[1] [Detaching after vfork from child process N]
[0-1] 25\t    if (q == 0)
[0-1]
[0-1] Breakpoint 2, main () at fork_next.c:28
[0-1] 28\t    printf(\"%d %d\\n\", a, b);
[0-1] $2 = 1024
[0-1] [Inferior 1 exited normally]
"
    );
}

#[test]
fn bad_launch_arguments_are_clear_errors() {
    let run = |args: &[&str]| {
        let o = Command::new(cohort())
            .arg("launch")
            .args(args)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["--", "/bin/true"]);
    assert_eq!(code, Some(1));
    assert!(err.starts_with("cohort launch needs -n N"), "{err}");
    let (code, err) = run(&["-n", "2", "--", "/nonexistent/prog"]);
    assert_eq!(code, Some(1));
    assert_eq!(err, "/nonexistent/prog: No such file or directory.\n");
    let (code, err) = run(&["-n", "2", "--launcher", "pbs", "--", "/bin/true"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "unknown launcher 'pbs' (local, openmpi, mpich, slurm)\n"
    );
}

#[test]
fn a_dead_agent_loses_only_its_ranks() {
    let prog = build("ranks");
    let mut s = Interactive::start(&prog, &["-n", "4", "--agents", "2"], &[]);
    s.send("info ranks");
    assert_eq!(
        s.wait_for("stopped in"),
        "(cohort) [0-3] stopped in main at ranks.c:18"
    );
    // Kill agent 1 (ranks 2-3), a child of this cohort.
    let mut killed = 0;
    for (pid, cmd) in children_of(s.pid()) {
        if cmd.contains("cohort-agentd --index 1 ") {
            nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            )
            .unwrap();
            killed += 1;
        }
    }
    assert_eq!(killed, 1);
    s.send("info ranks");
    s.send("print iterations");
    s.send("quit");
    assert_eq!(
        s.wait_for("stopped in"),
        "(cohort) [0-1] stopped in main at ranks.c:18"
    );
    assert_eq!(s.wait_for("$1"), "(cohort) [0-1] $1 = 3");
    let (st, err) = s.finish();
    assert!(st.success());
    assert!(
        err.starts_with("[2-3] lost: agent 1 (") && err.ends_with("[2-3] lost\n[2-3] lost\n"),
        "{err}"
    );
}

/// A JSON array of strings.
fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn offline_report_records_stops_values_and_stacks() {
    let prog = build("ranks");
    let dir = prog.parent().unwrap();
    let o = Command::new(cohort())
        .args(["offline", "-n", "4", "--break", "compute@1-2"])
        .args([
            "--evaluate",
            "step",
            "--evaluate",
            "rank * 2",
            "--focus",
            "2",
        ])
        .args(["-o", "off.html", "--json", "off.json", "--", "./ranks"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("off.json")).unwrap()).unwrap();
    let stops = r["stops"].as_array().unwrap();
    // Ranks 1-2 stop at each of the 3 calls, then everyone has ended.
    assert_eq!(stops.len(), 4);
    let s = &stops[0];
    let g = |v: &serde_json::Value| -> Vec<(String, String)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["ranks"].as_str().unwrap().to_string(),
                    x["text"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let p = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        g(&s["states"]),
        vec![
            p("0", "exited normally"),
            p("1-2", "stopped in compute at ranks.c:10"),
            p("3", "exited with code 3")
        ]
    );
    // The stopped ranks' stacks merged into one tree, outermost frame first.
    assert_eq!(
        g(&s["stacks"]),
        vec![p(
            "1-2",
            "main at ranks.c:24  [1-2]\n  compute at ranks.c:10  [1-2]"
        )]
    );
    assert_eq!(g(&s["values"][0][1]), vec![p("1-2", "$1 = 0")]);
    assert_eq!(
        g(&s["values"][1][1]),
        vec![p("1", "$2 = 2"), p("2", "$2 = 4")]
    );
    assert_eq!(g(&stops[2]["values"][0][1]), vec![p("1-2", "$5 = 2")]);
    assert_eq!(
        g(&r["final_states"]),
        vec![p("0-2", "exited normally"), p("3", "exited with code 3")]
    );
    assert_eq!(
        strings(&r["summary"]),
        [
            "The run ended with the ranks in these states:",
            "[0-2] exited normally",
            "[3] exited with code 3",
            "Diverged from the most ranks ([0-2]): [3].",
        ]
    );
    // `step` is not in scope in main: not shown there, one note instead (stop 4 has no stopped
    // ranks; stops 1-3 are in compute).
    assert_eq!(s["out_of_scope"], serde_json::json!([]));
    let html = std::fs::read_to_string(dir.join("off.html")).unwrap();
    assert!(html.starts_with("<!doctype html>") && html.contains("<h3 id=\"stop-4\">Stop 4</h3>"));
    assert!(html.contains("stopped in compute at ranks.c:10"));
    assert!(html.contains("<a href=\"#stop-2\">stop 2 &rarr;</a>"));
}

/// A rank that never stops is a hang: the report stops it, says so first, and ends there.
#[test]
fn offline_report_finds_a_hang() {
    let prog = build("one_hangs");
    let dir = prog.parent().unwrap();
    let o = Command::new(cohort())
        .args(["offline", "-n", "3", "--settle", "2000"])
        .args(["--break", "one_hangs.c:13", "--evaluate", "rank"])
        .args([
            "-o",
            "hang.html",
            "--json",
            "hang.json",
            "--",
            "./one_hangs",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("hang.json")).unwrap()).unwrap();
    let stops = r["stops"].as_array().unwrap();
    // Stop 1 at the breakpoint; stop 2 the continue: ranks 0 and 2 end, rank 1 runs on;
    // stop 3 the hang.
    assert_eq!(stops.len(), 3, "{r:#}");
    assert_eq!(stops[2]["hang"], true);
    assert_eq!(
        strings(&r["summary"]),
        [
            "The job hung at stop 3: [1] did not stop within the settle time (stopped to look at them: their stack is at stop 3).",
            "[0,2] exited normally",
            "[1] stopped in wait_forever at one_hangs.c:7",
            "Diverged from the most ranks ([0,2]): [1].",
            "No rank waits in MPI: rank 1 stopped in wait_forever at one_hangs.c:7.",
        ],
        "{r:#}"
    );
    assert_eq!(
        stops[2]["stacks"][0]["text"],
        "main at one_hangs.c:14  [1]\n  wait_forever at one_hangs.c:7  [1]"
    );
    let html = std::fs::read_to_string(dir.join("hang.html")).unwrap();
    assert!(html.contains("<a href=\"#stop-3\" class=hang>3 (hang)</a>"));
    // The page as headless Chromium reads it: the summary, the grids and the stops.
    let dom = Command::new("chromium")
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
        ])
        .arg(format!("file://{}", dir.join("hang.html").display()))
        .output()
        .expect("chromium (scripts/test.sh installs it)");
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("<li>[1] stopped in wait_forever at one_hangs.c:7</li>"),
        "{dom}"
    );
    assert_eq!(dom.matches("<svg class=\"grid\"").count(), 4, "{dom}");
    // The wait-for graph's boxes are siblings, each with its text (not nested in each other).
    assert!(
        dom.contains("<rect x=\"5\" y=\"5\" width=\"560\" height=\"34\" rx=\"4\" class=\"node\"></rect><text x=\"12\" y=\"26\"><tspan class=\"set\">[0,2]</tspan> has ended (exited normally)</text>"),
        "{dom}"
    );
    assert!(
        dom.contains("<h3 id=\"stop-3\">Stop 3: the job hangs</h3>"),
        "{dom}"
    );
}

#[test]
fn demo_runs_the_bundled_job_and_writes_a_report() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    let o = Command::new(cohort())
        .args(["demo", "-o", "demo.html"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("cohort: report written to demo.html\n"),
        "{out}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("demo.json")).unwrap()).unwrap();
    assert_eq!(r["ranks"], 8);
    assert_eq!(r["agents"], 2);
    // Rank 5 never settles: the report's last stop is the hang.
    let stops = r["stops"].as_array().unwrap();
    assert_eq!(stops.len(), 8);
    assert_eq!(stops[7]["hang"], true);
    assert_eq!(stops[7]["hung"], "5");
    assert_eq!(r["final_states"][0]["ranks"], "0-4,6-7");
    assert_eq!(r["final_states"][0]["text"], "exited normally");
    assert_eq!(r["final_states"][1]["ranks"], "5");
    assert!(
        r["summary"][0]
            .as_str()
            .unwrap()
            .starts_with("The job hung at stop 8: [5] did not stop"),
        "{r:#}"
    );
    let mut output: Vec<String> = r["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    assert!(
        output.contains(&"[0] rank 0: heat 68.12".to_string()),
        "{output:?}"
    );
    assert!(
        output.contains(&"[1] rank 1: heat 400.00".to_string()),
        "{output:?}"
    );
    assert!(
        output.contains(&"[1] rank 1: settled in 61 sweeps".to_string()),
        "{output:?}"
    );
    output.retain(|l| l.starts_with("[5]"));
    assert_eq!(output, ["[5] rank 5: heat 400.00"]);
}

/// Network namespaces with their own addresses, stopped when dropped.
struct Hosts;

impl Drop for Hosts {
    fn drop(&mut self) {
        let _ = Command::new("sh")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/netns.sh"))
            .arg("down")
            .status();
    }
}

#[test]
fn agents_on_three_hosts_form_a_tree_over_the_network() {
    let st = Command::new("sh")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/netns.sh"))
        .args(["up", "3"])
        .status()
        .unwrap();
    assert!(
        st.success(),
        "scripts/netns.sh up 3 (needs root and iproute2)"
    );
    let _hosts = Hosts;
    // One agent per "host" (namespace cohort-hI at 10.77.I.2); the root has one child, which
    // has the other two: their links cross the routed network.
    check(
        6,
        &[
            "--agents",
            "3",
            "--fanout",
            "1,2",
            "--listen",
            "10.77.0.1",
            "--agent-hosts",
            "10.77.0.2,10.77.1.2,10.77.2.2",
            "--agent-prefix",
            "ip netns exec cohort-h{i}",
        ],
        &["break ranks.c:11", "continue", "print v", "bt", "continue"],
    );
}

#[test]
fn parallel_stacks_merge_frames_of_the_same_place() {
    let prog = build("ranks");
    let (out, err) = cohort_launch(
        &prog,
        6,
        &[],
        &[
            "break compute",
            "[0-2] continue",
            "[4] next",
            "stacks",
            "pstack",
        ],
    );
    assert_eq!(err, "");
    // `pstack` is `stacks`.
    let tree = "main at ranks.c:24  [0-2]\n  compute at ranks.c:10  [0-2]\nmain at ranks.c:18  [3,5]\nmain at ranks.c:19  [4]";
    let tail: Vec<&str> = out.lines().rev().take(8).collect();
    assert_eq!(
        tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        format!("{tree}\n{tree}")
    );
}

/// An interactive `cohort launch` session on pipes; its output is read line by line.
struct Interactive {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Interactive {
    /// `cohort launch ARGS -- ./PROG` in the program's folder, with `env` added.
    fn start(prog: &Path, args: &[&str], env: &[(&str, &str)]) -> Interactive {
        use std::io::BufRead;
        use std::process::Stdio;
        let mut child = Command::new(cohort())
            .arg("launch")
            .args(args)
            .arg("--")
            .arg(Path::new(".").join(prog.file_name().unwrap()))
            .env("XDG_STATE_HOME", state_home())
            .envs(env.iter().copied())
            .current_dir(prog.parent().unwrap())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(stdout).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Interactive {
            child,
            stdin,
            lines,
        }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Type a command line.
    fn send(&mut self, line: &str) {
        use std::io::Write;
        writeln!(self.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    /// The next line of output that contains `what` (as printed, prompt included).
    fn wait_for(&self, what: &str) -> String {
        loop {
            let l = self
                .lines
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no line with {what}"));
            if l.contains(what) {
                return l;
            }
        }
    }

    /// Close its input, wait for it to end: its status and standard error.
    fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let st = self.child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err).unwrap();
        (st, err)
    }
}

/// Every process: (pid, command line with spaces for its NULs).
fn processes() -> Vec<(i32, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_string_lossy().parse().ok()?;
            let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
            Some((pid, String::from_utf8_lossy(&cmd).replace('\0', " ")))
        })
        .collect()
}

/// The children of `parent`: (pid, command line).
fn children_of(parent: i32) -> Vec<(i32, String)> {
    let parent = parent.to_string();
    processes()
        .into_iter()
        .filter(|(pid, _)| status_field(&pid.to_string(), "PPid:").as_deref() == Some(&parent))
        .collect()
}

/// The ranks of a rank set as the front end prints it (`0-2,5`).
fn ranks_in(set: &str) -> Vec<u32> {
    set.split(',')
        .flat_map(|part| {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap()
        })
        .collect()
}

/// The tasks of a process: (tid, name).
fn tasks(pid: i32) -> Vec<(i32, String)> {
    let mut v: Vec<(i32, String)> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
        .map(|e| {
            let tid: i32 = e.file_name().to_string_lossy().parse().unwrap();
            let name = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
            (tid, name.trim().to_string())
        })
        .collect();
    v.sort();
    v
}

/// The CPUs of a list like `0-3,6`.
fn cpu_list(s: &str) -> Vec<usize> {
    let mut v = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
            v.extend(a..=b);
        }
    }
    v
}

/// A status field of /proc/PID/status.
fn status_field(pid: &str, field: &str) -> Option<String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .map(|v| v.trim().to_string())
}

#[test]
fn ranks_share_a_few_tracer_threads() {
    let prog = build("ranks");
    let mut s = Interactive::start(&prog, &["-n", "6"], &[("COHORT_TRACERS", "2")]);
    s.send("info ranks");
    assert_eq!(
        s.wait_for("stopped in"),
        "(cohort) [0-5] stopped in main at ranks.c:18"
    );
    // The one agent, a child of this cohort.
    let agents: Vec<i32> = children_of(s.pid())
        .into_iter()
        .filter(|(_, cmd)| cmd.contains("cohort-agentd"))
        .map(|(pid, _)| pid)
        .collect();
    assert_eq!(agents.len(), 1, "one agent");
    let threads = tasks(agents[0]);
    let tracers: Vec<i32> = threads
        .iter()
        .filter(|(_, n)| n.starts_with("tracer-"))
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(tracers.len(), 2, "two tracer threads: {threads:?}");
    // The agent's threads do not grow with its ranks: the two tracers and the runtime's.
    assert!(threads.len() <= 4, "{threads:?}");
    // Every rank is traced by one of the two, three each.
    let mut per_tracer = std::collections::BTreeMap::new();
    for (pid, cmd) in processes() {
        let pid = pid.to_string();
        if !cmd.ends_with("/parallel-ranks/ranks ") || cmd.contains("cohort-agentd") {
            // (Not a rank: the tracers' doorbells are agentd's own children, for instance.)
            continue;
        }
        let Some(tracer) = status_field(&pid, "TracerPid:").and_then(|t| t.parse::<i32>().ok())
        else {
            continue;
        };
        if !threads.iter().any(|(t, _)| *t == tracer) {
            // A rank of another test's agent.
            continue;
        }
        assert!(tracers.contains(&tracer), "rank {pid} traced by {tracer}");
        *per_tracer.entry(tracer).or_insert(0) += 1;
        // Forked by a tracer thread kept on one CPU, the program still runs on every CPU
        // the debugger was given.
        assert_eq!(
            status_field(&pid, "Cpus_allowed_list:"),
            status_field("self", "Cpus_allowed_list:"),
            "rank {pid}"
        );
    }
    // Each tracer thread is kept on one CPU of the set, the two on different ones when the
    // set has two.
    let allowed = cpu_list(&status_field("self", "Cpus_allowed_list:").unwrap_or_default());
    let pinned: Vec<Vec<usize>> = tracers
        .iter()
        .map(|t| {
            cpu_list(
                &status_field(&format!("{}/task/{t}", agents[0]), "Cpus_allowed_list:")
                    .unwrap_or_default(),
            )
        })
        .collect();
    for p in &pinned {
        assert!(
            p.len() == 1 && allowed.contains(&p[0]),
            "{pinned:?} of {allowed:?}"
        );
    }
    if allowed.len() >= 2 {
        assert_ne!(pinned[0], pinned[1], "{pinned:?}");
    }
    assert_eq!(
        per_tracer.values().copied().collect::<Vec<_>>(),
        vec![3, 3],
        "{per_tracer:?}"
    );
    // And they are debugged as before.
    for _ in 0..3 {
        s.send("next");
    }
    s.send("print rank * 10");
    s.send("quit");
    assert_eq!(s.wait_for("$1"), "(cohort) [0] $1 = 0");
    assert_eq!(s.wait_for("[5] $1"), "[5] $1 = 50");
    let (st, _) = s.finish();
    assert!(st.success());
}

#[test]
fn tracer_threads_may_be_left_free_to_move() {
    let prog = build("ranks");
    let mut s = Interactive::start(
        &prog,
        &["-n", "2"],
        &[("COHORT_TRACERS", "2"), ("COHORT_PIN_TRACERS", "0")],
    );
    s.send("info ranks");
    assert_eq!(
        s.wait_for("stopped in"),
        "(cohort) [0-1] stopped in main at ranks.c:18"
    );
    let agent = children_of(s.pid())
        .into_iter()
        .find(|(_, cmd)| cmd.contains("cohort-agentd"))
        .map(|(pid, _)| pid)
        .expect("the agent");
    let tracers: Vec<i32> = tasks(agent)
        .into_iter()
        .filter(|(_, n)| n.starts_with("tracer-"))
        .map(|(t, _)| t)
        .collect();
    assert_eq!(tracers.len(), 2);
    for t in tracers {
        assert_eq!(
            status_field(&format!("{agent}/task/{t}"), "Cpus_allowed_list:"),
            status_field("self", "Cpus_allowed_list:")
        );
    }
    s.send("quit");
    let (st, _) = s.finish();
    assert!(st.success());
}

#[test]
fn interrupt_and_ctrl_c_stop_every_rank() {
    let prog = build("forever");
    let mut s = Interactive::start(&prog, &["-n", "4", "--agents", "2"], &[]);
    // (Where the prompt falls depends on when events come.)
    let wait_for = |s: &Interactive, what: &str| -> String {
        s.wait_for(what).trim_start_matches("(cohort) ").to_string()
    };
    s.send("info ranks");
    assert_eq!(
        wait_for(&s, "stopped in"),
        "[0-3] stopped in main at forever.c:8"
    );
    // Ctrl-C at the prompt while every rank runs.
    s.send("continue");
    assert_eq!(
        wait_for(&s, "running"),
        "[0-3] running (`continue` has not finished)"
    );
    // The ranks' stops come as events, merged per agent and per moment: gather them.
    let interrupted = |s: &Interactive, want: &[u32]| {
        let mut got = Vec::new();
        while got.len() < want.len() {
            let l = wait_for(s, "SIGINT");
            let set = l
                .strip_suffix("] Program received signal SIGINT, Interrupt.")
                .and_then(|h| h.strip_prefix('['))
                .unwrap_or_else(|| panic!("{l}"));
            got.extend(ranks_in(set));
        }
        got.sort();
        assert_eq!(got, want);
    };
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(s.pid()),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    interrupted(&s, &[0, 1, 2, 3]);
    s.send("print counter > 0");
    assert_eq!(wait_for(&s, "$1"), "[0-3] $1 = 1");
    // The `interrupt` command, on a subset: the others run on.
    s.send("continue");
    assert_eq!(
        wait_for(&s, "running"),
        "[0-3] running (`continue` has not finished)"
    );
    s.send("[1-2] interrupt");
    interrupted(&s, &[1, 2]);
    // Ranks 1 and 2 are stopped in the program (in `tick` or in `main`, wherever the signal
    // found each), the others still run.
    s.send("info ranks");
    let mut stopped = Vec::new();
    while stopped.len() < 2 {
        let l = wait_for(&s, "stopped in");
        assert!(l.contains(" at forever.c:"), "{l}");
        let set = l
            .strip_prefix('[')
            .and_then(|r| r.split_once("] stopped in "))
            .map(|(set, _)| set.to_string())
            .unwrap_or_else(|| panic!("{l}"));
        stopped.extend(ranks_in(&set));
    }
    stopped.sort();
    assert_eq!(stopped, [1, 2]);
    // Ranks 0 and 3 still run their `continue`: quitting ends them too (killed, as gdb
    // kills its program), and the agents end with the session.
    s.send("quit");
    let (st, err) = s.finish();
    assert!(st.success());
    assert_eq!(err, "");
}

/// A new `display` typed by the user of an interactive `cohort launch` is shown at once on
/// every rank, as gdb shows it when typed (from_tty): the ranks' debuggers run in batch mode,
/// where gdb does not. Under `-batch`, and for the lines of a `-x` script, it is not, as in
/// gdb. gdb itself, reading the same lines from a pipe for rank 1, is the oracle for the lines
/// shown at once.
#[test]
fn a_display_typed_at_the_terminal_is_shown_at_once_on_every_rank() {
    use std::io::Write;
    use std::process::Stdio;
    let prog = build("ranks");
    let cmds = [
        "break compute",
        "continue",
        "display rank",
        "display/x step",
    ];
    let interactive = |extra: &[&str], input: &str| -> String {
        let mut c = Command::new(cohort());
        c.args(["launch", "-n", "2"])
            .args(extra)
            .args(["--", "ranks"])
            .env("XDG_STATE_HOME", state_home())
            .current_dir(prog.parent().unwrap())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("run cohort launch");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "stderr");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // gdb, not in batch mode, with the lines on a pipe: each display at once.
    let mut g = Command::new("gdb");
    g.args(["-nx", "-q"])
        .arg(&prog)
        .current_dir(prog.parent().unwrap())
        .env("COHORT_RANK", "1")
        .env("COHORT_SIZE", "2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = g.spawn().expect("run gdb");
    let gdb_input = ["break compute", "run", "display rank", "display/x step"].join("\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(gdb_input.as_bytes())
        .unwrap();
    let gdb = String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout).into_owned();
    assert!(
        gdb.contains("(gdb) 1: rank = 1\n(gdb) 2: /x step = 0x0\n"),
        "gdb: {gdb}"
    );
    // Typed at the (piped) terminal.
    let typed = interactive(&[], &cmds.join("\n"));
    assert!(
        typed.contains(
            "(cohort) [0] 1: rank = 0\n[1] 1: rank = 1\n(cohort) [0-1] 2: /x step = 0x0\n"
        ),
        "{typed}"
    );
    // As `-ex` commands outside `-batch`: typed too.
    let mut ex: Vec<&str> = Vec::new();
    for c in cmds {
        ex.extend(["-ex", c]);
    }
    let from_ex = interactive(&ex, "");
    assert!(
        from_ex.contains("[0] 1: rank = 0\n[1] 1: rank = 1\n[0-1] 2: /x step = 0x0\n"),
        "{from_ex}"
    );
    // With -batch, and in a -x script: not at once (shown at the next stop only).
    let (batch, err) = cohort_launch(&prog, 2, &[], &[&cmds[..], &["next"]].concat());
    assert_eq!(err, "");
    assert!(
        batch.ends_with("[0-1] 11\t    if (rank % 2)\n[0] 1: rank = 0\n[1] 1: rank = 1\n[0-1] 2: /x step = 0x0\n"),
        "{batch}"
    );
    assert_eq!(batch.matches("1: rank = 0").count(), 1, "{batch}");
    let script = prog.with_file_name(format!("display.{}", cohort_fixtures::tmp_extension()));
    std::fs::write(&script, cmds.join("\n") + "\n").unwrap();
    let from_script = interactive(&["-x", script.to_str().unwrap()], "next\n");
    let _ = std::fs::remove_file(&script);
    assert_eq!(
        from_script.matches("1: rank = 0").count(),
        1,
        "{from_script}"
    );
    assert!(
        from_script.contains("[0-1] 11\t    if (rank % 2)\n[0] 1: rank = 0\n"),
        "{from_script}"
    );
}

/// A rank stopped in a library function without a symbol (the OpenMP runtime's barrier, in
/// libgomp) is said by its library: `stopped in ?? from libgomp.so.1 called from …` (it said
/// `stopped in ?? called from …`), where gdb's frame 0 is `?? () from …/libgomp.so.1` and
/// the program's frame `main () at omp_barrier.c:12`.
#[test]
fn a_rank_stopped_in_a_library_without_symbols_names_the_library() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("parallel-omp");
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/omp_barrier.c");
    std::fs::copy(&src, dir.join("omp_barrier.c")).unwrap();
    let st = Command::new("gcc")
        .args([
            "-g",
            "-O0",
            "-fopenmp",
            "-o",
            "omp_barrier",
            "omp_barrier.c",
        ])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(st.success());
    let o = Command::new(cohort())
        .args(["launch", "-n", "2", "--settle", "1000", "-batch"])
        .args(["-ex", "continue", "-ex", "diagnose", "-ex", "info ranks"])
        .args(["--", "./omp_barrier"])
        .current_dir(&dir)
        .env("XDG_STATE_HOME", state_home())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        out.lines().last(),
        Some("[0-1] stopped in ?? from libgomp.so.1 called from omp_barrier.c:12"),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
