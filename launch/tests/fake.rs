//! MPIR table reading and failure paths, with a fake launcher (tests/mpi/fake_launcher.c).

mod common;

use std::time::Duration;

use cohort_launch::{LaunchError, Launcher, ProcDesc, launch_mpir, launch_mpir_timeout};
use common::*;

#[test]
fn table_is_read_rank_by_rank() {
    let exe = build("fake_launcher", "cc");
    let argv = vec![exe.into_os_string(), "table".into()];
    let job = launch_mpir(&argv, &[]).unwrap();
    assert_eq!(job.launcher(), Launcher::Other);
    let me = job.launcher_pid();
    assert_eq!(
        job.procs(),
        &[
            ProcDesc {
                rank: 0,
                host: "host-a".into(),
                executable: "/bin/rank0".into(),
                pid: me
            },
            ProcDesc {
                rank: 1,
                host: "host-b".into(),
                executable: "/bin/rank1".into(),
                pid: std::process::id() as i32
            },
        ]
    );
    let mut h = job.release_launcher().unwrap();
    assert_eq!(h.wait(Duration::from_secs(60)).unwrap(), 0);
}

#[test]
fn aborting_job_is_an_error() {
    let exe = build("fake_launcher", "cc");
    let argv = vec![exe.into_os_string(), "abort".into()];
    assert!(matches!(
        launch_mpir(&argv, &[]),
        Err(LaunchError::JobAborting { .. })
    ));
}

#[test]
fn launcher_that_never_spawns_times_out_and_is_killed() {
    let exe = build("fake_launcher", "cc");
    let argv = vec![exe.clone().into_os_string(), "hang".into()];
    match launch_mpir_timeout(&argv, &[], Duration::from_millis(300)) {
        Err(LaunchError::Timeout { what, .. }) => {
            assert!(what.contains("MPIR_Breakpoint"), "{what}")
        }
        other => panic!("{other:?}"),
    }
    // Nothing of it is left (other tests run the same program without `hang`).
    let left = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            std::fs::read_link(e.path().join("exe")).ok().as_deref() == Some(exe.as_path())
                && std::fs::read(e.path().join("cmdline"))
                    .map(|c| c.ends_with(b"hang\0"))
                    .unwrap_or(false)
        })
        .count();
    assert_eq!(left, 0);
}
