//! Breakpoints the window did not set itself, in the source's margin: set, disabled, enabled
//! and deleted from the console (and a `tbreak` gone once hit), every rank's list typed from
//! the agents (`:breakpoints`); and one restored from the program's last session. A real
//! 4-rank session of the `ranks` fixture, then a second one of the same program. And a rank
//! that runs holds nothing up: the breakpoints are asked of the ranks that do not run.

mod common;

use cohort_gui::{
    App, CONSOLE_ID, Model, margin_label, margin_label_disabled, margin_label_partial,
};
use cohort_wire::{RankSet, RankState};
use common::{act, agentd_built, all_four_at, forget_saved_session, launch, pump, sim};
use iced::futures::channel::mpsc::UnboundedReceiver;

/// Types `line` into the console and presses Enter.
fn console(app: &mut App, line: &str) {
    act(app, |ui| {
        ui.click(iced::widget::Id::new(CONSOLE_ID))
            .expect("the console's input");
        let _ = ui.typewrite(line);
        let _ = ui.tap_key(iced::keyboard::key::Named::Enter);
    });
    assert!(
        app.model
            .console
            .iter()
            .any(|l| *l == format!("(cohort) {line}")),
        "{line} was not submitted"
    );
}

/// The session's events go to one sink per process (`events::send_events_to`): the tests
/// of this file run one at a time.
static ONE_SESSION: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The number of the breakpoint at `line` in the session's typed list.
fn number_at(m: &Model, line: u32) -> Option<u32> {
    m.breakpoint_list
        .iter()
        .find(|(b, _)| b.line == Some(line))
        .map(|(b, _)| b.number)
}

/// The margin of `line` shows `label`.
fn margin_shows(app: &App, label: &str) -> bool {
    sim(app).find(label).is_ok()
}

fn start(prog: &std::path::Path) -> (App, UnboundedReceiver<Vec<cohort_gui::Update>>) {
    start_with(prog, &["-n", "4", "--"])
}

fn start_with(
    prog: &std::path::Path,
    options: &[&str],
) -> (App, UnboundedReceiver<Vec<cohort_gui::Update>>) {
    launch(prog, options)
}

#[test]
fn breakpoints_from_the_console_and_the_last_session_in_the_margin() {
    let _one = ONE_SESSION.lock().unwrap_or_else(|e| e.into_inner());
    agentd_built();
    let prog = cohort_fixtures::program_in_own_dir("ranks", "gui-breakpoints");
    // The program's last session: none at first (this test saves one, then restores it).
    forget_saved_session(&prog);

    let (mut app, mut rx) = start(&prog);
    pump(&mut app, &mut rx, "the ranks at main", |m| {
        all_four_at(m, 18)
    });
    let shown = app.model.shown.clone().expect("a file shown");
    assert!(!margin_shows(&app, &margin_label(24, true)));

    // `break` in the console: the dot in line 24's margin, on every rank.
    console(&mut app, "break ranks.c:24");
    pump(&mut app, &mut rx, "the console's breakpoint", |m| {
        m.breakpoints.contains(&(shown.clone(), 24))
    });
    assert!(margin_shows(&app, &margin_label(24, true)));
    let n = number_at(&app.model, 24).expect("its number");
    assert_eq!(
        app.model
            .breakpoint_list
            .iter()
            .find(|(b, _)| b.number == n)
            .map(|(b, r)| (b.file.clone(), b.enabled, b.temporary, r.clone())),
        Some((Some("ranks.c".into()), true, false, RankSet::all(4)))
    );

    // `disable N`: a ring; `enable N`: the dot again.
    console(&mut app, &format!("disable {n}"));
    pump(&mut app, &mut rx, "the disabled breakpoint", |m| {
        m.disabled.contains(&(shown.clone(), 24))
    });
    assert!(margin_shows(&app, &margin_label_disabled(24)));
    assert!(!margin_shows(&app, &margin_label(24, true)));
    console(&mut app, &format!("enable {n}"));
    pump(&mut app, &mut rx, "the enabled breakpoint", |m| {
        m.disabled.is_empty()
    });
    assert!(margin_shows(&app, &margin_label(24, true)));

    // A `tbreak` of rank 1 only in compute: in the margin as one of some ranks (a half
    // disc), gone once hit.
    console(&mut app, "[1] tbreak ranks.c:10");
    pump(&mut app, &mut rx, "the temporary breakpoint", |m| {
        m.breakpoints.contains(&(shown.clone(), 10))
    });
    assert!(margin_shows(&app, &margin_label_partial(10)));
    assert!(!margin_shows(&app, &margin_label(10, true)));
    assert_eq!(
        app.model.partial.get(&(shown.clone(), 10)),
        Some(&RankSet::single(1))
    );
    let t = number_at(&app.model, 10).expect("its number");
    assert!(
        app.model
            .breakpoint_list
            .iter()
            .any(|(b, r)| b.number == t && b.temporary && *r == RankSet::single(1)),
        "{:?}",
        app.model.breakpoint_list
    );
    console(&mut app, "continue");
    pump(&mut app, &mut rx, "the stop at line 24", |m| {
        all_four_at(m, 24)
    });
    console(&mut app, "[1] continue");
    pump(&mut app, &mut rx, "rank 1 in compute", |m| {
        m.states
            .get(1)
            .and_then(RankState::place)
            .and_then(|p| p.line)
            == Some(10)
            && !m.breakpoints.contains(&(shown.clone(), 10))
    });
    assert!(!margin_shows(&app, &margin_label(10, true)));
    assert!(!margin_shows(&app, &margin_label_partial(10)));

    // `delete N`: gone from the margin.
    console(&mut app, &format!("delete {n}"));
    pump(&mut app, &mut rx, "the deleted breakpoint", |m| {
        !m.breakpoints.contains(&(shown.clone(), 24))
    });
    assert!(!margin_shows(&app, &margin_label(24, true)));

    // One left for the next session (saved at the end).
    console(&mut app, "break ranks.c:26");
    pump(&mut app, &mut rx, "line 26's breakpoint", |m| {
        m.breakpoints.contains(&(shown.clone(), 26))
    });
    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });

    // The next session of the program restores it: the dot in line 26's margin.
    let (mut app, mut rx) = start(&prog);
    pump(&mut app, &mut rx, "the restored breakpoint", |m| {
        all_four_at(m, 18) && m.breakpoints.contains(&(shown.clone(), 26))
    });
    assert!(margin_shows(&app, &margin_label(26, true)));
    assert!(!margin_shows(&app, &margin_label(24, true)));
    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
    forget_saved_session(&prog);
}

