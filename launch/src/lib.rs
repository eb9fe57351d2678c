//! Process acquisition for MPI launchers: find the ranks of a job so that a node agent can
//! attach to them.
//!
//! # MPIR (Open MPI `mpirun`, Slurm `srun`)
//!
//! [`launch_mpir`] starts the launcher under a [`cohort_engine::session::Session`] on its own
//! [`cohort_engine::tracer::Tracer`] thread, runs it to its ELF entry point (every `DT_NEEDED`
//! library is loaded then, `main` has not run), sets `MPIR_being_debugged = 1`, runs it to
//! `MPIR_Breakpoint`, checks `MPIR_debug_state` (1 = spawned, 2 = aborting is an error) and
//! reads `MPIR_proctable[0..MPIR_proctable_size]`. The launcher stays stopped there until
//! [`MpirJob::release`] detaches from it. [`attach_mpir`] attaches to a running launcher
//! and reads the table, or, when there is none yet, sets `MPIR_being_debugged` and runs it to
//! `MPIR_Breakpoint`. Every wait has a timeout ([`DEFAULT_TIMEOUT`]; `*_timeout` variants):
//! a watchdog interrupts the launcher with SIGINT (stopped on, never passed), and a launcher
//! we started is then killed with all its descendants. A launcher that exits before
//! `MPIR_Breakpoint` gives [`LaunchError::LauncherExited`] with its exit code; a program
//! without the MPIR symbols gives [`LaunchError::NoMpir`].
//!
//! What the launchers installed here do (found by running them):
//!
//! - **Open MPI 4.1.4.** The MPIR symbols live in `libopen-rte.so.40`, not in the (stripped)
//!   `mpirun`, hence the stop at the entry point rather than at `main`. With
//!   `MPIR_being_debugged` set, `mpirun` forks and execs the ranks, fills the table (host =
//!   this machine's hostname, executable = the absolute path) and calls `MPIR_Breakpoint`.
//!   The ranks are then already running their program and wait inside `MPI_Init`
//!   (`PMIx_Init`, for the PMIx server in the stopped `mpirun`); they do not spin on
//!   `MPIR_debug_gate` (`libmpi` has one, used only for singletons), so they leave `MPI_Init`
//!   as soon as the launcher is released. `mpirun` prints a deprecation banner for MPIR
//!   unless `OMPI_MPIR_DO_NOT_WARN=1`, which [`launch_mpir`] sets. Started without a
//!   debugger, `mpirun` builds no table (`MPIR_debug_state` 0): a late debugger sets
//!   `MPIR_being_debugged` and writes a byte to the fifo named by `MPIR_attach_fifo`
//!   (`/tmp/ompi.HOST.0/pid.N/0/debugger_attach_fifo`); `mpirun` then builds the table and
//!   calls `MPIR_Breakpoint` — [`attach_mpir`] does this.
//! - **Slurm 22.05.** The symbols are in `srun` itself. With `MPIR_being_debugged` set, `srun`
//!   launches the step in parallel-debug mode: `slurmstepd` traces each task through its
//!   exec and leaves it stopped (SIGSTOP, a job-control stop) at its first instruction; the
//!   table's host is the Slurm node name (`n1`), not the machine's. A stopped task only runs
//!   again on SIGCONT (a ptrace detach would put it back in its stop), which
//!   [`release_gate`] sends — and takes back from the debugger's stream of events, so the
//!   caller's next continue does not stop on it. `srun` fills the table for every step,
//!   debugged or not (its tasks then run freely), so [`attach_mpir`] reads it at once; mind
//!   that `srun` forks a helper `srun` child, which is not the launcher. [`find_srun_of_job`]
//!   finds the `srun` of a job on this host from `SLURM_JOB_ID` in its environment (an
//!   `srun` inside `salloc`/`sbatch`) or from `scontrol show job`'s `AllocNode:Sid=` (the
//!   session of an `srun` that made its own allocation).
//!
//! After attaching to a rank, the debugger calls [`release_gate`]: it sets
//! `MPIR_debug_gate = 1` where the rank's MPI library has one and ends a Slurm task's stop;
//! where neither applies it does nothing.
//!
//! # Launchers without MPIR (MPICH's `mpiexec.hydra`): `cohort-rankwrap`
//!
//! Debian's hydra exports no MPIR symbols, so the ranks are acquired one by one: the job is
//! started as `mpiexec -n 4 cohort-rankwrap --agent SOCKET -- prog args`. Each wrapper
//! connects to the node agent's unix socket and sends its rank (`PMI_RANK`, or `PMIX_RANK`,
//! `OMPI_COMM_WORLD_RANK`, `SLURM_PROCID`), the program resolved as `execvp` would, argv,
//! cwd and its whole environment, and passes its stdin, stdout, stderr and the PMI socket
//! (`PMI_FD`) by `SCM_RIGHTS` (protocol in [`wrap`]). It then gives up its copies of stdin,
//! stdout and the PMI socket, so that hydra sees them close when the rank ends. The agent
//! ([`WrapListener::accept`] → [`WrappedRank`]) starts the rank as its own traced child with
//! exactly that environment, cwd and descriptors ([`WrappedRank::launch_options`], using the
//! engine's `LaunchOptions::fds`), so the rank talks PMI to hydra and writes to hydra's
//! pipes as if hydra had started it. Signals the wrapper receives (INT, TERM, HUP, QUIT,
//! USR1, USR2, ALRM) are forwarded to the agent ([`WrappedRank::take_forwarded_signal`],
//! [`WrappedRank::signal_fd`] to poll) for delivery to the rank. When the rank is gone the
//! agent sends its wait status ([`WrappedRank::report_exit`]) and the wrapper exits with the
//! same code, or kills itself with the same signal, so hydra sees the rank's own end.

mod error;
mod gate;
mod mpir;
pub mod msgq_types;
mod proc_util;
pub mod recorder;
mod slurm;
pub mod wrap;

pub use error::LaunchError;
pub use gate::release_gate;
pub use mpir::{
    DEFAULT_TIMEOUT, Launcher, LauncherHandle, MpirJob, ProcDesc, attach_mpir, attach_mpir_timeout,
    launch_mpir, launch_mpir_timeout, launch_mpir_with,
};
pub use proc_util::kill_with_descendants;
pub use slurm::{
    MpiFamily, SrunMpi, choose_srun_mpi, find_srun_of_job, mpi_family, srun_mpi_plugins,
};
pub use wrap::{WrapListener, WrappedRank, wait_status_exited, wait_status_killed};
