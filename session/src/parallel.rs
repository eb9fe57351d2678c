//! The front end of a multi-rank session (`cohort launch`, `cohort attach`): it starts the
//! agents, is the root of their tree, sends commands down addressed to rank sets and prints
//! the merged answers (`[0-3,5] $1 = 42`).

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use cohort_agentd::node::{self, Msg, Node};
use cohort_wire::{Down, Merged, RankSet, Secret, StackTree, Stream, Text, Up, render_lines};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// Which launcher acquires the ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    Local,
    OpenMpi,
    Mpich,
    Slurm,
}

/// A command of `-ex` or a file of them (`-x`).
#[derive(Debug)]
pub enum Cmd {
    Line(String),
    File(PathBuf),
}

impl Cmd {
    /// The command lines; for a file that cannot be read, why, in gdb's words
    /// (`cmds: No such file or directory`): gdb says it as a warning in batch mode and as an
    /// error (with a full stop) otherwise, see [`Cmd::unreadable`].
    pub fn lines(self) -> Result<Vec<String>, String> {
        match self {
            Cmd::Line(l) => Ok(vec![l]),
            Cmd::File(f) => {
                cohort_debugger::read_script(&f).map(|t| t.lines().map(str::to_string).collect())
            }
        }
    }

    /// gdb's message for a script it cannot read (`why` from [`Cmd::lines`]): a warning in
    /// batch mode (the run goes on, and it is not a failure), else an error.
    pub fn unreadable(why: &str, batch: bool) -> String {
        if batch {
            format!("warning: {why}\n")
        } else {
            format!("{why}.\n")
        }
    }
}

/// `cohort launch` options.
#[derive(Debug)]
pub struct LaunchOpts {
    pub n: u32,
    pub launcher: Launcher,
    pub root_fanout: u32,
    pub fanout: u32,
    /// Agents for the local launcher (one per simulated node; each on its own loopback
    /// address).
    pub agents: u32,
    /// `--agents` was given (else a CUDA program gets one agent per rank).
    pub agents_given: bool,
    pub batch: bool,
    pub commands: Vec<Cmd>,
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// How long a command that does not run the program may take (ms).
    pub timeout_ms: u32,
    /// The address the front end listens on for its agents (the session's interface).
    pub listen: std::net::IpAddr,
    /// Addresses of the agents (agent i listens on the i-th); default: loopback addresses
    /// 127.1.0.1, 127.1.0.2, … (every agent on this machine).
    pub agent_hosts: Vec<String>,
    /// A command put before each agent's (`{i}` becomes the agent's number), e.g. to start
    /// agents in network namespaces: `ip netns exec host{i}`.
    pub agent_prefix: Option<String>,
    /// How long a step or continue waits for the last ranks before reporting them as running
    /// or waiting (ms).
    pub settle_ms: u32,
    /// Preload the MPI call recorder into launched ranks (off: `--no-mpi-recorder`).
    pub mpi_recorder: bool,
    /// `--cores PATTERN`: each rank examines a core file (`%r` in PATTERN is its rank)
    /// instead of starting the program (local launcher).
    pub cores: Option<String>,
    /// Restore the breakpoints, displays and groups of the program's last session (off:
    /// `--no-restore`; see [`crate::saved`]).
    pub restore: bool,
    /// `srun`'s options of the Slurm launcher (`--nodes`, `--ntasks-per-node`, `--time`).
    pub slurm: SlurmOpts,
}

/// The options of `srun` that `--launcher slurm` passes on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlurmOpts {
    /// `--nodes N`.
    pub nodes: Option<u32>,
    /// `--ntasks-per-node N`.
    pub tasks_per_node: Option<u32>,
    /// `--time T` (Slurm's forms: `MM`, `HH:MM:SS`, `D-HH`…).
    pub time: Option<String>,
}

impl SlurmOpts {
    /// The arguments for `srun`.
    pub fn args(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(n) = self.nodes {
            v.push(format!("--nodes={n}"));
        }
        if let Some(n) = self.tasks_per_node {
            v.push(format!("--ntasks-per-node={n}"));
        }
        if let Some(t) = &self.time {
            v.push(format!("--time={t}"));
        }
        v
    }
}

impl LaunchOpts {
    /// Whether the session is saved at its end (and restored at its start, unless
    /// `--no-restore`): an interactive one, on live ranks (not `-batch`, whose script does
    /// what it says every time, nor `--cores`).
    fn keeps_session(&self) -> bool {
        !self.batch && self.cores.is_none()
    }
}

pub const LAUNCH_USAGE: &str = "Usage: cohort launch -n N [--launcher local|openmpi|mpich|slurm] [--fanout K[,K2]] [--agents A]\n                     [--timeout MS] [--settle MS] [--no-mpi-recorder] [--cores PATTERN]\n                     [--nodes N] [--ntasks-per-node N] [--time T] (Slurm)\n                     [--no-restore] [-q] [-nx] [-batch] [-ex CMD]... [-x FILE] -- PROGRAM [ARGS...]";

pub fn parse_launch(argv: &[String]) -> anyhow::Result<LaunchOpts> {
    let mut o = LaunchOpts {
        n: 0,
        launcher: Launcher::Local,
        root_fanout: 32,
        fanout: 8,
        agents: 1,
        agents_given: false,
        batch: false,
        commands: Vec::new(),
        program: PathBuf::new(),
        args: Vec::new(),
        timeout_ms: 30_000,
        settle_ms: 1_000,
        cores: None,
        listen: std::net::IpAddr::V4(Ipv4Addr::LOCALHOST),
        agent_hosts: Vec::new(),
        agent_prefix: None,
        mpi_recorder: true,
        restore: true,
        slurm: SlurmOpts::default(),
    };
    let mut i = 0;
    let mut program: Option<PathBuf> = None;
    while i < argv.len() {
        let a = argv[i].as_str();
        let val = |i: usize| {
            argv.get(i + 1)
                .cloned()
                .with_context(|| format!("option '{a}' requires an argument\n{LAUNCH_USAGE}"))
        };
        let num = |i: usize| -> anyhow::Result<u32> {
            let v = val(i)?;
            v.parse()
                .with_context(|| format!("'{a}' wants a number, not '{v}'"))
        };
        match a {
            "-n" | "-np" | "--np" | "--ranks" => {
                o.n = num(i)?;
                i += 1;
            }
            "--launcher" => {
                o.launcher = match val(i)?.as_str() {
                    "local" => Launcher::Local,
                    "openmpi" => Launcher::OpenMpi,
                    "mpich" => Launcher::Mpich,
                    "slurm" => Launcher::Slurm,
                    l => bail!("unknown launcher '{l}' (local, openmpi, mpich, slurm)"),
                };
                i += 1;
            }
            "--fanout" => {
                let v = val(i)?;
                let parts: Vec<&str> = v.split(',').collect();
                let p = |s: &str| -> anyhow::Result<u32> {
                    let n: u32 = s
                        .trim()
                        .parse()
                        .with_context(|| format!("--fanout wants numbers, not '{v}'"))?;
                    if n == 0 {
                        bail!("--fanout must be at least 1");
                    }
                    Ok(n)
                };
                o.root_fanout = p(parts[0])?;
                if let Some(b) = parts.get(1) {
                    o.fanout = p(b)?;
                }
                i += 1;
            }
            "--agents" => {
                o.agents = num(i)?.max(1);
                o.agents_given = true;
                i += 1;
            }
            "--timeout" => {
                o.timeout_ms = num(i)?;
                i += 1;
            }
            "--listen" => {
                let v = val(i)?;
                o.listen = v
                    .parse()
                    .with_context(|| format!("--listen wants an IP address, not '{v}'"))?;
                i += 1;
            }
            "--agent-hosts" => {
                o.agent_hosts = val(i)?.split(',').map(str::to_string).collect();
                i += 1;
            }
            "--agent-prefix" => {
                o.agent_prefix = Some(val(i)?);
                i += 1;
            }
            "--settle" => {
                o.settle_ms = num(i)?;
                i += 1;
            }
            "--nodes" => {
                o.slurm.nodes = Some(num(i)?);
                i += 1;
            }
            "--ntasks-per-node" => {
                o.slurm.tasks_per_node = Some(num(i)?);
                i += 1;
            }
            "--time" => {
                o.slurm.time = Some(val(i)?);
                i += 1;
            }
            "--no-mpi-recorder" => o.mpi_recorder = false,
            "--no-restore" => o.restore = false,
            "--cores" => {
                // Absolute: the agents run elsewhere.
                let p = val(i)?;
                o.cores = Some(match std::path::absolute(&p) {
                    Ok(a) => a.to_string_lossy().into_owned(),
                    Err(_) => p,
                });
                i += 1;
            }
            "-batch" | "--batch" => o.batch = true,
            "-q" | "-quiet" | "--quiet" | "-silent" | "-nx" | "--nx" | "-nh" => {}
            "-ex" | "--ex" | "-eval-command" | "--eval-command" => {
                o.commands.push(Cmd::Line(val(i)?));
                i += 1;
            }
            "-x" | "--x" | "-command" | "--command" => {
                o.commands.push(Cmd::File(PathBuf::from(val(i)?)));
                i += 1;
            }
            "--" => {
                let mut rest = argv[i + 1..].iter();
                program = rest.next().map(PathBuf::from);
                o.args = rest.map(OsString::from).collect();
                break;
            }
            _ if a.starts_with('-') => bail!("unrecognized option '{a}'\n{LAUNCH_USAGE}"),
            _ => {
                let mut rest = argv[i..].iter();
                program = rest.next().map(PathBuf::from);
                o.args = rest.map(OsString::from).collect();
                break;
            }
        }
        i += 1;
    }
    if o.n == 0 {
        bail!("cohort launch needs -n N (N >= 1)\n{LAUNCH_USAGE}");
    }
    o.program = program.with_context(|| format!("no program given\n{LAUNCH_USAGE}"))?;
    o.agents = o.agents.min(o.n);
    Ok(o)
}

