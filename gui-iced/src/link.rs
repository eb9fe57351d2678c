//! The session, on its own thread: it starts the agents (as `cohort launch` does), runs the
//! requests of the window and hands back what it learns, batched about every 50 ms (the
//! window never waits on the debugger).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cohort_session::events::{self, Event};
use cohort_session::parallel::{LaunchOpts, Session};
use cohort_wire::{Breakpoint, RankSet, StackTree, States, Values};
use iced::futures::StreamExt;
use iced::futures::channel::mpsc as fmpsc;
use tokio::sync::Notify;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// How a session starts: launched (any of `cohort launch`'s launchers) or attached to a job
/// (`cohort attach`).
#[derive(Debug)]
pub enum Start {
    Launch(Box<LaunchOpts>),
    /// The launcher's process id, and `cohort attach`'s other options.
    Attach {
        pid: i32,
        rest: Vec<String>,
    },
}

impl From<LaunchOpts> for Start {
    fn from(o: LaunchOpts) -> Self {
        Start::Launch(Box::new(o))
    }
}

/// What the window asks of the session.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// A command line as the CLI takes it (`[0-3] next`, `print x`).
    Command(String),
    /// `info locals` of one rank.
    Locals(u32),
    /// The merged parallel stacks of every rank.
    Stacks,
    /// Typed values (`:locals`, `:value EXPR`) of `ranks`, answered as `Update::Values`
    /// with the same key.
    Values {
        key: String,
        line: String,
        ranks: RankSet,
    },
    Quit,
}

/// What the session says back.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// The tree has formed: the job's size.
    Started {
        size: u32,
    },
    /// The session could not start, or ended with an error.
    Failed(String),
    Session(Event),
    Locals {
        rank: u32,
        text: String,
    },
    Stacks(StackTree),
    /// The typed values asked for under `key`, and the ranks' errors (`[1] No symbol …`).
    Values {
        key: String,
        values: Option<Values>,
        error: String,
    },
    /// The breakpoints of the ranks that answered (after each command:
    /// `Front::breakpoints`, asked of the ranks that do not run), each location with its
    /// ranks; and those ranks.
    Breakpoints {
        list: Vec<(Breakpoint, RankSet)>,
        ranks: RankSet,
    },
    /// The session is over.
    Ended,
}

/// How often batches of updates go to the window.
pub const BATCH: Duration = Duration::from_millis(50);

/// The window's end of a session.
pub struct Link {
    tx: UnboundedSender<Request>,
}

/// Batches of updates for the window's subscription (see [`updates`]).
static RECEIVER: Mutex<Option<fmpsc::UnboundedReceiver<Vec<Update>>>> = Mutex::new(None);

impl Link {
    /// Starts the session of `o` on its own thread; the updates go to [`updates`].
    pub fn start(o: impl Into<Start>) -> Link {
        let (link, rx) = Link::start_with_receiver(o);
        if let Ok(mut r) = RECEIVER.lock() {
            *r = Some(rx);
        }
        link
    }

    /// Starts the session of `o` on its own thread; its updates come on the receiver.
    pub fn start_with_receiver(
        o: impl Into<Start>,
    ) -> (Link, fmpsc::UnboundedReceiver<Vec<Update>>) {
        let o = o.into();
        let (tx, req_rx) = unbounded_channel();
        let (out_tx, out_rx) = fmpsc::unbounded();
        std::thread::Builder::new()
            .name("cohort-session".into())
            .spawn(move || session_thread(o, req_rx, out_tx))
            .ok();
        (Link { tx }, out_rx)
    }

    pub fn send(&self, r: Request) {
        let _ = self.tx.send(r);
    }
}

/// The receiver of the session started last by [`Link::start`], if [`updates`] has not taken
/// it (tests feed its batches to the window themselves).
pub fn take_receiver() -> Option<fmpsc::UnboundedReceiver<Vec<Update>>> {
    RECEIVER.lock().ok().and_then(|mut r| r.take())
}

/// The stream of update batches of the session started by [`Link::start`] (once).
pub fn updates() -> impl iced::futures::Stream<Item = Vec<Update>> {
    let rx = RECEIVER.lock().ok().and_then(|mut r| r.take());
    iced::futures::stream::iter(rx).flatten()
}

fn session_thread(
    o: Start,
    req_rx: UnboundedReceiver<Request>,
    out: fmpsc::UnboundedSender<Vec<Update>>,
) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = out.unbounded_send(vec![Update::Failed(format!("{e}"))]);
            return;
        }
    };
    rt.block_on(async move {
        let (up_tx, up_rx) = unbounded_channel::<Update>();
        let (ev_tx, ev_rx) = unbounded_channel::<Event>();
        events::send_events_to(ev_tx);
        let flush = Arc::new(Notify::new());
        tokio::spawn(batcher(up_rx, ev_rx, flush.clone(), out));
        if let Err(e) = run_session(o, req_rx, &up_tx, &flush).await {
            let _ = up_tx.send(Update::Failed(format!("{e:#}")));
        }
        let _ = up_tx.send(Update::Ended);
        // The last batch goes out.
        tokio::time::sleep(BATCH * 2).await;
    });
}

