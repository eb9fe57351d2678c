//! One node of the agent tree: its own ranks, its children, the merging of answers.
//!
//! Everything arrives as a [`Msg`] on one channel and is handled by one task, so the state
//! needs no locks: commands from the parent, answers of the ranks' threads, messages of the
//! children, the programs' output, timers.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cohort_wire::{
    Down, Hex, Merged, Payload, Place, RankSet, RankState, Secret, StackTree, States, Stream, Up,
    Values,
};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::flow::Budget;
use crate::rank::{Done, Init, Job};
use crate::tracers::{Pool, RankHandle};

/// How long a parent waits for any message from a child (it pings every [`PING_EVERY`])
/// before it declares it lost. A dead agent closes its connection (found at once) and a dead
/// node or link stops answering TCP keepalives (found by the kernel within a few seconds, see
/// [`keepalive`]); this finds an agent that is alive but stuck (stopped with SIGSTOP: the kernel
/// still answers keepalives). Silence while the parent itself was held up, or while the
/// child's output waited for room in the parent's budget, does not count.
pub const CHILD_SILENCE: Duration = Duration::from_secs(5);
/// … and before it declares lost a child that is busy: its subtree's ranks are running or
/// starting, or its node is oversubscribed (its last pong said so, or it was sent a command
/// that resumes ranks since). Ranks that compute can take the CPUs from their agent for many seconds on an
/// oversubscribed node (10,000 spinning ranks on 2 CPUs held agents up for 20 s), and losing
/// an agent that is only slow loses its ranks for the rest of the session; a stopped agent is
/// still found, later. Commands do not wait for it: at a command's deadline a silent child's
/// ranks are timed out after [`CHILD_MISSED_PINGS`] as before.
pub const CHILD_SILENCE_BUSY: Duration = Duration::from_secs(60);
/// A node counts as oversubscribed when it has more runnable threads than this many per CPU.
const OVERSUBSCRIBED: usize = 16;

/// TCP keepalive on a tree link: probes after 3 s of silence, every second, 3 tries.
fn keepalive(sock: &tokio::net::TcpStream) {
    let ka = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(3))
        .with_interval(Duration::from_secs(1))
        .with_retries(3);
    if let Err(e) = socket2::SockRef::from(sock).set_tcp_keepalive(&ka) {
        tracing::warn!("TCP keepalive: {e}");
    }
}
/// How often a parent pings its children.
pub const PING_EVERY: Duration = Duration::from_secs(1);
/// A child not heard from for this long has missed its pings: at a command's deadline its
/// ranks are timed out at once.
const CHILD_MISSED_PINGS: Duration = Duration::from_millis(1500);
/// How long past a command's deadline a parent waits for a live child's answer.
const CHILD_GRACE: Duration = Duration::from_secs(2);
/// … and for a child whose output is still flowing.
const CHILD_FLOWING: Duration = Duration::from_secs(30);
/// Events (stops after a resume) that arrive within this window go up as one merged message.
const EVENT_BATCH: Duration = Duration::from_millis(3);

/// Everything the node's task reacts to.
pub enum Msg {
    /// From the parent (or the front end's command loop, at the root).
    Down(Down),
    /// The parent went away.
    ParentGone(String),
    /// A child connected and registered.
    ChildJoined {
        key: u64,
        agent: u32,
        ranks: RankSet,
        agents: u32,
        tx: UnboundedSender<Down>,
        /// Set while the connection's reader waits for room in this agent's output budget:
        /// the child is not silent, this agent is slow.
        throttled: Arc<std::sync::atomic::AtomicBool>,
    },
    ChildUp(u64, Up),
    ChildGone(u64, String),
    /// What ranks answered (together, those a tracer thread finished in one round).
    RanksDone(Vec<Done>),
    Output {
        rank: u32,
        stream: Stream,
        data: Vec<u8>,
    },
    /// A rank's pipe reached its end (or failed): its reader is gone.
    OutputEnd {
        rank: u32,
    },
    /// An ended rank's pipes were found empty: every byte read from them is ahead of this
    /// message in the node's queue.
    Drained {
        rank: u32,
    },
    Tick,
    /// Stop waiting for missing children: register with the subtree there is.
    RegisterNow,
}

/// Where this node's messages go: the parent's connection, or the front end.
pub type UpSink = UnboundedSender<Up>;

/// What a rank of this node starts as.
pub struct LocalRank {
    pub rank: u32,
    pub init: Init,
    /// The agent's ends of the rank's pipes (launched ranks).
    pub pipes: Option<crate::stdio::RankPipes>,
}

struct Child {
    agent: u32,
    ranks: RankSet,
    tx: UnboundedSender<Down>,
    last_heard: Instant,
    throttled: Arc<std::sync::atomic::AtomicBool>,
    /// Its subtree is busy (see [`CHILD_SILENCE_BUSY`]): set when it joins and when a command
    /// that resumes ranks goes to it, then as its pongs say (those answering a ping sent after
    /// the command).
    busy: bool,
    /// The last ping sent before the last command that resumes ranks went to it.
    busy_seq: u64,
    /// That command.
    busy_cmd: u64,
}

impl Child {
    fn silence_allowed(&self) -> Duration {
        if self.busy {
            CHILD_SILENCE_BUSY
        } else {
            CHILD_SILENCE
        }
    }
}

/// Whether this node has more runnable threads than [`OVERSUBSCRIBED`] per CPU (the kernel's
/// count in `/proc/loadavg`, which includes the reader).
fn node_oversubscribed() -> bool {
    let Ok(t) = std::fs::read_to_string("/proc/loadavg") else {
        return false;
    };
    let Some(runnable) = t
        .split_whitespace()
        .nth(3)
        .and_then(|f| f.split('/').next())
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return false;
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    runnable.saturating_sub(1) > OVERSUBSCRIBED * cpus
}

struct Pending {
    local_wait: RankSet,
    child_wait: Vec<u64>,
    merged: Merged,
    stacks: Option<StackTree>,
    bt: bool,
    timed_out: RankSet,
    lost: RankSet,
    /// The typed state of the ranks that answered.
    states: States,
    /// The typed values of `:value EXPR` and `:locals`.
    values: Option<Values>,
    deadline: Instant,
    resuming: bool,
    line: String,
    /// The job's value-history count when the command was given (`Down::Command::history`).
    history: u32,
    /// Which hex numbers of the answers are addresses.
    hex: Hex,
}

/// Does this command let the program run (so that a rank may legitimately not come back
/// before the others: blocked in MPI, or computing)?
pub fn is_resuming(line: &str) -> bool {
    let w = line.split_whitespace().next().unwrap_or("");
    let w = w.split('/').next().unwrap_or("");
    matches!(
        w,
        "run"
            | "r"
            | "start"
            | "starti"
            | ":start"
            | ":to-main"
            | "continue"
            | "c"
            | "cont"
            | "fg"
            | "next"
            | "n"
            | "step"
            | "s"
            | "finish"
            | "fin"
            | "until"
            | "u"
            | "advance"
            | "stepi"
            | "si"
            | "nexti"
            | "ni"
            | "jump"
            | "signal"
            | "call"
    )
}

