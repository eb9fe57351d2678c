//! What the window's tests share: the check that `cohort-agentd` is built, the session's
//! batches fed to the app until a condition holds, and the simulator's clicks and keys run
//! through the app's update (each test file a real session of a fixture).
#![allow(dead_code)]

use std::time::{Duration, Instant};

use cohort_gui::{App, Link, Message, Model, Update};
use cohort_wire::RankState;
use iced::futures::channel::mpsc::UnboundedReceiver;
use iced_test::simulator::Simulator;

/// The window's size in the simulator (tall enough for every pane's rows).
pub const SIZE: (f32, f32) = (1280.0, 1400.0);

/// The session finds `cohort-agentd` in the workspace's build folder (target/release).
pub fn agentd_built() {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/PROFILE");
    assert!(
        dir.join("cohort-agentd").exists(),
        "build cohort-agentd first (cargo build --release -p cohort-agentd): not in {}",
        dir.display()
    );
}

/// Feeds the session's batches to the app until `done` holds (or 30 s pass).
pub fn pump(
    app: &mut App,
    rx: &mut UnboundedReceiver<Vec<Update>>,
    what: &str,
    done: impl Fn(&Model) -> bool,
) {
    pump_for(app, rx, what, Duration::from_secs(30), done)
}

/// Feeds the session's batches to the app until `done` holds (or `limit` passes).
pub fn pump_for(
    app: &mut App,
    rx: &mut UnboundedReceiver<Vec<Update>>,
    what: &str,
    limit: Duration,
    done: impl Fn(&Model) -> bool,
) {
    let until = Instant::now() + limit;
    loop {
        while let Ok(batch) = rx.try_recv() {
            let _ = app.update(Message::Batch(batch));
        }
        if done(&app.model) {
            return;
        }
        assert!(
            Instant::now() < until,
            "timed out waiting for {what}; states {:?}; console:\n{}",
            app.model.groups(),
            app.model.console.join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The window in the simulator, at [`SIZE`].
pub fn sim(app: &App) -> Simulator<'_, Message> {
    sim_sized(app, SIZE)
}

/// The window in the simulator, at `size`.
pub fn sim_sized(app: &App, size: (f32, f32)) -> Simulator<'_, Message> {
    Simulator::with_size(Default::default(), size, app.view())
}

/// Runs what the user did in the simulator (at [`SIZE`]) through the app's update.
pub fn act(app: &mut App, f: impl FnOnce(&mut Simulator<'_, Message>)) {
    act_sized(app, SIZE, f)
}

/// Runs what the user did in the simulator (at `size`) through the app's update; the action
/// must produce a message.
pub fn act_sized(app: &mut App, size: (f32, f32), f: impl FnOnce(&mut Simulator<'_, Message>)) {
    let msgs: Vec<Message> = {
        let mut ui = sim_sized(app, size);
        f(&mut ui);
        ui.into_messages().collect()
    };
    assert!(!msgs.is_empty(), "the action produced no message");
    for m in msgs {
        let _ = app.update(m);
    }
}

/// A session of `prog` with `cohort launch`'s `options` (ending with `--`) and the window's
/// app over it.
pub fn launch(prog: &std::path::Path, options: &[&str]) -> (App, UnboundedReceiver<Vec<Update>>) {
    let argv: Vec<String> = options
        .iter()
        .map(|s| s.to_string())
        .chain([prog.display().to_string()])
        .collect();
    let opts = cohort_session::parallel::parse_launch(&argv).expect("launch options");
    let (link, rx) = Link::start_with_receiver(opts);
    (App::new(Some(link)), rx)
}

/// All 4 ranks stopped at `line`.
pub fn all_four_at(m: &Model, line: u32) -> bool {
    m.size == 4
        && (0..4).all(|r| {
            m.states
                .get(r)
                .and_then(RankState::place)
                .and_then(|p| p.line)
                == Some(line)
        })
}

/// Forgets the program's saved session (a session is saved at its end and restored by the
/// next one of the program): called before and after a test that launches without
/// `--no-restore`, so that nothing is restored into it nor kept in the user's state folder.
pub fn forget_saved_session(prog: &std::path::Path) {
    if let Some(f) =
        cohort_session::saved::sessions_dir().map(|d| cohort_session::saved::session_file(&d, prog))
    {
        let _ = std::fs::remove_file(f);
    }
}