/// A CUDA program's ranks get an agent each unless `--agents` says otherwise: the driver's
/// debugger API serves one debuggee per debugger process (docs/CUDA.md). `shown` is how the
/// program is named in the note.
fn one_agent_per_cuda_rank(o: &mut LaunchOpts, program: &Path, ranks: u32, shown: &Path) {
    if !o.agents_given && o.agents < ranks && cohort_cuda::detect::program_uses_cuda(program) {
        o.agents = ranks;
        println!(
            "cohort: {} uses CUDA: one agent per rank, so that each rank's GPU code is debugged",
            shown.display()
        );
    }
}

/// A private directory of the user's for the session's sockets.
fn session_dir() -> anyhow::Result<PathBuf> {
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .unwrap_or_else(|| PathBuf::from(format!("/tmp/cohort-{}", nix::unistd::getuid())));
    let dir = base.join("cohort");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("securing {}", dir.display()))?;
    Ok(dir)
}

/// Key files that sessions of earlier versions left (and wrapper sockets of killed sessions) in the user's private directory (they
/// wrote the secret to `session-PID.key` and lost it when killed): removed once their front
/// end is gone. Sessions now hand the secret to their agents on standard input or in the
/// environment, and write no file.
fn remove_stale_keys() {
    let Ok(dir) = session_dir().and_then(|d| Ok(std::fs::read_dir(d)?)) else {
        return;
    };
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| {
                n.strip_prefix("session-")
                    .and_then(|n| n.strip_suffix(".key"))
                    .or_else(|| {
                        n.strip_prefix("wrap-")
                            .and_then(|n| n.strip_suffix(".sock"))
                    })
            })
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn agentd_path() -> anyhow::Result<PathBuf> {
    let me = std::env::current_exe().context("finding cohort's own path")?;
    let p = me.with_file_name("cohort-agentd");
    if p.exists() {
        return Ok(p);
    }
    // A test of the workspace (target/release/deps/NAME-HASH): its build folder's agent.
    if let Some(dir) = me
        .parent()
        .filter(|d| d.ends_with("deps"))
        .and_then(Path::parent)
        && dir.join("cohort-agentd").exists()
    {
        return Ok(dir.join("cohort-agentd"));
    }
    // Installed side by side on PATH.
    if let Some(paths) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&paths) {
            let c = d.join("cohort-agentd");
            if c.exists() {
                return Ok(c);
            }
        }
    }
    bail!(
        "cohort-agentd not found next to {} or on PATH",
        me.display()
    )
}

/// Rank blocks for `agents` agents.
fn blocks(n: u32, agents: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    let mut lo = 0;
    for a in 0..agents {
        let k = n / agents + u32::from(a < n % agents);
        if k == 0 {
            continue;
        }
        v.push((lo, lo + k - 1));
        lo += k;
    }
    v
}

/// A running multi-rank session: the root node of the tree and the terminal.
pub struct Front {
    node: UnboundedSender<Msg>,
    up: UnboundedReceiver<Up>,
    pub size: u32,
    pub focus: RankSet,
    next_id: u64,
    pub lost: RankSet,
    /// Output of a rank not shown yet: the start of a line (no newline in it), and when it
    /// came. Shown when its line ends, at 64 KiB, or after 100 ms.
    partial: HashMap<(u32, bool), (Vec<u8>, Instant)>,
    /// A rank's line shown without its end (its next bytes continue it without a prefix;
    /// anything else printed first ends it).
    open_line: Option<(u32, bool)>,
    /// The output budget of the tree's root: output takes from it when received, gives back
    /// once shown (see `cohort_agentd::flow`).
    budget: std::sync::Arc<cohort_agentd::flow::Budget>,
    /// Bytes of program output kept for a report.
    recorded: usize,
    pub timeout_ms: u32,
    pub settle_ms: u32,
    /// Keep the program's output lines (for a report).
    pub record_output: bool,
    pub program_output: Vec<String>,
    /// The job's value-history count: every command carries it, so that `$N` are numbered
    /// across the job (a rank skips the numbers of values printed on other ranks).
    history: u32,
    /// The signals that interrupt the ranks or end the session (none where they could not be
    /// caught: they then end the front end, and the agents end the job without it).
    signals: Option<Signals>,
    /// The signal that ends the session before its commands are done.
    pub ending: Option<i32>,
    /// The last command failed on some rank (or could not run): with `-batch`, the exit
    /// status is then 1, as gdb's.
    last_failed: bool,
    /// `-batch` and its last command failed.
    batch_failed: bool,
    /// What `run` does.
    run: RunPolicy,
    /// The launcher this session started (`mpirun`, `srun`), once released.
    launcher: Option<cohort_launch::LauncherHandle>,
    /// Named rank sets (`group NAME SET`).
    pub groups: crate::groups::Groups,
    /// Every rank's typed state, as the agents report it.
    pub tracker: crate::events::Tracker,
}

/// What `run` does in a session.
pub(crate) enum RunPolicy {
    /// Every rank starts its program again (the local launcher: the agents are the launcher).
    Ranks,
    /// The job starts again through its launcher.
    Relaunch(Relaunch),
    /// `run` cannot start this job again: why.
    Refuse(&'static str),
}

/// How `run` starts a launched job again through its MPIR launcher (`mpirun`): the job is
/// ended (the launcher told first, the ranks killed), launched again with the same command
/// line, and each rank's debugger (breakpoints, settings, history) attaches to the rank's new
/// process; then every rank runs to its first breakpoint, as gdb's `run` does.
pub(crate) struct Relaunch {
    /// The launcher's command line: the launcher, its options and the program …
    argv: Vec<OsString>,
    /// … the program's arguments from here (`run ARGS` gives new ones).
    args_at: usize,
    /// Where the launcher put each rank (the agents are there).
    hosts: Vec<String>,
    /// gdb's `set disable-randomization`, as the session was started with.
    disable_randomization: bool,
}

/// What a signal to the front end asks for.
enum Sig {
    /// Ctrl-C: stop the running ranks.
    Interrupt,
    /// SIGTERM, SIGHUP, or a second Ctrl-C within a second: end the session (the signal).
    End(i32),
}

/// The signals the front end reacts to. Ctrl-C interrupts the ranks; a second one within a
/// second (as with `srun`), SIGTERM or SIGHUP end the session as `quit` does (launched ranks,
/// the launcher and its daemons killed, attached ranks detached).
struct Signals {
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    last_int: Option<Instant>,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
            int: signal(SignalKind::interrupt())?,
            last_int: None,
        })
    }

    /// The next signal (cancel-safe); never, without signals.
    async fn next(this: &mut Option<Signals>) -> Sig {
        let Some(s) = this else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = s.term.recv() => Sig::End(libc::SIGTERM),
            _ = s.hup.recv() => Sig::End(libc::SIGHUP),
            _ = s.int.recv() => {
                let again = s
                    .last_int
                    .is_some_and(|t| t.elapsed() < Duration::from_secs(1));
                s.last_int = Some(Instant::now());
                if again { Sig::End(libc::SIGINT) } else { Sig::Interrupt }
            }
        }
    }
}

/// What a command answered.
#[derive(Debug, Default)]
pub struct Answer {
    pub merged: Merged,
    pub stacks: Option<StackTree>,
    pub timed_out: RankSet,
    pub lost: RankSet,
    /// The typed values of `:value EXPR` and `:locals`.
    pub values: Option<cohort_wire::Values>,
}

