//! The agent's tracer threads. ptrace ties a tracee to the thread that attached it, so each
//! rank belongs to one tracer thread for its whole life; a node's ranks are spread over a few
//! such threads (`--tracers`; by default one per CPU, more when a thread would have over
//! [`RANKS_PER_THREAD`] ranks), and on its thread every rank runs as a
//! coroutine (a stackful generator: the `generator` crate) with its own [`Debugger`].
//!
//! A rank's command runs until it must wait for its process (a step, a continue): the
//! engine's wait goes through this thread's wait hook ([`cohort_engine::mux`]), which
//! suspends the coroutine; the thread runs the other ranks, and when none has anything to do
//! it sleeps in `waitpid(-1)`, the stops of all its tracees in one queue. Each stop goes to
//! the rank whose process it belongs to (by thread id, or the thread group in `/proc`), and
//! that rank resumes. A rank in `MPI_Recv` whose sender has not sent holds nothing but its
//! suspended coroutine.
//!
//! Commands reach a thread through a channel; a thread asleep in `waitpid` is woken by its
//! *doorbell*, a tiny child process it traces: a signal to it is a stop in the same wait queue,
//! so a command sent just as the thread goes to sleep is never missed (docs/ARCHITECTURE.md).
//!
//! [`Debugger`]: cohort_debugger::Debugger

use std::cell::RefCell;
use std::collections::VecDeque;

// A thread's tables are looked up several times per rank and step by small keys (slots, pids):
// FxHash rather than SipHash.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;

use cohort_debugger::output::{self, Captured};
use cohort_engine::mux::{self, wait_flags};
use cohort_engine::sigwait::{self, WaitStatus, waitpid};
use generator::{Generator, Gn};
use nix::errno::Errno;
use nix::sys::wait::WaitPidFlag;
use nix::unistd::Pid;

use crate::rank::{self, Done, Init, Job};

/// Above this many ranks per tracer thread, the default adds threads (see [`Pool::threads_for`]).
pub const RANKS_PER_THREAD: usize = 128;

/// A coroutine's stack (bytes; mapped lazily, as a thread's is).
const STACK_BYTES: usize = 8 << 20;

/// Why a rank's coroutine gave its thread back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Suspend {
    /// No command to run: resume it when one comes.
    Idle,
    /// Waiting for a stop of its process.
    Tracee,
    /// Waiting for a permit to start its program.
    StartSlot,
    /// The rank has ended.
    Done,
}

/// Give the thread to the other ranks (from inside a rank's coroutine).
pub(crate) fn suspend(why: Suspend) {
    // The one place a coroutine yields: deep inside the engine's wait, where no handle on the
    // generator's scope exists; the crate keeps the free function for exactly this use.
    #[allow(deprecated)]
    generator::yield_with(why);
}

/// Whether this code runs inside a rank's coroutine.
pub(crate) fn in_coroutine() -> bool {
    generator::is_generator()
}

/// Whether tracer threads are kept on their own CPUs unless told otherwise: yes, unless
/// `COHORT_PIN_TRACERS=0`.
fn pin_by_default() -> bool {
    std::env::var("COHORT_PIN_TRACERS").map_or(true, |v| v != "0")
}

/// The agent's tracer threads.
pub struct Pool {
    lanes: Vec<Lane>,
    /// Keep each tracer thread on its own CPU ([`cohort_engine::affinity`]).
    pin: bool,
    sink: Sink,
    wanted: usize,
    /// The number of threads was given (`--tracers`): [`Pool::plan`] keeps it.
    fixed: bool,
    next_lane: usize,
    next_slot: usize,
}

/// Where the ranks' answers go: a thread hands over what its ranks answered in one round
/// together (one wake-up of the agent's event loop, not one per rank).
pub type Sink = Arc<dyn Fn(Vec<Done>) + Send + Sync>;

/// One tracer thread, as the rest of the agent sees it.
struct Lane {
    intake: mpsc::Sender<Intake>,
    shared: Arc<LaneShared>,
    join: Option<JoinHandle<()>>,
}

/// `LaneShared::sleeping` of a thread that is not asleep in `waitpid`.
const AWAKE: u64 = u64::MAX;