/// Rank 1 of `one_hangs` spins for ever after Continue: the breakpoints asked after the
/// command are rank 0's alone (a command for a running rank would wait for it until the
/// 30 s timeout, and Pause behind it), so Pause stops rank 1 at once.
#[test]
fn a_running_rank_holds_nothing_up() {
    let _one = ONE_SESSION.lock().unwrap_or_else(|e| e.into_inner());
    agentd_built();
    let prog = cohort_fixtures::program_in_own_dir("one_hangs", "gui-breakpoints-running");
    let (mut app, mut rx) = start_with(&prog, &["-n", "2", "--no-restore", "--"]);
    pump(&mut app, &mut rx, "the ranks at main", |m| {
        m.size == 2 && (0..2).all(|r| m.states.get(r).and_then(RankState::place).is_some())
    });
    act(&mut app, |ui| {
        ui.click("Continue (F5)").expect("the continue button");
    });
    pump(&mut app, &mut rx, "rank 0's end, rank 1 running", |m| {
        matches!(m.states.get(0), Some(RankState::Exited { code: 0 }))
            && m.states.get(1) == Some(&RankState::Running)
    });
    let t = std::time::Instant::now();
    act(&mut app, |ui| {
        ui.click("Pause").expect("the pause button");
    });
    pump(&mut app, &mut rx, "rank 1 stopped", |m| {
        matches!(m.states.get(1), Some(RankState::Stopped { .. }))
    });
    assert!(
        t.elapsed() < std::time::Duration::from_secs(10),
        "Pause took {:?}",
        t.elapsed()
    );
    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
}

/// Rank 1 of `one_hangs` runs for ever with a breakpoint of its own (on a line it never
/// reaches): while it runs, its breakpoints are not asked (see above), and the margin keeps
/// the ones it had when it last answered (`◐`: rank 0 has none there). Rank 0 stops at a
/// `tbreak` of its own, gone from the list once hit.
#[test]
fn a_running_ranks_breakpoints_stay_in_the_margin() {
    let _one = ONE_SESSION.lock().unwrap_or_else(|e| e.into_inner());
    agentd_built();
    let prog = cohort_fixtures::program_in_own_dir("one_hangs", "gui-breakpoints-kept");
    let (mut app, mut rx) = start_with(&prog, &["-n", "2", "--no-restore", "--"]);
    pump(&mut app, &mut rx, "the ranks at main", |m| {
        m.size == 2 && (0..2).all(|r| m.states.get(r).and_then(RankState::place).is_some())
    });
    let path = app.model.shown.clone().expect("one_hangs.c shown");
    console(&mut app, "[1] break one_hangs.c:15");
    console(&mut app, "[0] tbreak one_hangs.c:13");
    pump(&mut app, &mut rx, "both breakpoints in the list", |m| {
        m.breakpoints.contains(&(path.clone(), 15)) && m.breakpoints.contains(&(path.clone(), 13))
    });
    act(&mut app, |ui| {
        ui.click("Continue (F5)").expect("the continue button");
    });
    // Rank 0 at its tbreak (gone from its list), rank 1 running.
    pump(
        &mut app,
        &mut rx,
        "rank 0 at line 13, rank 1 running, the list asked",
        |m| {
            m.states
                .get(0)
                .and_then(RankState::place)
                .and_then(|p| p.line)
                == Some(13)
                && m.states.get(1) == Some(&RankState::Running)
                && !m.breakpoints.contains(&(path.clone(), 13))
        },
    );
    assert!(
        app.model.breakpoints.contains(&(path.clone(), 15)),
        "rank 1's breakpoint left the margin: {:?}",
        app.model.breakpoint_list
    );
    assert_eq!(
        app.model.partial.get(&(path.clone(), 15)),
        Some(&RankSet::single(1))
    );
    sim(&app)
        .find(margin_label_partial(15))
        .expect("line 15 marked ◐");
    act(&mut app, |ui| {
        ui.click("Pause").expect("the pause button");
    });
    pump(&mut app, &mut rx, "rank 1 stopped", |m| {
        matches!(m.states.get(1), Some(RankState::Stopped { .. }))
    });
    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
}
