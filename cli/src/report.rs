//! `cohort offline` and `cohort demo`: run a job under the tree without a person at the
//! keyboard, stop where asked, record what every group of ranks saw (stop places, stacks,
//! values), and write it as an HTML page (and JSON).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use cohort_wire::RankSet;
use serde::Serialize;

use cohort_session::parallel::{self, LaunchOpts, Session};

#[derive(Debug)]
pub struct OfflineOpts {
    pub launch: LaunchOpts,
    pub breaks: Vec<(String, Option<String>)>,
    pub watches: Vec<(String, Option<String>)>,
    pub evaluate: Vec<String>,
    pub focus: Option<u32>,
    pub html: PathBuf,
    pub json: Option<PathBuf>,
    pub max_stops: u32,
    /// `--settle` was given: a hang is what does not stop within it (else 30 s).
    pub settle_given: bool,
    /// `--submit slurm|pbs`: write a job script that runs this report and submit it.
    pub submit: Option<String>,
    /// `--template FILE`: the job script's template (else the user's, else cohort's).
    pub template: Option<PathBuf>,
    /// The arguments, without `--submit` and `--template` (the job's command line).
    pub argv: Vec<String>,
}

pub const OFFLINE_USAGE: &str = "Usage: cohort offline -n N [--launcher local|openmpi|mpich|slurm] [--agents A] [--settle MS] [--submit slurm|pbs [--template FILE]] [--break LOC[@SET]]... [--watch EXPR[@SET]]...\n                      [--evaluate EXPR]... [--focus RANK] -o REPORT.html [--json REPORT.json] -- PROGRAM [ARGS...]\n       cohort offline -n N --cores PATTERN [--evaluate EXPR]... [--focus RANK] -o REPORT.html [--json REPORT.json] -- PROGRAM\n                      (a job that crashed: one core file per rank, %r in PATTERN is the rank)";

/// `LOC@0-3` → ("LOC", Some("0-3")).
fn at_set(s: &str) -> (String, Option<String>) {
    match s.rsplit_once('@') {
        Some((l, set))
            if !set.is_empty()
                && set
                    .chars()
                    .all(|c| c.is_ascii_digit() || ",-".contains(c) || set == "all") =>
        {
            (l.to_string(), Some(set.to_string()))
        }
        _ => (s.to_string(), None),
    }
}