/// A command's first word (`break` of `break f.c:3`), as answers name it.
fn first_word(line: &str) -> String {
    line.split_whitespace().next().unwrap_or("").to_string()
}

/// The typed state of a rank still in a command: running, or waiting in an MPI call.
fn running_state(call: Option<String>) -> RankState {
    match call {
        Some(call) => RankState::Waiting {
            call,
            place: Place::default(),
        },
        None => RankState::Running,
    }
}

fn is_backtrace(line: &str) -> bool {
    let mut w = line.split_whitespace();
    matches!(w.next(), Some("bt" | "backtrace" | "where" | ":stacks")) && w.next().is_none()
}

/// Which hex numbers of a command's answers are addresses: every one for values in gdb's
/// natural format (`print`, `call`, `output` without `/FMT`, `info locals`, `info args`,
/// `bt full`), where integers print in decimal and only pointers in hex; else those printed
/// where gdb prints addresses (`cohort_wire::Text::new`).
pub fn hex_rule(line: &str) -> Hex {
    let mut w = line.split_whitespace();
    let first = w.next().unwrap_or("");
    let natural = match first {
        "print" | "p" | "inspect" | "call" | "output" | ":compare" => {
            !w.next().is_some_and(|a| a.starts_with('/'))
        }
        "info" | "i" | "inf" => matches!(w.next(), Some("locals" | "args")),
        "bt" | "backtrace" | "where" => w.any(|a| matches!(a, "full" | "-full")),
        _ => false,
    };
    if natural { Hex::Pointers } else { Hex::Places }
}

/// A frame line without its arguments and address (`compute at ranks.c:10`), for the
/// parallel-stacks view, where frames of the same function and line are one node whatever
/// their arguments.
pub fn short_frame(frame: &str) -> String {
    let f = match frame.split_once(" in ") {
        Some((addr, rest)) if addr.starts_with("0x") => rest,
        _ => frame,
    };
    let name = f.split(" (").next().unwrap_or(f).trim();
    let place = f
        .rsplit_once(") at ")
        .map(|(_, p)| format!(" at {p}"))
        .or_else(|| f.rsplit_once(") from ").map(|(_, p)| format!(" from {p}")))
        .unwrap_or_default();
    format!("{name}{place}")
}

/// The frames of a plain `bt` output, innermost first, without their numbers; `None` when the
/// output has anything else in it (then it merges as text).
fn frames_of(out: &str) -> Option<Vec<String>> {
    let mut frames = Vec::new();
    for l in out.lines() {
        let rest = l.strip_prefix('#')?;
        let (num, frame) = rest.split_once(' ')?;
        if num.parse::<u32>().ok()? as usize != frames.len() {
            return None;
        }
        frames.push(frame.trim_start().to_string());
    }
    (!frames.is_empty()).then_some(frames)
}

/// The tracer threads' answers into the node's event loop.
fn answers_to(tx: &UnboundedSender<Msg>) -> crate::tracers::Sink {
    let tx = tx.clone();
    Arc::new(move |v| {
        let _ = tx.send(Msg::RanksDone(v));
    })
}

pub struct Node {
    /// This agent's number in the tree (`u32::MAX` for the front end).
    pub agent: u32,
    pub host: String,
    ranks: BTreeMap<u32, RankHandle>,
    /// The tracer threads the ranks run on (after `ranks`: handles go first when a node drops).
    pool: Pool,
    /// Ranks whose threads start once this node has joined the tree (so that forming the tree
    /// does not wait for hundreds of threads loading the program on a few CPUs).
    to_start: Vec<(u32, Init)>,
    own: RankSet,
    stdin: HashMap<u32, OwnedFd>,
    children: HashMap<u64, Child>,
    expected_children: u32,
    registered: bool,
    agents_below: u32,
    pending: HashMap<u64, Pending>,
    /// The number of the last ping sent to the children.
    ping_seq: u64,
    /// Ranks running a command whose answer went up already (its stop will be an event).
    running: HashMap<u32, u64>,
    /// Of those, the ones whose command lets nothing run (a slow `break FILE:LINE`, `shell`):
    /// its first word. Such a rank is busy, not running: its place is the last one it gave.
    busy_with: HashMap<u32, String>,
    /// Every rank's state as its last answer gave it.
    last_state: HashMap<u32, RankState>,
    /// Ranks whose unfinished step a later step adopted (rank → the later command).
    adopted: HashMap<u32, u64>,
    /// Commands for ranks still busy: sent when the rank is idle (rank, command, line).
    deferred: Vec<(u32, u64, String)>,
    events: Merged,
    /// The typed state of the ranks the events speak of.
    event_states: States,
    events_since: Option<Instant>,
    up: UpSink,
    tx: UnboundedSender<Msg>,
    lost: RankSet,
    /// Ranks attached to (not started by this session): never killed.
    attached: RankSet,
    /// Ranks killed while in a command (rank → the command), whose end is not reported.
    silenced: HashMap<u32, u64>,
    /// The output this agent may hold (see [`crate::flow`]).
    budget: Arc<Budget>,
    /// The read ends of ranks' pipes still read (copies, to see what is left in them).
    open_pipes: HashMap<u32, Vec<OwnedFd>>,
    /// Answers of ranks whose process ended, held until their pipes are read to the end (the
    /// program's last writes may still be in them when its end is seen), with the time after
    /// which they go regardless (a process the rank left behind may write on).
    held: Vec<(Done, Held)>,
}

#[derive(Clone, Copy)]
struct Held {
    /// No output came from the rank since.
    quiet_until: Instant,
    /// The most an answer waits.
    cap: Instant,
}

/// How long an ended rank's answer waits for more of its output before it goes without it.
const OUTPUT_END_WAIT: Duration = Duration::from_secs(2);
/// The most it waits while output keeps coming (or waits for a slow terminal).
const OUTPUT_END_CAP: Duration = Duration::from_secs(60);

/// Bytes waiting in a pipe.
fn unread(fd: &OwnedFd) -> usize {
    use std::os::fd::AsRawFd;
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, which points at `n`.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
    if r < 0 { 0 } else { n.max(0) as usize }
}

