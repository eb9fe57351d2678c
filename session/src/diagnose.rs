//! `diagnose [SET]` (issue 20): why a job hangs, in plain words. Each rank says what its MPI
//! is doing (`:mpi`, agentd/src/mpirec.rs: the MPI call recorder's state, else its frames);
//! [`verdicts`] builds the wait-for graph across the ranks and names deadlock cycles, ranks
//! waiting on a rank that computes or has finished, collectives some rank never arrives at
//! or that differ, unmatched point-to-point calls, and the least-progressed ranks.
//!
//! [`verdicts`] is free of any user interface (the offline report and a GUI take its
//! [`Verdict`]s); [`run`] is the command.

use std::collections::{BTreeMap, BTreeSet};

use cohort_agentd::mpirec::{ANY, Call, NONE, PROC_NULL, RankMpi};
use cohort_wire::RankSet;

use crate::parallel::{Answer, Front};

/// What kind of trouble a verdict names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Ranks waiting for each other in a cycle.
    Deadlock,
    /// Ranks waiting for a rank that is not in the call they need (computing, elsewhere).
    WaitsOn,
    /// A collective some rank never arrives at, or ranks in different collectives.
    Collective,
    /// A receive no send matches (tags differ, the sender finished).
    Unmatched,
    /// Ranks that made fewer calls at a call site than the others.
    LeastProgress,
    /// Nothing found, or what could not be looked at.
    Note,
}

/// One finding: its kind, the ranks it blames (or is about), and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub kind: Kind,
    pub ranks: RankSet,
    pub text: String,
}

const COLLECTIVES: [&str; 8] = [
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Alltoall",
    "MPI_Gather",
    "MPI_Scatter",
    "MPI_Allgather",
];

fn is_collective(name: &str) -> bool {
    COLLECTIVES.contains(&name)
        || (name.starts_with("MPI_")
            && [
                "Allgatherv",
                "Alltoallv",
                "Alltoallw",
                "Gatherv",
                "Scatterv",
                "Scan",
                "Exscan",
                "Reduce_scatter",
                "Reduce_scatter_block",
                "Comm_split",
                "Comm_dup",
                "Comm_create",
            ]
            .contains(&&name[4..]))
}

/// What one rank is doing, for the graph.
#[derive(Debug, Clone)]
enum Doing {
    /// The process has ended (its state in words).
    Ended(String),
    /// In `MPI_Finalize` (where).
    Finalizing(Option<String>),
    /// In a point-to-point call, waiting for these ranks.
    P2p { call: Call, peers: Vec<u32> },
    /// In a collective (from the recorder, or the frames).
    Collective {
        name: String,
        comm: Comm,
        root: i32,
        at: Option<String>,
    },
    /// In another MPI call (the frames show it; the recorder does not know it).
    OtherMpi { name: String, at: Option<String> },
    /// In the user's code, or a library it called.
    Computing,
}

fn peer_word(p: i32) -> String {
    match p {
        ANY => "any source".to_string(),
        PROC_NULL => "MPI_PROC_NULL".to_string(),
        p => p.to_string(),
    }
}

fn tag_word(t: i32) -> String {
    if t == ANY {
        "with any tag".to_string()
    } else {
        format!("tag {t}")
    }
}

/// The communicator of a collective.
#[derive(Debug, Clone, Default)]
struct Comm {
    /// Its name (`MPI_Comm_get_name`; empty when not known).
    name: String,
    /// 0 for `MPI_COMM_WORLD` (or not known); else the recorder's hash of its members.
    id: u64,
    /// Its members, as world ranks (empty: the world, or not known).
    members: Vec<u32>,
    /// Its size (0: not known).
    size: i32,
}

impl Comm {
    fn is_world(&self) -> bool {
        self.id == 0 && (self.name.is_empty() || self.name == "MPI_COMM_WORLD")
    }

    /// What tells communicators apart: the members' hash, else the name.
    fn key(&self) -> String {
        match self.id {
            0 if self.is_world() => "MPI_COMM_WORLD".to_string(),
            0 => self.name.clone(),
            id => format!("{id:016x}"),
        }
    }

    /// ` on NAME` (a name the program gave it), ` on the communicator of ranks 0,2`, or
    /// nothing for the world.
    fn words(&self) -> String {
        if self.is_world() {
            return String::new();
        }
        let given = !self.name.is_empty() && !self.name.starts_with("MPI COMMUNICATOR");
        if !given && !self.members.is_empty() {
            let set = RankSet::from_iter(self.members.iter().copied());
            return format!(" on the communicator of ranks {set}");
        }
        comm_words(&self.name)
    }
}

fn comm_words(comm: &str) -> String {
    if comm.is_empty() || comm == "MPI_COMM_WORLD" {
        String::new()
    } else {
        format!(" on {comm}")
    }
}

