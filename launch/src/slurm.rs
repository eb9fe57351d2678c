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

/// The MPI library a program is linked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MpiFamily {
    OpenMpi,
    Mpich,
}

impl MpiFamily {
    pub fn name(self) -> &'static str {
        match self {
            MpiFamily::OpenMpi => "Open MPI",
            MpiFamily::Mpich => "MPICH",
        }
    }

    /// Whether `srun`'s MPI plugin `plugin` gives this library's ranks what their `MPI_Init`
    /// needs (Open MPI: a PMIx server; MPICH: PMI-2).
    fn served_by(self, plugin: &str) -> bool {
        match self {
            MpiFamily::OpenMpi => plugin.starts_with("pmix"),
            MpiFamily::Mpich => plugin == "pmi2",
        }
    }
}

/// The MPI library `program` is linked with, from the libraries the dynamic linker loads for
/// it (`ldd`): Open MPI's `libopen-pal`/`libmpi_mpifh`, MPICH's `libmpich`. `None` for a
/// program without MPI, or one of another MPI.
pub fn mpi_family(program: &std::path::Path) -> Option<MpiFamily> {
    let out = Command::new("ldd").arg(program).output().ok()?;
    mpi_family_of_ldd(&String::from_utf8_lossy(&out.stdout))
}

fn mpi_family_of_ldd(text: &str) -> Option<MpiFamily> {
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .find_map(|lib| {
            let open_mpi = [
                "libopen-pal.",
                "libopen-rte.",
                "libmpi_mpifh.",
                "libmpi_usempi",
            ];
            if open_mpi.iter().any(|p| lib.starts_with(p)) {
                Some(MpiFamily::OpenMpi)
            } else if lib.starts_with("libmpich.") || lib.starts_with("libmpichf90.") {
                Some(MpiFamily::Mpich)
            } else {
                None
            }
        })
}

/// The MPI plugins this `srun` offers (`srun --mpi=list`).
pub fn srun_mpi_plugins() -> Vec<String> {
    let Ok(out) = Command::new("srun").arg("--mpi=list").output() else {
        return Vec::new();
    };
    // The list goes to standard error in some versions, standard output in others.
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    plugins_of_list(&text)
}

fn plugins_of_list(text: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for l in text.lines() {
        let l = l.trim();
        // `srun: mpi/pmix_v4` (older) or a tab-indented name; the last line names pmix's
        // versions: `specific pmix plugin versions available: pmix_v4`.
        let names: Vec<&str> = if let Some(rest) = l.strip_prefix("srun: mpi/") {
            vec![rest]
        } else if let Some((_, rest)) = l.split_once("versions available:") {
            rest.split([',', ' ']).collect()
        } else if !l.is_empty() && !l.contains(' ') && !l.ends_with("...") {
            vec![l]
        } else {
            Vec::new()
        };
        for n in names.into_iter().map(str::trim).filter(|n| !n.is_empty()) {
            if !v.iter().any(|x| x == n) {
                v.push(n.to_string());
            }
        }
    }
    v
}

/// How `srun` should start a program's ranks so that their `MPI_Init` works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SrunMpi {
    /// Pass `--mpi=PLUGIN`.
    Plugin(String),
    /// Leave `srun` as it is: no MPI, an MPI this does not know, or the user's
    /// `SLURM_MPI_TYPE` that serves it.
    AsIs,
    /// The ranks' `MPI_Init` will fail: why, in one line.
    Fails(String),
}

