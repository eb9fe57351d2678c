//! `cohort-gui -n 4 [--launcher local] -- ./prog [ARGS...]`: Cohort's window over a
//! multi-rank session (the arguments of `cohort launch`).

use cohort_gui::{App, Link};

fn main() -> iced::Result {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() || argv.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!(
            "Usage: cohort-gui -n N [--agents A] -- PROGRAM [ARGS...]\n(the arguments of `cohort launch`; the local launcher)"
        );
        std::process::exit(if argv.is_empty() { 2 } else { 0 });
    }
    let opts = match cohort_session::parallel::parse_launch(&argv) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cohort-gui: {e:#}");
            std::process::exit(2);
        }
    };
    if opts.launcher != cohort_session::parallel::Launcher::Local {
        eprintln!("cohort-gui: only the local launcher for now (--launcher local)");
        std::process::exit(2);
    }
    // The session starts once, when the window's application boots.
    let opts = std::sync::Mutex::new(Some(opts));
    iced::application(
        move || {
            let link = opts.lock().ok().and_then(|mut o| o.take()).map(Link::start);
            App::new(link)
        },
        App::update,
        App::view,
    )
    .title(App::title)
    .subscription(App::subscription)
    .window_size((1280.0, 820.0))
    .run()
}
