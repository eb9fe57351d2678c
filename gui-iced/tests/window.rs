//! The window driven by iced's simulator against a real 4-rank session of the `ranks`
//! fixture (local launcher, real agents): toggle a breakpoint in the source margin,
//! continue, see the current line and the locals change, focus a rank on the grid, next,
//! step into a function.

mod common;

use std::path::PathBuf;

use cohort_gui::{GRID_ID, Model, margin_label};
use cohort_wire::{RankState, StopReason};
use common::{act, agentd_built, launch, pump, sim};

fn all_at(m: &Model, line: u32, breakpoint: bool) -> bool {
    m.size == 4
        && (0..4).all(|r| match m.states.get(r) {
            Some(RankState::Stopped { reason, place }) => {
                place.line == Some(line) && (*reason == StopReason::Breakpoint) == breakpoint
            }
            _ => false,
        })
}

fn locals(m: &Model) -> String {
    m.locals
        .as_ref()
        .map(|(_, t)| t.clone())
        .unwrap_or_default()
}

#[test]
fn breakpoint_continue_next_step_in_the_window() {
    agentd_built();
    let prog = cohort_fixtures::program_in_own_dir("ranks", "gui");
    // --no-restore: the window saves and restores sessions as `cohort launch` does; this
    // test starts clean every time (its breakpoint is number 2).
    let (mut app, mut rx) = launch(&prog, &["-n", "4", "--no-restore", "--"]);

    // Every rank at main, its file shown, rank 0's locals asked for.
    pump(&mut app, &mut rx, "the ranks at main", |m| {
        all_at(m, 18, false) && m.locals.is_some()
    });
    let shown = app.model.shown.clone().expect("a file shown");
    assert!(shown.ends_with("/ranks.c"), "{shown}");
    assert_eq!(app.model.current_line(), Some(18));
    assert_eq!(
        app.model.describe(0),
        "rank 0: stopped in main at ranks.c:18"
    );

    // A click in the margin of line 24 sets a breakpoint there on every rank.
    act(&mut app, |ui| {
        ui.click(margin_label(24, false)).expect("line 24's margin");
    });
    assert!(app.model.breakpoints.contains(&(shown.clone(), 24)));
    pump(&mut app, &mut rx, "the breakpoint", |m| {
        m.console
            .iter()
            .any(|l| l.starts_with("[0-3] Breakpoint 2 at 0x") && l.ends_with("ranks.c, line 24."))
    });
    // The margin shows it.
    let mut ui = sim(&app);
    ui.find(margin_label(24, true))
        .expect("the breakpoint's dot");
    drop(ui);

    // Continue: every rank at the breakpoint (orange), line 24 current, locals of rank 0.
    act(&mut app, |ui| {
        ui.click("Continue (F5)").expect("the continue button");
    });
    pump(&mut app, &mut rx, "the breakpoint's hit", |m| {
        all_at(m, 24, true) && locals(m).contains("step = 0")
    });
    assert_eq!(app.model.current_line(), Some(24));
    assert_eq!(app.model.groups(), vec!["[0-3] at breakpoint".to_string()]);
    let l = locals(&app.model);
    assert!(l.contains("rank = 0\n") && l.contains("total = 0\n"), "{l}");

    // A click on rank 2's cell focuses it: its locals.
    act(&mut app, |ui| {
        let grid = ui.find(iced::widget::Id::new(GRID_ID)).expect("the grid");
        let b = grid.bounds();
        let (cols, side) = cohort_gui::grid::layout(4, b.size());
        assert!(cols >= 3);
        ui.point_at(iced::Point::new(b.x + 2.5 * side, b.y + side / 2.0));
        let _ = ui.simulate(iced_test::simulator::click());
    });
    assert_eq!(app.model.focus, 2);
    pump(&mut app, &mut rx, "rank 2's locals", |m| {
        m.locals
            .as_ref()
            .is_some_and(|(r, t)| *r == 2 && t.contains("rank = 2\n"))
    });

    // Next: back to the loop's line 23; rank 2's total is now 20.
    act(&mut app, |ui| {
        ui.click("Next (F10)").expect("the next button");
    });
    pump(&mut app, &mut rx, "the next", |m| {
        all_at(m, 23, false) && locals(m).contains("total = 20\n")
    });
    assert_eq!(app.model.current_line(), Some(23));

    // Step twice: to line 24 (onto the breakpoint, which gdb reports), then into compute
    // (line 10).
    for (line, bp) in [(24, true), (10, false)] {
        act(&mut app, |ui| {
            ui.click("Step (F11)").expect("the step button");
        });
        pump(&mut app, &mut rx, "the step", |m| all_at(m, line, bp));
    }
    assert_eq!(
        app.model.describe(2),
        "rank 2: stopped in compute at ranks.c:10"
    );
    pump(&mut app, &mut rx, "compute's locals", |m| {
        locals(m).contains("v = ")
    });

    // The parallel stacks: compute called from main, all four ranks.
    pump(&mut app, &mut rx, "the stacks", |m| {
        m.stacks
            .as_ref()
            .is_some_and(|t| t.render_tree().contains("compute"))
    });
    let tree = app
        .model
        .stacks
        .as_ref()
        .map(|t| t.render_tree())
        .unwrap_or_default();
    assert_eq!(
        tree,
        "main at ranks.c:24  [0-3]\n  compute at ranks.c:10  [0-3]\n"
    );

    // A picture of the window (docs/gui.png is made from one).
    if let Ok(dir) = std::env::var("COHORT_GUI_SNAPSHOT") {
        let mut ui = sim(&app);
        // The pointer over rank 1: its hover line.
        let b = ui
            .find(iced::widget::Id::new(GRID_ID))
            .expect("the grid")
            .bounds();
        let (_, side) = cohort_gui::grid::layout(4, b.size());
        ui.point_at(iced::Point::new(b.x + 1.5 * side, b.y + side / 2.0));
        let snap = ui.snapshot(&iced::Theme::Dark).expect("snapshot");
        let _ = snap.matches_image(PathBuf::from(dir).join("window"));
    }

    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
}
