//! The per-rank wrapper protocol (launchers without MPIR, such as MPICH's hydra).
//!
//! `cohort-rankwrap` connects to the node agent's unix socket and sends one hello frame:
//! an 8-byte header (`CRW1` and the payload length, u32 little-endian) carrying the rank's
//! descriptors as `SCM_RIGHTS`, then the payload (u32 and length-prefixed byte strings, little
//! endian): rank, program (resolved as `execvp` would), argv, cwd, environment, and the
//! number each descriptor has in the rank. Afterwards the wrapper sends `S` + i32 for each
//! signal it receives, and the agent sends `X` + i32 (the rank's wait status) when the rank
//! is gone; the wrapper then exits the same way.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cohort_engine::process::LaunchOptions;

use crate::error::{LaunchError, io_err};

pub const MAGIC: &[u8; 4] = b"CRW1";
/// Largest hello payload accepted.
const MAX_PAYLOAD: usize = 16 << 20;
/// Most descriptors one hello may carry.
pub const MAX_FDS: usize = 16;
pub const MSG_SIGNAL: u8 = b'S';
pub const MSG_EXIT: u8 = b'X';

/// The wait status of a process that exited with `code` (for [`WrappedRank::report_exit`]).
pub fn wait_status_exited(code: i32) -> i32 {
    (code & 0xff) << 8
}

/// The wait status of a process killed by signal `signo`.
pub fn wait_status_killed(signo: i32) -> i32 {
    signo & 0x7f
}

/// The hello a wrapper sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    pub rank: u32,
    pub program: PathBuf,
    pub argv: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
    /// Number in the rank of each descriptor sent, in order.
    pub fd_numbers: Vec<i32>,
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) -> Result<(), LaunchError> {
    let n = u32::try_from(b.len()).map_err(|_| LaunchError::Protocol("string too long".into()))?;
    put_u32(out, n);
    out.extend_from_slice(b);
    Ok(())
}

fn count(n: usize) -> Result<u32, LaunchError> {
    u32::try_from(n).map_err(|_| LaunchError::Protocol("too many items".into()))
}

impl Hello {
    pub fn encode(&self) -> Result<Vec<u8>, LaunchError> {
        let mut out = Vec::new();
        put_u32(&mut out, self.rank);
        put_bytes(&mut out, self.program.as_os_str().as_bytes())?;
        put_u32(&mut out, count(self.argv.len())?);
        for a in &self.argv {
            put_bytes(&mut out, a.as_bytes())?;
        }
        put_bytes(&mut out, self.cwd.as_os_str().as_bytes())?;
        put_u32(&mut out, count(self.env.len())?);
        for (k, v) in &self.env {
            put_bytes(&mut out, k.as_bytes())?;
            put_bytes(&mut out, v.as_bytes())?;
        }
        put_u32(&mut out, count(self.fd_numbers.len())?);
        for n in &self.fd_numbers {
            out.extend_from_slice(&n.to_le_bytes());
        }
        Ok(out)
    }

    pub fn decode(b: &[u8]) -> Result<Hello, LaunchError> {
        let mut r = Reader { b, at: 0 };
        let rank = r.u32()?;
        let program = PathBuf::from(OsString::from_vec(r.bytes()?));
        let argc = r.u32()?;
        let mut argv = Vec::new();
        for _ in 0..argc {
            argv.push(OsString::from_vec(r.bytes()?));
        }
        let cwd = PathBuf::from(OsString::from_vec(r.bytes()?));
        let envc = r.u32()?;
        let mut env = Vec::new();
        for _ in 0..envc {
            let k = OsString::from_vec(r.bytes()?);
            let v = OsString::from_vec(r.bytes()?);
            env.push((k, v));
        }
        let nfd = r.u32()?;
        let mut fd_numbers = Vec::new();
        for _ in 0..nfd {
            let n = r.u32()? as i32;
            if n < 0 {
                return Err(LaunchError::Protocol(format!("bad descriptor number {n}")));
            }
            fd_numbers.push(n);
        }
        if r.at != b.len() {
            return Err(LaunchError::Protocol("trailing bytes in hello".into()));
        }
        if argv.is_empty() {
            return Err(LaunchError::Protocol("empty argv".into()));
        }
        Ok(Hello {
            rank,
            program,
            argv,
            cwd,
            env,
            fd_numbers,
        })
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], LaunchError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| LaunchError::Protocol("truncated hello".into()))?;
        let s = self.b.get(self.at..end).unwrap_or_default();
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, LaunchError> {
        let s = self.take(4)?;
        let mut a = [0u8; 4];
        a.copy_from_slice(s);
        Ok(u32::from_le_bytes(a))
    }

    fn bytes(&mut self) -> Result<Vec<u8>, LaunchError> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }
}