fn at_words(at: &Option<String>) -> String {
    at.as_ref().map(|a| format!(" at {a}")).unwrap_or_default()
}

/// `MPI_Recv from 1 tag 7 at ring.c:21`.
fn call_words(c: &Call) -> String {
    let n = &c.name;
    let what = match n.as_str() {
        "MPI_Recv" | "MPI_Probe" => {
            format!("{n} from {} {}", peer_word(c.peer), tag_word(c.tag))
        }
        "MPI_Send" | "MPI_Ssend" => format!("{n} to {} {}", peer_word(c.peer), tag_word(c.tag)),
        "MPI_Sendrecv" => format!(
            "{n} to {} {} and from {} {}",
            peer_word(c.peer),
            tag_word(c.tag),
            peer_word(c.source),
            tag_word(c.recv_tag)
        ),
        "MPI_Wait" | "MPI_Waitall" | "MPI_Waitany" => {
            let pending: Vec<String> = c
                .reqs
                .iter()
                .filter(|r| !r.done)
                .map(|r| match r.kind.as_str() {
                    "send" => format!("a send to {} {}", peer_word(r.peer), tag_word(r.tag)),
                    "recv" => {
                        format!("a receive from {} {}", peer_word(r.peer), tag_word(r.tag))
                    }
                    _ => "a request".to_string(),
                })
                .collect();
            if pending.is_empty() {
                n.clone()
            } else {
                format!("{n} for {}", and_list(&pending))
            }
        }
        _ if c.root >= 0 => format!("{n} with root {}", c.root),
        _ => n.clone(),
    };
    format!("{what}{}{}", comm_words(&c.comm), at_words(&c.at))
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn doing(r: &RankMpi) -> Doing {
    if !r.alive {
        return Doing::Ended(r.state.clone());
    }
    let place = r.place.clone().unwrap_or_default();
    if let Some(c) = &r.call {
        let name = c.name.as_str();
        if name == "MPI_Finalize" {
            return Doing::Finalizing(c.at.clone());
        }
        if is_collective(name) {
            return Doing::Collective {
                name: c.name.clone(),
                comm: Comm {
                    name: c.comm.clone(),
                    id: c.comm_id,
                    members: c.comm_members.clone(),
                    size: c.comm_size,
                },
                root: c.root,
                at: c.at.clone(),
            };
        }
        let mut peers: Vec<i32> = match name {
            "MPI_Sendrecv" => vec![c.peer, c.source],
            "MPI_Wait" | "MPI_Waitall" | "MPI_Waitany" => {
                c.reqs.iter().filter(|q| !q.done).map(|q| q.peer).collect()
            }
            _ => vec![c.peer],
        };
        peers.retain(|&p| p >= 0);
        peers.sort_unstable();
        peers.dedup();
        return Doing::P2p {
            call: c.clone(),
            peers: peers.into_iter().map(|p| p as u32).collect(),
        };
    }
    match place.mpi_call {
        Some(m) if m == "MPI_Finalize" => Doing::Finalizing(place.at),
        Some(m) if is_collective(&m) => Doing::Collective {
            name: m,
            comm: Comm::default(),
            root: NONE,
            at: place.at,
        },
        Some(m) => Doing::OtherMpi {
            name: m,
            at: place.at,
        },
        None => Doing::Computing,
    }
}

/// What a rank is doing, as said of a rank another waits for (`running in relax at
/// ring.c:26`, `in MPI_Finalize at tags.c:14`).
fn state_words(r: &RankMpi, d: &Doing) -> String {
    match d {
        Doing::Ended(s) => format!("has ended ({s})"),
        Doing::Finalizing(at) => format!("is in MPI_Finalize{}", at_words(at)),
        Doing::P2p { call, .. } => format!("waits in {}", call_words(call)),
        Doing::Collective {
            name,
            comm,
            root,
            at,
        } => {
            let root = if *root >= 0 {
                format!(" with root {root}")
            } else {
                String::new()
            };
            format!("waits in {name}{root}{}{}", comm.words(), at_words(at))
        }
        Doing::OtherMpi { name, at } => format!("is in {name}{}", at_words(at)),
        Doing::Computing => {
            let p = r.place.clone().unwrap_or_default();
            match (p.lib_call, p.function) {
                (Some(l), _) => format!("is in {l}{}", called_from(&p.at)),
                (None, Some(f)) => format!("is running in {f}{}", at_words(&p.at)),
                (None, None) => "is running".to_string(),
            }
        }
    }
}

/// The verdict when no rank is in MPI: where the ranks that have a process are, grouped by
/// their state (`No rank waits in MPI: rank 1 stopped in wait_forever at one_hangs.c:7.`),
/// at most four groups.
fn no_mpi_words(info: &BTreeMap<u32, &RankMpi>) -> String {
    let mut groups: Vec<(&str, RankSet)> = Vec::new();
    for (r, m) in info {
        if !m.alive || m.state.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|g| g.0 == m.state) {
            Some(g) => g.1.insert(*r),
            None => groups.push((&m.state, RankSet::from_iter([*r]))),
        }
    }
    if groups.is_empty() {
        return "No rank waits in MPI.".to_string();
    }
    const SHOWN: usize = 4;
    let mut each: Vec<String> = groups
        .iter()
        .take(SHOWN)
        .map(|(state, set)| {
            if set.len() == 1 {
                format!("rank {set} {state}")
            } else {
                format!("[{set}] {state}")
            }
        })
        .collect();
    if groups.len() > SHOWN {
        each.push(format!("{} more groups", groups.len() - SHOWN));
    }
    format!("No rank waits in MPI: {}.", each.join("; "))
}