/// What a tracer thread and the agent share.
struct LaneShared {
    /// [`AWAKE`], or the thread is (about to be) asleep in `waitpid` having taken this many
    /// messages: a message sent after those must ring its doorbell to wake it.
    sleeping: AtomicU64,
    /// Messages sent to the thread (the lock keeps their numbers in the channel's order).
    sent: Mutex<u64>,
    /// The doorbell's pid (0 while there is none).
    bell: AtomicI32,
}

impl LaneShared {
    /// Send a message to the thread (without waking it from `waitpid`: see [`Self::ring`]).
    fn post(&self, intake: &mpsc::Sender<Intake>, m: Intake) -> bool {
        let mut sent = self.sent.lock().unwrap_or_else(|e| e.into_inner());
        let ok = intake.send(m).is_ok();
        if ok {
            *sent += 1;
        }
        ok
    }

    /// Wake the thread if it sleeps in `waitpid` with messages it has not taken. A thread
    /// that took them all before it went to sleep (it was quicker than the sender) is left
    /// alone: ringing it would cost a round trip through the doorbell for nothing.
    fn ring(&self) {
        std::sync::atomic::fence(Ordering::SeqCst);
        let sent = *self.sent.lock().unwrap_or_else(|e| e.into_inner());
        let s = self.sleeping.load(Ordering::SeqCst);
        if s != AWAKE
            && s < sent
            && self
                .sleeping
                .compare_exchange(s, AWAKE, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        {
            let pid = self.bell.load(Ordering::SeqCst);
            if pid > 0 {
                let _ = nix::sys::signal::kill(Pid::from_raw(pid), nix::sys::signal::SIGURG);
            }
        }
    }
}

enum Intake {
    Rank(Box<NewRank>),
    /// A command was queued for the rank in this slot.
    Ready(usize),
    /// Commands were queued for the ranks in these slots (one message for a command to many).
    ReadyMany(Vec<usize>),
}

struct NewRank {
    slot: usize,
    rank: u32,
    init: Init,
    jobs: mpsc::Receiver<Job>,
    pid: Arc<AtomicI32>,
    activity: Arc<Mutex<Option<String>>>,
    ended: mpsc::Sender<()>,
}

/// The agent's handle on a rank.
pub struct RankHandle {
    pub rank: u32,
    slot: usize,
    jobs: mpsc::Sender<Job>,
    intake: mpsc::Sender<Intake>,
    lane: Arc<LaneShared>,
    /// The rank's process id once it has one (0 before).
    pub pid: Arc<AtomicI32>,
    /// The MPI call a step is running through, if any (set by the rank's debugger).
    pub activity: Arc<Mutex<Option<String>>>,
    ended: Option<mpsc::Receiver<()>>,
}

impl RankHandle {
    /// Queue a job; false if the rank has ended.
    pub fn send(&self, job: Job) -> bool {
        if !self.queue(job) {
            return false;
        }
        self.lane.post(&self.intake, Intake::Ready(self.slot));
        self.lane.ring();
        true
    }

    /// Queue a job without telling its thread: for a command to many ranks, followed by one
    /// [`Pool::notify`] for all of them (one message and at most one wake-up per thread).
    pub fn queue(&self, job: Job) -> bool {
        self.jobs.send(job).is_ok()
    }

    /// Wait for the rank to end (after a `Shutdown`).
    pub fn join(&mut self) {
        if let Some(r) = self.ended.take() {
            let _ = r.recv();
        }
    }
}

impl Drop for RankHandle {
    fn drop(&mut self) {
        // Without its handle the rank has no more commands: it ends (kills or detaches).
        let (tx, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.jobs, tx));
        self.lane.post(&self.intake, Intake::Ready(self.slot));
        self.lane.ring();
    }
}

impl Pool {
    /// A pool of tracer threads, started as ranks come: `threads` of them (at least one), or
    /// with `None` as many as [`Pool::plan`] finds; the ranks' answers go to `sink`.
    pub fn new(threads: Option<usize>, sink: Sink) -> Pool {
        Pool {
            lanes: Vec::new(),
            pin: pin_by_default(),
            sink,
            fixed: threads.is_some(),
            wanted: threads.unwrap_or_else(Pool::default_threads).max(1),
            next_lane: 0,
            next_slot: 0,
        }
    }

