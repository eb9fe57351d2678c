//! Typed rank state, merged in the tree as text is: one group per distinct state with the set
//! of ranks in it, groups ordered by their lowest rank (so merging is associative and
//! commutative, as for [`crate::Merged`]).

use serde::{Deserialize, Serialize};

use crate::RankSet;

/// Where a stopped rank is: the innermost frame of the program's own code.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Place {
    pub function: Option<String>,
    /// The file as gdb names it in frame lines (`heat.c`).
    pub file: Option<String>,
    /// The file's full path, to read it.
    pub path: Option<String>,
    pub line: Option<u32>,
    /// The pc of the innermost frame.
    pub pc: u64,
}

/// Why a rank is stopped.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// At a breakpoint's address.
    Breakpoint,
    /// Anywhere else (a step's end, an interrupt, a signal).
    Other,
}

/// The state of one rank.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
pub enum RankState {
    NotStarted,
    Running,
    /// Running, in an MPI call (`MPI_Recv`) from the program's place.
    Waiting {
        call: String,
        place: Place,
    },
    Stopped {
        reason: StopReason,
        place: Place,
    },
    Exited {
        code: i32,
    },
    /// Ended by a signal (its name, `SIGSEGV`).
    Killed {
        signal: String,
    },
    Lost,
}

impl RankState {
    /// A short name of the state, for legends and tests.
    pub fn kind(&self) -> &'static str {
        match self {
            RankState::NotStarted => "not started",
            RankState::Running => "running",
            RankState::Waiting { .. } => "waiting",
            RankState::Stopped {
                reason: StopReason::Breakpoint,
                ..
            } => "at breakpoint",
            RankState::Stopped { .. } => "stopped",
            RankState::Exited { .. } => "exited",
            RankState::Killed { .. } => "killed",
            RankState::Lost => "lost",
        }
    }

    /// The place of a stopped or waiting rank.
    pub fn place(&self) -> Option<&Place> {
        match self {
            RankState::Stopped { place, .. } | RankState::Waiting { place, .. } => Some(place),
            _ => None,
        }
    }
}

/// Ranks by state: one group per distinct state, ordered by lowest rank.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
pub struct States {
    pub groups: Vec<(RankState, RankSet)>,
}

impl States {
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// All ranks with a state here.
    pub fn ranks(&self) -> RankSet {
        self.groups
            .iter()
            .fold(RankSet::new(), |acc, (_, r)| acc.union(r))
    }

    /// Sets `rank`'s state (a rank is in one group only).
    pub fn set(&mut self, rank: u32, state: RankState) {
        self.set_ranks(&RankSet::single(rank), state);
    }

    /// Sets the state of every rank of `ranks`.
    pub fn set_ranks(&mut self, ranks: &RankSet, state: RankState) {
        if ranks.is_empty() {
            return;
        }
        for (_, r) in &mut self.groups {
            *r = r.difference(ranks);
        }
        match self.groups.iter_mut().find(|(s, _)| *s == state) {
            Some((_, r)) => *r = r.union(ranks),
            None => self.groups.push((state, ranks.clone())),
        }
        self.canonical();
    }

    /// Merges another subtree's states (later facts win for a rank in both).
    pub fn merge(&mut self, other: States) {
        for (s, r) in other.groups {
            self.set_ranks(&r, s);
        }
    }

    /// The state of `rank`, if known.
    pub fn get(&self, rank: u32) -> Option<&RankState> {
        self.groups
            .iter()
            .find(|(_, r)| r.contains(rank))
            .map(|(s, _)| s)
    }

    fn canonical(&mut self) {
        self.groups.retain(|(_, r)| !r.is_empty());
        self.groups.sort_by_key(|(_, r)| r.first());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32) -> RankState {
        RankState::Stopped {
            reason: StopReason::Breakpoint,
            place: Place {
                function: Some("main".into()),
                file: Some("a.c".into()),
                path: Some("/src/a.c".into()),
                line: Some(line),
                pc: 0x1000 + u64::from(line),
            },
        }
    }

    fn states(v: &[(u32, RankState)]) -> States {
        let mut s = States::default();
        for (r, st) in v {
            s.set(*r, st.clone());
        }
        s
    }

    #[test]
    fn merging_is_associative_and_commutative() {
        let a = states(&[(0, at(5)), (2, at(5))]);
        let b = states(&[(1, at(5)), (3, RankState::Exited { code: 3 })]);
        let c = states(&[(4, at(7)), (5, RankState::Running)]);
        let mut ab_c = a.clone();
        ab_c.merge(b.clone());
        ab_c.merge(c.clone());
        let mut c_ba = c;
        let mut ba = b;
        ba.merge(a);
        c_ba.merge(ba);
        assert_eq!(ab_c, c_ba);
        assert_eq!(
            ab_c.groups
                .iter()
                .map(|(s, r)| format!("[{r}] {}", s.kind()))
                .collect::<Vec<_>>(),
            [
                "[0-2] at breakpoint",
                "[3] exited",
                "[4] at breakpoint",
                "[5] running"
            ]
        );
    }

    #[test]
    fn a_rank_has_one_state() {
        let mut s = states(&[(0, at(5)), (1, at(5))]);
        s.set(1, RankState::Running);
        assert_eq!(s.get(0), Some(&at(5)));
        assert_eq!(s.get(1), Some(&RankState::Running));
        assert_eq!(s.ranks(), RankSet::range(0, 1));
        s.set(1, at(5));
        assert_eq!(s.groups.len(), 1);
    }
}