/// The `--mpi` plugin for a program of `family` (see [`mpi_family`]), given the plugins this
/// `srun` offers and the user's own choice (`SLURM_MPI_TYPE`), which is kept.
pub fn choose_srun_mpi(
    family: Option<MpiFamily>,
    offered: &[String],
    user: Option<&str>,
) -> SrunMpi {
    let Some(family) = family else {
        return SrunMpi::AsIs;
    };
    if let Some(u) = user {
        return if family.served_by(u) {
            SrunMpi::AsIs
        } else {
            SrunMpi::Fails(format!(
                "an {} program's MPI_Init fails under srun's MPI plugin '{u}' (SLURM_MPI_TYPE)",
                family.name()
            ))
        };
    }
    let pick = |want: &str| offered.iter().find(|p| *p == want).cloned();
    let chosen = match family {
        MpiFamily::OpenMpi => {
            pick("pmix").or_else(|| offered.iter().find(|p| p.starts_with("pmix")).cloned())
        }
        MpiFamily::Mpich => pick("pmi2"),
    };
    match chosen {
        Some(p) => SrunMpi::Plugin(p),
        None => SrunMpi::Fails(format!(
            "an {} program's MPI_Init needs srun's {} plugin, which this Slurm does not offer (srun --mpi=list: {})",
            family.name(),
            if family == MpiFamily::OpenMpi {
                "pmix"
            } else {
                "pmi2"
            },
            offered.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpi_of_a_program_from_its_libraries() {
        let open_mpi = "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibmpi.so.40 => /usr/lib/x86_64-linux-gnu/libmpi.so.40 (0x1)\n\tlibopen-rte.so.40 => /usr/lib/x86_64-linux-gnu/libopen-rte.so.40 (0x2)\n\tlibopen-pal.so.40 => /usr/lib/x86_64-linux-gnu/libopen-pal.so.40 (0x3)\n";
        assert_eq!(mpi_family_of_ldd(open_mpi), Some(MpiFamily::OpenMpi));
        let mpich = "\tlibmpich.so.12 => /usr/lib/x86_64-linux-gnu/libmpich.so.12 (0x1)\n";
        assert_eq!(mpi_family_of_ldd(mpich), Some(MpiFamily::Mpich));
        assert_eq!(
            mpi_family_of_ldd("\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x1)\n"),
            None
        );
    }

    #[test]
    fn plugins_of_srun_mpi_list() {
        let text = "MPI plugin types are...\n\tpmix\n\tnone\n\tcray_shasta\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n";
        assert_eq!(
            plugins_of_list(text),
            ["pmix", "none", "cray_shasta", "pmi2", "pmix_v4"]
        );
        let old = "srun: MPI types are...\nsrun: mpi/pmi2\nsrun: mpi/none\n";
        assert_eq!(plugins_of_list(old), ["pmi2", "none"]);
    }

    #[test]
    fn plugin_for_each_mpi() {
        let all: Vec<String> = ["pmix", "none", "pmi2", "pmix_v4"].map(String::from).into();
        let o = Some(MpiFamily::OpenMpi);
        let m = Some(MpiFamily::Mpich);
        assert_eq!(
            choose_srun_mpi(o, &all, None),
            SrunMpi::Plugin("pmix".into())
        );
        assert_eq!(
            choose_srun_mpi(m, &all, None),
            SrunMpi::Plugin("pmi2".into())
        );
        assert_eq!(choose_srun_mpi(None, &all, None), SrunMpi::AsIs);
        // The user's choice stands; where it cannot work, say so.
        assert_eq!(choose_srun_mpi(o, &all, Some("pmix_v4")), SrunMpi::AsIs);
        assert_eq!(
            choose_srun_mpi(o, &all, Some("none")),
            SrunMpi::Fails(
                "an Open MPI program's MPI_Init fails under srun's MPI plugin 'none' (SLURM_MPI_TYPE)"
                    .into()
            )
        );
        let no_pmix: Vec<String> = ["none", "pmi2"].map(String::from).into();
        assert_eq!(
            choose_srun_mpi(o, &no_pmix, None),
            SrunMpi::Fails(
                "an Open MPI program's MPI_Init needs srun's pmix plugin, which this Slurm does not offer (srun --mpi=list: none, pmi2)"
                    .into()
            )
        );
    }
}