    /// The default number of tracer threads: one per CPU.
    pub fn default_threads() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    }

    /// The default for a node of `ranks` ranks: one thread per CPU, and more when each would
    /// have over [`RANKS_PER_THREAD`] ranks — the kernel looks through all of a thread's
    /// tracees on every `waitpid(-1)`, so a thread with very many pays for each stop in
    /// proportion (docs/BENCHMARKS.md).
    pub fn threads_for(ranks: usize) -> usize {
        Pool::default_threads().max(ranks.div_ceil(RANKS_PER_THREAD))
    }

    /// Plan for `ranks` more ranks: unless the number of threads was given, use
    /// [`Pool::threads_for`]. Call before spawning them.
    pub fn plan(&mut self, ranks: usize) {
        if !self.fixed && self.lanes.is_empty() {
            self.wanted = Pool::threads_for(ranks);
        }
    }

    /// Start a rank on the next tracer thread.
    pub fn spawn(&mut self, rank: u32, init: Init) -> std::io::Result<RankHandle> {
        if self.lanes.len() < self.wanted && self.next_lane >= self.lanes.len() {
            let i = self.lanes.len();
            let lanes = self.wanted;
            self.lanes
                .push(Lane::start(i, lanes, self.pin, self.sink.clone())?);
        }
        let i = self.next_lane % self.lanes.len();
        self.next_lane = (i + 1) % self.wanted;
        let lane = &self.lanes[i];
        let slot = self.next_slot;
        self.next_slot += 1;
        let (jobs_tx, jobs_rx) = mpsc::channel();
        let (ended_tx, ended_rx) = mpsc::channel();
        let pid = Arc::new(AtomicI32::new(0));
        let activity = Arc::new(Mutex::new(None));
        let new = NewRank {
            slot,
            rank,
            init,
            jobs: jobs_rx,
            pid: pid.clone(),
            activity: activity.clone(),
            ended: ended_tx,
        };
        if !lane.shared.post(&lane.intake, Intake::Rank(Box::new(new))) {
            return Err(std::io::Error::other("the tracer thread has stopped"));
        }
        lane.shared.ring();
        Ok(RankHandle {
            rank,
            slot,
            jobs: jobs_tx,
            intake: lane.intake.clone(),
            lane: lane.shared.clone(),
            pid,
            activity,
            ended: Some(ended_rx),
        })
    }

    /// Tell the tracer threads of `ranks` that jobs were queued for them
    /// ([`RankHandle::queue`]): one message per thread.
    pub fn notify<'a>(&self, ranks: impl IntoIterator<Item = &'a RankHandle>) {
        let mut per_lane: Vec<(&'a RankHandle, Vec<usize>)> = Vec::new();
        for h in ranks {
            match per_lane
                .iter_mut()
                .find(|(first, _)| Arc::ptr_eq(&first.lane, &h.lane))
            {
                Some((_, slots)) => slots.push(h.slot),
                None => per_lane.push((h, vec![h.slot])),
            }
        }
        for (h, slots) in per_lane {
            h.lane.post(&h.intake, Intake::ReadyMany(slots));
            h.lane.ring();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for l in &mut self.lanes {
            let (tx, _) = mpsc::channel();
            drop(std::mem::replace(&mut l.intake, tx));
            // The closed channel is news the count does not show: count it.
            *l.shared.sent.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            l.shared.ring();
        }
        for l in &mut self.lanes {
            if let Some(j) = l.join.take() {
                let _ = j.join();
            }
        }
    }
}

impl Lane {
    fn start(index: usize, lanes: usize, pin: bool, sink: Sink) -> std::io::Result<Lane> {
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(LaneShared {
            sleeping: AtomicU64::new(AWAKE),
            sent: Mutex::new(0),
            bell: AtomicI32::new(0),
        });
        let s2 = shared.clone();
        // At most as many ranks start at once as the node has CPUs: forking from an agent
        // with many ranks is mostly copying its page tables, and a thousand at once starve
        // everything else on the node.
        let cpus = Pool::default_threads().max(2);
        let start_limit = cpus.div_ceil(lanes).max(1);
        let join = std::thread::Builder::new()
            .name(format!("tracer-{index}"))
            .spawn(move || {
                if pin && let Err(e) = cohort_engine::affinity::pin_thread(index) {
                    tracing::debug!("tracer thread {index} left free to move between CPUs: {e}");
                }
                run_lane(rx, s2, start_limit, sink)
            })?;
        Ok(Lane {
            intake: tx,
            shared,
            join: Some(join),
        })
    }
}

// ------------------------------------------------------------------ the tracer thread

/// What the thread's scheduler and the wait hook share (both run on the thread).
#[derive(Default)]
struct Sched {
    /// The slot of the coroutine running now.
    current: Option<usize>,
    /// Stops that came for each rank and that it has not taken yet.
    inbox: HashMap<usize, VecDeque<nix::Result<WaitStatus>>>,
    /// Process id → slot (learnt from the rank's own waits).
    pid_owner: HashMap<i32, usize>,
    /// Thread id → slot.
    tid_owner: HashMap<i32, usize>,
    /// Ranks suspended until a stop of their process comes.
    waiting: HashSet<usize>,
    /// Ranks to resume.
    ready: VecDeque<usize>,
    /// Start permits in use, their limit, and the ranks waiting for one.
    starting: usize,
    start_limit: usize,
    start_waiters: VecDeque<usize>,
    /// The doorbell's pid.
    bell: i32,
    /// Answers of this round, not handed over yet.
    outbox: Vec<Done>,
}

thread_local! {
    static SCHED: RefCell<Sched> = RefCell::new(Sched::default());
}

/// The thread group of a thread, from `/proc`.
fn thread_group(tid: i32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Put one wait status where it belongs: the doorbell's is answered here; a rank's goes to
/// its inbox (and the rank is resumed if it waits for it).
fn dispatch(st: WaitStatus) {
    let tid = match st {
        WaitStatus::Exited(p, _)
        | WaitStatus::Signaled(p, _, _)
        | WaitStatus::Stopped(p, _)
        | WaitStatus::PtraceEvent(p, _, _)
        | WaitStatus::PtraceSyscall(p)
        | WaitStatus::Continued(p) => p.as_raw(),
        WaitStatus::StillAlive => return,
    };
    SCHED.with(|s| {
        let mut s = s.borrow_mut();
        if tid == s.bell && tid > 0 {
            match st {
                WaitStatus::Exited(..) | WaitStatus::Signaled(..) => {
                    tracing::warn!("the tracer thread's doorbell (pid {tid}) has gone");
                    s.bell = 0;
                }
                _ => {
                    let _ = sigwait::cont(Pid::from_raw(tid), None);
                }
            }
            return;
        }
        let owner = match s.tid_owner.get(&tid).or_else(|| s.pid_owner.get(&tid)) {
            Some(o) => Some(*o),
            None => thread_group(tid).and_then(|g| s.pid_owner.get(&g).copied()),
        };
        let Some(slot) = owner else {
            if matches!(st, WaitStatus::PtraceEvent(_, _, e) if e == libc::PTRACE_EVENT_STOP) {
                // The first stop of a rank's fork child: the engine lets it go (detached
                // without the breakpoints) on its parent's fork event, waited for or not.
                tracing::debug!(?st, "first stop of a fork child");
            } else {
                tracing::warn!(
                    ?st,
                    "a wait status for a thread of no rank on this tracer thread"
                );
            }
            return;
        };
        if matches!(st, WaitStatus::Exited(..) | WaitStatus::Signaled(..)) {
            s.tid_owner.remove(&tid);
        } else {
            s.tid_owner.insert(tid, slot);
        }
        s.inbox.entry(slot).or_default().push_back(Ok(st));
        if s.waiting.remove(&slot) {
            s.ready.push_back(slot);
        }
    });
}

/// Whether a wait status came for the running rank's process that the rank has not taken
/// (while it is stopped and idle: it died).
pub(crate) fn process_news() -> bool {
    SCHED.with(|s| {
        let s = s.borrow();
        s.current
            .and_then(|c| s.inbox.get(&c))
            .is_some_and(|q| !q.is_empty())
    })
}

/// Take every stop the kernel has for this thread without sleeping. Returns how many.
fn drain() -> usize {
    let mut n = 0;
    loop {
        match waitpid(Pid::from_raw(-1), Some(wait_flags() | WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) | Err(_) => return n,
            Ok(st) => {
                dispatch(st);
                n += 1;
            }
        }
    }
}

/// The engine's waits on a tracer thread (installed with [`mux::set_wait_hook`]).
fn wait_hook(process: Pid, nohang: bool) -> nix::Result<WaitStatus> {
    loop {
        let (cur, got) = SCHED.with(|s| {
            let mut s = s.borrow_mut();
            let Some(cur) = s.current else {
                return (None, None);
            };
            s.pid_owner.insert(process.as_raw(), cur);
            let got = s.inbox.get_mut(&cur).and_then(VecDeque::pop_front);
            (Some(cur), got)
        });
        if let Some(r) = got {
            return r;
        }
        let Some(cur) = cur else {
            // Not a rank's wait (nothing in the agent waits outside its ranks).
            return waitpid(Pid::from_raw(-1), Some(wait_flags()));
        };
        if nohang {
            if drain() == 0 {
                return Ok(WaitStatus::StillAlive);
            }
            continue;
        }
        if !in_coroutine() || std::thread::panicking() {
            // Unwinding a rank (a bug): wait here, without giving the thread away.
            match waitpid(Pid::from_raw(-1), Some(wait_flags())) {
                Ok(st) => dispatch(st),
                Err(Errno::EINTR) => {}
                Err(e) => return Err(e),
            }
            continue;
        }
        SCHED.with(|s| s.borrow_mut().waiting.insert(cur));
        suspend(Suspend::Tracee);
    }
}

/// A permit to start a rank's program (see [`Lane::start`]).
pub(crate) struct StartPermit;

impl StartPermit {
    /// Wait (suspended) for a permit.
    pub(crate) fn take() -> StartPermit {
        loop {
            let got = SCHED.with(|s| {
                let mut s = s.borrow_mut();
                if s.starting < s.start_limit.max(1) {
                    s.starting += 1;
                    true
                } else {
                    if let Some(cur) = s.current {
                        s.start_waiters.push_back(cur);
                    }
                    false
                }
            });
            if got || !in_coroutine() {
                return StartPermit;
            }
            suspend(Suspend::StartSlot);
        }
    }
}

impl Drop for StartPermit {
    fn drop(&mut self) {
        SCHED.with(|s| {
            let mut s = s.borrow_mut();
            s.starting = s.starting.saturating_sub(1);
            if let Some(w) = s.start_waiters.pop_front() {
                s.ready.push_back(w);
            }
        });
    }
}

/// The doorbell: a child that does nothing but wait for signals, traced by this thread. A
/// signal to it (SIGURG, ignored if it were ever delivered) is a stop in this thread's wait
/// queue, which wakes a `waitpid(-1)` without any race with the check made before sleeping.
fn new_doorbell() -> Option<i32> {
    // SAFETY: fork(2); the child makes only system calls (close_range, sigprocmask, prctl,
    // getppid, pause, _exit) until it dies with this thread.
    match unsafe { nix::unistd::fork() } {
        Ok(nix::unistd::ForkResult::Child) => {
            // SAFETY: plain system calls on no memory but a local signal set; the child only
            // waits. It keeps none of the agent's descriptors (a rank's output pipe held open
            // here would never reach its end), and blocks no signal (a blocked one would not
            // stop it).
            unsafe {
                libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32);
                let mut none: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut none);
                libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() == 1 {
                    libc::_exit(0);
                }
                loop {
                    libc::pause();
                }
            }
        }
        Ok(nix::unistd::ForkResult::Parent { child }) => {
            let opts = nix::sys::ptrace::Options::PTRACE_O_EXITKILL;
            if let Err(e) = nix::sys::ptrace::seize(child, opts) {
                tracing::error!("cannot trace the tracer thread's doorbell: {e}");
                let _ = nix::sys::signal::kill(child, nix::sys::signal::SIGKILL);
                let _ = waitpid(child, None);
                return None;
            }
            Some(child.as_raw())
        }
        Err(e) => {
            tracing::error!("cannot start the tracer thread's doorbell: {e}");
            None
        }
    }
}