pub fn parse_offline(argv: &[String]) -> anyhow::Result<OfflineOpts> {
    let mut rest = Vec::new();
    let mut o = OfflineOpts {
        launch: parallel::parse_launch(&["-n".into(), "1".into(), "x".into()])?,
        breaks: Vec::new(),
        watches: Vec::new(),
        evaluate: Vec::new(),
        focus: None,
        html: PathBuf::new(),
        json: None,
        max_stops: 100,
        settle_given: false,
        submit: None,
        template: None,
        argv: Vec::new(),
    };
    let mut html = None;
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        let val = || {
            argv.get(i + 1)
                .cloned()
                .with_context(|| format!("option '{a}' requires an argument\n{OFFLINE_USAGE}"))
        };
        match a {
            "--break" | "-b" => o.breaks.push(at_set(&val()?)),
            "--watch" => o.watches.push(at_set(&val()?)),
            "--evaluate" | "-e" => o.evaluate.push(val()?),
            "--focus" => {
                let v = val()?;
                o.focus = Some(
                    v.parse()
                        .with_context(|| format!("--focus wants a rank, not {v}"))?,
                );
            }
            "-o" | "--output" => html = Some(PathBuf::from(val()?)),
            "--json" => o.json = Some(PathBuf::from(val()?)),
            "--submit" => {
                let v = val()?;
                if v != "slurm" && v != "pbs" {
                    bail!("--submit takes slurm or pbs, not {v}\n{OFFLINE_USAGE}");
                }
                o.submit = Some(v);
            }
            "--template" => o.template = Some(PathBuf::from(val()?)),
            "--max-stops" => {
                let v = val()?;
                o.max_stops = v
                    .parse()
                    .with_context(|| format!("--max-stops wants a number, not {v}"))?;
            }
            "--" => {
                rest.extend(argv[i..].iter().cloned());
                break;
            }
            _ => {
                rest.push(a.to_string());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    o.settle_given = rest.iter().any(|a| a == "--settle");
    o.launch = parallel::parse_launch(&rest)?;
    o.html = html.with_context(|| format!("offline needs -o REPORT.html\n{OFFLINE_USAGE}"))?;
    if o.launch.cores.is_some() && (!o.breaks.is_empty() || !o.watches.is_empty()) {
        bail!("--break and --watch need a running job, not core files\n{OFFLINE_USAGE}");
    }
    // With no --break and no --watch the job runs from main to its end: an exit, a crash
    // (a stop at the signal) or a hang (ranks still running after --settle).
    Ok(o)
}

#[derive(Serialize, Debug, Default)]
pub struct Group {
    pub ranks: String,
    pub text: String,
}

#[derive(Serialize, Debug, Default)]
pub struct Stop {
    pub number: u32,
    /// What the ranks reported (stop lines, exits), grouped; thread and fork notices folded
    /// away (counted in `folded`).
    pub events: Vec<Group>,
    /// How many thread and fork notices (`[New Thread …]`) were left out of `events`.
    pub folded: usize,
    /// Some ranks did not stop within the settle time: the job hangs (they were stopped to
    /// look at them, and the run ends here).
    pub hang: bool,
    /// The ranks that were still running at a hang.
    pub hung: String,
    /// `diagnose`'s verdicts at a hang, and what could not be looked at.
    pub verdicts: Vec<String>,
    /// The wait-for graph at a hang: groups of ranks and who waits for whom.
    pub graph: Option<Graph>,
    /// Expressions not in scope, with the ranks where they are not (`--evaluate`).
    pub out_of_scope: Vec<(String, String)>,
    /// State of every rank after the stop, grouped.
    pub states: Vec<Group>,
    /// Distinct stacks of the stopped ranks.
    pub stacks: Vec<Group>,
    /// Values of the expressions, per expression, grouped.
    pub values: Vec<(String, Vec<Group>)>,
    /// `info locals` and `bt full` of the focus rank, if it stopped.
    pub focus: Option<String>,
}

/// A wait-for graph between groups of ranks (`diagnose::wait_graph`).
#[derive(Serialize, Debug, Default)]
pub struct Graph {
    /// (ranks, what they do).
    pub nodes: Vec<(String, String)>,
    /// (from, to): indices into `nodes`.
    pub edges: Vec<(usize, usize)>,
}

#[derive(Serialize, Debug, Default)]
pub struct Report {
    pub program: String,
    pub args: Vec<String>,
    pub ranks: u32,
    pub agents: u32,
    pub tree_ms: u128,
    pub total_ms: u128,
    pub setup: Vec<Group>,
    pub stops: Vec<Stop>,
    /// The program's own output, `[rank] line`.
    pub output: Vec<String>,
    pub final_states: Vec<Group>,
    /// The summary: how the run ended, which ranks diverged, the verdict of a hang.
    pub summary: Vec<String>,
}

/// A thread or fork notice (`[New Thread 0x… (LWP 12)]`, `[Thread … exited]`, `[Detaching
/// after fork from child process 12]`, `[Inferior 1 (process 12) detached]`): noise in a
/// report.
fn is_noise(line: &str) -> bool {
    let l = line.trim();
    l.starts_with('[')
        && l.ends_with(']')
        && (l.starts_with("[New Thread ")
            || (l.starts_with("[Thread ") && l.ends_with(" exited]"))
            || l.starts_with("[Detaching after ")
            || l.starts_with("[New inferior ")
            || l.starts_with("[Inferior "))
}

/// `groups` without the noise lines (and groups left empty by them); how many were dropped.
fn groups_folded(text: &str) -> (Vec<Group>, usize) {
    let mut dropped = 0;
    let kept: Vec<Group> = groups(text)
        .into_iter()
        .filter_map(|mut g| {
            let lines: Vec<&str> = g.text.lines().collect();
            let keep: Vec<&str> = lines.iter().copied().filter(|l| !is_noise(l)).collect();
            dropped += lines.len() - keep.len();
            if keep.len() == lines.len() {
                return Some(g);
            }
            if keep.iter().all(|l| l.trim().is_empty()) {
                return None;
            }
            g.text = keep.join("\n");
            Some(g)
        })
        .collect();
    // Groups of the same ranks next to each other again after the folding.
    let mut merged: Vec<Group> = Vec::new();
    for g in kept {
        match merged.last_mut() {
            Some(m) if m.ranks == g.ranks => {
                m.text.push('\n');
                m.text.push_str(&g.text);
            }
            _ => merged.push(g),
        }
    }
    (merged, dropped)
}

/// The program's output, `[rank] line`, merged by rank set: the k-th line of each rank's
/// output with the same text is one line `[SET] text`, in the order of the ranks' lines.
fn merge_output(lines: &[String], size: u32) -> Vec<String> {
    let mut per_rank: std::collections::BTreeMap<u32, Vec<&str>> = Default::default();
    let mut other: Vec<String> = Vec::new();
    for l in lines {
        let parsed = l
            .strip_prefix('[')
            .and_then(|r| r.split_once("] "))
            .and_then(|(set, text)| Some((RankSet::parse(set, size).ok()?, text)));
        match parsed {
            Some((set, text)) => {
                for r in set.iter() {
                    per_rank.entry(r).or_default().push(text);
                }
            }
            None => other.push(l.clone()),
        }
    }
    let depth = per_rank.values().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for k in 0..depth {
        // Texts in the order of their first rank.
        let mut at_k: Vec<(&str, RankSet)> = Vec::new();
        for (r, ls) in &per_rank {
            let Some(t) = ls.get(k) else { continue };
            match at_k.iter_mut().find(|(x, _)| x == t) {
                Some((_, set)) => set.insert(*r),
                None => at_k.push((t, RankSet::from_iter([*r]))),
            }
        }
        for (t, set) in at_k {
            out.push(format!("[{set}] {t}"));
        }
    }
    out.extend(other);
    out
}

/// The class (colour) of a rank's state line in the grid.
fn state_class(text: &str) -> &'static str {
    let t = text.trim();
    if t.starts_with("running") {
        "run"
    } else if t.starts_with("waiting") {
        "wait"
    } else if t.starts_with("stopped") && t.contains("breakpoint") {
        "bp"
    } else if t.starts_with("stopped") {
        "stop"
    } else if t.starts_with("exited normally") {
        "done"
    } else if t.starts_with("exited") || t.starts_with("killed") || t.contains("lost") {
        "bad"
    } else {
        "other"
    }
}

/// A state line without its ` at FILE:LINE` (`stopped in main at a.c:15` → `stopped in
/// main`).
fn without_line(text: &str) -> &str {
    match text.rsplit_once(" at ") {
        Some((head, place))
            if place
                .rsplit_once(':')
                .is_some_and(|(_, l)| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit())) =>
        {
            head
        }
        _ => text,
    }
}