fn called_from(at: &Option<String>) -> String {
    at.as_ref()
        .map(|a| format!(" called from {a}"))
        .unwrap_or_default()
}

/// `rank 3` or `[0,2-3]`, as the subject of a verb (`waits`/`wait`).
fn subject(set: &RankSet, one: &str, many: &str) -> String {
    if set.len() == 1 {
        format!("rank {set} {one}")
    } else {
        format!("[{set}] {many}")
    }
}

/// The verdicts on these ranks (each rank's `:mpi` answer), most certain first.
pub fn verdicts(ranks: &[(u32, RankMpi)]) -> Vec<Verdict> {
    let info: BTreeMap<u32, &RankMpi> = ranks.iter().map(|(r, m)| (*r, m)).collect();
    let what: BTreeMap<u32, Doing> = info.iter().map(|(r, m)| (*r, doing(m))).collect();
    let mut out = Vec::new();
    // Ranks a verdict has explained (not looked at again for cycles).
    let mut explained: BTreeSet<u32> = BTreeSet::new();

    // Unmatched point-to-point: a receive from a rank that finished, or that sends with
    // another tag.
    for (&a, d) in &what {
        let Doing::P2p { call, .. } = d else { continue };
        let (from, tag) = match call.name.as_str() {
            "MPI_Recv" | "MPI_Probe" => (call.peer, call.tag),
            "MPI_Sendrecv" => (call.source, call.recv_tag),
            _ => continue,
        };
        if from < 0 {
            continue;
        }
        let b = from as u32;
        let (Some(bd), Some(bi)) = (what.get(&b), info.get(&b)) else {
            continue;
        };
        let head = format!("rank {a} waits in {}", call_words(call));
        let sent_other = bi
            .sends
            .iter()
            .rev()
            .find(|s| s.peer == a as i32 && tag != ANY && s.tag != tag);
        match bd {
            Doing::Ended(_) | Doing::Finalizing(_) => {
                let end = state_words(bi, bd);
                let text = match sent_other {
                    Some(s) => format!(
                        "{head}, but rank {b} sent to it with tag {}{}, and finished: it {end}",
                        s.tag,
                        at_words(&s.at)
                    ),
                    None => format!("{head}, but rank {b} finished: it {end}"),
                };
                out.push(Verdict {
                    kind: Kind::Unmatched,
                    ranks: RankSet::from_iter([a, b]),
                    text,
                });
                explained.insert(a);
            }
            Doing::P2p { call: bc, .. }
                if matches!(bc.name.as_str(), "MPI_Send" | "MPI_Ssend")
                    && bc.peer == a as i32
                    && tag != ANY
                    && bc.tag != tag =>
            {
                out.push(Verdict {
                    kind: Kind::Unmatched,
                    ranks: RankSet::from_iter([a, b]),
                    text: format!(
                        "{head}, but rank {b} sends to it with tag {}: rank {b} in {}",
                        bc.tag,
                        call_words(bc)
                    ),
                });
                explained.insert(a);
                explained.insert(b);
            }
            _ => {}
        }
    }

    // Deadlock cycles: the strongly connected parts of the graph of point-to-point waits.
    let edges: BTreeMap<u32, Vec<u32>> = what
        .iter()
        .filter(|(r, _)| !explained.contains(r))
        .filter_map(|(&r, d)| match d {
            Doing::P2p { peers, .. } => Some((
                r,
                peers
                    .iter()
                    .copied()
                    .filter(|p| {
                        !explained.contains(p) && matches!(what.get(p), Some(Doing::P2p { .. }))
                    })
                    .collect(),
            )),
            _ => None,
        })
        .collect();
    for comp in cycles(&edges) {
        let set = RankSet::from_iter(comp.iter().copied());
        let names: Vec<String> = comp.iter().map(u32::to_string).collect();
        let who = match names.len() {
            1 => format!("rank {} waits for itself", names[0]),
            2 => format!("ranks {} and {} wait for each other", names[0], names[1]),
            _ => format!(
                "ranks {} and {} wait for each other in a cycle",
                names[..names.len() - 1].join(", "),
                names[names.len() - 1]
            ),
        };
        let each: Vec<String> = comp
            .iter()
            .filter_map(|r| match what.get(r) {
                Some(Doing::P2p { call, .. }) => Some(format!("rank {r} in {}", call_words(call))),
                _ => None,
            })
            .collect();
        out.push(Verdict {
            kind: Kind::Deadlock,
            ranks: set,
            text: format!("{who}: {}", each.join(", ")),
        });
        explained.extend(comp);
    }

    // Point-to-point waits on a rank that is elsewhere (computing, in a collective).
    let mut waits: BTreeMap<(String, u32), RankSet> = BTreeMap::new();
    for (&a, d) in &what {
        let Doing::P2p { call, peers } = d else {
            continue;
        };
        if explained.contains(&a) {
            continue;
        }
        for &b in peers {
            match what.get(&b) {
                Some(Doing::P2p { .. }) | None => {}
                Some(_) => {
                    waits.entry((call_words(call), b)).or_default().insert(a);
                }
            }
        }
    }
    for ((words, b), set) in waits {
        let (Some(bi), Some(bd)) = (info.get(&b), what.get(&b)) else {
            continue;
        };
        out.push(Verdict {
            kind: Kind::WaitsOn,
            ranks: RankSet::from_iter([b]),
            text: format!(
                "{} in {words} for rank {b}, which {}",
                subject(&set, "waits", "wait"),
                state_words(bi, bd)
            ),
        });
    }

    // Collectives: per communicator, the calls ranks are in, and who is missing.
    let mut by_comm: BTreeMap<String, BTreeMap<(String, i32), RankSet>> = BTreeMap::new();
    let mut comms: BTreeMap<String, Comm> = BTreeMap::new();
    let mut places: BTreeMap<(String, String, i32), BTreeSet<String>> = BTreeMap::new();
    for (&r, d) in &what {
        if let Doing::Collective {
            name,
            comm,
            root,
            at,
        } = d
        {
            let key = comm.key();
            comms.entry(key.clone()).or_insert_with(|| comm.clone());
            by_comm
                .entry(key.clone())
                .or_default()
                .entry((name.clone(), *root))
                .or_default()
                .insert(r);
            if let Some(a) = at {
                places
                    .entry((key, name.clone(), *root))
                    .or_default()
                    .insert(a.clone());
            }
        }
    }
    for (key, calls) in &by_comm {
        let comm = comms.get(key).cloned().unwrap_or_default();
        let words = |(name, root): &(String, i32)| {
            let rooted = if *root >= 0 {
                format!(" with root {root}")
            } else {
                String::new()
            };
            let at = places
                .get(&(key.clone(), name.clone(), *root))
                .map(|s| {
                    format!(
                        " at {}",
                        s.iter().cloned().collect::<Vec<_>>().join(" and ")
                    )
                })
                .unwrap_or_default();
            format!("{name}{rooted}{}{at}", comm.words())
        };
        if calls.len() > 1 {
            let each: Vec<String> = calls
                .iter()
                .map(|(k, set)| format!("[{set}] in {}", words(k)))
                .collect();
            let all = calls.values().fold(RankSet::new(), |acc, s| acc.union(s));
            out.push(Verdict {
                kind: Kind::Collective,
                ranks: all,
                text: format!(
                    "the ranks are in different collectives{}: {}",
                    comm.words(),
                    each.join(", ")
                ),
            });
            continue;
        }
        let Some((call_key, set)) = calls.iter().next() else {
            continue;
        };
        // Who belongs to the communicator: every rank of the world; the recorded members of
        // another; else only how many.
        let members: Option<BTreeSet<u32>> = if comm.is_world() {
            None
        } else if !comm.members.is_empty() {
            Some(comm.members.iter().copied().collect())
        } else {
            if comm.size > 0 && comm.size as u64 > set.len() {
                out.push(Verdict {
                    kind: Kind::Collective,
                    ranks: set.clone(),
                    text: format!(
                        "{} in {}: {} of its {} ranks have arrived",
                        subject(set, "waits", "wait"),
                        words(call_key),
                        set.len(),
                        comm.size
                    ),
                });
            }
            continue;
        };
        // Those of the diagnosed ranks that are not in it, grouped by what they do.
        let mut missing: BTreeMap<String, RankSet> = BTreeMap::new();
        for (&r, d) in &what {
            if set.contains(r) || members.as_ref().is_some_and(|m| !m.contains(&r)) {
                continue;
            }
            let Some(ri) = info.get(&r) else { continue };
            let w = match d {
                Doing::Ended(_) | Doing::Finalizing(_) => {
                    format!("never arrives: it {}", state_words(ri, d))
                }
                _ => state_words(ri, d),
            };
            missing.entry(w).or_default().insert(r);
        }
        if missing.is_empty() {
            continue;
        }
        let late = missing.values().fold(RankSet::new(), |acc, s| acc.union(s));
        let whom = if missing.len() == 1 {
            let (w, m) = missing.iter().next().expect("one");
            if m.len() == 1 {
                format!("rank {m}, which {w}")
            } else {
                format!("[{m}], which {}", plural(w))
            }
        } else {
            let mut by_rank: Vec<(&String, &RankSet)> = missing.iter().collect();
            by_rank.sort_by_key(|(_, m)| m.first());
            let each: Vec<String> = by_rank
                .iter()
                .map(|(w, m)| format!("[{m}] (which {})", plural_if(w, m.len() > 1)))
                .collect();
            format!("ranks {late}: {}", each.join(", "))
        };
        out.push(Verdict {
            kind: Kind::Collective,
            ranks: late,
            text: format!(
                "{} in {} for {whom}",
                subject(set, "waits", "wait"),
                words(call_key)
            ),
        });
    }

    out.extend(least_progressed(ranks));
    if out.is_empty() {
        let waiting = what
            .values()
            .any(|d| !matches!(d, Doing::Computing | Doing::Ended(_)));
        out.push(Verdict {
            kind: Kind::Note,
            ranks: RankSet::new(),
            text: if waiting {
                "No rank is found waiting for another.".to_string()
            } else {
                no_mpi_words(&info)
            },
        });
    }
    let queued: RankSet = ranks
        .iter()
        .filter(|(_, m)| m.alive && !m.recorder && m.queues)
        .map(|(r, _)| *r)
        .collect();
    if !queued.is_empty() {
        out.insert(
            0,
            Verdict {
                kind: Kind::Note,
                ranks: queued.clone(),
                text: format!(
                    "{} no MPI call recorder: peers and tags are from the MPI library's message queues",
                    subject(&queued, "has", "have")
                ),
            },
        );
    }
    // (Only ranks inside an MPI call lack peers and tags; a computing rank has none.)
    let bare: RankSet = ranks
        .iter()
        .filter(|(_, m)| {
            m.alive
                && !m.recorder
                && !m.queues
                && m.place.as_ref().is_some_and(|p| p.mpi_call.is_some())
        })
        .map(|(r, _)| *r)
        .collect();
    if !bare.is_empty() {
        out.insert(
            0,
            Verdict {
                kind: Kind::Note,
                ranks: bare.clone(),
                text: format!(
                    "{} no MPI call recorder: peers and tags are not known, only the calls the frames show",
                    subject(&bare, "has", "have")
                ),
            },
        );
    }
    out
}

