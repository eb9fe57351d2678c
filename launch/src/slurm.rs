//! Finding the `srun` of a Slurm job on this host.

use std::process::Command;

use crate::error::LaunchError;
use crate::proc_util;

/// `srun` processes on this host that are not `srun`'s own helper child.
fn sruns() -> Vec<i32> {
    let is_srun = |p: i32| {
        std::fs::read_link(format!("/proc/{p}/exe"))
            .ok()
            .and_then(|e| e.file_name().map(|n| n == "srun"))
            .unwrap_or(false)
    };
    let mut v: Vec<i32> = proc_util::all_pids()
        .into_iter()
        .filter(|&p| is_srun(p))
        .filter(|&p| !proc_util::ppid(p).is_some_and(is_srun))
        .collect();
    v.sort_unstable();
    v
}

/// Session id (`/proc/PID/stat` field 6).
fn session_id(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    rest.split_whitespace().nth(3)?.parse().ok()
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// `--slurm-job ID`: the `srun` of that job on this host. An `srun` started inside the job's
/// allocation (salloc, sbatch) has `SLURM_JOB_ID` in its environment; one that made its own
/// allocation is found from `scontrol show job`'s `AllocNode:Sid=HOST:SID` (the session of the
/// `srun`) and, if several `srun`s share that session, its `Command=`.
pub fn find_srun_of_job(jobid: u64) -> Result<i32, LaunchError> {
    let all = sruns();
    let want = jobid.to_string();
    for &p in &all {
        if proc_util::environ(p)
            .iter()
            .any(|(k, v)| (k == "SLURM_JOB_ID" || k == "SLURM_JOBID") && *v == want)
        {
            return Ok(p);
        }
    }
    let mut cmd = Command::new("scontrol");
    cmd.args(["show", "job", "-o", &want]);
    // Ask the cluster the sruns talk to, when our own environment names none.
    if std::env::var_os("SLURM_CONF").is_none()
        && let Some(conf) = all.iter().find_map(|&p| {
            proc_util::environ(p)
                .into_iter()
                .find(|(k, _)| k == "SLURM_CONF")
                .map(|(_, v)| v)
        })
    {
        cmd.env("SLURM_CONF", conf);
    }
    let out = cmd
        .output()
        .map_err(crate::error::io_err("running scontrol"))?;
    if !out.status.success() {
        return Err(LaunchError::NoSrun(jobid));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(name))
            .map(str::to_string)
    };
    let Some((host, sid)) = field("AllocNode:Sid=").and_then(|v| {
        let (h, s) = v.rsplit_once(':')?;
        Some((h.to_string(), s.parse::<i32>().ok()?))
    }) else {
        return Err(LaunchError::NoSrun(jobid));
    };
    let me = hostname();
    let short = me.split('.').next().unwrap_or_default();
    if host != me && host != short && host != "localhost" {
        return Err(LaunchError::NoSrun(jobid));
    }
    let mut cands: Vec<i32> = all
        .into_iter()
        .filter(|&p| session_id(p) == Some(sid))
        .collect();
    if cands.len() > 1
        && let Some(cmd) = field("Command=")
    {
        cands.retain(|&p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .map(|c| c.split(|&b| b == 0).any(|a| a == cmd.as_bytes()))
                .unwrap_or(false)
        });
    }
    match cands.as_slice() {
        [p] => Ok(*p),
        _ => Err(LaunchError::NoSrun(jobid)),
    }
}
