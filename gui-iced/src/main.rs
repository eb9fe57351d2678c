//! `cohort-gui -n 4 [--launcher local|openmpi|mpich|slurm] -- ./prog [ARGS...]`,
//! `cohort-gui attach --mpirun PID`: Cohort's window over a multi-rank session (the arguments
//! of `cohort launch` and `cohort attach`); without arguments, the start form.

use cohort_gui::{App, Link, start};

fn main() -> iced::Result {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!(
            "Usage: cohort-gui [-n N [--launcher local|openmpi|mpich|slurm] [--agents A] -- PROGRAM [ARGS...]]\n       cohort-gui attach (--mpirun PID | --srun PID | --slurm-job JOBID)\n(the arguments of `cohort launch` and `cohort attach`; none: the start form)"
        );
        std::process::exit(0);
    }
    let first = if argv.is_empty() {
        None
    } else {
        match start::start_of(&argv) {
            Ok(s) => {
                // Kept among the recent sessions, as one started from the form.
                if let Some(p) = start::recent_file() {
                    let mut f = start::StartForm::new(Some(p));
                    f.remember_started(&argv);
                }
                Some(s)
            }
            Err(e) => {
                eprintln!("cohort-gui: {e:#}");
                std::process::exit(2);
            }
        }
    };
    // The session starts once, when the window's application boots.
    let first = std::sync::Mutex::new(Some(first));
    iced::application(
        move || match first.lock().ok().and_then(|mut o| o.take()).flatten() {
            Some(s) => App::new(Some(Link::start(s))),
            None => App::with_start_form(start::recent_file()),
        },
        App::update,
        App::view,
    )
    .title(App::title)
    .subscription(App::subscription)
    .window_size((1280.0, 820.0))
    .run()
}