impl Answer {
    /// The text of the answer as printed: (stdout, stderr).
    pub fn render(&self) -> (String, String) {
        // Line by line (cohort_wire::render_lines): lines that differ only in addresses are one
        // line, each address that differs shown as the range of its values.
        let groups = &self.merged.groups;
        let outs: Vec<(RankSet, &Text)> =
            groups.iter().map(|g| (g.ranks.clone(), &g.out)).collect();
        let errs: Vec<(RankSet, &Text)> =
            groups.iter().map(|g| (g.ranks.clone(), &g.err)).collect();
        let mut out = render_lines(&outs);
        let mut err = render_lines(&errs);
        if let Some(t) = &self.stacks {
            let bts = t.backtraces();
            let refs: Vec<(RankSet, &Text)> = bts.iter().map(|(r, t)| (r.clone(), t)).collect();
            // Stacks and other text (errors) keep rank order only within each kind.
            out = render_lines(&refs) + &out;
        }
        if let Some(v) = &self.values {
            // Typed values (`:value EXPR`, `:locals`, `:array EXPR` typed as commands): each
            // class as one line, then the reduction of the numbers.
            let mut typed = String::new();
            for (val, ranks) in &v.classes {
                typed.push_str(&format!("[{ranks}] {}\n", val.render(16)));
            }
            for l in v.reduction.lines() {
                typed.push_str(&l);
                typed.push('\n');
            }
            out = typed + &out;
        }
        if !self.timed_out.is_empty() {
            err.push_str(&format!(
                "[{}] no answer in time (the command timed out)\n",
                self.timed_out
            ));
        }
        if !self.lost.is_empty() {
            err.push_str(&format!("[{}] lost\n", self.lost));
        }
        (out, err)
    }
}

/// A rank's line without its end is shown once this long …
const PARTIAL_FLUSH_BYTES: usize = 64 << 10;
/// … or once it has waited this long.
const PARTIAL_FLUSH_AFTER: Duration = Duration::from_millis(100);
/// The most program output a report keeps.
const RECORD_LIMIT: usize = 8 << 20;