/// The summary at the top of the report: how the run ended (the final states by rank set),
/// the ranks that ended apart from the most, and a hang's verdicts.
fn summary(r: &Report) -> Vec<String> {
    let mut v = Vec::new();
    let hang = r.stops.iter().find(|s| s.hang);
    match hang {
        Some(s) => v.push(format!(
            "The job hung at stop {}: [{}] did not stop within the settle time (stopped to look at them: their stack is at stop {}).",
            s.number, s.hung, s.number
        )),
        None => {
            let all_done =
                r.final_states.len() == 1 && r.final_states[0].text.trim() == "exited normally";
            if all_done {
                v.push(format!("Every rank exited normally ({} ranks).", r.ranks));
            } else {
                v.push("The run ended with the ranks in these states:".to_string());
            }
        }
    }
    // The final states by what they are, without the line: ranks interrupted at different
    // lines of one loop did not diverge.
    let mut kinds: Vec<(String, RankSet, usize)> = Vec::new();
    for g in &r.final_states {
        let first = g.text.lines().next().unwrap_or("");
        let key = without_line(first).to_string();
        let set = RankSet::parse(&g.ranks, r.ranks).unwrap_or_default();
        match kinds.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, s, places)) => {
                *s = s.union(&set);
                *places += 1;
            }
            None => kinds.push((key, set, 1)),
        }
    }
    if kinds.len() > 1 || hang.is_some() {
        for (k, set, places) in &kinds {
            if *places > 1 {
                v.push(format!("[{set}] {k} (at {places} lines)"));
            } else {
                let whole = r
                    .final_states
                    .iter()
                    .find(|g| without_line(g.text.lines().next().unwrap_or("")) == k)
                    .map(|g| g.text.lines().next().unwrap_or("").to_string())
                    .unwrap_or_default();
                v.push(format!("[{set}] {whole}"));
            }
        }
    }
    if kinds.len() > 1 {
        // The ranks apart from the largest group.
        if let Some(most) = kinds.iter().max_by_key(|(_, s, _)| s.len()) {
            let apart: Vec<String> = kinds
                .iter()
                .filter(|(k, _, _)| *k != most.0)
                .map(|(_, s, _)| s.to_string())
                .collect();
            v.push(format!(
                "Diverged from the most ranks ([{}]): [{}].",
                most.1,
                apart.join("], [")
            ));
        }
    }
    if let Some(s) = hang {
        v.extend(s.verdicts.iter().cloned());
    }
    v
}

fn groups(text: &str) -> Vec<Group> {
    // Merged text is "[SET] line" per line; gather consecutive lines of the same set.
    let mut v: Vec<Group> = Vec::new();
    for l in text.lines() {
        let (set, rest) = match l.strip_prefix('[').and_then(|r| r.split_once("] ")) {
            Some((s, r)) => (s.to_string(), r.to_string()),
            None => match l.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                Some(s) => (s.to_string(), String::new()),
                None => (String::new(), l.to_string()),
            },
        };
        match v.last_mut() {
            Some(g) if g.ranks == set => {
                g.text.push('\n');
                g.text.push_str(&rest);
            }
            _ => v.push(Group {
                ranks: set,
                text: rest,
            }),
        }
    }
    v
}

fn both(o: &str, e: &str) -> String {
    let mut s = o.to_string();
    s.push_str(e);
    s
}

/// Ranks whose state line says they are stopped.
fn stopped_ranks(states: &[Group], size: u32) -> RankSet {
    ranks_where(states, size, is_stopped)
}

/// A rank's state line says it is stopped: `stopped …`, or stopped inside an MPI call and said
/// in the user's terms (`waiting in MPI_Barrier called from spin.c:19`), not a rank still
/// running in its command (`running …`, `waiting in MPI_Recv … (`next` completes when it
/// returns)`).
fn is_stopped(t: &str) -> bool {
    t.starts_with("stopped")
        || (t.starts_with("waiting in ")
            && t.contains(" called from ")
            && !t.ends_with("completes when it returns)"))
}

/// A rank's state line says it is still running (its command has not finished).
fn is_running(t: &str) -> bool {
    t.starts_with("running") || (t.starts_with("waiting") && !is_stopped(t))
}

/// Ranks whose state line passes `what`.
fn ranks_where(states: &[Group], size: u32, what: impl Fn(&str) -> bool) -> RankSet {
    let mut r = RankSet::new();
    for g in states {
        if what(g.text.trim())
            && let Ok(s) = RankSet::parse(&g.ranks, size)
        {
            r = r.union(&s);
        }
    }
    r
}