/// "is running …" said of several ranks.
fn plural(w: &str) -> String {
    if let Some(rest) = w.strip_prefix("is ") {
        format!("are {rest}")
    } else if let Some(rest) = w.strip_prefix("has ") {
        format!("have {rest}")
    } else if let Some(rest) = w.strip_prefix("waits ") {
        format!("wait {rest}")
    } else if let Some(rest) = w.strip_prefix("never arrives") {
        format!("never arrive{rest}")
    } else {
        w.to_string()
    }
}

fn plural_if(w: &str, many: bool) -> String {
    if many { plural(w) } else { w.to_string() }
}

/// The strongly connected parts of more than one rank (or a rank waiting for itself), each
/// in rank order, in the order of their lowest rank (Tarjan's algorithm, without recursion).
fn cycles(edges: &BTreeMap<u32, Vec<u32>>) -> Vec<Vec<u32>> {
    let mut index: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    let mut stack: Vec<u32> = Vec::new();
    let mut on: BTreeSet<u32> = BTreeSet::new();
    let mut out = Vec::new();
    let mut next = 0usize;
    let none = Vec::new();
    for &start in edges.keys() {
        if index.contains_key(&start) {
            continue;
        }
        // (node, next edge to look at)
        let mut work: Vec<(u32, usize)> = vec![(start, 0)];
        index.insert(start, (next, next));
        next += 1;
        stack.push(start);
        on.insert(start);
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            let succ = edges.get(&v).unwrap_or(&none);
            if let Some(&w) = succ.get(*i) {
                *i += 1;
                if let std::collections::btree_map::Entry::Vacant(e) = index.entry(w) {
                    e.insert((next, next));
                    next += 1;
                    stack.push(w);
                    on.insert(w);
                    work.push((w, 0));
                } else if on.contains(&w) {
                    let wi = index[&w].0;
                    if let Some(e) = index.get_mut(&v) {
                        e.1 = e.1.min(wi);
                    }
                }
                continue;
            }
            work.pop();
            let (vi, vl) = index[&v];
            if let Some(&(u, _)) = work.last()
                && let Some(e) = index.get_mut(&u)
            {
                e.1 = e.1.min(vl);
            }
            if vi == vl {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on.remove(&w);
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.sort_unstable();
                let self_loop = comp.len() == 1 && succ.contains(&v);
                if comp.len() > 1 || self_loop {
                    out.push(comp);
                }
            }
        }
    }
    out.sort();
    out
}