/// Sends the updates (the link's and the session's events) in batches: the first of a batch
/// waits at most [`BATCH`], or until the session has done a request (`flush`: what the
/// request brought, a step's last stop among it, goes at once).
async fn batcher(
    mut rx: UnboundedReceiver<Update>,
    mut ev: UnboundedReceiver<Event>,
    flush: Arc<Notify>,
    out: fmpsc::UnboundedSender<Vec<Update>>,
) {
    loop {
        let first = tokio::select! {
            u = rx.recv() => u,
            e = ev.recv() => e.map(Update::Session),
        };
        let Some(first) = first else { return };
        let mut batch = vec![first];
        let until = tokio::time::Instant::now() + BATCH;
        loop {
            tokio::select! {
                biased;
                _ = flush.notified() => {
                    // Everything the request sent is in the channels by now.
                    while let Ok(e) = ev.try_recv() {
                        batch.push(Update::Session(e));
                    }
                    while let Ok(u) = rx.try_recv() {
                        batch.push(u);
                    }
                    break;
                }
                u = rx.recv() => match u {
                    Some(u) => batch.push(u),
                    None => break,
                },
                e = ev.recv() => match e {
                    Some(e) => batch.push(Update::Session(e)),
                    None => break,
                },
                _ = tokio::time::sleep_until(until) => break,
            }
        }
        if out.unbounded_send(batch).is_err() {
            return;
        }
    }
}

async fn run_session(
    o: Start,
    mut req_rx: UnboundedReceiver<Request>,
    up: &UnboundedSender<Update>,
    flush: &Notify,
) -> anyhow::Result<()> {
    // As `cohort launch` and `cohort attach` start it: the ranks at main, the program's last
    // session restored.
    let mut session = match o {
        Start::Launch(o) => Session::launch(*o).await?,
        Start::Attach { pid, rest } => Session::attach(pid, rest).await?,
    };
    let size = session.front.size;
    let _ = up.send(Update::Started { size });
    let front = &mut session.front;
    // `-ex` commands, as `cohort launch` runs them.
    'commands: for c in std::mem::take(&mut session.commands) {
        for l in c.lines().unwrap_or_default() {
            if !front.execute(&l).await {
                break 'commands;
            }
        }
    }
    // The breakpoints restored from the program's last session and set by `-ex`.
    let mut seen = States::default();
    send_breakpoints(front, up, &mut seen).await;
    loop {
        let r = match tokio::time::timeout(BATCH, req_rx.recv()).await {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(_) => {
                // Idle: news from running ranks.
                front.drain(Duration::from_millis(1)).await;
                if front.ending.is_some() {
                    break;
                }
                // Ranks that ran have stopped (a `tbreak` hit is gone): their breakpoints.
                if front.tracker.states != seen {
                    send_breakpoints(front, up, &mut seen).await;
                    flush.notify_one();
                }
                continue;
            }
        };
        match r {
            Request::Quit => break,
            Request::Command(line) => {
                if !front.execute(&line).await {
                    break;
                }
                // What the command brought (a step's stops) goes now, then the breakpoints:
                // any command may have changed them (`break`, `delete`, a `tbreak` hit).
                flush.notify_one();
                send_breakpoints(front, up, &mut seen).await;
            }
            Request::Locals(rank) => {
                let a = front.ask(RankSet::single(rank), "info locals").await;
                let (o, e) = a.render();
                let _ = up.send(Update::Locals {
                    rank,
                    text: without_prefix(&(o + &e)),
                });
            }
            Request::Values { key, line, ranks } => {
                let a = front.ask(ranks, &line).await;
                let (_, error) = a.render();
                let _ = up.send(Update::Values {
                    key,
                    values: a.values,
                    error,
                });
            }
            Request::Stacks => {
                // Of the ranks that can answer (a running rank's would wait until it stops).
                let a = front.ask(front.idle(), ":stacks").await;
                let _ = up.send(Update::Stacks(a.stacks.unwrap_or_default()));
            }
        }
        // What the request brought goes to the window now.
        flush.notify_one();
    }
    session.end().await;
    Ok(())
}

/// The breakpoints of the ranks that do not run (`Front::breakpoints`) to the window; `seen`:
/// the ranks' states they were asked in.
async fn send_breakpoints(
    front: &mut cohort_session::parallel::Front,
    up: &UnboundedSender<Update>,
    seen: &mut States,
) {
    *seen = front.tracker.states.clone();
    if let Some((list, ranks)) = front.breakpoints().await {
        let _ = up.send(Update::Breakpoints { list, ranks });
    }
}

/// One rank's answer without its `[N] ` prefixes.
fn without_prefix(text: &str) -> String {
    text.lines()
        .map(
            |l| match l.strip_prefix('[').and_then(|r| r.split_once("] ")) {
                Some((_, rest)) => rest,
                None => l,
            },
        )
        .map(|l| format!("{l}\n"))
        .collect()
}
