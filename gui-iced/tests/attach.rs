//! The start form's attach: a real Open MPI job (`mpirun -np 2` of the `ring` fixture, its
//! ranks waiting for a file after `MPI_Init`) attached to through its `mpirun`'s process id,
//! as `cohort attach --mpirun PID` does; the ranks stop where they are, Continue lets them
//! finish (their output goes where `mpirun`'s goes, as with `cohort attach`). (One test: a
//! process has one session.)

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cohort_gui::{App, start};
use cohort_wire::RankState;
use common::{act, pump_for};

/// Processes running `exe`.
fn running(exe: &Path) -> usize {
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| std::fs::read_link(e.path().join("exe")).is_ok_and(|x| x == exe))
                .count()
        })
        .unwrap_or(0)
}

/// Ends `mpirun` (and so its ranks) if the test did not get that far.
struct Job(std::process::Child);

impl Drop for Job {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

#[test]
fn attach_to_an_open_mpi_job_from_the_start_form() {
    let exe = std::env::current_exe().expect("the test's path");
    let bin = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/PROFILE");
    assert!(
        bin.join("cohort-agentd").exists(),
        "build cohort-agentd first"
    );
    let prog = cohort_fixtures::mpi_program_in_own_dir("ring", "mpicc.openmpi")
        .canonicalize()
        .expect("the program");
    let go = std::env::temp_dir().join(format!("cohort-gui-attach-{}-go", std::process::id()));
    let _ = std::fs::remove_file(&go);
    let mut mpirun = Command::new("mpirun");
    mpirun.args(["-np", "2", "--oversubscribe"]);
    if nix::unistd::getuid().is_root() {
        mpirun.arg("--allow-run-as-root");
    }
    let mut job = Job(mpirun
        .arg(&prog)
        .arg(&go)
        .env("OMPI_MCA_btl", "self,vader")
        .env("OMPI_MPIR_DO_NOT_WARN", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("Open MPI's mpirun (scripts/test.sh installs it)"));
    let until = Instant::now() + Duration::from_secs(120);
    while running(&prog) < 2 {
        assert!(Instant::now() < until, "the job did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));

    let mut app = App::with_start_form(None);
    let pid = job.0.id().to_string();
    act(&mut app, |ui| {
        ui.click(iced::widget::Id::new(start::PID_ID))
            .expect("the pid's field");
        let _ = ui.typewrite(&pid);
    });
    act(&mut app, |ui| {
        ui.click("Attach").expect("the attach button");
    });
    assert!(
        app.start.is_none(),
        "attached: {:?}",
        app.start.as_ref().map(|f| &f.error)
    );
    let mut rx = cohort_gui::link::take_receiver().expect("the session's updates");
    pump_for(
        &mut app,
        &mut rx,
        "the attached ranks",
        Duration::from_secs(60),
        |m| {
            m.size == 2
                && (0..2).all(|r| matches!(m.states.get(r), Some(RankState::Stopped { .. })))
        },
    );
    assert!(
        app.model
            .console
            .iter()
            .any(|l| l.starts_with("cohort: 2 ranks of mpirun (pid ")),
        "{}",
        app.model.console.join("\n")
    );

    let mut out = job.0.stdout.take().expect("mpirun's output");
    std::fs::write(&go, "").expect("the go file");
    act(&mut app, |ui| {
        ui.click("Continue (F5)").expect("the continue button");
    });
    pump_for(
        &mut app,
        &mut rx,
        "the job's end",
        Duration::from_secs(60),
        |m| {
            m.console
                .iter()
                .any(|l| l == "[0-1] [Inferior 1 exited normally]")
        },
    );
    let mut text = String::new();
    std::io::Read::read_to_string(&mut out, &mut text).expect("mpirun's output");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    assert_eq!(lines, ["rank 0 of 2 got 10", "rank 1 of 2 got 0"]);
    app.quit();
    pump_for(&mut app, &mut rx, "the end", Duration::from_secs(30), |m| {
        m.status == "the session has ended"
    });
    let _ = std::fs::remove_file(&go);
    drop(job);
}
