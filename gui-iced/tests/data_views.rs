//! The data views driven by iced's simulator against a real 4-rank session of the `fields`
//! fixture: typed locals as trees (expand a struct), a number across the ranks (its
//! sparkline's values, the comparison's classes and reduction), a watch, and the array
//! viewer on a 2-D array with a NaN (statistics, a slice, CSV export, a picture).

mod common;

use std::path::PathBuf;

use cohort_gui::values::{DataMsg, Tree};
use cohort_gui::{App, Message, Model, array_view};
use cohort_wire::{PathStep, RankState, StopReason};
use common::{agentd_built, launch, pump};
use iced_test::simulator::Simulator;

/// The session's events go to one sink per process (`events::send_events_to`): the tests
/// of this file run one at a time.
static ONE_SESSION: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// This file's window is lower than the others' (its pictures are of that size).
const SIZE: (f32, f32) = (1280.0, 1000.0);

fn sim(app: &App) -> Simulator<'_, Message> {
    common::sim_sized(app, SIZE)
}

fn act(app: &mut App, f: impl FnOnce(&mut Simulator<'_, Message>)) {
    common::act_sized(app, SIZE, f)
}

fn field(name: &str) -> PathStep {
    PathStep::Field(name.into())
}

#[test]
fn locals_as_trees_compare_and_the_array_viewer() {
    let _one = ONE_SESSION.lock().unwrap_or_else(|e| e.into_inner());
    agentd_built();
    let prog = cohort_fixtures::program_in_own_dir("fields", "gui");
    let (mut app, mut rx) = launch(
        &prog,
        &["-n", "4", "--agents", "2", "-ex", "break fields.c:28", "--"],
    );
    pump(&mut app, &mut rx, "the ranks at main", |m| {
        m.size == 4 && (0..4).all(|r| m.states.get(r).and_then(|s| s.place()).is_some())
    });
    act(&mut app, |ui| {
        ui.click("Continue (F5)").expect("the continue button");
    });
    let at_27 = |m: &Model| {
        (0..4).all(|r| {
            matches!(m.states.get(r), Some(RankState::Stopped { reason: StopReason::Breakpoint, place }) if place.line == Some(28))
        })
    };
    pump(
        &mut app,
        &mut rx,
        "the breakpoint and the typed locals",
        |m| {
            at_27(m)
                && m.data.locals.as_ref().is_some_and(|v| {
                    v.ranks().len() == 4
                        && v.get(3)
                            .and_then(|x| x.at(&[field("rank")]))
                            .and_then(|x| x.number())
                            == Some(3.0)
                })
        },
    );

    // The struct local folded, then expanded by a click: its members.
    let mut ui = sim(&app);
    assert!(ui.find("    id = 0").is_err(), "c is folded");
    drop(ui);
    act(&mut app, |ui| {
        ui.click("+ c").expect("the struct c");
    });
    let mut ui = sim(&app);
    ui.find("- c").expect("c expanded");
    ui.find("    id = 0").expect("c.id");
    ui.find("    temp = 0").expect("c.temp");
    // A char array is its string, not numbers.
    ui.find("    name = \"cell\\000\\000\\000\"")
        .expect("c.name");
    drop(ui);

    // c.temp across the ranks (its sparkline's values), and the comparison on a click.
    let temp = vec![field("c"), field("temp")];
    assert_eq!(
        *app.model.data.across(&Tree::Locals, &temp),
        [Some(0.0), Some(1.5), Some(3.0), Some(4.5)]
    );
    act(&mut app, |ui| {
        ui.click("    temp = 0").expect("c.temp");
    });
    let c = app.model.data.compare.clone().expect("a comparison");
    assert_eq!(c.label, "c.temp");
    assert_eq!(c.classes, ["[0] 0", "[1] 1.5", "[2] 3", "[3] 4.5"]);
    assert_eq!(c.reduction, ["min 0 on [0], max 4.5 on [3]"]);
    // `rank` is an int: one class per rank too; c.v[1] the same on all.
    let _ = app.update(Message::Data(DataMsg::Compare(
        Tree::Locals,
        vec![field("rank")],
    )));
    assert_eq!(
        app.model.data.compare.as_ref().map(|c| c.reduction.clone()),
        Some(vec!["min 0 on [0], max 3 on [3]".to_string()])
    );

    // The same typed in the console: a line per class, then the reduction.
    let _ = app.update(Message::ConsoleInput(":value c.temp".into()));
    let _ = app.update(Message::ConsoleSubmit);
    pump(&mut app, &mut rx, "the console's typed values", |m| {
        m.console.iter().any(|l| l.starts_with("min "))
    });
    let n = app.model.console.len();
    assert_eq!(
        app.model.console[n - 5..],
        [
            "[0] 0",
            "[1] 1.5",
            "[2] 3",
            "[3] 4.5",
            "min 0 on [0], max 4.5 on [3]"
        ]
    );

    // A watch: every rank's value of an expression, as a tree.
    let _ = app.update(Message::Data(DataMsg::WatchInput("c.v[2] * 2".into())));
    act(&mut app, |ui| {
        ui.click("Watch").expect("the watch button");
    });
    pump(&mut app, &mut rx, "the watch", |m| {
        m.data.watches.first().is_some_and(|w| w.values.is_some())
    });
    assert_eq!(
        *app.model
            .data
            .across(&Tree::Watch("c.v[2] * 2".into()), &[]),
        [Some(2.0), Some(4.0), Some(6.0), Some(8.0)]
    );
    sim(&app)
        .find("    c.v[2] * 2 = 2")
        .expect("the watch's value");
    let _ = app.update(Message::Data(DataMsg::WatchInput("nosuch".into())));
    let _ = app.update(Message::Data(DataMsg::AddWatch));
    pump(&mut app, &mut rx, "the failing watch", |m| {
        m.data.watches.get(1).is_some_and(|w| !w.error.is_empty())
    });
    assert_eq!(
        app.model.data.watches[1].error,
        "[0-3] No symbol \"nosuch\" in current context.\n"
    );
    act(&mut app, |ui| {
        // The second watch's button.
        let _ = ui.click("Remove");
    });
    assert_eq!(app.model.data.watches.len(), 1);

    // The array viewer on `field` (4×6 doubles, a NaN at [2][3]) from its node in the
    // locals.
    act(&mut app, |ui| {
        ui.click("View field").expect("the array's view button");
    });
    pump(&mut app, &mut rx, "the array", |m| {
        m.data.array.value.is_some()
    });
    let s = app.model.data.array.slice().expect("the slice");
    assert_eq!(s.axes, vec![(0..4).collect::<Vec<i64>>(), (0..6).collect()]);
    assert_eq!(
        array_view::stats_line(&s),
        format!(
            "24 elements: 1 NaN, 0 +Inf, 0 -Inf, 6 negative, 1 zero; min -6, max 17, mean {}",
            123.0 / 23.0
        )
    );
    sim(&app)
        .find(array_view::stats_line(&s))
        .expect("the statistics shown");

    // A picture of the viewer: the colour map of the whole array.
    if let Ok(dir) = std::env::var("COHORT_GUI_SNAPSHOT") {
        let mut ui = sim(&app);
        let snap = ui.snapshot(&iced::Theme::Dark).expect("snapshot");
        let _ = snap.matches_image(PathBuf::from(&dir).join("array-view"));
    }

    // A slice: column 3 of rows 1 to 3 (the NaN in the middle), then export.
    let _ = app.update(Message::Data(DataMsg::ArrayInput("field[1:3][3]".into())));
    act(&mut app, |ui| {
        ui.click("Show").expect("the show button");
    });
    let s = app.model.data.array.slice().expect("the slice");
    assert_eq!(s.axes, vec![vec![1, 2, 3]]);
    assert_eq!(
        array_view::stats_line(&s),
        "3 elements: 1 NaN, 0 +Inf, 0 -Inf, 0 negative, 0 zero; min 3, max 15, mean 9"
    );
    let csv = std::env::temp_dir().join(format!("cohort-gui-{}.csv", std::process::id()));
    let _ = app.update(Message::Data(DataMsg::CsvPath(csv.display().to_string())));
    act(&mut app, |ui| {
        ui.click("Export CSV").expect("the export button");
    });
    assert_eq!(
        std::fs::read_to_string(&csv).expect("the CSV file"),
        "1,3\n2,NaN\n3,15\n"
    );
    let _ = std::fs::remove_file(&csv);
    // Row 2 (a gap at its NaN).
    let _ = app.update(Message::Data(DataMsg::ArrayInput("field[2][:]".into())));
    let _ = app.update(Message::Data(DataMsg::ArraySubmit));
    let s = app.model.data.array.slice().expect("the slice");
    assert_eq!(s.data.len(), 6);
    assert!(s.data[3].is_nan());
    if let Ok(dir) = std::env::var("COHORT_GUI_SNAPSHOT") {
        let mut ui = sim(&app);
        let snap = ui.snapshot(&iced::Theme::Dark).expect("snapshot");
        let _ = snap.matches_image(PathBuf::from(&dir).join("array-line"));
    }

    // An array longer than a tree carries: the locals hold its first 1,024 numbers, the
    // viewer reads it all.
    let big = app
        .model
        .data
        .locals
        .as_ref()
        .and_then(|v| v.get(0))
        .and_then(|v| v.at(&[field("big")]))
        .cloned()
        .expect("big");
    assert_eq!(big.total(), 3000);
    assert!(
        matches!(&big, cohort_wire::TypedValue::Array { elements, .. } if elements.len() == 1024)
    );
    act(&mut app, |ui| {
        ui.click("View big").expect("big's view button");
    });
    pump(&mut app, &mut rx, "all of big", |m| {
        m.data.array.value.is_some()
    });
    let s = app.model.data.array.slice().expect("the slice");
    assert_eq!((s.data.len(), s.missing), (3000, 0));
    assert_eq!(
        array_view::stats_line(&s),
        "3000 elements: 0 NaN, 0 +Inf, 0 -Inf, 0 negative, 1 zero; min 0, max 2999, mean 1499.5"
    );
    // Slicing what the agent did not read (a tree's array): said, not invented.
    let cut = array_view::slice(&big, &[array_view::Sub::Range(Some(1000), Some(1099))])
        .expect("a slice");
    assert_eq!((cut.data.len(), cut.missing), (24, 76));
    let _ = app.update(Message::Data(DataMsg::ArrayInput("field[2][:]".into())));
    let _ = app.update(Message::Data(DataMsg::ArraySubmit));
    pump(&mut app, &mut rx, "field again", |m| {
        m.data.array.value.is_some()
    });

    // Focus rank 2: the viewer shows its array after asking again.
    let _ = app.update(Message::Focus(2));
    pump(&mut app, &mut rx, "rank 2's array", |m| {
        m.data.array.value.is_some() && m.data.locals.is_some()
    });
    let s = app.model.data.array.slice().expect("the slice");
    assert_eq!(s.data[0], 8.0, "field[2][0] of rank 2");

    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
}

/// Fortran: a derived type's members and an array with lower bounds 0 and 1, laid out column
/// by column, sliced as `a(1, :)`.
#[test]
fn fortran_derived_types_and_arrays() {
    use cohort_wire::{Dim, Elements, TypedValue};
    let _one = ONE_SESSION.lock().unwrap_or_else(|e| e.into_inner());
    agentd_built();
    let prog = cohort_fixtures::fortran_program_in_own_dir("ffields", "gui");
    let (mut app, mut rx) = launch(&prog, &["-n", "2", "-ex", "break ffields.f90:27", "--"]);
    pump(&mut app, &mut rx, "the ranks at the program", |m| {
        m.size == 2 && (0..2).all(|r| m.states.get(r).and_then(|s| s.place()).is_some())
    });
    let _ = app.update(Message::Continue);
    pump(
        &mut app,
        &mut rx,
        "the breakpoint and the typed locals",
        |m| {
            (0..2).all(|r| m.states.get(r).and_then(|s| s.place()).and_then(|p| p.line) == Some(27))
                && m.data
                    .locals
                    .as_ref()
                    .and_then(|v| v.get(1))
                    .and_then(|x| x.at(&[field("c"), field("temp")]))
                    .and_then(|x| x.number())
                    == Some(1.5)
        },
    );
    let locals = app.model.data.locals.clone().expect("the locals");
    let c = locals.get(1).and_then(|v| v.at(&[field("c")])).expect("c");
    let TypedValue::Struct { ty, fields } = c else {
        panic!("c is a derived type: {c:?}");
    };
    assert_eq!(ty, "Type cell");
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["id", "temp", "v"]);
    assert_eq!(
        c.at(&[field("v")]),
        Some(&TypedValue::Array {
            ty: "real(kind=8) (3)".into(),
            element: "real(kind=8)".into(),
            dims: vec![Dim { lower: 1, count: 3 }],
            column_major: true,
            elements: Elements::Numbers(vec![
                cohort_wire::Num(1.0),
                cohort_wire::Num(2.0),
                cohort_wire::Num(3.0)
            ]),
        })
    );
    let a = locals.get(0).and_then(|v| v.at(&[field("a")])).expect("a");
    let TypedValue::Array {
        dims,
        column_major,
        elements: Elements::Numbers(n),
        ..
    } = a
    else {
        panic!("a is an array of numbers: {a:?}");
    };
    assert_eq!(
        dims,
        &vec![Dim { lower: 0, count: 3 }, Dim { lower: 1, count: 4 }]
    );
    assert!(column_major);
    // a(i, j) = 10 i + j: a(0,1), a(1,1), a(2,1), a(0,2), a(1,2) (the NaN)…
    let first: Vec<f64> = n.iter().take(4).map(|x| x.0).collect();
    assert_eq!(first, [1.0, 11.0, 21.0, 2.0]);
    assert!(n[4].0.is_nan());

    // The viewer on row 1 of `a`: 11, NaN, 13, 14.
    let _ = app.update(Message::Data(DataMsg::ViewArray("a(1, :)".into())));
    pump(&mut app, &mut rx, "the array", |m| {
        m.data.array.value.is_some()
    });
    let s = app.model.data.array.slice().expect("the slice");
    assert_eq!(s.axes, vec![vec![1, 2, 3, 4]]);
    assert_eq!(
        array_view::stats_line(&s),
        format!(
            "4 elements: 1 NaN, 0 +Inf, 0 -Inf, 0 negative, 0 zero; min 11, max 14, mean {}",
            38.0 / 3.0
        )
    );
    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
}