/// Sleeps until `t`, or forever.
async fn sleep_until_some(t: Option<tokio::time::Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

fn print(out: &str, err: &str) {
    if (!out.is_empty() || !err.is_empty())
        && crate::events::emit(crate::events::Event::Text {
            out: out.to_string(),
            err: err.to_string(),
        })
    {
        return;
    }
    if !out.is_empty() {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(out.as_bytes());
        let _ = o.flush();
    }
    if !err.is_empty() {
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(err.as_bytes());
        let _ = e.flush();
    }
}

impl Front {
    /// The rank set a command's argument names (the command's own set when empty), its
    /// running ranks asked to stop (`mq`, `diagnose`); `None` after saying why the argument
    /// is no set.
    fn stop_set_of(&mut self, arg: &str, set: RankSet) -> Option<RankSet> {
        let set = match arg.trim() {
            "" => set,
            arg => match self.groups.parse(arg, self.size) {
                Ok(s) => s,
                Err(e) => {
                    self.say("", &format!("{e}\n"));
                    return None;
                }
            },
        };
        let _ = self
            .node
            .send(Msg::Down(Down::Interrupt { ranks: set.clone() }));
        Some(set)
    }

    /// Asks the running ranks of `set` to stop (their stops are reported as usual).
    pub fn interrupt_ranks(&mut self, set: RankSet) {
        let _ = self.node.send(Msg::Down(Down::Interrupt { ranks: set }));
    }

    pub fn say(&mut self, out: &str, err: &str) {
        if !out.is_empty() || !err.is_empty() {
            self.end_open_line();
        }
        print(out, err);
    }

    /// Ends a rank's line shown without its end, so that what follows starts a line.
    fn end_open_line(&mut self) {
        if let Some((_, is_err)) = self.open_line.take() {
            if is_err {
                print("", "\n")
            } else {
                print("\n", "")
            }
        }
    }

    /// Shows `text`, output of `rank` (its lines prefixed with `[RANK] `, but for one that
    /// continues a line shown without its end): printed, or an [`Event::Output`] for a window.
    ///
    /// [`Event::Output`]: crate::events::Event::Output
    fn program_says(&mut self, rank: u32, stream: Stream, text: &str) {
        if self.record_output && self.recorded < RECORD_LIMIT {
            self.recorded += text.len();
            self.program_output.extend(text.lines().map(str::to_string));
            if self.recorded >= RECORD_LIMIT {
                self.program_output.push(format!(
                    "(cohort: the report keeps the first {} MiB of the program's output)",
                    RECORD_LIMIT >> 20
                ));
            }
        }
        if crate::events::has_receiver() {
            let prefix = format!("[{rank}] ");
            let lines: String = text
                .split_inclusive('\n')
                .map(|l| l.strip_prefix(&prefix).unwrap_or(l))
                .collect();
            crate::events::emit(crate::events::Event::Output {
                rank,
                err: stream == Stream::Stderr,
                text: lines,
            });
            return;
        }
        match stream {
            Stream::Stdout => print(text, ""),
            Stream::Stderr => print("", text),
        }
    }

    /// Shows bytes of a rank's output: its complete lines, each prefixed with `[RANK] `, and
    /// the start of a line once it is 64 KiB long (the rest is held, see [`Front::partial`]).
    fn program_bytes(&mut self, rank: u32, stream: Stream, bytes: &[u8]) {
        let key = (rank, stream == Stream::Stderr);
        if self.open_line.is_some_and(|k| k != key) {
            self.end_open_line();
        }
        let continues = self.open_line == Some(key);
        let mut text = String::new();
        let (held, since) = self
            .partial
            .remove(&key)
            .unwrap_or_else(|| (Vec::new(), Instant::now()));
        let rest = match bytes.iter().rposition(|b| *b == b'\n') {
            Some(last) => {
                let mut whole = held;
                whole.extend_from_slice(&bytes[..=last]);
                for (i, line) in whole.split_inclusive(|b| *b == b'\n').enumerate() {
                    if i > 0 || !continues {
                        text.push_str(&format!("[{rank}] "));
                    }
                    text.push_str(&String::from_utf8_lossy(line));
                }
                self.open_line = None;
                (bytes[last + 1..].to_vec(), Instant::now())
            }
            None => {
                let mut held = held;
                held.extend_from_slice(bytes);
                (held, since)
            }
        };
        let (mut rest, since) = rest;
        if rest.len() >= PARTIAL_FLUSH_BYTES {
            self.show_partial(key, &mut rest, &mut text);
        }
        if !rest.is_empty() {
            self.partial.insert(key, (rest, since));
        }
        if !text.is_empty() {
            self.program_says(rank, stream, &text);
        }
    }

    /// Appends the held start of a line to `text`, unprefixed where it continues the open
    /// line; what is left is an incomplete UTF-8 character, if any.
    fn show_partial(&mut self, key: (u32, bool), held: &mut Vec<u8>, text: &mut String) {
        let upto = match std::str::from_utf8(held) {
            Ok(_) => held.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => held.len(),
        };
        if upto == 0 {
            return;
        }
        if self.open_line != Some(key) || !text.is_empty() && !text.ends_with('\n') {
            text.push_str(&format!("[{}] ", key.0));
        }
        text.push_str(&String::from_utf8_lossy(&held[..upto]));
        held.drain(..upto);
        self.open_line = Some(key);
    }

    /// When the oldest held start of a line is due to be shown.
    fn next_partial_due(&self) -> Option<tokio::time::Instant> {
        self.partial
            .values()
            .map(|(_, since)| *since + PARTIAL_FLUSH_AFTER)
            .min()
            .map(tokio::time::Instant::from_std)
    }

    /// Shows the held starts of lines that have waited 100 ms.
    fn show_due_partials(&mut self) {
        let now = Instant::now();
        let mut due: Vec<(u32, bool)> = self
            .partial
            .iter()
            .filter(|(_, (_, since))| now.duration_since(*since) >= PARTIAL_FLUSH_AFTER)
            .map(|(k, _)| *k)
            .collect();
        due.sort_unstable();
        for key in due {
            let Some((mut held, _)) = self.partial.remove(&key) else {
                continue;
            };
            if self.open_line.is_some_and(|k| k != key) {
                self.end_open_line();
            }
            let mut text = String::new();
            self.show_partial(key, &mut held, &mut text);
            if !held.is_empty() {
                self.partial.insert(key, (held, now));
            }
            let stream = if key.1 {
                Stream::Stderr
            } else {
                Stream::Stdout
            };
            if !text.is_empty() {
                self.program_says(key.0, stream, &text);
            }
        }
    }

    fn on_up(&mut self, up: Up) -> Option<(u64, Answer)> {
        match up {
            Up::Reply {
                id,
                merged,
                stacks,
                timed_out,
                lost,
                states,
                values,
            } => {
                self.tracker.learn(states);
                self.history = self.history.max(merged.history);
                return Some((
                    id,
                    Answer {
                        merged,
                        stacks,
                        timed_out,
                        lost,
                        values: values.map(|v| *v),
                    },
                ));
            }
            Up::Event { merged, states } => {
                self.tracker.learn(states);
                self.history = self.history.max(merged.history);
                let (o, e) = Answer {
                    merged,
                    ..Default::default()
                }
                .render();
                self.say(&o, &e);
            }
            Up::Output { rank, stream, data } => {
                let (len, stored) = (data.len(), data.stored_len());
                // Expanded only now, as it is shown.
                if let Ok(bytes) = data.into_bytes() {
                    self.program_bytes(rank, stream, &bytes);
                }
                self.budget.release_output(rank, len, stored);
            }
            Up::Lost { ranks, reason } => {
                self.lost = self.lost.union(&ranks);
                self.tracker.lost(&ranks);
                self.say("", &format!("[{ranks}] lost: {reason}\n"));
            }
            Up::Notice { text } => self.say("", &format!("cohort: {text}\n")),
            Up::Register { .. } | Up::Pong { .. } => {}
        }
        None
    }

    /// Print what is left of partial output lines.
    fn flush_partial(&mut self) {
        let mut parts: Vec<_> = self.partial.drain().collect();
        parts.sort_unstable_by_key(|(k, _)| *k);
        for ((rank, is_err), (buf, _)) in parts {
            let stream = if is_err {
                Stream::Stderr
            } else {
                Stream::Stdout
            };
            if buf.is_empty() {
                continue;
            }
            if self.open_line.is_some_and(|k| k != (rank, is_err)) {
                self.end_open_line();
            }
            let text = if self.open_line == Some((rank, is_err)) {
                format!("{}\n", String::from_utf8_lossy(&buf))
            } else {
                format!("[{rank}] {}\n", String::from_utf8_lossy(&buf))
            };
            self.open_line = None;
            self.program_says(rank, stream, &text);
        }
        self.end_open_line();
    }

    /// The ranks that can answer a command at once: not running (nor waiting in MPI), not
    /// lost (a command for a running rank waits for it to stop, until the timeout).
    pub fn idle(&self) -> RankSet {
        use cohort_wire::RankState;
        (0..self.size)
            .filter(|&r| {
                !self.lost.contains(r)
                    && !matches!(
                        self.tracker.states.get(r),
                        Some(RankState::Running | RankState::Waiting { .. } | RankState::Lost)
                    )
            })
            .collect()
    }

    /// Every rank's breakpoints, typed (the agents' `:breakpoints`): each location with the
    /// ranks that have it, in number order, and the ranks that answered. Asked of the ranks
    /// that are not running (a command for a running rank waits for it, until the timeout):
    /// those that run are left out (their breakpoints are those they had when they last
    /// answered). `None` when no rank answered.
    pub async fn breakpoints(
        &mut self,
    ) -> Option<(Vec<(cohort_wire::Breakpoint, RankSet)>, RankSet)> {
        let idle = self.idle();
        if idle.is_empty() {
            return None;
        }
        let a = self.ask(idle.clone(), ":breakpoints").await;
        let v = a.values?;
        (!v.classes.is_empty()).then(|| (cohort_wire::Breakpoint::by_ranks(&v), v.ranks()))
    }

    /// Send `line` to `ranks` and wait for the merged answer, printing events and program
    /// output that arrive meanwhile.
    pub async fn ask(&mut self, ranks: RankSet, line: &str) -> Answer {
        if self.ending.is_some() {
            return Answer::default();
        }
        self.next_id += 1;
        let id = self.next_id;
        // Starting (loading every library's debug information the first time) is not a step
        // that may legitimately wait on peers: it gets the full timeout.
        let ms = if node::is_resuming(line) && !matches!(line, ":start" | ":to-main") {
            self.settle_ms
        } else {
            self.timeout_ms
        };
        if node::is_resuming(line) {
            self.tracker.resumed(&ranks);
        }
        let _ = self.node.send(Msg::Down(Down::Command {
            id,
            ranks,
            line: line.to_string(),
            timeout_ms: ms,
            history: self.history,
        }));
        loop {
            let due = self.next_partial_due();
            tokio::select! {
                _ = sleep_until_some(due) => self.show_due_partials(),
                up = self.up.recv() => match up {
                    Some(up) => {
                        if let Some((rid, a)) = self.on_up(up)
                            && rid == id
                        {
                            self.last_failed = !a.merged.failed.is_empty()
                                || !a.timed_out.is_empty()
                                || !a.lost.is_empty();
                            return a;
                        }
                    }
                    None => return Answer::default(),
                },
                sig = Signals::next(&mut self.signals) => {
                    if self.on_signal(sig) {
                        return Answer::default();
                    }
                }
            }
        }
    }

    /// `run` in a session whose launcher starts the job (see [`Relaunch`]).
    async fn run_again(&mut self, args: &str) {
        let mut r = match std::mem::replace(&mut self.run, RunPolicy::Ranks) {
            RunPolicy::Relaunch(r) => r,
            RunPolicy::Refuse(why) => {
                self.run = RunPolicy::Refuse(why);
                self.say("", &format!("{why}\n"));
                return;
            }
            RunPolicy::Ranks => return,
        };
        let result = self.relaunch(&mut r, args).await;
        self.run = RunPolicy::Relaunch(r);
        if let Err(e) = result {
            self.say("", &format!("{e:#}\n"));
        }
    }

    async fn relaunch(&mut self, r: &mut Relaunch, args: &str) -> anyhow::Result<()> {
        let all = RankSet::all(self.size);
        if !args.is_empty() {
            r.argv.truncate(r.args_at);
            r.argv.extend(args.split_whitespace().map(OsString::from));
        }
        // The job ends (the launcher told first: Open MPI's `mpirun` then ends quietly).
        if let Some(l) = &self.launcher {
            l.ask_to_end();
        }
        let (out, err) = self.ask(all.clone(), ":kill").await.render();
        self.say(&out, &err);
        if let Some(mut l) = self.launcher.take() {
            let _ = tokio::task::spawn_blocking(move || l.end_within(Duration::from_secs(1))).await;
        }
        if self.ending.is_some() {
            return Ok(());
        }
        // And starts again.
        let argv = r.argv.clone();
        let aslr_off = r.disable_randomization;
        let job = tokio::task::spawn_blocking(move || {
            cohort_launch::launch_mpir_with(&argv, &[], cohort_launch::DEFAULT_TIMEOUT, aslr_off)
        })
        .await
        .context("starting the launcher")?
        .with_context(|| format!("starting {} under control", r.argv[0].to_string_lossy()))?;
        let procs = job.procs().to_vec();
        if procs.len() != r.hosts.len() {
            bail!(
                "the launcher's table has {} ranks, not {}",
                procs.len(),
                r.hosts.len()
            );
        }
        if let Some(p) = procs
            .iter()
            .find(|p| r.hosts.get(p.rank as usize) != Some(&p.host))
        {
            bail!(
                "rank {} now runs on {}, where no agent of this session is",
                p.rank,
                p.host
            );
        }
        let table: Vec<String> = procs
            .iter()
            .map(|p| format!("{}={}", p.rank, p.pid))
            .collect();
        let (out, err) = self
            .ask(all.clone(), &format!(":reattach {}", table.join(",")))
            .await
            .render();
        self.say(&out, &err);
        self.launcher = Some(
            tokio::task::spawn_blocking(move || job.release_launcher())
                .await
                .context("releasing the launcher")??,
        );
        // As gdb's `run`: on to the first breakpoint.
        let (out, err) = self.ask(all, "continue").await.render();
        self.say(&out, &err);
        Ok(())
    }

    /// Act on a signal: interrupt the running ranks, or note that the session ends (true).
    fn on_signal(&mut self, sig: Sig) -> bool {
        match sig {
            Sig::Interrupt => {
                let _ = self.node.send(Msg::Down(Down::Interrupt {
                    ranks: RankSet::all(self.size),
                }));
                false
            }
            Sig::End(signo) => {
                let (name, _) = cohort_engine::signals::describe(signo);
                self.say("", &format!("cohort: {name}: ending the session\n"));
                self.ending = Some(signo);
                true
            }
        }
    }

    /// Print events and output for a while (between batch commands nothing is lost: they
    /// are also printed while the next command waits).
    pub async fn drain(&mut self, d: Duration) {
        let end = tokio::time::Instant::now() + d;
        while self.ending.is_none() {
            let due = self.next_partial_due();
            tokio::select! {
                _ = sleep_until_some(due) => self.show_due_partials(),
                up = tokio::time::timeout_at(end, self.up.recv()) => match up {
                    Ok(Some(up)) => {
                        let _ = self.on_up(up);
                    }
                    _ => return,
                },
                sig = Signals::next(&mut self.signals) => {
                    self.on_signal(sig);
                }
            }
        }
    }

    /// One line typed by the user: `[SET] CMD`, `focus SET`, `info ranks`, `quit`, or a
    /// command for the focus set. Returns false to end the session.
    pub async fn execute(&mut self, line: &str) -> bool {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return true;
        }
        self.last_failed = false;
        let (set, cmd) = match self.split_set(line) {
            Ok(x) => x,
            Err(e) => {
                self.say("", &format!("{e}\n"));
                self.last_failed = true;
                return true;
            }
        };
        let word = cmd.split_whitespace().next().unwrap_or("");
        match word {
            "quit" | "q" => return false,
            "run" | "r" if !matches!(self.run, RunPolicy::Ranks) => {
                self.run_again(cmd[word.len()..].trim()).await;
                return self.ending.is_none();
            }
            "focus" => {
                let arg = cmd[word.len()..].trim();
                if arg.is_empty() {
                    let f = self.focus.clone();
                    self.say(&format!("Focus: ranks {f}\n"), "");
                    return true;
                }
                match self.groups.parse(arg, self.size) {
                    Ok(s) if !s.is_empty() => {
                        self.focus = s;
                        let f = self.focus.clone();
                        self.say(&format!("Focus: ranks {f}\n"), "");
                    }
                    Ok(_) => self.say("", "An empty rank set cannot be the focus.\n"),
                    Err(e) => self.say("", &format!("{e}\n")),
                }
                return true;
            }
            "input" => {
                // A line for the program's standard input, to the first rank of the set.
                let text = format!("{}\n", cmd[word.len()..].trim_start());
                match set.first() {
                    Some(rank) => {
                        let _ = self.node.send(Msg::Down(Down::Stdin {
                            rank,
                            data: text.into_bytes(),
                        }));
                    }
                    None => self.say("", "An empty rank set has no standard input.\n"),
                }
                return true;
            }
            "stacks" | "pstack" => {
                // Parallel stacks: every rank's stack merged into one tree, outermost frame
                // first, each node with the ranks below it (`pstack`, as the tool is called).
                let a = self.ask(set, ":stacks").await;
                let tree = a
                    .stacks
                    .as_ref()
                    .map(|t| t.render_tree())
                    .unwrap_or_default();
                let mut rest = Answer { stacks: None, ..a };
                let (o, e) = rest.render();
                rest.merged = Merged::default();
                self.say(&(tree + &o), &e);
                return self.ending.is_none();
            }
            "interrupt" => {
                let _ = self.node.send(Msg::Down(Down::Interrupt { ranks: set }));
                return true;
            }
            "group" => {
                let (o, e) = self.groups.command(&cmd[word.len()..], self.size);
                self.say(&o, &e);
                return true;
            }
            "compare" => {
                let (expr, named) =
                    crate::compare::split_args(&cmd[word.len()..], &self.groups, self.size);
                let expr = expr.to_string();
                crate::compare::run(self, &expr, named.unwrap_or(set)).await;
                return self.ending.is_none();
            }
            "mq" | "message-queues" => {
                // MPI message queues through the MPI library's debugger interface
                // (agentd/src/msgq.rs); the set's running ranks stop first.
                let Some(set) = self.stop_set_of(&cmd[word.len()..], set) else {
                    return true;
                };
                let a = self.ask(set, ":mq").await;
                let (o, e) = a.render();
                self.say(&o, &e);
                return self.ending.is_none();
            }
            "diagnose" => {
                // The set's running ranks stop first (their stops shown as usual).
                let Some(set) = self.stop_set_of(&cmd[word.len()..], set) else {
                    return true;
                };
                crate::diagnose::run(self, set).await;
                return self.ending.is_none();
            }
            _ => {}
        }
        let is_info_ranks = {
            let mut w = cmd.split_whitespace();
            matches!(w.next(), Some("info" | "i" | "inf")) && matches!(w.next(), Some("ranks"))
        };
        let cmd = if is_info_ranks { ":state" } else { cmd };
        let a = self.ask(set, cmd).await;
        let (o, e) = a.render();
        self.say(&o, &e);
        if let Some(offer) = crate::diagnose::offer(cmd, &a, self.settle_ms) {
            self.say(&offer, "");
        }
        self.ending.is_none()
    }

    /// `[0-3,5] print x` → (ranks, "print x"); without brackets, the focus set.
    fn split_set<'a>(&self, line: &'a str) -> anyhow::Result<(RankSet, &'a str)> {
        if let Some(rest) = line.strip_prefix('[') {
            let Some(end) = rest.find(']') else {
                bail!("Unterminated rank set: {line}");
            };
            let set = self.groups.parse(&rest[..end], self.size)?;
            return Ok((set, rest[end + 1..].trim_start()));
        }
        Ok((self.focus.clone(), line))
    }

    /// Run the commands of `-ex`/`-x`, then (without -batch) read commands from the terminal.
    pub async fn command_loop(&mut self, commands: Vec<Cmd>, batch: bool) {
        // gdb's from_tty, which the ranks (debuggers in batch mode) are told: `-ex` lines
        // and the terminal's are typed by the user outside `-batch`, `-x` files' are not.
        let mut typed = false;
        for c in commands {
            let by_user = !batch && matches!(c, Cmd::Line(_));
            if by_user != typed {
                self.tell_typed(by_user).await;
                typed = by_user;
            }
            let lines = match c.lines() {
                Ok(l) => l,
                Err(e) => {
                    self.say("", &Cmd::unreadable(&e, batch));
                    continue;
                }
            };
            for l in lines {
                if !self.execute(&l).await {
                    return;
                }
            }
        }
        if batch {
            self.batch_failed = self.last_failed;
            return;
        }
        if !typed {
            self.tell_typed(true).await;
        }
        let mut stdin = crate::stdin::StdinLines::interactive();
        let mut last = String::new();
        loop {
            self.end_open_line();
            if !stdin.prompts() {
                print("(cohort) ", "");
            }
            let line = loop {
                let due = self.next_partial_due();
                tokio::select! {
                    _ = sleep_until_some(due) => self.show_due_partials(),
                    l = stdin.next_line() => break l,
                    up = self.up.recv() => match up {
                        Some(up) => { let _ = self.on_up(up); }
                        None => return,
                    },
                    sig = Signals::next(&mut self.signals) => {
                        if self.on_signal(sig) {
                            return;
                        }
                    }
                }
            };
            let mut l = match line {
                Ok(Some(l)) => l,
                _ => {
                    print("quit\n", "");
                    return;
                }
            };
            if l.trim().is_empty() {
                l = last.clone();
            } else {
                last = l.clone();
            }
            if !self.execute(&l).await {
                return;
            }
        }
    }

    /// Tell every rank whether the lines that follow are typed by the user (see
    /// `Debugger::typed`); whatever they say to it is dropped.
    async fn tell_typed(&mut self, on: bool) {
        let all = RankSet::all(self.size);
        let line = if on { ":typed on" } else { ":typed off" };
        let _ = self.ask(all, line).await;
    }

    /// The front end's exit status: 0, or 128 + the signal that ended the session (as a shell
    /// reports a program a signal ended).
    pub fn exit_code(&self) -> i32 {
        match self.ending {
            Some(signo) => 128 + signo,
            None => i32::from(self.batch_failed),
        }
    }

    /// End the session: agents kill launched ranks and detach from attached ones.
    pub async fn shutdown(&mut self) {
        self.drain(Duration::from_millis(20)).await;
        self.flush_partial();
        let _ = self.node.send(Msg::Down(Down::Shutdown { detach: false }));
    }
}