struct Coro {
    rank: u32,
    body: Generator<'static, (), Suspend>,
    capture: Option<Captured>,
    idle: bool,
    /// Dropped with the coroutine: the rank's handle learns that it has ended.
    _ended: mpsc::Sender<()>,
}

/// A rank's answer, handed over with the others of this round.
pub(crate) fn answer(d: Done) {
    SCHED.with(|s| s.borrow_mut().outbox.push(d));
}

fn flush(sink: &Sink) {
    let out = SCHED.with(|s| std::mem::take(&mut s.borrow_mut().outbox));
    if !out.is_empty() {
        sink(out);
    }
}

fn run_lane(
    intake: mpsc::Receiver<Intake>,
    shared: Arc<LaneShared>,
    start_limit: usize,
    sink: Sink,
) {
    let bell = new_doorbell().unwrap_or(0);
    shared.bell.store(bell, Ordering::SeqCst);
    SCHED.with(|s| {
        let mut s = s.borrow_mut();
        s.bell = bell;
        s.start_limit = start_limit;
    });
    mux::set_wait_hook(Some(std::rc::Rc::new(wait_hook)));
    let mut coros: HashMap<usize, Coro> = HashMap::default();
    let mut closed = false;
    // Messages taken from `intake` (see `LaneShared::sleeping`).
    let mut taken: u64 = 0;
    // `taken` when the queue of wait statuses was last looked at.
    let mut drained_at: u64 = 0;
    loop {
        // Take what came: new ranks, and commands for idle ones.
        loop {
            match intake.try_recv() {
                Ok(m) => {
                    taken += 1;
                    take(m, &mut coros);
                }
                Err(mpsc::TryRecvError::Empty) => break,
                Err(mpsc::TryRecvError::Disconnected) => {
                    closed = true;
                    break;
                }
            }
        }
        if taken != drained_at {
            // A stopped rank's process killed meanwhile has left its end in the queue: the
            // rank finds it before its command runs (`process_news`). One request per round.
            drained_at = taken;
            drain();
        }
        if closed && coros.is_empty() {
            break;
        }
        // Run every rank that can run.
        while let Some(slot) = SCHED.with(|s| s.borrow_mut().ready.pop_front()) {
            resume(slot, &mut coros);
        }
        if SCHED.with(|s| !s.borrow().ready.is_empty()) {
            continue;
        }
        flush(&sink);
        let waiting = SCHED.with(|s| !s.borrow().waiting.is_empty());
        if waiting {
            if drain() > 0 {
                continue;
            }
            if bell == 0 || SCHED.with(|s| s.borrow().bell) == 0 {
                // No doorbell: poll (it could not be created; the log says why).
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            }
            shared.sleeping.store(taken, Ordering::SeqCst);
            std::sync::atomic::fence(Ordering::SeqCst);
            match intake.try_recv() {
                Ok(m) => {
                    shared.sleeping.store(AWAKE, Ordering::SeqCst);
                    taken += 1;
                    take(m, &mut coros);
                    continue;
                }
                Err(mpsc::TryRecvError::Disconnected) if !closed => {
                    shared.sleeping.store(AWAKE, Ordering::SeqCst);
                    closed = true;
                    continue;
                }
                Err(_) => {}
            }
            let st = waitpid(Pid::from_raw(-1), Some(wait_flags()));
            shared.sleeping.store(AWAKE, Ordering::SeqCst);
            match st {
                Ok(st) => dispatch(st),
                Err(Errno::EINTR) => {}
                Err(e) => {
                    // Nothing left to wait for: the waiting ranks' processes are gone.
                    tracing::warn!("tracer thread: waitpid: {e}");
                    SCHED.with(|s| {
                        let mut s = s.borrow_mut();
                        let w: Vec<usize> = s.waiting.drain().collect();
                        for slot in w {
                            s.inbox.entry(slot).or_default().push_back(Err(e));
                            s.ready.push_back(slot);
                        }
                    });
                }
            }
        } else if closed {
            // No more commands can come: ranks still here end once resumed (their job
            // channels are closed with their handles).
            let idle: Vec<usize> = coros.keys().copied().collect();
            SCHED.with(|s| s.borrow_mut().ready.extend(idle));
            // (Ranks whose handles are still held answer `Idle` again: do not spin on them.)
            std::thread::sleep(std::time::Duration::from_millis(1));
        } else {
            match intake.recv() {
                Ok(m) => {
                    taken += 1;
                    take(m, &mut coros);
                }
                Err(_) => closed = true,
            }
        }
    }
    flush(&sink);
    mux::set_wait_hook(None);
    if bell > 0 {
        let _ = nix::sys::signal::kill(Pid::from_raw(bell), nix::sys::signal::SIGKILL);
        let _ = waitpid(Pid::from_raw(bell), Some(WaitPidFlag::__WALL));
    }
}

