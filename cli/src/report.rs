//! `cohort offline` and `cohort demo`: run a job under the tree without a person at the
//! keyboard, stop where asked, record what every group of ranks saw (stop places, stacks,
//! values), and write it as an HTML page (and JSON).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use cohort_wire::RankSet;
use serde::Serialize;

use cohort_session::parallel::{self, LaunchOpts, Launcher};

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
}

pub const OFFLINE_USAGE: &str = "Usage: cohort offline -n N [--launcher local] [--agents A] --break LOC[@SET]... [--watch EXPR[@SET]]...\n                      [--evaluate EXPR]... [--focus RANK] -o REPORT.html [--json REPORT.json] -- PROGRAM [ARGS...]\n       cohort offline -n N --cores PATTERN [--evaluate EXPR]... [--focus RANK] -o REPORT.html [--json REPORT.json] -- PROGRAM\n                      (a job that crashed: one core file per rank, %r in PATTERN is the rank)";

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
    o.launch = parallel::parse_launch(&rest)?;
    o.html = html.with_context(|| format!("offline needs -o REPORT.html\n{OFFLINE_USAGE}"))?;
    if o.launch.cores.is_some() {
        if !o.breaks.is_empty() || !o.watches.is_empty() {
            bail!("--break and --watch need a running job, not core files\n{OFFLINE_USAGE}");
        }
    } else if o.breaks.is_empty() && o.watches.is_empty() {
        bail!("offline needs at least one --break or --watch\n{OFFLINE_USAGE}");
    }
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
    /// What the ranks reported (stop lines, exits), grouped.
    pub events: Vec<Group>,
    /// State of every rank after the stop, grouped.
    pub states: Vec<Group>,
    /// Distinct stacks of the stopped ranks.
    pub stacks: Vec<Group>,
    /// Values of the expressions, per expression, grouped.
    pub values: Vec<(String, Vec<Group>)>,
    /// `info locals` and `bt full` of the focus rank, if it stopped.
    pub focus: Option<String>,
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
    let mut r = RankSet::new();
    for g in states {
        if g.text.starts_with("stopped")
            && let Ok(s) = RankSet::parse(&g.ranks, size)
        {
            r = r.union(&s);
        }
    }
    r
}

pub fn offline_main(argv: &[String]) -> anyhow::Result<i32> {
    let o = parse_offline(argv)?;
    run_offline(o)
}

pub fn run_offline(mut o: OfflineOpts) -> anyhow::Result<i32> {
    if o.launch.launcher != Launcher::Local {
        bail!("offline mode supports --launcher local in this build");
    }
    // Nobody is waiting at a keyboard: steps and continues may take their time.
    o.launch.settle_ms = o.launch.settle_ms.max(30_000);
    let program = parallel::resolve_program(&o.launch.program)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        let t0 = Instant::now();
        let (mut front, mut agents) = parallel::start_local(&o.launch, &program).await?;
        let tree_ms = t0.elapsed().as_millis();
        front.record_output = true;
        let n = o.launch.n;
        let all = RankSet::all(n);
        let mut rep = Report {
            program: program.display().to_string(),
            args: o
                .launch
                .args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            ranks: n,
            agents: o.launch.agents,
            tree_ms,
            ..Default::default()
        };
        let (so, se) = front.ask(all.clone(), ":start").await.render();
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
        let post_mortem = o.launch.cores.is_some();
        let stops = if post_mortem { 1 } else { o.max_stops };
        for number in 1..=stops {
            let (st, _) = front.ask(all.clone(), ":state").await.render();
            let alive = stopped_ranks(&groups(&st), n);
            if alive.is_empty() {
                break;
            }
            let events = if post_mortem {
                Vec::new()
            } else {
                let (eo, ee) = front.ask(alive, "continue").await.render();
                groups(&both(&eo, &ee))
            };
            let mut stop = Stop {
                number,
                events,
                ..Default::default()
            };
            let (st, _) = front.ask(all.clone(), ":state").await.render();
            stop.states = groups(&st);
            let stopped = stopped_ranks(&stop.states, n);
            if !stopped.is_empty() {
                let (bo, be) = front.ask(stopped.clone(), "bt").await.render();
                stop.stacks = groups(&both(&bo, &be));
                for e in &o.evaluate {
                    let (vo, ve) = front
                        .ask(stopped.clone(), &format!("print {e}"))
                        .await
                        .render();
                    stop.values.push((e.clone(), groups(&both(&vo, &ve))));
                }
                if let Some(f) = o.focus.filter(|f| stopped.contains(*f)) {
                    let (lo, le) = front.ask(RankSet::single(f), "info locals").await.render();
                    let (bo, be) = front.ask(RankSet::single(f), "bt full").await.render();
                    stop.focus = Some(both(&both(&lo, &le), &both(&bo, &be)));
                }
            }
            rep.stops.push(stop);
        }
        let (st, _) = front.ask(all.clone(), ":state").await.render();
        rep.final_states = groups(&st);
        front.shutdown().await;
        rep.output = std::mem::take(&mut front.program_output);
        agents.wait(Duration::from_secs(15)).await;
        drop(agents);
        rep.total_ms = t0.elapsed().as_millis();
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
    let mut h = format!(
        "<h4>{}</h4><table><tr><th>ranks</th><th></th></tr>",
        esc(title)
    );
    for g in gs {
        h.push_str(&format!(
            "<tr><td class=r>{}</td><td><pre>{}</pre></td></tr>",
            esc(&g.ranks),
            esc(&g.text)
        ));
    }
    h.push_str("</table>");
    h
}

pub fn write_html(r: &Report, path: &Path) -> anyhow::Result<()> {
    let mut h = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>Cohort report</title><style>\
         body{font-family:sans-serif;margin:2em;max-width:70em}pre{margin:0;white-space:pre-wrap}\
         table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top;text-align:left}\
         td.r{font-family:monospace;white-space:nowrap;color:#036}h3{border-top:2px solid #036;padding-top:.5em}\
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
    h.push_str(&table("Start and breakpoints", &r.setup));
    for s in &r.stops {
        h.push_str(&format!("<h3>Stop {}</h3>", s.number));
        h.push_str(&table("What the ranks reported", &s.events));
        h.push_str(&table("Where every rank is", &s.states));
        h.push_str(&table("Stacks", &s.stacks));
        for (e, gs) in &s.values {
            h.push_str(&table(&format!("print {e}"), gs));
        }
        if let Some(f) = &s.focus {
            h.push_str(&format!("<h4>Focus rank</h4><pre>{}</pre>", esc(f)));
        }
    }
    h.push_str(&table("At the end", &r.final_states));
    h.push_str("<h3>Program output</h3><pre>");
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
    args.extend(["--break".into(), "heat.c:40".into()]);
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
