//! The locals of a frame other than the innermost: a click on a frame of the focus rank's
//! stack (under the locals' title), or on a node of the parallel stacks, shows that frame's
//! locals, asked of the ranks whose stack is the focus rank's. A real 4-rank session of the
//! `ranks` fixture stopped in `compute` (called from `main`).

mod common;

use cohort_gui::values::DataMsg;
use cohort_gui::{Message, Model, frame_label};
use cohort_wire::{PathStep, RankSet, RankState, TypedValue};
use common::{act, agentd_built, all_four_at, launch, pump, sim};

/// The names of `rank`'s locals as the window has them.
fn names(m: &Model, rank: u32) -> Vec<String> {
    match m.data.locals.as_ref().and_then(|v| v.get(rank)) {
        Some(TypedValue::Struct { fields, .. }) => fields.iter().map(|(n, _)| n.clone()).collect(),
        _ => Vec::new(),
    }
}

fn number(m: &Model, rank: u32, name: &str) -> Option<f64> {
    m.data
        .locals
        .as_ref()?
        .get(rank)?
        .at(&[PathStep::Field(name.into())])?
        .number()
}

/// The first watch's values and error.
fn watch(m: &Model) -> (Option<&cohort_wire::Values>, String) {
    match m.data.watches.first() {
        Some(w) => (w.values.as_ref(), w.error.clone()),
        None => (None, String::new()),
    }
}

/// The parallel stacks' button of the node whose frame starts with `func`.
fn node_label(m: &Model, func: &str) -> String {
    fn walk(t: &cohort_wire::StackTree, depth: usize, func: &str) -> Option<String> {
        for c in &t.children {
            let f = c.frame.render();
            if f.starts_with(func) {
                let r = c.ranks();
                return Some(format!(
                    "{:indent$}{f}  [{r}] ({})",
                    "",
                    r.len(),
                    indent = depth * 2
                ));
            }
            if let Some(l) = walk(c, depth + 1, func) {
                return Some(l);
            }
        }
        None
    }
    m.stacks
        .as_ref()
        .and_then(|t| walk(t, 0, func))
        .expect("the node")
}

