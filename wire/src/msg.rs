//! The messages exchanged once a connection is authenticated.

use serde::{Deserialize, Serialize};

use crate::{Merged, Payload, RankSet, StackTree, States, Values};

/// Parent to child.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Down {
    /// Run a debugger command line on `ranks`; reply within `timeout_ms` (ranks that have not
    /// answered by then are reported in `Up::Reply::timed_out`). `history` is the job's
    /// value-history count (the highest `Merged::history` seen): a rank whose own history is
    /// shorter skips to it first, so that the values of this command get the same `$N` on
    /// every rank.
    Command {
        id: u64,
        ranks: RankSet,
        line: String,
        timeout_ms: u32,
        history: u32,
    },
    /// Stop the running ranks (as ^C does).
    Interrupt {
        ranks: RankSet,
    },
    /// Bytes for a rank's standard input.
    Stdin {
        rank: u32,
        data: Vec<u8>,
    },
    Ping {
        seq: u64,
    },
    /// End the session: kill the processes, or detach from them when `detach`.
    Shutdown {
        detach: bool,
    },
}

/// Child to parent.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Up {
    /// First message after the handshake: who the agent is and what its subtree covers.
    /// `agents` counts the agents in the subtree, the sender included.
    Register {
        agent: u32,
        host: String,
        ranks: RankSet,
        agents: u32,
    },
    /// The merged answer to `Down::Command { id, .. }` from the whole subtree.
    Reply {
        id: u64,
        merged: Merged,
        stacks: Option<StackTree>,
        timed_out: RankSet,
        lost: RankSet,
        /// The typed state of the ranks that answered, after the command.
        states: States,
        /// The typed values of `:value EXPR` and `:locals` (`None` for other commands).
        /// (Boxed: most replies have none.)
        values: Option<Box<Values>>,
    },
    /// Asynchronous news (e.g. stops after a resume), merged, with the typed state of the
    /// ranks it speaks of.
    Event { merged: Merged, states: States },
    /// The program's own stdout/stderr.
    Output {
        rank: u32,
        stream: Stream,
        data: Payload,
    },
    /// Ranks that are gone (agent or process died, connection lost).
    Lost { ranks: RankSet, reason: String },
    /// The answer to a ping. `busy`: the agent's subtree has ranks running or starting, or
    /// its node has more than 16 runnable threads per CPU (since protocol version 7): the
    /// ranks may then take the CPUs from the agents, and the parent allows it a longer silence.
    Pong { seq: u64, busy: bool },
    /// Something the user should know that concerns no rank's answer: a child that spoke for
    /// ranks outside its subtree, a registration refused.
    Notice { text: String },
}

impl Up {
    /// The ranks this message speaks for (none for `Register`, `Pong`, `Notice`). A child may
    /// speak only for the ranks it registered.
    pub fn ranks(&self) -> RankSet {
        match self {
            Up::Reply {
                merged,
                stacks,
                timed_out,
                lost,
                states,
                values,
                ..
            } => {
                let mut r = merged
                    .ranks()
                    .union(&merged.failed)
                    .union(timed_out)
                    .union(lost)
                    .union(&states.ranks());
                if let Some(t) = stacks {
                    r = r.union(&t.ranks());
                }
                if let Some(v) = values {
                    r = r.union(&v.ranks()).union(&v.reduction.numbers);
                }
                r
            }
            Up::Event { merged, states } => {
                merged.ranks().union(&merged.failed).union(&states.ranks())
            }
            Up::Output { rank, .. } => RankSet::single(*rank),
            Up::Lost { ranks, .. } => ranks.clone(),
            Up::Register { .. } | Up::Pong { .. } | Up::Notice { .. } => RankSet::new(),
        }
    }

    /// What kind of message this is, for reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Up::Register { .. } => "a registration",
            Up::Reply { .. } => "a reply",
            Up::Event { .. } => "an event",
            Up::Output { .. } => "program output",
            Up::Lost { .. } => "a lost report",
            Up::Pong { .. } => "a pong",
            Up::Notice { .. } => "a notice",
        }
    }
}

/// Which output stream of the program.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}