/// Spawned agents and the session's files, cleaned up on drop.
pub struct Agents {
    children: Vec<Child>,
    /// A launcher started after the agents (MPICH's mpiexec), waited for at the end.
    launcher: Option<Child>,
}

impl Agents {
    /// End a launcher started after the agents (MPICH's `mpiexec`) and what it started, at
    /// once and quietly: hydra reports every rank that ends before `MPI_Finalize` as a failure
    /// of the job, in a banner.
    pub fn kill_launcher(&mut self) {
        if let Some(l) = &mut self.launcher
            && matches!(l.try_wait(), Ok(None))
        {
            cohort_launch::kill_with_descendants(l.id() as i32);
        }
    }

    /// Wait (without blocking the runtime, whose tasks still carry the shutdown to the agents)
    /// until the agents and the launcher have ended, or `limit` has passed.
    pub async fn wait(&mut self, limit: Duration) {
        let until = Instant::now() + limit;
        loop {
            let mut running = false;
            for c in self.children.iter_mut().chain(self.launcher.iter_mut()) {
                if matches!(c.try_wait(), Ok(None)) {
                    running = true;
                }
            }
            if !running || Instant::now() >= until {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

impl Drop for Agents {
    fn drop(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        if let Some(l) = &mut self.launcher {
            while Instant::now() < deadline {
                match l.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
            let _ = l.kill();
            let _ = l.wait();
        }
        for c in &mut self.children {
            while Instant::now() < deadline {
                match c.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
            if matches!(c.try_wait(), Ok(None)) {
                eprintln!(
                    "cohort: agent (pid {}) did not end after the session; killed",
                    c.id()
                );
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A session started by one of `cohort launch`'s launchers, or attached to a job: its ranks
/// at `main`, the program's last session restored, ready for commands (the CLI's command
/// loop, or the window's). [`Session::end`] ends it as `quit` does.
pub struct Session {
    pub front: Front,
    agents: Agents,
    /// The program (resolved).
    pub program: PathBuf,
    /// The `-ex`/`-x` commands, for the caller to run.
    pub commands: Vec<Cmd>,
    pub batch: bool,
    /// Saved at its end (see [`LaunchOpts::keeps_session`]).
    keep: bool,
    /// MPICH's wrapper socket, removed at the end.
    sock: Option<PathBuf>,
}

impl Session {
    /// Starts the session of `o` with its launcher (`--launcher`).
    pub async fn launch(o: LaunchOpts) -> anyhow::Result<Session> {
        match o.launcher {
            Launcher::Local => Session::launch_local(o).await,
            Launcher::OpenMpi | Launcher::Slurm => Session::launch_mpir(o).await,
            Launcher::Mpich => Session::launch_mpich(o).await,
        }
    }

    async fn launch_local(mut o: LaunchOpts) -> anyhow::Result<Session> {
        let program = resolve_program(&o.program)?;
        let (n, shown) = (o.n, o.program.clone());
        one_agent_per_cuda_rank(&mut o, &program, n, &shown);
        let started = Instant::now();
        let (mut front, agents) = start_local(&o, &program).await?;
        let formed = started.elapsed();
        front.say(
            &format!(
                "cohort: {} ranks under {} agent{}, tree formed in {} ms\n",
                o.n,
                o.agents,
                if o.agents == 1 { "" } else { "s" },
                formed.as_millis()
            ),
            "",
        );
        let a = front.ask(RankSet::all(o.n), ":start").await;
        let (out, err) = a.render();
        front.say(&out, &err);
        Session::ready(front, agents, program, o, None).await
    }

    /// The session is formed: the last one restored.
    async fn ready(
        mut front: Front,
        agents: Agents,
        program: PathBuf,
        o: LaunchOpts,
        sock: Option<PathBuf>,
    ) -> anyhow::Result<Session> {
        let keep = o.keeps_session();
        if keep && o.restore {
            crate::saved::restore(&mut front, &program).await;
        }
        Ok(Session {
            front,
            agents,
            program,
            commands: o.commands,
            batch: o.batch,
            keep,
            sock,
        })
    }

    /// `--launcher mpich`: MPICH's hydra has no MPIR interface. `mpiexec` starts
    /// `cohort-rankwrap` as each rank; the wrapper hands its rank, environment and descriptors
    /// to the node's agent, which starts the program itself under control
    /// (docs/ARCHITECTURE.md).
    async fn launch_mpich(o: LaunchOpts) -> anyhow::Result<Session> {
        let program = resolve_program(&o.program)?;
        let wrap = std::env::current_exe()?.with_file_name("cohort-rankwrap");
        if !wrap.exists() {
            bail!(
                "cohort-rankwrap not found next to cohort ({})",
                wrap.display()
            );
        }
        let mpiexec = ["mpiexec.hydra", "mpiexec.mpich"]
            .into_iter()
            .find(|m| {
                std::env::var_os("PATH")
                    .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(m).is_file()))
            })
            .context("MPICH's mpiexec.hydra is not installed")?;
        let sock = session_dir()?.join(format!("wrap-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&sock);
        let mut cmd = std::process::Command::new(mpiexec);
        if o.mpi_recorder {
            cmd.args(crate::recorder::mpich_args(&program));
        }
        cmd.arg("-n")
            .arg(o.n.to_string())
            .arg(&wrap)
            .arg("--agent")
            .arg(&sock)
            .arg("--")
            .arg(&program)
            .args(&o.args)
            .stdin(std::process::Stdio::null());
        {
            use std::os::unix::process::CommandExt;
            // SAFETY: between fork and exec the child only makes the prctl(2) system call,
            // with a signal number. However the front end ends (SIGKILL included), hydra is
            // told the job ends: it is forked by the session's thread (the CLI's main thread,
            // the window's session thread), which lives as long as the front end.
            unsafe {
                cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong);
                    Ok(())
                })
            };
        }
        let per_agent = vec![vec![
            "--wrap-socket".to_string(),
            sock.display().to_string(),
        ]];
        let started = Instant::now();
        let (mut front, agents) =
            start_agents(&o, &program, per_agent, Some((sock.clone(), cmd)), None).await?;
        front.say(
            &format!(
                "cohort: {} ranks of mpiexec (MPICH) under 1 agent, acquired in {} ms\n",
                o.n,
                started.elapsed().as_millis()
            ),
            "",
        );
        let a = front.ask(RankSet::all(o.n), ":start").await;
        let (out, err) = a.render();
        front.say(&out, &err);
        Session::ready(front, agents, program, o, Some(sock)).await
    }

    /// `--launcher openmpi|slurm`: start `mpirun`/`srun` under control (MPIR), read its
    /// process table, start the agents, attach every rank, then let the launcher go on.
    async fn launch_mpir(o: LaunchOpts) -> anyhow::Result<Session> {
        let program = resolve_program(&o.program)?;
        let mut argv: Vec<OsString> = Vec::new();
        let mut mpi_note = None;
        if o.launcher == Launcher::Slurm {
            argv.extend(["srun".into(), "-n".into(), o.n.to_string().into()]);
            argv.extend(o.slurm.args().into_iter().map(OsString::from));
            // The MPI plugin the program's MPI library needs (Open MPI: PMIx, MPICH: PMI-2),
            // unless the user chose one (SLURM_MPI_TYPE).
            let family = cohort_launch::mpi_family(&program);
            let user = std::env::var("SLURM_MPI_TYPE").ok();
            let offered = match (family, &user) {
                (Some(_), None) => cohort_launch::srun_mpi_plugins(),
                _ => Vec::new(),
            };
            match cohort_launch::choose_srun_mpi(family, &offered, user.as_deref()) {
                cohort_launch::SrunMpi::Plugin(p) => {
                    println!(
                        "cohort: {} uses {}: its ranks start with srun --mpi={p}",
                        o.program.display(),
                        family.map_or("MPI", cohort_launch::MpiFamily::name)
                    );
                    argv.push(format!("--mpi={p}").into());
                }
                cohort_launch::SrunMpi::AsIs => {}
                // Said with the end of a rank that dies (in MPI_Init).
                cohort_launch::SrunMpi::Fails(why) => mpi_note = Some(why),
            }
            if o.mpi_recorder {
                argv.extend(crate::recorder::slurm_args(&program));
            }
        } else {
            argv.extend(["mpirun".into(), "-np".into(), o.n.to_string().into()]);
            argv.push("--oversubscribe".into());
            if nix::unistd::getuid().is_root() {
                argv.push("--allow-run-as-root".into());
            }
            if o.mpi_recorder {
                argv.extend(crate::recorder::open_mpi_args(&program));
            }
        }
        argv.push(program.clone().into());
        let args_at = argv.len();
        argv.extend(o.args.iter().cloned());
        let started = Instant::now();
        let aslr_off = disable_randomization(&o.commands);
        let what = argv[0].to_string_lossy().into_owned();
        let argv2 = argv.clone();
        let job = tokio::task::spawn_blocking(move || {
            cohort_launch::launch_mpir_with(&argv2, &[], cohort_launch::DEFAULT_TIMEOUT, aslr_off)
        })
        .await
        .context("starting the launcher")?
        .with_context(|| format!("starting {what} under control"))?;
        Session::mpir_job(o, job, started, Some((argv, args_at)), mpi_note).await
    }

    /// `cohort attach`'s session: the job of the launcher `pid` (`mpirun`, `srun`), with
    /// `rest`, the other options of `cohort attach`.
    pub async fn attach(pid: i32, mut rest: Vec<String>) -> anyhow::Result<Session> {
        let started = Instant::now();
        let job = tokio::task::spawn_blocking(move || cohort_launch::attach_mpir(pid))
            .await
            .context("attaching to the launcher")?
            .with_context(|| format!("attaching to the launcher {pid}"))?;
        let n = job.procs().len() as u32;
        let exe = job
            .procs()
            .first()
            .map(|p| p.executable.display().to_string())
            .unwrap_or_default();
        rest.splice(0..0, ["-n".to_string(), n.max(1).to_string()]);
        rest.push("--".into());
        rest.push(exe);
        let mut o = parse_launch(&rest)?;
        o.launcher = match job.launcher() {
            cohort_launch::Launcher::Slurm => Launcher::Slurm,
            _ => Launcher::OpenMpi,
        };
        Session::mpir_job(o, job, started, None, None).await
    }

    async fn mpir_job(
        mut o: LaunchOpts,
        job: cohort_launch::MpirJob,
        started: Instant,
        launched: Option<(Vec<OsString>, usize)>,
        mpi_note: Option<String>,
    ) -> anyhow::Result<Session> {
        // A job this session launched (its launcher's command line), else one it attached to.
        let attached = launched.is_none();
        let program = o.program.clone();
        let procs = job.procs().to_vec();
        if procs.len() as u32 != o.n {
            bail!(
                "the launcher's table has {} ranks, not {}",
                procs.len(),
                o.n
            );
        }
        let slurm = o.launcher == Launcher::Slurm;
        let (per_agent, via_srun, agents) = if slurm {
            // One agent per node of the job, started by Slurm in the job's allocation.
            let mut nodes: Vec<String> = Vec::new();
            for p in &procs {
                if !nodes.contains(&p.host) {
                    nodes.push(p.host.clone());
                }
            }
            if nodes.iter().any(|h| resolves_elsewhere(h)) {
                // Real nodes: each agent listens on its node's address; the front end on the
                // interface it reaches the first node through.
                o.agent_hosts = nodes.clone();
                o.listen = local_address_towards(&nodes[0])?;
            }
            let jobid = procs
                .first()
                .and_then(|p| slurm_job_of(p.pid))
                .context("the job id of the ranks (SLURM_JOB_ID)")?;
            let table: Vec<String> = procs
                .iter()
                .map(|p| format!("{}:{}={}", p.host, p.rank, p.pid))
                .collect();
            let k = nodes.len() as u32;
            let mut acquire = vec!["--attach-table".to_string(), table.join(",")];
            if !attached {
                acquire.push("--kill-at-end".into());
            }
            if let Some(why) = mpi_note {
                acquire.extend(["--exit-note".to_string(), why]);
            }
            (vec![acquire], Some((jobid, nodes)), k)
        } else {
            if let Some(p) = procs.iter().find(|p| !is_this_host(&p.host)) {
                bail!(
                    "rank {} runs on {}: starting agents on other hosts through mpirun is not in this build",
                    p.rank,
                    p.host
                );
            }
            one_agent_per_cuda_rank(&mut o, &program, procs.len() as u32, &program);
            let agents = o.agents.min(procs.len().max(1) as u32).max(1);
            let per_agent: Vec<Vec<String>> = blocks(procs.len() as u32, agents)
                .into_iter()
                .map(|(lo, hi)| {
                    let list: Vec<String> = procs
                        .iter()
                        .filter(|p| p.rank >= lo && p.rank <= hi)
                        .map(|p| format!("{}={}", p.rank, p.pid))
                        .collect();
                    let mut acquire = vec!["--attach".to_string(), list.join(",")];
                    if !attached {
                        // The job is this session's: it ends with it.
                        acquire.push("--kill-at-end".into());
                    }
                    acquire
                })
                .collect();
            (per_agent, None, agents)
        };
        // A Slurm job started inside the user's allocation (`salloc`): the allocation, and the
        // agents' step in it, outlive the job's step, which `run` can then start again.
        let in_allocation = via_srun
            .as_ref()
            .is_some_and(|(jobid, _)| std::env::var("SLURM_JOB_ID").is_ok_and(|j| j == *jobid));
        let (mut front, agents_h) = start_agents(&o, &program, per_agent, None, via_srun).await?;
        front.say(
            &format!(
                "cohort: {} ranks of {} (pid {}) under {} agent{}, acquired in {} ms\n",
                procs.len(),
                if slurm { "srun" } else { "mpirun" },
                job.launcher_pid(),
                agents,
                if agents == 1 { "" } else { "s" },
                started.elapsed().as_millis()
            ),
            "",
        );
        let a = front.ask(RankSet::all(o.n), ":start").await;
        let (out, err) = a.render();
        front.say(&out, &err);
        // Every rank is held by its agent: the launcher may go on (and reap the job at its end).
        let hosts: Vec<String> = procs.iter().map(|p| p.host.clone()).collect();
        front.run = match launched {
            None => {
                tokio::task::spawn_blocking(move || job.release())
                    .await
                    .context("releasing the launcher")??;
                RunPolicy::Refuse(
                    "The job was attached to: `run` cannot start it again (its launcher is not this session's).",
                )
            }
            Some((argv, args_at)) => {
                front.launcher = Some(
                    tokio::task::spawn_blocking(move || job.release_launcher())
                        .await
                        .context("releasing the launcher")??,
                );
                if slurm && !in_allocation {
                    RunPolicy::Refuse(
                        "`run` cannot start a Slurm job again outside an allocation: its agents run in the job's allocation, which ends with srun (quit, and launch it again; or start cohort inside `salloc`, where `run` starts the job's step again).",
                    )
                } else {
                    RunPolicy::Relaunch(Relaunch {
                        argv,
                        args_at,
                        hosts,
                        disable_randomization: disable_randomization(&o.commands),
                    })
                }
            }
        };
        if !attached {
            // Shown where every launcher's ranks are: at main (after MPI_Init where the
            // launcher lets them go only inside it).
            let a = front.ask(RankSet::all(o.n), ":to-main").await;
            let (out, err) = a.render();
            front.say(&out, &err);
        }
        Session::ready(front, agents_h, program, o, None).await
    }

    /// Ends the session as `quit` does (saved first where it is kept): launched ranks killed,
    /// attached ones detached, the launcher and the agents ended. Returns the front end's exit
    /// status.
    pub async fn end(mut self) -> i32 {
        if self.keep {
            crate::saved::save(&mut self.front, &self.program).await;
        }
        // MPICH's mpiexec, at once and quietly.
        self.agents.kill_launcher();
        self.front.shutdown().await;
        let launcher = self.front.launcher.take();
        // The agents kill the ranks; the launcher ends its daemons (Open MPI's `mpirun` does
        // so without a word when it is told first, `srun` cancels its step).
        if let Some(l) = &launcher {
            l.ask_to_end();
        }
        self.agents.wait(Duration::from_secs(15)).await;
        drop(self.agents);
        if let Some(mut l) = launcher {
            let _ = tokio::task::spawn_blocking(move || l.end_within(Duration::from_secs(1))).await;
        }
        if let Some(s) = &self.sock {
            let _ = std::fs::remove_file(s);
        }
        self.front.exit_code()
    }

    /// The CLI's session: the commands, then the terminal's, then the end.
    async fn run_cli(mut self) -> i32 {
        let commands = std::mem::take(&mut self.commands);
        self.front.command_loop(commands, self.batch).await;
        self.end().await
    }
}

fn cli_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

/// `cohort launch`.
pub fn launch_main(argv: &[String]) -> anyhow::Result<i32> {
    let o = parse_launch(argv)?;
    cli_runtime()?.block_on(async move { Ok(Session::launch(o).await?.run_cli().await) })
}

/// `cohort attach (--mpirun PID | --srun PID | --slurm-job JOBID) [gdb options]`.
pub const ATTACH_USAGE: &str = "Usage: cohort attach (--mpirun PID | --srun PID | --slurm-job JOBID) [--agents A] [--no-restore] [-batch] [-ex CMD]... [-x FILE]";

/// `cohort attach`'s arguments: the launcher's process id, and the other options (for
/// [`Session::attach`]).
pub fn parse_attach(argv: &[String]) -> anyhow::Result<(i32, Vec<String>)> {
    const USAGE: &str = ATTACH_USAGE;
    let mut pid: Option<i32> = None;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        let v = argv.get(i + 1).cloned();
        match a {
            "--mpirun" | "--srun" => {
                let v = v.with_context(|| format!("{a} needs a process id\n{USAGE}"))?;
                pid = Some(
                    v.parse()
                        .with_context(|| format!("Illegal process-id: {v}."))?,
                );
                i += 2;
            }
            "--slurm-job" => {
                let v = v.with_context(|| format!("{a} needs a job id\n{USAGE}"))?;
                let job: u64 = v.parse().with_context(|| format!("bad job id '{v}'"))?;
                pid = Some(cohort_launch::find_srun_of_job(job)?);
                i += 2;
            }
            _ => {
                rest.push(argv[i].clone());
                i += 1;
            }
        }
    }
    let pid = pid.with_context(|| format!("nothing to attach to\n{USAGE}"))?;
    Ok((pid, rest))
}

pub fn attach_main(argv: &[String]) -> anyhow::Result<i32> {
    let (pid, rest) = parse_attach(argv)?;
    cli_runtime()?.block_on(async move { Ok(Session::attach(pid, rest).await?.run_cli().await) })
}

fn is_this_host(h: &str) -> bool {
    let me = nix::unistd::gethostname()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    h == me || h == "localhost" || me.split('.').next() == Some(h)
}

/// Slurm reports node names; on a test cluster they are all this machine.
fn resolves_elsewhere(h: &str) -> bool {
    use std::net::ToSocketAddrs;
    match (h, 0u16).to_socket_addrs() {
        Ok(mut a) => a.any(|a| !a.ip().is_loopback()) && !is_this_host(h),
        Err(_) => false,
    }
}

/// gdb's `set disable-randomization` for a job the session launches: on (gdb's default)
/// unless a command given with `-ex` turns it off (the last one says), as
/// `gdb -ex 'set disable-randomization off' -ex run` runs its program.
fn disable_randomization(commands: &[Cmd]) -> bool {
    let mut on = true;
    for c in commands {
        if let Cmd::Line(l) = c {
            let w: Vec<&str> = l.split_whitespace().collect();
            if let ["set", "disable-randomization", v] = w.as_slice() {
                on = !matches!(*v, "off" | "0" | "no" | "disable");
            }
        }
    }
    on
}

/// The local address this machine uses to reach `host` (no packet is sent: a UDP socket is
/// connected, which only picks the route).
fn local_address_towards(host: &str) -> anyhow::Result<std::net::IpAddr> {
    use std::net::ToSocketAddrs;
    let peer = (host, 9u16)
        .to_socket_addrs()
        .with_context(|| format!("resolving {host}"))?
        .next()
        .with_context(|| format!("no address for {host}"))?;
    let bind: SocketAddr = if peer.is_ipv4() {
        (Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let s = std::net::UdpSocket::bind(bind)?;
    s.connect(peer)?;
    Ok(s.local_addr()?.ip())
}

/// SLURM_JOB_ID from a task's environment.
fn slurm_job_of(pid: i32) -> Option<String> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    env.split(|b| *b == 0).find_map(|kv| {
        let kv = String::from_utf8_lossy(kv);
        kv.strip_prefix("SLURM_JOB_ID=").map(str::to_string)
    })
}

pub fn resolve_program(p: &Path) -> anyhow::Result<PathBuf> {
    let found = if p.components().count() > 1 || p.exists() {
        Some(p.to_path_buf())
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(p))
                .find(|c| c.is_file())
        })
    };
    let Some(f) = found.filter(|f| f.is_file()) else {
        // gdb's words: `No such file or directory.`, `Is a directory.`, …
        bail!("{}", cohort_engine::EngineError::not_a_program(p));
    };
    std::fs::canonicalize(&f).with_context(|| format!("{}", f.display()))
}

/// Start the local launcher's agents and the root node; wait until the whole tree has
/// registered.
pub async fn start_local(o: &LaunchOpts, program: &Path) -> anyhow::Result<(Front, Agents)> {
    let per_agent: Vec<Vec<String>> = blocks(o.n, o.agents)
        .into_iter()
        .map(|(lo, hi)| {
            let mut a = vec!["--ranks".to_string(), format!("{lo}-{hi}")];
            if let Some(c) = &o.cores {
                a.extend(["--cores".to_string(), c.clone()]);
            }
            a
        })
        .collect();
    start_agents(o, program, per_agent, None, None).await
}

/// Start one agent per entry of `per_agent` (its acquisition arguments: `--ranks A-B` or
/// `--attach R=PID,…`), be the root of their tree, and wait until it has formed.
pub async fn start_agents(
    o: &LaunchOpts,
    program: &Path,
    per_agent: Vec<Vec<String>>,
    launcher: Option<(PathBuf, std::process::Command)>,
    via_srun: Option<(String, Vec<String>)>,
) -> anyhow::Result<(Front, Agents)> {
    // Through Slurm the agents share one acquire list (each takes its node's ranks from it):
    // there is one agent per node of the job.
    let n_agents = match &via_srun {
        Some((_, nodes)) => nodes.len() as u32,
        None => per_agent.len() as u32,
    };
    let secret = Secret::try_generate()?;
    let secret_hex = secret.to_hex();
    remove_stale_keys();
    let listener = tokio::net::TcpListener::bind((o.listen, 0))
        .await
        .with_context(|| format!("listening on {}", o.listen))?;
    if !o.agent_hosts.is_empty() && (o.agent_hosts.len() as u32) < n_agents {
        bail!(
            "--agent-hosts names {} addresses for {n_agents} agents",
            o.agent_hosts.len()
        );
    }
    let root: SocketAddr = listener.local_addr()?;
    let (up_tx, up_rx) = tokio::sync::mpsc::unbounded_channel();
    let root_children = n_agents.min(o.root_fanout);
    let (node, rx) = Node::new(
        u32::MAX,
        "front end".into(),
        Vec::new(),
        root_children,
        up_tx,
    );
    let node_tx = node.sender();
    let budget = node.budget();
    node::serve_children(listener, secret, node_tx.clone(), budget.clone());
    tokio::spawn(node.run(rx));

    let agentd = agentd_path()?;
    let cwd = std::env::current_dir().context("the working directory")?;
    let mut agents = Agents {
        children: Vec::new(),
        launcher: None,
    };
    let common = |c: &mut std::process::Command| {
        c.arg("--agents").arg(n_agents.to_string());
        if o.agent_hosts.is_empty() {
            c.arg("--host-base").arg("127.1.0.1");
        } else {
            c.arg("--hosts").arg(o.agent_hosts.join(","));
        }
        c.arg("--port")
            .arg(root.port().to_string())
            .arg("--root")
            .arg(root.to_string())
            .arg("--fanout")
            .arg(format!("{},{}", o.root_fanout, o.fanout))
            .arg("--size")
            .arg(o.n.to_string());
    };
    match via_srun {
        Some((jobid, nodes)) => {
            // Through the resource manager: one agent per node of the job, in the job's
            // allocation beside its tasks; each takes its index from SLURM_NODEID.
            let mut c = std::process::Command::new("srun");
            c.arg(format!("--jobid={jobid}"))
                .arg("--overlap")
                .arg("--ntasks-per-node=1")
                .arg(format!("--nodes={}", nodes.len()))
                .arg(format!("--ntasks={}", nodes.len()))
                .arg(format!("--nodelist={}", nodes.join(",")))
                .arg("--kill-on-bad-exit=0")
                .arg(&agentd);
            common(&mut c);
            c.args(per_agent.first().map(Vec::as_slice).unwrap_or_default())
                .env("COHORT_SECRET", secret_hex.clone())
                .stdin(std::process::Stdio::null());
            agents
                .children
                .push(c.spawn().context("starting the agents with srun")?);
        }
        None => {
            for (i, acquire) in per_agent.into_iter().enumerate() {
                let mut c = match &o.agent_prefix {
                    Some(p) => {
                        let p = p.replace("{i}", &i.to_string());
                        let mut words = p.split_whitespace();
                        let mut c = std::process::Command::new(
                            words.next().context("--agent-prefix is empty")?,
                        );
                        c.args(words).arg(&agentd);
                        c
                    }
                    None => std::process::Command::new(&agentd),
                };
                c.arg("--index").arg(i.to_string());
                common(&mut c);
                // The secret goes to the agent on its standard input: no file holds it.
                c.arg("--secret-stdin")
                    .args(&acquire)
                    .arg("--cwd")
                    .arg(&cwd)
                    .arg("--")
                    .arg(program)
                    .args(&o.args)
                    .stdin(std::process::Stdio::piped());
                let mut child = c
                    .spawn()
                    .with_context(|| format!("starting {}", agentd.display()))?;
                if let Some(mut w) = child.stdin.take() {
                    // A pipe holds far more than one line: this does not block. An agent that
                    // died at once is reported when the tree forms.
                    let _ = w.write_all(format!("{secret_hex}\n").as_bytes());
                }
                agents.children.push(child);
            }
        }
    }
    if let Some((sock, mut cmd)) = launcher {
        // The launcher's wrappers connect to the agent's socket: start it once it is there.
        let until = Instant::now() + Duration::from_secs(30);
        while !sock.exists() && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        agents.launcher = Some(cmd.spawn().context("starting the launcher")?);
    }
    let mut front = Front {
        node: node_tx,
        up: up_rx,
        size: o.n,
        focus: RankSet::all(o.n),
        next_id: 0,
        lost: RankSet::new(),
        partial: HashMap::new(),
        open_line: None,
        budget,
        recorded: 0,
        timeout_ms: o.timeout_ms,
        settle_ms: o.settle_ms,
        record_output: false,
        program_output: Vec::new(),
        history: 0,
        signals: Signals::new().ok(),
        ending: None,
        last_failed: false,
        batch_failed: false,
        run: RunPolicy::Ranks,
        launcher: None,
        groups: Default::default(),
        tracker: crate::events::Tracker::new(o.n),
    };
    // The root registers once every child has; children that never come make it register
    // with what there is.
    let tx = front.node.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(30)).await;
        let _ = tx.send(Msg::RegisterNow);
    });
    loop {
        match front.up.recv().await {
            Some(Up::Register { ranks, .. }) => {
                let missing = RankSet::all(o.n).difference(&ranks);
                if !missing.is_empty() {
                    front.lost = missing.clone();
                    eprintln!("[{missing}] never joined (their agents did not start)");
                }
                break;
            }
            Some(up) => {
                let _ = front.on_up(up);
            }
            None => bail!("the agent tree ended before it formed"),
        }
    }
    Ok((front, agents))
}