fn take(m: Intake, coros: &mut HashMap<usize, Coro>) {
    match m {
        Intake::Rank(n) => {
            let NewRank {
                slot,
                rank,
                init,
                jobs,
                pid,
                activity,
                ended,
            } = *n;
            let body = Gn::<()>::new_opt(STACK_BYTES / std::mem::size_of::<usize>(), move || {
                let run = std::panic::AssertUnwindSafe(|| {
                    rank::worker(rank, init, jobs, pid, activity, answer);
                });
                if std::panic::catch_unwind(run).is_err() {
                    tracing::error!("rank {rank}: its debugger panicked; the rank is lost");
                }
                Suspend::Done
            });
            coros.insert(
                slot,
                Coro {
                    rank,
                    body,
                    capture: Some(Captured::default()),
                    idle: false,
                    _ended: ended,
                },
            );
            SCHED.with(|s| s.borrow_mut().ready.push_back(slot));
        }
        Intake::Ready(slot) => ready(slot, coros),
        Intake::ReadyMany(slots) => {
            for slot in slots {
                ready(slot, coros);
            }
        }
    }
}

/// A command came for the rank in `slot`: resume it if it is idle (a busy one takes it when
/// its current command ends).
fn ready(slot: usize, coros: &mut HashMap<usize, Coro>) {
    if let Some(c) = coros.get_mut(&slot)
        && c.idle
    {
        c.idle = false;
        SCHED.with(|s| s.borrow_mut().ready.push_back(slot));
    }
}