#[test]
fn the_locals_of_a_frame_of_the_stack() {
    agentd_built();
    let prog = cohort_fixtures::program_in_own_dir("ranks", "gui-frames");
    let (mut app, mut rx) = launch(
        &prog,
        &["-n", "4", "--no-restore", "-ex", "break ranks.c:10", "--"],
    );
    pump(&mut app, &mut rx, "the ranks at main", |m| {
        all_four_at(m, 18)
    });
    act(&mut app, |ui| {
        ui.click("Continue (F5)").expect("the continue button");
    });

    // In compute: its stack under the locals' title, frame 0 shown (compute's `v`).
    pump(&mut app, &mut rx, "compute's locals and stack", |m| {
        all_four_at(m, 10)
            && names(m, 0) == ["v"]
            && m.focus_stack().is_some_and(|(f, _)| f.len() == 2)
    });
    let (frames, same) = app.model.focus_stack().expect("rank 0's stack");
    assert_eq!(frames, ["compute at ranks.c:10", "main at ranks.c:24"]);
    assert_eq!(same, RankSet::all(4));
    sim(&app)
        .find(frame_label(0, "compute at ranks.c:10", true))
        .expect("frame 0, shown");

    // A watch of main's `total`: not in compute's frame.
    let _ = app.update(Message::Data(DataMsg::WatchInput("total".into())));
    let _ = app.update(Message::Data(DataMsg::AddWatch));
    pump(&mut app, &mut rx, "the watch's answer in frame 0", |m| {
        !watch(m).1.is_empty()
    });
    assert!(
        watch(&app.model)
            .1
            .contains("No symbol \"total\" in current context."),
        "{:?}",
        watch(&app.model)
    );

    // A click on frame 1: main's locals, of every rank (their stacks are the same).
    act(&mut app, |ui| {
        ui.click(frame_label(1, "main at ranks.c:24", false))
            .expect("frame 1");
    });
    assert_eq!(app.model.frame, 1);
    // The source at frame 1's line (the call in main), in the same file.
    assert_eq!(app.model.current_line(), Some(24));
    assert!(
        app.model
            .shown
            .as_deref()
            .is_some_and(|p| p.ends_with("/ranks.c"))
    );
    pump(&mut app, &mut rx, "main's locals", |m| {
        names(m, 0).contains(&"total".to_string())
    });
    let locals = app.model.data.locals.as_ref().expect("the locals");
    assert_eq!(locals.ranks(), RankSet::all(4));
    for r in 0..4 {
        assert_eq!(
            number(&app.model, r, "rank"),
            Some(f64::from(r)),
            "rank {r}"
        );
        assert_eq!(number(&app.model, r, "step"), Some(0.0), "rank {r}");
    }
    // The watch too is in frame 1: every rank's `total` (0 before the first call returns).
    pump(&mut app, &mut rx, "the watch in frame 1", |m| {
        watch(m).0.is_some_and(|v| v.ranks() == RankSet::all(4))
    });
    let (values, error) = watch(&app.model);
    assert_eq!(error, "");
    let values = values.expect("total's values");
    for r in 0..4 {
        assert_eq!(
            values.get(r).and_then(TypedValue::number),
            Some(0.0),
            "rank {r}"
        );
    }
    let mut ui = sim(&app);
    ui.find("Locals of rank 0, frame 1")
        .expect("the title says the frame");
    ui.find(frame_label(1, "main at ranks.c:24", true))
        .expect("frame 1, shown");
    drop(ui);

    // Back to frame 0.
    act(&mut app, |ui| {
        ui.click(frame_label(0, "compute at ranks.c:10", false))
            .expect("frame 0");
    });
    pump(&mut app, &mut rx, "compute's locals again", |m| {
        names(m, 0) == ["v"]
    });
    assert_eq!(app.model.frame, 0);
    assert_eq!(app.model.current_line(), Some(10));

    // Rank 2 back in main: the stacks part. A click on main's node of the parallel stacks
    // focuses its first rank, 0, and shows main's locals (frame 1 of rank 0), asked of the
    // ranks still in compute with it.
    act(&mut app, |ui| {
        ui.click(iced::widget::Id::new(cohort_gui::CONSOLE_ID))
            .expect("the console's input");
        let _ = ui.typewrite("[2] finish");
        let _ = ui.tap_key(iced::keyboard::key::Named::Enter);
    });
    pump(&mut app, &mut rx, "rank 2 in main and the stacks", |m| {
        m.states
            .get(2)
            .and_then(RankState::place)
            .and_then(|p| p.function.clone())
            .as_deref()
            == Some("main")
            && m.stacks
                .as_ref()
                .is_some_and(|t| t.render_tree().contains("compute at ranks.c:10  [0-1,3]"))
    });
    let main = node_label(&app.model, "main");
    act(&mut app, |ui| {
        ui.click(main.as_str()).expect("main's node");
    });
    assert_eq!(app.model.focus, 0);
    assert_eq!(app.model.frame, 1);
    let without_2: RankSet = [0u32, 1, 3].into_iter().collect();
    assert_eq!(app.model.data.frame, Some((1, without_2.clone())));
    pump(
        &mut app,
        &mut rx,
        "main's locals of ranks 0, 1 and 3",
        |m| {
            m.data
                .locals
                .as_ref()
                .is_some_and(|v| v.ranks() == without_2)
                && names(m, 0).contains(&"total".to_string())
        },
    );
    assert_eq!(number(&app.model, 3, "rank"), Some(3.0));

    // compute's node: rank 0's innermost frame, every rank's locals again.
    let compute = node_label(&app.model, "compute");
    act(&mut app, |ui| {
        ui.click(compute.as_str()).expect("compute's node");
    });
    assert_eq!(app.model.frame, 0);
    assert_eq!(app.model.data.frame, None);
    pump(&mut app, &mut rx, "every rank's innermost locals", |m| {
        names(m, 0) == ["v"] && m.data.locals.as_ref().is_some_and(|v| v.ranks().len() == 4)
    });

    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
}
