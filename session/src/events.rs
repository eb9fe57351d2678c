//! Typed events of a session: what the front end learns (rank states, stops, answers,
//! program output), handed to whoever drives it: the CLI prints the text, the GUI draws the
//! states. Nothing here parses gdb's text: the states come typed from the agents
//! ([`cohort_wire::RankState`]).

use std::sync::Mutex;

use cohort_wire::{RankSet, RankState, StackTree, States};
use tokio::sync::mpsc::UnboundedSender;

/// One thing the session has to say.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Text the CLI prints: merged answers (`[0-3] $1 = 42`), notices, program output.
    Text { out: String, err: String },
    /// The state of every rank known, after a change.
    States(States),
    /// Ranks that stopped (a breakpoint, a step's end) since the last report, with where.
    Stopped { ranks: RankSet, state: RankState },
    /// The merged parallel stacks, as asked for.
    Stacks(StackTree),
    /// Output of one rank's program (stderr when `err`): whole lines, or the start of one
    /// (held 100 ms or 64 KiB long) whose rest comes in the next of its output.
    Output { rank: u32, err: bool, text: String },
}

/// Where a session's events go: none (the CLI prints their text), or a channel (the GUI takes them
/// there).
static SINK: Mutex<Option<UnboundedSender<Event>>> = Mutex::new(None);

/// Sends the events of this process's session to `tx` instead of printing their text.
pub fn send_events_to(tx: UnboundedSender<Event>) {
    if let Ok(mut s) = SINK.lock() {
        *s = Some(tx);
    }
}

/// Hands `ev` to the receiver set by [`send_events_to`]; false without one.
pub(crate) fn emit(ev: Event) -> bool {
    match SINK.lock() {
        Ok(s) => match &*s {
            Some(tx) => {
                let _ = tx.send(ev);
                true
            }
            None => false,
        },
        Err(_) => false,
    }
}

/// Whether events go to a receiver (else only text is printed).
pub(crate) fn has_receiver() -> bool {
    SINK.lock().is_ok_and(|s| s.is_some())
}

/// The typed state the front end keeps: every rank's last known state.
#[derive(Debug, Default)]
pub struct Tracker {
    pub states: States,
}

impl Tracker {
    /// A session of `size` ranks, none started yet.
    pub fn new(size: u32) -> Self {
        let mut states = States::default();
        states.set_ranks(&RankSet::all(size), RankState::NotStarted);
        Tracker { states }
    }

    /// Facts from a reply or an event: the new states, and stop events for the ranks that
    /// were running (or not started) and are now stopped.
    pub fn learn(&mut self, news: States) {
        if news.is_empty() {
            return;
        }
        let receiver = has_receiver();
        for (state, ranks) in news.groups {
            if receiver && matches!(state, RankState::Stopped { .. }) {
                let fresh: RankSet = ranks
                    .iter()
                    .filter(|r| self.states.get(*r) != Some(&state))
                    .collect();
                if !fresh.is_empty() {
                    emit(Event::Stopped {
                        ranks: fresh,
                        state: state.clone(),
                    });
                }
            }
            self.states.set_ranks(&ranks, state);
        }
        if receiver {
            emit(Event::States(self.states.clone()));
        }
    }

    /// A command that lets `ranks` run was sent: they are running until they report.
    pub fn resumed(&mut self, ranks: &RankSet) {
        let alive: RankSet = ranks
            .iter()
            .filter(|r| {
                matches!(
                    self.states.get(*r),
                    Some(RankState::Stopped { .. } | RankState::NotStarted) | None
                )
            })
            .collect();
        if alive.is_empty() {
            return;
        }
        self.states.set_ranks(&alive, RankState::Running);
        if has_receiver() {
            emit(Event::States(self.states.clone()));
        }
    }

    /// Ranks that are gone.
    pub fn lost(&mut self, ranks: &RankSet) {
        let mut s = States::default();
        s.set_ranks(ranks, RankState::Lost);
        self.learn(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_wire::{Place, StopReason};

    fn at(line: u32) -> RankState {
        RankState::Stopped {
            reason: StopReason::Breakpoint,
            place: Place {
                line: Some(line),
                ..Place::default()
            },
        }
    }

    fn drain(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Event>) -> Vec<Event> {
        let mut v = Vec::new();
        while let Ok(e) = rx.try_recv() {
            v.push(e);
        }
        v
    }

    /// (One test: the receiver is the process's.)
    #[test]
    fn states_and_stops_go_to_the_receiver() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        send_events_to(tx);
        let mut t = Tracker::new(4);
        assert_eq!(t.states.get(3), Some(&RankState::NotStarted));
        t.resumed(&RankSet::all(4));
        assert!(
            matches!(&drain(&mut rx)[..], [Event::States(s)] if s.get(0) == Some(&RankState::Running))
        );
        // Ranks 0-2 stop at line 24; rank 3 is still running.
        let mut news = States::default();
        news.set_ranks(&RankSet::range(0, 2), at(24));
        t.learn(news.clone());
        let ev = drain(&mut rx);
        assert_eq!(
            ev[0],
            Event::Stopped {
                ranks: RankSet::range(0, 2),
                state: at(24)
            }
        );
        assert!(matches!(&ev[1], Event::States(s) if s.get(3) == Some(&RankState::Running)));
        // The same facts again (an answer that did not move them): no stop event.
        t.learn(news);
        assert!(matches!(&drain(&mut rx)[..], [Event::States(_)]));
        // Lost ranks.
        t.lost(&RankSet::single(3));
        assert_eq!(t.states.get(3), Some(&RankState::Lost));
        // Text goes to the receiver too (the CLI, without one, prints it).
        assert!(emit(Event::Text {
            out: "x\n".into(),
            err: String::new()
        }));
    }
}