pub fn offline_main(argv: &[String]) -> anyhow::Result<i32> {
    let mut o = parse_offline(argv)?;
    if o.submit.is_some() {
        // The job's command line: these arguments without --submit and --template.
        let mut keep = Vec::new();
        let mut i = 0;
        while i < argv.len() {
            if argv[i] == "--" {
                keep.extend(argv[i..].iter().cloned());
                break;
            }
            if matches!(argv[i].as_str(), "--submit" | "--template") {
                i += 2;
                continue;
            }
            keep.push(argv[i].clone());
            i += 1;
        }
        o.argv = keep;
        return submit(&o);
    }
    run_offline(o)
}

/// A word for `sh`: as it is when it has no special characters, else in single quotes.
fn sh_quote(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// `--submit slurm|pbs`: the job script, from the template (`--template`, else
/// `$XDG_CONFIG_HOME/cohort/submit-SYSTEM.sh`, else cohort's own), written next to the report
/// (`REPORT.sbatch` / `REPORT.pbs`) and given to `sbatch` / `qsub`.
fn submit(o: &OfflineOpts) -> anyhow::Result<i32> {
    let system = o.submit.as_deref().unwrap_or("slurm");
    let user = cohort_session::saved::xdg_dir("XDG_CONFIG_HOME", ".config")
        .map(|d| d.join("cohort").join(format!("submit-{system}.sh")));
    let template = match (&o.template, user.filter(|p| p.is_file())) {
        (Some(t), _) => std::fs::read_to_string(t)
            .with_context(|| format!("reading the job template {}", t.display()))?,
        (None, Some(u)) => std::fs::read_to_string(&u)
            .with_context(|| format!("reading the job template {}", u.display()))?,
        (None, None) => match system {
            "pbs" => SUBMIT_PBS.to_string(),
            _ => SUBMIT_SLURM.to_string(),
        },
    };
    let workdir = std::env::current_dir()?;
    let name = o
        .html
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "cohort-offline".into());
    // The job runs this cohort, with the job's launcher unless one was chosen.
    let exe = std::env::current_exe()?;
    let mut cmd = vec![exe.display().to_string(), "offline".to_string()];
    let chosen = o.argv.iter().any(|a| a == "--launcher");
    let (before, after) = match o.argv.iter().position(|a| a == "--") {
        Some(i) => o.argv.split_at(i),
        None => (o.argv.as_slice(), &[][..]),
    };
    cmd.extend(before.iter().cloned());
    if !chosen {
        cmd.push("--launcher".into());
        cmd.push(if system == "pbs" { "openmpi" } else { "slurm" }.into());
    }
    cmd.extend(after.iter().cloned());
    let command = cmd
        .iter()
        .map(|w| sh_quote(w))
        .collect::<Vec<_>>()
        .join(" ");
    let n = o.launch.n;
    let nodes = o.launch.slurm.nodes.unwrap_or(1).max(1);
    let time = o.launch.slurm.time.clone();
    let text = template
        .replace("{{name}}", &name)
        .replace("{{ranks}}", &n.to_string())
        .replace("{{nodes}}", &nodes.to_string())
        .replace("{{per_node}}", &n.div_ceil(nodes).to_string())
        .replace(
            "{{nodes_line}}",
            &match (system, o.launch.slurm.nodes) {
                ("slurm", Some(k)) => format!("#SBATCH --nodes={k}"),
                _ => String::new(),
            },
        )
        .replace(
            "{{time_line}}",
            &match (system, &time) {
                ("slurm", Some(t)) => format!("#SBATCH --time={t}"),
                ("pbs", Some(t)) => format!("#PBS -l walltime={t}"),
                _ => String::new(),
            },
        )
        .replace("{{workdir}}", &sh_quote(&workdir.display().to_string()))
        .replace("{{command}}", &command);
    let script = o
        .html
        .with_extension(if system == "pbs" { "pbs" } else { "sbatch" });
    std::fs::write(&script, &text).with_context(|| format!("writing {}", script.display()))?;
    println!("cohort: job script written to {}", script.display());
    let tool = if system == "pbs" { "qsub" } else { "sbatch" };
    let out = match std::process::Command::new(tool).arg(&script).output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!(
                "{tool} is not installed here: submit {} where {system} is",
                script.display()
            )
        }
        Err(e) => return Err(e).with_context(|| format!("running {tool}")),
    };
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        bail!("{tool} {} failed", script.display());
    }
    println!(
        "cohort: the report will be written to {} when the job has run",
        o.html.display()
    );
    Ok(0)
}

/// Cohort's job templates (`--submit`): the user's own in `~/.config/cohort/` take their
/// place.
const SUBMIT_SLURM: &str = include_str!("../templates/submit-slurm.sh");
const SUBMIT_PBS: &str = include_str!("../templates/submit-pbs.sh");