impl Node {
    /// Start the node: its ranks (started on the tracer threads with the first command that
    /// concerns them), readers for their output.
    pub fn new(
        agent: u32,
        host: String,
        locals: Vec<LocalRank>,
        expected_children: u32,
        up: UpSink,
    ) -> (Self, UnboundedReceiver<Msg>) {
        let (tx, rx) = unbounded_channel();
        let budget = Budget::from_env();
        let mut stdin = HashMap::new();
        let mut own = RankSet::new();
        let ranks = BTreeMap::new();
        let mut to_start = Vec::new();
        let mut open_pipes = HashMap::new();
        for l in locals {
            if let Some(p) = l.pipes {
                let copies: Vec<OwnedFd> = [&p.stdout_r, &p.stderr_r]
                    .iter()
                    .filter_map(|f| f.try_clone().ok())
                    .collect();
                open_pipes.insert(l.rank, copies);
                stdin.insert(l.rank, p.stdin_w);
                spawn_reader(l.rank, Stream::Stdout, p.stdout_r, tx.clone(), &budget);
                spawn_reader(l.rank, Stream::Stderr, p.stderr_r, tx.clone(), &budget);
            }
            own.insert(l.rank);
            to_start.push((l.rank, l.init));
        }
        let node = Node {
            agent,
            host,
            ranks,
            pool: Pool::new(None, answers_to(&tx)),
            to_start,
            own,
            stdin,
            children: HashMap::new(),
            expected_children,
            registered: false,
            agents_below: 0,
            pending: HashMap::new(),
            ping_seq: 0,
            running: HashMap::new(),
            busy_with: HashMap::new(),
            last_state: HashMap::new(),
            adopted: HashMap::new(),
            deferred: Vec::new(),
            events: Merged::default(),
            event_states: States::default(),
            events_since: None,
            up,
            tx,
            lost: RankSet::new(),
            attached: RankSet::new(),
            silenced: HashMap::new(),
            budget,
            open_pipes,
            held: Vec::new(),
        };
        (node, rx)
    }

    /// Run the ranks on `n` tracer threads (before any has started).
    pub fn set_tracers(&mut self, n: usize) {
        if self.ranks.is_empty() {
            self.pool = Pool::new(Some(n), answers_to(&self.tx));
        }
    }

    pub fn sender(&self) -> UnboundedSender<Msg> {
        self.tx.clone()
    }

    /// The node's output budget, for its connections (and, at the root, the front end that
    /// shows the output).
    pub fn budget(&self) -> Arc<Budget> {
        self.budget.clone()
    }

    /// Every rank of this subtree (own and children's).
    pub fn subtree_ranks(&self) -> RankSet {
        self.children
            .values()
            .fold(self.own.clone(), |acc, c| acc.union(&c.ranks))
    }

    fn maybe_register(&mut self) {
        if self.registered || (self.children.len() as u32) < self.expected_children {
            return;
        }
        self.registered = true;
        let _ = self.up.send(Up::Register {
            agent: self.agent,
            host: self.host.clone(),
            ranks: self.subtree_ranks(),
            agents: self.agents_below + 1,
        });
    }

    /// Start the ranks' threads (each loads the program). Done when the first command that
    /// concerns ranks arrives, that is once the whole tree has formed: agents that registered
    /// early would otherwise take the CPUs from those still starting.
    fn start_ranks(&mut self) {
        self.pool.plan(self.to_start.len());
        for (rank, init) in std::mem::take(&mut self.to_start) {
            if matches!(
                init,
                Init::Attach {
                    kill_at_end: false,
                    ..
                }
            ) {
                self.attached.insert(rank);
            }
            match self.pool.spawn(rank, init) {
                Ok(h) => {
                    self.ranks.insert(rank, h);
                }
                Err(e) => {
                    tracing::error!("rank {rank}: cannot start its thread: {e}");
                    self.lost.insert(rank);
                    let _ = self.up.send(Up::Lost {
                        ranks: RankSet::single(rank),
                        reason: format!("its thread could not start: {e}"),
                    });
                }
            }
        }
    }

    /// Register with what is there, even if some children never came (they are lost).
    pub fn register_now(&mut self) {
        self.expected_children = self.children.len() as u32;
        self.maybe_register();
    }

