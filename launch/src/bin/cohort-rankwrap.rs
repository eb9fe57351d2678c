//! `cohort-rankwrap --agent SOCKET -- PROGRAM ARGS...`: one MPI rank handed to Cohort's node
//! agent. Started by a launcher without MPIR (`mpiexec.hydra -n 4 cohort-rankwrap --agent S --
//! ./prog`), it sends the agent its rank, argv, cwd and environment and passes its stdin,
//! stdout, stderr and PMI descriptor; the agent starts the rank under its control. Signals the
//! wrapper receives go to the rank; when the rank ends the wrapper ends the same way.

use std::ffi::OsString;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};

use cohort_launch::wrap::{self, Hello};

/// Write end of the self-pipe the signal handler writes signal numbers to.
static SIG_PIPE: AtomicI32 = AtomicI32::new(-1);

/// Signals forwarded to the rank.
const FORWARDED: &[i32] = &[
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
];

extern "C" fn on_signal(sig: libc::c_int) {
    let fd = SIG_PIPE.load(Ordering::Relaxed);
    if fd >= 0 {
        let b = sig as u8;
        // SAFETY: write(2) is async-signal-safe; one byte from a local.
        unsafe { libc::write(fd, (&b as *const u8).cast(), 1) };
    }
}

fn usage() -> ! {
    eprintln!("usage: cohort-rankwrap --agent SOCKET -- PROGRAM [ARGS...]");
    std::process::exit(2)
}

/// The rank, from what the launcher put in the environment.
fn rank_from_env() -> anyhow::Result<u32> {
    for k in [
        "PMI_RANK",
        "PMIX_RANK",
        "OMPI_COMM_WORLD_RANK",
        "SLURM_PROCID",
        "MV2_COMM_WORLD_RANK",
    ] {
        if let Some(v) = std::env::var_os(k) {
            let s = v.to_string_lossy();
            return s
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("{k}={s} is not a rank"));
        }
    }
    anyhow::bail!(
        "no rank in the environment (PMI_RANK, PMIX_RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID)"
    )
}