pub fn run_offline(mut o: OfflineOpts) -> anyhow::Result<i32> {
    // Nothing of the user's last session comes back, and this one is not kept.
    o.launch.batch = true;
    o.launch.restore = false;
    // Nobody is waiting at a keyboard: steps and continues may take their time (30 s unless
    // `--settle` says); ranks still running after it are a hang.
    if !o.settle_given {
        o.launch.settle_ms = o.launch.settle_ms.max(30_000);
    }
    let program = parallel::resolve_program(&o.launch.program)?;
    let n = o.launch.n;
    let agents = o.launch.agents;
    let args: Vec<String> = o
        .launch
        .args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let post_mortem = o.launch.cores.is_some();
    let launch = std::mem::replace(
        &mut o.launch,
        parallel::parse_launch(&["-n".into(), "1".into(), "x".into()])?,
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        let t0 = Instant::now();
        // Every launcher: the same start as `cohort launch` (ranks at main).
        let mut session = Session::launch(launch).await?;
        let tree_ms = t0.elapsed().as_millis();
        let front = &mut session.front;
        front.record_output = true;
        let all = RankSet::all(n);
        let mut rep = Report {
            program: program.display().to_string(),
            args,
            ranks: n,
            agents,
            tree_ms,
            ..Default::default()
        };
        let (so, se) = front.ask(all.clone(), ":state").await.render();
        rep.setup.extend(groups(&both(&so, &se)));
        let mut setup_cmds = Vec::new();
        for (loc, set) in &o.breaks {
            setup_cmds.push((set.clone(), format!("break {loc}")));
        }
        for (expr, set) in &o.watches {
            setup_cmds.push((set.clone(), format!("watch {expr}")));
        }
        for (set, cmd) in setup_cmds {
            let ranks = match &set {
                Some(s) => RankSet::parse(s, n)?,
                None => all.clone(),
            };
            let (a, b) = front.ask(ranks, &cmd).await.render();
            rep.setup.extend(groups(&both(&a, &b)));
        }
        // Core files: one stop, where each rank's process ended; nothing runs.
        let stops = if post_mortem { 1 } else { o.max_stops };
        for number in 1..=stops {
            let (st, _) = front.ask(all.clone(), ":state").await.render();
            let now = groups(&st);
            let alive = stopped_ranks(&now, n);
            // No rank stopped to continue, and some still running past the settle time of the
            // last `continue`: the job hangs. They are stopped, `diagnose` says what they wait
            // for, and the run ends here.
            let running = ranks_where(&now, n, is_running);
            let hang = !post_mortem && alive.is_empty() && !running.is_empty();
            if alive.is_empty() && !hang {
                break;
            }
            let (events, folded) = if post_mortem || hang {
                (Vec::new(), 0)
            } else {
                let (eo, ee) = front.ask(alive, "continue").await.render();
                groups_folded(&both(&eo, &ee))
            };
            let mut stop = Stop {
                number,
                events,
                folded,
                hang,
                ..Default::default()
            };
            if hang {
                stop.hung = running.to_string();
                front.interrupt_ranks(running);
                let (ranks, err) = cohort_session::diagnose::collect(front, all.clone()).await;
                stop.verdicts = cohort_session::diagnose::verdicts(&ranks)
                    .into_iter()
                    .map(|v| v.text)
                    .collect();
                stop.verdicts.extend(err.lines().map(str::to_string));
                let g = cohort_session::diagnose::wait_graph(&ranks);
                stop.graph = Some(Graph {
                    nodes: g
                        .nodes
                        .into_iter()
                        .map(|(s, w)| (s.to_string(), w))
                        .collect(),
                    edges: g.edges,
                });
            }
            let (st, _) = front.ask(all.clone(), ":state").await.render();
            stop.states = groups(&st);
            let stopped = stopped_ranks(&stop.states, n);
            if !stopped.is_empty() {
                let a = front.ask(stopped.clone(), ":stacks").await;
                let tree = a
                    .stacks
                    .as_ref()
                    .map(|t| t.render_tree())
                    .unwrap_or_default();
                stop.stacks = vec![Group {
                    ranks: stopped.to_string(),
                    text: tree.trim_end().to_string(),
                }];
                for e in &o.evaluate {
                    let (vo, ve) = front
                        .ask(stopped.clone(), &format!("print {e}"))
                        .await
                        .render();
                    // Shown only where the expression means something: the ranks where its
                    // names are not in scope are one line.
                    let (inside, outside): (Vec<Group>, Vec<Group>) =
                        groups(&both(&vo, &ve)).into_iter().partition(|g| {
                            !(g.text.starts_with("No symbol ")
                                && g.text.ends_with(" in current context."))
                        });
                    if !outside.is_empty() {
                        let set = outside.iter().fold(RankSet::new(), |acc, g| {
                            acc.union(&RankSet::parse(&g.ranks, n).unwrap_or_default())
                        });
                        stop.out_of_scope.push((e.clone(), set.to_string()));
                    }
                    if !inside.is_empty() {
                        stop.values.push((e.clone(), inside));
                    }
                }
                if let Some(f) = o.focus.filter(|f| stopped.contains(*f)) {
                    let (lo, le) = front.ask(RankSet::single(f), "info locals").await.render();
                    let (bo, be) = front.ask(RankSet::single(f), "bt full").await.render();
                    stop.focus = Some(both(&both(&lo, &le), &both(&bo, &be)));
                }
            }
            let hang = stop.hang;
            rep.stops.push(stop);
            if hang {
                break;
            }
        }
        let (st, _) = front.ask(all.clone(), ":state").await.render();
        rep.final_states = groups(&st);
        rep.output = merge_output(&std::mem::take(&mut front.program_output), n);
        session.end().await;
        rep.total_ms = t0.elapsed().as_millis();
        rep.summary = summary(&rep);
        anyhow::Ok(rep)
    })?;
    write_html(&report, &o.html)?;
    println!("cohort: report written to {}", o.html.display());
    if let Some(j) = &o.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(j, text).with_context(|| format!("writing {}", j.display()))?;
        println!("cohort: JSON written to {}", j.display());
    }
    Ok(0)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn table(title: &str, gs: &[Group]) -> String {
    if gs.is_empty() {
        return String::new();
    }
    let mut h = if title.is_empty() {
        String::from("<table><tr><th>ranks</th><th></th></tr>")
    } else {
        format!(
            "<h4>{}</h4><table><tr><th>ranks</th><th></th></tr>",
            esc(title)
        )
    };
    for g in gs.iter().take(TABLE_ROWS) {
        h.push_str(&format!(
            "<tr><td class=r>{}</td><td><pre>{}</pre></td></tr>",
            esc(&g.ranks),
            esc(&g.text)
        ));
    }
    if gs.len() > TABLE_ROWS {
        h.push_str(&format!(
            "<tr><td></td><td class=note>{} more groups of ranks (all of them are in the JSON report)</td></tr>",
            gs.len() - TABLE_ROWS
        ));
    }
    h.push_str("</table>");
    h
}