    /// Run the node until its parent goes or a shutdown. Returns whether ranks were detached.
    pub async fn run(mut self, mut rx: UnboundedReceiver<Msg>) -> bool {
        self.maybe_register();
        let mut last_ping = Instant::now();
        let mut last_turn = Instant::now();
        let mut detach = false;
        loop {
            // No periodic tick: an idle agent sleeps until its next deadline (the next ping,
            // a command's deadline, the end of an event batch), so that hundreds of agents on
            // a few CPUs leave them to the ranks.
            let wake = self.next_deadline(last_ping + PING_EVERY);
            let woke_by_timer;
            let m = tokio::select! {
                m = rx.recv() => match m {
                    Some(m) => {
                        woke_by_timer = false;
                        m
                    }
                    None => break,
                },
                _ = tokio::time::sleep_until(tokio::time::Instant::from_std(wake)) => {
                    woke_by_timer = true;
                    Msg::Tick
                }
            };
            // This agent itself may have been held up (its CPU taken, or at the root a
            // blocked write to a slow terminal): its children were then not heard because it
            // did not listen, and their silence counts from now.
            // Woken late by its own timer, it was held up for the delay: that much of its
            // children's silence does not count either.
            let turn = Instant::now();
            let late = if woke_by_timer {
                turn.saturating_duration_since(wake)
            } else {
                Duration::ZERO
            };
            if turn.duration_since(last_turn) > 2 * PING_EVERY || late > PING_EVERY / 2 {
                tracing::debug!(
                    "agent {} held up: {:?} since its last turn, woken {:?} late",
                    self.agent,
                    turn.duration_since(last_turn),
                    late
                );
            }
            if turn.duration_since(last_turn) > 3 * PING_EVERY {
                for c in self.children.values_mut() {
                    c.last_heard = turn;
                }
            } else if late > PING_EVERY / 10 {
                for c in self.children.values_mut() {
                    c.last_heard = (c.last_heard + late).min(turn);
                }
            }
            last_turn = turn;
            match m {
                Msg::Down(Down::Shutdown { detach: d }) => {
                    detach = d;
                    for c in self.children.values() {
                        let _ = c.tx.send(Down::Shutdown { detach: d });
                    }
                    break;
                }
                Msg::Down(d) => self.on_down(d),
                Msg::ParentGone(why) => {
                    tracing::info!("parent gone: {why}");
                    // Where only the parent's direction failed (a frame that did not pass its
                    // integrity check, a cut frame), the way up may still carry the reason.
                    let _ = self.up.send(Up::Lost {
                        ranks: self.subtree_ranks(),
                        reason: format!(
                            "agent {} left the tree: the connection from its parent failed ({why})",
                            self.agent
                        ),
                    });
                    for c in self.children.values() {
                        let _ = c.tx.send(Down::Shutdown { detach: false });
                    }
                    break;
                }
                Msg::ChildJoined {
                    key,
                    agent,
                    ranks,
                    agents,
                    tx,
                    throttled,
                } => {
                    let taken = self.subtree_ranks();
                    if !ranks.intersection(&taken).is_empty() || self.registered {
                        // Two agents cannot both speak for a rank, and a subtree registered
                        // above cannot grow: the newcomer's connection is closed (its sender
                        // dropped here ends the writer).
                        let text = format!(
                            "agent {agent} registered ranks [{ranks}]{}: refused",
                            if self.registered {
                                " after this agent registered its subtree".to_string()
                            } else {
                                format!(
                                    ", of which [{}] belong to others",
                                    ranks.intersection(&taken)
                                )
                            }
                        );
                        tracing::warn!("{text}");
                        let _ = self.up.send(Up::Notice { text });
                        continue;
                    }
                    self.agents_below += agents;
                    self.children.insert(
                        key,
                        Child {
                            agent,
                            ranks,
                            tx,
                            last_heard: Instant::now(),
                            throttled,
                            busy: true,
                            busy_seq: self.ping_seq,
                            busy_cmd: u64::MAX,
                        },
                    );
                    self.maybe_register();
                }
                Msg::ChildUp(key, up) => self.on_child(key, up),
                Msg::ChildGone(key, why) => self.child_gone(key, &why),
                Msg::RanksDone(v) => {
                    for d in v {
                        self.on_done_after_output(d);
                    }
                }
                Msg::RegisterNow => self.register_now(),
                Msg::Output { rank, stream, data } => {
                    let _ = self.up.send(Up::Output {
                        rank,
                        stream,
                        data: Payload::new(data),
                    });
                    // More output of an ended rank: its answer waits for the rest.
                    let mut is_held = false;
                    for (d, h) in self.held.iter_mut() {
                        if d.rank == rank {
                            h.quiet_until = Instant::now() + OUTPUT_END_WAIT;
                            is_held = true;
                        }
                    }
                    if is_held {
                        self.check_drained(rank);
                    }
                }
                Msg::OutputEnd { rank } => {
                    // Either pipe's end: the other is not waited for any more (the rank's
                    // process is gone or its reader failed).
                    self.open_pipes.remove(&rank);
                    self.release_held(|d| d.rank == rank);
                }
                Msg::Drained { rank } => self.release_held(|d| d.rank == rank),
                Msg::Tick => {}
            }
            let now = Instant::now();
            if now >= wake {
                self.check_deadlines(now);
                self.flush_events(false);
                if now.duration_since(last_ping) >= PING_EVERY {
                    last_ping = now;
                    self.ping_seq += 1;
                    let seq = self.ping_seq;
                    let mut silent = Vec::new();
                    for (k, c) in self.children.iter_mut() {
                        if c.throttled.load(std::sync::atomic::Ordering::Relaxed) {
                            c.last_heard = now;
                        }
                        let allowed = c.silence_allowed();
                        if now.duration_since(c.last_heard) > allowed {
                            silent.push((*k, allowed));
                        } else {
                            let _ = c.tx.send(Down::Ping { seq });
                        }
                    }
                    for (k, allowed) in silent {
                        self.child_gone(
                            k,
                            &format!("no answer to pings for {} seconds", allowed.as_secs()),
                        );
                    }
                }
            }
        }
        self.release_held(|_| true);
        self.flush_events(true);
        for (r, h) in &self.ranks {
            // A rank still in a command (running, or waiting in MPI) would take the shutdown
            // only when that command ends: end it. A launched rank that is to be killed is
            // killed now; one to be left running is interrupted as by Ctrl-C, whose SIGINT
            // is not passed on when it is detached (gdb's `handle SIGINT nopass`).
            // (The shutdown is queued first: the rank then knows that the end of its command
            // is the session's.)
            h.send(Job::Shutdown { detach });
            let pid = h.pid.load(std::sync::atomic::Ordering::Relaxed);
            if self.running.contains_key(r) && pid > 0 {
                let sig = if detach || self.attached.contains(*r) {
                    nix::sys::signal::Signal::SIGINT
                } else {
                    nix::sys::signal::Signal::SIGKILL
                };
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), sig);
            }
        }
        for h in self.ranks.values_mut() {
            h.join();
        }
        detach
    }

    fn on_down(&mut self, d: Down) {
        if matches!(
            d,
            Down::Command { .. } | Down::Interrupt { .. } | Down::Stdin { .. }
        ) && !self.to_start.is_empty()
        {
            self.start_ranks();
        }
        match d {
            Down::Command {
                id,
                ranks,
                line,
                timeout_ms,
                history,
            } => self.command(id, ranks, line, timeout_ms, history),
            Down::Interrupt { ranks } => {
                for (r, h) in &self.ranks {
                    let pid = h.pid.load(std::sync::atomic::Ordering::Relaxed);
                    // Only ranks that run: a SIGINT to a stopped rank would wait in the
                    // kernel, and kill it when it runs on (or is detached).
                    if ranks.contains(*r) && pid > 0 && self.running.contains_key(r) {
                        // The rank's thread is waiting for it: a signal ends the wait, and
                        // the debugger reports it as gdb reports a Ctrl-C.
                        let _ = nix::sys::signal::kill(
                            nix::unistd::Pid::from_raw(pid),
                            nix::sys::signal::Signal::SIGINT,
                        );
                    }
                }
                for c in self.children.values() {
                    if !c.ranks.intersection(&ranks).is_empty() {
                        let _ = c.tx.send(Down::Interrupt {
                            ranks: ranks.clone(),
                        });
                    }
                }
            }
            Down::Stdin { rank, data } => {
                if let Some(fd) = self.stdin.get(&rank) {
                    let _ = nix::unistd::write(fd, &data);
                } else if let Some(c) = self.children.values().find(|c| c.ranks.contains(rank)) {
                    let _ = c.tx.send(Down::Stdin { rank, data });
                }
            }
            Down::Ping { seq } => {
                let busy = !self.running.is_empty()
                    || !self.to_start.is_empty()
                    || self.pending.values().any(|p| !p.local_wait.is_empty())
                    || self.children.values().any(|c| c.busy)
                    || node_oversubscribed();
                let _ = self.up.send(Up::Pong { seq, busy });
            }
            Down::Shutdown { .. } => {}
        }
    }

    fn command(&mut self, id: u64, ranks: RankSet, line: String, timeout_ms: u32, history: u32) {
        let resuming = is_resuming(&line);
        let bt = is_backtrace(&line);
        let mut p = Pending {
            local_wait: RankSet::new(),
            child_wait: Vec::new(),
            merged: Merged::default(),
            stacks: bt.then(StackTree::default),
            bt,
            timed_out: RankSet::new(),
            lost: ranks.intersection(&self.lost),
            states: States::default(),
            values: crate::rank::is_typed(&line).then(Values::default),
            deadline: Instant::now() + Duration::from_millis(u64::from(timeout_ms.max(1))),
            resuming,
            line: line.clone(),
            history,
            hex: hex_rule(&line),
        };
        for (k, c) in self.children.iter_mut() {
            let sub = c.ranks.intersection(&ranks);
            if sub.is_empty() {
                continue;
            }
            if resuming {
                c.busy = true;
                c.busy_seq = self.ping_seq;
                c.busy_cmd = id;
            }
            if c.tx
                .send(Down::Command {
                    id,
                    ranks: sub.clone(),
                    line: line.clone(),
                    timeout_ms,
                    history,
                })
                .is_ok()
            {
                p.child_wait.push(*k);
            } else {
                p.lost = p.lost.union(&sub);
            }
        }
        let mut notify = Vec::new();
        if line == ":kill" {
            // The job is started again: a rank still in a command (running, waiting in MPI)
            // is ended now, and that command's end is not news.
            for r in ranks.intersection(&self.own).iter() {
                if let (Some(&cmd), Some(h)) = (self.running.get(&r), self.ranks.get(&r)) {
                    let pid = h.pid.load(std::sync::atomic::Ordering::Relaxed);
                    if pid > 0 {
                        self.silenced.insert(r, cmd);
                        let _ = nix::sys::signal::kill(
                            nix::unistd::Pid::from_raw(pid),
                            nix::sys::signal::Signal::SIGKILL,
                        );
                    }
                }
            }
        }
        for r in ranks.intersection(&self.own).iter() {
            if self.running.contains_key(&r) {
                if line == ":state"
                    && let Some(word) = self.busy_with.get(&r)
                {
                    // Still stopped where it was (its state as last given), working on a
                    // command that resumes nothing.
                    p.merged
                        .add(r, &format!("busy (`{word}` has not finished)\n"), "");
                    if let Some(st) = self.last_state.get(&r) {
                        p.states.set(r, st.clone());
                    }
                } else if line == ":state" {
                    let call = self
                        .ranks
                        .get(&r)
                        .and_then(|h| h.activity.lock().ok().and_then(|a| a.clone()));
                    let text = match &call {
                        Some(c) => format!("running (waiting in {c})\n"),
                        None => "running\n".to_string(),
                    };
                    p.merged.add(r, &text, "");
                    p.states.set(r, running_state(call));
                } else if resuming && !self.busy_with.contains_key(&r) {
                    // Still in its earlier step (waiting for a peer): this step's answer for it
                    // is that step's end, when it comes; it does not step again. (A rank busy
                    // with a command that resumes nothing runs this one after it, below.)
                    p.local_wait.insert(r);
                    self.adopted.insert(r, id);
                } else {
                    // Runs when the rank's step is over, if that is before the deadline.
                    p.local_wait.insert(r);
                    self.deferred.push((r, id, line.clone()));
                }
                continue;
            }
            let Some(h) = self.ranks.get(&r) else {
                continue;
            };
            if h.queue(Job::Exec {
                id,
                line: line.clone(),
                history,
            }) {
                notify.push(r);
                p.local_wait.insert(r);
                self.running.insert(r, id);
                self.note_busy(r, &line);
            } else {
                p.lost.insert(r);
            }
        }
        // One message (and at most one wake-up) per tracer thread for the whole command.
        self.pool
            .notify(notify.iter().filter_map(|r| self.ranks.get(r)));
        self.pending.insert(id, p);
        self.try_complete(id);
    }

    /// Rank `r` started `line`: busy with it when it resumes nothing.
    fn note_busy(&mut self, r: u32, line: &str) {
        if is_resuming(line) {
            self.busy_with.remove(&r);
        } else {
            self.busy_with.insert(r, first_word(line));
        }
    }

    fn on_done(&mut self, mut d: Done) {
        if self.running.get(&d.rank) == Some(&d.id) {
            self.running.remove(&d.rank);
            self.busy_with.remove(&d.rank);
        }
        self.last_state.insert(d.rank, d.state.clone());
        // A later step adopted this rank's unfinished one: its end answers that step.
        if !self
            .pending
            .get(&d.id)
            .is_some_and(|p| p.local_wait.contains(d.rank))
            && let Some(nid) = self.adopted.remove(&d.rank)
            && self
                .pending
                .get(&nid)
                .is_some_and(|p| p.local_wait.contains(d.rank))
        {
            d.id = nid;
        }
        // Commands that waited for this rank to be idle.
        if !self.running.contains_key(&d.rank)
            && let Some(i) = self.deferred.iter().position(|(r, _, _)| *r == d.rank)
        {
            let (r, id, line) = self.deferred.remove(i);
            let history = self.pending.get(&id).map_or(0, |p| p.history);
            let word = (!is_resuming(&line)).then(|| first_word(&line));
            if let Some(h) = self.ranks.get(&r)
                && h.send(Job::Exec { id, line, history })
            {
                self.running.insert(r, id);
                match word {
                    Some(w) => self.busy_with.insert(r, w),
                    None => self.busy_with.remove(&r),
                };
            }
        }
        if self.silenced.get(&d.rank) == Some(&d.id) {
            self.silenced.remove(&d.rank);
            return;
        }
        match self.pending.get_mut(&d.id) {
            Some(p) if p.local_wait.contains(d.rank) => {
                p.local_wait.remove(d.rank);
                p.merged.note_history(d.history);
                p.states.set(d.rank, d.state);
                if let (Some(vs), Some(v)) = (&mut p.values, d.value) {
                    vs.add(d.rank, v);
                }
                if d.failed {
                    p.merged.failed.insert(d.rank);
                }
                match (&mut p.stacks, frames_of(&d.out)) {
                    (Some(t), Some(frames)) if p.bt && d.err.is_empty() => {
                        if p.line == ":stacks" {
                            let short: Vec<String> =
                                frames.iter().map(|f| short_frame(f)).collect();
                            t.add(d.rank, &short);
                        } else {
                            t.add(d.rank, &frames);
                        }
                    }
                    _ => p.merged.add_as(d.rank, &d.out, &d.err, p.hex),
                }
                self.try_complete(d.id);
            }
            _ => {
                // The answer of a rank that was still running when its command was answered:
                // it goes up as an event (`[3] Breakpoint 1, …`).
                self.event_states.set(d.rank, d.state);
                self.events_since.get_or_insert_with(Instant::now);
                if !d.out.is_empty() || !d.err.is_empty() {
                    self.events.add(d.rank, &d.out, &d.err);
                    self.events.note_history(d.history);
                }
            }
        }
    }

    fn on_child(&mut self, key: u64, up: Up) {
        let Some(c) = self.children.get_mut(&key) else {
            return;
        };
        c.last_heard = Instant::now();
        // A child speaks only for its own subtree: anything naming other ranks is dropped
        // (a buggy or hostile agent must not forge output, answers or losses of others).
        let named = up.ranks();
        if !named.is_subset(&c.ranks) {
            let outside = named.difference(&c.ranks);
            let text = format!(
                "agent {} sent {} for ranks [{outside}] outside its own [{}]: dropped",
                c.agent,
                up.kind(),
                c.ranks
            );
            tracing::warn!("{text}");
            let _ = self.up.send(Up::Notice { text });
            return;
        }
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
                // Its answer to the last command that resumed ranks, with every one of them
                // stopped or ended: not busy any more (until a pong says otherwise).
                if id == c.busy_cmd
                    && timed_out.is_empty()
                    && !states.is_empty()
                    && states.groups.iter().all(|(s, _)| {
                        !matches!(
                            s,
                            RankState::Running | RankState::Waiting { .. } | RankState::NotStarted
                        )
                    })
                {
                    c.busy = false;
                }
                if let Some(p) = self.pending.get_mut(&id)
                    && let Some(i) = p.child_wait.iter().position(|k| *k == key)
                {
                    p.child_wait.swap_remove(i);
                    p.merged.merge(merged);
                    match (&mut p.stacks, stacks) {
                        (Some(t), Some(s)) => t.merge(s),
                        (None, Some(s)) => p.stacks = Some(s),
                        _ => {}
                    }
                    p.timed_out = p.timed_out.union(&timed_out);
                    p.lost = p.lost.union(&lost);
                    p.states.merge(states);
                    match (&mut p.values, values) {
                        (Some(v), Some(o)) => v.merge(*o),
                        (None, Some(o)) => p.values = Some(*o),
                        _ => {}
                    }
                    self.try_complete(id);
                } else {
                    // Too late for its command: what it says still reaches the user.
                    self.events.merge(merged);
                    self.event_states.merge(states);
                    self.events_since.get_or_insert_with(Instant::now);
                }
            }
            Up::Event { merged, states } => {
                self.events.merge(merged);
                self.event_states.merge(states);
                self.events_since.get_or_insert_with(Instant::now);
            }
            Up::Pong { seq, busy } => {
                tracing::trace!(
                    "agent {}: pong {seq} busy {busy} (after {})",
                    c.agent,
                    c.busy_seq
                );
                if seq > c.busy_seq {
                    c.busy = busy;
                }
            }
            Up::Register { .. } => {}
            other @ (Up::Output { .. } | Up::Lost { .. } | Up::Notice { .. }) => {
                if let Up::Lost { ranks, .. } = &other {
                    self.lost = self.lost.union(ranks);
                }
                let _ = self.up.send(other);
            }
        }
    }

    fn child_gone(&mut self, key: u64, why: &str) {
        let Some(c) = self.children.remove(&key) else {
            return;
        };
        tracing::warn!("agent {} lost: {why}", c.agent);
        // Ranks the child already reported lost (with its own reason) are not reported again.
        let fresh = c.ranks.difference(&self.lost);
        self.lost = self.lost.union(&c.ranks);
        if !fresh.is_empty() {
            let _ = self.up.send(Up::Lost {
                ranks: fresh,
                reason: format!("agent {} ({why})", c.agent),
            });
        }
        let ids: Vec<u64> = self.pending.keys().copied().collect();
        for id in ids {
            if let Some(p) = self.pending.get_mut(&id)
                && let Some(i) = p.child_wait.iter().position(|k| *k == key)
            {
                p.child_wait.swap_remove(i);
                p.lost = p.lost.union(&c.ranks);
                self.try_complete(id);
            }
        }
    }

    /// The earliest moment something is due: `ping`, a pending command's deadline (and its
    /// net for late children), the end of the current event batch.
    fn next_deadline(&self, ping: Instant) -> Instant {
        let mut t = ping;
        for p in self.pending.values() {
            if !p.local_wait.is_empty() {
                t = t.min(p.deadline);
            }
            if !p.child_wait.is_empty() {
                // The deadline (silent children), then the net under live ones.
                t = t.min(if Instant::now() < p.deadline {
                    p.deadline
                } else {
                    p.deadline + CHILD_GRACE
                });
            }
        }
        if let Some(since) = self.events_since {
            t = t.min(since + EVENT_BATCH);
        }
        for (_, h) in &self.held {
            t = t.min(h.quiet_until.min(h.cap));
        }
        t
    }

    /// A rank's answer: at once, unless its process has ended while its pipes are still
    /// open, in which case it waits for the rest of the output (so that `exited normally` is
    /// shown after the program's last line, as under gdb).
    fn on_done_after_output(&mut self, d: Done) {
        let ended = matches!(
            d.state,
            cohort_wire::RankState::Exited { .. } | cohort_wire::RankState::Killed { .. }
        );
        if ended && self.open_pipes.contains_key(&d.rank) {
            let now = Instant::now();
            let rank = d.rank;
            self.held.push((
                d,
                Held {
                    quiet_until: now + OUTPUT_END_WAIT,
                    cap: now + OUTPUT_END_CAP,
                },
            ));
            self.check_drained(rank);
        } else {
            self.on_done(d);
        }
    }

    /// If `rank`'s pipes hold nothing more, its held answer goes once what was read from them
    /// has gone ahead of it (a message to this node, queued behind that output).
    fn check_drained(&mut self, rank: u32) {
        let left: usize = self
            .open_pipes
            .get(&rank)
            .map_or(0, |v| v.iter().map(unread).sum());
        if left == 0 {
            let _ = self.tx.send(Msg::Drained { rank });
        }
    }

    /// Answers held for their ranks' output that `which` picks.
    fn release_held(&mut self, which: impl Fn(&Done) -> bool) {
        let mut i = 0;
        while i < self.held.len() {
            if which(&self.held[i].0) {
                let (d, _) = self.held.remove(i);
                self.on_done(d);
            } else {
                i += 1;
            }
        }
    }

    fn check_deadlines(&mut self, now: Instant) {
        if self
            .held
            .iter()
            .any(|(_, h)| now >= h.quiet_until || now >= h.cap)
        {
            // Output read and not yet passed on (a slow terminal) is output still coming.
            let budget = self.budget.clone();
            for (d, h) in self.held.iter_mut() {
                if now >= h.quiet_until && budget.own_in_use(d.rank) {
                    h.quiet_until = now + OUTPUT_END_WAIT;
                }
            }
            let due: Vec<u32> = self
                .held
                .iter()
                .filter(|(_, h)| now >= h.quiet_until || now >= h.cap)
                .map(|(d, _)| d.rank)
                .collect();
            self.release_held(|d| due.contains(&d.rank));
        }
        let due: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| now >= p.deadline && !p.local_wait.is_empty())
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            let Some(p) = self.pending.get_mut(&id) else {
                continue;
            };
            let waiting = std::mem::take(&mut p.local_wait);
            let mut never_ran = RankSet::new();
            self.deferred.retain(|(r, did, _)| {
                if *did == id {
                    never_ran.insert(*r);
                }
                *did != id
            });
            self.adopted.retain(|_, aid| *aid != id);
            for r in never_ran.iter() {
                match self.busy_with.get(&r) {
                    // Busy with a command that resumes nothing: still where it was.
                    Some(word) => {
                        let cmd = first_word(&p.line);
                        p.merged.add(
                            r,
                            "",
                            &format!("`{cmd}` not run: `{word}` has not finished\n"),
                        );
                        if let Some(st) = self.last_state.get(&r) {
                            p.states.set(r, st.clone());
                        }
                    }
                    None => p.merged.add(
                        r,
                        "",
                        "Cannot execute this command while the selected thread is running.\n",
                    ),
                }
            }
            let waiting = waiting.difference(&never_ran);
            if p.resuming {
                // Still running its step: waiting for a peer (in an MPI call) or computing.
                // Its stop comes later as an event.
                for r in waiting.iter() {
                    let call = self
                        .ranks
                        .get(&r)
                        .and_then(|h| h.activity.lock().ok().and_then(|a| a.clone()));
                    let cmd = p.line.split_whitespace().next().unwrap_or("").to_string();
                    p.states.set(r, running_state(call.clone()));
                    let text = match call {
                        Some(c) => format!("waiting in {c} (`{cmd}` completes when it returns)\n"),
                        None => format!("running (`{cmd}` has not finished)\n"),
                    };
                    p.merged.add(r, &text, "");
                }
            } else {
                p.timed_out = p.timed_out.union(&waiting);
            }
            self.try_complete(id);
        }
        // Children that do not answer in time: their ranks are reported as timed out. A child
        // that missed its pings is not waited for past the deadline (a stopped or unreachable
        // agent must not hold up the answer of the others); a live one answers at its own
        // deadline, normally first, and gets `CHILD_GRACE` more; one whose output is still
        // flowing (its answer queued behind it, under a slow terminal) is waited for while
        // it flows, up to `CHILD_FLOWING`.
        let mut late: Vec<(u64, Vec<u64>)> = Vec::new();
        for (id, p) in &self.pending {
            if now < p.deadline || p.child_wait.is_empty() {
                continue;
            }
            let over = now.duration_since(p.deadline);
            let ks: Vec<u64> = p
                .child_wait
                .iter()
                .copied()
                .filter(|k| {
                    let Some(c) = self.children.get(k) else {
                        return true;
                    };
                    let silent = now.duration_since(c.last_heard);
                    silent > CHILD_MISSED_PINGS
                        || (over >= CHILD_GRACE && silent > PING_EVERY / 2)
                        || over >= CHILD_FLOWING
                })
                .collect();
            if !ks.is_empty() {
                late.push((*id, ks));
            }
        }
        for (id, ks) in late {
            let Some(p) = self.pending.get_mut(&id) else {
                continue;
            };
            p.child_wait.retain(|k| !ks.contains(k));
            for k in ks {
                if let Some(c) = self.children.get(&k) {
                    p.timed_out = p.timed_out.union(&c.ranks);
                }
            }
            self.try_complete(id);
        }
    }

    fn try_complete(&mut self, id: u64) {
        let done = self
            .pending
            .get(&id)
            .is_some_and(|p| p.local_wait.is_empty() && p.child_wait.is_empty());
        if !done {
            return;
        }
        let Some(p) = self.pending.remove(&id) else {
            return;
        };
        // Events that came before this answer go first, in order.
        self.flush_events(true);
        let _ = self.up.send(Up::Reply {
            id,
            merged: p.merged,
            stacks: p.stacks.filter(|t| !t.children.is_empty()),
            timed_out: p.timed_out,
            lost: p.lost,
            states: p.states,
            values: p.values.map(Box::new),
        });
    }

    fn flush_events(&mut self, now: bool) {
        let Some(since) = self.events_since else {
            return;
        };
        if now || since.elapsed() >= EVENT_BATCH {
            self.events_since = None;
            let merged = std::mem::take(&mut self.events);
            let states = std::mem::take(&mut self.event_states);
            if !merged.is_empty() || !states.is_empty() {
                let _ = self.up.send(Up::Event { merged, states });
            }
        }
    }
}