/// `PROGRAM` as `execvp` finds it.
fn resolve(prog: &Path, cwd: &Path) -> anyhow::Result<PathBuf> {
    if prog.as_os_str().as_bytes().contains(&b'/') {
        return Ok(cwd.join(prog));
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    for d in std::env::split_paths(&path) {
        let c = cwd.join(d).join(prog);
        if c.is_file() {
            return Ok(c);
        }
    }
    anyhow::bail!("{}: command not found", prog.display())
}

fn fd_open(fd: RawFd) -> bool {
    // SAFETY: F_GETFD only queries the descriptor.
    unsafe { libc::fcntl(fd, libc::F_GETFD) >= 0 }
}

fn run() -> anyhow::Result<i32> {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let mut agent = None;
    let mut i = 0;
    let prog_argv = loop {
        match args.get(i).and_then(|a| a.to_str()) {
            Some("--agent") => {
                agent = args.get(i + 1).cloned();
                i += 2;
            }
            Some("--") => break args.get(i + 1..).unwrap_or_default().to_vec(),
            _ => usage(),
        }
    };
    let (Some(agent), Some(prog)) = (agent, prog_argv.first()) else {
        usage()
    };
    let cwd = std::env::current_dir()?;
    let program = resolve(Path::new(prog), &cwd)?;
    let rank = rank_from_env()?;

    // stdin, stdout, stderr and the PMI socket, where open.
    let mut fds: Vec<RawFd> = vec![0, 1, 2];
    let pmi_fd = std::env::var("PMI_FD")
        .ok()
        .and_then(|v| v.parse::<RawFd>().ok());
    if let Some(p) = pmi_fd
        && p > 2
    {
        fds.push(p);
    }
    fds.retain(|&f| fd_open(f));

    let hello = Hello {
        rank,
        program,
        argv: prog_argv.clone(),
        cwd,
        env: std::env::vars_os().collect(),
        fd_numbers: fds.clone(),
    };
    let payload = hello.encode()?;
    let sock = UnixStream::connect(&agent).map_err(|e| {
        anyhow::anyhow!(
            "connecting to the agent at {}: {e}",
            Path::new(&agent).display()
        )
    })?;

    // Signals arriving from now on are queued on the self-pipe and forwarded.
    let mut pipe = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the two-element array.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
        anyhow::bail!("pipe: {}", std::io::Error::last_os_error());
    }
    SIG_PIPE.store(pipe[1], Ordering::Relaxed);
    for &s in FORWARDED {
        // SAFETY: installing a handler that only calls write(2).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(s, &sa, std::ptr::null_mut());
        }
    }

    let mut head = Vec::with_capacity(8 + payload.len());
    head.extend_from_slice(wrap::MAGIC);
    head.extend_from_slice(&u32::try_from(payload.len())?.to_le_bytes());
    wrap::send_with_fds(&sock, &head, &fds)?;
    {
        use std::io::Write;
        (&sock).write_all(&payload)?;
    }
    // Only the rank holds the job's stdin/stdout and PMI socket now (so the launcher sees
    // them close when the rank ends); stderr stays for our own messages.
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")?;
    for f in [0, 1] {
        // SAFETY: dup2 of a descriptor we own onto a standard one.
        unsafe { libc::dup2(null.as_raw_fd(), f) };
    }
    if let Some(p) = pmi_fd
        && p > 2
    {
        // SAFETY: closing the PMI descriptor, which nothing else in this process uses.
        unsafe { libc::close(p) };
    }

    let status = wait_for_exit(&sock, pipe[0])?;
    if libc::WIFEXITED(status) {
        return Ok(libc::WEXITSTATUS(status));
    }
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // End the way the rank ended: default action, then the signal.
        // SAFETY: resetting a disposition and raising a signal on ourselves.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, sig);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(sig);
        }
        return Ok(128 + sig);
    }
    Ok(255)
}

/// Forward signals until the agent reports the rank's wait status.
fn wait_for_exit(sock: &UnixStream, sig_r: RawFd) -> anyhow::Result<i32> {
    use std::io::{Read, Write};
    let mut inbuf: Vec<u8> = Vec::new();
    loop {
        let mut pfds = [
            libc::pollfd {
                fd: sock.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: sig_r,
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfds.
        let r = unsafe { libc::poll(pfds.as_mut_ptr(), 2, -1) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            anyhow::bail!("poll: {e}");
        }
        if pfds[1].revents & libc::POLLIN != 0 {
            let mut b = [0u8; 32];
            // SAFETY: reading into a local buffer from our pipe.
            let n = unsafe { libc::read(sig_r, b.as_mut_ptr().cast(), b.len()) };
            for &s in b.iter().take(n.max(0) as usize) {
                let mut msg = [0u8; 5];
                msg[0] = wrap::MSG_SIGNAL;
                msg[1..].copy_from_slice(&i32::from(s).to_le_bytes());
                // The agent may be gone; the socket then says so below.
                let _ = (&*sock).write_all(&msg);
            }
        }
        if pfds[0].revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
            let mut b = [0u8; 64];
            let n = match (&*sock).read(&mut b) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => anyhow::bail!("reading from the agent: {e}"),
            };
            if n == 0 {
                anyhow::bail!("the agent closed the connection without the rank's exit status");
            }
            inbuf.extend_from_slice(b.get(..n).unwrap_or_default());
            while inbuf.len() >= 5 {
                let msg: Vec<u8> = inbuf.drain(..5).collect();
                if msg.first() == Some(&wrap::MSG_EXIT) {
                    let mut a = [0u8; 4];
                    a.copy_from_slice(msg.get(1..5).unwrap_or(&[0; 4]));
                    return Ok(i32::from_le_bytes(a));
                }
            }
        }
    }
}

fn main() {
    match run() {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("cohort-rankwrap: {e:#}");
            std::process::exit(255)
        }
    }
}
