//! The session side of the window, driven by iced's simulator against a real job: the start
//! form launches 4 ranks of the `ranks` fixture (local launcher, real agents) and keeps the
//! session among the recent ones; a drag on the grid selects ranks 1-2, which become a group;
//! Next moves only them (the source marks both groups' lines with their ranks); Continue (all
//! ranks again) runs the job to its end, and the output filter shows rank 2's line alone.
//! (One test: a process has one session.)

mod common;

use std::path::PathBuf;

use cohort_gui::{App, GRID_ID, Model, output, start};
use cohort_wire::{RankSet, RankState};
use common::{act, agentd_built, forget_saved_session, pump, sim};
use iced::mouse;

fn line_of(m: &Model, rank: u32) -> Option<u32> {
    m.states.get(rank).and_then(RankState::place)?.line
}

#[test]
fn start_form_group_step_and_output_filter() {
    agentd_built();
    let prog = cohort_fixtures::program_in_own_dir("ranks", "gui-session");
    let recent = std::env::temp_dir().join(format!("cohort-gui-session-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&recent);
    // The session is saved at its end (for the next of the program): none before, none kept.
    forget_saved_session(&prog);
    let mut app = App::with_start_form(Some(recent.join("recent")));

    // The form: the program typed, 4 ranks (the default), the local launcher, Launch.
    let path = prog.display().to_string();
    act(&mut app, |ui| {
        ui.click(iced::widget::Id::new(start::PROGRAM_ID))
            .expect("the program's field");
        let _ = ui.typewrite(&path);
    });
    assert_eq!(
        app.start.as_ref().map(|f| f.program.clone()),
        Some(path.clone())
    );
    act(&mut app, |ui| {
        ui.click("Launch").expect("the launch button");
    });
    assert!(app.start.is_none(), "the form is gone once launched");
    let kept = start::read_recent(&recent.join("recent"));
    assert_eq!(
        kept,
        vec![vec![
            "-n".to_string(),
            "4".into(),
            "--".into(),
            path.clone()
        ]]
    );
    let mut rx = cohort_gui::link::take_receiver().expect("the session's updates");

    pump(&mut app, &mut rx, "the ranks at main", |m| {
        m.size == 4 && (0..4).all(|r| line_of(m, r) == Some(18))
    });

    // A drag on the grid from rank 1 to rank 2 selects them.
    act(&mut app, |ui| {
        let b = ui
            .find(iced::widget::Id::new(GRID_ID))
            .expect("the grid")
            .bounds();
        let (cols, side) = cohort_gui::grid::layout(4, b.size());
        assert!(cols >= 3);
        ui.point_at(iced::Point::new(b.x + 1.5 * side, b.y + side / 2.0));
        let _ = ui.simulate([iced::Event::Mouse(mouse::Event::ButtonPressed(
            mouse::Button::Left,
        ))]);
        ui.point_at(iced::Point::new(b.x + 2.5 * side, b.y + side / 2.0));
        let _ = ui.simulate([
            iced::Event::Mouse(mouse::Event::CursorMoved {
                position: iced::Point::new(b.x + 2.5 * side, b.y + side / 2.0),
            }),
            iced::Event::Mouse(mouse::Event::ButtonReleased(mouse::Button::Left)),
        ]);
    });
    assert_eq!(app.model.sel.set, Some(RankSet::range(1, 2)));
    // … and a group.
    act(&mut app, |ui| {
        ui.click("Group selection [1-2]").expect("the group button");
    });
    assert_eq!(
        app.model.sel.groups.iter().collect::<Vec<_>>(),
        vec![("g1", &RankSet::range(1, 2))]
    );
    sim(&app).find("g1 [1-2]").expect("the group in the bar");

    // Next: only the group moves (to line 19); ranks 0 and 3 stay at 18.
    act(&mut app, |ui| {
        ui.click("Next (F10)").expect("the next button");
    });
    pump(&mut app, &mut rx, "the group's next", |m| {
        line_of(m, 1) == Some(19)
            && line_of(m, 2) == Some(19)
            && line_of(m, 0) == Some(18)
            && line_of(m, 3) == Some(18)
    });
    // The source marks both lines with their ranks (the picture shows them); the bar has
    // both places.
    let shown = app.model.shown.clone().expect("a file shown");
    assert_eq!(
        cohort_gui::groups::lines_in(&app.model.states, &shown),
        vec![
            (18, RankSet::parse("0,3", 4).unwrap()),
            (19, RankSet::range(1, 2))
        ]
    );
    let mut ui = sim(&app);
    ui.find("main at ranks.c:19 [1-2]")
        .expect("the place group");
    ui.find("main at ranks.c:18 [0,3]")
        .expect("the other place group");
    if let Ok(dir) = std::env::var("COHORT_GUI_SNAPSHOT") {
        let snap = ui.snapshot(&iced::Theme::Dark).expect("snapshot");
        let _ = snap.matches_image(PathBuf::from(dir).join("session"));
    }
    drop(ui);

    // All ranks again; Continue runs the job to its end.
    act(&mut app, |ui| {
        ui.click("all").expect("the all button");
    });
    act(&mut app, |ui| {
        ui.click("Continue (F5)").expect("the continue button");
    });
    pump(&mut app, &mut rx, "the job's output", |m| {
        m.output.lines.len() >= 4
            && (0..4).all(|r| matches!(m.states.get(r), Some(RankState::Exited { .. })))
    });
    let mut lines: Vec<(u32, String)> = app
        .model
        .output
        .lines
        .iter()
        .map(|l| (l.rank, l.text.clone()))
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        vec![
            (0, "rank 0 of 4: total 3".to_string()),
            (1, "rank 1 of 4: total -33".to_string()),
            (2, "rank 2 of 4: total 63".to_string()),
            (3, "rank 3 of 4: total -93".to_string()),
        ]
    );

    // The filter: rank 2's output alone.
    act(&mut app, |ui| {
        ui.click(iced::widget::Id::new(output::FILTER_ID))
            .expect("the filter");
        let _ = ui.typewrite("2");
    });
    assert_eq!(app.model.output.filter, "2");
    let shown: Vec<u32> = app.model.output_shown().map(|l| l.rank).collect();
    assert_eq!(shown, [2]);
    let mut ui = sim(&app);
    ui.find("[2] rank 2 of 4: total 63")
        .expect("rank 2's output shown");
    drop(ui);

    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
    let _ = std::fs::remove_dir_all(&recent);
    forget_saved_session(&prog);
}
