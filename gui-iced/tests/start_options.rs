//! The start form's agents and initial commands: 4 ranks of the `ranks` fixture launched
//! under 2 agents, with `-ex` commands typed into the form (`break ranks.c:24`, added;
//! `continue`, typed and left in the field): the session starts with them, every rank at
//! the breakpoint, which the margin shows. (One test: a process has one session.)

mod common;

use cohort_gui::{App, Model, margin_label, start};
use cohort_wire::{RankState, StopReason};
use common::{act, agentd_built, forget_saved_session, pump, sim};

fn all_at_breakpoint(m: &Model, line: u32) -> bool {
    m.size == 4
        && (0..4).all(|r| {
            matches!(m.states.get(r), Some(RankState::Stopped { reason: StopReason::Breakpoint, place }) if place.line == Some(line))
        })
}

#[test]
fn agents_and_initial_commands_from_the_start_form() {
    agentd_built();
    let prog = cohort_fixtures::program_in_own_dir("ranks", "gui-start-options");
    let recent =
        std::env::temp_dir().join(format!("cohort-gui-start-options-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&recent);
    // The session is saved at its end (for the next of the program): none before, none kept.
    forget_saved_session(&prog);
    let mut app = App::with_start_form(Some(recent.join("recent")));

    let path = prog.display().to_string();
    let field = |id: &'static str, value: &str| {
        let value = value.to_string();
        move |ui: &mut iced_test::simulator::Simulator<'_, cohort_gui::Message>| {
            ui.click(iced::widget::Id::new(id)).expect(id);
            let _ = ui.typewrite(&value);
        }
    };
    act(&mut app, field(start::PROGRAM_ID, &path));
    act(&mut app, field(start::AGENTS_ID, "2"));
    // A command added with Enter, one left typed.
    act(&mut app, |ui| {
        ui.click(iced::widget::Id::new(start::COMMAND_ID))
            .expect("the command's field");
        let _ = ui.typewrite("break ranks.c:24");
        let _ = ui.tap_key(iced::keyboard::key::Named::Enter);
    });
    act(&mut app, field(start::COMMAND_ID, "continue"));
    let form = app.start.as_ref().expect("the form");
    assert_eq!(form.agents, "2");
    assert_eq!(form.commands, ["break ranks.c:24"]);
    assert_eq!(form.command, "continue");
    sim(&app)
        .find("break ranks.c:24")
        .expect("the added command, listed");

    act(&mut app, |ui| {
        ui.click("Launch").expect("the launch button");
    });
    assert!(
        app.start.is_none(),
        "launched: {:?}",
        app.start.as_ref().map(|f| &f.error)
    );
    assert_eq!(
        start::read_recent(&recent.join("recent")),
        vec![
            [
                "-n",
                "4",
                "--agents",
                "2",
                "-ex",
                "break ranks.c:24",
                "-ex",
                "continue",
                "--",
                &path
            ]
            .map(String::from)
            .to_vec()
        ]
    );
    let mut rx = cohort_gui::link::take_receiver().expect("the session's updates");

    // Two agents; the commands ran: every rank at the breakpoint, in the margin.
    pump(&mut app, &mut rx, "the ranks at the breakpoint", |m| {
        all_at_breakpoint(m, 24) && m.breakpoints.iter().any(|(_, l)| *l == 24)
    });
    assert!(
        app.model
            .console
            .iter()
            .any(|l| l.starts_with("cohort: 4 ranks under 2 agents")),
        "{}",
        app.model.console.join("\n")
    );
    sim(&app)
        .find(margin_label(24, true))
        .expect("the breakpoint's dot");

    app.quit();
    pump(&mut app, &mut rx, "the end", |m| {
        m.status == "the session has ended"
    });
    let _ = std::fs::remove_dir_all(&recent);
    forget_saved_session(&prog);
}