/// Call sites where some ranks made fewer calls than the others (sites most ranks have
/// called; ranks that never called one are not counted).
fn least_progressed(ranks: &[(u32, RankMpi)]) -> Vec<Verdict> {
    let recorded: Vec<&(u32, RankMpi)> = ranks.iter().filter(|(_, m)| m.recorder).collect();
    let mut sites: BTreeMap<(String, String), Vec<(u32, u64)>> = BTreeMap::new();
    for (r, m) in &recorded {
        for s in &m.sites {
            if s.call == "MPI_Finalize" {
                continue;
            }
            sites
                .entry((s.at.clone(), s.call.clone()))
                .or_default()
                .push((*r, s.count));
        }
    }
    let mut out = Vec::new();
    for ((at, call), counts) in sites {
        if counts.len() * 2 < recorded.len() || counts.len() < 2 {
            continue;
        }
        let lo = counts.iter().map(|c| c.1).min().unwrap_or(0);
        let hi = counts.iter().map(|c| c.1).max().unwrap_or(0);
        if lo == hi {
            continue;
        }
        let least: RankSet = counts.iter().filter(|c| c.1 == lo).map(|c| c.0).collect();
        let next = counts
            .iter()
            .map(|c| c.1)
            .filter(|&c| c > lo)
            .min()
            .unwrap_or(hi);
        let others = if next == hi {
            hi.to_string()
        } else {
            format!("{next}\u{2013}{hi}")
        };
        let calls = if lo == 1 { "call" } else { "calls" };
        out.push(Verdict {
            kind: Kind::LeastProgress,
            ranks: least.clone(),
            text: format!(
                "{} {lo} {calls} of {call} at {at}, the others {others}",
                subject(&least, "made", "made")
            ),
        });
    }
    out
}

