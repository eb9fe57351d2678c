//! `cohort-agentd`: the node agent. Started by the front end (`cohort launch`) or by the
//! resource manager (one per node); it controls its ranks and joins the agent tree.

use std::ffi::OsString;
use std::io::Read as _;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;
use cohort_agentd::node::{self, LocalRank, Msg, Node};
use cohort_agentd::rank::Init;
use cohort_agentd::stdio;
use cohort_wire::{RankSet, Secret};

#[derive(Parser, Debug)]
#[command(name = "cohort-agentd", about = "Cohort's node agent", version)]
struct Args {
    /// This agent's number in the tree (0-based); when started by a resource manager, from
    /// its environment (SLURM_NODEID, OMPI_COMM_WORLD_RANK, PMI_RANK).
    #[arg(long)]
    index: Option<u32>,
    /// How many agents the tree has.
    #[arg(long)]
    agents: u32,
    /// Agent addresses: agent i listens on HOSTS[i] (comma-separated) …
    #[arg(long, value_delimiter = ',')]
    hosts: Vec<String>,
    /// … or on this IPv4 address plus i (loopback trees: 127.1.0.1, 127.1.0.2, …).
    #[arg(long)]
    host_base: Option<Ipv4Addr>,
    /// The port every agent of the session listens on.
    #[arg(long)]
    port: u16,
    /// The front end's address (the parent of the first agents).
    #[arg(long)]
    root: SocketAddr,
    /// Children of the root, children of every agent below.
    #[arg(long, default_value = "32,8", value_delimiter = ',')]
    fanout: Vec<u32>,
    /// The session secret, from a file of mode 0600 (else `--secret-stdin`, else the
    /// environment variable COHORT_SECRET, in hex).
    #[arg(long)]
    secret_file: Option<PathBuf>,
    /// Read the session secret (64 hex digits and a newline) from standard input, as the
    /// front end hands it to the agents it starts: no file to leave behind.
    #[arg(long)]
    secret_stdin: bool,
    /// Number of ranks of the job.
    #[arg(long)]
    size: u32,
    /// The ranks this agent starts (local launcher).
    #[arg(long)]
    ranks: Option<String>,
    /// The ranks of `--ranks` examine core files instead of starting the program: `%r` in
    /// the pattern is the rank.
    #[arg(long)]
    cores: Option<String>,
    /// Ranks to attach to: RANK=PID,… (MPIR acquisition).
    #[arg(long, value_delimiter = ',')]
    attach: Vec<String>,
    /// Accept the job's ranks from `cohort-rankwrap` wrappers on this unix socket (MPICH).
    #[arg(long)]
    wrap_socket: Option<PathBuf>,
    /// Ranks to attach to on whichever node this agent runs: NODE:RANK=PID,… (the agent takes
    /// the entries of its node, SLURMD_NODENAME or its host name).
    #[arg(long, value_delimiter = ',')]
    attach_table: Vec<String>,
    /// The ranks attached to (`--attach`, `--attach-table`) are a job this session launched:
    /// killed at the end of the session, not detached.
    #[arg(long)]
    kill_at_end: bool,
    /// Why a rank attached to would die early (its MPI_Init cannot work under the launcher):
    /// said when one ends with a failure.
    #[arg(long)]
    exit_note: Option<String>,
    /// Working directory of launched ranks.
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Tracer threads: the node's ranks are spread over this many threads (default:
    /// COHORT_TRACERS, else one per CPU, or one per 128 ranks where that is more).
    #[arg(long)]
    tracers: Option<usize>,
    /// The program and its arguments (launched ranks).
    #[arg(last = true)]
    program: Vec<OsString>,
}