fn resume(slot: usize, coros: &mut HashMap<usize, Coro>) {
    let Some(c) = coros.get_mut(&slot) else {
        return;
    };
    if c.body.is_done() {
        return;
    }
    SCHED.with(|s| s.borrow_mut().current = Some(slot));
    output::swap_capture(&mut c.capture);
    // A panic inside the rank is caught in its coroutine; what comes out here is the
    // generator's own (its stack overflowed): that rank is lost, the thread's others go on.
    let why = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| c.body.resume()));
    output::swap_capture(&mut c.capture);
    SCHED.with(|s| s.borrow_mut().current = None);
    let failed = why.is_err();
    match why {
        Ok(Some(Suspend::Idle)) => c.idle = true,
        Ok(Some(Suspend::Tracee)) | Ok(Some(Suspend::StartSlot)) => {}
        Ok(Some(Suspend::Done)) | Ok(None) => {}
        Err(_) => tracing::error!(
            "rank {}: its debugger failed (its stack overflowed); the rank is lost",
            c.rank
        ),
    }
    if failed || c.body.is_done() {
        tracing::debug!("rank {} ended", c.rank);
        coros.remove(&slot);
        SCHED.with(|s| {
            let mut s = s.borrow_mut();
            s.inbox.remove(&slot);
            s.waiting.remove(&slot);
            s.pid_owner.retain(|_, v| *v != slot);
            s.tid_owner.retain(|_, v| *v != slot);
            s.start_waiters.retain(|v| *v != slot);
        });
    }
}