/// Reads one of a rank's pipes. Each read first takes room from the rank's share of the
/// output budget (once the pipe has something to read, so that idle ranks take nothing), and
/// waits while there is none: the rank then blocks in `write`.
fn spawn_reader(
    rank: u32,
    stream: Stream,
    fd: OwnedFd,
    tx: UnboundedSender<Msg>,
    budget: &Arc<Budget>,
) {
    let budget = budget.clone();
    tokio::spawn(async move {
        let Ok(rx) = tokio::net::unix::pipe::Receiver::from_owned_fd(fd) else {
            let _ = tx.send(Msg::OutputEnd { rank });
            return;
        };
        let chunk = budget.rank_total().min(16 * 1024);
        let mut buf = vec![0u8; chunk as usize];
        loop {
            if rx.readable().await.is_err() {
                break;
            }
            let room = budget.take_own(rank, chunk).await;
            let n = match rx.try_read(buf.get_mut(..room as usize).unwrap_or_default()) {
                Ok(0) => {
                    budget.give_back_own(rank, room);
                    break;
                }
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    budget.give_back_own(rank, room);
                    continue;
                }
                Err(_) => {
                    budget.give_back_own(rank, room);
                    break;
                }
            };
            budget.give_back_own(rank, room - n as u32);
            let data = buf.get(..n).unwrap_or_default().to_vec();
            if tx.send(Msg::Output { rank, stream, data }).is_err() {
                break;
            }
        }
        let _ = tx.send(Msg::OutputEnd { rank });
    });
}

