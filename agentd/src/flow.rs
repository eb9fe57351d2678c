//! Flow control of the programs' output: bounded buffers from the ranks' pipes to the front
//! end.
//!
//! Every byte of output an agent holds (read from a rank and not yet written to its parent, or
//! received from a child and not yet passed on) is counted against a budget, and taken from it
//! before it is read: a rank's own bytes from that rank's share ([`DEFAULT_RANK`], 256 KiB),
//! bytes of the subtree below from the agent's ([`DEFAULT_AGENT`], 8 MiB). When the front end
//! reads slowly (a slow terminal, a report writer, a GUI), the shares run out from the top
//! down: the root stops reading its children's connections, TCP's own flow control stops their
//! writers, their shares stay taken, they stop reading their ranks' pipes, and the ranks block
//! in `write` as under a slow terminal. An agent then holds at most 8 MiB plus 256 KiB per rank
//! of output, whatever the ranks write.
//!
//! The sizes come from the environment (`COHORT_OUTPUT_BUFFER`, `COHORT_RANK_BUFFER`, in bytes
//! with an optional `K`, `M` or `G`), which the front end passes on to the agents it starts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cohort_wire::Up;
use tokio::sync::Semaphore;

/// The agent's share, for output of the subtree below it.
pub const DEFAULT_AGENT: u32 = 8 << 20;
/// Each rank's share, for its own output.
pub const DEFAULT_RANK: u32 = 256 << 10;

/// The output budget of one agent (or of the front end, the tree's root).
pub struct Budget {
    agent_total: u32,
    rank_total: u32,
    agent: Semaphore,
    ranks: Mutex<HashMap<u32, Arc<Semaphore>>>,
}

/// `8M`, `256K`, `65536`: a size in bytes, at least 4 KiB.
pub fn parse_size(s: &str) -> Option<u32> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1u64 << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let v = num.trim().parse::<u64>().ok()?.checked_mul(mult)?;
    u32::try_from(v).ok().filter(|v| *v >= 4096)
}

impl Budget {
    pub fn new(agent_total: u32, rank_total: u32) -> Arc<Budget> {
        let agent_total = agent_total.max(4096);
        let rank_total = rank_total.max(4096);
        Arc::new(Budget {
            agent_total,
            rank_total,
            agent: Semaphore::new(agent_total as usize),
            ranks: Mutex::new(HashMap::new()),
        })
    }

    /// The sizes from `COHORT_OUTPUT_BUFFER` and `COHORT_RANK_BUFFER`, else the defaults.
    pub fn from_env() -> Arc<Budget> {
        let get = |v: &str, d: u32| {
            std::env::var(v)
                .ok()
                .and_then(|s| parse_size(&s))
                .unwrap_or(d)
        };
        Budget::new(
            get("COHORT_OUTPUT_BUFFER", DEFAULT_AGENT),
            get("COHORT_RANK_BUFFER", DEFAULT_RANK),
        )
    }

    /// The most one read of a rank's pipe may take.
    pub fn rank_total(&self) -> u32 {
        self.rank_total
    }

    fn rank_share(&self, rank: u32) -> Arc<Semaphore> {
        let mut m = match self.ranks.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        m.entry(rank)
            .or_insert_with(|| Arc::new(Semaphore::new(self.rank_total as usize)))
            .clone()
    }

    fn is_own(&self, rank: u32) -> bool {
        match self.ranks.lock() {
            Ok(m) => m.contains_key(&rank),
            Err(p) => p.into_inner().contains_key(&rank),
        }
    }

    /// Takes `n` bytes (at most the rank's share) from `rank`'s share, waiting until they are
    /// free. Returns how many were taken.
    pub async fn take_own(&self, rank: u32, n: u32) -> u32 {
        let n = n.min(self.rank_total);
        let share = self.rank_share(rank);
        match share.acquire_many(n).await {
            Ok(p) => {
                p.forget();
                n
            }
            Err(_) => 0,
        }
    }

    /// Gives back bytes of `rank`'s share that were taken and not used.
    pub fn give_back_own(&self, rank: u32, n: u32) {
        if n > 0 {
            self.rank_share(rank).add_permits(n as usize);
        }
    }

