//! Scrolling the window's panes at 10,000 ranks (bench/gui.sh; a measurement, not a test):
//! a window fed as a 10,000-rank job feeds it — ranks in blocks of states, 10 lines of output
//! from every rank (100,000 lines), parallel stacks of 24 branches, every rank's 34 locals (a
//! class each: every rank holds its own number), the comparison of one of them across the
//! ranks open, a source file of `LINES` lines shown — then each pane scrolled by the mouse
//! wheel, 3 lines a notch, `NOTCHES` notches down and back up. For each notch: the wheel event
//! handled, any message it gives applied and the view rebuilt (as iced's runtime does), and
//! the frame drawn as iced's tiny-skia compositor draws it (1280×820 at scale 1, what changed
//! since the last frame); and for comparison the whole window drawn, every pixel. The figure that decides whether
//! scrolling is smooth is the slowest notch (a frame at 60 Hz is 16.7 ms).
//!
//!     cargo run --release -p cohort-gui --example scroll -- [RANKS [LINES [NOTCHES]]]

use std::time::Instant;

use cohort_gui::{App, Message, Update};
use cohort_session::events::Event;
use cohort_wire::{
    Num, Place, RankSet, RankState, StackTree, States, StopReason, TypedValue, Values,
};
#[path = "common/frame.rs"]
mod frame;

use iced::mouse::{self, ScrollDelta};
use iced::{Event as IcedEvent, Rectangle, Theme};
use iced_core::clipboard;
use iced_runtime::user_interface::{Cache, UserInterface};