/// Accept children on `listener`: handshake, registration, then a reader task feeding the
/// node and a writer task fed by it. A peer that fails the handshake is dropped and logged;
/// the others go on.
pub fn serve_children(
    listener: tokio::net::TcpListener,
    secret: Secret,
    node: UnboundedSender<Msg>,
    budget: Arc<Budget>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut key = 0u64;
        let secret = std::sync::Arc::new(secret);
        loop {
            let Ok((sock, peer)) = listener.accept().await else {
                continue;
            };
            key += 1;
            let (node, secret, budget) = (node.clone(), secret.clone(), budget.clone());
            tokio::spawn(async move {
                if let Err(e) = child_connection(key, sock, peer, &secret, node, budget).await {
                    tracing::warn!("connection from {peer} closed: {e}");
                }
            });
        }
    })
}

async fn child_connection(
    key: u64,
    sock: tokio::net::TcpStream,
    peer: SocketAddr,
    secret: &Secret,
    node: UnboundedSender<Msg>,
    budget: Arc<Budget>,
) -> Result<(), cohort_wire::WireError> {
    let _ = sock.set_nodelay(true);
    keepalive(&sock);
    let (mut conn, _v) = cohort_wire::handshake_parent(sock, secret).await?;
    let first: Option<Up> = tokio::time::timeout(Duration::from_secs(30), conn.recv())
        .await
        .map_err(|_| cohort_wire::WireError::Timeout("registration"))??;
    let Some(Up::Register {
        agent,
        ranks,
        agents,
        ..
    }) = first
    else {
        return Err(cohort_wire::WireError::Decode(format!(
            "{peer}: first message is not a registration"
        )));
    };
    let (mut rd, mut wr) = conn.split();
    let (tx, mut rx) = unbounded_channel::<Down>();
    let throttled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _ = node.send(Msg::ChildJoined {
        key,
        agent,
        ranks,
        agents,
        tx,
        throttled: throttled.clone(),
    });
    let writer = tokio::spawn(async move {
        while let Some(d) = rx.recv().await {
            let stop = matches!(d, Down::Shutdown { .. });
            if wr.send(&d).await.is_err() || stop {
                break;
            }
        }
        let _ = wr.close().await;
    });
    let why = loop {
        match rd.recv::<Up>().await {
            Ok(Some(up)) => {
                // Output waits for room in this agent's budget; meanwhile nothing more is
                // read from this child, whose own budget then fills.
                throttled.store(true, std::sync::atomic::Ordering::Relaxed);
                budget.take_forwarded(&up).await;
                throttled.store(false, std::sync::atomic::Ordering::Relaxed);
                if node.send(Msg::ChildUp(key, up)).is_err() {
                    break "agent ending".to_string();
                }
            }
            Ok(None) => break "connection closed".to_string(),
            Err(e) => break e.to_string(),
        }
    };
    let _ = node.send(Msg::ChildGone(key, why));
    writer.abort();
    Ok(())
}