fn agent_addr(a: &Args, i: u32) -> anyhow::Result<SocketAddr> {
    if let Some(base) = a.host_base {
        let ip = Ipv4Addr::from(u32::from(base).wrapping_add(i));
        return Ok(SocketAddr::new(IpAddr::V4(ip), a.port));
    }
    let h = a
        .hosts
        .get(i as usize)
        .with_context(|| format!("no host given for agent {i}"))?;
    use std::net::ToSocketAddrs;
    (h.as_str(), a.port)
        .to_socket_addrs()
        .with_context(|| format!("resolving {h}"))?
        .next()
        .with_context(|| format!("no address for {h}"))
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("COHORT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let mut a = Args::parse();
    let node = std::env::var("SLURMD_NODENAME").unwrap_or_else(|_| {
        nix::unistd::gethostname()
            .map(|h| h.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    if a.index.is_none() && !a.hosts.is_empty() {
        // Started by a resource manager on every node: this agent is its node's.
        a.index = a.hosts.iter().position(|h| *h == node).map(|i| i as u32);
    }
    if a.index.is_none() {
        a.index = ["SLURM_NODEID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"]
            .iter()
            .find_map(|v| std::env::var(v).ok().and_then(|s| s.parse().ok()));
    }
    let Some(index) = a.index else {
        bail!(
            "no --index, and none in the environment (SLURM_NODEID, OMPI_COMM_WORLD_RANK, PMI_RANK)"
        );
    };
    if index >= a.agents {
        bail!("--index {index} is not below --agents {}", a.agents);
    }
    let (root_fanout, fanout) = match a.fanout.as_slice() {
        [r] => (*r, 8),
        [r, f, ..] => (*r, *f),
        [] => (32, 8),
    };
    if root_fanout == 0 || fanout == 0 {
        bail!("--fanout must be at least 1");
    }
    let secret = match (&a.secret_file, std::env::var("COHORT_SECRET")) {
        (Some(f), _) => Secret::from_file(f)?,
        (None, _) if a.secret_stdin => {
            let mut line = String::new();
            // At most one line: 64 hex digits and a newline.
            std::io::Read::take(std::io::stdin().lock(), 128)
                .read_to_string(&mut line)
                .context("reading the session secret from standard input")?;
            Secret::from_hex(line.lines().next().unwrap_or(""))
                .context("the session secret on standard input")?
        }
        (None, Ok(hex)) => Secret::from_hex(hex.trim())?,
        (None, Err(_)) => {
            bail!("no session secret: give --secret-file, --secret-stdin or COHORT_SECRET")
        }
    };
    cohort_engine::process::set_wait_spin(Duration::ZERO);
    stdio::raise_fd_limit();

    let mut locals = Vec::new();
    if let Some(r) = &a.ranks {
        let set = RankSet::parse(r, a.size)?;
        let Some(program) = a.program.first() else {
            bail!("--ranks needs the program after --");
        };
        let base_env = cohort_engine::session::gdb_environment();
        for rank in set.iter() {
            let pipes = stdio::rank_pipes().context("creating the rank's pipes")?;
            let mut env = base_env.clone();
            env.push(("COHORT_RANK".into(), rank.to_string().into()));
            env.push(("COHORT_SIZE".into(), a.size.to_string().into()));
            if let Some(pattern) = &a.cores {
                locals.push(LocalRank {
                    rank,
                    init: Init::Core {
                        program: PathBuf::from(program),
                        core: PathBuf::from(pattern.replace("%r", &rank.to_string())),
                    },
                    pipes: None,
                });
                continue;
            }
            locals.push(LocalRank {
                rank,
                init: Init::Launch {
                    program: PathBuf::from(program),
                    args: a.program.iter().skip(1).cloned().collect(),
                    env,
                    cwd: a.cwd.clone(),
                    fds: pipes.child.clone(),
                },
                pipes: Some(pipes),
            });
        }
    }
    let mine: Vec<String> = a
        .attach_table
        .iter()
        .filter_map(|e| {
            let (host, spec) = e.rsplit_once(':')?;
            (host == node).then(|| spec.to_string())
        })
        .collect();
    for spec in a.attach.iter().chain(&mine) {
        let (r, p) = spec
            .split_once('=')
            .with_context(|| format!("--attach wants RANK=PID, not {spec}"))?;
        locals.push(LocalRank {
            rank: r.parse().with_context(|| format!("bad rank in {spec}"))?,
            init: Init::Attach {
                pid: p.parse().with_context(|| format!("bad pid in {spec}"))?,
                kill_at_end: a.kill_at_end,
                exit_note: a.exit_note.clone(),
            },
            pipes: None,
        });
    }

    if let Some(sock) = &a.wrap_socket {
        let l = cohort_launch::WrapListener::bind(sock)
            .with_context(|| format!("listening for rank wrappers on {}", sock.display()))?;
        let mut seen = RankSet::new();
        while (seen.len() as u32) < a.size {
            let w = l
                .accept(Duration::from_secs(60))
                .context("waiting for the launcher's ranks")?;
            if w.rank >= a.size || seen.contains(w.rank) {
                bail!("a wrapper announced rank {} twice or out of range", w.rank);
            }
            seen.insert(w.rank);
            locals.push(LocalRank {
                rank: w.rank,
                init: Init::Wrapped(Box::new(w)),
                pipes: None,
            });
        }
    }

    let children = cohort_wire::tree::children(index, a.agents, root_fanout, fanout);
    let parent = match cohort_wire::tree::parent(index, a.agents, root_fanout, fanout) {
        None => a.root,
        Some(p) => agent_addr(&a, p)?,
    };
    let me = agent_addr(&a, index)?;
    let tracers = a.tracers.or_else(|| {
        std::env::var("COHORT_TRACERS")
            .ok()
            .and_then(|v| v.parse().ok())
    });
    if tracers == Some(0) {
        bail!("--tracers must be at least 1");
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let detached = rt.block_on(async move {
        let (up_tx, up_rx) = tokio::sync::mpsc::unbounded_channel();
        let host = nix::unistd::gethostname()
            .map(|h| h.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (mut node, rx) = Node::new(index, host, locals, children.len() as u32, up_tx);
        if let Some(n) = tracers {
            node.set_tracers(n);
        }
        if !children.is_empty() {
            let l = tokio::net::TcpListener::bind(me)
                .await
                .with_context(|| format!("listening on {me}"))?;
            node::serve_children(
                l,
                Secret::from_hex(&secret.to_hex())?,
                node.sender(),
                node.budget(),
            );
        }
        // Children that never come are reported lost; the rest of the tree goes on.
        let tx = node.sender();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(20)).await;
            let _ = tx.send(Msg::RegisterNow);
        });
        let writer = node::connect_parent(
            parent,
            &secret,
            node.sender(),
            up_rx,
            Duration::from_secs(30),
            node.budget(),
        )
        .await
        .with_context(|| format!("joining the tree at {parent}"))?;
        let detached = node.run(rx).await;
        // What the node said last (a loss and its reason) reaches the parent if it can.
        let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
        anyhow::Ok(detached)
    })?;
    tracing::info!("agent {index} done (detached: {detached})");
    Ok(())
}