/// Where the widget `id` is in the window.
fn bounds_of(
    ui: &mut UserInterface<'_, Message, Theme, iced::Renderer>,
    renderer: &iced::Renderer,
    id: &'static str,
) -> Option<Rectangle> {
    let mut op = iced_test::selector::Selector::find(iced::widget::Id::new(id));
    ui.operate(
        renderer,
        &mut iced_core::widget::operation::black_box(&mut op),
    );
    match iced_core::widget::Operation::finish(&op) {
        iced_core::widget::operation::Outcome::Some(Some(t)) => {
            iced_test::selector::Bounded::visible_bounds(&t)
        }
        _ => None,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A C source of `n` lines, as a solver's file looks.
fn source(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| match i % 6 {
            0 => format!("/* step {i}: the halo exchange with the neighbours */"),
            1 => format!("static double residual_{i}(const double *u, int n)"),
            2 => "{".to_string(),
            3 => format!("    for (int k = 0; k < n; k++) sum += u[k] * {i}.5e-3;"),
            4 => "    return sqrt(sum);".to_string(),
            _ => "}".to_string(),
        })
        .collect()
}

fn scalar(ty: &str, v: f64) -> TypedValue {
    TypedValue::Scalar {
        ty: ty.into(),
        text: format!("{v}"),
        num: Some(Num(v)),
    }
}

/// Every rank's locals at step `k`: `rank` its own, `sum` one of 97 values, `n` and `t` the
/// same on every rank.
fn locals_of(n: u32, k: u32) -> Values {
    let mut v = Values::default();
    for r in 0..n {
        v.add(
            r,
            TypedValue::Struct {
                ty: String::new(),
                fields: [
                    ("rank".to_string(), scalar("int", f64::from(r))),
                    ("n".into(), scalar("int", 1024.0)),
                    (
                        "sum".into(),
                        scalar("double", f64::from((r + k) % 97) * 0.5),
                    ),
                    ("t".into(), scalar("double", 0.25 * f64::from(k.max(1)))),
                ]
                .into_iter()
                // And 30 more, as a solver's routine has.
                .chain((0..30).map(|i| (format!("c{i}"), scalar("double", f64::from(i) + 0.5))))
                .collect(),
            },
        );
    }
    v
}

fn main() {
    let a: Vec<usize> = std::env::args()
        .skip(1)
        .map(|s| s.parse().expect("a number"))
        .collect();
    let n = a.first().copied().unwrap_or(10_000) as u32;
    let lines = a.get(1).copied().unwrap_or(5_000);
    let notches = a.get(2).copied().unwrap_or(40);

    let dir = std::env::temp_dir().join(format!("cohort-scroll-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let path = dir.join("solver.c");
    std::fs::write(&path, source(lines).join("\n")).expect("the source");
    let path = path.to_string_lossy().into_owned();

    // States in blocks: most at a breakpoint in the shown file, some running, some waiting.
    let at = |line: u32| Place {
        function: Some("residual".into()),
        path: Some(path.clone()),
        file: Some("solver.c".into()),
        line: Some(line),
        pc: 0x401000,
    };
    let mut s = States::default();
    s.set_ranks(
        &RankSet::all(n),
        RankState::Stopped {
            reason: StopReason::Breakpoint,
            place: at(40),
        },
    );
    s.set_ranks(
        &RankSet::range(n / 4, n / 2),
        RankState::Stopped {
            reason: StopReason::Other,
            place: at(1_000),
        },
    );
    s.set_ranks(&RankSet::range(n / 2 + 1, n / 2 + 100), RankState::Running);

    // Stacks: four branches below main.
    let mut stacks = StackTree::default();
    for r in 0..n {
        let leaf = ["residual", "exchange", "MPI_Waitall", "write_checkpoint"][(r % 4) as usize];
        stacks.add(
            r,
            &[
                format!(
                    "{leaf}_{} (u=0x7ffd0000, n=1024) at solver.c:{}",
                    r % 24,
                    40 + r % 4
                ),
                format!("step (t={}) at solver.c:900", r % 3),
                "main () at solver.c:1200".to_string(),
            ],
        );
    }

    // Every rank's locals: its own number, and numbers shared by all.
    let locals = locals_of(n, 0);

    let mut app = App::new(None);
    let mut batch = vec![
        Update::Started { size: n },
        Update::Session(Event::States(s)),
        Update::Stacks(stacks),
        Update::Values {
            key: "locals".into(),
            values: Some(locals),
            error: String::new(),
        },
    ];
    for step in 0..10 {
        for r in 0..n {
            batch.push(Update::Session(Event::Output {
                rank: r,
                err: false,
                text: format!(
                    "rank {r} step {step}: residual {:.6e}\n",
                    1.0 / f64::from(r + step + 1)
                ),
            }));
        }
    }
    let t = Instant::now();
    let _ = app.update(Message::Batch(batch));
    println!(
        "{n} ranks, {} lines of output, a source of {lines} lines: fed in {:.0} ms",
        10 * n,
        t.elapsed().as_secs_f64() * 1000.0
    );
    // The comparison of `rank` across the ranks open (a class a rank).
    let _ = app.update(Message::Data(cohort_gui::values::DataMsg::Compare(
        cohort_gui::values::Tree::Locals,
        vec![cohort_wire::PathStep::Field("rank".into())],
    )));

    let t = Instant::now();
    let _ = app.view();
    println!("view built in {:.1} ms", t.elapsed().as_secs_f64() * 1000.0);

    // The application's runtime, as iced runs it: events to the user interface, its
    // messages to the application and the interface rebuilt when there were any, then drawn.
    let mut window = frame::Window::new();
    let size = frame::SIZE;
    // Frames after every rank's locals change (as after a step: a new class a rank).
    let mut after = Vec::new();
    let _ = window.frame(&app);
    for k in 1..=5 {
        let v = locals_of(n, k);
        let _ = app.update(Message::Batch(vec![Update::Values {
            key: "locals".into(),
            values: Some(v),
            error: String::new(),
        }]));
        after.push(window.frame(&app));
    }
    println!(
        "a frame after every rank's locals changed: {:.1} ms (median; {after:.1?})",
        median(after.clone())
    );

    for (pane, id) in cohort_gui::SCROLLED_PANES {
        let mut ui = UserInterface::build(app.view(), size, Cache::default(), &mut window.renderer);
        let Some(bounds) = bounds_of(&mut ui, &window.renderer, id) else {
            println!("{pane}: not in the window");
            continue;
        };
        let cursor = mouse::Cursor::Available(bounds.center());
        let mut messages = Vec::new();
        let mut times = Vec::new();
        let mut full = Vec::new();
        let mut rebuilt = 0;
        let mut phases: [Vec<f64>; 2] = Default::default();
        for i in 0..2 * notches {
            // Away from the pane's anchor first (the output and the console follow their
            // last line: up), then back.
            let away = if [cohort_gui::output::OUTPUT_PANE, cohort_gui::CONSOLE_PANE].contains(&id)
            {
                1.0
            } else {
                -1.0
            };
            let y = if i < notches { away } else { -away };
            let t = Instant::now();
            let _ = ui.update(
                &[IcedEvent::Mouse(mouse::Event::WheelScrolled {
                    delta: ScrollDelta::Lines { x: 0.0, y },
                })],
                cursor,
                &mut window.renderer,
                &mut clipboard::Null,
                &mut messages,
            );
            if !messages.is_empty() {
                let cache = ui.into_cache();
                for m in messages.drain(..) {
                    let _ = app.update(m);
                }
                ui = UserInterface::build(app.view(), size, cache, &mut window.renderer);
                rebuilt += 1;
            }
            let _ = ui.update(
                &[IcedEvent::Window(iced::window::Event::RedrawRequested(
                    Instant::now(),
                ))],
                cursor,
                &mut window.renderer,
                &mut clipboard::Null,
                &mut messages,
            );
            let t_drawn = Instant::now();
            phases[0].push((t_drawn - t).as_secs_f64() * 1000.0);
            // The first frame draws everything (no frame before it).
            let damage = window.draw(&mut ui, cursor, i == 0);
            if std::env::var_os("SCROLL_DAMAGE").is_some() {
                eprintln!("{pane} {i}: {damage:?}");
            }
            phases[1].push(t_drawn.elapsed().as_secs_f64() * 1000.0);
            if i + 1 == notches
                && let Some(dir) = std::env::var_os("SCROLL_PNG")
            {
                window.save(&std::path::Path::new(&dir).join(format!("{id}.png")));
            }
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            // And the whole window drawn (every pixel), for comparison.
            let t = Instant::now();
            let _ = window.draw(&mut ui, cursor, true);
            full.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        // The first frame draws everything (no frame before it).
        let times = times[1..].to_vec();
        let worst = times.iter().copied().fold(0.0, f64::max);
        println!(
            "{pane}: {} notches ({rebuilt} rebuilt the view): a notch handled and its frame drawn in {:.1} ms (median), {:.1} ms (slowest); every pixel of the window {:.1} ms (median)",
            times.len(),
            median(times),
            worst,
            median(full)
        );
        println!(
            "  (medians: events, messages and view {:.1} ms, drawing and rasterising {:.1} ms)",
            median(phases[0].clone()),
            median(phases[1].clone())
        );
        let _ = ui.into_cache();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