/// Send `data` with `fds` attached (SCM_RIGHTS).
pub fn send_with_fds(sock: &UnixStream, data: &[u8], fds: &[RawFd]) -> Result<(), LaunchError> {
    if fds.len() > MAX_FDS {
        return Err(LaunchError::Protocol("too many descriptors".into()));
    }
    let fd_bytes = std::mem::size_of_val(fds) as u32;
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(fd_bytes) } as usize;
    let mut cbuf = vec![0u64; space.div_ceil(8)];
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: an all-zero msghdr is valid; its pointers are set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        msg.msg_control = cbuf.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: msg_control points at `space` bytes, enough for one header with the fds.
        unsafe {
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(fd_bytes) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr(),
                libc::CMSG_DATA(c).cast::<RawFd>(),
                fds.len(),
            );
        }
    }
    loop {
        // SAFETY: msg and the buffers it points to live across the call.
        let n = unsafe { libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(LaunchError::Io {
                what: "sending the rank's descriptors".into(),
                source: e,
            });
        }
        let n = n as usize;
        if n < data.len() {
            let mut w = sock;
            w.write_all(&data[n..])
                .map_err(io_err("sending the rank's hello"))?;
        }
        return Ok(());
    }
}

/// Receive exactly `buf.len()` bytes, the first part carrying descriptors (close-on-exec).
fn recv_with_fds(sock: &UnixStream, buf: &mut [u8]) -> Result<Vec<OwnedFd>, LaunchError> {
    let fd_bytes = (MAX_FDS * std::mem::size_of::<RawFd>()) as u32;
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(fd_bytes) } as usize;
    let mut cbuf = vec![0u64; space.div_ceil(8)];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: an all-zero msghdr is valid; its pointers are set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    let n = loop {
        // SAFETY: msg and the buffers it points to live across the call.
        let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(LaunchError::Io {
                what: "receiving a rank's hello".into(),
                source: e,
            });
        }
        break n as usize;
    };
    let mut fds = Vec::new();
    // SAFETY: the kernel filled msg_control; CMSG_* walk it within msg_controllen.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(c);
                let len = (*c).cmsg_len as usize - (data as usize - c as usize);
                for i in 0..len / std::mem::size_of::<RawFd>() {
                    let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                    // SAFETY (inner): the descriptor was just created for us by the kernel.
                    fds.push(OwnedFd::from_raw_fd(fd));
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err(LaunchError::Protocol("too many descriptors".into()));
    }
    if n == 0 {
        return Err(LaunchError::Protocol(
            "the wrapper closed the connection before its hello".into(),
        ));
    }
    if n < buf.len() {
        let mut r = sock;
        r.read_exact(&mut buf[n..])
            .map_err(io_err("receiving a rank's hello"))?;
    }
    Ok(fds)
}

/// The agent's listening socket for rank wrappers.
#[derive(Debug)]
pub struct WrapListener {
    listener: UnixListener,
    path: PathBuf,
}

impl WrapListener {
    /// Listen on `path` (a stale socket file there is replaced).
    pub fn bind(path: &Path) -> Result<Self, LaunchError> {
        if std::fs::symlink_metadata(path)
            .map(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()))
            .unwrap_or(false)
        {
            let _ = std::fs::remove_file(path);
        }
        let listener =
            UnixListener::bind(path).map_err(io_err(format!("binding {}", path.display())))?;
        Ok(WrapListener {
            listener,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Wait at most `timeout` for the next wrapper and read its hello.
    pub fn accept(&self, timeout: Duration) -> Result<WrappedRank, LaunchError> {
        let deadline = Instant::now() + timeout;
        let ms = |d: Duration| d.as_millis().min(i32::MAX as u128) as i32;
        let timed_out = || LaunchError::Timeout {
            what: format!("a rank wrapper to connect to {}", self.path.display()),
            secs: timeout.as_secs(),
        };
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let mut pfd = libc::pollfd {
                fd: self.listener.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let r = unsafe { libc::poll(&mut pfd, 1, ms(left)) };
            if r < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(LaunchError::Io {
                    what: "waiting for a rank wrapper".into(),
                    source: e,
                });
            }
            if r == 0 {
                return Err(timed_out());
            }
            let (stream, _) = self
                .listener
                .accept()
                .map_err(io_err("accepting a rank wrapper"))?;
            // A hello that never comes must not hang the agent.
            let left = deadline
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1));
            stream
                .set_read_timeout(Some(left))
                .map_err(io_err("setting a socket timeout"))?;
            return WrappedRank::read_hello(stream);
        }
    }
}