/// `diagnose [SET]`: the ranks of the set that run are interrupted (their stops are shown as
/// usual), every rank says what its MPI is doing, and the verdicts are printed.
/// Every rank's MPI state (`:mpi`), in rank order, and what could not be looked at (one line
/// a set).
pub async fn collect(front: &mut Front, set: RankSet) -> (Vec<(u32, RankMpi)>, String) {
    let a = front.ask(set, ":mpi").await;
    let mut ranks: Vec<(u32, RankMpi)> = Vec::new();
    let mut err = String::new();
    for g in &a.merged.groups {
        let text = g.out.render();
        match serde_json::from_str::<RankMpi>(text.trim()) {
            Ok(m) => ranks.extend(g.ranks.iter().map(|r| (r, m.clone()))),
            Err(_) => {
                let e = g.err.render();
                let why = if e.trim().is_empty() {
                    "no answer".to_string()
                } else {
                    e.trim().to_string()
                };
                err.push_str(&format!("[{}] not looked at: {why}\n", g.ranks));
            }
        }
    }
    ranks.sort_by_key(|r| r.0);
    if !a.timed_out.is_empty() {
        err.push_str(&format!(
            "[{}] not looked at: no answer in time (the command timed out)\n",
            a.timed_out
        ));
    }
    if !a.lost.is_empty() {
        err.push_str(&format!("[{}] lost\n", a.lost));
    }
    (ranks, err)
}

/// The wait-for graph by groups of ranks doing the same thing: each node the ranks and what
/// they do (`waits in MPI_Recv from 1 tag 7 at ring.c:21`), each edge (from, to) a node's
/// ranks waiting for some of another's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WaitGraph {
    pub nodes: Vec<(RankSet, String)>,
    pub edges: Vec<(usize, usize)>,
}

