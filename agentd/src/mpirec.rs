//! What a rank's MPI is doing, for `diagnose` (issue 20): read from the MPI call recorder
//! preloaded into the rank (cohort_launch::recorder; its global `cohort_mpi_recorder`, found
//! by its ELF symbol and decoded by the fixed layout of `launch/recorder/cohort_mpirec.c`),
//! with where the rank is in the user's terms from its frames. A rank without the recorder
//! (attached jobs, `--no-mpi-recorder`) reports its frames alone.
//!
//! Each rank answers `:mpi` with one line of JSON ([`RankMpi`]); numbers are decimal, so the
//! merging of answers (which ranges addresses) leaves them alone.

use std::ffi::OsString;

use cohort_debugger::Debugger;
use serde::{Deserialize, Serialize};

/// The recorder's name for "any" (`MPI_ANY_SOURCE`, `MPI_ANY_TAG`).
pub const ANY: i32 = -1;
/// No peer or tag (a collective; a request not known).
pub const NONE: i32 = -2;
/// `MPI_PROC_NULL`.
pub const PROC_NULL: i32 = -3;

/// The calls by the recorder's numbers (its `enum`).
pub const CALLS: [&str; 20] = [
    "",
    "MPI_Send",
    "MPI_Ssend",
    "MPI_Recv",
    "MPI_Sendrecv",
    "MPI_Probe",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Alltoall",
    "MPI_Gather",
    "MPI_Scatter",
    "MPI_Allgather",
    "MPI_Isend",
    "MPI_Irecv",
    "MPI_Finalize",
];

const MAGIC: u64 = 0x3152_434d_5452_4843;
const VERSION: u32 = 2;
const SIZE: usize = 7232;
const CUR: usize = 48;
const NRECENT: usize = 416;
const RECENT: usize = 424;
const RECENT_LEN: usize = 16;
const SITES: usize = 808;
const SITES_LEN: usize = 256;
const REQS_LEN: usize = 16;
const CUR_COMM: usize = 6952;
const MEMBERS_LEN: usize = 64;

/// One rank's answer to `:mpi`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankMpi {
    /// The rank has a process (else `state` says how it ended).
    pub alive: bool,
    /// `info ranks`'s words for the rank.
    pub state: String,
    /// Where the rank is in the user's program, from its frames.
    pub place: Option<Place>,
    /// The recorder is loaded and its state was read.
    pub recorder: bool,
    /// Without the recorder: `call`'s peers and tags are from the MPI library's message
    /// queues (crate::msgq), for the call the frames show.
    #[serde(default)]
    pub queues: bool,
    /// The rank has called `MPI_Finalize`.
    pub finalized: bool,
    /// The blocking call the rank is in (recorder).
    pub call: Option<Call>,
    /// Calls per call site, by call and line (recorder).
    pub sites: Vec<SiteCount>,
    /// The last sends, oldest first (recorder).
    pub sends: Vec<Sent>,
}

/// [`cohort_debugger::mpi_place::UserPlace`], serialisable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub function: Option<String>,
    pub at: Option<String>,
    pub mpi_call: Option<String>,
    pub lib_call: Option<String>,
}

/// A blocking call in progress. Peers and roots are world ranks ([`ANY`], [`NONE`],
/// [`PROC_NULL`] aside).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    pub name: String,
    /// The destination of a send, the source of a receive or probe.
    pub peer: i32,
    pub tag: i32,
    /// `MPI_Sendrecv`'s source and receive tag.
    pub source: i32,
    pub recv_tag: i32,
    pub root: i32,
    pub count: i64,
    pub datatype: String,
    pub comm: String,
    pub comm_size: i32,
    /// The communicator's identity for any communicator but `MPI_COMM_WORLD` (a hash of its
    /// members; 0: the world, or not known).
    pub comm_id: u64,
    /// Its members as world ranks, in communicator order (empty: the world, or not known).
    pub comm_members: Vec<u32>,
    /// The line that made the call.
    pub at: Option<String>,
    /// The requests of `MPI_Wait`/`MPI_Waitall`/`MPI_Waitany`.
    pub reqs: Vec<Req>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Req {
    /// "send", "recv", or "" when the request was not made by `MPI_Isend`/`MPI_Irecv`.
    pub kind: String,
    pub peer: i32,
    pub tag: i32,
    pub done: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteCount {
    pub call: String,
    pub at: String,
    pub count: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    pub call: String,
    pub peer: i32,
    pub tag: i32,
    pub at: Option<String>,
}

/// Little-endian fields of the recorder's state (the layout of `cohort_mpirec.c`).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u64(&self, at: usize) -> u64 {
        self.0
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    }
    fn u32(&self, at: usize) -> u32 {
        self.0
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_le_bytes)
    }
    fn i32(&self, at: usize) -> i32 {
        self.u32(at) as i32
    }
    fn str(&self, at: usize, len: usize) -> String {
        let b = self.0.get(at..at + len).unwrap_or(&[]);
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        String::from_utf8_lossy(&b[..end]).into_owned()
    }
}