/// Connect to the parent (retrying while it starts), handshake, and pump: `Up` messages from
/// the node to the parent, `Down` messages from the parent to the node. Returns the writer's
/// task, which ends when the node's sender is dropped and what it sent is written.
pub async fn connect_parent(
    addr: SocketAddr,
    secret: &Secret,
    node: UnboundedSender<Msg>,
    mut up_rx: UnboundedReceiver<Up>,
    patience: Duration,
    budget: Arc<Budget>,
) -> Result<tokio::task::JoinHandle<()>, cohort_wire::WireError> {
    let start = Instant::now();
    let sock = loop {
        match tokio::net::TcpStream::connect(addr).await {
            Ok(s) => break s,
            Err(e) if start.elapsed() < patience => {
                tracing::debug!("parent {addr} not there yet: {e}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => return Err(cohort_wire::WireError::Io(e)),
        }
    };
    let _ = sock.set_nodelay(true);
    keepalive(&sock);
    let (conn, _v) = cohort_wire::handshake_child(sock, secret).await?;
    let (mut rd, mut wr) = conn.split();
    let writer = tokio::spawn(async move {
        while let Some(u) = up_rx.recv().await {
            if wr.send(&u).await.is_err() {
                break;
            }
            budget.release(&u);
        }
        let _ = wr.close().await;
    });
    let n2 = node.clone();
    tokio::spawn(async move {
        let why = loop {
            match rd.recv::<Down>().await {
                Ok(Some(d)) => {
                    if n2.send(Msg::Down(d)).is_err() {
                        break "agent ending".to_string();
                    }
                }
                Ok(None) => break "connection closed".to_string(),
                Err(e) => break e.to_string(),
            }
        };
        let _ = n2.send(Msg::ParentGone(why));
    });
    // The writer ends once the node has dropped its sender (at its end), after what it sent.
    Ok(writer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_of_a_plain_backtrace() {
        let out = "#0  compute (rank=1, step=0) at ranks.c:10\n#1  0x0000555555555212 in main () at ranks.c:24\n";
        assert_eq!(
            frames_of(out),
            Some(vec![
                "compute (rank=1, step=0) at ranks.c:10".to_string(),
                "0x0000555555555212 in main () at ranks.c:24".to_string()
            ])
        );
        // Anything else in the text: merged as text, not as frames.
        assert_eq!(
            frames_of("#0  main () at a.c:1\n(More stack frames follow...)\n"),
            None
        );
        assert_eq!(frames_of("#1  main () at a.c:1\n"), None);
        assert_eq!(frames_of(""), None);
    }

    #[test]
    fn short_frames_drop_arguments_and_addresses() {
        assert_eq!(
            short_frame("compute (rank=1, step=0) at ranks.c:10"),
            "compute at ranks.c:10"
        );
        assert_eq!(
            short_frame("0x0000555555555212 in main () at ranks.c:24"),
            "main at ranks.c:24"
        );
        assert_eq!(
            short_frame("0x00007ffff7e2d2ad in __GI___libc_read (fd=0) at ../sysdeps/read.c:26"),
            "__GI___libc_read at ../sysdeps/read.c:26"
        );
        assert_eq!(
            short_frame("0x00007ffff7e2d2ad in poll () from /lib/libc.so.6"),
            "poll from /lib/libc.so.6"
        );
        assert_eq!(
            short_frame("<signal handler called>"),
            "<signal handler called>"
        );
    }

    #[test]
    fn which_commands_run_the_program() {
        for l in [
            "next",
            "n 3",
            "step",
            "continue",
            "c",
            "finish",
            "until",
            "advance 30",
            "stepi",
            "run",
            ":start",
        ] {
            assert!(is_resuming(l), "{l}");
        }
        for l in [
            "print x",
            "bt",
            "info ranks",
            "break main",
            ":state",
            "x/4x $sp",
            "",
        ] {
            assert!(!is_resuming(l), "{l}");
        }
        assert!(is_backtrace("bt") && is_backtrace("where") && !is_backtrace("bt full"));
    }

    #[test]
    fn values_in_natural_format_have_every_hex_number_an_address() {
        for l in [
            "print c",
            "p *c",
            "print -pretty -- *c",
            "call f(1)",
            "output c",
            ":compare c",
            "info locals",
            "i args",
            "bt full",
            "backtrace -full 3",
        ] {
            assert_eq!(hex_rule(l), Hex::Pointers, "{l}");
        }
        for l in [
            "print/x c",
            "p /x c",
            "output/z c",
            "print/a c",
            "x/4xg $sp",
            "info registers",
            "info frame",
            "bt",
            "info breakpoints",
            "printf \"%p\\n\", c",
            "",
        ] {
            assert_eq!(hex_rule(l), Hex::Places, "{l}");
        }
    }
}