pub fn wait_graph(ranks: &[(u32, RankMpi)]) -> WaitGraph {
    let info: BTreeMap<u32, &RankMpi> = ranks.iter().map(|(r, m)| (*r, m)).collect();
    let what: BTreeMap<u32, Doing> = info.iter().map(|(r, m)| (*r, doing(m))).collect();
    let mut by_words: BTreeMap<String, RankSet> = BTreeMap::new();
    for (r, d) in &what {
        by_words
            .entry(state_words(info[r], d))
            .or_default()
            .insert(*r);
    }
    let mut nodes: Vec<(RankSet, String)> = by_words.into_iter().map(|(w, s)| (s, w)).collect();
    nodes.sort_by_key(|(s, _)| s.first());
    let node_of = |r: u32| nodes.iter().position(|(s, _)| s.contains(r));
    let mut edges: BTreeSet<(usize, usize)> = BTreeSet::new();
    // Collectives by communicator: every rank in one waits for the members not in it.
    let mut in_coll: BTreeMap<String, (Comm, RankSet)> = BTreeMap::new();
    for (&r, d) in &what {
        match d {
            Doing::P2p { peers, .. } => {
                for &p in peers {
                    if let (Some(a), Some(b)) = (node_of(r), node_of(p))
                        && a != b
                    {
                        edges.insert((a, b));
                    }
                }
            }
            Doing::Collective { comm, .. } => {
                in_coll
                    .entry(comm.key())
                    .or_insert_with(|| (comm.clone(), RankSet::new()))
                    .1
                    .insert(r);
            }
            _ => {}
        }
    }
    for (comm, set) in in_coll.values() {
        let members: Vec<u32> = if comm.is_world() {
            what.keys().copied().collect()
        } else {
            comm.members.clone()
        };
        for m in members.into_iter().filter(|m| !set.contains(*m)) {
            let Some(b) = node_of(m) else { continue };
            for r in set.iter() {
                if let Some(a) = node_of(r)
                    && a != b
                {
                    edges.insert((a, b));
                }
            }
        }
    }
    WaitGraph {
        nodes,
        edges: edges.into_iter().collect(),
    }
}

/// `diagnose [SET]`: the verdicts on the set's ranks (their running ones stopped first, by the
/// caller).
pub async fn run(front: &mut Front, set: RankSet) {
    let (ranks, err) = collect(front, set).await;
    let mut out = String::new();
    for v in verdicts(&ranks) {
        out.push_str(&v.text);
        out.push('\n');
    }
    front.say(&out, &err);
}