fn call_name(n: i32) -> String {
    usize::try_from(n)
        .ok()
        .and_then(|i| CALLS.get(i))
        .map_or_else(|| format!("MPI call {n}"), |s| (*s).to_string())
}

/// The rank's answer to `:mpi`, as one line of JSON.
pub fn report(d: &Debugger, rank: u32) -> String {
    let mut r = RankMpi {
        alive: d.pid().is_some(),
        state: d.state_summary(),
        ..RankMpi::default()
    };
    if r.alive {
        r.place = d.user_place().map(|p| Place {
            function: p.function,
            at: p.at,
            mpi_call: p.mpi_call,
            lib_call: p.lib_call,
        });
        read_recorder(d, &mut r);
        if !r.recorder {
            from_queues(d, rank, &mut r);
        }
    }
    serde_json::to_string(&r).unwrap_or_default()
}

/// Without the recorder: the point-to-point call the frames show, with its peers and tags
/// from the operations pending in the MPI library's message queues (when it has them).
fn from_queues(d: &Debugger, rank: u32, r: &mut RankMpi) {
    let Some(place) = &r.place else { return };
    let Some(name) = place.mpi_call.clone() else {
        return;
    };
    let sends_of = |n: &str| matches!(n, "MPI_Send" | "MPI_Ssend" | "MPI_Sendrecv");
    let recvs_of = |n: &str| matches!(n, "MPI_Recv" | "MPI_Probe" | "MPI_Sendrecv");
    let waits = matches!(name.as_str(), "MPI_Wait" | "MPI_Waitall" | "MPI_Waitany");
    if !sends_of(&name) && !recvs_of(&name) && !waits {
        return;
    }
    let Ok(comms) = crate::msgq::queues(d, rank) else {
        return;
    };
    // The pending operations: (is a send, world peer or ANY, tag or ANY, communicator).
    let mut ops: Vec<(bool, i32, i32, String)> = Vec::new();
    for c in &comms {
        for (class, send) in [(0, true), (1, false)] {
            for op in c.queues[class].iter().flatten().filter(|o| o.status == 0) {
                let peer = if op.peer < 0 {
                    ANY
                } else {
                    i32::try_from(op.world_peer).unwrap_or(NONE)
                };
                let tag = op.tag.map_or(ANY, |t| i32::try_from(t).unwrap_or(NONE));
                ops.push((send, peer, tag, c.name.clone()));
            }
        }
    }
    let one = |send: bool| {
        let mut it = ops.iter().filter(|o| o.0 == send);
        match (it.next(), it.next()) {
            (Some(o), None) => Some(o.clone()),
            _ => None,
        }
    };
    let mut call = Call {
        name: name.clone(),
        peer: NONE,
        tag: NONE,
        source: NONE,
        recv_tag: NONE,
        root: NONE,
        at: place.at.clone(),
        ..Call::default()
    };
    if waits {
        if ops.is_empty() {
            return;
        }
        call.comm = ops[0].3.clone();
        call.reqs = ops
            .iter()
            .map(|o| Req {
                kind: if o.0 { "send" } else { "recv" }.to_string(),
                peer: o.1,
                tag: o.2,
                done: false,
            })
            .collect();
    } else if name == "MPI_Sendrecv" {
        let (Some(s), Some(v)) = (one(true), one(false)) else {
            return;
        };
        (call.peer, call.tag, call.source, call.recv_tag) = (s.1, s.2, v.1, v.2);
        call.comm = s.3;
    } else {
        let Some(o) = one(sends_of(&name)) else {
            return;
        };
        (call.peer, call.tag, call.comm) = (o.1, o.2, o.3);
    }
    r.call = Some(call);
    r.queues = true;
}

