//! The rank grid at 10,000 ranks (no session): how long one drawing of the window takes with
//! tiny-skia, every rank's cell redrawn. A measurement, printed (run with `--ignored
//! --nocapture`); the aim is under 16 ms for the grid.

use std::time::Instant;

use cohort_gui::{App, Message, Update};
use cohort_session::events::Event;
use cohort_wire::{RankSet, RankState, States};
use iced_test::simulator::Simulator;

#[test]
#[ignore = "a measurement"]
fn draw_the_window_with_10000_ranks() {
    for (n, alternating) in [(4, false), (10_000, false), (10_000, true)] {
        draw(n, alternating);
    }
}

fn draw(n: u32, alternating: bool) {
    let mut s = States::default();
    s.set_ranks(&RankSet::all(n), RankState::Running);
    if alternating {
        // Worst case for the grid: states alternating rank by rank.
        let odd: RankSet = (0..n).filter(|r| r % 2 == 1).collect();
        s.set_ranks(&odd, RankState::Exited { code: 0 });
    } else {
        // Ranks in a few blocks of states, as jobs are.
        s.set_ranks(&RankSet::range(n / 4, n / 2), RankState::Exited { code: 0 });
        s.set_ranks(&RankSet::range(n / 2 + 1, n / 2 + 3), RankState::Lost);
    }
    let mut app = App::new(None);
    let _ = app.update(Message::Batch(vec![
        Update::Started { size: n },
        Update::Session(Event::States(s)),
    ]));
    {
        let mut ui = Simulator::with_size(Default::default(), (1280.0, 820.0), app.view());
        let _ = ui.snapshot(&iced::Theme::Dark).expect("snapshot");
    }
    let mut times = Vec::new();
    for _ in 0..5 {
        let _ = app.update(Message::Focus(7));
        let mut ui = Simulator::with_size(Default::default(), (1280.0, 820.0), app.view());
        let t = Instant::now();
        let _ = ui.snapshot(&iced::Theme::Dark).expect("snapshot");
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "window with {n} ranks{}, grid redrawn: {times:.1?} ms",
        if alternating {
            " (states alternating)"
        } else {
            ""
        }
    );
}