/// After a `continue` some ranks of which have not stopped within `--settle`: one line that
/// offers `diagnose`.
pub fn offer(cmd: &str, a: &Answer, settle_ms: u32) -> Option<String> {
    let word = cmd.split_whitespace().next().unwrap_or("");
    if !matches!(word, "continue" | "c" | "cont" | "fg") {
        return None;
    }
    let unfinished = a.merged.groups.iter().any(|g| {
        let t = g.out.render();
        t.contains("has not finished)\n") || t.contains("completes when it returns)\n")
    });
    unfinished.then(|| {
        format!(
            "Not all ranks stopped within {settle_ms} ms (--settle): `diagnose` says what they wait for.\n"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_agentd::mpirec::{Place, SiteCount};

    fn blocked(call: &str, peer: i32, tag: i32, at: &str) -> RankMpi {
        RankMpi {
            alive: true,
            recorder: true,
            call: Some(Call {
                name: call.to_string(),
                peer,
                tag,
                source: NONE,
                recv_tag: NONE,
                root: NONE,
                comm: "MPI_COMM_WORLD".to_string(),
                at: Some(at.to_string()),
                ..Call::default()
            }),
            place: Some(Place::default()),
            ..RankMpi::default()
        }
    }

    /// A rank of the recorder running in the program's `function` at `at`.
    fn running_in(function: &str, at: &str) -> RankMpi {
        RankMpi {
            alive: true,
            recorder: true,
            place: Some(Place {
                function: Some(function.into()),
                at: Some(at.into()),
                ..Place::default()
            }),
            ..RankMpi::default()
        }
    }

    fn texts(v: Vec<Verdict>) -> Vec<String> {
        v.into_iter().map(|v| v.text).collect()
    }

    /// Without the recorder, only the ranks inside an MPI call are said to lack peers and
    /// tags (a computing rank has none to know).
    #[test]
    fn the_no_recorder_note_names_only_ranks_in_mpi() {
        let in_mpi = |call: &str| RankMpi {
            alive: true,
            place: Some(Place {
                function: Some("main".into()),
                at: Some("ring.c:9".into()),
                mpi_call: Some(call.into()),
                lib_call: None,
            }),
            ..RankMpi::default()
        };
        let computing = RankMpi {
            alive: true,
            place: Some(Place {
                function: Some("relax".into()),
                at: Some("ring.c:20".into()),
                mpi_call: None,
                lib_call: None,
            }),
            ..RankMpi::default()
        };
        let r = vec![
            (0, in_mpi("MPI_Barrier")),
            (1, computing),
            (2, in_mpi("MPI_Barrier")),
        ];
        let notes: Vec<Verdict> = verdicts(&r)
            .into_iter()
            .filter(|v| v.text.contains("no MPI call recorder"))
            .collect();
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].ranks.iter().collect::<Vec<_>>(), vec![0, 2]);
    }

    /// A ring of three receives is one cycle, named in rank order.
    #[test]
    fn a_ring_of_receives_is_one_cycle() {
        let r: Vec<(u32, RankMpi)> = (0..3)
            .map(|i| (i, blocked("MPI_Recv", ((i + 2) % 3) as i32, 0, "ring.c:5")))
            .collect();
        assert_eq!(
            texts(verdicts(&r)),
            [
                "ranks 0, 1 and 2 wait for each other in a cycle: rank 0 in MPI_Recv from 2 tag 0 at ring.c:5, rank 1 in MPI_Recv from 0 tag 0 at ring.c:5, rank 2 in MPI_Recv from 1 tag 0 at ring.c:5"
            ]
        );
    }

    /// A collective on a communicator of some ranks waits only for its members: two
    /// communicators of the same name (split ones often have none) are told apart by their
    /// members, and a rank outside both is no one's culprit.
    #[test]
    fn a_collective_on_a_sub_communicator_waits_for_its_members_only() {
        let on = |members: &[u32], at: &str| {
            let mut r = blocked("MPI_Barrier", NONE, NONE, at);
            if let Some(c) = r.call.as_mut() {
                c.comm = String::new();
                c.comm_id = u64::from(members[0]) + 1;
                c.comm_members = members.to_vec();
                c.comm_size = members.len() as i32;
            }
            r
        };
        let computing = running_in("relax", "s.c:8");
        let r = vec![
            (0, on(&[0, 2], "s.c:22")),
            (1, on(&[1, 3], "s.c:22")),
            (2, computing.clone()),
            (3, computing),
        ];
        assert_eq!(
            texts(verdicts(&r)),
            [
                "rank 0 waits in MPI_Barrier on the communicator of ranks 0,2 at s.c:22 for rank 2, which is running in relax at s.c:8",
                "rank 1 waits in MPI_Barrier on the communicator of ranks 1,3 at s.c:22 for rank 3, which is running in relax at s.c:8",
            ]
        );
    }

    /// The wait-for graph groups the ranks by what they do: the barrier's ranks point at the
    /// computing rank, the deadlocked receives at each other.
    #[test]
    fn the_wait_for_graph_links_groups() {
        let computing = running_in("relax", "s.c:8");
        let r = vec![
            (0, blocked("MPI_Barrier", NONE, NONE, "s.c:20")),
            (1, computing),
            (2, blocked("MPI_Barrier", NONE, NONE, "s.c:20")),
            (3, blocked("MPI_Recv", 4, 1, "s.c:30")),
            (4, blocked("MPI_Recv", 3, 1, "s.c:30")),
        ];
        let g = wait_graph(&r);
        let nodes: Vec<(String, &str)> = g
            .nodes
            .iter()
            .map(|(s, w)| (s.to_string(), w.as_str()))
            .collect();
        assert_eq!(
            nodes,
            [
                ("0,2".to_string(), "waits in MPI_Barrier at s.c:20"),
                ("1".to_string(), "is running in relax at s.c:8"),
                ("3".to_string(), "waits in MPI_Recv from 4 tag 1 at s.c:30"),
                ("4".to_string(), "waits in MPI_Recv from 3 tag 1 at s.c:30"),
            ]
        );
        // The barrier waits for every rank not in it: the computing one and the receivers.
        assert_eq!(g.edges, [(0, 1), (0, 2), (0, 3), (2, 3), (3, 2)]);
    }

    /// A blocked send and a receive whose tags differ are unmatched, not a deadlock.
    #[test]
    fn a_blocked_send_with_another_tag_is_unmatched() {
        let r = vec![
            (0, blocked("MPI_Recv", 1, 7, "t.c:3")),
            (1, blocked("MPI_Ssend", 0, 8, "t.c:5")),
        ];
        assert_eq!(
            texts(verdicts(&r)),
            [
                "rank 0 waits in MPI_Recv from 1 tag 7 at t.c:3, but rank 1 sends to it with tag 8: rank 1 in MPI_Ssend to 0 tag 8 at t.c:5"
            ]
        );
    }

    /// Call counts: the ranks with the fewest, and the range of the others.
    #[test]
    fn least_progressed_ranks_by_call_counts() {
        let site = |n| SiteCount {
            call: "MPI_Sendrecv".to_string(),
            at: "halo.c:297".to_string(),
            count: n,
        };
        let r: Vec<(u32, RankMpi)> = [21, 24, 20, 22]
            .into_iter()
            .enumerate()
            .map(|(i, n)| {
                (
                    i as u32,
                    RankMpi {
                        alive: true,
                        recorder: true,
                        sites: vec![site(n)],
                        ..RankMpi::default()
                    },
                )
            })
            .collect();
        assert_eq!(
            texts(verdicts(&r)),
            ["rank 2 made 20 calls of MPI_Sendrecv at halo.c:297, the others 21\u{2013}24"]
        );
    }
}