impl Drop for WrapListener {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// One rank handed over by its wrapper: start it with exactly this program, argv, cwd,
/// environment and descriptors (see [`WrappedRank::launch_options`]), then report its end.
#[derive(Debug)]
pub struct WrappedRank {
    pub rank: u32,
    /// The program, resolved by the wrapper against the rank's `PATH` and cwd.
    pub program: PathBuf,
    pub argv: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
    /// Descriptors for the rank and their numbers there (stdin, stdout, stderr, PMI socket).
    pub fds: Vec<(OwnedFd, i32)>,
    stream: UnixStream,
    inbuf: Vec<u8>,
    reported: bool,
}

impl WrappedRank {
    fn read_hello(stream: UnixStream) -> Result<WrappedRank, LaunchError> {
        let mut head = [0u8; 8];
        let fds = recv_with_fds(&stream, &mut head)?;
        if &head[..4] != MAGIC {
            return Err(LaunchError::Protocol("not a cohort-rankwrap hello".into()));
        }
        let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        if len > MAX_PAYLOAD {
            return Err(LaunchError::Protocol(format!("hello of {len} bytes")));
        }
        let mut payload = vec![0u8; len];
        let mut r = &stream;
        r.read_exact(&mut payload)
            .map_err(io_err("receiving a rank's hello"))?;
        let h = Hello::decode(&payload)?;
        if h.fd_numbers.len() != fds.len() {
            return Err(LaunchError::Protocol(format!(
                "{} descriptor numbers for {} descriptors",
                h.fd_numbers.len(),
                fds.len()
            )));
        }
        stream
            .set_read_timeout(None)
            .map_err(io_err("setting a socket timeout"))?;
        Ok(WrappedRank {
            rank: h.rank,
            program: h.program,
            argv: h.argv,
            cwd: h.cwd,
            env: h.env,
            fds: fds.into_iter().zip(h.fd_numbers).collect(),
            stream,
            inbuf: Vec::new(),
            reported: false,
        })
    }

    /// Options that start the rank as the wrapper asked (the descriptors move into them).
    pub fn launch_options(&mut self) -> LaunchOptions {
        LaunchOptions {
            program: self.program.clone(),
            args: self.argv.iter().skip(1).cloned().collect(),
            env: Some(self.env.clone()),
            cwd: Some(self.cwd.clone()),
            fds: std::mem::take(&mut self.fds)
                .into_iter()
                .map(|(fd, n)| (std::sync::Arc::new(fd), n))
                .collect(),
            ..Default::default()
        }
    }

    /// Tell the wrapper the rank is gone; `status` is its wait status (see
    /// [`wait_status_exited`], [`wait_status_killed`]). The wrapper exits the same way.
    pub fn report_exit(&mut self, status: i32) -> Result<(), LaunchError> {
        let mut msg = [0u8; 5];
        msg[0] = MSG_EXIT;
        msg[1..].copy_from_slice(&status.to_le_bytes());
        self.stream
            .set_nonblocking(false)
            .map_err(io_err("socket mode"))?;
        self.stream
            .write_all(&msg)
            .map_err(io_err("reporting the rank's exit to its wrapper"))?;
        self.reported = true;
        Ok(())
    }

    /// A signal the wrapper received and forwarded (to deliver to the rank), if one came.
    pub fn take_forwarded_signal(&mut self) -> Option<i32> {
        if self.inbuf.len() < 5 && self.stream.set_nonblocking(true).is_ok() {
            let mut b = [0u8; 64];
            while let Ok(n) = (&self.stream).read(&mut b) {
                if n == 0 {
                    break;
                }
                self.inbuf.extend_from_slice(b.get(..n).unwrap_or_default());
            }
            let _ = self.stream.set_nonblocking(false);
        }
        while self.inbuf.len() >= 5 {
            let msg: Vec<u8> = self.inbuf.drain(..5).collect();
            if msg.first() == Some(&MSG_SIGNAL) {
                let mut a = [0u8; 4];
                a.copy_from_slice(msg.get(1..5).unwrap_or(&[0; 4]));
                return Some(i32::from_le_bytes(a));
            }
        }
        None
    }

    /// The connection to the wrapper (readable when a forwarded signal arrives), for polling.
    pub fn signal_fd(&self) -> BorrowedFd<'_> {
        self.stream.as_fd()
    }

    pub fn reported(&self) -> bool {
        self.reported
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello() -> Hello {
        Hello {
            rank: 3,
            program: "/bin/prog".into(),
            argv: vec!["prog".into(), "a b".into()],
            cwd: "/tmp".into(),
            env: vec![("K".into(), "v=1".into())],
            fd_numbers: vec![0, 1, 2, 7],
        }
    }

    #[test]
    fn hello_round_trips() {
        let h = hello();
        assert_eq!(Hello::decode(&h.encode().unwrap()).unwrap(), h);
    }

    #[test]
    fn truncated_or_padded_hello_is_an_error() {
        let b = hello().encode().unwrap();
        for n in 0..b.len() {
            assert!(matches!(
                Hello::decode(&b[..n]),
                Err(LaunchError::Protocol(_))
            ));
        }
        let mut long = b.clone();
        long.push(0);
        assert!(Hello::decode(&long).is_err());
        // A huge length must not allocate or panic.
        let mut bad = b.clone();
        bad[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Hello::decode(&bad).is_err());
    }
}