/// The most groups of ranks a table shows: a value different on each of 10,000 ranks stays
/// readable (and the page small); the JSON report keeps every group.
const TABLE_ROWS: usize = 64;

/// Every rank a cell coloured by its state, 64 to a row (ranks of one state next to each
/// other in a row are one rectangle, so that 10,000 ranks stay small); the pointer over a cell
/// names the ranks and their state.
fn state_grid(states: &[Group], size: u32) -> String {
    const COLS: u32 = 64;
    const CELL: u32 = 9;
    let mut class_of: Vec<(&'static str, usize)> = vec![("other", usize::MAX); size as usize];
    for (i, g) in states.iter().enumerate() {
        if let Ok(set) = RankSet::parse(&g.ranks, size) {
            for r in set.iter() {
                if let Some(c) = class_of.get_mut(r as usize) {
                    *c = (state_class(&g.text), i);
                }
            }
        }
    }
    let rows = size.div_ceil(COLS).max(1);
    let width = COLS.min(size.max(1)) * CELL;
    let mut h = format!(
        "<svg class=grid width={width} height={} viewBox=\"0 0 {width} {}\">",
        rows * CELL,
        rows * CELL
    );
    let mut r = 0u32;
    while r < size {
        let (c, gi) = class_of[r as usize];
        let row_end = (r / COLS + 1) * COLS;
        let mut e = r + 1;
        while e < size.min(row_end) && class_of[e as usize] == (c, gi) {
            e += 1;
        }
        // The cell's own ranks (not the whole group's set, which can be long).
        let title = match states.get(gi) {
            Some(g) => {
                let who = if e - r == 1 {
                    format!("rank {r}")
                } else {
                    format!("ranks {r}-{}", e - 1)
                };
                format!("{who}: {}", g.text.lines().next().unwrap_or(""))
            }
            None => String::new(),
        };
        h.push_str(&format!(
            "<rect class=\"{c}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
            (r % COLS) * CELL,
            (r / COLS) * CELL,
            (e - r) * CELL - 1,
            CELL - 1,
            esc(&title)
        ));
        r = e;
    }
    h.push_str("</svg>");
    h
}

/// The wait-for graph as SVG: the groups of ranks in a column, an arrow from each group to the
/// groups it waits for.
fn graph_svg(g: &Graph) -> String {
    const ROW: usize = 46;
    const BOX_W: usize = 560;
    let height = g.nodes.len().max(1) * ROW + 10;
    let width = BOX_W + 160;
    let mut h = format!(
        "<svg class=waits width={width} height={height} viewBox=\"0 0 {width} {height}\">\
         <defs><marker id=arrow viewBox=\"0 0 10 10\" refX=10 refY=5 markerWidth=7 markerHeight=7 orient=auto-start-reverse>\
         <path d=\"M0 0L10 5L0 10z\" fill=\"#a33\"/></marker></defs>"
    );
    for (i, (ranks, words)) in g.nodes.iter().enumerate() {
        let y = 5 + i * ROW;
        h.push_str(&format!(
            "<rect x=\"5\" y=\"{y}\" width=\"{BOX_W}\" height=\"{}\" rx=\"4\" class=\"node\"/>\
             <text x=\"12\" y=\"{}\"><tspan class=\"set\">[{}]</tspan> {}</text>",
            ROW - 12,
            y + 21,
            esc(ranks),
            esc(words)
        ));
    }
    // Edges on the right of the boxes, bowed out by the distance they span.
    for &(a, b) in &g.edges {
        let (ya, yb) = (5 + a * ROW + (ROW - 12) / 2, 5 + b * ROW + (ROW - 12) / 2);
        let bow = BOX_W + 20 + 25 * a.abs_diff(b).min(5);
        h.push_str(&format!(
            "<path d=\"M{} {ya} C{bow} {ya} {bow} {yb} {} {yb}\" class=\"edge\" marker-end=\"url(#arrow)\"/>",
            BOX_W + 5,
            BOX_W + 5
        ));
    }
    h.push_str("</svg>");
    h
}

pub fn write_html(r: &Report, path: &Path) -> anyhow::Result<()> {
    let mut h = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>Cohort report</title><style>\
         body{font-family:sans-serif;margin:2em;max-width:75em}pre{margin:0;white-space:pre-wrap}\
         table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top;text-align:left}\
         td.r{font-family:monospace;white-space:nowrap;color:#036}h3{border-top:2px solid #036;padding-top:.5em}\
         .summary{background:#f4f7fb;border-left:4px solid #036;padding:.5em 1em}.summary li{font-family:monospace}\
         .hang{color:#a33}nav a{margin-right:1em}.note{color:#666;font-size:90%}\
         svg.grid rect.run{fill:#3a3}svg.grid rect.stop{fill:#36c}svg.grid rect.bp{fill:#e80}svg.grid rect.wait{fill:#dc2}\
         svg.grid rect.done{fill:#999}svg.grid rect.bad{fill:#c22}svg.grid rect.other{fill:#555}\
         svg.waits rect.node{fill:#fff;stroke:#036}svg.waits text{font:13px monospace}svg.waits .set{fill:#036;font-weight:bold}\
         svg.waits path.edge{fill:none;stroke:#a33;stroke-width:1.5}\
         .legend span{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 1em}\
         </style></head><body>",
    );
    h.push_str(&format!(
        "<h1>Cohort report</h1><p><code>{} {}</code><br>{} ranks under {} agent(s); tree formed in {} ms; whole run {} ms.</p>",
        esc(&r.program),
        esc(&r.args.join(" ")),
        r.ranks,
        r.agents,
        r.tree_ms,
        r.total_ms
    ));
    h.push_str("<div class=summary id=summary><h2>Summary</h2><ul>");
    for l in &r.summary {
        h.push_str(&format!("<li>{}</li>", esc(l)));
    }
    h.push_str("</ul></div>");
    // Navigation: every stop, the end, the output.
    h.push_str("<nav><b>Stops:</b> ");
    for s in &r.stops {
        let c = if s.hang { " class=hang" } else { "" };
        h.push_str(&format!(
            "<a href=\"#stop-{}\"{c}>{}{}</a>",
            s.number,
            s.number,
            if s.hang { " (hang)" } else { "" }
        ));
    }
    h.push_str("<a href=\"#end\">end</a><a href=\"#output\">output</a></nav>");
    h.push_str(&table("Start and breakpoints", &r.setup));
    let legend = "<p class=legend>\
        <span style=background:#3a3></span>running<span style=background:#36c></span>stopped\
        <span style=background:#e80></span>at a breakpoint<span style=background:#dc2></span>waiting\
        <span style=background:#999></span>exited normally<span style=background:#c22></span>exited with an error, killed or lost</p>";
    for (i, s) in r.stops.iter().enumerate() {
        h.push_str(&format!(
            "<h3 id=\"stop-{}\">Stop {}{}</h3>",
            s.number,
            s.number,
            if s.hang { ": the job hangs" } else { "" }
        ));
        let prev = if i > 0 {
            format!(
                "<a href=\"#stop-{}\">&larr; stop {}</a>",
                r.stops[i - 1].number,
                r.stops[i - 1].number
            )
        } else {
            "<a href=\"#summary\">&larr; summary</a>".to_string()
        };
        let next = match r.stops.get(i + 1) {
            Some(n) => format!(
                "<a href=\"#stop-{}\">stop {} &rarr;</a>",
                n.number, n.number
            ),
            None => "<a href=\"#end\">end &rarr;</a>".to_string(),
        };
        h.push_str(&format!("<nav>{prev}{next}</nav>"));
        if !s.verdicts.is_empty() {
            h.push_str("<h4>Diagnosis</h4><ul class=hang>");
            for v in &s.verdicts {
                h.push_str(&format!("<li><code>{}</code></li>", esc(v)));
            }
            h.push_str("</ul>");
        }
        if let Some(g) = &s.graph
            && !g.nodes.is_empty()
        {
            h.push_str("<h4>Who waits for whom</h4>");
            h.push_str(&graph_svg(g));
        }
        h.push_str(&table("What the ranks reported", &s.events));
        if s.folded > 0 {
            h.push_str(&format!(
                "<p class=note>{} thread and fork notice{} left out.</p>",
                s.folded,
                if s.folded == 1 { "" } else { "s" }
            ));
        }
        h.push_str(&table("Where every rank is", &s.states));
        h.push_str(&state_grid(&s.states, r.ranks));
        h.push_str(legend);
        h.push_str(&table("Stacks (merged; outermost frame first)", &s.stacks));
        for (e, gs) in &s.values {
            h.push_str(&table(&format!("print {e}"), gs));
        }
        for (e, set) in &s.out_of_scope {
            h.push_str(&format!(
                "<p class=note><code>{}</code> is not in scope on [{}].</p>",
                esc(e),
                esc(set)
            ));
        }
        if let Some(f) = &s.focus {
            h.push_str(&format!("<h4>Focus rank</h4><pre>{}</pre>", esc(f)));
        }
    }
    h.push_str("<h3 id=end>At the end</h3>");
    h.push_str(&table("", &r.final_states));
    h.push_str(&state_grid(&r.final_states, r.ranks));
    h.push_str(legend);
    h.push_str("<h3 id=output>Program output (merged by rank set)</h3><pre>");
    for l in &r.output {
        h.push_str(&esc(l));
        h.push('\n');
    }
    h.push_str("</pre></body></html>\n");
    std::fs::write(path, h).with_context(|| format!("writing {}", path.display()))
}

/// The bundled example of `cohort demo`.
pub const DEMO_SOURCE: &str = include_str!("../demo/heat.c");

/// `cohort demo`: compile the bundled program, run 8 ranks of it offline, write the report.
pub fn demo_main(argv: &[String]) -> anyhow::Result<i32> {
    let dir = std::env::temp_dir().join(format!("cohort-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let src = dir.join("heat.c");
    std::fs::write(&src, DEMO_SOURCE)?;
    let exe = dir.join("heat");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let st = std::process::Command::new(&cc)
        .args(["-g", "-O0", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .with_context(|| {
            format!("running the C compiler '{cc}' (the demo compiles its bundled program)")
        })?;
    if !st.success() {
        bail!("compiling the demo program failed");
    }
    let out = argv
        .iter()
        .position(|a| a == "-o")
        .and_then(|i| argv.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("cohort-demo.html"));
    let json = out.with_extension("json");
    let mut args: Vec<String> = vec!["-n".into(), "8".into(), "--agents".into(), "2".into()];
    // Rank 5 never settles: after 3 s of running alone it is the report's hang.
    args.extend(["--settle".into(), "3000".into()]);
    args.extend(["--break".into(), "heat.c:41".into()]);
    args.extend(["--break".into(), "exchange_halo@0-1".into()]);
    args.extend([
        "--evaluate".into(),
        "rank".into(),
        "--evaluate".into(),
        "t[1]".into(),
    ]);
    args.extend(["--evaluate".into(), "local_sum".into()]);
    args.extend([
        "--focus".into(),
        "0".into(),
        "--max-stops".into(),
        "12".into(),
    ]);
    args.extend(["-o".into(), out.display().to_string()]);
    args.extend(["--json".into(), json.display().to_string()]);
    args.push("--".into());
    args.push(exe.display().to_string());
    println!("cohort demo: 8 ranks of {} under 2 agents", src.display());
    offline_main(&args)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The states of `:state` as stopped or running: a rank stopped inside MPI is said in the
    /// user's terms and is stopped; one whose step waits in MPI is running.
    #[test]
    fn stopped_and_running_states() {
        for t in [
            "stopped in relax at spin.c:7",
            "stopped at breakpoint 1 in main at a.c:3",
            "waiting in MPI_Barrier called from spin.c:19",
        ] {
            assert!(is_stopped(t) && !is_running(t), "{t}");
        }
        for t in [
            "running",
            "running (`continue` has not finished)",
            "running (waiting in MPI_Recv from 1 tag 7 at ring.c:21)",
            "waiting in MPI_Recv from 1 at ring.c:21 called from ring.c:21 (`next` completes when it returns)",
        ] {
            assert!(is_running(t) && !is_stopped(t), "{t}");
        }
        assert!(!is_stopped("exited normally") && !is_running("exited normally"));
    }

    /// A table of more groups than it shows says how many it left out.
    #[test]
    fn a_table_of_many_groups_is_cut() {
        let gs: Vec<Group> = (0..100)
            .map(|r| Group {
                ranks: r.to_string(),
                text: format!("$1 = {r}"),
            })
            .collect();
        let h = table("print rank", &gs);
        assert_eq!(h.matches("<tr>").count(), 1 + TABLE_ROWS + 1);
        assert!(h.contains("36 more groups of ranks (all of them are in the JSON report)"));
    }

    /// Output lines merge by their place in each rank's output.
    #[test]
    fn output_merges_by_rank_set() {
        let lines: Vec<String> = ["[0] start", "[1] start", "[1] one", "[0] zero", "[2] start"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            merge_output(&lines, 3),
            ["[0-2] start", "[0] zero", "[1] one"]
        );
    }

    /// Ranks interrupted at different lines of one function have not diverged: the summary
    /// counts the lines; a rank that ended differently has.
    #[test]
    fn the_summary_groups_states_by_function() {
        let g = |ranks: &str, text: &str| Group {
            ranks: ranks.into(),
            text: text.into(),
        };
        let mut r = Report {
            ranks: 5,
            final_states: vec![
                g("0,3", "stopped in main at p.c:15"),
                g("1", "stopped in main at p.c:16"),
                g("2", "stopped in main at p.c:17"),
            ],
            ..Report::default()
        };
        r.stops.push(Stop {
            number: 2,
            hang: true,
            hung: "0-3".into(),
            verdicts: vec!["No rank waits in MPI.".into()],
            ..Stop::default()
        });
        assert_eq!(
            summary(&r)[1..],
            [
                "[0-3] stopped in main (at 3 lines)",
                "No rank waits in MPI."
            ]
        );
        r.final_states.push(g("4", "exited with code 1"));
        assert_eq!(
            summary(&r)[1..],
            [
                "[0-3] stopped in main (at 3 lines)",
                "[4] exited with code 1",
                "Diverged from the most ranks ([0-3]): [4].",
                "No rank waits in MPI.",
            ]
        );
    }

    /// Thread notices are folded out of what the ranks reported.
    #[test]
    fn thread_notices_are_folded() {
        let (g, n) = groups_folded(
            "[0-1] [New Thread 0x7ffff7a00640 (LWP 12)]\n[0-1] Breakpoint 1, main () at a.c:3\n[1] [Thread 0x7ffff7a00640 (LWP 12) exited]\n",
        );
        assert_eq!(n, 2);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].ranks, "0-1");
        assert_eq!(g[0].text, "Breakpoint 1, main () at a.c:3");
    }
}