/// Fills the recorder's part of `r`, when the rank has the recorder.
/// The members of the current call's communicator (`struct rec_comm`): evenly spaced ones
/// from the first and the stride, else the listed ones when all are.
fn members(b: &Bytes, size: i32) -> Vec<u32> {
    let m = CUR_COMM;
    if b.u64(m) == 0 || size <= 0 {
        return Vec::new();
    }
    let (first, stride, listed) = (b.i32(m + 8), b.i32(m + 12), b.i32(m + 16));
    let rank = |v: i64| u32::try_from(v).ok();
    let all: Option<Vec<u32>> = if stride != 0 {
        (0..i64::from(size))
            .map(|i| rank(i64::from(first) + i * i64::from(stride)))
            .collect()
    } else if listed == size && (size as usize) <= MEMBERS_LEN {
        (0..size as usize)
            .map(|i| rank(i64::from(b.i32(m + 24 + 4 * i))))
            .collect()
    } else {
        None
    };
    all.unwrap_or_default()
}

fn read_recorder(d: &Debugger, r: &mut RankMpi) {
    let Some((addr, _)) = d.session.symbols().data_symbol("cohort_mpi_recorder") else {
        return;
    };
    let mut buf = vec![0u8; SIZE];
    if d.session.read_memory(addr, &mut buf).is_err() {
        return;
    }
    let b = Bytes(&buf);
    if b.u64(0) != MAGIC || b.u32(8) != VERSION || b.u32(12) as usize != SIZE {
        return;
    }
    r.recorder = true;
    r.finalized = b.i32(24) != 0;
    let place = |site: u64| d.call_site_place(site);
    let c = CUR;
    let n = b.i32(c);
    if n != 0 {
        let nreq = usize::try_from(b.i32(c + 44)).unwrap_or(0).min(REQS_LEN);
        r.call = Some(Call {
            name: call_name(n),
            peer: b.i32(c + 4),
            tag: b.i32(c + 8),
            source: b.i32(c + 12),
            recv_tag: b.i32(c + 16),
            root: b.i32(c + 20),
            count: b.u64(c + 24) as i64,
            datatype: b.str(c + 48, 32),
            comm: b.str(c + 80, 32),
            comm_size: b.i32(c + 40),
            comm_id: b.u64(CUR_COMM),
            comm_members: members(&b, b.i32(c + 40)),
            at: place(b.u64(c + 32)),
            reqs: (0..nreq)
                .map(|i| {
                    let q = c + 112 + 16 * i;
                    Req {
                        kind: match b.i32(q) {
                            1 => "send",
                            2 => "recv",
                            _ => "",
                        }
                        .to_string(),
                        peer: b.i32(q + 4),
                        tag: b.i32(q + 8),
                        done: b.i32(q + 12) != 0,
                    }
                })
                .collect(),
        });
    }
    let total = b.u64(NRECENT) as usize;
    let kept = total.min(RECENT_LEN);
    for k in total - kept..total {
        let p = RECENT + 24 * (k % RECENT_LEN);
        r.sends.push(Sent {
            call: call_name(b.i32(p + 8)),
            peer: b.i32(p + 12),
            tag: b.i32(p + 16),
            at: place(b.u64(p)),
        });
    }
    // Call sites by call and line: the calls of one line (several return addresses) are one.
    let mut sites: Vec<SiteCount> = Vec::new();
    for i in 0..SITES_LEN {
        let s = SITES + 24 * i;
        let count = b.u64(s + 8);
        if count == 0 {
            continue;
        }
        let call = call_name(b.i32(s + 16));
        let at = place(b.u64(s)).unwrap_or_else(|| "??".to_string());
        match sites.iter_mut().find(|x| x.call == call && x.at == at) {
            Some(x) => x.count += count,
            None => sites.push(SiteCount { call, at, count }),
        }
    }
    sites.sort_by(|a, b| (&a.at, &a.call).cmp(&(&b.at, &b.call)));
    r.sites = sites;
}

/// MPICH's wrapped ranks get the recorder through [`RECORDER_ENV`] (hydra's `-genv`, so that
/// `cohort-rankwrap` does not load it): the rank starts with it in `LD_PRELOAD`.
pub const RECORDER_ENV: &str = "COHORT_MPI_RECORDER";

pub fn preload_recorder(env: &mut Vec<(OsString, OsString)>) {
    let Some(lib) = env
        .iter()
        .find(|(k, _)| k == RECORDER_ENV)
        .map(|(_, v)| v.clone())
    else {
        return;
    };
    match env.iter_mut().find(|(k, _)| k == "LD_PRELOAD") {
        Some((_, v)) if !v.is_empty() => {
            let mut n = lib;
            n.push(":");
            n.push(&*v);
            *v = n;
        }
        Some((_, v)) => *v = lib,
        None => env.push(("LD_PRELOAD".into(), lib)),
    }
}
