//! The window's side of a step at scale (bench/gui.sh; a measurement, not a test): N real
//! ranks of tests/fixtures/ranks.c under A agents, stopped at a breakpoint, then K `next`s of
//! every rank from the window's toolbar. For each: the time from the click to the batch that
//! brings every rank's new place (the step in the agents, the front end's merge and the
//! batching, at most `link::BATCH` = 50 ms after the first update of a batch), the model's
//! update of that batch, and the window's frame (the view built, drawn, what changed
//! rasterised by tiny-skia as iced's compositor does, 1280×820 at scale 1); then the
//! same for every rank's locals, which the window asks for at each stop (their arrival, the
//! building of the view with a sparkline of each number, the drawing); then the grid alone
//! drawn at 10,000 ranks.
//!
//!     cargo run --release -p cohort-gui --example step_latency -- N A K PROGRAM

use std::time::{Duration, Instant};

#[path = "common/frame.rs"]
mod frame;

use cohort_gui::{App, Message, Model};
use cohort_wire::{RankSet, RankState, States, StopReason};
use iced::widget::canvas;
use iced::{Fill, Theme};
use iced_test::simulator::Simulator;

fn all_at(m: &Model, n: u32, line: u32) -> bool {
    m.size == n
        && m.states.groups.iter().map(|(_, r)| r.len()).sum::<u64>() == u64::from(n)
        && m.states
            .groups
            .iter()
            .all(|(s, _)| s.place().and_then(|p| p.line) == Some(line))
}

fn pump(
    app: &mut App,
    rx: &mut iced::futures::channel::mpsc::UnboundedReceiver<Vec<cohort_gui::Update>>,
    what: &str,
    done: impl Fn(&Model) -> bool,
) -> (Instant, f64) {
    let until = Instant::now() + Duration::from_secs(240);
    let mut apply = 0.0;
    loop {
        while let Ok(batch) = rx.try_recv() {
            let t = Instant::now();
            let _ = app.update(Message::Batch(batch));
            apply = t.elapsed().as_secs_f64() * 1000.0;
            if done(&app.model) {
                return (t, apply);
            }
        }
        if done(&app.model) {
            return (Instant::now(), apply);
        }
        assert!(
            Instant::now() < until,
            "timed out waiting for {what}; {:?}; {:?}; the console's last lines:\n{}",
            app.model.groups(),
            app.model
                .states
                .groups
                .iter()
                .map(|(s, _)| s.place().and_then(|p| p.line))
                .collect::<Vec<_>>(),
            app.model.console[app.model.console.len().saturating_sub(30)..].join("\n")
        );
        assert!(
            !app.model.ended,
            "the session ended waiting for {what}: {}",
            app.model.console.join("\n")
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The grid alone (400×140, its size in the window), every cell drawn.
fn draw_grid(model: &Model) -> f64 {
    let cache = canvas::Cache::new();
    let grid = canvas(cohort_gui::grid::Grid {
        size: model.size,
        states: &model.states,
        focus: 0,
        cache: &cache,
        model,
    })
    .width(Fill)
    .height(Fill);
    let mut ui = Simulator::with_size(Default::default(), (400.0, 140.0), grid);
    let t = Instant::now();
    let _ = ui.snapshot(&Theme::Dark).expect("snapshot");
    t.elapsed().as_secs_f64() * 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [n, agents, k, prog] = a.as_slice() else {
        eprintln!("usage: step_latency N AGENTS K PROGRAM");
        std::process::exit(2);
    };
    let n: u32 = n.parse().expect("N");
    let k: u32 = k.parse().expect("K");
    let argv: Vec<String> = [
        "-n",
        &n.to_string(),
        "--agents",
        agents,
        "--no-restore",
        // 10,000 ranks starting on 2 CPUs take about the default 30 s.
        "--timeout",
        "120000",
        "--",
        prog,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let opts = cohort_session::parallel::parse_launch(&argv).expect("options");
    let t = Instant::now();
    let (link, mut rx) = cohort_gui::Link::start_with_receiver(opts);
    let mut app = App::new(Some(link));
    pump(&mut app, &mut rx, "the ranks at main", |m| all_at(m, n, 18));
    println!(
        "{n} ranks under {agents} agents at main in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let _ = app.update(Message::ToggleBreakpoint(24));
    let _ = app.update(Message::Continue);
    pump(&mut app, &mut rx, "the breakpoint", |m| all_at(m, n, 24));
    let (mut to_batch, mut applies, mut draws) = (Vec::new(), Vec::new(), Vec::new());
    let (mut to_locals, mut locals_applies, mut views, mut locals_draws) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut line = 24;
    let mut window = frame::Window::new();
    let _ = window.frame(&app);
    for _ in 0..k {
        line = if line == 24 { 23 } else { 24 };
        app.model.data.locals = None;
        let t0 = Instant::now();
        let _ = app.update(Message::Next);
        let (got, apply) = pump(&mut app, &mut rx, "the next", |m| all_at(m, n, line));
        to_batch.push(got.duration_since(t0).as_secs_f64() * 1000.0);
        applies.push(apply);
        draws.push(window.frame(&app));
        // Then every rank's locals (the window asks for them at each stop: the locals
        // pane's tree of the focus rank, a sparkline of each number across the ranks).
        let (got, apply) = pump(&mut app, &mut rx, "every rank's locals", |m| {
            m.data
                .locals
                .as_ref()
                .is_some_and(|v| v.ranks().len() == u64::from(n))
        });
        to_locals.push(got.duration_since(t0).as_secs_f64() * 1000.0);
        locals_applies.push(apply);
        let t = Instant::now();
        let _ = app.view();
        views.push(t.elapsed().as_secs_f64() * 1000.0);
        locals_draws.push(window.frame(&app));
    }
    let classes = app
        .model
        .data
        .locals
        .as_ref()
        .map_or(0, |v| v.classes.len());
    println!(
        "next of {n} ranks, {k} times: click → batch with every rank's place {:.1} ms (median; {:.1?}), model update {:.2} ms, window's frame {:.1} ms",
        median(to_batch.clone()),
        to_batch,
        median(applies),
        median(draws)
    );
    println!(
        "  then every rank's locals ({classes} distinct): click → in the model {:.1} ms (median; {:.1?}), model update {:.2} ms, view built {:.1} ms, window's frame {:.1} ms",
        median(to_locals.clone()),
        to_locals,
        median(locals_applies),
        median(views),
        median(locals_draws)
    );
    app.quit();
    let _ = pump(&mut app, &mut rx, "the end", |m| m.ended);

    // The grid alone at 10,000 ranks: in blocks of states, and alternating rank by rank.
    for alternating in [false, true] {
        let mut m = Model::new();
        m.size = 10_000;
        let mut s = States::default();
        let stopped = RankState::Stopped {
            reason: StopReason::Breakpoint,
            place: Default::default(),
        };
        s.set_ranks(&RankSet::all(10_000), stopped);
        let other: RankSet = if alternating {
            (0..10_000).filter(|r| r % 2 == 1).collect()
        } else {
            RankSet::range(2_500, 5_000)
        };
        s.set_ranks(&other, RankState::Running);
        m.states = s;
        let times: Vec<f64> = (0..7).map(|_| draw_grid(&m)).collect();
        println!(
            "grid alone, 10,000 ranks{}: {:.1} ms (median; {:.1?})",
            if alternating {
                " alternating rank by rank"
            } else {
                " in blocks"
            },
            median(times.clone()),
            times
        );
    }
}