    /// What a message from a child weighs against the agent's share.
    fn weight(up: &Up) -> u32 {
        match up {
            Up::Output { data, .. } => {
                let w = data.len().max(data.stored_len());
                u32::try_from(w).unwrap_or(u32::MAX)
            }
            _ => 0,
        }
    }

    /// Takes what `up`, received from a child, weighs from the agent's share, waiting until it
    /// is free (a message heavier than the whole share takes all of it).
    pub async fn take_forwarded(&self, up: &Up) {
        let w = Budget::weight(up).min(self.agent_total);
        if w > 0
            && let Ok(p) = self.agent.acquire_many(w).await
        {
            p.forget();
        }
    }

    /// `up` has left this agent (written to the parent, or shown by the front end): what it
    /// took comes back.
    pub fn release(&self, up: &Up) {
        if let Up::Output { rank, data, .. } = up {
            self.release_output(*rank, data.len(), data.stored_len());
        }
    }

    /// As [`Budget::release`], for output of `rank` of `len` bytes expanded, `stored` as it
    /// travelled.
    pub fn release_output(&self, rank: u32, len: usize, stored: usize) {
        if self.is_own(rank) {
            // A rank's own output is taken as read: its expanded length.
            self.give_back_own(rank, u32::try_from(len).unwrap_or(u32::MAX));
        } else {
            let w = u32::try_from(len.max(stored))
                .unwrap_or(u32::MAX)
                .min(self.agent_total);
            self.agent.add_permits(w as usize);
        }
    }

    /// Whether output of `rank`, one of this agent's own, is read and not yet passed on.
    pub fn own_in_use(&self, rank: u32) -> bool {
        let m = match self.ranks.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        m.get(&rank)
            .is_some_and(|s| s.available_permits() < self.rank_total as usize)
    }

    /// Bytes of the agent's share now taken (for tests and diagnostics).
    pub fn agent_in_use(&self) -> u32 {
        self.agent_total
            .saturating_sub(u32::try_from(self.agent.available_permits()).unwrap_or(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_wire::{Payload, Stream};

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8M"), Some(8 << 20));
        assert_eq!(parse_size("256K"), Some(256 << 10));
        assert_eq!(parse_size("65536"), Some(65536));
        assert_eq!(parse_size("1k"), None, "below 4 KiB");
        assert_eq!(parse_size("8X"), None);
        assert_eq!(parse_size("5G"), None, "over 4 GiB");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_rank_waits_when_its_share_is_taken_and_goes_on_when_it_is_released() {
        let b = Budget::new(1 << 20, 8192);
        assert_eq!(b.take_own(3, 16384).await, 8192, "at most the share");
        let out = Up::Output {
            rank: 3,
            stream: Stream::Stdout,
            data: Payload::new(vec![b'x'; 8192]),
        };
        let blocked =
            tokio::time::timeout(std::time::Duration::from_millis(50), b.take_own(3, 100)).await;
        assert!(blocked.is_err(), "the share is all taken");
        b.release(&out);
        assert_eq!(b.take_own(3, 100).await, 100);
        // Another rank has its own share.
        assert_eq!(b.take_own(4, 8192).await, 8192);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn forwarded_output_is_bounded_by_the_agent_share() {
        let b = Budget::new(8192, 4096);
        let out = |n: usize| Up::Output {
            rank: 9,
            stream: Stream::Stderr,
            data: Payload::Raw(vec![b'y'; n]),
        };
        b.take_forwarded(&out(6000)).await;
        assert_eq!(b.agent_in_use(), 6000);
        let blocked = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            b.take_forwarded(&out(6000)),
        )
        .await;
        assert!(blocked.is_err());
        b.release(&out(6000));
        assert_eq!(b.agent_in_use(), 0);
        // Heavier than the whole share: takes all of it, never waits forever.
        b.take_forwarded(&out(100_000)).await;
        assert_eq!(b.agent_in_use(), 8192);
        b.release(&out(100_000));
        assert_eq!(b.agent_in_use(), 0);
    }
}
